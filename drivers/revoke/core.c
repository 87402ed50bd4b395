// SPDX-License-Identifier: GPL-2.0
/*
 * Revocable objects: the framework behind revokeat(2) for devices.
 *
 * A revoke_object stands for one device.  Every file opened on it goes
 * through revoke_file_open(), which gives the file a private copy of the
 * driver's file_operations whose slots are proxies (only the slots the
 * driver has, so the VFS sees the same capabilities).  The copy is the
 * file's f_op from open to the final fput: f_op is never swapped on a live
 * file, and container_of(f_op) finds the per-file state, so struct file
 * does not grow.
 *
 * Revoking the object runs one "cycle":
 *
 *  1. mark: under obj->lock, every open file is taken off obj->files and
 *     marked revoked, for the proxies (rf->revoked) and for the VFS and the
 *     mm (file_revoked(), which the page table lock holder of a fault and
 *     the lock code test).  A reference is taken on each file; a file whose
 *     count already dropped to zero is closing: the cycle and its __fput()
 *     then race to release it, see revoke_fop_release();
 *  2. wake: the driver's ->revoke(file) is called for each file it holds,
 *     so that sleepers in the driver wake up and in-flight I/O is aborted,
 *     and every poller of the file is woken (exclusive ones too);
 *  3. drain: wait until no operation is inside the driver (the gate below),
 *     then until the mmap()s that were inside ->mmap have linked their
 *     mapping (they hold their mmap_lock until then; only address spaces
 *     whose mmap_lock has not been released since their last ->mmap of
 *     the object are waited for);
 *  4. zap: unmap_mapping_range() on the object's address_space, which is
 *     the f_mapping of every file of the object whichever node it was
 *     opened through (and on a file's own one, if its driver moved it in
 *     ->open); later faults see the mark and raise SIGBUS;
 *  5. the files' flock, POSIX and OFD locks are dropped, so that the next
 *     opener can lock;
 *  6. release: the driver's ->fasync(-1) and ->release run now, exactly
 *     once, so exclusive resources are free for the next opener; the final
 *     fput of the file later skips them;
 *  7. wait for the closes that are running the driver's ->release of a
 *     file of the object on their own (its release work is done when
 *     revokeat() returns, and ->release never runs after a kill), then go
 *     back to LIVE, or to DEAD if the object was killed (char device
 *     unplug), after waiting for the opens that raced with the cycle: they
 *     fail with -ENXIO either way, but a driver going away must not be in
 *     ->open any more (except the one that kills it from its own ->open).
 *     A kill of an object that is dead already waits for those too.
 * A file answers -ENXIO from step 1 on, or -ENODEV if the cycle kills the
 * object (what the driver answered after an unplug before the framework).
 *
 * The waits of steps 3 and 7 can be long: an operation may wait for
 * another user's page fault (a read() into a FUSE or userfaultfd buffer).
 * revokeat(2) waits killably: a fatal signal hands the rest of the cycle
 * to the object's work item (which waits without counting as a hung task)
 * and revokeat() returns -EINTR with the files revoked; a later revokeat()
 * waits for that cycle.  A kill (cdev_del()) cannot fail and waits for as
 * long as it takes.  Files that were closing when the cycle came are
 * released by their own close if it gets there first, so close() never
 * waits for somebody else's stuck operation.
 *
 * A disconnect (revoke_object_disconnect_nowait(), ALSA's card disconnect)
 * runs steps 1 and 2 from a work item and leaves the object DEAD: the
 * files answer -ENODEV but stay on the object with their driver state and
 * mappings, and are released at their last close.  It does not drain:
 * their faults still enter the gate.  A revoke of a DEAD object that still
 * has disconnected files runs a full cycle on them, without calling their
 * ->revoke a second time.
 *
 * States: LIVE -> REVOKING -> LIVE | DEAD, and DEAD -> REVOKING -> DEAD
 * for a revoke after a disconnect.  Whoever moves the object to REVOKING
 * runs the cycle (or hands it to the work item); a second revoker waits
 * for that cycle to end, which covers it (no file can be opened while
 * REVOKING).  Opens arriving while REVOKING wait for the end of the cycle.
 * Every cycle start takes a number from the global revoke_cycles, so that
 * an open can tell whether a cycle of its object started after its
 * permission check (revoke_open_check()).  The count is 64-bit: it never
 * wraps between an open's sample and its check, however long the open is
 * held up.
 *
 * The gate.  Every proxy runs the driver's method between revoke_enter()
 * and revoke_exit().  revoke_enter() tests the file's mark and increments
 * a per-CPU counter of the object inside an RCU read-side section;
 * revoke_exit() decrements it.  The cycle marks the files, then
 * synchronize_rcu(): every enter that missed the mark has incremented by
 * then, every later one sees the mark.  From then on the counters only go
 * down, so their sum reaching zero means no operation is left inside the
 * driver; the drain polls for that, so that leaving the gate wakes nobody.
 * Ordering: the decrement is a release (smp_mb__before_atomic(), nothing
 * on x86) and the drain's last read of the counters is followed by a full
 * barrier (an acquire), so that every access of the operation to the
 * driver's state happens before the early ->release frees it, also on
 * weakly ordered CPUs.  As a litmus test, with x the driver's state and c
 * the counter:
 *
 *	P0 (operation)			P1 (revoke)
 *	r0 = READ_ONCE(*x);		r1 = READ_ONCE(*c);	(sees 0)
 *	smp_mb__before_atomic();	smp_mb();
 *	this_cpu_dec(*c);		WRITE_ONCE(*x, freed);
 *	exists (r1 = 0 /\ r0 = freed)	-- forbidden.
 *
 * The hot path has no atomic instruction and no full barrier on x86: a
 * load and test of the mark in the file's own state, this_cpu_inc() and
 * this_cpu_dec() (one instruction each), one preempt_disable()/
 * preempt_enable() pair; nothing on the way out is tested, and no cache
 * line but the file's own and the per-CPU counter is touched.  A
 * percpu_ref would cost the same but cannot be waited on for zero and
 * reused, SRCU readers pay two full barriers in 6.12, an rwsem or a
 * refcount writes one shared cache line per call.  The gate is per
 * object: draining one device never waits for another.
 *
 * A revoke issued from inside an operation of the same object cannot wait
 * for its own operation: revoke_object_revoke_nowait() marks and wakes at
 * once and leaves the rest of the cycle to a work item, which completes
 * when that operation has returned.  lockdep knows the gate as a lock
 * (read side in every operation, a sync point in the drain), so a
 * synchronous revoke from inside an operation is reported, not hung.
 *
 * Polling.  The driver's ->poll registers its wait queues through a
 * poll_table of ours: a forwarder entry goes on each driver queue, and the
 * real poller sleeps on the file's own poll_wq.  Forwarders are removed
 * before ->release runs, so early release may free the driver's queues
 * while select(), poll() or epoll still watch the file; a driver queue that
 * goes away first (wake_up_pollfree()) drops its forwarder at once.
 *
 * Mappings.  Only shared mappings are allowed: a private mapping could
 * keep device pages the zap does not reach.  They are VM_IO, so that no
 * page reference can be taken through them (get_user_pages() refuses
 * them; GUP-fast leaves driver pages to it), which would outlive the
 * revoke.  A driver may not move a mapping to another file in ->mmap
 * (vma_set_file()), where the revoke could not find it.  The driver's
 * vm_ops are wrapped; every method but ->open and ->close is gated and
 * gets a harmless answer once the file's mappings are revoked.  ->open and
 * ->close are always called, even after revocation (a wrapper could
 * neither skip nor defer them safely: they may manage references the
 * mapping holds), so they may only touch what the mapping itself keeps
 * alive.  Until the file is revoked they run inside the gate: one that
 * started before the revoke is waited for, and one that sees
 * revoke_file_revoked(vma->vm_file) runs after the mark, so a driver that
 * counts its mappings per device can leave those to its ->release (ALSA's
 * PCM mmap_count).
 *
 * Locking: obj->lock (spinlock) protects the fields marked (L) in
 * internal.h and the lists of files; it is taken in process context only,
 * may nest inside a subsystem's spinlock (ALSA's card->files_lock, for a
 * disconnect) and is never held across a driver call.  rf->poll_wq.lock
 * protects rf->pollers and nests inside the driver's queue locks;
 * rf->vm_lock protects rf->vm_proxies and rf->mms.  Cycles of one object
 * are serialized by the REVOKING state; the list obj->held belongs to the
 * running cycle alone.
 */

#include <linux/file.h>
#include <linux/filelock.h>
#include <linux/fs.h>
#include <linux/io_uring/cmd.h>
#include <linux/kref.h>
#include <linux/magic.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/percpu.h>
#include <linux/poll.h>
#include <linux/pseudo_fs.h>
#include <linux/revoke.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/uio.h>

#include "internal.h"

struct vfsmount *revoke_mnt __ro_after_init;

/* Cycles started, of any object: see revoke_open_check(). */
atomic64_t revoke_cycles = ATOMIC64_INIT(0);

#if IS_ENABLED(CONFIG_REVOKE_KUNIT_TEST)
unsigned long revoke_kunit_steps;
void (*revoke_kunit_cycle_ended)(struct revoke_object *obj);
void (*revoke_kunit_poll_published)(struct file *file);
#endif

/* The gate ------------------------------------------------------------ */

/*
 * rcu_read_lock_sched() (preempt_disable() outside debug builds) rather than
 * rcu_read_lock(): inline even with CONFIG_PREEMPT_RCU, and
 * synchronize_rcu() waits for it all the same.
 */
static __always_inline bool __revoke_enter(struct revoke_file *rf,
					   const bool *closed)
{
	rcu_read_lock_sched();
	if (unlikely(READ_ONCE(*closed))) {
		rcu_read_unlock_sched();
		return false;
	}
	this_cpu_inc(*rf->active);
	rcu_read_unlock_sched();
	lock_map_acquire_read(&rf->obj->dep_map);
	return true;
}

static __always_inline bool revoke_enter(struct revoke_file *rf)
{
	return __revoke_enter(rf, &rf->revoked);
}

/* The drain polls the counters: nothing to test, nobody to wake. */
static __always_inline void revoke_exit(struct revoke_file *rf)
{
	lock_map_release(&rf->obj->dep_map);
	/* A release: pairs with the smp_mb() in revoke_drain(); see the top. */
	smp_mb__before_atomic();
	this_cpu_dec(*rf->active);
}

/* Operations inside the driver; exact once no operation can enter. */
unsigned long revoke_active_ops(struct revoke_object *obj)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(*per_cpu_ptr(obj->active, cpu));
	return sum;
}

/* How a cycle's waits sleep: see the top. */
enum revoke_how {
	REVOKE_KILLABLE,	/* revokeat(2): may give the rest up, -EINTR */
	REVOKE_IDLE,		/* the work item: not a hung task */
	REVOKE_UNINTERRUPTIBLE,	/* a kill: the driver is going away */
};

/* Sleep for @timeout jiffies; -EINTR if the caller may and should stop. */
static int revoke_sleep(enum revoke_how how, long timeout)
{
	switch (how) {
	case REVOKE_KILLABLE:
		if (fatal_signal_pending(current))
			return -EINTR;
		schedule_timeout_killable(timeout);
		return fatal_signal_pending(current) ? -EINTR : 0;
	case REVOKE_IDLE:
		schedule_timeout_idle(timeout);
		return 0;
	default:
		schedule_timeout_uninterruptible(timeout);
		return 0;
	}
}

/* The conditions a cycle or a revoker waits for on obj->state_wq. */
typedef bool (*revoke_cond_t)(struct revoke_object *obj, unsigned long arg);

/* Sleep until @cond(@obj, @arg) holds; -EINTR if the caller may stop. */
static int revoke_wait_state(struct revoke_object *obj, revoke_cond_t cond,
			     unsigned long arg, enum revoke_how how)
{
	switch (how) {
	case REVOKE_KILLABLE:
		return wait_event_killable(obj->state_wq, cond(obj, arg));
	case REVOKE_IDLE:
		wait_event_idle(obj->state_wq, cond(obj, arg));
		return 0;
	default:
		wait_event(obj->state_wq, cond(obj, arg));
		return 0;
	}
}

static bool revoke_self_on(struct list_head *list);

/*
 * A sync point of the gate for lockdep, as synchronize_srcu() (6.12 has no
 * stub): a cycle waits for every operation, ->open and ->release of the
 * object but the caller's own, which a kill from the driver's ->open or
 * ->release of the object is allowed to skip.
 */
static void revoke_lockdep_sync(struct revoke_object *obj)
{
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	bool inside;

	spin_lock(&obj->lock);
	inside = revoke_self_on(&obj->openers) || revoke_self_on(&obj->closers);
	spin_unlock(&obj->lock);
	if (!inside)
		lock_map_sync(&obj->dep_map);
#endif
}

/*
 * Wait until every operation that entered before the files were marked
 * has left the driver.  The caller must not be inside one.  Polls, with a
 * growing period: operations woken by ->revoke return within the grace
 * period, so the first look usually finds none.
 */
static int revoke_drain(struct revoke_object *obj, enum revoke_how how)
{
	long timeout = 1;

	revoke_lockdep_sync(obj);
	synchronize_rcu();
	while (revoke_active_ops(obj)) {
		if (revoke_sleep(how, timeout))
			return -EINTR;
		timeout = min(2 * timeout, (long)HZ / 10);
	}
	smp_mb();	/* an acquire: pairs with revoke_exit(); see the top */
	return 0;
}

/*
 * What the operations of a revoked file return: -ENXIO, or -ENODEV if it
 * was revoked because its device went away (revoke_object_kill()), as the
 * driver itself would have answered after an unplug, or if its driver's
 * file_operations have FOP_REVOKE_ENODEV.  Only read once the file was
 * seen revoked.
 */
static int revoke_err(const struct revoke_file *rf)
{
	smp_rmb();	/* pairs with the smp_wmb() in revoke_mark() */
	return READ_ONCE(rf->err);
}

/*
 * What poll reports for a revoked file: EPOLLERR | EPOLLHUP, or, for a
 * file disconnected first, EPOLLERR | EPOLLNVAL, what ALSA's disconnected
 * files always answered; nothing for a driver with FOP_REVOKE_QUIET.  Only
 * read once the file was seen revoked.
 */
static __poll_t revoke_poll_err(const struct revoke_file *rf)
{
	smp_rmb();	/* pairs with the smp_wmb() in revoke_mark() */
	return READ_ONCE(rf->poll_err);
}

/*
 * Under obj->lock: the file's mappings are revoked.  file_revoked() tells
 * the VFS and the mm: a device inode's revoke generation never moves (only
 * regular files' do), so a file whose sample differs is revoked for good.
 */
static void revoke_mark_unmapped(struct revoke_file *rf)
{
	struct file *file = rf->file;

	WRITE_ONCE(rf->unmapped, true);
	WRITE_ONCE(file->f_revoke_gen,
		   READ_ONCE(file_inode(file)->i_revoke_gen) - 1);
}

/* Under obj->lock, once per file: from now on its operations fail. */
static void revoke_mark(struct revoke_object *obj, struct revoke_file *rf)
{
	if (rf->revoked) {
		/* A revoke after a disconnect: its mappings go too. */
		if (!obj->disconnect && !rf->unmapped)
			revoke_mark_unmapped(rf);
		return;
	}
	/*
	 * -ENODEV after an unplug, and for drivers whose user space knows
	 * that errno for a revoke (the input handlers: EVIOCREVOKE).
	 */
	WRITE_ONCE(rf->err, obj->kill ||
		   (rf->real->fop_flags & FOP_REVOKE_ENODEV) ? -ENODEV : -ENXIO);
	/*
	 * FOP_REVOKE_QUIET: a revoked file never polls ready, for a global
	 * node whose clients never saw it go away and spin on an error
	 * they were never given (the ALSA sequencer): they idle instead.
	 */
	if ((rf->real->fop_flags & FOP_REVOKE_QUIET) && !obj->disconnect)
		WRITE_ONCE(rf->poll_err, 0);
	else
		WRITE_ONCE(rf->poll_err, EPOLLERR |
			   (obj->disconnect ? EPOLLNVAL : EPOLLHUP));
	smp_wmb();	/* pairs with the smp_rmb() in revoke_err() */
	WRITE_ONCE(rf->revoked, true);
	if (!obj->disconnect)
		revoke_mark_unmapped(rf);
}

/* Proxies of file_operations ------------------------------------------ */

static int revoke_fop_release(struct inode *inode, struct file *file);

static inline struct revoke_file *revoke_file_of(const struct file *file)
{
	return container_of(file->f_op, struct revoke_file, fops);
}

/*
 * The gate of what outlives a disconnect: a file's mappings, and the
 * calls that let work it issued finish (an unlock, io_uring completion
 * polling and cancellation).  Closed by a revoke, left open by a
 * disconnect (revoke_object_disconnect_nowait()), which keeps the driver's
 * state until the last close.
 */
static __always_inline bool revoke_enter_vm(struct revoke_file *rf)
{
	return __revoke_enter(rf, &rf->unmapped);
}

/*
 * REVOKE_CALL(rf, err, call): run @call inside the gate of @rf, or
 * evaluate to @err if the file is revoked.
 */
#define __REVOKE_CALL(enter, rf, err, call)				\
({									\
	struct revoke_file *__rf = (rf);				\
	typeof(call) __ret;						\
									\
	if (enter(__rf)) {						\
		__ret = (call);						\
		revoke_exit(__rf);					\
	} else {							\
		__ret = (err);						\
	}								\
	__ret;								\
})
#define REVOKE_CALL(rf, err, call)	__REVOKE_CALL(revoke_enter, rf, err, call)
#define REVOKE_VM_CALL(rf, err, call)	__REVOKE_CALL(revoke_enter_vm, rf, err, call)

static loff_t revoke_fop_llseek(struct file *file, loff_t offset, int whence)
{
	struct revoke_file *rf = revoke_file_of(file);

	return REVOKE_CALL(rf, (loff_t)revoke_err(rf),
			   rf->real->llseek(file, offset, whence));
}

static ssize_t revoke_fop_read(struct file *file, char __user *buf,
			       size_t count, loff_t *pos)
{
	struct revoke_file *rf = revoke_file_of(file);

	return REVOKE_CALL(rf, (ssize_t)revoke_err(rf),
			   rf->real->read(file, buf, count, pos));
}

static ssize_t revoke_fop_write(struct file *file, const char __user *buf,
				size_t count, loff_t *pos)
{
	struct revoke_file *rf = revoke_file_of(file);

	return REVOKE_CALL(rf, (ssize_t)revoke_err(rf),
			   rf->real->write(file, buf, count, pos));
}

static ssize_t revoke_fop_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct revoke_file *rf = revoke_file_of(iocb->ki_filp);

	return REVOKE_CALL(rf, (ssize_t)revoke_err(rf), rf->real->read_iter(iocb, to));
}

static ssize_t revoke_fop_write_iter(struct kiocb *iocb,
				     struct iov_iter *from)
{
	struct revoke_file *rf = revoke_file_of(iocb->ki_filp);

	return REVOKE_CALL(rf, (ssize_t)revoke_err(rf),
			   rf->real->write_iter(iocb, from));
}

/*
 * Requests issued before a revoke still complete: their completions are
 * polled for as long as the driver has the file's state (a disconnected
 * file keeps it), and once the file is revoked the poll finds nothing more
 * (no error: io_uring would poll again forever).  The driver's ->revoke
 * and ->release complete what it still has.
 */
static int revoke_fop_iopoll(struct kiocb *iocb, struct io_comp_batch *iob,
			     unsigned int flags)
{
	struct revoke_file *rf = revoke_file_of(iocb->ki_filp);

	return REVOKE_VM_CALL(rf, 0, rf->real->iopoll(iocb, iob, flags));
}

static int revoke_fop_iterate_shared(struct file *file,
				     struct dir_context *ctx)
{
	struct revoke_file *rf = revoke_file_of(file);

	return REVOKE_CALL(rf, revoke_err(rf), rf->real->iterate_shared(file, ctx));
}

static long revoke_fop_unlocked_ioctl(struct file *file, unsigned int cmd,
				      unsigned long arg)
{
	struct revoke_file *rf = revoke_file_of(file);

	return REVOKE_CALL(rf, revoke_err(rf),
			   rf->real->unlocked_ioctl(file, cmd, arg));
}

static long revoke_fop_compat_ioctl(struct file *file, unsigned int cmd,
				    unsigned long arg)
{
	struct revoke_file *rf = revoke_file_of(file);

	return REVOKE_CALL(rf, revoke_err(rf), rf->real->compat_ioctl(file, cmd, arg));
}

static int revoke_fop_flush(struct file *file, fl_owner_t id)
{
	struct revoke_file *rf = revoke_file_of(file);

	/* close() must succeed on a revoked file. */
	return REVOKE_CALL(rf, 0, rf->real->flush(file, id));
}

static int revoke_fop_fsync(struct file *file, loff_t start, loff_t end,
			    int datasync)
{
	struct revoke_file *rf = revoke_file_of(file);

	return REVOKE_CALL(rf, revoke_err(rf),
			   rf->real->fsync(file, start, end, datasync));
}

static int revoke_fop_fasync(int fd, struct file *file, int on)
{
	struct revoke_file *rf = revoke_file_of(file);
	int ret;

	if (revoke_enter(rf)) {
		ret = rf->real->fasync(fd, file, on);
		revoke_exit(rf);
		return ret;
	}
	if (on)
		return revoke_err(rf);
	/*
	 * Switching off always works: a revoke cycle called ->fasync(-1)
	 * already; for a disconnected file the release does it.
	 */
	WRITE_ONCE(rf->fasync_off, true);
	return 0;
}

/*
 * An unlock, such as the one __fput() sends, reaches the driver for as
 * long as it has the file's state; once the file is revoked the generic
 * unlock removes whatever lock of the file is on the inode's lists (the
 * driver's ->lock or ->flock may have put one there, and a closing file's
 * are not dropped by the cycle).  Any other request of a revoked file
 * fails.
 */
static int revoke_unlock(struct file *file, struct file_lock *fl)
{
	if (!(fl->c.flc_flags & (FL_POSIX | FL_FLOCK)))
		return 0;
	return locks_lock_file_wait(file, fl);
}

static int revoke_fop_lock(struct file *file, int cmd, struct file_lock *fl)
{
	struct revoke_file *rf = revoke_file_of(file);

	if (lock_is_unlock(fl))
		return REVOKE_VM_CALL(rf, revoke_unlock(file, fl),
				      rf->real->lock(file, cmd, fl));
	return REVOKE_CALL(rf, revoke_err(rf), rf->real->lock(file, cmd, fl));
}

static int revoke_fop_flock(struct file *file, int cmd, struct file_lock *fl)
{
	struct revoke_file *rf = revoke_file_of(file);

	if (lock_is_unlock(fl))
		return REVOKE_VM_CALL(rf, revoke_unlock(file, fl),
				      rf->real->flock(file, cmd, fl));
	return REVOKE_CALL(rf, revoke_err(rf), rf->real->flock(file, cmd, fl));
}

static unsigned long revoke_fop_get_unmapped_area(struct file *file,
						  unsigned long addr,
						  unsigned long len,
						  unsigned long pgoff,
						  unsigned long flags)
{
	struct revoke_file *rf = revoke_file_of(file);

	return REVOKE_CALL(rf, (unsigned long)revoke_err(rf),
			   rf->real->get_unmapped_area(file, addr, len, pgoff,
						       flags));
}

static ssize_t revoke_fop_splice_write(struct pipe_inode_info *pipe,
				       struct file *file, loff_t *pos,
				       size_t len, unsigned int flags)
{
	struct revoke_file *rf = revoke_file_of(file);

	return REVOKE_CALL(rf, (ssize_t)revoke_err(rf),
			   rf->real->splice_write(pipe, file, pos, len, flags));
}

static ssize_t revoke_fop_splice_read(struct file *file, loff_t *pos,
				      struct pipe_inode_info *pipe,
				      size_t len, unsigned int flags)
{
	struct revoke_file *rf = revoke_file_of(file);

	return REVOKE_CALL(rf, (ssize_t)revoke_err(rf),
			   rf->real->splice_read(file, pos, pipe, len, flags));
}

static void revoke_fop_splice_eof(struct file *file)
{
	struct revoke_file *rf = revoke_file_of(file);

	if (revoke_enter(rf)) {
		rf->real->splice_eof(file);
		revoke_exit(rf);
	}
}

static int revoke_fop_setlease(struct file *file, int arg,
			       struct file_lease **lease, void **priv)
{
	struct revoke_file *rf = revoke_file_of(file);

	return REVOKE_CALL(rf, revoke_err(rf),
			   rf->real->setlease(file, arg, lease, priv));
}

static long revoke_fop_fallocate(struct file *file, int mode, loff_t offset,
				 loff_t len)
{
	struct revoke_file *rf = revoke_file_of(file);

	return REVOKE_CALL(rf, revoke_err(rf),
			   rf->real->fallocate(file, mode, offset, len));
}

static void revoke_fop_show_fdinfo(struct seq_file *m, struct file *file)
{
	struct revoke_file *rf = revoke_file_of(file);

	if (revoke_enter(rf)) {
		rf->real->show_fdinfo(m, file);
		revoke_exit(rf);
	}
}

static ssize_t revoke_fop_copy_file_range(struct file *in, loff_t pos_in,
					  struct file *out, loff_t pos_out,
					  size_t len, unsigned int flags)
{
	/* The VFS calls the method of the destination file. */
	struct revoke_file *rf = revoke_file_of(out);

	return REVOKE_CALL(rf, (ssize_t)revoke_err(rf),
			   rf->real->copy_file_range(in, pos_in, out, pos_out,
						     len, flags));
}

static loff_t revoke_fop_remap_file_range(struct file *in, loff_t pos_in,
					  struct file *out, loff_t pos_out,
					  loff_t len, unsigned int flags)
{
	struct revoke_file *rf = revoke_file_of(out);

	return REVOKE_CALL(rf, (loff_t)revoke_err(rf),
			   rf->real->remap_file_range(in, pos_in, out, pos_out,
						      len, flags));
}

static int revoke_fop_fadvise(struct file *file, loff_t offset, loff_t len,
			      int advice)
{
	struct revoke_file *rf = revoke_file_of(file);

	return REVOKE_CALL(rf, revoke_err(rf),
			   rf->real->fadvise(file, offset, len, advice));
}

/*
 * A cancellation of a command issued before the revoke reaches the driver
 * while it has the file's state.  Once the driver released the file,
 * nobody else can complete the command: complete it with the file's
 * error.  In between, a revoke is releasing the file: io_uring cancels
 * again later.
 */
static int revoke_fop_uring_cmd(struct io_uring_cmd *ioucmd,
				unsigned int issue_flags)
{
	struct revoke_file *rf = revoke_file_of(ioucmd->file);
	int ret;

	if (!(issue_flags & IO_URING_F_CANCEL))
		return REVOKE_CALL(rf, revoke_err(rf),
				   rf->real->uring_cmd(ioucmd, issue_flags));
	if (revoke_enter_vm(rf)) {
		ret = rf->real->uring_cmd(ioucmd, issue_flags);
		revoke_exit(rf);
		return ret;
	}
	/* Pairs with smp_store_release() in revoke_cycle_release(). */
	if (smp_load_acquire(&rf->released))
		io_uring_cmd_done(ioucmd, revoke_err(rf), 0, issue_flags);
	return 0;
}

/* See revoke_fop_iopoll(). */
static int revoke_fop_uring_cmd_iopoll(struct io_uring_cmd *ioucmd,
				       struct io_comp_batch *iob,
				       unsigned int poll_flags)
{
	struct revoke_file *rf = revoke_file_of(ioucmd->file);

	return REVOKE_VM_CALL(rf, 0,
			      rf->real->uring_cmd_iopoll(ioucmd, iob, poll_flags));
}

/* Polling -------------------------------------------------------------- */

/* A forwarder: sits on a driver wait queue, wakes the file's poll_wq. */
struct revoke_poll_fwd {
	wait_queue_entry_t wait;
	wait_queue_head_t *whead;	/* NULL once the queue is going away */
	struct revoke_file *rf;
	struct list_head node;		/* revoke_file.pollers */
};

struct revoke_poll_table {
	poll_table pt;
	struct revoke_file *rf;
	bool failed;
};

/* Called with the driver queue's lock held. */
static int revoke_poll_wake(wait_queue_entry_t *wait, unsigned int mode,
			    int sync, void *key)
{
	struct revoke_poll_fwd *fwd = container_of(wait, struct revoke_poll_fwd,
						   wait);
	struct revoke_file *rf = fwd->rf;
	__poll_t events = key_to_poll(key);
	bool pollfree = events & POLLFREE;

	if (unlikely(pollfree))
		key = poll_to_key((events & ~POLLFREE) ?: EPOLLHUP);
	/*
	 * One exclusive poller per event, as on the driver's queue; but every
	 * poller of a revoked file learns of it.
	 */
	__wake_up(&rf->poll_wq, mode, READ_ONCE(rf->revoked) ? 0 : 1, key);
	if (unlikely(pollfree)) {
		/*
		 * The queue is going away (wake_up_pollfree()): leave it now,
		 * as epoll does.  It is freed after an RCU grace period, which
		 * revoke_poll_detach() relies on; once it sees NULL it frees
		 * the forwarder and the file, so this is our last access.
		 */
		list_del_init(&wait->entry);
		/* Pairs with smp_load_acquire() in revoke_poll_detach(). */
		smp_store_release(&fwd->whead, NULL);
	}
	return 0;
}

static void revoke_poll_queue(struct file *file, wait_queue_head_t *whead,
			      poll_table *pt)
{
	struct revoke_poll_table *rpt = container_of(pt, struct revoke_poll_table,
						     pt);
	struct revoke_file *rf = rpt->rf;
	struct revoke_poll_fwd *fwd, *new;
	unsigned long flags;

	/* Usually the queue is known from an earlier poll. */
	spin_lock_irqsave(&rf->poll_wq.lock, flags);
	list_for_each_entry(fwd, &rf->pollers, node) {
		if (READ_ONCE(fwd->whead) == whead) {
			spin_unlock_irqrestore(&rf->poll_wq.lock, flags);
			return;
		}
	}
	spin_unlock_irqrestore(&rf->poll_wq.lock, flags);

	new = kmalloc(sizeof(*new), GFP_KERNEL_ACCOUNT);
	if (!new) {
		rpt->failed = true;
		return;
	}
	init_waitqueue_func_entry(&new->wait, revoke_poll_wake);
	new->whead = whead;
	new->rf = rf;

	spin_lock_irqsave(&rf->poll_wq.lock, flags);
	list_for_each_entry(fwd, &rf->pollers, node) {
		if (READ_ONCE(fwd->whead) == whead) {
			spin_unlock_irqrestore(&rf->poll_wq.lock, flags);
			kfree(new);
			return;
		}
	}
	list_add(&new->node, &rf->pollers);
	spin_unlock_irqrestore(&rf->poll_wq.lock, flags);
#if IS_ENABLED(CONFIG_REVOKE_KUNIT_TEST)
	if (revoke_kunit_poll_published)
		revoke_kunit_poll_published(file);
#endif
	add_wait_queue(whead, &new->wait);
	/*
	 * A poller that found the forwarder above went to sleep trusting it,
	 * and the driver may have woken its queue before the forwarder was
	 * on it: have our pollers look again.  Once per queue and file.
	 */
	wake_up_all(&rf->poll_wq);
}

/* Take the forwarders off the driver's queues; no poll runs concurrently. */
static void revoke_poll_detach(struct revoke_file *rf)
{
	struct revoke_poll_fwd *fwd, *tmp;
	wait_queue_head_t *whead;
	LIST_HEAD(list);

	/* Never polled: the usual case, and nobody can add one now. */
	if (list_empty(&rf->pollers))
		return;
	spin_lock_irq(&rf->poll_wq.lock);
	list_splice_init(&rf->pollers, &list);
	spin_unlock_irq(&rf->poll_wq.lock);

	list_for_each_entry_safe(fwd, tmp, &list, node) {
		/* A queue gone with POLLFREE is freed after a grace period. */
		rcu_read_lock();
		/* Pairs with smp_store_release() in revoke_poll_wake(). */
		whead = smp_load_acquire(&fwd->whead);
		if (whead)
			remove_wait_queue(whead, &fwd->wait);
		rcu_read_unlock();
		kfree(fwd);
	}
}

static __poll_t revoke_fop_poll(struct file *file, poll_table *pt)
{
	struct revoke_file *rf = revoke_file_of(file);
	struct revoke_poll_table rpt = { .rf = rf };
	__poll_t mask;

	/* Sleep on our queue before the driver looks at its state. */
	poll_wait(file, &rf->poll_wq, pt);
	if (!revoke_enter(rf))
		return revoke_poll_err(rf);

	if (pt && pt->_qproc) {
		init_poll_funcptr(&rpt.pt, revoke_poll_queue);
		rpt.pt._key = pt->_key;
		mask = rf->real->poll(file, &rpt.pt);
		if (unlikely(rpt.failed))
			mask |= EPOLLERR;
	} else {
		mask = rf->real->poll(file, pt);
	}
	revoke_exit(rf);
	return mask;
}

/* Wake every poller of a revoked file, EPOLLEXCLUSIVE ones included. */
static void revoke_poll_hup(struct revoke_file *rf)
{
	__wake_up(&rf->poll_wq, TASK_NORMAL, 0,
		  poll_to_key(revoke_poll_err(rf)));
}

/* Mappings ------------------------------------------------------------- */

static inline struct revoke_vm_proxy *revoke_vm_proxy_of(struct vm_area_struct *vma)
{
	return container_of(vma->vm_ops, struct revoke_vm_proxy, ops);
}

/* Is @vma wholly in the range its object keeps mapped after a revoke? */
static bool revoke_vma_kept(const struct revoke_object *obj,
			    struct vm_area_struct *vma)
{
	if (!obj->keep_fill || vma->vm_pgoff < obj->keep_start)
		return false;
	return !obj->keep_nr ||
	       vma->vm_pgoff + vma_pages(vma) <= obj->keep_start + obj->keep_nr;
}

/*
 * A first touch of a kept range after the revoke: the driver's pages are
 * gone with its ->release, so map a fresh page of the faulting task's own,
 * filled as the driver says a revoked file's page reads.  Nothing of the
 * device nor of the next opener is in it.  vm_insert_page(), since the
 * file is revoked and finish_fault() would refuse the page; the vma is
 * VM_MIXEDMAP since its ->mmap (revoke_fop_mmap()).  A fault that got the
 * driver's page before the revoke and reaches finish_fault() after the
 * mark ends here too: finish_fault() answers a revoked device file with
 * VM_FAULT_NOPAGE, and the refault comes here.
 */
static vm_fault_t revoke_vm_fault_kept(struct revoke_file *rf,
				       struct vm_fault *vmf)
{
	struct revoke_object *obj = rf->obj;
	struct page *page;
	int err;

	if (!revoke_vma_kept(obj, vmf->vma) ||
	    !(vmf->vma->vm_flags & VM_MIXEDMAP))
		return VM_FAULT_SIGBUS;
	page = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (!page)
		return VM_FAULT_OOM;
	obj->keep_fill(page_address(page), vmf->pgoff);
	err = vm_insert_page(vmf->vma, vmf->address, page);
	put_page(page);
	/* -EBUSY: a racing fault mapped one first. */
	if (err && err != -EBUSY)
		return err == -ENOMEM ? VM_FAULT_OOM : VM_FAULT_SIGBUS;
	return VM_FAULT_NOPAGE;
}

static vm_fault_t revoke_vm_fault(struct vm_fault *vmf)
{
	struct revoke_vm_proxy *p = revoke_vm_proxy_of(vmf->vma);

	return REVOKE_VM_CALL(p->rf, revoke_vm_fault_kept(p->rf, vmf),
			      p->real->fault(vmf));
}

/**
 * revoke_vma_refaults - will the framework answer a refault of a vma
 * @vma: a mapping of a revoked device file
 *
 * For finish_fault(): a fault that got the driver's page before the revoke
 * and reached the page table lock after it is answered VM_FAULT_NOPAGE
 * only if the refault comes to revoke_vm_fault(), which serves a kept
 * page or raises SIGBUS itself; any other vma gets SIGBUS at once.
 *
 * Context: Any context.
 * Return: true if @vma's ->fault is the framework's.
 */
bool revoke_vma_refaults(struct vm_area_struct *vma)
{
	return vma->vm_ops && vma->vm_ops->fault == revoke_vm_fault;
}

static vm_fault_t revoke_vm_huge_fault(struct vm_fault *vmf,
				       unsigned int order)
{
	struct revoke_vm_proxy *p = revoke_vm_proxy_of(vmf->vma);

	return REVOKE_VM_CALL(p->rf, (vm_fault_t)VM_FAULT_SIGBUS,
			      p->real->huge_fault(vmf, order));
}

static vm_fault_t revoke_vm_map_pages(struct vm_fault *vmf, pgoff_t start,
				      pgoff_t end)
{
	struct revoke_vm_proxy *p = revoke_vm_proxy_of(vmf->vma);

	/* Nothing mapped around: the fault itself then raises SIGBUS. */
	return REVOKE_VM_CALL(p->rf, (vm_fault_t)0,
			      p->real->map_pages(vmf, start, end));
}

static vm_fault_t revoke_vm_page_mkwrite(struct vm_fault *vmf)
{
	struct revoke_vm_proxy *p = revoke_vm_proxy_of(vmf->vma);

	return REVOKE_VM_CALL(p->rf, (vm_fault_t)VM_FAULT_SIGBUS,
			      p->real->page_mkwrite(vmf));
}

static vm_fault_t revoke_vm_pfn_mkwrite(struct vm_fault *vmf)
{
	struct revoke_vm_proxy *p = revoke_vm_proxy_of(vmf->vma);

	return REVOKE_VM_CALL(p->rf, (vm_fault_t)VM_FAULT_SIGBUS,
			      p->real->pfn_mkwrite(vmf));
}

static int revoke_vm_access(struct vm_area_struct *vma, unsigned long addr,
			    void *buf, int len, int write)
{
	struct revoke_vm_proxy *p = revoke_vm_proxy_of(vma);

	return REVOKE_VM_CALL(p->rf, revoke_err(p->rf),
			      p->real->access(vma, addr, buf, len, write));
}

/*
 * The methods that only describe or reshape a mapping: once it is revoked
 * the driver is not asked (its state may be gone with the early release,
 * or its module with cdev_del()), and the answer is that of a mapping
 * without the method.
 */
static const char *revoke_vm_name(struct vm_area_struct *vma)
{
	struct revoke_vm_proxy *p = revoke_vm_proxy_of(vma);

	/* NULL: /proc/PID/maps shows the file's path. */
	return REVOKE_VM_CALL(p->rf, (const char *)NULL, p->real->name(vma));
}

static int revoke_vm_may_split(struct vm_area_struct *vma, unsigned long addr)
{
	struct revoke_vm_proxy *p = revoke_vm_proxy_of(vma);

	return REVOKE_VM_CALL(p->rf, 0, p->real->may_split(vma, addr));
}

static int revoke_vm_mremap(struct vm_area_struct *vma)
{
	struct revoke_vm_proxy *p = revoke_vm_proxy_of(vma);

	return REVOKE_VM_CALL(p->rf, 0, p->real->mremap(vma));
}

static int revoke_vm_mprotect(struct vm_area_struct *vma, unsigned long start,
			      unsigned long end, unsigned long newflags)
{
	struct revoke_vm_proxy *p = revoke_vm_proxy_of(vma);

	return REVOKE_VM_CALL(p->rf, 0,
			      p->real->mprotect(vma, start, end, newflags));
}

static unsigned long revoke_vm_pagesize(struct vm_area_struct *vma)
{
	struct revoke_vm_proxy *p = revoke_vm_proxy_of(vma);

	return REVOKE_VM_CALL(p->rf, PAGE_SIZE, p->real->pagesize(vma));
}

#ifdef CONFIG_NUMA
static int revoke_vm_set_policy(struct vm_area_struct *vma,
				struct mempolicy *new)
{
	struct revoke_vm_proxy *p = revoke_vm_proxy_of(vma);

	return REVOKE_VM_CALL(p->rf, 0, p->real->set_policy(vma, new));
}

static struct mempolicy *revoke_vm_get_policy(struct vm_area_struct *vma,
					      unsigned long addr, pgoff_t *ilx)
{
	struct revoke_vm_proxy *p = revoke_vm_proxy_of(vma);

	return REVOKE_VM_CALL(p->rf, (struct mempolicy *)NULL,
			      p->real->get_policy(vma, addr, ilx));
}
#endif

static struct page *revoke_vm_find_special_page(struct vm_area_struct *vma,
						unsigned long addr)
{
	struct revoke_vm_proxy *p = revoke_vm_proxy_of(vma);

	return REVOKE_VM_CALL(p->rf, (struct page *)NULL,
			      p->real->find_special_page(vma, addr));
}

/* Inside the gate until revoked, and called anyway; see the top. */
static void revoke_vm_open(struct vm_area_struct *vma)
{
	struct revoke_vm_proxy *p = revoke_vm_proxy_of(vma);

	if (revoke_enter(p->rf)) {
		p->real->open(vma);
		revoke_exit(p->rf);
	} else {
		p->real->open(vma);
	}
}

static void revoke_vm_close(struct vm_area_struct *vma)
{
	struct revoke_vm_proxy *p = revoke_vm_proxy_of(vma);

	if (revoke_enter(p->rf)) {
		p->real->close(vma);
		revoke_exit(p->rf);
	} else {
		p->real->close(vma);
	}
}

/* The vm_ops of a driver that left vma->vm_ops NULL: none. */
static const struct vm_operations_struct revoke_vm_none;

static void revoke_vm_proxy_init(struct revoke_vm_proxy *p,
				 const struct vm_operations_struct *real)
{
	const struct vm_operations_struct ops = {
		.open = real->open ? revoke_vm_open : NULL,
		.close = real->close ? revoke_vm_close : NULL,
		.may_split = real->may_split ? revoke_vm_may_split : NULL,
		.mremap = real->mremap ? revoke_vm_mremap : NULL,
		.mprotect = real->mprotect ? revoke_vm_mprotect : NULL,
		.pagesize = real->pagesize ? revoke_vm_pagesize : NULL,
		.name = real->name ? revoke_vm_name : NULL,
#ifdef CONFIG_NUMA
		.set_policy = real->set_policy ? revoke_vm_set_policy : NULL,
		.get_policy = real->get_policy ? revoke_vm_get_policy : NULL,
#endif
		.find_special_page = real->find_special_page ?
				     revoke_vm_find_special_page : NULL,
		.fault = real->fault ? revoke_vm_fault : NULL,
		.huge_fault = real->huge_fault ? revoke_vm_huge_fault : NULL,
		.map_pages = real->map_pages ? revoke_vm_map_pages : NULL,
		.page_mkwrite = real->page_mkwrite ?
				revoke_vm_page_mkwrite : NULL,
		.pfn_mkwrite = real->pfn_mkwrite ? revoke_vm_pfn_mkwrite : NULL,
		.access = real->access ? revoke_vm_access : NULL,
	};

	p->real = real;
	/* Constant from here on; nobody can see it yet. */
	memcpy((void *)&p->ops, &ops, sizeof(ops));
}

/*
 * Remember that @mm maps @rf, once per address space, for
 * revoke_wait_mmaps().  Address spaces that are gone are forgotten here,
 * so that the list does not grow with every short-lived process.
 */
static int revoke_note_mm(struct revoke_file *rf, struct mm_struct *mm)
{
	struct revoke_mm *rmm, *tmp, *new = NULL;
	LIST_HEAD(gone);
	int ret = 0;

	for (;;) {
		spin_lock(&rf->vm_lock);
		list_for_each_entry_safe(rmm, tmp, &rf->mms, node) {
			if (rmm->mm == mm)
				goto found;
			if (!atomic_read(&rmm->mm->mm_users))
				list_move(&rmm->node, &gone);
		}
		if (new) {
			mmgrab(mm);
			new->mm = mm;
			list_add_tail(&new->node, &rf->mms);
			rmm = new;
			new = NULL;
			goto found;
		}
		spin_unlock(&rf->vm_lock);
		new = kmalloc(sizeof(*new), GFP_KERNEL_ACCOUNT);
		if (!new) {
			ret = -ENOMEM;
			goto out;
		}
	}
found:
#ifdef CONFIG_PER_VMA_LOCK
	/* Stable: the mmap_lock is held for writing. */
	rmm->seq = raw_read_seqcount(&mm->mm_lock_seq);
#endif
	spin_unlock(&rf->vm_lock);
out:
	kfree(new);
	list_for_each_entry_safe(rmm, tmp, &gone, node) {
		mmdrop(rmm->mm);
		kfree(rmm);
	}
	return ret;
}

static int revoke_fop_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct revoke_file *rf = revoke_file_of(file);
	const struct vm_operations_struct *real;
	struct revoke_vm_proxy *p, *spare;
	int ret;

	if (!revoke_enter(rf))
		return revoke_err(rf);

	/* The BSDs' answer too: private copies of device pages escape. */
	ret = -EINVAL;
	if (!(vma->vm_flags & VM_MAYSHARE))
		goto out;

	/* Allocate first: a failure after ->mmap could not be undone. */
	ret = revoke_note_mm(rf, vma->vm_mm);
	if (ret)
		goto out;
	ret = -ENOMEM;
	spare = kzalloc(sizeof(*spare), GFP_KERNEL_ACCOUNT);
	if (!spare)
		goto out;

	ret = rf->real->mmap(file, vma);
	if (ret) {
		kfree(spare);
		goto out;
	}
	if (unlikely(vma->vm_file != file)) {
		/*
		 * vma_set_file(): the mapping now belongs to another file,
		 * where no revoke of ours can find it.  Undo what ->mmap did;
		 * __mmap_region() drops the other file and zaps the range.
		 */
		pr_warn_once("revoke: %ps moved a mapping to another file, refused\n",
			     rf->real->mmap);
		if (vma->vm_ops && vma->vm_ops->close)
			vma->vm_ops->close(vma);
		kfree(spare);
		ret = -ENODEV;
		goto out;
	}

	real = vma->vm_ops ?: &revoke_vm_none;
	spin_lock(&rf->vm_lock);
	list_for_each_entry(p, &rf->vm_proxies, node) {
		if (p->real == real)
			goto found;
	}
	p = spare;
	spare = NULL;
	p->rf = rf;
	revoke_vm_proxy_init(p, real);
	list_add(&p->node, &rf->vm_proxies);
found:
	spin_unlock(&rf->vm_lock);
	kfree(spare);
	/*
	 * The vma is not visible to anybody yet.  VM_IO: no page reference
	 * can be taken through it (get_user_pages(), hence vmsplice(),
	 * O_DIRECT, io_uring buffers, process_vm_*v()), which would keep
	 * the device's memory reachable after the revoke.
	 */
	vma->vm_ops = &p->ops;
	vm_flags_set(vma, VM_IO);
	/* See revoke_vm_fault_kept(). */
	if (revoke_vma_kept(rf->obj, vma) && !(vma->vm_flags & VM_PFNMAP))
		vm_flags_set(vma, VM_MIXEDMAP);
out:
	revoke_exit(rf);
	return ret;
}

/* The proxy has a slot exactly where the driver has one. */
static void revoke_proxy_init(const struct file_operations *proxy,
			      const struct file_operations *real)
{
	const struct file_operations fops = {
		.owner = real->owner,
		.fop_flags = real->fop_flags,
		.release = revoke_fop_release,
		/* ->open already ran; ->check_flags has no file to gate on. */
		.check_flags = real->check_flags,
		.revoke = real->revoke,
		.llseek = real->llseek ? revoke_fop_llseek : NULL,
		.read = real->read ? revoke_fop_read : NULL,
		.write = real->write ? revoke_fop_write : NULL,
		.read_iter = real->read_iter ? revoke_fop_read_iter : NULL,
		.write_iter = real->write_iter ? revoke_fop_write_iter : NULL,
		.iopoll = real->iopoll ? revoke_fop_iopoll : NULL,
		.iterate_shared = real->iterate_shared ?
			revoke_fop_iterate_shared : NULL,
		.poll = real->poll ? revoke_fop_poll : NULL,
		.unlocked_ioctl = real->unlocked_ioctl ?
			revoke_fop_unlocked_ioctl : NULL,
		.compat_ioctl = real->compat_ioctl ?
			revoke_fop_compat_ioctl : NULL,
		.mmap = real->mmap ? revoke_fop_mmap : NULL,
		.flush = real->flush ? revoke_fop_flush : NULL,
		.fsync = real->fsync ? revoke_fop_fsync : NULL,
		.fasync = real->fasync ? revoke_fop_fasync : NULL,
		.lock = real->lock ? revoke_fop_lock : NULL,
		.get_unmapped_area = real->get_unmapped_area ?
			revoke_fop_get_unmapped_area : NULL,
		.flock = real->flock ? revoke_fop_flock : NULL,
		.splice_write = real->splice_write ?
			revoke_fop_splice_write : NULL,
		.splice_read = real->splice_read ?
			revoke_fop_splice_read : NULL,
		.splice_eof = real->splice_eof ? revoke_fop_splice_eof : NULL,
		.setlease = real->setlease ? revoke_fop_setlease : NULL,
		.fallocate = real->fallocate ? revoke_fop_fallocate : NULL,
		.show_fdinfo = real->show_fdinfo ?
			revoke_fop_show_fdinfo : NULL,
		.copy_file_range = real->copy_file_range ?
			revoke_fop_copy_file_range : NULL,
		.remap_file_range = real->remap_file_range ?
			revoke_fop_remap_file_range : NULL,
		.fadvise = real->fadvise ? revoke_fop_fadvise : NULL,
		.uring_cmd = real->uring_cmd ? revoke_fop_uring_cmd : NULL,
		.uring_cmd_iopoll = real->uring_cmd_iopoll ?
			revoke_fop_uring_cmd_iopoll : NULL,
	};

	/* Constant from here on; nobody can see it yet. */
	memcpy((void *)proxy, &fops, sizeof(fops));
}

/* Per-file state ------------------------------------------------------- */

static struct kmem_cache *revoke_file_cache __ro_after_init;

static struct revoke_file *revoke_file_alloc(struct revoke_object *obj,
					     const struct file_operations *real)
{
	struct revoke_file *rf;

	/* The cache is SLAB_ACCOUNT: charged to the opener, as the file. */
	rf = kmem_cache_alloc(revoke_file_cache, GFP_KERNEL);
	if (!rf)
		return NULL;

	/*
	 * Every file of the object has the same proxy: build it once and
	 * copy it (objects of subsystems with one fops per minor).
	 */
	if (smp_load_acquire(&obj->proxy_real) == real) {
		memcpy((void *)&rf->fops, &obj->proxy, sizeof(rf->fops));
	} else {
		revoke_proxy_init(&rf->fops, real);
		spin_lock(&obj->lock);
		if (!obj->proxy_real) {
			memcpy((void *)&obj->proxy, &rf->fops, sizeof(obj->proxy));
			/* The copy above is seen by whoever sees this. */
			smp_store_release(&obj->proxy_real, real);
		}
		spin_unlock(&obj->lock);
	}
	rf->real = real;
	rf->active = obj->active;
	rf->revoked = false;
	rf->unmapped = false;
	rf->obj = obj;
	rf->file = NULL;
	INIT_LIST_HEAD(&rf->node);
	rf->rel = REVOKE_REL_NONE;
	rf->woken = false;
	rf->fasync_off = false;
	rf->held = false;
	rf->released = false;
	init_waitqueue_head(&rf->poll_wq);
	INIT_LIST_HEAD(&rf->pollers);
	spin_lock_init(&rf->vm_lock);
	INIT_LIST_HEAD(&rf->vm_proxies);
	INIT_LIST_HEAD(&rf->mms);
	return rf;
}

static void revoke_file_free(struct revoke_file *rf)
{
	struct revoke_vm_proxy *p, *tmp;
	struct revoke_mm *rmm, *rtmp;

	list_for_each_entry_safe(p, tmp, &rf->vm_proxies, node)
		kfree(p);
	list_for_each_entry_safe(rmm, rtmp, &rf->mms, node) {
		mmdrop(rmm->mm);
		kfree(rmm);
	}
	kmem_cache_free(revoke_file_cache, rf);
}

/*
 * The driver's release work, as __fput() would run it.  At a normal close
 * __fput() already called ->fasync(-1) through our proxy if FASYNC was set;
 * at an early release call it always: FASYNC may have been cleared after
 * the mark without the driver hearing of it.
 */
static int revoke_file_release_driver(struct revoke_file *rf, bool early)
{
	struct file *file = rf->file;

	/*
	 * Early, or at the last close of a revoked file whose switch-off no
	 * longer reached the driver.
	 */
	if ((early || READ_ONCE(rf->fasync_off)) && rf->real->fasync)
		rf->real->fasync(-1, file, 0);
	revoke_poll_detach(rf);
	if (rf->real->release)
		return rf->real->release(file_inode(file), file);
	return 0;
}

/*
 * The last close.  A file a cycle took while it was closing (REL_CLAIMED)
 * has nothing of its own left inside the driver by now: __fput() made its
 * last calls (->fasync, ->flock) before this, and the cycle holds no
 * reference to call ->revoke with.  So whoever comes first releases it:
 * here, without waiting for a drain that may wait for somebody else's
 * stuck operation, or the cycle, and then this waits for it.  A close that
 * runs the driver's ->release is on obj->closers meanwhile: a cycle, and a
 * kill, wait for it (a driver's ->release may not run after cdev_del()).
 */
static int revoke_fop_release(struct inode *inode, struct file *file)
{
	struct revoke_file *rf = revoke_file_of(file);
	struct revoke_task closer = { .task = current };
	struct revoke_object *obj = rf->obj;
	enum revoke_rel rel;
	int ret = 0;

	spin_lock(&obj->lock);
	rel = rf->rel;
	if (rel == REVOKE_REL_NONE || rel == REVOKE_REL_CLAIMED) {
		/* Off obj->files or obj->cycle: no cycle looks at it again. */
		list_del_init(&rf->node);
		rf->rel = REVOKE_REL_CLOSE;
		list_add(&closer.node, &obj->closers);
	}
	spin_unlock(&obj->lock);

	if (rel == REVOKE_REL_CYCLE) {
		/* Pairs with smp_store_release() in revoke_cycle_release(). */
		wait_event(obj->state_wq, smp_load_acquire(&rf->released));
	} else {
		bool wake;

		lock_map_acquire_read(&obj->dep_map);
		ret = revoke_file_release_driver(rf, false);
		lock_map_release(&obj->dep_map);
		spin_lock(&obj->lock);
		list_del(&closer.node);
		/* As in revoke_open_done(). */
		wake = obj->state != REVOKE_LIVE;
		spin_unlock(&obj->lock);
		if (wake)
			wake_up_all(&obj->state_wq);
	}

	/*
	 * __fput() drops the module reference of f_op after we return: hand
	 * it the driver's table, which the reference was taken on.  The file
	 * is dead, nobody else looks at f_op any more (debugfs does the same).
	 */
	file->f_op = rf->real;
	file->f_mapping = inode->i_mapping;
	revoke_file_free(rf);
	revoke_object_put(obj);
	return ret;
}

/* The cycle ------------------------------------------------------------ */

/* Is the caller on @list (openers, closers)?  (L) */
static bool revoke_self_on(struct list_head *list)
{
	struct revoke_task *t;

	list_for_each_entry(t, list, node)
		if (t->task == current)
			return true;
	return false;
}

/* Is no other task than the caller's on @list (openers, closers)?  (L) */
static bool revoke_tasks_gone(struct list_head *list)
{
	struct revoke_task *t;

	list_for_each_entry(t, list, node)
		if (t->task != current)
			return false;
	return true;
}

/*
 * Is the caller part of the running cycle: in ->open or ->release of a file
 * of the object, or the cycle's own task (its early ->release)?  (L)
 */
static bool revoke_inside(struct revoke_object *obj)
{
	return obj->cycle_task == current || revoke_self_on(&obj->openers) ||
	       revoke_self_on(&obj->closers);
}

static bool revoke_openers_done(struct revoke_object *obj, unsigned long arg)
{
	bool done;

	spin_lock(&obj->lock);
	done = revoke_tasks_gone(&obj->openers);
	spin_unlock(&obj->lock);
	return done;
}

static bool revoke_closers_done(struct revoke_object *obj, unsigned long arg)
{
	bool done;

	spin_lock(&obj->lock);
	done = revoke_tasks_gone(&obj->closers);
	spin_unlock(&obj->lock);
	return done;
}

/*
 * Steps 1 and 2, by whoever moved the object to REVOKING.  Files that are
 * still referenced go on obj->held with a reference of the cycle's, the
 * closing ones on obj->cycle, where their last close may take them back.
 */
static void revoke_cycle_begin(struct revoke_object *obj)
{
	struct revoke_file *rf, *tmp;

	spin_lock(&obj->lock);
	list_for_each_entry_safe(rf, tmp, &obj->files, node) {
		revoke_mark(obj, rf);
		rf->held = atomic_long_inc_not_zero(&rf->file->f_count);
		if (rf->held) {
			rf->rel = REVOKE_REL_CYCLE;
			list_move_tail(&rf->node, &obj->held);
		} else {
			rf->rel = REVOKE_REL_CLAIMED;
			list_move_tail(&rf->node, &obj->cycle);
		}
	}
	spin_unlock(&obj->lock);

	/* 2. wake; a disconnect already called ->revoke of its files */
	list_for_each_entry(rf, &obj->held, node) {
		if (!rf->woken) {
			rf->woken = true;
			if (rf->real->revoke)
				rf->real->revoke(rf->file);
		}
		revoke_poll_hup(rf);
	}
}

/*
 * Could an mmap() of a file by @rmm's address space still be linking its
 * mapping?  Under CONFIG_PER_VMA_LOCK, mmap_write_unlock() moves
 * mm_lock_seq: if it moved since the last ->mmap, that mmap() is done.
 */
static bool revoke_mm_busy(struct revoke_mm *rmm)
{
	if (!atomic_read(&rmm->mm->mm_users))
		return false;
#ifdef CONFIG_PER_VMA_LOCK
	return raw_read_seqcount(&rmm->mm->mm_lock_seq) == rmm->seq;
#else
	return true;
#endif
}

/*
 * Step 3, second half: an mmap() that was inside ->mmap when the files
 * were marked has returned from it (the drain saw to that), but links its
 * mapping into the address space only later, under its mmap_lock: what
 * ->mmap mapped there (ALSA's PCM prefaults with remap_pfn_range()) would
 * escape the zap.  Wait for the mmap_lock of the address spaces where such
 * an mmap() may still be linking; after the drain no file of the cycle
 * gets a new one, so the lists are stable.  Only an mmap() of this object
 * is waited for, which has left the driver: waiting does not depend on
 * the driver's locks (but for kernels without per-VMA locks, where every
 * address space that mapped a file is waited for).
 */
static int revoke_wait_mmaps(struct revoke_object *obj, enum revoke_how how)
{
	struct revoke_file *rf;
	struct revoke_mm *rmm;

	list_for_each_entry(rf, &obj->held, node) {
		list_for_each_entry(rmm, &rf->mms, node) {
			struct mm_struct *mm = rmm->mm;

			if (!revoke_mm_busy(rmm))
				continue;
			if (how == REVOKE_UNINTERRUPTIBLE)
				mmap_read_lock(mm);
			else if (mmap_read_lock_killable(mm))
				return -EINTR;
			mmap_read_unlock(mm);
		}
	}
	return 0;
}

/* Step 4 on one address space: all of it but the range kept mapped. */
static void revoke_zap_mapping(struct revoke_object *obj,
			       struct address_space *mapping)
{
	pgoff_t end = obj->keep_start + obj->keep_nr;

	if (!obj->keep_nr && !obj->keep_start) {
		unmap_mapping_range(mapping, 0, 0, 1);
		return;
	}
	if (obj->keep_start)
		unmap_mapping_pages(mapping, 0, obj->keep_start, true);
	/* keep_nr 0: kept to the end. */
	if (obj->keep_nr && end > obj->keep_start)
		unmap_mapping_pages(mapping, end, 0, true);
}

/* Step 4: every mapping of the cycle's files. */
static void revoke_zap(struct revoke_object *obj)
{
	struct address_space *mapping = obj->inode->i_mapping;
	struct revoke_file *rf;

	revoke_zap_mapping(obj, mapping);
	/* A driver that pointed f_mapping elsewhere in ->open: that too. */
	list_for_each_entry(rf, &obj->held, node) {
		if (rf->file->f_mapping != mapping) {
			mapping = rf->file->f_mapping;
			revoke_zap_mapping(obj, mapping);
		}
	}
}

/* Step 5: the held files' locks (a closing file's __fput() drops its own). */
static void revoke_drop_locks(struct revoke_object *obj)
{
	struct inode *inode = NULL;
	struct revoke_file *rf;

	list_for_each_entry(rf, &obj->held, node) {
		if (file_inode(rf->file) != inode) {
			inode = file_inode(rf->file);
			locks_revoke(inode);
		}
	}
}

/* Step 6: the early release, exactly once per file. */
static void revoke_cycle_release(struct revoke_object *obj)
{
	struct revoke_file *rf;

	list_for_each_entry(rf, &obj->held, node) {
		/* An interrupted cycle may have done it already. */
		if (rf->released)
			continue;
		revoke_file_release_driver(rf, true);
		/* Read by its last close, after our fput(). */
		smp_store_release(&rf->released, true);
	}

	/* The closing files, unless their close took them first. */
	for (;;) {
		spin_lock(&obj->lock);
		rf = list_first_entry_or_null(&obj->cycle, struct revoke_file,
					      node);
		if (rf) {
			list_del_init(&rf->node);
			rf->rel = REVOKE_REL_CYCLE;
		}
		spin_unlock(&obj->lock);
		if (!rf)
			break;
		revoke_file_release_driver(rf, true);
		/* Its close frees it as soon as it sees this. */
		smp_store_release(&rf->released, true);
		wake_up_all(&obj->state_wq);
	}
}

/*
 * Steps 3 to 7, by the owner of the cycle.  With REVOKE_KILLABLE, a fatal
 * signal during the waits hands what is left to the work item (-EINTR),
 * which runs this again: every step can be repeated.
 */
static int revoke_cycle_finish(struct revoke_object *obj, enum revoke_how how)
{
	struct revoke_file *rf, *tmp;
	LIST_HEAD(held);
	int ret = 0;
	bool any;

	spin_lock(&obj->lock);
	any = !list_empty(&obj->held) || !list_empty(&obj->cycle);
	spin_unlock(&obj->lock);

	/*
	 * Also with no file held: the last calls of a closing file's
	 * __fput() (->fasync, ->flock) may be inside the driver.
	 */
	if (any) {
		if (revoke_drain(obj, how) || revoke_wait_mmaps(obj, how))
			goto interrupted;
		revoke_zap(obj);
		revoke_drop_locks(obj);
		revoke_cycle_release(obj);
	}

	/*
	 * Closes that are releasing a file of the object on their own,
	 * whether the cycle took it or not: its release work is done when
	 * revokeat() returns, and the driver's ->release never runs after a
	 * kill returned.
	 */
	/* Closes run ->release in a read section of the gate's map. */
	revoke_lockdep_sync(obj);
	if (revoke_wait_state(obj, revoke_closers_done, 0, how))
		goto interrupted;

	/*
	 * 7. opens that raced with the cycle fail (revoke_file_open() sees the
	 * sequence number move), and need not be waited for, except by a
	 * kill: the driver is going away.  A blocked ->open (ALSA waits for
	 * a busy substream) could make a plain revoke wait forever.  The
	 * driver's own ->open that kills the object is not waited for.
	 */
	spin_lock(&obj->lock);
	while (obj->kill && !revoke_tasks_gone(&obj->openers)) {
		spin_unlock(&obj->lock);
		/*
		 * A kill came during a revokeat(), whose files are gone by
		 * now: the work item waits for the opens, as the kill would.
		 */
		if (how == REVOKE_KILLABLE)
			goto hand_off;
		revoke_wait_state(obj, revoke_openers_done, 0, how);
		spin_lock(&obj->lock);
	}
	obj->state = obj->kill ? REVOKE_DEAD : REVOKE_LIVE;
	obj->done_seq = obj->seq;
	obj->cycle_task = NULL;
	/*
	 * Ours, before anyone can start the next cycle, whose files go on
	 * obj->held as soon as we unlock: dropping its references here left
	 * its files unreleased, and their last close waiting forever.
	 */
	list_splice_init(&obj->held, &held);
	spin_unlock(&obj->lock);
	wake_up_all(&obj->state_wq);
#if IS_ENABLED(CONFIG_REVOKE_KUNIT_TEST)
	if (revoke_kunit_cycle_ended)
		revoke_kunit_cycle_ended(obj);
#endif

	list_for_each_entry_safe(rf, tmp, &held, node) {
		list_del_init(&rf->node);
		fput(rf->file);
	}
	return 0;

interrupted:
	/* The files stay revoked; the work item finishes the cycle. */
	ret = -EINTR;
hand_off:
	spin_lock(&obj->lock);
	obj->resume = true;
	kref_get(&obj->kref);
	spin_unlock(&obj->lock);
	queue_work(system_unbound_wq, &obj->work);
	return ret;
}

static bool revoke_cycle_done(struct revoke_object *obj, unsigned long seq)
{
	bool done;

	spin_lock(&obj->lock);
	done = obj->done_seq >= seq;
	spin_unlock(&obj->lock);
	return done;
}

/* Under obj->lock: a cycle starts; see revoke_open_check(). */
static void revoke_cycle_number(struct revoke_object *obj)
{
	obj->cycle_task = current;
	obj->state = REVOKE_REVOKING;
	obj->seq++;
	obj->cycle_gen = atomic64_inc_return(&revoke_cycles);
}

/*
 * Start a cycle if none runs.  Returns true if the caller must run it,
 * else stores in *@seq the cycle to wait for (0: nothing to wait for).
 */
static bool revoke_cycle_start(struct revoke_object *obj, bool kill,
			       unsigned long *seq)
{
	bool run = false;

	spin_lock(&obj->lock);
	if (kill)
		obj->kill = true;
	switch (obj->state) {
	case REVOKE_LIVE:
		revoke_cycle_number(obj);
		run = true;
		fallthrough;
	case REVOKE_REVOKING:
		/*
		 * Joining the running cycle, which covers the files open now.
		 * Opens waiting for its end may have passed their permission
		 * check after it began but before this revoke did: a new
		 * number makes them fail (revoke_open_check()).
		 */
		if (!run)
			obj->cycle_gen = atomic64_inc_return(&revoke_cycles);
		*seq = obj->seq;
		/*
		 * A kill from inside the cycle (a driver's ->open, ->release,
		 * or the early release the cycle runs, calls cdev_del()):
		 * waiting would be waiting for itself.  The cycle ends DEAD.
		 */
		if (kill && !run && revoke_inside(obj))
			*seq = 0;
		break;
	case REVOKE_DEAD:
		/* Disconnected files are still there: revoke them for real. */
		if (obj->disconnect && !list_empty(&obj->files)) {
			obj->disconnect = false;
			revoke_cycle_number(obj);
			*seq = obj->seq;
			run = true;
			break;
		}
		*seq = 0;
		break;
	}
	spin_unlock(&obj->lock);
	return run;
}

static int revoke_object_sync(struct revoke_object *obj, bool kill)
{
	enum revoke_how how = kill ? REVOKE_UNINTERRUPTIBLE : REVOKE_KILLABLE;
	unsigned long seq;

	might_sleep();
	for (;;) {
		if (revoke_cycle_start(obj, kill, &seq)) {
			revoke_cycle_begin(obj);
			return revoke_cycle_finish(obj, how);
		}
		if (!seq) {
			/*
			 * Dead, nothing to revoke; but a disconnect waits for
			 * nobody: a kill must not return while the driver is
			 * in an ->open admitted before, or in a ->release.
			 */
			if (kill) {
				revoke_wait_state(obj, revoke_openers_done, 0,
						  how);
				revoke_wait_state(obj, revoke_closers_done, 0,
						  how);
			}
			return 0;
		}
		if (revoke_wait_state(obj, revoke_cycle_done, seq, how))
			return -EINTR;
		/* That cycle may have been a disconnect: look again. */
		if (!READ_ONCE(obj->disconnect))
			return 0;
	}
}

/**
 * revoke_object_revoke - revoke every open file of an object
 * @obj: the object
 *
 * When this returns 0, every file opened on @obj before the call is
 * revoked: its operations fail with -ENXIO (-ENODEV if its driver set
 * FOP_REVOKE_ENODEV) and its poll reports
 * EPOLLERR | EPOLLHUP; no operation of those files is still inside the
 * driver; their shared mappings are torn down and raise SIGBUS; their
 * locks are dropped; the driver's ->release ran for each of them.  Files
 * opened after the call work normally.  An open that races with the call
 * fails with -ENXIO if its permission check came before the call began,
 * see revoke_open_check(), and otherwise may yield a working file.
 * Concurrent calls are serialized and all return when the files are gone.
 *
 * The wait for the operations in flight is killable: one may wait for a
 * page fault of another user's (a read() into a FUSE-backed buffer).  On a
 * fatal signal the files stay revoked, a work item finishes the job, and
 * this returns -EINTR; a later call waits for that.
 *
 * Context: Process context, may sleep.  Must not be called from inside an
 * operation of @obj (it would wait for itself); use
 * revoke_object_revoke_nowait() there.
 * Return: 0, or -EINTR if a fatal signal interrupted the wait.
 */
int revoke_object_revoke(struct revoke_object *obj)
{
	return revoke_object_sync(obj, false);
}
EXPORT_SYMBOL_GPL(revoke_object_revoke);

/**
 * revoke_object_kill - revoke every open file of an object, for good
 * @obj: the object
 *
 * Like revoke_object_revoke(), and afterwards every open of @obj fails with
 * -ENXIO.  This is what unplug needs: when it returns, the driver's
 * file_operations are never entered again for @obj (only the vm_ops
 * ->open and ->close of mappings that outlive it, see the comment at the
 * top of this file).  The files it revokes answer -ENODEV rather than
 * -ENXIO, as drivers have always answered after an unplug, so that user
 * space keeps telling a device that went away from one that was taken
 * away.  It cannot fail, so it waits for the operations in flight for as
 * long as they take, uninterruptibly: a driver operation that waits for
 * user memory (copy_to_user() to a FUSE or userfaultfd page) holds it
 * until that fault is answered or its task killed.
 *
 * Context: Process context, may sleep.  Must not be called from inside an
 * operation of @obj, nor with a lock held that an operation of @obj may
 * wait for, nor with an mmap_lock held.  May be called from the driver's
 * ->open of @obj, which then fails with -ENXIO.
 */
void revoke_object_kill(struct revoke_object *obj)
{
	revoke_object_sync(obj, true);
}
EXPORT_SYMBOL_GPL(revoke_object_kill);

/*
 * A disconnect: wake like a revoke, but leave the files on the object, so
 * that their driver state and mappings last until their last close, which
 * releases them as usual.  Each file is visited once: it moves to the tail
 * when woken, and no file is added meanwhile (REVOKING).
 */
static void revoke_disconnect_cycle(struct revoke_object *obj)
{
	struct revoke_file *rf;
	struct file *file;

	for (;;) {
		file = NULL;
		spin_lock(&obj->lock);
		rf = list_first_entry_or_null(&obj->files, struct revoke_file,
					      node);
		revoke_kunit_step();
		if (!rf || rf->woken) {
			spin_unlock(&obj->lock);
			break;
		}
		rf->woken = true;
		list_move_tail(&rf->node, &obj->files);
		if (atomic_long_inc_not_zero(&rf->file->f_count))
			file = rf->file;
		spin_unlock(&obj->lock);
		if (!file)
			continue;
		/* Our reference keeps @rf; the file is off no list before. */
		if (rf->real->revoke)
			rf->real->revoke(file);
		revoke_poll_hup(rf);
		fput(file);
	}

	/*
	 * No drain: faults still enter the gate, so its counters would not
	 * only go down.  The driver's state lives until the last close, as
	 * it did before the framework; a later revoke drains (see
	 * revoke_object_sync()).
	 */
	spin_lock(&obj->lock);
	obj->state = REVOKE_DEAD;
	obj->done_seq = obj->seq;
	obj->cycle_task = NULL;
	spin_unlock(&obj->lock);
	wake_up_all(&obj->state_wq);
}

static void revoke_object_work(struct work_struct *work)
{
	struct revoke_object *obj = container_of(work, struct revoke_object,
						 work);
	bool resume;

	spin_lock(&obj->lock);
	resume = obj->resume;
	obj->resume = false;
	obj->cycle_task = current;
	spin_unlock(&obj->lock);

	if (resume) {
		revoke_cycle_finish(obj, REVOKE_IDLE);
	} else if (READ_ONCE(obj->disconnect)) {
		revoke_disconnect_cycle(obj);
	} else {
		revoke_cycle_begin(obj);
		revoke_cycle_finish(obj, REVOKE_IDLE);
	}
	revoke_object_put(obj);
}

/* Start a cycle run by the work item; the mark takes effect at once. */
static void revoke_object_async(struct revoke_object *obj, bool disconnect)
{
	struct revoke_file *rf;
	bool run = false;

	spin_lock(&obj->lock);
	if (disconnect)
		obj->kill = true;
	if (obj->state == REVOKE_LIVE) {
		revoke_cycle_number(obj);
		obj->disconnect = disconnect;
		run = true;
		/* The work item marks them again, with the others. */
		list_for_each_entry(rf, &obj->files, node)
			revoke_mark(obj, rf);
		kref_get(&obj->kref);
	}
	spin_unlock(&obj->lock);
	if (run)
		queue_work(system_unbound_wq, &obj->work);
}

/**
 * revoke_object_revoke_nowait - start revoking every open file of an object
 * @obj: the object
 *
 * Marks every open file of @obj revoked at once: from now on their
 * operations fail with -ENXIO.  The rest of revoke_object_revoke() (the
 * driver's ->revoke, waiting for the operations in flight, tearing down
 * mappings, the early release) runs in a work item, which finishes once
 * the operations in flight have returned.  This is the way to revoke an
 * object from inside one of its own operations.
 *
 * Context: Process context, also under a spinlock; does not sleep.
 */
void revoke_object_revoke_nowait(struct revoke_object *obj)
{
	revoke_object_async(obj, false);
}
EXPORT_SYMBOL_GPL(revoke_object_revoke_nowait);

/**
 * revoke_object_disconnect_nowait - disconnect an object's open files
 * @obj: the object
 *
 * The unplug of a subsystem that keeps a device's state until the last
 * close (ALSA's card disconnect): every open file of @obj is marked at
 * once and its operations fail with -ENODEV from now on, and its poll
 * reports EPOLLERR | EPOLLNVAL, as ALSA's disconnected files always
 * answered (a revoked file's poll reports EPOLLHUP); a work item calls
 * the driver's ->revoke for each, so that its sleepers wake.
 * Unlike revoke_object_kill(), the files keep their mappings, which still
 * fault through the driver, and their driver state: the driver's ->release
 * runs at their last close.  Opens of @obj fail with -ENXIO from now on.
 * A revoke cycle running meanwhile finishes as it started and then leaves
 * @obj dead.
 *
 * Context: Process context, also under a spinlock; does not sleep.
 */
void revoke_object_disconnect_nowait(struct revoke_object *obj)
{
	revoke_object_async(obj, true);
}
EXPORT_SYMBOL_GPL(revoke_object_disconnect_nowait);

/**
 * revoke_file_disconnect_nowait - disconnect the object of an open file
 * @file: an open file; nothing happens if it is not revocable
 *
 * revoke_object_disconnect_nowait() for the object @file belongs to, for a
 * subsystem's disconnect path that walks its files (ALSA's card
 * disconnect, which used to swap their f_op).
 *
 * Context: Process context, also under a spinlock; does not sleep.
 */
void revoke_file_disconnect_nowait(struct file *file)
{
	if (revoke_file_tracked(file))
		revoke_object_disconnect_nowait(revoke_file_of(file)->obj);
}
EXPORT_SYMBOL_GPL(revoke_file_disconnect_nowait);

/* Objects -------------------------------------------------------------- */

/* See revoke_object_create() in <linux/revoke.h>. */
struct revoke_object *__revoke_object_create(const char *name)
{
	struct revoke_object *obj;
	int ret = -ENOMEM;

	obj = kzalloc(sizeof(*obj), GFP_KERNEL);
	if (!obj)
		return ERR_PTR(-ENOMEM);
	obj->active = alloc_percpu(unsigned long);
	if (!obj->active)
		goto err_free;
	obj->inode = alloc_anon_inode(revoke_mnt->mnt_sb);
	if (IS_ERR(obj->inode)) {
		ret = PTR_ERR(obj->inode);
		goto err_percpu;
	}
	kref_init(&obj->kref);
	spin_lock_init(&obj->lock);
	obj->state = REVOKE_LIVE;
	INIT_LIST_HEAD(&obj->openers);
	INIT_LIST_HEAD(&obj->closers);
	INIT_LIST_HEAD(&obj->files);
	INIT_LIST_HEAD(&obj->held);
	INIT_LIST_HEAD(&obj->cycle);
	init_waitqueue_head(&obj->state_wq);
	lockdep_register_key(&obj->key);
	lockdep_init_map(&obj->dep_map, name, &obj->key, 0);
	INIT_WORK(&obj->work, revoke_object_work);
	return obj;

err_percpu:
	free_percpu(obj->active);
err_free:
	kfree(obj);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(__revoke_object_create);

static void revoke_object_release(struct kref *kref)
{
	struct revoke_object *obj = container_of(kref, struct revoke_object,
						 kref);

	WARN_ON(!list_empty(&obj->files) || !list_empty(&obj->held) ||
		!list_empty(&obj->cycle));
	WARN_ON(obj->chr_count);
	iput(obj->inode);
	free_percpu(obj->active);
	lockdep_unregister_key(&obj->key);
	/* revoke_chrdev_get() may still look at it. */
	kfree_rcu(obj, rcu);
}

/**
 * revoke_object_keep_mapped - let pages of a file's own outlive a revoke
 * @obj: the object, before any file of it is opened
 * @pgoff: the first page offset of the range
 * @nr: how many pages, or 0 for all from @pgoff on
 * @fill: fills a page first touched after the revoke
 *
 * Some drivers map pages that belong to an open file's own state rather
 * than to the device: ALSA's PCM status and control pages, which its
 * disconnect leaves mapped and reading DISCONNECTED so that alsa-lib
 * clients end cleanly.  A revoke then tears down every mapping of the
 * object's files except what is mapped at these offsets: the mapping keeps
 * those pages alive until it is unmapped, also after the early ->release
 * freed them.  The driver's ->revoke must leave them in the state the file
 * should show from then on, and the range must never map device memory or
 * anything the next opener uses.  A page of a mapping wholly inside the
 * range that is first touched after the revoke (the driver's page is gone
 * by then) is a fresh zeroed page of the faulting task's, which @fill
 * (called with its address and page offset) makes read as the driver's
 * page would.  Such mappings are VM_MIXEDMAP.
 *
 * Context: Process context, before the object has files.
 */
void revoke_object_keep_mapped(struct revoke_object *obj, pgoff_t pgoff,
			       pgoff_t nr, void (*fill)(void *page, pgoff_t pgoff))
{
	obj->keep_start = pgoff;
	obj->keep_nr = nr;
	obj->keep_fill = fill;
}
EXPORT_SYMBOL_GPL(revoke_object_keep_mapped);

/**
 * revoke_object_get - take a reference to an object
 * @obj: the object
 *
 * Context: Any context.
 * Return: @obj.
 */
struct revoke_object *revoke_object_get(struct revoke_object *obj)
{
	kref_get(&obj->kref);
	return obj;
}
EXPORT_SYMBOL_GPL(revoke_object_get);

/**
 * revoke_object_put - drop a reference to an object
 * @obj: the object, may be NULL
 *
 * Every open file holds a reference of its own, so the object outlives its
 * files even after its creator dropped its reference.
 *
 * Context: Process context, may sleep.
 */
void revoke_object_put(struct revoke_object *obj)
{
	if (obj)
		kref_put(&obj->kref, revoke_object_release);
}
EXPORT_SYMBOL_GPL(revoke_object_put);

/* Open ----------------------------------------------------------------- */

/* An admitted open is over; a kill may be waiting for it (step 7). */
static void revoke_open_done(struct revoke_object *obj,
			     struct revoke_task *op)
{
	bool wake;

	spin_lock(&obj->lock);
	list_del(&op->node);
	/* A cycle or a kill checks for us under the lock: LIVE, none waits. */
	wake = obj->state != REVOKE_LIVE;
	spin_unlock(&obj->lock);
	if (wake)
		wake_up_all(&obj->state_wq);
}

/**
 * revoke_file_open - open a file on a revocable object
 * @obj: the object the file belongs to
 * @inode: the inode being opened
 * @file: the file being opened, not yet visible to user space
 * @fops: the driver's file_operations, with a module reference (fops_get())
 *
 * Like replace_fops() followed by @fops->open, which it replaces in an
 * ->open method or in chrdev_open(): drops the reference on @file's f_op,
 * installs a proxy of @fops as f_op, makes the object's address_space the
 * file's f_mapping, then calls @fops->open.  The file is
 * revocable from the moment this returns 0.  If a revoke of @obj runs
 * meanwhile, the open waits for its end; if the object was killed, or was
 * revoked while @fops->open ran, the open fails with -ENXIO (after the
 * driver's ->release when ->open had succeeded).  The open(2) path then
 * also fails an open whose permission check came before a revoke of @obj
 * began (revoke_open_check()): open(2) never returns a file that such a
 * revoke missed.
 *
 * On failure @file->f_op is @fops again, so that the caller's error path
 * (or the VFS's) drops the module reference as usual.
 *
 * Context: Process context, may sleep; called from an ->open method, for
 * example by a subsystem that multiplexes minors behind one cdev.  Must not
 * hold a lock that the driver's ->revoke or ->release takes.
 * Return: 0, -ENXIO, -ENOMEM, -EINTR (killed while waiting for a revoke to
 * finish), or the error of @fops->open.
 */
int revoke_file_open(struct revoke_object *obj, struct inode *inode,
		     struct file *file, const struct file_operations *fops)
{
	struct revoke_task op = { .task = current };
	struct revoke_file *rf;
	unsigned long seq;
	int ret;

	replace_fops(file, fops);
	rf = revoke_file_alloc(obj, fops);
	if (!rf)
		return -ENOMEM;

	spin_lock(&obj->lock);
	while (obj->state == REVOKE_REVOKING) {
		spin_unlock(&obj->lock);
		ret = wait_event_killable(obj->state_wq,
					  READ_ONCE(obj->state) != REVOKE_REVOKING);
		if (ret)
			goto err_free;
		spin_lock(&obj->lock);
	}
	if (obj->state == REVOKE_DEAD) {
		spin_unlock(&obj->lock);
		ret = -ENXIO;
		goto err_free;
	}
	seq = obj->seq;
	list_add(&op.node, &obj->openers);
	kref_get(&obj->kref);
	spin_unlock(&obj->lock);

	rf->file = file;
	file->f_op = &rf->fops;
	file->f_mapping = obj->inode->i_mapping;

	/* A kill waits for it, as for an operation: tell lockdep. */
	lock_map_acquire_read(&obj->dep_map);
	ret = fops->open ? fops->open(inode, file) : 0;
	lock_map_release(&obj->dep_map);

	if (!ret && WARN_ONCE(file->f_op != &rf->fops,
			      "revoke: %ps replaced f_op in ->open\n",
			      fops->open)) {
		/* Not ours any more, and not revocable. */
		if (file->f_mapping == obj->inode->i_mapping)
			file->f_mapping = inode->i_mapping;
		revoke_open_done(obj, &op);
		revoke_file_free(rf);
		revoke_object_put(obj);
		return 0;
	}

	spin_lock(&obj->lock);
	if (!ret && obj->seq == seq) {
		/* Still LIVE: a cycle cannot end while we are opening. */
		list_add_tail(&rf->node, &obj->files);
		list_del(&op.node);
		spin_unlock(&obj->lock);
		return 0;
	}
	spin_unlock(&obj->lock);

	if (!ret) {
		/* Revoked before it was ever visible: undo the open. */
		revoke_file_release_driver(rf, false);
		ret = -ENXIO;
	}
	revoke_open_done(obj, &op);
	file->f_op = fops;
	file->f_mapping = inode->i_mapping;
	revoke_object_put(obj);
err_free:
	revoke_file_free(rf);
	return ret;
}
EXPORT_SYMBOL_GPL(revoke_file_open);

/**
 * revoke_open_check - fail an open that a revoke should have taken
 * @file: a file open(2) has just opened
 * @sample: what file_revoke_open_sample() returned before its permission
 *	check
 *
 * A session manager takes a node away by changing its permissions, then
 * calling revokeat(2).  An open that passed its permission check before
 * that, and then slept (an ACL read, a preemption, a fanotify permission
 * event), must not give the old user a live file: if a cycle of @file's
 * object started after @sample was taken, the open fails.  The ordering:
 * the session manager's permission change happens before the cycle's
 * number is taken (a full barrier, atomic64_inc_return()); the open reads
 * the number before the permission (smp_rmb() in file_revoke_sample()).
 * So an open that saw the old permission saw the old number.  The cycle
 * number of the object is read after revoke_file_open() took obj->lock,
 * so a cycle that started too late to be seen here found the file on the
 * object and revoked it.
 *
 * Context: Process context, from do_open().
 * Return: 0, or -ENXIO.
 */
int revoke_open_check(struct file *file, u64 sample)
{
	struct revoke_object *obj;

	if (!revoke_file_tracked(file))
		return 0;
	obj = revoke_file_of(file)->obj;
	if (READ_ONCE(obj->cycle_gen) > sample)
		return -ENXIO;
	return 0;
}

/**
 * revoke_file_revoked - has this file been revoked?
 * @file: a file the driver is operating on
 *
 * For the wait conditions of a driver's blocking operations: a task asleep
 * in an operation must wake up when its file is revoked, which the driver's
 * ->revoke method ensures by waking the queue the task sleeps on, and then
 * see it here and return.
 *
 * Context: Any context, lockless.
 * Return: true if @file belongs to a revocable object and was revoked.
 */
bool revoke_file_revoked(const struct file *file)
{
	if (!revoke_file_tracked(file))
		return false;
	return READ_ONCE(revoke_file_of(file)->revoked);
}
EXPORT_SYMBOL_GPL(revoke_file_revoked);

/**
 * revoke_file_error - the error a revoked file's operations return
 * @file: an open file
 *
 * For drivers that notice the revoke inside an operation, such as a reader
 * woken by ->revoke: fail with this, as the framework does for every later
 * operation.  revoke_wait_event_interruptible() returns it.
 *
 * Context: Any context.
 * Return: 0 if @file is not revoked; -ENXIO, or -ENODEV if it was revoked
 * because its device went away or its driver set FOP_REVOKE_ENODEV.
 */
int revoke_file_error(const struct file *file)
{
	struct revoke_file *rf;

	if (!revoke_file_tracked(file))
		return 0;
	rf = revoke_file_of(file);
	return READ_ONCE(rf->revoked) ? revoke_err(rf) : 0;
}
EXPORT_SYMBOL_GPL(revoke_file_error);

/**
 * revoke_file_enter - keep a file's driver state from going away
 * @file: an open file, revocable or not
 *
 * For a driver that reaches into the private data of a file other than the
 * one it operates on (ALSA links PCM streams by file descriptor): between
 * this and revoke_file_exit() @file cannot be released early, as if one of
 * its operations were in progress.  The revoke_file_pin class does both.
 *
 * Context: Any context; does not sleep.  Like an operation of @file, the
 * section must not wait for a revoke of @file's object.
 * Return: false if @file is revoked, whose private data may be gone; true
 * otherwise, and then the caller must call revoke_file_exit().
 */
bool revoke_file_enter(struct file *file)
{
	if (!revoke_file_tracked(file))
		return true;
	return revoke_enter(revoke_file_of(file));
}
EXPORT_SYMBOL_GPL(revoke_file_enter);

/**
 * revoke_file_exit - end a revoke_file_enter() section
 * @file: the file given to revoke_file_enter(), which returned true
 *
 * Context: Any context; does not sleep.
 */
void revoke_file_exit(struct file *file)
{
	if (revoke_file_tracked(file))
		revoke_exit(revoke_file_of(file));
}
EXPORT_SYMBOL_GPL(revoke_file_exit);

/**
 * revoke_file_tracked - was this file opened through revoke_file_open()?
 * @file: an open file
 *
 * For code that must leave the file's f_op alone, such as a subsystem's
 * own disconnect path that used to swap it.
 *
 * Context: Any context.
 * Return: true if the revoke framework tracks @file.
 */
bool revoke_file_tracked(const struct file *file)
{
	return file->f_op->release == revoke_fop_release;
}
EXPORT_SYMBOL_GPL(revoke_file_tracked);

/* Init ----------------------------------------------------------------- */

static int revoke_init_fs_context(struct fs_context *fc)
{
	return init_pseudo(fc, REVOKEFS_MAGIC) ? 0 : -ENOMEM;
}

static struct file_system_type revoke_fs_type = {
	.name = "revoke",
	.init_fs_context = revoke_init_fs_context,
	.kill_sb = kill_anon_super,
};

/* Before any driver can add a revocable cdev. */
static int __init revoke_init(void)
{
	revoke_file_cache = KMEM_CACHE(revoke_file, SLAB_PANIC | SLAB_ACCOUNT);
	revoke_mnt = kern_mount(&revoke_fs_type);
	if (IS_ERR(revoke_mnt))
		panic("revoke: cannot mount the revoke pseudo file system: %ld\n",
		      PTR_ERR(revoke_mnt));
	return 0;
}
core_initcall(revoke_init);
