-- Row goals and the S7 trap (seed 002): SELECT TOP (1) ... WHERE NOT EXISTS over tables where
-- every outer row has a match. The row goal's uniformity assumption would make a nested loops
-- anti join look nearly free (the first qualifying row "comes early"); nothing qualifies, so
-- it would seek once per outer row. The estimator's anti semi join rows are its floor here
-- (containment: every outer ID is in INNER_CI), so the goal is not passed below the anti join
-- (optimizer row_goal.rs, guard 1) and the hash join stays; its costs add up and only the
-- operators above the join show the goal (EstimateRows 1).
-- With USE HINT ('DISABLE_OPTIMIZER_ROWGOAL') or QUERYTRACEON 4138 the plan is the same and the
-- Compute Scalar and the join show their full estimate (1000 rows); OPTION (LOOP JOIN) reaches
-- the anti semi join made from NOT EXISTS and shows the nested loops plan's full cost.
-- Against HALF_CI (half the outer IDs) the estimate is evidence (5,000 of 10,000 rows), and the
-- goal would price nested loops at two seeks; guard 2 (bounded regret) still keeps the hash
-- join, because if the estimate is wrong the loops cost 10,000 seeks, over twice the hash
-- join's full cost. This is deliberately conservative for anti semi joins only.
CREATE TABLE dbo.OUTER_HEAP (ID VARCHAR(10))
INSERT INTO dbo.OUTER_HEAP SELECT CAST(15000 + value AS varchar(10)) FROM GENERATE_SERIES(1, 10000)
CREATE STATISTICS S1 ON dbo.OUTER_HEAP (ID) WITH FULLSCAN
CREATE TABLE dbo.INNER_CI (ID VARCHAR(10), PRIMARY KEY (ID))
INSERT INTO dbo.INNER_CI SELECT CAST(5000 + value AS varchar(10)) FROM GENERATE_SERIES(1, 20000)
CREATE STATISTICS S1 ON dbo.INNER_CI (ID) WITH FULLSCAN
CREATE TABLE dbo.HALF_CI (ID VARCHAR(10), PRIMARY KEY (ID))
INSERT INTO dbo.HALF_CI SELECT CAST(15000 + value AS varchar(10)) FROM GENERATE_SERIES(1, 5000)
CREATE STATISTICS S1 ON dbo.HALF_CI (ID) WITH FULLSCAN
GO
SET SHOWPLAN_ALL ON
GO
SELECT TOP (1) 1 FROM dbo.OUTER_HEAP o WHERE NOT EXISTS (SELECT 1 FROM dbo.INNER_CI i WHERE i.ID = o.ID)
GO
SELECT TOP (1) 1 FROM dbo.OUTER_HEAP o WHERE NOT EXISTS (SELECT 1 FROM dbo.INNER_CI i WHERE i.ID = o.ID)
OPTION (USE HINT ('DISABLE_OPTIMIZER_ROWGOAL'))
GO
SELECT TOP (1) 1 FROM dbo.OUTER_HEAP o WHERE NOT EXISTS (SELECT 1 FROM dbo.INNER_CI i WHERE i.ID = o.ID)
OPTION (QUERYTRACEON 4138)
GO
SELECT TOP (1) 1 FROM dbo.OUTER_HEAP o WHERE NOT EXISTS (SELECT 1 FROM dbo.INNER_CI i WHERE i.ID = o.ID)
OPTION (LOOP JOIN)
GO
SET SHOWPLAN_ALL OFF
GO
SET SHOWPLAN_TEXT ON
GO
SELECT TOP (1) 1 FROM dbo.OUTER_HEAP o WHERE NOT EXISTS (SELECT 1 FROM dbo.HALF_CI i WHERE i.ID = o.ID)
GO
SET SHOWPLAN_TEXT OFF
GO
SELECT COUNT(*) AS qualifying FROM dbo.OUTER_HEAP o WHERE NOT EXISTS (SELECT 1 FROM dbo.HALF_CI i WHERE i.ID = o.ID)
GO
SELECT TOP (1) 1 AS found FROM dbo.OUTER_HEAP o WHERE NOT EXISTS (SELECT 1 FROM dbo.INNER_CI i WHERE i.ID = o.ID)
GO
INSERT INTO dbo.OUTER_HEAP VALUES ('999999')
SELECT TOP (1) ID FROM dbo.OUTER_HEAP o WHERE NOT EXISTS (SELECT 1 FROM dbo.INNER_CI i WHERE i.ID = o.ID)
GO
SELECT a FROM (VALUES (1)) t(a) OPTION (QUERYTRACEON 8649)
GO
