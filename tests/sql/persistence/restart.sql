CREATE TABLE keep_me (id int PRIMARY KEY, v varchar(10))
INSERT INTO keep_me VALUES (1, 'one'), (2, 'two')
CREATE TABLE #temp_gone (x int)
GO
CREATE DATABASE otherdb
GO
USE otherdb
CREATE TABLE in_other (z int)
INSERT INTO in_other VALUES (42)
GO
-- restart
SELECT id, v FROM keep_me ORDER BY id
GO
SELECT * FROM #temp_gone
GO
SELECT z FROM otherdb.dbo.in_other
GO
SELECT name FROM sys.databases WHERE name IN ('master', 'tempdb', 'otherdb') ORDER BY database_id
GO
DROP DATABASE otherdb
GO
