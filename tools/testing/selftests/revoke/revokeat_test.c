// SPDX-License-Identifier: GPL-2.0
/*
 * revokeat(2) on a char device: the errnos of the system call, then each
 * guarantee of revocation, on the test device /dev/revoke_test
 * (CONFIG_REVOKE_TEST_DEVICE) and its unrevocable twin.
 */

#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/mount.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <linux/capability.h>

#include "../kselftest_harness.h"
#include "revoke_util.h"

/* A scratch directory of the test, on the guest's tmpfs. */
#define SCRATCH "/tmp/revokeat"

static void scratch(void)
{
	if (system("rm -rf " SCRATCH) || mkdir(SCRATCH, 0755))
		abort();
}

static dev_t node_rdev(const char *node)
{
	struct stat st;

	if (stat(node, &st))
		abort();
	return st.st_rdev;
}

/* An alias of @node: another inode with the same device number. */
static void make_alias(const char *alias, const char *node)
{
	unlink(alias);
	if (mknod(alias, S_IFCHR | 0666, node_rdev(node)))
		abort();
}

static int drop_to_user(uid_t uid)
{
	return setresgid(uid, uid, uid) || setresuid(uid, uid, uid);
}

/* ---- errnos of the system call ---------------------------------------- */

TEST(flags_einval)
{
	EXPECT_EQ(sys_revokeat(AT_FDCWD, RT_NODE, 0x1), -1);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(sys_revokeat(AT_FDCWD, RT_NODE, AT_REMOVEDIR), -1);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(sys_revokeat(AT_FDCWD, RT_NODE, ~0u), -1);
	EXPECT_EQ(errno, EINVAL);
}

TEST(lookup_errnos)
{
	char *longname;
	int fd;

	scratch();
	EXPECT_EQ(sys_revokeat(AT_FDCWD, SCRATCH "/missing", 0), -1);
	EXPECT_EQ(errno, ENOENT);
	EXPECT_EQ(sys_revokeat(AT_FDCWD, RT_NODE "/x", 0), -1);
	EXPECT_EQ(errno, ENOTDIR);

	ASSERT_EQ(symlink("b", SCRATCH "/a"), 0);
	ASSERT_EQ(symlink("a", SCRATCH "/b"), 0);
	EXPECT_EQ(sys_revokeat(AT_FDCWD, SCRATCH "/a", 0), -1);
	EXPECT_EQ(errno, ELOOP);

	longname = malloc(8192);
	ASSERT_NE(longname, NULL);
	memset(longname, 'x', 8191);
	longname[8191] = 0;
	EXPECT_EQ(sys_revokeat(AT_FDCWD, longname, 0), -1);
	EXPECT_EQ(errno, ENAMETOOLONG);
	free(longname);

	EXPECT_EQ(sys_revokeat(AT_FDCWD, (const char *)1, 0), -1);
	EXPECT_EQ(errno, EFAULT);

	/* A relative path needs a valid directory fd... */
	EXPECT_EQ(sys_revokeat(999, "revoke_test", 0), -1);
	EXPECT_EQ(errno, EBADF);
	EXPECT_EQ(sys_revokeat(-5, "", AT_EMPTY_PATH), -1);
	EXPECT_EQ(errno, EBADF);
	/* ...which must be a directory. */
	fd = open(RT_PLAIN, O_PATH);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(sys_revokeat(fd, "x", 0), -1);
	EXPECT_EQ(errno, ENOTDIR);
	/* An empty path without AT_EMPTY_PATH. */
	EXPECT_EQ(sys_revokeat(fd, "", 0), -1);
	EXPECT_EQ(errno, ENOENT);
	close(fd);
}

TEST(unsupported_types_eopnotsupp)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int sock;

	scratch();
	EXPECT_EQ(sys_revokeat(AT_FDCWD, SCRATCH, 0), -1);
	EXPECT_EQ(errno, EOPNOTSUPP);

	ASSERT_EQ(mkfifo(SCRATCH "/fifo", 0600), 0);
	EXPECT_EQ(sys_revokeat(AT_FDCWD, SCRATCH "/fifo", 0), -1);
	EXPECT_EQ(errno, EOPNOTSUPP);

	sock = socket(AF_UNIX, SOCK_STREAM, 0);
	ASSERT_GE(sock, 0);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", SCRATCH "/sock");
	ASSERT_EQ(bind(sock, (struct sockaddr *)&sun, sizeof(sun)), 0);
	EXPECT_EQ(sys_revokeat(AT_FDCWD, SCRATCH "/sock", 0), -1);
	EXPECT_EQ(errno, EOPNOTSUPP);
	close(sock);

	/* With AT_SYMLINK_NOFOLLOW, the symlink itself. */
	ASSERT_EQ(symlink(RT_NODE, SCRATCH "/link"), 0);
	EXPECT_EQ(sys_revokeat(AT_FDCWD, SCRATCH "/link", AT_SYMLINK_NOFOLLOW), -1);
	EXPECT_EQ(errno, EOPNOTSUPP);

	ASSERT_EQ(mknod(SCRATCH "/blk", S_IFBLK | 0600, makedev(7, 0)), 0);
	EXPECT_EQ(sys_revokeat(AT_FDCWD, SCRATCH "/blk", 0), -1);
	EXPECT_EQ(errno, EOPNOTSUPP);

	/* Regular files of a filesystem without FS_REVOCABLE (files_test). */
	EXPECT_EQ(sys_revokeat(AT_FDCWD, "/proc/version", 0), -1);
	EXPECT_EQ(errno, EOPNOTSUPP);

	/* Char drivers without ->revoke. */
	EXPECT_EQ(sys_revokeat(AT_FDCWD, RT_PLAIN, 0), -1);
	EXPECT_EQ(errno, EOPNOTSUPP);
	EXPECT_EQ(sys_revokeat(AT_FDCWD, "/dev/null", 0), -1);
	EXPECT_EQ(errno, EOPNOTSUPP);
}

TEST(no_driver_enxio)
{
	scratch();
	/* 60: reserved for local use, nobody registers it here. */
	ASSERT_EQ(mknod(SCRATCH "/nodrv", S_IFCHR | 0600, makedev(60, 0)), 0);
	EXPECT_EQ(sys_revokeat(AT_FDCWD, SCRATCH "/nodrv", 0), -1);
	EXPECT_EQ(errno, ENXIO);
}

/*
 * revokeat(@path) in a child running as @uid (root if 0) and, if
 * @drop_fowner, without CAP_FOWNER.  Returns the errno, 0 on success.
 */
static int revoke_in_child(const char *path, uid_t uid, bool drop_fowner)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (uid && drop_to_user(uid))
			_exit(255);
		if (drop_fowner) {
			if (syscall(SYS_capget, &hdr, data))
				_exit(255);
			data[0].effective &= ~(1u << CAP_FOWNER);
			if (syscall(SYS_capset, &hdr, data))
				_exit(255);
		}
		_exit(sys_revokeat(AT_FDCWD, path, 0) ? errno : 0);
	}
	return child_status(pid);
}

TEST(other_user_eperm)
{
	int fd;

	node_drain(RT_NODE);
	fd = open(RT_NODE, O_RDWR);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(revoke_in_child(RT_NODE, 1000, false), EPERM);
	/* Nothing happened to the file. */
	EXPECT_EQ(check_works(fd), 0);
	close(fd);
}

/* The owner of a node may revoke through it: here an alias node. */
TEST(owner_revokes_through_alias)
{
	int fd;

	scratch();
	node_drain(RT_NODE);
	make_alias(SCRATCH "/alias", RT_NODE);
	ASSERT_EQ(chown(SCRATCH "/alias", 1000, 1000), 0);
	fd = open(RT_NODE, O_RDWR);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(revoke_in_child(SCRATCH "/alias", 1000, false), 0);
	EXPECT_EQ(check_revoked(fd), 0);
	close(fd);
}

/* Root without CAP_FOWNER may not revoke what it does not own. */
TEST(cap_fowner_needed)
{
	scratch();
	make_alias(SCRATCH "/alias", RT_NODE);
	ASSERT_EQ(chown(SCRATCH "/alias", 1000, 1000), 0);
	EXPECT_EQ(revoke_in_child(SCRATCH "/alias", 0, true), EPERM);
	/* With it, it may. */
	EXPECT_EQ(revoke_in_child(SCRATCH "/alias", 0, false), 0);
}

TEST(symlink_is_followed)
{
	int fd;

	scratch();
	ASSERT_EQ(symlink(RT_NODE, SCRATCH "/link"), 0);
	fd = open(RT_NODE, O_RDWR);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(sys_revokeat(AT_FDCWD, SCRATCH "/link", 0), 0);
	EXPECT_EQ(check_revoked(fd), 0);
	close(fd);
}

TEST(empty_path_with_o_path_fd)
{
	int pfd, fd, dfd;

	pfd = open(RT_NODE, O_PATH);
	ASSERT_GE(pfd, 0);
	fd = open(RT_NODE, O_RDWR);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(sys_revokeat(pfd, "", AT_EMPTY_PATH), 0);
	EXPECT_EQ(check_revoked(fd), 0);
	close(fd);

	/* Relative to a directory fd. */
	dfd = open("/dev", O_DIRECTORY | O_RDONLY);
	ASSERT_GE(dfd, 0);
	fd = open(RT_NODE, O_RDWR);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(sys_revokeat(dfd, "revoke_test", 0), 0);
	EXPECT_EQ(check_revoked(fd), 0);
	close(fd);
	close(dfd);
	close(pfd);
}

TEST(nodev_mount_eacces)
{
	int fd;

	scratch();
	ASSERT_EQ(mkdir(SCRATCH "/nodev", 0755), 0);
	ASSERT_EQ(mount("tmpfs", SCRATCH "/nodev", "tmpfs", MS_NODEV, NULL), 0);
	make_alias(SCRATCH "/nodev/node", RT_NODE);
	fd = open(RT_NODE, O_RDWR);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(sys_revokeat(AT_FDCWD, SCRATCH "/nodev/node", 0), -1);
	EXPECT_EQ(errno, EACCES);
	EXPECT_EQ(check_works(fd), 0);
	close(fd);
	umount(SCRATCH "/nodev");
}

/* ---- guarantee 1: every file, whatever node or namespace -------------- */

/*
 * A child that opens @path (in a new mount namespace if @ns), reports over
 * @ready, waits for EOF on @go, then checks that its file is revoked.
 */
static pid_t spawn_holder(const char *path, bool ns, int ready, int go[2])
{
	pid_t pid = fork();
	char c = 'r';
	int fd = -1;

	if (pid)
		return pid;
	/* EOF on @go means go: keep no write end of it. */
	close(go[1]);
	if (ns) {
		/* A node in a tmpfs of another mount namespace. */
		if (unshare(CLONE_NEWNS))
			c = '1';
		else if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
			c = '2';
		else if (mount("tmpfs", SCRATCH "/ns", "tmpfs", 0, NULL))
			c = '3';
		else if (mknod(SCRATCH "/ns/node", S_IFCHR | 0600,
			       node_rdev(RT_NODE)))
			c = '4';
		path = SCRATCH "/ns/node";
	}
	if (c == 'r') {
		fd = open(path, O_RDWR);
		if (fd < 0)
			c = '5';
	}
	/* Tell the parent how it went, then wait for the revocation. */
	if (write(ready, &c, 1) != 1 || c != 'r')
		_exit(21);
	if (read(go[0], &c, 1) != 0)
		_exit(22);
	_exit(check_revoked(fd));
}

TEST(g1_all_files_all_nodes)
{
	int ready[2], go[2], fd, i, n = 0;
	pid_t pids[5];
	char c;

	scratch();
	node_drain(RT_NODE);
	ASSERT_EQ(mkdir(SCRATCH "/ns", 0755), 0);
	make_alias(SCRATCH "/alias", RT_NODE);
	ASSERT_EQ(close(open(SCRATCH "/bind", O_CREAT | O_RDWR, 0600)), 0);
	ASSERT_EQ(mount(RT_NODE, SCRATCH "/bind", NULL, MS_BIND, NULL), 0);
	ASSERT_EQ(pipe(ready), 0);
	ASSERT_EQ(pipe(go), 0);

	pids[n++] = spawn_holder(RT_NODE, false, ready[1], go);
	pids[n++] = spawn_holder(RT_NODE, false, ready[1], go);
	pids[n++] = spawn_holder(SCRATCH "/alias", false, ready[1], go);
	pids[n++] = spawn_holder(SCRATCH "/bind", false, ready[1], go);
	pids[n++] = spawn_holder(NULL, true, ready[1], go);
	close(go[0]);
	for (i = 0; i < n; i++) {
		ASSERT_EQ(read(ready[0], &c, 1), 1);
		EXPECT_EQ(c, 'r') TH_LOG("a holder failed at step %c: %s", c,
					 strerror(errno));
	}
	fd = open(RT_NODE, O_RDWR);
	ASSERT_GE(fd, 0);

	/* Through the alias node, to show the key is the device number. */
	EXPECT_EQ(sys_revokeat(AT_FDCWD, SCRATCH "/alias", 0), 0);
	EXPECT_EQ(check_revoked(fd), 0);
	close(go[1]);
	for (i = 0; i < n; i++)
		EXPECT_EQ(child_status(pids[i]), 0) TH_LOG("holder %d", i);
	close(fd);
	umount(SCRATCH "/bind");
}

TEST(g1_new_open_works_and_old_released)
{
	struct revoke_test_stats before, after;
	int fds[4], fd, i;

	node_drain(RT_NODE);
	ASSERT_EQ(node_stats(RT_NODE, &before), 0);
	for (i = 0; i < 4; i++) {
		fds[i] = open(RT_NODE, O_RDWR);
		ASSERT_GE(fds[i], 0);
	}
	ASSERT_EQ(sys_revokeat(AT_FDCWD, RT_NODE, 0), 0);

	/* Released at revoke time, not at close. */
	ASSERT_EQ(node_stats(RT_NODE, &after), 0);
	EXPECT_EQ(after.releases - before.releases, 4 + 1);
	EXPECT_EQ(after.revokes - before.revokes, 4);

	fd = open(RT_NODE, O_RDWR);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(check_works(fd), 0);
	for (i = 0; i < 4; i++) {
		EXPECT_EQ(check_revoked(fds[i]), 0);
		EXPECT_EQ(close(fds[i]), 0);
	}
	close(fd);
	/* Closing revoked files released nothing more. */
	ASSERT_EQ(node_stats(RT_NODE, &after), 0);
	EXPECT_EQ(after.releases - before.releases, 4 + 1 + 1 + 1);
	EXPECT_EQ(after.opens - before.opens, 4 + 1 + 1 + 1);
}

/* An exclusive resource is free for the next opener at once. */
TEST(early_release_frees_exclusive_owner)
{
	int old, busy, fresh;

	old = open(RT_NODE, O_RDWR);
	ASSERT_GE(old, 0);
	ASSERT_EQ(ioctl(old, REVOKE_TEST_IOC_OWN), 0);
	busy = open(RT_NODE, O_RDWR);
	ASSERT_GE(busy, 0);
	EXPECT_EQ(ioctl(busy, REVOKE_TEST_IOC_OWN), -1);
	EXPECT_EQ(errno, EBUSY);

	ASSERT_EQ(sys_revokeat(AT_FDCWD, RT_NODE, 0), 0);
	/* The old owner still holds its descriptor... */
	fresh = open(RT_NODE, O_RDWR);
	ASSERT_GE(fresh, 0);
	/* ...and the new opener gets the device. */
	EXPECT_EQ(ioctl(fresh, REVOKE_TEST_IOC_OWN), 0);
	close(fresh);
	close(busy);
	close(old);
}

/* ---- guarantee 2: fork and dup during the call -------------------------- */

/*
 * A child keeps duplicating and forking off holders of the file while the
 * parent revokes; once revokeat() has returned, every descriptor of every
 * holder is revoked.
 */
TEST(g2_fork_and_dup_racing)
{
	int go[2], stop[2], fd, status;
	pid_t child;

	node_drain(RT_NODE);
	fd = open(RT_NODE, O_RDWR);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(pipe(go), 0);
	ASSERT_EQ(pipe(stop), 0);
	ASSERT_EQ(fcntl(stop[0], F_SETFL, O_NONBLOCK), 0);

	child = fork();
	ASSERT_GE(child, 0);
	if (child == 0) {
		int holders = 0, bad = 0;
		char c;

		close(go[1]);
		while (read(stop[0], &c, 1) != 1 && holders < 200) {
			int dup_fd = dup(fd);
			pid_t h;

			if (dup_fd < 0)
				_exit(30);
			h = fork();
			if (h < 0)
				_exit(31);
			if (h == 0) {
				/* Wait until revokeat() has returned. */
				if (read(go[0], &c, 1) != 0)
					_exit(32);
				_exit(check_revoked(dup_fd) || check_revoked(fd));
			}
			holders++;
		}
		while (holders--) {
			if (wait(&status) < 0 || !WIFEXITED(status) ||
			    WEXITSTATUS(status))
				bad++;
		}
		_exit(bad ? 33 : 0);
	}
	close(go[0]);
	usleep(20000);
	ASSERT_EQ(sys_revokeat(AT_FDCWD, RT_NODE, 0), 0);
	EXPECT_EQ(write(stop[1], "s", 1), 1);
	close(go[1]);
	EXPECT_EQ(check_revoked(fd), 0);
	EXPECT_EQ(child_status(child), 0);
	close(fd);
}

/* ---- guarantee 3: SCM_RIGHTS -------------------------------------------- */

/* A file that only exists in an unread message is revoked too. */
TEST(g3_scm_rights_in_flight)
{
	struct revoke_test_stats before, after;
	int sv[2], fd, got;

	node_drain(RT_NODE);
	ASSERT_EQ(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
	ASSERT_EQ(node_stats(RT_NODE, &before), 0);
	fd = open(RT_NODE, O_RDWR);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(send_fd(sv[0], fd), 0);
	ASSERT_EQ(close(fd), 0);

	ASSERT_EQ(sys_revokeat(AT_FDCWD, RT_NODE, 0), 0);
	ASSERT_EQ(node_stats(RT_NODE, &after), 0);
	EXPECT_EQ(after.releases - before.releases, 1 + 1);

	got = recv_fd(sv[1]);
	ASSERT_GE(got, 0);
	EXPECT_EQ(check_revoked(got), 0);
	close(got);
	close(sv[0]);
	close(sv[1]);
}

TEST(g3_scm_rights_after)
{
	int sv[2], fd, got;

	ASSERT_EQ(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
	fd = open(RT_NODE, O_RDWR);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(sys_revokeat(AT_FDCWD, RT_NODE, 0), 0);
	ASSERT_EQ(send_fd(sv[0], fd), 0);
	got = recv_fd(sv[1]);
	ASSERT_GE(got, 0);
	EXPECT_EQ(check_revoked(got), 0);
	close(got);
	close(fd);
	close(sv[0]);
	close(sv[1]);
}

/* ---- guarantee 4: in-flight operations ---------------------------------- */

enum blocker { B_READ, B_WRITE, B_IOCTL, B_POLL, B_EPOLL, B_SELECT };

struct blocked {
	int fd;
	enum blocker how;
	int started;			/* atomic */
	int ret, err;
	unsigned int revents;
	double returned_at;
};

static void *blocker_fn(void *arg)
{
	struct blocked *b = arg;
	struct pollfd pfd = { .fd = b->fd, .events = POLLIN };
	struct epoll_event ev = { .events = EPOLLIN };
	char buf[64] = {};
	fd_set rfds;
	int ep;

	__atomic_store_n(&b->started, 1, __ATOMIC_RELEASE);
	switch (b->how) {
	case B_READ:
		b->ret = read(b->fd, buf, sizeof(buf));
		break;
	case B_WRITE:
		b->ret = write(b->fd, buf, sizeof(buf));
		break;
	case B_IOCTL:
		b->ret = ioctl(b->fd, REVOKE_TEST_IOC_SLEEP);
		break;
	case B_POLL:
		b->ret = poll(&pfd, 1, 60000);
		b->revents = pfd.revents;
		break;
	case B_EPOLL:
		ep = epoll_create1(0);
		epoll_ctl(ep, EPOLL_CTL_ADD, b->fd, &ev);
		b->ret = epoll_wait(ep, &ev, 1, 60000);
		b->revents = ev.events;
		close(ep);
		break;
	case B_SELECT:
		FD_ZERO(&rfds);
		FD_SET(b->fd, &rfds);
		b->ret = select(b->fd + 1, &rfds, NULL, NULL,
				&(struct timeval){ .tv_sec = 60 });
		b->revents = FD_ISSET(b->fd, &rfds);
		break;
	}
	b->err = errno;
	b->returned_at = now_sec();
	return NULL;
}

/* Block @n threads as @how, revoke, and check they all came back. */
static void run_blocked(struct __test_metadata *_metadata, enum blocker how,
			int expect_ret, int expect_err, unsigned int revents)
{
	struct revoke_test_stats before, after;
	struct blocked b[3];
	pthread_t t[3];
	double t0;
	int fd, i;
	char fill[REVOKE_TEST_FIFO_SIZE];

	node_drain(RT_NODE);
	fd = open(RT_NODE, O_RDWR);
	ASSERT_GE(fd, 0);
	if (how == B_WRITE) {
		/* A full FIFO makes writers block. */
		memset(fill, 0, sizeof(fill));
		ASSERT_EQ(write(fd, fill, sizeof(fill)), sizeof(fill));
	}
	for (i = 0; i < 3; i++) {
		b[i] = (struct blocked){ .fd = fd, .how = how };
		ASSERT_EQ(pthread_create(&t[i], NULL, blocker_fn, &b[i]), 0);
	}
	for (i = 0; i < 3; i++)
		while (!__atomic_load_n(&b[i].started, __ATOMIC_ACQUIRE))
			usleep(1000);
	/* Let them go to sleep in the kernel. */
	usleep(200000);
	for (i = 0; i < 3; i++)
		EXPECT_TRUE(b[i].returned_at == 0) TH_LOG("thread %d did not block", i);

	ASSERT_EQ(node_stats(RT_NODE, &before), 0);
	t0 = now_sec();
	ASSERT_EQ(sys_revokeat(AT_FDCWD, RT_NODE, 0), 0);
	/*
	 * revokeat() returned after the driver released the file, which it
	 * did after the sleepers left: the file's release, plus the close of
	 * the first stats file.
	 */
	ASSERT_EQ(node_stats(RT_NODE, &after), 0);
	EXPECT_EQ(after.releases - before.releases, 2);
	for (i = 0; i < 3; i++) {
		pthread_join(t[i], NULL);
		EXPECT_EQ(b[i].ret, expect_ret) TH_LOG("thread %d", i);
		if (expect_ret < 0)
			EXPECT_EQ(b[i].err, expect_err);
		if (revents)
			EXPECT_EQ(b[i].revents, revents);
		/* Promptly: not after some timeout. */
		EXPECT_TRUE(b[i].returned_at - t0 < 10.0);
	}
	EXPECT_EQ(check_revoked(fd), 0);
	close(fd);
	node_drain(RT_NODE);
}

TEST(g4_blocked_read)
{
	run_blocked(_metadata, B_READ, -1, ENXIO, 0);
}

TEST(g4_blocked_write)
{
	run_blocked(_metadata, B_WRITE, -1, ENXIO, 0);
}

TEST(g4_blocked_ioctl)
{
	run_blocked(_metadata, B_IOCTL, -1, ENXIO, 0);
}

TEST(g4_blocked_poll)
{
	run_blocked(_metadata, B_POLL, 1, 0, POLLERR | POLLHUP);
}

TEST(g4_blocked_epoll)
{
	run_blocked(_metadata, B_EPOLL, 1, 0, EPOLLERR | EPOLLHUP);
}

TEST(g4_blocked_select)
{
	run_blocked(_metadata, B_SELECT, 1, 0, 1);
}

TEST(g4_sigio_owner_signalled)
{
	struct sigaction sa = { .sa_handler = sigio_handler };
	int fd, other, i;

	node_drain(RT_NODE);
	ASSERT_EQ(sigaction(SIGIO, &sa, NULL), 0);
	fd = open(RT_NODE, O_RDWR);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(fcntl(fd, F_SETOWN, getpid()), 0);
	ASSERT_EQ(fcntl(fd, F_SETFL, O_ASYNC), 0);
	__atomic_store_n(&sigio_count, 0, __ATOMIC_RELAXED);
	ASSERT_EQ(sys_revokeat(AT_FDCWD, RT_NODE, 0), 0);
	for (i = 0; i < 100 && !sigios(); i++)
		usleep(10000);
	EXPECT_GT(sigios(), 0);
	/* The driver forgot the file: no signal for later events. */
	__atomic_store_n(&sigio_count, 0, __ATOMIC_RELAXED);
	other = open(RT_NODE, O_RDWR);
	ASSERT_GE(other, 0);
	EXPECT_EQ(check_works(other), 0);
	usleep(50000);
	EXPECT_EQ(sigios(), 0);
	close(other);
	close(fd);
}

/* ---- guarantee 5: mappings ---------------------------------------------- */

TEST(g5_shared_mapping_sigbus)
{
	struct revoke_test_stats st;
	unsigned int *map;
	unsigned int val = 0, magic = 0x5eed;
	int fd, go[2];
	pid_t child;
	char c;

	fd = open(RT_NODE, O_RDWR);
	ASSERT_GE(fd, 0);
	map = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(map, MAP_FAILED);
	ASSERT_EQ(ioctl(fd, REVOKE_TEST_IOC_POKE, &magic), 0);
	EXPECT_FALSE(read_sigbus(map, &val));
	EXPECT_EQ(val, magic);
	EXPECT_FALSE(write_sigbus(map + 1024, 7));

	/* A child that inherited the mapping. */
	ASSERT_EQ(pipe(go), 0);
	child = fork();
	ASSERT_GE(child, 0);
	if (child == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 0)
			_exit(40);
		_exit(read_sigbus(map, &val) && write_sigbus(map + 1024, 1) ?
		      0 : 41);
	}
	close(go[0]);

	ASSERT_EQ(sys_revokeat(AT_FDCWD, RT_NODE, 0), 0);
	EXPECT_TRUE(read_sigbus(map, &val));
	EXPECT_TRUE(write_sigbus(map + 1024, 8));
	/* Pages never come back. */
	EXPECT_TRUE(read_sigbus(map, &val));
	close(go[1]);
	EXPECT_EQ(child_status(child), 0);

	/* A new mapping on the old file fails. */
	EXPECT_EQ(mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0), MAP_FAILED);
	EXPECT_EQ(errno, ENXIO);
	EXPECT_EQ(munmap(map, 2 * 4096), 0);
	close(fd);
	ASSERT_EQ(node_stats(RT_NODE, &st), 0);
	EXPECT_EQ(st.vmas, 0);
}

/* The mapping alone keeps the file: still found and torn down. */
TEST(g5_mapping_outlives_descriptor)
{
	unsigned int *map;
	unsigned int val;
	int fd;

	fd = open(RT_NODE, O_RDWR);
	ASSERT_GE(fd, 0);
	map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(map, MAP_FAILED);
	close(fd);
	EXPECT_FALSE(read_sigbus(map, &val));
	ASSERT_EQ(sys_revokeat(AT_FDCWD, RT_NODE, 0), 0);
	EXPECT_TRUE(read_sigbus(map, &val));
	munmap(map, 4096);
}

/*
 * A page of the file's own that its driver keeps mapped after the revoke
 * (revoke_object_keep_mapped(), as ALSA's PCM status page): touched
 * before, it stays and reads what ->revoke left in it; first touched
 * after, it is a fresh page reading the same.  The device's pages go, and
 * the next opener gets a page of its own.
 */
TEST(g5_kept_page_reads_revoked)
{
	unsigned int *touched, *late, *data, *next_map;
	unsigned int val = 0;
	int fd, next;
	const off_t keep = REVOKE_TEST_KEEP_PGOFF * 4096;

	fd = open(RT_NODE, O_RDWR);
	ASSERT_GE(fd, 0);
	touched = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, keep);
	ASSERT_NE(touched, MAP_FAILED);
	late = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, keep);
	ASSERT_NE(late, MAP_FAILED);
	data = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(data, MAP_FAILED);
	EXPECT_FALSE(read_sigbus(touched, &val));
	EXPECT_EQ(val, REVOKE_TEST_KEEP_LIVE);
	EXPECT_FALSE(read_sigbus(data, &val));

	ASSERT_EQ(sys_revokeat(AT_FDCWD, RT_NODE, 0), 0);
	val = 0;
	EXPECT_FALSE(read_sigbus(touched, &val));
	EXPECT_EQ(val, REVOKE_TEST_KEEP_REVOKED);
	/* The old file's page, freed by nobody: writable as before. */
	EXPECT_FALSE(write_sigbus(touched + 1, 1));
	val = 0;
	EXPECT_FALSE(read_sigbus(late, &val));
	EXPECT_EQ(val, REVOKE_TEST_KEEP_REVOKED);
	EXPECT_TRUE(read_sigbus(data, &val));

	next = open(RT_NODE, O_RDWR);
	ASSERT_GE(next, 0);
	next_map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, next, keep);
	ASSERT_NE(next_map, MAP_FAILED);
	EXPECT_EQ(next_map[0], REVOKE_TEST_KEEP_LIVE);
	EXPECT_EQ(next_map[1], 0);
	munmap(next_map, 4096);
	munmap(data, 4096);
	munmap(late, 4096);
	munmap(touched, 4096);
	close(next);
	close(fd);
}

/* ---- guarantee 6: private mappings -------------------------------------- */

TEST(g6_private_mapping_refused)
{
	void *p;
	int fd;

	fd = open(RT_NODE, O_RDWR);
	ASSERT_GE(fd, 0);
	p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	EXPECT_EQ(p, MAP_FAILED);
	EXPECT_EQ(errno, EINVAL);
	close(fd);

	/* The same driver without revocation allows it. */
	fd = open(RT_PLAIN, O_RDWR);
	ASSERT_GE(fd, 0);
	p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	EXPECT_NE(p, MAP_FAILED);
	munmap(p, 4096);
	close(fd);
}

/* ---- concurrency -------------------------------------------------------- */

TEST(concurrent_revokes_all_succeed)
{
	struct blocked b = { .how = B_READ };
	pthread_t t;
	pid_t pids[3];
	int i;

	node_drain(RT_NODE);
	b.fd = open(RT_NODE, O_RDWR);
	ASSERT_GE(b.fd, 0);
	ASSERT_EQ(pthread_create(&t, NULL, blocker_fn, &b), 0);
	usleep(100000);
	for (i = 0; i < 3; i++) {
		pids[i] = fork();
		ASSERT_GE(pids[i], 0);
		if (pids[i] == 0)
			_exit(sys_revokeat(AT_FDCWD, RT_NODE, 0) ? 50 : 0);
	}
	EXPECT_EQ(sys_revokeat(AT_FDCWD, RT_NODE, 0), 0);
	for (i = 0; i < 3; i++)
		EXPECT_EQ(child_status(pids[i]), 0);
	pthread_join(t, NULL);
	EXPECT_EQ(b.ret, -1);
	EXPECT_EQ(b.err, ENXIO);
	close(b.fd);
}

/* Opens racing with revokes either fail with ENXIO or fully work. */
TEST(opens_racing_revokes)
{
	struct revoke_test_stats before, after;
	int stop[2], i;
	pid_t child;

	ASSERT_EQ(node_stats(RT_NODE, &before), 0);
	ASSERT_EQ(pipe(stop), 0);
	ASSERT_EQ(fcntl(stop[0], F_SETFL, O_NONBLOCK), 0);
	child = fork();
	ASSERT_GE(child, 0);
	if (child == 0) {
		char c;

		while (read(stop[0], &c, 1) != 1) {
			int fd = open(RT_NODE, O_RDWR | O_NONBLOCK);

			if (fd < 0) {
				if (errno != ENXIO)
					_exit(60);
				continue;
			}
			/* Working, or revoked meanwhile: nothing else. */
			if (ioctl(fd, REVOKE_TEST_IOC_NOP) && errno != ENXIO)
				_exit(61);
			close(fd);
		}
		_exit(0);
	}
	for (i = 0; i < 100; i++)
		ASSERT_EQ(sys_revokeat(AT_FDCWD, RT_NODE, 0), 0);
	EXPECT_EQ(write(stop[1], "s", 1), 1);
	EXPECT_EQ(child_status(child), 0);
	ASSERT_EQ(node_stats(RT_NODE, &after), 0);
	/* Every open was released exactly once (the stats file is open). */
	EXPECT_EQ(after.opens - after.releases, 1);
	TH_LOG("%u opens during 100 revokes", after.opens - before.opens);
}

TEST_HARNESS_MAIN
