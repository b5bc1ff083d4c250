-- SET SHOWPLAN_TEXT ON: statements are not executed; each query returns two StmtText result
-- sets (statement text, then the plan as SQL Server's "  |--Operator(...)" lines): a clustered
-- index seek for the primary key, an index seek on ix_k, a clustered index scan with WHERE for
-- the unindexed column. SHOWPLAN does not run DML (COUNT(*) after OFF is 4: the DELETE did not run), and the SET
-- must be alone in its batch (error 1067).
CREATE TABLE sp (id int PRIMARY KEY, k int, v varchar(10))
CREATE INDEX ix_k ON sp (k)
INSERT INTO sp VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 30, 'c')
GO
SET SHOWPLAN_TEXT ON
GO
SELECT v FROM sp WHERE id = 2
GO
SELECT id FROM sp WHERE k = 20
GO
SELECT v FROM sp WHERE v = 'b'
GO
SET SHOWPLAN_TEXT OFF
GO
SELECT v FROM sp WHERE id = 2
GO
INSERT INTO sp VALUES (4, 40, 'd')
GO
SET SHOWPLAN_TEXT ON
GO
DELETE FROM sp WHERE id = 1
GO
SET SHOWPLAN_TEXT OFF
GO
SELECT COUNT(*) FROM sp
GO
SET SHOWPLAN_TEXT ON
SELECT 1
GO
