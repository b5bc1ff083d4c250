-- DBCC CHECKDB / CHECKTABLE / CHECKALLOC as SQL Server prints them (issue 8): per-table lines,
-- the summary, NO_INFOMSGS, errors for an unknown table (2501) or database (2520), options that
-- are not acted on and repair options raise an error instead of succeeding silently.
CREATE DATABASE dbc;
GO
USE dbc;
CREATE TABLE t (id int PRIMARY KEY, v varchar(10));
CREATE INDEX ix_v ON t (v);
INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, NULL);
CREATE TABLE h (a int);
INSERT INTO h VALUES (1), (2);
GO
DBCC CHECKDB;
GO
DBCC CHECKDB (dbc) WITH NO_INFOMSGS;
GO
DBCC CHECKDB ('dbc') WITH ALL_ERRORMSGS, TABLOCK, PHYSICAL_ONLY;
GO
DBCC CHECKTABLE ('dbo.t');
GO
DBCC CHECKTABLE (h, NOINDEX) WITH NO_INFOMSGS;
GO
DBCC CHECKALLOC;
GO
DBCC CHECKTABLE ('nonexistent');
GO
DBCC CHECKTABLE;
GO
DBCC CHECKDB ('no_such_db');
GO
DBCC CHECKDB (dbc, REPAIR_ALLOW_DATA_LOSS);
GO
DBCC CHECKDB (dbc, REPAIR_REBUILD);
GO
DBCC CHECKDB WITH ESTIMATEONLY;
GO
SELECT @@ERROR AS err;
GO
