-- Needs plan: NEXT VALUE FOR bound to ScalarKind::Function { func: Named, name: "NEXT VALUE FOR",
-- args: [literal sequence name] } (exec calls ExecEnv::call_function, the engine hands out the
-- value), and XACT_STATE() / OBJECT_DEFINITION() routed to ExecEnv::call_function.
CREATE SEQUENCE dbo.s1 AS int START WITH 1 INCREMENT BY 1
GO
SELECT NEXT VALUE FOR dbo.s1 AS a
SELECT NEXT VALUE FOR dbo.s1 AS b
CREATE TABLE with_seq (id int DEFAULT (NEXT VALUE FOR dbo.s1), v int)
INSERT with_seq (v) VALUES (10)
SELECT id, v FROM with_seq
GO
SELECT XACT_STATE() AS outside
BEGIN TRAN
SELECT XACT_STATE() AS inside
ROLLBACK
GO
CREATE PROCEDURE def_p AS SELECT 1 AS one
GO
SELECT OBJECT_DEFINITION(OBJECT_ID('def_p')) AS def
GO
