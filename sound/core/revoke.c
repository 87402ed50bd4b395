// SPDX-License-Identifier: GPL-2.0-only
/*
 * ALSA adapter of the revoke framework.
 *
 * Every ALSA device node (/dev/snd/controlC*, pcmC*D*[pc], midiC*D*,
 * hwC*D*, comprC*D*, timer, seq) is a minor of the one "alsa" char
 * device, whose open (snd_open()) looks the minor up and replaces the
 * file's f_op with the node's own file_operations.  There is no cdev per
 * node for the framework's char device glue to hook, so the ALSA core
 * does it here:
 *
 *  - snd_register_device() gives each minor whose file_operations have
 *    ->revoke its own revoke object, found by revokeat(2) through the
 *    minor's device number: revoking one node revokes the files opened on
 *    it and nothing else of the card;
 *  - snd_open() opens such a minor through revoke_file_open(), which
 *    installs the proxy in place of replace_fops();
 *  - snd_card_disconnect() no longer swaps the f_op of revocable files to
 *    snd_shutdown_f_ops (the framework never lets f_op change under a live
 *    file): it disconnects their objects instead, which has the same
 *    effect at once (every later operation fails with -ENODEV, poll
 *    reports an error), wakes their sleepers from a work item, and keeps,
 *    as before, the files' driver state and mappings until their last
 *    close: alsa-lib reads the PCM status page of a disconnected stream,
 *    and snd_card_free() waits for the last close as it always did;
 *  - snd_unregister_device() disconnects the object too (a device removed
 *    on its own, or a file opened after the card's disconnect started) and
 *    revokeat(2) stops finding it.  Its callers hold ALSA locks that
 *    ->release takes (pcm and rawmidi open_mutex, register_mutex,
 *    sound_mutex), hence the work item.
 *
 * The per-node ->revoke methods (control, pcm, rawmidi, hwdep, compress,
 * timer, seq) and the revoke checks in their sleeps are added by
 * scripts/coccinelle/revoke.cocci; they wake what the node's sleepers wait
 * on (a compressed stream's drain too), stop a running PCM stream and drop
 * pending rawmidi output.  The early ->release then frees the PCM or
 * rawmidi substream, the compressed stream, the timer instance and the
 * control element locks, so the next opener gets them at once.
 *
 * hwdep minors whose backend implements ->read (the FireWire and some USB
 * devices) sleep where the ALSA core cannot wake them, and those whose
 * backend implements ->mmap (us122l, usx2y) install vm_ops whose ->open and
 * ->close the framework calls for as long as the mapping lives, on card data
 * and in a card module that only the file's ->release kept: they stay
 * unrevocable (revokeat(2) answers -EOPNOTSUPP) until their backends learn
 * to.  The char device layer cannot tell such a minor from one that has no
 * device: the ALSA core tells the framework which is which, and revokeat(2)
 * on a node of a minor without a device answers -ENXIO, as for any other
 * number without a driver.
 *
 * Locking: snd_revoke_mutex protects snd_revoke_objs[]; it nests inside
 * sound_mutex and is never held across a driver call.
 */

#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/revoke.h>
#include <linux/sched/signal.h>
#include <sound/asound.h>
#include <sound/core.h>
#include <sound/hwdep.h>
#include <sound/minors.h>
#include <sound/pcm.h>
#include <sound/revoke.h>

static DEFINE_MUTEX(snd_revoke_mutex);
static struct revoke_object *snd_revoke_objs[SNDRV_OS_MINORS];

/* Can every sleep inside this node's methods be woken by its ->revoke? */
static bool snd_revoke_supported(int type, const struct file_operations *f_ops,
				 void *private_data)
{
	const struct snd_hwdep *hwdep = private_data;

	if (!f_ops->revoke)
		return false;
	if (type == SNDRV_DEVICE_TYPE_HWDEP)
		return !hwdep->ops.read && !hwdep->ops.mmap;
	return true;
}

/*
 * A PCM status or control page first touched after a revoke: a status page
 * reads DISCONNECTED (the state is the first word of every layout), a
 * control page all zeroes.
 */
static void snd_revoke_pcm_fill(void *page, pgoff_t pgoff)
{
	struct snd_pcm_mmap_status *status = page;

	if (pgoff == SNDRV_PCM_MMAP_OFFSET_STATUS_OLD >> PAGE_SHIFT ||
	    pgoff == SNDRV_PCM_MMAP_OFFSET_STATUS_NEW >> PAGE_SHIFT)
		status->state = SNDRV_PCM_STATE_DISCONNECTED;
}

/**
 * snd_revoke_init - tell the revoke framework about the ALSA minors
 *
 * Called by alsa_sound_init() once the "alsa" char device is registered:
 * until a device registers a minor, revokeat(2) on its number answers
 * -ENXIO, not the -EOPNOTSUPP of a char device whose driver cannot be
 * revoked.
 *
 * Context: Process context; may sleep.
 * Return: 0 or -ENOMEM.
 */
int snd_revoke_init(void)
{
	int err;

	err = revoke_chrdev_set_error(MKDEV(snd_major, 0), SNDRV_OS_MINORS,
				      -ENXIO);
	if (err)
		snd_revoke_exit();
	return err;
}

/**
 * snd_revoke_exit - undo snd_revoke_init()
 *
 * Called by alsa_sound_exit(), when no minor is registered.
 *
 * Context: Process context; may sleep.
 */
void snd_revoke_exit(void)
{
	revoke_chrdev_set_error(MKDEV(snd_major, 0), SNDRV_OS_MINORS, 0);
}

/**
 * snd_revoke_register - make an ALSA minor revocable
 * @type: the device type, SNDRV_DEVICE_TYPE_XXX
 * @minor: the minor number
 * @devt: its device number
 * @f_ops: the node's file operations
 * @private_data: the node's private data, as given to snd_register_device()
 *
 * Called by snd_register_device() before it adds the device.  Nodes that
 * cannot be revoked are opened as before, and revokeat(2) answers
 * -EOPNOTSUPP for them.
 *
 * Context: Process context; may sleep.  Called with sound_mutex held.
 * Return: 0 or a negative error code.
 */
int snd_revoke_register(int type, unsigned int minor, dev_t devt,
			const struct file_operations *f_ops,
			void *private_data)
{
	struct revoke_object *obj;
	int err;

	if (WARN_ON(minor >= SNDRV_OS_MINORS))
		return -EINVAL;
	if (!snd_revoke_supported(type, f_ops, private_data))
		return revoke_chrdev_set_error(devt, 1, -EOPNOTSUPP);
	obj = revoke_object_create();
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	/*
	 * A PCM's status and control pages belong to the file's runtime, not
	 * to the card: a revoke leaves them mapped, reading DISCONNECTED as
	 * after the card's disconnect, so that alsa-lib clients end with
	 * -ENODEV instead of SIGBUS.  The data area goes.
	 */
	if (type == SNDRV_DEVICE_TYPE_PCM_PLAYBACK ||
	    type == SNDRV_DEVICE_TYPE_PCM_CAPTURE)
		revoke_object_keep_mapped(obj, SNDRV_PCM_MMAP_OFFSET_STATUS_OLD >>
					  PAGE_SHIFT, 0, snd_revoke_pcm_fill);
	err = revoke_chrdev_register(obj, devt, 1);
	if (err) {
		revoke_object_put(obj);
		return err;
	}
	guard(mutex)(&snd_revoke_mutex);
	snd_revoke_objs[minor] = obj;
	return 0;
}

/**
 * snd_revoke_unregister - revoke an ALSA minor for good
 * @minor: the minor number
 *
 * Called by snd_unregister_device().  revokeat(2) stops finding the node
 * (it answers -ENXIO for the minor again), and its open files are
 * disconnected: see the top of this file.
 *
 * Context: Process context; may sleep.  Called with sound_mutex held, and
 * from disconnect paths that hold the node's open_mutex.
 */
void snd_revoke_unregister(unsigned int minor)
{
	struct revoke_object *obj;

	if (WARN_ON(minor >= SNDRV_OS_MINORS))
		return;
	scoped_guard(mutex, &snd_revoke_mutex) {
		obj = snd_revoke_objs[minor];
		snd_revoke_objs[minor] = NULL;
	}
	if (!obj) {
		/* Overwriting an entry: no allocation, no failure. */
		revoke_chrdev_set_error(MKDEV(snd_major, minor), 1, -ENXIO);
		return;
	}
	revoke_chrdev_unregister(obj);
	revoke_object_disconnect_nowait(obj);
	revoke_object_put(obj);
}

/**
 * snd_revoke_open - open an ALSA minor
 * @minor: the minor number
 * @inode: the inode being opened
 * @file: the file being opened
 * @fops: the node's file operations, with a module reference
 *
 * replace_fops() and @fops->open, through the revoke framework when the
 * minor is revocable.
 *
 * Context: Process context; may sleep.  Called by snd_open() without
 * sound_mutex.
 * Return: 0, or the error of the open; -ENXIO if the node was revoked
 * while it opened.
 */
int snd_revoke_open(unsigned int minor, struct inode *inode,
		    struct file *file, const struct file_operations *fops)
{
	struct revoke_object *obj = NULL;
	int err;

	if (fops->revoke && minor < SNDRV_OS_MINORS) {
		scoped_guard(mutex, &snd_revoke_mutex) {
			obj = snd_revoke_objs[minor];
			if (obj)
				revoke_object_get(obj);
		}
	}
	if (obj) {
		err = revoke_file_open(obj, inode, file, fops);
		revoke_object_put(obj);
		return err;
	}
	replace_fops(file, fops);
	return fops->open ? fops->open(inode, file) : 0;
}

/**
 * snd_revoke_power_wait - snd_power_wait() that a revoke of @file ends
 * @card: the card
 * @file: the file whose operation waits
 *
 * An operation of a revocable node that waits for the card to leave a
 * suspend must return when its file is revoked: the revoke waits for it.
 * The node's ->revoke calls snd_revoke_power_wake().
 *
 * Context: Process context; sleeps.
 * Return: 0 when the card is powered (at once if it was, without CONFIG_PM
 * always), -ENODEV if it was disconnected while it waited, or the revoked
 * file's error.
 */
int snd_revoke_power_wait(struct snd_card *card, const struct file *file)
{
#ifdef CONFIG_PM
	snd_power_ref(card);
	/*
	 * Powered, as snd_power_ref_and_wait() tests first: no wait that a
	 * revoke could have ended, nothing to ask the framework (calls on
	 * every PCM ioctl).
	 */
	if (snd_power_get_state(card) == SNDRV_CTL_POWER_D0) {
		snd_power_unref(card);
		return 0;
	}
	wait_event_cmd(card->power_sleep,
		       card->shutdown || revoke_file_revoked(file) ||
		       snd_power_get_state(card) == SNDRV_CTL_POWER_D0,
		       snd_power_unref(card), snd_power_ref(card));
	snd_power_unref(card);
	if (card->shutdown)
		return -ENODEV;
	return revoke_file_error(file);
#else
	return 0;
#endif
}
EXPORT_SYMBOL_GPL(snd_revoke_power_wait);

/**
 * snd_revoke_release_power_wait - snd_power_wait() for a node's ->release
 * @card: the card
 * @file: the file being released
 *
 * A release that touches the hardware (a PCM's hw_free and close) waits
 * for the card to be powered, as snd_power_wait() does.  The early
 * release of a revoked file runs in revokeat(2), whose caller must stay
 * killable: for it the wait also ends on a fatal signal, and the release
 * goes on, as its only other way out would be the card's resume.  The
 * revoke's work item has no signals and waits for the resume.
 *
 * Context: Process context; sleeps.
 */
void snd_revoke_release_power_wait(struct snd_card *card,
				   const struct file *file)
{
#ifdef CONFIG_PM
	DEFINE_WAIT(wait);

	if (!revoke_file_revoked(file)) {
		snd_power_wait(card);
		return;
	}
	snd_power_ref(card);
	for (;;) {
		prepare_to_wait(&card->power_sleep, &wait, TASK_KILLABLE);
		if (card->shutdown || fatal_signal_pending(current) ||
		    snd_power_get_state(card) == SNDRV_CTL_POWER_D0)
			break;
		snd_power_unref(card);
		schedule();
		snd_power_ref(card);
	}
	finish_wait(&card->power_sleep, &wait);
	snd_power_unref(card);
#endif
}
EXPORT_SYMBOL_GPL(snd_revoke_release_power_wait);

/**
 * snd_revoke_power_wake - wake the power waits of a node's revoked files
 * @card: the card
 *
 * For a node's ->revoke, whose file is revoked already: its operations
 * asleep in snd_revoke_power_wait() return.
 *
 * Context: Any context.
 */
void snd_revoke_power_wake(struct snd_card *card)
{
#ifdef CONFIG_PM
	wake_up_all(&card->power_sleep);
#endif
}
EXPORT_SYMBOL_GPL(snd_revoke_power_wake);

/**
 * snd_revoke_pcm_mmap_count - count a PCM file's data mappings
 * @file: the file of a mapping of a substream's data area
 * @n: 1 for a new mapping, -1 for one that goes
 *
 * A revocable PCM file counts what its data mappings add to its
 * substream's mmap_count.  The ->close of a revoked file's mappings no
 * longer counts (the next opener may have the substream by then), so the
 * file's early release takes that out of the substream's count, and only
 * that: another file may share the substream (an OSS /dev/dsp file, which
 * is not revocable, with a native O_APPEND opener) and keep its own
 * mappings.  An OSS file's mappings are not counted here.
 *
 * Context: Any context; the mapping's ->open or ->close, or the mmap.
 */
void snd_revoke_pcm_mmap_count(struct file *file, int n)
{
	struct snd_pcm_file *pcm_file;

	if (!revoke_file_tracked(file))
		return;
	pcm_file = file->private_data;
	atomic_add(n, &pcm_file->mmap_count);
}
EXPORT_SYMBOL_GPL(snd_revoke_pcm_mmap_count);
