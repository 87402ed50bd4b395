/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uinput helpers of the revoke selftests and benchmarks: a device made by
 * the test, and its evdev, mousedev and joydev nodes.
 */
#ifndef REVOKE_INPUT_UTIL_H
#define REVOKE_INPUT_UTIL_H

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/input.h>
#include <linux/uinput.h>

enum { CAP_KBD = 1, CAP_MOUSE = 2, CAP_JOY = 4, CAP_FF = 8 };

struct udev {
	int ufd;
	char event[300], mouse[300], js[300];
};

static inline int set_bits(int fd, unsigned long req, const int *bits, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (ioctl(fd, req, bits[i]))
			return -1;
	return 0;
}

/* Create a uinput device and find its evdev/mousedev/joydev nodes. */
static inline int udev_create(struct udev *u, const char *name, int caps)
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
	if (caps & CAP_FF) {
		/* Force feedback whose requests the test answers, or not. */
		if (ioctl(u->ufd, UI_SET_EVBIT, EV_FF) ||
		    ioctl(u->ufd, UI_SET_FFBIT, FF_RUMBLE))
			return -1;
		setup.ff_effects_max = 4;
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

static inline void udev_destroy(struct udev *u)
{
	ioctl(u->ufd, UI_DEV_DESTROY);
	close(u->ufd);
}

static inline int udev_emit(struct udev *u, int type, int code, int value)
{
	struct input_event ev = { .type = type, .code = code, .value = value };
	struct input_event syn = { .type = EV_SYN, .code = SYN_REPORT };

	if (write(u->ufd, &ev, sizeof(ev)) != sizeof(ev) ||
	    write(u->ufd, &syn, sizeof(syn)) != sizeof(syn))
		return -1;
	return 0;
}

#endif /* REVOKE_INPUT_UTIL_H */
