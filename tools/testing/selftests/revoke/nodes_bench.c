// SPDX-License-Identifier: GPL-2.0
/*
 * Hot paths of the nodes converted by scripts/coccinelle/revoke.cocci:
 * ALSA control and PCM ioctls, evdev ioctl and the read of a queued event.
 *
 * "Converted" and "unconverted" are two boots: the benchmark kernel, and
 * the same kernel with CONFIG_REVOKE off, where the nodes are opened and
 * called exactly as in 6.12.  Both boots run with -icount on one CPU, where
 * guest time counts executed instructions, so figures from two boots
 * compare (repeatable to ~0.1%).  Prints "NODE <what> <ns per call>" lines;
 * the harness pairs them into ratios.
 */

#include <stdlib.h>

#include "revoke_util.h"
#include "input_util.h"
#include "sound_util.h"

#define ROUNDS	5
#define CALLS	100000
#define BATCH	32		/* events queued at a time; evdev keeps 64 */

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* ns per ioctl(@fd, @req, @arg), median of ROUNDS. */
static double ioctl_ns(int fd, unsigned long req, void *arg)
{
	double v[ROUNDS], t0;
	int r, i;

	for (r = 0; r < ROUNDS; r++) {
		t0 = now_sec();
		for (i = 0; i < CALLS; i++)
			if (ioctl(fd, req, arg) < 0)
				die("ioctl");
		v[r] = (now_sec() - t0) * 1e9 / CALLS;
	}
	return median(v, ROUNDS);
}

/* ns per read() of one queued event: only the reads are timed. */
static double event_read_ns(struct udev *u, int fd)
{
	double v[ROUNDS], t, t0;
	struct input_event ev;
	int r, i, b, down = 0;

	for (r = 0; r < ROUNDS; r++) {
		t = 0;
		for (b = 0; b < CALLS / BATCH; b++) {
			/*
			 * BATCH / 2 packets of a key event and a SYN_REPORT;
			 * the key changes every time (the input core drops
			 * events that change nothing).
			 */
			for (i = 0; i < BATCH / 2; i++) {
				down = !down;
				if (udev_emit(u, EV_KEY, KEY_A, down))
					die("uinput");
			}
			t0 = now_sec();
			for (i = 0; i < BATCH; i++)
				if (read(fd, &ev, sizeof(ev)) != sizeof(ev))
					die("read");
			t += now_sec() - t0;
		}
		v[r] = t * 1e9 / (CALLS / BATCH * BATCH);
	}
	return median(v, ROUNDS);
}

int main(void)
{
	struct snd_pcm_sync_ptr sync = {};
	char ctl[64], pcm[64];
	int fd, card, version;
	struct udev u;

	card = find_card("Dummy");
	if (card < 0)
		die("no snd-dummy card");
	node(ctl, sizeof(ctl), "/dev/snd/controlC%d", card);
	node(pcm, sizeof(pcm), "/dev/snd/pcmC%dD0p", card);

	fd = open(ctl, O_RDWR);
	if (fd < 0)
		die(ctl);
	printf("NODE ctl-ioctl-PVERSION %.1f\n",
	       ioctl_ns(fd, SNDRV_CTL_IOCTL_PVERSION, &version));
	close(fd);

	fd = open(pcm, O_RDWR | O_NONBLOCK);
	if (fd < 0 || pcm_setup(fd, SNDRV_PCM_ACCESS_RW_INTERLEAVED))
		die(pcm);
	sync.flags = SNDRV_PCM_SYNC_PTR_APPL | SNDRV_PCM_SYNC_PTR_AVAIL_MIN;
	printf("NODE pcm-ioctl-SYNC_PTR %.1f\n",
	       ioctl_ns(fd, SNDRV_PCM_IOCTL_SYNC_PTR, &sync));
	close(fd);

	if (udev_create(&u, "revoke-bench-kbd", CAP_KBD))
		die("uinput");
	/* Non-blocking: a lost event fails the run instead of hanging it. */
	fd = open(u.event, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		die(u.event);
	printf("NODE evdev-ioctl-EVIOCGVERSION %.1f\n",
	       ioctl_ns(fd, EVIOCGVERSION, &version));
	printf("NODE evdev-read-queued-event %.1f\n", event_read_ns(&u, fd));
	close(fd);
	udev_destroy(&u);
	return 0;
}
