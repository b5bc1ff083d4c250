-- config: maxdop=2
-- ALTER DATABASE SCOPED CONFIGURATION and sys.database_scoped_configurations: MAXDOP (over
-- the server's setting, under OPTION (MAXDOP)) and BATCH_MODE_ON_ROWSTORE (OFF: row mode
-- unless USE HINT ('ALLOW_BATCH_MODE')) act; settings that only describe what latchkey does
-- are accepted; any other value is 40517; the value is kept per database and its plans
-- recompile when it changes.
EXEC sp_configure 'show advanced options', 1;
RECONFIGURE;
EXEC sp_configure 'cost threshold for parallelism', 0;
RECONFIGURE;
GO
CREATE DATABASE scoped;
GO
USE scoped;
GO
CREATE TABLE t (a int, b int);
INSERT INTO t SELECT value, value % 7 FROM GENERATE_SERIES(1, 5000);
GO
SELECT configuration_id, name, value, value_for_secondary, is_value_default
FROM sys.database_scoped_configurations ORDER BY configuration_id;
GO
SET SHOWPLAN_TEXT ON;
GO
SELECT b, SUM(a) FROM t GROUP BY b OPTION (USE HINT ('DISALLOW_BATCH_MODE'));
GO
SET SHOWPLAN_TEXT OFF;
GO
-- the database's MAXDOP 1 keeps the same query serial; the hint still wins
ALTER DATABASE SCOPED CONFIGURATION SET MAXDOP = 1;
GO
SET SHOWPLAN_TEXT ON;
GO
SELECT b, SUM(a) FROM t GROUP BY b OPTION (USE HINT ('DISALLOW_BATCH_MODE'));
SELECT b, SUM(a) FROM t GROUP BY b OPTION (MAXDOP 2, USE HINT ('DISALLOW_BATCH_MODE'));
GO
SET SHOWPLAN_TEXT OFF;
GO
-- batch mode off for the database, back on for one statement
ALTER DATABASE SCOPED CONFIGURATION SET BATCH_MODE_ON_ROWSTORE = OFF;
GO
SET SHOWPLAN_TEXT ON;
GO
SELECT b, COUNT(*) FROM t GROUP BY b OPTION (USE HINT ('ALLOW_BATCH_MODE'));
SELECT b, COUNT(*) FROM t GROUP BY b;
GO
SET SHOWPLAN_TEXT OFF;
GO
SELECT b, COUNT(*) AS n FROM t GROUP BY b ORDER BY b;
GO
-- settings only for another database
USE master;
GO
SELECT name, value FROM sys.database_scoped_configurations WHERE is_value_default = 0;
GO
USE scoped;
GO
SELECT name, value FROM sys.database_scoped_configurations WHERE is_value_default = 0 ORDER BY name;
GO
-- held by construction (latchkey never sniffs parameters), the defaults, and the refusals
ALTER DATABASE SCOPED CONFIGURATION SET PARAMETER_SNIFFING = OFF;
ALTER DATABASE SCOPED CONFIGURATION SET LEGACY_CARDINALITY_ESTIMATION = OFF;
ALTER DATABASE SCOPED CONFIGURATION CLEAR PROCEDURE_CACHE;
GO
ALTER DATABASE SCOPED CONFIGURATION SET LEGACY_CARDINALITY_ESTIMATION = ON;
GO
ALTER DATABASE SCOPED CONFIGURATION SET LIGHTWEIGHT_QUERY_PROFILING = OFF;
GO
ALTER DATABASE SCOPED CONFIGURATION SET ELEVATE_ONLINE = WHEN_SUPPORTED;
GO
ALTER DATABASE SCOPED CONFIGURATION FOR SECONDARY SET MAXDOP = 1;
GO
ALTER DATABASE SCOPED CONFIGURATION SET MAXDOP = 40000;
GO
ALTER DATABASE SCOPED CONFIGURATION SET NO_SUCH_SETTING = ON;
GO
SELECT name, value FROM sys.database_scoped_configurations WHERE is_value_default = 0 ORDER BY name;
GO
