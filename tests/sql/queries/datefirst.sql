-- SET DATEFIRST decides which day is weekday 1 and where DATEPART(week) weeks start
-- (2024-01-01 is a Monday, 2024-01-07 a Sunday).
SELECT @@DATEFIRST AS df, DATEPART(weekday, '2024-01-07') AS sun, DATEPART(dw, '2024-01-08') AS mon,
       DATEPART(week, '2024-01-07') AS wk_sun, DATENAME(week, '2024-01-08') AS wk_mon
GO
SET DATEFIRST 1
SELECT @@DATEFIRST AS df, DATEPART(weekday, '2024-01-07') AS sun, DATEPART(dw, '2024-01-08') AS mon,
       DATEPART(week, '2024-01-07') AS wk_sun, DATENAME(week, '2024-01-08') AS wk_mon,
       DATENAME(weekday, '2024-01-08') AS name_unchanged
GO
SET DATEFIRST 3
DECLARE @d date = '2024-01-10'
SELECT DATEPART(weekday, @d) AS wed_is_1, DATEPART(weekday, DATEADD(day, -1, @d)) AS tue_is_7
GO
SET DATEFIRST 7
SELECT DATEPART(weekday, '2024-01-07') AS sun_again
GO
