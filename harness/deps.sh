#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages the project needs, only those missing.
. "$(dirname "$0")/lib.sh"

PKGS="patch linux-source-6.12 gcc make flex bison bc cpio kmod libelf-dev libssl-dev
      python3 python3-sphinx python3-ply python3-git groff-base perl ccache sparse coccinelle qemu-system-x86 qemu-system-data
      busybox-static libc6-dev git rsync file e2fsprogs
      alsa-utils evtest libinput-tools pipewire-bin libpipewire-0.3-modules
      libspa-0.2-modules trinity"

stage "deps: Debian packages"
# The guest is x86_64 and the clients are Debian 12's own binaries.
[ "$(uname -m)" = x86_64 ] ||
	die "this host is $(uname -m): the project builds and boots an x86_64 guest on an x86_64 host"
command -v dpkg-query >/dev/null && command -v apt-get >/dev/null ||
	die "not a Debian host: the packages (linux-source-6.12, the clients) come from Debian 12's archive"
grep -q '^12' /etc/debian_version 2>/dev/null ||
	info "warning: Debian $(cat /etc/debian_version 2>/dev/null || echo '?') is not Debian 12; package names may differ"
missing=
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done
if [ -z "$missing" ]; then
	info "all present"
	exit 0
fi
info "installing:$missing"
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
${SUDO:-} apt-get update -q >"${TMPDIR:-/tmp}/revoke-apt-update.log" 2>&1 ||
	{ cat "${TMPDIR:-/tmp}/revoke-apt-update.log"; die "apt-get update failed"; }
# shellcheck disable=SC2086
${SUDO:-} apt-get install -y -q --no-install-recommends $missing >"${TMPDIR:-/tmp}/revoke-apt.log" 2>&1 ||
	{ tail -30 "${TMPDIR:-/tmp}/revoke-apt.log"; die "apt-get install failed"; }
info "done"
