-- BULK INSERT: terminators, FIRSTROW/LASTROW, defaults, KEEPNULLS, KEEPIDENTITY, hints
CREATE TABLE dbo.region (r_regionkey int NOT NULL PRIMARY KEY, r_name char(25) NOT NULL, r_comment varchar(152));
BULK INSERT dbo.region FROM '$(TESTDIR)/data/region.tbl' WITH (FIELDTERMINATOR = '|', ROWTERMINATOR = '|\n', TABLOCK);
SELECT r_regionkey, '[' + r_name + ']' AS padded, r_comment FROM dbo.region ORDER BY r_regionkey;
GO
-- three-part name, FIRSTROW/LASTROW, hints that change nothing
CREATE TABLE r2 (k int, n varchar(20), c varchar(100));
BULK INSERT master.dbo.r2 FROM '$(TESTDIR)/data/region.tbl'
  WITH (FIELDTERMINATOR = '|', ROWTERMINATOR = '|\n', FIRSTROW = 2, LASTROW = 3, ROWS_PER_BATCH = 10, KILOBYTES_PER_BATCH = 4, ORDER (k ASC));
SELECT k, n FROM r2;
BULK INSERT r2 FROM '$(TESTDIR)/data/region.tbl' WITH (FIELDTERMINATOR = '|', ROWTERMINATOR = '|\n', ORDER (nosuch));
GO
-- default terminators: tab and \r\n
CREATE TABLE t (id int NOT NULL, d date, amount decimal(15,2), label varchar(20));
BULK INSERT t FROM '$(TESTDIR)/data/tab_crlf.txt';
SELECT * FROM t;
GO
-- '\n' means \r\n as in SQL Server: an LF-only file is one long row; '0x0a' is a line feed
TRUNCATE TABLE t;
BULK INSERT t FROM '$(TESTDIR)/data/tab_lf.txt' WITH (ROWTERMINATOR = '\n');
SELECT COUNT(*) AS n FROM t;
BULK INSERT t FROM '$(TESTDIR)/data/tab_lf.txt' WITH (ROWTERMINATOR = '0x0a');
SELECT * FROM t;
GO
-- empty fields: column default without KEEPNULLS, NULL with it
CREATE TABLE dflt (id int, s varchar(10) DEFAULT 'dflt', n int DEFAULT 42);
BULK INSERT dflt FROM '$(TESTDIR)/data/defaults.txt' WITH (ROWTERMINATOR = '0x0a');
BULK INSERT dflt FROM '$(TESTDIR)/data/defaults.txt' WITH (ROWTERMINATOR = '0x0a', KEEPNULLS);
SELECT * FROM dflt ORDER BY id, s;
GO
-- identity: generated unless KEEPIDENTITY
CREATE TABLE ident (id int IDENTITY(1,1) PRIMARY KEY, name varchar(10));
BULK INSERT ident FROM '$(TESTDIR)/data/ident.txt' WITH (ROWTERMINATOR = '0x0a');
BULK INSERT ident FROM '$(TESTDIR)/data/ident.txt' WITH (ROWTERMINATOR = '0x0a', KEEPIDENTITY);
SELECT * FROM ident ORDER BY id;
INSERT ident (name) VALUES ('next');
SELECT IDENT_CURRENT('ident') AS cur;
GO
-- FORMAT = 'CSV' with FIELDQUOTE, a header skipped with FIRSTROW
CREATE TABLE people (id int, name varchar(30), note varchar(30));
BULK INSERT people FROM '$(TESTDIR)/data/people.csv' WITH (FORMAT = 'CSV', FIELDTERMINATOR = ',', ROWTERMINATOR = '0x0a', FIRSTROW = 2);
SELECT id, name, note, CASE WHEN note IS NULL THEN 'null' ELSE 'not null' END AS note_null FROM people;
CREATE TABLE people2 (id int, name varchar(30), note varchar(30));
BULK INSERT people2 FROM '$(TESTDIR)/data/people.csv' WITH (FORMAT = 'CSV', FIELDQUOTE = '''', FIELDTERMINATOR = ',', ROWTERMINATOR = '0x0a', FIRSTROW = 3);
SELECT * FROM people2;
GO
-- a temp table and @@ROWCOUNT
CREATE TABLE #tmp (k int, n varchar(20), c varchar(100));
BULK INSERT #tmp FROM '$(TESTDIR)/data/region.tbl' WITH (FIELDTERMINATOR = '|', ROWTERMINATOR = '|\n');
SELECT @@ROWCOUNT AS rc, (SELECT COUNT(*) FROM #tmp) AS n;
GO
-- inside a procedure, dynamic SQL and TRY/CATCH
CREATE TABLE r3 (k int, n varchar(20), c varchar(100));
GO
CREATE PROCEDURE load_r3 AS BULK INSERT r3 FROM '$(TESTDIR)/data/region.tbl' WITH (FIELDTERMINATOR = '|', ROWTERMINATOR = '|\n');
GO
EXEC load_r3;
EXEC ('BULK INSERT r3 FROM ''$(TESTDIR)/data/region.tbl'' WITH (FIELDTERMINATOR = ''|'', ROWTERMINATOR = ''|\n'', LASTROW = 1)');
BEGIN TRY
  BULK INSERT r3 FROM '$(TESTDIR)/data/nosuch.tbl';
END TRY
BEGIN CATCH
  SELECT ERROR_NUMBER() AS n, ERROR_MESSAGE() AS m;
END CATCH
SELECT COUNT(*) AS n FROM r3;
GO
