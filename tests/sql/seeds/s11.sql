-- S11 (seed 000): small CPU benchmarks. The spt_values cross join runs verbatim over the
-- same 2,552 rows as SQL Server 2019's table (2,048 type 'P' and 504 of the other types, whose
-- negative numbers make the minimum checksum INT's smallest value).
SELECT MIN(CHECKSUM(CAST(t1.number AS BIGint) + CAST(t2.number AS BIGint)))
FROM master..spt_values t1
CROSS JOIN master..spt_values t2
OPTION (MAXDOP 1, NO_PERFORMANCE_SPOOL);
GO
-- BatchModeTest verbatim except TOP (20000) added to the generator (the seed loads the whole
-- cross join, ~6.5M rows on SQL Server).
CREATE TABLE dbo.BatchModeTest (
ID1 BIGINT NOT NULL,
ID2 BIGINT NOT NULL,
ID3 BIGINT NOT NULL,
STRING VARCHAR(100),
INDEX CCI CLUSTERED COLUMNSTORE
);

INSERT INTO dbo.BatchModeTest WITH (TABLOCK)
SELECT q.RN, q.RN, q.RN, REPLICATE('Z', 100)
FROM
(
    SELECT TOP (20000) ROW_NUMBER() OVER (ORDER BY (SELECT NULL)) RN
    FROM master..spt_values t1
    CROSS JOIN master..spt_values t2
) q
OPTION (MAXDOP 1);
GO
SELECT COUNT_BIG(DISTINCT ID1)
FROM BatchModeTest
OPTION (MAXDOP 1);
GO
-- The same table as a rowstore heap, so the DISTINCT count itself is checked.
CREATE TABLE dbo.BatchModeRow (ID1 BIGINT NOT NULL, ID2 BIGINT NOT NULL, ID3 BIGINT NOT NULL, STRING VARCHAR(100));
INSERT INTO dbo.BatchModeRow WITH (TABLOCK)
SELECT q.RN, q.RN % 7, q.RN, REPLICATE('Z', 100)
FROM (SELECT TOP (20000) ROW_NUMBER() OVER (ORDER BY (SELECT NULL)) RN
      FROM master..spt_values t1 CROSS JOIN master..spt_values t2) q
OPTION (MAXDOP 1);
GO
SELECT COUNT_BIG(DISTINCT ID1) AS d1, COUNT_BIG(DISTINCT ID2) AS d2 FROM BatchModeRow OPTION (MAXDOP 1);
GO
DBCC CHECKTABLE ('BatchModeRow');
GO
CREATE CLUSTERED INDEX CI ON dbo.BatchModeRow (ID1);
GO
ALTER INDEX ALL ON dbo.BatchModeRow REBUILD;
GO
