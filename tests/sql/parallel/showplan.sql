-- Parallel plans in SHOWPLAN_TEXT: local-then-global aggregation under Parallelism (Gather
-- Streams) at MAXDOP 2; serial at MAXDOP 1 and for what stays serial (DISTINCT, STRING_AGG,
-- a variable read per row). The threshold is 0: this optimizer knows no row counts yet.
EXEC sp_configure 'show advanced options', 1;
RECONFIGURE;
EXEC sp_configure 'cost threshold for parallelism', 0;
RECONFIGURE;
GO
CREATE TABLE dbo.sales (id int PRIMARY KEY, region int NOT NULL, qty int NULL, price decimal(10,2));
CREATE TABLE dbo.events (kind int, n int);
INSERT INTO dbo.sales VALUES (1, 1, 5, 2.50), (2, 2, NULL, 1.00), (3, 1, 7, 3.25), (4, 3, 1, 9.99);
INSERT INTO dbo.events VALUES (1, 10), (2, 20), (1, NULL);
GO
SET SHOWPLAN_TEXT ON;
GO
SELECT region, SUM(qty), AVG(price), COUNT(*) FROM dbo.sales WHERE price > 1 GROUP BY region OPTION (MAXDOP 2);
SELECT COUNT(*), MAX(n), MIN(kind) FROM dbo.events OPTION (MAXDOP 2);
SELECT COUNT(*) FROM dbo.events OPTION (MAXDOP 1);
SELECT COUNT(DISTINCT kind) FROM dbo.events OPTION (MAXDOP 2);
SELECT STRING_AGG(CAST(n AS varchar(10)), ',') FROM dbo.events OPTION (MAXDOP 2);
GO
SET SHOWPLAN_TEXT OFF;
GO
-- the same plans in showplan XML (validated against the XSD by cli/tests/showplan_xsd.rs):
-- Parallelism / Gather Streams, the partial aggregates below it, Parallel="1" in the zone
SET SHOWPLAN_XML ON;
GO
SELECT region, SUM(qty), COUNT(*) FROM dbo.sales WHERE price > 1 GROUP BY region OPTION (MAXDOP 2);
SELECT COUNT(*), MAX(n) FROM dbo.events OPTION (MAXDOP 2);
GO
SET SHOWPLAN_XML OFF;
GO
-- the same results at both degrees (tiny tables run on one worker: the runtime guard)
SELECT region, SUM(qty), AVG(price), COUNT(*) FROM dbo.sales WHERE price > 1 GROUP BY region ORDER BY region OPTION (MAXDOP 2);
SELECT region, SUM(qty), AVG(price), COUNT(*) FROM dbo.sales WHERE price > 1 GROUP BY region ORDER BY region OPTION (MAXDOP 1);
SELECT COUNT(*), MAX(n), MIN(kind) FROM dbo.events OPTION (MAXDOP 2);
SELECT SUM(n * 2147483647) FROM dbo.events OPTION (MAXDOP 2);
GO
