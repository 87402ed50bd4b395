// SPDX-License-Identifier: GPL-2.0
/*
 * Races of revokeat(2) with operations of the test device, made
 * deterministic: the driver pauses at a chosen point of a method
 * (REVOKE_TEST_IOC_HOOK), and a revoker waiting for that pause revokes
 * exactly then.  Where the window is after the method returned (an mmap
 * not yet linked, a fault not yet mapped), the revoker is SCHED_FIFO on
 * the same CPU as the task in the method, with preempt=full: on a kernel
 * whose gate wakes the revoker when the method leaves the driver, it runs
 * at once, ahead of the rest of that task's system call (that is how
 * these tests failed before); the gate now polls instead, and the window
 * after ->mmap is covered deterministically by the KUnit case
 * revoke_test_mmap_being_linked.  Other windows are held open by a
 * userfaultfd that nobody answers.
 */

#include <linux/userfaultfd.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/sysmacros.h>

#include "../kselftest_harness.h"
#include "revoke_util.h"

#define SCRATCH "/tmp/races"

static int pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/*
 * A revoker: SCHED_FIFO, on the caller's CPU (pin it first).  It says 'w'
 * on @report, waits for the driver's pause, revokes the node and reports
 * the errno of revokeat() as one byte.  Being of higher priority on the
 * same CPU, it only lets the caller go on once it sleeps in the wait: when
 * the caller reads the 'w', the revoker is ready.
 */
static pid_t spawn_revoker(int report)
{
	struct sched_param sp = { .sched_priority = 50 };
	pid_t pid = fork();
	int ctl;
	char c;

	if (pid)
		return pid;
	/* Hold nothing of the test's: its closes must be the last ones. */
	for (ctl = 3; ctl < 1024; ctl++)
		if (ctl != report)
			close(ctl);
	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		_exit(10);
	ctl = open(RT_PLAIN, O_RDWR);
	if (ctl < 0)
		_exit(11);
	if (write(report, "w", 1) != 1)
		_exit(12);
	if (ioctl(ctl, REVOKE_TEST_IOC_HOOK_WAIT))
		_exit(13);
	c = sys_revokeat(AT_FDCWD, RT_NODE, 0) ? errno : 0;
	if (write(report, &c, 1) != 1)
		_exit(14);
	_exit(0);
}

/* Start a revoker for the pause armed at @point, @ms long. */
static pid_t start_revoker(int report[2], unsigned int point, unsigned int ms)
{
	pid_t pid;
	char c;

	if (pin_cpu0() || pipe(report) || rt_arm(point, ms))
		return -1;
	pid = spawn_revoker(report[1]);
	/* A revoker that dies must not leave us reading forever. */
	close(report[1]);
	if (pid < 0 || read(report[0], &c, 1) != 1 || c != 'w')
		return -1;
	return pid;
}

/* The errno of the revoker's revokeat() (0 for success), or -1. */
static int revoker_result(int report[2], pid_t pid)
{
	char c;

	if (read(report[0], &c, 1) != 1)
		return -1;
	if (child_status(pid))
		return -1;
	close(report[0]);
	return c;
}

static unsigned int node_early(void)
{
	struct revoke_test_stats st;

	if (node_stats(RT_NODE, &st))
		return ~0u;
	return st.early;
}

/*
 * A revoke while an mmap() is between the driver's ->mmap, which mapped a
 * page of the file's own (remap_pfn_range(), as ALSA's PCM does), and the
 * linking of the new mapping into the file's address space.  The revoke
 * must tear that mapping down too: ->release frees the page.
 */
TEST(mmap_being_linked_is_torn_down)
{
	int report[2], fd;
	unsigned int val;
	void *p;
	pid_t pid;

	ASSERT_EQ(rt_set_mode(REVOKE_TEST_MODE_PREFAULT), 0);
	fd = open(RT_NODE, O_RDWR);
	ASSERT_EQ(rt_set_mode(0), 0);
	ASSERT_GE(fd, 0);
	pid = start_revoker(report, REVOKE_TEST_HOOK_MMAP, 200);
	ASSERT_GT(pid, 0);

	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_EQ(revoker_result(report, pid), 0);
	if (p == MAP_FAILED) {
		EXPECT_EQ(errno, ENXIO);
	} else {
		/* Never write a page that may be back in the allocator. */
		if (read_sigbus(p, &val)) {
			EXPECT_TRUE(write_sigbus(p, 1));
		} else {
			EXPECT_TRUE(false)
				TH_LOG("read %#x from a page the revoke freed",
				       val);
		}
		munmap(p, 4096);
	}
	close(fd);
	EXPECT_EQ(node_early(), 0);
}

/*
 * A revoke while a fault is between the driver's ->fault, which returned
 * a page, and finish_fault(), which maps it: the page must not be mapped
 * after revokeat() returned.  The next user's data is in it.
 */
TEST(fault_being_finished_maps_nothing)
{
	unsigned int val = 0, magic = 0xfeed;
	int report[2], fd, next;
	unsigned int *p;
	pid_t pid;

	fd = open(RT_NODE, O_RDWR);
	ASSERT_GE(fd, 0);
	p = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(p, MAP_FAILED);
	pid = start_revoker(report, REVOKE_TEST_HOOK_FAULT, 200);
	ASSERT_GT(pid, 0);

	/* The fault the revoke races with: either outcome is right. */
	read_sigbus(p, &val);
	ASSERT_EQ(revoker_result(report, pid), 0);

	next = open(RT_NODE, O_RDWR);
	ASSERT_GE(next, 0);
	ASSERT_EQ(ioctl(next, REVOKE_TEST_IOC_POKE, &magic), 0);
	val = 0;
	EXPECT_TRUE(read_sigbus(p, &val)) TH_LOG("read %#x after the revoke", val);
	munmap(p, 2 * 4096);
	close(next);
	close(fd);
}

/*
 * The same race on a page the revoke keeps mapped (as ALSA's PCM status
 * page, which alsa-lib may first touch while a revoke runs): the fault
 * must not end in SIGBUS, and the page reads as revoked.
 */
TEST(kept_fault_being_finished_reads_revoked)
{
	unsigned int val = 0;
	int report[2], fd;
	unsigned int *p;
	pid_t pid;

	fd = open(RT_NODE, O_RDWR);
	ASSERT_GE(fd, 0);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd,
		 REVOKE_TEST_KEEP_PGOFF * 4096);
	ASSERT_NE(p, MAP_FAILED);
	pid = start_revoker(report, REVOKE_TEST_HOOK_FAULT, 200);
	ASSERT_GT(pid, 0);

	/* Paused in ->fault with the page; the revoke marks meanwhile. */
	EXPECT_FALSE(read_sigbus(p, &val));
	ASSERT_EQ(revoker_result(report, pid), 0);
	EXPECT_EQ(val, REVOKE_TEST_KEEP_REVOKED);
	munmap(p, 4096);
	close(fd);
}

/*
 * A revoke while __fput() of the last reference is inside the driver's
 * ->fasync(-1): the file has no reference left for the revoke to hold,
 * but its release must still wait for that call to return.
 */
TEST(final_fasync_is_drained)
{
	int report[2], fd;
	pid_t pid;

	signal(SIGIO, SIG_IGN);
	fd = open(RT_NODE, O_RDWR);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(fcntl(fd, F_SETOWN, getpid()), 0);
	ASSERT_EQ(fcntl(fd, F_SETFL, O_ASYNC), 0);
	pid = start_revoker(report, REVOKE_TEST_HOOK_FASYNC, 200);
	ASSERT_GT(pid, 0);

	/* __fput() runs before close() returns: it pauses in ->fasync. */
	close(fd);
	ASSERT_EQ(revoker_result(report, pid), 0);
	EXPECT_EQ(node_early(), 0);
}

/* ---- an operation that never ends ------------------------------------- */

/*
 * Put a task in an operation of the driver for as long as we like: its
 * ioctl copies to a page that faults into a userfaultfd nobody answers
 * (stuck_start() in revoke_util.h), as another user's FUSE-backed buffer
 * would.  (The copy is made without the driver's lock: one held there
 * would stall the driver's other files for reasons of its own.)  The file
 * owns the node first (REVOKE_TEST_IOC_OWN), so that its release can be
 * seen.
 */
static int stuck_in_driver(struct stuck *s)
{
	s->fd = open(RT_NODE, O_RDWR);
	if (s->fd < 0 || ioctl(s->fd, REVOKE_TEST_IOC_OWN))
		return -1;
	return stuck_start(s, s->fd);
}

#define HUNG_TASK_TIMEOUT "/proc/sys/kernel/hung_task_timeout_secs"

/* Set the hung-task timeout to @secs; its old value goes to @old. */
static int hung_task_timeout(const char *secs, char *old, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(HUNG_TASK_TIMEOUT, O_RDWR);
	if (fd < 0)
		return -1;
	if (old) {
		n = read(fd, old, len - 1);
		old[n > 0 ? n : 0] = 0;
	}
	n = pwrite(fd, secs, strlen(secs), 0);
	close(fd);
	return n == (ssize_t)strlen(secs) ? 0 : -1;
}

static pid_t spawn_revokeat(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(sys_revokeat(AT_FDCWD, RT_NODE, 0) ? errno : 0);
	return pid;
}

/*
 * revokeat() waits for the read, which waits for a fault nobody answers.
 * The revoker can be killed; a later call waits for the same cycle and
 * completes it once the read returns; the owner's release ran then.
 */
TEST(stuck_operation_revoker_killable)
{
	char old_timeout[16] = "";
	struct stuck s;
	pid_t pid, again;
	int fd;

	ASSERT_EQ(stuck_in_driver(&s), 0);
	pid = spawn_revokeat();
	ASSERT_GT(pid, 0);
	/* Asleep in the drain (a killable sleep shows as D too)... */
	EXPECT_TRUE(wait_state(pid, 'D', 5000));
	/* ...for longer than the hung-task detector allows: no report. */
	if (access(HUNG_TASK_TIMEOUT, W_OK) == 0) {
		EXPECT_EQ(hung_task_timeout("2", old_timeout,
					    sizeof(old_timeout)), 0);
		sleep(5);
	}
	EXPECT_EQ(kill(pid, SIGKILL), 0);
	EXPECT_EQ(reap_within(pid, 3000), -1) TH_LOG("revoker not killed");

	/* The files stay revoked meanwhile. */
	EXPECT_EQ(check_revoked(s.fd), 0);

	/* A later revoke waits for the cycle (now in a work item)... */
	again = spawn_revokeat();
	ASSERT_GT(again, 0);
	EXPECT_EQ(reap_within(again, 300), -2);
	if (old_timeout[0]) {
		sleep(5);
		EXPECT_EQ(hung_task_timeout(old_timeout, NULL, 0), 0);
	}

	/* ...which it does once the read returns. */
	EXPECT_EQ(stuck_finish(&s), 0);
	EXPECT_EQ(reap_within(again, 10000), 0);
	if (reap_within(pid, 10000) == -2)
		kill(pid, SIGKILL);

	/* The owner was released: the node is the next opener's. */
	fd = open(RT_NODE, O_RDWR);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(ioctl(fd, REVOKE_TEST_IOC_OWN), 0);
	EXPECT_EQ(check_works(fd), 0);
	close(fd);
	EXPECT_EQ(node_early(), 0);
}

/*
 * While a revoke waits for a stuck operation, the close() of another file
 * of the device, which was already closing when the revoke came, must not
 * wait for it: nothing of that file is running any more.
 */
TEST(stuck_operation_close_not_held)
{
	int ctl_go[2], ready[2];
	struct stuck s;
	pid_t closer, rev;
	char c;

	ASSERT_EQ(stuck_in_driver(&s), 0);
	ASSERT_EQ(pipe(ctl_go), 0);
	ASSERT_EQ(pipe(ready), 0);
	closer = fork();
	ASSERT_GE(closer, 0);
	if (closer == 0) {
		int fd = open(RT_NODE, O_RDWR);

		signal(SIGIO, SIG_IGN);
		if (fd < 0 || fcntl(fd, F_SETOWN, getpid()) ||
		    fcntl(fd, F_SETFL, O_ASYNC) || write(ready[1], "r", 1) != 1 ||
		    read(ctl_go[0], &c, 1) != 1)
			_exit(40);
		/* Its ->fasync(-1) pauses: the revoke comes meanwhile. */
		close(fd);
		_exit(0);
	}
	ASSERT_EQ(read(ready[0], &c, 1), 1);
	ASSERT_EQ(rt_arm(REVOKE_TEST_HOOK_FASYNC, 300), 0);
	ASSERT_EQ(write(ctl_go[1], "g", 1), 1);
	ASSERT_EQ(rt_control(REVOKE_TEST_IOC_HOOK_WAIT, NULL), 0);
	rev = spawn_revokeat();
	ASSERT_GT(rev, 0);

	EXPECT_EQ(reap_within(closer, 5000), 0) TH_LOG("close() held up");

	EXPECT_EQ(stuck_finish(&s), 0);
	EXPECT_EQ(reap_within(rev, 10000), 0);
	if (reap_within(closer, 10000) == -2)
		kill(closer, SIGKILL);
	EXPECT_EQ(node_early(), 0);
}

/* ---- the open that passed its permission check before the revoke ------ */

/* A user's open of @path in a child: 'L'ive, 'R'evoked, or an errno. */
static pid_t spawn_user_open(const char *path, int res)
{
	pid_t pid = fork();
	char c;
	int fd;

	if (pid)
		return pid;
	if (setresgid(1000, 1000, 1000) || setresuid(1000, 1000, 1000))
		_exit(50);
	fd = open(path, O_RDWR);
	if (fd < 0)
		c = errno;
	else if (ioctl(fd, REVOKE_TEST_IOC_NOP) == 0)
		c = 'L';
	else
		c = errno == ENXIO ? 'R' : 'e';
	_exit(write(res, &c, 1) == 1 ? 0 : 51);
}

/*
 * A session manager takes a node away from a user: chmod, then revokeat().
 * The user's open passed its permission check before the chmod and then
 * slept; it must not give a live file.  Here it sleeps waiting for the end
 * of a revoke cycle that was already running (it waits for a stuck
 * operation), which the manager's revokeat() joins.
 */
TEST(open_checked_before_revoke_gets_no_live_file)
{
	pid_t first, opener, manager;
	int res[2], fd;
	struct stuck s;
	struct stat st;
	char c;

	if (system("rm -rf " SCRATCH) || mkdir(SCRATCH, 0755))
		abort();
	ASSERT_EQ(stat(RT_NODE, &st), 0);
	ASSERT_EQ(mknod(SCRATCH "/node", S_IFCHR | 0600, st.st_rdev), 0);
	ASSERT_EQ(chmod(SCRATCH "/node", 0666), 0);
	ASSERT_EQ(pipe(res), 0);

	/* A cycle that runs for as long as we like. */
	ASSERT_EQ(stuck_in_driver(&s), 0);
	first = spawn_revokeat();
	ASSERT_GT(first, 0);
	EXPECT_TRUE(wait_state(first, 'D', 5000));

	/* The user's open passes may_open() and waits for the cycle. */
	opener = spawn_user_open(SCRATCH "/node", res[1]);
	ASSERT_GT(opener, 0);
	EXPECT_TRUE(wait_state(opener, 'D', 5000));

	/* The manager takes the node away. */
	ASSERT_EQ(chmod(SCRATCH "/node", 0600), 0);
	manager = spawn_revokeat();
	ASSERT_GT(manager, 0);
	/* It waits for the cycle to end, which it joined. */
	EXPECT_TRUE(wait_state(manager, 'D', 5000));

	EXPECT_EQ(stuck_finish(&s), 0);
	EXPECT_EQ(reap_within(first, 10000), 0);
	EXPECT_EQ(reap_within(manager, 10000), 0);
	ASSERT_EQ(read(res[0], &c, 1), 1);
	EXPECT_NE(c, 'L') TH_LOG("the open returned a live file");
	EXPECT_EQ(c, ENXIO) TH_LOG("the open gave '%c' (%d)", c, c);
	EXPECT_EQ(reap_within(opener, 5000), 0);

	/* The user cannot open it any more; root can. */
	opener = spawn_user_open(SCRATCH "/node", res[1]);
	ASSERT_EQ(read(res[0], &c, 1), 1);
	EXPECT_EQ(c, EACCES);
	EXPECT_EQ(reap_within(opener, 5000), 0);
	fd = open(SCRATCH "/node", O_RDWR);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(check_works(fd), 0);
	close(fd);
	unlink(SCRATCH "/node");
}

struct open_racer {
	pthread_t thread;
	int stop;		/* atomic */
	int fds[256];
	int n;
};

static void *open_racer_fn(void *arg)
{
	struct open_racer *r = arg;

	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE) && r->n < 256) {
		int fd = open(SCRATCH "/node", O_RDWR);

		if (fd >= 0)
			r->fds[r->n++] = fd;
		else
			sched_yield();
	}
	return NULL;
}

/*
 * The same as a plain race, bounded: a user's threads open in a loop
 * while the manager, on the same CPU with preempt=full, chmods and
 * revokes.  After each revokeat(), every file the user holds is revoked.
 */
TEST(open_race_with_chmod_and_revoke)
{
	int round, bad = 0, live = 0, res[2];
	struct stat st;
	pid_t user;
	char c;

	if (system("rm -rf " SCRATCH) || mkdir(SCRATCH, 0755))
		abort();
	ASSERT_EQ(stat(RT_NODE, &st), 0);
	ASSERT_EQ(mknod(SCRATCH "/node", S_IFCHR | 0600, st.st_rdev), 0);
	ASSERT_EQ(pin_cpu0(), 0);
	ASSERT_EQ(pipe(res), 0);

	for (round = 0; round < 40; round++) {
		int go[2];

		ASSERT_EQ(chmod(SCRATCH "/node", 0666), 0);
		ASSERT_EQ(pipe(go), 0);
		user = fork();
		ASSERT_GE(user, 0);
		if (user == 0) {
			struct open_racer r[2] = {};
			int i, j, n = 0;

			if (setresgid(1000, 1000, 1000) ||
			    setresuid(1000, 1000, 1000))
				_exit(50);
			for (i = 0; i < 2; i++)
				pthread_create(&r[i].thread, NULL, open_racer_fn,
					       &r[i]);
			/* The manager says when its revokeat() returned. */
			if (read(go[0], &c, 1) != 1)
				_exit(51);
			for (i = 0; i < 2; i++) {
				__atomic_store_n(&r[i].stop, 1, __ATOMIC_RELEASE);
				pthread_join(r[i].thread, NULL);
			}
			for (i = 0; i < 2; i++)
				for (j = 0; j < r[i].n; j++)
					if (ioctl(r[i].fds[j], REVOKE_TEST_IOC_NOP) == 0)
						n++;
			c = n;
			_exit(write(res[1], &c, 1) == 1 ? 0 : 52);
		}
		close(go[0]);
		usleep(1000 * (round % 7));
		ASSERT_EQ(chmod(SCRATCH "/node", 0600), 0);
		ASSERT_EQ(sys_revokeat(AT_FDCWD, SCRATCH "/node", 0), 0);
		ASSERT_EQ(write(go[1], "g", 1), 1);
		close(go[1]);
		ASSERT_EQ(read(res[0], &c, 1), 1);
		live += c;
		bad += c != 0;
		ASSERT_EQ(reap_within(user, 10000), 0);
	}
	EXPECT_EQ(bad, 0) TH_LOG("%d live files in %d rounds", live, bad);
	unlink(SCRATCH "/node");
}

TEST_HARNESS_MAIN
