// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of revokeat(2) on regular files: the generations, the
 * per-superblock gate and its drain, and the locks.  Included by
 * fs/revoke.c, whose static functions it calls.  Files are tmpfs files of
 * the kernel's internal shm mount (shmem_file_setup()), which is
 * FS_REVOCABLE like any tmpfs.
 */

#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/anon_inodes.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/file.h>
#include <linux/filelock.h>
#include <linux/kthread.h>
#include <linux/mman.h>
#include <linux/shmem_fs.h>
#include <linux/sizes.h>
#include <linux/uio.h>

static struct file *rf_file(struct kunit *test)
{
	struct file *file = shmem_file_setup("revoke_kunit", PAGE_SIZE, 0);

	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	return file;
}

/* Another file of the same inode, opened now. */
static struct file *rf_reopen(struct kunit *test, struct file *file)
{
	struct file *clone = alloc_file_clone(file, O_RDWR, file->f_op);

	KUNIT_ASSERT_FALSE(test, IS_ERR(clone));
	return clone;
}

static ssize_t rf_write(struct file *file, const char *s)
{
	loff_t pos = 0;

	return kernel_write(file, s, strlen(s), &pos);
}

static ssize_t rf_read(struct file *file, char *buf, size_t len)
{
	loff_t pos = 0;

	return kernel_read(file, buf, len, &pos);
}

static void revoke_files_generations(struct kunit *test)
{
	struct file *old = rf_file(test), *new;
	struct inode *inode = file_inode(old);
	char buf[8] = {};

	KUNIT_ASSERT_NOT_NULL(test, inode->i_sb->s_revoke);
	KUNIT_EXPECT_FALSE(test, file_revoked(old));
	KUNIT_EXPECT_EQ(test, rf_write(old, "old"), 3);

	KUNIT_EXPECT_EQ(test, revoke_regular(&old->f_path), 0);
	KUNIT_EXPECT_TRUE(test, file_revoked(old));
	KUNIT_EXPECT_EQ(test, rf_write(old, "bad"), -EBADF);
	KUNIT_EXPECT_EQ(test, rf_read(old, buf, 3), -EBADF);
	KUNIT_EXPECT_EQ(test, vfs_fallocate(old, 0, 0, PAGE_SIZE), -EBADF);

	/* A file opened after the call is not revoked, and sees the data. */
	new = rf_reopen(test, old);
	KUNIT_EXPECT_FALSE(test, file_revoked(new));
	KUNIT_EXPECT_EQ(test, rf_read(new, buf, 3), 3);
	KUNIT_EXPECT_STREQ(test, buf, "old");

	/* The next revoke takes it, and the old one stays revoked. */
	KUNIT_EXPECT_EQ(test, revoke_regular(&old->f_path), 0);
	KUNIT_EXPECT_TRUE(test, file_revoked(new));
	KUNIT_EXPECT_TRUE(test, file_revoked(old));
	fput(new);
	fput(old);
}

/*
 * open(2) samples the generation before its permission check: a file whose
 * check passed before a revoke is opened revoked, whatever generation
 * do_dentry_open() saw; one whose check came after the revoke is live.
 */
static void revoke_files_open_sample(struct kunit *test)
{
	struct file *old = rf_file(test), *file;
	struct inode *inode = file_inode(old);
	u64 before, after;

	before = file_revoke_open_sample(inode);
	KUNIT_EXPECT_EQ(test, revoke_regular(&old->f_path), 0);
	after = file_revoke_open_sample(inode);
	KUNIT_EXPECT_NE(test, before, after);

	file = rf_reopen(test, old);
	KUNIT_EXPECT_FALSE(test, file_revoked(file));
	KUNIT_EXPECT_EQ(test, file_revoke_open_check(file, before), 0);
	KUNIT_EXPECT_TRUE(test, file_revoked(file));
	KUNIT_EXPECT_EQ(test, rf_write(file, "new"), -EBADF);
	fput(file);

	file = rf_reopen(test, old);
	KUNIT_EXPECT_EQ(test, file_revoke_open_check(file, after), 0);
	KUNIT_EXPECT_FALSE(test, file_revoked(file));
	KUNIT_EXPECT_EQ(test, rf_write(file, "new"), 3);
	fput(file);
	fput(old);
}

/*
 * The generation does not wrap: a file stays revoked however many revokes
 * of its inode follow.  With 32 bits, the 2^32nd made the inode's
 * generation equal to the file's again (about a day of back-to-back
 * revokes with expedited grace periods), and the file was live.
 */
static void revoke_files_generation_wrap(struct kunit *test)
{
	struct file *old = rf_file(test), *mid, *new;
	struct inode *inode = file_inode(old);

	/* As if 2^32 - 1 revokes had run since @old was opened. */
	KUNIT_ASSERT_EQ(test, READ_ONCE(inode->i_revoke_gen), 0);
	WRITE_ONCE(inode->i_revoke_gen, U32_MAX);
	KUNIT_EXPECT_TRUE(test, file_revoked(old));
	mid = rf_reopen(test, old);
	KUNIT_EXPECT_FALSE(test, file_revoked(mid));

	KUNIT_EXPECT_EQ(test, revoke_regular(&old->f_path), 0);
	KUNIT_EXPECT_TRUE(test, file_revoked(old));
	KUNIT_EXPECT_EQ(test, rf_write(old, "bad"), -EBADF);
	KUNIT_EXPECT_TRUE(test, file_revoked(mid));
	new = rf_reopen(test, old);
	KUNIT_EXPECT_FALSE(test, file_revoked(new));
	KUNIT_EXPECT_EQ(test, rf_write(new, "new"), 3);
	fput(new);
	fput(mid);
	fput(old);
}

struct rf_revoker {
	const struct path *path;
	struct completion done;
	int ret;
};

static int rf_revoker_fn(void *arg)
{
	struct rf_revoker *r = arg;

	r->ret = revoke_regular(r->path);
	complete(&r->done);
	return 0;
}

static void revoke_files_drain_waits(struct kunit *test)
{
	struct file *file = rf_file(test), *other = rf_file(test), *late;
	struct revoke_sb *rs = file_inode(file)->i_sb->s_revoke;
	struct rf_revoker *r;
	struct file_revoke_gate in_flight, gate;
	struct task_struct *t;

	/* Not test-managed: left behind if the revoke never returns. */
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	r->path = &file->f_path;
	init_completion(&r->done);
	/* An operation in flight: the revoke must wait for it. */
	in_flight = file_revoke_enter(file);
	KUNIT_ASSERT_FALSE(test, file_revoke_gate_closed(&in_flight));
	KUNIT_EXPECT_GE(test, revoke_sb_active(rs, rs->idx), 1UL);

	t = kthread_run(rf_revoker_fn, r, "revoke_kunit");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	msleep(100);
	KUNIT_EXPECT_FALSE(test, completion_done(&r->done));
	/* Already refused to anything new on it... */
	KUNIT_EXPECT_TRUE(test, file_revoked(file));
	gate = file_revoke_enter(file);
	KUNIT_EXPECT_TRUE(test, file_revoke_gate_closed(&gate));
	file_revoke_exit(gate);
	/*
	 * ...while other files of the filesystem, and new files of this
	 * inode, come and go in the other slot, without holding it up.
	 */
	late = rf_reopen(test, file);
	gate = file_revoke_enter(late);
	KUNIT_EXPECT_FALSE(test, file_revoke_gate_closed(&gate));
	KUNIT_EXPECT_TRUE(test, gate.count != in_flight.count);
	file_revoke_exit(gate);
	gate = file_revoke_enter(other);
	KUNIT_EXPECT_FALSE(test, file_revoke_gate_closed(&gate));
	file_revoke_exit(gate);
	KUNIT_EXPECT_FALSE(test, completion_done(&r->done));

	file_revoke_exit(in_flight);
	if (!wait_for_completion_timeout(&r->done, 10 * HZ)) {
		KUNIT_FAIL(test, "the revoke did not return");
		return;
	}
	KUNIT_EXPECT_EQ(test, r->ret, 0);
	KUNIT_EXPECT_EQ(test, revoke_sb_active(rs, 0) + revoke_sb_active(rs, 1), 0UL);
	KUNIT_EXPECT_FALSE(test, file_revoked(other));
	KUNIT_EXPECT_FALSE(test, file_revoked(late));
	fput(late);
	fput(other);
	fput(file);
	kfree(r);
}

static void revoke_files_locks(struct kunit *test)
{
	struct file *file = rf_file(test), *next;
	struct file_lock_context *ctx;
	struct file_lock fl;

	locks_init_lock(&fl);
	fl.c.flc_file = file;
	fl.c.flc_owner = file;
	fl.c.flc_pid = current->tgid;
	fl.c.flc_flags = FL_FLOCK;
	fl.c.flc_type = F_WRLCK;
	fl.fl_end = OFFSET_MAX;
	KUNIT_ASSERT_EQ(test, locks_lock_file_wait(file, &fl), 0);
	ctx = locks_inode_context(file_inode(file));
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	KUNIT_EXPECT_FALSE(test, list_empty(&ctx->flc_flock));

	KUNIT_EXPECT_EQ(test, revoke_regular(&file->f_path), 0);
	KUNIT_EXPECT_TRUE(test, list_empty(&ctx->flc_flock));
	/* Refused through the revoked file, granted to the next opener. */
	KUNIT_EXPECT_EQ(test, locks_lock_file_wait(file, &fl), -EBADF);
	next = rf_reopen(test, file);
	fl.c.flc_file = next;
	fl.c.flc_owner = next;
	KUNIT_EXPECT_EQ(test, locks_lock_file_wait(next, &fl), 0);
	fput(next);
	fput(file);
}

static void revoke_files_not_revocable(struct kunit *test)
{
	struct file *file;

	/* The anon inode filesystem did not opt in. */
	file = anon_inode_getfile("revoke_kunit", &simple_dir_operations,
				  NULL, O_RDWR);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	KUNIT_EXPECT_EQ(test, revoke_regular(&file->f_path), -EOPNOTSUPP);
	KUNIT_EXPECT_FALSE(test, file_revoked(file));
	fput(file);
}

/* What an LSM says through security_path_revoke() stands. */
static int revoke_kunit_lsm_deny(const struct path *path)
{
	return -EACCES;
}

static void revoke_files_security(struct kunit *test)
{
	struct file *file = rf_file(test);

	kunit_activate_static_stub(test, revoke_security_check,
				   revoke_kunit_lsm_deny);
	KUNIT_EXPECT_EQ(test, do_revoke(&file->f_path), -EACCES);
	KUNIT_EXPECT_FALSE(test, file_revoked(file));
	kunit_deactivate_static_stub(test, revoke_security_check);
	KUNIT_EXPECT_EQ(test, do_revoke(&file->f_path), 0);
	KUNIT_EXPECT_TRUE(test, file_revoked(file));
	fput(file);
}

/* ---- file_revoke_rw_iter() with a scripted ->read_iter() -------------- */

struct rf_script {
	struct kunit *test;
	struct revoke_sb *rs;
	unsigned int calls;
	unsigned int revoke_at;	/* on this call, revoke after copying */
	bool always_efault;	/* nothing can ever be copied */
	bool move_then_fail;	/* the first try moves the iterator, fails */
	size_t step;		/* what one call copies */
	loff_t pos;		/* where the request ended */
};

static struct rf_script *rf_script;

/*
 * A read that copies @step bytes at most, as a filesystem would with page
 * faults disabled: it checks that it runs in the gate, with faults off.
 */
static ssize_t rf_script_read(struct kiocb *iocb, struct iov_iter *to)
{
	struct rf_script *s = rf_script;
	size_t n = min(iov_iter_count(to), s->step);
	bool user = user_backed_iter(to);

	s->calls++;
	KUNIT_EXPECT_EQ(s->test, !!pagefault_disabled(), user);
	KUNIT_EXPECT_EQ(s->test, to->nofault,
			user && (iocb->ki_flags & IOCB_DIRECT));
	KUNIT_EXPECT_GE(s->test, revoke_sb_active(s->rs, 0) +
			revoke_sb_active(s->rs, 1), 1UL);
	if (s->always_efault || s->calls > 64)
		return -EFAULT;
	/* As iomap direct I/O may, when a page of the buffer is missing. */
	if (s->move_then_fail && s->calls == 1) {
		iov_iter_advance(to, PAGE_SIZE);
		iocb->ki_pos += PAGE_SIZE;
		return -EFAULT;
	}
	/* With faults off, this copies what is mapped, and no more. */
	n = iov_iter_zero(n, to);
	if (!n)
		return -EFAULT;
	iocb->ki_pos += n;
	if (s->calls == s->revoke_at) {
		struct inode *inode = file_inode(iocb->ki_filp);

		/* As a revoke that came between two tries would. */
		WRITE_ONCE(inode->i_revoke_gen, inode->i_revoke_gen + 1);
	}
	return n;
}

static ssize_t rf_script_run(struct kunit *test, struct file *file,
			     unsigned long addr, size_t len, int flags,
			     struct rf_script *s)
{
	struct kiocb iocb;
	struct iov_iter iter;
	ssize_t ret;

	s->test = test;
	s->rs = file_inode(file)->i_sb->s_revoke;
	rf_script = s;
	init_sync_kiocb(&iocb, file);
	iocb.ki_flags |= flags;
	iov_iter_ubuf(&iter, ITER_DEST, (void __user *)addr, len);
	ret = file_revoke_rw_iter(&iocb, &iter, rf_script_read);
	s->pos = iocb.ki_pos;
	return ret;
}

/*
 * The user's buffer is faulted in outside the gate and the read goes on
 * there, until the end of the buffer; a revoke between two tries ends it
 * with what was done; direct I/O starts each try where the last began
 * (iterator and position, which ext4's fallback to buffered I/O moves);
 * IOCB_NOWAIT does not fault; a buffer that faults in but can never be
 * copied ends with -EFAULT after a few tries instead of looping (a
 * VM_PFNMAP buffer under direct I/O); kernel buffers run once, with faults
 * on.
 */
static void revoke_files_rw_faults_outside_gate(struct kunit *test)
{
	struct file *file = shmem_file_setup("revoke_kunit", SZ_1M, 0);
	struct rf_script s;
	unsigned long addr;
	struct iov_iter iter;
	struct kiocb iocb;
	struct kvec kv;
	char buf[8];

	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	addr = kunit_vm_mmap(test, NULL, 0, 4 * PAGE_SIZE,
			     PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE_MSG(test, addr, 0UL, "no user memory");

	/* Four pages, never touched: one fault-in each, in one window. */
	s = (struct rf_script){ .step = PAGE_SIZE };
	KUNIT_EXPECT_EQ(test, rf_script_run(test, file, addr, 4 * PAGE_SIZE,
					    0, &s), 4 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, s.calls, 5U);

	/* Mapped now: one call. */
	s = (struct rf_script){ .step = 4 * PAGE_SIZE };
	KUNIT_EXPECT_EQ(test, rf_script_run(test, file, addr, 4 * PAGE_SIZE,
					    0, &s), 4 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, s.calls, 1U);

	/* Direct I/O: a try that moved and failed starts again from there. */
	s = (struct rf_script){ .step = 4 * PAGE_SIZE, .move_then_fail = true };
	KUNIT_EXPECT_EQ(test, rf_script_run(test, file, addr, 4 * PAGE_SIZE,
					    IOCB_DIRECT, &s), 4 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, s.calls, 2U);
	KUNIT_EXPECT_EQ(test, s.pos, 4 * PAGE_SIZE);

	/* Revoked after the first page: that page is what the call did. */
	s = (struct rf_script){ .step = PAGE_SIZE, .revoke_at = 1 };
	KUNIT_EXPECT_EQ(test, rf_script_run(test, file, addr, 4 * PAGE_SIZE,
					    0, &s), PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, s.calls, 1U);
	KUNIT_EXPECT_EQ(test, rf_script_run(test, file, addr, PAGE_SIZE, 0,
					    &s), -EBADF);
	fput(file);

	file = shmem_file_setup("revoke_kunit", SZ_1M, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	/* Copied nothing, and may not wait for a fault: -EAGAIN at once. */
	s = (struct rf_script){ .always_efault = true };
	KUNIT_EXPECT_EQ(test, rf_script_run(test, file, addr, PAGE_SIZE,
					    IOCB_NOWAIT, &s), -EAGAIN);
	KUNIT_EXPECT_EQ(test, s.calls, 1U);
	/* Faults in, never copies: bounded, -EFAULT. */
	s = (struct rf_script){ .always_efault = true };
	KUNIT_EXPECT_EQ(test, rf_script_run(test, file, addr, PAGE_SIZE, 0,
					    &s), -EFAULT);
	KUNIT_EXPECT_LE(test, s.calls, 9U);
	/* Nothing mapped there: -EFAULT after one try. */
	s = (struct rf_script){ .step = PAGE_SIZE };
	KUNIT_EXPECT_EQ(test, rf_script_run(test, file, TASK_SIZE - PAGE_SIZE,
					    PAGE_SIZE, 0, &s), -EFAULT);
	KUNIT_EXPECT_EQ(test, s.calls, 1U);

	/* A kernel buffer: one call, faults on. */
	s = (struct rf_script){ .step = sizeof(buf), .test = test,
				.rs = file_inode(file)->i_sb->s_revoke };
	rf_script = &s;
	kv.iov_base = buf;
	kv.iov_len = sizeof(buf);
	init_sync_kiocb(&iocb, file);
	iov_iter_kvec(&iter, ITER_DEST, &kv, 1, sizeof(buf));
	KUNIT_EXPECT_EQ(test, file_revoke_rw_iter(&iocb, &iter, rf_script_read),
			(ssize_t)sizeof(buf));
	KUNIT_EXPECT_EQ(test, s.calls, 1U);
	fput(file);
}

static struct kunit_case revoke_files_cases[] = {
	KUNIT_CASE(revoke_files_generations),
	KUNIT_CASE(revoke_files_open_sample),
	KUNIT_CASE(revoke_files_generation_wrap),
	KUNIT_CASE(revoke_files_drain_waits),
	KUNIT_CASE(revoke_files_locks),
	KUNIT_CASE(revoke_files_not_revocable),
	KUNIT_CASE(revoke_files_security),
	KUNIT_CASE(revoke_files_rw_faults_outside_gate),
	{}
};

static struct kunit_suite revoke_files_suite = {
	.name = "revoke_files",
	.test_cases = revoke_files_cases,
};

kunit_test_suite(revoke_files_suite);
