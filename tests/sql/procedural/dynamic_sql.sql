CREATE TABLE #outer_t (a int)
INSERT #outer_t VALUES (1), (2)
DECLARE @n int = 5, @out int, @sql nvarchar(200)
EXEC ('SELECT COUNT(*) AS visible_rows FROM #outer_t')
EXEC sp_executesql N'SELECT @p * 2 AS doubled; SET @r = @p + 100', N'@p int, @r int OUTPUT', @p = 21, @r = @out OUTPUT
SELECT @out AS out_value
SET @sql = N'SELECT @n AS n_inside'
EXEC (@sql)
PRINT 'batch continues after dynamic error'
EXEC sp_executesql N'CREATE TABLE #inner_t (b int); INSERT #inner_t VALUES (7); SELECT b FROM #inner_t'
SELECT b FROM #inner_t
GO
DECLARE @cnt int
EXEC sp_executesql N'SELECT @c = COUNT(*) FROM #outer_t', N'@c int OUTPUT', @c = @cnt OUTPUT
SELECT @cnt AS cnt
EXEC sp_executesql N'SELECT @x AS x', N'@x varchar(5)', 'abcdefgh'
GO

-- an empty declaration list declares nothing (tiberius sends N'' with no parameters)
EXEC sp_executesql N'SELECT 1 AS one', N'';
