#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Count the results of the guest tests in a console log.

The guest runs the tests with the kselftest runner (run_kselftest.sh): each
program's output is framed by "# selftests: revoke: NAME" and "ok N
selftests: revoke: NAME" (or "not ok N ... # exit=R", "# TIMEOUT", "#
SKIP"), and is its own TAP from kselftest_harness.h with every line
prefixed by "# ".  Every test case counts; a skipped case counts as failed
(nothing in this guest should skip), and so does a program that crashed,
timed out or exited non-zero without saying why.  An expected failure ("ok
N name # XFAIL reason": a known bug, named in the test) is listed, and
counted neither passed nor failed.  A failed case is listed with its own
diagnostic lines (what kselftest_harness printed since the case began: the
failed expectations), and the log's path."""

import re
import sys

BEGIN = re.compile(r'^# selftests: (\S+): (\S+)$')
END = re.compile(r'^(not ok|ok) \d+ selftests: (\S+): (\S+)(?:\s+#\s*(.*))?$')
CASE = re.compile(r'^(not ok|ok) \d+ (.*)$')
RUN = re.compile(r'^#\s+RUN\s')
# The diagnostic lines of a failed case shown in the summary, at most.
MAX_DIAG = 12


def status(directive):
    """The runner's verdict on a program: (exit status, what it means)."""
    if not directive:
        return 0, ''
    if directive.upper().startswith('SKIP'):
        return 4, 'skipped'
    if directive.upper().startswith('TIMEOUT'):
        return 124, 'timed out: ' + directive
    m = re.match(r'exit=(\d+)', directive)
    return (int(m.group(1)) if m else 1), directive


def main():
    passed = failed = xfailed = 0
    current = None
    cases = []
    diag = []
    with open(sys.argv[1], errors='replace') as f:
        lines = [l.rstrip('\n') for l in f]
    planned = ended = 0
    for line in lines:
        m = re.match(r'^1\.\.(\d+)$', line)
        if m and current is None:
            planned += int(m.group(1))
            continue
        m = BEGIN.match(line)
        if m:
            current, cases, diag = m.group(2), [], []
            continue
        if current is None:
            continue
        m = END.match(line)
        if m and m.group(3) == current:
            ended += 1
            rc, why = status(m.group(4))
            p = sum(1 for ok, _, _ in cases if ok)
            xf = [t for ok, t, _ in cases if ok is None]
            fl = [(t, d) for ok, t, d in cases if ok is False]
            if not cases or (rc != 0 and not fl):
                fl.append((f'{current} exited with status {rc}'
                           + (f' ({why})' if why else ''), diag))
            passed += p
            failed += len(fl)
            xfailed += len(xf)
            verdict = 'PASS' if not fl else 'FAIL'
            print(f'  {verdict} {current}: {p} passed, {len(fl)} failed'
                  + (f', {len(xf)} known failures' if xf else ''))
            for t, d in fl:
                print(f'       not ok: {t}')
                for l in d[-MAX_DIAG:]:
                    print(f'         {l}')
            for t in xf:
                print(f'       known failure: {t}')
            current = None
            continue
        # The program's own lines, under the runner's "# " prefix; the rest
        # is the kernel's console.
        if not line.startswith('# '):
            continue
        line = line[2:]
        if RUN.match(line):
            diag = []
        elif line.startswith('# '):
            diag.append(line)
        m = CASE.match(line)
        if m:
            ok = m.group(1) == 'ok'
            text = m.group(2)
            # "ok 3 name # SKIP reason" is a skip, not a pass.
            if ok and re.search(r'#\s*SKIP', text, re.I):
                ok = False
            if ok and re.search(r'#\s*XFAIL', text, re.I):
                ok = None
            cases.append((ok, text, diag))
            diag = []
    if current is not None:
        print(f'  FAIL {current}: did not finish')
        failed += 1
    elif ended < planned:
        print(f'  FAIL the runner planned {planned} programs, {ended} ran')
        failed += 1
    if passed + failed == 0:
        print('  FAIL no guest test ran')
        failed += 1
    if failed:
        print(f'  console log: {sys.argv[1]}')
    print(f'guest: {passed} passed, {failed} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
