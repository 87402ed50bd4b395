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
 * of a file after its (early) release shows up under KASAN.
 */

#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/kfifo.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/revoke.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <uapi/linux/revoke_test.h>

struct rt_file;

struct rt_dev {
	struct cdev cdev;
	struct mutex lock;		/* fifo, owner */
	DECLARE_KFIFO(fifo, u8, REVOKE_TEST_FIFO_SIZE);
	struct rt_file *owner;
	wait_queue_head_t wait;		/* readers, writers, sleepers, pollers */
	struct fasync_struct *fasync;
	struct page *pages[REVOKE_TEST_MAP_PAGES];
	atomic_t opens, releases, revokes, vmas;
};

struct rt_file {
	struct rt_dev *rdev;
	bool source;
};

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

	rtf = kzalloc(sizeof(*rtf), GFP_KERNEL);
	if (!rtf)
		return -ENOMEM;
	rtf->rdev = rdev;
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
	atomic_inc(&rdev->releases);
	kfree(rtf);
	return 0;
}

/* Wake every sleeper; they see revoke_file_revoked() and leave. */
static int rt_revoke(struct file *file)
{
	struct rt_file *rtf = file->private_data;
	struct rt_dev *rdev = rtf->rdev;

	atomic_inc(&rdev->revokes);
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
		return -ENOTTY;
	}
}

static int rt_fasync(int fd, struct file *file, int on)
{
	struct rt_file *rtf = file->private_data;

	return fasync_helper(fd, file, on, &rtf->rdev->fasync);
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

	if (vmf->pgoff >= REVOKE_TEST_MAP_PAGES)
		return VM_FAULT_SIGBUS;
	vmf->page = rdev->pages[vmf->pgoff];
	get_page(vmf->page);
	return 0;
}

static const struct vm_operations_struct rt_vm_ops = {
	.open = rt_vm_open,
	.close = rt_vm_close,
	.fault = rt_vm_fault,
};

static int rt_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct rt_file *rtf = file->private_data;

	if (vma->vm_pgoff >= REVOKE_TEST_MAP_PAGES ||
	    vma_pages(vma) > REVOKE_TEST_MAP_PAGES - vma->vm_pgoff)
		return -EINVAL;
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_ops = &rt_vm_ops;
	vma->vm_private_data = rtf->rdev;
	rt_vm_open(vma);
	return 0;
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
	for (i = 0; i < RT_NR_DEVS; i++) {
		for (n = 0; n < REVOKE_TEST_MAP_PAGES; n++)
			if (rt_devs[i].pages[n])
				__free_page(rt_devs[i].pages[n]);
	}
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

	for (i = 0; i < RT_NR_DEVS; i++) {
		struct rt_dev *rdev = &rt_devs[i];

		mutex_init(&rdev->lock);
		INIT_KFIFO(rdev->fifo);
		init_waitqueue_head(&rdev->wait);
		for (n = 0; n < REVOKE_TEST_MAP_PAGES; n++) {
			rdev->pages[n] = alloc_page(GFP_KERNEL | __GFP_ZERO);
			if (!rdev->pages[n]) {
				ret = -ENOMEM;
				goto err;
			}
		}
	}

	for (i = 0; i < RT_NR_DEVS; i++) {
		cdev_init(&rt_devs[i].cdev, &rt_fops[i]);
		ret = cdev_add(&rt_devs[i].cdev, rt_devt + i, 1);
		if (ret)
			goto err;
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
