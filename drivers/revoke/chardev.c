// SPDX-License-Identifier: GPL-2.0
/*
 * Char device glue of the revoke framework.
 *
 * Char devices are keyed on dev_t, not on an inode: every node with the
 * same device number (the devtmpfs node, a mknod copy, a node in another
 * mount namespace or a bind mount) reaches the same cdev, so files opened
 * through any of them are on one object.  revokeat(2) finds the object of
 * a node through the dev_t registry below.
 *
 * A cdev whose file_operations have ->revoke is revocable with no further
 * work from its driver: cdev_add() creates its object and registers its
 * device numbers, chrdev_open() opens through revoke_file_open(), and
 * cdev_del() kills the object, so the driver's methods are never entered
 * after cdev_del() or cdev_device_del() returns.  The object lives as long
 * as the cdev; open files keep it alive on their own.
 *
 * The registry is an xarray from dev_t to object.  Lookups run under RCU
 * and take a reference with kref_get_unless_zero(); objects are freed after
 * a grace period.  Registration and removal are serialized by
 * revoke_chrdevs_mutex so that a range is checked and stored at once.
 *
 * A subsystem that multiplexes minors behind one cdev (ALSA) knows which
 * of its numbers have a device and which of those devices can be
 * revoked; the cdev layer does not.  It stores what revokeat(2) answers
 * for the numbers without an object as value entries, one per number
 * (storing into a multi-index entry would replace all of it), with
 * revoke_chrdev_set_error().  An object registered over such an entry
 * puts it back when it goes.
 */

#include <linux/cdev.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/revoke.h>
#include <linux/xarray.h>

#include "internal.h"

static DEFINE_XARRAY(revoke_chrdevs);
static DEFINE_MUTEX(revoke_chrdevs_mutex);

/* The value entry that makes revokeat(2) answer @error, or NULL for 0. */
static void *revoke_chrdev_error_entry(int error)
{
	return error ? xa_mk_value(-error) : NULL;
}

/*
 * Store @entry (NULL or a value entry) at every number of the range, one
 * by one.  Called with revoke_chrdevs_mutex held.
 */
static int revoke_chrdev_fill(unsigned long first, unsigned long last,
			      void *entry)
{
	unsigned long index;
	int ret;

	for (index = first; index <= last; index++) {
		ret = xa_err(xa_store(&revoke_chrdevs, index, entry,
				      GFP_KERNEL));
		if (ret)
			return ret;
		cond_resched();
	}
	return 0;
}

/*
 * Does an object own a number of the range?  If not, the entry at @first,
 * what the range answers without an object.  Called with
 * revoke_chrdevs_mutex held.
 */
static bool revoke_chrdev_owned(unsigned long first, unsigned long last,
				void **prev)
{
	unsigned long index;
	void *entry;

	*prev = xa_load(&revoke_chrdevs, first);
	xa_for_each_range(&revoke_chrdevs, index, entry, first, last)
		if (!xa_is_value(entry))
			return true;
	return false;
}

/**
 * revoke_chrdev_register - make an object reachable by device number
 * @obj: the object
 * @dev: the first device number
 * @count: how many consecutive device numbers
 *
 * After this, revokeat(2) on any char device node whose number is in the
 * range revokes @obj.  Subsystems that multiplex minors behind one cdev
 * register one object per minor; revocable cdevs are registered by
 * cdev_add().  What revoke_chrdev_set_error() stored at @dev is restored
 * when @obj is unregistered.
 *
 * Context: Process context, may sleep.  Takes revoke_chrdevs_mutex.
 * Return: 0; -EINVAL for an empty range; -EBUSY if @obj is registered
 * already or a number of the range belongs to another object; -ENOMEM.
 */
int revoke_chrdev_register(struct revoke_object *obj, dev_t dev,
			   unsigned int count)
{
	unsigned long first = dev, last = (unsigned long)dev + count - 1;
	void *prev;
	int ret = 0;

	if (!count)
		return -EINVAL;

	mutex_lock(&revoke_chrdevs_mutex);
	if (obj->chr_count || revoke_chrdev_owned(first, last, &prev)) {
		ret = -EBUSY;
		goto out;
	}
	ret = xa_err(xa_store_range(&revoke_chrdevs, first, last, obj,
				    GFP_KERNEL));
	if (ret)
		goto out;
	obj->chr_dev = dev;
	obj->chr_count = count;
	obj->chr_prev = prev;
out:
	mutex_unlock(&revoke_chrdevs_mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(revoke_chrdev_register);

/**
 * revoke_chrdev_unregister - stop finding an object by device number
 * @obj: the object, registered or not
 *
 * The numbers answer again what they answered before @obj was registered.
 *
 * Context: Process context, may sleep.  Takes revoke_chrdevs_mutex.
 */
void revoke_chrdev_unregister(struct revoke_object *obj)
{
	unsigned long first = obj->chr_dev;

	mutex_lock(&revoke_chrdevs_mutex);
	if (obj->chr_count) {
		unsigned long last = first + obj->chr_count - 1;

		/*
		 * A multi-index entry goes first: storing into one of its
		 * numbers would store into all of them.  Failing to
		 * allocate, numbers answer as if no error had been set
		 * (-EOPNOTSUPP or -ENXIO, after the cdevs).
		 */
		if (last > first || !obj->chr_prev)
			xa_store_range(&revoke_chrdevs, first, last, NULL,
				       GFP_KERNEL);
		if (obj->chr_prev)
			revoke_chrdev_fill(first, last, obj->chr_prev);
		obj->chr_count = 0;
	}
	mutex_unlock(&revoke_chrdevs_mutex);
}
EXPORT_SYMBOL_GPL(revoke_chrdev_unregister);

/**
 * revoke_chrdev_set_error - say what revokeat(2) answers for device numbers
 * @dev: the first device number
 * @count: how many consecutive device numbers
 * @error: -ENXIO (no device has the number), -EOPNOTSUPP (its device
 *	cannot be revoked), or 0 to forget what was set
 *
 * For subsystems that multiplex minors behind one cdev, whose numbers all
 * look alike to the cdev layer: without this, revokeat(2) on a node of a
 * minor without an object answers -EOPNOTSUPP, as for a cdev whose driver
 * has no ->revoke, even when no device has that minor.  Such a subsystem
 * sets -ENXIO over its whole range once, registers an object per
 * revocable device and sets -EOPNOTSUPP for its other devices.  Numbers
 * that an object owns keep it; what is set for them takes effect when the
 * object is unregistered.
 *
 * Context: Process context, may sleep.  Takes revoke_chrdevs_mutex.
 * Return: 0; -EINVAL for an empty range or another @error; -ENOMEM, with
 * part of the range set.
 */
int revoke_chrdev_set_error(dev_t dev, unsigned int count, int error)
{
	unsigned long first = dev, last = (unsigned long)dev + count - 1;
	void *entry = revoke_chrdev_error_entry(error);
	unsigned long index;
	int ret = 0;

	if (!count || (error && error != -ENXIO && error != -EOPNOTSUPP))
		return -EINVAL;

	mutex_lock(&revoke_chrdevs_mutex);
	for (index = first; index <= last && !ret; index++) {
		struct revoke_object *obj = xa_load(&revoke_chrdevs, index);

		if (obj && !xa_is_value(obj)) {
			/* Its whole range shares the entry it restores. */
			obj->chr_prev = entry;
			continue;
		}
		ret = revoke_chrdev_fill(index, index, entry);
	}
	mutex_unlock(&revoke_chrdevs_mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(revoke_chrdev_set_error);

/* The object registered for @dev, with a reference, or NULL. */
struct revoke_object *revoke_chrdev_get(dev_t dev)
{
	struct revoke_object *obj;

	rcu_read_lock();
	obj = xa_load(&revoke_chrdevs, dev);
	if (xa_is_value(obj) ||
	    (obj && !kref_get_unless_zero(&obj->kref)))
		obj = NULL;
	rcu_read_unlock();
	return obj;
}

/**
 * revoke_chrdev - revoke the device behind a char device number
 * @dev: the device number of the node revokeat(2) was called on
 *
 * Context: Process context, may sleep.
 * Return: 0 once every file of the device is revoked; -EOPNOTSUPP if its
 * driver does not support revocation; -ENXIO if no driver has the number;
 * or what revoke_chrdev_set_error() stored for it;
 * -EINTR if a fatal signal stopped the wait, see revoke_object_revoke().
 */
int revoke_chrdev(dev_t dev)
{
	struct revoke_object *obj = revoke_chrdev_get(dev);
	void *entry;
	int ret;

	if (!obj) {
		entry = xa_load(&revoke_chrdevs, dev);
		if (xa_is_value(entry))
			return -(int)xa_to_value(entry);
		return cdev_mapped(dev) ? -EOPNOTSUPP : -ENXIO;
	}
	ret = revoke_object_revoke(obj);
	revoke_object_put(obj);
	return ret;
}

/**
 * revoke_cdev_add - make a cdev revocable if its driver supports it
 * @cdev: the cdev, with ->ops, ->dev and ->count set, not yet mapped
 *
 * Called by cdev_add().  Nothing happens unless @cdev->ops has ->revoke.
 *
 * Context: Process context, may sleep.
 * Return: 0 or a negative errno, see revoke_chrdev_register().
 */
int revoke_cdev_add(struct cdev *cdev)
{
	struct revoke_object *obj;
	int ret;

	if (!cdev->ops || !cdev->ops->revoke)
		return 0;
	obj = revoke_object_create();
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	ret = revoke_chrdev_register(obj, cdev->dev, cdev->count);
	if (ret) {
		revoke_object_put(obj);
		return ret;
	}
	cdev->revoke = obj;
	return 0;
}

/**
 * revoke_cdev_del - revoke every open file of a cdev, for good
 * @cdev: the cdev being deleted
 *
 * Called by cdev_del(), after the device numbers are unmapped: opens that
 * still find the cdev through a cached inode fail with -ENXIO, and every
 * open file is revoked and released before this returns.
 *
 * Context: Process context, may sleep; see revoke_object_kill().
 */
void revoke_cdev_del(struct cdev *cdev)
{
	if (!cdev->revoke)
		return;
	revoke_chrdev_unregister(cdev->revoke);
	revoke_object_kill(cdev->revoke);
}

/**
 * revoke_cdev_release - drop the cdev's reference to its object
 * @cdev: the cdev whose kobject is being released
 *
 * Context: Process context, may sleep.
 */
void revoke_cdev_release(struct cdev *cdev)
{
	if (cdev->revoke) {
		revoke_chrdev_unregister(cdev->revoke);
		revoke_object_put(cdev->revoke);
		cdev->revoke = NULL;
	}
}

/**
 * revoke_cdev_open - open a file on a revocable cdev
 * @cdev: the cdev, pinned by the caller
 * @inode: the inode being opened
 * @file: the file being opened
 * @fops: @cdev->ops, with a module reference
 *
 * Context: Process context, may sleep; called by chrdev_open().
 * Return: see revoke_file_open().
 */
int revoke_cdev_open(struct cdev *cdev, struct inode *inode,
		     struct file *file, const struct file_operations *fops)
{
	return revoke_file_open(cdev->revoke, inode, file, fops);
}
