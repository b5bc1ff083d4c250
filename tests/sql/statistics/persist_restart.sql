-- restart
-- Statistics objects, their histograms and the AUTO_*_STATISTICS settings survive a restart;
-- an uncommitted CREATE STATISTICS does not.
SET NOCOUNT ON;
CREATE TABLE p (k int NOT NULL, s nvarchar(20) NULL, d datetime2(3) NULL);
INSERT INTO p VALUES (1, N'één', '2020-01-01 10:00:00.125'), (2, N'b', '2021-06-30'), (2, N'b', NULL), (7, NULL, '1999-12-31 23:59:59.999');
CREATE CLUSTERED INDEX cx ON p (k);
CREATE STATISTICS ps ON p (s, d) WITH FULLSCAN, NORECOMPUTE;
CREATE STATISTICS pd ON p (d) WITH SAMPLE 100 PERCENT;
BEGIN TRAN;
CREATE STATISTICS gone ON p (k);
ROLLBACK;
ALTER DATABASE CURRENT SET AUTO_CREATE_STATISTICS OFF;
GO
-- restart
SET NOCOUNT ON;
SELECT Name = CAST(name AS varchar(10)), stats_id, no_recompute FROM sys.stats WHERE object_id = OBJECT_ID('p') ORDER BY stats_id;
DBCC SHOW_STATISTICS ('p', ps) WITH HISTOGRAM;
DBCC SHOW_STATISTICS ('p', pd) WITH HISTOGRAM;
DBCC SHOW_STATISTICS ('p', cx) WITH DENSITY_VECTOR;
SELECT is_auto_create_stats_on, is_auto_update_stats_on FROM sys.databases WHERE name = DB_NAME();
ALTER DATABASE CURRENT SET AUTO_CREATE_STATISTICS ON;
SELECT is_auto_create_stats_on FROM sys.databases WHERE name = DB_NAME();
