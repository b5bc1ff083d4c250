-- SET IMPLICIT_TRANSACTIONS ON: the listed statements open a transaction when @@TRANCOUNT is 0;
-- it stays open until COMMIT or ROLLBACK (what mssql-jdbc's setAutoCommit(false) relies on).
CREATE TABLE it (id INT);
GO
SET IMPLICIT_TRANSACTIONS ON;
GO
SELECT @@OPTIONS & 2 AS options_bit, @@TRANCOUNT AS after_set;
-- a SELECT that reads no table opens nothing
SELECT GETDATE() - GETDATE() AS no_table, @@TRANCOUNT AS still_zero;
GO
INSERT INTO it VALUES (1);
SELECT @@TRANCOUNT AS after_insert;
INSERT INTO it VALUES (2);
SELECT @@TRANCOUNT AS second_insert_nests_nothing;
ROLLBACK;
SELECT @@TRANCOUNT AS after_rollback;
GO
-- the rolled-back rows are gone; this SELECT itself opened a transaction
SELECT COUNT(*) AS rows_after_rollback, @@TRANCOUNT AS select_from_table FROM it;
COMMIT;
GO
INSERT INTO it VALUES (3);
COMMIT;
SELECT @@TRANCOUNT AS after_commit;
COMMIT;
GO
-- BEGIN TRANSACTION in this mode: the unseen BEGIN plus the explicit one
BEGIN TRANSACTION;
SELECT @@TRANCOUNT AS begin_tran_nests;
COMMIT;
SELECT @@TRANCOUNT AS one_left;
COMMIT;
GO
-- DDL and TRUNCATE open one too
CREATE TABLE it2 (a INT);
SELECT @@TRANCOUNT AS after_create;
ROLLBACK;
SELECT OBJECT_ID('it2') AS it2_rolled_back;
COMMIT;
TRUNCATE TABLE it;
SELECT @@TRANCOUNT AS after_truncate;
ROLLBACK;
GO
-- SET statements and variable assignments do not
SET IMPLICIT_TRANSACTIONS OFF;
DBCC USEROPTIONS;
SET IMPLICIT_TRANSACTIONS ON;
DECLARE @x INT = 1;
SET @x = 2;
SELECT @@TRANCOUNT AS after_set_and_declare;
DBCC USEROPTIONS;
GO
SET IMPLICIT_TRANSACTIONS OFF;
GO
-- back to autocommit: each statement commits on its own
INSERT INTO it VALUES (4);
SELECT @@TRANCOUNT AS autocommit_again, COUNT(*) AS n FROM it;
GO
-- SET ANSI_DEFAULTS ON includes IMPLICIT_TRANSACTIONS and CURSOR_CLOSE_ON_COMMIT
SET ANSI_DEFAULTS ON;
SELECT @@OPTIONS & 6 AS implicit_and_cursor_close_bits;
INSERT INTO it VALUES (5);
SELECT @@TRANCOUNT AS under_ansi_defaults;
ROLLBACK;
SET ANSI_DEFAULTS OFF;
SELECT @@OPTIONS & 6 AS both_off;
GO
-- CURSOR_CLOSE_ON_COMMIT (pymssql sends it at login): recorded and reported
SET CURSOR_CLOSE_ON_COMMIT ON;
SELECT @@OPTIONS & 4 AS cursor_close_bit;
DBCC USEROPTIONS;
SET CURSOR_CLOSE_ON_COMMIT OFF;
SELECT @@OPTIONS & 4 AS cursor_close_off;
GO
