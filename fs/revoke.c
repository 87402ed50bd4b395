// SPDX-License-Identifier: GPL-2.0
/*
 * revokeat(2): take every open file of an object away from the processes
 * that hold it, so that a new opener gets exclusive access.
 *
 * The system call looks the path up, checks that the caller owns the inode
 * (or has CAP_FOWNER over it), that the device cgroup lets it use a
 * device as open(2) would, and that the LSMs agree (security_path_revoke()),
 * and hands the object to whoever can revoke it: for a char device node
 * that is the driver of its device number, via the revoke framework in
 * drivers/revoke/; for a regular file on a filesystem that sets
 * FS_REVOCABLE (tmpfs, ext4), the code below.  Anything else gets
 * -EOPNOTSUPP.
 *
 * Regular files.  The object is the inode, so files opened through any
 * hard link, bind mount or mount namespace are covered, and fork, dup and
 * SCM_RIGHTS share the struct file.  Nothing is tracked per open file: a
 * file records the inode's revoke generation when it is opened
 * (f_revoke_gen), as open(2) read it before its permission check, so that
 * an open checked before the owner's chmod and revokeat(2) is revoked
 * (file_revoke_open_sample()); revokeat(2) bumps the inode's
 * (i_revoke_gen).  A file whose generation differs is revoked; no list is
 * walked and open(2)/close(2) pay one load and store.  Both are 64 bits, so that a
 * generation never comes back: with 32, the 2^32nd revoke of an inode
 * (a day of back-to-back calls with expedited grace periods) made the
 * files opened before the first live again.  That costs struct inode 8
 * bytes and struct file none (on x86_64 its slab object is 192 bytes with
 * or without them).  They are read without a lock, which is why
 * CONFIG_REVOKE depends on 64BIT: a torn read on a 32-bit machine could
 * see a past generation.
 *
 * Files the kernel opened for a user are files like the others: a loop
 * device's backing file is revoked (its I/O then fails), and overlayfs
 * gives a file reopened on the upper inode after its copy-up the upper
 * inode's generation at the overlay file's open (0 if the copy-up came
 * later), so that it goes with the upper file too; a truncate, or the
 * removal of set-id bits, through an overlay file is in its real file's
 * gate.  An active swap file is refused: swap does its I/O without the
 * file, so a revoke would take nothing.
 *
 * The cycle (steps 1 and 2 under the filesystem's revoke_sb lock):
 *  1. bump the generation; every later operation of an older file fails
 *     with -EBADF.  Under the mapping's i_mmap_rwsem, which linking and
 *     unlinking a vma hold too: the writable shared mappings of the files
 *     it revokes stop counting in i_mmap_writable (vma_counts_writable()),
 *     so that the next owner of a memfd can add F_SEAL_WRITE once step 4
 *     zapped them;
 *  2. drain: the filesystem runs its data methods (read, write, splice,
 *     fallocate, the ioctls that move data, page_mkwrite, DAX and
 *     userfaultfd page insertion; the VFS ftruncate and O_TRUNC) in the
 *     file_revoke_gate, a per-CPU count per superblock in two slots, and
 *     never touches user memory there (see below).  Flip the slot,
 *     synchronize_rcu(), and wait for the old slot to empty: a write that
 *     started before the call has landed, none lands after it.  Direct I/O
 *     still in flight is waited for with inode_dio_wait();
 *  3. mappings: first the revoked files' shared mappings lose the file's
 *     pages, so that none of them sees what the next owner writes while
 *     the private ones are looked after, which may take long.  Then, in
 *     private mappings, pages a process already has mapped are copied
 *     into its own anonymous memory (copy-on-write broken, a fault in its
 *     address space: charged to its memory cgroup, whose reclaim and OOM
 *     killer deal with its limit), so it never sees what the next owner
 *     writes and is not killed for reading what it had; pages it never
 *     touched give SIGBUS, as do a huge page mapped whole (tmpfs huge=)
 *     and a page under migration when the walk comes by.
 *     The seed populated and copied whole mappings instead, which costs
 *     memory for pages the process never used; see
 *     Documentation/driver-api/revoke.rst for the figures.  The revoker
 *     copies at most fs.revoke_private_copy_pages pages per call (16384,
 *     64 MiB of 4 KiB pages, by default): one holder that maps the file in
 *     a thousand forks must not make it copy a terabyte.  Past that, the
 *     pages are zapped with the others (SIGBUS if touched); address spaces
 *     are served in address order, so one holder can spend the budget of
 *     the others, all of them holders of the revoked file.  The
 *     bookkeeping is one page (a few words of stack when even that cannot
 *     be had): address spaces are visited in chunks, in address order, so
 *     that neither the number of vmas nor memory pressure skips a copy;
 *  4. zap the file's pages from every mapping (unmap_mapping_range()
 *     without even_cows, so private copies stay).  A fault on a revoked
 *     file's mapping is refused under the page table lock (finish_fault(),
 *     do_set_pmd()) or RCU (filemap_map_pages()), which the
 *     synchronize_rcu() of step 2 waits for: shared mappings give SIGBUS;
 *  5. long-term pins: a tmpfs folio that io_uring fixed buffers or another
 *     FOLL_LONGTERM pin holds leaves the page cache to a copy, so that the
 *     pin keeps what it had and never sees or changes the next owner's data;
 *  6. drop the revoked files' flock, POSIX and OFD locks and leases;
 *  7. write back, as the seed's do_fsync(), but without opening a file
 *     that a policy on opens could refuse or hold: writes completed
 *     before the call are durable.
 *
 * The gate is per superblock, not per inode: a per-CPU counter per inode
 * would cost more memory than the inode.  A revoke therefore also waits for
 * operations on other files of the same filesystem that started before
 * it, but never for one that starts after (the flipped slot).  What it
 * waits for must end without anybody's help: read and write run their
 * copies with page faults disabled (file_revoke_rw_iter()), fault the
 * user's buffer in outside the gate and go on in it, where a revoke that
 * came meanwhile stops them; ioctls copy their arguments outside it.  A
 * buffer in a FUSE file whose server does not answer, or in a page a
 * userfaultfd handler never provides (any user can make either), stalls
 * its own read or write but no revoke: that held every revoke of the
 * filesystem, and the revoker's own handler deadlocked it.  An operation
 * in the gate waits only for the filesystem's locks and I/O.  lockdep
 * sees the gate as a lock_map read by every operation and synced by the
 * revoke, and reports a revoke waiting for an operation that waits for
 * it.  Its hot
 * path is lighter than the chardev gate's: no proxy, and on the way in
 * preempt_disable(), two loads and a compare, this_cpu_inc(), on the way
 * out one this_cpu_dec() (the revoke polls the old slot instead of being
 * woken); no atomic instruction, no barrier (smp_rmb() and
 * smp_mb__before_atomic() are compiler barriers on x86).
 */

#include <kunit/static_stub.h>
#include <linux/device_cgroup.h>
#include <linux/fcntl.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/pagemap.h>
#include <linux/pagevec.h>
#include <linux/pagewalk.h>
#include <linux/percpu.h>
#include <linux/revoke.h>
#include <linux/sched/mm.h>
#include <linux/security.h>
#include <linux/shmem_fs.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/swap.h>
#include <linux/syscalls.h>
#include <linux/sysctl.h>
#include <linux/uio.h>

#ifdef CONFIG_DEBUG_LOCK_ALLOC
static struct lock_class_key revoke_sb_key;
#endif

/**
 * revoke_sb_init - give a superblock the revoke gate of its regular files
 * @sb: a superblock of a filesystem that sets FS_REVOCABLE
 *
 * Context: Process context, from alloc_super(); may sleep.
 * Return: 0, or -ENOMEM.
 */
int revoke_sb_init(struct super_block *sb)
{
	struct revoke_sb *rs;

	rs = kzalloc(sizeof(*rs), GFP_KERNEL);
	if (!rs)
		return -ENOMEM;
	rs->active = __alloc_percpu(2 * sizeof(unsigned long),
				    __alignof__(unsigned long));
	if (!rs->active) {
		kfree(rs);
		return -ENOMEM;
	}
	mutex_init(&rs->lock);
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	lockdep_init_map(&rs->dep_map, "revoke_sb", &revoke_sb_key, 0);
#endif
	sb->s_revoke = rs;
	return 0;
}

/**
 * revoke_sb_free - free the revoke gate of a superblock
 * @sb: the superblock, which no file refers to any more
 *
 * Context: Process context, from the superblock's destruction.
 */
void revoke_sb_free(struct super_block *sb)
{
	struct revoke_sb *rs = sb->s_revoke;

	if (!rs)
		return;
	free_percpu(rs->active);
	kfree(rs);
	sb->s_revoke = NULL;
}

/* Where a direct I/O try started: it may move both before it fails. */
struct file_revoke_rw_start {
	struct iov_iter_state iter;
	loff_t pos;
};

/*
 * One try of @rw in the gate: -EBADF if the file is revoked.  With
 * @faults false, page faults are off (and direct I/O pins with
 * FOLL_NOFAULT); @start: where to note the start of a direct I/O try.
 */
static ssize_t file_revoke_rw_try(struct kiocb *iocb, struct iov_iter *iter,
				  ssize_t (*rw)(struct kiocb *,
						struct iov_iter *),
				  struct file_revoke_rw_start *start,
				  bool faults)
{
	struct file_revoke_gate gate = file_revoke_enter(iocb->ki_filp);
	bool nofault = iter->nofault;
	ssize_t ret;

	if (file_revoke_gate_closed(&gate))
		return -EBADF;
	if (start) {
		iov_iter_save_state(iter, &start->iter);
		start->pos = iocb->ki_pos;
		iter->nofault = !faults;
	}
	if (faults) {
		ret = rw(iocb, iter);
	} else {
		pagefault_disable();
		ret = rw(iocb, iter);
		pagefault_enable();
	}
	iter->nofault = nofault;
	file_revoke_exit(gate);
	return ret;
}

/*
 * Fault the buffer in outside the gate, as gfs2 does outside its glock,
 * and run @rw again for the rest, until it is done.  The window is a
 * megabyte at first, a page once a window brought no progress; direct
 * I/O, which keeps nothing of a try that faulted, gets the whole buffer,
 * its iterator and position back as they were before the try (@start).
 * A read that stopped at the end of the file is done.  Eight tries
 * without progress end buffered I/O with -EFAULT (its pages are taken
 * away as fast as they come in: a FUSE server invalidating them, say).
 * Direct I/O, whose whole buffer must stay in while it is pinned (memory
 * pressure can defeat that, and a VM_PFNMAP buffer cannot be pinned at
 * all), makes its last try with faults on, as without revoke: what that
 * try waits for, a revoke of the filesystem waits for.
 */
static ssize_t file_revoke_rw_loop(struct kiocb *iocb, struct iov_iter *iter,
				   ssize_t (*rw)(struct kiocb *,
						 struct iov_iter *),
				   ssize_t ret, struct file_revoke_rw_start *start)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	bool write = iov_iter_rw(iter) == WRITE;
	size_t done = 0, prev = 0;
	unsigned int stuck = 0;

	for (;;) {
		size_t count, window;

		if (ret < 0 && ret != -EFAULT)
			break;
		if (ret > 0) {
			done += ret;
		} else if (start) {
			iov_iter_restore(iter, &start->iter);
			iocb->ki_pos = start->pos;
		}
		if (!ret)
			break;
		count = iov_iter_count(iter);
		if (!count || (!write && iocb->ki_pos >= i_size_read(inode)))
			break;
		if (iocb->ki_flags & IOCB_NOWAIT) {
			ret = -EAGAIN;
			break;
		}
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		if (count != prev) {
			stuck = 0;
		} else if (++stuck == 8) {
			ret = -EFAULT;
			if (!start)
				break;
			ret = file_revoke_rw_try(iocb, iter, rw, NULL, true);
			if (ret > 0)
				done += ret;
			break;
		}
		if (start)
			window = count;
		else
			window = min_t(size_t, count, stuck ? PAGE_SIZE : SZ_1M);
		prev = count;
		if (write)
			window -= fault_in_iov_iter_readable(iter, window);
		else
			window -= fault_in_iov_iter_writeable(iter, window);
		if (!window) {
			ret = -EFAULT;
			break;
		}
		cond_resched();
		ret = file_revoke_rw_try(iocb, iter, rw, start, false);
	}
	return done ? done : ret;
}

/**
 * file_revoke_rw_retry - the rest of a read or write whose buffer faulted
 * @iocb: the request
 * @iter: its buffer, where @rw left it
 * @rw: what file_revoke_rw_iter() ran
 * @ret: what it returned
 *
 * The slow path of file_revoke_rw_iter(), for buffered I/O.
 *
 * Context: Process context, holding no lock of the file.
 * Return: what was read or written in all, or the error of the first try
 * that did nothing: -EFAULT for a buffer that cannot be faulted in, -EBADF
 * if the file was revoked, -EAGAIN for IOCB_NOWAIT, -EINTR on a fatal
 * signal.
 */
ssize_t file_revoke_rw_retry(struct kiocb *iocb, struct iov_iter *iter,
			     ssize_t (*rw)(struct kiocb *, struct iov_iter *),
			     ssize_t ret)
{
	return file_revoke_rw_loop(iocb, iter, rw, ret, NULL);
}
EXPORT_SYMBOL_GPL(file_revoke_rw_retry);

/**
 * file_revoke_rw_direct - file_revoke_rw_iter() for direct I/O
 * @iocb: the request, with IOCB_DIRECT
 * @iter: its buffer
 * @rw: the filesystem's ->read_iter() or ->write_iter(), without the gate
 *
 * Direct I/O pins the buffer: it is faulted in first, outside the gate,
 * so that the pin finds its pages without a fault or the mmap_lock.  A
 * synchronous request then pins with FOLL_NOFAULT in the gate (iov_iter's
 * nofault) and, if a page went away meanwhile, starts again from where
 * the try began (which may have moved the iterator and the position, as
 * ext4's fallback to buffered I/O does).  An asynchronous one cannot
 * start again once queued: it runs with faults on.  Kernel buffers run
 * once.
 *
 * Context: Process context, as ->read_iter() and ->write_iter().
 * Return: as file_revoke_rw_iter().
 */
ssize_t file_revoke_rw_direct(struct kiocb *iocb, struct iov_iter *iter,
			      ssize_t (*rw)(struct kiocb *, struct iov_iter *))
{
	struct file_revoke_rw_start start;
	size_t count = iov_iter_count(iter);
	ssize_t ret;

	if (!user_backed_iter(iter))
		return file_revoke_rw_try(iocb, iter, rw, NULL, true);
	if (!(iocb->ki_flags & IOCB_NOWAIT)) {
		if (iov_iter_rw(iter) == WRITE)
			fault_in_iov_iter_readable(iter, count);
		else
			fault_in_iov_iter_writeable(iter, count);
	}
	if (!is_sync_kiocb(iocb))
		return file_revoke_rw_try(iocb, iter, rw, NULL, true);
	ret = file_revoke_rw_try(iocb, iter, rw, &start, false);
	if (ret < 0 ? ret != -EFAULT : !iov_iter_count(iter))
		return ret;
	return file_revoke_rw_loop(iocb, iter, rw, ret, &start);
}
EXPORT_SYMBOL_GPL(file_revoke_rw_direct);

/* Operations counted in @slot; exact once no new one can count there. */
static unsigned long revoke_sb_active(struct revoke_sb *rs, unsigned int slot)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(rs->active, cpu)[slot]);
	return sum;
}

/*
 * Step 1: revoke the files of @inode.  Their writable shared mappings were
 * counted in i_mmap_writable when linked; from now on vma_counts_writable()
 * says no to them, so their unlinking will not count them down: do it now,
 * in the same i_mmap_rwsem section.  All but one: until step 4 zaps them,
 * their PTEs still write, and a seal must wait (mmap_region() holds one
 * the same way).  Returns true if one is held for revoke_regular().
 */
static bool revoke_bump_gen(struct inode *inode)
{
	struct address_space *mapping = inode->i_mapping;
	struct vm_area_struct *vma;
	unsigned long n = 0;

	i_mmap_lock_write(mapping);
	vma_interval_tree_foreach(vma, &mapping->i_mmap, 0, ULONG_MAX)
		if (vma_counts_writable(vma) && n++)
			mapping_unmap_writable(mapping);
	/*
	 * The caller's chmod, chown or ACL change before the new generation:
	 * an open that saw the old permission sampled the old generation
	 * (pairs with smp_rmb() in file_revoke_open_sample()).
	 */
	smp_mb();
	WRITE_ONCE(inode->i_revoke_gen, inode->i_revoke_gen + 1);
	i_mmap_unlock_write(mapping);
	return n > 0;
}

/*
 * Steps 1 and 2: from now on the files of @inode opened before fail, and
 * none of their operations is still running.  Returns -EINTR if a fatal
 * signal stopped the wait (an operation waiting for a stalled disk, say):
 * if *@revoked, the files are revoked, but one may still be running;
 * otherwise nothing was done.  *@held: see revoke_bump_gen().
 */
static int revoke_sb_drain(struct revoke_sb *rs, struct inode *inode,
			   bool *revoked, bool *held)
{
	unsigned int old = rs->idx;

	lockdep_assert_held(&rs->lock);
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	lock_map_sync(&rs->dep_map);
#endif
	/*
	 * An earlier revoke stopped by a signal may have left operations in
	 * the other slot, which new ones are about to use: they started
	 * before this revoke and may be of @inode.  Nothing new counts there,
	 * so this ends.  Interrupted here, nothing is done yet.
	 */
	while (revoke_sb_active(rs, old ^ 1)) {
		if (fatal_signal_pending(current))
			return -EINTR;
		schedule_timeout_killable(1);
	}
	*held = revoke_bump_gen(inode);
	*revoked = true;
	smp_wmb();	/* pairs with smp_rmb() in file_revoke_enter() */
	WRITE_ONCE(rs->idx, old ^ 1);
	/*
	 * Every operation that read the old slot has counted in it by now;
	 * every later one sees the new generation.  The old slot only goes
	 * down from here.  It is polled, so that leaving the gate costs one
	 * this_cpu_dec() and no test: operations are short, a revoke is rare.
	 */
	synchronize_rcu();
	while (revoke_sb_active(rs, old)) {
		if (fatal_signal_pending(current))
			return -EINTR;
		schedule_timeout_killable(1);
	}
	smp_mb();	/* their accesses happened before ours */
	return 0;
}

/* Step 3 ------------------------------------------------------------- */

/*
 * Scratch space of step 3: one page when it can be had, else a few words
 * of stack, so that memory pressure makes the step slower, never skipped.
 * An eighth of it holds the addresses of one batch of pages to copy, the
 * rest one chunk of the address spaces to visit, sorted by address.
 */
#define REVOKE_STACK_ADDRS	4
#define REVOKE_STACK_MMS	12

struct revoke_scratch {
	unsigned long *addr;
	struct mm_struct **mms;
	unsigned int naddr, max_addr;
	unsigned int nmms, max_mms;
	unsigned int budget;		/* pages it may still copy */
	struct mm_struct *last;		/* highest of the chunk, as found */
	void *page;
	unsigned long stack_addr[REVOKE_STACK_ADDRS];
	struct mm_struct *stack_mms[REVOKE_STACK_MMS];
};

/*
 * Pages one revoke copies for private mappings, at most: the bound of the
 * work a holder can make the revoker do for it (about 6 us of CPU a page).
 */
static unsigned int revoke_private_copy_pages __read_mostly = 16384;

static struct ctl_table revoke_sysctls[] = {
	{
		.procname	= "revoke_private_copy_pages",
		.data		= &revoke_private_copy_pages,
		.maxlen		= sizeof(revoke_private_copy_pages),
		.mode		= 0644,
		.proc_handler	= proc_douintvec,
	},
};

static int __init revoke_sysctl_init(void)
{
	register_sysctl_init("fs", revoke_sysctls);
	return 0;
}
fs_initcall(revoke_sysctl_init);

static void revoke_scratch_init(struct revoke_scratch *sc)
{
	sc->budget = READ_ONCE(revoke_private_copy_pages);
	sc->page = kmalloc(PAGE_SIZE, GFP_KERNEL | __GFP_NOWARN);
	if (sc->page) {
		sc->addr = sc->page;
		sc->max_addr = PAGE_SIZE / 8 / sizeof(*sc->addr);
		sc->mms = sc->page + PAGE_SIZE / 8;
		sc->max_mms = PAGE_SIZE * 7 / 8 / sizeof(*sc->mms);
	} else {
		sc->addr = sc->stack_addr;
		sc->max_addr = REVOKE_STACK_ADDRS;
		sc->mms = sc->stack_mms;
		sc->max_mms = REVOKE_STACK_MMS;
	}
}

/* Collect the addresses where a page of the file itself is mapped. */
static int revoke_cow_pte(pte_t *pte, unsigned long addr, unsigned long next,
			  struct mm_walk *walk)
{
	struct revoke_scratch *sc = walk->private;
	pte_t ptent = ptep_get(pte);
	struct page *page;

	if (!pte_present(ptent))
		return 0;
	page = vm_normal_page(walk->vma, addr, ptent);
	if (!page || PageAnon(page))
		return 0;
	sc->addr[sc->naddr++] = addr;
	return sc->naddr == min(sc->max_addr, sc->budget);
}

static const struct mm_walk_ops revoke_cow_ops = {
	.pte_entry	= revoke_cow_pte,
	.walk_lock	= PGWALK_RDLOCK,
};

/*
 * Break copy-on-write for every page of the file mapped in @vma, as a
 * ptrace write would: the process gets a private copy of what it sees now.
 * A page that cannot be copied (no memory for the copy, the budget spent)
 * is zapped with the others and gives SIGBUS if touched.
 */
static void revoke_break_cow(struct vm_area_struct *vma,
			     struct revoke_scratch *sc)
{
	unsigned long start = vma->vm_start;

	while (start < vma->vm_end && sc->budget) {
		unsigned int i;
		int ret;

		sc->naddr = 0;
		ret = walk_page_range_vma(vma, start, vma->vm_end,
					  &revoke_cow_ops, sc);
		start = ret > 0 ? sc->addr[sc->naddr - 1] + PAGE_SIZE :
				  vma->vm_end;
		/* Tried or not, a page found mapped is spent. */
		sc->budget -= sc->naddr;
		for (i = 0; i < sc->naddr; i++) {
			struct page *page;

			if (get_user_pages_remote(vma->vm_mm, sc->addr[i], 1,
						  FOLL_WRITE | FOLL_FORCE,
						  &page, NULL) == 1)
				put_page(page);
		}
		cond_resched();
	}
}

/*
 * A private mapping of a revoked file of @inode.  Not a read-only shared
 * one (MAP_SHARED of an O_RDONLY file has VM_MAYSHARE without VM_SHARED):
 * it has no copy-on-write to break.
 */
static bool revoke_private_vma(struct vm_area_struct *vma,
			       struct inode *inode)
{
	return vma->vm_file && file_inode(vma->vm_file) == inode &&
	       !(vma->vm_flags & VM_MAYSHARE) && file_revoked(vma->vm_file);
}

/*
 * Add @mm to the sorted chunk, which keeps the lowest addresses it is
 * offered; false if @mm did not fit (another chunk is needed).
 */
static bool revoke_chunk_add(struct revoke_scratch *sc, struct mm_struct *mm)
{
	unsigned int lo = 0, hi = sc->nmms;
	bool full;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (sc->mms[mid] == mm)
			return true;
		if (sc->mms[mid] < mm)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == sc->max_mms)
		return false;
	/* When full, the highest one gives way, for the next chunk. */
	full = sc->nmms == sc->max_mms;
	if (!full)
		sc->nmms++;
	memmove(&sc->mms[lo + 1], &sc->mms[lo],
		(sc->nmms - 1 - lo) * sizeof(*sc->mms));
	sc->mms[lo] = mm;
	return !full;
}

/*
 * Fill the chunk with the address spaces above @after that privately map
 * a revoked file of @inode, in address order, each with a reference
 * (mmget()); true if some did not fit.  An mm is alive while one of its
 * vmas is in the tree, which the i_mmap lock holds; the references are
 * taken before dropping it, on the chunk only (mmput() may not run under
 * the lock: exit_mmap() takes it for write).
 */
static bool revoke_collect_mms(struct inode *inode, struct revoke_scratch *sc,
			       struct mm_struct *after)
{
	struct address_space *mapping = inode->i_mapping;
	struct vm_area_struct *vma;
	bool more = false;
	unsigned int i, n;

	sc->nmms = 0;
	i_mmap_lock_read(mapping);
	vma_interval_tree_foreach(vma, &mapping->i_mmap, 0, ULONG_MAX) {
		if (vma->vm_mm > after && revoke_private_vma(vma, inode) &&
		    !revoke_chunk_add(sc, vma->vm_mm))
			more = true;
		if (fatal_signal_pending(current))
			break;
		cond_resched();
	}
	sc->last = sc->nmms ? sc->mms[sc->nmms - 1] : after;
	for (i = n = 0; i < sc->nmms; i++)
		if (mmget_not_zero(sc->mms[i]))
			sc->mms[n++] = sc->mms[i];
	i_mmap_unlock_read(mapping);
	sc->nmms = n;
	return more;
}

/* Copy what @mm has mapped of @inode's revoked files; mmap lock held. */
static void revoke_private_mm(struct mm_struct *mm, struct inode *inode,
			      struct revoke_scratch *sc)
{
	VMA_ITERATOR(vmi, mm, 0);
	struct vm_area_struct *vma;

	/* A fork that failed half-way left a marker, not a vma, in the tree. */
	if (test_bit(MMF_UNSTABLE, &mm->flags))
		return;
	for_each_vma(vmi, vma) {
		if (revoke_private_vma(vma, inode))
			revoke_break_cow(vma, sc);
		if (fatal_signal_pending(current) || !sc->budget)
			return;
		cond_resched();
	}
}

/*
 * Copy what the private mappings of @inode's revoked files have mapped,
 * one chunk of address spaces at a time, in address order: bounded memory
 * whatever the number of vmas or processes, bounded work (the budget).  A
 * fatal signal stops the copying; what is left is zapped in step 4 (SIGBUS
 * if touched).  An
 * address space forked from one already visited is not visited: its
 * pages are zapped too.  One whose fork failed half-way (MMF_UNSTABLE:
 * dup_mmap() left a marker, not a vma, in its tree) is about to go, and
 * is skipped.
 */
static void revoke_private_maps(struct inode *inode)
{
	struct mm_struct *after = NULL;
	struct revoke_scratch sc;
	bool more;

	if (!mapping_mapped(inode->i_mapping))
		return;
	revoke_scratch_init(&sc);
	if (!sc.budget)
		goto out;
	do {
		unsigned int i;

		more = revoke_collect_mms(inode, &sc, after);
		for (i = 0; i < sc.nmms; i++) {
			struct mm_struct *mm = sc.mms[i];

			/* Only put the references once killed or spent. */
			if (!fatal_signal_pending(current) && sc.budget &&
			    !mmap_read_lock_killable(mm)) {
				revoke_private_mm(mm, inode, &sc);
				mmap_read_unlock(mm);
			}
			mmput(mm);
		}
		after = sc.last;
	} while (more && sc.budget && !fatal_signal_pending(current));
out:
	kfree(sc.page);
}

/*
 * Zap the file's pages from the shared mappings of @inode's revoked files,
 * read-only ones included (their accesses then fault, and the faults are
 * refused: SIGBUS) before the private mappings' copies, which may take
 * long.  The i_mmap lock keeps the vmas, as unmap_mapping_range() relies
 * on; it is also why hugetlb, whose zap takes it for writing, has no
 * place here (hugetlbfs is not revocable).
 */
static void revoke_zap_shared(struct inode *inode)
{
	struct address_space *mapping = inode->i_mapping;
	struct vm_area_struct *vma;

	if (!mapping_mapped(mapping))
		return;
	i_mmap_lock_read(mapping);
	vma_interval_tree_foreach(vma, &mapping->i_mmap, 0, ULONG_MAX) {
		if ((vma->vm_flags & VM_MAYSHARE) && vma->vm_file &&
		    !is_vm_hugetlb_page(vma) && file_revoked(vma->vm_file))
			zap_page_range_single(vma, vma->vm_start,
					      vma->vm_end - vma->vm_start, NULL);
		cond_resched();
	}
	i_mmap_unlock_read(mapping);
}

/*
 * Give the page cache a copy of a folio that a long-term pin holds, so
 * that the pin's holder keeps the old folio, which belongs to no file any
 * more.  Under the folio lock, which truncation, faults and writes take
 * and then check folio->mapping, as they do for FUSE's replacement.  A
 * mapping of the folio made since the zap (by a file opened after the
 * bump) is zapped too, so that it faults the copy in.
 */
static int revoke_replace_folio(struct address_space *mapping,
				struct folio *old)
{
	struct folio *new;
	int ret = 0;

	new = folio_alloc(mapping_gfp_mask(mapping), 0);
	if (!new)
		return -ENOMEM;
	folio_lock(old);
	folio_wait_writeback(old);
	if (old->mapping != mapping || !folio_test_uptodate(old) ||
	    !folio_maybe_dma_pinned(old))
		goto out;
	/* A poisoned page is not read: a machine check, not a copy. */
	if (folio_test_hwpoison(old) || folio_mc_copy(new, old)) {
		ret = -EIO;
		goto out;
	}
	unmap_mapping_pages(mapping, old->index, 1, false);
	__folio_set_locked(new);
	__folio_set_swapbacked(new);
	folio_mark_uptodate(new);
	replace_page_cache_folio(old, new);
	/* tmpfs has nothing to read it back from: never clean. */
	folio_mark_dirty(new);
	folio_add_lru(new);
	folio_unlock(new);
out:
	folio_unlock(old);
	folio_put(new);
	return ret;
}

/*
 * Step 5: a long-term pin (io_uring fixed buffers, FOLL_LONGTERM) taken on
 * a shared mapping before the call still holds the file's folios after
 * the zap: through it the old holder would read, and write, what the next
 * owner puts there, for as long as the pin lives.  Move the data out from
 * under the pins: each pinned folio's place in the page cache goes to a
 * copy.  tmpfs only, whose page cache is the file; other filesystems
 * refuse writable long-term pins of their files (see
 * writable_file_mapping_allowed()), and read-only ones are not recalled.
 * A pinned large folio (tmpfs huge=) is not either: -EBUSY, as a copy
 * that cannot be made gives -ENOMEM or -EIO, with the files revoked all
 * the same.  A pin taken in the meantime through a file opened after the
 * bump cannot be told from an old one, and is treated as one.
 */
static int revoke_replace_pinned(struct address_space *mapping)
{
	struct folio_batch fbatch;
	pgoff_t index = 0;
	unsigned int i;
	int ret = 0, err;

	if (!shmem_mapping(mapping))
		return 0;
	folio_batch_init(&fbatch);
	while (filemap_get_folios(mapping, &index, ULONG_MAX, &fbatch)) {
		for (i = 0; i < folio_batch_count(&fbatch); i++) {
			struct folio *folio = fbatch.folios[i];

			if (!folio_maybe_dma_pinned(folio))
				continue;
			err = folio_test_large(folio) ? -EBUSY :
			      revoke_replace_folio(mapping, folio);
			ret = ret ?: err;
		}
		folio_batch_release(&fbatch);
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	return ret;
}

/*
 * Revoke every file of a regular file's inode.  A fatal signal while
 * waiting for another revoke of the same filesystem stops it before it
 * started (-EINTR); one while waiting for operations in flight gives
 * -EINTR too, once the rest is done.
 */
static int revoke_regular(const struct path *path)
{
	struct inode *inode = d_backing_inode(path->dentry);
	struct revoke_sb *rs = inode->i_sb->s_revoke;
	bool revoked = false, held = false;
	int ret, err, pinned;

	if (!rs)
		return -EOPNOTSUPP;
	/*
	 * An active swap file is the kernel's: swap reads and writes its
	 * blocks without the file, so a revoke would take nothing, and
	 * writes and truncates fail with -ETXTBSY already.
	 */
	if (IS_SWAPFILE(inode))
		return -ETXTBSY;
	if (mutex_lock_killable(&rs->lock))
		return -EINTR;
	ret = revoke_sb_drain(rs, inode, &revoked, &held);
	mutex_unlock(&rs->lock);
	if (!revoked)
		return ret;

	inode_dio_wait(inode);
	revoke_zap_shared(inode);
	revoke_private_maps(inode);
	unmap_mapping_range(inode->i_mapping, 0, 0, 0);
	/* The old PTEs are gone: the next owner may seal. */
	if (held)
		mapping_unmap_writable(inode->i_mapping);
	pinned = revoke_replace_pinned(inode->i_mapping);
	locks_revoke(inode);
	/*
	 * Step 7, the seed's do_fsync(), without a file: an open for ->fsync
	 * would run the LSMs' file_open and fsnotify's permission events,
	 * which may refuse or hold it once the files are revoked.  This
	 * writes the data back, waits for it, and writes the inode with
	 * WB_SYNC_ALL, in which ext4 commits its journal as its fsync does.
	 */
	err = write_inode_now(inode, 1);
	return ret ?: pinned ?: err;
}

/* The LSMs' say; a function of its own, for the KUnit suite's stand-in. */
static int revoke_security_check(const struct path *path)
{
	KUNIT_STATIC_STUB_REDIRECT(revoke_security_check, path);
	return security_path_revoke(path);
}

/*
 * May the caller revoke the object at @path?  Its owner, or a caller with
 * CAP_FOWNER over it; for a device node also one the device cgroup lets
 * use the device, as it would for open(2) (owning a node made by mknod in
 * a container is not enough); and the LSMs agree.
 */
static int may_revoke(const struct path *path)
{
	struct inode *inode = d_backing_inode(path->dentry);
	int error;

	if (!inode_owner_or_capable(mnt_idmap(path->mnt), inode))
		return -EPERM;
	if (S_ISCHR(inode->i_mode)) {
		/* As for open(2): a node on a nodev mount gives no access. */
		if ((path->mnt->mnt_flags & MNT_NODEV) ||
		    (path->mnt->mnt_sb->s_iflags & SB_I_NODEV))
			return -EACCES;
		error = devcgroup_inode_permission(inode, MAY_READ | MAY_WRITE);
		if (error)
			return error;
	}
	return revoke_security_check(path);
}

static int do_revoke(const struct path *path)
{
	struct inode *inode = d_backing_inode(path->dentry);
	int error;

	if (!S_ISCHR(inode->i_mode) && !S_ISREG(inode->i_mode)) {
		/* The owner learns that, nobody else. */
		if (!inode_owner_or_capable(mnt_idmap(path->mnt), inode))
			return -EPERM;
		return -EOPNOTSUPP;
	}
	error = may_revoke(path);
	if (error)
		return error;
	if (S_ISCHR(inode->i_mode))
		return revoke_chrdev(inode->i_rdev);
	return revoke_regular(path);
}

/**
 * sys_revokeat - revoke every open file of an object
 * @dfd: directory fd @filename is relative to, or AT_FDCWD; with
 *	 AT_EMPTY_PATH, the object itself (an O_PATH fd works)
 * @filename: path of the object
 * @flags: AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH
 *
 * Return: 0 once every file description opened on the object before the
 * call is revoked; -EINVAL for unknown flags; -EPERM if the caller neither
 * owns the inode nor has CAP_FOWNER over it, or if the device cgroup does
 * not let it use the device; an LSM's error; -EOPNOTSUPP if the object
 * cannot be revoked (a FIFO, socket, directory, or a regular file on a
 * filesystem without FS_REVOCABLE); -ETXTBSY for an active swap file;
 * -EACCES for a device node on a nodev mount; -ENXIO for a device node
 * without a driver; -EINTR if a fatal signal stopped the wait for another
 * revoke of the filesystem or for what an interrupted one left (nothing
 * done), for a regular file's operations in flight, or for a device's (the
 * files are revoked, the rest is finished in the background); -EBUSY,
 * -ENOMEM or -EIO if a page of a tmpfs file that a long-term pin holds
 * could not be taken from it (a huge page, no memory for the copy, a
 * poisoned page); an error of writing a regular file's data back (in
 * these cases the file is revoked all the same); or a path lookup error.
 */
SYSCALL_DEFINE3(revokeat, int, dfd, const char __user *, filename,
		unsigned int, flags)
{
	unsigned int lookup_flags = LOOKUP_FOLLOW;
	struct path path;
	int error;

	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	if (flags & AT_SYMLINK_NOFOLLOW)
		lookup_flags &= ~LOOKUP_FOLLOW;
	if (flags & AT_EMPTY_PATH)
		lookup_flags |= LOOKUP_EMPTY;

	error = user_path_at(dfd, filename, lookup_flags, &path);
	if (error)
		return error;
	error = do_revoke(&path);
	path_put(&path);
	return error;
}

#if IS_ENABLED(CONFIG_REVOKE_KUNIT_TEST)
#include "tests/revoke_kunit.c"
#endif
