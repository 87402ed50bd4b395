#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot.sh KERNEL INITRAMFS LOG MODE [qemu args...]: boot the guest under
# QEMU (TCG, no KVM here) with a hard timeout, console to LOG.
. "$(dirname "$0")/lib.sh"

kernel=$1 initrd=$2 log=$3 mode=$4
shift 4
timeout=${BOOT_TIMEOUT:-900}

append="console=ttyS0 panic=-1 revoke.mode=$mode snd_dummy.pcm_substreams=1 ${KERNEL_ARGS:-}"

set +e
timeout -s KILL "$timeout" qemu-system-x86_64 -nodefaults -no-reboot -nographic \
	-machine pc -m 1024 -smp "${SMP:-2}" "$@" \
	-serial stdio -monitor none \
	-kernel "$kernel" -initrd "$initrd" -append "$append" </dev/null 2>&1 |
	sed -u 's/\r$//' >"$log"
rc=${PIPESTATUS[0]}
set -e
if [ "$rc" = 137 ]; then
	echo "guest timed out after $timeout s (log: $log)" >&2
	exit 1
fi
if ! grep -q '^GUEST: done' "$log"; then
	tail -30 "$log" >&2
	echo "guest did not finish (qemu rc=$rc, log: $log)" >&2
	exit 1
fi
# The race tests mean nothing on one CPU: the guest must run on as many
# as it was given (a kernel without ACPI sees only QEMU's boot CPU).
want=${SMP:-2}
got=$(sed -n 's/.*smp: Brought up [0-9]* nodes*, \([0-9]*\) CPUs*$/\1/p' "$log" | head -1)
if [ "$got" != "$want" ]; then
	echo "the guest was given $want CPUs but brought up ${got:-no} (log: $log)" >&2
	exit 1
fi
