// SPDX-License-Identifier: GPL-2.0
/*
 * revokeat(2) on regular files, on a fresh tmpfs and on an ext4 image
 * mounted through a loop device: each guarantee of revocation, the data
 * rules (completed writes durable, nothing lands afterwards), shared and
 * private mappings, locks, and the files that stay unrevocable.
 */

#include <fcntl.h>
#include <limits.h>
#include <linux/aio_abi.h>
#include <linux/dm-ioctl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/fuse.h>
#include <linux/io_uring.h>
#include <linux/loop.h>
#include <linux/udmabuf.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/fanotify.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/sendfile.h>
#include <sys/swap.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>

#include "../kselftest_harness.h"
#include "revoke_util.h"

/* Packed into the initramfs by harness/guest.sh (mkfs.ext4 on the host). */
#define EXT4_IMAGE	"/images/ext4.img"
#define PAGE		4096

/* One device-mapper ioctl on @ctl for the device @name; 0 or -1. */
static int dm_call(int ctl, unsigned long cmd, const char *name,
		   unsigned int flags, const char *target, const char *params,
		   unsigned long long sectors, dev_t *dev)
{
	struct {
		struct dm_ioctl io;
		struct dm_target_spec spec;
		char params[64];
	} req = {};
	int ret;

	req.io.version[0] = DM_VERSION_MAJOR;
	req.io.data_size = sizeof(req);
	req.io.data_start = sizeof(req.io);
	req.io.flags = flags;
	snprintf(req.io.name, sizeof(req.io.name), "%s", name);
	if (target) {
		req.io.target_count = 1;
		req.spec.length = sectors;
		snprintf(req.spec.target_type, sizeof(req.spec.target_type),
			 "%s", target);
		snprintf(req.params, sizeof(req.params), "%s", params);
	}
	ret = ioctl(ctl, cmd, &req);
	if (!ret && dev)
		*dev = req.io.dev;
	return ret;
}

/* Suspend @name without freezing its filesystem: its I/O now waits. */
static int dm_suspend(int ctl, const char *name)
{
	return dm_call(ctl, DM_DEV_SUSPEND, name,
		       DM_SUSPEND_FLAG | DM_SKIP_LOCKFS_FLAG | DM_NOFLUSH_FLAG,
		       NULL, NULL, 0, NULL);
}

static int dm_resume(int ctl, const char *name)
{
	return dm_call(ctl, DM_DEV_SUSPEND, name, 0, NULL, NULL, 0, NULL);
}

/* ---- a disk whose I/O a test can hold ------------------------------------ */

#define HOLD_DM		"revoke-hold"
#define HOLD_NODE	"/tmp/revoke-hold"
#define HOLD_SWAP	"/tmp/revoke-hold.swap"
#define HOLD_CG		"/sys/fs/cgroup/revoke-hold"

/*
 * A device-mapper disk, linear over a loop device of an image, whose I/O
 * waits while it is suspended.  An operation inside a filesystem's gate
 * waits for nothing a user controls, user memory least of all; reading a
 * block from this disk (ext4 on it, or tmpfs swapping to it) is how a test
 * holds one there for as long as it likes.
 */
struct hold_disk {
	int ctl;		/* /dev/mapper/control, or -1 */
	int loop;
	bool swap;		/* swapped on */
};

static int hold_disk_create(struct hold_disk *d, const char *image)
{
	struct stat st, ist;
	char params[32];
	dev_t dev;

	d->swap = false;
	d->ctl = open("/dev/mapper/control", O_RDWR);
	d->loop = loop_attach(image);
	if (d->ctl < 0 || d->loop < 0 || fstat(d->loop, &st) ||
	    stat(image, &ist))
		return -1;
	snprintf(params, sizeof(params), "%u:%u 0", major(st.st_rdev),
		 minor(st.st_rdev));
	dm_call(d->ctl, DM_DEV_REMOVE, HOLD_DM, 0, NULL, NULL, 0, NULL);
	unlink(HOLD_NODE);
	if (dm_call(d->ctl, DM_DEV_CREATE, HOLD_DM, 0, NULL, NULL, 0, &dev) ||
	    dm_call(d->ctl, DM_TABLE_LOAD, HOLD_DM, 0, "linear", params,
		    ist.st_size / 512, NULL) ||
	    dm_resume(d->ctl, HOLD_DM))
		return -1;
	return mknod(HOLD_NODE, S_IFBLK | 0600, dev);
}

static void hold_disk_remove(struct hold_disk *d)
{
	if (d->ctl < 0)
		return;
	dm_resume(d->ctl, HOLD_DM);
	if (d->swap)
		swapoff(HOLD_NODE);
	dm_call(d->ctl, DM_DEV_REMOVE, HOLD_DM, 0, NULL, NULL, 0, NULL);
	unlink(HOLD_NODE);
	if (d->loop >= 0) {
		ioctl(d->loop, LOOP_CLR_FD);
		close(d->loop);
	}
	close(d->ctl);
	d->ctl = -1;
}

/* For tmpfs: swap on a hold disk of 4 MiB, its image in /tmp. */
static int hold_swap_create(struct hold_disk *d)
{
	/* The header mkswap writes: version 1, the last page, the magic. */
	unsigned int info[3] = { 1, (4 << 20) / PAGE - 1, 0 };
	int fd = open(HOLD_SWAP, O_RDWR | O_CREAT | O_TRUNC, 0600);
	bool ok;

	ok = fd >= 0 && !ftruncate(fd, 4 << 20) &&
	     pwrite(fd, info, sizeof(info), 1024) == sizeof(info) &&
	     pwrite(fd, "SWAPSPACE2", 10, PAGE - 10) == 10;
	close(fd);
	if (!ok || hold_disk_create(d, HOLD_SWAP) || swapon(HOLD_NODE, 0))
		return -1;
	d->swap = true;
	return 0;
}

/* Whether the page of @fd at @off is in memory, or -1. */
static int page_resident(int fd, off_t off)
{
	unsigned char vec = 0;
	void *p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, off);
	int ret;

	if (p == MAP_FAILED)
		return -1;
	ret = mincore(p, PAGE, &vec) ? -1 : vec & 1;
	munmap(p, PAGE);
	return ret;
}

/*
 * Give the file of @fd a page at @off (page-aligned, a hole so far) that
 * is on @d's disk and not in memory: for ext4, written back and dropped;
 * for tmpfs, written by a task of a memory cgroup of its own, then
 * reclaimed from that cgroup into swap (the first pass writes it out, a
 * later one frees it).
 */
static int hold_evict(struct hold_disk *d, int fd, off_t off)
{
	char page[PAGE];
	pid_t pid;
	int i;

	memset(page, 'h', sizeof(page));
	if (!d->swap) {
		if (pwrite(fd, page, PAGE, off) != PAGE || fsync(fd) ||
		    posix_fadvise(fd, off, PAGE, POSIX_FADV_DONTNEED))
			return -1;
		return page_resident(fd, off) ? -1 : 0;
	}
	if (access("/sys/fs/cgroup/cgroup.procs", F_OK) &&
	    mount("cgroup2", "/sys/fs/cgroup", "cgroup2", 0, NULL))
		return -1;
	write_str("/sys/fs/cgroup/cgroup.subtree_control", "+memory");
	mkdir(HOLD_CG, 0755);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		char me[16];

		snprintf(me, sizeof(me), "%d", getpid());
		_exit(write_str(HOLD_CG "/cgroup.procs", me) ||
		      pwrite(fd, page, PAGE, off) != PAGE);
	}
	if (reap_within(pid, 5000))
		return -1;
	for (i = 0; i < 200 && page_resident(fd, off); i++) {
		write_str(HOLD_CG "/memory.reclaim", "1M");
		usleep(10000);
	}
	return page_resident(fd, off) ? -1 : 0;
}

/*
 * A child writes a byte into the page of @fd at @off, which hold_evict()
 * put on @d's disk, now suspended: the write reads the page in first,
 * inside the filesystem's gate, and waits there until hold_finish().
 * Returns the child once it waits, or -1.
 */
static pid_t hold_start(struct hold_disk *d, int fd, off_t off)
{
	pid_t pid;

	if (hold_evict(d, fd, off) || dm_suspend(d->ctl, HOLD_DM))
		return -1;
	pid = fork();
	if (pid == 0)
		_exit(pwrite(fd, "w", 1, off + 1) == 1 ? 0 : 31);
	if (pid > 0 && wait_state(pid, 'D', 5000))
		return pid;
	dm_resume(d->ctl, HOLD_DM);
	return -1;
}

/* Let the held write go on; its exit status (0: it wrote its byte). */
static int hold_finish(struct hold_disk *d, pid_t pid)
{
	if (dm_resume(d->ctl, HOLD_DM))
		return -1;
	return reap_within(pid, 10000);
}

FIXTURE(files) {
	char dir[64];		/* the mounted filesystem */
	char path[128];		/* this test's file in it */
	struct hold_disk disk;	/* ext4's disk, tmpfs's swap, if any */
};

FIXTURE_VARIANT(files) {
	bool ext4;
};

FIXTURE_VARIANT_ADD(files, tmpfs) {
	.ext4 = false,
};

FIXTURE_VARIANT_ADD(files, ext4) {
	.ext4 = true,
};

FIXTURE_SETUP(files)
{
	int fd;

	self->disk.ctl = -1;
	snprintf(self->dir, sizeof(self->dir), "/mnt/%s",
		 variant->ext4 ? "ext4" : "tmpfs");
	mkdir(self->dir, 0755);
	if (variant->ext4) {
		ASSERT_EQ(hold_disk_create(&self->disk, EXT4_IMAGE), 0);
		/* No periodic commit or writeback behind the test's back. */
		ASSERT_EQ(mount(HOLD_NODE, self->dir, "ext4", 0, "commit=600"),
			  0);
	} else {
		ASSERT_EQ(mount("tmpfs", self->dir, "tmpfs", 0, NULL), 0);
	}
	snprintf(self->path, sizeof(self->path), "%s/%s", self->dir,
		 _metadata->name);
	unlink(self->path);
	fd = open(self->path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(ftruncate(fd, 4 * PAGE), 0);
	ASSERT_EQ(pwrite(fd, "old", 3, 0), 3);
	close(fd);
}

FIXTURE_TEARDOWN(files)
{
	/* links_bind_mounts_namespaces's, if it stopped half-way. */
	umount2("/mnt/bind", MNT_DETACH);
	umount2(self->dir, MNT_DETACH);
	hold_disk_remove(&self->disk);
}

/* A write held in the gate of the test's filesystem, in page 2 of @fd. */
static pid_t files_hold_start(struct hold_disk *d, bool ext4, int fd)
{
	if (!ext4 && d->ctl < 0 && hold_swap_create(d))
		return -1;
	return hold_start(d, fd, 2 * PAGE);
}

#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif

/* Whether cachestat(2) of @fd fails with EBADF. */
static bool cachestat_ebadf(int fd)
{
	/* struct cachestat_range and struct cachestat, as u64s. */
	unsigned long long range[2] = { 0, 0 }, cs[5];

	return syscall(__NR_cachestat, fd, range, cs, 0) == -1 &&
	       errno == EBADF;
}

/* The result of an AIO fsync of @fd: 0, a negative errno, or LONG_MIN. */
static long aio_fsync_result(int fd)
{
	aio_context_t ctx = 0;
	struct iocb cb = {
		.aio_lio_opcode = IOCB_CMD_FSYNC,
		.aio_fildes = fd,
	};
	struct iocb *cbs[1] = { &cb };
	struct io_event ev;
	long res = LONG_MIN, n;

	if (syscall(__NR_io_setup, 1, &ctx))
		return LONG_MIN;
	if (syscall(__NR_io_submit, ctx, 1, cbs) != 1) {
		res = -errno;
	} else {
		/* EINTR: see uring_close(). */
		do {
			n = syscall(__NR_io_getevents, ctx, 1, 1, &ev, NULL);
		} while (n == -1 && errno == EINTR);
		if (n == 1)
			res = ev.res;
	}
	syscall(__NR_io_destroy, ctx);
	return res;
}

/* A one-entry io_uring, with its rings mapped. */
struct uring {
	int fd;
	struct io_uring_params p;
	void *sq;
	struct io_uring_sqe *sqes;
	size_t sq_len;
};

static int uring_open(struct uring *u)
{
	size_t cq_len;

	memset(u, 0, sizeof(*u));
	u->fd = syscall(__NR_io_uring_setup, 1, &u->p);
	if (u->fd < 0)
		return -1;
	u->sq_len = u->p.sq_off.array + u->p.sq_entries * sizeof(unsigned int);
	cq_len = u->p.cq_off.cqes + u->p.cq_entries * sizeof(struct io_uring_cqe);
	if (cq_len > u->sq_len)
		u->sq_len = cq_len;
	/* IORING_FEAT_SINGLE_MMAP, since 5.4: one mapping for both rings. */
	u->sq = mmap(NULL, u->sq_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		     u->fd, IORING_OFF_SQ_RING);
	u->sqes = mmap(NULL, u->p.sq_entries * sizeof(*u->sqes),
		       PROT_READ | PROT_WRITE, MAP_SHARED, u->fd, IORING_OFF_SQES);
	if (u->sq == MAP_FAILED || u->sqes == MAP_FAILED) {
		close(u->fd);
		return -1;
	}
	return 0;
}

/*
 * Closing a ring that has been used hands the task a piece of task work
 * with TWA_SIGNAL, once the ring's exit work runs (an RCU grace period
 * later): the task's next interruptible wait, whichever it is, returns
 * EINTR.  Every wait here is retried on it.
 */
static void uring_close(struct uring *u)
{
	munmap(u->sq, u->sq_len);
	munmap(u->sqes, u->p.sq_entries * sizeof(*u->sqes));
	close(u->fd);
}

/*
 * Run one operation, described by *@sqe: the CQE's res, or INT_MIN if it
 * could not be submitted.
 */
static int uring_run(struct uring *u, const struct io_uring_sqe *sqe)
{
	unsigned int mask = *(unsigned int *)(u->sq + u->p.sq_off.ring_mask);
	unsigned int *sq_tail = u->sq + u->p.sq_off.tail;
	unsigned int *cq_head = u->sq + u->p.cq_off.head;
	unsigned int *cq_tail = u->sq + u->p.cq_off.tail;
	struct io_uring_cqe *cqe;
	int res;

	u->sqes[0] = *sqe;
	((unsigned int *)(u->sq + u->p.sq_off.array))[*sq_tail & mask] = 0;
	__atomic_store_n(sq_tail, *sq_tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, u->fd, 1, 1, IORING_ENTER_GETEVENTS,
		    NULL, 0) != 1)
		return INT_MIN;
	/* Submitted, but the wait for its completion can end with EINTR. */
	while (__atomic_load_n(cq_tail, __ATOMIC_ACQUIRE) == *cq_head) {
		if (syscall(__NR_io_uring_enter, u->fd, 0, 1,
			    IORING_ENTER_GETEVENTS, NULL, 0) && errno != EINTR)
			return INT_MIN;
	}
	mask = *(unsigned int *)(u->sq + u->p.cq_off.ring_mask);
	cqe = (struct io_uring_cqe *)(u->sq + u->p.cq_off.cqes) +
	      (*cq_head & mask);
	res = cqe->res;
	__atomic_store_n(cq_head, *cq_head + 1, __ATOMIC_RELEASE);
	return res;
}

/*
 * The result of one io_uring operation on @fd (IORING_OP_FSYNC or
 * IORING_OP_SYNC_FILE_RANGE of its first page): the CQE's res, or
 * INT_MIN if it could not be submitted.
 */
static int uring_sync_result(int fd, __u8 opcode)
{
	struct io_uring_sqe sqe = {
		.opcode = opcode,
		.fd = fd,
		.len = opcode == IORING_OP_SYNC_FILE_RANGE ? PAGE : 0,
	};
	struct uring u;
	int res;

	if (uring_open(&u))
		return INT_MIN;
	res = uring_run(&u, &sqe);
	uring_close(&u);
	return res;
}

/*
 * What a revoked regular file must look like: every operation on it fails
 * with EBADF, poll says EPOLLERR | EPOLLHUP, fstat and close work.
 * Returns 0, or the number of the first check that failed.
 */
static int check_file_revoked(int fd, const char *other)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN | POLLOUT };
	char buf[8] = {};
	struct iovec iov = { .iov_base = buf, .iov_len = 1 };
	struct flock fl = { .l_type = F_RDLCK, .l_whence = SEEK_SET };
	struct fiemap fm = { .fm_length = FIEMAP_MAX_OFFSET };
	struct stat st;
	loff_t off = 0;
	int ofd, pfds[2], n;
	long res;

	if (read(fd, buf, 1) != -1 || errno != EBADF)
		return 1;
	if (pread(fd, buf, 1, 0) != -1 || errno != EBADF)
		return 2;
	if (readv(fd, &iov, 1) != -1 || errno != EBADF)
		return 3;
	if (write(fd, "x", 1) != -1 || errno != EBADF)
		return 4;
	if (pwrite(fd, "x", 1, 0) != -1 || errno != EBADF)
		return 5;
	if (lseek(fd, 0, SEEK_SET) != -1 || errno != EBADF)
		return 6;
	if (fsync(fd) != -1 || errno != EBADF)
		return 7;
	if (fdatasync(fd) != -1 || errno != EBADF)
		return 8;
	if (ftruncate(fd, 0) != -1 || errno != EBADF)
		return 9;
	if (fallocate(fd, 0, 0, PAGE) != -1 || errno != EBADF)
		return 10;
	if (mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 0) != MAP_FAILED ||
	    errno != EBADF)
		return 11;
	if (mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fd, 0) != MAP_FAILED ||
	    errno != EBADF)
		return 12;
	if (flock(fd, LOCK_SH | LOCK_NB) != -1 || errno != EBADF)
		return 13;
	if (fcntl(fd, F_OFD_SETLK, &fl) != -1 || errno != EBADF)
		return 14;
	if (poll(&pfd, 1, 0) != 1 || pfd.revents != (POLLERR | POLLHUP))
		return 15;
	/* Data through the other file-to-file paths. */
	ofd = open(other, O_RDWR);
	if (ofd < 0)
		return 16;
	if (sendfile(ofd, fd, &off, 1) != -1 || errno != EBADF)
		return 17;
	if (copy_file_range(fd, NULL, ofd, NULL, 1, 0) != -1 || errno != EBADF)
		return 18;
	if (copy_file_range(ofd, NULL, fd, NULL, 1, 0) != -1 || errno != EBADF)
		return 19;
	if (pipe(pfds))
		return 20;
	if (splice(fd, NULL, pfds[1], NULL, 1, 0) != -1 || errno != EBADF)
		return 21;
	close(pfds[0]);
	close(pfds[1]);
	close(ofd);
	if (fstat(fd, &st) || st.st_size != 4 * PAGE)
		return 22;
	/* Every way to sync it, as fsync(2). */
	if (sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE) != -1 ||
	    errno != EBADF)
		return 23;
	res = aio_fsync_result(fd);
	if (res != -EBADF) {
		ksft_print_msg("AIO fsync of a revoked file: %ld\n", res);
		return 24;
	}
	if (uring_sync_result(fd, IORING_OP_FSYNC) != -EBADF)
		return 25;
	if (uring_sync_result(fd, IORING_OP_SYNC_FILE_RANGE) != -EBADF)
		return 26;
	/* Nothing reports on the next owner's file. */
	fl.l_type = F_WRLCK;
	if (fcntl(fd, F_GETLK, &fl) != -1 || errno != EBADF)
		return 27;
	fl.l_pid = 0;
	if (fcntl(fd, F_OFD_GETLK, &fl) != -1 || errno != EBADF)
		return 28;
	if (!cachestat_ebadf(fd))
		return 29;
	if (ioctl(fd, FIONREAD, &n) != -1 || errno != EBADF)
		return 30;
	if (ioctl(fd, FS_IOC_FIEMAP, &fm) != -1 || errno != EBADF)
		return 31;
	if (ioctl(fd, FS_IOC_GETFLAGS, &n) != -1 || errno != EBADF)
		return 32;
	/* Nor drops or reads ahead in it. */
	if (posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) != EBADF)
		return 34;
	if (posix_fadvise(fd, 0, 0, POSIX_FADV_WILLNEED) != EBADF)
		return 35;
	if (readahead(fd, 0, PAGE) != -1 || errno != EBADF)
		return 36;
	/* What acts on the descriptor and the struct file still works. */
	n = 0;
	if (ioctl(fd, FIONBIO, &n) || ioctl(fd, FIOCLEX) || ioctl(fd, FIONCLEX))
		return 33;
	return 0;
}

/* A fresh file next to the test's one, for the two-file paths. */
static void other_file(const char *path, char *out, size_t len)
{
	int fd;

	snprintf(out, len, "%s.other", path);
	fd = open(out, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, "abc", 3) != 3)
		abort();
	close(fd);
}

TEST_F(files, every_operation_ebadf)
{
	char other[160];
	int fd, ro, fd2;

	other_file(self->path, other, sizeof(other));
	fd = open(self->path, O_RDWR);
	ro = open(self->path, O_RDONLY);
	ASSERT_GE(fd, 0);
	ASSERT_GE(ro, 0);
	ASSERT_EQ(sys_revokeat(AT_FDCWD, self->path, 0), 0);
	EXPECT_EQ(check_file_revoked(fd, other), 0);
	EXPECT_EQ(check_file_revoked(ro, other), 0);
	/* A new open works, and is not revoked by the call that came before. */
	fd2 = open(self->path, O_RDWR);
	ASSERT_GE(fd2, 0);
	EXPECT_EQ(pwrite(fd2, "new", 3, 0), 3);
	EXPECT_EQ(fsync(fd2), 0);
	EXPECT_EQ(close(fd), 0);
	EXPECT_EQ(close(ro), 0);
	/* A second revoke takes the files opened since. */
	ASSERT_EQ(sys_revokeat(AT_FDCWD, self->path, 0), 0);
	EXPECT_EQ(check_file_revoked(fd2, other), 0);
	EXPECT_EQ(close(fd2), 0);
}

TEST_F(files, fork_dup_scm_rights)
{
	int fd, dupfd, sv[2], early, late, go[2], res[2];
	char other[160], r = 0;
	pid_t pid;

	other_file(self->path, other, sizeof(other));
	fd = open(self->path, O_RDWR);
	ASSERT_GE(fd, 0);
	dupfd = dup(fd);
	ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	ASSERT_EQ(pipe(go), 0);
	ASSERT_EQ(pipe(res), 0);
	/* In flight during the call, received after it. */
	ASSERT_EQ(send_fd(sv[0], fd), 0);

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		char c;

		if (read(go[0], &c, 1) != 1)
			_exit(100);
		c = check_file_revoked(fd, other);
		_exit(write(res[1], &c, 1) == 1 ? 0 : 101);
	}
	ASSERT_EQ(sys_revokeat(AT_FDCWD, self->path, 0), 0);
	ASSERT_EQ(write(go[1], "g", 1), 1);
	ASSERT_EQ(read(res[0], &r, 1), 1);
	EXPECT_EQ(r, 0);
	EXPECT_EQ(child_status(pid), 0);

	EXPECT_EQ(check_file_revoked(dupfd, other), 0);
	early = recv_fd(sv[1]);
	ASSERT_GE(early, 0);
	EXPECT_EQ(check_file_revoked(early, other), 0);
	/* Sent after the call. */
	ASSERT_EQ(send_fd(sv[0], fd), 0);
	late = recv_fd(sv[1]);
	ASSERT_GE(late, 0);
	EXPECT_EQ(check_file_revoked(late, other), 0);
	close(early);
	close(late);
	close(dupfd);
	close(fd);
	close(sv[0]);
	close(sv[1]);
}

TEST_F(files, links_bind_mounts_namespaces)
{
	char lnk[160], bind[] = "/mnt/bind", bound[192], other[160];
	int fd_link, fd_bind, go[2], res[2];
	char r = 0;
	pid_t pid;

	other_file(self->path, other, sizeof(other));
	snprintf(lnk, sizeof(lnk), "%s.link", self->path);
	unlink(lnk);
	ASSERT_EQ(link(self->path, lnk), 0);
	mkdir(bind, 0755);
	ASSERT_EQ(mount(self->dir, bind, NULL, MS_BIND, NULL), 0);
	snprintf(bound, sizeof(bound), "%s/%s", bind, _metadata->name);

	fd_link = open(lnk, O_RDWR);
	fd_bind = open(bound, O_RDONLY);
	ASSERT_GE(fd_link, 0);
	ASSERT_GE(fd_bind, 0);
	ASSERT_EQ(pipe(go), 0);
	ASSERT_EQ(pipe(res), 0);

	/* A process in another mount namespace, through its own mount. */
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		char c;
		int fd;

		if (unshare(CLONE_NEWNS) ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
			_exit(100);
		fd = open(bound, O_RDWR);
		if (fd < 0 || write(res[1], "o", 1) != 1)
			_exit(101);
		if (read(go[0], &c, 1) != 1)
			_exit(102);
		c = check_file_revoked(fd, other);
		_exit(write(res[1], &c, 1) == 1 ? 0 : 103);
	}
	ASSERT_EQ(read(res[0], &r, 1), 1);
	ASSERT_EQ(r, 'o');

	ASSERT_EQ(sys_revokeat(AT_FDCWD, self->path, 0), 0);
	EXPECT_EQ(check_file_revoked(fd_link, other), 0);
	EXPECT_EQ(check_file_revoked(fd_bind, other), 0);
	ASSERT_EQ(write(go[1], "g", 1), 1);
	ASSERT_EQ(read(res[0], &r, 1), 1);
	EXPECT_EQ(r, 0);
	EXPECT_EQ(child_status(pid), 0);
	close(fd_link);
	close(fd_bind);
	umount2(bind, MNT_DETACH);
}

/* Does the ext4 image itself (the loop device's backing file) hold @m? */
static bool image_holds(const char *m, size_t len)
{
	static char img[16 << 20];
	ssize_t n, total = 0;
	int fd = open(EXT4_IMAGE, O_RDONLY);

	if (fd < 0)
		abort();
	while ((n = read(fd, img + total, sizeof(img) - total)) > 0)
		total += n;
	close(fd);
	return memmem(img, total, m, len);
}

/*
 * With periodic writeback off, write a marker unique to this run (@what,
 * the variant, pid and time) at offset PAGE of @path through a new file;
 * the file, or -1.
 */
static int write_marker(const char *path, const char *what, bool ext4,
			char marker[64])
{
	int fd;

	system("echo 0 >/proc/sys/vm/dirty_writeback_centisecs");
	snprintf(marker, 64, "revoke-%s-%s-%d-%ld", what,
		 ext4 ? "ext4" : "tmpfs", getpid(), (long)time(NULL));
	fd = open(path, O_RDWR);
	if (fd >= 0 && pwrite(fd, marker, 64, PAGE) != 64) {
		close(fd);
		fd = -1;
	}
	return fd;
}

TEST_F(files, completed_writes_durable)
{
	char marker[64], buf[64];
	int fd, fd2;

	fd = write_marker(self->path, "durable", variant->ext4, marker);
	ASSERT_GE(fd, 0);
	if (variant->ext4)
		EXPECT_FALSE(image_holds(marker, sizeof(marker)));

	ASSERT_EQ(sys_revokeat(AT_FDCWD, self->path, 0), 0);
	/* Flushed by the call, as the seed's do_fsync() did. */
	if (variant->ext4)
		EXPECT_TRUE(image_holds(marker, sizeof(marker)));
	fd2 = open(self->path, O_RDONLY);
	ASSERT_GE(fd2, 0);
	ASSERT_EQ(pread(fd2, buf, sizeof(buf), PAGE), (ssize_t)sizeof(buf));
	EXPECT_EQ(memcmp(buf, marker, sizeof(marker)), 0);
	close(fd2);
	close(fd);
	system("echo 500 >/proc/sys/vm/dirty_writeback_centisecs");
}

/*
 * An O_SYNC write that began before the revoke lands, and says so: its
 * sync (generic_write_sync()) runs once the file is revoked, and used to
 * fail it with EBADF when fsync's check sat in vfs_fsync_range().
 */
TEST_F(files, sync_write_in_flight_lands)
{
	struct pollfd pfd = { .events = POLLIN };
	pid_t revoker, held;
	char c = 'x';
	int i, fd;

	fd = open(self->path, O_RDWR | O_SYNC);
	ASSERT_GE(fd, 0);
	pfd.fd = open(self->path, O_RDONLY);
	ASSERT_GE(pfd.fd, 0);
	held = files_hold_start(&self->disk, variant->ext4, fd);
	ASSERT_GT(held, 0);
	revoker = fork();
	ASSERT_GE(revoker, 0);
	if (revoker == 0)
		_exit(sys_revokeat(AT_FDCWD, self->path, 0) ? errno : 0);
	/* The generation has moved when the other file polls revoked. */
	for (i = 0; i < 500; i++) {
		ASSERT_EQ(poll(&pfd, 1, 0), 1);
		if (pfd.revents & POLLERR)
			break;
		usleep(10000);
	}
	ASSERT_LT(i, 500) TH_LOG("the revoke did not start");
	/* It waits for the write, which completes and reports its byte. */
	EXPECT_EQ(reap_within(revoker, 500), -2)
		TH_LOG("revokeat() returned with a write of the file in flight");
	EXPECT_EQ(hold_finish(&self->disk, held), 0)
		TH_LOG("the landed write failed");
	EXPECT_EQ(reap_within(revoker, 10000), 0);
	ASSERT_EQ(pread(pfd.fd, &c, 1, 0), -1);
	close(pfd.fd);
	close(fd);
	pfd.fd = open(self->path, O_RDONLY);
	ASSERT_GE(pfd.fd, 0);
	EXPECT_EQ(pread(pfd.fd, &c, 1, 2 * PAGE + 1), 1);
	EXPECT_EQ(c, 'w') TH_LOG("the write did not land");
	close(pfd.fd);
}

/*
 * The write-back of revokeat() is not an open(2) of the caller's: a
 * policy that refuses the caller's opens of the file (a fanotify
 * permission listener here, an LSM elsewhere) neither fails the call
 * after the files were revoked nor skips the fsync.
 */
TEST_F(files, write_back_not_refused_by_open_policy)
{
	char marker[64];
	int fd, fan;
	pid_t denier;

	fd = write_marker(self->path, "policy", variant->ext4, marker);
	ASSERT_GE(fd, 0);

	fan = fanotify_init(FAN_CLASS_CONTENT, O_RDONLY);
	ASSERT_GE(fan, 0);
	ASSERT_EQ(fanotify_mark(fan, FAN_MARK_ADD, FAN_OPEN_PERM, AT_FDCWD,
				self->path), 0);
	denier = fork();
	ASSERT_GE(denier, 0);
	if (denier == 0) {
		struct fanotify_event_metadata ev;
		struct fanotify_response r = { .response = FAN_DENY };

		/* Never outlive the test: it would deny opens of the file. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(1);
		while (read(fan, &ev, sizeof(ev)) == sizeof(ev)) {
			r.fd = ev.fd;
			if (write(fan, &r, sizeof(r)) != sizeof(r))
				_exit(1);
			close(ev.fd);
		}
		_exit(0);
	}
	/* The policy works: an open of the file is refused. */
	EXPECT_EQ(open(self->path, O_RDONLY), -1);
	EXPECT_EQ(errno, EPERM);

	EXPECT_EQ(sys_revokeat(AT_FDCWD, self->path, 0), 0)
		TH_LOG("revokeat: %s", strerror(errno));
	if (variant->ext4)
		EXPECT_TRUE(image_holds(marker, sizeof(marker)))
			TH_LOG("no write-back");
	EXPECT_EQ(write(fd, "x", 1), -1);
	kill(denier, SIGKILL);
	waitpid(denier, NULL, 0);
	close(fan);
	close(fd);
	system("echo 500 >/proc/sys/vm/dirty_writeback_centisecs");
}

struct writer {
	int fd;
	long writes;
	int err;
};

static void *writer_fn(void *arg)
{
	struct writer *w = arg;
	char c = 'w';

	for (;;) {
		if (write(w->fd, &c, 1) != 1) {
			w->err = errno;
			return NULL;
		}
		__atomic_store_n(&w->writes, w->writes + 1, __ATOMIC_RELEASE);
	}
}

TEST_F(files, nothing_lands_after_the_call)
{
	struct writer w[2];
	struct stat st1, st2;
	pthread_t t[2];
	int i, n;

	for (i = 0; i < 2; i++) {
		w[i] = (struct writer){ .fd = open(self->path, O_WRONLY | O_APPEND) };
		ASSERT_GE(w[i].fd, 0);
		pthread_create(&t[i], NULL, writer_fn, &w[i]);
	}
	/* Both writing, however slow the guest is at starting them. */
	for (i = 0; i < 2; i++)
		for (n = 0; n < 10000 &&
		     __atomic_load_n(&w[i].writes, __ATOMIC_ACQUIRE) < 10; n++)
			usleep(1000);
	ASSERT_EQ(sys_revokeat(AT_FDCWD, self->path, 0), 0);
	ASSERT_EQ(stat(self->path, &st1), 0);
	for (i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		EXPECT_EQ(w[i].err, EBADF);
		EXPECT_GT(w[i].writes, 0);
		close(w[i].fd);
	}
	usleep(50000);
	ASSERT_EQ(stat(self->path, &st2), 0);
	/* Every write that returned is in the file, and nothing else. */
	EXPECT_EQ(st1.st_size, st2.st_size);
	EXPECT_EQ(st2.st_size, 4 * PAGE + w[0].writes + w[1].writes);
}

TEST_F(files, shared_mapping_sigbus)
{
	unsigned int *map, v = 0;
	int fd, fd2;

	fd = open(self->path, O_RDWR);
	ASSERT_GE(fd, 0);
	map = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(map, MAP_FAILED);
	EXPECT_FALSE(write_sigbus(&map[PAGE / 4], 0x5eed));
	ASSERT_EQ(sys_revokeat(AT_FDCWD, self->path, 0), 0);
	EXPECT_TRUE(read_sigbus(&map[0], &v));
	EXPECT_TRUE(read_sigbus(&map[PAGE / 4], &v));
	EXPECT_TRUE(write_sigbus(&map[PAGE / 4], 0xbad));
	/* Still SIGBUS after the next owner touched the page. */
	fd2 = open(self->path, O_RDWR);
	ASSERT_GE(fd2, 0);
	ASSERT_EQ(pread(fd2, &v, sizeof(v), PAGE), (ssize_t)sizeof(v));
	EXPECT_EQ(v, 0x5eed);
	EXPECT_TRUE(read_sigbus(&map[PAGE / 4], &v));
	/* madvise(MADV_REMOVE) through it is a write, and fails. */
	EXPECT_EQ(madvise(map, PAGE, MADV_REMOVE), -1);
	munmap(map, 2 * PAGE);
	close(fd2);
	close(fd);
}

/*
 * msync(MS_SYNC) of a revoked file's mapping fails as fsync(2) does, and
 * mincore(2) does not look into the next owner's page cache: the pages
 * the process lost are not resident, the private copy it kept is.
 */
TEST_F(files, mapping_msync_and_mincore)
{
	unsigned int *shared, *priv, v = 0;
	unsigned char vec[2];
	int fd;

	fd = open(self->path, O_RDWR);
	ASSERT_GE(fd, 0);
	shared = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED,
		      fd, 0);
	ASSERT_NE(shared, MAP_FAILED);
	priv = mmap(NULL, 2 * PAGE, PROT_READ, MAP_PRIVATE, fd, 0);
	ASSERT_NE(priv, MAP_FAILED);
	EXPECT_FALSE(read_sigbus(&shared[0], &v));
	EXPECT_FALSE(read_sigbus(&priv[0], &v));
	EXPECT_EQ(msync(shared, 2 * PAGE, MS_SYNC), 0);
	ASSERT_EQ(mincore(shared, 2 * PAGE, vec), 0);
	ASSERT_EQ(vec[0] & 1, 1);

	ASSERT_EQ(sys_revokeat(AT_FDCWD, self->path, 0), 0);
	EXPECT_EQ(msync(shared, 2 * PAGE, MS_SYNC), -1);
	EXPECT_EQ(errno, EBADF);
	ASSERT_EQ(mincore(shared, 2 * PAGE, vec), 0);
	EXPECT_EQ(vec[0] & 1, 0) TH_LOG("the next owner's page cache shows");
	EXPECT_EQ(vec[1] & 1, 0);
	ASSERT_EQ(mincore(priv, 2 * PAGE, vec), 0);
	EXPECT_EQ(vec[0] & 1, 1) TH_LOG("the private copy is not resident");
	EXPECT_EQ(vec[1] & 1, 0);
	munmap(priv, 2 * PAGE);
	munmap(shared, 2 * PAGE);
	close(fd);
}

/*
 * A fault on a revoked file's mapping raises SIGBUS before it allocates
 * anything: tmpfs used to fill each hole touched with a page charged to
 * the file (2 MiB each with huge=always), ext4 to read it into the page
 * cache, before the page table lock refused to map it.
 */
TEST_F(files, faults_after_revoke_allocate_nothing)
{
	const int pages = 64, first = 8;
	unsigned char vec[64];
	struct stat before, after;
	unsigned int *map, v;
	int fd, fd2, i, resident = 0;
	void *map2;

	fd = open(self->path, O_RDWR);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(ftruncate(fd, pages * PAGE), 0);
	map = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(map, MAP_FAILED);
	ASSERT_EQ(fstat(fd, &before), 0);
	ASSERT_EQ(sys_revokeat(AT_FDCWD, self->path, 0), 0);
	/* Holes only: the pages from @first on were never written. */
	for (i = first; i < pages; i++)
		EXPECT_TRUE(read_sigbus(&map[i * PAGE / 4], &v));
	EXPECT_TRUE(write_sigbus(&map[first * PAGE / 4], 1));

	fd2 = open(self->path, O_RDONLY);
	ASSERT_GE(fd2, 0);
	ASSERT_EQ(fstat(fd2, &after), 0);
	EXPECT_EQ(after.st_blocks, before.st_blocks);
	map2 = mmap(NULL, pages * PAGE, PROT_READ, MAP_SHARED, fd2, 0);
	ASSERT_NE(map2, MAP_FAILED);
	ASSERT_EQ(mincore(map2, pages * PAGE, vec), 0);
	for (i = first; i < pages; i++)
		resident += vec[i] & 1;
	EXPECT_EQ(resident, 0) TH_LOG("%d pages in the page cache", resident);
	munmap(map2, pages * PAGE);
	munmap(map, pages * PAGE);
	close(fd2);
	close(fd);
}

/*
 * mmap() of a revoked file fails, also where the new range would merge
 * into an existing mapping of the same file, which the mm does without
 * asking the filesystem.
 */
TEST_F(files, mmap_merging_with_old_mapping_fails)
{
	char *map, *next;
	int fd;

	fd = open(self->path, O_RDWR);
	ASSERT_GE(fd, 0);
	map = mmap(NULL, 2 * PAGE, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(map, MAP_FAILED);
	/* Room next to it, for the new mapping. */
	ASSERT_EQ(munmap(map + PAGE, PAGE), 0);
	ASSERT_EQ(sys_revokeat(AT_FDCWD, self->path, 0), 0);
	next = mmap(map + PAGE, PAGE, PROT_READ,
		    MAP_SHARED | MAP_FIXED_NOREPLACE, fd, PAGE);
	EXPECT_EQ(next, MAP_FAILED);
	EXPECT_EQ(errno, EBADF);
	if (next != MAP_FAILED)
		munmap(next, PAGE);
	munmap(map, PAGE);
	close(fd);
}

/* A file of the test's filesystem beside its own. */
static void other_path(char *buf, size_t len, const char *path)
{
	snprintf(buf, len, "%s.other", path);
}

/* revokeat(@path) in a child, which first closes its copy of @fd. */
static pid_t spawn_revokeat(const char *path, int fd)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (fd >= 0)
			close(fd);
		_exit(sys_revokeat(AT_FDCWD, path, 0) ? errno : 0);
	}
	return pid;
}

/*
 * Reads and writes fault on their buffers outside the gate, then go on
 * where they stopped (file_revoke_rw_retry()): each returns what read(2)
 * and write(2) always returned.  Buffers here are pages not yet faulted
 * in, more of them than the retry's first window (a megabyte); a page
 * that cannot be faulted in ends the call with what was done before it.
 */
TEST_F(files, reads_and_writes_fault_outside_the_gate)
{
	const size_t len = 3 * 1024 * 1024 + 123, map_len = 4 << 20;
	struct io_uring_sqe sqe = {};
	char src_path[] = "/tmp/revoke-pattern";
	unsigned char *src, *dst;
	struct uring u;
	size_t i;
	int fd, sfd, dfd;

	/* The source: a file of another filesystem, mapped, never touched. */
	sfd = open(src_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ASSERT_GE(sfd, 0);
	dst = malloc(map_len);
	ASSERT_NE(dst, NULL);
	for (i = 0; i < map_len; i++)
		dst[i] = i * 7 + i / 4099;
	ASSERT_EQ(write(sfd, dst, map_len), map_len);
	free(dst);
	src = mmap(NULL, map_len, PROT_READ, MAP_PRIVATE, sfd, 0);
	ASSERT_NE(src, MAP_FAILED);

	fd = open(self->path, O_RDWR | O_TRUNC);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(pwrite(fd, src, len, 0), len);

	/* Into fresh anonymous memory: all of it, and no more than there is. */
	dst = mmap(NULL, map_len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(dst, MAP_FAILED);
	EXPECT_EQ(pread(fd, dst, map_len, 0), len);
	EXPECT_EQ(memcmp(dst, src, len), 0);
	munmap(dst, map_len);

	/* io_uring tries without waiting first (IOCB_NOWAIT), then waits. */
	dst = mmap(NULL, map_len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(dst, MAP_FAILED);
	ASSERT_EQ(uring_open(&u), 0);
	sqe.opcode = IORING_OP_READ;
	sqe.fd = fd;
	sqe.addr = (unsigned long)dst;
	sqe.len = len;
	EXPECT_EQ(uring_run(&u, &sqe), len);
	EXPECT_EQ(memcmp(dst, src, len), 0);
	uring_close(&u);
	munmap(dst, map_len);

	/* Direct I/O pins the buffer's pages: the same without faults. */
	dfd = open(self->path, O_RDWR | O_DIRECT);
	if (dfd >= 0) {
		dst = mmap(NULL, map_len, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_NE(dst, MAP_FAILED);
		EXPECT_EQ(pread(dfd, dst, 2 << 20, 0), 2 << 20);
		EXPECT_EQ(memcmp(dst, src, 2 << 20), 0);
		EXPECT_EQ(pwrite(dfd, src + (1 << 20), 2 << 20, 0), 2 << 20);
		EXPECT_EQ(pread(fd, dst, 2 << 20, 0), 2 << 20);
		EXPECT_EQ(memcmp(dst, src + (1 << 20), 2 << 20), 0);
		munmap(dst, map_len);
		close(dfd);
	} else {
		/* Only tmpfs may refuse it. */
		EXPECT_FALSE(variant->ext4);
		EXPECT_EQ(errno, EINVAL);
	}

	/* A page that cannot be had ends the call, after what was done. */
	dst = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(dst, MAP_FAILED);
	ASSERT_EQ(mprotect(dst + 2 * PAGE, PAGE, PROT_NONE), 0);
	EXPECT_EQ(pread(fd, dst, 4 * PAGE, 0), 2 * PAGE);
	EXPECT_EQ(pwrite(fd, dst + PAGE, 4 * PAGE, 0), PAGE);
	EXPECT_EQ(pread(fd, dst + 2 * PAGE, PAGE, 0), -1);
	EXPECT_EQ(errno, EFAULT);
	EXPECT_EQ(pwrite(fd, dst + 2 * PAGE, PAGE, 0), -1);
	EXPECT_EQ(errno, EFAULT);
	munmap(dst, 4 * PAGE);
	munmap(src, map_len);
	close(sfd);
	unlink(src_path);
	close(fd);
}

/* ---- a FUSE server that answers reads only when told -------------------- */

#define FUSE_DIR	"/mnt/fuse-stall"
#define FUSE_INO	2

struct fuse_stall {
	pid_t pid;		/* the server */
	int ctl;		/* 'r': answer the reads held, now and later */
	int held;		/* a byte per read request it holds */
};

static void fuse_attr_of(struct fuse_attr *a, uint64_t ino)
{
	memset(a, 0, sizeof(*a));
	a->ino = ino;
	a->mode = ino == FUSE_ROOT_ID ? S_IFDIR | 0755 : S_IFREG | 0644;
	a->nlink = 1;
	a->size = ino == FUSE_ROOT_ID ? 0 : PAGE;
	a->blocks = 8;
	a->blksize = PAGE;
}

static void fuse_reply(int dev, uint64_t unique, int error, const void *arg,
		       size_t len)
{
	struct fuse_out_header out = {
		.len = sizeof(out) + len, .error = error, .unique = unique,
	};
	struct iovec iov[2] = {
		{ &out, sizeof(out) }, { (void *)arg, len },
	};

	writev(dev, iov, len ? 2 : 1);
}

/* Answer a held read with a page of 'f'. */
static void fuse_answer_read(int dev, uint64_t unique)
{
	char page[PAGE];

	memset(page, 'f', sizeof(page));
	fuse_reply(dev, unique, 0, page, sizeof(page));
}

/* The server: one file, "f", a page long; reads wait for 'r' on @ctl. */
static void fuse_serve(int dev, int ctl, int held)
{
	static char buf[FUSE_MIN_READ_BUFFER + 128 * 1024];
	uint64_t waiting[64];
	int nwaiting = 0;
	bool answer = false;

	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = dev, .events = POLLIN },
			{ .fd = ctl, .events = POLLIN },
		};
		struct fuse_in_header *in = (void *)buf;
		void *arg = buf + sizeof(*in);
		ssize_t n;
		char c;

		if (poll(pfd, 2, -1) < 0)
			continue;
		if (pfd[1].revents) {
			if (read(ctl, &c, 1) != 1)
				_exit(0);
			answer = true;
			while (nwaiting)
				fuse_answer_read(dev, waiting[--nwaiting]);
		}
		if (!pfd[0].revents)
			continue;
		n = read(dev, buf, sizeof(buf));
		if (n < 0 && errno == ENODEV)
			_exit(0);
		if (n < (ssize_t)sizeof(*in))
			continue;
		switch (in->opcode) {
		case FUSE_INIT: {
			struct fuse_init_out out = {
				.major = FUSE_KERNEL_VERSION,
				.minor = FUSE_KERNEL_MINOR_VERSION,
				.max_readahead = PAGE,
				.max_write = PAGE,
				.max_pages = 1,
			};

			fuse_reply(dev, in->unique, 0, &out, sizeof(out));
			break;
		}
		case FUSE_LOOKUP: {
			struct fuse_entry_out out = { .nodeid = FUSE_INO };

			if (strcmp(arg, "f")) {
				fuse_reply(dev, in->unique, -ENOENT, NULL, 0);
				break;
			}
			fuse_attr_of(&out.attr, FUSE_INO);
			fuse_reply(dev, in->unique, 0, &out, sizeof(out));
			break;
		}
		case FUSE_GETATTR: {
			struct fuse_attr_out out = {};

			fuse_attr_of(&out.attr, in->nodeid);
			fuse_reply(dev, in->unique, 0, &out, sizeof(out));
			break;
		}
		case FUSE_OPEN: {
			struct fuse_open_out out = {};

			fuse_reply(dev, in->unique, 0, &out, sizeof(out));
			break;
		}
		case FUSE_READ:
			if (answer || nwaiting == 64) {
				fuse_answer_read(dev, in->unique);
				break;
			}
			waiting[nwaiting++] = in->unique;
			c = 'r';
			write(held, &c, 1);
			break;
		case FUSE_FLUSH:
		case FUSE_RELEASE:
		case FUSE_ACCESS:
			fuse_reply(dev, in->unique, 0, NULL, 0);
			break;
		case FUSE_GETXATTR:
		case FUSE_LISTXATTR:
			fuse_reply(dev, in->unique, -EOPNOTSUPP, NULL, 0);
			break;
		case FUSE_FORGET:
		case FUSE_BATCH_FORGET:
		case FUSE_INTERRUPT:
			break;
		default:
			/* Not one the test makes the kernel send. */
			fuse_reply(dev, in->unique, -EIO, NULL, 0);
		}
	}
}

/* Mount the server at FUSE_DIR. */
static int fuse_stall_start(struct fuse_stall *fs)
{
	int ctl[2], held[2], dev;
	char opts[128];

	dev = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return -1;
	mkdir(FUSE_DIR, 0755);
	snprintf(opts, sizeof(opts),
		 "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other", dev);
	if (mount("revoke-stall", FUSE_DIR, "fuse", MS_NOSUID | MS_NODEV,
		  opts))
		return -1;
	if (pipe(ctl) || pipe(held))
		return -1;
	fs->pid = fork();
	if (fs->pid < 0)
		return -1;
	if (fs->pid == 0) {
		close(ctl[1]);
		close(held[0]);
		fuse_serve(dev, ctl[0], held[1]);
	}
	close(dev);
	close(ctl[0]);
	close(held[1]);
	fs->ctl = ctl[1];
	fs->held = held[0];
	return 0;
}

/* Wait up to @ms for the server to hold a read. */
static bool fuse_stall_holding(struct fuse_stall *fs, int ms)
{
	struct pollfd pfd = { .fd = fs->held, .events = POLLIN };
	char c;

	return poll(&pfd, 1, ms) == 1 && read(fs->held, &c, 1) == 1;
}

/* Answer the reads held and those to come. */
static void fuse_stall_release(struct fuse_stall *fs)
{
	if (fs->ctl >= 0 && write(fs->ctl, "r", 1) == 1)
		return;
}

static void fuse_stall_stop(struct fuse_stall *fs)
{
	fuse_stall_release(fs);
	umount2(FUSE_DIR, MNT_DETACH);
	close(fs->ctl);
	close(fs->held);
	fs->ctl = -1;
	kill(fs->pid, SIGKILL);
	waitpid(fs->pid, NULL, 0);
}

/*
 * The user-memory side of a read or write is not in the filesystem's
 * gate: an operation whose buffer is a page of a FUSE server that does
 * not answer (which needs no privilege) stalls, but holds neither the
 * revoke of its own file nor of another file of the filesystem.  It used
 * to hold both until the server answered.  Once it does, the operation
 * finds its file revoked: the read copies nothing, the write lands
 * nothing.
 */
TEST_F(files, stalled_user_buffer_holds_no_revoke)
{
	struct fuse_stall fs = { .ctl = -1 };
	pid_t reader, writer, rev_other, rev_self, next;
	char other[160], buf[8];
	char *map;
	int fd, fuse_fd;

	other_path(other, sizeof(other), self->path);
	fd = open(other, O_RDWR | O_CREAT, 0644);
	ASSERT_GE(fd, 0);
	close(fd);
	ASSERT_EQ(fuse_stall_start(&fs), 0);
	fuse_fd = open(FUSE_DIR "/f", O_RDONLY);
	ASSERT_GE(fuse_fd, 0);
	map = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fuse_fd, 0);
	ASSERT_NE(map, MAP_FAILED);

	fd = open(self->path, O_RDWR);
	ASSERT_GE(fd, 0);
	/* A read into the page, a write from it: both fault on it. */
	reader = fork();
	ASSERT_GE(reader, 0);
	if (reader == 0) {
		ssize_t n = pread(fd, map, 3, 0);

		_exit(n == -1 && errno == EBADF ? 0 : 10 + (n > 0));
	}
	ASSERT_TRUE(fuse_stall_holding(&fs, 5000));
	writer = fork();
	ASSERT_GE(writer, 0);
	if (writer == 0) {
		ssize_t n = pwrite(fd, map, 3, 0);

		_exit(n == -1 && errno == EBADF ? 0 : 10 + (n > 0));
	}
	/* The reader waits for the server's answer, the writer for the page. */
	EXPECT_TRUE(wait_state(writer, 'D', 5000));
	EXPECT_EQ(reap_within(reader, 0), -2);

	rev_other = spawn_revokeat(other, -1);
	ASSERT_GT(rev_other, 0);
	EXPECT_EQ(reap_within(rev_other, 5000), 0)
		TH_LOG("a revoke of another file waited for the stalled buffer");
	rev_self = spawn_revokeat(self->path, -1);
	ASSERT_GT(rev_self, 0);
	EXPECT_EQ(reap_within(rev_self, 5000), 0)
		TH_LOG("the revoke of the file waited for the stalled buffer");

	/*
	 * The next owner writes, at once: the stalled write holds no lock
	 * of the file either.  Then the stalled operations go on.
	 */
	close(fd);
	next = fork();
	ASSERT_GE(next, 0);
	if (next == 0) {
		fd = open(self->path, O_RDWR);
		_exit(fd >= 0 && pwrite(fd, "new", 3, 0) == 3 ? 0 : 1);
	}
	EXPECT_EQ(reap_within(next, 5000), 0)
		TH_LOG("the next owner's write waited for the stalled one");
	fuse_stall_release(&fs);
	waitpid(next, NULL, 0);	/* if the check above failed */
	fd = open(self->path, O_RDWR);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(reap_within(reader, 10000), 0)
		TH_LOG("the stalled read was not refused with EBADF");
	EXPECT_EQ(reap_within(writer, 10000), 0)
		TH_LOG("the stalled write was not refused with EBADF");
	ASSERT_EQ(pread(fd, buf, 3, 0), 3);
	EXPECT_EQ(memcmp(buf, "new", 3), 0) TH_LOG("the stalled write landed");
	/* Whatever failed above, nothing is left waiting. */
	waitpid(rev_other, NULL, 0);
	waitpid(rev_self, NULL, 0);
	close(fd);
	munmap(map, PAGE);
	close(fuse_fd);
	fuse_stall_stop(&fs);
	unlink(other);
}

/*
 * UFFDIO_COPY into a tmpfs mapping copies its source outside the locks
 * when the source page is not there, then tries again.  A revoke of the
 * file in between must fail the copy with EBADF: the retry used to return
 * with the page it was handed still allocated, which mfill_atomic() takes
 * for a bug (BUG_ON(folio)).  The source here is a page of a FUSE server
 * that answers when told, so the revoke comes in between every time.
 */
TEST(uffd_copy_retry_after_revoke)
{
	struct fuse_stall fs = { .ctl = -1 };
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	char path[64], *src, *dst;
	int fd, uffd, fuse_fd;
	pid_t copier;

	fd = memfd_create("revoke-uffd-copy", 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(ftruncate(fd, PAGE), 0);
	dst = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(dst, MAP_FAILED);
	uffd = syscall(__NR_userfaultfd, O_CLOEXEC);
	ASSERT_GE(uffd, 0);
	ASSERT_EQ(ioctl(uffd, UFFDIO_API, &api), 0);
	reg.range.start = (unsigned long)dst;
	reg.range.len = PAGE;
	ASSERT_EQ(ioctl(uffd, UFFDIO_REGISTER, &reg), 0);
	ASSERT_EQ(fuse_stall_start(&fs), 0);
	fuse_fd = open(FUSE_DIR "/f", O_RDONLY);
	ASSERT_GE(fuse_fd, 0);
	src = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fuse_fd, 0);
	ASSERT_NE(src, MAP_FAILED);

	copier = fork();
	ASSERT_GE(copier, 0);
	if (copier == 0) {
		struct uffdio_copy copy = {
			.dst = (unsigned long)dst, .src = (unsigned long)src,
			.len = PAGE,
		};
		int ret = ioctl(uffd, UFFDIO_COPY, &copy);

		_exit(ret == -1 && errno == EBADF && copy.copy == -EBADF ?
		      0 : 10 + (ret == 0));
	}
	/* The copier waits for the source page, outside the locks. */
	ASSERT_TRUE(fuse_stall_holding(&fs, 5000));
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", getpid(), fd);
	EXPECT_EQ(sys_revokeat(AT_FDCWD, path, 0), 0);
	fuse_stall_release(&fs);
	EXPECT_EQ(reap_within(copier, 10000), 0)
		TH_LOG("UFFDIO_COPY into the revoked file did not fail with EBADF");
	munmap(src, PAGE);
	close(fuse_fd);
	fuse_stall_stop(&fs);
	munmap(dst, PAGE);
	close(uffd);
	close(fd);
}

/*
 * A revoke of another file of the filesystem, stopped by a signal while
 * it waited for a write of this file (held in the gate, reading its page
 * from a suspended disk), leaves that write behind in the gate; a later
 * revoke of this file still waits for it: nothing lands after revokeat()
 * returned.
 */
TEST_F(files, interrupted_revoke_leaves_nothing_behind)
{
	pid_t first, second, held;
	char other[160], c = 0;
	int fd;

	other_path(other, sizeof(other), self->path);
	fd = open(other, O_RDWR | O_CREAT, 0644);
	ASSERT_GE(fd, 0);
	close(fd);
	fd = open(self->path, O_RDWR);
	ASSERT_GE(fd, 0);
	held = files_hold_start(&self->disk, variant->ext4, fd);
	ASSERT_GT(held, 0);

	first = spawn_revokeat(other, -1);
	ASSERT_GT(first, 0);
	EXPECT_TRUE(wait_state(first, 'D', 5000));
	EXPECT_EQ(kill(first, SIGKILL), 0);
	EXPECT_EQ(reap_within(first, 3000), -1);

	second = spawn_revokeat(self->path, -1);
	ASSERT_GT(second, 0);
	EXPECT_EQ(reap_within(second, 500), -2)
		TH_LOG("revokeat() returned with a write of the file in flight");
	EXPECT_EQ(hold_finish(&self->disk, held), 0);
	EXPECT_EQ(reap_within(second, 10000), 0);
	/* The write landed, before the revoke returned. */
	close(fd);
	fd = open(self->path, O_RDONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(pread(fd, &c, 1, 2 * PAGE + 1), 1);
	EXPECT_EQ(c, 'w');
	close(fd);
	unlink(other);
}

/*
 * A POSIX lock of a file that is closed while a revoke of it runs goes
 * with the close: it must not stay behind, with its file freed.
 */
TEST_F(files, close_during_revoke_drops_its_lock)
{
	struct flock fl = {
		.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_len = 1,
	};
	pid_t rev, next, held;
	char other[160];
	int fd, ofd;

	other_path(other, sizeof(other), self->path);
	ofd = open(other, O_RDWR | O_CREAT, 0644);
	ASSERT_GE(ofd, 0);
	/* A write of the other file holds the filesystem's revokes. */
	held = files_hold_start(&self->disk, variant->ext4, ofd);
	ASSERT_GT(held, 0);
	/* Opened after that child: our close is the last one. */
	fd = open(self->path, O_RDWR);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(fcntl(fd, F_SETLK, &fl), 0);
	rev = spawn_revokeat(self->path, fd);
	ASSERT_GT(rev, 0);
	EXPECT_TRUE(wait_state(rev, 'D', 5000));
	/* Revoked by now (the generation moved first): close it. */
	close(fd);
	EXPECT_EQ(hold_finish(&self->disk, held), 0);
	EXPECT_EQ(reap_within(rev, 10000), 0);
	close(ofd);

	/* The next opener locks at once. */
	next = fork();
	ASSERT_GE(next, 0);
	if (next == 0) {
		int nfd = open(self->path, O_RDWR);

		_exit(nfd >= 0 && !fcntl(nfd, F_SETLK, &fl) ? 0 : 1);
	}
	EXPECT_EQ(reap_within(next, 5000), 0);
	unlink(other);
}

/* Reading *@p gives SIGBUS or @old, never what the next owner wrote. */
static bool old_or_sigbus(unsigned int *p, const char *old)
{
	unsigned int v = 0;

	return read_sigbus(p, &v) || !memcmp(&v, old, 4);
}

TEST_F(files, private_mapping_keeps_what_it_had)
{
	unsigned int *ro, *rw, *untouched, v = 0;
	int fd, fd2, i;

	fd = open(self->path, O_RDONLY);
	ASSERT_GE(fd, 0);
	fd2 = open(self->path, O_RDWR);
	ASSERT_GE(fd2, 0);
	ASSERT_EQ(pwrite(fd2, "p1p1", 4, PAGE), 4);
	ASSERT_EQ(pwrite(fd2, "p2p2", 4, 2 * PAGE), 4);
	close(fd2);
	ro = mmap(NULL, 4 * PAGE, PROT_READ, MAP_PRIVATE, fd, 0);
	rw = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	untouched = mmap(NULL, 4 * PAGE, PROT_READ, MAP_PRIVATE, fd, 0);
	ASSERT_NE(ro, MAP_FAILED);
	ASSERT_NE(rw, MAP_FAILED);
	ASSERT_NE(untouched, MAP_FAILED);
	/* ro: page 0 read; rw: page 0 written (COW), page 1 read. */
	EXPECT_FALSE(read_sigbus(&ro[0], &v));
	EXPECT_FALSE(write_sigbus(&rw[0], 0x11111111));
	EXPECT_FALSE(read_sigbus(&rw[PAGE / 4], &v));

	ASSERT_EQ(sys_revokeat(AT_FDCWD, self->path, 0), 0);
	/* The next owner rewrites the whole file. */
	fd2 = open(self->path, O_RDWR);
	ASSERT_GE(fd2, 0);
	for (i = 0; i < 4; i++)
		ASSERT_EQ(pwrite(fd2, "NEWNEWNE", 8, i * PAGE), 8);
	ASSERT_EQ(fsync(fd2), 0);

	/* What the process had, it keeps, as it was; it is not killed. */
	EXPECT_FALSE(read_sigbus(&ro[0], &v));
	EXPECT_EQ(memcmp(&v, "old", 4), 0);
	EXPECT_FALSE(read_sigbus(&rw[0], &v));
	EXPECT_EQ(v, 0x11111111);
	EXPECT_FALSE(read_sigbus(&rw[PAGE / 4], &v));
	EXPECT_EQ(memcmp(&v, "p1p1", 4), 0);
	/* Its copies stay writable where the mapping is. */
	EXPECT_FALSE(write_sigbus(&rw[PAGE / 4], 0x22222222));
	/*
	 * Pages it did not touch were mapped or not by fault-around: they
	 * hold what they held, or give SIGBUS; never the new data.
	 */
	EXPECT_TRUE(old_or_sigbus(&ro[PAGE / 4], "p1p1"));
	EXPECT_TRUE(old_or_sigbus(&ro[2 * PAGE / 4], "p2p2"));
	EXPECT_TRUE(old_or_sigbus(&rw[2 * PAGE / 4], "p2p2"));
	/* A mapping never touched has nothing to keep. */
	for (i = 0; i < 4; i++)
		EXPECT_TRUE(read_sigbus(&untouched[i * PAGE / 4], &v));
	EXPECT_TRUE(write_sigbus(&rw[3 * PAGE / 4], 1) ||
		    (!read_sigbus(&rw[3 * PAGE / 4], &v) && v == 1));
	munmap(ro, 4 * PAGE);
	munmap(rw, 4 * PAGE);
	munmap(untouched, 4 * PAGE);
	close(fd2);
	close(fd);
}

#define COPY_SYSCTL	"/proc/sys/fs/revoke_private_copy_pages"

/* fs.revoke_private_copy_pages: its value, or -1. */
static long copy_pages(void)
{
	char buf[32] = "";
	int fd = open(COPY_SYSCTL, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? atol(buf) : -1;
}

static int set_copy_pages(long pages)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld", pages);
	return write_str(COPY_SYSCTL, buf);
}

/*
 * The revoker copies at most fs.revoke_private_copy_pages pages for the
 * private mappings: a holder that maps the file a thousand times cannot
 * make it copy a thousand times the file.  Past the bound, pages give
 * SIGBUS; none shows the next owner's data.  A read-only shared mapping
 * (MAP_SHARED of an O_RDONLY file: no VM_SHARED) is a shared one: SIGBUS,
 * and none of the budget.
 */
TEST_F(files, private_copies_are_bounded)
{
	long saved = copy_pages();
	unsigned int *maps[3], *ro_shared, v;
	int fd, fd2, ro, i, p, kept = 0, lost = 0;
	char marker[8];

	ASSERT_GT(saved, 0) TH_LOG("no %s", COPY_SYSCTL);
	fd = open(self->path, O_RDWR);
	ASSERT_GE(fd, 0);
	for (p = 0; p < 4; p++) {
		snprintf(marker, sizeof(marker), "pg%d_", p);
		ASSERT_EQ(pwrite(fd, marker, 4, p * PAGE), 4);
	}
	for (i = 0; i < 3; i++) {
		maps[i] = mmap(NULL, 4 * PAGE, PROT_READ, MAP_PRIVATE, fd, 0);
		ASSERT_NE(maps[i], MAP_FAILED);
		for (p = 0; p < 4; p++)
			ASSERT_FALSE(read_sigbus(&maps[i][p * PAGE / 4], &v));
	}
	/* Mapped last, the lowest address: the first the walk meets. */
	ro = open(self->path, O_RDONLY);
	ASSERT_GE(ro, 0);
	ro_shared = mmap(NULL, 4 * PAGE, PROT_READ, MAP_SHARED, ro, 0);
	ASSERT_NE(ro_shared, MAP_FAILED);
	for (p = 0; p < 4; p++)
		ASSERT_FALSE(read_sigbus(&ro_shared[p * PAGE / 4], &v));
	ASSERT_EQ(set_copy_pages(5), 0);
	EXPECT_EQ(sys_revokeat(AT_FDCWD, self->path, 0), 0);
	ASSERT_EQ(set_copy_pages(saved), 0);
	fd2 = open(self->path, O_RDWR);
	ASSERT_GE(fd2, 0);
	for (p = 0; p < 4; p++)
		ASSERT_EQ(pwrite(fd2, "NEW!", 4, p * PAGE), 4);

	for (i = 0; i < 3; i++) {
		for (p = 0; p < 4; p++) {
			snprintf(marker, sizeof(marker), "pg%d_", p);
			if (read_sigbus(&maps[i][p * PAGE / 4], &v)) {
				lost++;
			} else {
				EXPECT_EQ(memcmp(&v, marker, 4), 0);
				kept++;
			}
		}
		munmap(maps[i], 4 * PAGE);
	}
	/* 12 pages mapped, 5 kept: before the bound, all 12 were copied. */
	EXPECT_EQ(kept, 5);
	EXPECT_EQ(lost, 7);
	for (p = 0; p < 4; p++)
		EXPECT_TRUE(read_sigbus(&ro_shared[p * PAGE / 4], &v));
	munmap(ro_shared, 4 * PAGE);
	close(ro);
	close(fd2);
	close(fd);
}

/* The anonymous memory of @pid, in kB (/proc/PID/smaps_rollup), or -1. */
static long anon_kb(pid_t pid)
{
	char path[64], line[128];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Anonymous: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/*
 * Shared mappings lose the file before the private mappings' copies are
 * made, which take long (8,192 pages here): when the readers of a shared
 * mapping get SIGBUS, the copies of the private mapping (the parent's
 * anonymous memory) are not made yet.  Before, a shared mapping read the
 * file (the next owner's writes, had it opened it already) until they
 * were all made.  A read-only one (MAP_SHARED of an O_RDONLY file:
 * VM_MAYSHARE without VM_SHARED) is a shared one too.
 */
TEST(shared_mappings_go_before_private_copies)
{
	const char *path = "/dev/shm/revoke-shared-first";
	const size_t len = 8192 * PAGE;
	struct {
		double sigbus[2];
		long anon_kb[2];	/* the parent's copies then */
		int ready;
	} *sh;
	pid_t readers[2], parent = getpid();
	double t0, t1;
	char *priv;
	int fd, i;

	sh = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(sh, MAP_FAILED);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(ftruncate(fd, len), 0);
	priv = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	ASSERT_NE(priv, MAP_FAILED);

	for (i = 0; i < 2; i++) {
		readers[i] = fork();
		if (readers[i] == 0) {
			int rfd = open(path, i ? O_RDONLY : O_RDWR);
			unsigned int *shared, v;

			shared = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, rfd, 0);
			if (shared == MAP_FAILED)
				_exit(2);
			__atomic_add_fetch(&sh->ready, 1, __ATOMIC_RELEASE);
			while (!read_sigbus(shared, &v))
				;
			sh->sigbus[i] = now_sec();
			sh->anon_kb[i] = anon_kb(parent);
			_exit(0);
		}
	}
	while (__atomic_load_n(&sh->ready, __ATOMIC_ACQUIRE) < 2)
		usleep(1000);
	t0 = now_sec();
	ASSERT_EQ(sys_revokeat(AT_FDCWD, path, 0), 0);
	t1 = now_sec();
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(reap_within(readers[i], 10000), 0);
		ksft_print_msg("revokeat %.1f ms; %s map lost at %.1f ms, %ld of %zu kB copied\n",
			       (t1 - t0) * 1e3, i ? "read-only" : "writable",
			       (sh->sigbus[i] - t0) * 1e3, sh->anon_kb[i],
			       len / 1024);
		/*
		 * Lost before the copies were made: a few may be since, more
		 * if the reader waited for a CPU (all of them, before).
		 */
		EXPECT_LT(sh->anon_kb[i], len / 1024 / 2);
	}
	EXPECT_GE(anon_kb(parent), len / 1024);
	munmap(priv, len);
	close(fd);
	unlink(path);
	munmap(sh, PAGE);
}

TEST_F(files, locks_go_with_the_file)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
			    .l_len = PAGE };
	int fd, ofd, fd2, go[2], res[2];
	char r = 0;
	pid_t pid;

	fd = open(self->path, O_RDWR);
	ofd = open(self->path, O_RDWR);
	ASSERT_GE(fd, 0);
	ASSERT_GE(ofd, 0);
	ASSERT_EQ(flock(fd, LOCK_EX), 0);
	ASSERT_EQ(fcntl(ofd, F_OFD_SETLK, &fl), 0);
	ASSERT_EQ(pipe(go), 0);
	ASSERT_EQ(pipe(res), 0);

	/* A process-owned POSIX lock, on another range. */
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		struct flock pl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
				    .l_start = 2 * PAGE, .l_len = PAGE };
		int pfd = open(self->path, O_RDWR);
		char c;

		if (pfd < 0 || fcntl(pfd, F_SETLK, &pl) || write(res[1], "l", 1) != 1)
			_exit(100);
		if (read(go[0], &c, 1) != 1)
			_exit(101);
		/* Revoked: the lock went with the file, and cannot come back. */
		c = fcntl(pfd, F_SETLK, &pl) == -1 && errno == EBADF ? 0 : 1;
		_exit(write(res[1], &c, 1) == 1 ? 0 : 102);
	}
	close(res[1]);
	close(go[0]);
	ASSERT_EQ(read(res[0], &r, 1), 1);
	ASSERT_EQ(r, 'l');

	ASSERT_EQ(sys_revokeat(AT_FDCWD, self->path, 0), 0);
	/* The next owner gets every lock at once. */
	fd2 = open(self->path, O_RDWR);
	ASSERT_GE(fd2, 0);
	EXPECT_EQ(flock(fd2, LOCK_EX | LOCK_NB), 0);
	fl.l_len = 0;
	EXPECT_EQ(fcntl(fd2, F_OFD_SETLK, &fl), 0);
	EXPECT_EQ(flock(fd, LOCK_EX | LOCK_NB), -1);
	EXPECT_EQ(errno, EBADF);
	/* Unlocking a revoked file is not an error. */
	EXPECT_EQ(flock(fd, LOCK_UN), 0);
	ASSERT_EQ(write(go[1], "g", 1), 1);
	ASSERT_EQ(read(res[0], &r, 1), 1);
	EXPECT_EQ(r, 0);
	EXPECT_EQ(child_status(pid), 0);
	close(fd2);
	close(fd);
	close(ofd);
}

TEST_F(files, blocked_lock_waiter_woken)
{
	int fd, go[2];
	char r = 0;
	pid_t pid;

	fd = open(self->path, O_RDWR);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(flock(fd, LOCK_EX), 0);
	ASSERT_EQ(pipe(go), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		/* Another process of the old session, waiting for the lock. */
		int wfd;

		close(fd);
		wfd = open(self->path, O_RDWR);
		if (wfd < 0 || write(go[1], "w", 1) != 1)
			_exit(100);
		_exit(flock(wfd, LOCK_EX) == -1 && errno == EBADF ? 0 : 101);
	}
	ASSERT_EQ(read(go[0], &r, 1), 1);
	usleep(100000);
	ASSERT_EQ(sys_revokeat(AT_FDCWD, self->path, 0), 0);
	/* Its file is revoked too: woken, and refused. */
	EXPECT_EQ(child_status(pid), 0);
	close(fd);
}

TEST_F(files, unlinked_file_by_o_path)
{
	int fd, opath;

	/* AT_EMPTY_PATH on an O_PATH fd, after the file was unlinked. */
	fd = open(self->path, O_RDWR);
	opath = open(self->path, O_PATH);
	ASSERT_GE(fd, 0);
	ASSERT_GE(opath, 0);
	ASSERT_EQ(unlink(self->path), 0);
	ASSERT_EQ(sys_revokeat(opath, "", AT_EMPTY_PATH), 0);
	EXPECT_EQ(read(fd, &(char){0}, 1), -1);
	EXPECT_EQ(errno, EBADF);
	close(opath);
	close(fd);
}

TEST_F(files, owner_or_cap_fowner)
{
	int fd, status;

	fd = open(self->path, O_RDWR);
	ASSERT_GE(fd, 0);
	/* Not the owner: EPERM, and nothing revoked. */
	ASSERT_EQ(fchown(fd, 0, 0), 0);
	if (fork() == 0) {
		int ok;

		if (setgid(1000) || setuid(1000))
			_exit(100);
		ok = sys_revokeat(AT_FDCWD, self->path, 0) == -1 &&
		     errno == EPERM;
		_exit(ok ? 0 : 1);
	}
	ASSERT_GT(wait(&status), 0);
	EXPECT_EQ(WEXITSTATUS(status), 0);
	EXPECT_EQ(pwrite(fd, "x", 1, 0), 1);
	/* The owner may. */
	ASSERT_EQ(fchown(fd, 1000, 1000), 0);
	if (fork() == 0) {
		if (setgid(1000) || setuid(1000))
			_exit(100);
		_exit(sys_revokeat(AT_FDCWD, self->path, 0) ? 1 : 0);
	}
	ASSERT_GT(wait(&status), 0);
	EXPECT_EQ(WEXITSTATUS(status), 0);
	EXPECT_EQ(pwrite(fd, "x", 1, 0), -1);
	EXPECT_EQ(errno, EBADF);
	close(fd);
}

TEST(not_revocable)
{
	char fifo[] = "/tmp/revoke-files-fifo", path[64];
	int fd, p[2];

	/* A regular file of a filesystem that did not opt in. */
	EXPECT_EQ(sys_revokeat(AT_FDCWD, "/proc/version", 0), -1);
	EXPECT_EQ(errno, EOPNOTSUPP);
	fd = open("/proc/version", O_RDONLY);
	ASSERT_GE(fd, 0);
	EXPECT_GT(read(fd, path, 8), 0);
	close(fd);
	/* Pipes and FIFOs. */
	unlink(fifo);
	ASSERT_EQ(mkfifo(fifo, 0600), 0);
	EXPECT_EQ(sys_revokeat(AT_FDCWD, fifo, 0), -1);
	EXPECT_EQ(errno, EOPNOTSUPP);
	ASSERT_EQ(pipe(p), 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", p[0]);
	EXPECT_EQ(sys_revokeat(AT_FDCWD, path, 0), -1);
	EXPECT_EQ(errno, EOPNOTSUPP);
	close(p[0]);
	close(p[1]);
	/* Directories. */
	EXPECT_EQ(sys_revokeat(AT_FDCWD, "/tmp", 0), -1);
	EXPECT_EQ(errno, EOPNOTSUPP);
	unlink(fifo);
}

TEST(memfd_seals)
{
	char path[64];
	int fd, fd2;

	/* A memfd lives on the kernel's internal tmpfs: revocable. */
	fd = memfd_create("revoke", MFD_ALLOW_SEALING);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(write(fd, "memfd", 5), 5);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ASSERT_EQ(sys_revokeat(AT_FDCWD, path, 0), 0);
	/* Seals would bind the next owner: refused, as reads are. */
	EXPECT_EQ(fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE), -1);
	EXPECT_EQ(errno, EBADF);
	EXPECT_EQ(pread(fd, path, 1, 0), -1);
	EXPECT_EQ(errno, EBADF);
	/* Reopened through /proc after the call: the next owner's file. */
	fd2 = open(path, O_RDWR);
	ASSERT_GE(fd2, 0);
	EXPECT_EQ(pread(fd2, path, 5, 0), 5);
	EXPECT_EQ(fcntl(fd2, F_ADD_SEALS, F_SEAL_WRITE), 0);
	close(fd2);
	close(fd);
}

/*
 * A sealable memfd of 4 pages, mapped shared and writable: the mapping,
 * with the memfd in *@fd, or MAP_FAILED.
 */
static unsigned int *memfd_mapped(const char *name, int *fd)
{
	*fd = memfd_create(name, MFD_ALLOW_SEALING);
	if (*fd < 0 || ftruncate(*fd, 4 * PAGE))
		return MAP_FAILED;
	return mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
}

/*
 * The next owner can seal: the old holder's writable shared mappings (its
 * own and a child's, inherited) no longer count once revoked.  They used
 * to, and F_SEAL_WRITE failed with EBUSY until the old holder unmapped.
 */
TEST(memfd_next_owner_seals)
{
	int fd, fd2, go[2], status;
	unsigned int *map, v;
	char path[64];
	void *p;
	pid_t child;

	map = memfd_mapped("revoke-seal", &fd);
	ASSERT_NE(map, MAP_FAILED);
	EXPECT_FALSE(write_sigbus(map, 1));
	ASSERT_EQ(pipe(go), 0);
	child = fork();
	ASSERT_GE(child, 0);
	if (child == 0) {
		close(go[1]);
		if (read(go[0], path, 1) != 0)
			_exit(40);
		/* Revoked: SIGBUS, and unmapping it works. */
		_exit(write_sigbus(map, 2) && !munmap(map, 4 * PAGE) ? 0 : 41);
	}
	close(go[0]);

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ASSERT_EQ(sys_revokeat(AT_FDCWD, path, 0), 0);
	fd2 = open(path, O_RDWR);
	ASSERT_GE(fd2, 0);
	EXPECT_EQ(fcntl(fd2, F_ADD_SEALS, F_SEAL_WRITE), 0)
		TH_LOG("F_SEAL_WRITE: %s", strerror(errno));
	/* The seal holds: no new writable mapping, no write. */
	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd2, 0);
	EXPECT_EQ(p, MAP_FAILED);
	EXPECT_EQ(pwrite(fd2, "x", 1, 0), -1);
	EXPECT_EQ(errno, EPERM);
	/* The old mapping is dead, split or not. */
	EXPECT_TRUE(write_sigbus(map, 3));
	EXPECT_TRUE(read_sigbus(map, &v));
	EXPECT_EQ(mprotect(map + PAGE / 4, PAGE, PROT_READ), 0);
	EXPECT_EQ(mprotect(map + PAGE / 4, PAGE, PROT_READ | PROT_WRITE), 0);
	EXPECT_TRUE(write_sigbus(map + PAGE / 4, 4));
	close(go[1]);
	ASSERT_EQ(waitpid(child, &status, 0), child);
	EXPECT_EQ(status, 0);
	EXPECT_EQ(munmap(map, 4 * PAGE), 0);
	close(fd2);
	close(fd);

	/*
	 * The count stays right when the old mappings go first: unmapping
	 * them must not count them down a second time, which would fail
	 * the next owner's writable mmap() with EPERM, as if sealed.
	 */
	map = memfd_mapped("revoke-seal2", &fd);
	ASSERT_NE(map, MAP_FAILED);
	ASSERT_EQ(pipe(go), 0);
	child = fork();
	ASSERT_GE(child, 0);
	if (child == 0) {
		close(go[1]);
		if (read(go[0], path, 1) != 0)
			_exit(40);
		/* Split after the revoke, then unmapped at exit. */
		_exit(munmap(map + PAGE / 4, PAGE) ? 42 : 0);
	}
	close(go[0]);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ASSERT_EQ(sys_revokeat(AT_FDCWD, path, 0), 0);
	close(go[1]);
	ASSERT_EQ(waitpid(child, &status, 0), child);
	EXPECT_EQ(status, 0);
	EXPECT_EQ(mprotect(map, PAGE, PROT_READ), 0);	/* a split too */
	/* A fork after the revoke copies the dead mapping: not counted. */
	child = fork();
	ASSERT_GE(child, 0);
	if (child == 0)
		_exit(0);
	ASSERT_EQ(waitpid(child, &status, 0), child);
	EXPECT_EQ(munmap(map, 4 * PAGE), 0);
	fd2 = open(path, O_RDWR);
	ASSERT_GE(fd2, 0);
	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd2, 0);
	EXPECT_NE(p, MAP_FAILED) TH_LOG("mmap: %s", strerror(errno));
	if (p != MAP_FAILED) {
		/* Its own writable mapping counts. */
		EXPECT_EQ(fcntl(fd2, F_ADD_SEALS, F_SEAL_WRITE), -1);
		EXPECT_EQ(errno, EBUSY);
		munmap(p, PAGE);
	}
	EXPECT_EQ(fcntl(fd2, F_ADD_SEALS, F_SEAL_WRITE), 0);
	close(fd2);
	close(fd);
}

/*
 * While a revoke waits for a write in flight (of another memfd, held
 * reading its page from swap: the gate is the internal tmpfs's), the old
 * holder's mapping is not zapped yet:
 * its writes still land, so the next owner cannot seal until the revoke
 * is done.  The seal used to succeed there, with the old holder still
 * writing through its mapping.
 */
TEST(memfd_seal_waits_for_the_zap)
{
	struct hold_disk swap = { .ctl = -1 };
	unsigned int *map, v = 0;
	int fd, fd2, other, i;
	pid_t revoker, held;
	char path[64];

	map = memfd_mapped("revoke-seal3", &fd);
	ASSERT_NE(map, MAP_FAILED);
	EXPECT_FALSE(write_sigbus(map, 1));
	other = memfd_create("revoke-seal3-other", 0);
	ASSERT_GE(other, 0);
	ASSERT_EQ(ftruncate(other, 4 * PAGE), 0);
	ASSERT_EQ(hold_swap_create(&swap), 0);
	held = hold_start(&swap, other, 2 * PAGE);
	ASSERT_GT(held, 0);

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", getpid(), fd);
	revoker = spawn_revokeat(path, -1);
	ASSERT_GT(revoker, 0);
	/* Revoked (step 1), then waiting for the write. */
	for (i = 0; i < 500 && pread(fd, &v, 1, 0) == 1; i++)
		usleep(10000);
	ASSERT_EQ(pread(fd, &v, 1, 0), -1);
	fd2 = open(path, O_RDWR);
	ASSERT_GE(fd2, 0);
	EXPECT_EQ(fcntl(fd2, F_ADD_SEALS, F_SEAL_WRITE), -1);
	EXPECT_EQ(errno, EBUSY);

	EXPECT_EQ(hold_finish(&swap, held), 0);
	EXPECT_EQ(reap_within(revoker, 10000), 0);
	EXPECT_TRUE(write_sigbus(map, 2));
	EXPECT_EQ(fcntl(fd2, F_ADD_SEALS, F_SEAL_WRITE), 0);
	munmap(map, 4 * PAGE);
	close(fd2);
	close(fd);
	close(other);
	hold_disk_remove(&swap);
}

/*
 * A revoked memfd exports nothing: udmabuf used to pin its pages and hand
 * out a dma-buf with full access to what the next owner writes there.
 */
TEST(memfd_udmabuf_refused)
{
	struct udmabuf_create create = { .size = 4 * PAGE };
	char path[64];
	int fd, dev, buf;

	dev = open("/dev/udmabuf", O_RDWR);
	ASSERT_GE(dev, 0);
	fd = memfd_create("revoke-udmabuf", MFD_ALLOW_SEALING);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(ftruncate(fd, 4 * PAGE), 0);
	ASSERT_EQ(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
	create.memfd = fd;
	buf = ioctl(dev, UDMABUF_CREATE, &create);
	ASSERT_GE(buf, 0) TH_LOG("udmabuf of a live memfd: %s", strerror(errno));
	close(buf);

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ASSERT_EQ(sys_revokeat(AT_FDCWD, path, 0), 0);
	buf = ioctl(dev, UDMABUF_CREATE, &create);
	EXPECT_EQ(buf, -1);
	EXPECT_EQ(errno, EBADF);
	if (buf >= 0)
		close(buf);
	close(fd);
	close(dev);
}

/*
 * io_uring fixed buffers pin the pages of a shared mapping for as long as
 * the ring lives (FOLL_LONGTERM), past the zap of the mapping.  After the
 * revoke the old holder's ring must neither read what the next owner
 * writes (WRITE_FIXED from the buffer) nor write into the file
 * (READ_FIXED into the buffer), and the pins no longer keep the next
 * owner from sealing.  They used to do all three.
 */
TEST(memfd_long_term_pin_recalled)
{
	struct io_uring_sqe sqe = {};
	struct iovec iov;
	struct uring u;
	int fd, fd2, p[2];
	char path[64], buf[8] = "";
	unsigned int *map;

	map = memfd_mapped("revoke-pin", &fd);
	ASSERT_NE(map, MAP_FAILED);
	memcpy(map, "old!", 4);
	ASSERT_EQ(uring_open(&u), 0);
	iov.iov_base = map;
	iov.iov_len = 4 * PAGE;
	ASSERT_EQ(syscall(__NR_io_uring_register, u.fd,
			  IORING_REGISTER_BUFFERS, &iov, 1), 0);
	ASSERT_EQ(pipe(p), 0);

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", getpid(), fd);
	ASSERT_EQ(sys_revokeat(AT_FDCWD, path, 0), 0);
	fd2 = open(path, O_RDWR);
	ASSERT_GE(fd2, 0);
	ASSERT_EQ(pwrite(fd2, "new!", 4, 0), 4);

	/* What the old holder's buffer holds: its own data, not the new. */
	sqe.opcode = IORING_OP_WRITE_FIXED;
	sqe.fd = p[1];
	sqe.addr = (unsigned long)map;
	sqe.len = 4;
	sqe.off = -1;
	EXPECT_EQ(uring_run(&u, &sqe), 4);
	EXPECT_EQ(read(p[0], buf, 4), 4);
	EXPECT_EQ(memcmp(buf, "old!", 4), 0) {
		TH_LOG("the old holder's pinned buffer reads %.4s", buf);
	}
	/* Written into by the old holder: the file does not change. */
	ASSERT_EQ(write(p[1], "evil", 4), 4);
	sqe.opcode = IORING_OP_READ_FIXED;
	sqe.fd = p[0];
	EXPECT_EQ(uring_run(&u, &sqe), 4);
	EXPECT_EQ(pread(fd2, buf, 4, 0), 4);
	EXPECT_EQ(memcmp(buf, "new!", 4), 0) {
		TH_LOG("the old holder's pinned buffer wrote into the file: %.4s", buf);
	}
	/* The pins are not the next owner's writable mappings. */
	EXPECT_EQ(fcntl(fd2, F_ADD_SEALS, F_SEAL_WRITE), 0);

	uring_close(&u);
	munmap(map, 4 * PAGE);
	close(p[0]);
	close(p[1]);
	close(fd2);
	close(fd);
}

/* ---- private mappings under memory pressure ---------------------------- */

#define FAILSLAB	"/sys/kernel/debug/failslab/"

/* [start, end) of the kernel function @name, from /proc/kallsyms. */
static int kernel_function(const char *name, unsigned long *start,
			   unsigned long *end)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	size_t len = strlen(name);
	unsigned long addr;
	char type, sym[256];

	if (!f)
		return -1;
	*start = 0;
	*end = ~0UL;
	/* The name, or the name with a compiler's suffix (".isra.0"). */
	while (fscanf(f, "%lx %c %255s%*[^\n]", &addr, &type, sym) == 3)
		if (!*start && !strncmp(sym, name, len) &&
		    (!sym[len] || sym[len] == '.'))
			*start = addr;
	rewind(f);
	while (fscanf(f, "%lx %c %255s%*[^\n]", &addr, &type, sym) == 3)
		if (*start && addr > *start && addr < *end)
			*end = addr;
	fclose(f);
	return *start && *end != ~0UL ? 0 : -1;
}

static int failslab_set(const char *attr, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), FAILSLAB "%s", attr);
	return write_str(path, val);
}

/*
 * The first slab allocation of a revokeat() fails (failslab, for the task
 * that calls it, only below revoke_regular()): the scratch space of the
 * private-mapping step.  The process keeps what it had mapped all the
 * same; it got SIGBUS when the step was skipped on -ENOMEM.
 */
TEST(private_mapping_kept_under_memory_pressure)
{
	unsigned long start, end;
	unsigned int *map, v = 0;
	char val[32], times[8] = {};
	int fd, t;
	pid_t pid;

	if (access(FAILSLAB, F_OK))
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	ASSERT_EQ(access(FAILSLAB, F_OK), 0);
	ASSERT_EQ(kernel_function("revoke_regular", &start, &end), 0);

	fd = memfd_create("revoke-nomem", 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(ftruncate(fd, 2 * PAGE), 0);
	ASSERT_EQ(pwrite(fd, "old", 4, 0), 4);
	map = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	ASSERT_NE(map, MAP_FAILED);
	/* Page 1 copied (the anon_vma exists), page 0 read. */
	EXPECT_FALSE(write_sigbus(&map[PAGE / 4], 0x11111111));
	EXPECT_FALSE(read_sigbus(&map[0], &v));

	/* The filters first: until then, any allocation could be failed. */
	ASSERT_EQ(failslab_set("probability", "0"), 0);
	ASSERT_EQ(failslab_set("interval", "1"), 0);
	ASSERT_EQ(failslab_set("times", "1"), 0);
	ASSERT_EQ(failslab_set("verbose", "0"), 0);
	ASSERT_EQ(failslab_set("task-filter", "Y"), 0);
	ASSERT_EQ(failslab_set("ignore-gfp-wait", "N"), 0);
	ASSERT_EQ(failslab_set("stacktrace-depth", "32"), 0);
	snprintf(val, sizeof(val), "0x%lx", start);
	ASSERT_EQ(failslab_set("require-start", val), 0);
	snprintf(val, sizeof(val), "0x%lx", end);
	ASSERT_EQ(failslab_set("require-end", val), 0);
	ASSERT_EQ(failslab_set("probability", "100"), 0);

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if (write_str("/proc/self/make-it-fail", "1"))
			_exit(100);
		_exit(sys_revokeat(AT_FDCWD, path, 0) ? errno : 0);
	}
	EXPECT_EQ(reap_within(pid, 20000), 0);

	t = open(FAILSLAB "times", O_RDONLY);
	EXPECT_GT(read(t, times, sizeof(times) - 1), 0);
	close(t);
	failslab_set("probability", "0");
	failslab_set("task-filter", "N");
	failslab_set("require-start", "0");
	failslab_set("require-end", "0xffffffffffffffff");
	/* An allocation was failed: the test is not vacuous. */
	EXPECT_EQ(atoi(times), 0) TH_LOG("no allocation failed: %s", times);

	EXPECT_FALSE(read_sigbus(&map[0], &v))
		TH_LOG("the page the process had mapped was taken");
	EXPECT_EQ(memcmp(&v, "old", 4), 0);
	EXPECT_FALSE(read_sigbus(&map[PAGE / 4], &v));
	EXPECT_EQ(v, 0x11111111);
	munmap(map, 2 * PAGE);
	close(fd);
}

/* ---- the open that passed its permission check before the revoke ------ */

/*
 * A user's open of @path in a child, as uid 1001: 'L' if it gave a live
 * file (a read works), 'R' if a revoked one (EBADF), else open's errno.
 */
static pid_t spawn_user_open(const char *path, int flags, int res)
{
	pid_t pid = fork();
	char c, buf[4];
	int fd;

	if (pid)
		return pid;
	if (setresgid(1001, 1001, 1001) || setresuid(1001, 1001, 1001))
		_exit(50);
	fd = open(path, flags);
	if (fd < 0)
		c = errno;
	else if (pread(fd, buf, sizeof(buf), 0) >= 0)
		c = 'L';
	else
		c = errno == EBADF ? 'R' : 'e';
	_exit(write(res, &c, 1) == 1 ? 0 : 51);
}

/*
 * An ACL that names 40 users: too big for the inode, it lives in an
 * xattr block, which the permission check of a non-owner reads from disk.
 */
static size_t big_acl(char *buf)
{
	struct { uint16_t tag, perm; uint32_t id; } *e;
	uint32_t *version = (uint32_t *)buf;
	int i, n = 0;

	*version = 2;	/* POSIX_ACL_XATTR_VERSION */
	e = (void *)(version + 1);
	e[n].tag = 0x01, e[n].perm = 6, e[n++].id = -1;	/* ACL_USER_OBJ */
	for (i = 0; i < 40; i++)
		e[n].tag = 0x02, e[n].perm = 6, e[n++].id = 1001 + i;
	e[n].tag = 0x04, e[n].perm = 0, e[n++].id = -1;	/* ACL_GROUP_OBJ */
	e[n].tag = 0x10, e[n].perm = 6, e[n++].id = -1;	/* ACL_MASK */
	e[n].tag = 0x20, e[n].perm = 0, e[n++].id = -1;	/* ACL_OTHER */
	return sizeof(*version) + n * sizeof(*e);
}

#define ACL_DIR		"/mnt/ext4-acl"
#define ACL_FILE	ACL_DIR "/granted"
#define ACL_DM		"revoke-acl"
#define ACL_OPTS	"acl,barrier=0,noinit_itable"

/*
 * Has @pid, in revokeat(), bumped the generation?  It has once it returned
 * or reached the write-back of its last step (which waits for the journal
 * while the disk is suspended).  Neither reaps it.  @stack: its last kernel
 * stack, for the log.
 */
static bool revoke_reached_fsync(pid_t pid, int ms, char *stack, size_t len)
{
	char path[64];
	siginfo_t si;
	int i, fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stack", pid);
	for (i = 0; i <= ms / 10; i++) {
		si.si_pid = 0;
		if (!waitid(P_PID, pid, &si, WEXITED | WNOHANG | WNOWAIT) &&
		    si.si_pid == pid)
			return true;
		fd = open(path, O_RDONLY);
		n = fd >= 0 ? read(fd, stack, len - 1) : -1;
		if (fd >= 0)
			close(fd);
		if (n > 0) {
			stack[n] = 0;
			/* write_inode_now() and what it waits in */
			if (strstr(stack, "write_inode_now") ||
			    strstr(stack, "writeback_single_inode") ||
			    strstr(stack, "jbd2"))
				return true;
		}
		usleep(10000);
	}
	return false;
}

/*
 * A session manager grants a user a file through an ACL on ext4, then
 * takes it away: chmod (which masks the ACL's named users) and revokeat().
 * The user's opens had begun before: their permission checks sleep
 * reading the ACL's xattr block from disk (a device-mapper disk, suspended
 * meanwhile) and go on with the old ACL once the generation moved.  They
 * must not give a live file, and the O_TRUNC one must not truncate what
 * the file holds.  Both did while open(2) sampled the generation after its
 * permission check.  Between the suspend and the resume this process only
 * forks and waits, so that a failure cannot leave the disk suspended.
 */
TEST(ext4_acl_open_checked_before_revoke)
{
	pid_t reader, truncer, chmoder, revoker;
	char acl[512], dm[64], params[32], buf[8] = {}, stack[4096] = "";
	int ctl, loop, res[2], fd;
	struct stat st, lst;
	size_t len;
	dev_t dev;
	char c;

	ctl = open("/dev/mapper/control", O_RDWR);
	ASSERT_GE(ctl, 0);
	loop = loop_attach(EXT4_IMAGE);
	ASSERT_GE(loop, 0);
	ASSERT_EQ(fstat(loop, &lst), 0);
	snprintf(params, sizeof(params), "%u:%u 0", major(lst.st_rdev),
		 minor(lst.st_rdev));
	dm_call(ctl, DM_DEV_REMOVE, ACL_DM, 0, NULL, NULL, 0, NULL);
	ASSERT_EQ(dm_call(ctl, DM_DEV_CREATE, ACL_DM, 0, NULL, NULL, 0, &dev),
		  0);
	ASSERT_EQ(dm_call(ctl, DM_TABLE_LOAD, ACL_DM, 0, "linear", params,
			  (16 << 20) / 512, NULL), 0);
	ASSERT_EQ(dm_resume(ctl, ACL_DM), 0);
	snprintf(dm, sizeof(dm), "/tmp/%s", ACL_DM);
	unlink(dm);
	ASSERT_EQ(mknod(dm, S_IFBLK | 0600, dev), 0);
	mkdir(ACL_DIR, 0755);
	ASSERT_EQ(mount(dm, ACL_DIR, "ext4", MS_NOATIME, ACL_OPTS), 0);

	unlink(ACL_FILE);
	fd = open(ACL_FILE, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(write(fd, "old", 3), 3);
	len = big_acl(acl);
	ASSERT_EQ(fsetxattr(fd, "system.posix_acl_access", acl, len, 0), 0)
		TH_LOG("setting the ACL: %s", strerror(errno));
	close(fd);
	/* The user can open it. */
	ASSERT_EQ(pipe(res), 0);
	reader = spawn_user_open(ACL_FILE, O_RDWR, res[1]);
	ASSERT_EQ(read(res[0], &c, 1), 1);
	ASSERT_EQ(c, 'L') TH_LOG("the ACL does not grant the user: %d", c);
	ASSERT_EQ(reap_within(reader, 5000), 0);

	/*
	 * A cold cache: the last unmount drops the disk's page cache (the
	 * journal pins the xattr block against drop_caches).  Then read the
	 * inode back, not the xattr block.
	 */
	ASSERT_EQ(umount(ACL_DIR), 0);
	ASSERT_EQ(mount(dm, ACL_DIR, "ext4", MS_NOATIME, ACL_OPTS), 0);
	ASSERT_EQ(stat(ACL_FILE, &st), 0);
	ASSERT_EQ(dm_suspend(ctl, ACL_DM), 0);

	/* The user's opens now sleep in their permission check. */
	reader = spawn_user_open(ACL_FILE, O_RDWR, res[1]);
	truncer = spawn_user_open(ACL_FILE, O_RDWR | O_TRUNC, res[1]);
	EXPECT_TRUE(wait_state(reader, 'D', 5000))
		TH_LOG("the open did not sleep reading the ACL");
	EXPECT_TRUE(wait_state(truncer, 'D', 5000));

	/*
	 * The manager takes the file away.  chmod sets the mode, which locks
	 * out every later open, then sleeps reading the ACL to rewrite its
	 * mask; revokeat() bumps the generation, then waits in its fsync for
	 * the journal, which waits for the disk.
	 */
	chmoder = fork();
	if (chmoder == 0)
		_exit(chmod(ACL_FILE, 0600) ? errno : 0);
	EXPECT_TRUE(wait_state(chmoder, 'D', 5000));
	revoker = fork();
	if (revoker == 0)
		_exit(sys_revokeat(AT_FDCWD, ACL_FILE, 0) ? errno : 0);
	EXPECT_TRUE(revoke_reached_fsync(revoker, 10000, stack, sizeof(stack)))
		TH_LOG("revokeat() did not get to its fsync:\n%s", stack);

	EXPECT_EQ(dm_resume(ctl, ACL_DM), 0);
	EXPECT_EQ(reap_within(chmoder, 10000), 0);
	EXPECT_EQ(reap_within(revoker, 10000), 0);
	EXPECT_EQ(reap_within(reader, 10000), 0);
	EXPECT_EQ(reap_within(truncer, 10000), 0);
	close(res[1]);
	while (read(res[0], &c, 1) == 1) {
		/* EACCES if it read the ACL once chmod had rewritten it. */
		EXPECT_NE(c, 'L') TH_LOG("an open gave a live file");
		EXPECT_TRUE(c == 'R' || c == EBADF || c == EACCES)
			TH_LOG("an open gave '%c' (%d)", c, c);
	}
	close(res[0]);
	/* Nothing was truncated. */
	fd = open(ACL_FILE, O_RDONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(read(fd, buf, sizeof(buf)), 3);
	EXPECT_STREQ(buf, "old");
	close(fd);
	/* And the user is locked out. */
	ASSERT_EQ(pipe(res), 0);
	reader = spawn_user_open(ACL_FILE, O_RDONLY, res[1]);
	ASSERT_EQ(read(res[0], &c, 1), 1);
	EXPECT_EQ(c, EACCES);
	EXPECT_EQ(reap_within(reader, 5000), 0);
	close(res[0]);
	close(res[1]);

	EXPECT_EQ(umount(ACL_DIR), 0);
	EXPECT_EQ(dm_call(ctl, DM_DEV_REMOVE, ACL_DM, 0, NULL, NULL, 0, NULL),
		  0);
	unlink(dm);
	ioctl(loop, LOOP_CLR_FD);
	close(loop);
	close(ctl);
}

struct open_racer {
	pthread_t thread;
	const char *path;
	int stop;		/* atomic */
	int fds[256];
	int n;
};

static void *open_racer_fn(void *arg)
{
	struct open_racer *r = arg;

	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE) && r->n < 256) {
		int fd = open(r->path, O_RDWR);

		if (fd >= 0)
			r->fds[r->n++] = fd;
		else
			sched_yield();
	}
	return NULL;
}

/*
 * The same as a plain race, bounded: a user's threads open the file in a
 * loop while the owner, on the same CPU with preempt=full, chmods it and
 * revokes it.  After each revokeat(), every file the user holds is
 * revoked.
 */
TEST_F(files, open_race_with_chmod_and_revoke)
{
	int round, bad = 0, live = 0, res[2];
	cpu_set_t set;
	pid_t user;
	char c;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	ASSERT_EQ(sched_setaffinity(0, sizeof(set), &set), 0);
	ASSERT_EQ(pipe(res), 0);
	for (round = 0; round < 40; round++) {
		int go[2];

		ASSERT_EQ(chmod(self->path, 0666), 0);
		ASSERT_EQ(pipe(go), 0);
		user = fork();
		ASSERT_GE(user, 0);
		if (user == 0) {
			struct open_racer r[2] = {};
			char b;
			int i, j, n = 0;

			if (setresgid(1000, 1000, 1000) ||
			    setresuid(1000, 1000, 1000))
				_exit(50);
			for (i = 0; i < 2; i++) {
				r[i].path = self->path;
				pthread_create(&r[i].thread, NULL, open_racer_fn,
					       &r[i]);
			}
			/* The owner says when its revokeat() returned. */
			if (read(go[0], &c, 1) != 1)
				_exit(51);
			for (i = 0; i < 2; i++) {
				__atomic_store_n(&r[i].stop, 1, __ATOMIC_RELEASE);
				pthread_join(r[i].thread, NULL);
			}
			for (i = 0; i < 2; i++)
				for (j = 0; j < r[i].n; j++)
					if (pread(r[i].fds[j], &b, 1, 0) >= 0 ||
					    errno != EBADF)
						n++;
			c = n > 127 ? 127 : n;
			_exit(write(res[1], &c, 1) == 1 ? 0 : 52);
		}
		close(go[0]);
		usleep(1000 * (round % 7));
		ASSERT_EQ(chmod(self->path, 0600), 0);
		ASSERT_EQ(sys_revokeat(AT_FDCWD, self->path, 0), 0);
		ASSERT_EQ(write(go[1], "g", 1), 1);
		close(go[1]);
		ASSERT_EQ(read(res[0], &c, 1), 1);
		live += c;
		bad += c != 0;
		ASSERT_EQ(reap_within(user, 10000), 0);
	}
	EXPECT_EQ(bad, 0) TH_LOG("%d live files in %d of 40 rounds", live, bad);
	close(res[0]);
	close(res[1]);
}

TEST_HARNESS_MAIN
