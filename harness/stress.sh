#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make stress: long revoke storms (storm_test) in the test kernel, which has
# lockdep, KASAN and the hung-task detector armed and preempts anywhere,
# once per CPU count, booted with kmemleak on.  STRESS_SECONDS (default
# 600) is the total time of the storms, shared between the CPU counts of
# STRESS_SMP (default "2 4") and the targets of STRESS_TARGETS (default
# all of storm_test's).  Each boot then runs a kmemleak scan, which must
# report nothing; the first also runs STRESS_CYCLES (default 1000)
# open/revoke/close cycles per target and trinity for STRESS_TRINITY
# seconds (default 120; 0: none).  Ends with "stress: N passed, N failed" and
# fails on any failure or splat.
. "$(dirname "$0")/lib.sh"

total=${STRESS_SECONDS:-600}
smps=${STRESS_SMP:-2 4}
targets=${STRESS_TARGETS:-revoke_test,tmpfs,ext4,snd_ctl,snd_pcm,snd_aloop,evdev}
cycles=${STRESS_CYCLES:-1000}
trinity=${STRESS_TRINITY:-120}
ntargets=$(echo "$targets" | tr , '\n' | grep -c .)
nsmp=$(echo $smps | wc -w)
per=$(( total / (nsmp * ntargets) ))
[ "$per" -ge 1 ] || die "STRESS_SECONDS=$total is too short for $nsmp x $ntargets storms"

passed=0 failed=0
for smp in $smps; do
	stage "stress: $ntargets targets x $per s, -smp $smp, $cycles cycles, trinity ${trinity} s"
	# The runner's limit for storm_test: its parts plus a margin (a
	# cycle of the five targets takes about a second, a kmemleak scan a
	# minute).
	limit=$(( per * ntargets + cycles * 2 + trinity + 600 ))
	set +e
	SMP=$smp GUEST_ONLY=storm_test BOOT_TIMEOUT=$(( limit + 300 )) \
		KERNEL_ARGS="kmemleak=on revoke.kmemleak revoke.storm=$per revoke.targets=$targets revoke.cycles=$cycles revoke.trinity=$trinity revoke.timeout=$limit" \
		bash "$TOP/harness/guest.sh" test
	set -e
	sed -n 's/^# # \(storm\|cycles\|kmemleak: [0-9]\|trinity\)/    \1/p' "$LOGS/guest-test.log"
	cp "$LOGS/guest-test.log" "$LOGS/stress-smp$smp.log"
	read -r p f <"$RESULTS/guest" || { p=0 f=1; }
	passed=$((passed + p))
	failed=$((failed + f))
	trinity=0
	cycles=0
done
echo "stress: $passed passed, $failed failed"
[ "$failed" = 0 ]
