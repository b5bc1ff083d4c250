-- BATCHSIZE: each batch commits on its own; a failing batch keeps the ones before it.
-- Without BATCHSIZE (or inside a transaction) the load is one statement.
CREATE TABLE k (id int PRIMARY KEY, s varchar(10));
BULK INSERT k FROM '$(TESTDIR)/data/dups.txt' WITH (ROWTERMINATOR = '0x0a', BATCHSIZE = 2);
SELECT * FROM k;
GO
TRUNCATE TABLE k;
BULK INSERT k FROM '$(TESTDIR)/data/dups.txt' WITH (ROWTERMINATOR = '0x0a');
SELECT COUNT(*) AS n FROM k;
GO
BEGIN TRAN;
BULK INSERT k FROM '$(TESTDIR)/data/dups.txt' WITH (ROWTERMINATOR = '0x0a', BATCHSIZE = 2);
SELECT @@TRANCOUNT AS trancount, COUNT(*) AS n FROM k;
ROLLBACK;
GO
-- LASTROW stops before the duplicate
BULK INSERT k FROM '$(TESTDIR)/data/dups.txt' WITH (ROWTERMINATOR = '0x0a', LASTROW = 4, BATCHSIZE = 3);
SELECT COUNT(*) AS n FROM k;
GO
-- triggers fire only with FIRE_TRIGGERS (once per batch)
CREATE TABLE audit (n int);
GO
CREATE TRIGGER k_ins ON k AFTER INSERT AS INSERT audit SELECT COUNT(*) FROM inserted;
GO
DELETE FROM k;
BULK INSERT k FROM '$(TESTDIR)/data/dups.txt' WITH (ROWTERMINATOR = '0x0a', LASTROW = 4);
SELECT COUNT(*) AS audit_rows FROM audit;
DELETE FROM k;
BULK INSERT k FROM '$(TESTDIR)/data/dups.txt' WITH (ROWTERMINATOR = '0x0a', LASTROW = 4, FIRE_TRIGGERS, BATCHSIZE = 3);
SELECT n FROM audit;
GO
-- CHECK constraints: ignored by default (and then not trusted), enforced with CHECK_CONSTRAINTS
CREATE TABLE c (id int, s varchar(10), CONSTRAINT ck_id CHECK (id < 5));
BULK INSERT c FROM '$(TESTDIR)/data/dups.txt' WITH (ROWTERMINATOR = '0x0a');
SELECT COUNT(*) AS n FROM c;
SELECT name, is_not_trusted FROM sys.check_constraints;
GO
CREATE TABLE c2 (id int, s varchar(10), CONSTRAINT ck_id2 CHECK (id < 5));
BULK INSERT c2 FROM '$(TESTDIR)/data/dups.txt' WITH (ROWTERMINATOR = '0x0a', CHECK_CONSTRAINTS);
SELECT COUNT(*) AS n FROM c2;
SELECT name, is_not_trusted FROM sys.check_constraints WHERE name = 'ck_id2';
GO
-- a fatal error in a later batch (too many rejected rows) keeps the committed batches
CREATE TABLE t (id int NOT NULL, d date, amount decimal(5,2), label varchar(20));
BULK INSERT t FROM '$(TESTDIR)/data/errors.txt' WITH (ROWTERMINATOR = '0x0a', BATCHSIZE = 1, MAXERRORS = 1);
SELECT id FROM t;
GO
-- the file ends inside a row of the second batch: the first batch stays
TRUNCATE TABLE t;
BULK INSERT t FROM '$(TESTDIR)/data/short.txt' WITH (ROWTERMINATOR = '0x0a', BATCHSIZE = 1);
SELECT id FROM t;
GO
