#!/usr/bin/env python3
"""Cost model calibration (crates/optimizer/src/cost.rs, optimizer README "Cost model"):
times the operations whose cost ratios drive the planner's choices on this executor and prints
each measured per-unit time beside the cost model's, both as a ratio to a scanned row.

One command:
  cargo build --release -p cli && python3 bench/cost_calibration.py [--bin target/release/latchkey]
      [--data /tmp/latchkey-costcal] [--rows 200000] [--repeat 7] [--no-cold]

How it measures
- Tables (built once into --data): h, a heap of --rows char(100) rows with a nonclustered index
  on id; c, --rows rows clustered on id with a nonclustered index on k (k a permutation of id);
  s, --rows / 10 rows clustered on id whose k points at random rows of c.
- Warm: one latchkey process; every query runs once to fill the buffer pool, then --repeat
  rounds of all queries in turn (alternating, so the box's load spreads over all of them), each
  timed inside the engine (SYSDATETIME before and after), MAXDOP 1; the median is used.
- Cold: for the I/O rows a fresh process per run (empty buffer pool) after evicting the data
  files from the OS page cache (posix_fadvise DONTNEED: only this script's own files), timed
  the same way, median of --cold-repeat.
- The model's cost of each query is its TotalSubtreeCost under SET SHOWPLAN_ALL ON (the same
  plan the timed run uses: the script prints each plan's operators so a changed plan shows).
- Each "unit" below is a linear combination of queries (e.g. the loops join minus the scan of
  its outer side, per seek); the same combination is applied to the times and to the model's
  costs, so the two columns price the same work. "ratio" = per-unit value / per-row value of a
  warm heap scan (measured and model each against their own scan row).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROW = "OPTION (MAXDOP 1, USE HINT ('DISALLOW_BATCH_MODE'))"
BATCH = "OPTION (MAXDOP 1, USE HINT ('ALLOW_BATCH_MODE'))"

SETUP = """
SET NOCOUNT ON
CREATE TABLE h (id int NOT NULL, grp int NOT NULL, pad char(100) NOT NULL)
INSERT INTO h WITH (TABLOCK) SELECT value, value % 10, 'x' FROM GENERATE_SERIES(1, {rows})
CREATE INDEX ix_id ON h (id)
CREATE TABLE c (id int PRIMARY KEY, k int NOT NULL, v int NOT NULL)
INSERT INTO c WITH (TABLOCK)
  SELECT value, CAST(CAST(value AS bigint) * 7919 % {rows} AS int) + 1, value
  FROM GENERATE_SERIES(1, {rows})
CREATE INDEX ix_k ON c (k)
CREATE TABLE s (id int PRIMARY KEY, k int NOT NULL)
INSERT INTO s WITH (TABLOCK)
  SELECT value, CAST(CAST(value AS bigint) * 104729 % {rows} AS int) + 1
  FROM GENERATE_SERIES(1, {small})
UPDATE STATISTICS h
UPDATE STATISTICS c
UPDATE STATISTICS s
GO
"""


def queries(rows, small):
    """name -> T-SQL (each returns one small row; MAXDOP 1)."""
    sel = small  # rows a seek range / the lookups return
    return {
        # heap scan, a predicate no row passes (the scan's own per-row work)
        "scan_h": f"SELECT COUNT(*) FROM h WITH (INDEX(0)) WHERE grp < 0 {ROW}",
        # + a second predicate evaluated on every row (a char comparison)
        "scan_h_2pred": f"SELECT COUNT(*) FROM h WITH (INDEX(0)) WHERE grp < 0 OR pad = 'y' {ROW}",
        # every row into a stream / hash aggregate
        "agg_stream": f"SELECT MAX(id) FROM h WITH (INDEX(0)) WHERE grp >= 0 {ROW}",
        "agg_hash": f"SELECT grp, MAX(id) FROM h WITH (INDEX(0)) WHERE grp >= 0 GROUP BY grp "
                    f"OPTION (MAXDOP 1, HASH GROUP, USE HINT ('DISALLOW_BATCH_MODE'))",
        "scan_c": f"SELECT COUNT(*) FROM c WITH (INDEX(1)) WHERE v < 0 {ROW}",
        "scan_s": f"SELECT COUNT(*) FROM s WITH (INDEX(1)) WHERE k < 0 {ROW}",
        # merge joins of c with itself: on k both inputs need a Sort, on the clustered key none
        "sort_k": "SELECT COUNT(*) FROM c a WITH (INDEX(1)) INNER MERGE JOIN c b WITH (INDEX(1)) "
                  "ON a.k = b.k OPTION (MAXDOP 1, FORCE ORDER, USE HINT ('DISALLOW_BATCH_MODE'))",
        "nosort_id": "SELECT COUNT(*) FROM c a WITH (INDEX(1)) INNER MERGE JOIN c b "
                     "WITH (INDEX(1)) ON a.id = b.id "
                     "OPTION (MAXDOP 1, FORCE ORDER, USE HINT ('DISALLOW_BATCH_MODE'))",
        # hash joins (latchkey builds on the second input): build on c, probe with s;
        # build on s (small), probe with c
        "hash_build_c": "SELECT COUNT(*) FROM s WITH (INDEX(1)) INNER HASH JOIN c WITH (INDEX(1)) "
                        "ON s.k = c.id OPTION (MAXDOP 1, FORCE ORDER, "
                        "USE HINT ('DISALLOW_BATCH_MODE'))",
        "hash_build_s": "SELECT COUNT(*) FROM c WITH (INDEX(1)) INNER HASH JOIN s WITH (INDEX(1)) "
                        "ON s.k = c.id OPTION (MAXDOP 1, FORCE ORDER, "
                        "USE HINT ('DISALLOW_BATCH_MODE'))",
        "batch_scan_c": f"SELECT COUNT(*) FROM c WITH (INDEX(1)) WHERE v < 0 {BATCH}",
        "batch_scan_s": f"SELECT COUNT(*) FROM s WITH (INDEX(1)) WHERE k < 0 {BATCH}",
        "batch_hash_build_c": "SELECT COUNT(*) FROM s WITH (INDEX(1)) INNER HASH JOIN c "
                              "WITH (INDEX(1)) ON s.k = c.id OPTION (MAXDOP 1, FORCE ORDER, "
                              "USE HINT ('ALLOW_BATCH_MODE'))",
        "batch_hash_build_s": "SELECT COUNT(*) FROM c WITH (INDEX(1)) INNER HASH JOIN s "
                              "WITH (INDEX(1)) ON s.k = c.id OPTION (MAXDOP 1, FORCE ORDER, "
                              "USE HINT ('ALLOW_BATCH_MODE'))",
        # nested loops: one clustered seek into c per row of s (random rows of c)
        "loops_seek": "SELECT COUNT(*) FROM s WITH (INDEX(1)) INNER LOOP JOIN c "
                      "ON c.id = s.k OPTION (MAXDOP 1, FORCE ORDER, "
                      "USE HINT ('DISALLOW_BATCH_MODE'))",
        # nonclustered range seek of `sel` rows with a RID lookup per row (heap rows in order);
        # the same through c's index on k: a Key Lookup per row, into random rows of c. (A
        # covering variant, MAX(id) WITH (INDEX(ix_id)), still plans a lookup today.)
        "ix_h_rid_lookup": f"SELECT MAX(grp) FROM h WITH (INDEX(ix_id)) WHERE id <= {sel} {ROW}",
        "ix_c_key_lookup": f"SELECT MAX(v) FROM c WITH (INDEX(ix_k)) WHERE k <= {sel} {ROW}",
    }


def units(rows, small):
    """(unit name, {query: coefficient}, divisor, what) — per-unit value = sum(coef * value) /
    divisor, applied alike to measured ms and model cost."""
    n, m = float(rows), float(small)
    # hash joins: A = scans + m*b + n*p, B = scans + n*b + m*p  =>  solve for b and p
    det = m * m - n * n

    def solve_b(a, b_):
        return {a: m / det, b_: -n / det}

    def solve_p(a, b_):
        return {a: -n / det, b_: m / det}

    def minus_scans(coefs, scans):
        out = dict(coefs)
        total = sum(coefs.values())
        for s in scans:
            out[s] = out.get(s, 0.0) - total
        return out

    hb = solve_b("hash_build_s", "hash_build_c")
    hp = solve_p("hash_build_s", "hash_build_c")
    bb = solve_b("batch_hash_build_s", "batch_hash_build_c")
    bp = solve_p("batch_hash_build_s", "batch_hash_build_c")
    return [
        ("scan row (heap, warm)", {"scan_h": 1}, n, "heap scan / rows"),
        ("scan row (clustered, warm)", {"scan_c": 1}, n, "clustered scan / rows"),
        ("predicate per row", {"scan_h_2pred": 1, "scan_h": -1}, n, "2nd predicate / rows"),
        ("stream aggregate row", {"agg_stream": 1, "scan_h": -1}, n, "MAX over all rows"),
        ("hash aggregate row", {"agg_hash": 1, "scan_h": -1}, n, "GROUP BY grp (10 groups)"),
        ("merge join row", {"nosort_id": 1, "scan_c": -2}, 2 * n, "ordered inputs, per input row"),
        ("sort row", {"sort_k": 1, "nosort_id": -1}, 2 * n, f"sort of {rows} rows (n log n)"),
        ("hash build row", minus_scans(hb, ["scan_c", "scan_s"]), 1.0, "row mode"),
        ("hash probe row", minus_scans(hp, ["scan_c", "scan_s"]), 1.0, "row mode"),
        ("batch scan row", {"batch_scan_c": 1}, n, "clustered, batch mode"),
        ("batch hash build row", minus_scans(bb, ["batch_scan_c", "batch_scan_s"]), 1.0,
         "batch mode"),
        ("batch hash probe row", minus_scans(bp, ["batch_scan_c", "batch_scan_s"]), 1.0,
         "batch mode"),
        ("clustered seek (loops)", {"loops_seek": 1, "scan_s": -1}, m, "per outer row"),
        ("seek + RID lookup row", {"ix_h_rid_lookup": 1}, m, "heap rows in id order"),
        ("seek + key lookup row", {"ix_c_key_lookup": 1}, m, "random rows of c"),
    ]


COLD = ["scan_h", "scan_c", "loops_seek", "ix_c_key_lookup"]


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
    return out.stdout


def resultsets(out):
    for line in out.splitlines():
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        if ev.get("type") == "resultset":
            yield [c["name"] for c in ev.get("columns", [])], ev["rows"]


def timed(name, sql):
    return ["SET @t = SYSDATETIME();", sql + ";",
            f"SELECT '{name}' AS q, DATEDIFF(microsecond, @t, SYSDATETIME()) / 1000.0 AS ms;"]


def evict(data):
    """Drops this data directory's files from the OS page cache (best effort)."""
    for root, _, files in os.walk(data):
        for f in files:
            try:
                fd = os.open(os.path.join(root, f), os.O_RDONLY)
            except OSError:
                continue
            try:
                os.fsync(fd)
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            except OSError:
                pass
            finally:
                os.close(fd)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/latchkey")
    ap.add_argument("--data", default="/tmp/latchkey-costcal")
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--cold-repeat", type=int, default=3)
    ap.add_argument("--no-cold", action="store_true")
    ap.add_argument("--plans", action="store_true", help="print each query's plan operators")
    a = ap.parse_args()
    rows, small = a.rows, a.rows // 10
    qs = queries(rows, small)
    marker = os.path.join(a.data, f".costcal-{rows}")
    if not os.path.exists(marker):
        os.makedirs(a.data, exist_ok=True)
        print(f"loading h, c, s ({rows} rows) into {a.data} ...", file=sys.stderr)
        run(a.bin, a.data, SETUP.format(rows=rows, small=small))
        open(marker, "w").close()

    # the model: each query's TotalSubtreeCost and operators
    script = ["SET SHOWPLAN_ALL ON", "GO"] + [qs[n] + "\nGO" for n in qs]
    model, plans, scan_pages = {}, {}, {}
    for (cols, rs), name in zip(
            (r for r in resultsets(run(a.bin, a.data, "\n".join(script) + "\n"))
             if "TotalSubtreeCost" in r[0]), qs):
        c = {k: i for i, k in enumerate(cols)}
        model[name] = float(rs[0][c["TotalSubtreeCost"]])
        plans[name] = [(r[c["PhysicalOp"]], r[c["EstimateRows"]], r[c["EstimateIO"]],
                        r[c["EstimateCPU"]], r[c["EstimateExecutions"]]) for r in rs[1:]]
        for r in rs[1:]:
            if r[c["PhysicalOp"]] in ("Table Scan", "Clustered Index Scan") and \
                    name in ("scan_h", "scan_c"):
                # pages the model reads: io = random + seq * (pages - 1)
                scan_pages[name] = 1 + (float(r[c["EstimateIO"]]) - 0.003125) / 0.000740741
    if a.plans:
        for n in qs:
            ops = " > ".join(f"{op}({float(er):.0f})" for op, er, *_ in plans[n])
            print(f"{n:<20} cost {model[n]:>10.4f}  {ops}")

    # warm times
    script = ["SET NOCOUNT ON;", "DECLARE @t datetime2;"]
    script += [qs[n] + ";" for n in qs]
    for _ in range(a.repeat):
        for n in qs:
            script += timed(n, qs[n])
    times = {}
    for cols, rs in resultsets(run(a.bin, a.data, "\n".join(script) + "\nGO\n")):
        if cols == ["q", "ms"]:
            for q, ms in rs:
                times.setdefault(q, []).append(float(ms))
    warm = {n: statistics.median(times[n]) for n in qs}

    def value(coefs, per):
        return sum(k * per[q] for q, k in coefs.items())

    table = units(rows, small)
    ref_ms = value(table[0][1], warm) / table[0][2]
    ref_cost = value(table[0][1], model) / table[0][2]
    print(f"\nwarm, MAXDOP 1, median of {a.repeat}; ratio = per unit / per heap-scan row "
          f"({ref_ms * 1000:.4f} us measured, {ref_cost:.3g} model)")
    print(f"{'unit':<28} {'us/unit':>9} {'model/unit':>11} {'measured ratio':>15} "
          f"{'model ratio':>12}  what")
    for name, coefs, div, what in table:
        ms, cost = value(coefs, warm) / div, value(coefs, model) / div
        print(f"{name:<28} {ms * 1000:>9.4f} {cost:>11.3g} {ms / ref_ms:>15.2f} "
              f"{cost / ref_cost:>12.2f}  {what}")
    print(f"\n{'query':<20} {'warm ms':>9} {'model cost':>11} {'ms per cost unit':>17}")
    for n in qs:
        print(f"{n:<20} {warm[n]:>9.2f} {model[n]:>11.4f} {warm[n] / max(model[n], 1e-9):>17.1f}")

    if a.no_cold:
        return

    def fresh(n):
        script = ["SET NOCOUNT ON;", "DECLARE @t datetime2;"] + timed(n, qs[n])
        for cols, rs in resultsets(run(a.bin, a.data, "\n".join(script) + "\nGO\n")):
            if cols == ["q", "ms"]:
                return float(rs[0][1])
        return float("nan")

    os_cached, evicted = {}, {}
    for _ in range(a.cold_repeat):
        for n in COLD:
            os_cached.setdefault(n, []).append(fresh(n))
            evict(a.data)
            evicted.setdefault(n, []).append(fresh(n))
    os_cached = {n: statistics.median(v) for n, v in os_cached.items()}
    evicted = {n: statistics.median(v) for n, v in evicted.items()}
    print(f"\ncold, median of {a.cold_repeat}: a fresh process (empty buffer pool; its first "
          "compile included) with the files in the OS cache, and after evicting them; "
          "us/page = (evicted - OS cached) / the model's pages of the table read")
    print(f"{'query':<18} {'warm ms':>8} {'fresh ms':>9} {'evicted ms':>11} {'pages':>7} "
          f"{'us/page':>8} {'ratio':>7} {'model ratio':>12}")
    for n in COLD:
        pages = scan_pages["scan_h" if n == "scan_h" else "scan_c"]
        model_page = 0.000740741 if n.startswith("scan") else 0.003125
        per = (evicted[n] - os_cached[n]) * 1000 / pages
        print(f"{n:<18} {warm[n]:>8.2f} {os_cached[n]:>9.2f} {evicted[n]:>11.2f} {pages:>7.0f} "
              f"{per:>8.2f} {per / (ref_ms * 1000):>7.1f} {model_page / ref_cost:>12.1f}")
    print("(scans: a sequential page read against a scanned row; seek / lookup rows: all of c's "
          "pages read at random, against the model's random page read)")


if __name__ == "__main__":
    main()
