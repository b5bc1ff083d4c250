-- config: batch=force
-- The matrix's batch-forced configuration: every pipeline that has a batch implementation runs
-- in batch mode whatever its size (as if each statement said USE HINT ('ALLOW_BATCH_MODE')),
-- while a statement's own DISALLOW_BATCH_MODE still keeps it in row mode.
SET NOCOUNT ON;
CREATE TABLE dbo.t (a int, b int);
INSERT INTO dbo.t VALUES (1, 10), (2, 20), (1, 30);
GO
SET SHOWPLAN_ALL ON;
GO
SELECT a, SUM(b) FROM dbo.t GROUP BY a;
GO
SELECT a, SUM(b) FROM dbo.t GROUP BY a OPTION (USE HINT ('DISALLOW_BATCH_MODE'));
GO
SET SHOWPLAN_ALL OFF;
GO
SELECT a, SUM(b) FROM dbo.t GROUP BY a ORDER BY a;
