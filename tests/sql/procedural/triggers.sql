-- DML triggers: AFTER / INSTEAD OF, inserted / deleted, UPDATE(), nesting, errors.
CREATE TABLE tr_t (id int PRIMARY KEY, v int NOT NULL, note varchar(20))
CREATE TABLE tr_log (seq int IDENTITY, act varchar(10), id int, old_v int, new_v int, n int)
GO
CREATE TRIGGER trg_t_ins ON tr_t AFTER INSERT AS
BEGIN
  INSERT INTO tr_log (act, id, new_v, n) SELECT 'ins', id, v, @@ROWCOUNT FROM inserted
END
GO
CREATE TRIGGER trg_t_upd ON tr_t FOR UPDATE AS
BEGIN
  SET NOCOUNT ON
  IF UPDATE(v)
    INSERT INTO tr_log (act, id, old_v, new_v)
    SELECT 'upd', i.id, d.v, i.v FROM inserted i JOIN deleted d ON d.id = i.id
  IF UPDATE(note) PRINT 'note changed'
  PRINT 'columns_updated: ' + CONVERT(varchar(10), CONVERT(int, COLUMNS_UPDATED()))
END
GO
CREATE TRIGGER trg_t_del ON tr_t AFTER DELETE AS
  INSERT INTO tr_log (act, id, old_v, n) SELECT 'del', id, v, (SELECT COUNT(*) FROM deleted) FROM deleted
GO
INSERT INTO tr_t VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 30, 'c')
UPDATE tr_t SET v = v + 1 WHERE id >= 2
UPDATE tr_t SET note = 'z' WHERE id = 1
UPDATE tr_t SET v = 0 WHERE id = 99
DELETE FROM tr_t WHERE id = 3
SELECT act, id, old_v, new_v, n FROM tr_log ORDER BY seq
GO
-- catalog
SELECT name, type, is_disabled, is_instead_of_trigger, OBJECT_NAME(parent_id) AS parent
FROM sys.triggers ORDER BY name
SELECT o.name, o.type, o.type_desc FROM sys.objects o WHERE o.type = 'TR' ORDER BY o.name
SELECT LEFT(OBJECT_DEFINITION(OBJECT_ID('trg_t_del')), 40) AS def
GO
-- an error in the trigger undoes the statement and aborts the batch
CREATE TRIGGER trg_t_check ON tr_t AFTER INSERT AS
BEGIN
  SET NOCOUNT ON
  INSERT INTO tr_log (act, id) SELECT 'chk', id FROM inserted
  IF EXISTS (SELECT * FROM inserted WHERE v < 0)
    SELECT 1 / 0
END
GO
INSERT INTO tr_t VALUES (5, -1, 'neg')
PRINT 'not reached'
GO
SELECT COUNT(*) AS rows_5 FROM tr_t WHERE id = 5
SELECT COUNT(*) AS chk_logged FROM tr_log WHERE act = 'chk'
GO
-- ROLLBACK in a trigger: 3609, the table keeps its rows
DROP TRIGGER trg_t_check
GO
CREATE TRIGGER trg_t_guard ON tr_t AFTER UPDATE AS
BEGIN
  IF EXISTS (SELECT * FROM inserted WHERE v > 100)
  BEGIN
    RAISERROR('v too large', 16, 1)
    ROLLBACK TRANSACTION
    RETURN
  END
END
GO
UPDATE tr_t SET v = 500 WHERE id = 1
PRINT 'not reached'
GO
SELECT id, v FROM tr_t ORDER BY id
SELECT @@TRANCOUNT AS tc
GO
BEGIN TRAN
INSERT INTO tr_t VALUES (7, 70, 'tx')
UPDATE tr_t SET v = 1000 WHERE id = 7
GO
SELECT @@TRANCOUNT AS tc, COUNT(*) AS rows_7 FROM tr_t WHERE id = 7
GO
-- @@TRANCOUNT and TRIGGER_NESTLEVEL inside a trigger
CREATE TABLE tr_a (x int)
CREATE TABLE tr_b (x int)
GO
CREATE TRIGGER trg_a ON tr_a AFTER INSERT AS
BEGIN
  SET NOCOUNT ON
  PRINT 'trg_a nest ' + CONVERT(varchar(5), TRIGGER_NESTLEVEL()) + ' trancount ' + CONVERT(varchar(5), @@TRANCOUNT)
  INSERT INTO tr_b SELECT x + 1 FROM inserted
END
GO
CREATE TRIGGER trg_b ON tr_b AFTER INSERT AS
BEGIN
  SET NOCOUNT ON
  PRINT 'trg_b nest ' + CONVERT(varchar(5), TRIGGER_NESTLEVEL())
  -- direct recursion is off: this does not fire trg_b again
  INSERT INTO tr_b SELECT x * 10 FROM inserted WHERE x < 100
END
GO
INSERT INTO tr_a VALUES (1)
SELECT x FROM tr_b ORDER BY x
GO
-- nesting beyond 32 levels: 217
CREATE TABLE tr_p (x int)
CREATE TABLE tr_q (x int)
GO
CREATE TRIGGER trg_p ON tr_p AFTER INSERT AS
  SET NOCOUNT ON
  INSERT INTO tr_q SELECT x + 1 FROM inserted
GO
CREATE TRIGGER trg_q ON tr_q AFTER INSERT AS
  SET NOCOUNT ON
  INSERT INTO tr_p SELECT x + 1 FROM inserted
GO
INSERT INTO tr_p VALUES (0)
GO
SELECT COUNT(*) AS p_rows FROM tr_p
GO
-- ENABLE / DISABLE TRIGGER
DISABLE TRIGGER trg_q ON tr_q
GO
INSERT INTO tr_p VALUES (0)
SELECT (SELECT COUNT(*) FROM tr_p) AS p_rows, (SELECT COUNT(*) FROM tr_q) AS q_rows
SELECT name, is_disabled FROM sys.triggers WHERE name IN ('trg_p', 'trg_q') ORDER BY name
ENABLE TRIGGER ALL ON tr_q
SELECT name, is_disabled FROM sys.triggers WHERE name IN ('trg_p', 'trg_q') ORDER BY name
GO
-- INSTEAD OF on a view
CREATE TABLE tr_base (id int, name varchar(20))
GO
CREATE VIEW tr_v AS SELECT id, name FROM tr_base
GO
CREATE TRIGGER trg_v_ins ON tr_v INSTEAD OF INSERT AS
BEGIN
  INSERT INTO tr_base (id, name) SELECT id, UPPER(name) FROM inserted
END
GO
CREATE TRIGGER trg_v_del ON tr_v INSTEAD OF DELETE AS
  UPDATE tr_base SET name = 'deleted:' + b.name FROM tr_base b JOIN deleted d ON d.id = b.id
GO
INSERT INTO tr_v (id, name) VALUES (1, 'one'), (2, 'two')
DELETE FROM tr_v WHERE id = 2
SELECT id, name FROM tr_base ORDER BY id
GO
-- INSTEAD OF UPDATE on a table: the trigger does the work, its own DML is not intercepted
CREATE TABLE tr_i (id int, v int)
INSERT INTO tr_i VALUES (1, 1), (2, 2)
GO
CREATE TRIGGER trg_i ON tr_i INSTEAD OF UPDATE AS
BEGIN
  SET NOCOUNT ON
  SELECT i.id, d.v AS old_v, i.v AS new_v FROM inserted i JOIN deleted d ON d.id = i.id ORDER BY i.id
  UPDATE tr_i SET v = i.v * 100 FROM tr_i JOIN inserted i ON i.id = tr_i.id
END
GO
UPDATE tr_i SET v = v + 5
SELECT id, v FROM tr_i ORDER BY id
GO
-- OUTPUT without INTO on a table with triggers: 334
UPDATE tr_i SET v = 0 OUTPUT inserted.id
GO
-- errors: missing table, AFTER trigger on a view, DROP IF EXISTS, dropped with the table
CREATE TRIGGER trg_none ON no_such_table AFTER INSERT AS PRINT 1
GO
CREATE TRIGGER trg_vafter ON tr_v AFTER INSERT AS PRINT 1
GO
DROP TRIGGER IF EXISTS no_such_trigger
DROP TRIGGER no_such_trigger
GO
DROP TABLE tr_i
SELECT COUNT(*) AS trg_i_left FROM sys.triggers WHERE name = 'trg_i'
GO
-- MERGE fires the triggers of its actions
CREATE TABLE tr_m (id int, v int)
INSERT INTO tr_m VALUES (1, 1), (2, 2)
GO
CREATE TRIGGER trg_m ON tr_m AFTER INSERT, UPDATE, DELETE AS
BEGIN
  SET NOCOUNT ON
  DECLARE @i int = (SELECT COUNT(*) FROM inserted), @d int = (SELECT COUNT(*) FROM deleted)
  PRINT 'trg_m inserted=' + CONVERT(varchar(5), @i) + ' deleted=' + CONVERT(varchar(5), @d)
END
GO
MERGE tr_m AS t
USING (VALUES (2, 20), (3, 30)) AS s (id, v) ON t.id = s.id
WHEN MATCHED THEN UPDATE SET v = s.v
WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, s.v);
GO
-- error inside a trigger is reported with the trigger's name; TRY/CATCH sees it
CREATE TABLE tr_e (x int)
GO
CREATE TRIGGER trg_e ON tr_e AFTER INSERT AS
BEGIN
  SET NOCOUNT ON
  DECLARE @z int = 0
  SELECT 1 / @z
END
GO
BEGIN TRY
  INSERT INTO tr_e VALUES (1)
END TRY
BEGIN CATCH
  SELECT ERROR_NUMBER() AS num, ERROR_PROCEDURE() AS proc_name, ERROR_LINE() AS line,
    @@TRANCOUNT AS tc, XACT_STATE() AS xs
  IF XACT_STATE() <> 0 ROLLBACK
END CATCH
SELECT COUNT(*) AS e_rows FROM tr_e
GO
-- OUTPUT without INTO on a table with AFTER triggers: 334; OUTPUT INTO is fine
DELETE FROM tr_t OUTPUT deleted.id WHERE id = 99
GO
DECLARE @ids TABLE (id int)
UPDATE tr_t SET note = 'o' OUTPUT inserted.id INTO @ids WHERE id = 2
SELECT id FROM @ids
GO
-- one INSTEAD OF trigger per action (2111); trigger schema must be the table's (2108)
CREATE TRIGGER trg_v_ins2 ON tr_v INSTEAD OF INSERT AS PRINT 'second'
GO
CREATE SCHEMA trs
GO
CREATE TABLE trs.tt (x int)
GO
CREATE TRIGGER dbo.trg_wrong ON trs.tt AFTER INSERT AS PRINT 'x'
GO
CREATE TRIGGER trg_tt ON trs.tt AFTER INSERT AS
BEGIN
  -- UPDATE ... FROM inserted, NOCOUNT inside does not leak, @@ROWCOUNT after the statement
  SET NOCOUNT ON
  UPDATE trs.tt SET x = t.x * 2 FROM trs.tt t JOIN inserted i ON i.x = t.x
END
GO
INSERT INTO trs.tt VALUES (1), (2), (3)
SELECT @@ROWCOUNT AS rc
SELECT x FROM trs.tt ORDER BY x
SELECT SCHEMA_NAME(schema_id) AS sch, name FROM sys.objects WHERE name = 'trg_tt'
DROP TRIGGER trs.trg_tt
SELECT COUNT(*) AS trg_tt_left FROM sys.triggers WHERE name = 'trg_tt'
GO
-- ALTER TRIGGER replaces the body
ALTER TRIGGER trg_m ON tr_m AFTER DELETE AS PRINT 'altered: ' + CONVERT(varchar(5), @@ROWCOUNT)
GO
DELETE FROM tr_m WHERE id > 1
UPDATE tr_m SET v = 0
GO
-- identity, defaults and computed columns in inserted; SCOPE_IDENTITY vs @@IDENTITY
CREATE TABLE ti (id int IDENTITY(1,1), v varchar(10) DEFAULT 'dflt', c AS id * 2)
CREATE TABLE ti_log (id int IDENTITY(100,1), what varchar(30))
GO
CREATE TRIGGER ti_tr ON ti AFTER INSERT AS
BEGIN
  SET NOCOUNT ON
  INSERT INTO ti_log (what) SELECT 'id ' + CONVERT(varchar(5), id) + ' ' + v + ' ' + CONVERT(varchar(5), c) FROM inserted
END
GO
INSERT INTO ti (v) VALUES ('x')
SELECT SCOPE_IDENTITY() AS si, @@IDENTITY AS ii
INSERT INTO ti DEFAULT VALUES
SELECT id, what FROM ti_log ORDER BY id
SELECT o.name, LEFT(m.definition, 30) AS def FROM sys.sql_modules m JOIN sys.objects o ON o.object_id = m.object_id WHERE o.name = 'ti_tr'
GO
-- INSTEAD OF INSERT on a view over an identity table; DROP VIEW drops its triggers
CREATE VIEW tiv AS SELECT id, v FROM ti
GO
CREATE TRIGGER tiv_tr ON tiv INSTEAD OF INSERT AS
  INSERT INTO ti (v) SELECT v + '!' FROM inserted
GO
INSERT INTO tiv (v) VALUES ('a'), ('b')
INSERT INTO tiv VALUES (5, 'c')
SELECT id, v, c FROM ti ORDER BY id
DROP VIEW tiv
SELECT COUNT(*) AS tiv_tr_left FROM sys.triggers WHERE name = 'tiv_tr'
GO
-- INSTEAD OF DELETE on a table, DELETE with a FROM join
CREATE TRIGGER ti_del ON ti INSTEAD OF DELETE AS
  UPDATE ti SET v = 'gone' WHERE id IN (SELECT id FROM deleted)
GO
DELETE ti WHERE id = 1
DELETE FROM ti FROM ti JOIN ti_log l ON l.id = ti.id + 99 WHERE l.id = 101
SELECT id, v FROM ti ORDER BY id
GO
-- ALTER TABLE .. DISABLE / ENABLE TRIGGER; INSERT ... EXEC fires once for all its rows
CREATE TABLE ta (x int)
GO
CREATE TRIGGER ta_tr ON ta AFTER INSERT AS
  PRINT 'ta_tr rows: ' + CONVERT(varchar(5), (SELECT COUNT(*) FROM inserted)) + ', @@ROWCOUNT ' + CONVERT(varchar(5), @@ROWCOUNT)
GO
CREATE PROCEDURE ta_src AS SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3
GO
ALTER TABLE ta DISABLE TRIGGER ALL
INSERT INTO ta VALUES (1)
ALTER TABLE ta ENABLE TRIGGER ta_tr
INSERT INTO ta VALUES (1)
INSERT INTO ta EXEC ta_src
SELECT COUNT(*) AS ta_rows FROM ta
GO
-- a trigger error inside TRY without a ROLLBACK in CATCH: 3998 at the end of the batch
BEGIN TRY
  INSERT INTO tr_e VALUES (2)
END TRY
BEGIN CATCH
  PRINT 'caught ' + CONVERT(varchar(10), ERROR_NUMBER())
END CATCH
GO
SELECT COUNT(*) AS e_rows, @@TRANCOUNT AS tc FROM tr_e
GO
-- a trigger on a temporary table is an error
CREATE TABLE #trtemp (x int)
GO
CREATE TRIGGER trg_temp ON #trtemp AFTER INSERT AS PRINT 1
GO
-- MERGE ... OUTPUT without INTO on a table with triggers: 334
MERGE tr_m AS t USING (VALUES (1, 5)) AS s (id, v) ON t.id = s.id
WHEN MATCHED THEN UPDATE SET v = s.v OUTPUT $action;
GO
-- TRIGGER_NESTLEVEL(object_id) counts that trigger on the stack
CREATE TABLE tn (x int)
GO
CREATE TRIGGER tn_tr ON tn AFTER INSERT AS
  PRINT 'tn_tr: ' + CONVERT(varchar(5), TRIGGER_NESTLEVEL(OBJECT_ID('tn_tr'))) + ' of ' + CONVERT(varchar(5), TRIGGER_NESTLEVEL())
    + ', other: ' + CONVERT(varchar(5), TRIGGER_NESTLEVEL(OBJECT_ID('ta_tr')))
GO
INSERT INTO tn VALUES (1)
SELECT TRIGGER_NESTLEVEL() AS outside
GO
-- OBJECTPROPERTY trigger properties
SELECT OBJECTPROPERTY(OBJECT_ID('trg_m'), 'ExecIsDeleteTrigger') AS del,
       OBJECTPROPERTY(OBJECT_ID('trg_m'), 'ExecIsInsertTrigger') AS ins,
       OBJECTPROPERTY(OBJECT_ID('trg_v_ins'), 'ExecIsInsteadOfTrigger') AS instead,
       OBJECTPROPERTY(OBJECT_ID('trg_p'), 'ExecIsAfterTrigger') AS after_trg,
       OBJECTPROPERTY(OBJECT_ID('trg_p'), 'IsTrigger') AS is_trg
GO
-- one-part names in a trigger body resolve in the trigger's schema first, then dbo
CREATE TABLE trs.tlog (what varchar(20))
CREATE TABLE dbo.tlog (what varchar(20))
CREATE TABLE trs.src (x int)
GO
CREATE TRIGGER trg_src ON trs.src AFTER INSERT AS
  SET NOCOUNT ON
  INSERT INTO tlog VALUES ('from trigger')
GO
INSERT INTO trs.src VALUES (1)
SELECT (SELECT COUNT(*) FROM trs.tlog) AS trs_rows, (SELECT COUNT(*) FROM dbo.tlog) AS dbo_rows
GO
