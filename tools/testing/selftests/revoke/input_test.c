// SPDX-License-Identifier: GPL-2.0
/*
 * revokeat(2) on /dev/input nodes: what a session manager does to take an
 * input device away from the previous user.  The devices are uinput
 * devices made by the test; evdev, joydev and mousedev nodes are revoked
 * one revokeat() each, whoever holds them and however.
 */

#include <dirent.h>
#include <stdlib.h>
#include <linux/input.h>
#include <linux/joystick.h>
#include <linux/uinput.h>

#include "kselftest_harness.h"
#include "revoke_util.h"

enum { CAP_KBD = 1, CAP_MOUSE = 2, CAP_JOY = 4 };

struct udev {
	int ufd;
	char event[300], mouse[300], js[300];
};

static int set_bits(int fd, unsigned long req, const int *bits, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (ioctl(fd, req, bits[i]))
			return -1;
	return 0;
}

/* Create a uinput device and find its evdev/mousedev/joydev nodes. */
static int udev_create(struct udev *u, const char *name, int caps)
{
	static const int kbd_keys[] = { KEY_A, KEY_B };
	static const int mouse_keys[] = { BTN_LEFT };
	static const int mouse_rels[] = { REL_X, REL_Y };
	struct uinput_setup setup = {
		.id = { .bustype = BUS_VIRTUAL, .vendor = 0x1, .product = 0x3 },
	};
	struct uinput_abs_setup abs = {
		.code = ABS_X,
		.absinfo = { .minimum = -100, .maximum = 100 },
	};
	char sysname[64], dirpath[128];
	struct dirent *de;
	DIR *dir;

	memset(u, 0, sizeof(*u));
	u->ufd = open("/dev/uinput", O_RDWR);
	if (u->ufd < 0)
		return -1;
	if (ioctl(u->ufd, UI_SET_EVBIT, EV_KEY))
		return -1;
	if ((caps & CAP_KBD) && set_bits(u->ufd, UI_SET_KEYBIT, kbd_keys, 2))
		return -1;
	if (caps & CAP_MOUSE) {
		if (set_bits(u->ufd, UI_SET_KEYBIT, mouse_keys, 1) ||
		    ioctl(u->ufd, UI_SET_EVBIT, EV_REL) ||
		    set_bits(u->ufd, UI_SET_RELBIT, mouse_rels, 2))
			return -1;
	}
	if (caps & CAP_JOY) {
		if (ioctl(u->ufd, UI_SET_KEYBIT, BTN_TRIGGER) ||
		    ioctl(u->ufd, UI_SET_EVBIT, EV_ABS) ||
		    ioctl(u->ufd, UI_SET_ABSBIT, ABS_X) ||
		    ioctl(u->ufd, UI_ABS_SETUP, &abs))
			return -1;
	}
	snprintf(setup.name, sizeof(setup.name), "%s", name);
	if (ioctl(u->ufd, UI_DEV_SETUP, &setup) ||
	    ioctl(u->ufd, UI_DEV_CREATE) ||
	    ioctl(u->ufd, UI_GET_SYSNAME(sizeof(sysname)), sysname) < 0)
		return -1;

	snprintf(dirpath, sizeof(dirpath), "/sys/class/input/%s", sysname);
	dir = opendir(dirpath);
	if (!dir)
		return -1;
	while ((de = readdir(dir))) {
		char *dst = NULL;

		if (!strncmp(de->d_name, "event", 5))
			dst = u->event;
		else if (!strncmp(de->d_name, "mouse", 5))
			dst = u->mouse;
		else if (!strncmp(de->d_name, "js", 2))
			dst = u->js;
		if (dst)
			snprintf(dst, sizeof(u->event), "/dev/input/%s",
				 de->d_name);
	}
	closedir(dir);
	return u->event[0] ? 0 : -1;
}

static void udev_destroy(struct udev *u)
{
	ioctl(u->ufd, UI_DEV_DESTROY);
	close(u->ufd);
}

static int udev_emit(struct udev *u, int type, int code, int value)
{
	struct input_event ev = { .type = type, .code = code, .value = value };
	struct input_event syn = { .type = EV_SYN, .code = SYN_REPORT };

	if (write(u->ufd, &ev, sizeof(ev)) != sizeof(ev) ||
	    write(u->ufd, &syn, sizeof(syn)) != sizeof(syn))
		return -1;
	return 0;
}

/* What a revoked input file looks like. */
static int check_input_revoked(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct input_event ev;
	struct stat st;
	int version;

	if (read(fd, &ev, sizeof(ev)) != -1 || errno != ENXIO)
		return 1;
	if (ioctl(fd, EVIOCGVERSION, &version) != -1 || errno != ENXIO)
		return 2;
	if (poll(&pfd, 1, 0) != 1 || pfd.revents != (POLLERR | POLLHUP))
		return 3;
	if (fstat(fd, &st) || !S_ISCHR(st.st_mode))
		return 4;
	return 0;
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

		_exit(read(fd, &ev, sizeof(ev)) == -1 && errno == ENXIO ?
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

	ASSERT_TRUE(waiter_returned(&reader));
	EXPECT_EQ(reader.ret, -1);
	EXPECT_EQ(reader.err, ENXIO);
	ASSERT_TRUE(waiter_returned(&poller));
	EXPECT_EQ(poller.ret, 1);
	EXPECT_EQ(poller.revents, POLLERR | POLLHUP);
	ASSERT_TRUE(waiter_returned(&epoller));
	EXPECT_EQ(epoller.ret, 1);
	EXPECT_EQ(epoller.revents, EPOLLERR | EPOLLHUP);
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
	ASSERT_TRUE(waiter_returned(&reader));
	EXPECT_EQ(reader.ret, -1);
	EXPECT_EQ(reader.err, ENODEV);
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
	ASSERT_TRUE(waiter_returned(&mreader));
	EXPECT_EQ(mreader.ret, -1);
	EXPECT_EQ(mreader.err, ENXIO);
	usleep(50000);
	EXPECT_TRUE(waiter_sleeping(&jreader));

	ASSERT_EQ(sys_revokeat(AT_FDCWD, u.js, 0), 0);
	ASSERT_TRUE(waiter_returned(&jreader));
	EXPECT_EQ(jreader.ret, -1);
	EXPECT_EQ(jreader.err, ENXIO);
	EXPECT_EQ(read(mfd, ps2, sizeof(ps2)), -1);
	EXPECT_EQ(errno, ENXIO);
	EXPECT_EQ(read(jfd, &js, sizeof(js)), -1);
	EXPECT_EQ(errno, ENXIO);

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
