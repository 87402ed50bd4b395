// SPDX-License-Identifier: GPL-2.0
/*
 * Revoke storms: per target (the test device, a tmpfs and an ext4 file,
 * the ALSA control and PCM nodes of snd-dummy, an snd-aloop PCM mapped
 * (data, status and control pages), the evdev node of a uinput keyboard
 * that a feeder types on), worker processes run random operations on their
 * descriptors (open, close, read, write, ioctl, poll, epoll, select, mmap
 * and a touch of the mapping, fork, dup, SCM_RIGHTS, fcntl O_ASYNC, flock)
 * while revokers loop revokeat() on the node, several at once.  Now and
 * then the device is unplugged and plugged back: the sound card unbound
 * from its driver and bound again, the uinput device destroyed and made
 * again.
 *
 * Each operation is checked against a sequence counter shared by all:
 * a descriptor (or its dup, fork or SCM_RIGHTS copy) carries the number
 * drawn when its open returned; a revoker draws one before it calls
 * revokeat() and, once the call returned, raises "the latest start of a
 * completed revoke" to it.  An operation draws that latest start when it
 * begins: if it is past the descriptor's number, a revoke that began
 * after the open completed before the operation, which must then fail
 * with the contract's errno.  A descriptor opened before an unplug began
 * belongs to a device that is gone: what it answers is the unplug's
 * (ENODEV), which the storm accepts without judging it.  A sleeper blocked
 * in a read (a write, for a PCM) must return within 5 s of the revoke of
 * its file, an unbind must end within 20 s.  After the storm a fresh
 * opener works (the PCM plays, the keyboard is grabbed and read) and
 * /proc/sys/fs/file-nr is back to where it was.
 *
 * REVOKE_STORM_SECONDS (default 3) is the length of each target's storm,
 * REVOKE_STORM_TARGETS (default all) a comma-separated list of targets,
 * REVOKE_STORM_UNPLUG (default 1) the seconds between two unplugs (0: no
 * unplug): make check runs the default slice, make stress long ones.
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "revoke_util.h"
#include "input_util.h"
#include "sound_util.h"

#define WORKERS		4
#define REVOKERS	2
#define MAX_FDS		12
#define MAX_MAPS	4
#define BLOCKED_SEC	5.0
#define UNBIND_MS	20000
#define PCM_LEN		(BUFFER_FRAMES * FRAME_BYTES)

enum op {
	OP_OPEN, OP_CLOSE, OP_READ, OP_WRITE, OP_IOCTL, OP_POLL, OP_EPOLL,
	OP_MMAP, OP_TOUCH, OP_FORK, OP_DUP, OP_SCM, OP_ASYNC, OP_FLOCK,
	OP_SELECT, OP_MAX
};

static const char * const op_names[OP_MAX] = {
	"open", "close", "read", "write", "ioctl", "poll", "epoll", "mmap",
	"touch", "fork", "dup", "scm_rights", "fcntl_async", "flock",
	"select",
};

/* What a mapping of a target is, which decides what a touch shows. */
enum map_kind { MAP_DATA, MAP_PCM_STATUS, MAP_PCM_CONTROL };

/* One target of a storm: a path and what its operations may do. */
struct target {
	const char *name;
	char path[300];
	int oflags;
	int revoked_errno;	/* what a revoked descriptor answers */
	int live_errnos[4];	/* refusals of the driver's own: it ran */
	unsigned int ops;	/* the operations it has, 1 << enum op */
	enum op fork_op;	/* what a forked child does with the file */
	bool sleeper;		/* a blocking call that the revoke must end */
	bool pcm;		/* an ALSA PCM: set up, written, mapped */
	int pcm_access;		/* the access its workers set up */
	/* An ioctl that reaches the driver on a live descriptor. */
	int (*ioctl)(int fd, unsigned int *seed);
	/* Something a fresh opener can do after the storm; 0 if it worked. */
	int (*fresh)(struct target *t);
	/* The unplug: the card's platform device and driver, or evdev's. */
	const char *pdrv, *pdev, *card_id, *node_fmt;
	bool uinput;
	struct udev kbd;	/* evdev: the keyboard */
	pid_t feeder;		/* evdev: the process that types */
	char mnt[64];		/* a file system of its own */
	int loop;		/* ext4: its loop device */
};

/* Counters shared by every process of a storm. */
struct shared {
	uint64_t seq;			/* the sequence counter */
	uint64_t done_start;		/* latest start of a completed revoke */
	uint64_t unplug_start;		/* latest start of an unplug */
	uint32_t unplug_gen;		/* odd while the device is unplugged */
	char path[300];			/* the node; changes while unplugged */
	uint64_t ops[OP_MAX];
	uint64_t revokes, unplugs;
	uint64_t violations, unexpected, blocked;
	uint64_t killed;		/* revokers killed, maybe in revokeat() */
	uint64_t errnos[134];		/* by errno; [0]: successes */
	int stop;
	int reported;			/* the first violation was described */
	char first[256];
	/* The sleeper: 0, or the number of the descriptor it blocks on. */
	uint64_t sleeper_o;
};

static struct shared *sh;
static struct target *tgt;

/* The latest unplug start when this process's current operation began. */
static uint64_t op_unplug;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static uint64_t draw(void)
{
	return __atomic_add_fetch(&sh->seq, 1, __ATOMIC_SEQ_CST);
}

static uint64_t latest_done(void)
{
	return __atomic_load_n(&sh->done_start, __ATOMIC_SEQ_CST);
}

static uint64_t latest_unplug(void)
{
	return __atomic_load_n(&sh->unplug_start, __ATOMIC_SEQ_CST);
}

static uint32_t unplug_gen(void)
{
	return __atomic_load_n(&sh->unplug_gen, __ATOMIC_SEQ_CST);
}

/* An operation begins: its number @s, the latest completed revoke's @m. */
static void begin(uint64_t *s, uint64_t *m)
{
	*s = draw();
	*m = latest_done();
	op_unplug = latest_unplug();
}

static void count(uint64_t *c)
{
	__atomic_add_fetch(c, 1, __ATOMIC_RELAXED);
}

/* The node's path now, with the unplug generation it belongs to. */
static uint32_t cur_path(char *buf, size_t len)
{
	uint32_t gen;

	do {
		gen = unplug_gen();
		snprintf(buf, len, "%s", sh->path);
	} while (gen != unplug_gen());
	return gen;
}

static void report(const char *what, const char *op, uint64_t o, uint64_t m,
		   uint64_t s, int err)
{
	if (__atomic_exchange_n(&sh->reported, 1, __ATOMIC_SEQ_CST))
		return;
	snprintf(sh->first, sizeof(sh->first),
		 "%s: %s on a descriptor opened at %llu, latest completed revoke began at %llu, operation at %llu: %s",
		 what, op, (unsigned long long)o, (unsigned long long)m,
		 (unsigned long long)s, err ? strerror(err) : "succeeded");
}

static bool live_errno(int err)
{
	int i;

	for (i = 0; i < 4 && tgt->live_errnos[i]; i++)
		if (err == tgt->live_errnos[i])
			return true;
	return false;
}

/*
 * The verdict on one operation of a descriptor opened at @o, begun (see
 * begin()) at @s when the latest completed revoke had begun at @m: @err
 * is 0 if it succeeded (reached the file), else its errno.
 */
static void judge(enum op op, uint64_t o, uint64_t m, uint64_t s, int err)
{
	/* Opened before an unplug: the unplug's, not the revoke's, to judge. */
	bool orphan = op_unplug > o;
	bool revoked = m > o && !orphan;

	count(&sh->ops[op]);
	/* select() has no errno: its verdict is not one. */
	if (op != OP_SELECT)
		count(&sh->errnos[err < 134 ? err : 0]);
	/* The driver answered: it ran the operation. */
	if (err && live_errno(err))
		err = 0;
	if (!err) {
		if (revoked) {
			count(&sh->violations);
			report("violation", op_names[op], o, m, s, 0);
		}
		return;
	}
	if (err == tgt->revoked_errno || err == EBADF)
		return;
	/* An open that raced with a revoke (revoke_open_check()). */
	if (op == OP_OPEN && err == ENXIO)
		return;
	if (!revoked && (err == EAGAIN || err == EBUSY || err == EINTR))
		return;
	/* A device unplugged since the open (ENODEV, or ENXIO once revoked). */
	if ((err == ENODEV || err == ENXIO) && latest_unplug() > o)
		return;
	count(&sh->unexpected);
	report("unexpected errno", op_names[op], o, m, s, err);
}

/* ---- the targets -------------------------------------------------------- */

static int ioctl_test(int fd, unsigned int *seed)
{
	return ioctl(fd, REVOKE_TEST_IOC_NOP);
}

static int ioctl_fionread(int fd, unsigned int *seed)
{
	int n;

	return ioctl(fd, FIONREAD, &n);
}

static int ioctl_ctl(int fd, unsigned int *seed)
{
	int v;

	return ioctl(fd, SNDRV_CTL_IOCTL_PVERSION, &v);
}

/* The version, or a grab (and its release) of the keyboard. */
static int ioctl_evdev(int fd, unsigned int *seed)
{
	int v;

	if (rand_r(seed) % 2)
		return ioctl(fd, EVIOCGVERSION, &v);
	if (ioctl(fd, EVIOCGRAB, 1))
		return -1;
	return ioctl(fd, EVIOCGRAB, 0);
}

/* A PCM's life: set up, started, stopped, asked for its state. */
static int ioctl_pcm(int fd, unsigned int *seed)
{
	struct snd_pcm_status st;
	int v;

	switch (rand_r(seed) % 5) {
	case 0:
		return ioctl(fd, SNDRV_PCM_IOCTL_PVERSION, &v);
	case 1:
		return pcm_setup(fd, tgt->pcm_access);
	case 2:
		return ioctl(fd, SNDRV_PCM_IOCTL_START);
	case 3:
		return ioctl(fd, SNDRV_PCM_IOCTL_DROP);
	default:
		memset(&st, 0, sizeof(st));
		return ioctl(fd, SNDRV_PCM_IOCTL_STATUS_EXT, &st);
	}
}

static int fresh_ioctl(struct target *t)
{
	unsigned int seed = 0;
	int fd = open(t->path, t->oflags);
	int ret;

	if (fd < 0)
		return -1;
	ret = t->ioctl(fd, &seed);
	close(fd);
	return ret;
}

static int fresh_file(struct target *t)
{
	char buf[4] = {};
	int fd = open(t->path, O_RDWR);
	int ret;

	if (fd < 0)
		return -1;
	ret = pwrite(fd, "new", 3, 0) == 3 && pread(fd, buf, 3, 0) == 3 &&
	      !memcmp(buf, "new", 3) ? 0 : -1;
	close(fd);
	return ret;
}

/* The keyboard can be grabbed, and a key typed now is read. */
static int fresh_evdev(struct target *t)
{
	struct input_event ev;
	int fd = open(t->path, O_RDWR);
	int ret = -1, i;

	if (fd < 0)
		return -1;
	if (ioctl(fd, EVIOCGRAB, 1))
		goto out;
	udev_emit(&t->kbd, EV_KEY, KEY_A, 1);
	udev_emit(&t->kbd, EV_SYN, SYN_REPORT, 0);
	for (i = 0; i < 100; i++)
		if (read(fd, &ev, sizeof(ev)) == sizeof(ev) && ev.type == EV_KEY) {
			ret = 0;
			break;
		}
	ioctl(fd, EVIOCGRAB, 0);
out:
	close(fd);
	return ret;
}

/*
 * The PCM plays: every substream is free again (a substream held by a
 * revoked file would answer EBUSY), and one plays a buffer and a half.
 */
static int fresh_pcm(struct target *t)
{
	static char frames[PCM_LEN * 3 / 2];
	struct snd_pcm_info info = {};
	int fds[16], n, i, ret = -1;
	ssize_t done;

	/* The first blocking: O_NONBLOCK of a PCM is the open's. */
	for (n = 0; n < 16; n++) {
		fds[n] = open(t->path, O_RDWR | (n ? O_NONBLOCK : 0));
		if (fds[n] < 0)
			break;
	}
	if (!n || ioctl(fds[0], SNDRV_PCM_IOCTL_INFO, &info) ||
	    n != (int)info.subdevices_count)
		ksft_print_msg("%s: %d of %u substreams opened\n", t->name, n,
			       info.subdevices_count);
	else if (pcm_setup(fds[0], SNDRV_PCM_ACCESS_RW_INTERLEAVED))
		ksft_print_msg("%s: set-up: %s\n", t->name, strerror(errno));
	else
		ret = 0;
	if (!ret) {
		done = write(fds[0], frames, sizeof(frames));
		if (done != sizeof(frames)) {
			ksft_print_msg("%s: play: %zd of %zu bytes: %s\n",
				       t->name, done, sizeof(frames),
				       strerror(errno));
			ret = -1;
		}
	}
	for (i = 0; i < n; i++)
		close(fds[i]);
	return ret;
}

#define OPS(op)	(1U << (op))
/* What every target does. */
#define OPS_COMMON	(OPS(OP_OPEN) | OPS(OP_CLOSE) | OPS(OP_READ) | \
			 OPS(OP_IOCTL) | OPS(OP_FORK) | OPS(OP_DUP) | \
			 OPS(OP_SCM) | OPS(OP_ASYNC))
/* What a device node adds. */
#define OPS_DEVICE	(OPS(OP_POLL) | OPS(OP_EPOLL) | OPS(OP_SELECT))
/* What a regular file adds. */
#define OPS_FILE	(OPS(OP_WRITE) | OPS(OP_MMAP) | OPS(OP_TOUCH) | \
			 OPS(OP_FLOCK))

/* A file on a file system of its own: tmpfs, or ext4 on a loop device. */
static int file_setup(struct target *t, const char *fs)
{
	char dev[32];
	int fd;

	snprintf(t->mnt, sizeof(t->mnt), "/mnt/storm-%s", fs);
	mkdir("/mnt", 0755);
	mkdir(t->mnt, 0755);
	if (!strcmp(fs, "ext4")) {
		t->loop = loop_attach("/images/ext4.img");
		if (t->loop < 0)
			return -1;
		snprintf(dev, sizeof(dev), "/proc/self/fd/%d", t->loop);
		if (mount(dev, t->mnt, "ext4", 0, NULL))
			return -1;
	} else if (mount("tmpfs", t->mnt, "tmpfs", 0, NULL)) {
		return -1;
	}
	snprintf(t->path, sizeof(t->path), "%s/storm-file", t->mnt);
	fd = open(t->path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, 4 * 4096))
		return -1;
	close(fd);
	t->revoked_errno = EBADF;
	t->ops |= OPS_FILE;
	t->ioctl = ioctl_fionread;
	t->fresh = fresh_file;
	return 0;
}

/* The feeder types a key every millisecond on the keyboard. */
static void feeder_start(struct target *t)
{
	t->feeder = fork();
	if (t->feeder == 0) {
		for (;;) {
			udev_emit(&t->kbd, EV_KEY, KEY_B, 1);
			udev_emit(&t->kbd, EV_KEY, KEY_B, 0);
			usleep(1000);
		}
	}
}

static void feeder_stop(struct target *t)
{
	if (t->feeder > 0) {
		kill(t->feeder, SIGKILL);
		waitpid(t->feeder, NULL, 0);
	}
	t->feeder = -1;
}

/* An ALSA node of the card @id: the control node, or a PCM. */
static int snd_setup(struct target *t, const char *id, const char *pdrv,
		     const char *pdev, const char *fmt)
{
	int card = find_card(id);

	if (card < 0)
		return -1;
	t->card_id = id;
	t->pdrv = pdrv;
	t->pdev = pdev;
	t->node_fmt = fmt;
	node(t->path, sizeof(t->path), fmt, card);
	t->ops |= OPS_DEVICE;
	return 0;
}

static int target_setup(struct target *t, const char *name)
{
	memset(t, 0, sizeof(*t));
	t->name = name;
	t->feeder = -1;
	t->loop = -1;
	t->ops = OPS_COMMON;
	t->fork_op = OP_READ;
	t->oflags = O_RDWR | O_NONBLOCK;
	t->revoked_errno = ENXIO;
	if (!strcmp(name, "revoke_test")) {
		snprintf(t->path, sizeof(t->path), "%s", RT_NODE);
		t->ops |= OPS_DEVICE | OPS(OP_WRITE) | OPS(OP_MMAP) |
			  OPS(OP_TOUCH);
		t->sleeper = true;
		t->ioctl = ioctl_test;
		t->fresh = fresh_ioctl;
		return access(t->path, R_OK | W_OK);
	}
	if (!strcmp(name, "tmpfs") || !strcmp(name, "ext4"))
		return file_setup(t, name);
	if (!strcmp(name, "snd_ctl")) {
		/* A read without a subscription to events. */
		t->live_errnos[0] = EBADFD;
		t->ioctl = ioctl_ctl;
		t->fresh = fresh_ioctl;
		return snd_setup(t, "Dummy", "snd_dummy", "snd_dummy.0",
				 "/dev/snd/controlC%d");
	}
	if (!strcmp(name, "snd_pcm") || !strcmp(name, "snd_aloop")) {
		bool aloop = !strcmp(name, "snd_aloop");

		t->pcm = true;
		/* The stream's state, an xrun, a full buffer. */
		t->live_errnos[0] = EBADFD;
		t->live_errnos[1] = EPIPE;
		t->live_errnos[2] = EAGAIN;
		/* A playback stream has no read. */
		t->ops &= ~OPS(OP_READ);
		t->fork_op = OP_IOCTL;
		t->sleeper = true;
		t->ioctl = ioctl_pcm;
		t->fresh = fresh_pcm;
		if (aloop) {
			t->pcm_access = SNDRV_PCM_ACCESS_MMAP_INTERLEAVED;
			t->ops |= OPS(OP_MMAP) | OPS(OP_TOUCH);
			return snd_setup(t, "Loopback", "snd_aloop",
					 "snd_aloop.0", "/dev/snd/pcmC%dD0p");
		}
		t->pcm_access = SNDRV_PCM_ACCESS_RW_INTERLEAVED;
		t->ops |= OPS(OP_WRITE);
		return snd_setup(t, "Dummy", "snd_dummy", "snd_dummy.0",
				 "/dev/snd/pcmC%dD0p");
	}
	if (!strcmp(name, "evdev")) {
		if (udev_create(&t->kbd, "revoke-storm-kbd", CAP_KBD) ||
		    !t->kbd.event[0])
			return -1;
		snprintf(t->path, sizeof(t->path), "%s", t->kbd.event);
		t->uinput = true;
		t->revoked_errno = ENODEV;
		t->ops |= OPS_DEVICE | OPS(OP_WRITE);
		t->sleeper = true;
		t->ioctl = ioctl_evdev;
		t->fresh = fresh_evdev;
		feeder_start(t);
		return t->feeder < 0 ? -1 : 0;
	}
	return -1;
}

static void target_teardown(struct target *t)
{
	feeder_stop(t);
	/* What the workers wrote stays in the device's FIFO: leave it empty. */
	if (!strcmp(t->name, "revoke_test"))
		node_drain(t->path);
	if (t->uinput)
		udev_destroy(&t->kbd);
	if (t->mnt[0])
		umount2(t->mnt, MNT_DETACH);
	if (t->loop >= 0) {
		ioctl(t->loop, LOOP_CLR_FD);
		close(t->loop);
	}
}

/* The card's driver binds it again; the node's new path is published. */
static int plug_back(struct target *t)
{
	char file[128];
	int ret = 0, card, i;

	if (t->uinput) {
		if (udev_create(&t->kbd, "revoke-storm-kbd", CAP_KBD))
			ret = -1;
		snprintf(t->path, sizeof(t->path), "%s", t->kbd.event);
		feeder_start(t);
	} else {
		snprintf(file, sizeof(file),
			 "/sys/bus/platform/drivers/%s/bind", t->pdrv);
		if (write_str(file, t->pdev)) {
			report("unplug failed", "bind", 0, 0, 0, errno);
			ret = -1;
		}
		/* The revokers may revoke find_card()'s file: try again. */
		for (i = 0; i < 100; i++) {
			card = find_card(t->card_id);
			if (card >= 0)
				break;
			usleep(10000);
		}
		if (card < 0) {
			report("unplug failed", "card after bind", 0, 0, 0, errno);
			ret = -1;
		} else {
			node(t->path, sizeof(t->path), t->node_fmt, card);
		}
	}
	snprintf(sh->path, sizeof(sh->path), "%s", t->path);
	__atomic_add_fetch(&sh->unplug_gen, 1, __ATOMIC_SEQ_CST);
	count(&sh->unplugs);
	if (ret)
		count(&sh->unexpected);
	return ret;
}

/*
 * Unplug the device and plug it back: the card unbound from its driver
 * (which waits for the card's files to be closed: the workers close what
 * answers ENODEV) and bound again, or the uinput device destroyed and
 * made again.  Returns 0; or the pid of an unbind that did not end in
 * time, which the caller reaps (and plugs back) once the storm stopped.
 */
static pid_t unplug(struct target *t)
{
	char file[128];
	pid_t pid;

	__atomic_add_fetch(&sh->unplug_gen, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&sh->unplug_start, draw(), __ATOMIC_SEQ_CST);
	if (t->uinput) {
		feeder_stop(t);
		udev_destroy(&t->kbd);
		plug_back(t);
		return 0;
	}
	pid = fork();
	if (pid == 0) {
		snprintf(file, sizeof(file),
			 "/sys/bus/platform/drivers/%s/unbind", t->pdrv);
		_exit(write_str(file, t->pdev) ? 1 : 0);
	}
	if (reap_within(pid, UNBIND_MS) == -2) {
		count(&sh->blocked);
		report("blocked", "unbind of the card", 0, 0, 0, 0);
		return pid;
	}
	plug_back(t);
	return 0;
}

/* ---- a worker ------------------------------------------------------------ */

struct desc {
	int fd;
	uint64_t o;		/* drawn when its open returned */
};

struct mapping {
	unsigned int *addr;
	size_t len;
	enum map_kind kind;
	uint64_t o;
};

static sigjmp_buf bus_jmp;

static void on_sigbus(int sig)
{
	siglongjmp(bus_jmp, 1);
}

/* Read the first word of a mapping into @val: whether it raised SIGBUS. */
static bool touch_bus(unsigned int *p, unsigned int *val)
{
	if (sigsetjmp(bus_jmp, 1))
		return true;
	*val = __atomic_load_n(p, __ATOMIC_RELAXED);
	return false;
}

/* The result of a touch: 0 if it reached the file's pages, else an errno. */
static int touch(struct mapping *mp)
{
	unsigned int val;

	if (touch_bus(mp->addr, &val))
		return tgt->revoked_errno;
	/* A revoked PCM's status page stays, and says DISCONNECTED. */
	if (mp->kind == MAP_PCM_STATUS && val == SNDRV_PCM_STATE_DISCONNECTED)
		return tgt->revoked_errno;
	return 0;
}

/* Map one page of a file, or a PCM's data, status or control page. */
static void *map(int fd, unsigned int *seed, struct mapping *mp)
{
	static const off_t offs[] = {
		SNDRV_PCM_MMAP_OFFSET_DATA, SNDRV_PCM_MMAP_OFFSET_STATUS_NEW,
		SNDRV_PCM_MMAP_OFFSET_CONTROL_NEW,
	};
	int prot = PROT_READ;
	off_t off = 0;

	mp->kind = MAP_DATA;
	mp->len = 4096;
	if (tgt->pcm) {
		mp->kind = rand_r(seed) % 3;
		off = offs[mp->kind];
		if (mp->kind == MAP_DATA)
			mp->len = PCM_LEN;
		/* alsa-lib maps the control page writable. */
		if (mp->kind == MAP_PCM_CONTROL)
			prot |= PROT_WRITE;
	}
	return mmap(NULL, mp->len, prot, MAP_SHARED, fd, off);
}

/* One operation on descriptor @d; returns its errno, 0 for success. */
static int run_op(enum op op, struct desc *d, unsigned int *seed)
{
	char buf[64] = {};
	int ret = 0;

	switch (op) {
	case OP_READ:
		ret = read(d->fd, buf, sizeof(buf)) < 0 ? errno : 0;
		break;
	case OP_WRITE:
		if (tgt->uinput) {
			struct input_event ev = { .type = EV_SYN };

			ret = write(d->fd, &ev, sizeof(ev)) < 0 ? errno : 0;
		} else {
			/* 16 frames of a PCM. */
			ret = write(d->fd, buf, 64) < 0 ? errno : 0;
		}
		break;
	case OP_IOCTL:
		ret = tgt->ioctl(d->fd, seed) ? errno : 0;
		break;
	case OP_POLL: {
		struct pollfd p = { .fd = d->fd, .events = POLLIN | POLLOUT };

		if (poll(&p, 1, 0) < 0)
			ret = errno;
		else if (p.revents & (POLLERR | POLLHUP | POLLNVAL))
			ret = tgt->revoked_errno;
		break;
	}
	case OP_EPOLL: {
		struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT };
		int ep = epoll_create1(EPOLL_CLOEXEC);

		if (ep < 0)
			return errno;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, d->fd, &ev))
			ret = errno;
		else if (epoll_wait(ep, &ev, 1, 0) == 1 &&
			 (ev.events & (EPOLLERR | EPOLLHUP)))
			ret = tgt->revoked_errno;
		close(ep);
		break;
	}
	case OP_SELECT: {
		struct timeval tv = {};
		fd_set r, w;

		if (d->fd >= FD_SETSIZE)
			break;
		FD_ZERO(&r);
		FD_ZERO(&w);
		FD_SET(d->fd, &r);
		FD_SET(d->fd, &w);
		/* A revoked file (EPOLLERR) is both readable and writable. */
		if (select(d->fd + 1, &r, &w, NULL, &tv) < 0)
			ret = errno;
		else if (FD_ISSET(d->fd, &r) && FD_ISSET(d->fd, &w))
			ret = tgt->revoked_errno;
		break;
	}
	case OP_ASYNC:
		if (fcntl(d->fd, F_SETOWN, getpid()) ||
		    fcntl(d->fd, F_SETFL, O_ASYNC | O_NONBLOCK))
			ret = errno;
		else
			fcntl(d->fd, F_SETFL, O_NONBLOCK);
		break;
	case OP_FLOCK:
		if (flock(d->fd, LOCK_SH | LOCK_NB))
			ret = errno;
		else
			flock(d->fd, LOCK_UN);
		break;
	default:
		break;
	}
	return ret;
}

/* Operations whose outcome says whether the file was revoked. */
static bool judged(enum op op)
{
	/* fcntl(O_ASYNC) only reaches ->fasync: no contract either way. */
	return op != OP_ASYNC;
}

/* Open the node: 0, or the errno that is expected of the open. */
static int worker_open(struct desc *d)
{
	char path[300];
	uint32_t gen = cur_path(path, sizeof(path));
	int fd, err;

	fd = open(path, tgt->oflags | O_CLOEXEC);
	if (fd >= 0) {
		d->fd = fd;
		d->o = draw();
		/*
		 * Maybe a file of the device that is going: judged as one
		 * opened before the unplug.  Drawn first, checked after, so
		 * that an unplug not seen here begins after d->o.
		 */
		if ((gen & 1) || gen != unplug_gen())
			d->o = 0;
		count(&sh->ops[OP_OPEN]);
		return 0;
	}
	err = errno;
	/* The node is gone, or going, while the device is unplugged. */
	if ((gen & 1) || gen != unplug_gen()) {
		count(&sh->ops[OP_OPEN]);
		count(&sh->errnos[err < 134 ? err : 0]);
		if (err != ENOENT && err != ENODEV && err != ENXIO &&
		    err != EBUSY && err != EAGAIN) {
			count(&sh->unexpected);
			report("unexpected errno", "open while unplugged", 0, 0,
			       0, err);
		}
		return err;
	}
	/* A revoke does not refuse opens. */
	op_unplug = 0;
	judge(OP_OPEN, 0, 0, draw(), err);
	return err;
}

static void worker(int id)
{
	struct desc fds[MAX_FDS];
	struct mapping maps[MAX_MAPS];
	unsigned int seed = getpid() ^ (id << 16);
	int nfds = 0, nmaps = 0, sock[2], i;
	struct sigaction sa = { .sa_handler = on_sigbus };
	enum op usable[OP_MAX];
	int nusable = 0;

	sigaction(SIGBUS, &sa, NULL);
	signal(SIGIO, SIG_IGN);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sock))
		_exit(2);
	for (i = 0; i < OP_MAX; i++)
		if (tgt->ops & OPS(i))
			usable[nusable++] = i;

	while (!__atomic_load_n(&sh->stop, __ATOMIC_RELAXED)) {
		enum op op = usable[rand_r(&seed) % nusable];
		struct desc *d;
		uint64_t m, s;
		int err = 0, k;

		if (op == OP_OPEN || !nfds) {
			if (nfds == MAX_FDS) {
				k = rand_r(&seed) % nfds;
				close(fds[k].fd);
				fds[k] = fds[--nfds];
			}
			if (worker_open(&fds[nfds]))
				usleep(100);
			else
				nfds++;
			continue;
		}
		k = rand_r(&seed) % nfds;
		d = &fds[k];
		switch (op) {
		case OP_CLOSE:
			close(d->fd);
			*d = fds[--nfds];
			count(&sh->ops[op]);
			continue;
		case OP_DUP:
		case OP_SCM:
			if (nfds == MAX_FDS)
				continue;
			if (op == OP_DUP)
				fds[nfds].fd = fcntl(d->fd, F_DUPFD_CLOEXEC, 0);
			else if (!send_fd(sock[0], d->fd))
				fds[nfds].fd = recv_fd(sock[1]);
			else
				fds[nfds].fd = -1;
			if (fds[nfds].fd < 0) {
				op_unplug = 0;
				judge(op, 0, 0, draw(), errno);
				continue;
			}
			fds[nfds].o = d->o;
			nfds++;
			count(&sh->ops[op]);
			continue;
		case OP_MMAP: {
			struct mapping mp;
			void *p;

			begin(&s, &m);
			p = map(d->fd, &seed, &mp);
			err = p == MAP_FAILED ? errno : 0;
			judge(op, d->o, m, s, err);
			if (err)
				break;
			if (nmaps == MAX_MAPS) {
				munmap((void *)maps[0].addr, maps[0].len);
				maps[0] = maps[--nmaps];
			}
			mp.addr = p;
			mp.o = d->o;
			maps[nmaps++] = mp;
			continue;
		}
		case OP_TOUCH: {
			struct mapping *mp;

			if (!nmaps)
				continue;
			mp = &maps[rand_r(&seed) % nmaps];
			begin(&s, &m);
			/* The control page has no contract after a revoke. */
			if (mp->kind == MAP_PCM_CONTROL)
				count(&sh->ops[op]);
			else
				judge(op, mp->o, m, s, touch(mp));
			/* A mapping of an unplugged device keeps its card. */
			if (op_unplug > mp->o) {
				munmap((void *)mp->addr, mp->len);
				*mp = maps[--nmaps];
			}
			continue;
		}
		case OP_FORK: {
			pid_t pid = fork();

			if (pid < 0)
				continue;
			if (pid == 0) {
				begin(&s, &m);
				judge(tgt->fork_op, d->o, m, s,
				      run_op(tgt->fork_op, d, &seed));
				_exit(0);
			}
			waitpid(pid, NULL, 0);
			count(&sh->ops[op]);
			continue;
		}
		default:
			begin(&s, &m);
			err = run_op(op, d, &seed);
			if (judged(op))
				judge(op, d->o, m, s, err);
			else
				count(&sh->ops[op]);
		}
		/* A program closes what answers ENODEV: the unbind waits. */
		if (err == ENODEV && latest_unplug() > d->o) {
			close(d->fd);
			*d = fds[--nfds];
		}
	}
	_exit(0);
}

static void on_sigusr1(int sig)
{
}

/*
 * A revoker: revokeat() in a loop, each completion published.  The storm
 * sends it handled signals (SIGUSR1, without SA_RESTART, set up before
 * the fork), which must not interrupt the call, and kills it now and then.
 */
static void revoker(int id)
{
	unsigned int seed = getpid() ^ (id << 8);
	char path[300];

	while (!__atomic_load_n(&sh->stop, __ATOMIC_RELAXED)) {
		uint32_t gen = cur_path(path, sizeof(path));
		uint64_t r0 = draw(), cur;

		if (sys_revokeat(AT_FDCWD, path, 0)) {
			int err = errno;

			/* No node, or no device, while it is unplugged. */
			if (((gen & 1) || gen != unplug_gen()) &&
			    (err == ENOENT || err == ENODEV || err == ENXIO)) {
				usleep(1000);
				continue;
			}
			count(&sh->unexpected);
			report("revokeat() failed", "revokeat", 0, r0, 0, err);
			continue;
		}
		/* Which device it revoked is not known: nothing to publish. */
		if ((gen & 1) || gen != unplug_gen())
			continue;
		cur = latest_done();
		while (cur < r0 &&
		       !__atomic_compare_exchange_n(&sh->done_start, &cur, r0,
						    false, __ATOMIC_SEQ_CST,
						    __ATOMIC_SEQ_CST))
			;
		count(&sh->revokes);
		usleep(rand_r(&seed) % 20000);
	}
	_exit(0);
}

/* Block in the file until its revoke: a read, or a PCM's writes. */
static void sleep_in(int fd)
{
	static char buf[PCM_LEN];

	if (!tgt->pcm) {
		/* Until the revoke, or data (the keyboard's feeder). */
		while (read(fd, buf, 64) > 0 &&
		       !__atomic_load_n(&sh->stop, __ATOMIC_RELAXED))
			;
		return;
	}
	if (pcm_setup(fd, SNDRV_PCM_ACCESS_RW_INTERLEAVED))
		return;
	while (!__atomic_load_n(&sh->stop, __ATOMIC_RELAXED)) {
		if (write(fd, buf, sizeof(buf)) >= 0)
			continue;
		/* A worker stopped or started the stream. */
		if ((errno != EPIPE && errno != EBADFD) ||
		    ioctl(fd, SNDRV_PCM_IOCTL_PREPARE))
			return;
	}
}

/* A sleeper: a blocking call, which the revoke of its file must end. */
static void sleeper(void)
{
	char path[300];

	while (!__atomic_load_n(&sh->stop, __ATOMIC_RELAXED)) {
		uint32_t gen = cur_path(path, sizeof(path));
		uint64_t o;
		int fd;

		/*
		 * Blocking (a PCM takes O_NONBLOCK from the open only, and
		 * its open waits for a free substream, which a revoke frees).
		 */
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			usleep(1000);
			continue;
		}
		o = draw();
		/* A file of the device that is going: the unplug ends it. */
		if ((gen & 1) || gen != unplug_gen())
			o = 0;
		__atomic_store_n(&sh->sleeper_o, o, __ATOMIC_SEQ_CST);
		sleep_in(fd);
		__atomic_store_n(&sh->sleeper_o, 0, __ATOMIC_SEQ_CST);
		close(fd);
	}
	_exit(0);
}

static long file_nr(void)
{
	FILE *f = fopen("/proc/sys/fs/file-nr", "r");
	long n = -1;

	if (f) {
		if (fscanf(f, "%ld", &n) != 1)
			n = -1;
		fclose(f);
	}
	return n;
}

/* The counters shared by the processes of one run, zeroed; or MAP_FAILED. */
static struct shared *shared_map(void)
{
	return mmap(NULL, sizeof(struct shared), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
}

/* A number from the environment variable @name, or @def. */
static double env_number(const char *name, double def)
{
	const char *s = getenv(name);

	return s && *s ? atof(s) : def;
}

static double storm_seconds(void)
{
	double s = env_number("REVOKE_STORM_SECONDS", 3);

	return s > 0 ? s : 3;
}

static bool storm_selected(const char *name)
{
	const char *s = getenv("REVOKE_STORM_TARGETS");
	char list[256];
	char *tok, *save;

	if (!s || !*s)
		return true;
	snprintf(list, sizeof(list), "%s", s);
	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save))
		if (!strcmp(tok, name))
			return true;
	return false;
}

static void run_storm(struct __test_metadata *_metadata, const char *name)
{
	struct sigaction sa = { .sa_handler = on_sigusr1 };
	pid_t pids[WORKERS + REVOKERS + 1];
	int npids = 0, i, e;
	struct target t;
	uint64_t end, next_unplug, seen_o = 0, seen_ns = 0, ops = 0;
	double every = env_number("REVOKE_STORM_UNPLUG", 1);
	long base, after = -1, slack;
	pid_t watchdog, unbind = 0;
	char hist[512] = "";

	/* Not a skip: the runner would count it as a failure. */
	if (!storm_selected(name)) {
		ksft_print_msg("storm %s: not in REVOKE_STORM_TARGETS\n", name);
		return;
	}
	sh = shared_map();
	ASSERT_NE(sh, MAP_FAILED);
	tgt = &t;
	ASSERT_EQ(target_setup(&t, name), 0)
		TH_LOG("%s: no target (%s)", name, strerror(errno));
	snprintf(sh->path, sizeof(sh->path), "%s", t.path);
	/* Files have no unplug. */
	if (!t.pdrv && !t.uinput)
		every = 0;
	base = file_nr();
	/*
	 * The watchdog: a storm that has not ended a minute after its time
	 * dumps every task's stack (work items' too) to the console.
	 */
	watchdog = fork();
	if (watchdog == 0) {
		sleep(storm_seconds() + 60);
		write_str("/proc/sysrq-trigger", "t");
		_exit(0);
	}

	for (i = 0; i < WORKERS; i++) {
		pids[npids] = fork();
		if (pids[npids++] == 0)
			worker(i);
	}
	/* Inherited: a revoker signalled before it could set it would die. */
	sigaction(SIGUSR1, &sa, NULL);
	for (i = 0; i < REVOKERS; i++) {
		pids[npids] = fork();
		if (pids[npids++] == 0)
			revoker(i);
	}
	if (t.sleeper) {
		pids[npids] = fork();
		if (pids[npids++] == 0)
			sleeper();
	}

	end = now_ns() + storm_seconds() * 1e9;
	next_unplug = every > 0 ? now_ns() + every * 1e9 : UINT64_MAX;
	while (now_ns() < end) {
		uint64_t o = __atomic_load_n(&sh->sleeper_o, __ATOMIC_SEQ_CST);
		int r = WORKERS + rand() % REVOKERS;

		/* A handled signal, or a kill (and a new revoker). */
		if (rand() % 4 || getenv("REVOKE_STORM_NOKILL")) {
			kill(pids[r], SIGUSR1);
		} else if (!kill(pids[r], SIGKILL)) {
			waitpid(pids[r], NULL, 0);
			count(&sh->killed);
			pids[r] = fork();
			if (pids[r] == 0)
				revoker(r);
		}

		/* Its file revoked: seen first now, the call must end soon. */
		if (o && latest_done() > o) {
			if (seen_o != o) {
				seen_o = o;
				seen_ns = now_ns();
			} else if (now_ns() - seen_ns > BLOCKED_SEC * 1e9) {
				count(&sh->blocked);
				report("blocked", "sleeper's call", o,
				       latest_done(), 0, 0);
				break;
			}
		}
		if (now_ns() >= next_unplug) {
			unbind = unplug(&t);
			if (unbind)
				break;
			next_unplug = now_ns() + every * 1e9;
		}
		usleep(100000);
	}
	__atomic_store_n(&sh->stop, 1, __ATOMIC_SEQ_CST);
	/* The sleeper may wait for one more revoke. */
	sys_revokeat(AT_FDCWD, t.path, 0);
	for (i = 0; i < npids; i++) {
		if (reap_within(pids[i], 10000) == -2) {
			count(&sh->blocked);
			report("did not stop", "a storm process", 0, 0, 0, 0);
			kill(pids[i], SIGKILL);
			waitpid(pids[i], NULL, 0);
		}
	}
	/* An unbind that waited: its card's files are closed now. */
	if (unbind) {
		EXPECT_NE(reap_within(unbind, UNBIND_MS), -2);
		EXPECT_EQ(plug_back(&t), 0);
	}

	kill(watchdog, SIGKILL);
	waitpid(watchdog, NULL, 0);
	/* A fresh opener works at once. */
	EXPECT_EQ(t.fresh(&t), 0) TH_LOG("%s: a fresh opener fails (%s)",
					 name, strerror(errno));
	/*
	 * Every file of the storm is freed (fput is deferred a little).  The
	 * count is a per-CPU counter read without its per-CPU deltas: each
	 * CPU may hold back up to its batch (32, or twice the CPUs).
	 */
	slack = 2 * (sysconf(_SC_NPROCESSORS_ONLN) > 16 ?
		     2 * sysconf(_SC_NPROCESSORS_ONLN) : 32) *
		sysconf(_SC_NPROCESSORS_ONLN);
	for (i = 0; i < 100; i++) {
		after = file_nr();
		if (after <= base + slack)
			break;
		usleep(20000);
	}
	for (e = 0; e < OP_MAX; e++)
		ops += sh->ops[e];
	for (e = 1; e < 134; e++)
		if (sh->errnos[e])
			snprintf(hist + strlen(hist), sizeof(hist) - strlen(hist),
				 " %s %llu", strerrorname_np(e) ?: "?",
				 (unsigned long long)sh->errnos[e]);
	ksft_print_msg("storm %s: %.0f s, ops %llu, revokes %llu (%llu killed), unplugs %llu,\n",
		       name, storm_seconds(), (unsigned long long)ops,
		       (unsigned long long)sh->revokes,
		       (unsigned long long)sh->killed,
		       (unsigned long long)sh->unplugs);
	ksft_print_msg("storm %s: violations %llu, unexpected %llu, blocked %llu; errnos:%s\n",
		       name, (unsigned long long)sh->violations,
		       (unsigned long long)sh->unexpected,
		       (unsigned long long)sh->blocked, hist);
	if (sh->reported)
		ksft_print_msg("storm %s: first: %s\n", name, sh->first);
	EXPECT_GT(sh->revokes, 0);
	EXPECT_EQ(sh->violations, 0);
	EXPECT_EQ(sh->unexpected, 0);
	EXPECT_EQ(sh->blocked, 0);
	EXPECT_LE(after, base + slack)
		TH_LOG("file-nr %ld after, %ld before", after, base);
	target_teardown(&t);
	munmap(sh, sizeof(*sh));
}

/* ---- leaks ----------------------------------------------------------- */

/* A field of /proc/meminfo, in kB, or -1. */
static long meminfo_kb(const char *field)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	long v = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, strlen(field)) &&
		    line[strlen(field)] == ':') {
			v = atol(line + strlen(field) + 1);
			break;
		}
	fclose(f);
	return v;
}

/*
 * The free pages on the per-CPU lists, in kB: MemAvailable does not count
 * them, and how many they hold follows the allocations, not leaks.
 */
static long pcp_kb(void)
{
	FILE *f = fopen("/proc/zoneinfo", "r");
	char line[128];
	long pages = 0, v;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " count: %ld", &v) == 1)
			pages += v;
	fclose(f);
	return pages * (sysconf(_SC_PAGESIZE) / 1024);
}

/* The objects in use of slab cache @name (/proc/slabinfo), or -1. */
static long slab_objs(const char *name)
{
	FILE *f = fopen("/proc/slabinfo", "r");
	char line[512], cache[64];
	long active, v = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %ld", cache, &active) == 2 &&
		    !strcmp(cache, name)) {
			v = active;
			break;
		}
	fclose(f);
	return v;
}

/*
 * Let the memory of what was freed come back before it is counted:
 * RCU callbacks (files, revoke objects), deferred fputs, KASAN's
 * quarantine (a cache's shrink empties its part) and the page cache.
 */
static void settle(void)
{
	char path[300];
	struct dirent *de;
	DIR *dir;

	sleep(1);
	dir = opendir("/sys/kernel/slab");
	while (dir && (de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink",
			 de->d_name);
		write_str(path, "1");
	}
	if (dir)
		closedir(dir);
	write_str("/proc/sys/vm/drop_caches", "3");
}

struct usage {
	long avail, unreclaim, filp, rfile;
};

static void usage_now(struct usage *u)
{
	settle();
	u->avail = meminfo_kb("MemAvailable") + pcp_kb();
	u->unreclaim = meminfo_kb("SUnreclaim");
	u->filp = slab_objs("filp");
	u->rfile = slab_objs("revoke_file");
}

/*
 * One cycle on a target: open, use (an ioctl; a mapping touched), revoke,
 * check that the file answers as revoked, close.  0, or -1.
 */
static int cycle(struct target *t, unsigned int *seed)
{
	struct mapping mp = { .addr = MAP_FAILED };
	int fd = open(t->path, t->oflags | O_CLOEXEC);
	int ret = -1;

	if (fd < 0)
		return -1;
	if (t->pcm)
		pcm_setup(fd, t->pcm_access);
	else if (t->ioctl(fd, seed))
		goto out;
	if (t->ops & OPS(OP_MMAP)) {
		mp.addr = map(fd, seed, &mp);
		if (mp.addr == MAP_FAILED || touch(&mp))
			goto out;
	}
	if (sys_revokeat(AT_FDCWD, t->path, 0))
		goto out;
	if (!t->ioctl(fd, seed) || (errno != t->revoked_errno && errno != EBADF))
		goto out;
	if (mp.addr != MAP_FAILED && mp.kind != MAP_PCM_CONTROL && !touch(&mp))
		goto out;
	ret = 0;
out:
	if (mp.addr != MAP_FAILED)
		munmap(mp.addr, mp.len);
	close(fd);
	return ret;
}

/*
 * REVOKE_LEAK_CYCLES (default 200; 0: none) open/revoke/close cycles per target,
 * after a warm-up: what they leave in memory, and in the caches of files
 * and of the framework's per-file state.  A leak of one object, or of
 * 256 bytes, per cycle fails; the figures are printed.
 */
static void run_cycles(struct __test_metadata *_metadata, const char *name)
{
	long n = env_number("REVOKE_LEAK_CYCLES", 200);
	struct sigaction sa = { .sa_handler = on_sigbus };
	unsigned int seed = 1;
	struct usage a, b;
	struct target t;
	long i, failed = 0;

	if (!storm_selected(name) || n <= 0) {
		ksft_print_msg("cycles %s: not asked for\n", name);
		return;
	}
	sh = shared_map();
	ASSERT_NE(sh, MAP_FAILED);
	tgt = &t;
	sigaction(SIGBUS, &sa, NULL);
	ASSERT_EQ(target_setup(&t, name), 0)
		TH_LOG("%s: no target (%s)", name, strerror(errno));
	/* A PCM's workers would set up MMAP access; the cycles map data. */
	for (i = 0; i < n / 10 + 10; i++)
		cycle(&t, &seed);
	usage_now(&a);
	for (i = 0; i < n; i++)
		failed += !!cycle(&t, &seed);
	usage_now(&b);
	ksft_print_msg("cycles %s: %ld cycles: MemAvailable+pcp %+ld kB, SUnreclaim %+ld kB,\n",
		       name, n, b.avail - a.avail, b.unreclaim - a.unreclaim);
	ksft_print_msg("cycles %s: objects: filp %ld -> %ld, revoke_file %ld -> %ld\n",
		       name, a.filp, b.filp, a.rfile, b.rfile);
	EXPECT_EQ(failed, 0);
	/* Caches of their own, not merged with others: counted. */
	EXPECT_GE(a.filp, 0);
	EXPECT_GE(a.rfile, 0);
	EXPECT_GE(b.avail - a.avail, -(n / 4 + 1024));
	EXPECT_LE(b.unreclaim - a.unreclaim, n / 4 + 512);
	EXPECT_LT(b.filp - a.filp, n / 2 + 64);
	EXPECT_LT(b.rfile - a.rfile, n / 2 + 64);
	target_teardown(&t);
	munmap(sh, sizeof(*sh));
}

/*
 * kmemleak, after the storms and the cycles: each report whose backtrace
 * is in the code the storms ran (revoke, ALSA, input, files) fails.  A
 * kernel without kmemleak running is a pass with a note, unless
 * REVOKE_KMEMLEAK asks for it (make stress boots with kmemleak=on).
 */
static void run_kmemleak(struct __test_metadata *_metadata)
{
	static const char * const ours[] = {
		"revoke", "snd_", "evdev", "input_", "uinput", "_file",
		"filp", "shmem", "ext4", "vfs_", "do_sys_open", "path_openat",
	};
	const char *kml = "/sys/kernel/debug/kmemleak";
	char line[256], first[256] = "";
	long reports = 0, relevant = 0;
	bool cur = false;
	unsigned int i;
	FILE *f;

	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	/* Objects younger than 5 s are not reported: let them age. */
	sleep(6);
	if (write_str(kml, "scan")) {
		ksft_print_msg("kmemleak: not running (%s)\n", strerror(errno));
		EXPECT_EQ(getenv("REVOKE_KMEMLEAK"), NULL);
		return;
	}
	write_str(kml, "scan");
	f = fopen(kml, "r");
	ASSERT_NE(f, NULL);
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "unreferenced object", 19)) {
			reports++;
			cur = false;
			continue;
		}
		ksft_print_msg("kmemleak: %s", line);
		/* The backtrace's lines: "    [<address>] function+0x.../0x..." */
		if (!strstr(line, "[<"))
			continue;
		for (i = 0; i < ARRAY_SIZE(ours) && !cur; i++)
			if (strstr(line, ours[i])) {
				cur = true;
				relevant++;
				if (!first[0])
					snprintf(first, sizeof(first), "%s", line);
			}
	}
	fclose(f);
	ksft_print_msg("kmemleak: %ld reports, %ld in revoke, ALSA, input or file code%s%s",
		       reports, relevant, first[0] ? ", first: " : "\n", first);
	EXPECT_EQ(relevant, 0);
}

/* ---- trinity ---------------------------------------------------------- */

#define VICTIMS	"/tmp/trinity-victims"

/*
 * Every node under /dev/snd and /dev/input: their paths, and a node of
 * the same device number for each, which anyone may open, in VICTIMS
 * (trinity takes one victim directory).
 */
static int device_nodes(char paths[][300], int max)
{
	static const char * const dirs[] = { "/dev/snd", "/dev/input" };
	char victim[300];
	struct dirent *de;
	struct stat st;
	unsigned int i;
	int n = 0;
	DIR *dir;

	mkdir(VICTIMS, 0755);
	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		dir = opendir(dirs[i]);
		while (dir && (de = readdir(dir)) && n < max) {
			snprintf(paths[n], 300, "%s/%s", dirs[i], de->d_name);
			if (stat(paths[n], &st) || !S_ISCHR(st.st_mode))
				continue;
			snprintf(victim, sizeof(victim), VICTIMS "/%d", n);
			unlink(victim);
			if (!mknod(victim, S_IFCHR | 0666, st.st_rdev))
				chmod(victim, 0666);
			n++;
		}
		if (dir)
			closedir(dir);
	}
	return n;
}

static void create_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd >= 0) {
		if (write(fd, text, strlen(text)) < 0)
			perror(path);
		close(fd);
	}
}

static pid_t trinity_start(void)
{
	pid_t pid;

	/* --dropprivs switches to the user "nobody", which it looks up. */
	if (access("/etc/passwd", F_OK)) {
		mkdir("/etc", 0755);
		create_file("/etc/passwd", "root:x:0:0::/root:/bin/sh\n"
			    "nobody:x:65534:65534::/nonexistent:/bin/false\n");
		create_file("/etc/group", "root:x:0:\nnogroup:x:65534:\n");
	}
	pid = fork();

	if (pid)
		return pid;
	setpgid(0, 0);
	if (chdir("/tmp"))
		_exit(126);
	/* Its own file descriptors are the victims: no sockets, pipes... */
	execl("/usr/bin/trinity", "trinity", "--dropprivs", "-q", "-l", "off",
	      "-a", "64", "-C", "4", "-T", "WARN,BAD_PAGE,DIE",
	      "-V", VICTIMS,
	      "--disable-fds=sockets,pipes,perf,epoll,eventfd,pseudo,timerfd,testfile,memfd,drm",
	      "-c", "read", "-c", "write", "-c", "readv", "-c", "writev",
	      "-c", "pread64", "-c", "pwrite64", "-c", "ioctl", "-c", "mmap",
	      "-c", "munmap", "-c", "mremap", "-c", "poll", "-c", "ppoll",
	      "-c", "select", "-c", "epoll_ctl", "-c", "fcntl", "-c", "dup",
	      "-c", "dup3", "-c", "lseek", "-c", "flock", "-c", "fsync",
	      NULL);
	_exit(127);
}

/*
 * Debian's trinity, for REVOKE_TRINITY seconds (make stress only), with
 * every node of /dev/snd and /dev/input as its victims (nodes of the same
 * numbers in VICTIMS), while revokers loop over those nodes.  Afterwards
 * nothing hangs, the guest's log has no splat (the harness's verdict), and
 * fresh openers work.
 */
static void run_trinity(struct __test_metadata *_metadata)
{
	double secs = env_number("REVOKE_TRINITY", 0);
	char paths[64][300];
	struct target snd, kbd;
	uint64_t end, revokes = 0;
	pid_t pid, revoker;
	int n, i, status;

	if (secs <= 0) {
		ksft_print_msg("trinity: not asked for (REVOKE_TRINITY)\n");
		return;
	}
	if (access("/usr/bin/trinity", X_OK)) {
		ksft_print_msg("trinity: not in the initramfs\n");
		ASSERT_EQ(access("/usr/bin/trinity", X_OK), 0);
	}
	sh = shared_map();
	ASSERT_NE(sh, MAP_FAILED);
	ASSERT_EQ(target_setup(&kbd, "evdev"), 0);
	n = device_nodes(paths, 64);
	ASSERT_GT(n, 4);
	pid = trinity_start();
	ASSERT_GT(pid, 0);
	revoker = fork();
	if (revoker == 0) {
		end = now_ns() + secs * 1e9;
		while (now_ns() < end) {
			for (i = 0; i < n; i++)
				if (!sys_revokeat(AT_FDCWD, paths[i], 0))
					revokes++;
			usleep(50000);
		}
		ksft_print_msg("trinity: %llu revokes of %d nodes\n",
			       (unsigned long long)revokes, n);
		_exit(revokes ? 0 : 1);
	}
	EXPECT_EQ(reap_within(revoker, (secs + 120) * 1000), 0);
	/* Still running: it exits on SIGINT, its children with it. */
	EXPECT_EQ(waitpid(pid, &status, WNOHANG), 0);
	kill(-pid, SIGINT);
	if (reap_within(pid, 60000) == -2) {
		ksft_print_msg("trinity: did not stop on SIGINT\n");
		kill(-pid, SIGKILL);
		waitpid(pid, NULL, 0);
		EXPECT_TRUE(false);
	}
	/* And its children. */
	kill(-pid, SIGKILL);
	usleep(100000);
	tgt = &kbd;
	EXPECT_EQ(kbd.fresh(&kbd), 0);
	target_teardown(&kbd);
	tgt = &snd;
	ASSERT_EQ(target_setup(&snd, "snd_ctl"), 0);
	EXPECT_EQ(snd.fresh(&snd), 0);
	munmap(sh, sizeof(*sh));
}

/* The storms bound themselves; the runner's timeout bounds the program. */
#define STORM_TIMEOUT	(24 * 3600)

FIXTURE(storm) {
};

FIXTURE_SETUP(storm)
{
}

FIXTURE_TEARDOWN(storm)
{
}

/* Results as they come, not when the runner's pipe is flushed. */
static void __attribute__((constructor)) storm_unbuffered(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
}

TEST_F_TIMEOUT(storm, revoke_test, STORM_TIMEOUT)
{
	run_storm(_metadata, "revoke_test");
}

TEST_F_TIMEOUT(storm, tmpfs, STORM_TIMEOUT)
{
	run_storm(_metadata, "tmpfs");
}

TEST_F_TIMEOUT(storm, ext4, STORM_TIMEOUT)
{
	run_storm(_metadata, "ext4");
}

TEST_F_TIMEOUT(storm, snd_ctl, STORM_TIMEOUT)
{
	run_storm(_metadata, "snd_ctl");
}

TEST_F_TIMEOUT(storm, snd_pcm, STORM_TIMEOUT)
{
	run_storm(_metadata, "snd_pcm");
}

TEST_F_TIMEOUT(storm, snd_aloop, STORM_TIMEOUT)
{
	run_storm(_metadata, "snd_aloop");
}

TEST_F_TIMEOUT(storm, evdev, STORM_TIMEOUT)
{
	run_storm(_metadata, "evdev");
}

/* After the storms (the harness runs tests in their order here). */
TEST_F_TIMEOUT(storm, cycles, STORM_TIMEOUT)
{
	run_cycles(_metadata, "revoke_test");
	run_cycles(_metadata, "tmpfs");
	run_cycles(_metadata, "snd_ctl");
	run_cycles(_metadata, "snd_aloop");
	run_cycles(_metadata, "evdev");
}

TEST_F_TIMEOUT(storm, kmemleak, STORM_TIMEOUT)
{
	run_kmemleak(_metadata);
}

TEST_F_TIMEOUT(storm, trinity, STORM_TIMEOUT)
{
	run_trinity(_metadata);
}

TEST_HARNESS_MAIN
