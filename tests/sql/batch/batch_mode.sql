-- Batch mode (exec README "Batch mode"): USE HINT ('ALLOW_BATCH_MODE') runs the aggregate
-- pipeline over columnar batches (its SHOWPLAN_TEXT lines end with "Batch mode"),
-- DISALLOW_BATCH_MODE keeps row mode, and a table this small stays in row mode by default
-- (below the 100,000-row threshold). Results are the same in both modes.
CREATE TABLE dbo.sales (id int PRIMARY KEY, region varchar(10) NULL, qty int NULL, price decimal(10,2));
CREATE TABLE dbo.events (kind int, n int);
INSERT INTO dbo.sales VALUES (1, 'north', 5, 2.50), (2, 'NORTH', NULL, 1.00), (3, 'south', 7, 3.25),
  (4, NULL, 1, 9.99), (5, 'south', 2147483647, 0.01);
INSERT INTO dbo.events VALUES (1, 10), (2, 20), (1, NULL);
GO
SET SHOWPLAN_TEXT ON;
GO
SELECT region, SUM(CAST(qty AS bigint)), AVG(price), COUNT(*) FROM dbo.sales WHERE price > 1 GROUP BY region OPTION (MAXDOP 1, USE HINT ('ALLOW_BATCH_MODE'));
SELECT COUNT(*), MAX(n), MIN(kind) FROM dbo.events OPTION (MAXDOP 1, USE HINT ('ALLOW_BATCH_MODE'));
SELECT region, COUNT(*) FROM dbo.sales GROUP BY region OPTION (MAXDOP 1, USE HINT ('DISALLOW_BATCH_MODE'));
SELECT region, COUNT(*) FROM dbo.sales GROUP BY region OPTION (MAXDOP 1);
SELECT COUNT(DISTINCT kind) FROM dbo.events OPTION (MAXDOP 1, USE HINT ('ALLOW_BATCH_MODE'));
GO
SET SHOWPLAN_TEXT OFF;
GO
-- case-insensitive groups, decimals, NULL group, the 8153 warning: as row mode
SELECT region, SUM(CAST(qty AS bigint)), AVG(price), COUNT(*) FROM dbo.sales WHERE price > 1 GROUP BY region ORDER BY region OPTION (MAXDOP 1, USE HINT ('ALLOW_BATCH_MODE'));
SELECT region, SUM(CAST(qty AS bigint)), AVG(price), COUNT(*) FROM dbo.sales WHERE price > 1 GROUP BY region ORDER BY region OPTION (MAXDOP 1, USE HINT ('DISALLOW_BATCH_MODE'));
-- overflow inside a batch: Msg 8115 as in row mode
SELECT SUM(qty) FROM dbo.sales OPTION (MAXDOP 1, USE HINT ('ALLOW_BATCH_MODE'));
SELECT SUM(qty) FROM dbo.sales OPTION (MAXDOP 1, USE HINT ('DISALLOW_BATCH_MODE'));
-- divide by zero inside a batch: Msg 8134
SELECT SUM(qty / (id - id)) FROM dbo.sales OPTION (MAXDOP 1, USE HINT ('ALLOW_BATCH_MODE'));
-- an empty table's scalar aggregate: one row
SELECT COUNT(*), SUM(n) FROM dbo.events WHERE kind > 5 OPTION (MAXDOP 1, USE HINT ('ALLOW_BATCH_MODE'));
