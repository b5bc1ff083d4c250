-- BULK INSERT errors: per-row conversion errors with row and column, MAXERRORS, ERRORFILE,
-- file-level errors, options latchkey does not implement
CREATE TABLE t (id int NOT NULL, d date, amount decimal(5,2), label varchar(20));
BULK INSERT t FROM '$(TESTDIR)/data/errors.txt' WITH (ROWTERMINATOR = '0x0a');
SELECT @@ERROR AS err;
SELECT * FROM t;
GO
TRUNCATE TABLE t;
BULK INSERT t FROM '$(TESTDIR)/data/errors.txt' WITH (ROWTERMINATOR = '0x0a', MAXERRORS = 2);
SELECT COUNT(*) AS loaded FROM t;
GO
TRUNCATE TABLE t;
BULK INSERT t FROM '$(TESTDIR)/data/errors.txt' WITH (ROWTERMINATOR = '0x0a', MAXERRORS = 0);
SELECT COUNT(*) AS loaded FROM t;
GO
-- ERRORFILE: the rejected rows and the .Error.Txt log, read back with BULK INSERT
TRUNCATE TABLE t;
BULK INSERT t FROM '$(TESTDIR)/data/errors.txt' WITH (ROWTERMINATOR = '0x0a', ERRORFILE = '$(DATADIR)/rejected.txt');
CREATE TABLE lines (line varchar(200));
BULK INSERT lines FROM '$(DATADIR)/rejected.txt' WITH (ROWTERMINATOR = '0x0a', FIELDTERMINATOR = '0x00');
BULK INSERT lines FROM '$(DATADIR)/rejected.txt.Error.Txt' WITH (ROWTERMINATOR = '0x0a', FIELDTERMINATOR = '0x00');
SELECT line FROM lines;
-- an existing error file is refused before anything loads
BULK INSERT t FROM '$(TESTDIR)/data/errors.txt' WITH (ROWTERMINATOR = '0x0a', ERRORFILE = '$(DATADIR)/rejected.txt');
GO
-- the file ends inside a row
BULK INSERT t FROM '$(TESTDIR)/data/short.txt' WITH (ROWTERMINATOR = '0x0a');
GO
-- the field terminator never comes: the file ends inside the first row
CREATE TABLE one (a varchar(10), b varchar(10));
BULK INSERT one FROM '$(TESTDIR)/data/region.tbl' WITH (FIELDTERMINATOR = ';');
GO
-- a field longer than any value of its column (8,000 bytes, or 4 per character): 4866
BULK INSERT one FROM '$(TESTDIR)/data/long_field.txt' WITH (ROWTERMINATOR = '0x0a');
SELECT COUNT(*) AS n FROM one;
GO
-- a NOT NULL column without a default gets an empty field
CREATE TABLE nn (id int NOT NULL, d date, amount decimal(15,2), label varchar(20) NOT NULL);
BULK INSERT nn FROM '$(TESTDIR)/data/tab_crlf.txt';
SELECT COUNT(*) AS n FROM nn;
GO
BULK INSERT t FROM '$(TESTDIR)/data/nosuch.txt';
GO
BULK INSERT nosuch FROM '$(TESTDIR)/data/errors.txt';
GO
CREATE VIEW v AS SELECT id FROM t;
GO
BULK INSERT v FROM '$(TESTDIR)/data/errors.txt';
GO
BULK INSERT t FROM '$(TESTDIR)/data/errors.txt' WITH (DATAFILETYPE = 'native');
GO
BULK INSERT t FROM '$(TESTDIR)/data/errors.txt' WITH (DATAFILETYPE = 'widenative');
GO
BULK INSERT t FROM '$(TESTDIR)/data/errors.txt' WITH (FORMATFILE = '$(TESTDIR)/data/t.fmt');
GO
BULK INSERT t FROM '$(TESTDIR)/data/errors.txt' WITH (DATA_SOURCE = 'blob');
GO
BULK INSERT t FROM '$(TESTDIR)/data/errors.txt' WITH (FORMAT = 'PARQUET');
GO
BULK INSERT t FROM '$(TESTDIR)/data/errors.txt' WITH (CODEPAGE = '1251');
GO
BULK INSERT t FROM '$(TESTDIR)/data/errors.txt' WITH (FIRSTROW = 2, FIRSTROW = 3);
GO
BULK INSERT t FROM '$(TESTDIR)/data/errors.txt' WITH (NOSUCHOPTION);
GO
BULK INSERT t FROM '$(TESTDIR)/data/errors.txt' WITH (FIRSTROW = -1);
GO
BULK INSERT t FROM '$(TESTDIR)/data/errors.txt' WITH (FIRSTROW = 'x');
GO
