-- Parallel aggregation of many groups: partial aggregates per worker, Parallelism
-- (Repartition Streams) hash-partitioned on the group keys, the global aggregate on every
-- consumer, Gather Streams on top. Chosen by cost (about 3,000 groups at DOP 2); a GROUP BY
-- of few groups keeps the merge at the Gather Streams.
EXEC sp_configure 'show advanced options', 1;
RECONFIGURE;
EXEC sp_configure 'cost threshold for parallelism', 0;
RECONFIGURE;
GO
SET NOCOUNT ON;
CREATE TABLE dbo.orders_lines (orderkey int NOT NULL, linenr int NOT NULL, qty int NULL, price decimal(10,2));
INSERT INTO dbo.orders_lines
SELECT TOP (24000) (n + 3) / 4, n % 4, CASE WHEN n % 9 = 0 THEN NULL ELSE n % 50 END, (n % 997) / 4.0
FROM (SELECT ROW_NUMBER() OVER (ORDER BY (SELECT NULL)) AS n
      FROM master..spt_values a CROSS JOIN master..spt_values b) x;
CREATE STATISTICS ol_orderkey ON dbo.orders_lines (orderkey) WITH FULLSCAN;
CREATE STATISTICS ol_linenr ON dbo.orders_lines (linenr) WITH FULLSCAN;
GO
SET SHOWPLAN_TEXT ON;
GO
SELECT orderkey, SUM(qty) FROM dbo.orders_lines GROUP BY orderkey OPTION (MAXDOP 2);
SELECT linenr, SUM(qty) FROM dbo.orders_lines GROUP BY linenr OPTION (MAXDOP 2);
SELECT orderkey, SUM(qty) FROM dbo.orders_lines GROUP BY orderkey OPTION (MAXDOP 1);
GO
SET SHOWPLAN_TEXT OFF;
GO
-- showplan XML: Parallelism with PartitioningType="Hash" and its PartitionColumns
SET SHOWPLAN_XML ON;
GO
SELECT orderkey, SUM(qty), COUNT(*) FROM dbo.orders_lines GROUP BY orderkey OPTION (MAXDOP 2);
GO
SET SHOWPLAN_XML OFF;
GO
-- the same results at both degrees (the q18 inner aggregate's shape: groups over 300)
SELECT COUNT(*), SUM(s), MIN(orderkey), MAX(orderkey) FROM (
  SELECT orderkey, SUM(qty) AS s FROM dbo.orders_lines GROUP BY orderkey HAVING SUM(qty) > 100) x
OPTION (MAXDOP 2);
SELECT COUNT(*), SUM(s), MIN(orderkey), MAX(orderkey) FROM (
  SELECT orderkey, SUM(qty) AS s FROM dbo.orders_lines GROUP BY orderkey HAVING SUM(qty) > 100) x
OPTION (MAXDOP 1);
SELECT TOP (5) orderkey, SUM(qty), AVG(price), COUNT(qty) FROM dbo.orders_lines GROUP BY orderkey ORDER BY SUM(qty) DESC, orderkey OPTION (MAXDOP 2);
SELECT TOP (5) orderkey, SUM(qty), AVG(price), COUNT(qty) FROM dbo.orders_lines GROUP BY orderkey ORDER BY SUM(qty) DESC, orderkey OPTION (MAXDOP 1);
GO
