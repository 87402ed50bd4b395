#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The series as a reviewer gets it.
#
#   series.sh format   git format-patch of pristine..revoke in the prepared
#                      tree, with a cover letter (patches/cover-letter.txt),
#                      --base, and To/Cc from scripts/get_maintainer.pl, in
#                      $BUILD/series/
#   series.sh check    apply $BUILD/series with git am to a fresh git tree of
#                      the pristine source (whose commit must be the series'
#                      base), and build every commit: vmlinux of
#                      configs/small.config plus configs/revoke.config and
#                      the revoke KUnit suites, in $BUILD/series-check/,
#                      and the tip with CONFIG_REVOKE off (build.sh small-off)
. "$(dirname "$0")/lib.sh"

OUT=$BUILD/series
mode=${1:-format}

g() { git -C "$TREE" "$@"; }

# recipients PATCH ARGS...: get_maintainer.pl's addresses for PATCH, one line.
recipients() {
	local p=$1
	shift
	(cd "$TREE" && ./scripts/get_maintainer.pl --no-git --no-git-fallback \
		--no-rolestats --no-multiline --separator ', ' "$@" "$p")
}

# add_header FILE NAME VALUE: add "NAME: VALUE" after FILE's Date header.
add_header() {
	[ -n "$3" ] || return 0
	python3 - "$1" "$2" "$3" <<'EOF'
import sys
path, name, value = sys.argv[1:]
lines = open(path).read().split('\n')
i = next(n for n, l in enumerate(lines) if l.startswith('Date: '))
# Fold long lists: a header line stays well under RFC 5322's 998 bytes.
lines.insert(i + 1, f'{name}: ' + ',\n\t'.join(a.strip() for a in value.split(',')))
open(path, 'w').write('\n'.join(lines))
EOF
}

format() {
	stage "series: git format-patch"
	g rev-parse -q --verify revoke >/dev/null || die "no prepared tree; run harness/prepare.sh"
	rm -rf "$OUT"
	g format-patch -q --cover-letter --base=pristine --thread=shallow \
		--no-signature -o "$OUT" pristine..revoke
	local cover=$OUT/0000-cover-letter.patch subject
	subject=$(head -1 "$TOP/patches/cover-letter.txt")
	python3 - "$cover" "$subject" "$TOP/patches/cover-letter.txt" \
		"$(g log -1 --format=%s pristine)" "$(cat "$PRISTINE.version")" <<'EOF'
import sys
cover, subject, body, base, pkgver = sys.argv[1:]
text = open(cover).read()
blurb = open(body).read().split('\n', 1)[1].rstrip('\n')
blurb += (f'\n\nBased on {base} as Debian packages it (linux-source-6.12 '
          f'{pkgver}); the base-commit below is that source committed as is.')
text = text.replace('*** SUBJECT HERE ***', subject)
text = text.replace('*** BLURB HERE ***', blurb)
open(cover, 'w').write(text)
EOF
	local p to cc all_to= all_cc=
	for p in "$OUT"/0*.patch; do
		[ "$p" = "$cover" ] && continue
		to=$(recipients "$p" --no-l)
		cc=$(recipients "$p" --no-m --no-r)
		add_header "$p" Cc "$cc"
		add_header "$p" To "$to"
		all_to="$all_to, $to"
		all_cc="$all_cc, $cc"
	done
	# The cover letter goes to everyone the patches go to.
	uniq_list() { tr ',' '\n' | sed 's/^ *//; /^$/d' | awk '!seen[$0]++' | paste -sd, | sed 's/,/, /g'; }
	add_header "$cover" Cc "$(uniq_list <<<"$all_cc")"
	add_header "$cover" To "$(uniq_list <<<"$all_to")"
	info "$(find "$OUT" -name '0*.patch' | wc -l) files in $OUT (cover letter and $(g rev-list --count pristine..revoke) patches)"
	info "base-commit: $(g rev-parse pristine)"
}

check() {
	local dir=$BUILD/series-check t0 start c n=0 failed=0 log status
	local src=$dir/linux obj=$dir/obj
	stage "series: apply and build every commit"
	ls "$OUT"/0*.patch >/dev/null 2>&1 || die "no series in $OUT; run make series"
	t0=$(date +%s)
	rm -rf "$src"
	mkdir -p "$dir" "$obj"
	cp -al "$PRISTINE" "$src"
	local name=${PRISTINE_IDENT% <*} email=${PRISTINE_IDENT#*<}
	email=${email%>}
	git -C "$src" init -q -b series
	git -C "$src" add -A -f
	GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$email GIT_COMMITTER_NAME=$name \
	GIT_COMMITTER_EMAIL=$email GIT_AUTHOR_DATE=$PRISTINE_DATE GIT_COMMITTER_DATE=$PRISTINE_DATE \
		git -C "$src" commit -q --no-verify --no-gpg-sign \
		-m "$(g log -1 --format=%s pristine)" -m "$(g log -1 --format=%b pristine)"
	local base
	base=$(sed -n 's/^base-commit: //p' "$OUT/0000-cover-letter.patch")
	[ "$(git -C "$src" rev-parse HEAD)" = "$base" ] ||
		die "the pristine source commits as $(git -C "$src" rev-parse HEAD), not as the series' base $base"
	info "pristine source is the series' base, $base"
	# shellcheck disable=SC2046
	git -C "$src" -c user.name=series-check -c user.email=series-check@localhost \
		am -q --whitespace=error-all $(ls "$OUT"/0*.patch | grep -v 0000-cover-letter) ||
		die "git am failed"
	[ "$(git -C "$src" rev-parse HEAD^{tree})" = "$(g rev-parse revoke^{tree})" ] ||
		die "the series applied does not give the prepared tree"
	info "git am: $(git -C "$src" rev-list --count "$base"..HEAD) patches applied; the tree equals the prepared one"
	printf '%s\n' 'CONFIG_REVOKE_KUNIT_TEST=y' 'CONFIG_INPUT_REVOKE_KUNIT_TEST=y' \
		'CONFIG_SND_REVOKE_KUNIT_TEST=y' >"$dir/kunit.config"
	for c in $(git -C "$src" rev-list --reverse "$base"..HEAD); do
		n=$((n + 1))
		git -C "$src" checkout -q "$c"
		start=$(date +%s)
		log=$dir/build-$(printf %02d "$n").log
		# Options a commit does not know yet are dropped: the config grows
		# with the series.
		status=ok
		if ! (cd "$src" && ./scripts/kconfig/merge_config.sh -n -O "$obj" \
			"$TOP/configs/small.config" "$TOP/configs/revoke.config" \
			"$dir/kunit.config") >"$log" 2>&1; then
			status=FAIL
		elif ! make -C "$src" O="$obj" ARCH=$ARCH CC="$KCC" HOSTCC=gcc -j"$JOBS" \
			vmlinux >>"$log" 2>&1; then
			status=FAIL
		fi
		info "$(printf '%02d %-4s %4d s  %2d warnings  %s' "$n" "$status" \
			$(( $(date +%s) - start )) "$(grep -c ': warning:' "$log" || true)" \
			"$(git -C "$src" log -1 --format=%s "$c")")"
		if [ $status = FAIL ]; then
			grep -E ': error:|undefined reference|Error [0-9]' "$log" | head -10 | sed 's/^/        /'
			failed=$((failed + 1))
		fi
	done
	grep -q '^CONFIG_REVOKE=y' "$obj/.config" || { info "CONFIG_REVOKE is not set at the tip"; failed=$((failed + 1)); }
	# The tip links without the framework too: the !CONFIG_REVOKE stubs
	# and the converted ALSA and input code.
	start=$(date +%s)
	status=ok
	if ! bash "$TOP/harness/build.sh" small-off >"$dir/build-off.log" 2>&1 ||
		grep -q ': warning:' "$LOGS/build-small-off.log" 2>/dev/null; then
		status=FAIL
		failed=$((failed + 1))
	fi
	info "$(printf 'tip  %-4s %4d s  %2d warnings  CONFIG_REVOKE=n vmlinux' "$status" \
		$(( $(date +%s) - start )) "$(grep -c ': warning:' "$LOGS/build-small-off.log" 2>/dev/null || true)")"
	info "$n commits, $failed failed, $(( $(date +%s) - t0 )) s (logs: $dir/build-NN.log)"
	[ "$failed" = 0 ]
}

# One compound command, read whole before it runs: editing this file while
# a long check runs cannot change what it does.
{
	case $mode in
	format) format ;;
	check) check ;;
	*) die "usage: series.sh format|check" ;;
	esac
	exit
}
