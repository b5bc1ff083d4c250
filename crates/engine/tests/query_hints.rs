//! `OPTION (MIN_GRANT_PERCENT = p)` is a floor under the operator memory grant: with
//! `MAX_GRANT_PERCENT = 0` alone a window query spills to tempdb work files; with a minimum of
//! 100 percent beside it, it runs in memory with the same rows. (The other query hints are in
//! the golden tests `tests/sql/noops/inventory.sql` and `query_hints.sql`.)

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

/// A fresh data directory, removed when dropped.
struct TempDir(std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn min_grant_percent_is_a_floor_under_max_grant_percent() {
    let dir = std::env::temp_dir().join(format!("latchkey-min-grant-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let dir = TempDir(dir);
    let e: Arc<Engine> = Engine::open(&dir.0, EngineConfig::default()).expect("open engine");
    let mut s = Session::new(e);
    run(
        &mut s,
        "SET NOCOUNT ON
         CREATE TABLE t (k int, g int, v int, s varchar(40));
         INSERT t SELECT value, value % 3, value * 37 % 1000, REPLICATE('x', value % 40)
         FROM GENERATE_SERIES(1, 6000)",
    );
    let work = dir.0.join("tempdb").join("workfiles");
    let q = "SELECT k, ROW_NUMBER() OVER (PARTITION BY g ORDER BY v, k), \
             RANK() OVER (ORDER BY s) FROM t ORDER BY k";
    let mem = run(&mut s, q);
    assert_eq!(mem.len(), 6000);
    assert!(!work.exists(), "spilled with the whole budget");

    let floor = run(
        &mut s,
        &format!("{q} OPTION (MAX_GRANT_PERCENT = 0, MIN_GRANT_PERCENT = 100)"),
    );
    assert!(!work.exists(), "MIN_GRANT_PERCENT = 100 still spilled");
    assert_eq!(mem, floor);

    let small = run(&mut s, &format!("{q} OPTION (MAX_GRANT_PERCENT = 0)"));
    assert!(work.exists(), "MAX_GRANT_PERCENT = 0 alone did not spill");
    assert_eq!(mem, small);
}
