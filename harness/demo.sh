#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make demo, inside the guest: revokeat(2) taking a device away from one
# session and giving it to the next.
echo "== devices of this guest"
ls -l /dev/revoke_test* /dev/snd /dev/input | sed 's/^/  /'
/demo/revoke_demo
