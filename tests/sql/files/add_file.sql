-- restart
-- ALTER DATABASE ... ADD FILE / REMOVE FILE on a database created with one data file (seed
-- S2's setup, storage README "Changing the file set"): added files take extents at once
-- (proportional fill), an empty one can be removed, one holding data cannot (5042), errors
-- as SQL Server's; the file set and the rows survive a restart, and after DBCC
-- DROPCLEANBUFFERS with injected read latency a scan reads from all four files.
CREATE DATABASE af;
GO
USE af;
SET NOCOUNT ON;
CREATE TABLE t (id int PRIMARY KEY, pad char(5000) NOT NULL);
INSERT INTO t SELECT value, 'x' FROM GENERATE_SERIES(1, 40);
ALTER DATABASE af ADD FILE (NAME = af_2, FILENAME = 'af_2.ndf', SIZE = 2MB);
ALTER DATABASE af ADD FILE (NAME = af_3, SIZE = 2MB, MAXSIZE = 64MB, FILEGROWTH = 1MB),
  (NAME = af_4, FILENAME = 'af_4.ndf', SIZE = 2MB) TO FILEGROUP [PRIMARY];
ALTER DATABASE CURRENT ADD FILE (NAME = af_5, FILENAME = 'af_5.ndf');
ALTER DATABASE af ADD FILE (NAME = AF_2, FILENAME = 'other.ndf');
ALTER DATABASE af ADD FILE (NAME = x, FILENAME = 'af_2.ndf');
ALTER DATABASE af ADD FILE (NAME = y, FILENAME = '$(DATADIR)/no_such_dir/y.ndf');
ALTER DATABASE af ADD FILE (NAME = z, FILENAME = 'z.ndf') TO FILEGROUP fg1;
ALTER DATABASE af ADD FILE (NAME = v, FILENAME = 'v.ndf', SIZE = 5GB);
ALTER DATABASE tempdb ADD FILE (NAME = tmp2, FILENAME = 'tmp2.ndf');
BEGIN TRAN;
ALTER DATABASE af ADD FILE (NAME = w, FILENAME = 'w.ndf');
ROLLBACK;
ALTER DATABASE af REMOVE FILE af_5;
SELECT file_id, name, type_desc, data_space_id, size, max_size, growth, is_percent_growth
FROM sys.database_files ORDER BY file_id;
INSERT INTO t SELECT value, 'y' FROM GENERATE_SERIES(41, 400);
SELECT file_id, CASE WHEN num_of_writes > 0 THEN 'written' ELSE 'unused' END AS holds_data
FROM sys.dm_io_virtual_file_stats(DB_ID(), NULL) ORDER BY file_id;
ALTER DATABASE af REMOVE FILE af_3;
SELECT COUNT(*) AS files FROM sys.master_files WHERE database_id = DB_ID() AND type_desc = 'ROWS';
GO
-- restart
USE af;
SET NOCOUNT ON;
SELECT file_id, name, size, max_size, growth FROM sys.database_files ORDER BY file_id;
EXEC sp_configure 'show advanced options', 1;
RECONFIGURE;
EXEC sp_configure 'latchkey storage read latency (ms)', 5;
RECONFIGURE;
CHECKPOINT;
DBCC DROPCLEANBUFFERS;
SELECT file_id, num_of_reads, io_stall_read_ms INTO #before
FROM sys.dm_io_virtual_file_stats(DB_ID(), NULL);
SELECT COUNT(*) AS rows_read, MIN(id) AS lo, MAX(id) AS hi FROM t WHERE pad <> '';
SELECT f.file_id,
  CASE WHEN f.num_of_reads > b.num_of_reads THEN 'read' ELSE 'not read' END AS cold_scan,
  CASE WHEN f.io_stall_read_ms - b.io_stall_read_ms >= 5 * (f.num_of_reads - b.num_of_reads)
       THEN 'stalled' ELSE 'fast' END AS latency
FROM sys.dm_io_virtual_file_stats(DB_ID(), NULL) f JOIN #before b ON b.file_id = f.file_id
ORDER BY f.file_id;
EXEC sp_configure 'latchkey storage read latency (ms)', 0;
RECONFIGURE;
DBCC CHECKDB WITH NO_INFOMSGS;
ALTER DATABASE af ADD FILE (NAME = af_7, FILENAME = 'af_7.ndf');
ALTER DATABASE af REMOVE FILE af_7;
SELECT file_id, name FROM sys.database_files ORDER BY file_id;
USE master;
DROP DATABASE af;
