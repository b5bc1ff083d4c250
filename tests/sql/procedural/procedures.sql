CREATE PROCEDURE add_one @v int, @out int OUTPUT
AS
BEGIN
    SET @out = @v + 1
    RETURN 7
END
GO
DECLARE @r int, @rc int
EXEC @rc = add_one 41, @r OUTPUT
SELECT @r AS result, @rc AS return_code
GO
EXEC add_one
GO
EXEC no_such_proc
GO
EXEC ('SELECT ''dynamic'' AS d')
EXEC sp_executesql N'SELECT @p * 2 AS doubled', N'@p int', @p = 21
GO
DROP PROCEDURE add_one
GO
