#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prepare the kernel tree: a git repository whose first commit, tagged
# "pristine", is Debian's 6.12 source, followed by the series, one commit per
# entry of patches/series on branch "revoke", checked out.
#
# An entry of patches/series names a patch: its author, date and message, and
# its changes to upstream files.  The indented lines under it name the new
# files its commit adds, taken from this repository at the same path (a
# directory stands for every file under it), or "cocci DIR..." for the
# semantic patch's output in those directories.  Every new file of this
# repository (the overlay) belongs to exactly one commit.
#
# The commits are made without a work tree (a private index), with the
# patches' identities and dates, so that the same inputs give the same
# hashes on every machine.  The pristine commit is made once per package
# version; the series is remade whenever the overlay, the series, the
# semantic patch or this script change, and checking it out rewrites only
# the files whose content changed, so an incremental kernel build recompiles
# just what the change touched.  Nothing here is ever committed.
. "$(dirname "$0")/lib.sh"

stage "prepare: kernel tree"
command -v dpkg-query >/dev/null || die "dpkg-query not found (Debian host expected)"
command -v git >/dev/null || die "git not found (run harness/deps.sh)"
pkgver=$(dpkg-query -W -f='${Version}' $KSRC_PKG 2>/dev/null) ||
	die "$KSRC_PKG is not installed (run harness/deps.sh)"
[ -f "$KSRC_TARBALL" ] || die "$KSRC_TARBALL missing"

mkdir -p "$BUILD/src"
if [ "$(cat "$PRISTINE.version" 2>/dev/null)" != "$pkgver" ]; then
	info "unpacking $KSRC_TARBALL ($pkgver)"
	rm -rf "$PRISTINE" "$PRISTINE.version" "$TREE" "$TREE.key" "$TREE.version"
	mkdir -p "$PRISTINE"
	tar -C "$PRISTINE" --strip-components=1 -xf "$KSRC_TARBALL"
	echo "$pkgver" >"$PRISTINE.version"
fi
kver=$(make -s -C "$PRISTINE" kernelversion)

# g ARGS: git in the prepared tree, never asking about the user's settings;
# no automatic gc, which would pack the ~90000 loose objects of the pristine
# commit in the background while the kernel builds.
g() {
	git -C "$TREE" -c core.autocrlf=false -c core.safecrlf=false \
		-c advice.detachedHead=false -c gc.auto=0 "$@"
}

# The pristine commit.  A copy, not hard links: git replaces the files it
# checks out, but an editor or a script that writes a file of the tree in
# place would change the pristine file too, which the lint's comparison
# with pristine builds and the semantic patch's input rely on.
if [ "$(cat "$TREE.version" 2>/dev/null)" != "$pkgver" ] || ! g rev-parse -q --verify pristine >/dev/null; then
	info "committing the pristine tree (Linux $kver, $KSRC_PKG $pkgver)"
	rm -rf "$TREE" "$TREE.key" "$TREE.version"
	cp -a --reflink=auto "$PRISTINE" "$TREE"
	g init -q -b revoke
	# -f: the tree's own .gitignore would leave out some of its files.
	g add -A -f
	GIT_AUTHOR_NAME=${PRISTINE_IDENT% <*} GIT_AUTHOR_EMAIL=linux-source@packages.debian.org \
	GIT_COMMITTER_NAME=${PRISTINE_IDENT% <*} GIT_COMMITTER_EMAIL=linux-source@packages.debian.org \
	GIT_AUTHOR_DATE=$PRISTINE_DATE GIT_COMMITTER_DATE=$PRISTINE_DATE \
		g commit -q --no-verify --no-gpg-sign \
		-m "Linux $kver" -m "Debian's $KSRC_PKG $pkgver, as unpacked from $KSRC_TARBALL."
	g tag pristine
	echo "$pkgver" >"$TREE.version"
fi

# Everything the series depends on.
key=$({
	g rev-parse pristine
	cat "$0" "$TOP/harness/lib.sh" "$TOP/harness/normdiff.py"
	cat "$TOP/patches/series"
	overlay_files | while read -r f; do
		echo "$f"
		cat "$TOP/$f"
	done
	series_patches | while read -r p; do
		echo "$p"
		cat "$TOP/patches/$p" 2>/dev/null
	done
	[ -f "$COCCI_EXPECTED" ] && cat "$COCCI_EXPECTED"
	spatch --version 2>/dev/null | head -1
	true
} | sha256sum | cut -d' ' -f1)

if [ "$(cat "$TREE.key" 2>/dev/null)" = "$key" ] && g rev-parse -q --verify revoke >/dev/null; then
	# An edit of the tree that was not exported would be built and tested
	# as if it were the series: say so instead.
	dirty=$(g status --porcelain --untracked-files=no | head -5)
	[ -z "$dirty" ] || die "the prepared tree has changes that are not in patches/:
$dirty
commit them and run harness/export-patches.sh, or discard them (git -C $TREE checkout -f)"
	info "up to date: Linux $kver from $KSRC_PKG $pkgver, $(g rev-list --count pristine..revoke) commits"
	exit 0
fi
rm -f "$TREE.key"

work=$BUILD/src/series.tmp
rm -rf "$work" "$BUILD/rejects"
mkdir -p "$work"
overlay_files >"$work/overlay"
export GIT_INDEX_FILE=$work/index
g read-tree pristine
head=$(g rev-parse pristine)

claimed=$work/claimed
: >"$claimed"

# add_new PATH: stage the overlay files at PATH (a file, or a directory).
add_new() {
	local path=${1%/} f n=0 blob mode
	while read -r f; do
		if [ "$f" != "$path" ] && [ "${f#"$path"/}" = "$f" ]; then
			continue
		fi
		grep -qxF "$f" "$claimed" && die "patches/series: $f is added by two commits"
		g cat-file -e "pristine:$f" 2>/dev/null &&
			die "overlay file $f exists upstream; change it with a patch in patches/"
		blob=$(g hash-object -w -- "$TOP/$f")
		mode=100644
		[ -x "$TOP/$f" ] && mode=100755
		g update-index --add --cacheinfo "$mode,$blob,$f"
		echo "$f" >>"$claimed"
		n=$((n + 1))
	done <"$work/overlay"
	[ "$n" -gt 0 ] || die "patches/series: no file of this repository at $path"
}

# run_cocci: the semantic patch's output on the tree as staged now, checked
# against the reviewed patches/cocci/revoke-cocci.diff, in $work/cocci.diff.
run_cocci() {
	local src=$work/cocci-src out=$BUILD/cocci/revoke-cocci.diff
	command -v spatch >/dev/null || die "spatch not found (coccinelle)"
	[ -f "$TOP/$COCCI" ] || die "patches/series asks for $COCCI, which is missing"
	mkdir -p "$BUILD/cocci" "$src"
	# shellcheck disable=SC2086
	g archive "$(g write-tree)" -- $COCCI_DIRS | tar -x -C "$src"
	cocci_spatch "$src" $COCCI_DIRS >"$out" || die "spatch failed"
	[ -f "$COCCI_EXPECTED" ] || die "no $COCCI_EXPECTED: review $out and copy it there"
	cocci_compare "$out" || die "semantic patch output drifted from patches/cocci/revoke-cocci.diff (new output: $out)"
	patch -d "$src" -p1 -N -s --fuzz=0 --no-backup-if-mismatch <"$out" ||
		die "semantic patch output does not apply"
	# Converted code must be a fixed point: a second run changes nothing.
	cocci_spatch "$src" $COCCI_DIRS >"$out.again" || die "spatch failed"
	if [ -s "$out.again" ]; then
		head -40 "$out.again" >&2
		die "the semantic patch changes its own output again (see $out.again)"
	fi
	cp "$out" "$work/cocci.diff"
	: >"$work/cocci.used"
	info "semantic patch: $(grep -c '^+++ ' "$out") files converted"
}

# commit PATCH: commit the staged tree with PATCH's author, date and message.
commit() {
	local info=$work/info name email date subject tree
	info=$(cat "$work/info")
	name=$(sed -n 's/^Author: //p' <<<"$info")
	email=$(sed -n 's/^Email: //p' <<<"$info")
	date=$(sed -n 's/^Date: //p' <<<"$info")
	subject=$(sed -n 's/^Subject: //p' <<<"$info")
	[ -n "$subject" ] && [ -n "$name" ] && [ -n "$date" ] ||
		die "patches/$1: no From, Date or Subject header"
	tree=$(g write-tree)
	head=$({ printf '%s\n\n' "$subject"; cat "$work/msg"; } |
		GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$email GIT_AUTHOR_DATE=$date \
		GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email GIT_COMMITTER_DATE=$date \
		g commit-tree "$tree" -p "$head")
}

n=0
cur=
# finish: commit the entry read so far.
finish() {
	[ -n "$cur" ] || return 0
	commit "$cur"
	n=$((n + 1))
	cur=
}
while IFS= read -r line; do
	line=${line%%#*}
	line=${line%"${line##*[![:space:]]}"}
	[ -n "$line" ] || continue
	if [ "${line#[[:space:]]}" = "$line" ]; then
		finish
		cur=$line
		[ -f "$TOP/patches/$cur" ] || die "patches/series names missing patch $cur"
		(cd "$work" && git mailinfo msg diff <"$TOP/patches/$cur" >info) ||
			die "patches/$cur is not a patch in mbox form"
		if [ -s "$work/diff" ] && grep -q '^diff --git ' "$work/diff"; then
			if ! out=$(g apply --cached --whitespace=nowarn "$work/diff" 2>&1); then
				mkdir -p "$BUILD/rejects"
				(cd "$BUILD/rejects" && git apply --reject --include='*' \
					"$work/diff" >/dev/null 2>&1) || true
				printf '%s\n' "$out" >&2
				die "patch $cur does not apply to $KSRC_PKG $pkgver"
			fi
		fi
		continue
	fi
	[ -n "$cur" ] || die "patches/series: \"$line\" before the first patch"
	# shellcheck disable=SC2086
	set -- $line
	if [ "$1" = cocci ]; then
		shift
		[ $# -gt 0 ] || die "patches/series: cocci without directories under $cur"
		[ -f "$work/cocci.diff" ] || run_cocci
		python3 "$TOP/harness/normdiff.py" "$@" <"$work/cocci.diff" >"$work/cocci.part"
		[ -s "$work/cocci.part" ] || die "patches/series: the semantic patch changes nothing in $*"
		g apply --cached "$work/cocci.part" || die "semantic patch output does not apply ($*)"
		grep '^+++ b/' "$work/cocci.part" | cut -c7- >>"$work/cocci.used"
	else
		for f in "$@"; do
			add_new "$f"
		done
	fi
done <"$TOP/patches/series"
finish
unset GIT_INDEX_FILE

# Nothing may be left out of the series.
unclaimed=$(sort "$claimed" | comm -23 <(sort "$work/overlay") -)
[ -z "$unclaimed" ] || die "patches/series: no commit adds $(echo $unclaimed)"
if [ -f "$work/cocci.diff" ]; then
	left=$(grep '^+++ b/' "$work/cocci.diff" | cut -c7- | sort | comm -23 - <(sort "$work/cocci.used"))
	[ -z "$left" ] || die "patches/series: no commit takes the semantic patch's changes to $(echo $left)"
elif [ -f "$TOP/$COCCI" ]; then
	die "patches/series: no commit takes the output of $COCCI"
fi

# Check the series out: only files whose content changed are rewritten.
g checkout -q -f -B revoke "$head"
g clean -q -f -f -d -x
rm -rf "$work"
echo "$key" >"$TREE.key"
info "series: $n commits on pristine ($(g rev-parse --short pristine)), tip $(g rev-parse --short revoke)"
info "Linux $kver from $KSRC_PKG $pkgver"
