#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Configure and build a kernel from the prepared tree.
#
#   build.sh test    lockdep + KASAN + KUnit kernel ($OBJ_TEST)
#   build.sh bench   the same kernel without debugging ($OBJ_BENCH)
#   build.sh bench-off  and with CONFIG_REVOKE off ($OBJ_BENCH_OFF)
#   build.sh small-off  vmlinux of configs/small.config (allnoconfig plus what
#                    the series touches) with CONFIG_REVOKE off ($OBJ_SMALL_OFF)
#
# The .config is merged from fragments with the tree's merge_config.sh;
# every option a fragment asks for must survive olddefconfig, or the build
# stops naming the ones that did not.
. "$(dirname "$0")/lib.sh"

flavour=${1:-test}
# merge_config.sh starts from allnoconfig (-n) or from the defaults.
base=
target=bzImage
case $flavour in
test)
	obj=$OBJ_TEST
	frags="configs/base.config configs/revoke.config configs/debug.config configs/test.config kunit/.kunitconfig"
	;;
bench)
	obj=$OBJ_BENCH
	frags="configs/base.config configs/revoke.config configs/bench.config"
	;;
bench-off)
	obj=$OBJ_BENCH_OFF
	frags="configs/base.config configs/revoke-off.config configs/bench.config"
	;;
small-off)
	obj=$OBJ_SMALL_OFF
	frags="configs/small.config configs/revoke-off.config"
	base=-n
	target=vmlinux
	;;
*)
	die "unknown kernel flavour '$flavour'"
	;;
esac

stage "build: $flavour kernel"
[ -d "$TREE" ] || die "no prepared tree; run harness/prepare.sh"
mkdir -p "$obj" "$LOGS"

# Reconfigure only when a fragment or the tree changed.
key=$(cd "$TOP" && cat $frags "$TREE.key" | sha256sum | cut -d' ' -f1)
if [ ! -f "$obj/.config" ] || [ "$(cat "$obj/.config.key" 2>/dev/null)" != "$key" ]; then
	# shellcheck disable=SC2086
	(cd "$TREE" && ./scripts/kconfig/merge_config.sh $base -O "$obj" \
		$(for f in $frags; do echo "$TOP/$f"; done)) >"$LOGS/config-$flavour.log" 2>&1 ||
		{ tail -20 "$LOGS/config-$flavour.log"; die "merge_config.sh failed"; }
	# merge_config.sh only warns; a vanished option is an error here.
	missing=$(cd "$TOP" && cat $frags | python3 "$TOP/harness/kconfig-check.py" "$obj/.config" || true)
	if [ -n "$missing" ]; then
		printf '%s\n' "$missing" >&2
		die "requested config options did not survive olddefconfig (see above)"
	fi
	echo "$key" >"$obj/.config.key"
	info "config: $(grep -c '=y' "$obj/.config") options built in"
fi

start=$(date +%s)
# A build from nothing takes minutes: say how far it got once a minute.
kmake "$obj" $target >"$LOGS/build-$flavour.log" 2>&1 &
pid=$!
t=0
while kill -0 "$pid" 2>/dev/null; do
	sleep 1
	t=$((t + 1))
	if [ $((t % 60)) = 0 ] && kill -0 "$pid" 2>/dev/null; then
		info "$t s: $(grep -c '^  CC ' "$LOGS/build-$flavour.log" || true) files compiled"
	fi
done
if ! wait "$pid"; then
	grep -E ': error:|: fatal error:|Error [0-9]|undefined reference' "$LOGS/build-$flavour.log" | head -40 >&2
	die "kernel build failed (log: $LOGS/build-$flavour.log)"
fi
warnings=$(grep -c ': warning:' "$LOGS/build-$flavour.log" || true)
if [ "$target" = vmlinux ]; then
	info "vmlinux: $(stat -c %s "$obj/vmlinux") bytes, $(( $(date +%s) - start )) s, $warnings compiler warnings"
	exit 0
fi
kmake "$obj" -s headers >>"$LOGS/build-$flavour.log" 2>&1 || die "make headers failed"
[ -x "$obj/usr/gen_init_cpio" ] || kmake "$obj" usr/gen_init_cpio >>"$LOGS/build-$flavour.log" 2>&1 ||
	die "gen_init_cpio build failed"
info "bzImage: $(stat -c %s "$obj/arch/x86/boot/bzImage") bytes, $(( $(date +%s) - start )) s, $warnings compiler warnings"
info "$(cat "$obj/include/config/kernel.release")"
