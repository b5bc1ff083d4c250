//! Batch mode and row locks: a batch scan reads under an S table lock (exec `batch/scan.rs`),
//! so the optimizer keeps a TOP without a sort (and a nested-loops semi/anti join's inner
//! side) in row mode even where batch mode is allowed: there row mode stops under row locks
//! before it meets a writer's row, and SQL Server's TOP does not wait for that writer either.

use super::{engine, Actor};

#[test]
fn a_top_does_not_wait_for_a_writer_past_the_rows_it_reads() {
    let (_d, e) = engine("batch-top");
    let a = Actor::new("A", &e);
    let b = Actor::new("B", &e);
    a.run(
        "CREATE TABLE h (id int NOT NULL, v int NOT NULL);
         INSERT h SELECT value, 0 FROM GENERATE_SERIES(1, 3000);",
    )
    .ok();
    a.run("BEGIN TRAN; UPDATE h SET v = 1 WHERE id = 3000").ok();
    let hint = "OPTION (MAXDOP 1, USE HINT ('ALLOW_BATCH_MODE'))";
    // the first qualifying row is far from the writer's: no wait (B waits without a limit;
    // with one, the batch→row adapter would replay a timed-out TOP in row mode and hide it)
    let top = |q: &str| -> i64 {
        b.start(q);
        match b.rx.recv_timeout(std::time::Duration::from_secs(20)) {
            Ok(out) => out.int(),
            Err(_) => {
                a.run("ROLLBACK").ok();
                let _ = b.finish();
                panic!("`{q}` waited for the writer's transaction");
            }
        }
    };
    assert_eq!(
        top(&format!("SELECT TOP 1 id FROM h WHERE v >= 0 {hint}")),
        1
    );
    assert_eq!(
        top(
            "SELECT TOP 1 id FROM h WHERE EXISTS (SELECT 1 FROM h AS x WHERE x.id = h.id + 1) \
             OPTION (MAXDOP 1, LOOP JOIN, USE HINT ('ALLOW_BATCH_MODE'))"
        ),
        1
    );
    b.run("SET LOCK_TIMEOUT 0").ok();
    // reading the whole table meets the writer's row: Msg 1222 at once
    assert_eq!(
        b.run(&format!("SELECT COUNT(*) FROM h WHERE v >= 0 {hint}"))
            .error(),
        1222
    );
    a.run("ROLLBACK").ok();
    assert_eq!(
        b.run(&format!("SELECT COUNT(*) FROM h WHERE v >= 0 {hint}"))
            .int(),
        3000
    );
}
