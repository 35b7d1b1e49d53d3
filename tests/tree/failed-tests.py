#!/usr/bin/env python3
"""Print the tests that failed in meson's testlog.json files, each with the tail of its output.

Usage: failed-tests.py [--tail N] TESTLOG.json...

bootstrap.sh test runs three meson builds and a CI log is often read from its end only, where
meson's verdict lines of the first build are long gone: this puts the failures next to the totals.
Missing files are skipped (a build that never ran has no log). Exit status 0 always.
"""
import json
import sys

PASSING = {"OK", "SKIP", "EXPECTEDFAIL"}


def failures(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.readlines()
    except OSError:
        return []
    found = []
    for line in lines:
        try:
            test = json.loads(line)
        except ValueError:
            continue
        if test.get("result") not in PASSING:
            found.append(test)
    return found


def main(argv):
    tail = 20
    if len(argv) >= 2 and argv[0] == "--tail":
        tail = int(argv[1])
        argv = argv[2:]
    for path in argv:
        for test in failures(path):
            print(f"failed: {test.get('name')} ({test.get('result')}, "
                  f"{test.get('duration', 0):.0f} s, {path})")
            out = (test.get("stdout") or "").rstrip("\n").splitlines()
            for line in out[-tail:] if tail > 0 else []:
                print(f"  | {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
