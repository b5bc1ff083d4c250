#!/usr/bin/env python3
"""DOP scaling (issue 9 acceptance 2), old binary against new: DOP 1 vs DOP N of the
acceptance's three cases — a scan-aggregate, a hash join, TPC-H Q1 — plus a join whose joined
rows all cross the Gather Streams (the exchange's own cost), on the data of
bench/parallel_dop.py (its 5M-row heap dbo.s and TPC-H SF 1 lineitem, loaded once).

Each round runs every binary once, in turn, in its own warm process (a warm-up per query, then
--repeat timed runs of each degree, timed in the engine), so a busy box's load falls on every
binary alike; medians over all rounds. Before each process the script measures what the box
gives a 2-process job right now: the speed-up of two busy-loop processes over one ("box x2").
On the shared 2-core box that is often 1.0-1.5x rather than 2: read a query's x2 against it.

Usage: cargo build --release -p cli &&
       python3 bench/dop_scaling.py --bin old=/tmp/latchkey-main,new=target/release/latchkey
              [--data DIR] [--rounds 2] [--repeat 3] [--only scan_sum,scan_group,scan_join,q1]
              [--dops 1,2] [--cpu]
With --cpu, each query's CPU per run (all threads) at each degree too: DOP 1's CPU over DOP
N's is the parallel plan's work efficiency, which the box's load does not change.
"""
import argparse
import json
import multiprocessing
import os
import resource
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from parallel_dop import QUERIES, SETUP_Q1, SETUP_SCAN, run, with_dop  # noqa: E402

CASES = dict(QUERIES)
# every joined row (1M of them, with a string column) crosses the Gather Streams into the
# serial COUNT(DISTINCT) (not mergeable: no local-then-global form)
CASES["gather_join"] = ("SELECT COUNT(DISTINCT x.b), MAX(x.d) FROM dbo.s x JOIN dbo.s y "
                        "ON x.a = y.a WHERE y.a % 5 = 0 OPTION (HASH JOIN)")
DEFAULT = "scan_sum,scan_group,scan_join,gather_join,q1"


def spin(n):
    x = 0
    for i in range(n):
        x += i * i
    return x


def box_x2(n=3_000_000):
    """Two busy-loop processes against one: what a 2-thread job gets from the box now."""
    t0 = time.perf_counter()
    spin(n)
    one = time.perf_counter() - t0
    with multiprocessing.Pool(2) as pool:
        t0 = time.perf_counter()
        pool.map(spin, [n, n])
        two = time.perf_counter() - t0
    return 2 * one / two


def timed(binary, data, names, dops, repeat):
    script = ["EXEC sp_configure 'show advanced options', 1; RECONFIGURE;",
              "EXEC sp_configure 'cost threshold for parallelism', 0; RECONFIGURE;",
              "GO", "SET NOCOUNT ON;", "DECLARE @t datetime2;"]
    for n in names:
        script.append(with_dop(CASES[n], dops[0]) + ";")
        for _ in range(repeat):
            for dop in dops:
                script += ["SET @t = SYSDATETIME();", with_dop(CASES[n], dop) + ";",
                           f"SELECT '{n}' AS q, {dop} AS dop, "
                           "DATEDIFF(microsecond, @t, SYSDATETIME()) / 1000.0 AS ms;"]
    out = run(binary, data, "\n".join(script) + "\nGO\n")
    times = {}
    for line in out.splitlines():
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        if ev.get("type") == "resultset" and [c["name"] for c in ev["columns"]] == ["q", "dop", "ms"]:
            for q, dop, ms in ev["rows"]:
                times.setdefault((q, int(dop)), []).append(float(ms))
    return times


def process_cpu(binary, data, sql):
    """CPU seconds (user + system, every thread) of one latchkey process running `sql`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    run(binary, data, sql)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def cpu_per_query(binary, data, name, dop, repeat):
    """CPU ms of one run of `name` at `dop`, every thread counted: a process running the
    warm-up and `repeat` runs, less one running the warm-up alone. Unlike elapsed time this
    does not depend on what else runs on the box: DOP 1's CPU over DOP N's is the parallel
    plan's work efficiency, and N times it bounds the speed-up on N idle cores."""
    head = ("EXEC sp_configure 'show advanced options', 1; RECONFIGURE;\n"
            "EXEC sp_configure 'cost threshold for parallelism', 0; RECONFIGURE;\nGO\n"
            "SET NOCOUNT ON;\n" + with_dop(CASES[name], 1) + ";\n")
    runs = "".join(with_dop(CASES[name], dop) + ";\n" for _ in range(repeat))
    base = process_cpu(binary, data, head + "GO\n")
    full = process_cpu(binary, data, head + runs + "GO\n")
    return max(full - base, 0.0) * 1000 / repeat


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True, help="label=path[,label=path...]")
    ap.add_argument("--data", default="/tmp/latchkey-parallel-bench")
    ap.add_argument("--rows", type=int, default=5_000_000)
    ap.add_argument("--tpch", default="/tmp/bench-data/tpch-sf1")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default=DEFAULT)
    ap.add_argument("--dops", default="1,2")
    ap.add_argument("--cpu", action="store_true",
                    help="also each query's CPU per run at each degree (all threads)")
    a = ap.parse_args()
    bins = [b.split("=", 1) if "=" in b else (b, b) for b in a.bin.split(",")]
    dops = [int(d) for d in a.dops.split(",")]
    names = [n for n in a.only.split(",") if n in CASES]
    os.makedirs(a.data, exist_ok=True)
    marker = os.path.join(a.data, ".parallel-bench-{}")
    if any(n != "q1" and n != "q6" for n in names) and not os.path.exists(
            marker.format(f"scan{a.rows}")):
        print(f"loading dbo.s ({a.rows} rows) ...", file=sys.stderr)
        run(bins[0][1], a.data, SETUP_SCAN.format(rows=a.rows))
        open(marker.format(f"scan{a.rows}"), "w").close()
    if any(n in ("q1", "q6") for n in names) and not os.path.exists(marker.format("q1")):
        print(f"loading dbo.lineitem from {a.tpch} ...", file=sys.stderr)
        run(bins[0][1], a.data, SETUP_Q1.format(tpch=a.tpch))
        open(marker.format("q1"), "w").close()
    times = {}
    boxes = []
    for r in range(a.rounds):
        for label, path in bins:
            boxes.append(box_x2())
            load = os.getloadavg()[0]
            print(f"round {r + 1} {label}: box x2 {boxes[-1]:.2f}, load {load:.1f}",
                  file=sys.stderr)
            for k, v in timed(path, a.data, names, dops, a.repeat).items():
                times.setdefault((label,) + k, []).extend(v)
    head = "".join(f" {'DOP ' + str(d) + ' ms':>11}" for d in dops)
    head += "".join(f" {'x' + str(d):>7}" for d in dops[1:])
    if boxes:
        print(f"box x2 (two busy-loop processes vs one): median {statistics.median(boxes):.2f} "
              f"(min {min(boxes):.2f}, max {max(boxes):.2f}); load {os.getloadavg()}")
        print(f"{'query':<13}{'binary':<8}{head}   (median of {a.rounds}x{a.repeat})")
    for n in names if boxes else []:
        for label, _ in bins:
            med = [statistics.median(times[(label, n, d)]) for d in dops]
            line = "".join(f" {t:>11.1f}" for t in med)
            line += "".join(f" {med[0] / t:>6.2f}x" for t in med[1:])
            print(f"{n:<13}{label:<8}{line}")
    if a.cpu:
        print(f"\nCPU ms per run, all threads (process CPU less a warm-up-only process; "
              f"{a.repeat} runs); eff = DOP {dops[0]} CPU / DOP N CPU")
        for n in names:
            for label, path in bins:
                cpu = [cpu_per_query(path, a.data, n, d, a.repeat) for d in dops]
                line = "".join(f" {c:>11.1f}" for c in cpu)
                line += "".join(f" {cpu[0] / c:>6.2f}" if c > 0 else "      -" for c in cpu[1:])
                print(f"{n:<13}{label:<8}{line}")


if __name__ == "__main__":
    main()
