// SPDX-License-Identifier: GPL-2.0
/*
 * revokeat(2): take every open file of an object away from the processes
 * that hold it, so that a new opener gets exclusive access.
 *
 * The system call looks the path up, checks that the caller owns the inode
 * (or has CAP_FOWNER over it), and hands the object to whoever can revoke
 * it: for a char device node that is the driver of its device number, via
 * the revoke framework in drivers/revoke/.  Anything else cannot be revoked
 * yet and gets -EOPNOTSUPP.
 */

#include <linux/fcntl.h>
#include <linux/fs.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/revoke.h>
#include <linux/syscalls.h>

static int do_revoke(const struct path *path)
{
	struct inode *inode = d_backing_inode(path->dentry);

	if (!inode_owner_or_capable(mnt_idmap(path->mnt), inode))
		return -EPERM;

	switch (inode->i_mode & S_IFMT) {
	case S_IFCHR:
		/* As for open(2): a node on a nodev mount gives no access. */
		if ((path->mnt->mnt_flags & MNT_NODEV) ||
		    (path->mnt->mnt_sb->s_iflags & SB_I_NODEV))
			return -EACCES;
		return revoke_chrdev(inode->i_rdev);
	default:
		return -EOPNOTSUPP;
	}
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
 * owns the inode nor has CAP_FOWNER over it; -EOPNOTSUPP if the object
 * cannot be revoked; -EACCES for a device node on a nodev mount; -ENXIO
 * for a device node without a driver; or a path lookup error.
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
