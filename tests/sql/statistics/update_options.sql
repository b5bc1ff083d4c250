-- UPDATE STATISTICS: SAMPLE / RESAMPLE / FULLSCAN, ALL | COLUMNS | INDEX, NORECOMPUTE on and off.
SET NOCOUNT ON;
CREATE TABLE u (id int NOT NULL, g int NOT NULL, pad char(200) NOT NULL DEFAULT '');
INSERT INTO u (id, g) SELECT value, value % 7 FROM GENERATE_SERIES(1, 20000);
CREATE INDEX ix_g ON u (g);
CREATE STATISTICS su ON u (id) WITH SAMPLE 30 PERCENT;
GO
CREATE TABLE #p (step int, name sysname, rows bigint, rows_sampled bigint, sampled_all bit, no_recompute bit);
INSERT INTO #p SELECT 1, s.name, p.rows, p.rows_sampled, CASE WHEN p.rows = p.rows_sampled THEN 1 ELSE 0 END, s.no_recompute
FROM sys.stats s CROSS APPLY sys.dm_db_stats_properties(s.object_id, s.stats_id) p WHERE s.object_id = OBJECT_ID('u');
INSERT INTO u (id, g) SELECT value, 0 FROM GENERATE_SERIES(20001, 24000);
-- RESAMPLE keeps su's sampling rate; INDEX only touches ix_g; NORECOMPUTE sticks
UPDATE STATISTICS u su WITH RESAMPLE, NORECOMPUTE;
UPDATE STATISTICS u WITH FULLSCAN, INDEX;
INSERT INTO #p SELECT 2, s.name, p.rows, p.rows_sampled, CASE WHEN p.rows = p.rows_sampled THEN 1 ELSE 0 END, s.no_recompute
FROM sys.stats s CROSS APPLY sys.dm_db_stats_properties(s.object_id, s.stats_id) p WHERE s.object_id = OBJECT_ID('u');
-- COLUMNS with FULLSCAN, no NORECOMPUTE: su reads everything and is automatic again
UPDATE STATISTICS u WITH FULLSCAN, COLUMNS;
INSERT INTO #p SELECT 3, s.name, p.rows, p.rows_sampled, CASE WHEN p.rows = p.rows_sampled THEN 1 ELSE 0 END, s.no_recompute
FROM sys.stats s CROSS APPLY sys.dm_db_stats_properties(s.object_id, s.stats_id) p WHERE s.object_id = OBJECT_ID('u');
SELECT step, name = CAST(name AS varchar(10)), rows, sampled_all, no_recompute,
    sample_pct_band = CASE WHEN rows_sampled * 100 / rows BETWEEN 15 AND 45 THEN '15-45' WHEN rows_sampled = rows THEN '100' ELSE 'other' END
FROM #p ORDER BY step, name;
GO
UPDATE STATISTICS u WITH SAMPLE 150 PERCENT;
GO
UPDATE STATISTICS nosuch;
GO
