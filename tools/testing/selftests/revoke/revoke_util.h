/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the revokeat(2) selftests.
 */
#ifndef REVOKE_UTIL_H
#define REVOKE_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/revoke_test.h>

#ifndef __NR_revokeat
#define __NR_revokeat 463
#endif

#define RT_NODE		"/dev/revoke_test"
#define RT_PLAIN	"/dev/revoke_test_plain"

static inline int sys_revokeat(int dfd, const char *path, unsigned int flags)
{
	return syscall(__NR_revokeat, dfd, path, flags);
}

static inline double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Counters of a node, read through a fresh file. */
static inline int node_stats(const char *node, struct revoke_test_stats *st)
{
	int fd = open(node, O_RDWR);
	int ret;

	if (fd < 0)
		return -1;
	ret = ioctl(fd, REVOKE_TEST_IOC_STATS, st);
	close(fd);
	return ret;
}

/* Empty the node's FIFO, so that reads block. */
static inline void node_drain(const char *node)
{
	char buf[REVOKE_TEST_FIFO_SIZE];
	int fd = open(node, O_RDWR | O_NONBLOCK);

	if (fd < 0)
		return;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
}

/*
 * What a revoked device file must look like.  Returns 0, or the number of
 * the first check that failed (for a child's exit status).
 */
static inline int check_revoked(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN | POLLOUT };
	struct stat st;
	char c = 0;
	void *p;

	if (read(fd, &c, 1) != -1 || errno != ENXIO)
		return 1;
	if (write(fd, &c, 1) != -1 || errno != ENXIO)
		return 2;
	if (ioctl(fd, REVOKE_TEST_IOC_NOP) != -1 || errno != ENXIO)
		return 3;
	if (poll(&pfd, 1, 0) != 1 || pfd.revents != (POLLERR | POLLHUP))
		return 4;
	if (fstat(fd, &st) || !S_ISCHR(st.st_mode))
		return 5;
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (p != MAP_FAILED || errno != ENXIO)
		return 6;
	if (fcntl(fd, F_SETFL, O_ASYNC) != -1 || errno != ENXIO)
		return 7;
	return 0;
}

/* And a working one: one byte through the FIFO (which must be empty). */
static inline int check_works(int fd)
{
	char c = 'x';

	if (write(fd, &c, 1) != 1)
		return 1;
	c = 0;
	if (read(fd, &c, 1) != 1 || c != 'x')
		return 2;
	if (ioctl(fd, REVOKE_TEST_IOC_NOP))
		return 3;
	return 0;
}

/* Exit status of a child, or -1 if it did not exit normally. */
static inline int child_status(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Pass @fd over a unix socket, and take it out. */
static inline int send_fd(int sock, int fd)
{
	char buf[CMSG_SPACE(sizeof(int))] = {};
	struct iovec iov = { .iov_base = "f", .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = buf, .msg_controllen = sizeof(buf),
	};
	struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);

	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

static inline int recv_fd(int sock)
{
	char buf[CMSG_SPACE(sizeof(int))] = {};
	char c;
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = buf, .msg_controllen = sizeof(buf),
	};
	struct cmsghdr *cmsg;
	int fd;

	if (recvmsg(sock, &msg, 0) != 1)
		return -1;
	cmsg = CMSG_FIRSTHDR(&msg);
	if (!cmsg || cmsg->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cmsg), sizeof(int));
	return fd;
}

#endif /* REVOKE_UTIL_H */
