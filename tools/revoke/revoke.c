// SPDX-License-Identifier: GPL-2.0
/*
 * revoke(1): revokeat(2) from the command line, for session managers'
 * scripts and for people: take every open file of each PATH away from the
 * processes that hold it.  Errors are reported as "revoke: PATH: message",
 * the way util-linux tools do, and do not stop the remaining paths; the
 * exit status is 0 if every path was revoked, 1 otherwise.
 */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

/* The same number on every architecture that has it (asm-generic too). */
#ifndef __NR_revokeat
#define __NR_revokeat 463
#endif

#define REVOKE_VERSION "1.0"

static void usage(FILE *out, const char *prog)
{
	fprintf(out,
		"Usage:\n"
		" %s [options] <path>...\n"
		"\n"
		"Revoke every open file of each <path>: the processes that hold\n"
		"it lose access, and the next opener has the object to itself.\n"
		"\n"
		"Options:\n"
		" -n, --no-follow  do not follow a symbolic link at the end of <path>\n"
		" -h, --help       display this help\n"
		" -V, --version    display version\n"
		"\n"
		"For more details see revoke(1) and revokeat(2).\n", prog);
}

static int try_help(const char *prog, const char *msg)
{
	if (msg)
		fprintf(stderr, "%s: %s\n", prog, msg);
	fprintf(stderr, "Try '%s --help' for more information.\n", prog);
	return EXIT_FAILURE;
}

int main(int argc, char **argv)
{
	/* As getopt_long() names the program in its messages. */
	const char *prog = program_invocation_short_name;
	static const struct option longopts[] = {
		{ "no-follow", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int flags = 0;
	int c, i, status = EXIT_SUCCESS;

	/* getopt prints its own "unrecognized option" line. */
	while ((c = getopt_long(argc, argv, "nhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			flags |= AT_SYMLINK_NOFOLLOW;
			break;
		case 'h':
			usage(stdout, prog);
			return EXIT_SUCCESS;
		case 'V':
			printf("%s %s\n", prog, REVOKE_VERSION);
			return EXIT_SUCCESS;
		default:
			return try_help(prog, NULL);
		}
	}
	if (optind == argc)
		return try_help(prog, "no path specified");

	for (i = optind; i < argc; i++) {
		if (!syscall(__NR_revokeat, AT_FDCWD, argv[i], flags))
			continue;
		fprintf(stderr, "%s: %s: %s\n", prog, argv[i], strerror(errno));
		status = EXIT_FAILURE;
	}
	return status;
}
