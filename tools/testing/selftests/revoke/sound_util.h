/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ALSA helpers of the revoke selftests and benchmarks: raw ioctls, no
 * alsa-lib.
 */
#ifndef REVOKE_SOUND_UTIL_H
#define REVOKE_SOUND_UTIL_H

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <sound/asound.h>

#define PERIOD_FRAMES	1024
#define BUFFER_FRAMES	4096
#define FRAME_BYTES	4		/* S16_LE, 2 channels */

/* The card whose id is @id, or -1. */
static inline int find_card(const char *id)
{
	char path[64];
	int card;

	for (card = 0; card < 8; card++) {
		struct snd_ctl_card_info info = {};
		int fd;

		snprintf(path, sizeof(path), "/dev/snd/controlC%d", card);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		if (!ioctl(fd, SNDRV_CTL_IOCTL_CARD_INFO, &info) &&
		    !strcmp((char *)info.id, id)) {
			close(fd);
			return card;
		}
		close(fd);
	}
	return -1;
}

static inline void node(char *buf, size_t len, const char *fmt, int card)
{
	snprintf(buf, len, fmt, card);
}

static inline void pcm_set(struct snd_pcm_hw_params *p, int param, unsigned int v)
{
	struct snd_interval *iv;

	iv = &p->intervals[param - SNDRV_PCM_HW_PARAM_FIRST_INTERVAL];
	iv->min = v;
	iv->max = v;
	iv->integer = 1;
}

/* hw_params: 48 kHz stereo S16_LE, with @access. */
static inline int pcm_setup(int fd, int access)
{
	struct snd_pcm_hw_params p;
	int i, version = SNDRV_PCM_VERSION;
	struct snd_mask *m;

	/* The status and control pages are mapped by recent user space. */
	if (ioctl(fd, SNDRV_PCM_IOCTL_USER_PVERSION, &version))
		return -1;
	memset(&p, 0, sizeof(p));
	for (i = 0; i <= SNDRV_PCM_HW_PARAM_LAST_MASK; i++)
		memset(&p.masks[i], 0xff, sizeof(p.masks[i]));
	for (i = 0; i <= SNDRV_PCM_HW_PARAM_LAST_INTERVAL -
			 SNDRV_PCM_HW_PARAM_FIRST_INTERVAL; i++)
		p.intervals[i].max = ~0U;
	p.rmask = ~0U;
	p.info = ~0U;

	m = &p.masks[SNDRV_PCM_HW_PARAM_ACCESS];
	memset(m, 0, sizeof(*m));
	m->bits[0] = 1U << access;
	m = &p.masks[SNDRV_PCM_HW_PARAM_FORMAT];
	memset(m, 0, sizeof(*m));
	m->bits[0] = 1U << SNDRV_PCM_FORMAT_S16_LE;
	m = &p.masks[SNDRV_PCM_HW_PARAM_SUBFORMAT];
	memset(m, 0, sizeof(*m));
	m->bits[0] = 1U << SNDRV_PCM_SUBFORMAT_STD;
	pcm_set(&p, SNDRV_PCM_HW_PARAM_CHANNELS, 2);
	pcm_set(&p, SNDRV_PCM_HW_PARAM_RATE, 48000);
	pcm_set(&p, SNDRV_PCM_HW_PARAM_PERIOD_SIZE, PERIOD_FRAMES);
	pcm_set(&p, SNDRV_PCM_HW_PARAM_BUFFER_SIZE, BUFFER_FRAMES);
	if (ioctl(fd, SNDRV_PCM_IOCTL_HW_PARAMS, &p))
		return -1;
	return ioctl(fd, SNDRV_PCM_IOCTL_PREPARE);
}

#endif /* REVOKE_SOUND_UTIL_H */
