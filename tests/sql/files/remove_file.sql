-- ALTER DATABASE ... REMOVE FILE / REMOVE FILEGROUP raise SQL Server's errors where they
-- apply: unknown file 5009, the primary data file or the log 5020, a file holding data 5042,
-- an unknown filegroup 5043; removing the PRIMARY filegroup is Msg 40517. An empty
-- secondary file is removed (its file placed outside the database directory is deleted).
CREATE DATABASE rf
  ON (NAME = rf_a, FILENAME = 'rf_a.mdf'),
     (NAME = rf_b, FILENAME = 'rf_b.ndf', SIZE = 2MB),
     (NAME = rf_c, FILENAME = 'rf_c.ndf', SIZE = 2MB)
  LOG ON (NAME = rf_log, FILENAME = 'rf.ldf');
CREATE DATABASE rf2 ON (NAME = rf2_a, FILENAME = 'rf2_a.mdf'), (NAME = rf2_b, FILENAME = 'rf2_b.ndf');
GO
USE rf;
SET NOCOUNT ON;
CREATE TABLE t (id int PRIMARY KEY, pad char(2000) NOT NULL);
INSERT INTO t SELECT value, 'x' FROM GENERATE_SERIES(1, 400);
ALTER DATABASE rf REMOVE FILE nosuch;
ALTER DATABASE rf REMOVE FILE rf_a;
ALTER DATABASE rf REMOVE FILE rf_log;
ALTER DATABASE rf REMOVE FILE rf_b;
ALTER DATABASE CURRENT REMOVE FILE [RF_C];
ALTER DATABASE rf REMOVE FILEGROUP fg1;
ALTER DATABASE rf REMOVE FILEGROUP [PRIMARY];
ALTER DATABASE no_such_db REMOVE FILE rf_b;
SELECT name, type_desc FROM sys.database_files ORDER BY file_id;
SELECT COUNT(*) AS rows_kept FROM t;
GO
ALTER DATABASE rf2 REMOVE FILE rf2_b;
USE rf2;
SELECT name, type_desc FROM sys.database_files ORDER BY file_id;
SELECT COUNT(*) AS master_files FROM sys.master_files WHERE database_id = DB_ID('rf2');
ALTER DATABASE rf2 REMOVE FILE rf2_b;
GO
-- the file name of the removed file can be used again
ALTER DATABASE rf2 ADD FILE (NAME = rf2_b, FILENAME = 'rf2_b.ndf');
SELECT name, file_id FROM sys.database_files ORDER BY file_id;
GO
USE master;
DROP DATABASE rf;
DROP DATABASE rf2;
