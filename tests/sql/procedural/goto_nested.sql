-- GOTO may jump into a BEGIN...END, IF or WHILE block: the rest of that block runs, a WHILE
-- then re-tests its condition; jumping into TRY or CATCH is Msg 1026.
DECLARE @i int = 0
GOTO inside_block
PRINT 'skipped 1'
BEGIN
    PRINT 'skipped 2'
inside_block:
    PRINT 'in block'
END
PRINT 'after block'
GO
DECLARE @i int = 10
GOTO in_loop
WHILE @i < 3
BEGIN
    PRINT 'loop top ' + CAST(@i AS varchar(10))
in_loop:
    SET @i = CASE WHEN @i = 10 THEN 0 ELSE @i + 1 END
    PRINT 'loop bottom ' + CAST(@i AS varchar(10))
END
SELECT @i AS final_i
GO
IF 1 = 0
BEGIN
    PRINT 'not run'
in_if:
    PRINT 'in the IF branch'
END
ELSE
    GOTO in_if
PRINT 'after IF'
GO
DECLARE @n int = 0
again:
SET @n += 1
IF @n < 3
BEGIN
    PRINT 'n = ' + CAST(@n AS varchar(10))
    GOTO again
END
SELECT @n AS n
GO
GOTO in_try
BEGIN TRY
in_try:
    PRINT 'in try'
END TRY
BEGIN CATCH
    PRINT 'catch'
END CATCH
PRINT 'not reached'
GO
PRINT 'next batch runs'
GO
