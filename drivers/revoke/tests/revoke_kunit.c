// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites of the revoke framework.
 *
 * A fake driver ("kd") stands in for a char driver: its read blocks until
 * the file is revoked or the test lets it go, its ioctl can revoke its own
 * object, its poll uses a device wait queue, and its per-file state is
 * allocated by ->open and freed by ->release, so that KASAN sees any use
 * after an early release.  Files are anonymous-inode files opened through
 * revoke_file_open(), or real char device files opened through
 * chrdev_open() for the cdev suite.
 */

#include <kunit/test.h>
#include <kunit/visibility.h>
#include <linux/anon_inodes.h>
#include <linux/cdev.h>
#include <linux/delay.h>
#include <linux/file.h>
#include <linux/filelock.h>
#include <linux/fs.h>
#include <linux/io_uring/cmd.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/mount.h>
#include <linux/poll.h>
#include <linux/revoke.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "../internal.h"

#define KD_SELF_REVOKE	1

struct kd_dev {
	struct revoke_object *obj;
	wait_queue_head_t wait;
	atomic_t opens, releases, revokes;
	atomic_t in_read;		/* readers inside kd_read */
	bool unblock;			/* let blocked readers go */
	bool slow_exit;			/* readers dawdle after waking */
	bool slow_open;			/* ->open takes its time */
	bool slow_release;		/* ->release takes its time */
	bool kill_in_release;		/* ->release kills the object, once */
	bool kill_in_open_late;		/* ->open kills it after a while */
	unsigned int open_ms;		/* ->open sleeps that long */
	unsigned int exit_ms;		/* a woken reader dawdles that long */
	atomic_t in_open;
	bool mmap_locks;		/* ->mmap takes kd_device_lock */
	atomic_t in_release, in_mmap;
	bool read_done;			/* a reader returned from the driver */
	bool self_revoked;		/* seen by KD_SELF_REVOKE */
	bool kill_in_open;		/* ->open kills the object */
	bool mmap_no_vm_ops;		/* ->mmap maps its page, no vm_ops */
	struct page *page;		/* what ->mmap and ->fault map */
	atomic_t flocks, unlocks, iopolls, cmds, cancels, faults;
};

struct kd_file {
	struct kd_dev *dev;
	unsigned long magic;
	wait_queue_head_t *pwq;		/* kd_misc_fops: a queue of its own */
};

#define KD_MAGIC 0x6b64UL

/* The device the next kd_open() attaches to (one test runs at a time). */
static struct kd_dev *kd_next;

static int kd_open(struct inode *inode, struct file *file)
{
	struct kd_file *kf = kzalloc(sizeof(*kf), GFP_KERNEL);

	if (!kf)
		return -ENOMEM;
	kf->dev = kd_next;
	kf->magic = KD_MAGIC;
	file->private_data = kf;
	atomic_inc(&kf->dev->opens);
	atomic_inc(&kf->dev->in_open);
	/* Widens the window for a revoke to start during ->open. */
	if (kf->dev->slow_open)
		usleep_range(500, 1000);
	if (kf->dev->open_ms)
		msleep(kf->dev->open_ms);
	/* The hardware is found gone, while a revoke runs. */
	if (kf->dev->kill_in_open_late)
		revoke_object_kill(kf->dev->obj);
	return 0;
}

static int kd_release(struct inode *inode, struct file *file)
{
	struct kd_file *kf = file->private_data;

	WARN_ON(kf->magic != KD_MAGIC);
	atomic_inc(&kf->dev->in_release);
	/* A kill that returned before this ends would see releases lag. */
	if (kf->dev->slow_release)
		msleep(200);
	/* The last close tears the device down (cdev_del()). */
	if (xchg(&kf->dev->kill_in_release, false))
		revoke_object_kill(kf->dev->obj);
	atomic_inc(&kf->dev->releases);
	kfree(kf->pwq);
	kfree(kf);
	return 0;
}

static int kd_revoke(struct file *file)
{
	struct kd_file *kf = file->private_data;

	atomic_inc(&kf->dev->revokes);
	wake_up_all(&kf->dev->wait);
	return 0;
}

static ssize_t kd_read(struct file *file, char __user *buf, size_t count,
		       loff_t *pos)
{
	struct kd_file *kf = file->private_data;
	struct kd_dev *dev = kf->dev;
	ssize_t ret = count;

	atomic_inc(&dev->in_read);
	wait_event(dev->wait,
		   READ_ONCE(dev->unblock) || revoke_file_revoked(file));
	if (revoke_file_revoked(file))
		ret = revoke_file_error(file);
	/* A revoke that did not wait for us would return before this. */
	if (dev->slow_exit)
		msleep(dev->exit_ms ?: 100);
	/* Touch the per-file state: freed early, KASAN would report it. */
	WARN_ON(kf->magic != KD_MAGIC);
	WRITE_ONCE(dev->read_done, true);
	atomic_dec(&dev->in_read);
	return ret;
}

static long kd_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct kd_file *kf = file->private_data;

	switch (cmd) {
	case KD_SELF_REVOKE:
		revoke_object_revoke_nowait(kf->dev->obj);
		kf->dev->self_revoked = revoke_file_revoked(file);
		/* Our state must survive until we return. */
		msleep(20);
		WARN_ON(kf->magic != KD_MAGIC);
		return 0;
	default:
		return -ENOTTY;
	}
}

static __poll_t kd_poll(struct file *file, poll_table *pt)
{
	struct kd_file *kf = file->private_data;

	poll_wait(file, &kf->dev->wait, pt);
	return READ_ONCE(kf->dev->unblock) ? EPOLLIN : 0;
}

static const struct file_operations kd_fops = {
	.owner = THIS_MODULE,
	.open = kd_open,
	.release = kd_release,
	.read = kd_read,
	.unlocked_ioctl = kd_ioctl,
	.poll = kd_poll,
	.revoke = kd_revoke,
};

static const struct file_operations kd_anon_fops = {
	.owner = THIS_MODULE,
};

/*
 * A second fake driver, for the methods kd_fops lacks: ->flock, the
 * io_uring methods, ->mmap; its ->poll uses a queue of the file's own that
 * the test frees with wake_up_pollfree(), as signalfd and binder do.
 */
static int kd_misc_open(struct inode *inode, struct file *file)
{
	struct kd_file *kf;
	int ret;

	ret = kd_open(inode, file);
	if (ret)
		return ret;
	kf = file->private_data;
	kf->pwq = kmalloc(sizeof(*kf->pwq), GFP_KERNEL);
	if (!kf->pwq) {
		kfree(kf);
		return -ENOMEM;
	}
	init_waitqueue_head(kf->pwq);
	/* A device going away from inside its own ->open. */
	if (kf->dev->kill_in_open)
		revoke_object_kill(kf->dev->obj);
	return 0;
}

static __poll_t kd_misc_poll(struct file *file, poll_table *pt)
{
	struct kd_file *kf = file->private_data;

	if (kf->pwq)
		poll_wait(file, kf->pwq, pt);
	return 0;
}

static int kd_flock(struct file *file, int cmd, struct file_lock *fl)
{
	struct kd_file *kf = file->private_data;

	WARN_ON(kf->magic != KD_MAGIC);
	if (lock_is_unlock(fl))
		atomic_inc(&kf->dev->unlocks);
	else
		atomic_inc(&kf->dev->flocks);
	return 0;
}

static int kd_iopoll(struct kiocb *iocb, struct io_comp_batch *iob,
		     unsigned int flags)
{
	struct kd_file *kf = iocb->ki_filp->private_data;

	WARN_ON(kf->magic != KD_MAGIC);
	atomic_inc(&kf->dev->iopolls);
	return 1;
}

static int kd_uring_cmd(struct io_uring_cmd *ioucmd, unsigned int issue_flags)
{
	struct kd_file *kf = ioucmd->file->private_data;

	WARN_ON(kf->magic != KD_MAGIC);
	if (issue_flags & IO_URING_F_CANCEL)
		atomic_inc(&kf->dev->cancels);
	else
		atomic_inc(&kf->dev->cmds);
	return 0;
}

static int kd_uring_cmd_iopoll(struct io_uring_cmd *ioucmd,
			       struct io_comp_batch *iob,
			       unsigned int poll_flags)
{
	struct kd_file *kf = ioucmd->file->private_data;

	WARN_ON(kf->magic != KD_MAGIC);
	atomic_inc(&kf->dev->iopolls);
	return 1;
}

static vm_fault_t kd_vm_fault(struct vm_fault *vmf)
{
	struct kd_dev *dev = vmf->vma->vm_private_data;

	atomic_inc(&dev->faults);
	vmf->page = dev->page;
	get_page(vmf->page);
	return 0;
}

static const struct vm_operations_struct kd_vm_ops = {
	.fault = kd_vm_fault,
};

/* A lock of the driver's that ->mmap takes, as many drivers' do. */
static DEFINE_MUTEX(kd_device_lock);

/* Sets no vm_flags: nothing keeps a new mapping from merging with it. */
static int kd_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct kd_file *kf = file->private_data;
	struct kd_dev *dev = kf->dev;

	if (dev->mmap_locks) {
		atomic_inc(&dev->in_mmap);
		mutex_lock(&kd_device_lock);
		mutex_unlock(&kd_device_lock);
	}

	vma->vm_private_data = dev;
	if (dev->mmap_no_vm_ops) {
		/* Not even the mm's dummy: vma_is_anonymous() would say yes. */
		vma->vm_ops = NULL;
		return vm_insert_page(vma, vma->vm_start, dev->page);
	}
	vma->vm_ops = &kd_vm_ops;
	return 0;
}

static const struct file_operations kd_misc_fops = {
	.owner = THIS_MODULE,
	.open = kd_misc_open,
	.release = kd_release,
	.poll = kd_misc_poll,
	.flock = kd_flock,
	.iopoll = kd_iopoll,
	.uring_cmd = kd_uring_cmd,
	.uring_cmd_iopoll = kd_uring_cmd_iopoll,
	.mmap = kd_mmap,
	.revoke = kd_revoke,
};

static struct kd_dev *kd_dev_alloc(struct kunit *test)
{
	struct kd_dev *dev = kunit_kzalloc(test, sizeof(*dev), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, dev);
	init_waitqueue_head(&dev->wait);
	return dev;
}

static struct kd_dev *kd_dev_create(struct kunit *test)
{
	struct kd_dev *dev = kd_dev_alloc(test);

	dev->obj = revoke_object_create();
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev->obj);
	return dev;
}

/* Open a file of @dev with @fops through revoke_file_open(). */
static struct file *kd_open_fops(struct kunit *test, struct kd_dev *dev,
				 const struct file_operations *fops, int *err)
{
	struct file *file;
	int ret;

	file = anon_inode_getfile("revoke-kunit", &kd_anon_fops, NULL, O_RDWR);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, file);
	kd_next = dev;
	ret = revoke_file_open(dev->obj, file_inode(file), file, fops);
	if (err)
		*err = ret;
	if (ret) {
		/* ->open did not succeed: ->release must not run. */
		file->f_op = &kd_anon_fops;
		fput(file);
		return NULL;
	}
	return file;
}

static struct file *kd_open_file(struct kunit *test, struct kd_dev *dev,
				 int *err)
{
	return kd_open_fops(test, dev, &kd_fops, err);
}
EXPORT_SYMBOL_IF_KUNIT(revoke_kunit_open);

/* Drop the last reference now rather than from a delayed work. */
static void kd_close(struct file *file)
{
	fput(file);
	flush_delayed_fput();
}

static ssize_t kd_do_read(struct file *file)
{
	loff_t pos = 0;

	return file->f_op->read(file, NULL, 1, &pos);
}

/* Life cycle: revoke, reopen, kill. */
static void revoke_test_lifecycle(struct kunit *test)
{
	struct kd_dev *dev = kd_dev_create(test);
	struct file *files[3], *fresh;
	int i, err;

	dev->unblock = true;
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		files[i] = kd_open_file(test, dev, NULL);
		KUNIT_ASSERT_NOT_NULL(test, files[i]);
		KUNIT_EXPECT_EQ(test, kd_do_read(files[i]), 1);
		KUNIT_EXPECT_FALSE(test, revoke_file_revoked(files[i]));
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->opens), 3);

	revoke_object_revoke(dev->obj);

	/* Released early, exactly once, with the driver's hook called. */
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->revokes), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->releases), 3);
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		KUNIT_EXPECT_TRUE(test, revoke_file_revoked(files[i]));
		KUNIT_EXPECT_EQ(test, kd_do_read(files[i]), -ENXIO);
		KUNIT_EXPECT_EQ(test, files[i]->f_op->unlocked_ioctl(files[i], 0, 0),
				-ENXIO);
		KUNIT_EXPECT_TRUE(test, vfs_poll(files[i], NULL) ==
					(EPOLLERR | EPOLLHUP));
	}

	/* A new open works normally. */
	fresh = kd_open_file(test, dev, NULL);
	KUNIT_ASSERT_NOT_NULL(test, fresh);
	KUNIT_EXPECT_FALSE(test, revoke_file_revoked(fresh));
	KUNIT_EXPECT_EQ(test, kd_do_read(fresh), 1);

	/* Closing revoked files does not release them again. */
	for (i = 0; i < ARRAY_SIZE(files); i++)
		kd_close(files[i]);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->releases), 3);

	/* Kill: the live file goes, and no open succeeds any more. */
	revoke_object_kill(dev->obj);
	KUNIT_EXPECT_TRUE(test, revoke_file_revoked(fresh));
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->releases), 4);
	KUNIT_EXPECT_NULL(test, kd_open_file(test, dev, &err));
	KUNIT_EXPECT_EQ(test, err, -ENXIO);
	/* Revoking a dead object is a no-op. */
	revoke_object_revoke(dev->obj);

	kd_close(fresh);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->releases), 4);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->opens), 4);
	revoke_object_put(dev->obj);
}

struct kd_reader {
	struct file *file;
	ssize_t ret;
	struct completion done;
};

static int kd_reader_fn(void *data)
{
	struct kd_reader *r = data;

	r->ret = kd_do_read(r->file);
	complete(&r->done);
	return 0;
}

static void kd_start_reader(struct kunit *test, struct kd_dev *dev,
			    struct kd_reader *r, struct file *file)
{
	struct task_struct *t;
	int n = atomic_read(&dev->in_read);

	r->file = file;
	r->ret = 0;
	init_completion(&r->done);
	t = kthread_run(kd_reader_fn, r, "kd-reader");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	/* Wait until it is inside the driver. */
	while (atomic_read(&dev->in_read) == n)
		usleep_range(1000, 2000);
}

/* A kthread blocked in an operation is woken, and revoke waits for it. */
static void revoke_test_drain(struct kunit *test)
{
	struct kd_dev *dev = kd_dev_create(test);
	struct kd_reader r;
	struct file *file;

	file = kd_open_file(test, dev, NULL);
	KUNIT_ASSERT_NOT_NULL(test, file);
	dev->slow_exit = true;
	kd_start_reader(test, dev, &r, file);
	KUNIT_EXPECT_EQ(test, revoke_active_ops(dev->obj), 1);

	revoke_object_revoke(dev->obj);

	/* The reader left the driver before revoke returned... */
	KUNIT_EXPECT_TRUE(test, READ_ONCE(dev->read_done));
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->in_read), 0);
	KUNIT_EXPECT_EQ(test, revoke_active_ops(dev->obj), 0);
	/* ...and only then was the file released. */
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->releases), 1);
	wait_for_completion(&r.done);
	KUNIT_EXPECT_EQ(test, r.ret, -ENXIO);

	kd_close(file);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->releases), 1);
	revoke_object_put(dev->obj);
}

/* Every file is released exactly once, however it goes away. */
static void revoke_test_release_once(struct kunit *test)
{
	struct kd_dev *dev = kd_dev_create(test);
	struct file *a, *b, *c;

	a = kd_open_file(test, dev, NULL);
	b = kd_open_file(test, dev, NULL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);

	/* Closed before any revoke: released by its close. */
	kd_close(a);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->releases), 1);

	/* An extra reference (a dup, a fork, an SCM_RIGHTS message). */
	get_file(b);
	revoke_object_revoke(dev->obj);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->releases), 2);
	kd_close(b);
	kd_close(b);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->releases), 2);

	/* Revoking twice releases nothing twice. */
	c = kd_open_file(test, dev, NULL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	revoke_object_revoke(dev->obj);
	revoke_object_revoke(dev->obj);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->releases), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->revokes), 2);
	kd_close(c);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->releases), 3);

	/*
	 * Revoked while closing: the last reference is gone but __fput() has
	 * not run yet (it is task work, or delayed).  Freeze that moment by
	 * hand: the cycle releases the file, __fput() later does not.
	 */
	c = kd_open_file(test, dev, NULL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	atomic_long_dec(&c->f_count);
	revoke_object_revoke(dev->obj);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->releases), 4);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->revokes), 2);
	atomic_long_inc(&c->f_count);
	kd_close(c);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->releases), 4);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->opens), 4);
	revoke_object_put(dev->obj);
}

struct kd_racer {
	struct kd_dev *dev;
	struct kunit *test;
	bool stop;
	unsigned long opened, failed, revoked_reads;
	int bad;
	struct completion done;
};

static int kd_racer_fn(void *data)
{
	struct kd_racer *r = data;
	ssize_t ret;
	int err;

	while (!READ_ONCE(r->stop)) {
		struct file *file;

		file = anon_inode_getfile("revoke-kunit", &kd_anon_fops, NULL,
					  O_RDWR);
		if (IS_ERR(file)) {
			r->bad++;
			break;
		}
		kd_next = r->dev;
		err = revoke_file_open(r->dev->obj, file_inode(file), file,
				       &kd_fops);
		if (err) {
			/* Racing with a revoke may fail, only with -ENXIO. */
			if (err != -ENXIO)
				r->bad++;
			r->failed++;
			file->f_op = &kd_anon_fops;
			fput(file);
			continue;
		}
		r->opened++;
		/* Give a revoke the time to come by. */
		usleep_range(200, 500);
		/* A file is either fully working or revoked. */
		ret = kd_do_read(file);
		if (ret == -ENXIO)
			r->revoked_reads++;
		else if (ret != 1)
			r->bad++;
		fput(file);
		cond_resched();
	}
	complete(&r->done);
	return 0;
}

/* Opens, reads and closes racing with revokes from another CPU. */
static void revoke_test_open_race(struct kunit *test)
{
	struct kd_dev *dev = kd_dev_create(test);
	struct kd_racer r = { .dev = dev, .test = test };
	struct task_struct *t;
	int i;

	dev->unblock = true;
	dev->slow_open = true;
	init_completion(&r.done);
	t = kthread_run(kd_racer_fn, &r, "kd-racer");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	for (i = 0; i < 300; i++) {
		revoke_object_revoke(dev->obj);
		usleep_range(100, 1000);
	}
	WRITE_ONCE(r.stop, true);
	wait_for_completion(&r.done);
	flush_delayed_fput();
	revoke_object_revoke(dev->obj);

	kunit_info(test, "%lu opens, %lu failed, %lu reads revoked",
		   r.opened, r.failed, r.revoked_reads);
	KUNIT_EXPECT_EQ(test, r.bad, 0);
	KUNIT_EXPECT_GT(test, r.opened, 0UL);
	/* The races did happen. */
	KUNIT_EXPECT_GT(test, r.failed + r.revoked_reads, 0UL);
	/* Every successful ->open was released exactly once. */
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->opens),
			atomic_read(&dev->releases));
	KUNIT_EXPECT_EQ(test, revoke_active_ops(dev->obj), 0);
	revoke_object_put(dev->obj);
}

/* Revoking the object from inside one of its own operations. */
static void revoke_test_self_revoke(struct kunit *test)
{
	struct kd_dev *dev = kd_dev_create(test);
	struct file *file, *other;
	long ret;

	file = kd_open_file(test, dev, NULL);
	other = kd_open_file(test, dev, NULL);
	KUNIT_ASSERT_NOT_NULL(test, file);
	KUNIT_ASSERT_NOT_NULL(test, other);

	ret = file->f_op->unlocked_ioctl(file, KD_SELF_REVOKE, 0);
	KUNIT_EXPECT_EQ(test, ret, 0);
	/* The caller's own file was marked while it was inside. */
	KUNIT_EXPECT_TRUE(test, dev->self_revoked);
	KUNIT_EXPECT_TRUE(test, revoke_file_revoked(other));

	/* A synchronous revoke joins the cycle and waits for its end. */
	revoke_object_revoke(dev->obj);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->releases), 2);
	KUNIT_EXPECT_EQ(test, kd_do_read(file), -ENXIO);

	kd_close(file);
	kd_close(other);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->releases), 2);
	revoke_object_put(dev->obj);
}

struct kd_poll_entry {
	poll_table pt;
	wait_queue_entry_t wait;
	wait_queue_head_t *whead;
	__poll_t key;
	int wakeups;
};

static int kd_poll_wake(wait_queue_entry_t *wait, unsigned int mode, int sync,
			void *key)
{
	struct kd_poll_entry *e = container_of(wait, struct kd_poll_entry, wait);

	e->key |= key_to_poll(key);
	e->wakeups++;
	return 0;
}

static void kd_poll_queue(struct file *file, wait_queue_head_t *whead,
			  poll_table *pt)
{
	struct kd_poll_entry *e = container_of(pt, struct kd_poll_entry, pt);

	e->whead = whead;
	init_waitqueue_func_entry(&e->wait, kd_poll_wake);
	add_wait_queue(whead, &e->wait);
}

/*
 * Pollers sleep on the file's own queue: wakeups of the driver's queue are
 * forwarded, and the forwarder leaves the driver's queue before ->release.
 */
static void revoke_test_poll(struct kunit *test)
{
	struct kd_dev *dev = kd_dev_create(test);
	struct kd_poll_entry e = {};
	struct file *file;

	file = kd_open_file(test, dev, NULL);
	KUNIT_ASSERT_NOT_NULL(test, file);
	init_poll_funcptr(&e.pt, kd_poll_queue);
	KUNIT_EXPECT_TRUE(test, !vfs_poll(file, &e.pt));
	KUNIT_ASSERT_NOT_NULL(test, e.whead);
	KUNIT_EXPECT_TRUE(test, e.whead != &dev->wait);
	/* A new forwarder has the file's pollers look again, once. */
	KUNIT_EXPECT_EQ(test, e.wakeups, 1);
	e.wakeups = 0;
	/* Our forwarder, the only entry of the driver's queue. */
	KUNIT_EXPECT_TRUE(test, waitqueue_active(&dev->wait));

	/* A second poll does not add a second forwarder. */
	remove_wait_queue(e.whead, &e.wait);
	KUNIT_EXPECT_TRUE(test, !vfs_poll(file, &e.pt));

	wake_up_poll(&dev->wait, EPOLLIN);
	KUNIT_EXPECT_EQ(test, e.wakeups, 1);
	KUNIT_EXPECT_TRUE(test, e.key == EPOLLIN);

	revoke_object_revoke(dev->obj);
	KUNIT_EXPECT_TRUE(test, (e.key & EPOLLHUP) != 0);
	KUNIT_EXPECT_TRUE(test, (e.key & EPOLLERR) != 0);
	/* Nothing of ours is left on the driver's queue (nobody else's). */
	KUNIT_EXPECT_FALSE(test, waitqueue_active(&dev->wait));
	KUNIT_EXPECT_TRUE(test, vfs_poll(file, NULL) == (EPOLLERR | EPOLLHUP));

	remove_wait_queue(e.whead, &e.wait);
	kd_close(file);
	revoke_object_put(dev->obj);
}

/*
 * An open whose permission check came before a revoke fails, however many
 * cycles of other objects ran while it was held up (in a fault of its
 * own, say): the cycle count must not wrap between its sample and the
 * check.
 */
static void revoke_test_open_sample_wrap(struct kunit *test)
{
	struct kd_dev *dev = kd_dev_create(test);
	struct file *file;
	u64 sample;

	sample = atomic64_read(&revoke_cycles);
	atomic64_add(1ULL << 31, &revoke_cycles);
	revoke_object_revoke(dev->obj);
	file = kd_open_file(test, dev, NULL);
	KUNIT_ASSERT_NOT_NULL(test, file);
	KUNIT_EXPECT_EQ(test, revoke_open_check(file, sample), -ENXIO);
	/* An open that sampled after the revoke keeps its file. */
	sample = atomic64_read(&revoke_cycles);
	KUNIT_EXPECT_EQ(test, revoke_open_check(file, sample), 0);
	kd_close(file);
	revoke_object_put(dev->obj);
}

static struct kd_poll_entry *kd_second_poller;

/*
 * Between publishing its forwarder and hooking it on the driver's queue,
 * the first poll lets a second poller of the file find the forwarder and
 * go to sleep, and the driver's state change and wake its queue.
 */
static void kd_poll_between(struct file *file)
{
	struct kd_file *kf = file->private_data;

	revoke_kunit_poll_published = NULL;
	init_poll_funcptr(&kd_second_poller->pt, kd_poll_queue);
	if (vfs_poll(file, &kd_second_poller->pt))
		return;
	WRITE_ONCE(kf->dev->unblock, true);
	wake_up_poll(&kf->dev->wait, EPOLLIN);
}

/*
 * A poller that found a forwarder still on its way to the driver's queue
 * learns of a wakeup the driver made before it got there.
 */
static void revoke_test_poll_first_wakeup(struct kunit *test)
{
	struct kd_dev *dev = kd_dev_create(test);
	struct kd_poll_entry first = {}, second = {};
	struct file *file;

	file = kd_open_file(test, dev, NULL);
	KUNIT_ASSERT_NOT_NULL(test, file);
	kd_second_poller = &second;
	revoke_kunit_poll_published = kd_poll_between;
	init_poll_funcptr(&first.pt, kd_poll_queue);
	vfs_poll(file, &first.pt);
	revoke_kunit_poll_published = NULL;
	KUNIT_ASSERT_NOT_NULL(test, first.whead);
	KUNIT_ASSERT_NOT_NULL(test, second.whead);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(dev->unblock));
	KUNIT_EXPECT_GE_MSG(test, second.wakeups, 1,
			    "the second poller slept through the driver's wakeup");

	/* Later wakeups reach both, once each. */
	first.wakeups = 0;
	second.wakeups = 0;
	wake_up_poll(&dev->wait, EPOLLIN);
	KUNIT_EXPECT_EQ(test, first.wakeups, 1);
	KUNIT_EXPECT_EQ(test, second.wakeups, 1);

	remove_wait_queue(first.whead, &first.wait);
	remove_wait_queue(second.whead, &second.wait);
	kd_close(file);
	revoke_object_put(dev->obj);
}

/*
 * A disconnect wakes the sleepers and closes the operations (-ENODEV) but
 * keeps the driver's state until the last close; a revoke after it still
 * releases the files.
 */
static void revoke_test_disconnect(struct kunit *test)
{
	struct kd_dev *dev = kd_dev_create(test);
	struct file *file, *kept;
	struct kd_reader r;
	int i;

	file = kd_open_file(test, dev, NULL);
	kept = kd_open_file(test, dev, NULL);
	KUNIT_ASSERT_NOT_NULL(test, file);
	KUNIT_ASSERT_NOT_NULL(test, kept);
	kd_start_reader(test, dev, &r, file);

	revoke_object_disconnect_nowait(dev->obj);
	KUNIT_EXPECT_EQ(test, revoke_file_error(file), -ENODEV);
	wait_for_completion(&r.done);
	KUNIT_EXPECT_EQ(test, r.ret, -ENODEV);
	for (i = 0; i < 100 && atomic_read(&dev->revokes) < 2; i++)
		usleep_range(10000, 20000);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->revokes), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->releases), 0);
	KUNIT_EXPECT_NULL(test, kd_open_file(test, dev, NULL));

	/* The last close releases as usual. */
	kd_close(file);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->releases), 1);

	/* A revoke now takes the file still open, for real. */
	revoke_object_revoke(dev->obj);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->releases), 2);
	kd_close(kept);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->releases), 2);
	revoke_object_put(dev->obj);
}

/* ---- latent cases -------------------------------------------------------- */

/*
 * A driver frees the queue its ->poll used, announcing it with
 * wake_up_pollfree() (signalfd, binder): the forwarder leaves it at once,
 * the pollers hear of it, and nothing touches the queue afterwards.
 */
static void revoke_test_pollfree(struct kunit *test)
{
	struct kd_dev *dev = kd_dev_create(test);
	struct kd_poll_entry e = {};
	struct kd_file *kf;
	struct file *file;

	file = kd_open_fops(test, dev, &kd_misc_fops, NULL);
	KUNIT_ASSERT_NOT_NULL(test, file);
	kf = file->private_data;
	init_poll_funcptr(&e.pt, kd_poll_queue);
	vfs_poll(file, &e.pt);
	KUNIT_ASSERT_NOT_NULL(test, e.whead);
	e.wakeups = 0;
	/* Nobody else adds to or wakes the queue: no barrier needed. */
	KUNIT_EXPECT_TRUE(test, waitqueue_active(kf->pwq));

	/* wake_up_pollfree() warns if an entry stays on the queue. */
	wake_up_pollfree(kf->pwq);
	/* Ditto: the forwarder left under the queue's lock. */
	KUNIT_EXPECT_FALSE(test, waitqueue_active(kf->pwq));
	KUNIT_EXPECT_EQ(test, e.wakeups, 1);
	synchronize_rcu();
	kfree(kf->pwq);
	kf->pwq = NULL;

	/* The revoke detaches the forwarders: not from the freed queue. */
	revoke_object_revoke(dev->obj);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->releases), 1);
	remove_wait_queue(e.whead, &e.wait);
	kd_close(file);
	revoke_object_put(dev->obj);
}

/*
 * A revoked file answers nothing, but requests io_uring issued before the
 * revoke must still complete or be cancelled: polling a revoked file finds
 * nothing more (it is no error, which io_uring would retry forever), and
 * the driver still hears the cancellation of a disconnected file, whose
 * state it keeps.
 */
static void revoke_test_uring(struct kunit *test)
{
	struct kd_dev *dev = kd_dev_create(test);
	struct io_uring_cmd cmd = {};
	struct kiocb iocb = {};
	struct file *file, *kept;

	file = kd_open_fops(test, dev, &kd_misc_fops, NULL);
	KUNIT_ASSERT_NOT_NULL(test, file);
	iocb.ki_filp = file;
	cmd.file = file;
	KUNIT_EXPECT_EQ(test, file->f_op->iopoll(&iocb, NULL, 0), 1);
	KUNIT_EXPECT_EQ(test, file->f_op->uring_cmd(&cmd, 0), 0);
	KUNIT_EXPECT_EQ(test, file->f_op->uring_cmd_iopoll(&cmd, NULL, 0), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->iopolls), 2);

	revoke_object_revoke(dev->obj);
	KUNIT_EXPECT_EQ(test, file->f_op->iopoll(&iocb, NULL, 0), 0);
	KUNIT_EXPECT_EQ(test, file->f_op->uring_cmd_iopoll(&cmd, NULL, 0), 0);
	KUNIT_EXPECT_EQ(test, file->f_op->uring_cmd(&cmd, 0), -ENXIO);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->iopolls), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->cmds), 1);
	kd_close(file);

	/* Disconnected: the driver's state is there until the last close. */
	kept = kd_open_fops(test, dev, &kd_misc_fops, NULL);
	KUNIT_ASSERT_NOT_NULL(test, kept);
	iocb.ki_filp = kept;
	cmd.file = kept;
	revoke_object_disconnect_nowait(dev->obj);
	flush_work(&dev->obj->work);
	KUNIT_EXPECT_EQ(test, kept->f_op->uring_cmd(&cmd, 0), -ENODEV);
	KUNIT_EXPECT_EQ(test, kept->f_op->uring_cmd(&cmd, IO_URING_F_CANCEL), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->cancels), 1);
	KUNIT_EXPECT_EQ(test, kept->f_op->iopoll(&iocb, NULL, 0), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->iopolls), 3);
	kd_close(kept);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->releases), 2);
	revoke_object_put(dev->obj);
}

/*
 * The unlock __fput() sends through ->flock reaches the driver as long as
 * the driver keeps the file's state (a disconnected file); after a revoke
 * released it, the unlock succeeds without the driver.  Other requests on
 * a revoked file fail.
 */
static void revoke_test_flock(struct kunit *test)
{
	struct kd_dev *dev = kd_dev_create(test);
	struct file_lock fl;
	struct file *file;

	file = kd_open_fops(test, dev, &kd_misc_fops, NULL);
	KUNIT_ASSERT_NOT_NULL(test, file);
	locks_init_lock(&fl);
	fl.c.flc_file = file;
	fl.c.flc_owner = file;
	fl.c.flc_flags = FL_FLOCK;
	fl.c.flc_type = F_WRLCK;
	KUNIT_EXPECT_EQ(test, file->f_op->flock(file, F_SETLK, &fl), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->flocks), 1);

	revoke_object_disconnect_nowait(dev->obj);
	flush_work(&dev->obj->work);
	KUNIT_EXPECT_EQ(test, file->f_op->flock(file, F_SETLK, &fl), -ENODEV);
	fl.c.flc_type = F_UNLCK;
	KUNIT_EXPECT_EQ(test, file->f_op->flock(file, F_SETLKW, &fl), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->unlocks), 1);

	/* A revoke after the disconnect releases the file. */
	revoke_object_revoke(dev->obj);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->releases), 1);
	KUNIT_EXPECT_EQ(test, file->f_op->flock(file, F_SETLKW, &fl), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->unlocks), 1);
	fl.c.flc_type = F_RDLCK;
	KUNIT_EXPECT_EQ(test, file->f_op->flock(file, F_SETLK, &fl), -ENODEV);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->flocks), 1);
	kd_close(file);
	revoke_object_put(dev->obj);
}

/* A driver without ->poll: a revoked file still polls EPOLLERR | EPOLLHUP. */
static void revoke_test_no_poll(struct kunit *test)
{
	static const struct file_operations nopoll_fops = {
		.owner = THIS_MODULE,
		.open = kd_open,
		.release = kd_release,
		.revoke = kd_revoke,
	};
	struct kd_dev *dev = kd_dev_create(test);
	struct file *file;

	file = kd_open_fops(test, dev, &nopoll_fops, NULL);
	KUNIT_ASSERT_NOT_NULL(test, file);
	KUNIT_EXPECT_TRUE(test, vfs_poll(file, NULL) == DEFAULT_POLLMASK);
	revoke_object_revoke(dev->obj);
	KUNIT_EXPECT_TRUE(test, vfs_poll(file, NULL) == (EPOLLERR | EPOLLHUP));
	kd_close(file);
	revoke_object_put(dev->obj);
}

/*
 * FOP_REVOKE_QUIET (the ALSA sequencer): a revoked file polls nothing,
 * its pollers are woken once and find nothing, its operations still fail;
 * a file disconnected first keeps what a disconnect answers.
 */
static void revoke_test_quiet_poll(struct kunit *test)
{
	static const struct file_operations quiet_fops = {
		.owner = THIS_MODULE,
		.open = kd_open,
		.release = kd_release,
		.read = kd_read,
		.poll = kd_poll,
		.revoke = kd_revoke,
		.fop_flags = FOP_REVOKE_QUIET,
	};
	struct kd_dev *dev = kd_dev_create(test);
	struct kd_poll_entry e = {};
	struct file *file;

	file = kd_open_fops(test, dev, &quiet_fops, NULL);
	KUNIT_ASSERT_NOT_NULL(test, file);
	init_poll_funcptr(&e.pt, kd_poll_queue);
	KUNIT_EXPECT_TRUE(test, !vfs_poll(file, &e.pt));
	KUNIT_ASSERT_NOT_NULL(test, e.whead);
	revoke_object_revoke(dev->obj);
	KUNIT_EXPECT_GE(test, e.wakeups, 1);
	KUNIT_EXPECT_TRUE(test, !e.key);
	KUNIT_EXPECT_TRUE(test, !vfs_poll(file, NULL));
	KUNIT_EXPECT_EQ(test, revoke_file_error(file), -ENXIO);
	remove_wait_queue(e.whead, &e.wait);
	kd_close(file);
	revoke_object_put(dev->obj);

	dev = kd_dev_create(test);
	file = kd_open_fops(test, dev, &quiet_fops, NULL);
	KUNIT_ASSERT_NOT_NULL(test, file);
	revoke_object_disconnect_nowait(dev->obj);
	KUNIT_EXPECT_TRUE(test, vfs_poll(file, NULL) == (EPOLLERR | EPOLLNVAL));
	kd_close(file);
	revoke_object_put(dev->obj);
}

/*
 * A device that goes away from inside its own ->open (it finds the
 * hardware gone): the kill does not wait for that open, which fails.
 */
static void revoke_test_kill_in_open(struct kunit *test)
{
	struct kd_dev *dev = kd_dev_create(test);
	struct file *file;
	int err;

	dev->kill_in_open = true;
	file = kd_open_fops(test, dev, &kd_misc_fops, &err);
	KUNIT_EXPECT_NULL(test, file);
	KUNIT_EXPECT_EQ(test, err, -ENXIO);
	/* Its ->open succeeded: ->release ran. */
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->opens), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->releases), 1);
	dev->kill_in_open = false;
	KUNIT_EXPECT_NULL(test, kd_open_fops(test, dev, &kd_misc_fops, &err));
	KUNIT_EXPECT_EQ(test, err, -ENXIO);
	revoke_object_put(dev->obj);
}

/* A disconnect wakes each file once; a revoke after it does not again. */
static void revoke_test_revoke_once(struct kunit *test)
{
	struct kd_dev *dev = kd_dev_create(test);
	struct file *files[3];
	int i;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		files[i] = kd_open_file(test, dev, NULL);
		KUNIT_ASSERT_NOT_NULL(test, files[i]);
	}
	revoke_object_disconnect_nowait(dev->obj);
	flush_work(&dev->obj->work);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->revokes), 3);
	revoke_object_revoke(dev->obj);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->revokes), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->releases), 3);
	for (i = 0; i < ARRAY_SIZE(files); i++)
		kd_close(files[i]);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->releases), 3);
	revoke_object_put(dev->obj);
}

/* For revoke_test_next_cycle_keeps_its_files(): the file of the next cycle. */
static struct {
	struct kunit *test;
	struct kd_dev *dev;
	struct file *file;
	struct kd_reader reader;
} kd_next_cycle;

/*
 * Between the end of a cycle and the fput() of its files: open a file
 * and start the next cycle, which holds it, as a revokeat(2) that came
 * right then would.
 */
static void kd_start_next_cycle(struct revoke_object *obj)
{
	struct revoke_file *rf;
	int i;

	revoke_kunit_cycle_ended = NULL;
	kd_next_cycle.file = kd_open_file(kd_next_cycle.test,
					  kd_next_cycle.dev, NULL);
	if (!kd_next_cycle.file)
		return;
	rf = container_of(kd_next_cycle.file->f_op, struct revoke_file, fops);
	/* A reader that dawdles: that cycle drains for 400 ms. */
	kd_next_cycle.dev->slow_exit = true;
	kd_next_cycle.dev->exit_ms = 400;
	kd_start_reader(kd_next_cycle.test, kd_next_cycle.dev,
			&kd_next_cycle.reader, kd_next_cycle.file);
	revoke_object_revoke_nowait(obj);
	/* Until its work item held the file (or gave up). */
	for (i = 0; i < 1000 && !READ_ONCE(rf->held); i++)
		usleep_range(1000, 2000);
}

/*
 * The next cycle can start as soon as one ended, before the ended one
 * dropped the references it held: it must drop its own only.  It used to
 * walk obj->held after unlocking, dropping the next cycle's files from
 * it: that cycle never released them, and their last close waited for it
 * forever (a storm of revokeat() calls found it).
 */
static void revoke_test_next_cycle_keeps_its_files(struct kunit *test)
{
	struct kd_dev *dev = kd_dev_create(test);
	struct revoke_file *rf;
	struct file *first;

	first = kd_open_file(test, dev, NULL);
	KUNIT_ASSERT_NOT_NULL(test, first);
	kd_next_cycle.test = test;
	kd_next_cycle.dev = dev;
	kd_next_cycle.file = NULL;
	revoke_kunit_cycle_ended = kd_start_next_cycle;
	KUNIT_EXPECT_EQ(test, revoke_object_revoke(dev->obj), 0);
	revoke_kunit_cycle_ended = NULL;
	KUNIT_ASSERT_NOT_NULL(test, kd_next_cycle.file);
	wait_for_completion(&kd_next_cycle.reader.done);
	flush_work(&dev->obj->work);

	rf = container_of(kd_next_cycle.file->f_op, struct revoke_file, fops);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(rf->released));
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->releases), 2);
	kd_close(first);
	/* Its last close would wait for a release that never comes. */
	if (READ_ONCE(rf->released))
		kd_close(kd_next_cycle.file);
	else
		KUNIT_FAIL(test, "the next cycle's file was left behind");
	revoke_object_put(dev->obj);
}

#define KD_MANY 2000

/*
 * A disconnect of an object with many files walks them once: each list
 * step is counted, a rescan from the head for every file would take
 * KD_MANY^2 / 2 of them.
 */
static void revoke_test_disconnect_linear(struct kunit *test)
{
	struct kd_dev *dev = kd_dev_create(test);
	struct file **files;
	unsigned long steps;
	int i;

	files = kunit_kcalloc(test, KD_MANY, sizeof(*files), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, files);
	for (i = 0; i < KD_MANY; i++) {
		files[i] = kd_open_file(test, dev, NULL);
		KUNIT_ASSERT_NOT_NULL(test, files[i]);
	}
	steps = revoke_kunit_steps;
	revoke_object_disconnect_nowait(dev->obj);
	flush_work(&dev->obj->work);
	steps = revoke_kunit_steps - steps;
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->revokes), KD_MANY);
	KUNIT_EXPECT_LE(test, steps, 4UL * KD_MANY);
	for (i = 0; i < KD_MANY; i++)
		kd_close(files[i]);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->releases), KD_MANY);
	revoke_object_put(dev->obj);
}

/* Mappings, in an mm of the test's own (kunit_vm_mmap()). */
static void kd_free_page(void *page)
{
	__free_page(page);
}

static struct kd_dev *kd_dev_with_page(struct kunit *test)
{
	struct kd_dev *dev = kd_dev_create(test);

	dev->page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	KUNIT_ASSERT_NOT_NULL(test, dev->page);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kd_free_page,
							dev->page), 0);
	return dev;
}

static bool kd_readable(unsigned long addr)
{
	char c;

	return !copy_from_user(&c, (void __user *)addr, 1);
}

/*
 * A driver whose ->mmap maps its pages and leaves vma->vm_ops NULL: the
 * mapping is still the framework's to tear down, and a fault after the
 * revoke is SIGBUS, not an anonymous page.
 */
static void revoke_test_mmap_no_vm_ops(struct kunit *test)
{
	struct kd_dev *dev = kd_dev_with_page(test);
	unsigned long addr;
	struct file *file;

	dev->mmap_no_vm_ops = true;
	file = kd_open_fops(test, dev, &kd_misc_fops, NULL);
	KUNIT_ASSERT_NOT_NULL(test, file);
	addr = kunit_vm_mmap(test, file, 0, PAGE_SIZE, PROT_READ, MAP_SHARED, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(addr));
	KUNIT_ASSERT_NE(test, addr, 0UL);
	KUNIT_EXPECT_TRUE(test, kd_readable(addr));

	revoke_object_revoke(dev->obj);
	KUNIT_EXPECT_FALSE(test, kd_readable(addr));
	KUNIT_EXPECT_EQ(test, vm_munmap(addr, PAGE_SIZE), 0);
	kd_close(file);
	revoke_object_put(dev->obj);
}

/*
 * mmap() of a revoked file fails even where the new range would merge
 * into an existing mapping of the same file, which the mm does without
 * calling ->mmap.
 */
static void revoke_test_mmap_merge(struct kunit *test)
{
	struct kd_dev *dev = kd_dev_with_page(test);
	unsigned long addr, next;
	struct file *file;

	file = kd_open_fops(test, dev, &kd_misc_fops, NULL);
	KUNIT_ASSERT_NOT_NULL(test, file);
	addr = kunit_vm_mmap(test, file, 0, 2 * PAGE_SIZE, PROT_READ,
			     MAP_SHARED, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(addr));
	KUNIT_ASSERT_NE(test, addr, 0UL);
	KUNIT_EXPECT_TRUE(test, kd_readable(addr));
	/* Leave room next to it. */
	KUNIT_ASSERT_EQ(test, vm_munmap(addr + PAGE_SIZE, PAGE_SIZE), 0);

	revoke_object_revoke(dev->obj);
	next = vm_mmap(file, addr + PAGE_SIZE, PAGE_SIZE, PROT_READ,
		       MAP_SHARED | MAP_FIXED_NOREPLACE, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, (long)next, (long)-ENXIO);
	if (!IS_ERR_VALUE(next))
		vm_munmap(next, PAGE_SIZE);
	KUNIT_EXPECT_FALSE(test, kd_readable(addr));
	KUNIT_EXPECT_EQ(test, vm_munmap(addr, PAGE_SIZE), 0);
	kd_close(file);
	revoke_object_put(dev->obj);
}

/*
 * A kill must not return while the driver's ->release of a file runs in a
 * close that took the file before the kill came: after cdev_del() the
 * driver may free what ->release uses.
 */
struct kd_closer {
	struct file *file;
	struct completion done;
};

static int kd_closer_fn(void *data)
{
	struct kd_closer *c = data;

	kd_close(c->file);
	complete(&c->done);
	return 0;
}

static void revoke_test_kill_waits_for_close(struct kunit *test)
{
	struct kd_dev *dev = kd_dev_create(test);
	struct task_struct *t;
	struct kd_closer c;

	c.file = kd_open_file(test, dev, NULL);
	KUNIT_ASSERT_NOT_NULL(test, c.file);
	init_completion(&c.done);
	dev->slow_release = true;
	t = kthread_run(kd_closer_fn, &c, "kd-closer");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	while (!atomic_read(&dev->in_release))
		usleep_range(1000, 2000);

	revoke_object_kill(dev->obj);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->releases), 1);
	wait_for_completion(&c.done);
	revoke_object_put(dev->obj);
}

struct kd_mapper {
	struct mm_struct *mm;
	struct file *file;
	unsigned long addr;
	struct completion done;
};

static int kd_mapper_fn(void *data)
{
	struct kd_mapper *m = data;

	kthread_use_mm(m->mm);
	m->addr = vm_mmap(m->file, 0, PAGE_SIZE, PROT_READ, MAP_SHARED, 0);
	kthread_unuse_mm(m->mm);
	complete(&m->done);
	return 0;
}

/*
 * A kill does not wait on the mmap_lock of every address space that ever
 * mapped its files: a driver's remove() holding the device lock that
 * ->mmap of another of its devices takes, while a task that mapped the
 * first device holds its mmap_lock in that ->mmap, is no deadlock.
 */
static void revoke_test_kill_no_mmap_lock_deadlock(struct kunit *test)
{
	struct kd_dev *a, *b;
	struct kd_mapper m = {};
	struct task_struct *t;
	struct file *fa;
	unsigned long addr;

	/* Without them, every address space that mapped a file is waited for. */
	if (!IS_ENABLED(CONFIG_PER_VMA_LOCK))
		kunit_skip(test, "needs CONFIG_PER_VMA_LOCK");
	a = kd_dev_with_page(test);
	b = kd_dev_with_page(test);

	fa = kd_open_fops(test, a, &kd_misc_fops, NULL);
	KUNIT_ASSERT_NOT_NULL(test, fa);
	addr = kunit_vm_mmap(test, fa, 0, PAGE_SIZE, PROT_READ, MAP_SHARED, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(addr));
	KUNIT_ASSERT_NE(test, addr, 0UL);

	m.file = kd_open_fops(test, b, &kd_misc_fops, NULL);
	KUNIT_ASSERT_NOT_NULL(test, m.file);
	b->mmap_locks = true;
	m.mm = current->mm;
	mmgrab(m.mm);
	init_completion(&m.done);

	mutex_lock(&kd_device_lock);
	t = kthread_run(kd_mapper_fn, &m, "kd-mapper");
	if (IS_ERR(t)) {
		mutex_unlock(&kd_device_lock);
		KUNIT_FAIL(test, "kthread_run: %ld", PTR_ERR(t));
		return;
	}
	/* It holds the mmap_lock and waits for the device lock. */
	while (!atomic_read(&b->in_mmap))
		usleep_range(1000, 2000);
	msleep(20);
	revoke_object_kill(a->obj);
	mutex_unlock(&kd_device_lock);

	wait_for_completion(&m.done);
	KUNIT_EXPECT_FALSE(test, IS_ERR_VALUE(m.addr));
	if (!IS_ERR_VALUE(m.addr))
		vm_munmap(m.addr, PAGE_SIZE);
	mmdrop(m.mm);
	KUNIT_EXPECT_FALSE(test, kd_readable(addr));
	vm_munmap(addr, PAGE_SIZE);
	kd_close(fa);
	kd_close(m.file);
	revoke_object_put(a->obj);
	revoke_object_put(b->obj);
}

/*
 * Kills from inside the driver while a cycle runs: from the early release
 * the cycle itself runs, from a close's ->release, from an ->open.  None
 * may wait for the cycle it is part of.
 */
static void revoke_test_kill_in_early_release(struct kunit *test)
{
	struct kd_dev *dev = kd_dev_create(test);
	struct file *file;
	int err;

	file = kd_open_file(test, dev, NULL);
	KUNIT_ASSERT_NOT_NULL(test, file);
	dev->kill_in_release = true;
	revoke_object_revoke(dev->obj);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->releases), 1);
	KUNIT_EXPECT_NULL(test, kd_open_file(test, dev, &err));
	KUNIT_EXPECT_EQ(test, err, -ENXIO);
	kd_close(file);
	revoke_object_put(dev->obj);
}

static void revoke_test_kill_in_close_during_revoke(struct kunit *test)
{
	struct kd_dev *dev = kd_dev_create(test);
	struct task_struct *t;
	struct kd_reader r;
	struct kd_closer c;
	int err;

	c.file = kd_open_file(test, dev, NULL);
	KUNIT_ASSERT_NOT_NULL(test, c.file);
	r.file = kd_open_file(test, dev, NULL);
	KUNIT_ASSERT_NOT_NULL(test, r.file);
	dev->slow_exit = true;
	dev->exit_ms = 400;
	kd_start_reader(test, dev, &r, r.file);

	/* A close runs ->release, which will kill the object... */
	dev->slow_release = true;
	dev->kill_in_release = true;
	init_completion(&c.done);
	t = kthread_run(kd_closer_fn, &c, "kd-closer");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	while (!atomic_read(&dev->in_release))
		usleep_range(1000, 2000);
	/* ...while this revoke waits for the reader, then for the close. */
	revoke_object_revoke(dev->obj);
	wait_for_completion(&c.done);
	wait_for_completion(&r.done);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->releases), 2);
	KUNIT_EXPECT_NULL(test, kd_open_file(test, dev, &err));
	KUNIT_EXPECT_EQ(test, err, -ENXIO);
	kd_close(r.file);
	revoke_object_put(dev->obj);
}

/* An open in a kthread: no KUnit assertion there. */
struct kd_opener {
	struct kd_dev *dev;
	struct file *file;
	int err;
	struct completion done;
};

static int kd_opener_fn(void *data)
{
	struct kd_opener *o = data;
	struct file *file;

	file = anon_inode_getfile("revoke-kunit", &kd_anon_fops, NULL, O_RDWR);
	if (IS_ERR(file)) {
		o->err = PTR_ERR(file);
	} else {
		o->err = revoke_file_open(o->dev->obj, file_inode(file), file,
					  &kd_fops);
		if (o->err)
			file->f_op = &kd_anon_fops;
		fput(file);
		flush_delayed_fput();
	}
	complete(&o->done);
	return 0;
}

static void kd_start_opener(struct kunit *test, struct kd_dev *dev,
			    struct kd_opener *o)
{
	struct task_struct *t;

	o->dev = dev;
	init_completion(&o->done);
	kd_next = dev;
	t = kthread_run(kd_opener_fn, o, "kd-opener");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	while (!atomic_read(&dev->in_open))
		usleep_range(1000, 2000);
}

static void revoke_test_kill_in_open_during_revoke(struct kunit *test)
{
	struct kd_dev *dev = kd_dev_create(test);
	struct kd_opener o = {};
	struct kd_reader r;
	int err;

	r.file = kd_open_file(test, dev, NULL);
	KUNIT_ASSERT_NOT_NULL(test, r.file);
	dev->slow_exit = true;
	dev->exit_ms = 400;
	kd_start_reader(test, dev, &r, r.file);

	/* An open, admitted now, kills the object 200 ms later... */
	atomic_set(&dev->in_open, 0);
	dev->open_ms = 200;
	dev->kill_in_open_late = true;
	kd_start_opener(test, dev, &o);
	/* ...while this revoke waits for the reader. */
	revoke_object_revoke(dev->obj);
	wait_for_completion(&o.done);
	wait_for_completion(&r.done);
	KUNIT_EXPECT_EQ(test, o.err, -ENXIO);
	dev->kill_in_open_late = false;
	dev->open_ms = 0;
	KUNIT_EXPECT_NULL(test, kd_open_file(test, dev, &err));
	KUNIT_EXPECT_EQ(test, err, -ENXIO);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->opens),
			atomic_read(&dev->releases));
	kd_close(r.file);
	revoke_object_put(dev->obj);
}

/*
 * A kill of an object a disconnect already left dead waits for an open
 * the disconnect did not wait for, and is woken when it ends.
 */
static void revoke_test_kill_dead_waits_for_open(struct kunit *test)
{
	struct kd_dev *dev = kd_dev_create(test);
	struct kd_opener o = {};

	dev->open_ms = 300;
	kd_start_opener(test, dev, &o);
	revoke_object_disconnect_nowait(dev->obj);
	flush_work(&dev->obj->work);
	revoke_object_kill(dev->obj);
	/* Not before the open ended. */
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->releases), 1);
	wait_for_completion(&o.done);
	KUNIT_EXPECT_EQ(test, o.err, -ENXIO);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->releases), 1);
	revoke_object_put(dev->obj);
}

/*
 * An mmap() that left ->mmap before the files were marked links its
 * mapping into the address space later, under its mmap_lock: the revoke
 * waits for that lock, so that the zap sees the mapping.  Here a kthread
 * runs the proxy's ->mmap on a vma of its own under the mmap_lock and
 * keeps the lock: the revoke must not end meanwhile.
 */
struct kd_linker {
	struct mm_struct *mm;
	struct file *file;
	int ret;
	struct completion mapped, link, done;
};

static int kd_linker_fn(void *data)
{
	struct kd_linker *l = data;
	struct vm_area_struct *vma;

	kthread_use_mm(l->mm);
	mmap_write_lock(l->mm);
	vma = vm_area_alloc(l->mm);
	if (!vma) {
		l->ret = -ENOMEM;
	} else {
		vma->vm_start = 0x10000000;
		vma->vm_end = vma->vm_start + PAGE_SIZE;
		vm_flags_init(vma, VM_READ | VM_SHARED | VM_MAYREAD |
			      VM_MAYSHARE);
		vma->vm_page_prot = vm_get_page_prot(vma->vm_flags);
		vma->vm_file = l->file;
		l->ret = l->file->f_op->mmap(l->file, vma);
	}
	complete(&l->mapped);
	/* "Linking": hold the lock until told. */
	wait_for_completion(&l->link);
	if (vma)
		vm_area_free(vma);
	mmap_write_unlock(l->mm);
	kthread_unuse_mm(l->mm);
	complete(&l->done);
	return 0;
}

struct kd_revoker {
	struct revoke_object *obj;
	struct completion done;
};

static int kd_revoker_fn(void *data)
{
	struct kd_revoker *r = data;

	revoke_object_revoke(r->obj);
	complete(&r->done);
	return 0;
}

static void revoke_test_mmap_being_linked(struct kunit *test)
{
	struct kd_dev *dev;
	struct kd_linker l = {};
	struct kd_revoker r;
	struct task_struct *t;
	unsigned long addr;

	if (!IS_ENABLED(CONFIG_PER_VMA_LOCK))
		kunit_skip(test, "needs CONFIG_PER_VMA_LOCK");
	dev = kd_dev_with_page(test);
	l.file = kd_open_fops(test, dev, &kd_misc_fops, NULL);
	KUNIT_ASSERT_NOT_NULL(test, l.file);
	/* An address space of the test's own, which maps the file once. */
	addr = kunit_vm_mmap(test, l.file, 0, PAGE_SIZE, PROT_READ,
			     MAP_SHARED, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(addr));
	KUNIT_ASSERT_NE(test, addr, 0UL);
	l.mm = current->mm;
	mmgrab(l.mm);
	init_completion(&l.mapped);
	init_completion(&l.link);
	init_completion(&l.done);
	t = kthread_run(kd_linker_fn, &l, "kd-linker");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	wait_for_completion(&l.mapped);
	KUNIT_EXPECT_EQ(test, l.ret, 0);

	r.obj = dev->obj;
	init_completion(&r.done);
	t = kthread_run(kd_revoker_fn, &r, "kd-revoker");
	if (IS_ERR(t)) {
		complete(&l.link);
		KUNIT_FAIL(test, "kthread_run: %ld", PTR_ERR(t));
		return;
	}
	/* Revoked, drained, but the mapping is not linked yet: it waits. */
	msleep(300);
	KUNIT_EXPECT_TRUE(test, revoke_file_revoked(l.file));
	KUNIT_EXPECT_FALSE(test, completion_done(&r.done));
	complete(&l.link);
	wait_for_completion(&l.done);
	wait_for_completion(&r.done);
	mmdrop(l.mm);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->releases), 1);
	vm_munmap(addr, PAGE_SIZE);
	kd_close(l.file);
	revoke_object_put(dev->obj);
}

static struct kunit_case revoke_core_cases[] = {
	KUNIT_CASE(revoke_test_lifecycle),
	KUNIT_CASE(revoke_test_drain),
	KUNIT_CASE(revoke_test_release_once),
	KUNIT_CASE(revoke_test_open_race),
	KUNIT_CASE(revoke_test_self_revoke),
	KUNIT_CASE(revoke_test_poll),
	KUNIT_CASE(revoke_test_poll_first_wakeup),
	KUNIT_CASE(revoke_test_open_sample_wrap),
	KUNIT_CASE(revoke_test_disconnect),
	KUNIT_CASE(revoke_test_pollfree),
	KUNIT_CASE(revoke_test_uring),
	KUNIT_CASE(revoke_test_flock),
	KUNIT_CASE(revoke_test_no_poll),
	KUNIT_CASE(revoke_test_quiet_poll),
	KUNIT_CASE(revoke_test_kill_in_open),
	KUNIT_CASE(revoke_test_revoke_once),
	KUNIT_CASE(revoke_test_disconnect_linear),
	KUNIT_CASE(revoke_test_mmap_no_vm_ops),
	KUNIT_CASE(revoke_test_mmap_merge),
	KUNIT_CASE(revoke_test_kill_waits_for_close),
	KUNIT_CASE(revoke_test_kill_no_mmap_lock_deadlock),
	KUNIT_CASE(revoke_test_kill_in_early_release),
	KUNIT_CASE(revoke_test_kill_in_close_during_revoke),
	KUNIT_CASE(revoke_test_kill_in_open_during_revoke),
	KUNIT_CASE(revoke_test_kill_dead_waits_for_open),
	KUNIT_CASE(revoke_test_mmap_being_linked),
	KUNIT_CASE(revoke_test_next_cycle_keeps_its_files),
	{}
};

static struct kunit_suite revoke_core_suite = {
	.name = "revoke_core",
	.test_cases = revoke_core_cases,
};

/* Char devices ----------------------------------------------------------- */

struct kd_cdev {
	struct cdev cdev;
	dev_t devt;
};

/**
 * revoke_kunit_open_flags - open a char device by number, as open(2) of its
 *	node with @flags
 * @test: the test
 * @devt: the device number
 * @flags: the open flags (O_RDWR, O_APPEND...)
 * @err: where the open's error goes
 *
 * For the KUnit suites of the subsystems' revoke adapters: no device node
 * is needed, the file is a pseudo file with a char device inode whose
 * ->open is chrdev_open().
 *
 * Context: Process context; may sleep.
 * Return: the open file, or NULL with *@err set.
 */
struct file *revoke_kunit_open_flags(struct kunit *test, dev_t devt,
				     unsigned int flags, int *err)
{
	struct inode *inode;
	struct file *file;
	int ret;

	inode = new_inode(revoke_mnt->mnt_sb);
	KUNIT_ASSERT_NOT_NULL(test, inode);
	init_special_inode(inode, S_IFCHR | 0600, devt);
	file = alloc_file_pseudo(inode, revoke_mnt, "kd", flags,
				 &def_chr_fops);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, file);
	ret = file->f_op->open(inode, file);
	*err = ret;
	if (ret) {
		/* Undo as do_dentry_open() does when ->open fails. */
		fops_put(file->f_op);
		path_put(&file->f_path);
		file->f_path.mnt = NULL;
		file->f_path.dentry = NULL;
		file->f_inode = NULL;
		file->f_mode &= ~FMODE_OPENED;
		fput(file);
		return NULL;
	}
	return file;
}
EXPORT_SYMBOL_IF_KUNIT(revoke_kunit_open_flags);

/**
 * revoke_kunit_open - open a char device by number for reading and writing
 * @test: the test
 * @devt: the device number
 * @err: where the open's error goes
 *
 * revoke_kunit_open_flags() with O_RDWR.
 *
 * Context: Process context; may sleep.
 * Return: the open file, or NULL with *@err set.
 */
struct file *revoke_kunit_open(struct kunit *test, dev_t devt, int *err)
{
	return revoke_kunit_open_flags(test, devt, O_RDWR, err);
}

/* cdev_del() revokes the open files of a revocable cdev. */
static void revoke_test_cdev_unplug(struct kunit *test)
{
	struct kd_dev *dev = kd_dev_alloc(test);
	struct file *file, *again;
	struct kd_cdev *kc;
	struct kd_reader r;
	int err;

	kc = kunit_kzalloc(test, sizeof(*kc), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, kc);
	KUNIT_ASSERT_EQ(test, alloc_chrdev_region(&kc->devt, 0, 1, "kd"), 0);
	cdev_init(&kc->cdev, &kd_fops);
	KUNIT_ASSERT_EQ(test, cdev_add(&kc->cdev, kc->devt, 1), 0);
	KUNIT_EXPECT_TRUE(test, cdev_revocable(&kc->cdev));

	kd_next = dev;
	dev->obj = kc->cdev.revoke;
	file = revoke_kunit_open(test, kc->devt, &err);
	KUNIT_ASSERT_NOT_NULL(test, file);
	KUNIT_EXPECT_TRUE(test, file->f_op != &kd_fops);
	dev->slow_exit = true;
	kd_start_reader(test, dev, &r, file);

	/* revokeat(2) finds the object by device number. */
	KUNIT_EXPECT_EQ(test, revoke_chrdev(kc->devt), 0);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(dev->read_done));
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->releases), 1);
	wait_for_completion(&r.done);
	KUNIT_EXPECT_EQ(test, r.ret, -ENXIO);

	/* Unplug with a file open: it is revoked before cdev_del() returns. */
	again = revoke_kunit_open(test, kc->devt, &err);
	KUNIT_ASSERT_NOT_NULL(test, again);
	dev->read_done = false;
	kd_start_reader(test, dev, &r, again);
	cdev_del(&kc->cdev);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(dev->read_done));
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->releases), 2);
	KUNIT_EXPECT_TRUE(test, revoke_file_revoked(again));
	wait_for_completion(&r.done);
	/* Revoked by unplug: -ENODEV, as drivers answer after an unplug. */
	KUNIT_EXPECT_EQ(test, r.ret, -ENODEV);
	KUNIT_EXPECT_EQ(test, revoke_file_error(again), -ENODEV);
	KUNIT_EXPECT_EQ(test, revoke_file_error(file), -ENXIO);

	/* Gone: no open, no revoke. */
	KUNIT_EXPECT_NULL(test, revoke_kunit_open(test, kc->devt, &err));
	KUNIT_EXPECT_EQ(test, err, -ENXIO);
	KUNIT_EXPECT_EQ(test, revoke_chrdev(kc->devt), -ENXIO);

	kd_close(file);
	kd_close(again);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->releases), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->opens), 2);
	unregister_chrdev_region(kc->devt, 1);
}

/* A cdev without ->revoke is not revocable: EOPNOTSUPP for revokeat. */
static void revoke_test_cdev_plain(struct kunit *test)
{
	static const struct file_operations plain_fops = {
		.owner = THIS_MODULE,
	};
	struct kd_cdev *kc;

	kc = kunit_kzalloc(test, sizeof(*kc), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, kc);
	KUNIT_ASSERT_EQ(test, alloc_chrdev_region(&kc->devt, 0, 1, "kd"), 0);
	cdev_init(&kc->cdev, &plain_fops);
	KUNIT_ASSERT_EQ(test, cdev_add(&kc->cdev, kc->devt, 1), 0);
	KUNIT_EXPECT_FALSE(test, cdev_revocable(&kc->cdev));
	KUNIT_EXPECT_EQ(test, revoke_chrdev(kc->devt), -EOPNOTSUPP);
	cdev_del(&kc->cdev);
	unregister_chrdev_region(kc->devt, 1);
}

/* The dev_t registry: ranges, overlaps, lookups. */
static void revoke_test_registry(struct kunit *test)
{
	struct revoke_object *a, *b, *found;
	dev_t base = MKDEV(511, 100);

	a = revoke_object_create();
	b = revoke_object_create();
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, a);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, b);

	KUNIT_EXPECT_EQ(test, revoke_chrdev_register(a, base, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, revoke_chrdev_register(a, base, 5), 0);
	KUNIT_EXPECT_EQ(test, revoke_chrdev_register(a, base + 10, 1), -EBUSY);
	KUNIT_EXPECT_EQ(test, revoke_chrdev_register(b, base + 4, 2), -EBUSY);
	KUNIT_EXPECT_EQ(test, revoke_chrdev_register(b, base + 5, 2), 0);

	found = revoke_chrdev_get(base + 3);
	KUNIT_EXPECT_PTR_EQ(test, found, a);
	revoke_object_put(found);
	found = revoke_chrdev_get(base + 6);
	KUNIT_EXPECT_PTR_EQ(test, found, b);
	revoke_object_put(found);
	KUNIT_EXPECT_NULL(test, revoke_chrdev_get(base + 7));

	revoke_chrdev_unregister(a);
	KUNIT_EXPECT_NULL(test, revoke_chrdev_get(base));
	KUNIT_EXPECT_NULL(test, revoke_chrdev_get(base + 4));
	found = revoke_chrdev_get(base + 5);
	KUNIT_EXPECT_PTR_EQ(test, found, b);
	revoke_object_put(found);
	revoke_chrdev_unregister(b);
	revoke_chrdev_unregister(b);
	KUNIT_EXPECT_NULL(test, revoke_chrdev_get(base + 5));

	revoke_object_put(a);
	revoke_object_put(b);
}

/*
 * What revokeat(2) answers for numbers without an object, as a subsystem
 * that multiplexes minors sets it; objects registered over such numbers,
 * and what they leave when they go.  Nobody has major 511: without an
 * error set, its numbers answer -ENXIO.
 */
static void revoke_test_registry_errors(struct kunit *test)
{
	struct revoke_object *a, *b, *found;
	dev_t base = MKDEV(511, 200);

	a = revoke_object_create();
	b = revoke_object_create();
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, a);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, b);

	KUNIT_EXPECT_EQ(test, revoke_chrdev_set_error(base, 0, -ENXIO), -EINVAL);
	KUNIT_EXPECT_EQ(test, revoke_chrdev_set_error(base, 8, -EPERM), -EINVAL);
	KUNIT_ASSERT_EQ(test, revoke_chrdev_set_error(base, 8, -EOPNOTSUPP), 0);
	KUNIT_EXPECT_EQ(test, revoke_chrdev(base), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, revoke_chrdev(base + 7), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, revoke_chrdev(base + 8), -ENXIO);
	KUNIT_EXPECT_NULL(test, revoke_chrdev_get(base + 3));

	/* One number: the others keep their error. */
	KUNIT_ASSERT_EQ(test, revoke_chrdev_register(a, base + 3, 1), 0);
	found = revoke_chrdev_get(base + 3);
	KUNIT_EXPECT_PTR_EQ(test, found, a);
	revoke_object_put(found);
	KUNIT_EXPECT_EQ(test, revoke_chrdev(base + 2), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, revoke_chrdev(base + 4), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, revoke_chrdev_register(b, base + 2, 2), -EBUSY);
	/* Over an error set for the numbers of a range, a range. */
	KUNIT_EXPECT_EQ(test, revoke_chrdev_register(b, base + 4, 3), 0);
	KUNIT_EXPECT_EQ(test, revoke_chrdev(base + 7), -EOPNOTSUPP);

	/* Their errors come back when they go, as set meanwhile. */
	KUNIT_ASSERT_EQ(test, revoke_chrdev_set_error(base, 8, -ENXIO), 0);
	found = revoke_chrdev_get(base + 5);
	KUNIT_EXPECT_PTR_EQ(test, found, b);
	revoke_object_put(found);
	KUNIT_ASSERT_EQ(test, revoke_chrdev_set_error(base + 3, 1, -EOPNOTSUPP), 0);
	revoke_chrdev_unregister(a);
	revoke_chrdev_unregister(b);
	KUNIT_EXPECT_NULL(test, revoke_chrdev_get(base + 3));
	KUNIT_EXPECT_NULL(test, revoke_chrdev_get(base + 5));
	KUNIT_EXPECT_EQ(test, revoke_chrdev(base + 3), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, revoke_chrdev(base + 2), -ENXIO);
	KUNIT_EXPECT_EQ(test, revoke_chrdev(base + 6), -ENXIO);
	/* A number a range's entry covered takes a single object alone. */
	KUNIT_ASSERT_EQ(test, revoke_chrdev_register(a, base + 5, 1), 0);
	KUNIT_EXPECT_NULL(test, revoke_chrdev_get(base + 4));
	KUNIT_EXPECT_NULL(test, revoke_chrdev_get(base + 6));
	revoke_chrdev_unregister(a);

	KUNIT_ASSERT_EQ(test, revoke_chrdev_set_error(base, 8, 0), 0);
	KUNIT_EXPECT_EQ(test, revoke_chrdev(base + 3), -ENXIO);
	revoke_object_put(a);
	revoke_object_put(b);
}

static struct kunit_case revoke_chrdev_cases[] = {
	KUNIT_CASE(revoke_test_cdev_unplug),
	KUNIT_CASE(revoke_test_cdev_plain),
	KUNIT_CASE(revoke_test_registry),
	KUNIT_CASE(revoke_test_registry_errors),
	{}
};

static struct kunit_suite revoke_chrdev_suite = {
	.name = "revoke_chrdev",
	.test_cases = revoke_chrdev_cases,
};

kunit_test_suites(&revoke_core_suite, &revoke_chrdev_suite);

MODULE_DESCRIPTION("KUnit tests for the revoke framework");
MODULE_LICENSE("GPL");
