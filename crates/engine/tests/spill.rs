//! Operator memory budget: `EngineConfig::operator_memory_bytes` makes sorts / hash joins /
//! hash aggregates spill to `<data_dir>/tempdb/workfiles`, which is empty again after each
//! statement and recreated at every start.

use std::sync::Arc;

use engine::{CollectSink, Engine, EngineConfig, Session};
use types::Value;

fn run(s: &mut Session, sql: &str) -> Vec<Vec<Value>> {
    let mut sink = CollectSink::default();
    s.execute_batch(sql, &mut sink);
    assert!(sink.errors().is_empty(), "{sql}: {:?}", sink.errors());
    sink.result_sets()
        .last()
        .map(|r| (*r).clone())
        .unwrap_or_default()
}

fn open(dir: &std::path::Path, budget: Option<usize>) -> Session {
    let config = EngineConfig {
        operator_memory_bytes: budget,
        ..EngineConfig::default()
    };
    let e: Arc<Engine> = Engine::open(dir, config).expect("open engine");
    Session::new(e)
}

#[test]
fn tiny_budget_spills_to_tempdb_workfiles_with_same_results() {
    let dir = std::env::temp_dir().join(format!("latchkey-spill-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let setup = "SET NOCOUNT ON
        CREATE TABLE t (k int, v int, s varchar(20));
        WITH d AS (SELECT i FROM (VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)) v(i)),
             n AS (SELECT a.i * 1000 + b.i * 100 + c.i * 10 + e.i AS i
                   FROM d a, d b, d c, d e WHERE a.i < 4)
        INSERT t SELECT CASE WHEN i % 29 = 0 THEN NULL ELSE i % 500 END, i * 37 % 1000,
                        'x' + CAST(i % 90 AS varchar(10))
        FROM n";
    let queries = [
        "SELECT k, v, s FROM t ORDER BY s, v DESC, k",
        "SELECT a.k, a.v, b.v FROM t a JOIN t b ON a.k = b.k AND a.v < b.v ORDER BY 1, 2, 3",
        "SELECT k, COUNT(*), SUM(v), MIN(s) FROM t GROUP BY k ORDER BY k",
    ];
    let mut s = open(&dir, None);
    run(&mut s, "CREATE DATABASE sp");
    run(&mut s, "USE sp");
    run(&mut s, setup);
    let expected: Vec<_> = queries.iter().map(|q| run(&mut s, q)).collect();
    drop(s);
    let work = dir.join("tempdb").join("workfiles");
    let mut s = open(&dir, Some(32 << 10));
    run(&mut s, "USE sp");
    assert!(!work.exists(), "tempdb is recreated at start");
    for (q, exp) in queries.iter().zip(&expected) {
        assert!(!exp.is_empty());
        assert_eq!(&run(&mut s, q), exp, "{q}");
        assert!(work.exists(), "did not spill: {q}");
        assert_eq!(std::fs::read_dir(&work).expect("dir").count(), 0, "{q}");
    }
    drop(s);
    let _ = std::fs::remove_dir_all(&dir);
}
