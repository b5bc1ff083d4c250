SELECT COUNT(*) AS p_rows, MIN(number) AS lo, MAX(number) AS hi FROM master.dbo.spt_values WHERE type = 'P'
GO
SELECT number, low, high, status FROM master..spt_values WHERE type = 'P' AND number IN (0, 1, 7, 8, 2047) ORDER BY number
GO
SELECT COUNT_BIG(*) FROM (SELECT TOP (100000) t1.number FROM master..spt_values t1 CROSS JOIN master..spt_values t2) x
GO
