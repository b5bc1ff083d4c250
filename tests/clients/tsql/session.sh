#!/usr/bin/env bash
# The scripted session of tests/clients/README.md through FreeTDS's command-line client `tsql`
# (Debian freetds-bin): a plain connection (-H/-p) and a TLS one (a freetds.conf entry with
# `encryption = require`, given with -I), several result sets, server-typed values, errors with
# their numbers, a transaction, OUTPUT parameters and the return status. tsql has no parameters
# of its own and no way to cancel a running batch from a script: those two parts are covered by
# the driver clients.
#
# Environment: LK_HOST, LK_PORT, LK_USER, LK_PASSWORD, LK_CLIENT, LK_WORK (a scratch folder).
set -uo pipefail
HOST=${LK_HOST:-127.0.0.1}; PORT=${LK_PORT:-1433}; USER_=${LK_USER:-sa}; PW=${LK_PASSWORD:-}
C=${LK_CLIENT:-tsql}; WORK=${LK_WORK:-$(mktemp -d)}
passed=0; failed=()

check() { # name, file, fixed string expected in it
  if grep -qF -- "$3" "$2"; then passed=$((passed + 1)); echo "  ok   $1"
  else failed+=("$1"); echo "  FAIL $1: '$3' not in the output:"; sed 's/^/      | /' "$2" | head -n 40; fi
}

# tsql reads batches from standard input, each ended by `go`; -o q: no prompts.
run_tsql() { # output file, then tsql connection arguments; the script on stdin
  local out=$1; shift
  timeout 60 tsql "$@" -U "$USER_" -P "$PW" -D master -o q -t '|' >"$out" 2>&1
}

cat >"$WORK/tsql-plain.sql" <<SQL
SELECT 'plain-' + CAST(1 + 1 AS varchar(10)) AS probe
go
SELECT 1 AS a, N'x' AS b; SELECT v FROM (VALUES (2), (3)) AS t(v) ORDER BY v; SELECT N'last' AS z
go
SELECT CAST(255 AS tinyint) AS ti, CAST(-32768 AS smallint) AS si, CAST(-9223372036854775808 AS bigint) AS bi
go
SELECT CAST('-1234567890123456789012345678.1234567890' AS decimal(38,10)) AS d38
go
SELECT CAST(-922337203685477.5808 AS money) AS m
go
SELECT CONVERT(varchar(30), CAST('2024-02-29T13:45:10.997' AS datetime), 126) AS dt,
       CONVERT(varchar(40), CAST('9999-12-31T23:59:59.9999999' AS datetime2(7)), 126) AS dt2
go
SELECT N'héllo' AS n, CONVERT(varchar(10), CAST(0x0102FEFF AS varbinary(4)), 2) AS vb, CAST('6F9619FF-8B86-D011-B42D-00C04FC964FF' AS uniqueidentifier) AS g
go
SELECT * FROM dbo.c_${C}_no_such_table
go
SELECT 1/0
go
RAISERROR('custom %d', 16, 1, 42)
go
IF OBJECT_ID('dbo.c_${C}_t') IS NOT NULL DROP TABLE dbo.c_${C}_t
go
CREATE TABLE dbo.c_${C}_t (id int PRIMARY KEY, v nvarchar(50))
go
BEGIN TRANSACTION; INSERT INTO dbo.c_${C}_t VALUES (1, N'rolled back'); ROLLBACK
go
BEGIN TRANSACTION; INSERT INTO dbo.c_${C}_t VALUES (2, N'committed'); COMMIT
go
SELECT 'rows=' + CAST(COUNT(*) AS varchar(10)) + ' v=' + MAX(v) AS tx FROM dbo.c_${C}_t
go
IF OBJECT_ID('dbo.c_${C}_out') IS NOT NULL DROP PROCEDURE dbo.c_${C}_out
go
CREATE PROCEDURE dbo.c_${C}_out @a int, @b int OUTPUT, @s nvarchar(20) OUTPUT AS
BEGIN SET @b = @a * 2; SET @s = N'out:' + CAST(@a AS nvarchar(10)); RETURN 7; END
go
DECLARE @b int, @s nvarchar(20), @r int;
EXEC @r = dbo.c_${C}_out 21, @b OUTPUT, @s OUTPUT;
SELECT 'b=' + CAST(@b AS varchar(10)) + ' s=' + @s + ' r=' + CAST(@r AS varchar(10)) AS outp
go
SELECT 'still-connected' AS probe
go
SQL

echo "tsql: $HOST:$PORT"
out=$WORK/tsql-plain.out
run_tsql "$out" -H "$HOST" -p "$PORT" <"$WORK/tsql-plain.sql"
check "plain connection" "$out" "plain-2"
if ! grep -qF "plain-2" "$out"; then echo "tsql: 0 passed, 1 failed"; exit 1; fi
check "several result sets: first" "$out" "1|x"
check "several result sets: second" "$out" "3"
check "several result sets: third" "$out" "last"
check "tinyint/smallint/bigint" "$out" "255|-32768|-9223372036854775808"
check "decimal(38,10)" "$out" "-1234567890123456789012345678.1234567890"
check "money" "$out" "-922337203685477.5808"
check "datetime and datetime2 (style 126)" "$out" "2024-02-29T13:45:10.997|9999-12-31T23:59:59.9999999"
check "nvarchar, varbinary, uniqueidentifier" "$out" "héllo|0102FEFF|6F9619FF-8B86-D011-B42D-00C04FC964FF"
check "error 208" "$out" "Msg 208 (severity 16, state 1)"
check "error 208 text" "$out" "Invalid object name 'dbo.c_${C}_no_such_table'."
check "error 8134" "$out" "Msg 8134 (severity 16, state 1)"
check "error 8134 text" "$out" "Divide by zero error encountered."
check "error 50000" "$out" "Msg 50000 (severity 16, state 1)"
check "error 50000 text" "$out" "custom 42"
check "transaction" "$out" "rows=1 v=committed"
check "OUTPUT parameters and return status" "$out" "b=42 s=out:21 r=7"
check "connection kept after errors" "$out" "still-connected"

# TLS: FreeTDS reads `encryption` from a freetds.conf entry; it does not check the certificate
# unless told a CA file, as TrustServerCertificate does.
cat >"$WORK/freetds.conf" <<CONF
[latchkey_tls]
	host = $HOST
	port = $PORT
	tds version = 7.4
	encryption = require
CONF
out=$WORK/tsql-tls.out
printf "SELECT 'tls-' + CAST(2 + 2 AS varchar(10)) AS probe\ngo\n" \
  | FREETDSCONF=$WORK/freetds.conf run_tsql "$out" -S latchkey_tls -I "$WORK/freetds.conf"
check "TLS connection" "$out" "tls-4"

echo "tsql: $passed passed, ${#failed[@]} failed"
if [ ${#failed[@]} -gt 0 ]; then echo "tsql: failed: ${failed[*]}"; exit 1; fi
exit 0
