//! Cancelling a running batch from another thread (`Session::cancel_handle`), as SQL Server
//! handles an attention: the batch stops within 100 ms wherever it is (WAITFOR, a CPU-bound
//! plan, a WHILE loop, a procedure, inside TRY), the current statement is rolled back, an open
//! transaction stays open (unless XACT_ABORT is ON), #temp tables stay, nothing is reported as
//! an error, and the next batch runs normally.

use std::sync::Arc;
use std::time::{Duration, Instant};

use engine::{CollectSink, Engine, EngineConfig, Event, Session};
use types::Value;

fn session(tag: &str) -> (Session, std::path::PathBuf) {
    let d = std::env::temp_dir().join(format!("latchkey-cancel-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    let e: Arc<Engine> = Engine::open(&d, EngineConfig::default()).expect("open engine");
    (Session::new(e), d)
}

fn run(s: &mut Session, sql: &str) -> CollectSink {
    let mut sink = CollectSink::default();
    s.execute_batch(sql, &mut sink);
    sink
}

fn ok(s: &mut Session, sql: &str) -> CollectSink {
    let out = run(s, sql);
    assert!(out.errors().is_empty(), "{sql}: {:?}", out.errors());
    out
}

fn scalar(s: &mut Session, sql: &str) -> Value {
    let out = ok(s, sql);
    out.result_sets()
        .last()
        .and_then(|rs| rs.first())
        .and_then(|r| r.first())
        .cloned()
        .unwrap_or_else(|| panic!("{sql}: no value"))
}

/// Runs `sql`, cancelling it from another thread after `after`. Returns the batch's events and
/// how long the batch went on after the cancel.
fn cancel_after(s: &mut Session, sql: &str, after: Duration) -> (CollectSink, Duration) {
    let handle = s.cancel_handle();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(after);
        handle.cancel();
        Instant::now()
    });
    let out = run(s, sql);
    let returned = Instant::now();
    let cancelled_at = canceller.join().expect("canceller thread");
    assert!(
        s.cancel_handle().is_cancelled(),
        "{sql}: the flag tells the caller the batch was cancelled"
    );
    (out, returned.saturating_duration_since(cancelled_at))
}

/// The promise is 100 ms; the assertion leaves room for a loaded CI machine running debug
/// builds, and still fails without cancellation (every batch here runs for 30 s or more).
const LATENCY: Duration = Duration::from_millis(400);

fn messages(out: &CollectSink) -> Vec<String> {
    out.events
        .iter()
        .filter_map(|e| match e {
            Event::Message(m) => Some(m.text.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn cancel_stops_waitfor_cpu_bound_select_and_while_loop() {
    let (mut s, dir) = session("kinds");
    let batches = [
        "PRINT 'before'; WAITFOR DELAY '00:00:30'; PRINT 'after'",
        // CPU-bound: 2,048^3 rows through nested loops and an aggregate
        "SELECT COUNT_BIG(*) FROM master.dbo.spt_values a CROSS JOIN master.dbo.spt_values b \
         CROSS JOIN master.dbo.spt_values c WHERE a.type = 'P'; PRINT 'after'",
        "DECLARE @i bigint = 0; WHILE 1 = 1 SET @i += 1; PRINT 'after'",
        "BEGIN TRY WAITFOR DELAY '00:00:30' END TRY BEGIN CATCH PRINT 'caught' END CATCH; \
         PRINT 'after'",
    ];
    for sql in batches {
        let (out, late) = cancel_after(&mut s, sql, Duration::from_millis(300));
        assert!(late < LATENCY, "{sql}: returned {late:?} after the cancel");
        assert!(out.errors().is_empty(), "{sql}: {:?}", out.errors());
        let m = messages(&out);
        assert!(
            !m.iter().any(|t| t == "after" || t == "caught"),
            "{sql}: the batch must stop and TRY/CATCH must not catch an attention: {m:?}"
        );
        // the flag is cleared by the next batch
        assert_eq!(scalar(&mut s, "SELECT 1"), Value::Int(1));
    }
    drop(s);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn cancel_in_procedure_and_dynamic_sql_ends_the_whole_batch() {
    let (mut s, dir) = session("proc");
    ok(
        &mut s,
        "CREATE PROCEDURE dbo.slow AS BEGIN WAITFOR DELAY '00:00:30'; PRINT 'in proc' END",
    );
    for sql in [
        "EXEC dbo.slow; PRINT 'after'",
        "EXEC ('WAITFOR DELAY ''00:00:30''; PRINT ''in dynamic'''); PRINT 'after'",
    ] {
        let (out, late) = cancel_after(&mut s, sql, Duration::from_millis(200));
        assert!(late < LATENCY, "{sql}: {late:?}");
        assert!(out.errors().is_empty(), "{sql}: {:?}", out.errors());
        assert!(messages(&out).is_empty(), "{sql}: {:?}", messages(&out));
    }
    drop(s);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn cancel_rolls_back_the_statement_and_keeps_transaction_and_temp_tables() {
    let (mut s, dir) = session("txn");
    ok(
        &mut s,
        "CREATE TABLE #keep (n int); INSERT #keep VALUES (1); \
         CREATE TABLE dbo.t (n bigint); BEGIN TRAN; INSERT dbo.t VALUES (1)",
    );
    // a long INSERT ... SELECT cancelled part-way: its rows are rolled back, the row inserted
    // by the earlier statement of the transaction stays
    let (out, late) = cancel_after(
        &mut s,
        "INSERT dbo.t SELECT a.number FROM master.dbo.spt_values a \
         CROSS JOIN master.dbo.spt_values b CROSS JOIN master.dbo.spt_values c",
        Duration::from_millis(300),
    );
    assert!(late < LATENCY, "{late:?}");
    assert!(out.errors().is_empty(), "{:?}", out.errors());
    assert_eq!(scalar(&mut s, "SELECT @@TRANCOUNT"), Value::Int(1));
    assert_eq!(scalar(&mut s, "SELECT COUNT(*) FROM dbo.t"), Value::Int(1));
    assert_eq!(scalar(&mut s, "SELECT COUNT(*) FROM #keep"), Value::Int(1));
    ok(&mut s, "COMMIT");
    assert_eq!(scalar(&mut s, "SELECT COUNT(*) FROM dbo.t"), Value::Int(1));

    // XACT_ABORT ON: an attention rolls the whole transaction back (as SQL Server does)
    ok(
        &mut s,
        "SET XACT_ABORT ON; BEGIN TRAN; INSERT dbo.t VALUES (2)",
    );
    let (out, _) = cancel_after(
        &mut s,
        "WAITFOR DELAY '00:00:30'",
        Duration::from_millis(100),
    );
    assert!(out.errors().is_empty(), "{:?}", out.errors());
    assert_eq!(scalar(&mut s, "SELECT @@TRANCOUNT"), Value::Int(0));
    assert_eq!(scalar(&mut s, "SELECT COUNT(*) FROM dbo.t"), Value::Int(1));
    assert_eq!(scalar(&mut s, "SELECT COUNT(*) FROM #keep"), Value::Int(1));
    drop(s);
    let _ = std::fs::remove_dir_all(dir);
}
