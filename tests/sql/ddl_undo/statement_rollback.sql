-- DDL undone by statement-level rollback (a failing DDL statement inside a transaction,
-- engine README T3), XACT_ABORT, TRY/CATCH, a trigger doing DDL rolled back to a savepoint,
-- nested savepoints and #temp tables dropped or created in rolled-back transactions.
CREATE TABLE T(a int NOT NULL CONSTRAINT pk PRIMARY KEY, b varchar(10)); INSERT T VALUES (1, 'x'), (2, 'x'), (3, 'z')
CREATE TABLE L(msg varchar(20))
GO
-- a failing DDL statement inside a transaction undoes only itself
BEGIN TRAN; UPDATE T SET b = 'x' WHERE a = 1; INSERT L VALUES ('l1')
CREATE UNIQUE INDEX ix ON T(b)
SELECT @@TRANCOUNT AS tc, (SELECT COUNT(*) FROM sys.indexes WHERE name = 'ix') AS ix
SELECT a * 10 / (a - 2) AS v, b INTO N FROM T
SELECT OBJECT_ID('N') AS n
COMMIT
SELECT * FROM T; SELECT * FROM L
DBCC CHECKDB WITH NO_INFOMSGS
GO
-- a conversion error in ALTER COLUMN ends the batch; the transaction stays open
BEGIN TRAN; INSERT L VALUES ('l2'); SAVE TRAN s1; TRUNCATE TABLE L
ALTER TABLE T ALTER COLUMN b int
GO
SELECT @@TRANCOUNT AS tc; SELECT * FROM T; SELECT * FROM L
ROLLBACK TRAN s1; COMMIT
SELECT * FROM L
DBCC CHECKDB WITH NO_INFOMSGS
GO
-- XACT_ABORT ON: the failing statement rolls back the whole transaction, DDL included
SET XACT_ABORT ON
BEGIN TRAN; INSERT L VALUES ('l3'); SAVE TRAN s1; DROP TABLE T; CREATE TABLE T2(a int); ALTER TABLE L ADD c int NULL
SELECT 1 / 0 AS v INTO N FROM L
GO
SET XACT_ABORT OFF
SELECT @@TRANCOUNT AS tc, OBJECT_ID('T2') AS t2; SELECT * FROM T; SELECT * FROM L
DBCC CHECKDB WITH NO_INFOMSGS
GO
-- TRY/CATCH with XACT_ABORT: the transaction is doomed and rolled back in CATCH
SET XACT_ABORT ON
BEGIN TRY
  BEGIN TRAN; INSERT L VALUES ('l4'); TRUNCATE TABLE T; ALTER TABLE T ADD c int NULL
  DBCC CHECKDB WITH NO_INFOMSGS
  SELECT 1 / 0 AS v INTO N FROM L
END TRY
BEGIN CATCH
  SELECT ERROR_NUMBER() AS en, XACT_STATE() AS xs; ROLLBACK
END CATCH
SET XACT_ABORT OFF
SELECT @@TRANCOUNT AS tc; SELECT * FROM T; SELECT * FROM L
DBCC CHECKDB WITH NO_INFOMSGS
GO
-- a trigger doing DDL, rolled back to a savepoint taken before the statement that fired it
CREATE TRIGGER trg ON L AFTER INSERT AS BEGIN TRUNCATE TABLE T; CREATE TABLE Z(z int); INSERT Z VALUES (1) END
GO
BEGIN TRAN; UPDATE T SET b = 'y' WHERE a = 2; SAVE TRAN s1; INSERT L VALUES ('l5'); SELECT COUNT(*) AS in_txn FROM T
ROLLBACK TRAN s1; COMMIT
SELECT * FROM T; SELECT * FROM L; SELECT OBJECT_ID('Z') AS z
DBCC CHECKDB WITH NO_INFOMSGS
GO
-- nested savepoints: back to the middle one keeps what came before it
DROP TRIGGER trg
CREATE INDEX ix ON T(b)
GO
BEGIN TRAN; INSERT L VALUES ('l6'); SAVE TRAN a; DROP INDEX ix ON T; SAVE TRAN b; TRUNCATE TABLE T; SAVE TRAN c; DROP TABLE T
ROLLBACK TRAN b
SELECT * FROM T; INSERT T VALUES (4, 'w')
SAVE TRAN d; ALTER TABLE T ADD c int NULL; ROLLBACK TRAN d
ROLLBACK TRAN c
COMMIT
SELECT * FROM T; SELECT name FROM sys.indexes WHERE OBJECT_NAME(object_id) = 'T' ORDER BY name; SELECT * FROM L
DBCC CHECKDB WITH NO_INFOMSGS
GO
-- #temp tables dropped or created in rolled-back transactions
CREATE TABLE #t(a int); INSERT #t VALUES (1)
GO
BEGIN TRAN; INSERT L VALUES ('l7'); SAVE TRAN s1; DROP TABLE #t; ROLLBACK TRAN s1; COMMIT
SELECT * FROM #t
GO
BEGIN TRAN; DROP TABLE #t; CREATE TABLE #t(b varchar(5)); INSERT #t VALUES ('new'); SELECT * FROM #t; ROLLBACK
SELECT * FROM #t
GO
BEGIN TRAN; INSERT L VALUES ('l8'); SAVE TRAN s1; CREATE TABLE #u(a int); INSERT #u VALUES (5); ROLLBACK TRAN s1; COMMIT
SELECT * FROM #u
GO
CREATE TABLE #u(a int); INSERT #u VALUES (6); SELECT * FROM #u
DBCC CHECKDB WITH NO_INFOMSGS
GO
-- ROLLBACK TRAN with a name that is neither a savepoint nor the transaction: 6401, nothing undone
BEGIN TRAN outer_tran; INSERT L VALUES ('l9'); SAVE TRAN s1
ROLLBACK TRAN no_such_name
SELECT @@TRANCOUNT AS tc
ROLLBACK TRAN outer_tran
SELECT @@TRANCOUNT AS tc; SELECT COUNT(*) AS l9 FROM L WHERE msg = 'l9'
GO
-- a table variable declared in a rolled-back transaction still exists; object ids handed out
-- meanwhile are not handed out twice
BEGIN TRAN
CREATE TABLE #a(a int)
DECLARE @t TABLE(a int)
ROLLBACK
CREATE TABLE #b(b int); CREATE TABLE #c(c int)
INSERT @t VALUES (2)
SELECT * FROM @t
SELECT COUNT(*) AS objects, COUNT(DISTINCT object_id) AS distinct_ids FROM tempdb.sys.objects
GO
-- a sequence created and used in a rolled-back transaction: a new sequence that gets its
-- object id starts at its own START WITH
BEGIN TRAN; CREATE SEQUENCE sq START WITH 100; SELECT NEXT VALUE FOR sq AS in_txn; ROLLBACK
GO
CREATE SEQUENCE sq2 START WITH 1
GO
SELECT NEXT VALUE FOR sq2 AS sq2
GO
-- identity values handed out in a transaction whose DDL was rolled back are not handed out again
CREATE TABLE I(id int IDENTITY(1,1) PRIMARY KEY, x int)
GO
BEGIN TRAN; INSERT I (x) VALUES (1), (2), (3); ROLLBACK
INSERT I (x) VALUES (4)
BEGIN TRAN; INSERT I (x) VALUES (5), (6); CREATE TABLE Z(z int); ROLLBACK
INSERT I (x) VALUES (7)
BEGIN TRAN; INSERT I (x) VALUES (8); SAVE TRAN s; INSERT I (x) VALUES (9); CREATE TABLE Z(z int); ROLLBACK TRAN s; INSERT I (x) VALUES (10); COMMIT
SELECT * FROM I
BEGIN TRAN; TRUNCATE TABLE I; INSERT I (x) VALUES (11); ALTER TABLE I ADD c int NULL; ROLLBACK
INSERT I (x) VALUES (12)
SELECT * FROM I
DBCC CHECKDB WITH NO_INFOMSGS
GO
-- CREATE / DROP DATABASE cannot be undone: not allowed inside a transaction
BEGIN TRAN; CREATE DATABASE x1; ROLLBACK
SELECT DB_ID('x1') AS x1
GO
CREATE DATABASE x2
GO
BEGIN TRAN; DROP DATABASE x2; ROLLBACK
SELECT CASE WHEN DB_ID('x2') IS NULL THEN 'dropped' ELSE 'kept' END AS x2
DROP DATABASE x2
GO
