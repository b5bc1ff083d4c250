-- Batch-mode Hash Match joins, COUNT(DISTINCT) and STRING_AGG (exec README "Batch mode"):
-- with USE HINT ('ALLOW_BATCH_MODE') the join below a batch aggregate runs over columnar
-- batches (its SHOWPLAN_TEXT line ends with "Batch mode"); DISALLOW_BATCH_MODE keeps row
-- mode. Results are the same in both modes: NULL keys never match, strings compare under the
-- column's collation (case and trailing blanks ignored).
CREATE TABLE dbo.orders (id int NOT NULL, cust varchar(10) NULL, amount int NULL);
CREATE TABLE dbo.custs (name varchar(10) NULL, region varchar(10) NULL, note varchar(max) NULL);
INSERT INTO dbo.orders VALUES (1, 'ann', 10), (2, 'ANN ', 20), (3, 'bob', NULL), (4, NULL, 5), (5, 'zed', 7), (6, 'bob', 3);
INSERT INTO dbo.custs VALUES ('Ann', 'north', 'first'), ('bob', 'south', NULL), ('bob', 'east', 'second'), (NULL, 'west', 'none');
GO
SET SHOWPLAN_TEXT ON;
GO
SELECT c.region, COUNT(*), SUM(o.amount) FROM dbo.orders o JOIN dbo.custs c ON o.cust = c.name GROUP BY c.region OPTION (MAXDOP 1, HASH JOIN, USE HINT ('ALLOW_BATCH_MODE'));
SELECT COUNT(DISTINCT o.cust) FROM dbo.orders o LEFT JOIN dbo.custs c ON o.cust = c.name OPTION (MAXDOP 1, HASH JOIN, USE HINT ('ALLOW_BATCH_MODE'));
SELECT COUNT(*) FROM dbo.orders o WHERE NOT EXISTS (SELECT 1 FROM dbo.custs c WHERE c.name = o.cust) OPTION (MAXDOP 1, HASH JOIN, USE HINT ('ALLOW_BATCH_MODE'));
SELECT c.name, STRING_AGG(c.note, '; ') WITHIN GROUP (ORDER BY c.region) FROM dbo.custs c GROUP BY c.name OPTION (MAXDOP 1, USE HINT ('ALLOW_BATCH_MODE'));
SELECT c.region, COUNT(*) FROM dbo.orders o JOIN dbo.custs c ON o.cust = c.name GROUP BY c.region OPTION (MAXDOP 1, HASH JOIN, USE HINT ('DISALLOW_BATCH_MODE'));
GO
SET SHOWPLAN_TEXT OFF;
GO
SELECT c.region, COUNT(*), SUM(o.amount) FROM dbo.orders o JOIN dbo.custs c ON o.cust = c.name GROUP BY c.region ORDER BY c.region OPTION (MAXDOP 1, HASH JOIN, USE HINT ('ALLOW_BATCH_MODE'));
SELECT c.region, COUNT(*), SUM(o.amount) FROM dbo.orders o JOIN dbo.custs c ON o.cust = c.name GROUP BY c.region ORDER BY c.region OPTION (MAXDOP 1, HASH JOIN, USE HINT ('DISALLOW_BATCH_MODE'));
SELECT COUNT(DISTINCT o.cust), COUNT(c.region) FROM dbo.orders o LEFT JOIN dbo.custs c ON o.cust = c.name OPTION (MAXDOP 1, HASH JOIN, USE HINT ('ALLOW_BATCH_MODE'));
SELECT COUNT(DISTINCT o.cust), COUNT(c.region) FROM dbo.orders o LEFT JOIN dbo.custs c ON o.cust = c.name OPTION (MAXDOP 1, HASH JOIN, USE HINT ('DISALLOW_BATCH_MODE'));
SELECT COUNT(*) FROM dbo.orders o WHERE NOT EXISTS (SELECT 1 FROM dbo.custs c WHERE c.name = o.cust) OPTION (MAXDOP 1, HASH JOIN, USE HINT ('ALLOW_BATCH_MODE'));
SELECT c.name, STRING_AGG(c.note, '; ') WITHIN GROUP (ORDER BY c.region) FROM dbo.custs c GROUP BY c.name ORDER BY c.name OPTION (MAXDOP 1, USE HINT ('ALLOW_BATCH_MODE'));
SELECT c.name, STRING_AGG(c.note, '; ') WITHIN GROUP (ORDER BY c.region) FROM dbo.custs c GROUP BY c.name ORDER BY c.name OPTION (MAXDOP 1, USE HINT ('DISALLOW_BATCH_MODE'));
-- a divide by zero in the residual predicate: Msg 8134 in both modes
SELECT COUNT(*) FROM dbo.orders o JOIN dbo.custs c ON o.cust = c.name AND o.amount / (o.id - o.id) > 0 OPTION (MAXDOP 1, HASH JOIN, USE HINT ('ALLOW_BATCH_MODE'));
SELECT COUNT(*) FROM dbo.orders o JOIN dbo.custs c ON o.cust = c.name AND o.amount / (o.id - o.id) > 0 OPTION (MAXDOP 1, HASH JOIN, USE HINT ('DISALLOW_BATCH_MODE'));
GO
