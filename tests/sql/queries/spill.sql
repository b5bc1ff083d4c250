-- Sorts, hash joins and hash aggregates over the operator memory budget spill to tempdb work
-- files: OPTION (MAX_GRANT_PERCENT = 0) shrinks the budget to its 128 KB minimum, and every
-- query must return what it returns in memory.
SET NOCOUNT ON
CREATE TABLE sa (k int, v int, s varchar(20))
CREATE TABLE sb (k int, w int, s varchar(20))
GO
WITH d AS (SELECT i FROM (VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)) v(i)),
     n AS (SELECT a.i * 1000 + b.i * 100 + c.i * 10 + e.i AS i FROM d a, d b, d c, d e)
INSERT INTO sa
SELECT CASE WHEN i % 37 = 0 THEN NULL WHEN i % 50 = 0 THEN 7 ELSE i * 7 % 3000 END,
       i * 31 % 1000,
       CASE WHEN i % 2 = 0 THEN 'Key' ELSE 'KEY' END + CAST(i * 7 % 150 AS varchar(10))
FROM n
WITH d AS (SELECT i FROM (VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)) v(i)),
     n AS (SELECT a.i * 1000 + b.i * 100 + c.i * 10 + e.i AS i FROM d a, d b, d c, d e)
INSERT INTO sb
SELECT CASE WHEN i % 41 = 0 THEN NULL WHEN i % 50 = 0 THEN 7 ELSE i * 13 % 3000 END,
       i * 17 % 1000,
       CASE WHEN i % 3 = 0 THEN 'key' ELSE 'KEY' END + CAST(i * 13 % 150 AS varchar(10))
FROM n
SELECT COUNT(*) AS sa_rows FROM sa
GO
-- hash joins: in memory, then spilled
SELECT COUNT(*) AS n, SUM(CAST(a.v AS bigint) * b.w) AS chk FROM sa a JOIN sb b ON a.k = b.k
SELECT COUNT(*) AS n, SUM(CAST(a.v AS bigint) * b.w) AS chk FROM sa a JOIN sb b ON a.k = b.k
OPTION (MAX_GRANT_PERCENT = 0)
SELECT COUNT(*) AS n, COUNT(b.w) AS matched, SUM(a.v + ISNULL(b.w, 0)) AS chk
FROM sa a LEFT JOIN sb b ON a.k = b.k AND b.w > a.v
SELECT COUNT(*) AS n, COUNT(b.w) AS matched, SUM(a.v + ISNULL(b.w, 0)) AS chk
FROM sa a LEFT JOIN sb b ON a.k = b.k AND b.w > a.v
OPTION (MAX_GRANT_PERCENT = 0)
SELECT COUNT(*) AS n, COUNT(a.s) AS left_side, COUNT(b.s) AS right_side
FROM sa a FULL JOIN sb b ON a.s = b.s AND a.k = b.k
SELECT COUNT(*) AS n, COUNT(a.s) AS left_side, COUNT(b.s) AS right_side
FROM sa a FULL JOIN sb b ON a.s = b.s AND a.k = b.k
OPTION (MAX_GRANT_PERCENT = 0)
SELECT COUNT(*) AS semi FROM sa a WHERE EXISTS (SELECT 1 FROM sb b WHERE b.k = a.k AND b.w < a.v)
SELECT COUNT(*) AS semi FROM sa a WHERE EXISTS (SELECT 1 FROM sb b WHERE b.k = a.k AND b.w < a.v)
OPTION (MAX_GRANT_PERCENT = 0)
SELECT COUNT(*) AS anti FROM sa a WHERE NOT EXISTS (SELECT 1 FROM sb b WHERE b.k = a.k)
SELECT COUNT(*) AS anti FROM sa a WHERE NOT EXISTS (SELECT 1 FROM sb b WHERE b.k = a.k)
OPTION (MAX_GRANT_PERCENT = 0)
GO
-- external sort (multi-pass merge): the last rows of the order
SELECT k, v, s FROM sa ORDER BY s DESC, v, k OFFSET 9995 ROWS FETCH NEXT 5 ROWS ONLY
SELECT k, v, s FROM sa ORDER BY s DESC, v, k OFFSET 9995 ROWS FETCH NEXT 5 ROWS ONLY
OPTION (MAX_GRANT_PERCENT = 0)
GO
-- hash aggregate with many groups
SELECT COUNT(*) AS groups, SUM(c) AS n, SUM(CAST(m AS bigint)) AS chk
FROM (SELECT k, s, COUNT(*) AS c, MAX(v) AS m FROM sa GROUP BY k, s) g
SELECT COUNT(*) AS groups, SUM(c) AS n, SUM(CAST(m AS bigint)) AS chk
FROM (SELECT k, s, COUNT(*) AS c, MAX(v) AS m FROM sa GROUP BY k, s) g
OPTION (MAX_GRANT_PERCENT = 0)
GO
