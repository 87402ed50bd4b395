#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# export-patches.sh [KERNEL_GIT [BASE]]: write the commits BASE..HEAD of a git
# tree of the kernel (default: the prepared tree and its "pristine" tag) back
# into this repository, the inverse of harness/prepare.sh:
#
#   patches/NNNN-*.patch  each commit's message and its changes to upstream
#                         files;
#   patches/series        the commits in order, with the new files each adds;
#   the new files         copied to the same path in this repository.
#
# The commits that hold the semantic patch's output (those whose subject
# has a "cocci" entry in the current patches/series) keep only their
# message: harness/prepare.sh makes their changes again with spatch.  A new
# file must be added whole by one commit: change it in that commit (git
# rebase -i, fixup!), not in a later one.
#
# The workflow for changing the series:
#   git -C build/src/linux rebase -i pristine   # or commit, fixup, ...
#   harness/export-patches.sh
. "$(dirname "$0")/lib.sh"

repo=${1:-$TREE}
base=${2:-pristine}
gr() { git -C "$repo" "$@"; }
gr rev-parse -q --verify "$base^{commit}" >/dev/null || die "$repo has no commit $base"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Subjects of the current cocci entries, and their directories.
cur=
while IFS= read -r line; do
	line=${line%%#*}
	[ -n "${line// /}" ] || continue
	case $line in
	[[:space:]]*cocci\ *)
		subj=$(sed -n 's/^Subject: \[PATCH[^]]*\] //p' "$TOP/patches/$cur")
		printf '%s\t%s\n' "$subj" "$(echo ${line#*cocci })" >>"$tmp/cocci"
		;;
	[[:space:]]*) ;;
	*) cur=$line ;;
	esac
done < <(cat "$TOP/patches/series" 2>/dev/null)
touch "$tmp/cocci"

cat >"$tmp/series" <<'EOF'
# The series, in commit order: harness/prepare.sh makes one commit per patch
# named here, on the pristine tree.  A patch holds the commit's author, date
# and message and its changes to upstream files; the indented lines under it
# name the new files the commit adds, from this repository at the same path
# (a directory: every file under it), or "cocci DIR..." for the output of
# scripts/coccinelle/revoke.cocci in those directories.  Every new file
# belongs to one commit.  Written by harness/export-patches.sh.
EOF
mkdir "$tmp/patches"
: >"$tmp/new"
n=0
for c in $(gr rev-list --reverse "$base..HEAD"); do
	n=$((n + 1))
	subject=$(gr log -1 --format=%s "$c")
	[ "$(gr rev-list --count --merges "$c^..$c")" = 0 ] || die "merge commits cannot be exported"
	# New files of the series: added by this commit, absent from BASE.
	added=()
	while read -r f; do
		gr cat-file -e "$base:$f" 2>/dev/null && continue
		added+=("$f")
	done < <(gr diff-tree -r --no-commit-id --name-only --diff-filter=A "$c")
	# A file the series added earlier may not change again.
	while read -r f; do
		grep -qxF "$f" "$tmp/new" && die "commit \"$subject\" changes $f, which an earlier commit adds: squash it there"
	done < <(gr diff-tree -r --no-commit-id --name-only --diff-filter=MDR "$c")
	cocci=$(awk -F'\t' -v s="$subject" '$1 == s { print $2 }' "$tmp/cocci")
	slug=$(printf '%s' "$subject" | sed -E 's/[^A-Za-z0-9]+/-/g; s/^-+//' | cut -c1-52 | sed -E 's/-+$//')
	name=$(printf '%04d-%s.patch' "$n" "$slug")
	excl=()
	for f in "${added[@]}"; do
		excl+=(":(exclude)$f")
	done
	{
		gr log -1 --format=email "$c" |
			sed '1s/^From [0-9a-f]*/From 0000000000000000000000000000000000000000/'
		echo "---"
		if [ -z "$cocci" ] && [ -n "$(gr diff --name-only "$c^" "$c" -- . "${excl[@]}")" ]; then
			gr diff --stat=72 --summary "$c^" "$c" -- . "${excl[@]}"
			echo
			gr diff --no-color --no-ext-diff "$c^" "$c" -- . "${excl[@]}"
		fi
	} >"$tmp/patches/$name"
	echo "$name" >>"$tmp/series"
	if [ -n "$cocci" ]; then
		printf '\tcocci %s\n' "$cocci" >>"$tmp/series"
	fi
	for f in "${added[@]}"; do
		case " $OVERLAY_DIRS " in
		*" ${f%%/*} "*) ;;
		*) die "commit \"$subject\" adds $f, outside the overlay directories ($OVERLAY_DIRS)" ;;
		esac
		printf '\t%s\n' "$f" >>"$tmp/series"
		echo "$f" >>"$tmp/new"
	done
done

# The new files, as of HEAD.
while read -r f; do
	mkdir -p "$TOP/$(dirname "$f")"
	gr show "HEAD:$f" >"$TOP/$f"
	if [ "$(gr ls-tree HEAD -- "$f" | cut -d' ' -f1)" = 100755 ]; then
		chmod 755 "$TOP/$f"
	else
		chmod 644 "$TOP/$f"
	fi
done <"$tmp/new"
gone=$(overlay_files | sort | comm -23 - <(sort "$tmp/new"))
[ -z "$gone" ] || info "files of this repository no commit adds any more: $(echo $gone)"

rm -f "$TOP"/patches/[0-9][0-9][0-9][0-9]-*.patch
cp "$tmp"/patches/*.patch "$TOP/patches/"
cp "$tmp/series" "$TOP/patches/series"
info "$n commits exported to patches/ ($(wc -l <"$tmp/new") new files)"
