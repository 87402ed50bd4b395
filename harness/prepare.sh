#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prepare the kernel tree: Debian's pristine 6.12 source, plus the project's
# new files (the overlay), plus patches/series, plus the semantic patch.
#
# The pristine tree is unpacked once per package version.  The prepared tree
# is rebuilt in a hard-linked staging copy whenever the overlay, the series,
# the semantic patch or this script change; only files whose content changed
# are then copied into $TREE, so that an incremental kernel build recompiles
# just what the change touched.  Nothing here is ever committed.
. "$(dirname "$0")/lib.sh"

STAGE=$BUILD/src/stage
COCCI=scripts/coccinelle/revoke.cocci
COCCI_EXPECTED=$TOP/patches/cocci/revoke-cocci.diff
# Directories the semantic patch converts.
COCCI_DIRS="sound/core include/sound drivers/input"

# patched_files DIFF: the files a unified diff creates or changes.
patched_files() {
	sed -n -e 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$1"
}

stage "prepare: kernel tree"
command -v dpkg-query >/dev/null || die "dpkg-query not found (Debian host expected)"
pkgver=$(dpkg-query -W -f='${Version}' $KSRC_PKG 2>/dev/null) ||
	die "$KSRC_PKG is not installed (run harness/deps.sh)"
[ -f "$KSRC_TARBALL" ] || die "$KSRC_TARBALL missing"

mkdir -p "$BUILD/src"
if [ "$(cat "$PRISTINE.version" 2>/dev/null)" != "$pkgver" ]; then
	info "unpacking $KSRC_TARBALL ($pkgver)"
	rm -rf "$PRISTINE" "$PRISTINE.version" "$TREE" "$TREE.key" "$TREE.touched"
	mkdir -p "$PRISTINE"
	tar -C "$PRISTINE" --strip-components=1 -xf "$KSRC_TARBALL"
	echo "$pkgver" >"$PRISTINE.version"
fi

# Everything the prepared tree depends on.
key=$({
	echo "$pkgver"
	cat "$0"
	overlay_files | while read -r f; do
		echo "$f"
		cat "$TOP/$f"
	done
	series_patches | while read -r p; do
		echo "$p"
		cat "$TOP/patches/$p"
	done
	[ -f "$COCCI_EXPECTED" ] && cat "$COCCI_EXPECTED"
	[ -f "$TOP/$COCCI" ] && spatch --version 2>/dev/null | head -1
	true
} | sha256sum | cut -d' ' -f1)

kver=$(make -s -C "$PRISTINE" kernelversion)
if [ -d "$TREE" ] && [ "$(cat "$TREE.key" 2>/dev/null)" = "$key" ]; then
	info "up to date: Linux $kver from $KSRC_PKG $pkgver"
	exit 0
fi

rm -rf "$STAGE" "$BUILD/rejects"
cp -al "$PRISTINE" "$STAGE"
touched=$BUILD/src/touched.new
: >"$touched"

# 1. The overlay: new files only.  An upstream file must be changed by a
#    patch of the series, never replaced by a copy.
n=0
while read -r f; do
	if [ -e "$PRISTINE/$f" ]; then
		die "overlay file $f exists upstream; change it with a patch in patches/"
	fi
	mkdir -p "$STAGE/$(dirname "$f")"
	cp "$TOP/$f" "$STAGE/$f"
	echo "$f" >>"$touched"
	n=$((n + 1))
done < <(overlay_files)
info "overlay: $n new files"

# 2. The series.  GNU patch writes a new file and renames it, so the hard
#    links to the pristine tree are broken, never written through.
n=0
while read -r p; do
	[ -f "$TOP/patches/$p" ] || die "patches/series names missing patch $p"
	mkdir -p "$BUILD/rejects"
	if ! out=$(patch -d "$STAGE" -p1 -N -s --fuzz=0 --no-backup-if-mismatch \
		       -r "$BUILD/rejects/$p.rej" <"$TOP/patches/$p" 2>&1); then
		printf '%s\n' "$out" >&2
		[ -s "$BUILD/rejects/$p.rej" ] && cat "$BUILD/rejects/$p.rej" >&2
		die "patch $p does not apply to $KSRC_PKG $pkgver"
	fi
	patched_files "$TOP/patches/$p" >>"$touched"
	n=$((n + 1))
done < <(series_patches)
info "series: $n patches applied"

# 3. The semantic patch converts the drivers; its output on this tree must be
#    the reviewed result kept in patches/cocci/.
if [ -f "$TOP/$COCCI" ]; then
	command -v spatch >/dev/null || die "spatch not found (coccinelle)"
	mkdir -p "$BUILD/cocci"
	out=$BUILD/cocci/revoke-cocci.diff
	# --use-coccigrep: spatch would otherwise ask git (the project's own
	# repository, which ignores build/) which files to look at.
	: >"$BUILD/cocci/spatch.log"
	# run_spatch OUT: the semantic patch's diff of $STAGE, in $COCCI_DIRS.
	run_spatch() {
		local d
		: >"$1"
		for d in $COCCI_DIRS; do
			(cd "$STAGE" && spatch --very-quiet --sp-file "$TOP/$COCCI" \
				-D patch --no-includes --include-headers \
				--use-coccigrep --patch . --dir "$d" \
				--jobs "$JOBS" --chunksize 1) >>"$1" \
				2>>"$BUILD/cocci/spatch.log" ||
				{ cat "$BUILD/cocci/spatch.log" >&2; die "spatch failed on $d"; }
		done
	}
	run_spatch "$out.raw"
	# Stable, reviewable form: file order and the a/ b/ prefixes.
	python3 "$TOP/harness/normdiff.py" <"$out.raw" >"$out"
	if [ ! -f "$COCCI_EXPECTED" ]; then
		die "no $COCCI_EXPECTED: review $out and copy it there"
	fi
	# A point release of the base moves the converted code: the same
	# changes at other lines are no drift.
	no_lines() {
		sed -E 's/^@@ -[0-9]+(,[0-9]+)? \+[0-9]+(,[0-9]+)? @@/@@/' "$1"
	}
	if cmp -s "$out" "$COCCI_EXPECTED"; then
		:
	elif cmp -s <(no_lines "$out") <(no_lines "$COCCI_EXPECTED"); then
		info "semantic patch: the base moved; the same changes at other lines (see $out)"
	else
		diff -u <(no_lines "$COCCI_EXPECTED") <(no_lines "$out") | head -60 >&2
		die "semantic patch output drifted from patches/cocci/revoke-cocci.diff (new output: $out)"
	fi
	patch -d "$STAGE" -p1 -N -s --fuzz=0 --no-backup-if-mismatch <"$out" ||
		die "semantic patch output does not apply"
	# Converted code must be a fixed point: a second run changes nothing.
	run_spatch "$out.again"
	if [ -s "$out.again" ]; then
		head -40 "$out.again" >&2
		die "the semantic patch changes its own output again (see $out.again)"
	fi
	patched_files "$out" >>"$touched"
	info "semantic patch: $(grep -c '^+++ ' "$out") files converted"
else
	info "semantic patch: $COCCI not present yet, skipped"
fi

# 4. Move the result into $TREE, touching only files whose content changed.
if [ ! -d "$TREE" ]; then
	mv "$STAGE" "$TREE"
	sort -u "$touched" >"$TREE.touched"
else
	sort -u "$touched" "$TREE.touched" 2>/dev/null >"$touched.all"
	changed=0
	while read -r f; do
		if [ -e "$STAGE/$f" ]; then
			if ! cmp -s "$STAGE/$f" "$TREE/$f"; then
				mkdir -p "$TREE/$(dirname "$f")"
				cp --remove-destination "$STAGE/$f" "$TREE/$f"
				changed=$((changed + 1))
			fi
		elif [ -e "$TREE/$f" ]; then
			rm -f "$TREE/$f"
			changed=$((changed + 1))
		fi
	done <"$touched.all"
	sort -u "$touched" >"$TREE.touched"
	rm -rf "$STAGE" "$touched.all"
	info "updated $changed files in the prepared tree"
fi
rm -f "$touched"
echo "$key" >"$TREE.key"
info "Linux $kver from $KSRC_PKG $pkgver"
