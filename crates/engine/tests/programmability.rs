//! Engine-level tests of the programmability layer: sequence crash safety (sequence.rs S1),
//! plan-cache invalidation, procedure caching.

use std::sync::Arc;

use engine::{CollectSink, Engine, EngineConfig, Session};

fn engine(dir: &std::path::Path) -> Arc<Engine> {
    Engine::open(dir, EngineConfig::default()).expect("open engine")
}

fn run(s: &mut Session, sql: &str) -> CollectSink {
    let mut sink = CollectSink::default();
    s.execute_batch(sql, &mut sink);
    sink
}

fn tmpdir(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("latchkey-prog-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn sequence_high_water_mark_is_persisted_before_values_are_handed_out() {
    let dir = tmpdir("seq");
    let e = engine(&dir);
    let mut s = Session::new(e.clone());
    let out = run(
        &mut s,
        "CREATE SEQUENCE dbo.sq AS int START WITH 10 INCREMENT BY 5 CACHE 4",
    );
    assert!(out.errors().is_empty(), "{:?}", out.errors());
    let h = e.database("master").expect("master");
    let seq = match s
        .find_object(&catalog::QualifiedName::bare("sq"))
        .expect("lookup")
    {
        Some((_, catalog::SchemaObject::Sequence(q))) => q,
        _ => panic!("no sequence"),
    };
    let mut handed = Vec::new();
    for _ in 0..6 {
        let (v, _) = engine::sequence::next_values(&h, &seq, 1).expect("next");
        handed.push(v);
        // What a restart would load: the persisted row.
        let tree = h.store.catalog_btree().expect("tree");
        let cat = engine::dbcat::DbCatalog::load("master", 1, &tree).expect("load");
        let persisted = cat
            .objects
            .values()
            .find_map(|o| match o {
                catalog::SchemaObject::Sequence(q) if q.object_id == seq.object_id => q.current,
                _ => None,
            })
            .expect("persisted mark");
        assert!(
            persisted >= v,
            "value {v} handed out beyond persisted mark {persisted}"
        );
    }
    assert_eq!(handed, vec![10, 15, 20, 25, 30, 35]);
    let (first, last) = engine::sequence::next_values(&h, &seq, 3).expect("range");
    assert_eq!((first, last), (40, 50));
    drop(s);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cached_plans_follow_schema_changes() {
    let dir = tmpdir("plans");
    let e = engine(&dir);
    let mut s = Session::new(e);
    let out = run(
        &mut s,
        "CREATE TABLE t (a int)
         INSERT t VALUES (1)
         DECLARE @i int = 0
         WHILE @i < 3
         BEGIN
             IF @i = 1 BEGIN DROP TABLE t; CREATE TABLE t (a int, b int) END
             SELECT * FROM t
             SET @i = @i + 1
         END",
    );
    assert!(out.errors().is_empty(), "{:?}", out.errors());
    let widths: Vec<usize> = out
        .events
        .iter()
        .filter_map(|e| match e {
            engine::Event::ResultSet { columns, .. } => Some(columns.len()),
            _ => None,
        })
        .collect();
    assert_eq!(widths, vec![1, 2, 2]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn statistics_messages_have_sql_server_format() {
    let dir = tmpdir("stats");
    let e = engine(&dir);
    let mut s = Session::new(e);
    let out = run(
        &mut s,
        "CREATE TABLE st (a int PRIMARY KEY)
         INSERT st VALUES (1), (2)
         SET STATISTICS IO, TIME ON
         SELECT a FROM st WHERE a = 2",
        // a seek of one value on a unique key is "Scan count 0" in SQL Server
    );
    assert!(out.errors().is_empty(), "{:?}", out.errors());
    let msgs: Vec<String> = out
        .events
        .iter()
        .filter_map(|e| match e {
            engine::Event::Message(m) => Some(m.text.clone()),
            _ => None,
        })
        .collect();
    let io = msgs
        .iter()
        .find(|m| m.starts_with("Table 'st'. Scan count 0, logical reads "))
        .unwrap_or_else(|| panic!("no IO line in {msgs:?}"));
    assert!(
        io.contains(", physical reads ") && io.ends_with("lob page server read-ahead reads 0.")
    );
    let time = msgs
        .iter()
        .find(|m| m.starts_with("\n SQL Server Execution Times:\n   CPU time = "))
        .unwrap_or_else(|| panic!("no TIME message in {msgs:?}"));
    assert!(time.contains(" ms,  elapsed time = ") && time.ends_with(" ms."));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn procedure_loop_runs_from_cached_program() {
    let dir = tmpdir("loop");
    let e = engine(&dir);
    let mut s = Session::new(e);
    let out = run(
        &mut s,
        "CREATE PROCEDURE #p @n int, @r bigint OUTPUT AS
         BEGIN
             SET NOCOUNT ON
             DECLARE @i bigint = 0
             WHILE @i < @n SET @i += 1
             SET @r = @i
         END",
    );
    assert!(out.errors().is_empty(), "{:?}", out.errors());
    for n in [0, 1, 20000] {
        let out = run(
            &mut s,
            &format!("DECLARE @r bigint EXEC #p {n}, @r OUTPUT SELECT @r AS r"),
        );
        assert!(out.errors().is_empty(), "{:?}", out.errors());
        assert_eq!(
            out.result_sets()[0][0][0],
            types::Value::BigInt(n),
            "loop of {n}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
