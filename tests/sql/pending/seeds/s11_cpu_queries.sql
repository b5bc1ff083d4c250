-- S11 (seed 000): cross join checksum over spt_values (verbatim; latchkey's spt_values has the
-- 2,048 type 'P' rows, SQL Server 2019 about 2,550 rows, so the row count differs), reduced
-- with TOP to run in CI time.
SELECT MIN(CHECKSUM(CAST(t1.number AS BIGint) + CAST(t2.number AS BIGint)))
FROM (SELECT TOP (300) number FROM master..spt_values) t1
CROSS JOIN (SELECT TOP (300) number FROM master..spt_values) t2
OPTION (MAXDOP 1, NO_PERFORMANCE_SPOOL);
GO
