/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Revocable ALSA device nodes: the glue between the ALSA core
 * (sound/core/sound.c) and the revoke framework.  See sound/core/revoke.c.
 */
#ifndef __SOUND_REVOKE_H
#define __SOUND_REVOKE_H

#include <linux/fs.h>
#include <linux/revoke.h>
#include <linux/types.h>
#include <sound/core.h>

struct snd_fasync;

/* sound/core/misc.c, for the nodes' ->revoke methods. */
void snd_kill_fasync_sync(struct snd_fasync *fasync, int signal, int poll);

/**
 * snd_revoke_pcm_error - the error of a PCM operation a revoke stopped
 * @file: the file of the operation
 * @err: what the operation returned
 *
 * The PCM ->revoke stops the stream as a disconnect does, so an operation
 * in flight at the revoke (a transfer asleep in the stream, an ioctl that
 * waited for a lock or for the card's power) finds it disconnected and
 * returns -EBADFD, ALSA's error for a disconnected stream: report the
 * revoke's -ENXIO instead, as every later call on the file does.  A card's
 * disconnect keeps its -EBADFD.
 *
 * Context: Any context.
 * Return: @err, or -ENXIO.
 */
static inline long snd_revoke_pcm_error(const struct file *file, long err)
{
	if (err == -EBADFD && revoke_file_error(file) == -ENXIO)
		return -ENXIO;
	return err;
}

/**
 * snd_revoked - whether the file a wait is for, if any, was revoked
 * @file: the file, or %NULL for a kernel client's wait (a rawmidi drain
 *	of snd-seq-midi, or of a UMP sequencer client that shares the
 *	output with O_APPEND files)
 *
 * For a wait that a core function does for a file and for kernel
 * clients alike: it also ends when the file is revoked.
 *
 * Context: Any context.
 * Return: true if @file is revoked.
 */
static inline bool snd_revoked(const struct file *file)
{
	return file && revoke_file_revoked(file);
}

#ifdef CONFIG_REVOKE
int snd_revoke_init(void);
void snd_revoke_exit(void);
int snd_revoke_register(int type, unsigned int minor, dev_t devt,
			const struct file_operations *f_ops,
			void *private_data);
void snd_revoke_unregister(unsigned int minor);
int snd_revoke_open(unsigned int minor, struct inode *inode,
		    struct file *file, const struct file_operations *fops);
int snd_revoke_power_wait(struct snd_card *card, const struct file *file);
void snd_revoke_release_power_wait(struct snd_card *card,
				   const struct file *file);
void snd_revoke_power_wake(struct snd_card *card);
void snd_revoke_pcm_mmap_count(struct file *file, int n);
#else
static inline int snd_revoke_init(void)
{
	return 0;
}

static inline void snd_revoke_exit(void)
{
}

static inline int snd_revoke_register(int type, unsigned int minor,
				      dev_t devt,
				      const struct file_operations *f_ops,
				      void *private_data)
{
	return 0;
}

static inline void snd_revoke_unregister(unsigned int minor)
{
}

static inline int snd_revoke_open(unsigned int minor, struct inode *inode,
				  struct file *file,
				  const struct file_operations *fops)
{
	replace_fops(file, fops);
	return fops->open ? fops->open(inode, file) : 0;
}

static inline int snd_revoke_power_wait(struct snd_card *card,
					const struct file *file)
{
	return snd_power_wait(card);
}

static inline void snd_revoke_release_power_wait(struct snd_card *card,
						 const struct file *file)
{
	snd_power_wait(card);
}

static inline void snd_revoke_power_wake(struct snd_card *card)
{
}

static inline void snd_revoke_pcm_mmap_count(struct file *file, int n)
{
}
#endif

#endif /* __SOUND_REVOKE_H */
