-- master.dbo.spt_values is shipped with the server, not a user table
USE master;
SELECT name, type, is_ms_shipped FROM sys.objects WHERE name = 'spt_values';
SELECT name, is_ms_shipped FROM sys.tables WHERE name = 'spt_values';
SELECT OBJECTPROPERTY(OBJECT_ID('spt_values'), 'IsMSShipped') AS shipped;
CREATE TABLE dbo.mine (a INT);
SELECT name, is_ms_shipped FROM sys.tables WHERE name = 'mine';
SELECT OBJECTPROPERTY(OBJECT_ID('mine'), 'IsMSShipped') AS shipped;
GO
