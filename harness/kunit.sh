#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the KUnit suites built into the test kernel through the tree's own
# kunit.py (exec: the kernel is already built by harness/build.sh), under
# QEMU with kunit/qemu_x86_64.py, and count the cases.
. "$(dirname "$0")/lib.sh"

stage "kunit: suites under QEMU"
[ -f "$OBJ_TEST/arch/x86/boot/bzImage" ] || die "no test kernel; run harness/build.sh"
mkdir -p "$LOGS"
json=$LOGS/kunit.json
rm -f "$json"
set +e
(cd "$TREE" && python3 tools/testing/kunit/kunit.py exec --arch=x86_64 \
	--build_dir="$OBJ_TEST" --kunitconfig="$TOP/kunit/.kunitconfig" \
	--qemu_config="$TOP/kunit/qemu_x86_64.py" --timeout=900 \
	--json="$json" ${KUNIT_FILTER:+"$KUNIT_FILTER"}) >"$LOGS/kunit.txt" 2>&1
rc=$?
set -e
cp "$OBJ_TEST/test.log" "$LOGS/kunit-console.log" 2>/dev/null || true
sed -n -e '/^\[..:..:..\] =/p' -e '/FAILED\|CRASHED\|Testing complete\|Error\|error:/p' \
	"$LOGS/kunit.txt" | sed 's/^/    /'
read -r passed failed < <(python3 "$TOP/harness/kunit-count.py" "$json" 2>/dev/null || echo "0 1")
splat=0
bash "$TOP/harness/check-log.sh" "$LOGS/kunit-console.log" || splat=1
[ "$splat" = 0 ] || failed=$((failed + 1))
# kunit/qemu_x86_64.py gives the guest two CPUs, for the race cases.
if ! grep -q 'smp: Brought up .*, 2 CPUs$' "$LOGS/kunit-console.log"; then
	echo "    the KUnit guest did not bring up its 2 CPUs: $(grep -o 'smp: Brought up.*' "$LOGS/kunit-console.log" || echo '?')" >&2
	failed=$((failed + 1))
fi
if [ "$passed" = 0 ] && [ "$failed" = 0 ]; then
	echo "    no KUnit case ran" >&2
	failed=1
fi
record kunit "$passed" "$failed"
info "kunit: $passed passed, $failed failed"
[ "$rc" = 0 ] && [ "$failed" = 0 ]
