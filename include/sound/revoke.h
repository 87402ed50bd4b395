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

struct snd_fasync;

/* sound/core/misc.c, for the nodes' ->revoke methods. */
void snd_kill_fasync_sync(struct snd_fasync *fasync, int signal, int poll);

#ifdef CONFIG_REVOKE
int snd_revoke_register(int type, unsigned int minor, dev_t devt,
			const struct file_operations *f_ops,
			void *private_data);
void snd_revoke_unregister(unsigned int minor);
int snd_revoke_open(unsigned int minor, struct inode *inode,
		    struct file *file, const struct file_operations *fops);
#else
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
#endif

#endif /* __SOUND_REVOKE_H */
