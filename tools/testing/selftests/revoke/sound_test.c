// SPDX-License-Identifier: GPL-2.0
/*
 * revokeat(2) on /dev/snd nodes, with raw ioctls (no alsa-lib): what a
 * session manager does to take the sound devices away from the previous
 * user.  snd-dummy is booted with pcm_substreams=1, so a PCM that is still
 * held shows as EBUSY to the next user; snd-aloop provides mmap, snd-virmidi
 * rawmidi; the timer and sequencer nodes are global.
 */

#include <stdlib.h>
#include <sys/sysmacros.h>
#include <sound/asequencer.h>

#include "../kselftest_harness.h"
#include "revoke_util.h"
#include "sound_util.h"

/* A thread that plays until the file stops working. */
struct player {
	pthread_t thread;
	int fd;
	int started, stopped;		/* atomic */
	int err;			/* errno of the failed write */
	int after;			/* errno of the write after that */
};

static void *player_fn(void *arg)
{
	static char silence[PERIOD_FRAMES * FRAME_BYTES];
	struct player *pl = arg;

	for (;;) {
		ssize_t n = write(pl->fd, silence, sizeof(silence));

		__atomic_store_n(&pl->started, 1, __ATOMIC_RELEASE);
		/* An underrun of a slow guest: recovered, as alsa-lib does. */
		if (n < 0 && errno == EPIPE &&
		    !ioctl(pl->fd, SNDRV_PCM_IOCTL_PREPARE))
			continue;
		if (n < 0)
			break;
	}
	pl->err = errno;
	pl->after = write(pl->fd, silence, sizeof(silence)) < 0 ? errno : 0;
	__atomic_store_n(&pl->stopped, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void player_start(struct player *pl, int fd)
{
	*pl = (struct player){ .fd = fd };
	pthread_create(&pl->thread, NULL, player_fn, pl);
	while (!__atomic_load_n(&pl->started, __ATOMIC_ACQUIRE))
		usleep(1000);
}

static bool player_stopped(struct player *pl)
{
	int i;

	for (i = 0; i < 1000; i++) {
		if (__atomic_load_n(&pl->stopped, __ATOMIC_ACQUIRE)) {
			pthread_join(pl->thread, NULL);
			return true;
		}
		usleep(10000);
	}
	return false;
}

/* What a revoked PCM file looks like. */
static int check_pcm_revoked(int fd)
{
	int version, ret;

	if (ioctl(fd, SNDRV_PCM_IOCTL_PVERSION, &version) != -1 ||
	    errno != ENXIO)
		return 1;
	if (ioctl(fd, SNDRV_PCM_IOCTL_PREPARE) != -1 || errno != ENXIO)
		return 2;
	ret = check_hup_fstat(fd, POLLOUT);
	return ret ? 2 + ret : 0;
}

FIXTURE(dummy) {
	int card;
	char pcm[64], ctl[64];
};

FIXTURE_SETUP(dummy)
{
	self->card = find_card("Dummy");
	ASSERT_GE(self->card, 0);
	node(self->pcm, sizeof(self->pcm), "/dev/snd/pcmC%dD0p", self->card);
	node(self->ctl, sizeof(self->ctl), "/dev/snd/controlC%d", self->card);
}

FIXTURE_TEARDOWN(dummy)
{
}

/*
 * The previous user plays; a forked child shares the file; a copy waits
 * in an unread SCM_RIGHTS message.  The substream is busy for anybody
 * else.  One revokeat() stops the stream and frees the substream: the
 * next user opens and plays at once.
 */
TEST_F(dummy, pcm_session_switch)
{
	static char period[PERIOD_FRAMES * FRAME_BYTES];
	int fd, busy, got, fresh, sv[2];
	struct player pl;
	pid_t child;

	fd = open(self->pcm, O_RDWR);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(pcm_setup(fd, SNDRV_PCM_ACCESS_RW_INTERLEAVED), 0);
	player_start(&pl, fd);

	busy = open(self->pcm, O_RDWR | O_NONBLOCK);
	EXPECT_EQ(busy, -1);
	EXPECT_EQ(errno, EBUSY);

	ASSERT_EQ(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
	ASSERT_EQ(send_fd(sv[0], fd), 0);
	child = fork();
	ASSERT_GE(child, 0);
	if (!child) {
		int version;

		/* Wait for the revoke, then look at the inherited file. */
		while (ioctl(fd, SNDRV_PCM_IOCTL_PVERSION, &version) == 0)
			usleep(10000);
		_exit(check_pcm_revoked(fd));
	}
	usleep(100000);

	ASSERT_EQ(sys_revokeat(AT_FDCWD, self->pcm, 0), 0);

	/* The write blocked at the revoke fails with ENXIO, as do later ones. */
	ASSERT_TRUE(player_stopped(&pl));
	EXPECT_EQ(pl.err, ENXIO);
	EXPECT_EQ(pl.after, ENXIO);
	EXPECT_EQ(check_pcm_revoked(fd), 0);
	EXPECT_EQ(child_status(child), 0);
	got = recv_fd(sv[1]);
	ASSERT_GE(got, 0);
	EXPECT_EQ(check_pcm_revoked(got), 0);

	/* The next user: no EBUSY, and it plays. */
	fresh = open(self->pcm, O_RDWR | O_NONBLOCK);
	ASSERT_GE(fresh, 0) TH_LOG("open: %s", strerror(errno));
	ASSERT_EQ(pcm_setup(fresh, SNDRV_PCM_ACCESS_RW_INTERLEAVED), 0);
	EXPECT_EQ(write(fresh, period, sizeof(period)), sizeof(period));
	EXPECT_EQ(close(fresh), 0);
	EXPECT_EQ(close(got), 0);
	EXPECT_EQ(close(fd), 0);
	close(sv[0]);
	close(sv[1]);
}

/* A capture reader blocked in read() comes back promptly. */
TEST_F(dummy, pcm_blocked_capture_read)
{
	struct waiter reader;
	char path[64];
	int fd;

	node(path, sizeof(path), "/dev/snd/pcmC%dD0c", self->card);
	fd = open(path, O_RDONLY);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(pcm_setup(fd, SNDRV_PCM_ACCESS_RW_INTERLEAVED), 0);
	/*
	 * A period: the read starts the stream and sleeps for it.  Started
	 * here instead, the stream could overrun (EPIPE) before a slow
	 * guest's reader came to read.
	 */
	waiter_start(&reader, fd, W_READ, PERIOD_FRAMES * FRAME_BYTES);
	usleep(10000);
	ASSERT_EQ(sys_revokeat(AT_FDCWD, path, 0), 0);
	ASSERT_TRUE(waiter_returned(&reader));
	/* What it had read, or ENXIO. */
	EXPECT_TRUE(reader.ret > 0 || reader.err == ENXIO)
		TH_LOG("%zd %d", reader.ret, reader.err);
	EXPECT_EQ(check_pcm_revoked(fd), 0);
	close(fd);
	fd = open(path, O_RDONLY | O_NONBLOCK);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(pcm_setup(fd, SNDRV_PCM_ACCESS_RW_INTERLEAVED), 0);
	close(fd);
}

/* A control reader blocked on events, a poller and a SIGIO owner. */
TEST_F(dummy, control_blocked_event_read)
{
	struct waiter reader, poller;
	struct snd_ctl_event ev;
	int fd, pfd, subscribe = 1, version;

	fd = open(self->ctl, O_RDWR);
	pfd = open(self->ctl, O_RDWR);
	ASSERT_GE(fd, 0);
	ASSERT_GE(pfd, 0);
	ASSERT_EQ(ioctl(fd, SNDRV_CTL_IOCTL_SUBSCRIBE_EVENTS, &subscribe), 0);
	ASSERT_EQ(ioctl(pfd, SNDRV_CTL_IOCTL_SUBSCRIBE_EVENTS, &subscribe), 0);
	ASSERT_EQ(sigio_arm(pfd), 0);
	waiter_start(&reader, fd, W_READ, sizeof(ev));
	waiter_start(&poller, pfd, W_POLL, 0);
	usleep(100000);
	EXPECT_TRUE(waiter_sleeping(&reader));
	EXPECT_TRUE(waiter_sleeping(&poller));

	ASSERT_EQ(sys_revokeat(AT_FDCWD, self->ctl, 0), 0);
	EXPECT_READ_FAILED(&reader, ENXIO);
	EXPECT_POLL_WOKE(&poller, POLLERR | POLLHUP);
	EXPECT_TRUE(sigio_seen());
	EXPECT_EQ(ioctl(fd, SNDRV_CTL_IOCTL_PVERSION, &version), -1);
	EXPECT_EQ(errno, ENXIO);
	close(fd);
	close(pfd);

	fd = open(self->ctl, O_RDWR);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(ioctl(fd, SNDRV_CTL_IOCTL_PVERSION, &version), 0);
	close(fd);
}

/*
 * LINK takes the descriptor of another PCM file and reaches into it: a
 * revoked one is refused, not read after its early release.
 */
TEST_F(dummy, pcm_link_to_revoked_file)
{
	char capture[64];
	int play, cap;

	node(capture, sizeof(capture), "/dev/snd/pcmC%dD0c", self->card);
	play = open(self->pcm, O_RDWR | O_NONBLOCK);
	cap = open(capture, O_RDONLY | O_NONBLOCK);
	ASSERT_GE(play, 0);
	ASSERT_GE(cap, 0);
	ASSERT_EQ(pcm_setup(play, SNDRV_PCM_ACCESS_RW_INTERLEAVED), 0);
	ASSERT_EQ(pcm_setup(cap, SNDRV_PCM_ACCESS_RW_INTERLEAVED), 0);
	ASSERT_EQ(sys_revokeat(AT_FDCWD, capture, 0), 0);
	EXPECT_EQ(ioctl(play, SNDRV_PCM_IOCTL_LINK, cap), -1);
	EXPECT_EQ(errno, EBADFD);
	close(cap);
	/* A live one still links. */
	cap = open(capture, O_RDONLY | O_NONBLOCK);
	ASSERT_GE(cap, 0);
	ASSERT_EQ(pcm_setup(cap, SNDRV_PCM_ACCESS_RW_INTERLEAVED), 0);
	EXPECT_EQ(ioctl(play, SNDRV_PCM_IOCTL_LINK, cap), 0);
	EXPECT_EQ(ioctl(play, SNDRV_PCM_IOCTL_UNLINK), 0);
	close(cap);
	close(play);
}

/* One node of the card: the card's other nodes keep working. */
TEST_F(dummy, other_nodes_untouched)
{
	int pcm, ctl, version;

	ctl = open(self->ctl, O_RDWR);
	pcm = open(self->pcm, O_RDWR | O_NONBLOCK);
	ASSERT_GE(ctl, 0);
	ASSERT_GE(pcm, 0);
	ASSERT_EQ(sys_revokeat(AT_FDCWD, self->pcm, 0), 0);
	EXPECT_EQ(check_pcm_revoked(pcm), 0);
	EXPECT_EQ(ioctl(ctl, SNDRV_CTL_IOCTL_PVERSION, &version), 0);
	close(pcm);
	close(ctl);
}

/*
 * snd-aloop, mmap: the data area raises SIGBUS after the revoke, while
 * the status and control pages, which belong to the file's runtime, stay
 * mapped and the status reads DISCONNECTED, as after the card's
 * disconnect (alsa-lib then answers -ENODEV instead of dying of SIGBUS).
 * The dead mapping does not keep the next user from setting hw_params
 * (which ALSA refuses while the buffer is mapped).  A status or control
 * page mapped but first touched after the revoke (aplay and arecord read
 * the status page first in snd_pcm_wait() after a write the revoke cut
 * short) reads the same, a fresh page of the old holder's own.
 */
TEST(aloop_mmap_sigbus)
{
	size_t len = BUFFER_FRAMES * FRAME_BYTES;
	unsigned int *data, *status, *control, *status2, *control2, val;
	char path[64];
	int card, fd, fresh;

	card = find_card("Loopback");
	ASSERT_GE(card, 0);
	node(path, sizeof(path), "/dev/snd/pcmC%dD0p", card);
	fd = open(path, O_RDWR);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(pcm_setup(fd, SNDRV_PCM_ACCESS_MMAP_INTERLEAVED), 0);
	data = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		    SNDRV_PCM_MMAP_OFFSET_DATA);
	ASSERT_NE(data, MAP_FAILED);
	status = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd,
		      SNDRV_PCM_MMAP_OFFSET_STATUS_NEW);
	ASSERT_NE(status, MAP_FAILED);
	control = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		       SNDRV_PCM_MMAP_OFFSET_CONTROL_NEW);
	ASSERT_NE(control, MAP_FAILED);
	status2 = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd,
		       SNDRV_PCM_MMAP_OFFSET_STATUS_NEW);
	ASSERT_NE(status2, MAP_FAILED);
	control2 = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			SNDRV_PCM_MMAP_OFFSET_CONTROL_NEW);
	ASSERT_NE(control2, MAP_FAILED);
	EXPECT_FALSE(read_sigbus(data, &val));
	EXPECT_FALSE(read_sigbus(status, &val));
	EXPECT_EQ(val, SNDRV_PCM_STATE_PREPARED);
	EXPECT_FALSE(read_sigbus(control, &val));

	ASSERT_EQ(sys_revokeat(AT_FDCWD, path, 0), 0);
	EXPECT_TRUE(read_sigbus(data, &val));
	EXPECT_TRUE(write_sigbus(data, 1));
	EXPECT_TRUE(read_sigbus(data + len / sizeof(*data) - 1, &val));
	/* snd_pcm_mmap_status.state is its first word. */
	EXPECT_FALSE(read_sigbus(status, &val));
	EXPECT_EQ(val, SNDRV_PCM_STATE_DISCONNECTED);
	EXPECT_FALSE(read_sigbus(control, &val));
	EXPECT_FALSE(write_sigbus(control, 0));
	/* First touched now: before, SIGBUS (aplay, arecord died of it). */
	EXPECT_FALSE(read_sigbus(status2, &val));
	EXPECT_EQ(val, SNDRV_PCM_STATE_DISCONNECTED);
	EXPECT_FALSE(write_sigbus(control2, 7));
	EXPECT_FALSE(read_sigbus(control2, &val));
	EXPECT_EQ(val, 7);
	EXPECT_EQ(mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd,
		       SNDRV_PCM_MMAP_OFFSET_DATA), MAP_FAILED);
	EXPECT_EQ(errno, ENXIO);

	/* The old mapping is still there, and does not count. */
	fresh = open(path, O_RDWR | O_NONBLOCK);
	ASSERT_GE(fresh, 0);
	EXPECT_EQ(pcm_setup(fresh, SNDRV_PCM_ACCESS_MMAP_INTERLEAVED), 0)
		TH_LOG("hw_params: %s", strerror(errno));
	EXPECT_EQ(ioctl(fresh, SNDRV_PCM_IOCTL_HW_FREE), 0);
	EXPECT_EQ(munmap(data, len), 0);
	EXPECT_EQ(munmap(status, 4096), 0);
	EXPECT_EQ(munmap(control, 4096), 0);
	EXPECT_EQ(munmap(status2, 4096), 0);
	EXPECT_EQ(munmap(control2, 4096), 0);
	/* Nor does its unmapping: hw_params again, map, and free is refused. */
	ASSERT_EQ(pcm_setup(fresh, SNDRV_PCM_ACCESS_MMAP_INTERLEAVED), 0);
	data = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fresh,
		    SNDRV_PCM_MMAP_OFFSET_DATA);
	ASSERT_NE(data, MAP_FAILED);
	EXPECT_EQ(ioctl(fresh, SNDRV_PCM_IOCTL_HW_FREE), -1);
	EXPECT_EQ(errno, EBADFD);
	EXPECT_EQ(munmap(data, len), 0);
	EXPECT_EQ(ioctl(fresh, SNDRV_PCM_IOCTL_HW_FREE), 0);
	close(fresh);
	close(fd);
}

/* The global timer node: a blocked reader and a SIGIO owner. */
TEST(timer_blocked_read)
{
	struct waiter reader;
	int fd, version;

	fd = open("/dev/snd/timer", O_RDONLY);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(sigio_arm(fd), 0);
	waiter_start(&reader, fd, W_READ, sizeof(struct snd_timer_read));
	usleep(100000);
	EXPECT_TRUE(waiter_sleeping(&reader));
	ASSERT_EQ(sys_revokeat(AT_FDCWD, "/dev/snd/timer", 0), 0);
	EXPECT_READ_FAILED(&reader, ENXIO);
	EXPECT_TRUE(sigio_seen());
	close(fd);
	fd = open("/dev/snd/timer", O_RDONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(ioctl(fd, SNDRV_TIMER_IOCTL_PVERSION, &version), 0);
	close(fd);
}

/* The sequencer: a client blocked reading its input. */
TEST(seq_blocked_read)
{
	struct waiter reader;
	int fd, version;

	fd = open("/dev/snd/seq", O_RDWR);
	ASSERT_GE(fd, 0);
	waiter_start(&reader, fd, W_READ, sizeof(struct snd_seq_event));
	usleep(100000);
	EXPECT_TRUE(waiter_sleeping(&reader));
	ASSERT_EQ(sys_revokeat(AT_FDCWD, "/dev/snd/seq", 0), 0);
	EXPECT_READ_FAILED(&reader, ENXIO);
	EXPECT_EQ(ioctl(fd, SNDRV_SEQ_IOCTL_PVERSION, &version), -1);
	EXPECT_EQ(errno, ENXIO);
	close(fd);
	fd = open("/dev/snd/seq", O_RDWR);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(ioctl(fd, SNDRV_SEQ_IOCTL_PVERSION, &version), 0);
	close(fd);
}

/*
 * A child that polls @fd for input (or waits on an epoll of it) for 5 s,
 * as aseqdump does: exit status 0 if nothing was reported, 1 if something
 * was (EPOLLERR and EPOLLHUP are reported whether asked for or not).
 */
static pid_t seq_poller(int fd, bool use_epoll)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	pid_t pid = fork();
	int ep;

	if (pid)
		return pid;
	if (!use_epoll)
		_exit(poll(&pfd, 1, 5000) == 0 ? 0 : 1);
	ep = epoll_create1(0);
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev))
		_exit(2);
	_exit(epoll_wait(ep, &ev, 1, 5000) == 0 ? 0 : 1);
}

/*
 * A revoked sequencer file polls nothing, ever (FOP_REVOKE_QUIET): its
 * clients (aseqdump, PipeWire's bridge) poll again at once on EPOLLERR and
 * spun at 100% CPU; they now sleep in poll until a signal.  Pollers asleep
 * at the revoke stay asleep, new polls find nothing, and the operations
 * still fail with ENXIO.
 */
TEST(seq_revoked_polls_nothing)
{
	struct pollfd pfd = { .events = POLLIN | POLLOUT };
	struct snd_seq_event ev = {};
	pid_t poller, epoller;
	int fd, version;

	fd = open("/dev/snd/seq", O_RDWR | O_NONBLOCK);
	ASSERT_GE(fd, 0);
	poller = seq_poller(fd, false);
	epoller = seq_poller(fd, true);
	ASSERT_TRUE(wait_state(poller, 'S', 4000));
	ASSERT_TRUE(wait_state(epoller, 'S', 4000));
	ASSERT_EQ(sys_revokeat(AT_FDCWD, "/dev/snd/seq", 0), 0);
	/* Woken by the revoke, they found nothing and slept on. */
	EXPECT_EQ(reap_within(poller, 10000), 0);
	EXPECT_EQ(reap_within(epoller, 10000), 0);

	pfd.fd = fd;
	EXPECT_EQ(poll(&pfd, 1, 100), 0);
	EXPECT_EQ(pfd.revents, 0);
	EXPECT_EQ(read(fd, &ev, sizeof(ev)), -1);
	EXPECT_EQ(errno, ENXIO);
	EXPECT_EQ(write(fd, &ev, sizeof(ev)), -1);
	EXPECT_EQ(errno, ENXIO);
	EXPECT_EQ(ioctl(fd, SNDRV_SEQ_IOCTL_PVERSION, &version), -1);
	EXPECT_EQ(errno, ENXIO);
	close(fd);
}

/* rawmidi (snd-virmidi): a reader blocked on input. */
TEST(rawmidi_blocked_read)
{
	struct waiter reader;
	char path[64];
	int card, fd;

	card = find_card("VirMIDI");
	ASSERT_GE(card, 0);
	node(path, sizeof(path), "/dev/snd/midiC%dD0", card);
	fd = open(path, O_RDONLY);
	ASSERT_GE(fd, 0);
	waiter_start(&reader, fd, W_READ, 16);
	usleep(100000);
	EXPECT_TRUE(waiter_sleeping(&reader));
	ASSERT_EQ(sys_revokeat(AT_FDCWD, path, 0), 0);
	EXPECT_READ_FAILED(&reader, ENXIO);
	close(fd);
	fd = open(path, O_RDONLY | O_NONBLOCK);
	EXPECT_GE(fd, 0) TH_LOG("open: %s", strerror(errno));
	close(fd);
}

static int sysfs_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	int ret;

	if (fd < 0)
		return -1;
	ret = write(fd, val, strlen(val)) == (ssize_t)strlen(val) ? 0 : -1;
	close(fd);
	return ret;
}

#define DUMMY_DRV "/sys/bus/platform/drivers/snd_dummy/"

/*
 * Unplug: ALSA's own disconnect still works with revocable files open,
 * including files revoked before, and a revoke racing the disconnect.
 * Files the unplug took answer ENODEV at once, their sleepers wake, and,
 * as before, the card is freed at their last close: until then a mapped
 * status page still reads, and says the stream is disconnected.
 */
TEST_F(dummy, card_unplug)
{
	int ctl, pcm, old, version, subscribe = 1, i;
	struct snd_pcm_mmap_status *status;
	struct waiter reader;
	struct snd_ctl_event ev;
	pid_t child, unbind;

	old = open(self->ctl, O_RDWR);
	ASSERT_GE(old, 0);
	ASSERT_EQ(sys_revokeat(AT_FDCWD, self->ctl, 0), 0);
	ctl = open(self->ctl, O_RDWR);
	pcm = open(self->pcm, O_RDWR | O_NONBLOCK);
	ASSERT_GE(ctl, 0);
	ASSERT_GE(pcm, 0);
	ASSERT_EQ(pcm_setup(pcm, SNDRV_PCM_ACCESS_MMAP_INTERLEAVED), 0);
	status = mmap(NULL, 4096, PROT_READ, MAP_SHARED, pcm,
		      SNDRV_PCM_MMAP_OFFSET_STATUS_NEW);
	ASSERT_NE(status, MAP_FAILED);
	EXPECT_EQ(status->state, SNDRV_PCM_STATE_PREPARED);
	ASSERT_EQ(ioctl(ctl, SNDRV_CTL_IOCTL_SUBSCRIBE_EVENTS, &subscribe), 0);
	waiter_start(&reader, ctl, W_READ, sizeof(ev));
	usleep(50000);

	/* A revoke of the PCM races the unplug. */
	child = fork();
	ASSERT_GE(child, 0);
	if (!child) {
		int ret = sys_revokeat(AT_FDCWD, self->pcm, 0);

		_exit(ret == 0 || errno == ENOENT || errno == ENXIO ? 0 : 1);
	}
	/*
	 * The unbind waits for the last close of the card's files: not
	 * with copies of them in the process that waits.
	 */
	unbind = fork();
	ASSERT_GE(unbind, 0);
	if (!unbind) {
		munmap(status, 4096);
		close(ctl);
		close(pcm);
		close(old);
		_exit(sysfs_write(DUMMY_DRV "unbind", "snd_dummy.0") ? 1 : 0);
	}
	EXPECT_EQ(child_status(child), 0);

	EXPECT_READ_FAILED(&reader, ENODEV);
	for (i = 0; i < 100; i++) {
		if (ioctl(ctl, SNDRV_CTL_IOCTL_PVERSION, &version) == -1)
			break;
		usleep(10000);
	}
	EXPECT_EQ(errno, ENODEV);
	/*
	 * Upstream's answer for a disconnected file, EPOLLERR | EPOLLNVAL,
	 * of which poll() shows POLLERR only (POLLNVAL was not asked for);
	 * a revoked file's is POLLERR | POLLHUP.
	 */
	EXPECT_EQ(poll_revents(ctl), POLLERR);
	EXPECT_EQ(poll_revents(old), POLLERR | POLLHUP);
	EXPECT_EQ(ioctl(pcm, SNDRV_PCM_IOCTL_PVERSION, &version), -1);
	EXPECT_TRUE(errno == ENODEV || errno == ENXIO);
	if (errno == ENODEV) {
		/* Not revoked first: the mapping still reads. */
		EXPECT_EQ(status->state, SNDRV_PCM_STATE_DISCONNECTED);
	}
	EXPECT_EQ(ioctl(old, SNDRV_CTL_IOCTL_PVERSION, &version), -1);
	EXPECT_EQ(errno, ENXIO);
	EXPECT_EQ(munmap(status, 4096), 0);
	EXPECT_EQ(close(ctl), 0);
	EXPECT_EQ(close(pcm), 0);
	EXPECT_EQ(close(old), 0);
	EXPECT_EQ(child_status(unbind), 0);

	/* Plugged again, the card works. */
	ASSERT_EQ(sysfs_write(DUMMY_DRV "bind", "snd_dummy.0"), 0);
	self->card = find_card("Dummy");
	ASSERT_GE(self->card, 0);
	node(self->pcm, sizeof(self->pcm), "/dev/snd/pcmC%dD0p", self->card);
	pcm = open(self->pcm, O_RDWR | O_NONBLOCK);
	ASSERT_GE(pcm, 0);
	EXPECT_EQ(pcm_setup(pcm, SNDRV_PCM_ACCESS_RW_INTERLEAVED), 0);
	close(pcm);
}

/*
 * Every ALSA node is a minor of the one "alsa" char device: a node whose
 * minor has no device (never had, or its card is gone) leads to no
 * driver, and revokeat() says so with ENXIO, as for any number without a
 * driver, not with the EOPNOTSUPP of a device that cannot be revoked.  A
 * session manager revoking the nodes it remembers while a card is
 * unplugged must be able to tell the two apart.
 */
TEST_F(dummy, gone_minor_answers_enxio)
{
	const char *copy = "/tmp/revoke-gone-pcm", *unused = "/tmp/revoke-no-minor";
	char sysfs[64];
	struct stat st;
	int minor;

	ASSERT_EQ(stat(self->pcm, &st), 0);
	/* A minor no device has: ALSA hands them out from the bottom. */
	for (minor = 255; minor > 0; minor--) {
		snprintf(sysfs, sizeof(sysfs), "/sys/dev/char/%u:%d",
			 major(st.st_rdev), minor);
		if (access(sysfs, F_OK))
			break;
	}
	ASSERT_GT(minor, 0);
	unlink(copy);
	unlink(unused);
	ASSERT_EQ(mknod(copy, S_IFCHR | 0600, st.st_rdev), 0);
	ASSERT_EQ(mknod(unused, S_IFCHR | 0600,
			makedev(major(st.st_rdev), minor)), 0);

	EXPECT_EQ(sys_revokeat(AT_FDCWD, unused, 0), -1);
	EXPECT_EQ(errno, ENXIO);
	EXPECT_EQ(sys_revokeat(AT_FDCWD, copy, 0), 0);

	ASSERT_EQ(sysfs_write(DUMMY_DRV "unbind", "snd_dummy.0"), 0);
	EXPECT_EQ(sys_revokeat(AT_FDCWD, copy, 0), -1);
	EXPECT_EQ(errno, ENXIO);
	EXPECT_EQ(open(copy, O_RDWR), -1);
	EXPECT_EQ(errno, ENODEV);
	ASSERT_EQ(sysfs_write(DUMMY_DRV "bind", "snd_dummy.0"), 0);

	self->card = find_card("Dummy");
	ASSERT_GE(self->card, 0);
	node(self->pcm, sizeof(self->pcm), "/dev/snd/pcmC%dD0p", self->card);
	ASSERT_EQ(stat(self->pcm, &st), 0);
	ASSERT_EQ(unlink(copy), 0);
	ASSERT_EQ(mknod(copy, S_IFCHR | 0600, st.st_rdev), 0);
	EXPECT_EQ(sys_revokeat(AT_FDCWD, copy, 0), 0);
	EXPECT_EQ(unlink(copy), 0);
	EXPECT_EQ(unlink(unused), 0);
}

TEST_HARNESS_MAIN
