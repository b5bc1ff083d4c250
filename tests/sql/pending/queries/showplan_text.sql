-- PENDING (engine): SET SHOWPLAN_TEXT ON is accepted but ignored; the statements below run and
-- return rows. SQL Server returns, instead of executing, one StmtText result per statement:
-- the statement text, then the plan, e.g. for the first query
--   |--Clustered Index Seek(OBJECT:([master].[dbo].[sp].[PK__sp__...]), SEEK:([master].[dbo].[sp].[id]=CONVERT_IMPLICIT(int,[@1],0)) ORDERED FORWARD)
-- for the second an Index Seek on ix_k, for the third a Clustered Index Scan with WHERE:(...).
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
