#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print every option requested by config fragments (stdin) that the final
.config (argv[1]) does not have.  "# CONFIG_X is not set" requests n, which
an absent option satisfies."""

import re
import sys

SET = re.compile(r'^(CONFIG_[A-Za-z0-9_]+)=(.*)$')
UNSET = re.compile(r'^# (CONFIG_[A-Za-z0-9_]+) is not set$')


def parse(lines):
    opts = {}
    for line in lines:
        line = line.strip()
        m = SET.match(line)
        if m:
            opts[m.group(1)] = m.group(2)
            continue
        m = UNSET.match(line)
        if m:
            opts[m.group(1)] = 'n'
    return opts


def main():
    wanted = parse(sys.stdin)
    with open(sys.argv[1]) as f:
        final = parse(f)
    bad = 0
    for name, value in sorted(wanted.items()):
        got = final.get(name, 'n')
        if got != value:
            print(f'{name}: requested {value}, got {got}')
            bad += 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
