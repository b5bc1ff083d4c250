#!/usr/bin/env python3
"""TPC-H (W9) first-compile and warm compile times of the 22 TPC-H queries (SHOWPLAN_XML: compile only).
usage: compile_times.py BIN BASE_DATA_DIR SF [isolated]"""
import sys, shutil, re, time, tempfile
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))
import qerror
binary, base, sf = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
isolated = len(sys.argv) > 4
w9 = next(p for p in qerror.W9_CANDIDATES if p.exists())
_, measures = qerror.parse_workload(w9, sf, "/tmp")
work = Path(tempfile.mkdtemp(prefix="compile-times-"))
def fresh():
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(base, work / "data")
def times(script):
    ev = qerror.run(binary, work / "data", script, 1800)
    out = []
    for d in qerror.plan_docs(ev):
        for m in re.finditer(r'CompileTime="(\d+)"', d):
            out.append(int(m.group(1)))
    return out
def wrap(body):
    out = ""
    for b in qerror_batches(body):
        if re.match(r"\s*(create|drop)\s+view", b, re.I):
            out += "SET SHOWPLAN_XML OFF\nGO\n" + b + "\nGO\nSET SHOWPLAN_XML ON\nGO\n"
        else:
            out += b + "\nGO\n"
    return out
def qerror_batches(sql):
    out, cur = [], []
    for line in sql.splitlines():
        if line.strip().upper() == "GO":
            out.append("\n".join(cur)); cur = []
        else:
            cur.append(line)
    out.append("\n".join(cur))
    return [b for b in out if b.strip()]
measures = [(n, wrap(b)) for n, b in measures]
names = [n for n, _ in measures]
if isolated:
    first = []
    for n, body in measures:
        fresh()
        t = times("SET SHOWPLAN_XML ON\nGO\n" + body)
        first.append(sum(t))
        print(n, sum(t), file=sys.stderr)
    second = [None] * len(names)
else:
    fresh()
    script = "SET SHOWPLAN_XML ON\nGO\n" + "".join(b for _, b in measures)
    t0 = time.time()
    script2 = script + script
    ev = qerror.run(binary, work / "data", script2, 1800)
    per = []
    for d in qerror.plan_docs(ev):
        per.append(sum(int(x) for x in re.findall(r'CompileTime="(\d+)"', d)))
    half = len(per) // 2
    first, second = per[:half], per[half:]
    print("docs", len(per), "wall", round(time.time() - t0, 1), file=sys.stderr)
for i, n in enumerate(names):
    print(f"| {n} | {first[i] if i < len(first) else '-'} | {second[i] if i < len(second) and second[i] is not None else '-'} |")
shutil.rmtree(work, ignore_errors=True)
