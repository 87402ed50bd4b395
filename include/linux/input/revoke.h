/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Revocable input handler nodes (evdev, joydev, mousedev): the part of
 * ->revoke that is the same for every handler.  The revoke framework does
 * the rest for any revocable cdev.  See drivers/input/revoke.c.
 */
#ifndef _LINUX_INPUT_REVOKE_H
#define _LINUX_INPUT_REVOKE_H

#include <linux/fs.h>
#include <linux/revoke.h>
#include <linux/wait.h>

#ifdef CONFIG_REVOKE
int input_revoke_file(struct fasync_struct **fasync,
		      struct wait_queue_head *wait);
#else
static inline int input_revoke_file(struct fasync_struct **fasync,
				    struct wait_queue_head *wait)
{
	return 0;
}
#endif

#endif /* _LINUX_INPUT_REVOKE_H */
