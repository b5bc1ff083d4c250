-- S2 (seeds 000/001): cold-cache nested loops test, verbatim except TOP (130000) -> TOP (1300)
-- for both tables (CHAR(5000) rows: one row per page).
use tempdb;

CREATE TABLE #outer (
    ID BIGINT IDENTITY(1, 1) NOT NULL,
    DUMMY BIGINT NOT NULL,
    PRIMARY KEY (ID)
);

INSERT INTO #outer (DUMMY)
SELECT TOP (1300) 0
FROM master..spt_values t1
CROSS JOIN master..spt_values t2;

CREATE TABLE #inner (
    ID BIGINT IDENTITY(1, 1) NOT NULL,
    BIG_DUMMY CHAR(5000) NOT NULL,
    PRIMARY KEY (ID)
);

INSERT INTO #inner (BIG_DUMMY)
SELECT TOP (1300) '0'
FROM master..spt_values t1
CROSS JOIN master..spt_values t2;

CHECKPOINT;
DBCC DROPCLEANBUFFERS;

SELECT COUNT_BIG(*)
FROM #outer o
WHERE o.DUMMY = 1
OR EXISTS (
    SELECT 1
    FROM #inner i
    WHERE i.ID = o.ID
)
OPTION (MAXDOP 1, QueryRuleOff BuildSpool);
GO
SELECT COUNT(*) AS outer_rows, MIN(ID) AS lo, MAX(ID) AS hi FROM #outer
SELECT COUNT(*) AS inner_rows, MAX(DATALENGTH(BIG_DUMMY)) AS width FROM #inner
GO
-- the seed's multi-file variant (seed 001): a user database with several data files
CREATE DATABASE s2_files
GO
ALTER DATABASE s2_files ADD FILE (NAME = N's2_files_2', FILENAME = N's2_files_2.ndf', SIZE = 8MB)
GO
-- (2 files, as SQL Server; tests/sql/files/add_file.sql builds the seed's four files with
-- ADD FILE and reads them cold with injected latency. Here, CREATE DATABASE ... ON, below.)
USE s2_files
SELECT COUNT(*) AS files FROM sys.database_files WHERE type_desc = 'ROWS'
GO
USE master
CREATE DATABASE s2_four ON PRIMARY
  (NAME = s2_four_1, FILENAME = 's2_four_1.mdf', SIZE = 8MB),
  (NAME = s2_four_2, FILENAME = 's2_four_2.ndf', SIZE = 8MB),
  (NAME = s2_four_3, FILENAME = 's2_four_3.ndf', SIZE = 8MB),
  (NAME = s2_four_4, FILENAME = 's2_four_4.ndf', SIZE = 8MB)
GO
USE s2_four
SELECT COUNT(*) AS files FROM sys.database_files WHERE type_desc = 'ROWS'
CREATE TABLE dbo.big (ID BIGINT IDENTITY(1, 1) NOT NULL PRIMARY KEY, BIG_DUMMY CHAR(5000) NOT NULL)
INSERT INTO dbo.big (BIG_DUMMY) SELECT TOP (1300) '0' FROM master..spt_values t1 CROSS JOIN master..spt_values t2
SELECT COUNT(*) AS files_holding_rows FROM sys.dm_io_virtual_file_stats(DB_ID(), NULL) WHERE num_of_writes > 1 AND file_id <> 2 -- file 2 is the log
GO
