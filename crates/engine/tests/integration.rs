//! Engine-level tests of scalar subqueries in procedural statements, INFORMATION_SCHEMA views,
//! index builds / table rewrites on non-empty tables and REFERENCE checks.

use std::sync::Arc;

use engine::{CollectSink, Engine, EngineConfig, Session};
use types::Value;

fn session(tag: &str) -> (Session, std::path::PathBuf) {
    let d = std::env::temp_dir().join(format!("latchkey-integ-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    let e: Arc<Engine> = Engine::open(&d, EngineConfig::default()).expect("open engine");
    (Session::new(e), d)
}

fn run(s: &mut Session, sql: &str) -> CollectSink {
    let mut sink = CollectSink::default();
    s.execute_batch(sql, &mut sink);
    sink
}

fn messages(out: &CollectSink) -> Vec<String> {
    out.events
        .iter()
        .filter_map(|e| match e {
            engine::Event::Message(m) => Some(m.text.clone()),
            _ => None,
        })
        .collect()
}

fn ok(s: &mut Session, sql: &str) -> CollectSink {
    let out = run(s, sql);
    assert!(out.errors().is_empty(), "{sql}: {:?}", out.errors());
    out
}

fn single(out: &CollectSink) -> Vec<Vec<Value>> {
    out.result_sets()
        .last()
        .map(|r| (*r).clone())
        .unwrap_or_default()
}

#[test]
fn scalar_subqueries_in_procedural_statements() {
    let (mut s, dir) = session("subq");
    ok(
        &mut s,
        "CREATE TABLE t (a int)\nINSERT t VALUES (1), (2), (3)",
    );
    let out = ok(
        &mut s,
        "IF EXISTS (SELECT 1 FROM t) PRINT 'yes' ELSE PRINT 'no'
         IF NOT EXISTS (SELECT 1 FROM t WHERE a > 5) PRINT 'none'
         DECLARE @n int = (SELECT COUNT(*) FROM t)
         PRINT @n
         SET @n = (SELECT MAX(a) FROM t)
         PRINT @n
         IF (SELECT COUNT(*) FROM t) > 0 PRINT 'rows'
         DECLARE @i int = 0
         WHILE @i < (SELECT COUNT(*) FROM t) SET @i = @i + 1
         PRINT @i",
    );
    assert_eq!(messages(&out), vec!["yes", "none", "3", "3", "rows", "3"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn information_schema_views_and_routines() {
    let (mut s, dir) = session("infoschema");
    ok(&mut s, "CREATE TABLE t (a int)");
    ok(&mut s, "CREATE VIEW v AS SELECT a FROM t WITH CHECK OPTION");
    ok(&mut s, "CREATE PROCEDURE p AS SELECT 1");
    ok(
        &mut s,
        "CREATE FUNCTION f (@x int) RETURNS int AS BEGIN RETURN @x END",
    );
    let out = ok(
        &mut s,
        "SELECT TABLE_SCHEMA, TABLE_NAME, CHECK_OPTION, IS_UPDATABLE FROM INFORMATION_SCHEMA.VIEWS",
    );
    assert_eq!(
        single(&out),
        vec![vec![
            Value::NVarChar("dbo".into()),
            Value::NVarChar("v".into()),
            Value::VarChar("CASCADE".into()),
            Value::VarChar("NO".into()),
        ]]
    );
    let out = ok(
        &mut s,
        "IF EXISTS (SELECT TABLE_NAME FROM INFORMATION_SCHEMA.VIEWS WHERE TABLE_NAME = 'v') DROP VIEW v
         SELECT COUNT(*) FROM INFORMATION_SCHEMA.VIEWS",
    );
    assert_eq!(single(&out), vec![vec![Value::Int(0)]]);
    let out = ok(
        &mut s,
        "SELECT ROUTINE_NAME, ROUTINE_TYPE, DATA_TYPE FROM INFORMATION_SCHEMA.ROUTINES ORDER BY ROUTINE_NAME",
    );
    assert_eq!(
        single(&out),
        vec![
            vec![
                Value::NVarChar("f".into()),
                Value::NVarChar("FUNCTION".into()),
                Value::NVarChar("int".into()),
            ],
            vec![
                Value::NVarChar("p".into()),
                Value::NVarChar("PROCEDURE".into()),
                Value::Null,
            ],
        ]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn indexes_and_alter_table_on_non_empty_tables() {
    let (mut s, dir) = session("index");
    ok(
        &mut s,
        "CREATE TABLE t1 (x int, y varchar(10))
         INSERT t1 VALUES (3, 'c'), (1, 'a'), (2, 'b')
         CREATE INDEX t1i1 ON t1(x)",
    );
    let out = ok(&mut s, "SELECT y FROM t1 WITH (INDEX(t1i1)) WHERE x = 2");
    assert_eq!(single(&out), vec![vec![Value::VarChar("b".into())]]);
    // Duplicates: 1505.
    ok(&mut s, "INSERT t1 VALUES (2, 'z')");
    let out = run(&mut s, "CREATE UNIQUE INDEX t1u ON t1(x)");
    assert_eq!(out.errors().first().map(|e| e.number), Some(1505));
    // Clustered index over an existing heap keeps every row and the nonclustered index.
    ok(&mut s, "CREATE CLUSTERED INDEX t1c ON t1(y)");
    let out = ok(&mut s, "SELECT x, y FROM t1 ORDER BY y");
    assert_eq!(single(&out).len(), 4);
    let out = ok(
        &mut s,
        "SELECT COUNT(*) FROM t1 WITH (INDEX(t1i1)) WHERE x = 2",
    );
    assert_eq!(single(&out), vec![vec![Value::Int(2)]]);
    // ADD / DROP COLUMN rewrite the rows.
    ok(&mut s, "ALTER TABLE t1 ADD z int NULL");
    let out = ok(&mut s, "SELECT COUNT(*) FROM t1 WHERE z IS NULL");
    assert_eq!(single(&out), vec![vec![Value::Int(4)]]);
    ok(&mut s, "ALTER TABLE t1 ADD w int NOT NULL DEFAULT 7");
    let out = ok(&mut s, "SELECT COUNT(*) FROM t1 WHERE w = 7");
    assert_eq!(single(&out), vec![vec![Value::Int(4)]]);
    let out = run(&mut s, "ALTER TABLE t1 ADD v int NOT NULL");
    assert_eq!(out.errors().first().map(|e| e.number), Some(4901));
    ok(&mut s, "UPDATE t1 SET z = x * 10");
    // x is indexed: the drop fails with 5074 and leaves the table intact.
    let out = run(&mut s, "ALTER TABLE t1 DROP COLUMN x");
    assert_eq!(out.errors().first().map(|e| e.number), Some(5074));
    let out = ok(&mut s, "SELECT SUM(z) FROM t1");
    assert_eq!(single(&out), vec![vec![Value::Int(80)]]);
    ok(
        &mut s,
        "DROP INDEX t1i1 ON t1\nALTER TABLE t1 DROP COLUMN x",
    );
    let out = ok(&mut s, "SELECT y, z FROM t1 WHERE y = 'c'");
    assert_eq!(
        single(&out),
        vec![vec![Value::VarChar("c".into()), Value::Int(30)]]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn delete_of_referenced_row_is_rejected() {
    let (mut s, dir) = session("fk");
    ok(
        &mut s,
        "CREATE TABLE parent (id int PRIMARY KEY)
         CREATE TABLE child (pid int CONSTRAINT fk_child FOREIGN KEY REFERENCES parent(id))
         INSERT parent VALUES (1), (2)
         INSERT child VALUES (1)",
    );
    let out = run(&mut s, "DELETE parent WHERE id = 1");
    let e = out.errors();
    assert_eq!(e.first().map(|e| e.number), Some(547), "{e:?}");
    assert!(e[0].message.starts_with(
        "The DELETE statement conflicted with the REFERENCE constraint \"fk_child\"."
    ));
    ok(&mut s, "DELETE parent WHERE id = 2");
    let out = ok(&mut s, "SELECT COUNT(*) FROM parent");
    assert_eq!(single(&out), vec![vec![Value::Int(1)]]);
    let _ = std::fs::remove_dir_all(&dir);
}
