-- Batch mode inside a Gather Streams' zone, not under a TOP without a sort (exec README
-- "Batch mode", batch→row adapter): at MAXDOP 2 the shared-build hash join and the scans
-- below the exchange are marked "Batch mode" (each worker runs the pipeline over its
-- morsels and decodes its vectors straight into the exchange's row chunks); the serial sort
-- above stays row mode. The same rows at DOP 1 and DOP 2, in batch and row mode.
EXEC sp_configure 'show advanced options', 1;
RECONFIGURE;
EXEC sp_configure 'cost threshold for parallelism', 0;
RECONFIGURE;
GO
CREATE TABLE dbo.p (k int NULL, v int NULL, s varchar(10) NULL);
CREATE TABLE dbo.b (k int NULL, w int NULL);
INSERT INTO dbo.p SELECT CASE WHEN value % 11 = 0 THEN NULL ELSE value % 70 END, value % 100 - 30,
    CASE value % 3 WHEN 0 THEN 'abc' WHEN 1 THEN 'XY ' ELSE NULL END FROM GENERATE_SERIES(1, 4000);
INSERT INTO dbo.b SELECT value % 40, value FROM GENERATE_SERIES(1, 60);
GO
SET SHOWPLAN_TEXT ON;
GO
SELECT p.k, p.v, b.w FROM dbo.p p JOIN dbo.b b ON p.k = b.k WHERE p.v > 60 ORDER BY p.v, p.k, b.w OPTION (MAXDOP 2, HASH JOIN, USE HINT ('ALLOW_BATCH_MODE'));
SELECT TOP 5 k, v FROM dbo.p WHERE v > 60 OPTION (MAXDOP 1, USE HINT ('ALLOW_BATCH_MODE'));
GO
SET SHOWPLAN_TEXT OFF;
GO
SELECT p.k, p.v, b.w, UPPER(p.s) FROM dbo.p p JOIN dbo.b b ON p.k = b.k WHERE p.v > 67 ORDER BY p.v, p.k, b.w, UPPER(p.s) OPTION (MAXDOP 2, HASH JOIN, USE HINT ('ALLOW_BATCH_MODE'));
SELECT p.k, p.v, b.w, UPPER(p.s) FROM dbo.p p JOIN dbo.b b ON p.k = b.k WHERE p.v > 67 ORDER BY p.v, p.k, b.w, UPPER(p.s) OPTION (MAXDOP 1, HASH JOIN, USE HINT ('DISALLOW_BATCH_MODE'));
-- a worker's error, raised once
SELECT p.k, 10 / (p.v - p.v) FROM dbo.p p JOIN dbo.b b ON p.k = b.k OPTION (MAXDOP 2, HASH JOIN, USE HINT ('ALLOW_BATCH_MODE'));
GO
-- a TOP without a sort stops before the failing row, with or without the hint
SELECT TOP 3 k, 10 / (v - 60) FROM dbo.p WHERE v > 50 OPTION (MAXDOP 1, USE HINT ('ALLOW_BATCH_MODE'));
SELECT TOP 3 k, 10 / (v - 60) FROM dbo.p WHERE v > 50 OPTION (MAXDOP 1, USE HINT ('DISALLOW_BATCH_MODE'));
GO
