// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmarks of revokeat(2) and of the revoke framework's hot path.
 *
 * Meant for a guest booted with -icount shift=0,sleep=off on one CPU, where
 * guest time counts executed instructions: figures are repeatable and
 * comparable across boots.  Each figure is the median of several rounds,
 * guarded and unguarded variants alternating.  Prints "BENCH" lines.
 * Also the cost of revoking a converted node (an evdev node, an ALSA
 * control node) as the number of its open files grows: the files'
 * releases must not each wait for their own RCU grace period.
 */

#include <stdlib.h>
#include <sys/resource.h>

#include "revoke_util.h"
#include "input_util.h"

#define ROUNDS 5

static int open_node(const char *node)
{
	int fd = open(node, O_RDWR);

	if (fd < 0) {
		perror(node);
		exit(1);
	}
	return fd;
}

/* ns per call of @op on a file of @node. */
static double per_call(const char *node, int op, long n)
{
	char c;
	double t0, t;
	long i;
	int fd = open_node(node);

	if (ioctl(fd, REVOKE_TEST_IOC_SOURCE))
		exit(2);
	t0 = now_sec();
	for (i = 0; i < n; i++) {
		switch (op) {
		case 0:
			if (read(fd, &c, 1) != 1)
				exit(3);
			break;
		case 1:
			if (ioctl(fd, REVOKE_TEST_IOC_NOP))
				exit(4);
			break;
		case 2:
			close(open_node(node));
			break;
		}
	}
	t = now_sec() - t0;
	close(fd);
	return t * 1e9 / n;
}

static void compare(const char *what, int op, long n)
{
	double g[ROUNDS], u[ROUNDS], mg, mu;
	int r;

	for (r = 0; r < ROUNDS; r++) {
		u[r] = per_call(RT_PLAIN, op, n);
		g[r] = per_call(RT_NODE, op, n);
	}
	mg = median(g, ROUNDS);
	mu = median(u, ROUNDS);
	printf("BENCH %-22s revocable %8.1f ns  plain %8.1f ns  ratio %.4f\n",
	       what, mg, mu, mg / mu);
}

/* ns for one revokeat() of @node while @nfiles files of it are open. */
static double revoke_cost(const char *node, int nfiles)
{
	double v[ROUNDS];
	int *fds = malloc(sizeof(int) * nfiles);
	int r, i;

	for (r = 0; r < ROUNDS; r++) {
		double t0;

		for (i = 0; i < nfiles; i++)
			fds[i] = open_node(node);
		t0 = now_sec();
		if (sys_revokeat(AT_FDCWD, node, 0)) {
			perror("revokeat");
			exit(5);
		}
		v[r] = (now_sec() - t0) * 1e9;
		for (i = 0; i < nfiles; i++)
			close(fds[i]);
	}
	free(fds);
	return median(v, ROUNDS);
}

static void node_revoke_costs(const char *what, const char *node)
{
	static const int n[] = { 1, 10, 100 };
	double c[3];
	int i;

	for (i = 0; i < 3; i++)
		c[i] = revoke_cost(node, n[i]);
	for (i = 0; i < 3; i++)
		printf("BENCH revokeat %-8s %3d files %10.0f ns  (%.2f x 1 file)\n",
		       what, n[i], c[i], c[i] / c[0]);
}

int main(void)
{
	struct udev kbd;
	struct rlimit rl = { 200000, 200000 };
	double c1, c100, c10k, c1busy;
	int *unrelated, i;

	/* The baseline boot has no revoke framework and no test device. */
	if (access(RT_NODE, F_OK))
		return 0;
	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		perror("setrlimit");
		return 1;
	}
	node_drain(RT_NODE);

	compare("read(1 byte)", 0, 100000);
	compare("ioctl(NOP)", 1, 100000);
	compare("open+close", 2, 20000);

	c1 = revoke_cost(RT_NODE, 1);
	c100 = revoke_cost(RT_NODE, 100);
	c10k = revoke_cost(RT_NODE, 10000);
	printf("BENCH revokeat 1 file          %10.0f ns\n", c1);
	printf("BENCH revokeat 100 files       %10.0f ns  (%.0f ns/file over 1)\n",
	       c100, (c100 - c1) / 99);
	printf("BENCH revokeat 10000 files     %10.0f ns  (%.0f ns/file over 1)\n",
	       c10k, (c10k - c1) / 9999);

	/* Unrelated open files elsewhere must not matter. */
	unrelated = malloc(sizeof(int) * 100000);
	for (i = 0; i < 100000; i++) {
		unrelated[i] = open("/dev/null", O_RDONLY);
		if (unrelated[i] < 0) {
			perror("/dev/null");
			return 1;
		}
	}
	c1busy = revoke_cost(RT_NODE, 1);
	printf("BENCH revokeat 1 file, 100000 unrelated open %10.0f ns  ratio %.4f\n",
	       c1busy, c1busy / c1);
	for (i = 0; i < 100000; i++)
		close(unrelated[i]);
	free(unrelated);

	if (udev_create(&kbd, "revoke-bench-kbd", CAP_KBD)) {
		perror("uinput");
		return 1;
	}
	node_revoke_costs("evdev", kbd.event);
	udev_destroy(&kbd);
	node_revoke_costs("snd-ctl", "/dev/snd/controlC0");
	return 0;
}
