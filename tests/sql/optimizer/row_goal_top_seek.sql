-- TOP 1 over a selective filter on an indexed column seeks (10 of 20,000 rows: Index Seek +
-- RID Lookup), its estimate lowered to the goal (1 row of 10). Over the 19,990-of-20,000
-- filter the scan stays: a goal scales the seek's and the scan's costs by the same fraction
-- (the first qualifying row is as far into either), so it does not change that choice.
-- TOP with OFFSET sets the goal count + offset; WITH TIES and PERCENT set none.
CREATE TABLE dbo.t (id int NOT NULL, grp int NOT NULL, pad char(100) NOT NULL)
INSERT INTO dbo.t SELECT value, CASE WHEN value <= 10 THEN 2 ELSE 1 END, 'x' FROM GENERATE_SERIES(1, 20000)
CREATE INDEX ix_grp ON dbo.t (grp)
GO
SET SHOWPLAN_ALL ON
GO
SELECT TOP (1) id FROM dbo.t WHERE grp = 2
GO
SELECT TOP (1) id FROM dbo.t WHERE grp = 1
GO
SELECT id FROM dbo.t WHERE grp = 1 ORDER BY id OFFSET 3 ROWS FETCH NEXT 2 ROWS ONLY
GO
SELECT TOP (1) WITH TIES id FROM dbo.t WHERE grp = 1 ORDER BY grp
GO
SET SHOWPLAN_ALL OFF
GO
SELECT TOP (1) id FROM dbo.t WHERE grp = 2 AND id = 7
GO
