#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print "PASSED FAILED" for the KUnit cases in kunit.py's JSON output.
Skipped cases count as failed: nothing in these suites should skip."""

import json
import sys


def walk(group, counts):
    for case in group.get('test_cases', []):
        status = case.get('status', 'FAIL')
        counts[0 if status == 'PASS' else 1] += 1
    for sub in group.get('sub_groups', []):
        walk(sub, counts)


def main():
    with open(sys.argv[1]) as f:
        data = json.load(f)
    counts = [0, 0]
    walk(data, counts)
    print(counts[0], counts[1])


if __name__ == '__main__':
    main()
