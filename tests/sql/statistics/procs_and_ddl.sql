-- sp_createstats / sp_updatestats, statistics following DROP TABLE, DROP INDEX and ALTER COLUMN.
SET NOCOUNT ON;
CREATE TABLE a1 (id int NOT NULL, v varchar(10) NULL, n int NULL);
CREATE INDEX ix_id ON a1 (id);
INSERT INTO a1 VALUES (1, 'p', 10), (2, 'q', 20), (3, 'q', NULL);
CREATE TABLE a2 (k int NOT NULL);
GO
EXEC sp_createstats;
GO
SELECT t = OBJECT_NAME(object_id), Name = CAST(name AS varchar(10)), stats_id, user_created FROM sys.stats WHERE object_id IN (OBJECT_ID('a1'), OBJECT_ID('a2')) ORDER BY object_id, stats_id;
GO
-- a2 is empty: its statistics were never built, so sp_updatestats builds nothing there but
-- reports it; a1 was not modified since
EXEC sp_updatestats;
GO
INSERT INTO a1 VALUES (4, 'r', 40);
INSERT INTO a2 VALUES (1);
EXEC sp_updatestats;
GO
SELECT Name = CAST(name AS varchar(10)), rows FROM sys.stats s CROSS APPLY sys.dm_db_stats_properties(s.object_id, s.stats_id) p WHERE s.object_id = OBJECT_ID('a1') ORDER BY s.stats_id;
GO
EXEC sp_createstats @fullscan = 'maybe';
GO
-- a user statistics object blocks a type change of its column; an index's loses its histogram
ALTER TABLE a1 ALTER COLUMN v varchar(20) NULL;
GO
DROP STATISTICS a1.v;
ALTER TABLE a1 ALTER COLUMN v varchar(20) NULL;
SELECT Name = CAST(name AS varchar(10)) FROM sys.stats WHERE object_id = OBJECT_ID('a1') ORDER BY stats_id;
GO
-- DROP INDEX and DROP TABLE take their statistics along
DROP INDEX ix_id ON a1;
SELECT Name = CAST(name AS varchar(10)) FROM sys.stats WHERE object_id = OBJECT_ID('a1') ORDER BY stats_id;
DROP TABLE a1;
CREATE TABLE a1 (id int NOT NULL);
SELECT c = COUNT(*) FROM sys.stats WHERE object_id = OBJECT_ID('a1');
GO
