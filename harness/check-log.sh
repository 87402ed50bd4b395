#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check-log.sh LOG...: fail, quoting the lines, if a guest console log holds a
# kernel splat: lockdep or KASAN report, WARNING, BUG, Oops, panic, hung
# task, RCU stall, list corruption, a leaked file lock or any other stack
# dump.
. "$(dirname "$0")/lib.sh"

PATTERN='WARNING:|BUG:|Oops|Kernel panic|kernel BUG at|general protection fault|'\
'INFO: task .* blocked for more than|rcu: INFO:|detected stall|soft lockup|hard LOCKUP|'\
'possible circular locking|possible recursive locking|inconsistent lock state|'\
'suspicious RCU usage|UBSAN:|list_add corruption|list_del corruption|'\
'Call Trace:|---\[ end trace|refcount_t:|use-after-free|double-free|'\
'sleeping function called from invalid context|scheduling while atomic|'\
'Unable to handle|suspected memory leak|segfault at|Leaked (POSIX|FLOCK|LEASE) lock'

bad=0
for log in "$@"; do
	[ -f "$log" ] || die "no log $log"
	if grep -qE "$PATTERN" "$log"; then
		echo "kernel splat in $log:" >&2
		grep -nE "$PATTERN" "$log" | head -20 | sed 's/^/    /' >&2
		first=$(grep -nE "$PATTERN" "$log" | head -1 | cut -d: -f1)
		echo "    --- context:" >&2
		sed -n "$((first > 5 ? first - 5 : 1)),$((first + 40))p" "$log" | sed 's/^/    | /' >&2
		bad=1
	fi
done
exit $bad
