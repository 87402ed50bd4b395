// SPDX-License-Identifier: GPL-2.0
/*
 * Regular files: what revokeat(2) support costs files that are never
 * revoked, and what a revoke costs.
 *
 * "NODE" lines (open+close, 1-byte read, 1-byte write on tmpfs) are
 * measured on the benchmark kernel and on the same kernel with
 * CONFIG_REVOKE off; the harness pairs them into ratios.  Both boots run
 * with -icount on one CPU, where guest time counts instructions.
 *
 * "BENCH" lines (revoke kernel only): revokeat(2) of a tmpfs file against
 * the number of its open files, and against its private mappings with and
 * without pages mapped: the copy-on-write broken at revoke time is paid per
 * mapped page, so a mapping whose pages are all mapped costs what the
 * seed's break-COW-everything approach costs for any mapping of its size;
 * up to fs.revoke_private_copy_pages pages, past which the cost is flat.
 */

#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "revoke_util.h"

#define ROUNDS	5
#define CALLS	50000
#define PAGE	4096
#define FILE	"/dev/shm/revoke-bench"

static void die(const char *what)
{
	perror(what);
	exit(1);
}

enum op { OPEN_CLOSE, READ1, WRITE1 };

static double op_ns(enum op op)
{
	double v[ROUNDS], t0;
	char c = 'x';
	int r, i, fd;

	fd = open(FILE, O_RDWR);
	if (fd < 0)
		die("open");
	for (r = 0; r < ROUNDS; r++) {
		t0 = now_sec();
		for (i = 0; i < CALLS; i++) {
			switch (op) {
			case OPEN_CLOSE:
				close(open(FILE, O_RDWR));
				break;
			case READ1:
				if (pread(fd, &c, 1, 0) != 1)
					die("pread");
				break;
			case WRITE1:
				if (pwrite(fd, &c, 1, 0) != 1)
					die("pwrite");
				break;
			}
		}
		v[r] = (now_sec() - t0) * 1e9 / CALLS;
	}
	close(fd);
	return median(v, ROUNDS);
}

static void new_file(size_t size)
{
	int fd;

	unlink(FILE);
	fd = open(FILE, O_RDWR | O_CREAT, 0600);
	if (fd < 0 || ftruncate(fd, size) || pwrite(fd, "x", 1, 0) != 1)
		die("new file");
	close(fd);
}

/*
 * CPU time of the calling thread: a revoke sleeps for an RCU grace period
 * (~12 ms under -icount, set by timer ticks), so its own work shows in the
 * CPU time it uses, not in the wall time.
 */
static double cpu_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct cost {
	double wall_us, cpu_us;
};

/* Time one revokeat() of FILE into round @r of @w and @c. */
static void time_revoke(double *w, double *c, int r)
{
	double t0 = now_sec(), c0 = cpu_sec();

	if (sys_revokeat(AT_FDCWD, FILE, 0))
		die("revokeat");
	c[r] = (cpu_sec() - c0) * 1e6;
	w[r] = (now_sec() - t0) * 1e6;
}

/* Microseconds per revokeat() of FILE with @nfiles open files. */
static struct cost revoke_files_us(int nfiles)
{
	double w[ROUNDS], c[ROUNDS];
	int *fds = calloc(nfiles, sizeof(int));
	int r, i;

	for (r = 0; r < ROUNDS; r++) {
		for (i = 0; i < nfiles; i++) {
			fds[i] = open(FILE, O_RDWR);
			if (fds[i] < 0)
				die("open");
		}
		time_revoke(w, c, r);
		for (i = 0; i < nfiles; i++)
			close(fds[i]);
	}
	free(fds);
	return (struct cost){ median(w, ROUNDS), median(c, ROUNDS) };
}

/* fs.revoke_private_copy_pages: the most pages one revoke copies. */
static long copy_bound(void)
{
	int fd = open("/proc/sys/fs/revoke_private_copy_pages", O_RDONLY);
	char buf[32] = "";

	if (fd < 0 || read(fd, buf, sizeof(buf) - 1) <= 0)
		die("fs.revoke_private_copy_pages");
	close(fd);
	return atol(buf);
}

/*
 * Microseconds per revokeat() of FILE with @nmaps private mappings of
 * @pages pages each, of which the first @touched are mapped (read).
 */
static struct cost revoke_maps_us(int nmaps, int pages, int touched)
{
	char **maps = calloc(nmaps, sizeof(char *));
	long mapped = (long)nmaps * touched, bound = copy_bound();
	double w[ROUNDS], c[ROUNDS];
	int r, i, p, fd;
	long sum = 0, kept;

	new_file((size_t)pages * PAGE);
	for (r = 0; r < ROUNDS; r++) {
		fd = open(FILE, O_RDONLY);
		if (fd < 0)
			die("open");
		for (i = 0; i < nmaps; i++) {
			maps[i] = mmap(NULL, (size_t)pages * PAGE, PROT_READ,
				       MAP_PRIVATE, fd, 0);
			if (maps[i] == MAP_FAILED)
				die("mmap");
			for (p = 0; p < touched; p++)
				sum += maps[i][(size_t)p * PAGE];
		}
		time_revoke(w, c, r);
		/* What was timed happened: the mapped pages were kept... */
		kept = 0;
		for (i = 0; i < nmaps; i++) {
			for (p = 0; p < touched; p++) {
				char *page = maps[i] + (size_t)p * PAGE;
				unsigned int val;

				if (read_sigbus((unsigned int *)page, &val))
					continue;
				if (p == 0 && (char)val != 'x')
					die("private copy changed");
				kept++;
			}
			munmap(maps[i], (size_t)pages * PAGE);
		}
		/* ...up to the bound. */
		if (kept != (mapped < bound ? mapped : bound))
			die("private copies");
		close(fd);
	}
	free(maps);
	if (sum != (touched ? (long)'x' * nmaps * ROUNDS : 0))
		die("mapped data");
	return (struct cost){ median(w, ROUNDS), median(c, ROUNDS) };
}

int main(void)
{
	static const int nfiles[] = { 1, 100, 10000 };
	static const int maps[][3] = {	/* maps, pages each, pages mapped */
		{ 1, 1, 1 }, { 1000, 1, 0 }, { 1000, 1, 1 },
		{ 1, 4096, 0 }, { 1, 4096, 1 }, { 1, 4096, 4096 },
		/* At the default bound (16384 pages), and 4 times past it. */
		{ 4, 4096, 4096 }, { 16, 4096, 4096 },
	};
	struct rlimit rl = { 20000, 20000 };
	int i;

	new_file(PAGE);
	printf("NODE tmpfs-open+close %.1f\n", op_ns(OPEN_CLOSE));
	printf("NODE tmpfs-read-1-byte %.1f\n", op_ns(READ1));
	printf("NODE tmpfs-write-1-byte %.1f\n", op_ns(WRITE1));

	if (sys_revokeat(AT_FDCWD, FILE, 0)) {
		/* The kernel without revoke, or a failure: nothing to time. */
		printf("BENCH regular files: revokeat: %s\n", strerror(errno));
		return 0;
	}
	if (setrlimit(RLIMIT_NOFILE, &rl))
		die("setrlimit");

	for (i = 0; i < 3; i++) {
		struct cost k = revoke_files_us(nfiles[i]);

		printf("BENCH revokeat tmpfs file, %5d open files        ", nfiles[i]);
		printf("wall %8.1f us  cpu %7.1f us\n", k.wall_us, k.cpu_us);
	}
	for (i = 0; i < 8; i++) {
		struct cost k = revoke_maps_us(maps[i][0], maps[i][1], maps[i][2]);

		printf("BENCH revokeat, %4d private maps of %4d pages, %4d mapped  ",
		       maps[i][0], maps[i][1], maps[i][2]);
		printf("wall %8.1f us  cpu %7.1f us\n", k.wall_us, k.cpu_us);
	}
	unlink(FILE);
	return 0;
}
