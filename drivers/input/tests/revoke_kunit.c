// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the input revoke adapter.
 *
 * Registers a real input device, so that evdev, joydev and mousedev attach
 * their nodes to it, and opens those nodes by device number, the way
 * open(2) of their device nodes does.  Revoking a node must wake a
 * reader blocked in it, drop its grab and close the input device before
 * revoke_chrdev() returns, and leave the node to the next opener; unplugging
 * the device must revoke the files still open.
 */

#include <kunit/test.h>
#include <linux/device.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/input.h>
#include <linux/kthread.h>
#include <linux/poll.h>
#include <linux/rcupdate.h>
#include <linux/revoke.h>
#include <linux/completion.h>
#include <linux/delay.h>

static int ir_match(struct device *dev, const void *data)
{
	const struct device *parent = data;

	return dev->parent == parent && dev->devt;
}

static int ir_match_prefix(struct device *dev, const void *data)
{
	const char *prefix = data;

	return !strncmp(dev_name(dev), prefix, strlen(prefix));
}

/* The device number of @idev's handler node named @prefix*. */
static dev_t ir_node(struct kunit *test, struct input_dev *idev,
		     const char *prefix)
{
	struct device *dev, *from = NULL;
	dev_t devt;

	for (;;) {
		dev = class_find_device(&input_class, from, &idev->dev,
					ir_match);
		put_device(from);
		if (!dev || ir_match_prefix(dev, prefix))
			break;
		from = dev;
	}
	KUNIT_ASSERT_NOT_NULL_MSG(test, dev, "no %s node", prefix);
	devt = dev->devt;
	put_device(dev);
	return devt;
}

static struct file *ir_open(struct kunit *test, dev_t devt)
{
	struct file *file;
	int err;

	file = revoke_kunit_open(test, devt, &err);
	KUNIT_ASSERT_NOT_NULL_MSG(test, file, "open: %d", err);
	return file;
}

static long ir_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	return file->f_op->unlocked_ioctl(file, cmd, arg);
}

/* A mouse with a joystick's axis and trigger: evdev, mousedev and joydev. */
static struct input_dev *ir_input_register(struct kunit *test)
{
	struct input_dev *idev = input_allocate_device();

	KUNIT_ASSERT_NOT_NULL(test, idev);
	idev->name = "kunit revoke device";
	input_set_capability(idev, EV_KEY, BTN_LEFT);
	input_set_capability(idev, EV_KEY, BTN_TRIGGER);
	input_set_capability(idev, EV_REL, REL_X);
	input_set_capability(idev, EV_REL, REL_Y);
	input_set_abs_params(idev, ABS_X, -100, 100, 0, 0);
	KUNIT_ASSERT_EQ(test, input_register_device(idev), 0);
	return idev;
}

struct ir_reader {
	struct file *file;
	struct completion started, done;
	ssize_t ret;
};

/*
 * A blocked evdev read.  The buffer is never written: the read blocks
 * because no event is queued, and must come back with -ENODEV, what
 * EVIOCREVOKE and unplug answer (FOP_REVOKE_ENODEV).
 */
static int ir_reader_fn(void *data)
{
	struct ir_reader *r = data;
	loff_t pos = 0;

	complete(&r->started);
	r->ret = r->file->f_op->read(r->file, (char __user *)NULL,
				     sizeof(struct input_event), &pos);
	complete(&r->done);
	return 0;
}

/* revokeat(2) on an evdev node: reader, grab and device are let go. */
static void input_revoke_test_evdev(struct kunit *test)
{
	struct input_dev *idev = ir_input_register(test);
	struct ir_reader r = { };
	struct task_struct *task;
	dev_t node;
	struct file *file, *again;

	node = ir_node(test, idev, "event");
	file = ir_open(test, node);
	KUNIT_EXPECT_EQ(test, ir_ioctl(file, EVIOCGRAB, 1), 0);
	KUNIT_EXPECT_NOT_NULL(test, rcu_access_pointer(idev->grab));
	KUNIT_EXPECT_EQ(test, idev->users, 1);

	r.file = file;
	init_completion(&r.started);
	init_completion(&r.done);
	task = kthread_run(ir_reader_fn, &r, "kunit-evdev-reader");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	wait_for_completion(&r.started);
	msleep(20);
	KUNIT_EXPECT_FALSE(test, completion_done(&r.done));

	KUNIT_EXPECT_EQ(test, revoke_chrdev(node), 0);
	/* The reader was woken and the drain waited for it. */
	KUNIT_EXPECT_TRUE(test, completion_done(&r.done));
	wait_for_completion(&r.done);
	KUNIT_EXPECT_EQ(test, r.ret, -ENODEV);
	/* The early release dropped the grab and closed the device. */
	KUNIT_EXPECT_NULL(test, rcu_access_pointer(idev->grab));
	KUNIT_EXPECT_EQ(test, idev->users, 0);
	KUNIT_EXPECT_TRUE(test, vfs_poll(file, NULL) == (EPOLLERR | EPOLLHUP));
	KUNIT_EXPECT_EQ(test, ir_ioctl(file, EVIOCGRAB, 1), -ENODEV);

	/* The next opener gets the device: it can grab it and read events. */
	again = ir_open(test, node);
	KUNIT_EXPECT_EQ(test, ir_ioctl(again, EVIOCGRAB, 1), 0);
	input_report_key(idev, BTN_LEFT, 1);
	input_sync(idev);
	KUNIT_EXPECT_TRUE(test, vfs_poll(again, NULL) & EPOLLIN);

	/* Unplug revokes the files still open; they answer -ENODEV. */
	input_unregister_device(idev);
	KUNIT_EXPECT_TRUE(test, revoke_file_revoked(again));
	KUNIT_EXPECT_EQ(test, ir_ioctl(again, EVIOCGRAB, 0), -ENODEV);
	KUNIT_EXPECT_EQ(test, revoke_chrdev(node), -ENXIO);

	fput(again);
	fput(file);
}

/* EVIOCREVOKE keeps its behaviour: -ENODEV, and the file stays tracked. */
static void input_revoke_test_eviocrevoke(struct kunit *test)
{
	struct input_dev *idev = ir_input_register(test);
	dev_t node;
	struct file *file;

	node = ir_node(test, idev, "event");
	file = ir_open(test, node);
	KUNIT_EXPECT_EQ(test, ir_ioctl(file, EVIOCGRAB, 1), 0);
	KUNIT_EXPECT_EQ(test, ir_ioctl(file, EVIOCREVOKE, 0), 0);
	KUNIT_EXPECT_NULL(test, rcu_access_pointer(idev->grab));
	KUNIT_EXPECT_EQ(test, ir_ioctl(file, EVIOCGRAB, 1), -ENODEV);
	KUNIT_EXPECT_FALSE(test, revoke_file_revoked(file));
	KUNIT_EXPECT_TRUE(test, (vfs_poll(file, NULL) & (EPOLLERR | EPOLLHUP)) ==
				(EPOLLERR | EPOLLHUP));

	/* revokeat(2) after EVIOCREVOKE still releases the file early. */
	KUNIT_EXPECT_EQ(test, revoke_chrdev(node), 0);
	KUNIT_EXPECT_TRUE(test, revoke_file_revoked(file));
	KUNIT_EXPECT_EQ(test, idev->users, 0);

	input_unregister_device(idev);
	fput(file);
}

/* joydev and mousedev nodes: revoked alone, the other nodes untouched. */
static void input_revoke_test_joydev_mousedev(struct kunit *test)
{
	struct input_dev *idev = ir_input_register(test);
	dev_t js, mouse, event;
	struct file *fjs, *fmouse, *fevent;

	js = ir_node(test, idev, "js");
	mouse = ir_node(test, idev, "mouse");
	event = ir_node(test, idev, "event");
	fjs = ir_open(test, js);
	fmouse = ir_open(test, mouse);
	fevent = ir_open(test, event);
	KUNIT_EXPECT_EQ(test, idev->users, 3);

	KUNIT_EXPECT_EQ(test, revoke_chrdev(js), 0);
	KUNIT_EXPECT_TRUE(test, revoke_file_revoked(fjs));
	KUNIT_EXPECT_FALSE(test, revoke_file_revoked(fmouse));
	KUNIT_EXPECT_TRUE(test, vfs_poll(fjs, NULL) == (EPOLLERR | EPOLLHUP));
	KUNIT_EXPECT_EQ(test, idev->users, 2);

	KUNIT_EXPECT_EQ(test, revoke_chrdev(mouse), 0);
	KUNIT_EXPECT_TRUE(test, revoke_file_revoked(fmouse));
	KUNIT_EXPECT_FALSE(test, revoke_file_revoked(fevent));
	KUNIT_EXPECT_EQ(test, idev->users, 1);

	/* Reopened, the mouse node reports motion again. */
	fput(fmouse);
	fmouse = ir_open(test, mouse);
	input_report_rel(idev, REL_X, 5);
	input_sync(idev);
	KUNIT_EXPECT_TRUE(test, vfs_poll(fmouse, NULL) & EPOLLIN);

	input_unregister_device(idev);
	KUNIT_EXPECT_TRUE(test, revoke_file_revoked(fmouse));
	KUNIT_EXPECT_TRUE(test, revoke_file_revoked(fevent));
	fput(fjs);
	fput(fmouse);
	fput(fevent);
}

/*
 * Grace periods started from @cookie on: tree RCU's sequence advances by
 * four per grace period (the low two bits are its state).
 */
static unsigned long ir_gps_since(unsigned long cookie)
{
	return (get_state_synchronize_rcu() - cookie) / 4;
}

#define IR_NFILES	32

/*
 * A revoke releases all of a node's files in a row: it must cost a bounded
 * number of RCU grace periods, not one per file (each release used to wait
 * for its own before freeing the client).  Counted, not timed; IR_NFILES
 * releases that each waited would need IR_NFILES of them.
 */
static void input_revoke_test_grace_periods(struct kunit *test)
{
	static const char *const prefixes[] = { "event", "js", "mouse" };
	struct input_dev *idev = ir_input_register(test);
	struct file **files;
	unsigned long cookie, gps;
	unsigned int p, i;
	dev_t node;

	files = kunit_kcalloc(test, IR_NFILES, sizeof(*files), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, files);
	for (p = 0; p < ARRAY_SIZE(prefixes); p++) {
		node = ir_node(test, idev, prefixes[p]);
		for (i = 0; i < IR_NFILES; i++)
			files[i] = ir_open(test, node);
		/* Let the grace periods of the opens, if any, end first. */
		synchronize_rcu();
		cookie = get_state_synchronize_rcu();
		KUNIT_EXPECT_EQ(test, revoke_chrdev(node), 0);
		gps = ir_gps_since(cookie);
		KUNIT_EXPECT_LT_MSG(test, gps, IR_NFILES / 4,
				    "%s: %lu grace periods for %d files",
				    prefixes[p], gps, IR_NFILES);
		for (i = 0; i < IR_NFILES; i++) {
			KUNIT_EXPECT_TRUE(test, revoke_file_revoked(files[i]));
			fput(files[i]);
		}
	}
	KUNIT_EXPECT_EQ(test, idev->users, 0);
	input_unregister_device(idev);
}

static struct kunit_case input_revoke_cases[] = {
	KUNIT_CASE(input_revoke_test_evdev),
	KUNIT_CASE(input_revoke_test_eviocrevoke),
	KUNIT_CASE(input_revoke_test_joydev_mousedev),
	KUNIT_CASE(input_revoke_test_grace_periods),
	{}
};

static struct kunit_suite input_revoke_suite = {
	.name = "input_revoke",
	.test_cases = input_revoke_cases,
};

kunit_test_suite(input_revoke_suite);

MODULE_DESCRIPTION("KUnit tests for revocable input nodes");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
