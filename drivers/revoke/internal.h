/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internals of the revoke framework, shared by core.c, chardev.c and the
 * KUnit suites.  Drivers use include/linux/revoke.h only.
 */
#ifndef _DRIVERS_REVOKE_INTERNAL_H
#define _DRIVERS_REVOKE_INTERNAL_H

#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

/* States of a revoke_object; see the comment at the top of core.c. */
enum revoke_state {
	REVOKE_LIVE,		/* files open and work */
	REVOKE_REVOKING,	/* a cycle takes the files away; opens wait */
	REVOKE_DEAD,		/* killed: opens fail with -ENXIO for good */
};

/*
 * struct revoke_object - one revocable device
 *
 * Fields marked (L) are protected by @lock; @held belongs to the running
 * cycle.
 */
struct revoke_object {
	struct kref kref;
	spinlock_t lock;		/* the fields marked (L) */
	enum revoke_state state;	/* (L) */
	bool kill;			/* (L) the running cycle ends DEAD */
	bool disconnect;		/* (L) it keeps files and mappings */
	bool resume;			/* (L) the work item finishes a cycle */
	unsigned long seq;		/* (L) cycles started */
	unsigned long done_seq;		/* (L) cycles finished */
	u64 cycle_gen;			/* (L) revoke_cycles at the last start */
	struct task_struct *cycle_task;	/* (L) who runs the cycle, if any */
	struct list_head openers;	/* (L) ->open running: revoke_task */
	struct list_head closers;	/* (L) ->release running: revoke_task */
	struct list_head files;		/* (L) live files: revoke_file.node */
	struct list_head cycle;		/* (L) the cycle's closing files */
	struct list_head held;		/* the cycle's files, with a reference */
	wait_queue_head_t state_wq;	/* cycle end, openers, releases */

	/* The operation gate: ops inside the driver, per CPU. */
	unsigned long __percpu *active;
	struct lockdep_map dep_map;	/* the gate, for lockdep */
	struct lock_class_key key;	/* its class, the object's own */

	struct inode *inode;		/* its i_mapping is every f_mapping */
	pgoff_t keep_start, keep_nr;	/* offsets a revoke leaves mapped */
	void (*keep_fill)(void *page, pgoff_t pgoff);	/* set once */

	/* The proxy of proxy_real, copied into each file (set once). */
	const struct file_operations *proxy_real;
	const struct file_operations proxy;
	struct work_struct work;	/* the nowait and interrupted cycles */

	/* Char device numbers, see revoke_chrdev_register(). */
	dev_t chr_dev;
	unsigned int chr_count;
	void *chr_prev;			/* the value entry it replaced */

	struct rcu_head rcu;
};

/*
 * A task in the driver's ->open or ->release of a file of the object, on
 * its stack: a kill waits for them, but for its own.
 */
struct revoke_task {
	struct list_head node;		/* revoke_object.openers, .closers */
	struct task_struct *task;
};

/* One shared mapping's vm_operations_struct, wrapped; see revoke_fop_mmap. */
struct revoke_vm_proxy {
	const struct vm_operations_struct ops;	/* vm_ops; set once */
	const struct vm_operations_struct *real;
	struct revoke_file *rf;
	struct list_head node;		/* revoke_file.vm_proxies */
};

/* An address space that mapped a file: see revoke_wait_mmaps(). */
struct revoke_mm {
	struct mm_struct *mm;		/* mmgrab()bed */
	unsigned int seq;		/* its mm_lock_seq in the last ->mmap */
	struct list_head node;		/* revoke_file.mms */
};

/* Who releases a file a cycle took (revoke_file.rel, under obj->lock). */
enum revoke_rel {
	REVOKE_REL_NONE,	/* on obj->files: its last close */
	REVOKE_REL_CLAIMED,	/* closing, on obj->cycle: whoever comes first */
	REVOKE_REL_CYCLE,	/* the cycle; rf->released once done */
	REVOKE_REL_CLOSE,	/* its last close, which took it off obj->cycle */
};

/*
 * struct revoke_file - per open file state
 *
 * @fops is the file's f_op for its whole life (its slots mirror @real's),
 * so that container_of(file->f_op) finds this struct without any field in
 * struct file.  The fields every operation reads follow it, in one cache
 * line.
 */
struct revoke_file {
	const struct file_operations fops;	/* f_op; set once at open */
	const struct file_operations *real;
	unsigned long __percpu *active;	/* obj->active, one load less */
	bool revoked;			/* set once under obj->lock, read lockless */
	bool unmapped;			/* ditto; its mappings fault no more */
	bool woken;			/* its ->revoke ran (disconnect or cycle) */
	bool fasync_off;		/* its proxy skipped ->fasync(-1) */
	bool held;			/* the cycle holds a reference */
	bool released;			/* the cycle ran the driver's release */
	enum revoke_rel rel;		/* (L) */
	int err;			/* what revoked operations return */
	__poll_t poll_err;		/* what poll reports once revoked */
	struct revoke_object *obj;
	struct file *file;
	struct list_head node;		/* obj->files, ->cycle (L), ->held */

	/* Pollers sleep on @poll_wq; forwarders sit on the driver's queues. */
	wait_queue_head_t poll_wq;
	struct list_head pollers;	/* (poll_wq.lock) revoke_poll_fwd */

	spinlock_t vm_lock;		/* @vm_proxies, @mms */
	struct list_head vm_proxies;	/* revoke_vm_proxy.node */
	struct list_head mms;		/* revoke_mm.node */
};

extern struct vfsmount *revoke_mnt;

unsigned long revoke_active_ops(struct revoke_object *obj);

#if IS_ENABLED(CONFIG_REVOKE_KUNIT_TEST)
/* List steps of disconnect cycles, for the KUnit suite. */
extern unsigned long revoke_kunit_steps;
#define revoke_kunit_step()	(revoke_kunit_steps++)
/* Called when a cycle has ended, before it drops its references. */
extern void (*revoke_kunit_cycle_ended)(struct revoke_object *obj);
/* Called when a poll has published a new forwarder, before it hooks it. */
extern void (*revoke_kunit_poll_published)(struct file *file);
#else
#define revoke_kunit_step()	do { } while (0)
#endif
struct revoke_object *revoke_chrdev_get(dev_t dev);

#endif /* _DRIVERS_REVOKE_INTERNAL_H */
