# SPDX-License-Identifier: GPL-2.0
# Shared settings and helpers of the revoke build/boot/test harness.
# Sourced by the other harness scripts; not meant to be run.

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
JOBS=${JOBS:-$(nproc)}

KSRC_PKG=linux-source-6.12
KSRC_TARBALL=/usr/src/linux-source-6.12.tar.xz

PRISTINE=$BUILD/src/pristine		# unpacked package, never modified
TREE=$BUILD/src/linux			# git: pristine, then the series' commits
OBJ_TEST=$BUILD/obj/test		# lockdep + KASAN + KUnit kernel
OBJ_BENCH=$BUILD/obj/bench		# non-debug kernel for benchmarks
OBJ_BENCH_OFF=$BUILD/obj/bench-off	# the same with CONFIG_REVOKE off
OBJ_SMALL_OFF=$BUILD/obj/small-off	# configs/small.config, CONFIG_REVOKE off
LOGS=$BUILD/logs
RESULTS=$BUILD/results
GUEST=$BUILD/guest

# Kernel directories whose tracked files in this repository are new kernel
# files, copied into the prepared tree at the same path.
OVERLAY_DIRS="Documentation drivers fs include kernel lib mm scripts sound tools"

# Debian's tools first: a python3 of pyenv or a virtualenv earlier on PATH
# lacks the packages deps.sh installs (checkpatch runs spdxcheck.py, which
# needs python3-ply and python3-git, in a git tree).
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
export ARCH=x86_64
export KBUILD_BUILD_USER=revoke KBUILD_BUILD_HOST=ci
# Set, even empty: the prepared tree is a git repository, and
# scripts/setlocalversion would otherwise append "+" to the release.
export LOCALVERSION=
export KBUILD_BUILD_TIMESTAMP="Thu Jan  1 00:00:00 UTC 2026"

if command -v ccache >/dev/null 2>&1; then
	KCC="ccache gcc"
else
	KCC=gcc
fi

stage() { printf '\n=== %s\n' "$*"; }
info() { printf '    %s\n' "$*"; }
die() { printf 'ERROR: %s\n' "$*" >&2; exit 1; }

# kmake OBJDIR [make args...]: make in the prepared tree, out of tree.
kmake() {
	local obj=$1
	shift
	make -C "$TREE" O="$obj" ARCH=$ARCH CC="$KCC" HOSTCC=gcc -j"$JOBS" "$@"
}

# record STAGE PASSED FAILED: counts for the closing summary line.
record() {
	mkdir -p "$RESULTS"
	printf '%s %s\n' "$2" "$3" >"$RESULTS/$1"
}

# Files of the project that are kernel files (the overlay), tracked or new.
overlay_files() {
	(cd "$TOP" && git ls-files --cached --others --exclude-standard -- $OVERLAY_DIRS) |
		sort -u | while read -r f; do
			[ -f "$TOP/$f" ] && printf '%s\n' "$f"
		done
}

# Patches of the series, in order (patches/series; the indented lines under
# a patch name the new files of its commit).
series_patches() {
	[ -f "$TOP/patches/series" ] || return 0
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$TOP/patches/series" |
		grep -v -e '^$' -e '^[[:space:]]' || true
}

# Identity and date of the prepared tree's first commit (the pristine
# source), fixed so that its hash, the series' base, is the same everywhere.
PRISTINE_IDENT="Debian $KSRC_PKG <linux-source@packages.debian.org>"
PRISTINE_DATE="2026-01-01T00:00:00+0000"

# Files of the prepared tree that the series changes or adds.
touched_files() {
	git -C "$TREE" diff --name-only pristine HEAD
}

# The semantic patch, the directories it converts, and its reviewed output
# on the base (tree preparation checks every run against it).
COCCI=scripts/coccinelle/revoke.cocci
COCCI_EXPECTED=$TOP/patches/cocci/revoke-cocci.diff
COCCI_DIRS="sound/core include/sound drivers/input"

# cocci_spatch SRC DIR...: the semantic patch's diff of DIR... in the tree
# SRC, normalised by normdiff.py (file order, a/ b/ prefixes), on stdout;
# spatch's messages go to $BUILD/cocci/spatch.log.  --use-coccigrep:
# spatch would otherwise ask git which files to look at.  spatch died once
# here on sound/core ("<no Python frame>", from its embedded Python) and
# not in ten runs since: a failed directory is run once more.
cocci_spatch() {
	local src=$1 d try raw
	shift
	mkdir -p "$BUILD/cocci"
	raw=$(mktemp)
	: >"$BUILD/cocci/spatch.log"
	for d in "$@"; do
		for try in 1 2; do
			(cd "$src" && spatch --very-quiet --sp-file "$TOP/$COCCI" \
				-D patch --no-includes --include-headers \
				--use-coccigrep --patch . --dir "$d" \
				--jobs "$JOBS" --chunksize 1) </dev/null >"$raw.$try" \
				2>>"$BUILD/cocci/spatch.log" && break
			if [ "$try" = 2 ]; then
				cat "$BUILD/cocci/spatch.log" >&2
				rm -f "$raw" "$raw".[12]
				echo "spatch failed on $d" >&2
				return 1
			fi
			info "spatch failed on $d ($(grep -m1 -E 'Fatal|rror' "$BUILD/cocci/spatch.log" || echo "no message")); once more" >&2
		done
		cat "$raw.$try" >>"$raw"
		rm -f "$raw".[12]
	done
	python3 "$TOP/harness/normdiff.py" <"$raw"
	rm -f "$raw"
}

# cocci_compare OUT: is OUT, a cocci_spatch output, the reviewed one?
# A point release of the base moves the converted code: the same changes
# at other lines are no drift (said on stdout).  Returns 0 if so, 1 and
# the difference on stderr if not.
cocci_compare() {
	no_lines() {
		sed -E 's/^@@ -[0-9]+(,[0-9]+)? \+[0-9]+(,[0-9]+)? @@/@@/' "$1"
	}
	if cmp -s "$1" "$COCCI_EXPECTED"; then
		return 0
	elif cmp -s <(no_lines "$1") <(no_lines "$COCCI_EXPECTED"); then
		info "semantic patch: the base moved; the same changes at other lines (see $1)"
		return 0
	fi
	diff -u <(no_lines "$COCCI_EXPECTED") <(no_lines "$1") | head -60 >&2
	return 1
}
