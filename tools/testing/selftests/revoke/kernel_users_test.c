// SPDX-License-Identifier: GPL-2.0
/*
 * revokeat(2) on regular files that the kernel holds open for a user:
 * the backing file of a loop device (also with a filesystem mounted on
 * it), the lower and upper files behind an overlayfs file, and an active
 * swap file.  Each either loses its access with the file, without
 * wedging the device or losing a write silently, or is refused with a
 * clear errno.
 */

#include <fcntl.h>
#include <linux/loop.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <sys/xattr.h>

#include "../kselftest_harness.h"
#include "revoke_util.h"

#define PAGE		4096
#define DIR		"/mnt/revoke-users"
/* Packed into the initramfs by harness/guest.sh (mkfs.ext4 on the host). */
#define EXT4_IMAGE	"/images/ext4.img"

/* A file of @pages pages of @c at @path. */
static int fill(const char *path, char c, int pages)
{
	char buf[PAGE];
	int fd, i;

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -1;
	memset(buf, c, sizeof(buf));
	for (i = 0; i < pages; i++)
		if (write(fd, buf, sizeof(buf)) != sizeof(buf))
			break;
	close(fd);
	return i == pages ? 0 : -1;
}

/* The first byte of page @page of @fd, or -errno. */
static int byte_at(int fd, int page)
{
	char *buf;
	int ret;

	if (posix_memalign((void **)&buf, PAGE, PAGE))
		return -ENOMEM;
	ret = pread(fd, buf, PAGE, (off_t)page * PAGE);
	ret = ret == PAGE ? buf[0] : ret < 0 ? -errno : -EIO;
	free(buf);
	return ret;
}

/* Write page @page of @fd full of @c; 0 or -errno. */
static int write_page(int fd, int page, char c)
{
	char *buf;
	int ret;

	if (posix_memalign((void **)&buf, PAGE, PAGE))
		return -ENOMEM;
	memset(buf, c, PAGE);
	ret = pwrite(fd, buf, PAGE, (off_t)page * PAGE);
	ret = ret == PAGE ? 0 : ret < 0 ? -errno : -EIO;
	free(buf);
	return ret;
}

/* The /dev/loopN of a loop device's open file. */
static void loop_name(int lfd, char *buf, size_t len)
{
	struct stat st;

	buf[0] = '\0';
	if (!fstat(lfd, &st))
		snprintf(buf, len, "/dev/loop%u", minor(st.st_rdev));
}

/* Detach a loop device once its last opener is gone. */
static int loop_detach(int lfd)
{
	int ret = ioctl(lfd, LOOP_CLR_FD);

	close(lfd);
	return ret;
}

/*
 * Copy the ext4 image to @copy (on the fixture's tmpfs), attach it to a
 * loop device and mount that on @mnt: the loop device's open file, or -1.
 */
static int mount_image_copy(const char *copy, const char *mnt)
{
	char dev[32], buf[PAGE];
	int in, out, lfd;
	ssize_t n;

	/* read/write: copy_file_range(2) does not cross filesystems. */
	in = open(EXT4_IMAGE, O_RDONLY);
	out = open(copy, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		if (write(out, buf, n) != n) {
			n = -1;
			break;
		}
	}
	close(in);
	close(out);
	if (in < 0 || out < 0 || n < 0)
		return -1;
	lfd = loop_attach(copy);
	if (lfd < 0)
		return -1;
	loop_name(lfd, dev, sizeof(dev));
	mkdir(mnt, 0755);
	if (mount(dev, mnt, "ext4", 0, NULL)) {
		loop_detach(lfd);
		return -1;
	}
	return lfd;
}

FIXTURE(users) {
	char file[128];
};

FIXTURE_SETUP(users)
{
	mkdir(DIR, 0755);
	ASSERT_EQ(mount("tmpfs", DIR, "tmpfs", 0, NULL), 0);
	snprintf(self->file, sizeof(self->file), DIR "/file");
}

FIXTURE_TEARDOWN(users)
{
	umount2(DIR, MNT_DETACH);
}

/*
 * A loop device reads and writes its backing file through the struct file
 * its user handed it: after the revoke its I/O fails with EIO, so the old
 * user neither reads what the next owner writes nor writes into it; the
 * device is not wedged (it detaches, and a new one over the same file
 * sees the new data).
 */
TEST_F(users, loop_device_loses_its_file)
{
	int lfd, dio, fd, again;
	char dev[32];

	ASSERT_EQ(fill(self->file, 'o', 16), 0);
	lfd = loop_attach(self->file);
	ASSERT_GE(lfd, 0);
	loop_name(lfd, dev, sizeof(dev));
	/* O_DIRECT: past the loop device's own page cache. */
	dio = open(dev, O_RDWR | O_DIRECT);
	ASSERT_GE(dio, 0);
	EXPECT_EQ(byte_at(dio, 0), 'o');

	ASSERT_EQ(sys_revokeat(AT_FDCWD, self->file, 0), 0);
	/* The next owner writes page 0. */
	fd = open(self->file, O_RDWR);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(write_page(fd, 0, 'n'), 0);

	EXPECT_EQ(byte_at(dio, 0), -EIO);
	EXPECT_EQ(write_page(dio, 1, 'x'), -EIO);
	/* A buffered write is reported when it is synced, not lost. */
	EXPECT_EQ(write_page(lfd, 2, 'x'), 0);
	EXPECT_EQ(fsync(lfd), -1);
	EXPECT_EQ(errno, EIO);
	EXPECT_EQ(byte_at(fd, 1), 'o');
	EXPECT_EQ(byte_at(fd, 2), 'o');

	close(dio);
	EXPECT_EQ(loop_detach(lfd), 0);
	again = loop_attach(self->file);
	ASSERT_GE(again, 0);
	EXPECT_EQ(byte_at(again, 0), 'n');
	EXPECT_EQ(byte_at(again, 1), 'o');
	EXPECT_EQ(loop_detach(again), 0);
	close(fd);
}

/*
 * An ext4 filesystem mounted from an image whose file is revoked: its
 * writes fail, sync reports it, and it still unmounts (in a child, bounded)
 * and its loop device detaches.
 */
TEST_F(users, loop_mounted_filesystem_unmounts)
{
	char mnt[] = DIR "/mnt", f[] = DIR "/mnt/f";
	int lfd, fd, status;
	pid_t pid;

	lfd = mount_image_copy(self->file, mnt);
	ASSERT_GE(lfd, 0);
	ASSERT_EQ(fill(f, 'o', 4), 0);
	fd = open(f, O_RDWR);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(fsync(fd), 0);

	ASSERT_EQ(sys_revokeat(AT_FDCWD, self->file, 0), 0);
	/* The data cannot reach the image: fsync says so. */
	EXPECT_EQ(write_page(fd, 0, 'x'), 0);
	EXPECT_EQ(fsync(fd), -1);
	close(fd);

	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid)
		_exit(umount(mnt) ? 1 : 0);
	ASSERT_EQ(reap_within(pid, 30000), 0) {
		TH_LOG("umount of the filesystem on the revoked image hangs");
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	EXPECT_EQ(loop_detach(lfd), 0);
}

/*
 * An overlay on DIR/merged over DIR/lower, whose files f and g hold two
 * pages of 'o', with DIR/upper; @opts is appended to the mount options.
 */
static int overlay_mount(const char *opts)
{
	char data[256];

	mkdir(DIR "/lower", 0755);
	mkdir(DIR "/upper", 0755);
	mkdir(DIR "/work", 0755);
	mkdir(DIR "/merged", 0755);
	if (fill(DIR "/lower/f", 'o', 2) || fill(DIR "/lower/g", 'o', 2))
		return -1;
	snprintf(data, sizeof(data), "lowerdir=" DIR "/lower,upperdir=" DIR
		 "/upper,workdir=" DIR "/work%s", opts);
	return mount("overlay", DIR "/merged", "overlay", 0, data);
}

/*
 * Overlayfs opens the real file itself, as a backing file.  revokeat(2)
 * on the overlay's path is refused: overlayfs did not opt in; the real
 * file is what is revoked, and an overlay file is revoked with it,
 * whether it was opened before the copy-up (on the lower file) or after
 * (on the upper one), and stays revoked when its data is copied up.
 */
TEST_F(users, overlayfs_files_go_with_the_real_file)
{
	const char *merged = DIR "/merged";
	int before, lower_rev, after, fd;
	char c;

	ASSERT_EQ(overlay_mount(""), 0);

	EXPECT_EQ(sys_revokeat(AT_FDCWD, DIR "/merged/f", 0), -1);
	EXPECT_EQ(errno, EOPNOTSUPP);

	/* A revoked lower file stays revoked through the copy-up. */
	lower_rev = open(DIR "/merged/g", O_RDONLY);
	ASSERT_GE(lower_rev, 0);
	ASSERT_EQ(sys_revokeat(AT_FDCWD, DIR "/lower/g", 0), 0);
	EXPECT_EQ(pread(lower_rev, &c, 1, 0), -1);
	EXPECT_EQ(errno, EBADF);
	fd = open(DIR "/merged/g", O_RDWR);	/* copies it up */
	ASSERT_GE(fd, 0);
	EXPECT_EQ(byte_at(fd, 0), 'o');
	EXPECT_EQ(pread(lower_rev, &c, 1, 0), -1) {
		TH_LOG("a revoked overlay file came back with the copy-up");
	}
	EXPECT_EQ(errno, EBADF);
	close(fd);

	/* Opened before the copy-up and after it: the upper file's revoke. */
	before = open(DIR "/merged/f", O_RDONLY);
	ASSERT_GE(before, 0);
	after = open(DIR "/merged/f", O_RDWR);	/* copies it up */
	ASSERT_GE(after, 0);
	EXPECT_EQ(byte_at(before, 0), 'o');
	EXPECT_EQ(byte_at(after, 0), 'o');
	ASSERT_EQ(sys_revokeat(AT_FDCWD, DIR "/upper/f", 0), 0);
	EXPECT_EQ(byte_at(after, 0), -EBADF);
	EXPECT_EQ(write_page(after, 0, 'x'), -EBADF);
	EXPECT_EQ(byte_at(before, 0), -EBADF) {
		TH_LOG("a file opened before the copy-up reads the revoked upper file");
	}
	EXPECT_EQ(fsync(before), -1);
	EXPECT_EQ(errno, EBADF);
	/* A new open through the overlay works. */
	fd = open(DIR "/merged/f", O_RDWR);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(write_page(fd, 0, 'n'), 0);
	EXPECT_EQ(byte_at(fd, 0), 'n');
	/* And the revoked file cannot truncate what the new one wrote. */
	EXPECT_EQ(ftruncate(after, 0), -1) {
		TH_LOG("a revoked overlay file truncated the upper file");
	}
	EXPECT_EQ(errno, EBADF);
	/* Nor allocate in it (nor strip its set-id bits on the way). */
	EXPECT_EQ(fallocate(after, 0, 0, 2 * PAGE), -1);
	EXPECT_EQ(errno, EBADF);
	EXPECT_EQ(byte_at(fd, 0), 'n');
	close(fd);
	/* Closing a revoked overlay file succeeds, copied up or not. */
	EXPECT_EQ(close(before), 0);
	EXPECT_EQ(close(after), 0);
	EXPECT_EQ(close(lower_rev), 0);
	EXPECT_EQ(umount(merged), 0);
}

/*
 * With metacopy=on, a chmod copies up only the metadata: the upper file
 * exists, and an overlay file opened then reads the lower file's data.
 * It goes with a revoke of the upper file made after its open (reading
 * through it, fsync, and after its data is copied up), and not with one
 * made before its open.
 */
TEST_F(users, overlayfs_metacopy_files_go_with_the_upper_file)
{
	const char *merged = DIR "/merged";
	int before, fd, wfd;

	ASSERT_EQ(overlay_mount(",metacopy=on"), 0);
	/* Metadata only: the upper files have no data yet. */
	ASSERT_EQ(chmod(DIR "/merged/f", 0640), 0);
	ASSERT_EQ(chmod(DIR "/merged/g", 0640), 0);
	ASSERT_GE(getxattr(DIR "/upper/f", "trusted.overlay.metacopy", NULL,
			   0), 0);

	/* A revoke before the open does not take it, copied up or not. */
	ASSERT_EQ(sys_revokeat(AT_FDCWD, DIR "/upper/f", 0), 0);
	fd = open(DIR "/merged/f", O_RDONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(byte_at(fd, 0), 'o');
	EXPECT_EQ(fsync(fd), 0) {
		TH_LOG("fsync: %s", strerror(errno));
	}
	wfd = open(DIR "/merged/f", O_RDWR);	/* copies the data up */
	ASSERT_GE(wfd, 0);
	EXPECT_EQ(byte_at(fd, 0), 'o') {
		TH_LOG("taken by a revoke made before its open");
	}
	/* One after the open takes both. */
	ASSERT_EQ(sys_revokeat(AT_FDCWD, DIR "/upper/f", 0), 0);
	EXPECT_EQ(byte_at(fd, 0), -EBADF);
	EXPECT_EQ(byte_at(wfd, 0), -EBADF);
	EXPECT_EQ(ftruncate(wfd, 0), -1);
	EXPECT_EQ(errno, EBADF);
	EXPECT_EQ(close(fd), 0);
	EXPECT_EQ(close(wfd), 0);

	/* Revoked while it still reads the lower file's data. */
	before = open(DIR "/merged/g", O_RDONLY);
	ASSERT_GE(before, 0);
	EXPECT_EQ(byte_at(before, 0), 'o');
	ASSERT_EQ(sys_revokeat(AT_FDCWD, DIR "/upper/g", 0), 0);
	EXPECT_EQ(byte_at(before, 0), -EBADF) {
		TH_LOG("reads on after a revoke of the upper file");
	}
	EXPECT_EQ(fsync(before), -1);
	EXPECT_EQ(errno, EBADF);
	wfd = open(DIR "/merged/g", O_RDWR);	/* copies the data up */
	ASSERT_GE(wfd, 0);
	EXPECT_EQ(byte_at(wfd, 0), 'o');
	EXPECT_EQ(byte_at(before, 0), -EBADF);
	EXPECT_EQ(close(wfd), 0);
	EXPECT_EQ(close(before), 0);
	EXPECT_EQ(umount(merged), 0);
}

/* The header mkswap writes: version 1, the last page, the magic. */
static int make_swap(const char *path, int pages)
{
	unsigned int info[3] = { 1, pages - 1, 0 };
	int fd, ret;

	if (fill(path, 0, pages))
		return -1;
	fd = open(path, O_RDWR);
	if (fd < 0)
		return -1;
	ret = pwrite(fd, info, sizeof(info), 1024) == sizeof(info) &&
	      pwrite(fd, "SWAPSPACE2", 10, PAGE - 10) == 10 ? 0 : -1;
	close(fd);
	return ret;
}

/*
 * Swap reads and writes the blocks of an active swap file without its
 * struct file: a revoke would take nothing, so it is refused with
 * ETXTBSY, as writes to the file are.  After swapoff the file is a file.
 */
TEST_F(users, active_swap_file_refused)
{
	char mnt[] = DIR "/mnt", swap[] = DIR "/mnt/swap";
	int lfd;

	/* tmpfs cannot hold a swap file: ext4 on a copy of the image. */
	lfd = mount_image_copy(self->file, mnt);
	ASSERT_GE(lfd, 0);
	ASSERT_EQ(make_swap(swap, 64), 0);
	ASSERT_EQ(swapon(swap, 0), 0);

	EXPECT_EQ(sys_revokeat(AT_FDCWD, swap, 0), -1);
	EXPECT_EQ(errno, ETXTBSY);

	ASSERT_EQ(swapoff(swap), 0);
	EXPECT_EQ(sys_revokeat(AT_FDCWD, swap, 0), 0);
	EXPECT_EQ(umount(mnt), 0);
	EXPECT_EQ(loop_detach(lfd), 0);
}

TEST_HARNESS_MAIN
