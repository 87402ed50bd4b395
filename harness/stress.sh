#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make stress: long revoke storms (storm_test) in the test kernel, which has
# lockdep, KASAN and the hung-task detector armed and preempts anywhere,
# once per CPU count.  STRESS_SECONDS (default 600) is the total time of
# the storms, shared between the CPU counts of STRESS_SMP (default "2 4")
# and the targets of STRESS_TARGETS (default all of storm_test's); ends
# with "stress: N passed, N failed" and fails on any failure or splat.
. "$(dirname "$0")/lib.sh"

total=${STRESS_SECONDS:-600}
smps=${STRESS_SMP:-2 4}
targets=${STRESS_TARGETS:-revoke_test,tmpfs,snd_ctl,evdev}
ntargets=$(echo "$targets" | tr , '\n' | grep -c .)
nsmp=$(echo $smps | wc -w)
per=$(( total / (nsmp * ntargets) ))
[ "$per" -ge 1 ] || die "STRESS_SECONDS=$total is too short for $nsmp x $ntargets storms"

passed=0 failed=0
for smp in $smps; do
	stage "stress: $ntargets targets x $per s, -smp $smp"
	set +e
	# The runner's limit for storm_test: its storms plus a margin.
	SMP=$smp GUEST_ONLY=storm_test BOOT_TIMEOUT=$(( per * ntargets + 600 )) \
		KERNEL_ARGS="revoke.storm=$per revoke.targets=$targets revoke.timeout=$(( per * ntargets + 300 ))" \
		bash "$TOP/harness/guest.sh" test
	set -e
	sed -n 's/^# # storm /    storm /p' "$LOGS/guest-test.log"
	cp "$LOGS/guest-test.log" "$LOGS/stress-smp$smp.log"
	read -r p f <"$RESULTS/guest" || { p=0 f=1; }
	passed=$((passed + p))
	failed=$((failed + f))
done
echo "stress: $passed passed, $failed failed"
[ "$failed" = 0 ]
