#!/bin/bash
# Cost of the always-on session accounting (engine README "Sessions you can see"):
# usage: bench/accounting.sh LATCHKEY_BINARY TAG -- per run: 1M-row scan (ms, twice),
# 100k-row INSERT...SELECT (ms), 50k single-row INSERTs in one transaction (ms).
BIN=$1; TAG=$2; D=/tmp/dmv-bench-$TAG; rm -rf $D
$BIN --data $D -Q "CREATE TABLE s (id int PRIMARY KEY, v int, pad char(20)); INSERT s SELECT value, value % 97, 'x' FROM GENERATE_SERIES(1, 1000000);" > /dev/null
for i in 1 2 3; do
$BIN --data $D -Q "SET STATISTICS TIME ON; SELECT COUNT(*) FROM s WHERE v > 50; SELECT COUNT(*) FROM s WHERE v > 50; SET STATISTICS TIME OFF;
GO
CREATE TABLE i$i (id int PRIMARY KEY, v int, pad char(20));
GO
SET STATISTICS TIME ON; INSERT i$i SELECT value, value % 97, 'y' FROM GENERATE_SERIES(1, 100000); SET STATISTICS TIME OFF;
GO
CREATE TABLE r$i (id int PRIMARY KEY, v int);
GO
SET NOCOUNT ON; DECLARE @t datetime2 = SYSDATETIME(), @k int = 0; BEGIN TRAN; WHILE @k < 50000 BEGIN INSERT r$i VALUES (@k, @k); SET @k += 1; END; COMMIT; SELECT DATEDIFF(ms, @t, SYSDATETIME()) AS loop_ms" 2>&1 | grep -E "elapsed|^ *[0-9]+ *$" | sed -E 's/.*elapsed time = ([0-9]+) ms./\1/' | tr -s ' \n' ' '; echo
done
rm -rf $D
