-- restart
-- ALTER DATABASE ... MODIFY FILE: SIZE grows the file now, MAXSIZE caps it (an insert past
-- it is 1105), FILEGROWTH is the growth step, NEWNAME renames (message 5021); kept across a
-- restart. Errors 5041, 5039, 1828, 226; moving a file (FILENAME) is 40517.
SET NOCOUNT ON;
CREATE DATABASE mf ON (NAME = mf_data, FILENAME = 'mf.mdf', SIZE = 1MB), (NAME = mf_two, FILENAME = 'mf_2.ndf', SIZE = 1MB)
  LOG ON (NAME = mf_log, FILENAME = 'mf.ldf');
GO
USE mf;
SELECT name, CASE WHEN type = 1 THEN NULL ELSE size END AS size, max_size, growth, is_percent_growth FROM sys.database_files ORDER BY file_id;
ALTER DATABASE mf MODIFY FILE (NAME = mf_data, SIZE = 4MB);
ALTER DATABASE mf MODIFY FILE (NAME = mf_two, MAXSIZE = 2MB, FILEGROWTH = 256KB);
ALTER DATABASE CURRENT MODIFY FILE (NAME = mf_log, FILEGROWTH = 10%);
SELECT name, CASE WHEN type = 1 THEN NULL ELSE size END AS size, max_size, growth, is_percent_growth FROM sys.database_files ORDER BY file_id;
ALTER DATABASE mf MODIFY FILE (NAME = nosuch, SIZE = 10MB);
ALTER DATABASE mf MODIFY FILE (NAME = mf_data, SIZE = 2MB);
ALTER DATABASE mf MODIFY FILE (NAME = mf_two, NEWNAME = mf_second);
ALTER DATABASE mf MODIFY FILE (NAME = mf_second, NEWNAME = MF_LOG);
ALTER DATABASE mf MODIFY FILE (NAME = mf_two, MAXSIZE = 2MB);
ALTER DATABASE mf MODIFY FILE (NAME = mf_data, FILENAME = 'moved.mdf');
ALTER DATABASE mf MODIFY FILE (NAME = mf_log, MAXSIZE = 10MB);
BEGIN TRAN;
ALTER DATABASE mf MODIFY FILE (NAME = mf_data, SIZE = 8MB);
ROLLBACK;
GO
-- restart
SET NOCOUNT ON;
USE mf;
SELECT name, CASE WHEN type = 1 THEN NULL ELSE size END AS size, max_size, growth, is_percent_growth FROM sys.database_files ORDER BY file_id;
-- mf_two stops at 2 MB and mf_data at its 4 MB (FILEGROWTH = 0): the load fails with 1105
ALTER DATABASE mf MODIFY FILE (NAME = mf_data, FILEGROWTH = 0);
CREATE TABLE dbo.t (id int IDENTITY PRIMARY KEY, pad char(4000) NOT NULL);
DECLARE @i int = 0;
WHILE @i < 40
BEGIN
  BEGIN TRY
    INSERT INTO dbo.t (pad) SELECT TOP (100) 'x' FROM master..spt_values;
  END TRY
  BEGIN CATCH
    SELECT ERROR_NUMBER() AS error, ERROR_SEVERITY() AS severity;
    BREAK;
  END CATCH
  SET @i += 1;
END;
SELECT CASE WHEN COUNT(*) BETWEEN 500 AND 2000 THEN 'stopped at MAXSIZE' ELSE 'wrong' END AS outcome FROM dbo.t;
GO
SET NOCOUNT ON;
USE mf;
SELECT name, size FROM sys.database_files WHERE type = 0 ORDER BY file_id;
