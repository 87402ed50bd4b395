#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# guest.sh test|demo|bench|shell: build the static user-space programs
# against the prepared tree's uapi headers (the tests with the kernel's
# "make kselftest-install", the demo and the benchmarks directly), pack them
# with busybox into an initramfs (the tree's gen_init_cpio), boot it and,
# for tests, count the results; shell boots the test guest with a shell on
# the console instead.
. "$(dirname "$0")/lib.sh"

mode=${1:-test}
case $mode in
test | demo | shell) obj=$OBJ_TEST ;;
bench) obj=$OBJ_BENCH ;;
*) die "unknown mode $mode" ;;
esac

[ -f "$obj/arch/x86/boot/bzImage" ] || die "no kernel in $obj; run harness/build.sh"
BUSYBOX=$(command -v busybox || true)
[ -n "$BUSYBOX" ] && file -L "$BUSYBOX" 2>/dev/null | grep -q 'statically linked' ||
	BUSYBOX=/bin/busybox
[ -x "$BUSYBOX" ] || die "busybox-static not installed"

out=$GUEST/$mode
rm -rf "$out"
mkdir -p "$out/bin" "$LOGS"

SELFTESTS=$TREE/tools/testing/selftests
CFLAGS="-O2 -g0 -Wall -static -D_GNU_SOURCE
	-isystem $obj/usr/include -I $SELFTESTS -I $TREE -pthread"

# cc SRC [DIR]: compile one program into DIR (default $out/bin).
cc() {
	local src=$1 dir=${2:-$out/bin} name
	name=$(basename "$src" .c)
	# shellcheck disable=SC2086
	gcc $CFLAGS -o "$dir/$name" "$src" -lrt 2>"$out/$name.cc.log" ||
		{ cat "$out/$name.cc.log" >&2; die "cannot build $src"; }
	if grep -q 'warning:' "$out/$name.cc.log"; then
		cat "$out/$name.cc.log" >&2
		die "warnings building $src"
	fi
}

# The tests: the kselftest install tree (run_kselftest.sh, the runner and
# tools/testing/selftests/revoke's TEST_GEN_PROGS with its settings), built
# static against the test kernel's headers.
KSFT=$obj/kselftest/kselftest_install
if [ "$mode" = test ] || [ "$mode" = shell ]; then
	rm -rf "$obj/kselftest"
	make -C "$TREE" O="$obj" ARCH=$ARCH CC="$KCC" HOSTCC=gcc TARGETS=revoke USERLDFLAGS=-static \
		kselftest-install >"$out/kselftest-install.log" 2>&1 ||
		{ tail -30 "$out/kselftest-install.log" >&2; die "make kselftest-install failed"; }
	if grep -q 'warning:' "$out/kselftest-install.log"; then
		grep -A3 'warning:' "$out/kselftest-install.log" >&2
		die "warnings building the selftests (log: $out/kselftest-install.log)"
	fi
	[ -x "$KSFT/run_kselftest.sh" ] && grep -q '^revoke:' "$KSFT/kselftest-list.txt" ||
		die "make kselftest-install installed no revoke tests"
	info "kselftest-install: $(grep -c '^revoke:' "$KSFT/kselftest-list.txt") tests"
else
	case $mode in
	demo) progs=$(ls "$SELFTESTS"/revoke/revoke_demo.c 2>/dev/null || true) ;;
	bench) progs=$(ls "$SELFTESTS"/revoke/*_bench.c 2>/dev/null || true) ;;
	esac
	[ -n "$progs" ] || die "no $mode programs under tools/testing/selftests/revoke"
	for p in $progs; do
		cc "$p"
	done
fi
# revoke(1), which the demo and the tests run as a session manager would.
if [ "$mode" != bench ]; then
	mkdir -p "$out/tools"
	cc "$TREE/tools/revoke/revoke.c" "$out/tools"
fi

# The ext4 file system of the regular-file tests, loop-mounted in the guest.
if [ "$mode" = test ] || [ "$mode" = shell ]; then
	truncate -s 16M "$out/ext4.img"
	mkfs.ext4 -q -F -E root_owner=0:0 "$out/ext4.img" ||
		die "mkfs.ext4 failed"
fi

# Debian's own clients of the converted devices, for clients_test: the
# programs, every shared library they load, and the data they read.
CLIENT_PROGS="/usr/bin/aplay /usr/bin/arecord /usr/bin/speaker-test
	/usr/bin/amidi /usr/bin/aseqdump /usr/sbin/alsactl /usr/bin/amixer
	/usr/bin/evtest /usr/bin/libinput /usr/libexec/libinput/libinput-debug-events
	/usr/bin/pipewire /usr/bin/pw-cat /usr/bin/pw-link
	/usr/bin/timeout /usr/bin/trinity"
# (/usr/bin/timeout is GNU's, for the kselftest runner: it needs
# --foreground, which busybox's lacks, and runs tests without a limit
# if it is missing.  trinity is storm_test's fuzzer in make stress.)
# What PipeWire loads: the modules and SPA plugins of harness/guest-pipewire.sh
# and of its clients' client.conf.
PW_MODS=/usr/lib/x86_64-linux-gnu/pipewire-0.3/libpipewire-module
SPA=/usr/lib/x86_64-linux-gnu/spa-0.2
CLIENT_PLUGINS="$PW_MODS-protocol-native.so $PW_MODS-access.so $PW_MODS-client-node.so
	$PW_MODS-client-device.so $PW_MODS-adapter.so $PW_MODS-metadata.so
	$PW_MODS-session-manager.so $PW_MODS-link-factory.so
	$PW_MODS-spa-node-factory.so
	$SPA/support/libspa-support.so $SPA/alsa/libspa-alsa.so
	$SPA/audioconvert/libspa-audioconvert.so"
CLIENT_DATA="/usr/share/alsa/alsa.conf /usr/share/alsa/cards /usr/share/alsa/ctl
	/usr/share/alsa/pcm /usr/share/libinput /usr/share/pipewire/client.conf
	/usr/share/pipewire/client-rt.conf"

declare -A packed
# pack PATH: a gen_init_cpio line for PATH (a file or a symbolic link, at
# the path it has once /lib, /bin... are resolved) and its directories.
pack() {
	local src=$1 dst d f parts i
	dst=$(realpath "$(dirname "$src")")/$(basename "$src")
	[ -n "${packed[$dst]:-}" ] && return 0
	packed[$dst]=1
	d=
	IFS=/ read -ra parts <<<"${dst#/}"
	for ((i = 0; i < ${#parts[@]} - 1; i++)); do
		d=$d/${parts[i]}
		[ -n "${packed[$d]:-}" ] && continue
		packed[$d]=1
		echo "dir $d 755 0 0"
	done
	if [ -L "$src" ]; then
		f=$(readlink "$src")
		echo "slink $dst $f 777 0 0"
		case $f in
		/*) pack "$f" ;;
		*) pack "$(dirname "$dst")/$f" ;;
		esac
	elif [ -x "$src" ]; then
		echo "file $dst $src 755 0 0"
	else
		echo "file $dst $src 644 0 0"
	fi
}

# pack_clients: the clients, their libraries (as ldd finds them) and data.
pack_clients() {
	local p lib f
	for d in /dev /proc /sys /tmp /bin /sbin /mnt /root; do
		packed[$d]=1
	done
	# The dynamic loader and the libraries are found through /lib64 and
	# /lib, links into /usr as on the host.
	echo "slink /lib usr/lib 777 0 0"
	echo "slink /lib64 usr/lib64 777 0 0"
	packed[/lib]=1
	packed[/lib64]=1
	for p in $CLIENT_PROGS $CLIENT_PLUGINS; do
		[ -e "$p" ] || die "$p missing: run harness/deps.sh"
		pack "$p"
		for lib in $(ldd "$p" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }
					   $1 ~ /^\// { print $1 }'); do
			pack "$lib"
		done
	done
	# shellcheck disable=SC2086
	for f in $(find $CLIENT_DATA \( -type f -o -type l \) | sort); do
		pack "$f"
	done
	[ -n "${packed[/usr/libexec]:-}" ] || echo "dir /usr/libexec 755 0 0"
	echo "dir /usr/libexec/revoke 755 0 0"
	echo "file /usr/libexec/revoke/guest-pipewire.sh $TOP/harness/guest-pipewire.sh 755 0 0"
}

dir=
[ "$mode" = demo ] && dir=/demo
[ "$mode" = bench ] && dir=/bench
{
	for d in /dev /proc /sys /tmp /bin /sbin /mnt /root $dir; do
		echo "dir $d 755 0 0"
	done
	echo "nod /dev/console 600 0 0 c 5 1"
	echo "file /bin/busybox $BUSYBOX 755 0 0"
	for applet in $("$BUSYBOX" --list); do
		[ "$applet" = busybox ] || echo "slink /bin/$applet busybox 777 0 0"
	done
	echo "file /init $TOP/harness/guest-init.sh 755 0 0"
	[ "$mode" = bench ] || echo "file /bin/revoke $out/tools/revoke 755 0 0"
	if [ "$mode" = test ] || [ "$mode" = shell ]; then
		echo "dir /images 755 0 0"
		echo "file /images/ext4.img $out/ext4.img 644 0 0"
		pack_clients
	fi
	[ "$mode" = demo ] && echo "file /demo/demo.sh $TOP/harness/demo.sh 755 0 0"
	if [ -n "$dir" ]; then
		for b in "$out"/bin/*; do
			echo "file $dir/$(basename "$b") $b 755 0 0"
		done
	else
		# The kselftest install tree, as /kselftest.
		(cd "$KSFT" && find . -mindepth 1 | sort) | while read -r f; do
			f=${f#./}
			if [ -d "$KSFT/$f" ]; then
				echo "dir /kselftest/$f 755 0 0"
			else
				echo "file /kselftest/$f $KSFT/$f $(stat -c %a "$KSFT/$f") 0 0"
			fi
		done | sed '1i dir /kselftest 755 0 0'
	fi
} >"$out/initramfs.list"
"$obj/usr/gen_init_cpio" "$out/initramfs.list" >"$out/initramfs.cpio" ||
	die "gen_init_cpio failed"

if [ "$mode" = shell ]; then
	stage "guest: shell (Ctrl-A x quits QEMU)"
	exec qemu-system-x86_64 -nodefaults -no-reboot -nographic \
		-machine pc -m 1024 -smp "${SMP:-2}" -serial mon:stdio \
		-kernel "$obj/arch/x86/boot/bzImage" -initrd "$out/initramfs.cpio" \
		-append "console=ttyS0 panic=-1 revoke.mode=shell snd_dummy.pcm_substreams=1 preempt=full ${KERNEL_ARGS:-}"
fi

log=$LOGS/guest-$mode.log
qemu_args=()
if [ "$mode" = bench ]; then
	# One CPU whose clock counts executed instructions: repeatable figures.
	SMP=1
	qemu_args=(-icount shift=0,sleep=off)
fi

stage "guest: $mode"
# The race tests want a kernel that preempts anywhere (the test kernel is
# PREEMPT_DYNAMIC); GUEST_ONLY=a_test,b_test runs just those programs.
if [ "$mode" = test ]; then
	KERNEL_ARGS="preempt=full ${GUEST_ONLY:+revoke.only=$GUEST_ONLY} ${KERNEL_ARGS:-}"
	export KERNEL_ARGS
fi
SMP=${SMP:-2} bash "$TOP/harness/boot.sh" "$obj/arch/x86/boot/bzImage" \
	"$out/initramfs.cpio" "$log" "$mode" "${qemu_args[@]}"
if [ "$mode" = bench ]; then
	# The baseline: the same programs on the kernel without the feature.
	[ -f "$OBJ_BENCH_OFF/arch/x86/boot/bzImage" ] ||
		die "no kernel in $OBJ_BENCH_OFF; run harness/build.sh bench-off"
	stage "guest: bench, CONFIG_REVOKE off"
	SMP=1 bash "$TOP/harness/boot.sh" "$OBJ_BENCH_OFF/arch/x86/boot/bzImage" \
		"$out/initramfs.cpio" "$LOGS/guest-bench-off.log" "$mode" "${qemu_args[@]}"
fi

case $mode in
demo)
	sed -n '/^GUEST: /,/^GUEST: done/p' "$log"
	bash "$TOP/harness/check-log.sh" "$log"
	;;
bench)
	{
		sed -n '/^BENCH/p' "$log"
		python3 "$TOP/harness/bench-pair.py" "$log" "$LOGS/guest-bench-off.log"
	} | tee "$LOGS/bench.txt"
	bash "$TOP/harness/check-log.sh" "$log"
	bash "$TOP/harness/check-log.sh" "$LOGS/guest-bench-off.log"
	;;
test)
	set +e
	python3 "$TOP/harness/guest-results.py" "$log" >"$LOGS/guest-results.txt"
	rc=$?
	cat "$LOGS/guest-results.txt"
	bash "$TOP/harness/check-log.sh" "$log"
	splat=$?
	set -e
	read -r passed failed < <(tail -1 "$LOGS/guest-results.txt" | sed -E 's/.* ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/')
	[ "$splat" = 0 ] || failed=$((failed + 1))
	record guest "$passed" "$failed"
	[ "$rc" = 0 ] && [ "$splat" = 0 ]
	;;
esac
