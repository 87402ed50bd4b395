/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ioctls of the revokeat(2) test device, drivers/revoke/revoke_test.c
 * (CONFIG_REVOKE_TEST_DEVICE): /dev/revoke_test is revocable, its twin
 * /dev/revoke_test_plain is the same driver without ->revoke.
 */
#ifndef _UAPI_LINUX_REVOKE_TEST_H
#define _UAPI_LINUX_REVOKE_TEST_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* Counters of one node, since it was created. */
struct revoke_test_stats {
	__u32 opens;		/* ->open calls that succeeded */
	__u32 releases;		/* ->release calls */
	__u32 revokes;		/* ->revoke calls */
	__u32 vmas;		/* mappings alive: vm ->open/->mmap minus ->close */
	__u32 owner_busy;	/* 1 while a file holds REVOKE_TEST_IOC_OWN */
	__u32 fifo_len;		/* bytes queued */
};

#define REVOKE_TEST_FIFO_SIZE	4096
#define REVOKE_TEST_MAP_PAGES	2

/* Do nothing (benchmarks). */
#define REVOKE_TEST_IOC_NOP	_IO('R', 0x00)
/* Make read() of this file return zeros at once, without the FIFO. */
#define REVOKE_TEST_IOC_SOURCE	_IO('R', 0x01)
/* Sleep until woken by a revocation (or a signal). */
#define REVOKE_TEST_IOC_SLEEP	_IO('R', 0x02)
/* Read the node's counters. */
#define REVOKE_TEST_IOC_STATS	_IOR('R', 0x03, struct revoke_test_stats)
/* Become the node's exclusive owner until ->release; -EBUSY if taken. */
#define REVOKE_TEST_IOC_OWN	_IO('R', 0x04)
/* Store a value in the first word of mapped page 0 (device side write). */
#define REVOKE_TEST_IOC_POKE	_IOW('R', 0x05, __u32)

#endif /* _UAPI_LINUX_REVOKE_TEST_H */
