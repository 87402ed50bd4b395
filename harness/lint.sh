#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Lint gates.  On the project's own files (the overlay and the patches):
# checkpatch --strict, kernel-doc -none -Wall, the documentation pages
# (Sphinx, failing on warnings) and the manual pages (groff -ww), sparse
# (make C=2 with CF=-Wsparse-error) and a W=1 build.  On upstream files that the series or
# the semantic patch changes: no sparse or W=1 warning that the pristine tree
# does not have, and compile with CONFIG_REVOKE=n without a framework
# symbol.  The series formats for posting.  Each gate counts as one check in the closing summary.
. "$(dirname "$0")/lib.sh"

OBJ_LINT=$BUILD/obj/lint
OBJ_LINT_PRISTINE=$BUILD/obj/lint-pristine
[ -d "$TREE" ] || die "no prepared tree; run harness/prepare.sh"
[ -f "$OBJ_TEST/.config" ] || die "no test .config; run harness/build.sh"
mkdir -p "$LOGS"

passed=0
failed=0
# gate NAME STATUS OUTPUT_FILE
gate() {
	if [ "$2" = 0 ]; then
		info "PASS $1"
		passed=$((passed + 1))
	else
		info "FAIL $1"
		sed 's/^/        /' "$3" | head -40 || true
		failed=$((failed + 1))
	fi
}

stage "lint: project files"
cfiles=$(overlay_files | grep -E '\.[ch]$' || true)
kfiles=$(printf '%s\n' $cfiles | grep -v '^tools/' || true)

# checkpatch --strict: every new C file and every patch of the series,
# $JOBS at a time.  A commit that only adds files is checked through them.
log=$LOGS/lint-checkpatch.log
cp_dir=$LOGS/checkpatch
rm -rf "$cp_dir"
mkdir -p "$cp_dir"
{
	for f in $cfiles; do
		printf -- '-f\t%s\n' "$f"
	done
	series_patches | while read -r p; do
		grep -q '^diff --git ' "$TOP/patches/$p" && printf -- '-\t%s\n' "$TOP/patches/$p"
	done
} | (cd "$TREE" && xargs -d '\n' -P "$JOBS" -n 1 sh -c '
	mode=${1%%	*} f=${1#*	}
	out=$0/$(printf %s "$f" | tr / _).log
	if [ "$mode" = -f ]; then
		./scripts/checkpatch.pl --strict --quiet --show-types -f "$f"
	else
		./scripts/checkpatch.pl --strict --quiet --show-types "$f"
	fi >"$out" 2>&1 || echo "$f" >>"$0/failed"' "$cp_dir")
cat "$cp_dir"/*.log >"$log" 2>/dev/null || true
st=0
[ -e "$cp_dir/failed" ] && st=1
gate "checkpatch --strict ($(printf '%s\n' $cfiles | grep -c . || true) files, $(series_patches | grep -c . || true) patches)" $st "$log"

# kernel-doc on the kernel-side files.
log=$LOGS/lint-kernel-doc.log
: >"$log"
for f in $kfiles; do
	(cd "$TREE" && ./scripts/kernel-doc -none -Wall "$f") >>"$log" 2>&1
done
st=0
[ -s "$log" ] && st=1
gate "kernel-doc -none -Wall ($(printf '%s\n' $kfiles | grep -c . || true) files)" $st "$log"

# The documentation: the pages in a Sphinx build that fails on warnings,
# the manual pages under groff -ww.
log=$LOGS/lint-sphinx.log
st=0
bash "$TOP/harness/docs.sh" sphinx "$log" || st=1
gate "sphinx-build -W (driver-api, userspace-api and vfs.rst pages)" $st "$log"
log=$LOGS/lint-man.log
st=0
bash "$TOP/harness/docs.sh" man "$log" || st=1
gate "groff -ww -z -man (revoke.1, revokeat.2)" $st "$log"

# The kselftest packaging: the programs build with the selftests' own
# lib.mk, without a warning (the guest still builds its copies with
# harness/guest.sh).
log=$LOGS/lint-kselftest.log
st=0
rm -rf "$BUILD/obj/kselftest"
make -C "$TREE/tools/testing/selftests" TARGETS=revoke O="$BUILD/obj/kselftest" \
	KHDR_INCLUDES="-isystem $OBJ_TEST/usr/include" USERLDFLAGS=-static >"$log" 2>&1 || st=1
grep -q 'warning:' "$log" && st=1
[ -x "$BUILD/obj/kselftest/kselftest/revoke/tool_test" ] || st=1
gate "selftests build: make -C tools/testing/selftests TARGETS=revoke" $st "$log"

# lint_build OBJDIR SRCTREE TARGETS...: sparse and W=1 on single objects in
# a build directory configured like the test kernel.
lint_build() {
	local obj=$1 src=$2
	shift 2
	mkdir -p "$obj"
	if ! cmp -s "$OBJ_TEST/.config" "$obj/.config.src" 2>/dev/null; then
		cp "$OBJ_TEST/.config" "$obj/.config"
		cp "$OBJ_TEST/.config" "$obj/.config.src"
		make -C "$src" O="$obj" ARCH=$ARCH olddefconfig >/dev/null
	fi
	make -C "$src" O="$obj" ARCH=$ARCH CC="$KCC" -j"$JOBS" W=1 C=2 \
		CF="${CF:-}" "$@" 2>&1
}

# A test file #included by its subject (fs/tests/*_kunit.c, as upstream
# does) is checked as part of the including object.
objs=$(printf '%s\n' $kfiles | grep '\.c$' | grep -v '^scripts/' |
	grep -v '^fs/tests/' | sed 's/\.c$/.o/' || true)
log=$LOGS/lint-build.log
if [ -n "$objs" ]; then
	# shellcheck disable=SC2086
	CF=-Wsparse-error lint_build "$OBJ_LINT" "$TREE" $objs >"$log" || true
	st=0
	grep -qE 'warning:|error:|Error [0-9]' "$log" && st=1
	grep -E 'warning:|error:|Error [0-9]' "$log" >"$log.bad" || true
	gate "sparse (C=2, -Wsparse-error) and W=1 on $(printf '%s\n' $objs | grep -c .) objects" $st "$log.bad"
fi

# Upstream files the series or the semantic patch changes: compare with the
# pristine tree, ignoring line numbers (patches move code).
stage "lint: upstream files changed"
upstream=$(touched_files | grep -E '\.c$' | while read -r f; do
	[ -f "$PRISTINE/$f" ] && echo "${f%.c}.o"
done || true)
# Files that are not built in the test config cannot be checked.
built=
for o in $upstream; do
	[ -f "$OBJ_TEST/$o" ] && built="$built $o"
done
if [ -n "$built" ]; then
	# Compare "file: message", without the tree's path and line numbers.
	norm() {
		grep -E ': (warning|error):' |
			sed -E "s#^($TREE|$PRISTINE)/##; s/:[0-9]+:[0-9]+:/:/; s/:[0-9]+:/:/" |
			sort
	}
	# shellcheck disable=SC2086
	lint_build "$OBJ_LINT" "$TREE" $built | norm >"$LOGS/lint-upstream-new.txt" || true
	# shellcheck disable=SC2086
	lint_build "$OBJ_LINT_PRISTINE" "$PRISTINE" $built | norm >"$LOGS/lint-upstream-old.txt" || true
	comm -13 "$LOGS/lint-upstream-old.txt" "$LOGS/lint-upstream-new.txt" >"$LOGS/lint-upstream.diff"
	st=0
	[ -s "$LOGS/lint-upstream.diff" ] && st=1
	gate "no new sparse/W=1 warnings in $(echo $built | wc -w) changed upstream files" $st "$LOGS/lint-upstream.diff"
else
	info "no changed upstream C file is built"
fi

# The tip without the framework: every upstream file that the series or
# the semantic patch changes compiles without a warning in the test
# configuration with CONFIG_REVOKE off, and none of them references a
# symbol that only the framework's objects define (the link would fail).
# make series-check links a CONFIG_REVOKE=n kernel of configs/small.config
# and builds every commit of the series.
stage "lint: CONFIG_REVOKE=n and the series"
OBJ_LINT_OFF=$BUILD/obj/lint-off
log=$LOGS/lint-revoke-off.log
st=0
mkdir -p "$OBJ_LINT_OFF"
if ! cmp -s "$OBJ_TEST/.config" "$OBJ_LINT_OFF/.config.src" 2>/dev/null; then
	cp "$OBJ_TEST/.config" "$OBJ_LINT_OFF/.config"
	"$TREE/scripts/config" --file "$OBJ_LINT_OFF/.config" --disable REVOKE
	kmake "$OBJ_LINT_OFF" olddefconfig >/dev/null
	cp "$OBJ_TEST/.config" "$OBJ_LINT_OFF/.config.src"
fi
{
	if grep -q '^CONFIG_REVOKE=y' "$OBJ_LINT_OFF/.config"; then
		echo "CONFIG_REVOKE is still set after olddefconfig"
		false
	fi &&
	# shellcheck disable=SC2086
	kmake "$OBJ_LINT_OFF" $built
} >"$log" 2>&1 || st=1
grep ': warning:' "$log" >/dev/null && st=1
fw_objs=$(printf '%s\n' $kfiles | grep '\.c$' | sed 's/\.c$/.o/' | while read -r o; do
	[ -f "$OBJ_TEST/$o" ] && echo "$OBJ_TEST/$o"
done || true)
# shellcheck disable=SC2086
nm -g --defined-only $fw_objs 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u >"$LOGS/lint-off-fw.syms"
for o in $built; do
	[ -f "$OBJ_LINT_OFF/$o" ] || { echo "$o: not built" >>"$log"; st=1; continue; }
	nm -u "$OBJ_LINT_OFF/$o" | awk '{ print $2 }' | sort -u |
		comm -12 - "$LOGS/lint-off-fw.syms" | sed "s#^#$o: undefined without CONFIG_REVOKE: #"
done >>"$log"
grep -q 'undefined without' "$log" && st=1
[ -s "$LOGS/lint-off-fw.syms" ] || { echo "no framework symbols found" >>"$log"; st=1; }
gate "CONFIG_REVOKE=n: $(echo $built | wc -w) changed upstream files compile, no warning, no framework symbol" $st "$log"

# The series as posted: format-patch, cover letter, get_maintainer.pl.
log=$LOGS/lint-series.log
st=0
bash "$TOP/harness/series.sh" format >"$log" 2>&1 || st=1
[ "$(find "$BUILD/series" -name '0*.patch' 2>/dev/null | wc -l)" = \
	$(( $(series_patches | wc -l) + 1 )) ] || st=1
grep -q '^To: ' "$BUILD/series/0001-"*.patch 2>/dev/null || st=1
gate "make series: $(series_patches | wc -l) patches, cover letter, To/Cc" $st "$log"

# A point release of linux-source-6.12 moves the code the semantic patch
# converts.  Simulate one (blank lines at the top of every file it
# converts): the preparation's comparison must say that the base moved and
# accept the output, and still refuse a change in substance.
moved=$BUILD/cocci-moved
log=$LOGS/lint-moved-base.log
rm -rf "$moved"
mkdir -p "$moved/src"
: >"$log"
# shellcheck disable=SC2086
git -C "$TREE" archive pristine -- $COCCI_DIRS | tar -x -C "$moved/src"
sed -n 's#^+++ b/##p' "$COCCI_EXPECTED" | while read -r f; do
	sed -i '1s/^/\n\n\n/' "$moved/src/$f"
done
st=0
# shellcheck disable=SC2086
if ! cocci_spatch "$moved/src" $COCCI_DIRS >"$moved/out.diff" 2>>"$log"; then
	st=1
elif cmp -s "$moved/out.diff" "$COCCI_EXPECTED"; then
	echo "the simulated point release did not move the hunks" >>"$log"
	st=1
elif ! cocci_compare "$moved/out.diff" >"$moved/said" 2>>"$log" ||
	! grep -q 'the base moved' "$moved/said"; then
	echo "the moved output was not accepted as moved" >>"$log"
	st=1
else
	cat "$moved/said" >>"$log"
	# One added line changed: drift, which must fail.
	awk '!done && /^\+[^+]/ { print $0 " /* changed */"; done = 1; next } { print }' \
		"$moved/out.diff" >"$moved/changed.diff"
	if cocci_compare "$moved/changed.diff" >/dev/null 2>&1; then
		echo "a change in substance was accepted" >>"$log"
		st=1
	fi
fi
gate "semantic patch on a simulated point release: base moved and accepted, a real change refused" $st "$log"

record lint "$passed" "$failed"
info "lint: $passed passed, $failed failed"
[ "$failed" = 0 ]
