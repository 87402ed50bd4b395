// SPDX-License-Identifier: GPL-2.0
/*
 * Revoke storms: per target (the test device, a tmpfs file, the ALSA
 * control node of snd-dummy, the evdev node of a uinput keyboard that a
 * feeder types on), worker processes run random operations on their
 * descriptors (open, close, read, write, ioctl, poll, epoll, mmap and a
 * touch of the mapping, fork, dup, SCM_RIGHTS, fcntl O_ASYNC, flock) while
 * revokers loop revokeat() on the node, several at once.
 *
 * Each operation is checked against a sequence counter shared by all:
 * a descriptor (or its dup, fork or SCM_RIGHTS copy) carries the number
 * drawn when its open returned; a revoker draws one before it calls
 * revokeat() and, once the call returned, raises "the latest start of a
 * completed revoke" to it.  An operation draws that latest start when it
 * begins: if it is past the descriptor's number, a revoke that began
 * after the open completed before the operation, which must then fail
 * with the contract's errno.  A sleeper blocked in a read must return
 * within 5 s of the revoke of its file.  After the storm a fresh opener
 * works and /proc/sys/fs/file-nr is back to where it was.
 *
 * REVOKE_STORM_SECONDS (default 3) is the length of each target's storm,
 * REVOKE_STORM_TARGETS (default all) a comma-separated list of targets:
 * make check runs the default slice, make stress long ones.
 */

#define _GNU_SOURCE
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

enum op {
	OP_OPEN, OP_CLOSE, OP_READ, OP_WRITE, OP_IOCTL, OP_POLL, OP_EPOLL,
	OP_MMAP, OP_TOUCH, OP_FORK, OP_DUP, OP_SCM, OP_ASYNC, OP_FLOCK,
	OP_MAX
};

static const char * const op_names[OP_MAX] = {
	"open", "close", "read", "write", "ioctl", "poll", "epoll", "mmap",
	"touch", "fork", "dup", "scm_rights", "fcntl_async", "flock",
};

struct target;

/* One target of a storm: a path and what its operations may do. */
struct target {
	const char *name;
	char path[300];
	int oflags;
	int revoked_errno;	/* what a revoked descriptor answers */
	int live_errno;		/* a refusal of the driver's own, or 0 */
	unsigned int ops;	/* the operations it has, 1 << enum op */
	bool sleeper;		/* a blocking read that the revoke must end */
	/* An ioctl that succeeds on a live descriptor. */
	int (*ioctl)(int fd);
	/* Something a fresh opener can do after the storm; 0 if it worked. */
	int (*fresh)(struct target *t);
	struct udev kbd;	/* evdev: the keyboard */
	pid_t feeder;		/* evdev: the process that types */
};

/* Counters shared by every process of a storm. */
struct shared {
	uint64_t seq;			/* the sequence counter */
	uint64_t done_start;		/* latest start of a completed revoke */
	uint64_t ops[OP_MAX];
	uint64_t revokes;
	uint64_t violations, unexpected, blocked;
	uint64_t killed;		/* revokers killed, maybe in revokeat() */
	uint64_t errnos[134];		/* by errno; [0]: successes */
	int stop;
	int reported;			/* the first violation was described */
	char first[256];
	/* The sleeper: 0, or the number of the descriptor it reads. */
	uint64_t sleeper_o;
};

static struct shared *sh;
static struct target *tgt;

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

static void count(uint64_t *c)
{
	__atomic_add_fetch(c, 1, __ATOMIC_RELAXED);
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

/*
 * The verdict on one operation of a descriptor opened at @o, begun at @s
 * when the latest completed revoke had begun at @m: @err is 0 if it
 * succeeded (reached the file), else its errno.
 */
static void judge(enum op op, uint64_t o, uint64_t m, uint64_t s, int err)
{
	bool revoked = m > o;

	count(&sh->ops[op]);
	count(&sh->errnos[err < 134 ? err : 0]);
	/* The driver answered: it ran the operation. */
	if (err && err == tgt->live_errno)
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
	count(&sh->unexpected);
	report("unexpected errno", op_names[op], o, m, s, err);
}

/* ---- the targets -------------------------------------------------------- */

static int ioctl_test(int fd)
{
	return ioctl(fd, REVOKE_TEST_IOC_NOP);
}

static int ioctl_fionread(int fd)
{
	int n;

	return ioctl(fd, FIONREAD, &n);
}

static int ioctl_ctl(int fd)
{
	int v;

	return ioctl(fd, SNDRV_CTL_IOCTL_PVERSION, &v);
}

static int ioctl_evdev(int fd)
{
	int v;

	return ioctl(fd, EVIOCGVERSION, &v);
}

static int fresh_ioctl(struct target *t)
{
	int fd = open(t->path, t->oflags);
	int ret;

	if (fd < 0)
		return -1;
	ret = t->ioctl(fd);
	close(fd);
	return ret;
}

static int fresh_tmpfs(struct target *t)
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

#define OPS(op)	(1U << (op))
/* What every target does. */
#define OPS_COMMON	(OPS(OP_OPEN) | OPS(OP_CLOSE) | OPS(OP_READ) | \
			 OPS(OP_IOCTL) | OPS(OP_FORK) | OPS(OP_DUP) | \
			 OPS(OP_SCM) | OPS(OP_ASYNC))

static int target_setup(struct target *t, const char *name)
{
	memset(t, 0, sizeof(*t));
	t->name = name;
	t->feeder = -1;
	t->ops = OPS_COMMON;
	t->oflags = O_RDWR | O_NONBLOCK;
	t->revoked_errno = ENXIO;
	if (!strcmp(name, "revoke_test")) {
		snprintf(t->path, sizeof(t->path), "%s", RT_NODE);
		t->ops |= OPS(OP_WRITE) | OPS(OP_POLL) | OPS(OP_EPOLL) |
			  OPS(OP_MMAP) | OPS(OP_TOUCH);
		t->sleeper = true;
		t->ioctl = ioctl_test;
		t->fresh = fresh_ioctl;
		return access(t->path, R_OK | W_OK);
	}
	if (!strcmp(name, "tmpfs")) {
		int fd;

		mkdir("/mnt/storm", 0755);
		if (mount("tmpfs", "/mnt/storm", "tmpfs", 0, NULL))
			return -1;
		snprintf(t->path, sizeof(t->path), "/mnt/storm/file");
		fd = open(t->path, O_RDWR | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || ftruncate(fd, 4 * 4096))
			return -1;
		close(fd);
		t->revoked_errno = EBADF;
		t->ops |= OPS(OP_WRITE) | OPS(OP_MMAP) | OPS(OP_TOUCH) |
			  OPS(OP_FLOCK);
		t->ioctl = ioctl_fionread;
		t->fresh = fresh_tmpfs;
		return 0;
	}
	if (!strcmp(name, "snd_ctl")) {
		int card = find_card("Dummy");

		if (card < 0)
			return -1;
		snprintf(t->path, sizeof(t->path), "/dev/snd/controlC%d", card);
		/* A read without a subscription to events. */
		t->live_errno = EBADFD;
		t->ops |= OPS(OP_POLL) | OPS(OP_EPOLL);
		t->ioctl = ioctl_ctl;
		t->fresh = fresh_ioctl;
		return 0;
	}
	if (!strcmp(name, "evdev")) {
		if (udev_create(&t->kbd, "revoke-storm-kbd", CAP_KBD) ||
		    !t->kbd.event[0])
			return -1;
		snprintf(t->path, sizeof(t->path), "%s", t->kbd.event);
		t->revoked_errno = ENODEV;
		t->ops |= OPS(OP_WRITE) | OPS(OP_POLL) | OPS(OP_EPOLL);
		t->sleeper = true;
		t->ioctl = ioctl_evdev;
		t->fresh = fresh_evdev;
		/* The feeder: a key every millisecond. */
		t->feeder = fork();
		if (t->feeder == 0) {
			for (;;) {
				udev_emit(&t->kbd, EV_KEY, KEY_B, 1);
				udev_emit(&t->kbd, EV_KEY, KEY_B, 0);
				udev_emit(&t->kbd, EV_SYN, SYN_REPORT, 0);
				usleep(1000);
			}
		}
		return t->feeder < 0 ? -1 : 0;
	}
	return -1;
}

static void target_teardown(struct target *t)
{
	if (t->feeder > 0) {
		kill(t->feeder, SIGKILL);
		waitpid(t->feeder, NULL, 0);
	}
	/* What the workers wrote stays in the device's FIFO: leave it empty. */
	if (!strcmp(t->name, "revoke_test"))
		node_drain(t->path);
	if (!strcmp(t->name, "evdev"))
		udev_destroy(&t->kbd);
	if (!strcmp(t->name, "tmpfs"))
		umount2("/mnt/storm", MNT_DETACH);
}

/* ---- a worker ------------------------------------------------------------ */

struct desc {
	int fd;
	uint64_t o;		/* drawn when its open returned */
};

struct mapping {
	unsigned int *addr;
	uint64_t o;
};

static sigjmp_buf bus_jmp;

static void on_sigbus(int sig)
{
	siglongjmp(bus_jmp, 1);
}

/* Read from a mapping: whether it raised SIGBUS. */
static bool touch_bus(unsigned int *p)
{
	if (sigsetjmp(bus_jmp, 1))
		return true;
	__atomic_load_n(p, __ATOMIC_RELAXED);
	return false;
}

/* One operation on descriptor @d; returns its errno, 0 for success. */
static int run_op(enum op op, struct desc *d)
{
	char buf[64] = {};
	int ret = 0;

	switch (op) {
	case OP_READ:
		ret = read(d->fd, buf, sizeof(buf)) < 0 ? errno : 0;
		break;
	case OP_WRITE:
		if (!strcmp(tgt->name, "evdev")) {
			struct input_event ev = { .type = EV_SYN };

			ret = write(d->fd, &ev, sizeof(ev)) < 0 ? errno : 0;
		} else {
			ret = write(d->fd, "storm", 5) < 0 ? errno : 0;
		}
		break;
	case OP_IOCTL:
		ret = tgt->ioctl(d->fd) ? errno : 0;
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
		int err, k;

		if (op == OP_OPEN || !nfds) {
			int fd;

			if (nfds == MAX_FDS) {
				k = rand_r(&seed) % nfds;
				close(fds[k].fd);
				fds[k] = fds[--nfds];
			}
			fd = open(tgt->path, tgt->oflags | O_CLOEXEC);
			if (fd < 0) {
				/* A revoke does not refuse opens. */
				judge(OP_OPEN, 0, 0, draw(), errno);
				continue;
			}
			fds[nfds].fd = fd;
			fds[nfds++].o = draw();
			count(&sh->ops[OP_OPEN]);
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
				judge(op, 0, 0, draw(), errno);
				continue;
			}
			fds[nfds].o = d->o;
			nfds++;
			count(&sh->ops[op]);
			continue;
		case OP_MMAP: {
			void *p;

			s = draw();
			m = latest_done();
			p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, d->fd, 0);
			err = p == MAP_FAILED ? errno : 0;
			judge(op, d->o, m, s, err);
			if (err)
				continue;
			if (nmaps == MAX_MAPS) {
				munmap((void *)maps[0].addr, 4096);
				maps[0] = maps[--nmaps];
			}
			maps[nmaps].addr = p;
			maps[nmaps++].o = d->o;
			continue;
		}
		case OP_TOUCH: {
			struct mapping *mp;

			if (!nmaps)
				continue;
			mp = &maps[rand_r(&seed) % nmaps];
			s = draw();
			m = latest_done();
			/* SIGBUS is a revoked mapping's answer. */
			judge(op, mp->o, m, s,
			      touch_bus(mp->addr) ? tgt->revoked_errno : 0);
			continue;
		}
		case OP_FORK: {
			pid_t pid = fork();

			if (pid < 0)
				continue;
			if (pid == 0) {
				s = draw();
				m = latest_done();
				judge(OP_READ, d->o, m, s, run_op(OP_READ, d));
				_exit(0);
			}
			waitpid(pid, NULL, 0);
			count(&sh->ops[op]);
			continue;
		}
		default:
			s = draw();
			m = latest_done();
			err = run_op(op, d);
			if (judged(op))
				judge(op, d->o, m, s, err);
			else
				count(&sh->ops[op]);
		}
	}
	_exit(0);
}

static void on_sigusr1(int sig)
{
}

/*
 * A revoker: revokeat() in a loop, each completion published.  The storm
 * sends it handled signals (SIGUSR1, without SA_RESTART), which must not
 * interrupt the call, and kills it now and then.
 */
static void revoker(int id)
{
	struct sigaction sa = { .sa_handler = on_sigusr1 };
	unsigned int seed = getpid() ^ (id << 8);

	sigaction(SIGUSR1, &sa, NULL);

	while (!__atomic_load_n(&sh->stop, __ATOMIC_RELAXED)) {
		uint64_t r0 = draw(), cur;

		if (sys_revokeat(AT_FDCWD, tgt->path, 0)) {
			count(&sh->unexpected);
			report("revokeat() failed", "revokeat", 0, r0, 0, errno);
			continue;
		}
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

/* A sleeper: a blocking read, which the revoke of its file must end. */
static void sleeper(void)
{
	char buf[64];

	while (!__atomic_load_n(&sh->stop, __ATOMIC_RELAXED)) {
		int fd = open(tgt->path, O_RDWR | O_CLOEXEC);
		uint64_t o;

		if (fd < 0) {
			usleep(1000);
			continue;
		}
		o = draw();
		__atomic_store_n(&sh->sleeper_o, o, __ATOMIC_SEQ_CST);
		/* Until the revoke, or data (the keyboard's feeder). */
		while (read(fd, buf, sizeof(buf)) > 0 &&
		       !__atomic_load_n(&sh->stop, __ATOMIC_RELAXED))
			;
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

static double storm_seconds(void)
{
	const char *s = getenv("REVOKE_STORM_SECONDS");

	return s && atof(s) > 0 ? atof(s) : 3;
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
	pid_t pids[WORKERS + REVOKERS + 1];
	int npids = 0, i, e;
	struct target t;
	uint64_t end, seen_o = 0, seen_ns = 0, ops = 0;
	long base, after = -1, slack;
	pid_t watchdog;
	char hist[512] = "";

	/* Not a skip: the runner would count it as a failure. */
	if (!storm_selected(name)) {
		ksft_print_msg("storm %s: not in REVOKE_STORM_TARGETS\n", name);
		return;
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(sh, MAP_FAILED);
	tgt = &t;
	ASSERT_EQ(target_setup(&t, name), 0)
		TH_LOG("%s: no target (%s)", name, strerror(errno));
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

		/* Its file revoked: seen first now, the read must end soon. */
		if (o && latest_done() > o) {
			if (seen_o != o) {
				seen_o = o;
				seen_ns = now_ns();
			} else if (now_ns() - seen_ns > BLOCKED_SEC * 1e9) {
				count(&sh->blocked);
				report("blocked", "sleeper's read", o,
				       latest_done(), 0, 0);
				break;
			}
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

	kill(watchdog, SIGKILL);
	waitpid(watchdog, NULL, 0);
	/* A fresh opener works at once. */
	EXPECT_EQ(t.fresh(&t), 0) TH_LOG("%s: a fresh opener fails", name);
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
	ksft_print_msg("storm %s: %.0f s, ops %llu, revokes %llu (%llu revokers killed),\n",
		       name, storm_seconds(), (unsigned long long)ops,
		       (unsigned long long)sh->revokes,
		       (unsigned long long)sh->killed);
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

TEST_F_TIMEOUT(storm, snd_ctl, STORM_TIMEOUT)
{
	run_storm(_metadata, "snd_ctl");
}

TEST_F_TIMEOUT(storm, evdev, STORM_TIMEOUT)
{
	run_storm(_metadata, "evdev");
}

TEST_HARNESS_MAIN
