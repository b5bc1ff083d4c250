-- Errors of CREATE DATABASE file specs, of filegroup targets and of the ALTER DATABASE file
-- actions that latchkey does not implement (never a silent success).
CREATE DATABASE fe1 ON (NAME = a, FILENAME = 'fe_a.mdf'), (NAME = a, FILENAME = 'fe_b.ndf');
CREATE DATABASE fe2 ON (NAME = a, FILENAME = '$(DATADIR)/no_such_dir/fe.mdf');
CREATE DATABASE fe3 ON (NAME = a, FILENAME = 'fe3.mdf');
CREATE DATABASE fe4 ON (NAME = b, FILENAME = 'fe3.mdf');
CREATE DATABASE fe5 ON (NAME = a, FILENAME = 'fe5.mdf', SIZE = 5GB);
CREATE DATABASE fe6 ON (NAME = a, FILENAME = 'fe6.mdf') LOG ON (NAME = l, FILENAME = 'fe6.ldf', MAXSIZE = 10MB);
CREATE DATABASE fe7 ON (NAME = a, FILENAME = 'fe7.mdf') LOG ON (NAME = l1, FILENAME = 'l1.ldf'), (NAME = l2, FILENAME = 'l2.ldf');
CREATE DATABASE fe8 ON (NAME = a, FILENAME = 'fe8.mdf', OFFLINE);
CREATE DATABASE fe9 ON (NAME = a, FILENAME = 'master/fe9.mdf');
SELECT name FROM sys.databases WHERE name LIKE 'fe%' ORDER BY name;
GO
USE fe3;
CREATE TABLE t1 (a int) ON fg1;
CREATE TABLE t2 (a int) ON ps(a);
CREATE TABLE t3 (a int, b varchar(max)) ON [PRIMARY] TEXTIMAGE_ON fg2;
CREATE TABLE t4 (a int CONSTRAINT pk4 PRIMARY KEY ON fg3);
CREATE TABLE t5 (a int, CONSTRAINT uq5 UNIQUE (a) ON "default") ON "default";
CREATE TABLE t6 (a int);
CREATE INDEX ix6 ON t6 (a) ON fg4;
ALTER TABLE t6 ADD CONSTRAINT pk6 PRIMARY KEY (a) ON fg5;
SELECT name FROM sys.tables ORDER BY name;
ALTER DATABASE fe3 ADD FILE (NAME = b, FILENAME = 'fe3_b.ndf');
ALTER DATABASE fe3 ADD LOG FILE (NAME = l2, FILENAME = 'fe3_l2.ldf');
ALTER DATABASE fe3 ADD FILEGROUP fg1;
ALTER DATABASE fe3 MODIFY FILE (NAME = a, SIZE = 10MB);
GO
ALTER DATABASE fe3 REMOVE FILE a;
GO
ALTER DATABASE fe3 REMOVE FILEGROUP fg1;
