// SPDX-License-Identifier: GPL-2.0-only
/// Make char drivers revocable by revokeat(2): give their file_operations a
/// ->revoke method and make their blocking waits end when the file is
/// revoked.  See Documentation/driver-api/revoke.rst.
///
/// Patch mode converts the input handlers whose clients follow the
/// evdev/joydev/mousedev shape: a per-file client in ->private_data that
/// keeps its fasync list, and a ->read that sleeps in
/// wait_event_interruptible().  The new ->revoke signals the client's SIGIO
/// owner and wakes its readers and pollers through input_revoke_file(); the
/// wait becomes revoke_wait_event_interruptible(), which also ends on
/// revoke and then fails the read with the file's error.  The fops get
/// FOP_REVOKE_ENODEV: a revoked file answers -ENODEV, as after EVIOCREVOKE
/// or an unplug, which their user space (libinput, xf86-input-evdev)
/// already takes for the device being gone.  Everything else (the gate,
/// the drain, the early ->release that drops grabs) is done by the revoke
/// framework for every revocable cdev.
///
/// Report, context and org modes list the file_operations of char devices
/// (registered through cdev_init(), register_chrdev(), a miscdevice or
/// snd_register_device()) that have no ->revoke.
///
// Confidence: High for the patch mode (it only converts the shape above);
// Moderate for the report, which may miss fo registered indirectly.
// Copyright: (C) 2026 The revoke authors.
// Comments:
// Options: --no-includes --include-headers

virtual patch
virtual context
virtual org
virtual report

// ------------------------------------------------------------------------
// Patch mode: input handlers.

@ihandler depends on patch@
identifier handler;
@@
struct input_handler handler = { ... };

@ifops depends on patch && ihandler@
identifier fo, rd, fa;
@@
struct file_operations fo = {
	...,
	.read = rd,
	...,
	.fasync = fa,
	...
};

// Converted already: running the semantic patch again changes nothing.
@idone depends on ifops@
identifier ifops.fo;
expression E;
@@
struct file_operations fo = {
	...,
	.revoke = E,
	...
};

@ifasync depends on ifops && !idone@
identifier ifops.fa, fd, file, on, client, fasf;
type T;
@@
int fa(int fd, struct file *file, int on)
{
	T *client = file->private_data;

	return fasync_helper(fd, file, on, &client->fasf);
}

// Where the readers sleep: on the client's own queue (evdev) ...
@iwait_client depends on ifasync@
identifier ifops.rd, file, cl, wq;
type ifasync.T;
expression C;
@@
rd(struct file *file, ...)
{
	... when any
	T *cl = file->private_data;
	... when exists
	wait_event_interruptible(cl->wq, C)
	... when any
}

// ... or on the device's queue, shared by its clients (joydev, mousedev).
@iwait_dev depends on ifasync && !iwait_client@
identifier ifops.rd, file, cl, dev, devf, wq;
type ifasync.T, D;
expression C;
@@
rd(struct file *file, ...)
{
	... when any
	T *cl = file->private_data;
	D *dev = cl->devf;
	... when exists
	wait_event_interruptible(dev->wq, C)
	... when any
}

@script:python iname depends on ifasync@
fa << ifops.fa;
hook;
@@
base = fa[:-len("_fasync")] if fa.endswith("_fasync") else fa
coccinelle.hook = cocci.make_ident(base + "_revoke_file")

@depends on iwait_client@
identifier ifops.fa, iname.hook, ifasync.fasf, iwait_client.wq;
type ifasync.T;
@@
int fa(...) { ... }
+
+static int hook(struct file *file)
+{
+	T *client = file->private_data;
+
+	return input_revoke_file(&client->fasf, &client->wq);
+}

@depends on iwait_dev@
identifier ifops.fa, iname.hook, ifasync.fasf, iwait_dev.devf, iwait_dev.wq;
type ifasync.T;
@@
int fa(...) { ... }
+
+static int hook(struct file *file)
+{
+	T *client = file->private_data;
+
+	return input_revoke_file(&client->fasf, &client->devf->wq);
+}

@depends on ifasync@
identifier ifops.fo, ifops.fa, iname.hook;
@@
struct file_operations fo = {
	...,
	.fasync = fa,
+	.revoke = hook,
+	.fop_flags = FOP_REVOKE_ENODEV,
	...
};

// The wait also ends on revoke, and then returns the file's error, which
// the read returns.
@depends on ifasync@
identifier ifops.rd, file;
expression ret, wq, C;
@@
rd(struct file *file, ...)
{
	<...
	ret =
-	wait_event_interruptible(wq,
+	revoke_wait_event_interruptible(file, wq,
	C);
	if (ret)
		return ret;
	...>
}

@depends on ifasync@
@@
#include <linux/cdev.h>
+#include <linux/input/revoke.h>

// ------------------------------------------------------------------------
// Patch mode: ALSA.  The core registers, opens and unregisters revocable
// minors through sound/core/revoke.c; each node type gets a ->revoke that
// wakes its sleepers, and its open-coded wait loops stop for a revoke where
// they stop for O_NONBLOCK (before sleeping, under the lock the ->revoke
// wakes under) and for a card shutdown (after waking).  The sequencer's
// fops get FOP_REVOKE_QUIET: /dev/snd/seq is global and never went away
// before, so its clients (aseqdump, PipeWire's bridge) loop on poll's
// EPOLLERR; a revoked seq file polls nothing and they idle, as they do
// when the card of the ports they use goes away.

// Converted already: running the semantic patch again changes nothing.
@snd_done depends on patch@
identifier f =~ "^snd_.*_revoke$";
identifier fp;
@@
f(struct file *fp) { ... }

@snd_misc_done depends on patch@
@@
snd_kill_fasync_sync(...) { ... }

@snd_disconnect_done depends on patch@
expression E;
@@
revoke_file_tracked(E)

// sound.c: the minors.
@snd_core depends on patch@
identifier minor, inode, file, new_fops, err;
@@
static int snd_open(struct inode *inode, struct file *file)
{
	unsigned int minor = iminor(inode);
	...
-	int err = 0;
	...
-	replace_fops(file, new_fops);
-
-	if (file->f_op->open)
-		err = file->f_op->open(inode, file);
-	return err;
+	return snd_revoke_open(minor, inode, file, new_fops);
}

@depends on snd_core@
identifier type, card, dev, f_ops, private_data, devp, minor, err, error;
identifier major;
@@
int snd_register_device(int type, struct snd_card *card, int dev,
			const struct file_operations *f_ops,
			void *private_data, struct device *devp)
{
	...
	devp->devt = MKDEV(major, minor);
+	err = snd_revoke_register(type, minor, devp->devt, f_ops,
+				  private_data);
+	if (err < 0)
+		goto error;
	err = device_add(devp);
-	if (err < 0)
-		goto error;
+	if (err < 0) {
+		snd_revoke_unregister(minor);
+		goto error;
+	}
	...
}

@depends on snd_core@
identifier minor, dev, snd_minors;
@@
int snd_unregister_device(struct device *dev)
{
	<+...
	snd_minors[minor] = NULL;
+	snd_revoke_unregister(minor);
	...+>
}

// The minors without a device answer ENXIO, not EOPNOTSUPP.
@depends on snd_core@
identifier major;
@@
static int __init alsa_sound_init(void)
{
	...
	if (register_chrdev(major, "alsa", &snd_fops)) {
		...
	}
+	if (snd_revoke_init() < 0) {
+		unregister_chrdev(major, "alsa");
+		return -ENOMEM;
+	}
	if (snd_info_init() < 0) {
+		snd_revoke_exit();
		unregister_chrdev(major, "alsa");
		return -ENOMEM;
	}
	...
}

@depends on snd_core@
identifier major;
@@
static void __exit alsa_sound_exit(void)
{
	...
+	snd_revoke_exit();
	unregister_chrdev(major, "alsa");
}

@depends on snd_core@
@@
#include <sound/initval.h>
+#include <sound/revoke.h>

// init.c: the framework never lets f_op change under a live file; the
// file's object is disconnected instead, to the same effect.
@snd_disconnect depends on patch && !snd_disconnect_done@
identifier mfile, card, list;
iterator name list_for_each_entry;
@@
void snd_card_disconnect(struct snd_card *card)
{
	<+...
	list_for_each_entry(mfile, &card->files_list, list) {
+		if (revoke_file_tracked(mfile->file)) {
+			revoke_file_disconnect_nowait(mfile->file);
+			continue;
+		}
		...
	}
	...+>
}

@depends on snd_disconnect@
@@
#include <linux/file.h>
+#include <linux/revoke.h>

// misc.c: ->revoke runs just before the framework unregisters the file's
// fasync entry, which would drop a deferred signal.
@snd_misc depends on patch && !snd_misc_done@
declarer name EXPORT_SYMBOL_GPL;
identifier fasync;
@@
+/**
+ * snd_kill_fasync_sync - send a fasync signal now
+ * @fasync: the fasync entry, may be NULL
+ * @signal: the signal to send
+ * @poll: the poll band
+ *
+ * snd_kill_fasync() without the deferral, for a file's ->revoke, after
+ * which the revoke framework unregisters the file's fasync entry.
+ *
+ * Context: Process context, no spinlock held.
+ */
+void snd_kill_fasync_sync(struct snd_fasync *fasync, int signal, int poll)
+{
+	if (fasync && READ_ONCE(fasync->on))
+		kill_fasync(&fasync->fasync, signal, poll);
+}
+EXPORT_SYMBOL_GPL(snd_kill_fasync_sync);
+
void snd_fasync_free(struct snd_fasync *fasync)
{
	...
}

@depends on snd_misc@
@@
#include <sound/core.h>
+#include <sound/revoke.h>

// pcm.h: mappings of a revoked file no longer count on the substream; the
// file's early ->release takes out what they added (see snd_pcm_release()),
// which the file counts, as another file may share the substream.
@snd_pcm_h depends on patch@
identifier area, substream;
@@
(
static inline void snd_pcm_mmap_data_open(struct vm_area_struct *area)
{
	struct snd_pcm_substream *substream = ...;
+
+	if (revoke_file_revoked(area->vm_file))
+		return;
+	snd_revoke_pcm_mmap_count(area->vm_file, 1);
	atomic_inc(&substream->mmap_count);
}
|
static inline void snd_pcm_mmap_data_close(struct vm_area_struct *area)
{
	struct snd_pcm_substream *substream = ...;
+
+	if (revoke_file_revoked(area->vm_file))
+		return;
+	snd_revoke_pcm_mmap_count(area->vm_file, -1);
	atomic_dec(&substream->mmap_count);
}
)

@depends on snd_pcm_h@
@@
struct snd_pcm_file {
	struct snd_pcm_substream *substream;
+	/* what its data mappings add to the substream's mmap_count */
+	atomic_t mmap_count;
	...
};

@depends on snd_pcm_h@
@@
#include <linux/pm_qos.h>
+#include <sound/revoke.h>

// Each node type's ->revoke, after its ->release.
@snd_ctl depends on patch && !snd_done@
@@
static int snd_ctl_release(...) { ... }
+
+static int snd_ctl_revoke(struct file *file)
+{
+	struct snd_ctl_file *ctl = file->private_data;
+
+	spin_lock_irq(&ctl->read_lock);
+	wake_up(&ctl->change_sleep);
+	spin_unlock_irq(&ctl->read_lock);
+	snd_kill_fasync_sync(ctl->fasync, SIGIO, POLL_ERR);
+	return 0;
+}

@depends on snd_ctl@
identifier fo;
@@
static const struct file_operations fo = {
	...,
	.release = snd_ctl_release,
+	.revoke = snd_ctl_revoke,
	...
};

@snd_timer depends on patch && !snd_done@
@@
static int snd_timer_user_release(...) { ... }
+
+static int snd_timer_user_revoke(struct file *file)
+{
+	struct snd_timer_user *tu = file->private_data;
+
+	spin_lock_irq(&tu->qlock);
+	wake_up(&tu->qchange_sleep);
+	spin_unlock_irq(&tu->qlock);
+	snd_kill_fasync_sync(tu->fasync, SIGIO, POLL_ERR);
+	return 0;
+}

@depends on snd_timer@
identifier fo;
@@
static const struct file_operations fo = {
	...,
	.release = snd_timer_user_release,
+	.revoke = snd_timer_user_revoke,
	...
};

@snd_rawmidi depends on patch && !snd_done@
@@
static int snd_rawmidi_release(...) { ... }
+
+static int snd_rawmidi_revoke(struct file *file)
+{
+	struct snd_rawmidi_file *rfile = file->private_data;
+
+	/*
+	 * The release would drain the output; nobody listens any more.  Not
+	 * when an unrevocable file (OSS) shares the substream.
+	 */
+	if (rfile->output && rfile->output->use_count == 1)
+		snd_rawmidi_drop_output(rfile->output);
+	if (rfile->input) {
+		spin_lock_irq(&rfile->input->lock);
+		wake_up(&rfile->input->runtime->sleep);
+		spin_unlock_irq(&rfile->input->lock);
+	}
+	if (rfile->output) {
+		spin_lock_irq(&rfile->output->lock);
+		wake_up(&rfile->output->runtime->sleep);
+		spin_unlock_irq(&rfile->output->lock);
+	}
+	return 0;
+}

@depends on snd_rawmidi@
identifier fo;
@@
static const struct file_operations fo = {
	...,
	.release = snd_rawmidi_release,
+	.revoke = snd_rawmidi_revoke,
	...
};

// A writer in flight may have refilled the output after ->revoke dropped
// it: do not write on, and drop again instead of draining at release.
// Nor send the active sensing byte, which the release would drain: the
// revoke would wait for the device to take it.
@depends on snd_rawmidi@
identifier file, rfile;
@@
static int snd_rawmidi_release(struct inode *inode, struct file *file)
{
	...
	rfile = file->private_data;
+	if (revoke_file_revoked(file) && rfile->output &&
+	    rfile->output->use_count == 1) {
+		rfile->output->active_sensing = 0;
+		snd_rawmidi_drop_output(rfile->output);
+	}
	...
}

@depends on snd_rawmidi@
identifier file, result, count1;
expression substream, buf, count;
@@
static ssize_t snd_rawmidi_write(struct file *file, ...)
{
	<...
+	if (revoke_file_revoked(file))
+		return result > 0 ? result : revoke_file_error(file);
	count1 = snd_rawmidi_kernel_write1(substream, buf, NULL, count);
	if (count1 < 0)
		return result > 0 ? result : count1;
	...>
}

// A drain of a revoked file's output ends at the revoke: ->revoke drops
// the output only when nobody else writes to it (O_APPEND openers, OSS
// /dev/midi and the UMP sequencer client share it), and the drain must
// then neither wait for the device nor drop the other user's bytes.  Only
// the DRAIN and PARAMS ioctls have the file; the kernel callers keep
// snd_rawmidi_drain_output() and snd_rawmidi_output_params().
@depends on snd_rawmidi@
identifier runtime, timeout, err;
statement S;
@@
-int snd_rawmidi_drain_output(struct snd_rawmidi_substream *substream)
+static int __snd_rawmidi_drain_output(struct snd_rawmidi_substream *substream,
+				      struct file *file)
{
	...
	long timeout;
+	bool revoked;
	...
	timeout = wait_event_interruptible_timeout(runtime->sleep,
-				(runtime->avail >= runtime->buffer_size),
+				runtime->avail >= runtime->buffer_size || snd_revoked(file),
				...);
+	revoked = snd_revoked(file);
	...
+	if (revoked)
+		err = revoke_file_error(file);
	if (
-	    err != -ERESTARTSYS
+	    err != -ERESTARTSYS && !revoked
	   ) S
	...
}
+int snd_rawmidi_drain_output(struct snd_rawmidi_substream *substream)
+{
+	return __snd_rawmidi_drain_output(substream, NULL);
+}

// PARAMS drains first too, then fails with EBUSY on a shared output.
@depends on snd_rawmidi@
identifier params;
@@
-int snd_rawmidi_output_params(struct snd_rawmidi_substream *substream,
-			      struct snd_rawmidi_params *params)
+static int __snd_rawmidi_output_params(struct snd_rawmidi_substream *substream,
+				       struct snd_rawmidi_params *params,
+				       struct file *file)
{
	...
-	snd_rawmidi_drain_output(substream);
+	__snd_rawmidi_drain_output(substream, file);
+	if (snd_revoked(file))
+		return revoke_file_error(file);
	...
}
+int snd_rawmidi_output_params(struct snd_rawmidi_substream *substream,
+			      struct snd_rawmidi_params *params)
+{
+	return __snd_rawmidi_output_params(substream, params, NULL);
+}

@depends on snd_rawmidi@
identifier file, rfile;
expression params;
@@
static long snd_rawmidi_ioctl(struct file *file, ...)
{
	<...
(
-	snd_rawmidi_drain_output(rfile->output)
+	__snd_rawmidi_drain_output(rfile->output, file)
|
-	snd_rawmidi_output_params(rfile->output, params)
+	__snd_rawmidi_output_params(rfile->output, params, file)
)
	...>
}

// The 32-bit PARAMS ioctl (rawmidi_compat.c, which rawmidi.c includes).
@snd_rawmidi_compat depends on patch && !snd_done@
identifier f = snd_rawmidi_ioctl_params_compat;
identifier rfile;
parameter list ps;
@@
 static int f(ps
+	, struct file *file
 )
{
	<+...
-	snd_rawmidi_output_params(rfile->output, &params)
+	__snd_rawmidi_output_params(rfile->output, &params, file)
	...+>
}

@depends on snd_rawmidi_compat@
identifier file, rfile;
expression argp;
@@
static long snd_rawmidi_ioctl_compat(struct file *file, ...)
{
	<...
-	snd_rawmidi_ioctl_params_compat(rfile, argp)
+	snd_rawmidi_ioctl_params_compat(rfile, argp, file)
	...>
}

// The O_DSYNC wait for the device to take the written bytes ends at the
// revoke too; ->revoke wakes it under the substream's lock.
@depends on snd_rawmidi@
identifier file, result, wait, last_avail;
expression lock, e;
@@
static ssize_t snd_rawmidi_write(struct file *file, ...)
{
	<+...
	if (file->f_flags & O_DSYNC) {
		spin_lock_irq(lock);
		while (...) {
			wait_queue_entry_t wait;
			unsigned int last_avail = e;
+
+			if (revoke_file_revoked(file)) {
+				spin_unlock_irq(lock);
+				return result > 0 ? result : revoke_file_error(file);
+			}
			init_waitqueue_entry(&wait, current);
			...
			if (signal_pending(current))
				return result > 0 ? result : -ERESTARTSYS;
			...
		}
		...
	}
	...+>
}

@snd_hwdep depends on patch && !snd_done@
@@
static int snd_hwdep_release(...) { ... }
+
+static int snd_hwdep_revoke(struct file *file)
+{
+	/*
+	 * The hwdep core has no sleeper of its own, and the revoke framework
+	 * wakes pollers itself.  Minors whose backend sleeps in ->read are
+	 * not made revocable (see sound/core/revoke.c).
+	 */
+	return 0;
+}

@depends on snd_hwdep@
identifier fo;
@@
static const struct file_operations fo = {
	...,
	.release = snd_hwdep_release,
+	.revoke = snd_hwdep_revoke,
	...
};

@snd_seq depends on patch && !snd_done@
@@
static int snd_seq_release(...) { ... }
+
+static int snd_seq_revoke(struct file *file)
+{
+	struct snd_seq_client *client = file->private_data;
+	struct snd_seq_fifo *fifo = client->data.user.fifo;
+
+	if (fifo) {
+		spin_lock_irq(&fifo->lock);
+		wake_up(&fifo->input_sleep);
+		spin_unlock_irq(&fifo->lock);
+	}
+	if (client->pool) {
+		spin_lock_irq(&client->pool->lock);
+		wake_up(&client->pool->output_sleep);
+		spin_unlock_irq(&client->pool->lock);
+	}
+	return 0;
+}

@depends on snd_seq@
identifier fo;
@@
static const struct file_operations fo = {
	...,
	.release = snd_seq_release,
+	.revoke = snd_seq_revoke,
+	.fop_flags = FOP_REVOKE_QUIET,
	...
};

// The PCM: stop the stream as a disconnect does, but only this one: a
// linked stream of another node is stopped, not disconnected.  A paused
// stream is released first, as snd_pcm_drop() does, so that the driver
// sees PAUSE_RELEASE and STOP before hw_free.
@snd_pcm depends on patch && !snd_done@
iterator name snd_pcm_group_for_each_entry;
@@
static int snd_pcm_pause_lock_irq(...) { ... }
+
+static void snd_pcm_revoke_stop(struct snd_pcm_substream *substream)
+{
+	/*
+	 * Stop a revoked file's stream for good, under the stream lock: what
+	 * a paused or running stream needs (PAUSE_RELEASE, STOP), and the
+	 * state alsa-lib reads from the status page the revoke leaves
+	 * mapped: DISCONNECTED.
+	 */
+	if (substream->runtime->state == SNDRV_PCM_STATE_PAUSED)
+		snd_pcm_pause(substream, false);
+	if (snd_pcm_running(substream))
+		snd_pcm_stop(substream, SNDRV_PCM_STATE_SETUP);
+	__snd_pcm_set_state(substream->runtime, SNDRV_PCM_STATE_DISCONNECTED);
+}

@depends on snd_pcm@
iterator name snd_pcm_group_for_each_entry;
@@
static int snd_pcm_release(...) { ... }
+
+static int snd_pcm_revoke(struct file *file)
+{
+	struct snd_pcm_file *pcm_file = file->private_data;
+	struct snd_pcm_substream *substream = pcm_file->substream, *s;
+	struct snd_pcm_runtime *runtime = substream->runtime;
+	struct snd_pcm_group *group;
+
+	snd_pcm_stream_lock_irq(substream);
+	snd_pcm_revoke_stop(substream);
+	wake_up(&runtime->tsleep);
+	/* A drain of this stream may sleep on a linked stream's queue. */
+	group = snd_pcm_stream_group_ref(substream);
+	snd_pcm_group_for_each_entry(s, substream)
+		if (s->runtime)
+			wake_up(&s->runtime->sleep);
+	snd_pcm_group_unref(group, substream);
+	snd_pcm_stream_unlock_irq(substream);
+	snd_pcm_sync_stop(substream, false);
+	snd_revoke_power_wake(substream->pcm->card);
+	snd_kill_fasync_sync(runtime->fasync, SIGIO, POLL_ERR);
+	return 0;
+}

@depends on snd_pcm@
identifier fo;
@@
const struct file_operations fo[2] = {
	{
	...,
	.release = snd_pcm_release,
+	.revoke = snd_pcm_revoke,
	...
	},
	{
	...,
	.release = snd_pcm_release,
+	.revoke = snd_pcm_revoke,
	...
	}
};

// A drain sleeping on a linked stream of another node ends on revoke.
@depends on snd_pcm@
identifier substream, file, result, card;
iterator name scoped_guard;
@@
static int snd_pcm_drain(struct snd_pcm_substream *substream,
			 struct file *file)
{
	<...
	if (card->shutdown) {
		result = -ENODEV;
		break;
	}
+	if (snd_revoked(file)) {
+		result = revoke_file_error(file);
+		break;
+	}
	...>
}

// A transfer asleep when its stream was revoked reports the revoke.
@depends on snd_pcm@
identifier fn =~ "^snd_pcm_(read|write)$";
identifier file, result;
identifier lib =~ "^snd_pcm_lib_(read|write)$";
expression list es;
@@
fn(struct file *file, ...)
{
	<...
	result = lib(es);
+	result = snd_revoke_pcm_error(file, result);
	...>
}

@depends on snd_pcm@
identifier fn =~ "^snd_pcm_(read|write)v$";
identifier iocb, result;
identifier lib =~ "^snd_pcm_lib_(read|write)v$";
expression list es;
@@
fn(struct kiocb *iocb, ...)
{
	<...
	result = lib(es);
+	result = snd_revoke_pcm_error(iocb->ki_filp, result);
	...>
}

// So does any ioctl in flight at the revoke: it may have waited for a lock
// or for the card's power, then found the stream disconnected.
@depends on snd_pcm@
identifier file, pcm_file;
expression list es;
@@
static long snd_pcm_ioctl(struct file *file, ...)
{
	struct snd_pcm_file *pcm_file;
+	long err;
	...
-	return snd_pcm_common_ioctl(es);
+	err = snd_pcm_common_ioctl(es);
+	return snd_revoke_pcm_error(file, err);
}

@depends on patch@
identifier file;
expression list es;
@@
static long snd_pcm_ioctl_compat(struct file *file, ...)
{
	<...
-	return snd_pcm_common_ioctl(es);
+	return snd_revoke_pcm_error(file, snd_pcm_common_ioctl(es));
	...>
}

// A revoke ends a wait for the card's power (see snd_revoke_power_wait()).
// snd_pcm_release() keeps its wait, killable for a revoked file: the early
// release touches the hardware (hw_free, close) as any close does, so the
// revoke completes once the card is resumed, or its caller is killed.
@depends on snd_pcm@
identifier file;
expression card;
@@
static int snd_pcm_common_ioctl(struct file *file, ...)
{
	<...
-	snd_power_wait(card)
+	snd_revoke_power_wait(card, file)
	...>
}

@depends on snd_pcm@
identifier inode, file;
expression card;
@@
static int snd_pcm_release(struct inode *inode, struct file *file)
{
	<...
-	snd_power_wait(card);
+	snd_revoke_release_power_wait(card, file);
	...>
}

// A new mapping of the data area counts for the file too (see pcm.h).
@depends on snd_pcm@
identifier substream, file, area, err;
@@
int snd_pcm_mmap_data(struct snd_pcm_substream *substream, struct file *file,
		      struct vm_area_struct *area)
{
	...
-	if (!err)
-		atomic_inc(&substream->mmap_count);
+	if (!err) {
+		snd_revoke_pcm_mmap_count(file, 1);
+		atomic_inc(&substream->mmap_count);
+	}
	...
}

// The revoked file's mappings no longer count (see pcm.h above).
@depends on snd_pcm@
identifier file, substream, pcm;
iterator name scoped_guard;
@@
static int snd_pcm_release(struct inode *inode, struct file *file)
{
	...
	scoped_guard(mutex, &pcm->open_mutex) {
+		if (revoke_file_revoked(file)) {
+			/* What an operation in flight at the revoke restarted. */
+			snd_pcm_stream_lock_irq(substream);
+			snd_pcm_revoke_stop(substream);
+			snd_pcm_stream_unlock_irq(substream);
+			atomic_sub(atomic_read(&pcm_file->mmap_count),
+				   &substream->mmap_count);
+		}
		snd_pcm_release_substream(substream);
		...
	}
	...
}

// LINK reaches into another file's private data, which the early release
// of a revoked file freed.
@depends on snd_pcm@
expression E;
iterator name scoped_guard;
@@
	if (!is_pcm_file(E))
		return -EBADFD;
+	/* A revoked file's early release freed its private data. */
+	CLASS(revoke_file_pin, pinned)(E);
+	if (!pinned)
+		return -EBADFD;

// The early ->fasync(-1) of a revoked (disconnected) stream must still
// unregister the file.
@depends on snd_pcm@
identifier file, on, runtime;
@@
static int snd_pcm_fasync(int fd, struct file *file, int on)
{
	...
-	if (runtime->state == SNDRV_PCM_STATE_DISCONNECTED)
+	if (runtime->state == SNDRV_PCM_STATE_DISCONNECTED && on)
		return -EBADFD;
	...
}

// seq: the fifo and the pool sleep outside the file's methods.
@snd_seq_fifo depends on patch@
identifier f, cellp, nonblock;
@@
int snd_seq_fifo_cell_out(struct snd_seq_fifo *f,
			  struct snd_seq_event_cell **cellp,
-			  int nonblock)
+			  int nonblock, const struct file *file)
{
	...
	while (...) {
-		if (nonblock) {
+		if (nonblock || snd_revoked(file)) {
			...
-			return -EAGAIN;
+			return snd_revoked(file) ? revoke_file_error(file) :
+			       -EAGAIN;
		}
		...
	}
	...
}

@depends on patch@
@@
int snd_seq_fifo_cell_out(struct snd_seq_fifo *f, struct snd_seq_event_cell **cellp,
-			  int nonblock);
+			  int nonblock, const struct file *file);

@depends on patch@
expression fifo, cell, nonblock;
identifier file;
@@
static ssize_t snd_seq_read(struct file *file, ...)
{
	<...
-	snd_seq_fifo_cell_out(fifo, &cell, nonblock)
+	snd_seq_fifo_cell_out(fifo, &cell, nonblock, file)
	...>
}

@snd_seq_pool depends on patch@
identifier pool, nonblock, file, err, L;
@@
static int snd_seq_cell_alloc(struct snd_seq_pool *pool, ..., int nonblock,
			      struct file *file, ...)
{
	...
-	while (pool->free == NULL && ! nonblock && ! pool->closing) {
+	while (pool->free == NULL && ! nonblock && ! pool->closing &&
+	       !snd_revoked(file)) {
	...
	}
+	if (snd_revoked(file)) {
+		err = revoke_file_error(file);
+		goto L;
+	}
	if (pool->closing) {
		err = -ENOMEM;
		goto L;
	}
	...
}

// The wait loops of the node types.
@snd_wait_goto depends on patch && !snd_done@
identifier fn =~ "^snd_";
identifier file, L;
expression err;
@@
fn(struct file *file, ...)
{
	<+...
	while (...) {
		...
+		if (revoke_file_revoked(file)) {
+			err = revoke_file_error(file);
+			goto L;
+		}
		if (<+... O_NONBLOCK ...+>) {
			err = -EAGAIN;
			goto L;
		}
		...
		add_wait_queue(...);
		...
	}
	...+>
}

@snd_wait_ret depends on patch && !snd_done@
identifier fn =~ "^snd_rawmidi_";
identifier file, result;
expression lock;
@@
fn(struct file *file, ...)
{
	<+...
	while (...) {
		...
+		if (revoke_file_revoked(file)) {
+			spin_unlock_irq(lock);
+			return result > 0 ? result : revoke_file_error(file);
+		}
		if (<+... O_NONBLOCK ...+>) {
			spin_unlock_irq(lock);
			return result > 0 ? result : -EAGAIN;
		}
		...
	}
	...+>
}

@depends on snd_wait_ret@
identifier snd_wait_ret.fn, snd_wait_ret.file, snd_wait_ret.result;
expression wq, card;
@@
fn(struct file *file, ...)
{
	<+...
	remove_wait_queue(wq, ...);
	if (card->shutdown)
		return -ENODEV;
+	if (revoke_file_revoked(file))
+		return result > 0 ? result : revoke_file_error(file);
	...+>
}

// Compressed offload: a DRAIN or PARTIAL_DRAIN waits, without the device
// lock, for the DSP to end it.  It also ends at the revoke, with the
// revoke's error; the early release then stops the stream it leaves
// draining, as a close does.  The wait queue is the file's own.
@snd_compr depends on patch && !snd_done@
@@
static int snd_compr_free(...) { ... }
+
+static int snd_compr_revoke(struct file *f)
+{
+	struct snd_compr_file *data = f->private_data;
+
+	wake_up_all(&data->stream.runtime->sleep);
+	return 0;
+}

@depends on snd_compr@
identifier fo;
@@
static const struct file_operations fo = {
	...,
	.release = snd_compr_free,
+	.revoke		=	snd_compr_revoke,
	...
};

@depends on snd_compr@
identifier f = {snd_compress_wait_for_drain, snd_compr_drain,
		snd_compr_partial_drain};
parameter list ps;
@@
 static int f(ps
+	, struct file *file
 )
{
	...
}

@depends on snd_compr@
identifier stream, ret;
@@
static int snd_compress_wait_for_drain(struct snd_compr_stream *stream, ...)
{
	...
	ret = wait_event_interruptible(stream->runtime->sleep,
-			(stream->runtime->state != SNDRV_PCM_STATE_DRAINING));
+			stream->runtime->state != SNDRV_PCM_STATE_DRAINING ||
+			snd_revoked(file));
	...
	mutex_lock(&stream->device->lock);
+	if (snd_revoked(file))
+		ret = revoke_file_error(file);
	return ret;
}

@depends on snd_compr@
identifier f = {snd_compr_drain, snd_compr_partial_drain};
expression stream;
@@
static int f(...)
{
	<...
-	snd_compress_wait_for_drain(stream)
+	snd_compress_wait_for_drain(stream, file)
	...>
}

@depends on snd_compr@
identifier f;
expression stream;
@@
static long snd_compr_ioctl(struct file *f, ...)
{
	<...
(
-	snd_compr_drain(stream)
+	snd_compr_drain(stream, f)
|
-	snd_compr_partial_drain(stream)
+	snd_compr_partial_drain(stream, f)
)
	...>
}

@snd_inc depends on patch@
@@
#include <sound/core.h>

@depends on snd_inc && (snd_ctl || snd_timer || snd_rawmidi || snd_hwdep || snd_seq ||
		       snd_pcm || snd_seq_fifo || snd_seq_pool || snd_wait_goto ||
		       snd_compr)@
@@
#include <sound/core.h>
+#include <sound/revoke.h>

// ------------------------------------------------------------------------
// Report, context and org modes: char device fo without ->revoke.

@initialize:python depends on !patch@
@@
# (file, fo) pairs that have ->revoke, and those already reported.
revocable = set()
reported = set()

def unconverted(p, fo):
    key = (p[0].file, fo)
    if key in revocable or key in reported:
        return False
    reported.add(key)
    return True

def message(fo):
    return "file_operations %s of a char device have no ->revoke" % fo

@has_revoke depends on !patch@
identifier fo;
expression E;
position p;
@@
struct file_operations fo@p = {
	...,
	.revoke = E,
	...
};

@script:python depends on has_revoke@
fo << has_revoke.fo;
p << has_revoke.p;
@@
revocable.add((p[0].file, fo))

// Registered as a char device: cdev, chrdev region, misc device, ALSA minor.
@registered depends on !patch@
identifier fo;
expression E1, E2, E3, E4, E5;
@@
(
cdev_init(E1, &fo)
|
register_chrdev(E1, E2, &fo)
|
__register_chrdev(E1, E2, E3, E4, &fo)
|
snd_register_device(E1, E2, E3, &fo, E4, E5)
|
snd_register_oss_device(E1, E2, E3, &fo, E4)
)

@misc_dev depends on !patch@
identifier misc;
expression E;
@@
struct miscdevice misc = { .fops = E, };

// (An &identifier pattern does not match inside this initializer.)
@script:python registered_misc@
e << misc_dev.E;
fo;
@@
name = e.replace('&', '').strip()
if not name.isidentifier():
    cocci.include_match(False)
else:
    coccinelle.fo = cocci.make_ident(name)

@unconverted depends on registered@
identifier registered.fo;
position p;
@@
struct file_operations fo@p = { ... };

@unconverted_misc depends on registered_misc@
identifier registered_misc.fo;
position p;
@@
struct file_operations fo@p = { ... };

@script:python depends on report@
fo << registered.fo;
p << unconverted.p;
@@
if unconverted(p, fo):
    coccilib.report.print_report(p[0], message(fo))

@script:python depends on report@
fo << registered_misc.fo;
p << unconverted_misc.p;
@@
if unconverted(p, fo):
    coccilib.report.print_report(p[0], message(fo))

@script:python depends on org@
fo << registered.fo;
p << unconverted.p;
@@
if unconverted(p, fo):
    coccilib.org.print_todo(p[0], message(fo))

@script:python depends on org@
fo << registered_misc.fo;
p << unconverted_misc.p;
@@
if unconverted(p, fo):
    coccilib.org.print_todo(p[0], message(fo))

// Context mode marks whole files' fo: a file with one converted fo
// and another unconverted one is not marked (report mode tells them apart).
@depends on context && registered && !has_revoke@
identifier registered.fo;
@@
* struct file_operations fo = { ... };

@depends on context && registered_misc && !has_revoke@
identifier registered_misc.fo;
@@
* struct file_operations fo = { ... };
