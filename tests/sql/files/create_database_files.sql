-- restart
-- CREATE DATABASE with four data files and a log (issue 12): the files are created where
-- FILENAME says (relative = in the data directory), SIZE/MAXSIZE/FILEGROWTH are kept and
-- shown in sys.database_files / sys.master_files, rows spread over the four files, and all
-- of it survives a restart.
SET NOCOUNT ON;
CREATE DATABASE files4 ON PRIMARY
  (NAME = files4_a, FILENAME = 'files4_a.mdf', SIZE = 1MB, FILEGROWTH = 512KB),
  (NAME = files4_b, FILENAME = '$(DATADIR)/files4_b.ndf', SIZE = 1MB),
  (NAME = files4_c, FILENAME = 'files4_c.ndf', SIZE = 2048KB, MAXSIZE = 100MB, FILEGROWTH = 10%),
  (NAME = files4_d, FILENAME = 'files4_d.ndf', SIZE = 1, MAXSIZE = UNLIMITED)
LOG ON (NAME = files4_log, FILENAME = 'files4.ldf', SIZE = 8MB, FILEGROWTH = 64MB);
GO
USE files4;
SELECT file_id, type_desc, data_space_id, name, physical_name, size, max_size, growth, is_percent_growth
FROM sys.database_files WHERE type = 0;
SELECT file_id, type_desc, name, physical_name, max_size, growth FROM sys.database_files WHERE type = 1;
SELECT name, data_space_id, type, type_desc, is_default FROM sys.data_spaces;
CREATE TABLE dbo.t (id int PRIMARY KEY, pad char(2000) NOT NULL) ON [PRIMARY];
INSERT INTO dbo.t SELECT value, 'x' FROM GENERATE_SERIES(1, 2000);
SELECT COUNT(*) AS files_written FROM sys.dm_io_virtual_file_stats(DB_ID(), NULL) WHERE num_of_writes > 0;
GO
-- restart
SET NOCOUNT ON;
USE files4;
SELECT COUNT(*) AS rows_kept FROM dbo.t;
SELECT database_id - DB_ID() AS same_db, file_id, name, physical_name, max_size, growth, is_percent_growth
FROM sys.master_files WHERE database_id = DB_ID('files4') ORDER BY file_id;
-- a fresh process reads the table from disk: every file is read
SELECT file_id, CASE WHEN num_of_reads > 0 THEN 'read' ELSE 'not read' END AS reads
FROM sys.dm_io_virtual_file_stats(DB_ID('files4'), NULL) ORDER BY file_id;
SELECT file_id FROM sys.dm_io_virtual_file_stats(NULL, 4) WHERE database_id = DB_ID('files4');
SELECT COUNT(*) AS all_files FROM sys.dm_io_virtual_file_stats(NULL, NULL) WHERE database_id = DB_ID('files4');
USE master;
DROP DATABASE files4;
SELECT COUNT(*) AS left_over FROM sys.master_files WHERE database_id > 4;
