// SPDX-License-Identifier: GPL-2.0
/*
 * The guest has the devices the revoke tests work on: snd-dummy and
 * snd-aloop sound cards under /dev/snd, and input devices that appear
 * under /dev/input when a uinput device is created.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/input.h>
#include <linux/uinput.h>
#include <sound/asound.h>

#include "../kselftest_harness.h"
#include "sound_util.h"

static int is_chrdev(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISCHR(st.st_mode);
}

TEST(snd_dummy_nodes)
{
	char path[64];
	int card = find_card("Dummy");

	ASSERT_GE(card, 0) TH_LOG("no snd-dummy card");
	snprintf(path, sizeof(path), "/dev/snd/pcmC%dD0p", card);
	EXPECT_TRUE(is_chrdev(path)) TH_LOG("%s", path);
	snprintf(path, sizeof(path), "/dev/snd/pcmC%dD0c", card);
	EXPECT_TRUE(is_chrdev(path)) TH_LOG("%s", path);
	EXPECT_TRUE(is_chrdev("/dev/snd/timer"));
	EXPECT_TRUE(is_chrdev("/dev/snd/seq"));
}

TEST(snd_aloop_nodes)
{
	char path[64];
	int card = find_card("Loopback");

	ASSERT_GE(card, 0) TH_LOG("no snd-aloop card");
	snprintf(path, sizeof(path), "/dev/snd/pcmC%dD0p", card);
	EXPECT_TRUE(is_chrdev(path)) TH_LOG("%s", path);
	snprintf(path, sizeof(path), "/dev/snd/pcmC%dD1c", card);
	EXPECT_TRUE(is_chrdev(path)) TH_LOG("%s", path);
}

/* The /dev/input/eventN node whose name is @name, or -1. */
static int find_event_node(const char *name, char *path, size_t len)
{
	struct dirent *de;
	DIR *dir;
	int found = -1;

	dir = opendir("/dev/input");
	if (!dir)
		return -1;
	while (found < 0 && (de = readdir(dir))) {
		char buf[256] = "";
		int fd;

		if (strncmp(de->d_name, "event", 5))
			continue;
		snprintf(path, len, "/dev/input/%s", de->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		if (ioctl(fd, EVIOCGNAME(sizeof(buf) - 1), buf) >= 0 &&
		    !strcmp(buf, name))
			found = 0;
		close(fd);
	}
	closedir(dir);
	return found;
}

TEST(uinput_device_appears)
{
	struct uinput_setup setup = {
		.id = { .bustype = BUS_VIRTUAL, .vendor = 0x1, .product = 0x2 },
		.name = "revoke-selftest-kbd",
	};
	char path[300];
	int fd, i;

	fd = open("/dev/uinput", O_RDWR);
	ASSERT_GE(fd, 0) TH_LOG("/dev/uinput: %s", strerror(errno));
	ASSERT_EQ(ioctl(fd, UI_SET_EVBIT, EV_KEY), 0);
	ASSERT_EQ(ioctl(fd, UI_SET_KEYBIT, KEY_A), 0);
	ASSERT_EQ(ioctl(fd, UI_DEV_SETUP, &setup), 0);

	/* Not there before it is created... */
	EXPECT_NE(find_event_node(setup.name, path, sizeof(path)), 0);
	ASSERT_EQ(ioctl(fd, UI_DEV_CREATE), 0);

	/* ...there after (devtmpfs creates the node asynchronously). */
	for (i = 0; i < 100; i++) {
		if (!find_event_node(setup.name, path, sizeof(path)))
			break;
		usleep(10000);
	}
	EXPECT_LT(i, 100) TH_LOG("no /dev/input/event* for %s", setup.name);
	EXPECT_TRUE(is_chrdev(path));

	ASSERT_EQ(ioctl(fd, UI_DEV_DESTROY), 0);
	close(fd);
}

TEST_HARNESS_MAIN
