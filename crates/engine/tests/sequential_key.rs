//! `OPTIMIZE_FOR_SEQUENTIAL_KEY = ON` acts (seed 004 / S10, storage btree/README S4): under
//! concurrent ascending-key inserts the index's flow control parks the sessions past its
//! admission, and they show as BTREE_INSERT_FLOW_CONTROL waits in `sys.dm_os_wait_stats`; the
//! same load on an index without the option never waits there. `sys.indexes` and INDEXPROPERTY
//! show the option. (Its own test binary: the wait counters are process-wide.)

mod support;

use engine::{Engine, EngineConfig, Session};
use support::{run, TempDir};
use types::Value;

fn int(v: &Value) -> i64 {
    match v {
        Value::Int(i) => *i as i64,
        Value::BigInt(i) => *i,
        other => panic!("not an integer: {other:?}"),
    }
}

fn flow_control_waits(s: &mut Session) -> i64 {
    let w = run(
        s,
        "SELECT waiting_tasks_count FROM sys.dm_os_wait_stats \
         WHERE wait_type = 'BTREE_INSERT_FLOW_CONTROL'",
    );
    assert_eq!(w.len(), 1, "the wait type is listed: {w:?}");
    int(&w[0][0])
}

/// 8 sessions, each 10 transactions of 25 single-row inserts into `table` (an IDENTITY key).
fn concurrent_inserts(engine: &std::sync::Arc<Engine>, table: &str) {
    let start = std::sync::Arc::new(std::sync::Barrier::new(8));
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let engine = engine.clone();
            let table = table.to_string();
            let start = start.clone();
            std::thread::spawn(move || {
                let mut s = Session::new(engine);
                start.wait(); // all at once: the inserts overlap
                for _ in 0..10 {
                    let mut batch = String::from("SET NOCOUNT ON; BEGIN TRANSACTION;");
                    for _ in 0..25 {
                        batch.push_str(&format!(
                            "INSERT INTO {table} (note) VALUES ('ascending key insert benchmark filler text');"
                        ));
                    }
                    batch.push_str("COMMIT;");
                    run(&mut s, &batch);
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("session thread panicked");
    }
}

#[test]
fn flow_control_waits_only_with_the_option() {
    let dir = TempDir::new("sequential-key");
    let engine = Engine::open(dir.path(), EngineConfig::default()).expect("open");
    // one inserter at a time at the end of an index (the default is one per core): any two
    // sessions that reach the end together make one wait
    engine
        .database("master")
        .expect("master")
        .store
        .set_sequential_key_admission(1);
    let mut s = Session::new(engine.clone());
    run(
        &mut s,
        "CREATE TABLE seq_off (id BIGINT IDENTITY NOT NULL, note VARCHAR(100) NOT NULL,
             CONSTRAINT pk_seq_off PRIMARY KEY CLUSTERED (id) WITH (OPTIMIZE_FOR_SEQUENTIAL_KEY = OFF));
         CREATE TABLE seq_on (id BIGINT IDENTITY NOT NULL, note VARCHAR(100) NOT NULL,
             CONSTRAINT pk_seq_on PRIMARY KEY CLUSTERED (id) WITH (OPTIMIZE_FOR_SEQUENTIAL_KEY = ON));",
    );
    let shown = run(
        &mut s,
        "SELECT optimize_for_sequential_key, \
         INDEXPROPERTY(object_id, name, 'IsOptimizedForSequentialKey') \
         FROM sys.indexes WHERE name LIKE 'pk_seq_%' ORDER BY name",
    );
    assert_eq!(
        shown,
        vec![
            vec![Value::Bit(false), Value::Int(0)],
            vec![Value::Bit(true), Value::Int(1)],
        ]
    );

    let before = flow_control_waits(&mut s);
    concurrent_inserts(&engine, "seq_off");
    assert_eq!(
        flow_control_waits(&mut s),
        before,
        "an index without the option has no flow control"
    );
    // sessions inside one insert at the same instant are likely in a round, not certain (a
    // session can finish before the next starts): up to 10 rounds
    let mut rounds = 0;
    while rounds < 10 {
        concurrent_inserts(&engine, "seq_on");
        rounds += 1;
        if flow_control_waits(&mut s) > before {
            break;
        }
    }
    let after = flow_control_waits(&mut s);
    assert!(
        after > before,
        "8 sessions appending through an admission of 1 wait on BTREE_INSERT_FLOW_CONTROL"
    );
    // the gated inserts lost nothing
    for (table, n) in [("seq_on", 2000 * rounds), ("seq_off", 2000)] {
        let rows = run(
            &mut s,
            &format!("SELECT COUNT(*), MIN(id), MAX(id) FROM {table}"),
        );
        assert_eq!(
            rows,
            vec![vec![
                Value::Int(n),
                Value::BigInt(1),
                Value::BigInt(n as i64)
            ]],
            "{table}"
        );
    }
    let mut sink = engine::CollectSink::default();
    s.execute_batch("DBCC CHECKDB WITH NO_INFOMSGS", &mut sink);
    assert!(sink.errors().is_empty(), "{:?}", sink.errors());
}

/// ALTER INDEX ... SET (OPTIMIZE_FOR_SEQUENTIAL_KEY = ON) and REBUILD WITH (... = OFF) change
/// the stored setting (they were accepted and dropped before).
#[test]
fn alter_index_sets_the_option() {
    let dir = TempDir::new("sequential-key-alter");
    let engine = Engine::open(dir.path(), EngineConfig::default()).expect("open");
    let mut s = Session::new(engine);
    run(
        &mut s,
        "CREATE TABLE t (id INT NOT NULL CONSTRAINT pk_t PRIMARY KEY, v INT NOT NULL);
         CREATE INDEX ix_v ON t (v);
         INSERT t VALUES (1, 10), (2, 20);",
    );
    let shown = |s: &mut Session| {
        run(
            s,
            "SELECT optimize_for_sequential_key FROM sys.indexes \
             WHERE object_id = OBJECT_ID('t') ORDER BY index_id",
        )
    };
    let flags = |a: bool, b: bool| vec![vec![Value::Bit(a)], vec![Value::Bit(b)]];
    assert_eq!(shown(&mut s), flags(false, false));
    run(
        &mut s,
        "ALTER INDEX pk_t ON t SET (OPTIMIZE_FOR_SEQUENTIAL_KEY = ON)",
    );
    assert_eq!(shown(&mut s), flags(true, false));
    run(
        &mut s,
        "ALTER INDEX ALL ON t SET (OPTIMIZE_FOR_SEQUENTIAL_KEY = ON)",
    );
    assert_eq!(shown(&mut s), flags(true, true));
    run(
        &mut s,
        "ALTER INDEX ix_v ON t REBUILD WITH (OPTIMIZE_FOR_SEQUENTIAL_KEY = OFF)",
    );
    assert_eq!(shown(&mut s), flags(true, false));
    let rows = run(
        &mut s,
        "INSERT t VALUES (3, 30); SELECT COUNT(*) FROM t WHERE v > 0",
    );
    assert_eq!(rows, vec![vec![Value::Int(3)]]);
}
