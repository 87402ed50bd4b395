#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# guest-pipewire.sh DEVICE WAV: PipeWire 0.3 without a session manager, for
# clients_test in the guest: the daemon with an ALSA sink on DEVICE (an
# adapter object of its configuration), and pw-cat playing WAV into it,
# linked by pw-link as a session manager would.  The script becomes the
# daemon (exec), the process that holds the device; the player is in its
# process group.
#
# guest-pipewire.sh seq: the daemon with PipeWire's ALSA sequencer bridge
# (api.alsa.seq.bridge, a spa-node-factory object), which holds
# /dev/snd/seq and polls it for the system announcements.

dev=$1
wav=$2
name=pipewire-$$
export PIPEWIRE_RUNTIME_DIR=/tmp/pipewire-$(id -u) PIPEWIRE_REMOTE=$name
mkdir -p "$PIPEWIRE_RUNTIME_DIR"
conf=$PIPEWIRE_RUNTIME_DIR/$name.conf
cat >"$conf" <<EOF
context.properties = {
	core.daemon = true
	core.name = $name
	support.dbus = false
	mem.allow-mlock = false
	log.level = 2
	default.clock.rate = 48000
}
context.spa-libs = {
	audio.convert.* = audioconvert/libspa-audioconvert
	api.alsa.* = alsa/libspa-alsa
	support.* = support/libspa-support
}
context.modules = [
	{ name = libpipewire-module-protocol-native }
	{ name = libpipewire-module-access }
	{ name = libpipewire-module-client-node }
	{ name = libpipewire-module-adapter }
	{ name = libpipewire-module-link-factory }
	{ name = libpipewire-module-metadata }
	{ name = libpipewire-module-spa-node-factory }
]
EOF

if [ "$dev" = seq ]; then
	cat >>"$conf" <<EOF
context.objects = [
	{ factory = spa-node-factory
	  args = {
		factory.name = api.alsa.seq.bridge
		node.name = revoke-midi-bridge
	  }
	}
]
EOF
	exec pipewire -c "$conf"
fi

cat >>"$conf" <<EOF
context.objects = [
	{ factory = adapter
	  args = {
		factory.name = api.alsa.pcm.sink
		node.name = revoke-sink
		media.class = Audio/Sink
		api.alsa.path = "$dev"
		audio.format = S16LE
		audio.rate = 48000
		audio.channels = 2
		audio.position = [ FL FR ]
		adapter.auto-port-config = {
			mode = dsp
			monitor = false
			position = preserve
		}
	  }
	}
]
EOF

(
	i=0
	while [ ! -S "$PIPEWIRE_RUNTIME_DIR/$name" ] && [ $i -lt 200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	# DSP ports, as a session manager would configure the stream.
	pw-cat --playback -P '{ adapter.auto-port-config = { mode = dsp
		monitor = false position = preserve } }' "$wav" &
	# Each pw-link takes a while under TCG: not too many of them.
	i=0
	sleep 0.5
	while ! pw-link -o | grep -q 'pw-cat:output_FR' && [ $i -lt 40 ]; do
		sleep 0.5
		i=$((i + 1))
	done
	for ch in FL FR; do
		pw-link "pw-cat:output_$ch" "revoke-sink:playback_$ch" ||
			echo "guest-pipewire: cannot link $ch"
	done
	wait
) &
exec pipewire -c "$conf"
