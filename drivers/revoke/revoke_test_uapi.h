/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ioctls of the revokeat(2) test device, drivers/revoke/revoke_test.c
 * (CONFIG_REVOKE_TEST_DEVICE): /dev/revoke_test is revocable, its twin
 * /dev/revoke_test_plain is the same driver without ->revoke.
 *
 * Not a uapi header: the device is for the selftests in
 * tools/testing/selftests/revoke/ only, which include this file from the
 * source tree, as the hmm selftests include lib/test_hmm_uapi.h, and
 * its ioctls are not an ABI.  Their magic is one no uapi header uses, so
 * that a test's ioctl sent to the wrong node fails with ENOTTY.
 */
#ifndef _REVOKE_TEST_UAPI_H
#define _REVOKE_TEST_UAPI_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define REVOKE_TEST_IOC_MAGIC	0xB9

/* Counters of one node, since it was created. */
struct revoke_test_stats {
	__u32 opens;		/* ->open calls that succeeded */
	__u32 releases;		/* ->release calls */
	__u32 revokes;		/* ->revoke calls */
	__u32 vmas;		/* mappings alive: vm ->open/->mmap minus ->close */
	__u32 owner_busy;	/* 1 while a file holds REVOKE_TEST_IOC_OWN */
	__u32 fifo_len;		/* bytes queued */
	__u32 early;		/* ->release calls with a method of the file running */
};

/*
 * A one-shot pause in the driver, for deterministic race tests: the next
 * time a method reaches @point, it wakes the task waiting in
 * REVOKE_TEST_IOC_HOOK_WAIT, then sleeps @delay_ms inside the method.
 */
struct revoke_test_hook {
	__u32 point;		/* REVOKE_TEST_HOOK_* */
	__u32 delay_ms;
};

#define REVOKE_TEST_HOOK_NONE	0
#define REVOKE_TEST_HOOK_MMAP	1	/* end of ->mmap, the mapping set up */
#define REVOKE_TEST_HOOK_FAULT	2	/* end of ->fault, vmf->page set */
#define REVOKE_TEST_HOOK_FASYNC	3	/* ->fasync(off), before using the file */

/*
 * How the next opens and mappings of the revocable node behave, for the
 * framework's handling of drivers that do unusual things: ->open points
 * f_mapping elsewhere (OWN_MAPPING), ->mmap moves the mapping to another
 * file with vma_set_file() (SET_FILE), or maps a page of the file's own
 * with remap_pfn_range(), which ->release frees (PREFAULT).
 */
#define REVOKE_TEST_MODE_OWN_MAPPING	0x1U
#define REVOKE_TEST_MODE_SET_FILE	0x2U
#define REVOKE_TEST_MODE_PREFAULT	0x4U

#define REVOKE_TEST_FIFO_SIZE	4096
#define REVOKE_TEST_MAP_PAGES	2

/*
 * A one-page mapping at this page offset maps a page of the file's own,
 * which the revoke keeps mapped (as ALSA's PCM status page): its first
 * word reads REVOKE_TEST_KEEP_LIVE, and REVOKE_TEST_KEEP_REVOKED once the
 * file is revoked, also if first touched after the revoke.
 */
#define REVOKE_TEST_KEEP_PGOFF		REVOKE_TEST_MAP_PAGES
#define REVOKE_TEST_KEEP_LIVE		0x4c495645	/* "LIVE" */
#define REVOKE_TEST_KEEP_REVOKED	0x52564b44	/* "RVKD" */

/* Do nothing (benchmarks). */
#define REVOKE_TEST_IOC_NOP	_IO(REVOKE_TEST_IOC_MAGIC, 0x00)
/* Make read() of this file return zeros at once, without the FIFO. */
#define REVOKE_TEST_IOC_SOURCE	_IO(REVOKE_TEST_IOC_MAGIC, 0x01)
/* Sleep until woken by a revocation (or a signal). */
#define REVOKE_TEST_IOC_SLEEP	_IO(REVOKE_TEST_IOC_MAGIC, 0x02)
/* Read the node's counters. */
#define REVOKE_TEST_IOC_STATS	_IOR(REVOKE_TEST_IOC_MAGIC, 0x03, struct revoke_test_stats)
/* Become the node's exclusive owner until ->release; -EBUSY if taken. */
#define REVOKE_TEST_IOC_OWN	_IO(REVOKE_TEST_IOC_MAGIC, 0x04)
/* Store a value in the first word of mapped page 0 (device side write). */
#define REVOKE_TEST_IOC_POKE	_IOW(REVOKE_TEST_IOC_MAGIC, 0x05, __u32)
/*
 * Test hooks; they act on the driver as a whole, whichever node they are
 * sent to (the tests use the unrevocable node, whose ioctls are not
 * operations of the revocable object).
 */
/* Arm the one-shot pause (point NONE disarms it). */
#define REVOKE_TEST_IOC_HOOK	_IOW(REVOKE_TEST_IOC_MAGIC, 0x06, struct revoke_test_hook)
/* Wait until the armed pause is reached: 0, or -ETIMEDOUT after 10 s. */
#define REVOKE_TEST_IOC_HOOK_WAIT _IO(REVOKE_TEST_IOC_MAGIC, 0x07)
/* Set REVOKE_TEST_MODE_* for the next opens and mappings. */
#define REVOKE_TEST_IOC_MODE	_IOW(REVOKE_TEST_IOC_MAGIC, 0x08, __u32)

#endif /* _REVOKE_TEST_UAPI_H */
