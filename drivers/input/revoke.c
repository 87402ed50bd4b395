// SPDX-License-Identifier: GPL-2.0
/*
 * Input handler adapter of the revoke framework.
 *
 * The char nodes of evdev, joydev and mousedev are cdevs, so giving their
 * file_operations a ->revoke method (scripts/coccinelle/revoke.cocci does
 * it) is enough for the framework to find their open files by device
 * number, gate every method, wait for the methods in flight and call the
 * handler's ->release early.  That release is what gives the device back:
 * evdev drops the client's grab and flushes its force-feedback effects,
 * and the last client closes the input device, so a new opener can grab it
 * at once.
 *
 * What the framework cannot do is reach the handler's wait queues and
 * fasync lists, which live in handler-private structures.  Each handler's
 * ->revoke passes them to input_revoke_file(), which does what
 * evdev_hangup() does for a disconnect, for one client: readers blocked in
 * revoke_wait_event_interruptible() return -ENXIO, pollers see
 * EPOLLHUP | EPOLLERR, and an O_ASYNC owner gets SIGIO with POLL_HUP.
 *
 * EVIOCREVOKE is unchanged: it revokes one evdev file and leaves it open,
 * answering -ENODEV, as before.
 */

#include <linux/export.h>
#include <linux/fs.h>
#include <linux/input/revoke.h>
#include <linux/poll.h>
#include <linux/wait.h>

/**
 * input_revoke_file - wake and signal the client of a revoked input file
 * @fasync: the client's fasync list
 * @wait: the wait queue the client's readers sleep on; it may be shared
 *	by every client of the device, whose readers then wake and sleep again
 *
 * Meant to be an input handler's ->revoke, called by the revoke framework
 * once the file is marked revoked and before it waits for the methods in
 * flight to return.
 *
 * Context: Process context.  Takes the lock of @wait and the fasync lock.
 * Return: 0.
 */
int input_revoke_file(struct fasync_struct **fasync,
		      struct wait_queue_head *wait)
{
	kill_fasync(fasync, SIGIO, POLL_HUP);
	wake_up_interruptible_poll(wait, EPOLLHUP | EPOLLERR);
	return 0;
}
EXPORT_SYMBOL_GPL(input_revoke_file);
