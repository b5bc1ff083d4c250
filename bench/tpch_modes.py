#!/usr/bin/env python3
"""Where TPC-H spends its time, per execution mode (issue 9, batch mode): the 22 W9 queries
(../shared/bench/workloads/W9/tsql.sql) in one latchkey process (warm buffer pool); per query
a warm-up, the median of --repeat timed runs (SYSDATETIME inside the engine), then one run
under SET STATISTICS XML ON whose RelOps give each operator's ActualExecutionMode, actual rows
and elapsed time. An operator's *self* time is its elapsed time less its children's (elapsed
times are inclusive); summed per mode it says how much of a query still runs in row mode.

Usage: cargo build --release -p cli &&
       python3 bench/tpch_modes.py [--bin target/release/latchkey] [--data DIR]
              [--tpch /tmp/bench-data/tpch-sf0.1] [--sf 0.1] [--repeat 3] [--only q01,q05]
              [--option "MAXDOP 1"] [--ops]     (--ops: every operator's line)
       python3 bench/tpch_modes.py --bin OLD,NEW ...   (several binaries: each query runs on
              each in turn, so a busy machine's load falls on all of them alike; min and
              median of --repeat per binary)
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

NS = "{http://schemas.microsoft.com/sqlserver/2004/07/showplan}"
W9 = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../shared/bench/workloads/W9/tsql.sql")


def sections(path, sf, tpch):
    src = open(path).read()
    src = src.replace("{{SF}}", str(sf)).replace("{{TPCH_DIR}}", tpch)
    src = src.replace("{{Q11_FRACTION}}", f"{0.0001 / float(sf):g}")
    parts = re.split(r"^-- (setup|measure \w+|reset)\s*$", src, flags=re.M)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts), 2)}


def run(binary, data, script):
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as f:
        f.write(script)
        path = f.name
    try:
        out = subprocess.run([binary, "--data", data, "--format", "jsonl", "-i", path],
                             capture_output=True, text=True)
    finally:
        os.unlink(path)
    errors = [l for l in out.stdout.splitlines() if l.startswith('{"type":"error"')]
    if out.returncode != 0 or errors:
        sys.exit(f"latchkey failed:\n{errors[:5]}\n{out.stderr[-3000:]}")
    return [json.loads(l) for l in out.stdout.splitlines() if l.startswith("{")]


def with_option(batch, option):
    """`batch` with OPTION (...) on its last SELECT statement (Q15: the one reading the view)."""
    if not option:
        return batch
    body = batch.rstrip().rstrip(";")
    return f"{body}\nOPTION ({option});"


def operators(plan_xml):
    """(depth, physical op, logical op, mode, rows, self ms) per RelOp, in plan order."""
    out = []
    root = ET.fromstring(plan_xml)

    def walk(rel, depth):
        rt = rel.find(f"{NS}RunTimeInformation")
        threads = rt.findall(f"{NS}RunTimeCountersPerThread") if rt is not None else []
        rows = sum(int(t.get("ActualRows", 0)) for t in threads)
        elapsed = max((int(t.get("ActualElapsedms", 0)) for t in threads), default=0)
        modes = {t.get("ActualExecutionMode", "Row") for t in threads} or {"Row"}
        kids = [r for r in rel.iter(f"{NS}RelOp") if r is not rel and parent_of(r) is rel]
        entry = [depth, rel.get("PhysicalOp"), rel.get("LogicalOp"), "/".join(sorted(modes)),
                 rows, elapsed]
        out.append(entry)
        child_elapsed = 0
        for k in kids:
            child_elapsed += walk(k, depth + 1)
        entry[5] = max(0, elapsed - child_elapsed)
        return elapsed

    parents = {}
    for p in root.iter():
        for c in p:
            parents[c] = p

    def parent_of(rel):
        p = parents.get(rel)
        while p is not None and p.tag != f"{NS}RelOp":
            p = parents.get(p)
        return p

    for qp in root.iter(f"{NS}QueryPlan"):
        top = qp.find(f"{NS}RelOp")
        if top is not None:
            walk(top, 0)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/latchkey")
    ap.add_argument("--data", default="/tmp/latchkey-tpch-modes")
    ap.add_argument("--tpch", default="/tmp/bench-data/tpch-sf0.1")
    ap.add_argument("--sf", default="0.1")
    ap.add_argument("--w9", default=W9)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default="")
    ap.add_argument("--option", default="", help='query hint, e.g. "MAXDOP 1"')
    ap.add_argument("--ops", action="store_true")
    a = ap.parse_args()
    secs = sections(a.w9, a.sf, a.tpch)
    bins = a.bin.split(",")
    marker = os.path.join(a.data, ".tpch-modes-loaded")
    if not os.path.exists(marker):
        os.makedirs(a.data, exist_ok=True)
        print(f"loading TPC-H SF {a.sf} from {a.tpch} ...", file=sys.stderr)
        run(bins[0], a.data, secs["setup"])  # the first binary loads; all read the same files
        open(marker, "w").close()
    names = [k.split()[1] for k in secs if k.startswith("measure")]
    if a.only:
        names = [n for n in names if n in a.only.split(",")]
    if len(bins) > 1:
        compare(a, bins, secs, names)
        return
    print(f"{'query':<6} {'ms':>9} {'row-mode self ms':>17} {'batch self ms':>14}  row-mode operators"
          f"   (median of {a.repeat}; option: {a.option or 'none'})")
    total = 0.0
    for n in names:
        times, plan = measure(a, a.bin, secs, n, True)
        ms = statistics.median(times)
        total += ms
        ops = operators(plan) if plan else []
        row_self = sum(o[5] for o in ops if o[3] == "Row")
        batch_self = sum(o[5] for o in ops if o[3] != "Row")
        hot = sorted((o for o in ops if o[3] == "Row" and o[5] > 0), key=lambda o: -o[5])[:3]
        hot_s = ", ".join(f"{o[1]}({o[2]}) {o[5]}" for o in hot)
        print(f"{n:<6} {ms:>9.1f} {row_self:>17} {batch_self:>14}  {hot_s}")
        if a.ops:
            for d, phys, log, mode, rows, self_ms in ops:
                print(f"         {'  ' * d}{phys} ({log}) [{mode}] rows={rows} self={self_ms}ms")
    print(f"{'total':<6} {total:>9.1f}")


def measure(a, binary, secs, n, with_plan):
    """Timed runs of query `n` (ms) and, with_plan, its actual plan XML."""
    batches = [b for b in re.split(r"^GO\s*$", secs[f"measure {n}"], flags=re.M) if b.strip()]
    # the statement to time is the batch with the query (Q15: view, query, drop)
    qi = max(range(len(batches)), key=lambda i: len(batches[i]) if "select" in batches[i].lower() and "create view" not in batches[i].lower() else -1)
    pre, q, post = batches[:qi], with_option(batches[qi], a.option), batches[qi + 1:]
    script = ["SET NOCOUNT ON;\nGO"]
    for p in pre:
        script.append(p + "\nGO")
    script.append(q + "\nGO")  # warm-up
    for _ in range(a.repeat):
        script.append("DECLARE @t datetime2 = SYSDATETIME();\n" + q +
                      "\nSELECT DATEDIFF(microsecond, @t, SYSDATETIME()) / 1000.0 AS bench_ms;\nGO")
    if with_plan:
        script.append("SET STATISTICS XML ON;\nGO\n" + q + "\nGO\nSET STATISTICS XML OFF;\nGO")
    for p in post:
        script.append(p + "\nGO")
    events = run(binary, a.data, "\n".join(script) + "\n")
    times, plan = [], None
    for ev in events:
        cols = [c["name"] for c in ev.get("columns", [])]
        if ev.get("type") != "resultset":
            continue
        if cols == ["bench_ms"]:
            times.append(float(ev["rows"][0][0]))
        elif len(cols) == 1 and ev["rows"] and str(ev["rows"][0][0]).startswith("<ShowPlanXML"):
            plan = ev["rows"][0][0]
    return times, plan


def compare(a, bins, secs, names):
    """Each query on each binary in turn: min / median ms per binary."""
    head = " ".join(f"{'bin' + str(i) + ' min/med':>17}" for i in range(len(bins)))
    print(f"{'query':<6} {head}   (ms, {a.repeat} runs; option: {a.option or 'none'})")
    for i, b in enumerate(bins):
        print(f"  bin{i} = {b}")
    tot_min = [0.0] * len(bins)
    tot_med = [0.0] * len(bins)
    for n in names:
        cells = []
        for i, b in enumerate(bins):
            times, _ = measure(a, b, secs, n, False)
            lo, med = min(times), statistics.median(times)
            tot_min[i] += lo
            tot_med[i] += med
            cells.append(f"{lo:>8.1f}/{med:<8.1f}")
        print(f"{n:<6} " + " ".join(cells))
    print(f"{'total':<6} " + " ".join(f"{lo:>8.1f}/{med:<8.1f}" for lo, med in zip(tot_min, tot_med)))


if __name__ == "__main__":
    main()
