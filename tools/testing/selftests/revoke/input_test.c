// SPDX-License-Identifier: GPL-2.0
/*
 * revokeat(2) on /dev/input nodes: what a session manager does to take an
 * input device away from the previous user.  The devices are uinput
 * devices made by the test; evdev, joydev and mousedev nodes are revoked
 * one revokeat() each, whoever holds them and however.
 */

#include <stdlib.h>
#include <linux/input.h>
#include <linux/joystick.h>

#include "../kselftest_harness.h"
#include "revoke_util.h"
#include "input_util.h"

/* What a revoked input file looks like. */
static int check_input_revoked(int fd)
{
	struct input_event ev;
	int version, ret;

	if (read(fd, &ev, sizeof(ev)) != -1 || errno != ENODEV)
		return 1;
	if (ioctl(fd, EVIOCGVERSION, &version) != -1 || errno != ENODEV)
		return 2;
	ret = check_hup_fstat(fd, POLLIN);
	return ret ? 2 + ret : 0;
}

/* Read the next key event of @fd. */
static int read_key(int fd, int *code)
{
	struct input_event ev;

	do {
		if (read(fd, &ev, sizeof(ev)) != sizeof(ev))
			return -1;
	} while (ev.type != EV_KEY);
	*code = ev.code;
	return 0;
}

/*
 * The previous user's session: a grabbing reader blocked in read(), a
 * poller, an epoll waiter, a SIGIO owner, a forked child blocked in read()
 * on an inherited descriptor, a dup, and a copy in flight in an unread
 * SCM_RIGHTS message.  One revokeat() takes the node from all of them, and
 * the next user gets it at once.
 */
TEST(evdev_session_switch)
{
	struct waiter reader, poller, epoller;
	int grab, fd, dupfd, asyncfd, got, fresh, code, sv[2];
	struct udev u;
	pid_t child;

	ASSERT_EQ(udev_create(&u, "revoke-evdev-kbd", CAP_KBD), 0);
	grab = open(u.event, O_RDWR);
	ASSERT_GE(grab, 0);
	ASSERT_EQ(ioctl(grab, EVIOCGRAB, 1), 0);
	fd = open(u.event, O_RDONLY);
	ASSERT_GE(fd, 0);
	dupfd = dup(fd);
	ASSERT_GE(dupfd, 0);

	asyncfd = open(u.event, O_RDONLY);
	ASSERT_GE(asyncfd, 0);

	ASSERT_EQ(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
	ASSERT_EQ(send_fd(sv[0], fd), 0);

	child = fork();
	ASSERT_GE(child, 0);
	if (!child) {
		struct input_event ev;

		_exit(read(fd, &ev, sizeof(ev)) == -1 && errno == ENODEV ?
		      0 : 10);
	}

	waiter_start(&reader, grab, W_READ, sizeof(struct input_event));
	waiter_start(&poller, fd, W_POLL, 0);
	waiter_start(&epoller, dupfd, W_EPOLL, 0);
	usleep(200000);
	EXPECT_TRUE(waiter_sleeping(&reader));
	EXPECT_TRUE(waiter_sleeping(&poller));
	EXPECT_TRUE(waiter_sleeping(&epoller));
	ASSERT_EQ(sigio_arm(asyncfd), 0);

	ASSERT_EQ(sys_revokeat(AT_FDCWD, u.event, 0), 0);

	EXPECT_READ_FAILED(&reader, ENODEV);
	EXPECT_POLL_WOKE(&poller, POLLERR | POLLHUP);
	EXPECT_POLL_WOKE(&epoller, EPOLLERR | EPOLLHUP);
	EXPECT_EQ(child_status(child), 0);
	EXPECT_TRUE(sigio_seen());

	EXPECT_EQ(check_input_revoked(grab), 0);
	EXPECT_EQ(check_input_revoked(dupfd), 0);
	EXPECT_EQ(check_input_revoked(asyncfd), 0);
	got = recv_fd(sv[1]);
	ASSERT_GE(got, 0);
	EXPECT_EQ(check_input_revoked(got), 0);

	/* The next user: the grab is gone, events flow to the new file. */
	fresh = open(u.event, O_RDWR);
	ASSERT_GE(fresh, 0);
	EXPECT_EQ(ioctl(fresh, EVIOCGRAB, 1), 0);
	ASSERT_EQ(udev_emit(&u, EV_KEY, KEY_B, 1), 0);
	ASSERT_EQ(read_key(fresh, &code), 0);
	EXPECT_EQ(code, KEY_B);
	/* ...and not to the old ones. */
	EXPECT_EQ(check_input_revoked(grab), 0);

	EXPECT_EQ(close(got), 0);
	EXPECT_EQ(close(grab), 0);
	EXPECT_EQ(close(fd), 0);
	EXPECT_EQ(close(dupfd), 0);
	EXPECT_EQ(close(asyncfd), 0);
	close(sv[0]);
	close(sv[1]);
	close(fresh);
	udev_destroy(&u);
}

/* Revoking one input device's node leaves other devices alone. */
TEST(evdev_other_device_untouched)
{
	struct udev a, b;
	int fa, fb, code;

	ASSERT_EQ(udev_create(&a, "revoke-evdev-a", CAP_KBD), 0);
	ASSERT_EQ(udev_create(&b, "revoke-evdev-b", CAP_KBD), 0);
	fa = open(a.event, O_RDONLY);
	fb = open(b.event, O_RDONLY);
	ASSERT_GE(fa, 0);
	ASSERT_GE(fb, 0);
	ASSERT_EQ(sys_revokeat(AT_FDCWD, a.event, 0), 0);
	EXPECT_EQ(check_input_revoked(fa), 0);
	ASSERT_EQ(udev_emit(&b, EV_KEY, KEY_A, 1), 0);
	ASSERT_EQ(read_key(fb, &code), 0);
	EXPECT_EQ(code, KEY_A);
	close(fa);
	close(fb);
	udev_destroy(&a);
	udev_destroy(&b);
}

/* EVIOCREVOKE keeps its behaviour: that one file answers -ENODEV. */
TEST(eviocrevoke_unchanged)
{
	struct input_event ev;
	int fd, other, code;
	struct udev u;

	ASSERT_EQ(udev_create(&u, "revoke-eviocrevoke", CAP_KBD), 0);
	fd = open(u.event, O_RDONLY);
	other = open(u.event, O_RDONLY);
	ASSERT_GE(fd, 0);
	ASSERT_GE(other, 0);
	ASSERT_EQ(ioctl(fd, EVIOCGRAB, 1), 0);
	ASSERT_EQ(ioctl(fd, EVIOCREVOKE, 0), 0);
	EXPECT_EQ(read(fd, &ev, sizeof(ev)), -1);
	EXPECT_EQ(errno, ENODEV);
	/* The grab went with it: the other file gets events. */
	ASSERT_EQ(udev_emit(&u, EV_KEY, KEY_A, 1), 0);
	ASSERT_EQ(read_key(other, &code), 0);
	EXPECT_EQ(code, KEY_A);
	close(fd);
	close(other);
	udev_destroy(&u);
}

/* Unplug revokes too, and keeps the errno user space expects: ENODEV. */
TEST(evdev_unplug_enodev)
{
	struct waiter reader;
	struct input_event ev;
	struct udev u;
	int fd;

	ASSERT_EQ(udev_create(&u, "revoke-evdev-unplug", CAP_KBD), 0);
	fd = open(u.event, O_RDONLY);
	ASSERT_GE(fd, 0);
	waiter_start(&reader, fd, W_READ, sizeof(struct input_event));
	usleep(100000);
	udev_destroy(&u);
	EXPECT_READ_FAILED(&reader, ENODEV);
	EXPECT_EQ(read(fd, &ev, sizeof(ev)), -1);
	EXPECT_EQ(errno, ENODEV);
	EXPECT_EQ(close(fd), 0);
}

/* Revoked after use, unplugged later: nothing is released twice. */
TEST(evdev_revoke_then_unplug)
{
	struct udev u;
	int fd;

	ASSERT_EQ(udev_create(&u, "revoke-evdev-late-unplug", CAP_KBD), 0);
	fd = open(u.event, O_RDWR);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(ioctl(fd, EVIOCGRAB, 1), 0);
	ASSERT_EQ(sys_revokeat(AT_FDCWD, u.event, 0), 0);
	udev_destroy(&u);
	EXPECT_EQ(check_input_revoked(fd), 0);
	EXPECT_EQ(close(fd), 0);
}

/* The next uinput request @code of @u within 5 s: its id, or -1. */
static int ff_request(struct udev *u, int code)
{
	struct pollfd pfd = { .fd = u->ufd, .events = POLLIN };
	struct input_event ev;

	while (poll(&pfd, 1, 5000) == 1) {
		if (read(u->ufd, &ev, sizeof(ev)) != sizeof(ev))
			return -1;
		if (ev.type == EV_UINPUT && ev.code == code)
			return ev.value;
	}
	return -1;
}

/* Answer the upload request @id of @u as the device's owner. */
static int ff_answer_upload(struct udev *u, int id)
{
	struct uinput_ff_upload up = { .request_id = id };

	if (ioctl(u->ufd, UI_BEGIN_FF_UPLOAD, &up))
		return -1;
	up.retval = 0;
	return ioctl(u->ufd, UI_END_FF_UPLOAD, &up);
}

/* Answer the erase request @id of @u as the device's owner. */
static int ff_answer_erase(struct udev *u, int id)
{
	struct uinput_ff_erase er = { .request_id = id };

	if (ioctl(u->ufd, UI_BEGIN_FF_ERASE, &er))
		return -1;
	er.retval = 0;
	return ioctl(u->ufd, UI_END_FF_ERASE, &er);
}

/*
 * A child that uploads a rumble effect through @node.  With @ready < 0 it
 * exits with the upload's errno; else it writes a byte to @ready once the
 * upload succeeded and holds the file, and the effect, until killed.
 */
static pid_t ff_upload_child(const char *node, int ready)
{
	struct ff_effect effect = {
		.type = FF_RUMBLE,
		.id = -1,
		.u.rumble = { .strong_magnitude = 0x8000 },
	};
	pid_t pid = fork();
	int fd;

	if (pid)
		return pid;
	fd = open(node, O_RDWR);
	if (fd < 0)
		_exit(100);
	if (ready < 0)
		_exit(ioctl(fd, EVIOCSFF, &effect) ? errno : 0);
	if (ioctl(fd, EVIOCSFF, &effect) || write(ready, "u", 1) != 1)
		_exit(101);
	pause();
	_exit(0);
}

/*
 * An EVIOCSFF on a uinput device waits, uninterruptibly and up to 30 s,
 * for the device's owner to answer, and so does the erase of each effect
 * a file owns when it is released.  A revoke must wait for neither: the
 * upload in flight fails with ENODEV at once, the owner's late answer
 * finds no request, a revoked holder's effects are dropped without an
 * answer, and the next opener's uploads are answered as usual.
 */
TEST(evdev_ff_upload_in_flight)
{
	char byte;
	struct udev u;
	pid_t child;
	int id, sv[2];
	double t;

	ASSERT_EQ(udev_create(&u, "revoke-evdev-ff", CAP_KBD | CAP_FF), 0);
	child = ff_upload_child(u.event, -1);
	ASSERT_GE(child, 0);
	id = ff_request(&u, UI_FF_UPLOAD);
	ASSERT_GE(id, 0);

	t = now_sec();
	EXPECT_EQ(sys_revokeat(AT_FDCWD, u.event, 0), 0);
	t = now_sec() - t;
	EXPECT_LT((int)(t * 1000), 5000);
	EXPECT_EQ(reap_within(child, 5000), ENODEV);
	EXPECT_EQ(ff_answer_upload(&u, id), -1);
	EXPECT_EQ(errno, EINVAL);

	/* A holder of an effect: its release must not wait for the owner. */
	ASSERT_EQ(pipe(sv), 0);
	child = ff_upload_child(u.event, sv[1]);
	ASSERT_GE(child, 0);
	id = ff_request(&u, UI_FF_UPLOAD);
	ASSERT_GE(id, 0);
	EXPECT_EQ(ff_answer_upload(&u, id), 0);
	ASSERT_EQ(read(sv[0], &byte, 1), 1);
	t = now_sec();
	EXPECT_EQ(sys_revokeat(AT_FDCWD, u.event, 0), 0);
	t = now_sec() - t;
	EXPECT_LT((int)(t * 1000), 5000);
	kill(child, SIGKILL);
	EXPECT_EQ(reap_within(child, 5000), -1);
	close(sv[0]);
	close(sv[1]);

	child = ff_upload_child(u.event, -1);
	ASSERT_GE(child, 0);
	id = ff_request(&u, UI_FF_UPLOAD);
	ASSERT_GE(id, 0);
	EXPECT_EQ(ff_answer_upload(&u, id), 0);
	/* Its close erases the effect, through the owner too. */
	id = ff_request(&u, UI_FF_ERASE);
	ASSERT_GE(id, 0);
	EXPECT_EQ(ff_answer_erase(&u, id), 0);
	EXPECT_EQ(reap_within(child, 5000), 0);
	udev_destroy(&u);
}

/* mousedev and joydev nodes: blocked readers, then a working new open. */
TEST(mousedev_joydev_session_switch)
{
	struct waiter mreader, jreader;
	struct js_event js;
	unsigned char ps2[3];
	int mfd, jfd, efd, flags;
	struct udev u;

	ASSERT_EQ(udev_create(&u, "revoke-mouse-joy", CAP_MOUSE | CAP_JOY), 0);
	ASSERT_NE(u.mouse[0], 0);
	ASSERT_NE(u.js[0], 0);
	mfd = open(u.mouse, O_RDONLY);
	ASSERT_GE(mfd, 0);
	/* joydev reports the initial state first: take it, then block. */
	jfd = open(u.js, O_RDONLY | O_NONBLOCK);
	ASSERT_GE(jfd, 0);
	while (read(jfd, &js, sizeof(js)) == sizeof(js))
		;
	flags = fcntl(jfd, F_GETFL);
	ASSERT_EQ(fcntl(jfd, F_SETFL, flags & ~O_NONBLOCK), 0);
	efd = open(u.event, O_RDONLY);
	ASSERT_GE(efd, 0);

	waiter_start(&mreader, mfd, W_READ, sizeof(ps2));
	waiter_start(&jreader, jfd, W_READ, sizeof(js));
	usleep(200000);
	EXPECT_TRUE(waiter_sleeping(&mreader));
	EXPECT_TRUE(waiter_sleeping(&jreader));

	/* One node at a time: the joystick reader sleeps on. */
	ASSERT_EQ(sys_revokeat(AT_FDCWD, u.mouse, 0), 0);
	EXPECT_READ_FAILED(&mreader, ENODEV);
	usleep(50000);
	EXPECT_TRUE(waiter_sleeping(&jreader));

	ASSERT_EQ(sys_revokeat(AT_FDCWD, u.js, 0), 0);
	EXPECT_READ_FAILED(&jreader, ENODEV);
	EXPECT_EQ(read(mfd, ps2, sizeof(ps2)), -1);
	EXPECT_EQ(errno, ENODEV);
	EXPECT_EQ(read(jfd, &js, sizeof(js)), -1);
	EXPECT_EQ(errno, ENODEV);

	/* The event node was not revoked. */
	EXPECT_EQ(ioctl(efd, EVIOCGVERSION, &flags), 0);

	/* New users get the nodes. */
	close(mfd);
	mfd = open(u.mouse, O_RDONLY);
	ASSERT_GE(mfd, 0);
	ASSERT_EQ(udev_emit(&u, EV_REL, REL_X, 5), 0);
	EXPECT_EQ(read(mfd, ps2, sizeof(ps2)), 3);
	EXPECT_EQ(ps2[1], 5);
	close(jfd);
	jfd = open(u.js, O_RDONLY);
	ASSERT_GE(jfd, 0);
	EXPECT_EQ(read(jfd, &js, sizeof(js)), sizeof(js));

	close(mfd);
	close(jfd);
	close(efd);
	udev_destroy(&u);
}

TEST_HARNESS_MAIN
