#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check: every stage in order.  Preparing and building must succeed for
# anything else to run; the test stages all run even if one fails.  Ends with
# one line "revoke: N passed, N failed" (KUnit cases, guest test cases and
# lint gates) and a non-zero status on any failure.
. "$(dirname "$0")/lib.sh"

start=$(date +%s)
rm -rf "$RESULTS"
# Without a tree and a kernel nothing can be tested: one failure.
fatal() {
	echo "$1 failed: nothing was tested"
	echo "revoke: 0 passed, 1 failed"
	exit 1
}
bash "$TOP/harness/deps.sh" || fatal "installing packages"
bash "$TOP/harness/prepare.sh" || fatal "preparing the tree"
bash "$TOP/harness/build.sh" test || fatal "building the kernel"

status=0
# The lint gates run beside the tests, at the lowest priority: they take
# the CPU time the QEMU guests leave (the guests sleep through much of
# their tests), and the guests, whose timeouts are wall-clock ones, get
# the CPU whenever they want it.  Nothing the tests write is read by the
# lint gates (own object directories; the test kernel's objects and
# headers only read).
mkdir -p "$LOGS"
lint_out=$LOGS/check-lint.txt
nice -n 19 bash "$TOP/harness/lint.sh" >"$lint_out" 2>&1 &
lint_pid=$!
bash "$TOP/harness/kunit.sh" || status=1
bash "$TOP/harness/guest.sh" test || status=1
wait "$lint_pid" || status=1
cat "$lint_out"

stage "summary ($(( $(date +%s) - start )) s)"
passed=0
failed=0
for s in lint kunit guest; do
	if [ -f "$RESULTS/$s" ]; then
		read -r p f <"$RESULTS/$s"
	else
		p=0 f=1
	fi
	info "$(printf '%-6s %4d passed, %4d failed' "$s" "$p" "$f")"
	passed=$((passed + p))
	failed=$((failed + f))
done
[ "$failed" = 0 ] || status=1
echo "revoke: $passed passed, $failed failed"
exit $status
