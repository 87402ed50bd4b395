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
 * Fields marked (L) are protected by @lock.
 */
struct revoke_object {
	struct kref kref;
	spinlock_t lock;		/* the fields marked (L) */
	enum revoke_state state;	/* (L) */
	bool kill;			/* (L) the running cycle ends DEAD */
	bool disconnect;		/* (L) it keeps files and mappings */
	unsigned long seq;		/* (L) cycles started */
	unsigned long done_seq;		/* (L) cycles finished */
	unsigned int nr_opening;	/* (L) opens admitted, ->open running */
	struct list_head files;		/* (L) live files: revoke_file.node */
	wait_queue_head_t state_wq;	/* cycle end, openers, releases */

	/* The operation gate: ops inside the driver, per CPU. */
	unsigned long __percpu *active;
	bool draining;			/* a cycle waits for @active to be 0 */
	wait_queue_head_t drain_wq;
	struct lockdep_map dep_map;	/* the gate, for lockdep */

	struct inode *inode;		/* its i_mapping is every f_mapping */

	/* The proxy of proxy_real, copied into each file (set once). */
	const struct file_operations *proxy_real;
	const struct file_operations proxy;
	struct work_struct work;	/* revoke_object_revoke_nowait() */

	/* Char device numbers, see revoke_chrdev_register(). */
	dev_t chr_dev;
	unsigned int chr_count;

	struct rcu_head rcu;
};

/* One shared mapping's vm_operations_struct, wrapped; see revoke_fop_mmap. */
struct revoke_vm_proxy {
	const struct vm_operations_struct ops;	/* vm_ops; set once */
	const struct vm_operations_struct *real;
	struct revoke_file *rf;
	struct list_head node;		/* revoke_file.vm_proxies */
};

/*
 * struct revoke_file - per open file state
 *
 * @fops is the file's f_op for its whole life (its slots mirror @real's),
 * so that container_of(file->f_op) finds this struct without any field in
 * struct file.
 */
struct revoke_file {
	const struct file_operations fops;	/* f_op; set once at open */
	const struct file_operations *real;
	struct revoke_object *obj;
	unsigned long __percpu *active;	/* obj->active, one load less */
	struct file *file;
	struct list_head node;		/* obj->files (L), or a cycle's list */
	bool revoked;			/* set once under obj->lock, read lockless */
	bool unmapped;			/* ditto; its mappings fault no more */
	bool woken;			/* (L) a disconnect ran its ->revoke */
	bool fasync_off;		/* its proxy skipped ->fasync(-1) */
	int err;			/* what revoked operations return */
	bool claimed;			/* (L) a cycle took it and releases it */
	bool held;			/* the cycle holds a reference */
	bool released;			/* the cycle ran the driver's release */

	/* Pollers sleep on @poll_wq; forwarders sit on the driver's queues. */
	wait_queue_head_t poll_wq;
	struct list_head pollers;	/* (poll_wq.lock) revoke_poll_fwd */

	spinlock_t vm_lock;		/* @vm_proxies */
	struct list_head vm_proxies;	/* revoke_vm_proxy.node */
};

extern struct vfsmount *revoke_mnt;

unsigned long revoke_active_ops(struct revoke_object *obj);
struct revoke_object *revoke_chrdev_get(dev_t dev);

#endif /* _DRIVERS_REVOKE_INTERNAL_H */
