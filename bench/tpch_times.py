#!/usr/bin/env python3
"""TPC-H query times in one warm latchkey process, for comparing plans and binaries (the cost
model's calibration check, optimizer README "Cost model").

Loads ../shared/bench W9's schema and data once into --data (bench/qerror.py's loader), then
runs the chosen queries --repeat times in turn (alternating, so the shared box's load spreads
over all of them), each timed inside the engine (SYSDATETIME before and after; the result rows
are fetched but not printed), after one untimed run of each (the buffer pool warm, automatic
statistics built, the plans cached). Prints each run and the median.

  python3 bench/tpch_times.py --bin target/release/latchkey --tbl /tmp/bench-data/tpch-sf1 \\
      --sf 1 --data /tmp/tpch-sf1-data --only q03,q09,q10,q18,q21 [--repeat 3] \\
      [--sql q09_loops=bench/q09_loops.sql] [--plans]

--sql NAME=FILE adds a query of one's own (a hinted variant, say); --plans prints each query's
SET SHOWPLAN_TEXT plan first. Two binaries on one data directory share its statistics.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from qerror import W9_CANDIDATES, parse_workload  # noqa: E402


def run(binary, data, script, timeout):
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as f:
        f.write(script)
        path = f.name
    try:
        r = subprocess.run([binary, "--data", str(data), "--format", "jsonl", "-i", path],
                           capture_output=True, text=True, timeout=timeout)
    finally:
        os.unlink(path)
    events = []
    for line in r.stdout.splitlines():
        try:
            events.append(json.loads(line))
        except ValueError:
            pass
    errors = [e for e in events if e.get("type") == "error" and e.get("severity", 16) >= 11]
    if r.returncode != 0 or errors:
        sys.exit(f"latchkey failed: exit {r.returncode}: {errors[:2] or r.stderr[-2000:]}")
    return events


def statement(body):
    """The query's text without its trailing GO / semicolon (one SELECT)."""
    text = "\n".join(l for l in body.strip().splitlines() if l.strip().upper() != "GO")
    return text.strip().rstrip(";")


def with_maxdop(sql, dop):
    """The query with MAXDOP added to its OPTION clause (or a new one)."""
    upper = sql.upper()
    at = upper.rfind("OPTION (")
    if at >= 0:
        return sql[:at + 8] + f"MAXDOP {dop}, " + sql[at + 8:]
    return f"{sql}\nOPTION (MAXDOP {dop})"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/latchkey")
    ap.add_argument("--tbl", default="/tmp/bench-data/tpch-sf1")
    ap.add_argument("--sf", default="1")
    ap.add_argument("--data", default="/tmp/latchkey-tpch-sf1")
    ap.add_argument("--only", default="q03,q09,q10,q18,q21")
    ap.add_argument("--sql", action="append", default=[], help="NAME=FILE, a query of one's own")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--plans", action="store_true")
    ap.add_argument("--maxdop", type=int, default=None,
                    help="append OPTION (MAXDOP n) (serial plans: steadier on a busy box)")
    ap.add_argument("--timeout", type=float, default=3600)
    a = ap.parse_args()
    w9 = next((p for p in W9_CANDIDATES if p.exists()), None)
    if w9 is None:
        sys.exit("W9 workload not found")
    setup, measures = parse_workload(w9, a.sf, os.path.abspath(a.tbl))
    data = Path(a.data)
    if not (data / "latchkey.loaded").exists():
        print(f"loading SF {a.sf} into {data} ...", file=sys.stderr)
        run(a.bin, data, setup, a.timeout)
        (data / "latchkey.loaded").write_text("ok\n")
    wanted = a.only.split(",") if a.only else []
    queries = [(n, statement(b)) for n, b in measures if n in wanted]
    for spec in a.sql:
        name, path = spec.split("=", 1)
        queries.append((name, statement(Path(path).read_text())))
    if a.maxdop is not None:
        queries = [(n, with_maxdop(q, a.maxdop)) for n, q in queries]
    if a.plans:
        script = ["SET SHOWPLAN_TEXT ON", "GO"] + [q + "\nGO" for _, q in queries]
        texts = [e for e in run(a.bin, data, "\n".join(script) + "\n", a.timeout)
                 if e.get("type") == "resultset"]
        # SHOWPLAN_TEXT: the statement, then its plan, per query
        plans = texts[1::2]
        for (name, _), p in zip(queries, plans):
            print(f"-- {name}")
            for row in p["rows"]:
                print(row[0])
    script = ["SET NOCOUNT ON;", "DECLARE @t datetime2;"]
    script += [q + ";" for _, q in queries]
    for _ in range(a.repeat):
        for name, q in queries:
            script += ["SET @t = SYSDATETIME();", q + ";",
                       f"SELECT '{name}' AS q, DATEDIFF(microsecond, @t, SYSDATETIME()) / 1000.0 AS ms;"]
    times = {}
    for e in run(a.bin, data, "\n".join(script) + "\nGO\n", a.timeout):
        cols = [c["name"] for c in e.get("columns", [])]
        if e.get("type") == "resultset" and cols == ["q", "ms"]:
            for q, ms in e["rows"]:
                times.setdefault(q, []).append(float(ms))
    print(f"{a.bin}, SF {a.sf}, warm, ms per run (median)")
    for name, _ in queries:
        t = times.get(name, [])
        runs = " / ".join(f"{x:.0f}" for x in t)
        print(f"{name:<12} {statistics.median(t) if t else float('nan'):>9.0f}   ({runs})")


if __name__ == "__main__":
    main()
