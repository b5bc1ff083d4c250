CREATE TABLE dbo.p (id INT NOT NULL CONSTRAINT pk_p PRIMARY KEY);
CREATE TABLE dbo.t (
    a INT NOT NULL CONSTRAINT ck_t_a CHECK (a > 0),
    b INT NULL CONSTRAINT df_t_b DEFAULT 7,
    pid INT NULL CONSTRAINT fk_t_p REFERENCES dbo.p (id),
    c AS (a * 2)
);
CREATE INDEX ix_t_b ON dbo.t (b);
INSERT INTO dbo.p VALUES (1);
INSERT INTO dbo.t (a, pid) VALUES (1, 1);
GO
-- column: constraints and the computed column follow the new name
EXEC sp_rename 't.a', 'a2', 'COLUMN';
SELECT a2, b, c FROM dbo.t;
INSERT INTO dbo.t (a2) VALUES (0);
SELECT name, definition FROM sys.check_constraints;
GO
-- a referenced column: the foreign key follows
EXEC sp_rename 'dbo.p.id', 'pid_key';
INSERT INTO dbo.t (a2, pid) VALUES (5, 2);
GO
-- index, table, constraint
EXEC sp_rename N'dbo.t.ix_t_b', N'ix_t_b2', N'INDEX';
EXEC sp_rename 't', 't_renamed';
EXEC sp_rename 'pk_p', 'pk_p2', 'OBJECT';
SELECT name FROM sys.indexes WHERE object_id = OBJECT_ID('t_renamed') AND name IS NOT NULL;
SELECT name FROM sys.objects WHERE type IN ('U', 'PK') ORDER BY name;
SELECT COUNT(*) AS n FROM t_renamed;
GO
-- rolled back with the transaction
BEGIN TRAN;
EXEC sp_rename 't_renamed', 't_tmp';
ROLLBACK;
SELECT COUNT(*) AS n FROM t_renamed;
GO
-- errors
EXEC sp_rename 't_renamed.nosuch', 'x', 'COLUMN';
EXEC sp_rename 'nosuch', 'x';
EXEC sp_rename 't_renamed.b', 'a2', 'COLUMN';
EXEC sp_rename 't_renamed', 'p';
EXEC sp_rename 't_renamed', 'x', 'WIDGET';
EXEC sp_rename 't_renamed.ix_nosuch', 'x', 'INDEX';
EXEC sp_rename 't_renamed';
GO
-- a renamed table keeps its triggers and the foreign keys that reference it
CREATE TABLE dbo.parent_t (id INT NOT NULL PRIMARY KEY);
CREATE TABLE dbo.child_t (pid INT NULL CONSTRAINT fk_child_t REFERENCES dbo.parent_t (id));
CREATE TABLE dbo.audit_t (msg VARCHAR(20));
GO
CREATE TRIGGER trg_parent ON dbo.parent_t AFTER INSERT AS INSERT INTO dbo.audit_t VALUES ('fired');
GO
EXEC sp_rename 'parent_t', 'parent_t2';
INSERT INTO dbo.parent_t2 VALUES (1);
INSERT INTO dbo.child_t VALUES (1);
INSERT INTO dbo.child_t VALUES (2);
SELECT msg FROM dbo.audit_t;
SELECT OBJECT_NAME(referenced_object_id) AS referenced FROM sys.foreign_keys WHERE parent_object_id = OBJECT_ID('child_t');
GO
