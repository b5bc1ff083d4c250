#!/usr/bin/env python3
"""Runs the visible conformance suites and compares passing counts with the baseline.

Each suite's summary is printed as one line; the full runner output goes to --logs. Exits 1 when a
count falls below conformance/baseline.json. `--update` raises the baseline to the counts seen
(never lowers it).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

SUMMARY = re.compile(r'^(\d+) passed, (\d+) failed', re.M)


def run(name, cmd, log_path):
    t0 = time.time()
    with open(log_path, 'w') as log:
        proc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, text=True)
    text = open(log_path).read()
    found = SUMMARY.findall(text)
    if proc.returncode != 0 or not found:
        print(f'conformance {name}: runner failed (exit {proc.returncode}), see {log_path}')
        return None
    passed, failed = map(int, found[-1])
    print(f'conformance {name} (visible suite): {passed} passed / {failed} failed '
          f'in {time.time() - t0:.0f} s', flush=True)
    return passed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--bin', required=True)
    ap.add_argument('--shared', required=True)
    ap.add_argument('--baseline', required=True)
    ap.add_argument('--logs', required=True)
    ap.add_argument('--update', action='store_true')
    ap.add_argument('--jobs', type=int, default=2)
    args = ap.parse_args()
    os.makedirs(args.logs, exist_ok=True)
    conf = os.path.join(args.shared, 'conformance')
    suites = {
        'slt': [sys.executable, os.path.join(conf, 'run_slt.py'), '--bin', args.bin,
                '--label', 'mssql', '--show-failures', '1000000', os.path.join(conf, 'slt')],
        'babelfish': [sys.executable, os.path.join(conf, 'run_babelfish.py'), '--bin', args.bin,
                      '--jobs', str(args.jobs),
                      os.path.join(conf, 'babelfish', 'input'),
                      os.path.join(conf, 'babelfish', 'expected')],
    }
    baseline = json.load(open(args.baseline))
    ok = True
    seen = {}
    for name, cmd in suites.items():
        passed = run(name, cmd, os.path.join(args.logs, name + '.log'))
        seen[name] = passed
        want = baseline.get(name, 0)
        if passed is None or passed < want:
            print(f'conformance {name}: REGRESSION: {passed} passing, baseline {want}')
            ok = False
    if args.update:
        for name, passed in seen.items():
            if passed is not None and passed > baseline.get(name, 0):
                baseline[name] = passed
        with open(args.baseline, 'w') as f:
            json.dump(baseline, f, indent=2)
            f.write('\n')
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
