#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Runs one libFuzzer target for a bounded time and prints one line: executions, coverage
(cov/ft from libFuzzer's last status line) and corpus size.

    run-libfuzzer.py [--seconds N] BUILD/tests/fuzz/fuzz-TARGET-libfuzzer [EXTRA_SEED...]

Seeds: tests/fuzz/corpus/TARGET and tests/fuzz/regressions/TARGET (read only), dictionary
tests/fuzz/dict/TARGET.dict when there is one. New inputs go to BUILD/tests/fuzz/work/TARGET
(kept between runs), crashes to BUILD/tests/fuzz/artifacts/TARGET/, libFuzzer's output to
BUILD/tests/fuzz/logs/TARGET.log. Exits 0 when the time ran out without a finding, 1 with the
crash input's path otherwise (copy it to tests/fuzz/regressions/TARGET/ and fix the parser)."""

import argparse
import os
import re
import subprocess
import sys
import time

SRC = os.path.dirname(os.path.abspath(__file__))


def count_files(paths):
    n = 0
    for p in paths:
        if os.path.isdir(p):
            n += sum(1 for f in os.listdir(p) if not f.startswith('.'))
        elif os.path.isfile(p):
            n += 1
    return n


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--seconds', type=int, default=60, help='fuzzing time (default 60)')
    ap.add_argument('binary')
    ap.add_argument('seeds', nargs='*', help='more seed directories or files')
    args = ap.parse_args()

    name = os.path.basename(args.binary)
    m = re.fullmatch(r'fuzz-(.+)-libfuzzer', name)
    if not m:
        sys.exit(f'{name}: expected fuzz-TARGET-libfuzzer')
    target = m.group(1)
    bindir = os.path.dirname(os.path.abspath(args.binary))
    work = os.path.join(bindir, 'work', target)
    artifacts = os.path.join(bindir, 'artifacts', target)
    logdir = os.path.join(bindir, 'logs')
    for d in (work, artifacts, logdir):
        os.makedirs(d, exist_ok=True)
    log_path = os.path.join(logdir, target + '.log')

    seeds = [os.path.join(SRC, 'corpus', target), os.path.join(SRC, 'regressions', target)]
    seeds = [s for s in seeds + args.seeds if os.path.exists(s)]
    cmd = [os.path.abspath(args.binary), f'-max_total_time={args.seconds}',
           '-print_final_stats=1', f'-artifact_prefix={artifacts}/', '-timeout=10',
           '-rss_limit_mb=2048']
    dict_path = os.path.join(SRC, 'dict', target + '.dict')
    if os.path.exists(dict_path):
        cmd.append(f'-dict={dict_path}')
    cmd += [work] + seeds

    env = dict(os.environ)
    env.setdefault('ASAN_OPTIONS', 'detect_leaks=1')
    env.setdefault('UBSAN_OPTIONS', 'print_stacktrace=1:halt_on_error=1')
    start = time.time()
    with open(log_path, 'w') as log:
        log.write(' '.join(cmd) + '\n')
        log.flush()
        rc = subprocess.call(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
    with open(log_path, errors='replace') as log:
        out = log.read()

    status = re.findall(r'^#(\d+)\s+\S+\s+cov: (\d+) ft: (\d+) corp: (\d+)/', out, re.M)
    execs = re.search(r'^stat::number_of_executed_units:\s+(\d+)', out, re.M)
    rate = re.search(r'^stat::average_exec_per_sec:\s+(\d+)', out, re.M)
    done = re.search(r'^Done (\d+) runs in (\d+) second', out, re.M)
    n_exec = execs.group(1) if execs else (done.group(1) if done else '?')
    secs = done.group(2) if done else '?'
    cov, ft, corp = (status[-1][1], status[-1][2], status[-1][3]) if status else ('?',) * 3
    crashes = sorted(f for f in os.listdir(artifacts)
                     if os.path.getmtime(os.path.join(artifacts, f)) >= start - 1
                     and re.match(r'(crash|leak|timeout|oom|slow-unit)-', f))

    print(f'libfuzzer-{target}: {n_exec} executions in {secs} s '
          f'({rate.group(1) if rate else "?"}/s), cov {cov} ft {ft}, corpus {corp} inputs '
          f'(seeds {count_files(seeds)} files, work {count_files([work])})')
    if rc != 0 or not done:
        print(f'libfuzzer-{target}: FAILED (exit {rc}); log {log_path}')
        print('\n'.join(out.splitlines()[-60:]))
        for f in crashes:
            print(f'libfuzzer-{target}: input {os.path.join(artifacts, f)}: copy it to '
                  f'tests/fuzz/regressions/{target}/ and fix the parser')
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
