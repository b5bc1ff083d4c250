DECLARE @i int = 0, @s varchar(100) = ''
WHILE @i < 5
BEGIN
    SET @i = @i + 1
    IF @i = 2 CONTINUE
    IF @i = 4 BREAK
    SET @s = @s + CAST(@i AS varchar(10)) + ','
END
PRINT @s
SELECT @i AS i, @s AS s
GO
DECLARE @x int
SET @x = 5
IF @x > 3
    PRINT 'big'
ELSE
    PRINT 'small'
SELECT @@ROWCOUNT AS rc
GO
DECLARE @a int = 1
DECLARE @a int = 2
GO
PRINT @undeclared
GO
SET NOCOUNT ON
CREATE TABLE quiet (a int)
INSERT INTO quiet VALUES (1)
SELECT @@ROWCOUNT AS rc_after_insert
SET NOCOUNT OFF
INSERT INTO quiet VALUES (2)
GO
