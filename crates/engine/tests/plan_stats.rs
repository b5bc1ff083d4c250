//! The engine-wide plan registry (engine/src/plan_stats.rs): sys.dm_exec_query_stats counters
//! shared by sessions running the same text, and the statistics-changed recompile of a cached
//! plan in one session when another session's work changed the statistics it was built from.

use engine::{CollectSink, Engine, EngineConfig, Session};
use types::Value;

// These tests count recompiles and run in parallel: schema generations are per database
// (engine/src/schema_gen.rs), so a neighbouring test's CREATE TABLE does not recompile them.

fn engine(tag: &str) -> (std::sync::Arc<Engine>, std::path::PathBuf) {
    let d = std::env::temp_dir().join(format!("latchkey-ps-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    let e = Engine::open(&d, EngineConfig::default()).expect("open engine");
    (e, d)
}

fn run(s: &mut Session, sql: &str) -> CollectSink {
    let mut sink = CollectSink::default();
    s.execute_batch(sql, &mut sink);
    assert!(sink.errors().is_empty(), "{sql}: {:?}", sink.errors());
    sink
}

const QUERY: &str = "SELECT COUNT(*) FROM t WHERE g = 5";

/// (plan_generation_num, execution_count) of QUERY's statement, from a third session.
fn generation_and_count(monitor: &mut Session) -> (i64, i64) {
    let out = run(
        monitor,
        "SELECT qs.plan_generation_num, qs.execution_count FROM sys.dm_exec_query_stats AS qs \
         CROSS APPLY sys.dm_exec_sql_text(qs.sql_handle) AS st \
         WHERE st.text = N'SELECT COUNT(*) FROM t WHERE g = 5'",
    );
    let rows = &out.result_sets()[0];
    assert_eq!(rows.len(), 1, "one row for the statement: {rows:?}");
    match (&rows[0][0], &rows[0][1]) {
        (Value::BigInt(g), Value::BigInt(c)) => (*g, *c),
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn two_sessions_share_the_statement_row() {
    let (e, dir) = engine("share");
    let mut a = Session::new(e.clone());
    let mut b = Session::new(e.clone());
    let mut m = Session::new(e.clone());
    run(
        &mut a,
        "CREATE TABLE t (id int PRIMARY KEY, g int); INSERT t VALUES (1, 5), (2, 6)",
    );
    run(&mut a, QUERY);
    run(&mut b, QUERY);
    run(&mut a, QUERY);
    assert_eq!(generation_and_count(&mut m), (1, 3));
    drop((a, b, m));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn statistics_changed_in_another_session_recompile_the_cached_plan() {
    let (e, dir) = engine("recompile");
    let mut a = Session::new(e.clone());
    let mut b = Session::new(e.clone());
    let mut m = Session::new(e.clone());
    run(
        &mut a,
        "CREATE TABLE t (id int PRIMARY KEY, g int); \
         INSERT t SELECT number, number % 10 FROM master.dbo.spt_values WHERE type = 'P' AND number < 1000",
    );
    run(&mut a, QUERY); // compiles; auto-creates the statistics on g
    run(&mut a, QUERY); // cached
    assert_eq!(generation_and_count(&mut m), (1, 2));

    // Manual: UPDATE STATISTICS in session b.
    run(&mut b, "UPDATE STATISTICS t WITH FULLSCAN");
    run(&mut a, QUERY);
    assert_eq!(
        generation_and_count(&mut m),
        (2, 1),
        "recompiled after UPDATE STATISTICS; counters since that compile"
    );

    // Automatic: session b modifies past the threshold (MIN(500 + 20%, SQRT(1000 n)) = 700 of
    // 1,000 rows) and compiles another query on g, which updates g's statistics itself (no
    // schema change). Session a's cached plan used those statistics: it recompiles.
    run(
        &mut b,
        "INSERT t SELECT 1000 + number, 5 FROM master.dbo.spt_values WHERE type = 'P' AND number < 2000",
    );
    run(&mut b, "SELECT COUNT(*) FROM t WHERE g = 7");
    run(&mut a, QUERY);
    assert_eq!(generation_and_count(&mut m), (3, 1));

    // Nothing changed since: the plan is reused.
    run(&mut a, QUERY);
    assert_eq!(generation_and_count(&mut m), (3, 2));
    drop((a, b, m));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn statistics_of_another_table_do_not_recompile() {
    let (e, dir) = engine("other");
    let mut a = Session::new(e.clone());
    let mut m = Session::new(e.clone());
    run(
        &mut a,
        "CREATE TABLE t (id int PRIMARY KEY, g int); CREATE TABLE u (id int PRIMARY KEY, h int); \
         INSERT t VALUES (1, 5), (2, 6); INSERT u VALUES (1, 1)",
    );
    run(&mut a, QUERY);
    // an automatic statistics build on u (no schema change)
    run(&mut m, "SELECT COUNT(*) FROM u WHERE h = 1");
    run(&mut a, QUERY);
    assert_eq!(generation_and_count(&mut m), (1, 2));
    drop((a, m));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn modifications_past_the_threshold_recompile_and_update_the_statistics() {
    let (e, dir) = engine("threshold");
    let mut a = Session::new(e.clone());
    let mut m = Session::new(e.clone());
    run(
        &mut a,
        "CREATE TABLE t (id int PRIMARY KEY, g int); \
         INSERT t SELECT number, number % 10 FROM master.dbo.spt_values WHERE type = 'P' AND number < 1000",
    );
    run(&mut a, QUERY);
    run(&mut a, QUERY);
    assert_eq!(generation_and_count(&mut m), (1, 2));
    // 600 changes of 1,000 rows: under MIN(500 + 200, SQRT(1,000,000)) = 700, the plan stays
    run(
        &mut a,
        "INSERT t SELECT 1000 + number, 5 FROM master.dbo.spt_values WHERE type = 'P' AND number < 600",
    );
    run(&mut a, QUERY);
    assert_eq!(generation_and_count(&mut m), (1, 3));
    // 200 more: past it. Nobody else compiles anything on t: the cached plan itself notices,
    // recompiles, and that compile updates the statistics (rows 1,800)
    run(
        &mut a,
        "INSERT t SELECT 1600 + number, 5 FROM master.dbo.spt_values WHERE type = 'P' AND number < 200",
    );
    run(&mut a, QUERY);
    assert_eq!(generation_and_count(&mut m), (2, 1));
    let out = run(
        &mut m,
        "SELECT MAX(p.rows) FROM sys.stats s CROSS APPLY sys.dm_db_stats_properties(s.object_id, s.stats_id) p \
         WHERE s.object_id = OBJECT_ID('t') AND s.auto_created = 1",
    );
    assert_eq!(out.result_sets()[0][0][0], Value::BigInt(1800));
    run(&mut a, QUERY);
    assert_eq!(generation_and_count(&mut m), (2, 2));
    drop((a, m));
    let _ = std::fs::remove_dir_all(dir);
}
