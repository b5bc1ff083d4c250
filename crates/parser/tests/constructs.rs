//! One small statement per construct the brief and SCENARIOS.md list: each must parse and
//! round-trip through the printer; key shapes are asserted on the AST.

use parser::ast::*;
use parser::{parse_batch, parse_expression, roundtrip};

fn rt(sql: &str) {
    match roundtrip::check(sql) {
        Ok(true) => {}
        Ok(false) => panic!("does not parse: {sql}\n{:?}", parse_batch(sql).err()),
        Err(e) => panic!("{sql}\n{e}"),
    }
}

fn one(sql: &str) -> StatementKind {
    let mut v = parse_batch(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    assert_eq!(v.len(), 1, "{sql}");
    v.remove(0).kind
}

fn query(sql: &str) -> Query {
    match one(sql) {
        StatementKind::Select(q) => *q,
        k => panic!("not a select: {k:?}"),
    }
}

fn select(sql: &str) -> Select {
    match query(sql).body {
        QueryBody::Select(s) => *s,
        b => panic!("not a simple select: {b:?}"),
    }
}

const SCENARIO_STATEMENTS: &[&str] = &[
    // SCENARIOS.md statement list, one example each
    "DROP TABLE IF EXISTS tbl_1",
    "CREATE TABLE t (a BIGINT, b INT, c SMALLINT, d TINYINT, e VARCHAR(10), f VARCHAR(MAX), g NVARCHAR(20), h CHAR(3), id INT IDENTITY(1,1) PRIMARY KEY)",
    "CREATE TABLE t (ID INT, INDEX CCI CLUSTERED COLUMNSTORE)",
    "CREATE TABLE t (c1 BIGINT NULL) ON ps(c1)",
    "CREATE TABLE #temp (a INT)",
    "CREATE TABLE ##global (a INT)",
    "CREATE CLUSTERED INDEX CI ON t (a) WITH (OPTIMIZE_FOR_SEQUENTIAL_KEY = ON)",
    "CREATE INDEX IX ON t (a)",
    "CREATE CLUSTERED COLUMNSTORE INDEX CCI ON t",
    "ALTER INDEX CCI ON t REORGANIZE WITH (COMPRESS_ALL_ROW_GROUPS = ON)",
    "CREATE STATISTICS S1 ON t (ID) WITH FULLSCAN, NORECOMPUTE",
    "CREATE PARTITION FUNCTION pf (BIGINT) AS RANGE LEFT FOR VALUES (1, 2, 3)",
    "CREATE PARTITION SCHEME ps AS PARTITION pf ALL TO ([PRIMARY])",
    "CREATE SEQUENCE s AS SMALLINT INCREMENT BY 1 CACHE 600",
    "SELECT NEXT VALUE FOR s",
    "SELECT a INTO #t FROM t",
    "INSERT INTO t WITH (TABLOCK) SELECT a FROM s",
    "SELECT TOP (10) a FROM t",
    "SELECT TOP (@v) a FROM t",
    "SELECT ROW_NUMBER() OVER (ORDER BY (SELECT NULL)) RN FROM master..spt_values",
    "SELECT * FROM t CROSS APPLY (SELECT TOP (1) x FROM u WHERE u.id = t.id) ca",
    "SELECT 1 WHERE EXISTS (SELECT 1) AND NOT EXISTS (SELECT 2)",
    "WITH a AS (SELECT 1 x UNION ALL SELECT 2), b AS (SELECT x FROM a UNION ALL SELECT x FROM a) SELECT * FROM b",
    "SELECT * FROM (VALUES (1, 2), (3, 4)) v (a, b)",
    "SELECT ID, STRING_AGG(s, ',') WITHIN GROUP (ORDER BY ID2) FROM t GROUP BY ID",
    "SELECT CHECKSUM(a), REPLICATE('Z', 5), COUNT_BIG(*), ISNULL(a, 0), QUOTENAME(n) FROM t",
    "SELECT * FROM a INNER HASH JOIN b ON a.x = b.x",
    "SELECT * FROM t WITH (TABLOCK), u WITH (NOLOCK), v WITH (INDEX(1)), w WITH (FORCESEEK)",
    "SELECT 1 OPTION (MAXDOP 1, RECOMPILE, HASH JOIN, LOOP JOIN, MERGE JOIN, FORCE ORDER, NO_PERFORMANCE_SPOOL, MIN_GRANT_PERCENT = 100, OPTIMIZE FOR (@v = 1), USE HINT ('DISABLE_OPTIMIZER_ROWGOAL'), QUERYTRACEON 8649, QueryRuleOff JoinCommute, MAXRECURSION 0)",
    "DECLARE c CURSOR FAST_FORWARD FOR SELECT 1",
    "DECLARE c CURSOR STATIC FOR SELECT 1",
    "DECLARE c CURSOR KEYSET FOR SELECT 1",
    "DECLARE c CURSOR DYNAMIC FOR SELECT 1",
    "DECLARE c CURSOR READ_ONLY FOR SELECT 1",
    "OPEN c",
    "FETCH NEXT FROM c INTO @a",
    "SELECT @@FETCH_STATUS",
    "CLOSE c",
    "DEALLOCATE c",
    "CREATE OR ALTER PROCEDURE p AS BEGIN SELECT 1 END",
    "CREATE PROCEDURE #p AS SELECT 1",
    "DECLARE @i BIGINT = 0",
    "SET @i = @i + 1",
    "WHILE @i < 10 SET @i += 1",
    "IF @i = 1 PRINT 'a' ELSE PRINT 'b'",
    "BEGIN SELECT 1 END",
    "EXEC (@sql)",
    "PRINT 'x'",
    "SET NOCOUNT ON",
    "SELECT @@SPID, GETDATE(), SYSUTCDATETIME(), DATEDIFF(MILLISECOND, @t, SYSUTCDATETIME())",
    "CHECKPOINT",
    "DBCC DROPCLEANBUFFERS",
    "DBCC FREEPROCCACHE",
    "DBCC FREESYSTEMCACHE('ALL')",
    "DBCC SQLPERF('sys.dm_os_wait_stats', CLEAR)",
    "DBCC TRACEON(8649)",
    "DBCC TRACEOFF(8649)",
    "DBCC CHECKTABLE('t') WITH NO_INFOMSGS",
    "ALTER DATABASE d ADD FILE (NAME = f1, FILENAME = 'c:\\f1.ndf', SIZE = 10MB)",
    "ALTER DATABASE d SET QUERY_STORE = ON (INTERVAL_LENGTH_MINUTES = 5)",
    "SELECT * FROM sys.dm_os_wait_stats",
    "SELECT * FROM sys.dm_exec_requests, sys.dm_io_virtual_file_stats(NULL, NULL) s",
    "SELECT * FROM sys.dm_exec_query_profiles, sys.dm_exec_cursors(0) c, sys.dm_os_spinlock_stats, sys.query_store_runtime_stats",
];

const OTHER_STATEMENTS: &[&str] = &[
    // SELECT
    "SELECT DISTINCT TOP 5 PERCENT WITH TIES a FROM t ORDER BY a",
    "SELECT a AS x, b y, z = c + 1, 'lit' AS [q], t.*, dbo.t.* FROM dbo.t",
    "SELECT @v = a, @w += 1 FROM t",
    "SELECT * FROM a LEFT OUTER JOIN b ON 1 = 1 RIGHT JOIN c ON 1 = 1 FULL JOIN d ON 1 = 1 CROSS JOIN e",
    "SELECT * FROM a INNER LOOP JOIN b ON a.x = b.x LEFT MERGE JOIN c ON c.x = a.x",
    "SELECT * FROM a JOIN b JOIN c ON b.x = c.x ON a.x = b.x",
    "SELECT * FROM (a JOIN b ON a.x = b.x) OUTER APPLY dbo.f(a.x) AS f (c1, c2)",
    "SELECT * FROM @t AS t",
    "SELECT a, COUNT(*) FROM t GROUP BY ROLLUP (a, (b, c)) HAVING COUNT(*) > 1",
    "SELECT a FROM t GROUP BY CUBE (a, b)",
    "SELECT a FROM t GROUP BY GROUPING SETS ((a, b), (a), (), ROLLUP (c))",
    "SELECT a FROM t ORDER BY a DESC, b ASC OFFSET 10 ROWS FETCH NEXT 5 ROWS ONLY",
    "SELECT 1 UNION SELECT 2 EXCEPT SELECT 3 INTERSECT SELECT 4",
    "(SELECT 1) UNION ALL (SELECT 2 ORDER BY 1 OFFSET 0 ROWS)",
    "WITH r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 10) SELECT n FROM r OPTION (MAXRECURSION 100)",
    "SELECT SUM(x) OVER (PARTITION BY a ORDER BY b ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW), AVG(x) OVER (ORDER BY b RANGE UNBOUNDED PRECEDING), MAX(x) OVER (ORDER BY b ROWS BETWEEN 2 PRECEDING AND 3 FOLLOWING) FROM t",
    "SELECT COUNT(DISTINCT a), PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY x) OVER (PARTITION BY y) FROM t",
    "SELECT * FROM t OPTION (OPTIMIZE FOR (@a UNKNOWN, @b = 5), OPTIMIZE FOR UNKNOWN, FAST 10, KEEPFIXED PLAN, MAX_GRANT_PERCENT = 2.5, LABEL = 'x')",
    "SELECT * FROM t WITH (INDEX(ix_a, ix_b), UPDLOCK, HOLDLOCK, ROWLOCK, READPAST, SERIALIZABLE)",
    // expressions
    "SELECT 1, 1.5, .5, 1e10, 2.5E-3, $1.5, 'x''y', N'ü', 0x0AFF, NULL, -1, +2, ~3",
    "SELECT a & b | c ^ d % e, a + b * c - d / e, 'a' + 'b'",
    "SELECT 1 WHERE a = 1 AND b <> 2 AND c != 3 AND d < 4 AND e <= 5 AND f > 6 AND g >= 7 AND h !< 8 AND i !> 9",
    "SELECT 1 WHERE NOT a = 1 OR b IS NULL OR c IS NOT NULL OR d BETWEEN 1 AND 2 OR e NOT BETWEEN 3 AND 4",
    "SELECT 1 WHERE a IN (1, 2) AND b NOT IN (SELECT x FROM t) AND c LIKE 'a%' AND d NOT LIKE 'b!%' ESCAPE '!'",
    "SELECT 1 WHERE a > ALL (SELECT x FROM t) AND b = ANY (SELECT x FROM t) AND c < SOME (SELECT 1)",
    "SELECT CASE a WHEN 1 THEN 'x' WHEN 2 THEN 'y' ELSE 'z' END, CASE WHEN a > 1 THEN 1 END",
    "SELECT CAST(a AS DECIMAL(10, 2)), TRY_CAST('x' AS INT), CONVERT(VARCHAR(30), GETDATE(), 121), TRY_CONVERT(INT, 'x')",
    "SELECT dbo.f(1), master.dbo.g(), IIF(a > 1, 'y', 'n'), COALESCE(a, b, c), NULLIF(a, 0), LEFT(s, 2), RIGHT(s, 1)",
    "SELECT a COLLATE Latin1_General_BIN, (SELECT MAX(x) FROM t), CURRENT_TIMESTAMP, DATEADD(day, 1, d)",
    "SELECT IDENTITY(INT, 1, 1) AS id INTO #n FROM t",
    "SELECT @@ROWCOUNT, @@TRANCOUNT, @@ERROR, @@IDENTITY",
    "SELECT [weird]]name], \"quoted\" FROM [my table]",
    // DML
    "INSERT t (a, b) VALUES (1, 2), (3, DEFAULT)",
    "INSERT INTO t DEFAULT VALUES",
    "INSERT INTO t EXEC p 1",
    "INSERT INTO @t (a) SELECT 1",
    "INSERT INTO t (a) OUTPUT inserted.a, inserted.* INTO @log (a) VALUES (1)",
    "INSERT TOP (5) INTO t SELECT * FROM u",
    "UPDATE t SET a = 1, b += 2, @v = c = c + 1, @w = 3 WHERE id = 1",
    "UPDATE TOP (10) t WITH (ROWLOCK) SET a = DEFAULT OUTPUT deleted.a, inserted.a FROM t JOIN u ON t.id = u.id WHERE u.x = 1 OPTION (MAXDOP 1)",
    "UPDATE t SET a = 1 WHERE CURRENT OF c",
    "DELETE FROM t WHERE a = 1",
    "DELETE t FROM t JOIN u ON t.id = u.id",
    "DELETE TOP (5) t OUTPUT deleted.* WHERE CURRENT OF GLOBAL c",
    "MERGE INTO t AS tgt USING s AS src ON tgt.id = src.id WHEN MATCHED AND src.x = 1 THEN UPDATE SET x = src.x WHEN MATCHED THEN DELETE WHEN NOT MATCHED BY TARGET THEN INSERT (id, x) VALUES (src.id, src.x) WHEN NOT MATCHED BY SOURCE THEN DELETE OUTPUT $action, inserted.id;",
    "MERGE t USING (VALUES (1)) v (id) ON t.id = v.id WHEN NOT MATCHED THEN INSERT DEFAULT VALUES;",
    "WITH c AS (SELECT 1 x) INSERT INTO t SELECT x FROM c",
    "WITH c AS (SELECT * FROM t) UPDATE c SET x = 1",
    "WITH c AS (SELECT * FROM t) DELETE FROM c",
    "TRUNCATE TABLE dbo.t",
    // DDL
    "CREATE TABLE dbo.t (id INT NOT NULL CONSTRAINT pk PRIMARY KEY CLUSTERED, n NVARCHAR(50) COLLATE Latin1_General_CI_AS NULL CONSTRAINT df DEFAULT N'x', c AS id * 2 PERSISTED, u INT UNIQUE NONCLUSTERED, k INT CHECK (k > 0), f INT REFERENCES dbo.p (id) ON DELETE CASCADE ON UPDATE NO ACTION, g UNIQUEIDENTIFIER ROWGUIDCOL DEFAULT NEWID(), x INT INDEX ix_x NONCLUSTERED)",
    "CREATE TABLE t (a INT, b INT, CONSTRAINT pk PRIMARY KEY NONCLUSTERED (a DESC, b) WITH (FILLFACTOR = 90) ON [PRIMARY], UNIQUE (b), CHECK (a < b), CONSTRAINT fk FOREIGN KEY (b) REFERENCES u (id) ON DELETE SET NULL, INDEX ix UNIQUE NONCLUSTERED (b) INCLUDE (a) WHERE b > 0) ON [PRIMARY] WITH (DATA_COMPRESSION = PAGE)",
    "CREATE TABLE t (a INT IDENTITY, b INT IDENTITY(-1, -1))",
    "ALTER TABLE t ADD c INT NULL, CONSTRAINT ck CHECK (c > 0)",
    "ALTER TABLE t ADD CONSTRAINT df_c DEFAULT 0 FOR c",
    "ALTER TABLE t DROP COLUMN IF EXISTS c, d",
    "ALTER TABLE t DROP CONSTRAINT ck",
    "ALTER TABLE t ALTER COLUMN c BIGINT NOT NULL",
    "ALTER TABLE t NOCHECK CONSTRAINT ALL",
    "ALTER TABLE t WITH CHECK CHECK CONSTRAINT ck",
    "ALTER TABLE t SET (LOCK_ESCALATION = TABLE)",
    "ALTER TABLE t REBUILD WITH (DATA_COMPRESSION = ROW)",
    "DROP VIEW v",
    "DROP PROCEDURE IF EXISTS p, q",
    "DROP FUNCTION dbo.f",
    "DROP TRIGGER tr",
    "DROP INDEX IF EXISTS ix ON t, ix2 ON u",
    "DROP INDEX t.ix",
    "DROP SEQUENCE s",
    "DROP SCHEMA s",
    "DROP DATABASE IF EXISTS d",
    "DROP PARTITION SCHEME ps",
    "DROP PARTITION FUNCTION pf",
    "CREATE UNIQUE NONCLUSTERED INDEX ix ON dbo.t (a, b DESC) INCLUDE (c) WHERE a IS NOT NULL WITH (ONLINE = ON, MAXDOP = 4) ON ps(a)",
    "CREATE NONCLUSTERED COLUMNSTORE INDEX ncci ON t (a, b)",
    "ALTER INDEX ALL ON t REBUILD PARTITION = ALL WITH (DATA_COMPRESSION = COLUMNSTORE_ARCHIVE)",
    "ALTER INDEX ix ON t DISABLE",
    "ALTER INDEX ix ON t SET (ALLOW_PAGE_LOCKS = OFF)",
    "CREATE STATISTICS s ON t (a, b) WHERE a > 1 WITH SAMPLE 10 PERCENT, INCREMENTAL = ON",
    "UPDATE STATISTICS t s1 WITH FULLSCAN",
    "UPDATE STATISTICS t (s1, s2)",
    "CREATE PARTITION FUNCTION pf (DATE) AS RANGE RIGHT FOR VALUES ('2020-01-01', '2021-01-01')",
    "CREATE SEQUENCE dbo.s START WITH 1 INCREMENT BY -1 MINVALUE -100 NO MAXVALUE CYCLE NO CACHE",
    "ALTER SEQUENCE s RESTART WITH 5",
    "CREATE VIEW v (a, b) WITH SCHEMABINDING AS SELECT a, b FROM dbo.t WITH CHECK OPTION",
    "CREATE OR ALTER VIEW v AS SELECT 1 x",
    "ALTER VIEW v AS SELECT 2 x",
    "CREATE PROCEDURE dbo.p @a INT = 1, @b VARCHAR(10) OUTPUT, @c dbo.tt READONLY WITH RECOMPILE AS SET @b = 'x'; RETURN 0",
    "CREATE PROC p (@a INT) AS BEGIN SELECT @a END",
    "ALTER PROCEDURE p AS SELECT 1",
    "CREATE FUNCTION dbo.f (@a INT) RETURNS INT WITH SCHEMABINDING AS BEGIN RETURN @a + 1 END",
    "CREATE FUNCTION dbo.tvf (@a INT) RETURNS TABLE AS RETURN (SELECT @a AS a)",
    "CREATE FUNCTION dbo.tvf2 () RETURNS TABLE AS RETURN SELECT 1 AS a",
    "CREATE FUNCTION dbo.mtvf (@a INT) RETURNS @r TABLE (x INT PRIMARY KEY) AS BEGIN INSERT INTO @r VALUES (@a); RETURN END",
    "CREATE TRIGGER tr ON t AFTER INSERT, UPDATE AS BEGIN SET NOCOUNT ON; SELECT * FROM inserted END",
    "CREATE OR ALTER TRIGGER tr ON t INSTEAD OF DELETE AS SELECT 1",
    "CREATE SCHEMA s AUTHORIZATION dbo",
    "CREATE DATABASE d",
    "CREATE DATABASE d ON PRIMARY (NAME = d, FILENAME = 'd.mdf', SIZE = 8MB, FILEGROWTH = 10%) LOG ON (NAME = d_log, FILENAME = 'd.ldf') COLLATE SQL_Latin1_General_CP1_CI_AS",
    "ALTER DATABASE CURRENT SET RECOVERY SIMPLE, ALLOW_SNAPSHOT_ISOLATION ON WITH ROLLBACK IMMEDIATE",
    "ALTER DATABASE d SET QUERY_STORE CLEAR",
    "ALTER DATABASE d ADD FILEGROUP fg",
    "ALTER DATABASE d ADD LOG FILE (NAME = l2, FILENAME = 'l2.ldf') ",
    "ALTER DATABASE d MODIFY FILE (NAME = f, SIZE = 100MB)",
    "USE master",
    // procedural
    "DECLARE @a INT = 1, @b VARCHAR(10), @c AS DECIMAL(5, 2) = 1.5",
    "DECLARE @t TABLE (id INT PRIMARY KEY, v NVARCHAR(MAX) NULL, INDEX ix (v))",
    "DECLARE c CURSOR LOCAL FORWARD_ONLY STATIC READ_ONLY TYPE_WARNING FOR SELECT 1 FOR UPDATE OF a, b",
    "DECLARE c INSENSITIVE SCROLL CURSOR FOR SELECT 1 FOR READ ONLY",
    "DECLARE c CURSOR GLOBAL SCROLL KEYSET OPTIMISTIC FOR SELECT 1",
    "DECLARE @c CURSOR",
    "SET @c = CURSOR FAST_FORWARD FOR SELECT 1",
    "FETCH PRIOR FROM c",
    "FETCH ABSOLUTE 5 FROM GLOBAL c INTO @a, @b",
    "FETCH RELATIVE -1 FROM @c",
    "FETCH FIRST FROM c",
    "FETCH LAST FROM c",
    "FETCH c INTO @a",
    "OPEN GLOBAL c",
    "SET @a -= 1",
    "SET @s = (SELECT MAX(a) FROM t)",
    "SET ANSI_NULLS, QUOTED_IDENTIFIER ON",
    "SET XACT_ABORT OFF",
    "SET STATISTICS IO, TIME ON",
    "SET STATISTICS XML OFF",
    "SET SHOWPLAN_TEXT ON",
    "SET IDENTITY_INSERT dbo.t ON",
    "SET ROWCOUNT 10",
    "SET TRANSACTION ISOLATION LEVEL READ UNCOMMITTED",
    "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ",
    "SET TRANSACTION ISOLATION LEVEL SNAPSHOT",
    "SET DATEFORMAT dmy",
    "SET LANGUAGE us_english",
    "IF EXISTS (SELECT 1 FROM t) BEGIN PRINT 'y' END ELSE IF 1 = 0 PRINT 'n'; ELSE PRINT 'm'",
    "WHILE 1 = 1 BEGIN IF @i > 5 BREAK; ELSE CONTINUE END",
    "RETURN",
    "RETURN @x + 1",
    "GOTO done",
    "done:",
    "WAITFOR DELAY '00:00:01'",
    "WAITFOR TIME '23:00'",
    "RAISERROR('msg %d', 16, 1, 5) WITH NOWAIT, LOG",
    "RAISERROR(50001, 10, 1)",
    "THROW 50000, 'boom', 1",
    "BEGIN TRY SELECT 1 / 0 END TRY BEGIN CATCH THROW; END CATCH",
    "BEGIN TRAN",
    "BEGIN TRANSACTION t1",
    "COMMIT",
    "COMMIT TRAN t1",
    "COMMIT WORK",
    "ROLLBACK TRANSACTION @name",
    "ROLLBACK",
    "SAVE TRANSACTION sp1",
    "EXEC p",
    "EXECUTE dbo.p 1, 'a', @x OUTPUT, DEFAULT",
    "EXEC @rc = p @a = 1, @b = @c OUT WITH RECOMPILE",
    "EXEC ('SELECT ' + @x)",
    "EXEC sp_executesql N'SELECT @a', N'@a INT', @a = 1",
    "EXEC @proc_name",
    "CHECKPOINT 10",
    "DBCC CHECKDB",
    "DBCC SHOW_STATISTICS('t', s1) WITH HISTOGRAM",
];

#[test]
fn scenario_statements_parse_and_round_trip() {
    for s in SCENARIO_STATEMENTS {
        rt(s);
    }
}

#[test]
fn other_statements_parse_and_round_trip() {
    for s in OTHER_STATEMENTS {
        rt(s);
    }
}

#[test]
fn unsupported_statements_are_kept() {
    match one("GRANT SELECT ON t TO u") {
        StatementKind::Unsupported { keyword, text } => {
            assert_eq!(keyword, "GRANT");
            assert_eq!(text, "GRANT SELECT ON t TO u");
        }
        k => panic!("{k:?}"),
    }
    let v = parse_batch("DENY SELECT ON t TO u\nSELECT 1").unwrap();
    assert_eq!(v.len(), 2);
}

#[test]
fn statements_without_separators_and_lines() {
    let v = parse_batch("DECLARE @x int SET @x = 1\nSELECT @x\n\n  PRINT @x;;SELECT 2").unwrap();
    let lines: Vec<u32> = v.iter().map(|s| s.line).collect();
    assert_eq!(lines, vec![1, 1, 2, 4, 4]);
    assert_eq!(v[2].span.start, 26);
}

#[test]
fn select_item_shapes() {
    let s = select("SELECT a AS x, b y, z = c, @v = d, t.*, *, 'q' w FROM t");
    assert_eq!(s.items.len(), 7);
    match &s.items[2] {
        SelectItem::Expr { alias, expr } => {
            assert_eq!(alias.as_ref().unwrap().value, "z");
            assert!(matches!(expr, Expr::Column(_)));
        }
        i => panic!("{i:?}"),
    }
    assert!(matches!(&s.items[3], SelectItem::Assign { variable, op: AssignOp::Assign, .. } if variable == "@v"));
    assert!(matches!(&s.items[4], SelectItem::QualifiedWildcard(n) if n.name_str() == "t"));
    assert!(matches!(&s.items[5], SelectItem::Wildcard));
    assert!(matches!(&s.items[6], SelectItem::Expr { alias: Some(a), .. } if a.value == "w"));
}

#[test]
fn operator_precedence() {
    // * binds tighter than +, comparison tighter than NOT, NOT tighter than AND, AND than OR
    let e = parse_expression("1 + 2 * 3").unwrap();
    assert!(matches!(e, Expr::Binary { op: BinaryOp::Add, ref right, .. } if matches!(**right, Expr::Binary { op: BinaryOp::Mul, .. })));
    let e = parse_expression("a = 1 OR b = 2 AND NOT c = 3").unwrap();
    match e {
        Expr::Binary { op: BinaryOp::Or, right, .. } => match *right {
            Expr::Binary { op: BinaryOp::And, right, .. } => {
                assert!(matches!(*right, Expr::Unary { op: UnaryOp::Not, ref expr } if matches!(**expr, Expr::Binary { op: BinaryOp::Eq, .. })))
            }
            e => panic!("{e:?}"),
        },
        e => panic!("{e:?}"),
    }
    // BETWEEN's AND is not the logical AND
    let e = parse_expression("a BETWEEN 1 AND 2 AND b = 1").unwrap();
    assert!(matches!(e, Expr::Binary { op: BinaryOp::And, ref left, .. } if matches!(**left, Expr::Between { .. })));
    // left associativity
    let e = parse_expression("10 - 2 - 3").unwrap();
    assert!(matches!(e, Expr::Binary { op: BinaryOp::Sub, ref left, .. } if matches!(**left, Expr::Binary { op: BinaryOp::Sub, .. })));
    // set operators: INTERSECT binds tighter than UNION
    let q = query("SELECT 1 UNION SELECT 2 INTERSECT SELECT 3");
    assert!(matches!(q.body, QueryBody::SetOp { op: SetOperator::Union, ref right, .. } if matches!(**right, QueryBody::SetOp { op: SetOperator::Intersect, .. })));
}

#[test]
fn literals() {
    let s = select("SELECT 1, 1.50, 1e3, $2.5, 'it''s', N'x', 0x0aF, NULL, 2147483648");
    let lits: Vec<&Expr> = s
        .items
        .iter()
        .map(|i| match i {
            SelectItem::Expr { expr, .. } => expr,
            _ => panic!(),
        })
        .collect();
    assert_eq!(lits[0], &Expr::Literal(Literal::Integer("1".into())));
    assert_eq!(lits[1], &Expr::Literal(Literal::Decimal("1.50".into())));
    assert_eq!(lits[2], &Expr::Literal(Literal::Float("1e3".into())));
    assert_eq!(lits[3], &Expr::Literal(Literal::Money("2.5".into())));
    assert_eq!(
        lits[4],
        &Expr::Literal(Literal::String {
            value: "it's".into(),
            national: false
        })
    );
    assert_eq!(
        lits[5],
        &Expr::Literal(Literal::String {
            value: "x".into(),
            national: true
        })
    );
    assert_eq!(lits[6], &Expr::Literal(Literal::Binary(vec![0x00, 0xaf])));
    assert_eq!(lits[7], &Expr::Literal(Literal::Null));
    assert_eq!(lits[8], &Expr::Literal(Literal::Integer("2147483648".into())));
}

#[test]
fn names_and_hints() {
    let s = select("SELECT * FROM master..spt_values t1 WITH (NOLOCK, INDEX(1)) CROSS JOIN [srv].db.dbo.[t 2]");
    match &s.from[0] {
        TableRef::Join { left, right, kind: JoinKind::Cross, .. } => {
            match &**left {
                TableRef::Table { name, alias, hints } => {
                    assert_eq!(name.name_str(), "spt_values");
                    assert!(name.schema().is_none());
                    assert_eq!(name.database().unwrap().value, "master");
                    assert_eq!(alias.as_ref().unwrap().value, "t1");
                    assert_eq!(hints, &vec![TableHint::NoLock, TableHint::Index(vec![IndexTarget::Id(1)])]);
                }
                t => panic!("{t:?}"),
            }
            match &**right {
                TableRef::Table { name, .. } => {
                    assert_eq!(name.server().unwrap().value, "srv");
                    assert!(name.name().unwrap().quoted);
                    assert_eq!(name.name_str(), "t 2");
                }
                t => panic!("{t:?}"),
            }
        }
        t => panic!("{t:?}"),
    }
    let q = query("SELECT 1 OPTION (MAXDOP 2, USE HINT ('A', 'B'), QUERYRULEOFF BuildSpool)");
    assert_eq!(
        q.options,
        vec![
            QueryHint::MaxDop(2),
            QueryHint::UseHint(vec!["A".into(), "B".into()]),
            QueryHint::QueryRuleOff("BuildSpool".into())
        ]
    );
}

#[test]
fn insert_select_keeps_option_on_query() {
    match one("INSERT INTO t WITH (TABLOCK) SELECT 1 OPTION (MAXDOP 1)") {
        StatementKind::Insert(i) => {
            assert_eq!(i.hints, vec![TableHint::TabLock]);
            match &i.source {
                InsertSource::Query(q) => assert_eq!(q.options, vec![QueryHint::MaxDop(1)]),
                s => panic!("{s:?}"),
            }
        }
        k => panic!("{k:?}"),
    }
}

#[test]
fn procedure_body_and_text() {
    let sql = "-- header comment\nCREATE OR ALTER PROCEDURE dbo.p @a INT\nAS\nBEGIN\n  SELECT @a;\nEND;\n";
    match one(sql) {
        StatementKind::CreateProcedure(p) => {
            assert_eq!(p.mode, CreateMode::CreateOrAlter);
            assert_eq!(p.params.len(), 1);
            assert_eq!(p.body.len(), 1);
            assert_eq!(p.body[0].line, 4);
            assert!(p.text.starts_with("-- header comment\nCREATE"));
            assert!(p.text.ends_with("END;"));
        }
        k => panic!("{k:?}"),
    }
}

#[test]
fn create_module_must_be_first_in_batch() {
    let e = parse_batch("SELECT 1\nCREATE VIEW v AS SELECT 1").unwrap_err();
    assert_eq!(e.number, 111);
    assert_eq!(e.message, "'CREATE VIEW' must be the first statement in a query batch.");
    assert_eq!(e.line, 2);
}

#[test]
fn bare_procedure_name_first_in_batch_is_exec() {
    match one("sp_who 1") {
        StatementKind::Exec(e) => match *e {
            Exec::Module { module: ExecModule::Name(n), args, .. } => {
                assert_eq!(n.name_str(), "sp_who");
                assert_eq!(args.len(), 1);
            }
            e => panic!("{e:?}"),
        },
        k => panic!("{k:?}"),
    }
}

#[test]
fn cursor_options() {
    match one("DECLARE FF CURSOR FAST_FORWARD FOR SELECT ID FROM tbl_1 WHERE ID2 < 1 ORDER BY ID") {
        StatementKind::DeclareCursor(c) => {
            assert_eq!(c.options.kind, Some(CursorKind::FastForward));
            assert_eq!(c.query.order_by.len(), 1);
        }
        k => panic!("{k:?}"),
    }
}

#[test]
fn data_types() {
    let t = parser::parse_data_type("varchar(max)").unwrap();
    assert_eq!(t.params, vec![TypeParam::Max]);
    let t = parser::parse_data_type("decimal(10, 2)").unwrap();
    assert_eq!(t.params, vec![TypeParam::Number(10), TypeParam::Number(2)]);
    let t = parser::parse_data_type("double precision").unwrap();
    assert_eq!(t.name, "float");
    assert!(parser::parse_data_type("int int").is_err());
}
