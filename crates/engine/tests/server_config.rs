//! Server configuration that changes what the engine does (config.rs): `max server memory
//! (MB)` caps the buffer pool of every database opened at the next start (not dynamic: the
//! running pools keep their size until then), and `latchkey storage read latency (ms)` is
//! applied to the open databases at RECONFIGURE and to every database at the next start.

mod support;

use std::sync::Arc;

use engine::{Engine, EngineConfig, Session};
use support::{run, TempDir};
use types::Value;

fn pool_of(e: &Engine, db: &str) -> usize {
    e.database(db)
        .expect("open database")
        .store
        .buffer_pool_bytes()
}

fn stall(s: &mut Session) -> i64 {
    let rows = run(
        s,
        "SELECT SUM(io_stall_read_ms) FROM sys.dm_io_virtual_file_stats(DB_ID('c'), NULL)",
    );
    match rows.first().and_then(|r| r.first()) {
        Some(Value::BigInt(n)) => *n,
        other => panic!("{other:?}"),
    }
}

#[test]
fn max_server_memory_caps_pools_at_next_start_and_latency_applies_at_reconfigure() {
    let dir = TempDir::new("server-config");
    {
        let e: Arc<Engine> = Engine::open(dir.path(), EngineConfig::default()).unwrap();
        let mut s = Session::new(e.clone());
        run(&mut s, "CREATE DATABASE c");
        run(&mut s, "USE c; CREATE TABLE t (a int PRIMARY KEY, pad char(2000)); INSERT INTO t SELECT value, 'x' FROM GENERATE_SERIES(1, 200);");
        let default = storage::default_pool_bytes();
        assert!(default >= 256 << 20);
        assert_eq!(
            pool_of(&e, "c"),
            default,
            "the default pool: half the memory"
        );
        run(
            &mut s,
            "EXEC sp_configure 'show advanced options', 1; RECONFIGURE; \
             EXEC sp_configure 'max server memory (MB)', 128; RECONFIGURE;",
        );
        assert_eq!(
            pool_of(&e, "c"),
            default,
            "not dynamic: the open pool keeps its size"
        );
        // the read latency applies at once to the open database
        run(
            &mut s,
            "EXEC sp_configure 'latchkey storage read latency (ms)', 20; RECONFIGURE;",
        );
        run(&mut s, "CHECKPOINT; DBCC DROPCLEANBUFFERS;");
        let before = stall(&mut s);
        run(&mut s, "USE c; SELECT COUNT(*) FROM t WHERE pad <> '';");
        assert!(
            stall(&mut s) - before >= 20,
            "reads stalled by the new latency"
        );
    }
    let e: Arc<Engine> = Engine::open(dir.path(), EngineConfig::default()).unwrap();
    assert_eq!(pool_of(&e, "c"), 128 << 20, "capped at the next start");
    assert_eq!(pool_of(&e, "tempdb"), 128 << 20);
    let mut s = Session::new(e.clone());
    let rows = run(
        &mut s,
        "SELECT value_in_use FROM sys.configurations WHERE configuration_id IN (1544, 90001) ORDER BY configuration_id",
    );
    assert_eq!(rows, vec![vec![Value::Int(128)], vec![Value::Int(20)]]);
    // --io-latency-ms overrides the stored latency for one run
    drop(s);
    drop(e);
    let e = Engine::open(
        dir.path(),
        EngineConfig {
            read_latency_ms: Some(0),
            ..EngineConfig::default()
        },
    )
    .unwrap();
    let mut s = Session::new(e);
    let rows = run(
        &mut s,
        "SELECT value, value_in_use FROM sys.configurations WHERE configuration_id = 90001",
    );
    assert_eq!(rows, vec![vec![Value::Int(20), Value::Int(0)]]);
}
