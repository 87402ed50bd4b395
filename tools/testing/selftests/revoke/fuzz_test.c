// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzzing the edges: revokeat(2) with random flags, directory descriptors
 * and path pointers (valid, NULL, unmapped, unterminated at the end of a
 * mapping, too long), as root and as an unprivileged user, answers only
 * with its documented errnos and never succeeds on an object the caller
 * may not revoke; random ioctl numbers (every ALSA, evdev and test-device
 * type, and random ones) with random small buffers on revoked descriptors
 * of the converted nodes all fail with the node's errno for a revoked
 * file.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "revoke_util.h"
#include "input_util.h"
#include "sound_util.h"

#define FUZZ_DIR	"/mnt/fuzz"
#define USER		1001
#define ROUNDS		3000

static unsigned int seed;

static unsigned int rnd(unsigned int n)
{
	return rand_r(&seed) % n;
}

/* The errnos revokeat(2) documents. */
static bool documented(int err)
{
	switch (err) {
	case EINVAL: case EPERM: case EACCES: case EOPNOTSUPP: case ETXTBSY:
	case ENXIO: case EINTR:
	/* path lookup */
	case EFAULT: case ENAMETOOLONG: case ENOENT: case EBADF: case ENOTDIR:
	case ELOOP: case ENOMEM:
		return true;
	}
	return false;
}

/*
 * Random calls as the current user; returns the number of wrong answers
 * and describes the first in @first.
 */
static int fuzz_revokeat(int uid, char *first, size_t len)
{
	static const unsigned int good[] = {
		0, AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH,
		AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH,
	};
	static const char * const names[] = {
		"root", "mine", "dir", "link", "", "/", "/dev/null", RT_NODE,
		"nonexistent", "root/x", FUZZ_DIR "/mine", "/proc/self/fd/0",
	};
	char *page, *unterminated, *toolong;
	int dfd, ffd, pfd, closed, wrong = 0, i;

	page = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return 1;
	/* A name that runs into an inaccessible page. */
	memset(page, 'a', 4096);
	mprotect(page + 4096, 4096, PROT_NONE);
	unterminated = page + 4096 - 16;
	toolong = malloc(PATH_MAX + 16);
	memset(toolong, 'b', PATH_MAX + 15);
	toolong[PATH_MAX + 15] = 0;
	dfd = open(FUZZ_DIR, O_RDONLY | O_DIRECTORY);
	ffd = open(FUZZ_DIR "/root", O_RDONLY);
	pfd = open(FUZZ_DIR "/mine", O_PATH);
	closed = open("/dev/null", O_RDONLY);
	close(closed);

	for (i = 0; i < ROUNDS; i++) {
		const int dirfds[] = {
			AT_FDCWD, AT_FDCWD, dfd, dfd, ffd, pfd, -1, closed,
			1000000, (int)rand_r(&seed),
		};
		unsigned int flags;
		const char *path;
		int dirfd, ret, err, p = rnd(16);
		struct stat st;

		flags = rnd(4) ? good[rnd(4)] : rand_r(&seed) ^ (rand_r(&seed) << 1);
		dirfd = dirfds[rnd(ARRAY_SIZE(dirfds))];
		if (p < (int)ARRAY_SIZE(names))
			path = names[p];
		else if (p == 12)
			path = NULL;
		else if (p == 13)
			path = page + 4096;	/* inaccessible */
		else if (p == 14)
			path = unterminated;
		else
			path = toolong;

		errno = 0;
		ret = sys_revokeat(dirfd, path, flags);
		err = errno;
		if (ret) {
			if (documented(err))
				continue;
			snprintf(first, len, "uid %d: revokeat(%d, %s, %#x): %s",
				 uid, dirfd, p < 12 ? path : "(bad)", flags,
				 strerror(err));
		} else if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)) {
			snprintf(first, len, "uid %d: revokeat(..., %#x) succeeded",
				 uid, flags);
		} else if (p >= 12) {
			snprintf(first, len, "uid %d: revokeat() of a bad name succeeded",
				 uid);
		} else if (fstatat(dirfd, path, &st,
				   flags & (AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)) ||
			   (uid && st.st_uid != (uid_t)uid)) {
			snprintf(first, len, "uid %d: revoked %s (owner %d) through %d",
				 uid, path, (int)st.st_uid, dirfd);
		} else {
			continue;
		}
		wrong++;
	}
	free(toolong);
	munmap(page, 2 * 4096);
	return wrong;
}

TEST(revokeat_random_arguments)
{
	char *first = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int uid, fd, status;
	pid_t pid;

	ASSERT_NE(first, MAP_FAILED);
	mkdir(FUZZ_DIR, 0755);
	ASSERT_EQ(mount("tmpfs", FUZZ_DIR, "tmpfs", 0, "mode=0777"), 0);
	fd = open(FUZZ_DIR "/root", O_RDWR | O_CREAT, 0644);
	ASSERT_GE(fd, 0);
	close(fd);
	fd = open(FUZZ_DIR "/mine", O_RDWR | O_CREAT, 0644);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(fchown(fd, USER, USER), 0);
	close(fd);
	ASSERT_EQ(mkdir(FUZZ_DIR "/dir", 0755), 0);
	ASSERT_EQ(symlink("root", FUZZ_DIR "/link"), 0);

	for (uid = 0; uid <= USER; uid += USER) {
		pid = fork();
		ASSERT_GE(pid, 0);
		if (pid == 0) {
			seed = 12345 + uid;
			if (chdir(FUZZ_DIR) ||
			    (uid && (setresgid(uid, uid, uid) ||
				     setresuid(uid, uid, uid))))
				_exit(255);
			_exit(fuzz_revokeat(uid, first, 4096) ? 1 : 0);
		}
		ASSERT_EQ(waitpid(pid, &status, 0), pid);
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
			TH_LOG("%s", first);
		first[0] = 0;
	}
	umount2(FUZZ_DIR, MNT_DETACH);
	munmap(first, 4096);
}

/* ---- ioctls of revoked descriptors ------------------------------------- */

/* Handled by the VFS on the node itself, not by the device (fs/ioctl.c). */
static bool vfs_ioctl_cmd(unsigned int cmd)
{
	switch (cmd) {
	case FIOCLEX: case FIONCLEX: case FIONBIO: case FIOASYNC:
	case FIOQSIZE: case FIFREEZE: case FITHAW: case FS_IOC_FIEMAP:
	case FIGETBSZ: case FICLONE: case FICLONERANGE: case FIDEDUPERANGE:
	case FS_IOC_GETFLAGS: case FS_IOC_SETFLAGS:
	case FS_IOC_FSGETXATTR: case FS_IOC_FSSETXATTR:
	case FS_IOC_GETFSUUID: case FS_IOC_GETFSSYSFSPATH:
		return true;
	}
	return false;
}

/*
 * Random ioctls on @fd, revoked: each must fail with @want.  Returns the
 * number that did not, the first described in @first.
 */
static int fuzz_ioctls(int fd, int want, char *first, size_t len)
{
	static const unsigned int types[] = { 'U', 'A', 'E', 'H', 'C', 'T',
					      'W', 0xB9, 'u' };
	unsigned char *buf = malloc(512);
	int wrong = 0, i;

	for (i = 0; i < ROUNDS; i++) {
		unsigned int cmd;
		void *arg;
		int ret;

		if (rnd(4))
			cmd = _IOC(rnd(4), types[rnd(sizeof(types))], rnd(256),
				   rnd(4) ? rnd(64) : rnd(1 << 14));
		else
			cmd = rand_r(&seed) ^ (rand_r(&seed) << 1);
		if (vfs_ioctl_cmd(cmd))
			continue;
		for (ret = 0; ret < 512; ret++)
			buf[ret] = rand_r(&seed);
		arg = rnd(8) ? buf : rnd(2) ? NULL : (void *)16;
		errno = 0;
		ret = ioctl(fd, cmd, arg);
		if (ret == -1 && errno == want)
			continue;
		if (!wrong++)
			snprintf(first, len, "ioctl %#x: %d, %s", cmd, ret,
				 strerror(errno));
	}
	free(buf);
	return wrong;
}

static void revoked_ioctls(struct __test_metadata *_metadata,
			   const char *path, int want)
{
	char first[128] = "";
	int fd;

	seed = 777;
	fd = open(path, O_RDWR | O_NONBLOCK);
	ASSERT_GE(fd, 0) TH_LOG("%s: %s", path, strerror(errno));
	ASSERT_EQ(sys_revokeat(AT_FDCWD, path, 0), 0);
	EXPECT_EQ(fuzz_ioctls(fd, want, first, sizeof(first)), 0)
		TH_LOG("%s: %s", path, first);
	close(fd);
}

TEST(revoked_ioctls_test_device)
{
	revoked_ioctls(_metadata, RT_NODE, ENXIO);
}

TEST(revoked_ioctls_alsa)
{
	int card = find_card("Dummy");
	char path[64];

	ASSERT_GE(card, 0);
	snprintf(path, sizeof(path), "/dev/snd/controlC%d", card);
	revoked_ioctls(_metadata, path, ENXIO);
	snprintf(path, sizeof(path), "/dev/snd/pcmC%dD0p", card);
	revoked_ioctls(_metadata, path, ENXIO);
	snprintf(path, sizeof(path), "/dev/snd/pcmC%dD0c", card);
	revoked_ioctls(_metadata, path, ENXIO);
	revoked_ioctls(_metadata, "/dev/snd/timer", ENXIO);
}

TEST(revoked_ioctls_evdev)
{
	struct udev u;

	ASSERT_EQ(udev_create(&u, "revoke-fuzz-kbd", CAP_KBD | CAP_MOUSE), 0);
	revoked_ioctls(_metadata, u.event, ENODEV);
	/* mousedev has no ioctl method: the VFS answers, live or revoked. */
	if (u.mouse[0])
		revoked_ioctls(_metadata, u.mouse, ENOTTY);
	udev_destroy(&u);
}

TEST_HARNESS_MAIN
