#!/usr/bin/env python3
"""Row mode vs batch mode (issue 9, batch mode): one latchkey process (warm buffer pool), each
query run alternately with OPTION (USE HINT ('DISALLOW_BATCH_MODE')) and
OPTION (USE HINT ('ALLOW_BATCH_MODE')) at the same MAXDOP, timed inside the engine
(SYSDATETIME before/after), median of --repeat runs; prints the times and the ratio.

Data (built once into --data, reused by later runs; the same tables as bench/parallel_dop.py):
  scan   dbo.s: a heap of --rows rows (bigint, int, int NULL, nvarchar(30))
  tpch   TPC-H lineitem (clustered primary key, the W9 schema) from the dbgen .tbl files in
         --tpch (../shared/bench/run.py's generator: /tmp/bench-data/tpch-sf1)

Usage: cargo build --release -p cli &&
       python3 bench/batch_mode.py [--bin target/release/latchkey] [--data DIR]
              [--rows 2000000] [--tpch /tmp/bench-data/tpch-sf1] [--repeat 5]
              [--only scan,tpch] [--dop 1]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

QUERIES = {
    "scan_count": ("scan", "SELECT COUNT(*) FROM dbo.s"),
    "scan_sum": ("scan", "SELECT SUM(a), COUNT(c), MIN(b), MAX(b) FROM dbo.s"),
    "scan_group": ("scan", "SELECT b % 100, SUM(a), COUNT(*) FROM dbo.s "
                           "WHERE c IS NOT NULL GROUP BY b % 100"),
    "q1": ("tpch", """SELECT l_returnflag, l_linestatus, SUM(l_quantity) AS sum_qty,
       SUM(l_extendedprice) AS sum_base_price,
       SUM(l_extendedprice * (1 - l_discount)) AS sum_disc_price,
       SUM(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,
       AVG(l_quantity) AS avg_qty, AVG(l_extendedprice) AS avg_price,
       AVG(l_discount) AS avg_disc, COUNT(*) AS count_order
FROM dbo.lineitem
WHERE l_shipdate <= DATEADD(day, -90, CAST('1998-12-01' AS date))
GROUP BY l_returnflag, l_linestatus
ORDER BY l_returnflag, l_linestatus"""),
    "q6": ("tpch", """SELECT SUM(l_extendedprice * l_discount) AS revenue FROM dbo.lineitem
WHERE l_shipdate >= CAST('1994-01-01' AS date) AND l_shipdate < CAST('1995-01-01' AS date)
  AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24"""),
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

SETUP_TPCH = """
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

MODES = {"row": "DISALLOW_BATCH_MODE", "batch": "ALLOW_BATCH_MODE"}


def with_options(sql, dop, mode):
    return f"{sql} OPTION (MAXDOP {dop}, USE HINT ('{MODES[mode]}'))"


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
    ap.add_argument("--data", default="/tmp/latchkey-batch-bench")
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--tpch", default="/tmp/bench-data/tpch-sf1")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--only", default="scan,tpch")
    ap.add_argument("--dop", type=int, default=1)
    a = ap.parse_args()
    parts = a.only.split(",")
    os.makedirs(a.data, exist_ok=True)
    marker = os.path.join(a.data, ".batch-bench-{}")
    if "scan" in parts and not os.path.exists(marker.format(f"scan{a.rows}")):
        print(f"loading dbo.s ({a.rows} rows) ...", file=sys.stderr)
        run(a.bin, a.data, SETUP_SCAN.format(rows=a.rows))
        open(marker.format(f"scan{a.rows}"), "w").close()
    if "tpch" in parts and not os.path.exists(marker.format("tpch")):
        print(f"loading dbo.lineitem from {a.tpch} ...", file=sys.stderr)
        run(a.bin, a.data, SETUP_TPCH.format(tpch=a.tpch))
        open(marker.format("tpch"), "w").close()
    names = [n for n, (part, _) in QUERIES.items() if part in parts or n in parts]
    script = ["SET NOCOUNT ON;", "DECLARE @t datetime2;"]
    for n in names:
        sql = QUERIES[n][1]
        # one warm-up per query fills the buffer pool
        script.append(with_options(sql, a.dop, "row") + ";")
        for _ in range(a.repeat):
            for mode in MODES:
                script.append("SET @t = SYSDATETIME();")
                script.append(with_options(sql, a.dop, mode) + ";")
                script.append(f"SELECT '{n}' AS q, '{mode}' AS mode, "
                              "DATEDIFF(microsecond, @t, SYSDATETIME()) / 1000.0 AS ms;")
    out = run(a.bin, a.data, "\n".join(script) + "\nGO\n")
    times = {}
    for line in out.splitlines():
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        cols = [c["name"] for c in ev.get("columns", [])]
        if ev.get("type") == "resultset" and cols == ["q", "mode", "ms"]:
            for q, mode, ms in ev["rows"]:
                times.setdefault((q, mode), []).append(float(ms))
    print(f"{'query':<12} {'row ms':>10} {'batch ms':>10} {'row/batch':>9}   "
          f"(MAXDOP {a.dop}, median of {a.repeat})")
    for n in names:
        tr = statistics.median(times[(n, "row")])
        tb = statistics.median(times[(n, "batch")])
        print(f"{n:<12} {tr:>10.1f} {tb:>10.1f} {tr / tb:>8.2f}x")


if __name__ == "__main__":
    main()
