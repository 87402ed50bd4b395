/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Revocable files: take the open files of a device away from the processes
 * that hold them, so that a new opener gets exclusive access.
 *
 * A driver opts in by implementing ->revoke in its file_operations.  For a
 * char device added with cdev_add(), nothing else is needed to be found by
 * revokeat(2) and to be revoked by cdev_del(); subsystems that multiplex
 * minors behind one cdev use a revoke_object per minor and
 * revoke_file_open().  See Documentation/driver-api/revoke.rst.
 */
#ifndef _LINUX_REVOKE_H
#define _LINUX_REVOKE_H

#include <linux/cleanup.h>
#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/lockdep.h>
#include <linux/lockdep_types.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/types.h>
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <linux/wait.h>

struct cdev;
struct revoke_object;

#ifdef CONFIG_REVOKE

struct revoke_object *__revoke_object_create(const char *name);

/**
 * revoke_object_create - create a revocable object
 *
 * One object stands for one device: every file opened through
 * revoke_file_open() on it is revoked together.  Each object gets a lockdep
 * class of its own for its operation gate, named after the caller, so that
 * a lock one device's operations take, held while another is revoked, is
 * no false report.
 *
 * Context: Process context; may sleep.
 * Return: the new object with one reference, or an ERR_PTR() on failure.
 */
#define revoke_object_create()	__revoke_object_create(__func__)

struct revoke_object *revoke_object_get(struct revoke_object *obj);
void revoke_object_put(struct revoke_object *obj);
int revoke_object_revoke(struct revoke_object *obj);
void revoke_object_keep_mapped(struct revoke_object *obj, pgoff_t pgoff,
			       pgoff_t nr, void (*fill)(void *page, pgoff_t pgoff));
void revoke_object_revoke_nowait(struct revoke_object *obj);
void revoke_object_kill(struct revoke_object *obj);
void revoke_object_disconnect_nowait(struct revoke_object *obj);

int revoke_file_open(struct revoke_object *obj, struct inode *inode,
		     struct file *file, const struct file_operations *fops);
bool revoke_vma_refaults(struct vm_area_struct *vma);
bool revoke_file_revoked(const struct file *file);
int revoke_file_error(const struct file *file);
bool revoke_file_tracked(const struct file *file);
bool revoke_file_enter(struct file *file);
void revoke_file_exit(struct file *file);
void revoke_file_disconnect_nowait(struct file *file);

int revoke_chrdev_register(struct revoke_object *obj, dev_t dev,
			   unsigned int count);
void revoke_chrdev_unregister(struct revoke_object *obj);
int revoke_chrdev_set_error(dev_t dev, unsigned int count, int error);

/* For fs/char_dev.c: revocable cdevs (those whose fops have ->revoke). */
int revoke_cdev_add(struct cdev *cdev);
void revoke_cdev_del(struct cdev *cdev);
void revoke_cdev_release(struct cdev *cdev);
int revoke_cdev_open(struct cdev *cdev, struct inode *inode,
		     struct file *file, const struct file_operations *fops);

/* For fs/revoke.c: revokeat(2) on a char device node. */
int revoke_chrdev(dev_t dev);

/* For fs/namei.c: see file_revoke_open_sample(). */
extern atomic64_t revoke_cycles;
int revoke_open_check(struct file *file, u64 sample);

#else /* !CONFIG_REVOKE */

static inline bool revoke_vma_refaults(struct vm_area_struct *vma)
{
	return false;
}

static inline bool revoke_file_revoked(const struct file *file)
{
	return false;
}

static inline int revoke_file_error(const struct file *file)
{
	return 0;
}

static inline bool revoke_file_tracked(const struct file *file)
{
	return false;
}

static inline int revoke_open_check(struct file *file, u64 sample)
{
	return 0;
}

static inline bool revoke_file_enter(struct file *file)
{
	return true;
}

static inline void revoke_file_exit(struct file *file)
{
}

static inline void revoke_file_disconnect_nowait(struct file *file)
{
}

static inline int revoke_cdev_add(struct cdev *cdev)
{
	return 0;
}

static inline void revoke_cdev_del(struct cdev *cdev)
{
}

static inline void revoke_cdev_release(struct cdev *cdev)
{
}

static inline int revoke_cdev_open(struct cdev *cdev, struct inode *inode,
				   struct file *file,
				   const struct file_operations *fops)
{
	return -ENXIO;
}

#endif /* CONFIG_REVOKE */

static inline struct file *__revoke_file_pin(struct file *file)
{
	return revoke_file_enter(file) ? file : NULL;
}

static inline void __revoke_file_unpin(struct file *file)
{
	if (file)
		revoke_file_exit(file);
}

/*
 * CLASS(revoke_file_pin, pinned)(file): NULL if @file is revoked, else
 * @file, kept from an early release until the end of the scope.
 */
DEFINE_CLASS(revoke_file_pin, struct file *, __revoke_file_unpin(_T),
	     __revoke_file_pin(file), struct file *file)

/**
 * file_revoke_error - what an operation of a revoked file fails with
 * @file: a file for which file_revoked() is true
 *
 * For the VFS and mm paths that refuse a revoked file (locks, fsync, mmap):
 * -EBADF for a regular file, and for a device file what its driver's
 * operations answer, -ENXIO or -ENODEV (see revoke_file_error()).
 *
 * Context: Any context.
 * Return: a negative errno.
 */
static inline int file_revoke_error(const struct file *file)
{
	if (S_ISREG(file_inode(file)->i_mode))
		return -EBADF;
	return revoke_file_error(file) ?: -ENXIO;
}

/**
 * file_revoke_open_sample - what an open's permission check is checked by
 * @inode: the inode being opened, before its permission check
 *
 * open(2) calls this before may_open() and file_revoke_open_check() once
 * the file is open: an open whose permission check came before a revoke
 * began must not yield a live file.  For a device that is the count of
 * revoke cycles (see revoke_open_check()), for a regular file the inode's
 * revoke generation, which the file is then opened under.
 *
 * Context: Process context, in do_open().
 * Return: the sample to hand to file_revoke_open_check().
 */
static inline u64 file_revoke_open_sample(const struct inode *inode)
{
	u64 sample = 0;

#ifdef CONFIG_REVOKE
	if (S_ISCHR(inode->i_mode))
		sample = atomic64_read(&revoke_cycles);
	else if (S_ISREG(inode->i_mode))
		sample = READ_ONCE(inode->i_revoke_gen);
	/*
	 * The permission check reads the inode after this; pairs with the
	 * full barrier a revoke puts between the caller's chmod, chown or
	 * ACL change and its new cycle or generation.
	 */
	smp_rmb();
#endif
	return sample;
}

/**
 * file_revoke_open_check - fail an open a revoke should have taken
 * @file: the file do_open() has just opened
 * @sample: what file_revoke_open_sample() returned
 *
 * A regular file takes @sample as the generation it was opened under, in
 * place of the later one do_dentry_open() sampled: if revokeat(2) moved
 * the generation since the permission check, the file is revoked before
 * anyone sees it (an O_TRUNC open then fails in handle_truncate()).  One
 * that was opened before the sample (by ->atomic_open) and is revoked
 * already stays revoked.
 *
 * Context: Process context, in do_open(), before the file is installed.
 * Return: 0, or -ENXIO if a revoke of @file's device began after @sample
 * was taken.
 */
static inline int file_revoke_open_check(struct file *file, u64 sample)
{
	umode_t mode = file_inode(file)->i_mode;

#ifdef CONFIG_REVOKE
	if (S_ISREG(mode) && !file_revoked(file))
		file->f_revoke_gen = sample;
#endif
	if (!S_ISCHR(mode))
		return 0;
	return revoke_open_check(file, sample);
}

/**
 * revoke_wait_event_interruptible - sleep until a condition holds or the
 *				     file is revoked
 * @filp: the file the caller is operating on
 * @wq_head: the wait queue to sleep on
 * @condition: a C expression for the event to wait for
 *
 * wait_event_interruptible() that also ends once @filp is revoked.  The
 * driver's ->revoke wakes @wq_head after the file is marked revoked, so the
 * sleeper cannot miss it.  A driver converts a sleep by renaming the call:
 * its "if (error) return error;" then fails the operation on revoke.
 *
 * Context: Process context; sleeps.
 * Return: 0 once @condition holds; revoke_file_error() once @filp is
 * revoked; -ERESTARTSYS if a signal interrupted the sleep.
 */
#define revoke_wait_event_interruptible(filp, wq_head, condition)	\
({									\
	const struct file *__revoke_file = (filp);			\
	int __revoke_ret;						\
									\
	__revoke_ret = wait_event_interruptible(wq_head, (condition) ||	\
					revoke_file_revoked(__revoke_file)); \
	if (!__revoke_ret)						\
		__revoke_ret = revoke_file_error(__revoke_file);	\
	__revoke_ret;							\
})

/* Regular files ------------------------------------------------------- */

/**
 * struct revoke_sb - the revoke gate of a filesystem's regular files
 * @active: per CPU, operations inside the gate, counted in two slots
 * @idx: the slot new operations count in; a revoke flips it
 * @lock: serialises the revokes of the filesystem's files
 * @dep_map: the gate, for lockdep: read by every operation, synced by a
 *	revoke, so that a revoke waiting for an operation that waits for it
 *	is reported rather than hung
 *
 * Allocated with the super_block of a filesystem that sets FS_REVOCABLE.
 * Regular files have no proxy: the filesystem brackets its data methods
 * with the file_revoke_gate class, which counts them per CPU.  A revoke
 * flips @idx and waits for the old slot only, so operations that start
 * during the wait never hold it up.
 */
struct revoke_sb {
	unsigned long __percpu	*active;
	unsigned int		idx;
	struct mutex		lock;		/* one revoke at a time */
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	struct lockdep_map	dep_map;
#endif
};

/**
 * struct file_revoke_gate - an operation of a regular file inside its gate
 * @count: the per-CPU counter it counts in, or NULL if not counted
 * @closed: the file is revoked; the operation must fail
 * @rs: the gate, for lockdep
 */
struct file_revoke_gate {
	unsigned long __percpu	*count;
	bool			closed;
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	struct revoke_sb	*rs;
#endif
};

#ifdef CONFIG_REVOKE

/**
 * file_revoke_enter - start an operation of a regular file in its gate
 * @file: the file; its filesystem may or may not set FS_REVOCABLE
 *
 * Used through CLASS(file_revoke_gate), which calls file_revoke_exit() at
 * the end of the scope.  revokeat(2) waits for every operation entered
 * before it revoked @file.
 *
 * Context: Any context that may call the operation; does not sleep.
 * Return: the gate to pass to file_revoke_exit(); if its ->closed is set,
 * @file is revoked and the operation must fail.
 */
static __always_inline struct file_revoke_gate
file_revoke_enter(struct file *file)
{
	struct inode *inode = file_inode(file);
	struct revoke_sb *rs = inode->i_sb->s_revoke;
	struct file_revoke_gate gate = {};
	unsigned int idx;

	if (!rs)
		return gate;
	/* A read-side section for revoke_regular()'s synchronize_rcu(). */
	rcu_read_lock_sched();
	idx = READ_ONCE(rs->idx);
	smp_rmb();	/* a flipped slot implies the new generation */
	if (unlikely(file->f_revoke_gen != READ_ONCE(inode->i_revoke_gen))) {
		gate.closed = true;
	} else {
		gate.count = rs->active + idx;
		this_cpu_inc(*gate.count);
	}
	rcu_read_unlock_sched();
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	if (gate.count) {
		gate.rs = rs;
		lock_map_acquire_read(&rs->dep_map);
	}
#endif
	return gate;
}

/**
 * file_revoke_exit - end an operation started by file_revoke_enter()
 * @gate: what file_revoke_enter() returned
 *
 * The revoke polls the counters, so this wakes nobody: one this_cpu_dec().
 *
 * Context: Any context; does not sleep.
 */
static __always_inline void file_revoke_exit(struct file_revoke_gate gate)
{
	if (!gate.count)
		return;
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	lock_map_release(&gate.rs->dep_map);
#endif
	/*
	 * The operation's accesses are done before the count drops: free
	 * on x86 (TSO), a barrier where this_cpu_dec() is an unordered RMW.
	 */
	smp_mb__before_atomic();
	this_cpu_dec(*gate.count);
}

int revoke_sb_init(struct super_block *sb);
void revoke_sb_free(struct super_block *sb);
#ifdef CONFIG_FILE_LOCKING
void locks_revoke(struct inode *inode);
#else
static inline void locks_revoke(struct inode *inode)
{
}
#endif

#else /* !CONFIG_REVOKE */

static __always_inline struct file_revoke_gate
file_revoke_enter(struct file *file)
{
	return (struct file_revoke_gate){};
}

static __always_inline void file_revoke_exit(struct file_revoke_gate gate)
{
}

static inline int revoke_sb_init(struct super_block *sb)
{
	return 0;
}

static inline void revoke_sb_free(struct super_block *sb)
{
}

#endif /* CONFIG_REVOKE */

/*
 * CLASS(file_revoke_gate, gate)(file): run the rest of the scope as an
 * operation of @file that revokeat(2) waits for, unless
 * file_revoke_gate_closed(&gate) says the file is revoked, in which case
 * the operation must fail (-EBADF, or VM_FAULT_SIGBUS for a fault).
 */
DEFINE_CLASS(file_revoke_gate, struct file_revoke_gate,
	     file_revoke_exit(_T), file_revoke_enter(file), struct file *file)

static inline bool file_revoke_gate_closed(const struct file_revoke_gate *gate)
{
	return gate->closed;
}

#ifdef CONFIG_REVOKE
ssize_t file_revoke_rw_retry(struct kiocb *iocb, struct iov_iter *iter,
			     ssize_t (*rw)(struct kiocb *, struct iov_iter *),
			     ssize_t ret);
ssize_t file_revoke_rw_direct(struct kiocb *iocb, struct iov_iter *iter,
			      ssize_t (*rw)(struct kiocb *, struct iov_iter *));

/**
 * file_revoke_rw_iter - run a read or write of a regular file in its gate
 * @iocb: the request
 * @iter: its buffer
 * @rw: the filesystem's ->read_iter() or ->write_iter(), without the gate
 *
 * Runs @rw in the gate of @iocb's file with page faults disabled, so that
 * no fault on a user buffer happens inside the gate: one may wait for
 * anything (a FUSE server or userfaultfd handler that never answers, the
 * revoker itself), and every revoke of the filesystem would wait with it.
 * What @rw could not copy is faulted in outside the gate and @rw runs
 * again for the rest, in the gate again: a revoke that came in between
 * ends the request there, as one that came before it would.
 *
 * Context: Process context, as ->read_iter() and ->write_iter(); @rw must
 * cope with faults disabled (give a short count or -EFAULT), as
 * filemap_read(), generic_perform_write() and iomap direct I/O do, and
 * but for direct I/O (IOCB_DIRECT, which iov_iter's nofault makes pin
 * without faulting) leave @iter where it stopped, as they do.
 * Return: what @rw did for the whole buffer; -EBADF if the file was
 * revoked before any of it was done.
 */
static __always_inline ssize_t
file_revoke_rw_iter(struct kiocb *iocb, struct iov_iter *iter,
		    ssize_t (*rw)(struct kiocb *, struct iov_iter *))
{
	struct file_revoke_gate gate;
	bool faults;
	ssize_t ret;

	if (unlikely(iocb->ki_flags & IOCB_DIRECT))
		return file_revoke_rw_direct(iocb, iter, rw);
	gate = file_revoke_enter(iocb->ki_filp);
	if (file_revoke_gate_closed(&gate))
		return -EBADF;
	/* Kernel buffers (splice, io_uring fixed buffers) do not fault. */
	faults = gate.count && user_backed_iter(iter);
	if (faults)
		pagefault_disable();
	ret = rw(iocb, iter);
	if (faults)
		pagefault_enable();
	file_revoke_exit(gate);
	if (likely(!faults ||
		   (ret < 0 ? ret != -EFAULT : !iov_iter_count(iter))))
		return ret;
	return file_revoke_rw_retry(iocb, iter, rw, ret);
}
#else
static __always_inline ssize_t
file_revoke_rw_iter(struct kiocb *iocb, struct iov_iter *iter,
		    ssize_t (*rw)(struct kiocb *, struct iov_iter *))
{
	return rw(iocb, iter);
}
#endif

#if IS_ENABLED(CONFIG_REVOKE_KUNIT_TEST)
struct kunit;

/* For the KUnit suites of the subsystems' revoke adapters. */
struct file *revoke_kunit_open(struct kunit *test, dev_t devt, int *err);
struct file *revoke_kunit_open_flags(struct kunit *test, dev_t devt,
				     unsigned int flags, int *err);
#endif

#endif /* _LINUX_REVOKE_H */
