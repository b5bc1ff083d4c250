-- WAITFOR DELAY waits the given time span, WAITFOR TIME until that time of day (the clock
-- GETDATE() reads); a value with a date or a non-time string is Msg 148.
DECLARE @t0 datetime2 = SYSDATETIME()
WAITFOR DELAY '00:00:00.200'
SELECT CASE WHEN DATEDIFF(millisecond, @t0, SYSDATETIME()) >= 190 THEN 'waited' ELSE 'too short' END AS delay_result
GO
WAITFOR DELAY 'abc'
GO
WAITFOR DELAY '2024-01-01 00:00:01'
GO
DECLARE @d varchar(20) = '00:00:00.1'
WAITFOR DELAY @d
SELECT 'variable delay' AS r
GO
DECLARE @t0 datetime2 = SYSDATETIME()
DECLARE @t time = DATEADD(millisecond, 300, CAST(@t0 AS time))
WAITFOR TIME @t
SELECT CASE WHEN DATEDIFF(millisecond, @t0, SYSDATETIME()) BETWEEN 250 AND 5000 THEN 'reached' ELSE 'wrong' END AS time_result
GO
