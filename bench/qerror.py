#!/usr/bin/env python3
"""TPC-H q-error and compile-time report (issue 10, acceptance 3).

Runs the 22 TPC-H queries of ../shared/bench W9 (workloads/W9/tsql.sql) in latchkey with
SET STATISTICS XML ON and reads, from each actual plan:

* at every join operator (Hash Match / Nested Loops / Merge Join whose LogicalOp is a join,
  semi join or anti semi join), the estimated rows per execution (EstimateRows) against the
  actual rows per execution (sum of ActualRows over threads / ActualExecutions), and the
  q-error max(e/a, a/e) with both sides taken as at least 1 row (the usual definition: an
  estimate of 0.2 rows for an empty result is not an error of 5x);
* the statement's CompileTime / CompileCPU (QueryPlan attributes, ms), twice: the first run
  (which includes building the automatic statistics the optimizer asks for) and a second run
  after DBCC FREEPROCCACHE (statistics already there: the optimizer's own time).

Usage:
  bench/qerror.py --bin target/release/latchkey --tbl /tmp/bench-data/tpch-sf0.1 --sf 0.1
Prints a markdown report (summary per query, then every join). The data directory is created
under --work (default: a temporary directory) and loaded once with the W9 setup.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

NS = {"p": "http://schemas.microsoft.com/sqlserver/2004/07/showplan"}
JOIN_OPS = {"Hash Match", "Nested Loops", "Merge Join", "Adaptive Join"}
REPO = Path(__file__).resolve().parent.parent
# ../shared beside the main checkout, ../../shared beside a worktree under wt/
W9_CANDIDATES = [REPO / up / "shared" / "bench" / "workloads" / "W9" / "tsql.sql" for up in ("..", "../..")]
Q11_FRACTION = {"0.01": "0.01", "0.1": "0.001", "1": "0.0001"}


def parse_workload(path: Path, sf: str, tbl: str):
    text = path.read_text()
    params = {"SF": sf, "TPCH_DIR": tbl, "Q11_FRACTION": Q11_FRACTION.get(sf, str(0.0001 / float(sf)))}
    text = re.sub(r"\{\{(\w+)\}\}", lambda m: params[m.group(1)], text)
    parts = re.split(r"^-- (setup|measure)\b[ \t]*(.*)$", text, flags=re.M)
    setup, measures = "", []
    # parts: [preamble, kind, name, body, kind, name, body, ...]
    for i in range(1, len(parts), 3):
        kind, name, body = parts[i], parts[i + 1].strip(), parts[i + 2]
        if kind == "setup":
            setup = body
        else:
            measures.append((name, body))
    return setup, measures


def run(binary: str, data: Path, script: str, timeout: float):
    f = data.parent / "qerror_script.sql"
    f.write_text(script + "\n")
    r = subprocess.run([binary, "--data", str(data), "--format", "jsonl", "-i", str(f)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
    events = []
    for line in r.stdout.splitlines():
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError:
            pass
    errors = [e for e in events if e.get("type") == "error" and e.get("severity", 16) >= 11]
    if r.returncode != 0 or errors:
        raise RuntimeError(f"exit {r.returncode}: {errors[:1] or r.stderr[-300:]}")
    return events


def plan_docs(events):
    docs = []
    for e in events:
        if e.get("type") != "resultset":
            continue
        cols = e.get("columns", [])
        if cols and cols[0].get("name") == "Microsoft SQL Server 2005 XML Showplan":
            docs.extend(row[0] for row in e.get("rows", []))
    return docs


def actual(relop):
    rows = execs = 0
    for c in relop.findall("p:RunTimeInformation/p:RunTimeCountersPerThread", NS):
        rows += int(c.get("ActualRows", "0"))
        execs += int(c.get("ActualExecutions", "0"))
    return rows, execs


def joins_of(doc: str):
    """[(node id, physical op, logical op, est rows/exec, actual rows/exec, q-error)], compile."""
    root = ET.fromstring(doc)
    out, compile_ms = [], None
    for qp in root.iter(f"{{{NS['p']}}}QueryPlan"):
        if qp.get("CompileTime") is not None:
            compile_ms = (int(qp.get("CompileTime")), int(qp.get("CompileCPU", "0")))
    for relop in root.iter(f"{{{NS['p']}}}RelOp"):
        phys, logical = relop.get("PhysicalOp"), relop.get("LogicalOp", "")
        if phys not in JOIN_OPS or not ("Join" in logical or "Semi" in logical or "Anti" in logical):
            continue
        est = float(relop.get("EstimateRows", "0"))
        rows, execs = actual(relop)
        act = rows / execs if execs else 0.0
        e1, a1 = max(est, 1.0), max(act, 1.0)
        out.append((relop.get("NodeId"), phys, logical, est, act, max(e1 / a1, a1 / e1), execs))
    return out, compile_ms


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default="target/release/latchkey")
    ap.add_argument("--tbl", default="/tmp/bench-data/tpch-sf0.1", help="directory of the .tbl files")
    ap.add_argument("--sf", default="0.1")
    ap.add_argument("--work", default=None, help="directory for the data directory (kept)")
    ap.add_argument("--timeout", type=float, default=1800)
    ap.add_argument("--only", default=None, help="comma-separated query names (q01,q05)")
    ap.add_argument("--workload", default=None, help="W9 tsql.sql (default: ../shared/bench)")
    args = ap.parse_args()

    w9 = Path(args.workload) if args.workload else next((p for p in W9_CANDIDATES if p.exists()), None)
    if w9 is None:
        sys.exit("W9 workload not found; pass --workload")
    setup, measures = parse_workload(w9, args.sf, os.path.abspath(args.tbl))
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="qerror-"))
    work.mkdir(parents=True, exist_ok=True)
    data = work / "data"
    if not (data / "latchkey.loaded").exists():
        shutil.rmtree(data, ignore_errors=True)
        print(f"loading SF {args.sf} into {data} ...", file=sys.stderr)
        run(args.bin, data, setup, args.timeout)
        (data / "latchkey.loaded").write_text("ok\n")

    summary, detail = [], []
    for name, body in measures:
        if args.only and name not in args.only.split(","):
            continue
        script = "SET STATISTICS XML ON\nGO\n" + body.strip() + "\nGO\n"
        script += "SET STATISTICS XML OFF\nGO\nDBCC FREEPROCCACHE\nGO\n" + script
        print(f"{name} ...", file=sys.stderr)
        docs = plan_docs(run(args.bin, data, script, args.timeout))
        half = len(docs) // 2
        first, second = docs[:half], docs[half:]
        joins, c1, c2 = [], None, None
        for d in first:
            j, c = joins_of(d)
            joins.extend(j)
            c1 = c if c1 is None else (c1[0] + c[0], c1[1] + c[1]) if c else c1
        for d in second:
            _, c = joins_of(d)
            c2 = c if c2 is None else (c2[0] + c[0], c2[1] + c[1]) if c else c2
        qs = sorted(j[5] for j in joins)
        summary.append((name, len(joins), qs[-1] if qs else None,
                        qs[len(qs) // 2] if qs else None, c1, c2))
        for j in joins:
            detail.append((name,) + j)

    print(f"TPC-H SF {args.sf}, {args.bin}\n")
    print("| query | joins | max q-error | median q-error | compile ms (1st run, incl. auto stats) | compile ms (after FREEPROCCACHE) | compile CPU ms |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    fmt = lambda x: "-" if x is None else f"{x:.2f}"
    for name, n, mx, med, c1, c2 in summary:
        print(f"| {name} | {n} | {fmt(mx)} | {fmt(med)} | {c1[0] if c1 else '-'} | {c2[0] if c2 else '-'} | {c2[1] if c2 else '-'} |")
    print("\n| query | node | operator | est rows/exec | actual rows/exec | executions | q-error |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for name, node, phys, logical, est, act, q, execs in detail:
        print(f"| {name} | {node} | {phys} ({logical}) | {est:.1f} | {act:.1f} | {execs} | {q:.2f} |")


if __name__ == "__main__":
    main()
