// SPDX-License-Identifier: GPL-2.0
/*
 * revokeat(2) on the test device against what a hostile holder, or an
 * unusual driver, can do: pollers with EPOLLEXCLUSIVE, locks, a container
 * that may mknod but not open, the methods of a dead mapping, a driver
 * that moves its mappings elsewhere, page references taken through the
 * mapping (vmsplice, io_uring, process_vm_writev, O_DIRECT), and the
 * memory cgroup paying for what its tasks open.
 */

#include <linux/bpf.h>
#include <linux/io_uring.h>
#include <linux/loop.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>

#include "../kselftest_harness.h"
#include "revoke_util.h"

#define SCRATCH "/tmp/attack"
#define CGROOT	"/sys/fs/cgroup"

static void scratch(void)
{
	if (system("rm -rf " SCRATCH) || mkdir(SCRATCH, 0755))
		abort();
}

/* ---- every poller learns of the revoke --------------------------------- */

struct ep_waiter {
	pthread_t thread;
	pid_t tid;		/* atomic */
	int ep;
	int ret;
	unsigned int events;
	int done;		/* atomic */
};

static void *ep_wait_fn(void *arg)
{
	struct ep_waiter *w = arg;
	struct epoll_event ev = {};

	__atomic_store_n(&w->tid, gettid(), __ATOMIC_RELEASE);
	w->ret = epoll_wait(w->ep, &ev, 1, 20000);
	w->events = ev.events;
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * Several epoll instances watch one file with EPOLLEXCLUSIVE, which asks
 * for one of them to be woken per event: the revoke is not such an event,
 * each of them must see EPOLLERR | EPOLLHUP at once.
 */
TEST(epollexclusive_pollers_all_woken)
{
	struct ep_waiter w[3];
	int fd, i, j;

	node_drain(RT_NODE);
	fd = open(RT_NODE, O_RDWR);
	ASSERT_GE(fd, 0);
	for (i = 0; i < 3; i++) {
		struct epoll_event ev = { .events = EPOLLIN | EPOLLEXCLUSIVE };

		w[i] = (struct ep_waiter){ .ep = epoll_create1(0) };
		ASSERT_GE(w[i].ep, 0);
		ASSERT_EQ(epoll_ctl(w[i].ep, EPOLL_CTL_ADD, fd, &ev), 0);
		ASSERT_EQ(pthread_create(&w[i].thread, NULL, ep_wait_fn, &w[i]), 0);
	}
	/* Each is asleep in epoll_wait(), not about to call it. */
	for (i = 0; i < 3; i++) {
		while (!__atomic_load_n(&w[i].tid, __ATOMIC_ACQUIRE))
			usleep(1000);
		EXPECT_TRUE(wait_state(w[i].tid, 'S', 5000));
	}
	usleep(50000);
	ASSERT_EQ(sys_revokeat(AT_FDCWD, RT_NODE, 0), 0);
	for (i = 0; i < 3; i++) {
		for (j = 0; j < 500; j++) {
			if (__atomic_load_n(&w[i].done, __ATOMIC_ACQUIRE))
				break;
			usleep(10000);
		}
		EXPECT_TRUE(w[i].done) TH_LOG("epoll %d never woken", i);
		if (!w[i].done)
			continue;
		pthread_join(w[i].thread, NULL);
		EXPECT_EQ(w[i].ret, 1);
		EXPECT_EQ(w[i].events, EPOLLERR | EPOLLHUP);
		close(w[i].ep);
	}
	close(fd);
}

/* ---- locks ------------------------------------------------------------- */

static int lock_byte(int fd, int cmd, short type, off_t at)
{
	struct flock fl = {
		.l_type = type, .l_whence = SEEK_SET, .l_start = at, .l_len = 1,
	};

	return fcntl(fd, cmd, &fl);
}

/*
 * flock, POSIX and OFD locks taken through revoked files go with them:
 * the next opener locks at once, a waiter of the old session is woken
 * with ENXIO, and a revoked file takes no new lock.
 */
TEST(locks_go_with_the_files)
{
	int a, ofd, c, next, ready[2];
	pid_t waiter, other;
	char x;

	a = open(RT_NODE, O_RDWR);
	ofd = open(RT_NODE, O_RDWR);
	c = open(RT_NODE, O_RDWR);
	ASSERT_GE(a, 0);
	ASSERT_GE(ofd, 0);
	ASSERT_GE(c, 0);
	ASSERT_EQ(flock(a, LOCK_EX), 0);
	ASSERT_EQ(lock_byte(a, F_SETLK, F_WRLCK, 0), 0);
	ASSERT_EQ(lock_byte(ofd, F_OFD_SETLK, F_WRLCK, 2), 0);

	/* A waiter of the old session, blocked behind a's flock. */
	ASSERT_EQ(pipe(ready), 0);
	waiter = fork();
	ASSERT_GE(waiter, 0);
	if (waiter == 0) {
		int w = open(RT_NODE, O_RDWR);

		if (w < 0 || write(ready[1], "r", 1) != 1)
			_exit(60);
		if (flock(w, LOCK_EX) == 0)
			_exit(61);
		_exit(errno == ENXIO ? 0 : 62);
	}
	ASSERT_EQ(read(ready[0], &x, 1), 1);
	EXPECT_TRUE(wait_state(waiter, 'S', 3000));

	ASSERT_EQ(sys_revokeat(AT_FDCWD, RT_NODE, 0), 0);
	EXPECT_EQ(reap_within(waiter, 3000), 0);

	/* The next opener, in another process for the POSIX lock. */
	other = fork();
	ASSERT_GE(other, 0);
	if (other == 0) {
		next = open(RT_NODE, O_RDWR);
		if (next < 0)
			_exit(70);
		if (flock(next, LOCK_EX | LOCK_NB))
			_exit(71);
		if (lock_byte(next, F_SETLK, F_WRLCK, 0))
			_exit(72);
		if (lock_byte(next, F_OFD_SETLK, F_WRLCK, 2))
			_exit(73);
		_exit(0);
	}
	EXPECT_EQ(child_status(other), 0);

	/* A revoked file takes no lock, and unlocking it works. */
	EXPECT_EQ(flock(c, LOCK_SH | LOCK_NB), -1);
	EXPECT_EQ(errno, ENXIO);
	EXPECT_EQ(lock_byte(c, F_SETLK, F_RDLCK, 4), -1);
	EXPECT_EQ(errno, ENXIO);
	EXPECT_EQ(lock_byte(c, F_OFD_SETLK, F_RDLCK, 4), -1);
	EXPECT_EQ(errno, ENXIO);
	EXPECT_EQ(flock(a, LOCK_UN), 0);
	EXPECT_EQ(lock_byte(a, F_SETLK, F_UNLCK, 0), 0);
	close(a);
	close(ofd);
	close(c);
}

/* ---- a container that may mknod but not open --------------------------- */

static int bpf_sys(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/* A device cgroup program that allows mknod and nothing else. */
static int devcg_mknod_only(void)
{
	static const struct bpf_insn insns[] = {
		/* r2 = ctx->access_type >> 16 & BPF_DEVCG_ACC_MKNOD */
		{ .code = BPF_LDX | BPF_MEM | BPF_W, .dst_reg = 2, .src_reg = 1 },
		{ .code = BPF_ALU | BPF_RSH | BPF_K, .dst_reg = 2, .imm = 16 },
		{ .code = BPF_ALU | BPF_AND | BPF_K, .dst_reg = 2,
		  .imm = BPF_DEVCG_ACC_MKNOD },
		/* return r2: 1 allows, 0 denies */
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = 0, .src_reg = 2 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr attr = {
		.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE,
		.insns = (unsigned long)insns,
		.insn_cnt = ARRAY_SIZE(insns),
		.license = (unsigned long)"GPL",
	};

	return bpf_sys(BPF_PROG_LOAD, &attr);
}

static int cgroup2_mounted(void)
{
	struct stat st;

	if (!stat(CGROOT "/cgroup.procs", &st))
		return 0;
	return mount("cgroup2", CGROOT, "cgroup2", 0, NULL);
}

/*
 * Root of a container whose device cgroup lets it mknod but not open the
 * host's devices makes a node of /dev/revoke_test and revokes it: EPERM,
 * as an open would be refused, and the host's file stays live.
 */
TEST(device_cgroup_mknod_only_cannot_revoke)
{
	union bpf_attr attr = {};
	int fd, prog, cg;
	struct stat st;
	pid_t pid;

	scratch();
	ASSERT_EQ(cgroup2_mounted(), 0);
	rmdir(CGROOT "/revoke-dev");
	ASSERT_EQ(mkdir(CGROOT "/revoke-dev", 0755), 0);
	cg = open(CGROOT "/revoke-dev", O_RDONLY | O_DIRECTORY);
	ASSERT_GE(cg, 0);
	prog = devcg_mknod_only();
	ASSERT_GE(prog, 0) TH_LOG("BPF_PROG_LOAD: %s", strerror(errno));
	attr.target_fd = cg;
	attr.attach_bpf_fd = prog;
	attr.attach_type = BPF_CGROUP_DEVICE;
	ASSERT_EQ(bpf_sys(BPF_PROG_ATTACH, &attr), 0);

	node_drain(RT_NODE);
	fd = open(RT_NODE, O_RDWR);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(stat(RT_NODE, &st), 0);

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		if (write_str(CGROOT "/revoke-dev/cgroup.procs", "0"))
			_exit(80);
		if (mknod(SCRATCH "/node", S_IFCHR | 0600, st.st_rdev))
			_exit(81);
		/* As for an open... */
		if (open(SCRATCH "/node", O_RDWR) != -1 || errno != EPERM)
			_exit(82);
		/* ...and so for a revoke. */
		if (sys_revokeat(AT_FDCWD, SCRATCH "/node", 0) != -1)
			_exit(83);
		_exit(errno == EPERM ? 0 : 84);
	}
	EXPECT_EQ(child_status(pid), 0);
	EXPECT_EQ(check_works(fd), 0);
	close(fd);

	ASSERT_EQ(bpf_sys(BPF_PROG_DETACH, &attr), 0);
	close(prog);
	close(cg);
	EXPECT_EQ(rmdir(CGROOT "/revoke-dev"), 0);
}

/* ---- the methods of a revoked mapping ---------------------------------- */

/* Does /proc/self/@file mention @what (and was it read to the end)? */
static bool proc_self_has(const char *file, const char *what)
{
	char path[64], buf[65536];
	ssize_t n, len = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/%s", file);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	while (len < (ssize_t)sizeof(buf) - 1 &&
	       (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = 0;
	return strstr(buf, what);
}

/*
 * The driver's vm_operations that look at its per-file state (->mremap,
 * ->may_split, ->mprotect, ->pagesize) are not called once the file is
 * revoked and released: mremap(), a splitting munmap(), mprotect() and
 * /proc/PID/smaps still work on the dead mapping.  (KASAN reports the
 * driver's use of its freed state otherwise.)
 */
TEST(vm_methods_of_revoked_mapping)
{
	unsigned int val;
	char *p, *q, *area;
	int fd;

	fd = open(RT_NODE, O_RDWR);
	ASSERT_GE(fd, 0);
	p = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(p, MAP_FAILED);
	EXPECT_FALSE(read_sigbus((unsigned int *)p, &val));
	area = mmap(NULL, 4 * 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
	ASSERT_NE(area, MAP_FAILED);

	ASSERT_EQ(sys_revokeat(AT_FDCWD, RT_NODE, 0), 0);
	q = mremap(p, 2 * 4096, 2 * 4096, MREMAP_MAYMOVE | MREMAP_FIXED,
		   area + 4096);
	EXPECT_EQ(q, area + 4096);
	if (q == MAP_FAILED)
		q = p;
	EXPECT_EQ(munmap(q + 4096, 4096), 0);
	EXPECT_EQ(mprotect(q, 4096, PROT_READ), 0);
	EXPECT_TRUE(proc_self_has("smaps", "KernelPageSize"));
	EXPECT_TRUE(proc_self_has("maps", RT_NODE));
	EXPECT_TRUE(read_sigbus((unsigned int *)q, &val));
	EXPECT_EQ(munmap(q, 4096), 0);
	munmap(area, 4 * 4096);
	close(fd);
}

/* ---- drivers that move their mappings --------------------------------- */

static unsigned int node_vmas(void)
{
	struct revoke_test_stats st;

	return node_stats(RT_NODE, &st) ? ~0u : st.vmas;
}

/* A driver that points f_mapping elsewhere in ->open, as /dev/mem does. */
TEST(own_address_space_torn_down)
{
	unsigned int val, *p;
	int fd;

	ASSERT_EQ(rt_set_mode(REVOKE_TEST_MODE_OWN_MAPPING), 0);
	fd = open(RT_NODE, O_RDWR);
	ASSERT_EQ(rt_set_mode(0), 0);
	ASSERT_GE(fd, 0);
	p = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(p, MAP_FAILED);
	EXPECT_FALSE(read_sigbus(p, &val));
	ASSERT_EQ(sys_revokeat(AT_FDCWD, RT_NODE, 0), 0);
	EXPECT_TRUE(read_sigbus(p, &val));
	munmap(p, 2 * 4096);
	close(fd);
}

/*
 * A driver that moves a mapping to another file in ->mmap, as DRM does for
 * its buffer objects: the revoke could not reach it, so the mmap() fails,
 * and the driver's mapping count is balanced.
 */
TEST(mapping_moved_to_other_file_refused)
{
	unsigned int val, vmas = node_vmas(), *p;
	int fd;

	fd = open(RT_NODE, O_RDWR);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(rt_set_mode(REVOKE_TEST_MODE_SET_FILE), 0);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_EQ(rt_set_mode(0), 0);
	EXPECT_EQ(p, MAP_FAILED);
	EXPECT_EQ(errno, ENODEV);
	if (p != MAP_FAILED) {
		ASSERT_EQ(sys_revokeat(AT_FDCWD, RT_NODE, 0), 0);
		EXPECT_TRUE(read_sigbus(p, &val));
		munmap(p, 4096);
	}
	EXPECT_EQ(node_vmas(), vmas);
	close(fd);
}

/* ---- page references taken through the mapping ------------------------- */

/*
 * Device memory reached through a page reference outlives a revoke: the
 * next user's data would be read (and written) through it.  No such
 * reference can be taken on a revocable device's mapping.
 */
TEST(device_pages_not_pinnable)
{
	struct iovec local, remote;
	struct io_uring_params params = {};
	struct iovec iov;
	char buf[8] = "pinned", *p;
	int fd, pfd[2], ring, loop, dio;
	struct stat st;

	fd = open(RT_NODE, O_RDWR);
	ASSERT_GE(fd, 0);
	p = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(p, MAP_FAILED);
	p[0] = 1;
	p[4096] = 1;

	/* vmsplice: the pipe would keep the pages. */
	ASSERT_EQ(pipe(pfd), 0);
	iov = (struct iovec){ .iov_base = p, .iov_len = 4096 };
	EXPECT_EQ(vmsplice(pfd[1], &iov, 1, 0), -1);
	EXPECT_EQ(errno, EFAULT);

	/* io_uring fixed buffers: pinned for the ring's life. */
	ring = syscall(__NR_io_uring_setup, 4, &params);
	ASSERT_GE(ring, 0);
	iov = (struct iovec){ .iov_base = p, .iov_len = 2 * 4096 };
	EXPECT_EQ(syscall(__NR_io_uring_register, ring,
			  IORING_REGISTER_BUFFERS, &iov, 1), -1);
	EXPECT_EQ(errno, EFAULT);
	close(ring);

	/* process_vm_writev() and _readv() into and from it. */
	local = (struct iovec){ .iov_base = buf, .iov_len = sizeof(buf) };
	remote = (struct iovec){ .iov_base = p, .iov_len = sizeof(buf) };
	EXPECT_EQ(process_vm_writev(getpid(), &local, 1, &remote, 1, 0), -1);
	EXPECT_EQ(errno, EFAULT);
	EXPECT_EQ(process_vm_readv(getpid(), &local, 1, &remote, 1, 0), -1);
	EXPECT_EQ(errno, EFAULT);

	/* Direct I/O from a block device into it. */
	loop = loop_attach("/images/ext4.img");
	ASSERT_GE(loop, 0);
	ASSERT_EQ(fstat(loop, &st), 0);
	snprintf(buf, sizeof(buf), "%u", minor(st.st_rdev));
	{
		char dev[32];

		snprintf(dev, sizeof(dev), "/dev/loop%s", buf);
		dio = open(dev, O_RDONLY | O_DIRECT);
	}
	ASSERT_GE(dio, 0);
	EXPECT_EQ(pread(dio, p, 4096, 0), -1);
	EXPECT_EQ(errno, EFAULT);
	close(dio);
	ioctl(loop, LOOP_CLR_FD);
	close(loop);

	/* Plain access is unaffected. */
	EXPECT_EQ(p[0], 1);
	close(pfd[0]);
	close(pfd[1]);
	munmap(p, 2 * 4096);
	close(fd);
}

/* ---- memory cgroup ----------------------------------------------------- */

#define ACCT_FILES 4000

/*
 * Open ACCT_FILES files of @node in a fresh memory cgroup; how many bytes
 * memory.current grew by, per file, or -1.
 */
static long charged_per_open(const char *node)
{
	char cur[64];
	int res[2];
	long per;
	pid_t pid;

	rmdir(CGROOT "/revoke-acct");
	if (mkdir(CGROOT "/revoke-acct", 0755) || pipe(res))
		return -1;
	pid = fork();
	if (pid == 0) {
		struct rlimit rl = { ACCT_FILES + 64, ACCT_FILES + 64 };
		long before, after;
		int i, fd;

		if (setrlimit(RLIMIT_NOFILE, &rl) ||
		    write_str(CGROOT "/revoke-acct/cgroup.procs", "0"))
			_exit(1);
		fd = open(CGROOT "/revoke-acct/memory.current", O_RDONLY);
		if (fd < 0 || pread(fd, cur, sizeof(cur) - 1, 0) <= 0)
			_exit(2);
		before = atol(cur);
		for (i = 0; i < ACCT_FILES; i++)
			if (open(node, O_RDWR) < 0)
				_exit(3);
		memset(cur, 0, sizeof(cur));
		if (pread(fd, cur, sizeof(cur) - 1, 0) <= 0)
			_exit(4);
		after = atol(cur);
		per = (after - before) / ACCT_FILES;
		_exit(write(res[1], &per, sizeof(per)) == sizeof(per) ? 0 : 5);
	}
	if (pid < 0 || child_status(pid) || read(res[0], &per, sizeof(per)) !=
	    sizeof(per))
		per = -1;
	close(res[0]);
	close(res[1]);
	rmdir(CGROOT "/revoke-acct");
	return per;
}

/*
 * What the framework allocates per open file (its state, ~400 bytes) is
 * charged to the opener's memory cgroup, as the struct file is: a
 * revocable node costs the cgroup that much more than its unrevocable
 * twin.  memory.current moves in batches of 64 pages (64 bytes per file
 * here), hence the margin.
 */
TEST(per_open_state_charged)
{
	long plain, revocable;

	ASSERT_EQ(cgroup2_mounted(), 0);
	ASSERT_EQ(write_str(CGROOT "/cgroup.subtree_control", "+memory"), 0);
	plain = charged_per_open(RT_PLAIN);
	revocable = charged_per_open(RT_NODE);
	TH_LOG("per open: %ld bytes plain, %ld revocable", plain, revocable);
	ASSERT_GE(plain, 0);
	ASSERT_GE(revocable, 0);
	EXPECT_GE(revocable - plain, 256);
}

TEST_HARNESS_MAIN
