//! Damaged user databases inside one engine (storage README "Open-time checks", engine
//! dbstate.rs / repair.rs): the engine starts, the database is RECOVERY_PENDING, using it is
//! Msg 945; SINGLE_USER keeps other sessions out (Msg 924); the explicit way out
//! (EMERGENCY, SINGLE_USER, DBCC CHECKDB REPAIR_ALLOW_DATA_LOSS) brings it back ONLINE.

use std::sync::Arc;

use engine::{CollectSink, Engine, EngineConfig, Session};

fn run(s: &mut Session, sql: &str) -> CollectSink {
    let mut sink = CollectSink::default();
    s.execute_batch(sql, &mut sink);
    sink
}

/// A temporary directory removed on drop.
struct Dir(std::path::PathBuf);
impl Dir {
    fn path(&self) -> &std::path::Path {
        &self.0
    }
}
impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn error_numbers(out: &CollectSink) -> Vec<i32> {
    out.errors().iter().map(|e| e.number).collect()
}

#[test]
fn single_user_and_the_way_out() {
    let dir = std::env::temp_dir().join(format!("latchkey-damaged-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let dir = Dir(dir);
    {
        let e = Engine::open(dir.path(), EngineConfig::default()).unwrap();
        let mut s = Session::new(e);
        let out = run(&mut s, "CREATE DATABASE x");
        assert!(out.errors().is_empty());
        let out = run(
            &mut s,
            "USE x; CREATE TABLE t(a int); INSERT t VALUES (1),(2),(3)",
        );
        assert!(out.errors().is_empty(), "{:?}", out.errors());
    }
    std::fs::remove_file(dir.path().join("db_5/log.ldf")).unwrap();
    let e: Arc<Engine> = Engine::open(dir.path(), EngineConfig::default()).unwrap();
    let mut a = Session::new(e.clone());
    let mut b = Session::new(e);
    assert_eq!(
        error_numbers(&run(&mut a, "SELECT * FROM x.dbo.t")),
        vec![945]
    );
    // DBCC CHECKDB ... REPAIR needs SINGLE_USER
    let out = run(&mut a, "DBCC CHECKDB (x, REPAIR_ALLOW_DATA_LOSS)");
    assert_eq!(error_numbers(&out), vec![7919]);
    assert!(run(&mut a, "ALTER DATABASE x SET EMERGENCY")
        .errors()
        .is_empty());
    assert!(run(&mut a, "ALTER DATABASE x SET SINGLE_USER")
        .errors()
        .is_empty());
    assert_eq!(
        error_numbers(&run(&mut b, "SELECT * FROM x.dbo.t")),
        vec![924]
    );
    assert_eq!(
        error_numbers(&run(&mut a, "INSERT x.dbo.t VALUES (4)")),
        vec![3906]
    );
    let out = run(&mut a, "DBCC CHECKDB (x, REPAIR_ALLOW_DATA_LOSS)");
    assert!(out.errors().is_empty(), "{:?}", out.errors());
    assert!(run(&mut a, "ALTER DATABASE x SET MULTI_USER")
        .errors()
        .is_empty());
    let out = run(
        &mut b,
        "INSERT x.dbo.t VALUES (4); SELECT COUNT(*) FROM x.dbo.t",
    );
    assert!(out.errors().is_empty(), "{:?}", out.errors());
    let rows = out.result_sets().last().unwrap().to_vec();
    assert_eq!(rows, vec![vec![types::Value::Int(4)]]);
}

/// A restored file brings the database back with `ALTER DATABASE x SET ONLINE`, no restart;
/// a damaged one can be dropped.
#[test]
fn set_online_after_restore_and_drop_of_a_damaged_database() {
    let dir = Dir(std::env::temp_dir().join(format!("latchkey-online-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(dir.path());
    {
        let e = Engine::open(dir.path(), EngineConfig::default()).unwrap();
        let mut s = Session::new(e);
        let out = run(&mut s, "CREATE DATABASE x\nCREATE DATABASE y");
        assert!(out.errors().is_empty(), "{:?}", out.errors());
        let out = run(
            &mut s,
            "USE x; CREATE TABLE t(a int); INSERT t VALUES (1),(2)",
        );
        assert!(out.errors().is_empty(), "{:?}", out.errors());
    }
    let log = dir.path().join("db_5/log.ldf");
    let saved = std::fs::read(&log).unwrap();
    std::fs::remove_file(&log).unwrap();
    std::fs::remove_file(dir.path().join("db_6/data1.mdf")).unwrap();
    let e: Arc<Engine> = Engine::open(dir.path(), EngineConfig::default()).unwrap();
    let mut s = Session::new(e);
    assert_eq!(error_numbers(&run(&mut s, "USE x")), vec![945]);
    // still missing: SET ONLINE fails and the database stays RECOVERY_PENDING
    assert_eq!(
        error_numbers(&run(&mut s, "ALTER DATABASE x SET ONLINE")),
        vec![5120]
    );
    std::fs::write(&log, saved).unwrap();
    assert!(run(&mut s, "ALTER DATABASE x SET ONLINE")
        .errors()
        .is_empty());
    let out = run(&mut s, "SELECT COUNT(*) FROM x.dbo.t");
    assert_eq!(
        out.result_sets().last().unwrap().to_vec(),
        vec![vec![types::Value::Int(2)]]
    );
    // a damaged database can be dropped; its id is not reused while it is registered
    let out = run(&mut s, "CREATE DATABASE z; SELECT DB_ID('z')");
    assert!(out.errors().is_empty(), "{:?}", out.errors());
    assert_eq!(
        out.result_sets().last().unwrap().to_vec(),
        vec![vec![types::Value::SmallInt(7)]]
    );
    assert!(run(&mut s, "DROP DATABASE y").errors().is_empty());
    assert!(!dir.path().join("db_6").exists());
}
