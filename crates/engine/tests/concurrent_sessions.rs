//! Many sessions of one engine on many threads (what `latchkey serve` runs): ascending-key
//! inserts from every session (W7 / seed 004's shape) lose or duplicate nothing, and the
//! database checks clean afterwards.

mod support;

use engine::{Engine, EngineConfig, Session};
use support::{run, TempDir};
use types::Value;

#[test]
fn ascending_key_inserts_from_many_sessions() {
    let dir = TempDir::new("concurrent-sessions");
    let engine = Engine::open(dir.path(), EngineConfig::default()).expect("open");
    let mut setup = Session::new(engine.clone());
    run(
        &mut setup,
        "CREATE TABLE seq_key_inserts (id BIGINT IDENTITY PRIMARY KEY, session_id INT NOT NULL, \
         n INT NOT NULL, note VARCHAR(100) NOT NULL)",
    );
    const SESSIONS: i32 = 8;
    const TXNS: i32 = 20;
    const ROWS: i32 = 25;
    let threads: Vec<_> = (0..SESSIONS)
        .map(|sid| {
            let engine = engine.clone();
            std::thread::spawn(move || {
                let mut s = Session::new(engine);
                for t in 0..TXNS {
                    let mut batch = String::from("SET NOCOUNT ON; BEGIN TRANSACTION;");
                    for r in 0..ROWS {
                        batch.push_str(&format!(
                            "INSERT INTO seq_key_inserts (session_id, n, note) VALUES ({sid}, {}, 'ascending key insert benchmark filler text');",
                            t * ROWS + r
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
    let total = (SESSIONS * TXNS * ROWS) as i64;
    let rows = run(
        &mut setup,
        "SELECT COUNT(*), COUNT(DISTINCT id), MIN(id), MAX(id), COUNT(DISTINCT CAST(session_id AS bigint) * 100000 + n) FROM seq_key_inserts",
    );
    assert_eq!(
        rows,
        vec![vec![
            Value::Int(total as i32),
            Value::Int(total as i32),
            Value::BigInt(1),
            Value::BigInt(total),
            Value::Int(total as i32),
        ]]
    );
    let mut sink = engine::CollectSink::default();
    setup.execute_batch("DBCC CHECKDB WITH NO_INFOMSGS", &mut sink);
    assert!(sink.errors().is_empty(), "{:?}", sink.errors());
}

/// Sessions insert, update, delete and read their own key ranges of one clustered table and
/// one heap at the same time (B-tree splits and page frees race with other sessions' seeks):
/// every session's rows end as its model says and the database checks clean.
#[test]
fn mixed_dml_on_disjoint_keys_from_many_sessions() {
    let dir = TempDir::new("concurrent-mixed");
    let engine = Engine::open(dir.path(), EngineConfig::default()).expect("open");
    let mut setup = Session::new(engine.clone());
    run(
        &mut setup,
        "CREATE TABLE kv (k INT PRIMARY KEY, v INT NOT NULL, pad CHAR(200) NOT NULL DEFAULT 'x');
         CREATE INDEX kv_v ON kv (v);
         CREATE TABLE hp (k INT NOT NULL, v INT NOT NULL, pad VARCHAR(300) NOT NULL);",
    );
    const SESSIONS: i32 = 6;
    const KEYS: i32 = 300;
    let threads: Vec<_> = (0..SESSIONS)
        .map(|sid| {
            let engine = engine.clone();
            std::thread::spawn(move || {
                let mut s = Session::new(engine);
                let base = sid * 100_000;
                run(&mut s, "SET NOCOUNT ON");
                for k in 0..KEYS {
                    run(
                        &mut s,
                        &format!(
                            "INSERT INTO kv (k, v) VALUES ({}, {k}); INSERT INTO hp VALUES ({}, {k}, REPLICATE('h', 250));",
                            base + k,
                            base + k
                        ),
                    );
                }
                // update every third, delete every fifth, in small transactions; the heap has
                // no index, so its UPDATE/DELETE scan every row and meet other sessions' X
                // locks: deadlocks happen (as in SQL Server) and the victim reruns, as
                // Msg 1205 says to
                for chunk in 0..(KEYS / 30) {
                    let lo = base + chunk * 30;
                    let hi = lo + 29;
                    run_rerunning_deadlock_victims(
                        &mut s,
                        &format!(
                            "BEGIN TRAN;
                             UPDATE kv SET v = v + 1000000 WHERE k BETWEEN {lo} AND {hi} AND k % 3 = 0;
                             DELETE FROM kv WHERE k BETWEEN {lo} AND {hi} AND k % 5 = 0;
                             UPDATE hp SET pad = REPLICATE('u', 290) WHERE k BETWEEN {lo} AND {hi} AND k % 3 = 0;
                             DELETE FROM hp WHERE k BETWEEN {lo} AND {hi} AND k % 5 = 0;
                             COMMIT;"
                        ),
                    );
                }
                // a rolled-back transaction leaves nothing behind
                run_rerunning_deadlock_victims(
                    &mut s,
                    &format!(
                        "BEGIN TRAN; DELETE FROM kv WHERE k BETWEEN {base} AND {}; UPDATE hp SET v = -1 WHERE k BETWEEN {base} AND {}; ROLLBACK;",
                        base + KEYS,
                        base + KEYS
                    ),
                );
                let expected_rows = (0..KEYS).filter(|k| k % 5 != 0).count() as i32;
                let expected_updated = (0..KEYS).filter(|k| k % 5 != 0 && k % 3 == 0).count() as i32;
                let got = run(
                    &mut s,
                    &format!(
                        "SELECT (SELECT COUNT(*) FROM kv WHERE k BETWEEN {base} AND {hi}),
                                (SELECT COUNT(*) FROM kv WITH (INDEX(kv_v)) WHERE k BETWEEN {base} AND {hi} AND v >= 1000000),
                                (SELECT COUNT(*) FROM hp WHERE k BETWEEN {base} AND {hi}),
                                (SELECT COUNT(*) FROM hp WHERE k BETWEEN {base} AND {hi} AND pad LIKE 'u%' AND v >= 0)",
                        hi = base + KEYS
                    ),
                );
                assert_eq!(
                    got,
                    vec![vec![
                        Value::Int(expected_rows),
                        Value::Int(expected_updated),
                        Value::Int(expected_rows),
                        Value::Int(expected_updated),
                    ]],
                    "session {sid}"
                );
            })
        })
        .collect();
    for t in threads {
        t.join().expect("session thread panicked");
    }
    let mut sink = engine::CollectSink::default();
    setup.execute_batch("DBCC CHECKDB WITH NO_INFOMSGS", &mut sink);
    assert!(sink.errors().is_empty(), "{:?}", sink.errors());
}

/// Runs a transaction batch; when it is chosen as a deadlock victim (Msg 1205, its transaction
/// rolled back) it runs it again. Any other error fails the test.
fn run_rerunning_deadlock_victims(s: &mut Session, sql: &str) {
    for _ in 0..50 {
        let mut sink = engine::CollectSink::default();
        s.execute_batch(sql, &mut sink);
        let errors = sink.errors();
        if errors.is_empty() {
            return;
        }
        assert!(errors.iter().all(|e| e.number == 1205), "{sql}: {errors:?}");
        assert_eq!(
            s.trancount(),
            0,
            "a deadlock victim's transaction is rolled back"
        );
    }
    panic!("still a deadlock victim after 50 runs: {sql}");
}
