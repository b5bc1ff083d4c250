#!/usr/bin/env python3
"""The configuration matrix (issue 9): the SQL golden tests and the visible sqllogictest suite
run under each configuration of CONFIGS and must give the default configuration's results.

A configuration is a `LATCHKEY_CONFIG` value (crates/engine/src/run_config.rs), which every
latchkey process of the run reads at start.

* golden: `cargo test --workspace --test golden` with `GOLDEN_CONFIG=<config>`; the runner compares
  each script's output with the `.out` the default configuration wrote (rules, and the short
  list of plan-showing statements compared in the default configuration only, in
  crates/cli/tests/golden.rs).
* slt: `run_slt.py` with every failure listed; the records that fail, and how, must be the same
  as under the default configuration (so every other record returned the expected rows in both).
  The default's failures come from the conformance run's log (`--default-log`, written by
  check.py) or from a run of its own. `--slt-every N` runs a deterministic subset: every Nth
  file of the sorted file list (N=1: all).

Prints one line per suite and configuration; exits 1 when any configuration differs.
"""
import argparse
import os
import re
import subprocess
import sys
import time

CONFIGS = [
    ('dop1-row', 'maxdop=1,batch=off'),
    ('dop2', 'maxdop=2,cost_threshold=0'),
    ('batch-forced', 'batch=force'),
    # parallel zones whose pipelines run in batch mode (partial aggregates, shared batch builds)
    ('dop2-batch', 'maxdop=2,cost_threshold=0,batch=force'),
    ('tiny-pool-spills', 'maxdop=1,buffer_pool_pages=64,grant_kb=64'),
]

FAILURE = re.compile(r'^    (\S+:\d+): (.*)$')
SUMMARY = re.compile(r'^(\d+) passed, (\d+) failed', re.M)
GOLDEN = re.compile(r'^golden matrix \[.*?\]: (.*)$', re.M)


def slt_files(root):
    files = []
    for dirpath, _, names in os.walk(root):
        files += [os.path.join(dirpath, n) for n in names if n.endswith('.test')]
    return sorted(files)


def slt_failures(text):
    """{path:line: message} of a run_slt.py log, with the path relative to the suite."""
    out = {}
    for line in text.splitlines():
        m = FAILURE.match(line)
        if m:
            where = m.group(1)
            out[where[where.find('slt/'):] if 'slt/' in where else where] = m.group(2)
    return out


def run_slt(args, files, config, log_path):
    env = dict(os.environ)
    env.pop('LATCHKEY_CONFIG', None)
    if config:
        env['LATCHKEY_CONFIG'] = config
    conf = os.path.join(args.shared, 'conformance')
    cmd = [sys.executable, os.path.join(conf, 'run_slt.py'), '--bin', args.bin,
           '--label', 'mssql', '--show-failures', '1000000'] + files
    with open(log_path, 'w') as log:
        proc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, text=True, env=env)
    text = open(log_path).read()
    found = SUMMARY.findall(text)
    if proc.returncode != 0 or not found:
        return None, None
    return tuple(map(int, found[-1])), slt_failures(text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--bin', required=True, help='the latchkey binary the slt runner starts')
    ap.add_argument('--shared', required=True)
    ap.add_argument('--logs', required=True)
    ap.add_argument('--default-log', help="check.py's slt log of the default configuration")
    ap.add_argument('--slt-every', type=int, default=1)
    ap.add_argument('--only', choices=('golden', 'slt'))
    ap.add_argument('--config', action='append', help='NAME:LATCHKEY_CONFIG (default: CONFIGS)')
    args = ap.parse_args()
    os.makedirs(args.logs, exist_ok=True)
    configs = CONFIGS
    if args.config:
        configs = [tuple(c.split(':', 1)) if ':' in c else (c, c) for c in args.config]
    ok = True

    if args.only != 'slt':
        for name, config in configs:
            t0 = time.time()
            log_path = os.path.join(args.logs, f'golden-{name}.log')
            env = dict(os.environ, GOLDEN_CONFIG=config)
            env.pop('LATCHKEY_CONFIG', None)
            with open(log_path, 'w') as log:
                proc = subprocess.run(
                    # --workspace: the features the final `cargo test --workspace` builds with
                    ['cargo', 'test', '--workspace', '--test', 'golden', '--locked', '--',
                     '--nocapture'], stdout=log, stderr=subprocess.STDOUT, text=True, env=env)
            text = open(log_path).read()
            found = GOLDEN.findall(text)
            summary = found[-1] if found else 'runner failed'
            status = 'ok' if proc.returncode == 0 and found else 'DIFFERS'
            print(f'matrix golden {name} ({config}): {status}: {summary} '
                  f'in {time.time() - t0:.0f} s (see {log_path})', flush=True)
            ok = ok and status == 'ok'

    if args.only != 'golden':
        suite = os.path.join(args.shared, 'conformance', 'slt')
        files = slt_files(suite)[::max(1, args.slt_every)]
        base = None
        if args.default_log and os.path.exists(args.default_log) and args.slt_every == 1:
            base = slt_failures(open(args.default_log).read())
        if base is None:
            counts, base = run_slt(args, files, None, os.path.join(args.logs, 'slt-default.log'))
            if base is None:
                print('matrix slt default: runner failed', flush=True)
                return 1
        for name, config in configs:
            t0 = time.time()
            log_path = os.path.join(args.logs, f'slt-{name}.log')
            counts, failures = run_slt(args, files, config, log_path)
            if failures is None:
                print(f'matrix slt {name} ({config}): runner failed, see {log_path}', flush=True)
                ok = False
                continue
            new = sorted(set(failures.items()) - set(base.items()))
            gone = sorted(set(base.items()) - set(failures.items()))
            status = 'ok' if not new and not gone else 'DIFFERS'
            print(f'matrix slt {name} ({config}): {status}: {len(files)} files, '
                  f'{counts[0]} passed / {counts[1]} failed, {len(new)} records differ from '
                  f'the default, {len(gone)} default failures not reproduced '
                  f'in {time.time() - t0:.0f} s', flush=True)
            for where, msg in (new + gone)[:10]:
                print(f'    {where}: {msg}')
            ok = ok and status == 'ok'
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
