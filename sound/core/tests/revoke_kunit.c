// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite of the ALSA revoke adapter (sound/core/revoke.c).
 *
 * A test card with a control node and two hwdep nodes: one whose backend
 * only has ioctl (revocable) and one whose backend reads (not revocable).
 * The nodes are opened by device number, as open(2) of /dev/snd/... does,
 * through snd_open().  The guest tests cover the PCM, rawmidi, timer and
 * sequencer nodes of real drivers.
 */

#include <kunit/device.h>
#include <kunit/test.h>
#include <kunit/visibility.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/revoke.h>
#include <sound/control.h>
#include <sound/core.h>
#include <sound/hwdep.h>

struct rk_card {
	struct snd_card *card;
	struct snd_hwdep *hw, *hw_read;
	atomic_t opens, releases;
};

static int rk_hw_open(struct snd_hwdep *hw, struct file *file)
{
	struct rk_card *rk = hw->private_data;

	atomic_inc(&rk->opens);
	return 0;
}

static int rk_hw_release(struct snd_hwdep *hw, struct file *file)
{
	struct rk_card *rk = hw->private_data;

	atomic_inc(&rk->releases);
	return 0;
}

static int rk_hw_ioctl(struct snd_hwdep *hw, struct file *file,
		       unsigned int cmd, unsigned long arg)
{
	return 0;
}

static long rk_hw_read(struct snd_hwdep *hw, char __user *buf, long count,
		       loff_t *offset)
{
	return 0;
}

static struct rk_card *rk_card_new(struct kunit *test)
{
	struct rk_card *rk = kunit_kzalloc(test, sizeof(*rk), GFP_KERNEL);
	struct device *parent;

	KUNIT_ASSERT_NOT_NULL(test, rk);
	parent = kunit_device_register(test, "snd-revoke-kunit");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, parent);
	KUNIT_ASSERT_EQ(test, snd_card_new(parent, -1, "kunitrevoke",
					   THIS_MODULE, 0, &rk->card), 0);
	KUNIT_ASSERT_EQ(test, snd_hwdep_new(rk->card, "kunit", 0, &rk->hw), 0);
	rk->hw->private_data = rk;
	rk->hw->exclusive = 1;
	rk->hw->ops.open = rk_hw_open;
	rk->hw->ops.release = rk_hw_release;
	rk->hw->ops.ioctl = rk_hw_ioctl;
	KUNIT_ASSERT_EQ(test, snd_hwdep_new(rk->card, "kunit-read", 1,
					    &rk->hw_read), 0);
	rk->hw_read->private_data = rk;
	rk->hw_read->ops.read = rk_hw_read;
	KUNIT_ASSERT_EQ(test, snd_card_register(rk->card), 0);
	return rk;
}

static struct file *rk_open(struct kunit *test, dev_t devt, int *err)
{
	return revoke_kunit_open(test, devt, err);
}

static long rk_ioctl(struct file *file, unsigned int cmd, void *arg)
{
	return file->f_op->unlocked_ioctl(file, cmd, (unsigned long)arg);
}

/* An exclusive hwdep: the revoke frees it for the next opener. */
static void snd_revoke_test_hwdep(struct kunit *test)
{
	struct rk_card *rk = rk_card_new(test);
	dev_t devt = rk->hw->dev->devt;
	struct file *file, *again;
	int err;

	file = rk_open(test, devt, &err);
	KUNIT_ASSERT_NOT_NULL_MSG(test, file, "open: %d", err);
	KUNIT_EXPECT_TRUE(test, revoke_file_tracked(file));
	KUNIT_EXPECT_NULL(test, rk_open(test, devt, &err));
	KUNIT_EXPECT_EQ(test, err, -EBUSY);

	KUNIT_EXPECT_EQ(test, revoke_chrdev(devt), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&rk->releases), 1);
	KUNIT_EXPECT_TRUE(test, revoke_file_revoked(file));
	KUNIT_EXPECT_EQ(test, rk_ioctl(file, 0, NULL), -ENXIO);

	again = rk_open(test, devt, &err);
	KUNIT_ASSERT_NOT_NULL_MSG(test, again, "open: %d", err);
	KUNIT_EXPECT_EQ(test, rk_ioctl(again, 0, NULL), 0);
	fput(again);
	fput(file);
	snd_card_free(rk->card);
	KUNIT_EXPECT_EQ(test, atomic_read(&rk->opens), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&rk->releases), 2);
}

/* A backend that sleeps in ->read cannot be woken: not revocable. */
static void snd_revoke_test_hwdep_read(struct kunit *test)
{
	struct rk_card *rk = rk_card_new(test);
	dev_t devt = rk->hw_read->dev->devt;
	struct file *file;
	int err;

	file = rk_open(test, devt, &err);
	KUNIT_ASSERT_NOT_NULL_MSG(test, file, "open: %d", err);
	KUNIT_EXPECT_FALSE(test, revoke_file_tracked(file));
	KUNIT_EXPECT_EQ(test, revoke_chrdev(devt), -EOPNOTSUPP);
	fput(file);
	snd_card_free(rk->card);
}

/* One node only: the control node of the card is not touched. */
static void snd_revoke_test_one_node(struct kunit *test)
{
	struct rk_card *rk = rk_card_new(test);
	struct file *ctl, *hw;
	int err, version;

	ctl = rk_open(test, rk->card->ctl_dev->devt, &err);
	KUNIT_ASSERT_NOT_NULL_MSG(test, ctl, "open: %d", err);
	hw = rk_open(test, rk->hw->dev->devt, &err);
	KUNIT_ASSERT_NOT_NULL_MSG(test, hw, "open: %d", err);

	KUNIT_EXPECT_EQ(test, revoke_chrdev(rk->hw->dev->devt), 0);
	KUNIT_EXPECT_TRUE(test, revoke_file_revoked(hw));
	KUNIT_EXPECT_FALSE(test, revoke_file_revoked(ctl));

	KUNIT_EXPECT_EQ(test, revoke_chrdev(rk->card->ctl_dev->devt), 0);
	KUNIT_EXPECT_TRUE(test, revoke_file_revoked(ctl));
	KUNIT_EXPECT_EQ(test, rk_ioctl(ctl, SNDRV_CTL_IOCTL_PVERSION,
				       &version), -ENXIO);
	fput(ctl);
	fput(hw);
	snd_card_free(rk->card);
}

/*
 * The card's disconnect with files open, one of them revoked before: the
 * files answer -ENODEV at once but keep their driver state (alsa-lib reads
 * the PCM status page of a disconnected stream) until their last close,
 * which releases them, and then snd_card_free() returns, as it always did.
 */
static void snd_revoke_test_card_disconnect(struct kunit *test)
{
	struct rk_card *rk = rk_card_new(test);
	dev_t ctl_devt = rk->card->ctl_dev->devt;
	dev_t hw_devt = rk->hw->dev->devt;
	struct file *ctl, *hw, *old;
	int err, version;

	old = rk_open(test, hw_devt, &err);
	KUNIT_ASSERT_NOT_NULL_MSG(test, old, "open: %d", err);
	KUNIT_EXPECT_EQ(test, revoke_chrdev(hw_devt), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&rk->releases), 1);
	hw = rk_open(test, hw_devt, &err);
	KUNIT_ASSERT_NOT_NULL_MSG(test, hw, "open: %d", err);
	ctl = rk_open(test, ctl_devt, &err);
	KUNIT_ASSERT_NOT_NULL_MSG(test, ctl, "open: %d", err);

	snd_card_disconnect(rk->card);
	KUNIT_EXPECT_TRUE(test, revoke_file_tracked(ctl));
	KUNIT_EXPECT_EQ(test, revoke_file_error(ctl), -ENODEV);
	KUNIT_EXPECT_EQ(test, revoke_file_error(hw), -ENODEV);
	KUNIT_EXPECT_EQ(test, revoke_file_error(old), -ENXIO);
	KUNIT_EXPECT_EQ(test, rk_ioctl(ctl, SNDRV_CTL_IOCTL_PVERSION,
				       &version), -ENODEV);
	KUNIT_EXPECT_EQ(test, rk_ioctl(hw, 0, NULL), -ENODEV);
	KUNIT_EXPECT_EQ(test, atomic_read(&rk->releases), 1);
	/* No new open, no revoke of a node that is gone. */
	KUNIT_EXPECT_NULL(test, rk_open(test, hw_devt, &err));
	KUNIT_EXPECT_EQ(test, revoke_chrdev(hw_devt), -EOPNOTSUPP);

	/* The last closes release; then the card goes. */
	__fput_sync(hw);
	__fput_sync(ctl);
	__fput_sync(old);
	snd_card_free(rk->card);
	KUNIT_EXPECT_EQ(test, atomic_read(&rk->releases), 2);
}

static struct kunit_case snd_revoke_cases[] = {
	KUNIT_CASE(snd_revoke_test_hwdep),
	KUNIT_CASE(snd_revoke_test_hwdep_read),
	KUNIT_CASE(snd_revoke_test_one_node),
	KUNIT_CASE(snd_revoke_test_card_disconnect),
	{}
};

static struct kunit_suite snd_revoke_suite = {
	.name = "snd_revoke",
	.test_cases = snd_revoke_cases,
};

kunit_test_suite(snd_revoke_suite);

MODULE_DESCRIPTION("KUnit tests for revocable ALSA nodes");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
