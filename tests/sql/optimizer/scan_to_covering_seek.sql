-- ScanToCoveringSeek: seek vs scan sees whether an index covers the query. grp = 1 matches
-- 19,990 of 20,000 rows: with a lookup per row a seek on ix_grp costs far more than scanning
-- the table, so SelToIdxSeek scans (sel_to_idx_seek_selectivity.sql). When the index's
-- INCLUDE columns hold every column the query reads, the seek needs no lookup and reads only
-- the index's narrow leaf pages, so it beats scanning the 100-byte-wide rows: the plan seeks
-- ix_cover, with no RID Lookup. Reading a column the index does not include (pad), a
-- FORCESCAN / INDEX(0) hint, or QUERYRULEOFF ScanToCoveringSeek keeps the scan. Same results.
CREATE TABLE dbo.t (id int NOT NULL, grp int NOT NULL, val int NOT NULL, pad char(100) NOT NULL)
INSERT INTO dbo.t SELECT value, CASE WHEN value <= 10 THEN 2 ELSE 1 END, value % 7, 'x' FROM GENERATE_SERIES(1, 20000)
CREATE INDEX ix_cover ON dbo.t (grp) INCLUDE (id, val)
GO
SET SHOWPLAN_TEXT ON
GO
SELECT SUM(val) AS s, COUNT(id) AS n FROM dbo.t WHERE grp = 1
GO
SELECT SUM(val) AS s, COUNT(id) AS n FROM dbo.t WHERE grp = 1 AND val > 3
GO
SELECT COUNT(pad) AS n FROM dbo.t WHERE grp = 1
GO
SELECT SUM(val) AS s FROM dbo.t WITH (FORCESCAN) WHERE grp = 1
GO
SELECT SUM(val) AS s FROM dbo.t WHERE grp = 1 OPTION (QUERYRULEOFF ScanToCoveringSeek)
GO
SELECT id, val FROM dbo.t WHERE grp = 2
GO
SET SHOWPLAN_TEXT OFF
GO
SELECT SUM(val) AS s, COUNT(id) AS n FROM dbo.t WHERE grp = 1
SELECT SUM(val) AS s, COUNT(id) AS n FROM dbo.t WITH (INDEX(0)) WHERE grp = 1
SELECT SUM(val) AS s, COUNT(id) AS n FROM dbo.t WHERE grp = 1 AND val > 3
SELECT SUM(val) AS s, COUNT(id) AS n FROM dbo.t WITH (INDEX(0)) WHERE grp = 1 AND val > 3
GO
