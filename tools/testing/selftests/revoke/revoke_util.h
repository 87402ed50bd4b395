/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the revokeat(2) selftests.
 */
#ifndef REVOKE_UTIL_H
#define REVOKE_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/loop.h>
#include <linux/userfaultfd.h>

/* The test device's ioctls: from the source tree, not from uapi. */
#include <drivers/revoke/revoke_test_uapi.h>

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

/* The median of @v[0..@n), sorting it. */
static inline double median(double *v, int n)
{
	int i, j;

	for (i = 1; i < n; i++)
		for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
			double t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return v[n / 2];
}

/* What poll() reports at once for @fd, or -1. */
static inline int poll_revents(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN | POLLOUT };

	if (poll(&pfd, 1, 0) < 0)
		return -1;
	return pfd.revents;
}

/*
 * What every revoked file does: poll() reports POLLERR | POLLHUP at once,
 * and fstat() works.  Returns 0, or 1 or 2 for the check that failed.
 */
static inline int check_hup_fstat(int fd, short events)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	struct stat st;

	if (poll(&pfd, 1, 0) != 1 || pfd.revents != (POLLERR | POLLHUP))
		return 1;
	if (fstat(fd, &st) || !S_ISCHR(st.st_mode))
		return 2;
	return 0;
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
	char c = 0;
	void *p;
	int ret;

	if (read(fd, &c, 1) != -1 || errno != ENXIO)
		return 1;
	if (write(fd, &c, 1) != -1 || errno != ENXIO)
		return 2;
	if (ioctl(fd, REVOKE_TEST_IOC_NOP) != -1 || errno != ENXIO)
		return 3;
	ret = check_hup_fstat(fd, POLLIN | POLLOUT);
	if (ret)
		return 3 + ret;
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

/*
 * In a child: run revoke(1) (tools/revoke/) with @args (NULL-terminated,
 * without argv[0]).  The one the selftests' Makefile builds next to the
 * test programs, else the one in PATH.  Never returns; 127 if no exec.
 */
static inline void revoke_exec(const char * const *args)
{
	const char *argv[64] = { "revoke" };
	char tool[4096];
	ssize_t n;
	char *slash;
	int i;

	for (i = 0; args[i] && i < 62; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;
	n = readlink("/proc/self/exe", tool, sizeof(tool) - sizeof("revoke"));
	slash = n > 0 ? memrchr(tool, '/', n) : NULL;
	if (slash) {
		memcpy(slash + 1, "revoke", sizeof("revoke"));
		if (!access(tool, X_OK))
			execv(tool, (char * const *)argv);
	}
	execvp("revoke", (char * const *)argv);
	_exit(127);
}

/*
 * Run revoke(1) on the NULL-terminated @paths, as a session manager's
 * script would: its messages go to our standard error.  Returns its exit
 * status, or -1.
 */
static inline int revoke_cmd(const char * const *paths)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid)
		revoke_exec(paths);
	return child_status(pid);
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

/* ---- SIGBUS -------------------------------------------------------------- */

static sigjmp_buf sigbus_jmp;

static inline void sigbus_handler(int sig)
{
	siglongjmp(sigbus_jmp, 1);
}

/* Load *@p into *@val, or store *@val there; true if that raised SIGBUS. */
static inline bool touch_sigbus(unsigned int *p, bool store, unsigned int *val)
{
	struct sigaction sa = { .sa_handler = sigbus_handler };
	struct sigaction old;
	bool bus = false;

	sigaction(SIGBUS, &sa, &old);
	if (sigsetjmp(sigbus_jmp, 1))
		bus = true;
	else if (store)
		__atomic_store_n(p, *val, __ATOMIC_RELAXED);
	else
		*val = __atomic_load_n(p, __ATOMIC_RELAXED);
	sigaction(SIGBUS, &old, NULL);
	return bus;
}

static inline bool read_sigbus(unsigned int *p, unsigned int *val)
{
	return touch_sigbus(p, false, val);
}

static inline bool write_sigbus(unsigned int *p, unsigned int val)
{
	return touch_sigbus(p, true, &val);
}

/* ---- a thread blocked in the kernel ------------------------------------ */

enum wait_how { W_READ, W_POLL, W_EPOLL };

struct waiter {
	pthread_t thread;
	int fd;
	enum wait_how how;
	size_t len;
	int started, returned;		/* atomic */
	ssize_t ret;
	int err;
	unsigned int revents;
};

static inline void *waiter_fn(void *arg)
{
	struct waiter *w = arg;
	struct pollfd pfd = { .fd = w->fd, .events = POLLIN };
	struct epoll_event ev = { .events = EPOLLIN };
	char buf[4096];
	int ep;

	__atomic_store_n(&w->started, 1, __ATOMIC_RELEASE);
	switch (w->how) {
	case W_READ:
		w->ret = read(w->fd, buf, w->len);
		break;
	case W_POLL:
		w->ret = poll(&pfd, 1, 30000);
		w->revents = pfd.revents;
		break;
	case W_EPOLL:
		ep = epoll_create1(0);
		epoll_ctl(ep, EPOLL_CTL_ADD, w->fd, &ev);
		w->ret = epoll_wait(ep, &ev, 1, 30000);
		w->revents = ev.events;
		close(ep);
		break;
	}
	w->err = errno;
	__atomic_store_n(&w->returned, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Start a thread that reads @len bytes of @fd, or polls it. */
static inline void waiter_start(struct waiter *w, int fd, enum wait_how how,
				size_t len)
{
	*w = (struct waiter){ .fd = fd, .how = how, .len = len };
	pthread_create(&w->thread, NULL, waiter_fn, w);
	while (!__atomic_load_n(&w->started, __ATOMIC_ACQUIRE))
		usleep(1000);
}

static inline bool waiter_sleeping(struct waiter *w)
{
	return !__atomic_load_n(&w->returned, __ATOMIC_ACQUIRE);
}

/* Wait (up to 10 s: promptly, not after a driver timeout) for @w. */
static inline bool waiter_returned(struct waiter *w)
{
	int i;

	for (i = 0; i < 1000 && waiter_sleeping(w); i++)
		usleep(10000);
	if (waiter_sleeping(w))
		return false;
	pthread_join(w->thread, NULL);
	return true;
}

/* In a kselftest test: @w came back from read() with -1 and errno @e. */
#define EXPECT_READ_FAILED(w, e) do {					\
	struct waiter *__w = (w);					\
									\
	ASSERT_TRUE(waiter_returned(__w));				\
	EXPECT_EQ(__w->ret, -1);					\
	EXPECT_EQ(__w->err, (e));					\
} while (0)

/* ...or from poll() or epoll_wait() with @mask. */
#define EXPECT_POLL_WOKE(w, mask) do {					\
	struct waiter *__w = (w);					\
									\
	ASSERT_TRUE(waiter_returned(__w));				\
	EXPECT_EQ(__w->ret, 1);						\
	EXPECT_EQ(__w->revents, (mask));				\
} while (0)

/* ---- SIGIO -------------------------------------------------------------- */

static int sigio_count;

static inline void sigio_handler(int sig)
{
	__atomic_fetch_add(&sigio_count, 1, __ATOMIC_RELAXED);
}

static inline int sigios(void)
{
	return __atomic_load_n(&sigio_count, __ATOMIC_RELAXED);
}

/* Catch SIGIO, make @fd signal us, and forget earlier signals. */
static inline int sigio_arm(int fd)
{
	struct sigaction sa = { .sa_handler = sigio_handler };

	if (sigaction(SIGIO, &sa, NULL) || fcntl(fd, F_SETOWN, getpid()) ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC))
		return -1;
	__atomic_store_n(&sigio_count, 0, __ATOMIC_RELAXED);
	return 0;
}

/* Wait up to a second for a SIGIO. */
static inline bool sigio_seen(void)
{
	int i;

	for (i = 0; i < 100 && !sigios(); i++)
		usleep(10000);
	return sigios() > 0;
}

/* Write @s to the file at @path (a sysctl, a cgroup file); 0 or -1. */
static inline int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

/* ---- a loop device ------------------------------------------------------ */

/* Attach @image to a free loop device; its open file, or -1. */
static inline int loop_attach(const char *image)
{
	char dev[32];
	int ctl, n, lfd, ifd;

	ctl = open("/dev/loop-control", O_RDWR);
	if (ctl < 0)
		return -1;
	n = ioctl(ctl, LOOP_CTL_GET_FREE);
	close(ctl);
	snprintf(dev, sizeof(dev), "/dev/loop%d", n);
	lfd = open(dev, O_RDWR);
	ifd = open(image, O_RDWR);
	if (n < 0 || lfd < 0 || ifd < 0 || ioctl(lfd, LOOP_SET_FD, ifd)) {
		close(ifd);
		close(lfd);
		return -1;
	}
	close(ifd);
	return lfd;
}

/* ---- hooks of the test device ----------------------------------------- */

/*
 * The hooks act on the driver as a whole; they are sent to the unrevocable
 * node, so that waiting for one is not an operation of the revocable node.
 */
static inline int rt_control(unsigned long cmd, void *arg)
{
	int fd = open(RT_PLAIN, O_RDWR);
	int ret;

	if (fd < 0)
		return -1;
	ret = ioctl(fd, cmd, arg);
	close(fd);
	return ret;
}

/* The next time the driver reaches @point it pauses @ms milliseconds. */
static inline int rt_arm(unsigned int point, unsigned int ms)
{
	struct revoke_test_hook hook = { .point = point, .delay_ms = ms };

	return rt_control(REVOKE_TEST_IOC_HOOK, &hook);
}

static inline int rt_set_mode(unsigned int mode)
{
	return rt_control(REVOKE_TEST_IOC_MODE, &mode);
}

/* The state letter of /proc/@pid/stat ('R', 'S', 'D', 'Z'...), or 0. */
static inline char proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

/* Wait up to @ms for @pid to be in state @state. */
static inline bool wait_state(pid_t pid, char state, int ms)
{
	int i;

	for (i = 0; i < ms / 10; i++) {
		if (proc_state(pid) == state)
			return true;
		usleep(10000);
	}
	return proc_state(pid) == state;
}

/* Reap @pid if it exits within @ms; its exit status, -1, or -2 if not. */
static inline int reap_within(pid_t pid, int ms)
{
	int i, status;

	for (i = 0; i <= ms / 10; i++) {
		pid_t ret = waitpid(pid, &status, WNOHANG);

		if (ret == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
		if (ret < 0)
			return -1;
		usleep(10000);
	}
	return -2;
}

/* ---- an operation that stalls for as long as we like -------------------- */

struct stuck {
	pid_t pid;		/* the task stuck in the operation */
	int uffd;		/* its userfaultfd, which nobody answers */
	unsigned long addr;	/* the page the operation copies to or from */
	int fd;			/* the file, for the caller */
};

/*
 * Make a child run REVOKE_TEST_IOC_STATS on @fd (a test device file) with
 * its buffer in a page that faults into a userfaultfd whose events nobody
 * answers: the ioctl stalls inside the driver, as one whose buffer is a
 * file of an unanswering FUSE server would.  Returns 0 once the child
 * sleeps in the fault.
 */
static inline int stuck_start(struct stuck *s, int fd)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = {
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};
	struct uffd_msg msg;
	struct pollfd pfd;
	int sock[2];
	void *addr;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sock))
		return -1;
	s->pid = fork();
	if (s->pid < 0)
		return -1;
	if (s->pid == 0) {
		int uffd = syscall(__NR_userfaultfd, O_CLOEXEC);
		long ret;

		addr = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		reg.range.start = (unsigned long)addr;
		reg.range.len = 4096;
		if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api) ||
		    ioctl(uffd, UFFDIO_REGISTER, &reg) ||
		    send_fd(sock[1], uffd) ||
		    write(sock[1], &reg.range.start, sizeof(long)) != sizeof(long))
			_exit(30);
		ret = ioctl(fd, REVOKE_TEST_IOC_STATS, addr);
		_exit(ret ? 31 : 0);
	}
	s->uffd = recv_fd(sock[0]);
	if (s->uffd < 0 ||
	    read(sock[0], &s->addr, sizeof(long)) != sizeof(long))
		return -1;
	close(sock[0]);
	close(sock[1]);
	/* The fault is there when its event is. */
	pfd = (struct pollfd){ .fd = s->uffd, .events = POLLIN };
	if (poll(&pfd, 1, 5000) != 1 ||
	    read(s->uffd, &msg, sizeof(msg)) != sizeof(msg) ||
	    msg.event != UFFD_EVENT_PAGEFAULT)
		return -1;
	return 0;
}

/* Answer the fault: the operation completes.  The child's exit status. */
static inline int stuck_finish(struct stuck *s)
{
	struct uffdio_zeropage zero = {
		.range = { .start = s->addr, .len = 4096 },
	};
	int ret;

	if (ioctl(s->uffd, UFFDIO_ZEROPAGE, &zero) && errno != EEXIST)
		return -1;
	ret = reap_within(s->pid, 10000);
	close(s->uffd);
	close(s->fd);
	return ret;
}

#endif /* REVOKE_UTIL_H */
