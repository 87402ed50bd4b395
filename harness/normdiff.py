#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Normalise spatch's unified diff (stdin) to a stable, reviewable form:
one block per file, sorted by path, headers "--- a/PATH" and "+++ b/PATH"
without timestamps or spatch's "diff -u -p" lines.  With arguments, only
the files under those directories."""

import re
import sys


def main():
    blocks = {}
    path = None
    for line in sys.stdin:
        if line.startswith('diff '):
            continue
        m = re.match(r'^--- (?:a/)?(\S+)', line)
        if m and not line.startswith('--- /dev/null'):
            path = m.group(1)
            # spatch names files as given: strip a leading "./".
            path = re.sub(r'^\./', '', path)
            blocks[path] = [f'--- a/{path}\n']
            continue
        if line.startswith('+++ '):
            blocks[path].append(f'+++ b/{path}\n')
            continue
        if path is not None:
            blocks[path].append(line)
    dirs = [d.rstrip('/') + '/' for d in sys.argv[1:]]
    for p in sorted(blocks):
        if dirs and not any(p.startswith(d) for d in dirs):
            continue
        sys.stdout.write(''.join(blocks[p]))


if __name__ == '__main__':
    main()
