//! The session plan cache (engine/src/plan_cache.rs): reuse by exact text and parameter types,
//! invalidation by schema changes, keyed by database.

use engine::{CollectSink, Engine, EngineConfig, Session};
use types::{DataType, Value};

// The tests run in parallel: schema generations are per database (engine/src/schema_gen.rs),
// so a neighbouring test's CREATE TABLE in its own engine does not recompile these plans.

fn session(tag: &str) -> (Session, std::path::PathBuf) {
    let d = std::env::temp_dir().join(format!("latchkey-pc-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    let e = Engine::open(&d, EngineConfig::default()).expect("open engine");
    (Session::new(e), d)
}

fn run(s: &mut Session, sql: &str) -> CollectSink {
    let mut sink = CollectSink::default();
    s.execute_batch(sql, &mut sink);
    assert!(sink.errors().is_empty(), "{sql}: {:?}", sink.errors());
    sink
}

fn first_value(sink: &CollectSink) -> Value {
    sink.result_sets()[0][0][0].clone()
}

#[test]
fn repeated_batch_text_reuses_the_compiled_program() {
    let (mut s, dir) = session("reuse");
    run(
        &mut s,
        "CREATE TABLE t (id int PRIMARY KEY, b int); INSERT t VALUES (1, 10), (2, 20)",
    );
    let (_, hits0, _) = s.plan_cache_stats();
    for _ in 0..3 {
        let out = run(&mut s, "SELECT b FROM t WHERE id = 2");
        assert_eq!(first_value(&out), Value::Int(20));
    }
    let (entries, hits, _) = s.plan_cache_stats();
    assert!(entries >= 1);
    assert_eq!(hits - hits0, 2, "the 2nd and 3rd run must be hits");
    drop(s);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn schema_change_invalidates_a_cached_batch() {
    let (mut s, dir) = session("schema");
    run(&mut s, "CREATE TABLE t (a int); INSERT t VALUES (1)");
    let out = run(&mut s, "SELECT * FROM t");
    assert_eq!(out.result_sets()[0][0].len(), 1);
    run(&mut s, "ALTER TABLE t ADD c int NULL");
    let out = run(&mut s, "SELECT * FROM t");
    assert_eq!(
        out.result_sets()[0][0].len(),
        2,
        "SELECT * must see the new column"
    );
    drop(s);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn the_current_database_is_part_of_the_key() {
    let (mut s, dir) = session("database");
    run(&mut s, "CREATE DATABASE pc1");
    run(&mut s, "CREATE DATABASE pc2");
    run(
        &mut s,
        "USE pc1; CREATE TABLE t (a int); INSERT t VALUES (1)",
    );
    run(
        &mut s,
        "USE pc2; CREATE TABLE t (a int); INSERT t VALUES (2)",
    );
    let q = "SELECT a FROM t";
    run(&mut s, "USE pc1");
    assert_eq!(first_value(&run(&mut s, q)), Value::Int(1));
    run(&mut s, "USE pc2");
    assert_eq!(first_value(&run(&mut s, q)), Value::Int(2));
    run(&mut s, "USE pc1");
    assert_eq!(first_value(&run(&mut s, q)), Value::Int(1));
    drop(s);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn parameterized_calls_share_one_program_and_return_outputs() {
    let (mut s, dir) = session("params");
    run(
        &mut s,
        "CREATE TABLE t (id int PRIMARY KEY, b int); INSERT t VALUES (1, 10), (2, 20), (3, 30)",
    );
    let text = "SELECT @out = b FROM t WHERE id = @id";
    let (_, hits0, _) = s.plan_cache_stats();
    for id in 1..=3 {
        let mut sink = CollectSink::default();
        let out = s.execute_parameterized(
            text,
            vec![
                ("@id".into(), DataType::Int, Value::Int(id)),
                ("@out".into(), DataType::Int, Value::Null),
            ],
            &mut sink,
        );
        assert!(sink.errors().is_empty(), "{:?}", sink.errors());
        assert_eq!(out[1], Value::Int(id * 10));
    }
    let (_, hits, _) = s.plan_cache_stats();
    assert_eq!(hits - hits0, 2);
    // Another parameter type is another entry, with its own conversion.
    let mut sink = CollectSink::default();
    let out = s.execute_parameterized(
        text,
        vec![
            ("@id".into(), DataType::BigInt, Value::BigInt(2)),
            ("@out".into(), DataType::VarChar(Some(10)), Value::Null),
        ],
        &mut sink,
    );
    assert!(sink.errors().is_empty(), "{:?}", sink.errors());
    assert_eq!(out[1], Value::VarChar("20".into()));
    drop(s);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn errors_in_a_parameterized_call_are_reported_not_cached_as_success() {
    let (mut s, dir) = session("errors");
    let mut sink = CollectSink::default();
    s.execute_parameterized(
        "SELECT 1 / @d",
        vec![("@d".into(), DataType::Int, Value::Int(0))],
        &mut sink,
    );
    assert_eq!(sink.errors().first().map(|e| e.number), Some(8134));
    let mut sink = CollectSink::default();
    s.execute_parameterized(
        "SELECT 1 / @d",
        vec![("@d".into(), DataType::Int, Value::Int(1))],
        &mut sink,
    );
    assert!(sink.errors().is_empty());
    drop(s);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_full_cache_evicts_old_entries_and_keeps_working() {
    let (mut s, dir) = session("evict");
    run(
        &mut s,
        "CREATE TABLE t (id int PRIMARY KEY, b int); INSERT t VALUES (1, 10)",
    );
    for i in 0..1200 {
        let out = run(&mut s, &format!("SELECT b + {i} FROM t WHERE id = 1"));
        assert_eq!(first_value(&out), Value::Int(10 + i));
    }
    let (entries, _, _) = s.plan_cache_stats();
    assert!(entries <= 512, "cache must stay bounded, has {entries}");
    // The most recent text is still cached.
    let (_, hits0, _) = s.plan_cache_stats();
    run(&mut s, "SELECT b + 1199 FROM t WHERE id = 1");
    assert_eq!(s.plan_cache_stats().1, hits0 + 1);
    drop(s);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn another_session_logging_in_keeps_this_sessions_plans() {
    let (mut s, dir) = session("login");
    run(
        &mut s,
        "CREATE TABLE t (id int PRIMARY KEY, b int); INSERT t VALUES (1, 10);
         CREATE LOGIN pc_user WITH PASSWORD = 'Str0ng!Passw0rd', CHECK_POLICY = OFF",
    );
    run(&mut s, "SELECT b FROM t WHERE id = 1");
    let (_, hits0, _) = s.plan_cache_stats();
    // a login only concerns the session that logs in: plans of other sessions stay valid
    let auth = s
        .engine()
        .authenticate("pc_user", "Str0ng!Passw0rd")
        .expect("login");
    let other = Session::for_login(s.engine().clone(), &auth).expect("session");
    let out = run(&mut s, "SELECT b FROM t WHERE id = 1");
    assert_eq!(first_value(&out), Value::Int(10));
    let (_, hits, _) = s.plan_cache_stats();
    assert_eq!(
        hits - hits0,
        1,
        "the cached plan must survive another session's login"
    );
    drop(other);
    drop(s);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn logging_in_drops_the_sessions_own_plans() {
    let (mut s, dir) = session("relogin");
    run(
        &mut s,
        "CREATE TABLE t (id int PRIMARY KEY, b int); INSERT t VALUES (1, 10);
         CREATE LOGIN pc_low WITH PASSWORD = 'Str0ng!Passw0rd', CHECK_POLICY = OFF",
    );
    run(&mut s, "SELECT b FROM t WHERE id = 1");
    let auth = s
        .engine()
        .authenticate("pc_low", "Str0ng!Passw0rd")
        .expect("login");
    s.set_authenticated_login(&auth).expect("login");
    // the plan bound (and permission-checked) as sysadmin must not run for pc_low
    let mut sink = CollectSink::default();
    s.execute_batch("SELECT b FROM t WHERE id = 1", &mut sink);
    assert_eq!(
        sink.errors().first().map(|e| e.number),
        Some(229),
        "{:?}",
        sink.errors()
    );
    drop(s);
    let _ = std::fs::remove_dir_all(dir);
}

/// (hits, misses) added by running `sql` once.
fn hits_and_misses_of(s: &mut Session, sql: &str) -> (u64, u64) {
    let (_, h0, m0) = s.plan_cache_stats();
    run(s, sql);
    let (_, h1, m1) = s.plan_cache_stats();
    (h1 - h0, m1 - m0)
}

#[test]
fn ddl_in_another_database_keeps_the_cached_plans() {
    let (mut a, dir) = session("otherdb");
    run(&mut a, "CREATE DATABASE pc_a; CREATE DATABASE pc_b");
    run(
        &mut a,
        "USE pc_a; CREATE TABLE t (id int PRIMARY KEY, b int); INSERT t VALUES (1, 10)",
    );
    let q = "SELECT b FROM t WHERE id = 1";
    run(&mut a, q);
    let mut b = Session::new(a.engine().clone());
    run(
        &mut b,
        "USE pc_b; CREATE TABLE u (x int); ALTER TABLE u ADD y int NULL; DROP TABLE u",
    );
    assert_eq!(
        hits_and_misses_of(&mut a, q),
        (1, 0),
        "DDL in pc_b must not recompile a plan of pc_a"
    );
    // DDL in pc_a (by the other session) does
    run(&mut b, "USE pc_a; CREATE TABLE v (x int)");
    assert_eq!(hits_and_misses_of(&mut a, q), (0, 1));
    assert_eq!(hits_and_misses_of(&mut a, q), (1, 0));
    drop((a, b));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn another_sessions_alter_is_seen_by_a_cached_plan() {
    let (mut a, dir) = session("alter2");
    run(&mut a, "CREATE TABLE t (a int); INSERT t VALUES (1)");
    let q = "SELECT * FROM t";
    assert_eq!(run(&mut a, q).result_sets()[0][0].len(), 1);
    let mut b = Session::new(a.engine().clone());
    run(&mut b, "ALTER TABLE t ADD c int NULL");
    assert_eq!(
        run(&mut a, q).result_sets()[0][0].len(),
        2,
        "the cached SELECT * must be re-bound after another session's ALTER"
    );
    drop((a, b));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn another_sessions_use_and_set_options_keep_this_sessions_plans() {
    let (mut a, dir) = session("localchanges");
    run(
        &mut a,
        "CREATE DATABASE pc_c; CREATE TABLE t (id int PRIMARY KEY, b int)",
    );
    let q = "SELECT b FROM t WHERE id = 1";
    run(&mut a, q);
    let mut b = Session::new(a.engine().clone());
    run(
        &mut b,
        "USE pc_c; SET ANSI_NULLS OFF; SET CONCAT_NULL_YIELDS_NULL OFF; \
         SET TRANSACTION ISOLATION LEVEL SERIALIZABLE",
    );
    assert_eq!(hits_and_misses_of(&mut a, q), (1, 0));
    drop((a, b));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn the_isolation_level_is_part_of_the_key() {
    let (mut s, dir) = session("isolation");
    run(
        &mut s,
        "CREATE TABLE t (id int PRIMARY KEY, b int); INSERT t VALUES (1, 10)",
    );
    let q = "SELECT b FROM t WHERE id = 1";
    run(&mut s, q);
    assert_eq!(hits_and_misses_of(&mut s, q), (1, 0));
    run(&mut s, "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
    assert_eq!(
        hits_and_misses_of(&mut s, q),
        (0, 1),
        "a plan compiled under READ COMMITTED must not serve REPEATABLE READ"
    );
    assert_eq!(hits_and_misses_of(&mut s, q), (1, 0));
    run(&mut s, "SET TRANSACTION ISOLATION LEVEL READ COMMITTED");
    assert_eq!(
        hits_and_misses_of(&mut s, q),
        (1, 0),
        "the READ COMMITTED entry is still there"
    );
    drop(s);
    let _ = std::fs::remove_dir_all(dir);
}

/// The CI failure the old process-wide generation caused: another engine in the same process
/// creating tables (a neighbouring test) while this session counts its hits.
#[test]
fn ddl_in_another_engine_of_the_process_keeps_the_cached_plans() {
    let (mut s, dir) = session("neighbour");
    run(
        &mut s,
        "CREATE TABLE t (id int PRIMARY KEY, b int); INSERT t VALUES (1, 10)",
    );
    let q = "SELECT b FROM t WHERE id = 1";
    run(&mut s, q);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let neighbour = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let (mut n, ndir) = session("neighbour-ddl");
            let mut i = 0;
            // at least a few rounds, then until the counting side is done
            while i < 5 || !stop.load(std::sync::atomic::Ordering::Relaxed) {
                run(&mut n, &format!("CREATE TABLE n{i} (a int)"));
                i += 1;
            }
            drop(n);
            let _ = std::fs::remove_dir_all(ndir);
            i
        })
    };
    let mut hits = 0;
    for _ in 0..50 {
        hits += hits_and_misses_of(&mut s, q).0;
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let rounds = neighbour.join().expect("neighbour thread");
    assert!(rounds >= 5);
    assert_eq!(
        hits, 50,
        "every run is a hit whatever the other engine does"
    );
    drop(s);
    let _ = std::fs::remove_dir_all(dir);
}
