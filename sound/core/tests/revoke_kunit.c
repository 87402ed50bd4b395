// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite of the ALSA revoke adapter (sound/core/revoke.c).
 *
 * A test card with a control node, three hwdep nodes (one whose backend
 * only has ioctl, revocable, and two whose backends read or map, not
 * revocable), a capture PCM whose driver logs its trigger, hw_free and
 * close calls, a rawmidi port whose device never takes a byte and a
 * compressed-offload playback device whose DSP never ends a drain.  The
 * nodes are opened by device number, as open(2) of /dev/snd/... does,
 * through snd_open().  The guest tests cover the PCM, rawmidi, timer and
 * sequencer nodes of real drivers.
 */

#include <kunit/device.h>
#include <kunit/test.h>
#include <kunit/visibility.h>
#include <linux/delay.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/mman.h>
#include <linux/revoke.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>
#include <sound/compress_driver.h>
#include <sound/control.h>
#include <sound/core.h>
#include <sound/hwdep.h>
#include <sound/pcm.h>
#include <sound/rawmidi.h>

/*
 * What the PCM and compress drivers saw, besides the SNDRV_PCM_TRIGGER_*
 * and SND_COMPR_TRIGGER_* commands.
 */
enum { RK_HW_FREE = 100, RK_CLOSE };

#define RK_LOG	16
#define RK_PCM_STREAM(rk)	((rk)->pcm->streams[SNDRV_PCM_STREAM_CAPTURE])

struct rk_card {
	struct snd_card *card;
	struct snd_hwdep *hw, *hw_read, *hw_mmap;
	struct snd_pcm *pcm;
	struct snd_rawmidi *rmidi;
	struct snd_compr *compr;
	atomic_t compr_busy;	/* the DSP runs one stream at a time */
	atomic_t opens, releases;
	int log[RK_LOG];	/* the PCM or compress driver's calls, in order */
	atomic_t nlog;
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

static int rk_hw_mmap(struct snd_hwdep *hw, struct file *file,
		      struct vm_area_struct *vma)
{
	return -EINVAL;
}

static void rk_log(struct rk_card *rk, int what)
{
	int i = atomic_fetch_inc(&rk->nlog);

	if (i < RK_LOG)
		rk->log[i] = what;
}

/* Where @what is in the driver's log, or -1. */
static int rk_logged(struct rk_card *rk, int what)
{
	int i;

	for (i = 0; i < min(atomic_read(&rk->nlog), RK_LOG); i++)
		if (rk->log[i] == what)
			return i;
	return -1;
}

static const struct snd_pcm_hardware rk_pcm_hw = {
	.info = SNDRV_PCM_INFO_INTERLEAVED | SNDRV_PCM_INFO_PAUSE |
		SNDRV_PCM_INFO_MMAP | SNDRV_PCM_INFO_MMAP_VALID,
	.formats = SNDRV_PCM_FMTBIT_S16_LE,
	.rates = SNDRV_PCM_RATE_48000,
	.rate_min = 48000,
	.rate_max = 48000,
	.channels_min = 2,
	.channels_max = 2,
	.buffer_bytes_max = 16384,
	.period_bytes_min = 4096,
	.period_bytes_max = 4096,
	.periods_min = 4,
	.periods_max = 4,
};

static int rk_pcm_open(struct snd_pcm_substream *substream)
{
	substream->runtime->hw = rk_pcm_hw;
	return 0;
}

static int rk_pcm_close(struct snd_pcm_substream *substream)
{
	rk_log(snd_pcm_substream_chip(substream), RK_CLOSE);
	return 0;
}

static int rk_pcm_hw_free(struct snd_pcm_substream *substream)
{
	rk_log(snd_pcm_substream_chip(substream), RK_HW_FREE);
	return 0;
}

static int rk_pcm_prepare(struct snd_pcm_substream *substream)
{
	return 0;
}

static int rk_pcm_trigger(struct snd_pcm_substream *substream, int cmd)
{
	rk_log(snd_pcm_substream_chip(substream), cmd);
	return 0;
}

static snd_pcm_uframes_t rk_pcm_pointer(struct snd_pcm_substream *substream)
{
	return 0;
}

static const struct snd_pcm_ops rk_pcm_ops = {
	.open = rk_pcm_open,
	.close = rk_pcm_close,
	.hw_free = rk_pcm_hw_free,
	.prepare = rk_pcm_prepare,
	.trigger = rk_pcm_trigger,
	.pointer = rk_pcm_pointer,
};

static int rk_midi_open(struct snd_rawmidi_substream *substream)
{
	return 0;
}

static int rk_midi_close(struct snd_rawmidi_substream *substream)
{
	return 0;
}

/* A device that never takes a byte: its output never drains. */
static void rk_midi_trigger(struct snd_rawmidi_substream *substream, int up)
{
}

static const struct snd_rawmidi_ops rk_midi_ops = {
	.open = rk_midi_open,
	.close = rk_midi_close,
	.trigger = rk_midi_trigger,
};

static int rk_compr_open(struct snd_compr_stream *stream)
{
	struct rk_card *rk = stream->private_data;

	return atomic_cmpxchg(&rk->compr_busy, 0, 1) ? -EBUSY : 0;
}

static int rk_compr_free(struct snd_compr_stream *stream)
{
	struct rk_card *rk = stream->private_data;

	rk_log(rk, RK_CLOSE);
	atomic_set(&rk->compr_busy, 0);
	return 0;
}

static int rk_compr_set_params(struct snd_compr_stream *stream,
			       struct snd_compr_params *params)
{
	return 0;
}

static int rk_compr_set_metadata(struct snd_compr_stream *stream,
				 struct snd_compr_metadata *metadata)
{
	return 0;
}

/* A DSP that never ends a drain: snd_compr_drain_notify() is not called. */
static int rk_compr_trigger(struct snd_compr_stream *stream, int cmd)
{
	rk_log(stream->private_data, cmd);
	return 0;
}

static int rk_compr_pointer(struct snd_compr_stream *stream,
			    struct snd_compr_tstamp *tstamp)
{
	return 0;
}

/* Not const: struct snd_compr points to non-const ops. */
static struct snd_compr_ops rk_compr_ops = {
	.open = rk_compr_open,
	.free = rk_compr_free,
	.set_params = rk_compr_set_params,
	.set_metadata = rk_compr_set_metadata,
	.trigger = rk_compr_trigger,
	.pointer = rk_compr_pointer,
};

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
	KUNIT_ASSERT_EQ(test, snd_hwdep_new(rk->card, "kunit-mmap", 2,
					    &rk->hw_mmap), 0);
	rk->hw_mmap->private_data = rk;
	rk->hw_mmap->ops.mmap = rk_hw_mmap;
	/* Capture: a playback stream would not start with an empty buffer. */
	KUNIT_ASSERT_EQ(test, snd_pcm_new(rk->card, "kunit-pcm", 0, 0, 1,
					  &rk->pcm), 0);
	rk->pcm->private_data = rk;
	snd_pcm_set_ops(rk->pcm, SNDRV_PCM_STREAM_CAPTURE, &rk_pcm_ops);
	snd_pcm_set_managed_buffer_all(rk->pcm, SNDRV_DMA_TYPE_VMALLOC, NULL,
				       0, 0);
	KUNIT_ASSERT_EQ(test, snd_rawmidi_new(rk->card, "kunit-midi", 0, 1, 1,
					      &rk->rmidi), 0);
	rk->rmidi->info_flags = SNDRV_RAWMIDI_INFO_OUTPUT |
				SNDRV_RAWMIDI_INFO_INPUT |
				SNDRV_RAWMIDI_INFO_DUPLEX;
	snd_rawmidi_set_ops(rk->rmidi, SNDRV_RAWMIDI_STREAM_OUTPUT, &rk_midi_ops);
	snd_rawmidi_set_ops(rk->rmidi, SNDRV_RAWMIDI_STREAM_INPUT, &rk_midi_ops);
	rk->compr = kunit_kzalloc(test, sizeof(*rk->compr), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rk->compr);
	rk->compr->ops = &rk_compr_ops;
	rk->compr->private_data = rk;
	KUNIT_ASSERT_EQ(test, snd_compress_new(rk->card, 0,
					       SND_COMPRESS_PLAYBACK,
					       "kunit-compr", rk->compr), 0);
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
	/* Gone, its number has no device. */
	KUNIT_EXPECT_EQ(test, revoke_chrdev(devt), -ENXIO);
}

/*
 * A backend that maps pages with vm_ops of its own (us122l, usx2y): their
 * ->open and ->close run as long as the mapping lives, on card data that
 * the early release no longer keeps, in the card's module.  Not
 * revocable.
 */
static void snd_revoke_test_hwdep_mmap(struct kunit *test)
{
	struct rk_card *rk = rk_card_new(test);
	dev_t devt = rk->hw_mmap->dev->devt;
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
	/* No new open; a node that is gone has no device to revoke. */
	KUNIT_EXPECT_NULL(test, rk_open(test, hw_devt, &err));
	KUNIT_EXPECT_EQ(test, revoke_chrdev(hw_devt), -ENXIO);

	/* The last closes release; then the card goes. */
	__fput_sync(hw);
	__fput_sync(ctl);
	__fput_sync(old);
	snd_card_free(rk->card);
	KUNIT_EXPECT_EQ(test, atomic_read(&rk->releases), 2);
}

/* The PCM's node, opened and set up (hw_params chooses the only setup). */
static struct file *rk_pcm_open_setup(struct kunit *test, struct rk_card *rk,
				      struct snd_pcm_substream **substream)
{
	struct snd_pcm_hw_params *params;
	struct file *file;
	int err;

	file = rk_open(test, RK_PCM_STREAM(rk).dev->devt, &err);
	KUNIT_ASSERT_NOT_NULL_MSG(test, file, "open: %d", err);
	*substream = RK_PCM_STREAM(rk).substream;
	params = kunit_kzalloc(test, sizeof(*params), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, params);
	_snd_pcm_hw_params_any(params);
	KUNIT_ASSERT_EQ(test, snd_pcm_kernel_ioctl(*substream,
						   SNDRV_PCM_IOCTL_HW_PARAMS,
						   params), 0);
	return file;
}

/*
 * A paused stream: the driver must see PAUSE_RELEASE and STOP before
 * hw_free, as snd_pcm_drop() does at a close; the revoke used to leave
 * the hardware paused, then freed its buffer.
 */
static void snd_revoke_test_pcm_paused(struct kunit *test)
{
	struct rk_card *rk = rk_card_new(test);
	struct snd_pcm_substream *substream;
	struct file *file;
	int stop, hw_free;

	file = rk_pcm_open_setup(test, rk, &substream);
	KUNIT_ASSERT_EQ(test, snd_pcm_kernel_ioctl(substream,
						   SNDRV_PCM_IOCTL_PREPARE,
						   NULL), 0);
	KUNIT_ASSERT_EQ(test, snd_pcm_kernel_ioctl(substream,
						   SNDRV_PCM_IOCTL_START,
						   NULL), 0);
	KUNIT_ASSERT_EQ(test, rk_ioctl(file, SNDRV_PCM_IOCTL_PAUSE,
				       (void *)1), 0);
	KUNIT_ASSERT_EQ(test, (__force int)substream->runtime->state,
			(__force int)SNDRV_PCM_STATE_PAUSED);

	KUNIT_EXPECT_EQ(test, revoke_chrdev(RK_PCM_STREAM(rk).dev->devt), 0);
	stop = rk_logged(rk, SNDRV_PCM_TRIGGER_STOP);
	hw_free = rk_logged(rk, RK_HW_FREE);
	KUNIT_EXPECT_GE(test, rk_logged(rk, SNDRV_PCM_TRIGGER_PAUSE_RELEASE),
			0);
	KUNIT_EXPECT_GE_MSG(test, stop, 0, "the paused stream was never stopped");
	KUNIT_EXPECT_LT(test, stop, hw_free);
	KUNIT_EXPECT_GE(test, rk_logged(rk, RK_CLOSE), 0);
	fput(file);
	snd_card_free(rk->card);
}

/*
 * A substream that a file the revoke does not touch shares (an OSS
 * /dev/dsp file, not revocable, with a native O_APPEND opener) keeps the
 * count of that file's data mappings: the early release of the revoked
 * file takes out only what its own mappings added, split or not, and
 * their ->close no longer counts.  It used to reset the count, which went
 * to -1 once the other file's mapping went, and every later HW_PARAMS of
 * the substream failed with EBADFD.
 */
static void snd_revoke_test_pcm_mmap_count(struct kunit *test)
{
	struct rk_card *rk = rk_card_new(test);
	struct snd_pcm_substream *substream;
	unsigned long addr[2];
	struct file *file, *again;
	int i;

	file = rk_pcm_open_setup(test, rk, &substream);
	for (i = 0; i < 2; i++) {
		addr[i] = kunit_vm_mmap(test, file, 0, 2 * PAGE_SIZE, PROT_READ,
					MAP_SHARED, SNDRV_PCM_MMAP_OFFSET_DATA);
		KUNIT_ASSERT_FALSE_MSG(test, IS_ERR_VALUE(addr[i]), "mmap: %ld",
				       (long)addr[i]);
	}
	/* A split: the new part's ->open counts, the unmapped part's ->close. */
	KUNIT_ASSERT_EQ(test, vm_munmap(addr[0], PAGE_SIZE), 0);
	KUNIT_ASSERT_EQ(test, atomic_read(&substream->mmap_count), 2);
	/* The other file's mapping, as snd_pcm_mmap_data() counts it. */
	atomic_inc(&substream->mmap_count);

	KUNIT_EXPECT_EQ(test, revoke_chrdev(RK_PCM_STREAM(rk).dev->devt), 0);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&substream->mmap_count), 1,
			    "the other file's mapping is no longer counted");
	KUNIT_EXPECT_EQ(test, vm_munmap(addr[0] + PAGE_SIZE, PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, vm_munmap(addr[1], 2 * PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&substream->mmap_count), 1);
	/* The other file's mapping goes. */
	atomic_dec(&substream->mmap_count);

	again = rk_pcm_open_setup(test, rk, &substream);
	fput(again);
	fput(file);
	snd_card_free(rk->card);
}

struct rk_op {
	struct file *file;
	dev_t devt;
	unsigned int cmd;
	long ret;
	struct completion done;
	struct task_struct *task;
	struct task_struct *sleeper;	/* for rk_revoke_asleep_fn() */
	struct snd_card *card;		/* for rk_disconnect_asleep_fn() */
	bool asleep;			/* the sleeper was seen asleep */
};

static int rk_op_fn(void *data)
{
	struct rk_op *op = data;

	op->ret = rk_ioctl(op->file, op->cmd, NULL);
	/* All: a test may wait with a timeout first, then in rk_op_end(). */
	complete_all(&op->done);
	return 0;
}

static int rk_revoke_fn(void *data)
{
	struct rk_op *op = data;

	op->ret = revoke_chrdev(op->devt);
	complete_all(&op->done);
	return 0;
}

static void rk_op_start(struct kunit *test, struct rk_op *op,
			int (*fn)(void *), struct file *file, unsigned int cmd)
{
	op->file = file;
	op->devt = file_inode(file)->i_rdev;
	op->cmd = cmd;
	init_completion(&op->done);
	op->task = kthread_create(fn, op, "kunit-snd-revoke");
	KUNIT_ASSERT_FALSE(test, IS_ERR(op->task));
	/* rk_op_sleeping() looks at it, also once it ended. */
	get_task_struct(op->task);
	wake_up_process(op->task);
}

static void rk_op_end(struct rk_op *op)
{
	wait_for_completion(&op->done);
	put_task_struct(op->task);
}

/* Wait, at most 2 s, for @op to sleep uninterruptibly (a lock, a wait). */
static bool rk_op_sleeping(struct rk_op *op)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (READ_ONCE(op->task->__state) == TASK_UNINTERRUPTIBLE)
			return true;
		msleep(20);
	}
	return false;
}

/*
 * An ioctl that waits for the card to resume: the revoke must wake it and
 * it must answer the revoke's -ENXIO (the revoke used to wait for it as
 * long as the card stayed suspended).  The early release, though, touches
 * the hardware (hw_free, close): it waits for the card's power as every
 * close does, and the revoke completes once the card is resumed (it used
 * to release the stream of a suspended card).
 */
static void snd_revoke_test_pcm_power_wait(struct kunit *test)
{
	struct rk_card *rk = rk_card_new(test);
	struct snd_pcm_substream *substream;
	struct rk_op op, rev;
	struct file *file;
	int i;

	file = rk_pcm_open_setup(test, rk, &substream);
	snd_power_change_state(rk->card, SNDRV_CTL_POWER_D3hot);
	rk_op_start(test, &op, rk_op_fn, file, SNDRV_PCM_IOCTL_PREPARE);
	KUNIT_EXPECT_TRUE(test, rk_op_sleeping(&op));
	KUNIT_EXPECT_FALSE(test, completion_done(&op.done));

	rk_op_start(test, &rev, rk_revoke_fn, file, 0);
	if (!wait_for_completion_timeout(&op.done, 3 * HZ))
		KUNIT_FAIL(test, "the ioctl waits for the card's power");
	for (i = 0; i < 50 && !completion_done(&rev.done); i++)
		msleep(20);
	KUNIT_EXPECT_FALSE_MSG(test, completion_done(&rev.done),
			       "the stream was released while suspended");
	KUNIT_EXPECT_EQ(test, rk_logged(rk, RK_HW_FREE), -1);
	KUNIT_EXPECT_EQ(test, rk_logged(rk, RK_CLOSE), -1);

	snd_power_change_state(rk->card, SNDRV_CTL_POWER_D0);
	rk_op_end(&rev);
	rk_op_end(&op);
	KUNIT_EXPECT_EQ(test, rev.ret, 0);
	KUNIT_EXPECT_EQ(test, op.ret, -ENXIO);
	KUNIT_EXPECT_GE(test, rk_logged(rk, RK_HW_FREE), 0);
	KUNIT_EXPECT_GE(test, rk_logged(rk, RK_CLOSE), 0);
	fput(file);
	snd_card_free(rk->card);
}

/* A revoker that a SIGKILL can stop, as a task in revokeat(2). */
static int rk_revoke_killable_fn(void *data)
{
	struct rk_op *op = data;

	allow_signal(SIGKILL);
	op->ret = revoke_chrdev(op->devt);
	complete_all(&op->done);
	return 0;
}

/*
 * The early release waits for the card's power, but killably: a revoker
 * killed while the card stays suspended returns (the wait used to be
 * uninterruptible, for as long as the card stayed suspended).
 */
static void snd_revoke_test_pcm_power_wait_killed(struct kunit *test)
{
	struct rk_card *rk = rk_card_new(test);
	struct snd_pcm_substream *substream;
	struct rk_op rev;
	struct file *file;

	file = rk_pcm_open_setup(test, rk, &substream);
	snd_power_change_state(rk->card, SNDRV_CTL_POWER_D3hot);
	rk_op_start(test, &rev, rk_revoke_killable_fn, file, 0);
	/* Nothing in flight: the revoker is soon in the release's wait. */
	msleep(500);
	KUNIT_EXPECT_FALSE(test, completion_done(&rev.done));
	KUNIT_EXPECT_EQ(test, READ_ONCE(rev.task->__state), TASK_KILLABLE);
	send_sig(SIGKILL, rev.task, 1);
	if (!wait_for_completion_timeout(&rev.done, 3 * HZ))
		KUNIT_FAIL(test, "the killed revoker still waits for the card");
	snd_power_change_state(rk->card, SNDRV_CTL_POWER_D0);
	rk_op_end(&rev);
	KUNIT_EXPECT_GE(test, rk_logged(rk, RK_CLOSE), 0);
	fput(file);
	snd_card_free(rk->card);
}

/*
 * An ioctl in flight at the revoke, waiting for a lock, then finding the
 * stream stopped: it answers the revoke's -ENXIO, not ALSA's -EBADFD for
 * a disconnected stream.
 */
static void snd_revoke_test_pcm_ioctl_in_flight(struct kunit *test)
{
	struct rk_card *rk = rk_card_new(test);
	struct snd_pcm_substream *substream;
	struct rk_op op, rev;
	struct file *file;
	int i;

	file = rk_pcm_open_setup(test, rk, &substream);
	mutex_lock(&substream->runtime->buffer_mutex);
	rk_op_start(test, &op, rk_op_fn, file, SNDRV_PCM_IOCTL_PREPARE);
	KUNIT_EXPECT_TRUE(test, rk_op_sleeping(&op));

	rk_op_start(test, &rev, rk_revoke_fn, file, 0);
	for (i = 0; i < 100 && !revoke_file_revoked(file); i++)
		msleep(20);
	KUNIT_EXPECT_TRUE(test, revoke_file_revoked(file));
	/* The revoke waits for the ioctl, which waits for the lock. */
	msleep(50);
	KUNIT_EXPECT_FALSE(test, completion_done(&rev.done));
	mutex_unlock(&substream->runtime->buffer_mutex);

	rk_op_end(&op);
	rk_op_end(&rev);
	KUNIT_EXPECT_EQ(test, rev.ret, 0);
	KUNIT_EXPECT_EQ(test, op.ret, -ENXIO);
	fput(file);
	snd_card_free(rk->card);
}

static long rk_ioctl_user(struct file *file, unsigned int cmd,
			  void __user *arg)
{
	return file->f_op->unlocked_ioctl(file, cmd, (unsigned long)arg);
}

/*
 * Wait, at most 2 s, for op->sleeper to sleep interruptibly; the test
 * checks op->asleep, as an operation that had not started yet would fail
 * at the revoke without reaching the driver.
 */
static void rk_wait_asleep(struct rk_op *op)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (READ_ONCE(op->sleeper->__state) == TASK_INTERRUPTIBLE) {
			op->asleep = true;
			return;
		}
		msleep(20);
	}
	op->asleep = false;
}

/* Revoke once op->sleeper sleeps. */
static int rk_revoke_asleep_fn(void *data)
{
	struct rk_op *op = data;

	rk_wait_asleep(op);
	op->ret = revoke_chrdev(op->devt);
	complete_all(&op->done);
	return 0;
}

/* Disconnect op->card, as an unplug does, once op->sleeper sleeps. */
static int rk_disconnect_asleep_fn(void *data)
{
	struct rk_op *op = data;

	rk_wait_asleep(op);
	snd_card_disconnect(op->card);
	complete_all(&op->done);
	return 0;
}

/*
 * The test's own user memory: the rawmidi ioctls and writes below take
 * user pointers, and run in the test's task, which the revoker must wake.
 */
static void __user *rk_user_page(struct kunit *test)
{
	unsigned long addr;

	addr = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE_MSG(test, addr, 0UL, "no user memory");
	return (void __user *)addr;
}

static long rk_midi_drain(struct file *file, void __user *arg)
{
	return rk_ioctl_user(file, SNDRV_RAWMIDI_IOCTL_DRAIN, arg);
}

static long rk_midi_write(struct file *file, void __user *arg)
{
	loff_t pos = 0;

	return file->f_op->write(file, arg, 1, &pos);
}

static long rk_midi_params(struct file *file, void __user *arg)
{
	return rk_ioctl_user(file, SNDRV_RAWMIDI_IOCTL_PARAMS, arg);
}

/*
 * Run @op on @file in the test's task while a kthread revokes the file
 * once the task sleeps: @op must return @expect within 3 s.
 */
static void rk_revoked_in(struct kunit *test, struct file *file,
			  long (*op)(struct file *, void __user *),
			  void __user *arg, long expect, const char *what)
{
	struct rk_op rev;
	unsigned long t;

	rev.sleeper = current;
	rk_op_start(test, &rev, rk_revoke_asleep_fn, file, 0);
	t = jiffies;
	KUNIT_EXPECT_EQ_MSG(test, op(file, arg), expect, "%s", what);
	KUNIT_EXPECT_LT_MSG(test, jiffies - t, 3UL * HZ,
			    "%s waited for the device", what);
	rk_op_end(&rev);
	KUNIT_EXPECT_EQ(test, rev.ret, 0);
	KUNIT_EXPECT_TRUE_MSG(test, rev.asleep, "%s never slept", what);
}

/*
 * A rawmidi output that a kernel client shares with an O_APPEND opener (as
 * snd-seq-midi does) keeps its bytes at a revoke of the file: they are
 * the other user's.  A DRAIN of the revoked file in flight must end at the
 * revoke all the same (it waited for the device, 10 s, failed with EIO
 * and dropped the other user's bytes), and so must the wait of an O_DSYNC
 * write (30 s per try without progress) and the drain that PARAMS does
 * first (10 s, then EBUSY for a shared output).
 */
static void snd_revoke_test_rawmidi_shared_output(struct kunit *test)
{
	static const unsigned char note[3] = { 0x90, 0x40, 0x7f };
	struct rk_card *rk = rk_card_new(test);
	dev_t devt = rk->rmidi->dev->devt;
	struct snd_rawmidi_runtime *runtime;
	struct snd_rawmidi_file kfile;
	struct snd_rawmidi_params params = {
		.stream = SNDRV_RAWMIDI_STREAM_OUTPUT,
		.buffer_size = 4096,
		.avail_min = 1,
	};
	void __user *arg;
	struct file *file;
	int err;

	arg = rk_user_page(test);
	KUNIT_ASSERT_EQ(test, put_user(SNDRV_RAWMIDI_STREAM_OUTPUT,
				       (int __user *)arg), 0);
	KUNIT_ASSERT_EQ(test, snd_rawmidi_kernel_open(rk->rmidi, 0,
						      SNDRV_RAWMIDI_LFLG_OUTPUT |
						      SNDRV_RAWMIDI_LFLG_APPEND,
						      &kfile), 0);
	runtime = kfile.output->runtime;
	KUNIT_EXPECT_EQ(test, snd_rawmidi_kernel_write(kfile.output, note, 3),
			3);

	file = revoke_kunit_open_flags(test, devt, O_WRONLY | O_APPEND |
				       O_NONBLOCK, &err);
	KUNIT_ASSERT_NOT_NULL_MSG(test, file, "open: %d", err);
	KUNIT_EXPECT_EQ(test, kfile.output->use_count, 2);
	rk_revoked_in(test, file, rk_midi_drain, arg, -ENXIO, "DRAIN");
	fput(file);
	KUNIT_EXPECT_EQ(test, runtime->buffer_size - runtime->avail, 3UL);

	/* Written, then waiting for the device to take it: a success. */
	file = revoke_kunit_open_flags(test, devt, O_WRONLY | O_APPEND |
				       O_NONBLOCK | O_DSYNC, &err);
	KUNIT_ASSERT_NOT_NULL_MSG(test, file, "open: %d", err);
	rk_revoked_in(test, file, rk_midi_write, arg, 1, "O_DSYNC write");
	fput(file);

	file = revoke_kunit_open_flags(test, devt, O_WRONLY | O_APPEND |
				       O_NONBLOCK, &err);
	KUNIT_ASSERT_NOT_NULL_MSG(test, file, "open: %d", err);
	KUNIT_ASSERT_EQ(test, copy_to_user(arg, &params, sizeof(params)), 0UL);
	rk_revoked_in(test, file, rk_midi_params, arg, -ENXIO, "PARAMS");
	fput(file);
	KUNIT_EXPECT_EQ(test, runtime->buffer_size - runtime->avail, 4UL);

	/* The device never takes them: do not drain at the release. */
	snd_rawmidi_drop_output(kfile.output);
	snd_rawmidi_kernel_release(&kfile);
	snd_card_free(rk->card);
}

/*
 * A rawmidi file that asked for active sensing: its release writes one
 * 0xfe byte and drains it.  The early release of a revoked file must not
 * wait for a device that never takes it (it did, 10 s, in revokeat(2)).
 */
static void snd_revoke_test_rawmidi_active_sensing(struct kunit *test)
{
	struct snd_rawmidi_params params = {
		.stream = SNDRV_RAWMIDI_STREAM_OUTPUT,
		.buffer_size = 4096,
		.avail_min = 1,
		.no_active_sensing = 0,
	};
	struct rk_card *rk = rk_card_new(test);
	dev_t devt = rk->rmidi->dev->devt;
	struct snd_rawmidi_file *rfile;
	struct file *file;
	unsigned long t;
	void __user *arg;
	int err;

	arg = rk_user_page(test);
	KUNIT_ASSERT_EQ(test, copy_to_user(arg, &params, sizeof(params)), 0UL);
	file = revoke_kunit_open_flags(test, devt, O_WRONLY, &err);
	KUNIT_ASSERT_NOT_NULL_MSG(test, file, "open: %d", err);
	KUNIT_ASSERT_EQ(test, rk_ioctl_user(file, SNDRV_RAWMIDI_IOCTL_PARAMS,
					    arg), 0L);
	rfile = file->private_data;
	KUNIT_EXPECT_TRUE(test, rfile->output->active_sensing);
	t = jiffies;
	KUNIT_EXPECT_EQ(test, revoke_chrdev(devt), 0);
	KUNIT_EXPECT_LT_MSG(test, jiffies - t, 3UL * HZ,
			    "the release drained the active sensing byte");
	fput(file);
	snd_card_free(rk->card);
}

static long rk_compr_drain(struct file *file, void __user *arg)
{
	return rk_ioctl_user(file, SNDRV_COMPRESS_DRAIN, arg);
}

static long rk_compr_partial_drain(struct file *file, void __user *arg)
{
	return rk_ioctl_user(file, SNDRV_COMPRESS_PARTIAL_DRAIN, arg);
}

/*
 * The compress driver saw @trigger, then STOP, then its free, since the
 * last call; forget them.
 */
static void rk_compr_expect_stopped(struct kunit *test, struct rk_card *rk,
				    int trigger)
{
	int trig = rk_logged(rk, trigger);
	int stop = rk_logged(rk, SNDRV_PCM_TRIGGER_STOP);

	KUNIT_EXPECT_GE_MSG(test, trig, 0, "no trigger %d", trigger);
	KUNIT_EXPECT_GT_MSG(test, stop, trig, "the stream was never stopped");
	KUNIT_EXPECT_GT(test, rk_logged(rk, RK_CLOSE), stop);
	atomic_set(&rk->nlog, 0);
}

/* The compress node, opened, set up, written to and started. */
static struct file *rk_compr_running(struct kunit *test, struct rk_card *rk,
				     void __user *arg)
{
	struct snd_compr_params params = {
		.buffer = { .fragment_size = 1024, .fragments = 4 },
		.codec = { .id = SND_AUDIOCODEC_PCM, .ch_in = 2, .ch_out = 2 },
	};
	struct file *file;
	loff_t pos = 0;
	int err;

	file = revoke_kunit_open_flags(test, rk->compr->dev->devt, O_WRONLY,
				       &err);
	KUNIT_ASSERT_NOT_NULL_MSG(test, file, "open: %d", err);
	KUNIT_ASSERT_EQ(test, copy_to_user(arg, &params, sizeof(params)), 0UL);
	KUNIT_ASSERT_EQ(test, rk_ioctl_user(file, SNDRV_COMPRESS_SET_PARAMS,
					    arg), 0L);
	KUNIT_ASSERT_EQ(test, file->f_op->write(file, arg, 64, &pos), 64L);
	KUNIT_ASSERT_EQ(test, rk_ioctl_user(file, SNDRV_COMPRESS_START, NULL),
			0L);
	return file;
}

/*
 * A compressed-offload node is revocable like the others: a DRAIN waits
 * for the DSP to end it, and must end at the revoke with the revoke's
 * -ENXIO; the early release stops the draining stream and frees it, and
 * the next opener gets the device at once.  The nodes used to be left out
 * (revokeat(2) answered EOPNOTSUPP), so a session switch could not take
 * /dev/snd/comprC*D* away.
 */
static void snd_revoke_test_compr_drain(struct kunit *test)
{
	struct rk_card *rk = rk_card_new(test);
	dev_t devt = rk->compr->dev->devt;
	struct file *file, *again;
	void __user *arg;
	__poll_t mask;
	loff_t pos = 0;
	int err;

	arg = rk_user_page(test);
	file = rk_compr_running(test, rk, arg);
	KUNIT_ASSERT_TRUE_MSG(test, revoke_file_tracked(file),
			      "revokeat(2): %d", revoke_chrdev(devt));
	KUNIT_EXPECT_NULL(test, revoke_kunit_open_flags(test, devt, O_WRONLY,
							&err));
	KUNIT_EXPECT_EQ(test, err, -EBUSY);
	rk_revoked_in(test, file, rk_compr_drain, arg, -ENXIO, "DRAIN");
	rk_compr_expect_stopped(test, rk, SND_COMPR_TRIGGER_DRAIN);
	KUNIT_EXPECT_EQ(test, rk_ioctl_user(file, SNDRV_COMPRESS_AVAIL, arg),
			-ENXIO);
	KUNIT_EXPECT_EQ(test, file->f_op->write(file, arg, 64, &pos),
			-ENXIO);
	mask = vfs_poll(file, NULL);
	KUNIT_EXPECT_TRUE(test, mask & EPOLLERR);

	again = rk_compr_running(test, rk, arg);
	rk_revoked_in(test, again, rk_compr_drain, arg, -ENXIO,
		      "DRAIN after reopening");
	rk_compr_expect_stopped(test, rk, SND_COMPR_TRIGGER_DRAIN);
	fput(again);
	fput(file);
	snd_card_free(rk->card);
}

/*
 * A PARTIAL_DRAIN (gapless playback: the end of one track) waits in the
 * same place as a DRAIN, and so must end at the revoke too.
 */
static void snd_revoke_test_compr_partial_drain(struct kunit *test)
{
	struct snd_compr_metadata metadata = {
		.key = SNDRV_COMPRESS_ENCODER_PADDING,
	};
	struct rk_card *rk = rk_card_new(test);
	void __user *arg;
	struct file *file;

	arg = rk_user_page(test);
	file = rk_compr_running(test, rk, arg);
	KUNIT_ASSERT_TRUE(test, revoke_file_tracked(file));
	KUNIT_ASSERT_EQ(test, copy_to_user(arg, &metadata, sizeof(metadata)),
			0UL);
	KUNIT_ASSERT_EQ(test, rk_ioctl_user(file, SNDRV_COMPRESS_SET_METADATA,
					    arg), 0L);
	KUNIT_ASSERT_EQ(test, rk_ioctl_user(file, SNDRV_COMPRESS_NEXT_TRACK,
					    NULL), 0L);
	rk_revoked_in(test, file, rk_compr_partial_drain, arg, -ENXIO,
		      "PARTIAL_DRAIN");
	rk_compr_expect_stopped(test, rk, SND_COMPR_TRIGGER_PARTIAL_DRAIN);
	fput(file);
	snd_card_free(rk->card);
}

/*
 * An unplug of the card (its disconnect) ends a drain in flight too, with
 * ENODEV; it used to sleep until a signal, and the file's stream stays,
 * as after any disconnect, until the last close stops and frees it.
 */
static void snd_revoke_test_compr_disconnect(struct kunit *test)
{
	struct rk_card *rk = rk_card_new(test);
	struct file *file;
	void __user *arg;
	struct rk_op op;
	unsigned long t;

	arg = rk_user_page(test);
	file = rk_compr_running(test, rk, arg);
	KUNIT_ASSERT_TRUE(test, revoke_file_tracked(file));
	op.sleeper = current;
	op.card = rk->card;
	rk_op_start(test, &op, rk_disconnect_asleep_fn, file, 0);
	t = jiffies;
	KUNIT_EXPECT_EQ(test, rk_compr_drain(file, arg), -ENODEV);
	KUNIT_EXPECT_LT_MSG(test, jiffies - t, 3UL * HZ,
			    "DRAIN waited past the disconnect");
	rk_op_end(&op);
	KUNIT_EXPECT_TRUE(test, op.asleep);
	KUNIT_EXPECT_EQ(test, rk_logged(rk, RK_CLOSE), -1);
	__fput_sync(file);
	rk_compr_expect_stopped(test, rk, SND_COMPR_TRIGGER_DRAIN);
	snd_card_free(rk->card);
}

static struct kunit_case snd_revoke_cases[] = {
	KUNIT_CASE(snd_revoke_test_hwdep),
	KUNIT_CASE(snd_revoke_test_hwdep_read),
	KUNIT_CASE(snd_revoke_test_hwdep_mmap),
	KUNIT_CASE(snd_revoke_test_one_node),
	KUNIT_CASE(snd_revoke_test_card_disconnect),
	KUNIT_CASE(snd_revoke_test_pcm_paused),
	KUNIT_CASE(snd_revoke_test_pcm_mmap_count),
	KUNIT_CASE(snd_revoke_test_pcm_power_wait),
	KUNIT_CASE(snd_revoke_test_pcm_power_wait_killed),
	KUNIT_CASE(snd_revoke_test_pcm_ioctl_in_flight),
	KUNIT_CASE(snd_revoke_test_rawmidi_shared_output),
	KUNIT_CASE(snd_revoke_test_rawmidi_active_sensing),
	KUNIT_CASE(snd_revoke_test_compr_drain),
	KUNIT_CASE(snd_revoke_test_compr_partial_drain),
	KUNIT_CASE(snd_revoke_test_compr_disconnect),
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
