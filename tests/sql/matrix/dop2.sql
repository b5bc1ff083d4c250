-- config: maxdop=2,cost_threshold=0
-- The matrix's DOP 2 configuration (LATCHKEY_CONFIG, engine run_config.rs): with no
-- sp_configure and no OPTION (MAXDOP), the server runs as if 'max degree of parallelism' were 2
-- and 'cost threshold for parallelism' 0, so even a small aggregate gets a parallel plan
-- (Gather Streams), while sys.configurations still shows the configured values and an
-- explicit OPTION (MAXDOP 1) keeps the plan serial.
SET NOCOUNT ON;
CREATE TABLE dbo.sales (id int PRIMARY KEY, region varchar(10), qty int);
INSERT INTO dbo.sales VALUES (1, 'north', 5), (2, 'south', 7), (3, 'north', 1), (4, 'east', 2);
GO
SELECT name, value, value_in_use FROM sys.configurations
WHERE name IN ('max degree of parallelism', 'cost threshold for parallelism') ORDER BY name;
GO
SET SHOWPLAN_TEXT ON;
GO
SELECT region, SUM(qty) FROM dbo.sales GROUP BY region;
GO
SELECT region, SUM(qty) FROM dbo.sales GROUP BY region OPTION (MAXDOP 1);
GO
SET SHOWPLAN_TEXT OFF;
GO
SELECT region, SUM(qty) FROM dbo.sales GROUP BY region ORDER BY region;
