-- restart
-- sp_configure, RECONFIGURE and sys.configurations: SQL Server's messages and errors, the
-- advanced-option gate, options latchkey does not act on refused when changed, values kept
-- in master across a restart (non-dynamic ones installed at the next start).
SET NOCOUNT ON;
EXEC sp_configure;
EXEC sp_configure 'max degree of parallelism', 4;
EXEC sp_configure 'show advanced options', 1;
SELECT name, value, value_in_use FROM sys.configurations WHERE name = 'show advanced options';
RECONFIGURE;
SELECT name, value, value_in_use FROM sys.configurations WHERE name = 'show advanced options';
EXEC sp_configure 'max degree of parallelism', 4;
EXEC sp_configure 'cost threshold for parallelism', 50;
EXEC sp_configure 'max server memory (MB)', 512;
EXEC sp_configure 'latchkey storage read latency (ms)', 2;
RECONFIGURE WITH OVERRIDE;
SELECT configuration_id, name, value, minimum, maximum, value_in_use, is_dynamic, is_advanced
FROM sys.configurations WHERE configuration_id IN (518, 1538, 1539, 1544, 90001) ORDER BY configuration_id;
EXEC sp_configure 'max degree';
EXEC sp_configure 'max';
EXEC sp_configure 'no such option', 1;
EXEC sp_configure 'max degree of parallelism', 40000;
EXEC sp_configure 'xp_cmdshell', 1;
EXEC sp_configure 'xp_cmdshell', 0;
EXEC sp_configure @configname = 'nested triggers', @configvalue = 1;
EXEC sp_configure 'nested triggers', 0;
BEGIN TRAN;
RECONFIGURE;
ROLLBACK;
RECONFIGURE WITH NOWAIT;
GO
-- restart
SET NOCOUNT ON;
SELECT configuration_id, name, value, value_in_use
FROM sys.configurations WHERE configuration_id IN (518, 1538, 1539, 1544, 90001) ORDER BY configuration_id;
EXEC sp_configure 'latchkey storage read latency (ms)', 0;
RECONFIGURE;
EXEC sp_configure 'latchkey storage read latency (ms)';
