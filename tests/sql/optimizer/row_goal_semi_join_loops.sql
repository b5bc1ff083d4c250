-- A row goal changes a costed choice: TOP (5) ... WHERE EXISTS over 10,000 outer rows that
-- all have a match needs about five outer rows, so nested loops with a clustered index seek
-- per outer row (five seeks) beats building a hash table on 20,000 inner rows. The same
-- query with USE HINT ('DISABLE_OPTIMIZER_ROWGOAL') or QUERYTRACEON 4138 is costed in full
-- and hashes; OPTION (FAST 5) sets the goal on the whole result. SHOWPLAN_ALL's EstimateRows
-- show the goal (5) where the full estimate is 10,000 ("DISABLE_OPTIMIZER_ROWGOAL changes the
-- estimate"), SHOWPLAN_XML keeps the full one as InternalInfo/@EstimateRowsWithoutRowGoal, and
-- each subtree cost is its own cost plus its children's.
CREATE TABLE dbo.o (id int NOT NULL, k int NOT NULL)
INSERT INTO dbo.o SELECT value, value * 2 FROM GENERATE_SERIES(1, 10000)
CREATE TABLE dbo.i (id int PRIMARY KEY, pad char(20) NOT NULL)
INSERT INTO dbo.i SELECT value, 'x' FROM GENERATE_SERIES(1, 20000)
GO
SET SHOWPLAN_TEXT ON
GO
SELECT TOP (5) o.id FROM dbo.o o WHERE EXISTS (SELECT 1 FROM dbo.i i WHERE i.id = o.k)
GO
SELECT TOP (5) o.id FROM dbo.o o WHERE EXISTS (SELECT 1 FROM dbo.i i WHERE i.id = o.k)
OPTION (USE HINT ('DISABLE_OPTIMIZER_ROWGOAL'))
GO
SELECT TOP (5) o.id FROM dbo.o o WHERE EXISTS (SELECT 1 FROM dbo.i i WHERE i.id = o.k)
OPTION (QUERYTRACEON 4138)
GO
SELECT o.id FROM dbo.o o WHERE EXISTS (SELECT 1 FROM dbo.i i WHERE i.id = o.k) OPTION (FAST 5)
GO
SELECT o.id FROM dbo.o o WHERE EXISTS (SELECT 1 FROM dbo.i i WHERE i.id = o.k)
GO
SELECT TOP (5) o.id, i.pad FROM dbo.o o JOIN dbo.i i ON i.id = o.k
GO
SELECT o.id, i.pad FROM dbo.o o JOIN dbo.i i ON i.id = o.k
GO
SET SHOWPLAN_TEXT OFF
GO
SET SHOWPLAN_ALL ON
GO
SELECT TOP (5) o.id FROM dbo.o o WHERE EXISTS (SELECT 1 FROM dbo.i i WHERE i.id = o.k)
GO
SELECT TOP (5) o.id FROM dbo.o o WHERE EXISTS (SELECT 1 FROM dbo.i i WHERE i.id = o.k)
OPTION (USE HINT ('DISABLE_OPTIMIZER_ROWGOAL'))
GO
SET SHOWPLAN_ALL OFF
GO
SET SHOWPLAN_XML ON
GO
SELECT TOP (5) o.id FROM dbo.o o WHERE EXISTS (SELECT 1 FROM dbo.i i WHERE i.id = o.k)
GO
SET SHOWPLAN_XML OFF
GO
SELECT COUNT(*) AS n FROM (SELECT TOP (5) o.id FROM dbo.o o WHERE EXISTS (SELECT 1 FROM dbo.i i WHERE i.id = o.k)) t
SELECT COUNT(*) AS n FROM dbo.o o WHERE EXISTS (SELECT 1 FROM dbo.i i WHERE i.id = o.k) OPTION (FAST 5)
SELECT COUNT(*) AS n FROM dbo.o o WHERE EXISTS (SELECT 1 FROM dbo.i i WHERE i.id = o.k) OPTION (QUERYTRACEON 4138)
GO
