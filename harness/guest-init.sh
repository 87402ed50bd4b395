#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init of the guest initramfs: mount the usual file systems, then run what
# the kernel command line asks for (revoke.mode=test|demo|bench|shell) and
# power off.
# The host reads the serial console; the markers below are its protocol.

export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mkdir -p /dev/pts /dev/shm
mount -t tmpfs tmpfs /dev/shm
# What udev would add; the kselftest runner writes to /dev/stdout.
ln -sf /proc/self/fd /dev/fd
ln -sf fd/0 /dev/stdin
ln -sf fd/1 /dev/stdout
ln -sf fd/2 /dev/stderr

mode=test
only=
timeout=
for arg in $(cat /proc/cmdline); do
	case $arg in
	revoke.mode=*) mode=${arg#revoke.mode=} ;;
	revoke.only=*) only=,${arg#revoke.only=}, ;;
	# make stress: the length of each storm_test target, and which.
	revoke.storm=*) export REVOKE_STORM_SECONDS=${arg#revoke.storm=} ;;
	revoke.targets=*) export REVOKE_STORM_TARGETS=${arg#revoke.targets=} ;;
	revoke.timeout=*) timeout=${arg#revoke.timeout=} ;;
	revoke.nokill) export REVOKE_STORM_NOKILL=1 ;;
	revoke.unplug=*) export REVOKE_STORM_UNPLUG=${arg#revoke.unplug=} ;;
	# make stress: open/revoke/close cycles per target, kmemleak's
	# verdict required, trinity's seconds.
	revoke.cycles=*) export REVOKE_LEAK_CYCLES=${arg#revoke.cycles=} ;;
	revoke.kmemleak) export REVOKE_KMEMLEAK=1 ;;
	revoke.trinity=*) export REVOKE_TRINITY=${arg#revoke.trinity=} ;;
	esac
done

# Report a blocked task after 30 s instead of 120 s: a stuck test must show
# up in the log well before the host's timeout.
echo 30 >/proc/sys/kernel/hung_task_timeout_secs 2>/dev/null

echo "GUEST: $(uname -r), $(nproc) CPUs, mode $mode"

case $mode in
test)
	# The kselftest runner, as "make kselftest-install" installed it; each
	# test's limit is its settings file's timeout.  revoke.only=a,b: those.
	set -- ${timeout:+-o $timeout}
	for name in $(echo "$only" | tr , ' '); do
		set -- "$@" -t "revoke:$name"
	done
	echo "GUEST-KSELFTEST-BEGIN"
	/kselftest/run_kselftest.sh "$@"
	echo "GUEST-KSELFTEST-END rc=$?"
	;;
demo)
	/demo/demo.sh
	;;
shell)
	# make shell: the test guest, by hand.
	echo "GUEST: a shell on the console; /kselftest/run_kselftest.sh runs the"
	echo "GUEST: tests (they are in /kselftest/revoke), revoke(1) is /bin/revoke;"
	echo "GUEST: 'exit' powers the guest off (or Ctrl-A x)"
	cd /tmp && setsid cttyhack sh -l
	;;
bench)
	for b in /bench/*; do
		[ -x "$b" ] && "$b"
	done
	;;
esac

# Let pending printk output (late splats) reach the console.
sleep 1
echo "GUEST: done"
# -no-reboot makes QEMU exit on reset; there is no ACPI to power off.
reboot -f
