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
