// SPDX-License-Identifier: GPL-2.0
/*
 * revoke(1) (tools/revoke/), run as a session manager's script runs it:
 * its exit status, its messages, and what it did to the files of the
 * objects it was given.  The selftests' Makefile builds it next to this
 * program.
 */

#include <stdlib.h>
#include <sys/mount.h>

#include "../kselftest_harness.h"
#include "revoke_util.h"

#define SCRATCH	"/tmp/revoke-tool"

struct run {
	int status;		/* exit status, or -1 if killed */
	char out[2048];		/* standard output */
	char err[2048];		/* standard error */
};

/* Read all of @fd into @buf (NUL-terminated). */
static void slurp(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;

	while (len < size - 1 && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	buf[len] = '\0';
}

/*
 * Run revoke(1) with @argv (NULL-terminated, without argv[0]) as @uid
 * (root if 0), collecting its output.
 */
static void run_as(struct run *r, uid_t uid, const char * const *argv)
{
	int out[2], err[2];
	pid_t pid;

	if (pipe(out) || pipe(err))
		abort();
	pid = fork();
	if (pid < 0)
		abort();
	if (!pid) {
		dup2(out[1], 1);
		dup2(err[1], 2);
		if (uid && (setresgid(uid, uid, uid) || setresuid(uid, uid, uid)))
			_exit(126);
		revoke_exec(argv);
	}
	close(out[1]);
	close(err[1]);
	/* Both are short: neither pipe fills while the other is read. */
	slurp(out[0], r->out, sizeof(r->out));
	slurp(err[0], r->err, sizeof(r->err));
	close(out[0]);
	close(err[0]);
	r->status = child_status(pid);
}

static void run(struct run *r, const char * const *argv)
{
	run_as(r, 0, argv);
}

/* A file of the test device held open, with an empty FIFO. */
static int hold_node(void)
{
	node_drain(RT_NODE);
	return open(RT_NODE, O_RDWR);
}

static void scratch(void)
{
	if (system("rm -rf " SCRATCH) || mkdir(SCRATCH, 0755))
		abort();
}

TEST(revokes_a_device)
{
	struct run r;
	int fd = hold_node();

	ASSERT_GE(fd, 0);
	run(&r, (const char *[]){ RT_NODE, NULL });
	EXPECT_EQ(r.status, 0);
	EXPECT_STREQ(r.out, "");
	EXPECT_STREQ(r.err, "");
	EXPECT_EQ(check_revoked(fd), 0);
	close(fd);
	/* The next opener has it. */
	fd = open(RT_NODE, O_RDWR);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(check_works(fd), 0);
	close(fd);
}

/* One error is reported as util-linux does; the other paths are done. */
TEST(error_reported_and_rest_revoked)
{
	struct run r;
	int fd = hold_node();

	ASSERT_GE(fd, 0);
	run(&r, (const char *[]){ "/nonexistent", "/tmp", RT_NODE, NULL });
	EXPECT_EQ(r.status, 1);
	EXPECT_STREQ(r.out, "");
	EXPECT_STREQ(r.err,
		     "revoke: /nonexistent: No such file or directory\n"
		     "revoke: /tmp: Operation not supported\n");
	EXPECT_EQ(check_revoked(fd), 0);
	close(fd);
}

TEST(other_user_refused)
{
	struct run r;
	int fd = hold_node();

	ASSERT_GE(fd, 0);
	run_as(&r, 1000, (const char *[]){ RT_NODE, NULL });
	EXPECT_EQ(r.status, 1);
	EXPECT_STREQ(r.err, "revoke: " RT_NODE ": Operation not permitted\n");
	/* Nothing happened to the file. */
	EXPECT_EQ(check_works(fd), 0);
	close(fd);
}

TEST(symlink_followed_unless_no_follow)
{
	const char *link = SCRATCH "/link";
	struct run r;
	int fd;

	scratch();
	ASSERT_EQ(symlink(RT_NODE, link), 0);
	fd = hold_node();
	ASSERT_GE(fd, 0);
	run(&r, (const char *[]){ "--no-follow", link, NULL });
	EXPECT_EQ(r.status, 1);
	EXPECT_STREQ(r.err, "revoke: " SCRATCH "/link: Operation not supported\n");
	EXPECT_EQ(check_works(fd), 0);
	run(&r, (const char *[]){ "-n", link, NULL });
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(check_works(fd), 0);
	run(&r, (const char *[]){ link, NULL });
	EXPECT_EQ(r.status, 0);
	EXPECT_STREQ(r.err, "");
	EXPECT_EQ(check_revoked(fd), 0);
	close(fd);
}

/* A regular file of a tmpfs: its descriptors answer EBADF. */
TEST(revokes_a_tmpfs_file)
{
	const char *path = SCRATCH "/tmpfs/file";
	struct run r;
	char c;
	int fd;

	scratch();
	ASSERT_EQ(mkdir(SCRATCH "/tmpfs", 0755), 0);
	ASSERT_EQ(mount("tmpfs", SCRATCH "/tmpfs", "tmpfs", 0, NULL), 0);
	fd = open(path, O_RDWR | O_CREAT, 0644);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(write(fd, "x", 1), 1);
	run(&r, (const char *[]){ "--", path, NULL });
	EXPECT_EQ(r.status, 0);
	EXPECT_STREQ(r.err, "");
	EXPECT_EQ(pread(fd, &c, 1, 0), -1);
	EXPECT_EQ(errno, EBADF);
	close(fd);
	/* Written back and there for the next opener. */
	fd = open(path, O_RDONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(read(fd, &c, 1), 1);
	EXPECT_EQ(c, 'x');
	close(fd);
	EXPECT_EQ(umount(SCRATCH "/tmpfs"), 0);
}

TEST(help_and_version)
{
	struct run r;

	run(&r, (const char *[]){ "--help", NULL });
	EXPECT_EQ(r.status, 0);
	EXPECT_EQ(strncmp(r.out, "Usage:\n revoke [options] <path>...\n", 35), 0);
	EXPECT_NE(strstr(r.out, "--no-follow"), NULL);
	EXPECT_STREQ(r.err, "");
	run(&r, (const char *[]){ "-h", NULL });
	EXPECT_EQ(r.status, 0);
	run(&r, (const char *[]){ "--version", NULL });
	EXPECT_EQ(r.status, 0);
	EXPECT_EQ(strncmp(r.out, "revoke ", 7), 0);
	EXPECT_STREQ(r.err, "");
}

/* A wrong command line revokes nothing and says how to get help. */
TEST(usage_errors)
{
	static const char try[] = "Try 'revoke --help' for more information.\n";
	struct run r;
	int fd = hold_node();

	ASSERT_GE(fd, 0);
	run(&r, (const char *[]){ NULL });
	EXPECT_EQ(r.status, 1);
	EXPECT_STREQ(r.err, "revoke: no path specified\n"
		     "Try 'revoke --help' for more information.\n");
	run(&r, (const char *[]){ "--bogus", RT_NODE, NULL });
	EXPECT_EQ(r.status, 1);
	EXPECT_NE(strstr(r.err, "unrecognized option '--bogus'"), NULL);
	EXPECT_NE(strstr(r.err, try), NULL);
	EXPECT_STREQ(r.out, "");
	EXPECT_EQ(check_works(fd), 0);
	close(fd);
}

TEST_HARNESS_MAIN
