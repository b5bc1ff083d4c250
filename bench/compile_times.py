#!/usr/bin/env python3
"""TPC-H (W9) first-compile and warm compile times of the 22 TPC-H queries (SHOWPLAN_XML: compile only).
usage: compile_times.py BIN BASE_DATA_DIR SF [isolated]
Prints per query: first compile ms (CompileTime, wall) and warm ms, then the same as CompileCPU
(the compiling thread's CPU ms: on a loaded machine the steadier figure)."""
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
def compile_ms(doc, attr="CompileTime"):
    return sum(int(x) for x in re.findall(attr + r'="(\d+)"', doc))
def times(script):
    ev = qerror.run(binary, work / "data", script, 1800)
    return [(compile_ms(d), compile_ms(d, "CompileCPU")) for d in qerror.plan_docs(ev)]
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
        first.append((sum(x for x, _ in t), sum(c for _, c in t)))
        print(n, first[-1], file=sys.stderr)
    second = [None] * len(names)
else:
    fresh()
    script = "SET SHOWPLAN_XML ON\nGO\n" + "".join(b for _, b in measures)
    t0 = time.time()
    script2 = script + script
    ev = qerror.run(binary, work / "data", script2, 1800)
    per = []
    for d in qerror.plan_docs(ev):
        per.append((compile_ms(d), compile_ms(d, "CompileCPU")))
    half = len(per) // 2
    first, second = per[:half], per[half:]
    print("docs", len(per), "wall", round(time.time() - t0, 1), file=sys.stderr)
def cell(v, k):
    return "-" if v is None else str(v[k])
print("| query | first ms | warm ms | first CPU ms | warm CPU ms |")
print("|---|---:|---:|---:|---:|")
for i, n in enumerate(names):
    f = first[i] if i < len(first) else None
    w = second[i] if i < len(second) else None
    print(f"| {n} | {cell(f, 0)} | {cell(w, 0)} | {cell(f, 1)} | {cell(w, 1)} |")
print(f"| sum | {sum(f[0] for f in first)} | {sum(w[0] for w in second if w)} | "
      f"{sum(f[1] for f in first)} | {sum(w[1] for w in second if w)} |")
shutil.rmtree(work, ignore_errors=True)
