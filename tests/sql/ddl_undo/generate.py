#!/usr/bin/env python3
"""Generates the *.sql beside it (run: python3 generate.py .): each DDL kind x {no DML, DML before the savepoint, DML
after the DDL} x {rollback to the savepoint, full rollback, commit}, each followed by the
schema state, DBCC CHECKDB and a read of every object."""
import os, sys

OUT = sys.argv[1]

STATE = ("SELECT CONCAT("
 "(SELECT STRING_AGG(CONCAT(name, ':', RTRIM(type)), ' ') WITHIN GROUP (ORDER BY name) FROM sys.objects WHERE is_ms_shipped = 0), ' | ', "
 "(SELECT STRING_AGG(CONCAT(TABLE_SCHEMA, '.', TABLE_NAME, '.', COLUMN_NAME, ' ', DATA_TYPE, IIF(CHARACTER_MAXIMUM_LENGTH IS NULL, '', CONCAT('(', CHARACTER_MAXIMUM_LENGTH, ')')), IIF(IS_NULLABLE = 'YES', '', ' not null')), ', ') WITHIN GROUP (ORDER BY TABLE_SCHEMA, TABLE_NAME, ORDINAL_POSITION) FROM INFORMATION_SCHEMA.COLUMNS), ' | ', "
 "(SELECT STRING_AGG(CONCAT(OBJECT_NAME(object_id), '.', name), ' ') WITHIN GROUP (ORDER BY OBJECT_NAME(object_id), name) FROM sys.indexes WHERE name IS NOT NULL)"
 ") AS [state]")

# kind: (setup, ddl batches, dml before, dml after, reads)
# setup always has T(a, b) with rows 1..3 and the log table L.
BASE = ("CREATE TABLE T(a int NOT NULL CONSTRAINT pk PRIMARY KEY, b varchar(10)); "
        "INSERT T VALUES (1, 'x'), (2, 'y'), (3, 'z')")
BEFORE = "UPDATE T SET b = b + '!' WHERE a = 1; INSERT L VALUES ('before')"

KINDS = {
 'drop_table': dict(setup=[], ddl=["DROP TABLE T"], after="INSERT L VALUES ('after')",
     reads=["SELECT * FROM T ORDER BY a"]),
 'create_table': dict(setup=[], ddl=["CREATE TABLE N(k int CONSTRAINT pkn PRIMARY KEY, c varchar(5)); CREATE TABLE H(h int)"],
     after="INSERT N VALUES (7, 'n'); INSERT H VALUES (8)",
     reads=["SELECT * FROM T ORDER BY a", "SELECT * FROM N", "SELECT * FROM H"]),
 'add_column': dict(setup=[], ddl=["ALTER TABLE T ADD c int NOT NULL CONSTRAINT dc DEFAULT 5, d varchar(3) NULL"],
     after="UPDATE T SET c = 6, d = 'upd' WHERE a = 2; INSERT T (a, b) VALUES (4, 'w')",
     reads=["SELECT * FROM T ORDER BY a"]),
 'alter_column': dict(setup=[], ddl=["ALTER TABLE T ALTER COLUMN b nvarchar(20) NOT NULL"],
     after="UPDATE T SET b = N'a longer value' WHERE a = 2",
     reads=["SELECT * FROM T ORDER BY a"]),
 'drop_column': dict(setup=["ALTER TABLE T ADD c int NULL", "UPDATE T SET c = a * 10"],
     ddl=["ALTER TABLE T DROP COLUMN c"], after="INSERT T VALUES (4, 'w')",
     reads=["SELECT * FROM T ORDER BY a"]),
 'add_constraint': dict(setup=[], ddl=["ALTER TABLE T ADD CONSTRAINT ck CHECK (a > 0), CONSTRAINT uq UNIQUE (b)"],
     after="INSERT T VALUES (4, 'w')",
     reads=["SELECT * FROM T ORDER BY a", "INSERT T VALUES (-1, 'x')", "SELECT * FROM T ORDER BY a"]),
 'drop_constraint': dict(setup=["ALTER TABLE T ADD CONSTRAINT ck CHECK (a < 100), CONSTRAINT uq UNIQUE (b)"],
     ddl=["ALTER TABLE T DROP CONSTRAINT ck, uq"], after="INSERT T VALUES (200, 'x')",
     reads=["SELECT * FROM T ORDER BY a", "INSERT T VALUES (300, 'x')", "SELECT * FROM T ORDER BY a"]),
 'create_index': dict(setup=[], ddl=["CREATE UNIQUE INDEX ix ON T(b); CREATE CLUSTERED INDEX cx ON L(msg)"],
     after="INSERT T VALUES (4, 'w'); INSERT L VALUES ('after')",
     reads=["SELECT * FROM T WITH (INDEX(pk)) ORDER BY a", "INSERT T VALUES (5, 'w')", "SELECT a, b FROM T WITH (INDEX(pk)) ORDER BY a"]),
 'drop_index': dict(setup=["CREATE UNIQUE INDEX ix ON T(b)"], ddl=["DROP INDEX ix ON T"],
     after="INSERT T VALUES (4, 'x')",
     reads=["SELECT * FROM T WITH (INDEX(pk)) ORDER BY a",
            "IF INDEXPROPERTY(OBJECT_ID('T'), 'ix', 'IndexID') IS NOT NULL SELECT b FROM T WITH (INDEX(ix)) ORDER BY b"]),
 'truncate': dict(setup=["CREATE INDEX ix ON T(b)"], ddl=["TRUNCATE TABLE T"],
     after="INSERT T VALUES (9, 't')",
     reads=["SELECT * FROM T WITH (INDEX(pk)) ORDER BY a", "SELECT b FROM T WITH (INDEX(ix)) ORDER BY b"]),
 'rebuild': dict(setup=["CREATE INDEX ix ON T(b)"], ddl=["ALTER INDEX ALL ON T REBUILD"],
     after="INSERT T VALUES (9, 't')",
     reads=["SELECT * FROM T WITH (INDEX(pk)) ORDER BY a", "SELECT b FROM T WITH (INDEX(ix)) ORDER BY b"]),
 'select_into': dict(setup=[], ddl=["SELECT a * 10 AS a10, b INTO N FROM T"],
     after="INSERT N VALUES (99, 'n')",
     reads=["SELECT * FROM T ORDER BY a", "SELECT * FROM N ORDER BY a10"]),
 'view': dict(setup=["CREATE VIEW V AS SELECT a FROM T", "CREATE VIEW V2 AS SELECT b FROM T"],
     ddl=["CREATE VIEW W AS SELECT a, b FROM T WHERE a > 1", "ALTER VIEW V2 AS SELECT a + 100 AS a100 FROM T", "DROP VIEW V"],
     after="SELECT * FROM W ORDER BY a; SELECT * FROM V2 ORDER BY a100",
     reads=["SELECT * FROM V2 ORDER BY 1", "SELECT * FROM W ORDER BY a", "SELECT * FROM V ORDER BY a"]),
 'procedure': dict(setup=["CREATE PROCEDURE P AS SELECT 1 AS p", "CREATE PROCEDURE P2 AS SELECT 2 AS p2"],
     ddl=["ALTER PROCEDURE P AS SELECT 10 AS p_altered", "CREATE PROCEDURE Q AS SELECT 3 AS q", "DROP PROCEDURE P2"],
     after="EXEC P; EXEC Q",
     reads=["EXEC P", "EXEC Q", "EXEC P2"]),
 'function': dict(setup=["CREATE FUNCTION F() RETURNS int AS BEGIN RETURN 1 END", "CREATE FUNCTION F2() RETURNS TABLE AS RETURN SELECT a FROM T"],
     ddl=["ALTER FUNCTION F() RETURNS int AS BEGIN RETURN 10 END", "CREATE FUNCTION G(@x int) RETURNS TABLE AS RETURN SELECT @x AS x", "DROP FUNCTION F2"],
     after="SELECT dbo.F() AS f; SELECT * FROM dbo.G(5)",
     reads=["SELECT dbo.F() AS f", "SELECT * FROM dbo.G(5)", "SELECT * FROM dbo.F2() ORDER BY a"]),
 'trigger': dict(setup=["CREATE TRIGGER tr1 ON T AFTER INSERT AS INSERT L SELECT CONCAT('tr1 ', a) FROM inserted"],
     ddl=["CREATE TRIGGER tr2 ON T AFTER INSERT AS INSERT L SELECT CONCAT('tr2 ', a) FROM inserted", "DROP TRIGGER tr1"],
     after="INSERT T VALUES (4, 'w')",
     reads=["INSERT T VALUES (5, 'v')", "SELECT * FROM L ORDER BY msg"]),
 'sequence': dict(setup=["CREATE SEQUENCE S1 START WITH 1", "CREATE SEQUENCE S2 START WITH 20"],
     ddl=["DROP SEQUENCE S1; CREATE SEQUENCE S3 START WITH 300; ALTER SEQUENCE S2 RESTART WITH 200"],
     after="SELECT NEXT VALUE FOR S3 AS s3",
     reads=["SELECT NEXT VALUE FOR S2 AS s2", "SELECT NEXT VALUE FOR S3 AS s3", "SELECT NEXT VALUE FOR S1 AS s1"]),
 'schema': dict(setup=["CREATE SCHEMA old", "CREATE TABLE old.X(x int); INSERT old.X VALUES (1)"],
     ddl=["CREATE SCHEMA sc", "CREATE TABLE sc.Y(y int); DROP TABLE old.X; DROP SCHEMA old"],
     after="INSERT sc.Y VALUES (2)",
     reads=["SELECT STRING_AGG(name, ',') WITHIN GROUP (ORDER BY name) AS schemas FROM sys.schemas", "SELECT * FROM sc.Y", "SELECT * FROM old.X"]),
 'type': dict(setup=["CREATE TYPE old_t FROM varchar(5)"],
     ddl=["CREATE TYPE new_t FROM int NOT NULL; DROP TYPE old_t; CREATE TABLE N(k new_t)"],
     after="INSERT N VALUES (1)",
     reads=["SELECT STRING_AGG(name, ',') WITHIN GROUP (ORDER BY name) AS types FROM sys.types WHERE is_user_defined = 1", "SELECT * FROM N"]),
}

PRE = {'none': None, 'before': BEFORE, 'after': None}
ENDS = {'rollback to savepoint': "ROLLBACK TRAN s1; COMMIT", 'rollback': "ROLLBACK", 'commit': "COMMIT"}

def scenario(kind, k, pre, end):
    out = []
    out.append(f"-- {kind}: {'no DML' if pre == 'none' else 'DML ' + pre + ' the savepoint' if pre == 'before' else 'DML after the DDL'}, {end}")
    # fresh database objects
    out.append("USE master\nGO\nIF DB_ID('u') IS NOT NULL DROP DATABASE u\nGO\nCREATE DATABASE u\nGO\nUSE u")
    out.append(BASE + "\nCREATE TABLE L(msg varchar(20))")
    out.append("GO")
    for s in k['setup']:
        out.append(s)
        out.append("GO")
    head = "BEGIN TRAN"
    if pre == 'before':
        head += "; " + BEFORE
    head += "; SAVE TRAN s1"
    out.append(head)
    out.append("GO")
    for d in k['ddl']:
        out.append(d)
        out.append("GO")
    tail = ""
    if pre == 'after':
        tail = k['after'] + "\n"
    out.append(tail + ENDS[end])
    out.append("GO")
    out.append("SELECT @@TRANCOUNT AS trancount")
    out.append(STATE)
    out.append("SELECT * FROM L ORDER BY msg")
    out.append("DBCC CHECKDB WITH NO_INFOMSGS")
    out.append("GO")
    for r in k['reads']:
        out.append(r)
        out.append("GO")
    return "\n".join(out) + "\n"

os.makedirs(OUT, exist_ok=True)
for kind, k in KINDS.items():
    parts = [f"-- DDL undo ({kind}): the DDL after SAVE TRAN, with no DML / DML before the savepoint /\n"
             f"-- DML after the DDL, then ROLLBACK TRAN s1 + COMMIT, ROLLBACK or COMMIT; then the schema,\n"
             f"-- DBCC CHECKDB and a read of every object (generated by generate.py here)."]
    for pre in PRE:
        for end in ENDS:
            parts.append(scenario(kind, k, pre, end))
    parts.append("USE master\nGO\nDROP DATABASE u\nGO\n")
    open(os.path.join(OUT, f"{kind}.sql"), "w").write("\n".join(parts))
print(len(KINDS) * 9, "scenarios")
