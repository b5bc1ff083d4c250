-- 600 tables need three pages of the storage directory; its 2nd and 3rd pages used to
-- overwrite the file header and the GAM (Msg 824 when the data directory was reopened).
SET NOCOUNT ON;
CREATE TABLE src(a int, b int);
INSERT src VALUES (1,2),(3,4);
DECLARE @i int = 0, @s nvarchar(200);
WHILE @i < 600
BEGIN
  SET @s = N'DROP TABLE IF EXISTS ' + QUOTENAME(N't_' + CAST(@i AS nvarchar(5)));
  EXEC (@s);
  SET @s = N'SELECT * INTO ' + QUOTENAME(N't_' + CAST(@i AS nvarchar(5))) + N' FROM src WHERE 1 = 0';
  EXEC (@s);
  SET @i += 1;
END
GO
-- restart
SET NOCOUNT ON;
SELECT COUNT(*) AS tables FROM sys.tables WHERE name LIKE 't[_]%';
DECLARE @i int = 0, @s nvarchar(200);
WHILE @i < 600
BEGIN
  SET @s = N'DROP TABLE IF EXISTS ' + QUOTENAME(N't_' + CAST(@i AS nvarchar(5)));
  EXEC (@s);
  SET @s = N'SELECT * INTO ' + QUOTENAME(N't_' + CAST(@i AS nvarchar(5))) + N' FROM src';
  EXEC (@s);
  SET @i += 1;
END
GO
-- restart
SET NOCOUNT ON;
SELECT COUNT(*) AS tables FROM sys.tables WHERE name LIKE 't[_]%';
SELECT SUM(a) AS sum_a, COUNT(*) AS n FROM t_599;
DROP TABLE t_0;
INSERT t_1 SELECT * FROM src;
SELECT COUNT(*) AS n FROM t_1;
GO
