-- restart
-- Filegroups (engine filegroups.rs, storage README "Filegroups"): ADD FILEGROUP, ADD FILE TO
-- FILEGROUP, a table ON the filegroup whose pages land only in that filegroup's two files,
-- the DEFAULT filegroup for tables
-- without ON, indexes following their table, sys.dm_db_file_space_usage (allocated extents
-- per file: only the filegroup's files grow), sys.filegroups / sys.data_spaces /
-- sys.database_files / sys.indexes data_space_id, FILEGROUP_NAME / FILEGROUP_ID; errors
-- 5035, 5051, 1921, 622, 5050, 5045, 5042, 5043, 5031, 40517; all of it after a restart.
CREATE DATABASE fgdb;
GO
USE fgdb;
SET NOCOUNT ON;
ALTER DATABASE fgdb ADD FILEGROUP fg_data;
ALTER DATABASE fgdb ADD FILEGROUP FG_DATA;
ALTER DATABASE fgdb ADD FILEGROUP [PRIMARY];
ALTER DATABASE fgdb ADD FILEGROUP [DEFAULT];
ALTER DATABASE fgdb ADD FILEGROUP fg_empty;
CREATE TABLE t_empty (id int) ON fg_empty;
CREATE TABLE t_none (id int) ON no_such_fg;
CREATE TABLE t_ps (id int) ON ps(id);
ALTER DATABASE fgdb MODIFY FILEGROUP fg_empty DEFAULT;
ALTER DATABASE fgdb MODIFY FILEGROUP no_such_fg DEFAULT;
ALTER DATABASE fgdb MODIFY FILEGROUP fg_data READ_ONLY;
ALTER DATABASE fgdb ADD FILE (NAME = fgdb_d1, FILENAME = 'fgdb_d1.ndf', SIZE = 2MB),
  (NAME = fgdb_d2, FILENAME = 'fgdb_d2.ndf', SIZE = 2MB) TO FILEGROUP fg_data;
ALTER DATABASE fgdb ADD FILE (NAME = fgdb_p2, FILENAME = 'fgdb_p2.ndf', SIZE = 2MB);
ALTER DATABASE fgdb ADD FILE (NAME = fgdb_x, FILENAME = 'fgdb_x.ndf') TO FILEGROUP nope;
BEGIN TRAN;
ALTER DATABASE fgdb ADD FILEGROUP fg_tran;
ROLLBACK;
SELECT name, data_space_id, type, type_desc, is_default, is_system, is_read_only
FROM sys.filegroups ORDER BY data_space_id;
SELECT file_id, name, type_desc, data_space_id FROM sys.database_files ORDER BY file_id;
CREATE TABLE big (id int PRIMARY KEY, pad char(5000) NOT NULL) ON fg_data;
SELECT file_id, allocated_extent_page_count AS pages INTO #a0 FROM sys.dm_db_file_space_usage;
INSERT INTO big SELECT value, 'x' FROM GENERATE_SERIES(1, 200);
SELECT f.file_id, f.filegroup_id,
  CASE WHEN f.allocated_extent_page_count > a.pages THEN 'grew' ELSE 'same' END AS big_rows
FROM sys.dm_db_file_space_usage f JOIN #a0 a ON a.file_id = f.file_id ORDER BY f.file_id;
CREATE INDEX ix_big_pad ON big (id) INCLUDE (pad);
CREATE TABLE small (id int) ON [PRIMARY];
ALTER DATABASE fgdb REMOVE FILEGROUP fg_data;
ALTER DATABASE fgdb REMOVE FILE fgdb_d1;
ALTER DATABASE fgdb MODIFY FILEGROUP fg_data DEFAULT;
ALTER DATABASE fgdb MODIFY FILEGROUP fg_data DEFAULT;
CREATE TABLE dflt (id int, v varchar(10));
CREATE TABLE in_primary (id int) ON [PRIMARY];
SELECT OBJECT_NAME(i.object_id) AS tbl, i.index_id, i.type_desc, FILEGROUP_NAME(i.data_space_id) AS fg
FROM sys.indexes i WHERE OBJECT_NAME(i.object_id) IN ('big', 'small', 'dflt', 'in_primary')
ORDER BY tbl, i.index_id;
SELECT FILEGROUP_ID('fg_data') AS fg_data_id, FILEGROUP_ID('nope') AS nope_id,
  FILEGROUP_NAME(1) AS one, FILEGROUP_NAME(99) AS ninety_nine;
SELECT name, data_space_id, type_desc, is_default FROM sys.data_spaces ORDER BY data_space_id;
ALTER DATABASE fgdb REMOVE FILEGROUP fg_empty;
ALTER DATABASE fgdb REMOVE FILEGROUP fg_empty;
ALTER DATABASE fgdb REMOVE FILEGROUP [PRIMARY];
GO
-- restart
USE fgdb;
SET NOCOUNT ON;
SELECT name, data_space_id, is_default FROM sys.filegroups ORDER BY data_space_id;
SELECT file_id, name, data_space_id FROM sys.database_files ORDER BY file_id;
SELECT COUNT(*) AS big_rows FROM big;
EXEC sp_helpindex big;
CREATE TABLE after_restart (id int);
SELECT OBJECT_NAME(i.object_id) AS tbl, i.index_id, FILEGROUP_NAME(i.data_space_id) AS fg
FROM sys.indexes i WHERE OBJECT_NAME(i.object_id) IN ('big', 'dflt', 'after_restart')
ORDER BY tbl, i.index_id;
SELECT file_id, allocated_extent_page_count AS pages INTO #a1 FROM sys.dm_db_file_space_usage;
INSERT INTO big SELECT value, 'y' FROM GENERATE_SERIES(201, 300);
SELECT f.file_id, CASE WHEN f.allocated_extent_page_count > a.pages THEN 'grew' ELSE 'same' END AS more_rows
FROM sys.dm_db_file_space_usage f JOIN #a1 a ON a.file_id = f.file_id ORDER BY f.file_id;
DBCC CHECKDB WITH NO_INFOMSGS;
ALTER DATABASE fgdb ADD FILEGROUP fg3;
ALTER DATABASE fgdb ADD FILE (NAME = fgdb_e, FILENAME = 'fgdb_e.ndf') TO FILEGROUP fg3;
ALTER DATABASE fgdb MODIFY FILEGROUP fg3 DEFAULT;
ALTER DATABASE fgdb REMOVE FILE fgdb_e;
ALTER DATABASE fgdb MODIFY FILEGROUP [PRIMARY] DEFAULT;
ALTER DATABASE fgdb REMOVE FILE fgdb_e;
ALTER DATABASE fgdb REMOVE FILEGROUP fg3;
SELECT name, data_space_id, is_default FROM sys.filegroups ORDER BY data_space_id;
USE master;
DROP DATABASE fgdb;
