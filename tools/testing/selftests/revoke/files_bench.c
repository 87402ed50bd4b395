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
 * seed's break-COW-everything approach costs for any mapping of its size.
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

/* Microseconds per revokeat() of FILE with @nfiles open files. */
static double revoke_files_us(int nfiles)
{
	double v[ROUNDS], t0;
	int *fds = calloc(nfiles, sizeof(int));
	int r, i;

	for (r = 0; r < ROUNDS; r++) {
		for (i = 0; i < nfiles; i++) {
			fds[i] = open(FILE, O_RDWR);
			if (fds[i] < 0)
				die("open");
		}
		t0 = now_sec();
		if (sys_revokeat(AT_FDCWD, FILE, 0))
			die("revokeat");
		v[r] = (now_sec() - t0) * 1e6;
		for (i = 0; i < nfiles; i++)
			close(fds[i]);
	}
	free(fds);
	return median(v, ROUNDS);
}

/*
 * Microseconds per revokeat() of FILE with @nmaps private mappings of
 * @pages pages each, of which the first @touched are mapped (read).
 */
static double revoke_maps_us(int nmaps, int pages, int touched)
{
	char **maps = calloc(nmaps, sizeof(char *));
	double v[ROUNDS], t0;
	int r, i, p, fd;
	long sum = 0;

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
		t0 = now_sec();
		if (sys_revokeat(AT_FDCWD, FILE, 0))
			die("revokeat");
		v[r] = (now_sec() - t0) * 1e6;
		for (i = 0; i < nmaps; i++)
			munmap(maps[i], (size_t)pages * PAGE);
		close(fd);
	}
	free(maps);
	if (sum != (touched ? (long)'x' * nmaps * ROUNDS : 0))
		die("mapped data");
	return median(v, ROUNDS);
}

int main(void)
{
	struct rlimit rl = { 20000, 20000 };
	double base;

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

	base = revoke_files_us(1);
	printf("BENCH revokeat tmpfs file, 1 open file        %9.1f us\n", base);
	for (int n = 100; n <= 10000; n *= 100) {
		double us = revoke_files_us(n);

		printf("BENCH revokeat tmpfs file, %5d open files   %9.1f us  ratio %.4f\n",
		       n, us, us / base);
	}

	printf("BENCH revokeat, 1 private map, 1 page mapped      %9.1f us\n",
	       revoke_maps_us(1, 1, 1));
	printf("BENCH revokeat, 100 private maps, none mapped     %9.1f us\n",
	       revoke_maps_us(100, 1, 0));
	printf("BENCH revokeat, 100 private maps, 1 page mapped   %9.1f us\n",
	       revoke_maps_us(100, 1, 1));
	printf("BENCH revokeat, 1000 private maps, none mapped    %9.1f us\n",
	       revoke_maps_us(1000, 1, 0));
	printf("BENCH revokeat, 1000 private maps, 1 page mapped  %9.1f us\n",
	       revoke_maps_us(1000, 1, 1));
	printf("BENCH revokeat, 1 private map of 4096 pages, 1 mapped     %9.1f us\n",
	       revoke_maps_us(1, 4096, 1));
	printf("BENCH revokeat, 1 private map of 4096 pages, all mapped   %9.1f us\n",
	       revoke_maps_us(1, 4096, 4096));
	unlink(FILE);
	return 0;
}
