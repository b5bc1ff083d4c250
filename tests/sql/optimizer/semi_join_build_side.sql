-- A semi / anti semi hash join builds on its smaller input (TPC-H q04: orders WHERE EXISTS
-- (lineitem ...)). When the subquery input is over 1,000 rows and 4x the preserved input, the
-- planner also costs the Hash Match that builds on the preserved input and probes with the
-- subquery input — SQL Server's Hash Match (Left Semi Join) / (Left Anti Semi Join), named by
-- position: the build input is listed first and its rows are output (at a row's first match,
-- or, for the anti semi join, after the probe input when it never matched) — and keeps the
-- cheaper. The reverse sizes keep the Right Semi / Right Anti Semi Join (build on the subquery
-- input, the probe rows out). QUERYRULEOFF JoinCommute and FORCE ORDER keep the written sides; OPTION
-- (HASH JOIN) fixes the algorithm only. Every query's rows are the same either way.
CREATE TABLE dbo.ord (o_key int NOT NULL PRIMARY KEY, o_pri int NULL)
CREATE TABLE dbo.item (l_key int NULL, l_qty int NOT NULL)
INSERT INTO dbo.ord SELECT value, CASE WHEN value % 7 = 0 THEN NULL ELSE value % 5 END FROM GENERATE_SERIES(1, 300)
INSERT INTO dbo.item SELECT CASE WHEN value % 11 = 0 THEN NULL ELSE value % 250 END, value % 50 FROM GENERATE_SERIES(1, 20000)
GO
SET SHOWPLAN_TEXT ON
GO
SELECT o_pri, COUNT(*) FROM dbo.ord WHERE EXISTS (SELECT 1 FROM dbo.item WHERE l_key = o_key AND l_qty > 40) GROUP BY o_pri
GO
SELECT COUNT(*) FROM dbo.ord WHERE NOT EXISTS (SELECT 1 FROM dbo.item WHERE l_key = o_key)
GO
SELECT COUNT(*) FROM dbo.item WHERE EXISTS (SELECT 1 FROM dbo.ord WHERE o_key = l_key)
GO
SELECT COUNT(*) FROM dbo.ord WHERE o_key IN (SELECT l_key FROM dbo.item) OPTION (HASH JOIN)
GO
SELECT COUNT(*) FROM dbo.ord WHERE EXISTS (SELECT 1 FROM dbo.item WHERE l_key = o_key) OPTION (QUERYRULEOFF JoinCommute)
GO
SELECT COUNT(*) FROM dbo.ord WHERE EXISTS (SELECT 1 FROM dbo.item WHERE l_key = o_key) OPTION (FORCE ORDER)
GO
SET SHOWPLAN_TEXT OFF
GO
SELECT o_pri, COUNT(*) FROM dbo.ord WHERE EXISTS (SELECT 1 FROM dbo.item WHERE l_key = o_key AND l_qty > 40) GROUP BY o_pri ORDER BY o_pri
SELECT o_pri, COUNT(*) FROM dbo.ord WHERE EXISTS (SELECT 1 FROM dbo.item WHERE l_key = o_key AND l_qty > 40) GROUP BY o_pri ORDER BY o_pri OPTION (QUERYRULEOFF JoinCommute)
SELECT COUNT(*), SUM(o_key) FROM dbo.ord WHERE NOT EXISTS (SELECT 1 FROM dbo.item WHERE l_key = o_key)
SELECT COUNT(*), SUM(o_key) FROM dbo.ord WHERE NOT EXISTS (SELECT 1 FROM dbo.item WHERE l_key = o_key) OPTION (QUERYRULEOFF JoinCommute)
SELECT COUNT(*) FROM dbo.item WHERE EXISTS (SELECT 1 FROM dbo.ord WHERE o_key = l_key)
GO
