#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Pair the "NODE <what> <ns>" lines of two benchmark boots (argv[1]: the
kernel with the feature, argv[2]: without) into "BENCH" lines with the
ratio converted / unconverted."""

import sys


def nodes(path):
    out = {}
    with open(path, errors='replace') as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3 and parts[0] == 'NODE':
                out[parts[1]] = float(parts[2])
    return out


def main():
    on, off = nodes(sys.argv[1]), nodes(sys.argv[2])
    if not on or set(on) != set(off):
        sys.exit('bench-pair: the two boots measured different things')
    for what in on:
        print(f'BENCH {what:30s} converted {on[what]:8.1f} ns  '
              f'unconverted {off[what]:8.1f} ns  ratio {on[what] / off[what]:.4f}')


if __name__ == '__main__':
    main()
