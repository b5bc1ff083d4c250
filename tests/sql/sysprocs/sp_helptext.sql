-- format: jsonl
CREATE VIEW dbo.v1 AS
SELECT 1 AS a,
       2 AS b;
GO
EXEC sp_helptext 'v1';
GO
DECLARE @sql NVARCHAR(MAX) = N'CREATE PROCEDURE dbo.p_long AS SELECT ''' + REPLICATE(N'x', 300) + N''' AS v;';
EXEC (@sql);
GO
EXEC sp_helptext @objname = 'dbo.p_long';
GO
CREATE TABLE t (a INT);
GO
EXEC sp_helptext 't';
EXEC sp_helptext 'nosuch';
GO
