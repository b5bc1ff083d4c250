-- config: maxdop=1,buffer_pool_pages=64,grant_kb=64
-- The matrix's tiny-pool, forced-spill configuration: each database's buffer pool holds 64
-- pages, so a scan of a 100-page table reads from disk again, and each sort, hash join, hash
-- aggregate and window spool may hold 64 KB before it spills to tempdb work files.
-- sys.dm_exec_query_stats' spills columns count the 8 KB pages each statement wrote to work
-- files: every one of the four spills (spills_default.sql: none without the configuration),
-- and every result is still right.
SET NOCOUNT ON;
CREATE TABLE d (n int);
INSERT INTO d VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9);
CREATE TABLE t (a int, b varchar(100));
INSERT INTO t SELECT d1.n + 10*d2.n + 100*d3.n + 1000*d4.n, REPLICATE('x', 50) FROM d d1, d d2, d d3, d d4;
GO
-- a scan of t (about 100 pages) reads pages from disk again only when the pool cannot hold it
DECLARE @r0 bigint = (SELECT SUM(num_of_reads) FROM sys.dm_io_virtual_file_stats(DB_ID(), NULL));
DECLARE @c int = (SELECT COUNT(*) FROM t WHERE b LIKE 'x%');
DECLARE @r1 bigint = (SELECT SUM(num_of_reads) FROM sys.dm_io_virtual_file_stats(DB_ID(), NULL));
SELECT @c scanned, CASE WHEN @r1 > @r0 THEN 'pages read from disk' ELSE 'all pages cached' END pool;
GO
SELECT COUNT(*) groups, SUM(x.c) rows_counted FROM (SELECT a, COUNT(*) c FROM t GROUP BY a) x OPTION (HASH GROUP);
GO
SELECT COUNT(*) joined FROM t t1 INNER HASH JOIN t t2 ON t1.a = t2.a;
GO
SELECT MAX(rn) max_rn, MIN(rn) min_rn FROM (SELECT ROW_NUMBER() OVER (ORDER BY b, a DESC) rn FROM t) x;
GO
SELECT MAX(s) max_sum, MIN(s) min_sum FROM (SELECT SUM(a) OVER (PARTITION BY a % 7) s FROM t) x;
GO
SELECT CAST(LEFT(t.text, 30) AS varchar(30)) statement, execution_count, CASE WHEN last_spills > 0 THEN 'spilled' ELSE 'in memory' END spills,
       CASE WHEN total_spills = last_spills AND min_spills = last_spills AND max_spills = last_spills THEN 'consistent' END counters
FROM sys.dm_exec_query_stats s CROSS APPLY sys.dm_exec_sql_text(s.sql_handle) t
WHERE t.text LIKE 'SELECT%' AND t.text NOT LIKE '%dm_exec%' ORDER BY 1;
