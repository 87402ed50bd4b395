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
 *     marked revoked; a reference is taken on each (a file whose count
 *     already dropped to zero is closing: its final fput waits for the
 *     cycle to release it);
 *  2. wake: the driver's ->revoke(file) is called for each file so that
 *     sleepers in the driver wake up and in-flight I/O is aborted, and
 *     pollers of the file are woken;
 *  3. drain: wait until no operation is inside the driver (the gate below);
 *  4. zap: unmap_mapping_range() on the object's address_space, which is
 *     the f_mapping of every file of the object whichever node it was
 *     opened through; later faults see the mark and raise SIGBUS;
 *  5. release: the driver's ->fasync(-1) and ->release run now, exactly
 *     once, so exclusive resources are free for the next opener; the final
 *     fput of the file later skips them;
 *  6. go back to LIVE, or to DEAD if the object was killed (char device
 *     unplug), after waiting for the opens that raced with the cycle: they
 *     fail with -ENXIO either way, but a driver going away must not be in
 *     ->open any more.
 * A file answers -ENXIO from step 1 on, or -ENODEV if the cycle kills the
 * object (what the driver answered after an unplug before the framework).
 *
 * A disconnect (revoke_object_disconnect_nowait(), ALSA's card disconnect)
 * runs steps 1 and 2 from a work item and leaves the object DEAD: the
 * files answer -ENODEV but stay on the object with their driver state and
 * mappings, and are released at their last close.  It does not drain:
 * their faults still enter the gate.  A revoke of a DEAD object that still
 * has disconnected files runs a full cycle on them.
 *
 * States: LIVE -> REVOKING -> LIVE | DEAD, and DEAD -> REVOKING -> DEAD
 * for a revoke after a disconnect.  Whoever moves the object to REVOKING
 * runs the cycle; a second revoker waits for that cycle to end, which
 * covers it (no file can be opened while REVOKING).  Opens arriving while
 * REVOKING wait for the end of the cycle.
 *
 * The gate.  Every proxy runs the driver's method between revoke_enter()
 * and revoke_exit().  revoke_enter() tests the file's mark and increments
 * a per-CPU counter of the object inside an RCU read-side section;
 * revoke_exit() decrements it and, if a cycle is draining, wakes it.  The
 * cycle marks the files, then synchronize_rcu(): every enter that missed
 * the mark has incremented by then, every later one sees the mark.  From
 * then on the counters only go down, so their sum reaching zero means no
 * operation is left inside the driver.  The hot path has no atomic
 * instruction and no barrier: a load and test of the mark, this_cpu_inc()
 * and this_cpu_dec() (one instruction each on x86), a load and test of
 * ->draining, and two preempt_disable()/preempt_enable() pairs.  A
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
 * while select(), poll() or epoll still watch the file.
 *
 * Mappings.  Only shared mappings are allowed: a private mapping could
 * keep device pages the zap does not reach.  The driver's vm_ops are
 * wrapped; the fault-type methods are gated.  ->open and ->close are always
 * called, even after revocation (a wrapper could neither skip nor defer
 * them safely: they may manage references the mapping holds), so they may
 * only touch what the mapping itself keeps alive.  Until the file is
 * revoked they run inside the gate: one that started before the revoke is
 * waited for, and one that sees revoke_file_revoked(vma->vm_file) runs
 * after the mark, so a driver that counts its mappings per device can
 * leave those to its ->release (ALSA's PCM mmap_count).
 *
 * Locking: obj->lock (spinlock) protects the fields marked (L) in
 * internal.h and the lists of files; it is taken in process context only,
 * may nest inside a subsystem's spinlock (ALSA's card->files_lock, for a
 * disconnect) and is never held across a driver call.  rf->poll_wq.lock protects rf->pollers;
 * rf->vm_lock protects rf->vm_proxies.  Cycles of one object are
 * serialized by the REVOKING state.
 */

#include <linux/file.h>
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
#include <linux/slab.h>
#include <linux/uio.h>

#include "internal.h"

struct vfsmount *revoke_mnt __ro_after_init;

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

static __always_inline void revoke_exit(struct revoke_file *rf)
{
	lock_map_release(&rf->obj->dep_map);
	rcu_read_lock_sched();
	this_cpu_dec(*rf->active);
	if (unlikely(READ_ONCE(rf->obj->draining)))
		wake_up(&rf->obj->drain_wq);
	rcu_read_unlock_sched();
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

/* Wait until every operation that entered before the files were marked
 * has left the driver.  The caller must not be inside one.
 */
static void revoke_drain(struct revoke_object *obj)
{
	/* A sync point for lockdep, as synchronize_srcu() (6.12 has no stub). */
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	lock_map_sync(&obj->dep_map);
#endif
	WRITE_ONCE(obj->draining, true);
	synchronize_rcu();
	wait_event(obj->drain_wq, revoke_active_ops(obj) == 0);
	WRITE_ONCE(obj->draining, false);
}

/*
 * What the operations of a revoked file return: -ENXIO, or -ENODEV if it
 * was revoked because its device went away (revoke_object_kill()), as the
 * driver itself would have answered after an unplug.  Only read once the
 * file was seen revoked.
 */
static int revoke_err(const struct revoke_file *rf)
{
	smp_rmb();	/* pairs with the smp_wmb() in revoke_mark() */
	return READ_ONCE(rf->err);
}

/* Under obj->lock, once per file: from now on its operations fail. */
static void revoke_mark(struct revoke_object *obj, struct revoke_file *rf)
{
	if (rf->revoked) {
		/* A revoke after a disconnect: its mappings go too. */
		if (!obj->disconnect)
			WRITE_ONCE(rf->unmapped, true);
		return;
	}
	WRITE_ONCE(rf->err, obj->kill ? -ENODEV : -ENXIO);
	smp_wmb();	/* pairs with the smp_rmb() in revoke_err() */
	WRITE_ONCE(rf->revoked, true);
	if (!obj->disconnect)
		WRITE_ONCE(rf->unmapped, true);
}

/* Proxies of file_operations ------------------------------------------ */

static int revoke_fop_release(struct inode *inode, struct file *file);

static inline struct revoke_file *revoke_file_of(const struct file *file)
{
	return container_of(file->f_op, struct revoke_file, fops);
}

/*
 * The gate of a file's mappings: closed by a revoke, left open by a
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

static int revoke_fop_iopoll(struct kiocb *iocb, struct io_comp_batch *iob,
			     unsigned int flags)
{
	struct revoke_file *rf = revoke_file_of(iocb->ki_filp);

	return REVOKE_CALL(rf, revoke_err(rf), rf->real->iopoll(iocb, iob, flags));
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

static int revoke_fop_lock(struct file *file, int cmd, struct file_lock *fl)
{
	struct revoke_file *rf = revoke_file_of(file);

	return REVOKE_CALL(rf, revoke_err(rf), rf->real->lock(file, cmd, fl));
}

static int revoke_fop_flock(struct file *file, int cmd, struct file_lock *fl)
{
	struct revoke_file *rf = revoke_file_of(file);

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

static int revoke_fop_uring_cmd(struct io_uring_cmd *ioucmd,
				unsigned int issue_flags)
{
	struct revoke_file *rf = revoke_file_of(ioucmd->file);

	return REVOKE_CALL(rf, revoke_err(rf), rf->real->uring_cmd(ioucmd, issue_flags));
}

static int revoke_fop_uring_cmd_iopoll(struct io_uring_cmd *ioucmd,
				       struct io_comp_batch *iob,
				       unsigned int poll_flags)
{
	struct revoke_file *rf = revoke_file_of(ioucmd->file);

	return REVOKE_CALL(rf, revoke_err(rf),
			   rf->real->uring_cmd_iopoll(ioucmd, iob, poll_flags));
}

/* Polling -------------------------------------------------------------- */

/* A forwarder: sits on a driver wait queue, wakes the file's poll_wq. */
struct revoke_poll_fwd {
	wait_queue_entry_t wait;
	wait_queue_head_t *whead;
	struct revoke_file *rf;
	struct list_head node;		/* revoke_file.pollers */
};

struct revoke_poll_table {
	poll_table pt;
	struct revoke_file *rf;
	bool failed;
};

static int revoke_poll_wake(wait_queue_entry_t *wait, unsigned int mode,
			    int sync, void *key)
{
	struct revoke_poll_fwd *fwd = container_of(wait, struct revoke_poll_fwd,
						   wait);

	__wake_up(&fwd->rf->poll_wq, mode, 1, key);
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
		if (fwd->whead == whead) {
			spin_unlock_irqrestore(&rf->poll_wq.lock, flags);
			return;
		}
	}
	spin_unlock_irqrestore(&rf->poll_wq.lock, flags);

	new = kmalloc(sizeof(*new), GFP_KERNEL);
	if (!new) {
		rpt->failed = true;
		return;
	}
	init_waitqueue_func_entry(&new->wait, revoke_poll_wake);
	new->whead = whead;
	new->rf = rf;

	spin_lock_irqsave(&rf->poll_wq.lock, flags);
	list_for_each_entry(fwd, &rf->pollers, node) {
		if (fwd->whead == whead) {
			spin_unlock_irqrestore(&rf->poll_wq.lock, flags);
			kfree(new);
			return;
		}
	}
	list_add(&new->node, &rf->pollers);
	spin_unlock_irqrestore(&rf->poll_wq.lock, flags);
	add_wait_queue(whead, &new->wait);
}

/* Take the forwarders off the driver's queues; no poll runs concurrently. */
static void revoke_poll_detach(struct revoke_file *rf)
{
	struct revoke_poll_fwd *fwd, *tmp;
	LIST_HEAD(list);

	/* Never polled: the usual case, and nobody can add one now. */
	if (list_empty(&rf->pollers))
		return;
	spin_lock_irq(&rf->poll_wq.lock);
	list_splice_init(&rf->pollers, &list);
	spin_unlock_irq(&rf->poll_wq.lock);

	list_for_each_entry_safe(fwd, tmp, &list, node) {
		remove_wait_queue(fwd->whead, &fwd->wait);
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
		return EPOLLERR | EPOLLHUP;

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

/* Mappings ------------------------------------------------------------- */

static inline struct revoke_vm_proxy *revoke_vm_proxy_of(struct vm_area_struct *vma)
{
	return container_of(vma->vm_ops, struct revoke_vm_proxy, ops);
}

static vm_fault_t revoke_vm_fault(struct vm_fault *vmf)
{
	struct revoke_vm_proxy *p = revoke_vm_proxy_of(vmf->vma);

	return REVOKE_VM_CALL(p->rf, (vm_fault_t)VM_FAULT_SIGBUS,
			   p->real->fault(vmf));
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

/* Gated where a page could come back after the zap; see the top. */
static void revoke_vm_proxy_init(struct revoke_vm_proxy *p,
				 const struct vm_operations_struct *real)
{
	const struct vm_operations_struct ops = {
		.open = real->open ? revoke_vm_open : NULL,
		.close = real->close ? revoke_vm_close : NULL,
		.may_split = real->may_split,
		.mremap = real->mremap,
		.mprotect = real->mprotect,
		.pagesize = real->pagesize,
		.name = real->name,
#ifdef CONFIG_NUMA
		.set_policy = real->set_policy,
		.get_policy = real->get_policy,
#endif
		.find_special_page = real->find_special_page,
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

static int revoke_fop_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct revoke_file *rf = revoke_file_of(file);
	struct revoke_vm_proxy *p, *spare;
	int ret;

	if (!revoke_enter(rf))
		return revoke_err(rf);

	/* The BSDs' answer too: private copies of device pages escape. */
	ret = -EINVAL;
	if (!(vma->vm_flags & VM_MAYSHARE))
		goto out;

	/* Allocate first: a failure after ->mmap could not be undone. */
	ret = -ENOMEM;
	spare = kzalloc(sizeof(*spare), GFP_KERNEL);
	if (!spare)
		goto out;

	ret = rf->real->mmap(file, vma);
	if (ret || WARN_ON_ONCE(vma->vm_file != file)) {
		kfree(spare);
		goto out;
	}

	spin_lock(&rf->vm_lock);
	list_for_each_entry(p, &rf->vm_proxies, node) {
		if (p->real == vma->vm_ops)
			goto found;
	}
	p = spare;
	spare = NULL;
	p->rf = rf;
	revoke_vm_proxy_init(p, vma->vm_ops);
	list_add(&p->node, &rf->vm_proxies);
found:
	spin_unlock(&rf->vm_lock);
	kfree(spare);
	/* The vma is not visible to anybody yet. */
	vma->vm_ops = &p->ops;
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
	rf->obj = obj;
	rf->active = obj->active;
	rf->file = NULL;
	INIT_LIST_HEAD(&rf->node);
	rf->revoked = false;
	rf->unmapped = false;
	rf->woken = false;
	rf->fasync_off = false;
	rf->claimed = false;
	rf->held = false;
	rf->released = false;
	init_waitqueue_head(&rf->poll_wq);
	INIT_LIST_HEAD(&rf->pollers);
	spin_lock_init(&rf->vm_lock);
	INIT_LIST_HEAD(&rf->vm_proxies);
	return rf;
}

static void revoke_file_free(struct revoke_file *rf)
{
	struct revoke_vm_proxy *p, *tmp;

	list_for_each_entry_safe(p, tmp, &rf->vm_proxies, node)
		kfree(p);
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
	 * Early, or at the last close of a disconnected file whose
	 * switch-off no longer reached the driver.
	 */
	if ((early || READ_ONCE(rf->fasync_off)) && rf->real->fasync)
		rf->real->fasync(-1, file, 0);
	revoke_poll_detach(rf);
	if (rf->real->release)
		return rf->real->release(file_inode(file), file);
	return 0;
}

static int revoke_fop_release(struct inode *inode, struct file *file)
{
	struct revoke_file *rf = revoke_file_of(file);
	struct revoke_object *obj = rf->obj;
	bool claimed;
	int ret = 0;

	spin_lock(&obj->lock);
	claimed = rf->claimed;
	if (!claimed)
		list_del_init(&rf->node);
	spin_unlock(&obj->lock);

	/*
	 * A cycle took the file: it released the driver's side already, or
	 * it is doing so right now if the file was closing when it came.
	 */
	if (claimed) {
		/* Pairs with smp_store_release() in revoke_cycle(). */
		wait_event(obj->state_wq, smp_load_acquire(&rf->released));
	} else {
		ret = revoke_file_release_driver(rf, false);
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

static bool revoke_cycle_idle(struct revoke_object *obj)
{
	bool idle;

	spin_lock(&obj->lock);
	idle = !obj->nr_opening;
	spin_unlock(&obj->lock);
	return idle;
}

/* Called by whoever moved the object from LIVE to REVOKING. */
static void revoke_cycle(struct revoke_object *obj)
{
	struct revoke_file *rf, *tmp;
	bool any_held = false;
	LIST_HEAD(files);

	/*
	 * 1. mark.  A file whose count already dropped to zero is being
	 * closed: no operation can be inside it, and its __fput() waits in
	 * revoke_fop_release() for us to release it (waiting for __fput()
	 * instead could wait for ourselves, from task work).
	 */
	spin_lock(&obj->lock);
	list_for_each_entry(rf, &obj->files, node) {
		revoke_mark(obj, rf);
		rf->claimed = true;
		rf->held = atomic_long_inc_not_zero(&rf->file->f_count);
		any_held |= rf->held;
	}
	list_splice_init(&obj->files, &files);
	spin_unlock(&obj->lock);

	/*
	 * With no file held, nothing can be inside the driver (an operation
	 * holds its file) and nothing is mapped (a mapping holds its file).
	 */
	if (any_held) {
		/* 2. wake */
		list_for_each_entry(rf, &files, node) {
			if (!rf->held)
				continue;
			if (rf->real->revoke)
				rf->real->revoke(rf->file);
			wake_up_poll(&rf->poll_wq, EPOLLERR | EPOLLHUP);
		}

		/* 3. drain */
		revoke_drain(obj);

		/* 4. zap: every mapping of every file of the object */
		unmap_mapping_range(obj->inode->i_mapping, 0, 0, 1);
	}

	/* 5. release */
	list_for_each_entry_safe(rf, tmp, &files, node) {
		revoke_file_release_driver(rf, true);
		if (rf->held) {
			rf->released = true;
			continue;
		}
		list_del_init(&rf->node);
		/* Its __fput() frees it as soon as it sees this. */
		smp_store_release(&rf->released, true);
		wake_up_all(&obj->state_wq);
	}

	/*
	 * 6. opens that raced with the cycle fail (revoke_file_open() sees the
	 * sequence number move), and need not be waited for, except by a
	 * kill: the driver is going away.  A blocked ->open (ALSA waits for
	 * a busy substream) could make a plain revoke wait forever.
	 */
	spin_lock(&obj->lock);
	while (obj->kill && obj->nr_opening) {
		spin_unlock(&obj->lock);
		wait_event(obj->state_wq, revoke_cycle_idle(obj));
		spin_lock(&obj->lock);
	}
	obj->state = obj->kill ? REVOKE_DEAD : REVOKE_LIVE;
	obj->done_seq = obj->seq;
	spin_unlock(&obj->lock);
	wake_up_all(&obj->state_wq);

	list_for_each_entry_safe(rf, tmp, &files, node) {
		list_del_init(&rf->node);
		fput(rf->file);
	}
}

static bool revoke_cycle_done(struct revoke_object *obj, unsigned long seq)
{
	bool done;

	spin_lock(&obj->lock);
	done = obj->done_seq >= seq;
	spin_unlock(&obj->lock);
	return done;
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
		obj->state = REVOKE_REVOKING;
		obj->seq++;
		run = true;
		fallthrough;
	case REVOKE_REVOKING:
		*seq = obj->seq;
		break;
	case REVOKE_DEAD:
		/* Disconnected files are still there: revoke them for real. */
		if (obj->disconnect && !list_empty(&obj->files)) {
			obj->state = REVOKE_REVOKING;
			obj->disconnect = false;
			obj->seq++;
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

static void revoke_object_sync(struct revoke_object *obj, bool kill)
{
	unsigned long seq;

	might_sleep();
	for (;;) {
		if (revoke_cycle_start(obj, kill, &seq)) {
			revoke_cycle(obj);
			return;
		}
		if (!seq)
			return;
		wait_event(obj->state_wq, revoke_cycle_done(obj, seq));
		/* That cycle may have been a disconnect: look again. */
		if (!READ_ONCE(obj->disconnect))
			return;
	}
}

/**
 * revoke_object_revoke - revoke every open file of an object
 * @obj: the object
 *
 * When this returns, every file opened on @obj before the call is revoked:
 * its operations fail with -ENXIO and its poll reports EPOLLERR | EPOLLHUP;
 * no operation of those files is still inside the driver; their shared
 * mappings are torn down and raise SIGBUS; the driver's ->release ran for
 * each of them.  Files opened after the call work normally.  An open that
 * races with the call either fails with -ENXIO or yields a working file.
 * Concurrent calls are serialized and all return when the files are gone.
 *
 * Context: Process context, may sleep.  Must not be called from inside an
 * operation of @obj (it would wait for itself); use
 * revoke_object_revoke_nowait() there.
 */
void revoke_object_revoke(struct revoke_object *obj)
{
	revoke_object_sync(obj, false);
}
EXPORT_SYMBOL_GPL(revoke_object_revoke);

/**
 * revoke_object_kill - revoke every open file of an object, for good
 * @obj: the object
 *
 * Like revoke_object_revoke(), and afterwards every open of @obj fails with
 * -ENXIO.  This is what unplug needs: when it returns, the driver's
 * file_operations are never entered again for @obj.  The files it revokes
 * answer -ENODEV rather than -ENXIO, as drivers have always answered after
 * an unplug, so that user space keeps telling a device that went away from
 * one that was taken away.
 *
 * Context: Process context, may sleep.  Must not be called from inside an
 * operation of @obj, nor with a lock held that an operation of @obj may
 * wait for.
 */
void revoke_object_kill(struct revoke_object *obj)
{
	revoke_object_sync(obj, true);
}
EXPORT_SYMBOL_GPL(revoke_object_kill);

/*
 * A disconnect: wake like a revoke, but leave the files on the object, so
 * that their driver state and mappings last until their last close, which
 * releases them as usual.
 */
static void revoke_disconnect_cycle(struct revoke_object *obj)
{
	struct revoke_file *rf;
	struct file *file;

	for (;;) {
		file = NULL;
		spin_lock(&obj->lock);
		list_for_each_entry(rf, &obj->files, node) {
			if (rf->woken ||
			    !atomic_long_inc_not_zero(&rf->file->f_count))
				continue;
			rf->woken = true;
			file = rf->file;
			break;
		}
		spin_unlock(&obj->lock);
		if (!file)
			break;
		/* Our reference keeps @rf; the file is off no list before. */
		if (rf->real->revoke)
			rf->real->revoke(file);
		wake_up_poll(&rf->poll_wq, EPOLLERR | EPOLLHUP);
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
	spin_unlock(&obj->lock);
	wake_up_all(&obj->state_wq);
}

static void revoke_object_work(struct work_struct *work)
{
	struct revoke_object *obj = container_of(work, struct revoke_object,
						 work);

	if (READ_ONCE(obj->disconnect))
		revoke_disconnect_cycle(obj);
	else
		revoke_cycle(obj);
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
		obj->state = REVOKE_REVOKING;
		obj->seq++;
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
 * once and its operations fail with -ENODEV from now on; a work item calls
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
struct revoke_object *__revoke_object_create(const char *name,
					     struct lock_class_key *key)
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
	INIT_LIST_HEAD(&obj->files);
	init_waitqueue_head(&obj->state_wq);
	init_waitqueue_head(&obj->drain_wq);
	lockdep_init_map(&obj->dep_map, name, key, 0);
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

	WARN_ON(!list_empty(&obj->files));
	WARN_ON(obj->chr_count);
	iput(obj->inode);
	free_percpu(obj->active);
	/* revoke_chrdev_get() may still look at it. */
	kfree_rcu(obj, rcu);
}

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

/* An admitted open is over; a cycle may be waiting for it (step 6). */
static void revoke_open_done(struct revoke_object *obj)
{
	bool wake;

	spin_lock(&obj->lock);
	wake = !--obj->nr_opening && obj->state == REVOKE_REVOKING;
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
 * driver's ->release when ->open had succeeded).
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
	obj->nr_opening++;
	kref_get(&obj->kref);
	spin_unlock(&obj->lock);

	rf->file = file;
	file->f_op = &rf->fops;
	file->f_mapping = obj->inode->i_mapping;

	ret = fops->open ? fops->open(inode, file) : 0;

	if (!ret && WARN_ONCE(file->f_op != &rf->fops,
			      "revoke: %ps replaced f_op in ->open\n",
			      fops->open)) {
		/* Not ours any more, and not revocable. */
		if (file->f_mapping == obj->inode->i_mapping)
			file->f_mapping = inode->i_mapping;
		revoke_open_done(obj);
		revoke_file_free(rf);
		revoke_object_put(obj);
		return 0;
	}

	spin_lock(&obj->lock);
	if (!ret && obj->seq == seq) {
		/* Still LIVE: a cycle cannot end while we are opening. */
		list_add_tail(&rf->node, &obj->files);
		obj->nr_opening--;
		spin_unlock(&obj->lock);
		return 0;
	}
	spin_unlock(&obj->lock);

	if (!ret) {
		/* Revoked before it was ever visible: undo the open. */
		revoke_file_release_driver(rf, false);
		ret = -ENXIO;
	}
	revoke_open_done(obj);
	file->f_op = fops;
	file->f_mapping = inode->i_mapping;
	revoke_object_put(obj);
err_free:
	revoke_file_free(rf);
	return ret;
}
EXPORT_SYMBOL_GPL(revoke_file_open);

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
 * because its device went away.
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
	revoke_file_cache = KMEM_CACHE(revoke_file, SLAB_PANIC);
	revoke_mnt = kern_mount(&revoke_fs_type);
	if (IS_ERR(revoke_mnt))
		panic("revoke: cannot mount the revoke pseudo file system: %ld\n",
		      PTR_ERR(revoke_mnt));
	return 0;
}
core_initcall(revoke_init);
