-- A known distribution, FULLSCAN: every distinct value is a step (fewer than 200), NULLs
-- counted apart, the density vector over both prefixes.
SET NOCOUNT ON;
CREATE TABLE t (a int NULL, b varchar(10) NULL, c int NULL);
INSERT INTO t VALUES (1, 'x', 1), (1, 'y', 1), (2, 'x', 2), (3, 'x', 3), (3, 'X', 3), (3, 'z', 3), (NULL, 'x', 4);
GO
CREATE STATISTICS st_ab ON t (a, b) WITH FULLSCAN;
GO
DBCC SHOW_STATISTICS ('t', st_ab) WITH DENSITY_VECTOR;
DBCC SHOW_STATISTICS ('t', st_ab) WITH HISTOGRAM;
SELECT Name = CAST(name AS varchar(20)), stats_id, auto_created, user_created, no_recompute FROM sys.stats WHERE object_id = OBJECT_ID('t');
SELECT stats_id, stats_column_id, column_id FROM sys.stats_columns WHERE object_id = OBJECT_ID('t') ORDER BY stats_id, stats_column_id;
SELECT rows, rows_sampled, steps, unfiltered_rows, modification_counter FROM sys.dm_db_stats_properties(OBJECT_ID('t'), 2);
SELECT has_date = CASE WHEN STATS_DATE(OBJECT_ID('t'), 2) IS NOT NULL THEN 1 ELSE 0 END;
GO
-- 1000 distinct values: compressed into 200 steps that still add up to every row
CREATE TABLE big (v int NOT NULL);
DECLARE @i int = 0;
WHILE @i < 1000 BEGIN INSERT INTO big VALUES (@i); SET @i += 1; END;
INSERT INTO big SELECT 500 FROM big WHERE v < 300;
GO
CREATE STATISTICS sv ON big (v) WITH FULLSCAN, NORECOMPUTE;
GO
CREATE TABLE #h (k int, rr real, eq real, drr bigint, arr real);
INSERT INTO #h EXEC ('DBCC SHOW_STATISTICS (''big'', sv) WITH HISTOGRAM');
SELECT steps = COUNT(*), total = SUM(rr + eq), mn = MIN(k), mx = MAX(k), eq500 = MAX(CASE WHEN k = 500 THEN eq END) FROM #h;
SELECT no_recompute FROM sys.stats WHERE name = 'sv';
GO
-- an index has statistics of the same name and id, built with the index
CREATE INDEX ix_c ON t (c);
GO
SELECT Name = CAST(name AS varchar(20)), stats_id, user_created FROM sys.stats WHERE object_id = OBJECT_ID('t') ORDER BY stats_id;
DBCC SHOW_STATISTICS ('t', ix_c) WITH HISTOGRAM;
GO
-- errors
CREATE STATISTICS st_ab ON t (c);
GO
CREATE STATISTICS ix_c ON t (c);
GO
CREATE STATISTICS s2 ON t (nosuch);
GO
CREATE STATISTICS s2 ON nosuch (a);
GO
DROP STATISTICS t.ix_c;
GO
DROP STATISTICS t.nosuch;
GO
UPDATE STATISTICS t nosuch;
GO
DBCC SHOW_STATISTICS ('t', nosuch);
GO
ALTER TABLE t DROP COLUMN b;
GO
-- filtered statistics: only the rows the predicate accepts (4 of 7), the table's rows beside
CREATE STATISTICS s3 ON t (a) WHERE a > 1 WITH FULLSCAN;
GO
CREATE TABLE #hdr (Name sysname, Updated datetime, Rows bigint, RowsSampled bigint, Steps smallint, Density real, AvgKeyLength real, StringIndex nvarchar(3), FilterExpression nvarchar(max), UnfilteredRows bigint, PersistedSamplePercent float);
INSERT INTO #hdr EXEC ('DBCC SHOW_STATISTICS (''t'', s3) WITH STAT_HEADER');
SELECT Name = CAST(Name AS varchar(10)), has_updated = CASE WHEN Updated IS NULL THEN 0 ELSE 1 END, Rows, RowsSampled, Steps, Density, AvgKeyLength, StringIndex, FilterExpression = CAST(FilterExpression AS varchar(20)), UnfilteredRows, PersistedSamplePercent FROM #hdr;
DBCC SHOW_STATISTICS ('t', s3) WITH HISTOGRAM;
SELECT has_filter, filter_definition FROM sys.stats WHERE name = 's3';
GO
-- UPDATE and DROP
INSERT INTO t VALUES (9, 'q', 9);
UPDATE STATISTICS t st_ab WITH FULLSCAN;
GO
SELECT rows, steps FROM sys.dm_db_stats_properties(OBJECT_ID('t'), 2);
DROP STATISTICS t.st_ab;
GO
SELECT Name = CAST(name AS varchar(20)) FROM sys.stats WHERE object_id = OBJECT_ID('t') ORDER BY stats_id;
ALTER TABLE t DROP COLUMN b;
SELECT c = COUNT(*) FROM sys.stats_columns WHERE object_id = OBJECT_ID('t');
GO
