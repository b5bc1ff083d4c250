-- Parallel hash join with a shared build: the coordinator hashes the build side once, the
-- workers probe it with the morsels of the probe side's scan (exec hash_match::SharedTable).
-- Inner, left outer, left semi and left anti semi joins join the zone; results under DOP 2
-- equal DOP 1's, with NULL keys, duplicates and case-insensitive string keys. An aggregate
-- over a join that batch mode can take is costed as serial batch, parallel row and parallel
-- batch plans (the cheapest wins), so most queries here say DISALLOW_BATCH_MODE (the CI matrix
-- forces batch mode) to keep the parallel row-mode plan.
SET NOCOUNT ON;
EXEC sp_configure 'show advanced options', 1; RECONFIGURE;
EXEC sp_configure 'cost threshold for parallelism', 0; RECONFIGURE;
CREATE TABLE dbo.fact (id int NOT NULL, k int NULL, v int NULL, s varchar(10) NULL, pad char(200) NOT NULL DEFAULT '');
CREATE TABLE dbo.dim (k int NOT NULL, name varchar(10) NOT NULL, grp int NOT NULL);
INSERT dbo.fact (id, k, v, s)
SELECT TOP (20000) n, CASE WHEN n % 11 = 0 THEN NULL ELSE n % 700 END, n % 13,
       CASE n % 3 WHEN 0 THEN 'abc' WHEN 1 THEN 'ABC' ELSE 'xyz' END
FROM (SELECT ROW_NUMBER() OVER (ORDER BY (SELECT NULL)) AS n FROM master..spt_values a CROSS JOIN master..spt_values b) q;
-- keys 0..499, two rows for keys below 50 (duplicates on the build side)
INSERT dbo.dim SELECT number, CONCAT('n', number), number % 5 FROM master..spt_values WHERE type = 'P' AND number < 500;
INSERT dbo.dim SELECT number, CONCAT('m', number), 9 FROM master..spt_values WHERE type = 'P' AND number < 50;
GO
SET SHOWPLAN_TEXT ON;
GO
SELECT d.grp, COUNT(*), SUM(f.v) FROM dbo.fact f JOIN dbo.dim d ON f.k = d.k GROUP BY d.grp OPTION (MAXDOP 2, USE HINT ('DISALLOW_BATCH_MODE'));
SELECT f.id, d.name FROM dbo.fact f JOIN dbo.dim d ON f.k = d.k WHERE f.v = 3 OPTION (MAXDOP 2, USE HINT ('DISALLOW_BATCH_MODE'));
SELECT COUNT(*) FROM dbo.fact f WHERE NOT EXISTS (SELECT 1 FROM dbo.dim d WHERE d.k = f.k) OPTION (MAXDOP 2, HASH JOIN, USE HINT ('DISALLOW_BATCH_MODE'));
-- without the hint, at DOP 2: batch mode does not pay on 20,000 rows, so the parallel join;
-- with batch mode (here forced), the parallel batch plan costs least: each worker probes the
-- coordinator's build in batch mode
SELECT d.grp, COUNT(*), SUM(f.v) FROM dbo.fact f JOIN dbo.dim d ON f.k = d.k GROUP BY d.grp OPTION (MAXDOP 2);
SELECT d.grp, COUNT(*), SUM(f.v) FROM dbo.fact f JOIN dbo.dim d ON f.k = d.k GROUP BY d.grp OPTION (MAXDOP 2, USE HINT ('ALLOW_BATCH_MODE'));
GO
SET SHOWPLAN_TEXT OFF;
GO
-- inner join under an aggregate (local then global)
SELECT d.grp, n = COUNT(*), total = SUM(f.v) FROM dbo.fact f JOIN dbo.dim d ON f.k = d.k GROUP BY d.grp ORDER BY d.grp OPTION (MAXDOP 2, USE HINT ('DISALLOW_BATCH_MODE'));
SELECT d.grp, n = COUNT(*), total = SUM(f.v) FROM dbo.fact f JOIN dbo.dim d ON f.k = d.k GROUP BY d.grp ORDER BY d.grp OPTION (MAXDOP 1);
-- inner join gathered: the same rows
SELECT n = COUNT(*), ids = SUM(CAST(f.id AS bigint)), names = CHECKSUM_AGG(CHECKSUM(d.name))
FROM dbo.fact f JOIN dbo.dim d ON f.k = d.k WHERE f.v = 3 OPTION (MAXDOP 2, HASH JOIN, USE HINT ('DISALLOW_BATCH_MODE'));
SELECT n = COUNT(*), ids = SUM(CAST(f.id AS bigint)), names = CHECKSUM_AGG(CHECKSUM(d.name))
FROM dbo.fact f JOIN dbo.dim d ON f.k = d.k WHERE f.v = 3 OPTION (MAXDOP 1, HASH JOIN);
-- left outer with a residual on the build side; rows with a NULL key stay unmatched
SELECT n = COUNT(*), matched = COUNT(d.k) FROM dbo.fact f LEFT JOIN dbo.dim d ON f.k = d.k AND d.grp = 2 OPTION (MAXDOP 2, HASH JOIN, USE HINT ('DISALLOW_BATCH_MODE'));
SELECT n = COUNT(*), matched = COUNT(d.k) FROM dbo.fact f LEFT JOIN dbo.dim d ON f.k = d.k AND d.grp = 2 OPTION (MAXDOP 1, HASH JOIN);
-- semi and anti semi joins
SELECT n = COUNT(*) FROM dbo.fact f WHERE EXISTS (SELECT 1 FROM dbo.dim d WHERE d.k = f.k) OPTION (MAXDOP 2, HASH JOIN, USE HINT ('DISALLOW_BATCH_MODE'));
SELECT n = COUNT(*) FROM dbo.fact f WHERE EXISTS (SELECT 1 FROM dbo.dim d WHERE d.k = f.k) OPTION (MAXDOP 1, HASH JOIN);
SELECT n = COUNT(*) FROM dbo.fact f WHERE NOT EXISTS (SELECT 1 FROM dbo.dim d WHERE d.k = f.k) OPTION (MAXDOP 2, HASH JOIN, USE HINT ('DISALLOW_BATCH_MODE'));
SELECT n = COUNT(*) FROM dbo.fact f WHERE NOT EXISTS (SELECT 1 FROM dbo.dim d WHERE d.k = f.k) OPTION (MAXDOP 1, HASH JOIN);
-- string keys under the default case-insensitive collation: 'abc' matches 'ABC'
SELECT s = UPPER(f.s), n = COUNT(*) FROM dbo.fact f JOIN (VALUES ('ABC'), ('Xyz')) AS t(s) ON f.s = t.s GROUP BY UPPER(f.s) ORDER BY 1 OPTION (MAXDOP 2, HASH JOIN, USE HINT ('DISALLOW_BATCH_MODE'));
SELECT s = UPPER(f.s), n = COUNT(*) FROM dbo.fact f JOIN (VALUES ('ABC'), ('Xyz')) AS t(s) ON f.s = t.s GROUP BY UPPER(f.s) ORDER BY 1 OPTION (MAXDOP 1, HASH JOIN);
GO
-- the actual plan: the join ran in the zone, every probe row was seen once across the workers
SET STATISTICS PROFILE ON;
GO
SELECT n = COUNT(*) FROM dbo.fact f JOIN dbo.dim d ON f.k = d.k OPTION (MAXDOP 2, HASH JOIN, USE HINT ('DISALLOW_BATCH_MODE'));
GO
SET STATISTICS PROFILE OFF;
GO
-- batch-mode workers (TPC-H Q12's shape): a build side that filters is read serially in batch
-- mode (a scan with its WHERE, late materialization), not gathered from row-mode workers
SET SHOWPLAN_TEXT ON;
GO
SELECT d.grp, n = COUNT(*), total = SUM(f.v) FROM dbo.fact f JOIN dbo.dim d ON f.k = d.k WHERE d.name LIKE 'n1%' GROUP BY d.grp OPTION (MAXDOP 2, USE HINT ('ALLOW_BATCH_MODE'));
GO
SET SHOWPLAN_TEXT OFF;
GO
SELECT d.grp, n = COUNT(*), total = SUM(f.v) FROM dbo.fact f JOIN dbo.dim d ON f.k = d.k WHERE d.name LIKE 'n1%' GROUP BY d.grp ORDER BY d.grp OPTION (MAXDOP 2, USE HINT ('ALLOW_BATCH_MODE'));
SELECT d.grp, n = COUNT(*), total = SUM(f.v) FROM dbo.fact f JOIN dbo.dim d ON f.k = d.k WHERE d.name LIKE 'n1%' GROUP BY d.grp ORDER BY d.grp OPTION (MAXDOP 1, USE HINT ('DISALLOW_BATCH_MODE'));
GO
