#!/bin/bash
# Peak RSS of window functions over N generated rows (issue 8, finding 7): each query must stay
# within the operator memory budget (default 256 MiB per operator), whatever N.
#   cargo build --release -p cli && bench/window_rss.sh target/release/latchkey 20000000
# Prints each query's result, wall time and "Maximum resident set size" from /usr/bin/time -v.
set -u
BIN=${1:-target/release/latchkey}
N=${2:-20000000}
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
run() {
  echo "== $1"
  /usr/bin/time -v "$BIN" --data "$D/d" --format jsonl -Q "$2" >"$D/out" 2>"$D/time"
  grep resultset "$D/out" | sed 's/.*"rows"://'
  grep -E "Maximum resident|Elapsed|Exit status" "$D/time"
}
run "ROW_NUMBER ORDER BY int" "SELECT COUNT(*), MAX(rn) FROM (SELECT ROW_NUMBER() OVER (ORDER BY value DESC) AS rn FROM GENERATE_SERIES(1, $N)) x"
run "RANK ORDER BY char(200)" "SELECT COUNT(*), MAX(r) FROM (SELECT RANK() OVER (ORDER BY CAST(value % 1000000 AS char(200))) AS r FROM GENERATE_SERIES(1, $N)) x"
run "SUM OVER (PARTITION BY value % 10 ORDER BY value)" "SELECT COUNT(*), MAX(s) FROM (SELECT SUM(CAST(value AS bigint)) OVER (PARTITION BY value % 10 ORDER BY value) AS s FROM GENERATE_SERIES(1, $N)) x"
run "SUM OVER () + ROW_NUMBER" "SELECT COUNT(*), MAX(s), MAX(rn) FROM (SELECT SUM(CAST(value AS bigint)) OVER () AS s, ROW_NUMBER() OVER (ORDER BY value) AS rn FROM GENERATE_SERIES(1, $N)) x"
