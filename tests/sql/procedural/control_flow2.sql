-- GOTO, WAITFOR DELAY, RETURN status, parameters by name and default, 8145 and 201
DECLARE @i int = 0
again:
SET @i = @i + 1
IF @i < 3 GOTO again
PRINT CONCAT('i = ', @i)
GOTO done
PRINT 'skipped'
done:
PRINT 'done'
GO
GOTO nowhere
GO
WAITFOR DELAY '00:00:00.050'
PRINT 'waited'
GO
CREATE PROCEDURE ret_p @x int, @y int = 10 AS
BEGIN
    IF @x > 0 RETURN @x * 2 + @y
    RETURN
END
GO
DECLARE @rc int
EXEC @rc = ret_p 21
SELECT @rc AS rc
EXEC @rc = ret_p @y = 1, @x = 5
SELECT @rc AS rc_named
EXEC @rc = ret_p @x = -1
SELECT @rc AS rc_plain_return
EXEC ret_p @z = 1
EXEC ret_p
GO
CREATE PROCEDURE #tmp_p @v varchar(10) = 'dflt' AS SELECT @v AS v
GO
EXEC #tmp_p
EXEC #tmp_p 'given'
DROP PROCEDURE #tmp_p
EXEC #tmp_p
GO
CREATE PROCEDURE opts_p AS SET NOCOUNT ON
GO
EXEC opts_p
CREATE TABLE after_opts (a int)
INSERT after_opts VALUES (1)
GO
