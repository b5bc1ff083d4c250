//! Cancelling the long-running statements that do not go through a query plan's operators:
//! BULK INSERT, CREATE INDEX (nonclustered build), CREATE CLUSTERED INDEX on a heap (a table
//! rewrite), ALTER INDEX REBUILD. Each polls the session's cancel token every few hundred rows
//! (engine README "Cancellation"), so an attention from another thread stops it mid-way; the
//! statement is rolled back (no index, no rows loaded, the table as it was) and the session
//! runs the next batch normally.
//!
//! Each test first times the statement uncancelled (inside a transaction it then rolls back),
//! then cancels a second run a third of the way in: without the polls the statement would run
//! to completion and leave its index or rows behind.

use std::sync::Arc;
use std::time::{Duration, Instant};

use engine::{CollectSink, Engine, EngineConfig, Session};

const ROWS: i64 = 60_000;

fn session(tag: &str) -> (Session, std::path::PathBuf) {
    let d = std::env::temp_dir().join(format!("latchkey-cancelddl-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    let e: Arc<Engine> = Engine::open(&d, EngineConfig::default()).expect("open engine");
    let mut s = Session::new(e);
    s.options.nocount = true;
    (s, d)
}

fn run(s: &mut Session, sql: &str) -> CollectSink {
    let mut sink = CollectSink::default();
    s.execute_batch(sql, &mut sink);
    sink
}

fn ok(s: &mut Session, sql: &str) {
    let out = run(s, sql);
    assert!(out.errors().is_empty(), "{sql}: {:?}", out.errors());
}

fn scalar(s: &mut Session, sql: &str) -> i64 {
    let mut sink = CollectSink::default();
    s.execute_batch(sql, &mut sink);
    assert!(sink.errors().is_empty(), "{sql}: {:?}", sink.errors());
    match sink
        .result_sets()
        .last()
        .and_then(|rs| rs.first())
        .and_then(|r| r.first())
    {
        Some(v) => v.as_i64().unwrap_or_else(|| panic!("{sql}: {v:?}")),
        None => panic!("{sql}: no value"),
    }
}

/// A table `t` of [`ROWS`] rows with a 100-byte pad (heap, or clustered on `id`).
fn fill(s: &mut Session, clustered: bool) {
    let key = if clustered {
        " PRIMARY KEY CLUSTERED"
    } else {
        ""
    };
    ok(
        s,
        &format!("CREATE TABLE t (id int NOT NULL{key}, pad varchar(100) NOT NULL)"),
    );
    ok(
        s,
        &format!(
            "INSERT INTO t (id, pad) SELECT TOP ({ROWS}) ROW_NUMBER() OVER (ORDER BY (SELECT NULL)), \
             REPLICATE(CAST(a.number AS varchar(10)), 20) \
             FROM master..spt_values a CROSS JOIN master..spt_values b"
        ),
    );
    assert_eq!(scalar(s, "SELECT COUNT(*) FROM t"), ROWS);
}

/// How long `sql` takes uncancelled (run in a transaction that is then rolled back).
fn time_uncancelled(s: &mut Session, sql: &str) -> Duration {
    ok(s, "BEGIN TRANSACTION");
    let start = Instant::now();
    ok(s, sql);
    let took = start.elapsed();
    ok(s, "ROLLBACK");
    took
}

/// Runs `sql` and cancels it from another thread after `after`; asserts the batch saw the
/// cancel and returns how long the batch ran.
fn cancel_after(s: &mut Session, sql: &str, after: Duration) -> Duration {
    let handle = s.cancel_handle();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(after);
        handle.cancel();
    });
    let start = Instant::now();
    let out = run(s, sql);
    let took = start.elapsed();
    canceller.join().expect("canceller thread");
    assert!(
        s.cancel_handle().is_cancelled(),
        "{sql}: the batch was cancelled"
    );
    assert!(
        out.errors().is_empty(),
        "{sql}: an attention is not reported as an error: {:?}",
        out.errors()
    );
    took
}

/// Times `sql`, then cancels it a third of the way in; asserts it stopped early.
fn cancel_midway(s: &mut Session, sql: &str) {
    let full = time_uncancelled(s, sql);
    assert!(
        full >= Duration::from_millis(30),
        "{sql}: too fast ({full:?}) to cancel mid-way; raise ROWS"
    );
    let took = cancel_after(s, sql, full / 3);
    eprintln!(
        "{sql}: uncancelled {full:?}, cancelled after {:?} ran {took:?}",
        full / 3
    );
    assert!(
        took < full,
        "{sql}: cancelled after {:?} yet ran {took:?} (uncancelled: {full:?})",
        full / 3
    );
}

fn index_count(s: &mut Session, name: &str) -> i64 {
    scalar(
        s,
        &format!("SELECT COUNT(*) FROM sys.indexes WHERE name = '{name}'"),
    )
}

#[test]
fn cancel_stops_create_index_and_leaves_no_index() {
    let (mut s, dir) = session("cix");
    fill(&mut s, false);
    cancel_midway(&mut s, "CREATE INDEX ix_pad ON t (pad, id)");
    assert_eq!(index_count(&mut s, "ix_pad"), 0);
    assert_eq!(scalar(&mut s, "SELECT COUNT(*) FROM t"), ROWS);
    // the session is usable and the same index builds afterwards
    ok(&mut s, "CREATE INDEX ix_pad ON t (pad, id)");
    assert_eq!(index_count(&mut s, "ix_pad"), 1);
    assert_eq!(
        scalar(&mut s, "SELECT COUNT(*) FROM t WITH (INDEX(ix_pad))"),
        ROWS
    );
    drop(s);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn cancel_stops_clustered_rewrite_and_rebuild_and_keeps_the_table() {
    let (mut s, dir) = session("rewrite");
    fill(&mut s, false);
    // a heap turned into a clustered table: every row is copied into new storage
    cancel_midway(&mut s, "CREATE CLUSTERED INDEX cx ON t (pad, id)");
    assert_eq!(index_count(&mut s, "cx"), 0);
    assert_eq!(scalar(&mut s, "SELECT COUNT(*) FROM t"), ROWS);
    assert_eq!(
        scalar(
            &mut s,
            "SELECT COUNT(*) FROM sys.indexes WHERE object_id = OBJECT_ID('t') AND type = 0"
        ),
        1,
        "still a heap"
    );
    ok(&mut s, "CREATE CLUSTERED INDEX cx ON t (id)");
    // ALTER INDEX REBUILD copies the rows again; cancelled, the table keeps all of them
    cancel_midway(&mut s, "ALTER INDEX ALL ON t REBUILD");
    assert_eq!(scalar(&mut s, "SELECT COUNT(*) FROM t"), ROWS);
    assert_eq!(
        scalar(&mut s, "SELECT SUM(CAST(id AS bigint)) FROM t"),
        ROWS * (ROWS + 1) / 2
    );
    ok(&mut s, "ALTER INDEX ALL ON t REBUILD");
    assert_eq!(scalar(&mut s, "SELECT COUNT(*) FROM t"), ROWS);
    drop(s);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn cancel_stops_bulk_insert_and_loads_nothing() {
    let (mut s, dir) = session("bulk");
    let file = dir.join("rows.txt");
    let mut text = String::new();
    for i in 0..ROWS * 2 {
        text.push_str(&format!("{i},row number {i} of the bulk file\n"));
    }
    std::fs::write(&file, text).expect("write data file");
    ok(
        &mut s,
        "CREATE TABLE b (id int NOT NULL, note varchar(60) NOT NULL)",
    );
    let sql = format!(
        "BULK INSERT b FROM '{}' WITH (FIELDTERMINATOR = ',', ROWTERMINATOR = '0x0a')",
        file.display()
    );
    cancel_midway(&mut s, &sql);
    assert_eq!(scalar(&mut s, "SELECT COUNT(*) FROM b"), 0);
    ok(&mut s, &sql);
    assert_eq!(scalar(&mut s, "SELECT COUNT(*) FROM b"), ROWS * 2);
    drop(s);
    let _ = std::fs::remove_dir_all(dir);
}
