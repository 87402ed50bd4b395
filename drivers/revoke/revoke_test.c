// SPDX-License-Identifier: GPL-2.0
/*
 * Test device for revokeat(2).
 *
 * /dev/revoke_test is a small char device with everything revocation has
 * to deal with: a FIFO with blocking read and write, poll, fasync, an ioctl
 * that sleeps, an exclusive owner (freed by ->release) and a shared mapping
 * of device pages filled by ->fault.  /dev/revoke_test_plain is the same
 * driver without ->revoke, hence not revocable: the unguarded twin for the
 * benchmarks.  The user-space side is in tools/testing/selftests/revoke/.
 *
 * Per-file state is allocated by ->open and freed by ->release, so any use
 * of a file after its (early) release shows up under KASAN, and its
 * methods count themselves in it, so that a release with one of them
 * running shows up in the node's counters too.  The mapped pages are one
 * compound page, as some drivers have.
 *
 * For the race tests, a one-shot pause can be armed at a point of a method
 * (REVOKE_TEST_IOC_HOOK): the method wakes the task waiting for it and
 * sleeps there, so that a revoke runs exactly then.  A page of each
 * file's own, mapped at REVOKE_TEST_KEEP_PGOFF, is kept mapped by the
 * revoke (revoke_object_keep_mapped()) and then reads "revoked", as ALSA's
 * PCM status page reads DISCONNECTED.  Modes make ->open and
 * ->mmap behave as some drivers do (REVOKE_TEST_IOC_MODE): move the file's
 * address_space, move a mapping to another file, or map a page of the
 * file's own that ->release frees.
 */

#include <linux/cdev.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/kfifo.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/revoke.h>
#include <linux/shmem_fs.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "revoke_test_uapi.h"

struct rt_file;

struct rt_dev {
	struct cdev cdev;
	struct mutex lock;		/* fifo, owner */
	DECLARE_KFIFO(fifo, u8, REVOKE_TEST_FIFO_SIZE);
	struct rt_file *owner;
	wait_queue_head_t wait;		/* readers, writers, sleepers, pollers */
	struct fasync_struct *fasync;
	struct page *pages[REVOKE_TEST_MAP_PAGES];
	atomic_t opens, releases, revokes, vmas, early;
};

struct rt_file {
	struct rt_dev *rdev;
	bool source;
	atomic_t running;		/* methods of this file running */
	struct page *page;		/* REVOKE_TEST_MODE_PREFAULT */
	struct page *keep;		/* at REVOKE_TEST_KEEP_PGOFF, or NULL */
};

#define RT_MAP_ORDER	get_order(REVOKE_TEST_MAP_PAGES * PAGE_SIZE)

/* The hooks of the race tests: one pause, and the modes; see the top. */
static struct {
	spinlock_t lock;		/* point, delay_ms */
	u32 point;
	u32 delay_ms;
	struct completion reached;
	u32 mode;
	struct file *other;		/* the file of SET_FILE and OWN_MAPPING */
} rt_hook = {
	.lock = __SPIN_LOCK_UNLOCKED(rt_hook.lock),
};

/* A method of the file has reached @point: pause there if armed. */
static void rt_pause(u32 point)
{
	u32 delay = 0;

	spin_lock(&rt_hook.lock);
	if (rt_hook.point == point) {
		rt_hook.point = REVOKE_TEST_HOOK_NONE;
		delay = rt_hook.delay_ms;
		complete_all(&rt_hook.reached);
	}
	spin_unlock(&rt_hook.lock);
	if (delay)
		msleep(delay);
}

static long rt_hook_ioctl(unsigned int cmd, unsigned long arg)
{
	struct revoke_test_hook hook;
	long ret;
	u32 mode;

	switch (cmd) {
	case REVOKE_TEST_IOC_HOOK:
		if (copy_from_user(&hook, (void __user *)arg, sizeof(hook)))
			return -EFAULT;
		if (hook.point > REVOKE_TEST_HOOK_FASYNC || hook.delay_ms > 10000)
			return -EINVAL;
		spin_lock(&rt_hook.lock);
		reinit_completion(&rt_hook.reached);
		rt_hook.point = hook.point;
		rt_hook.delay_ms = hook.delay_ms;
		spin_unlock(&rt_hook.lock);
		return 0;
	case REVOKE_TEST_IOC_HOOK_WAIT:
		ret = wait_for_completion_interruptible_timeout(&rt_hook.reached,
								10 * HZ);
		if (ret < 0)
			return ret;
		return ret ? 0 : -ETIMEDOUT;
	case REVOKE_TEST_IOC_MODE:
		if (get_user(mode, (u32 __user *)arg))
			return -EFAULT;
		WRITE_ONCE(rt_hook.mode, mode);
		return 0;
	default:
		return -ENOTTY;
	}
}

/* Count a method of @rtf as running, for the early counter of release. */
static struct rt_file *rt_get(struct file *file)
{
	struct rt_file *rtf = file->private_data;

	atomic_inc(&rtf->running);
	return rtf;
}

static void rt_put(struct rt_file *rtf)
{
	atomic_dec(&rtf->running);
}

enum { RT_REVOCABLE, RT_PLAIN, RT_NR_DEVS };

static const char *const rt_names[RT_NR_DEVS] = {
	[RT_REVOCABLE] = "revoke_test",
	[RT_PLAIN] = "revoke_test_plain",
};

static struct rt_dev rt_devs[RT_NR_DEVS];
static dev_t rt_devt;
static const struct class rt_class = {
	.name = "revoke_test",
};

static int rt_open(struct inode *inode, struct file *file)
{
	struct rt_dev *rdev = container_of(inode->i_cdev, struct rt_dev, cdev);
	struct rt_file *rtf;

	u32 mode = READ_ONCE(rt_hook.mode);

	rtf = kzalloc(sizeof(*rtf), GFP_KERNEL);
	if (!rtf)
		return -ENOMEM;
	rtf->rdev = rdev;
	if (mode & REVOKE_TEST_MODE_PREFAULT) {
		rtf->page = alloc_page(GFP_KERNEL);
		if (!rtf->page) {
			kfree(rtf);
			return -ENOMEM;
		}
		memset(page_address(rtf->page), 0x5a, PAGE_SIZE);
	}
	/* As /dev/mem, DRM or vfio: the mappings live in another space. */
	if (mode & REVOKE_TEST_MODE_OWN_MAPPING)
		file->f_mapping = rt_hook.other->f_mapping;
	file->private_data = rtf;
	atomic_inc(&rdev->opens);
	return nonseekable_open(inode, file);
}

static int rt_release(struct inode *inode, struct file *file)
{
	struct rt_file *rtf = file->private_data;
	struct rt_dev *rdev = rtf->rdev;

	mutex_lock(&rdev->lock);
	if (rdev->owner == rtf)
		rdev->owner = NULL;
	mutex_unlock(&rdev->lock);
	if (atomic_read(&rtf->running))
		atomic_inc(&rdev->early);
	atomic_inc(&rdev->releases);
	if (rtf->page)
		__free_page(rtf->page);
	/* Its mappings hold references of their own. */
	if (rtf->keep)
		put_page(rtf->keep);
	kfree(rtf);
	return 0;
}

/* Wake every sleeper; they see revoke_file_revoked() and leave. */
static int rt_revoke(struct file *file)
{
	struct rt_file *rtf = file->private_data;
	struct rt_dev *rdev = rtf->rdev;

	struct page *keep = READ_ONCE(rtf->keep);

	atomic_inc(&rdev->revokes);
	/* What the kept page shows from now on. */
	if (keep)
		WRITE_ONCE(*(u32 *)page_address(keep), REVOKE_TEST_KEEP_REVOKED);
	wake_up_all(&rdev->wait);
	kill_fasync(&rdev->fasync, SIGIO, POLL_HUP);
	return 0;
}

/*
 * After a sleep that also ends on revocation (see rt_revoke()): the file's
 * error if that is why it ended.
 */
static int rt_woken(struct file *file, int ret)
{
	return ret ?: revoke_file_error(file);
}

static ssize_t rt_read(struct file *file, char __user *buf, size_t count,
		       loff_t *ppos)
{
	struct rt_file *rtf = file->private_data;
	struct rt_dev *rdev = rtf->rdev;
	unsigned int copied;
	int ret;

	if (rtf->source)
		return clear_user(buf, count) ? -EFAULT : count;

	for (;;) {
		if (mutex_lock_interruptible(&rdev->lock))
			return -ERESTARTSYS;
		if (!kfifo_is_empty(&rdev->fifo)) {
			ret = kfifo_to_user(&rdev->fifo, buf, count, &copied);
			mutex_unlock(&rdev->lock);
			if (ret)
				return ret;
			wake_up_interruptible_poll(&rdev->wait,
						   EPOLLOUT | EPOLLWRNORM);
			return copied;
		}
		mutex_unlock(&rdev->lock);
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		ret = wait_event_interruptible(rdev->wait,
					       !kfifo_is_empty(&rdev->fifo) ||
					       revoke_file_revoked(file));
		ret = rt_woken(file, ret);
		if (ret)
			return ret;
	}
}

static ssize_t rt_write(struct file *file, const char __user *buf,
			size_t count, loff_t *ppos)
{
	struct rt_file *rtf = file->private_data;
	struct rt_dev *rdev = rtf->rdev;
	unsigned int copied;
	int ret;

	for (;;) {
		if (mutex_lock_interruptible(&rdev->lock))
			return -ERESTARTSYS;
		if (!kfifo_is_full(&rdev->fifo)) {
			ret = kfifo_from_user(&rdev->fifo, buf, count, &copied);
			mutex_unlock(&rdev->lock);
			if (ret)
				return ret;
			wake_up_interruptible_poll(&rdev->wait,
						   EPOLLIN | EPOLLRDNORM);
			kill_fasync(&rdev->fasync, SIGIO, POLL_IN);
			return copied;
		}
		mutex_unlock(&rdev->lock);
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		ret = wait_event_interruptible(rdev->wait,
					       !kfifo_is_full(&rdev->fifo) ||
					       revoke_file_revoked(file));
		ret = rt_woken(file, ret);
		if (ret)
			return ret;
	}
}

static __poll_t rt_poll(struct file *file, poll_table *wait)
{
	struct rt_file *rtf = file->private_data;
	struct rt_dev *rdev = rtf->rdev;
	__poll_t mask = 0;

	poll_wait(file, &rdev->wait, wait);
	if (!kfifo_is_empty(&rdev->fifo))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (!kfifo_is_full(&rdev->fifo))
		mask |= EPOLLOUT | EPOLLWRNORM;
	return mask;
}

static long rt_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct rt_file *rtf = file->private_data;
	struct rt_dev *rdev = rtf->rdev;
	struct revoke_test_stats st;
	long ret = 0;
	u32 val;

	switch (cmd) {
	case REVOKE_TEST_IOC_NOP:
		return 0;
	case REVOKE_TEST_IOC_SOURCE:
		rtf->source = true;
		return 0;
	case REVOKE_TEST_IOC_SLEEP:
		ret = wait_event_interruptible(rdev->wait,
					       revoke_file_revoked(file));
		return rt_woken(file, ret);
	case REVOKE_TEST_IOC_STATS:
		memset(&st, 0, sizeof(st));
		mutex_lock(&rdev->lock);
		st.owner_busy = !!rdev->owner;
		st.fifo_len = kfifo_len(&rdev->fifo);
		mutex_unlock(&rdev->lock);
		st.opens = atomic_read(&rdev->opens);
		st.releases = atomic_read(&rdev->releases);
		st.revokes = atomic_read(&rdev->revokes);
		st.vmas = atomic_read(&rdev->vmas);
		st.early = atomic_read(&rdev->early);
		return copy_to_user((void __user *)arg, &st, sizeof(st)) ?
			-EFAULT : 0;
	case REVOKE_TEST_IOC_OWN:
		mutex_lock(&rdev->lock);
		if (rdev->owner && rdev->owner != rtf)
			ret = -EBUSY;
		else
			rdev->owner = rtf;
		mutex_unlock(&rdev->lock);
		return ret;
	case REVOKE_TEST_IOC_POKE:
		if (get_user(val, (u32 __user *)arg))
			return -EFAULT;
		WRITE_ONCE(*(u32 *)page_address(rdev->pages[0]), val);
		return 0;
	default:
		return rt_hook_ioctl(cmd, arg);
	}
}

static int rt_fasync(int fd, struct file *file, int on)
{
	struct rt_file *rtf = rt_get(file);
	int ret;

	/* __fput() switches it off with no reference left to the file. */
	if (!on)
		rt_pause(REVOKE_TEST_HOOK_FASYNC);
	ret = fasync_helper(fd, file, on, &rtf->rdev->fasync);
	rt_put(rtf);
	return ret;
}

/* The mapping counts on the device, which outlives every file. */
static void rt_vm_open(struct vm_area_struct *vma)
{
	struct rt_dev *rdev = vma->vm_private_data;

	atomic_inc(&rdev->vmas);
}

static void rt_vm_close(struct vm_area_struct *vma)
{
	struct rt_dev *rdev = vma->vm_private_data;

	atomic_dec(&rdev->vmas);
}

static vm_fault_t rt_vm_fault(struct vm_fault *vmf)
{
	struct rt_dev *rdev = vmf->vma->vm_private_data;

	if (vmf->pgoff == REVOKE_TEST_KEEP_PGOFF) {
		struct rt_file *rtf = vmf->vma->vm_file->private_data;

		/* Set by ->mmap, which only maps it for a file of ours. */
		vmf->page = rtf->keep;
	} else if (vmf->pgoff < REVOKE_TEST_MAP_PAGES) {
		vmf->page = rdev->pages[vmf->pgoff];
	} else {
		return VM_FAULT_SIGBUS;
	}
	get_page(vmf->page);
	/* The page is not mapped yet: finish_fault() does that later. */
	rt_pause(REVOKE_TEST_HOOK_FAULT);
	return 0;
}

/*
 * The methods below look at the per-file state, as a driver's may: KASAN
 * reports them if they are called after the file's release.
 */
static struct rt_file *rt_vma_file(struct vm_area_struct *vma)
{
	return vma->vm_file->private_data;
}

static int rt_vm_may_split(struct vm_area_struct *vma, unsigned long addr)
{
	return READ_ONCE(rt_vma_file(vma)->rdev) ? 0 : -EINVAL;
}

static int rt_vm_mremap(struct vm_area_struct *vma)
{
	return READ_ONCE(rt_vma_file(vma)->rdev) ? 0 : -EINVAL;
}

static int rt_vm_mprotect(struct vm_area_struct *vma, unsigned long start,
			  unsigned long end, unsigned long newflags)
{
	return READ_ONCE(rt_vma_file(vma)->rdev) ? 0 : -EINVAL;
}

static unsigned long rt_vm_pagesize(struct vm_area_struct *vma)
{
	return READ_ONCE(rt_vma_file(vma)->rdev) ? PAGE_SIZE : 0;
}

static const struct vm_operations_struct rt_vm_ops = {
	.open = rt_vm_open,
	.close = rt_vm_close,
	.fault = rt_vm_fault,
	.may_split = rt_vm_may_split,
	.mremap = rt_vm_mremap,
	.mprotect = rt_vm_mprotect,
	.pagesize = rt_vm_pagesize,
};

/* REVOKE_TEST_MODE_SET_FILE: the vma's file is not one of ours. */
static const struct vm_operations_struct rt_vm_ops_other = {
	.open = rt_vm_open,
	.close = rt_vm_close,
	.fault = rt_vm_fault,
};

/* The file's kept page, on its first mapping; racing ->mmap()s agree. */
static int rt_keep_alloc(struct rt_file *rtf)
{
	struct page *page;

	if (READ_ONCE(rtf->keep))
		return 0;
	page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!page)
		return -ENOMEM;
	*(u32 *)page_address(page) = REVOKE_TEST_KEEP_LIVE;
	/* Publishes the page's contents to rt_revoke() and the fault. */
	if (cmpxchg_release(&rtf->keep, NULL, page))
		__free_page(page);
	return 0;
}

/* A page of a revoked file's mapping first touched after the revoke. */
static void rt_keep_fill(void *page, pgoff_t pgoff)
{
	*(u32 *)page = REVOKE_TEST_KEEP_REVOKED;
}

static int rt_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct rt_file *rtf = rt_get(file);
	u32 mode = READ_ONCE(rt_hook.mode);
	bool keep = vma->vm_pgoff == REVOKE_TEST_KEEP_PGOFF &&
		    vma_pages(vma) == 1;
	int ret = -EINVAL;

	if (keep) {
		/* The file's own page: the modes do not apply to it. */
		mode = 0;
		ret = rt_keep_alloc(rtf);
		if (ret)
			goto out;
	} else if (vma->vm_pgoff >= REVOKE_TEST_MAP_PAGES ||
		   vma_pages(vma) > REVOKE_TEST_MAP_PAGES - vma->vm_pgoff) {
		goto out;
	}
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_ops = &rt_vm_ops;
	vma->vm_private_data = rtf->rdev;
	if (rtf->page && !keep) {
		/* As a driver mapping its buffer with remap_pfn_range(). */
		ret = remap_pfn_range(vma, vma->vm_start,
				      page_to_pfn(rtf->page), PAGE_SIZE,
				      vma->vm_page_prot);
		if (ret)
			goto out;
	}
	if (mode & REVOKE_TEST_MODE_SET_FILE) {
		/* As DRM's GEM objects: the mapping belongs to another file. */
		vma_set_file(vma, rt_hook.other);
		vma->vm_ops = &rt_vm_ops_other;
	}
	rt_vm_open(vma);
	/* Set up, but not linked into the address space yet. */
	rt_pause(REVOKE_TEST_HOOK_MMAP);
	ret = 0;
out:
	rt_put(rtf);
	return ret;
}

#define RT_FOPS_COMMON				\
	.owner = THIS_MODULE,			\
	.open = rt_open,			\
	.release = rt_release,			\
	.read = rt_read,			\
	.write = rt_write,			\
	.poll = rt_poll,			\
	.unlocked_ioctl = rt_ioctl,		\
	.compat_ioctl = compat_ptr_ioctl,	\
	.fasync = rt_fasync,			\
	.mmap = rt_mmap

static const struct file_operations rt_fops[RT_NR_DEVS] = {
	[RT_REVOCABLE] = { RT_FOPS_COMMON, .revoke = rt_revoke },
	[RT_PLAIN] = { RT_FOPS_COMMON },
};

static void rt_destroy(int n)
{
	int i;

	for (i = n - 1; i >= 0; i--) {
		device_destroy(&rt_class, rt_devt + i);
		/* Revokes the open files of the revocable node. */
		cdev_del(&rt_devs[i].cdev);
	}
	for (i = 0; i < RT_NR_DEVS; i++)
		if (rt_devs[i].pages[0])
			__free_pages(rt_devs[i].pages[0], RT_MAP_ORDER);
	if (rt_hook.other)
		fput(rt_hook.other);
	class_unregister(&rt_class);
	unregister_chrdev_region(rt_devt, RT_NR_DEVS);
}

static int __init rt_init(void)
{
	struct device *dev;
	int i, n, ret;

	ret = alloc_chrdev_region(&rt_devt, 0, RT_NR_DEVS, "revoke_test");
	if (ret)
		return ret;
	ret = class_register(&rt_class);
	if (ret) {
		unregister_chrdev_region(rt_devt, RT_NR_DEVS);
		return ret;
	}
	init_completion(&rt_hook.reached);
	rt_hook.other = shmem_file_setup("revoke_test_other",
					 REVOKE_TEST_MAP_PAGES * PAGE_SIZE, 0);
	if (IS_ERR(rt_hook.other)) {
		ret = PTR_ERR(rt_hook.other);
		rt_hook.other = NULL;
		i = 0;
		goto err;
	}

	for (i = 0; i < RT_NR_DEVS; i++) {
		struct rt_dev *rdev = &rt_devs[i];
		struct page *page;

		mutex_init(&rdev->lock);
		INIT_KFIFO(rdev->fifo);
		init_waitqueue_head(&rdev->wait);
		page = alloc_pages(GFP_KERNEL | __GFP_ZERO | __GFP_COMP,
				   RT_MAP_ORDER);
		if (!page) {
			ret = -ENOMEM;
			i = 0;
			goto err;
		}
		for (n = 0; n < REVOKE_TEST_MAP_PAGES; n++)
			rdev->pages[n] = page + n;
	}

	for (i = 0; i < RT_NR_DEVS; i++) {
		cdev_init(&rt_devs[i].cdev, &rt_fops[i]);
		ret = cdev_add(&rt_devs[i].cdev, rt_devt + i, 1);
		if (ret)
			goto err;
		/* Before the node exists: no file is open yet. */
		if (rt_devs[i].cdev.revoke)
			revoke_object_keep_mapped(rt_devs[i].cdev.revoke,
						  REVOKE_TEST_KEEP_PGOFF, 1,
						  rt_keep_fill);
		dev = device_create(&rt_class, NULL, rt_devt + i, NULL, "%s",
				    rt_names[i]);
		if (IS_ERR(dev)) {
			cdev_del(&rt_devs[i].cdev);
			ret = PTR_ERR(dev);
			goto err;
		}
	}
	return 0;

err:
	rt_destroy(i);
	return ret;
}

static void __exit rt_exit(void)
{
	rt_destroy(RT_NR_DEVS);
}

module_init(rt_init);
module_exit(rt_exit);

MODULE_DESCRIPTION("Test device for revokeat(2)");
MODULE_LICENSE("GPL");
