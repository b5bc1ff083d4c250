#!/usr/bin/env python3
"""DOP 1 vs DOP 2 (issue 9 acceptance 2): one latchkey process (warm buffer pool), each query
run alternately with OPTION (MAXDOP 1) and OPTION (MAXDOP 2), timed inside the engine
(SYSDATETIME before/after), median of --repeat runs; prints the times and the speed-up.

Data (built once into --data, reused by later runs):
  scan   dbo.s: a 5M-row heap (bigint, int, int NULL, nvarchar(30))   --rows
  q1     TPC-H lineitem (clustered primary key, the W9 schema) from the dbgen .tbl files in
         --tpch (../shared/bench/run.py's generator: /tmp/bench-data/tpch-sf1)

Usage: cargo build --release -p cli &&
       python3 bench/parallel_dop.py [--bin target/release/latchkey] [--data DIR]
              [--rows 5000000] [--tpch /tmp/bench-data/tpch-sf1] [--repeat 5] [--only scan,q1]
              [--dops 1,2,4,8,16]
The cost threshold is set to 0 first: without row counts in the optimizer (the card work) the
parallel pass only fires under a 0 threshold.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

QUERIES = {
    "scan_count": "SELECT COUNT(*) FROM dbo.s",
    "scan_sum": "SELECT SUM(a), COUNT(c), MIN(d), MAX(b) FROM dbo.s",
    "scan_group": "SELECT b % 100, SUM(a), COUNT(*) FROM dbo.s WHERE c IS NOT NULL GROUP BY b % 100",
    # hash join with a shared build: the coordinator hashes the build side (a small filtered
    # scan) once, the workers probe it with their morsels under a local-then-global COUNT/MAX
    # (the optimizer costs serial batch, parallel row and parallel batch plans and keeps the
    # cheapest: at DOP > 1 here the parallel batch plan; scan_join_row keeps row mode)
    "scan_join": "SELECT COUNT(*), MAX(x.d) FROM dbo.s x JOIN dbo.s y ON x.a = y.a * 100 "
                 "WHERE x.c = 3 AND y.a < 20000 OPTION (HASH JOIN)",
    "scan_join_row": "SELECT COUNT(*), MAX(x.d) FROM dbo.s x JOIN dbo.s y ON x.a = y.a * 100 "
                     "WHERE x.c = 3 AND y.a < 20000 "
                     "OPTION (HASH JOIN, USE HINT ('DISALLOW_BATCH_MODE'))",
    "q1": """SELECT l_returnflag, l_linestatus, SUM(l_quantity) AS sum_qty,
       SUM(l_extendedprice) AS sum_base_price,
       SUM(l_extendedprice * (1 - l_discount)) AS sum_disc_price,
       SUM(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,
       AVG(l_quantity) AS avg_qty, AVG(l_extendedprice) AS avg_price,
       AVG(l_discount) AS avg_disc, COUNT(*) AS count_order
FROM dbo.lineitem
WHERE l_shipdate <= DATEADD(day, -90, CAST('1998-12-01' AS date))
GROUP BY l_returnflag, l_linestatus
ORDER BY l_returnflag, l_linestatus""",
    "q6": """SELECT SUM(l_extendedprice * l_discount) AS revenue FROM dbo.lineitem
WHERE l_shipdate >= CAST('1994-01-01' AS date) AND l_shipdate < CAST('1995-01-01' AS date)
  AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24""",
}

SETUP_SCAN = """
DROP TABLE IF EXISTS dbo.s;
CREATE TABLE dbo.s (a bigint NOT NULL, b int NOT NULL, c int NULL, d nvarchar(30) NULL);
INSERT INTO dbo.s WITH (TABLOCK)
SELECT RN, CAST(RN % 1000 AS int), CASE WHEN RN % 10 = 0 THEN NULL ELSE CAST(RN % 7 AS int) END,
       CONCAT(N'Item-', RN)
FROM (SELECT TOP ({rows}) CAST(ROW_NUMBER() OVER (ORDER BY (SELECT NULL)) AS bigint) RN
      FROM master..spt_values t1 CROSS JOIN master..spt_values t2 CROSS JOIN master..spt_values t3) q;
"""

SETUP_Q1 = """
DROP TABLE IF EXISTS dbo.lineitem;
CREATE TABLE dbo.lineitem (
  l_orderkey integer NOT NULL, l_partkey integer NOT NULL, l_suppkey integer NOT NULL,
  l_linenumber integer NOT NULL, l_quantity decimal(15,2) NOT NULL,
  l_extendedprice decimal(15,2) NOT NULL, l_discount decimal(15,2) NOT NULL,
  l_tax decimal(15,2) NOT NULL, l_returnflag char(1) NOT NULL, l_linestatus char(1) NOT NULL,
  l_shipdate date NOT NULL, l_commitdate date NOT NULL, l_receiptdate date NOT NULL,
  l_shipinstruct char(25) NOT NULL, l_shipmode char(10) NOT NULL, l_comment varchar(44) NOT NULL,
  PRIMARY KEY (l_orderkey, l_linenumber));
BULK INSERT dbo.lineitem FROM '{tpch}/lineitem.tbl'
  WITH (FIELDTERMINATOR = '|', ROWTERMINATOR = '|\\n', TABLOCK);
"""


def with_dop(sql, dop):
    """The query with MAXDOP added to its OPTION clause (or a new one)."""
    if "OPTION (" in sql:
        return sql.replace("OPTION (", f"OPTION (MAXDOP {dop}, ")
    return f"{sql} OPTION (MAXDOP {dop})"


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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/latchkey")
    ap.add_argument("--data", default="/tmp/latchkey-parallel-bench")
    ap.add_argument("--rows", type=int, default=5_000_000)
    ap.add_argument("--tpch", default="/tmp/bench-data/tpch-sf1")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--only", default="scan,q1")
    ap.add_argument("--dops", default="1,2",
                    help="degrees to compare, the first is the baseline (e.g. 1,2,4,8,16)")
    a = ap.parse_args()
    dops = [int(d) for d in a.dops.split(",")]
    parts = a.only.split(",")
    os.makedirs(a.data, exist_ok=True)
    marker = os.path.join(a.data, ".parallel-bench-{}")
    if "scan" in parts and not os.path.exists(marker.format(f"scan{a.rows}")):
        print(f"loading dbo.s ({a.rows} rows) ...", file=sys.stderr)
        run(a.bin, a.data, SETUP_SCAN.format(rows=a.rows))
        open(marker.format(f"scan{a.rows}"), "w").close()
    if "q1" in parts and not os.path.exists(marker.format("q1")):
        print(f"loading dbo.lineitem from {a.tpch} ...", file=sys.stderr)
        run(a.bin, a.data, SETUP_Q1.format(tpch=a.tpch))
        open(marker.format("q1"), "w").close()
    names = [n for n in QUERIES if n.split("_")[0] in parts or n in parts
             or (n == "q6" and "q1" in parts)]
    script = ["EXEC sp_configure 'show advanced options', 1; RECONFIGURE;",
              "EXEC sp_configure 'cost threshold for parallelism', 0; RECONFIGURE;",
              "GO", "SET NOCOUNT ON;", "DECLARE @t datetime2;"]
    for n in names:
        # one warm-up per query fills the buffer pool
        script.append(with_dop(QUERIES[n], 1) + ";")
        for r in range(a.repeat):
            for dop in dops:
                script.append("SET @t = SYSDATETIME();")
                script.append(with_dop(QUERIES[n], dop) + ";")
                script.append(f"SELECT '{n}' AS q, {dop} AS dop, "
                              "DATEDIFF(microsecond, @t, SYSDATETIME()) / 1000.0 AS ms;")
    out = run(a.bin, a.data, "\n".join(script) + "\nGO\n")
    times = {}
    for line in out.splitlines():
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        cols = [c["name"] for c in ev.get("columns", [])]
        if ev.get("type") == "resultset" and cols == ["q", "dop", "ms"]:
            for q, dop, ms in ev["rows"]:
                times.setdefault((q, int(dop)), []).append(float(ms))
    head = "".join(f" {'DOP ' + str(d) + ' ms':>11}" for d in dops)
    head += "".join(f" {'x' + str(d):>7}" for d in dops[1:])
    print(f"{'query':<12}{head}   (median of {a.repeat}; xN = DOP {dops[0]} time / DOP N time)")
    for n in names:
        med = [statistics.median(times[(n, d)]) for d in dops]
        line = "".join(f" {t:>11.1f}" for t in med)
        line += "".join(f" {med[0] / t:>6.2f}x" for t in med[1:])
        print(f"{n:<12}{line}")

if __name__ == "__main__":
    main()
