// SPDX-License-Identifier: GPL-2.0-only
/// Make char drivers revocable by revokeat(2): give their file_operations a
/// ->revoke method and make their blocking waits end when the file is
/// revoked.  See Documentation/driver-api/revoke.rst.
///
/// Patch mode converts the input handlers whose clients follow the
/// evdev/joydev/mousedev shape: a per-file client in ->private_data that
/// keeps its fasync list, and a ->read that sleeps in
/// wait_event_interruptible().  The new ->revoke signals the client's SIGIO
/// owner and wakes its readers and pollers through input_revoke_file(); the
/// wait becomes revoke_wait_event_interruptible(), which also ends on
/// revoke and then fails the read with the file's error (-ENXIO, or
/// -ENODEV after an unplug).  Everything else (the gate, the drain, the early ->release that
/// drops grabs) is done by the revoke framework for every revocable cdev.
///
/// Report, context and org modes list the file_operations of char devices
/// (registered through cdev_init(), register_chrdev(), a miscdevice or
/// snd_register_device()) that have no ->revoke.
///
// Confidence: High for the patch mode (it only converts the shape above);
// Moderate for the report, which may miss fops registered indirectly.
// Copyright: (C) 2026 The revoke authors.
// Comments:
// Options: --no-includes --include-headers

virtual patch
virtual context
virtual org
virtual report

// ------------------------------------------------------------------------
// Patch mode: input handlers.

@ihandler depends on patch@
identifier handler;
@@
struct input_handler handler = { ... };

@ifops depends on patch && ihandler@
identifier fops, rd, fa;
@@
struct file_operations fops = {
	...,
	.read = rd,
	...,
	.fasync = fa,
	...
};

// Converted already: running the semantic patch again changes nothing.
@idone depends on ifops@
identifier ifops.fops;
expression E;
@@
struct file_operations fops = {
	...,
	.revoke = E,
	...
};

@ifasync depends on ifops && !idone@
identifier ifops.fa, fd, file, on, client, fasf;
type T;
@@
int fa(int fd, struct file *file, int on)
{
	T *client = file->private_data;

	return fasync_helper(fd, file, on, &client->fasf);
}

// Where the readers sleep: on the client's own queue (evdev) ...
@iwait_client depends on ifasync@
identifier ifops.rd, file, cl, wq;
type ifasync.T;
expression C;
@@
rd(struct file *file, ...)
{
	... when any
	T *cl = file->private_data;
	... when exists
	wait_event_interruptible(cl->wq, C)
	... when any
}

// ... or on the device's queue, shared by its clients (joydev, mousedev).
@iwait_dev depends on ifasync && !iwait_client@
identifier ifops.rd, file, cl, dev, devf, wq;
type ifasync.T, D;
expression C;
@@
rd(struct file *file, ...)
{
	... when any
	T *cl = file->private_data;
	D *dev = cl->devf;
	... when exists
	wait_event_interruptible(dev->wq, C)
	... when any
}

@script:python iname depends on ifasync@
fa << ifops.fa;
hook;
@@
base = fa[:-len("_fasync")] if fa.endswith("_fasync") else fa
coccinelle.hook = cocci.make_ident(base + "_revoke_file")

@depends on iwait_client@
identifier ifops.fa, iname.hook, ifasync.fasf, iwait_client.wq;
type ifasync.T;
@@
int fa(...) { ... }
+
+static int hook(struct file *file)
+{
+	T *client = file->private_data;
+
+	return input_revoke_file(&client->fasf, &client->wq);
+}

@depends on iwait_dev@
identifier ifops.fa, iname.hook, ifasync.fasf, iwait_dev.devf, iwait_dev.wq;
type ifasync.T;
@@
int fa(...) { ... }
+
+static int hook(struct file *file)
+{
+	T *client = file->private_data;
+
+	return input_revoke_file(&client->fasf, &client->devf->wq);
+}

@depends on ifasync@
identifier ifops.fops, ifops.fa, iname.hook;
@@
struct file_operations fops = {
	...,
	.fasync = fa,
+	.revoke = hook,
	...
};

// The wait also ends on revoke, and then returns the file's error, which
// the read returns.
@depends on ifasync@
identifier ifops.rd, file;
expression err, wq, C;
@@
rd(struct file *file, ...)
{
	<...
	err =
-	wait_event_interruptible(wq,
+	revoke_wait_event_interruptible(file, wq,
	C);
	if (err)
		return err;
	...>
}

@depends on ifasync@
@@
#include <linux/cdev.h>
+#include <linux/input/revoke.h>

// ------------------------------------------------------------------------
// Report, context and org modes: char device fops without ->revoke.

@initialize:python depends on !patch@
@@
# (file, fops) pairs that have ->revoke, and those already reported.
revocable = set()
reported = set()

def unconverted(p, fops):
    key = (p[0].file, fops)
    if key in revocable or key in reported:
        return False
    reported.add(key)
    return True

def message(fops):
    return "file_operations %s of a char device have no ->revoke" % fops

@has_revoke depends on !patch@
identifier fops;
expression E;
position p;
@@
struct file_operations fops@p = {
	...,
	.revoke = E,
	...
};

@script:python depends on has_revoke@
fops << has_revoke.fops;
p << has_revoke.p;
@@
revocable.add((p[0].file, fops))

// Registered as a char device: cdev, chrdev region, misc device, ALSA minor.
@registered depends on !patch@
identifier fops;
expression E1, E2, E3, E4, E5;
@@
(
cdev_init(E1, &fops)
|
register_chrdev(E1, E2, &fops)
|
__register_chrdev(E1, E2, E3, E4, &fops)
|
snd_register_device(E1, E2, E3, &fops, E4, E5)
)

@registered_misc depends on !patch@
identifier fops, misc;
@@
struct miscdevice misc = { ..., .fops = &fops, ... };

@unconverted depends on registered@
identifier registered.fops;
position p;
@@
struct file_operations fops@p = { ... };

@unconverted_misc depends on registered_misc@
identifier registered_misc.fops;
position p;
@@
struct file_operations fops@p = { ... };

@script:python depends on report@
fops << registered.fops;
p << unconverted.p;
@@
if unconverted(p, fops):
    coccilib.report.print_report(p[0], message(fops))

@script:python depends on report@
fops << registered_misc.fops;
p << unconverted_misc.p;
@@
if unconverted(p, fops):
    coccilib.report.print_report(p[0], message(fops))

@script:python depends on org@
fops << registered.fops;
p << unconverted.p;
@@
if unconverted(p, fops):
    coccilib.org.print_todo(p[0], message(fops))

@script:python depends on org@
fops << registered_misc.fops;
p << unconverted_misc.p;
@@
if unconverted(p, fops):
    coccilib.org.print_todo(p[0], message(fops))

// Context mode marks whole files' fops: a file with one converted fops
// and another unconverted one is not marked (report mode tells them apart).
@depends on context && registered && !has_revoke@
identifier registered.fops;
@@
* struct file_operations fops = { ... };

@depends on context && registered_misc && !has_revoke@
identifier registered_misc.fops;
@@
* struct file_operations fops = { ... };
