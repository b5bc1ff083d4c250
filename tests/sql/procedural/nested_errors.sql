-- RAISERROR in a nested procedure, caught two levels up; uncaught it is statement-level
CREATE PROCEDURE inner_p AS
BEGIN
    PRINT 'inner start'
    RAISERROR('boom %d in %s', 16, 3, 42, 'inner')
    PRINT 'inner after raiserror'
END
GO
CREATE PROCEDURE middle_p AS
BEGIN
    EXEC inner_p
    PRINT 'middle after inner'
END
GO
CREATE PROCEDURE outer_p AS
BEGIN TRY
    EXEC middle_p
    PRINT 'not reached'
END TRY
BEGIN CATCH
    SELECT ERROR_NUMBER() AS num, ERROR_SEVERITY() AS sev, ERROR_STATE() AS st,
           ERROR_PROCEDURE() AS proc_name, ERROR_LINE() AS line, ERROR_MESSAGE() AS msg
END CATCH
GO
EXEC outer_p
GO
EXEC middle_p
GO
BEGIN TRY
    THROW 51000, 'thrown in try', 2;
END TRY
BEGIN CATCH
    PRINT CONCAT(ERROR_NUMBER(), ' ', ERROR_MESSAGE(), ' ', ERROR_STATE(), ' ', ERROR_SEVERITY());
    THROW;
END CATCH
PRINT 'not reached after rethrow'
GO
RAISERROR('warn %s', 10, 1, 'w') WITH NOWAIT
RAISERROR('logged %5d|%-4s|', 16, 1, 7, 'ab') WITH LOG
PRINT 'continues after statement-level error'
SELECT @@ERROR AS err_after_print
GO
THROW 49999, 'too small', 1
GO
