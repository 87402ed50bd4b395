#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Count the results of the guest tests in a console log.

Each program runs between "GUEST-TEST-BEGIN name" and "GUEST-TEST-END name
rc=N" and prints TAP through kselftest_harness.h.  Every test case counts;
a skipped case counts as failed (nothing in this guest should skip), and so
does a program that crashed or exited non-zero without saying why.  An
expected failure ("ok N name # XFAIL reason": a known bug, named in the
test) is listed, and counted neither passed nor failed.  A failed case is
listed with its own diagnostic lines (what kselftest_harness printed since
the case began: the failed expectations), and the log's path."""

import re
import sys

BEGIN = re.compile(r'^GUEST-TEST-BEGIN (\S+)')
END = re.compile(r'^GUEST-TEST-END (\S+) rc=(\d+)')
CASE = re.compile(r'^(not ok|ok) \d+ (.*)$')
RUN = re.compile(r'^#\s+RUN\s')
# The diagnostic lines of a failed case shown in the summary, at most.
MAX_DIAG = 12


def main():
    passed = failed = xfailed = 0
    current = None
    cases = []
    diag = []
    with open(sys.argv[1], errors='replace') as f:
        lines = [l.rstrip('\n') for l in f]
    for line in lines:
        m = BEGIN.match(line)
        if m:
            current, cases, diag = m.group(1), [], []
            continue
        if current is None:
            continue
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
            continue
        m = END.match(line)
        if m and m.group(1) == current:
            rc = int(m.group(2))
            p = sum(1 for ok, _, _ in cases if ok)
            xf = [t for ok, t, _ in cases if ok is None]
            fl = [(t, d) for ok, t, d in cases if ok is False]
            if not cases or (rc != 0 and not fl):
                fl.append((f'{current} exited with status {rc}', diag))
            passed += p
            failed += len(fl)
            xfailed += len(xf)
            status = 'PASS' if not fl else 'FAIL'
            print(f'  {status} {current}: {p} passed, {len(fl)} failed'
                  + (f', {len(xf)} known failures' if xf else ''))
            for t, d in fl:
                print(f'       not ok: {t}')
                for l in d[-MAX_DIAG:]:
                    print(f'         {l}')
            for t in xf:
                print(f'       known failure: {t}')
            current = None
    if current is not None:
        print(f'  FAIL {current}: did not finish')
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
