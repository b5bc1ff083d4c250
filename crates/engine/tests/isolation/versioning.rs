//! Row versioning with two sessions: SQL Server's outcomes under SNAPSHOT and
//! READ_COMMITTED_SNAPSHOT for dirty read, lost update (3960), non-repeatable read, phantom
//! and write skew; rows deleted / inserted after the snapshot through scans, seeks and index
//! paths in order; version cleanup; the options persisted and shown in sys.databases.

use std::sync::Arc;

use engine::{Engine, EngineConfig};
use types::Value;

use super::support::TempDir;
use super::{level, Actor, Outcome};

/// Database `snapdb` with ALLOW_SNAPSHOT_ISOLATION ON (and READ_COMMITTED_SNAPSHOT when
/// `rcsi`), table `t (id int primary key, v int)` holding (1, 10), (2, 20), and two actors
/// using it.
fn setup(tag: &str, rcsi: bool) -> (TempDir, Arc<Engine>, Actor, Actor) {
    let d = TempDir::new(&format!("versioning-{tag}"));
    let e = Engine::open(d.path(), EngineConfig::default()).expect("open engine");
    let a = Actor::new("A", &e);
    a.run("CREATE DATABASE snapdb").ok();
    a.run("ALTER DATABASE snapdb SET ALLOW_SNAPSHOT_ISOLATION ON")
        .ok();
    if rcsi {
        a.run("ALTER DATABASE snapdb SET READ_COMMITTED_SNAPSHOT ON")
            .ok();
    }
    a.run(
        "USE snapdb; CREATE TABLE t (id int PRIMARY KEY, v int); INSERT t VALUES (1, 10), (2, 20);",
    )
    .ok();
    let b = Actor::new("B", &e);
    b.run("USE snapdb").ok();
    (d, e, a, b)
}

fn ints(o: &Outcome) -> Vec<i64> {
    assert!(o.errors.is_empty(), "unexpected errors {:?}", o.errors);
    o.rows
        .iter()
        .map(|r| match r.first() {
            Some(Value::Int(v)) => *v as i64,
            Some(Value::BigInt(v)) => *v,
            other => panic!("not an integer: {other:?}"),
        })
        .collect()
}

#[test]
fn snapshot_reads_do_not_see_or_wait_for_uncommitted_writes() {
    let (_d, _e, a, b) = setup("dirty", false);
    a.run("BEGIN TRAN; UPDATE t SET v = 99 WHERE id = 1; INSERT t VALUES (3, 30); DELETE t WHERE id = 2")
        .ok();
    level(&b, "SNAPSHOT");
    // no blocking (run, not blocks) and no dirty read
    assert_eq!(b.run("SELECT v FROM t WHERE id = 1").int(), 10);
    assert_eq!(b.run("SELECT SUM(v) FROM t").int(), 30);
    assert_eq!(ints(&b.run("SELECT id FROM t ORDER BY id")), vec![1, 2]);
    // the writer sees its own changes
    assert_eq!(a.run("SELECT SUM(v) FROM t").int(), 129);
    a.run("COMMIT").ok();
    assert_eq!(ints(&b.run("SELECT id FROM t ORDER BY id")), vec![1, 3]);
}

#[test]
fn snapshot_repeats_reads_and_sees_no_phantoms() {
    let (_d, _e, a, b) = setup("repeat", false);
    level(&b, "SNAPSHOT");
    assert_eq!(b.run("BEGIN TRAN; SELECT v FROM t WHERE id = 1").int(), 10);
    // the snapshot began at that first read: later commits are not seen
    a.run("UPDATE t SET v = 11 WHERE id = 1; INSERT t VALUES (3, 30); DELETE t WHERE id = 2")
        .ok();
    assert_eq!(
        b.run("SELECT v FROM t WHERE id = 1").int(),
        10,
        "repeatable"
    );
    assert_eq!(
        b.run("SELECT COUNT(*) FROM t WHERE v > 0").int(),
        2,
        "no phantom"
    );
    // the deleted row through a seek, and both orders of a scan across it
    assert_eq!(b.run("SELECT v FROM t WHERE id = 2").int(), 20);
    assert_eq!(ints(&b.run("SELECT id FROM t ORDER BY id")), vec![1, 2]);
    assert_eq!(
        ints(&b.run("SELECT id FROM t ORDER BY id DESC")),
        vec![2, 1]
    );
    b.run("COMMIT").ok();
    assert_eq!(ints(&b.run("SELECT v FROM t ORDER BY id")), vec![11, 30]);
}

#[test]
fn ordered_scans_and_index_seeks_merge_versions_in_order() {
    let (_d, _e, a, b) = setup("ordered", false);
    a.run("CREATE TABLE o (id int PRIMARY KEY, k int, pad char(200)); CREATE INDEX ix_k ON o (k);")
        .ok();
    a.run("INSERT o SELECT value, 1000 - value, 'x' FROM GENERATE_SERIES(1, 400)")
        .ok();
    level(&b, "SNAPSHOT");
    assert_eq!(b.run("BEGIN TRAN; SELECT COUNT(*) FROM o").int(), 400);
    // delete a stretch in the middle, move keys around, insert new ones
    a.run("DELETE o WHERE id BETWEEN 100 AND 150; UPDATE o SET k = k + 5000 WHERE id BETWEEN 300 AND 310; INSERT o SELECT value, value, 'y' FROM GENERATE_SERIES(1000, 1100)")
        .ok();
    let asc = ints(&b.run("SELECT id FROM o ORDER BY id"));
    assert_eq!(asc, (1..=400).collect::<Vec<i64>>());
    let desc = ints(&b.run("SELECT id FROM o ORDER BY id DESC"));
    assert_eq!(desc, (1..=400).rev().collect::<Vec<i64>>());
    // a clustered seek over the deleted stretch
    let seek = ints(&b.run("SELECT id FROM o WHERE id BETWEEN 95 AND 155 ORDER BY id"));
    assert_eq!(seek, (95..=155).collect::<Vec<i64>>());
    // a nonclustered seek (k = 1000 - id) in k order: rows deleted and rows whose key moved
    // away are found at their old keys, the rows inserted since are not
    let q = "SELECT k FROM o WITH (FORCESEEK) WHERE k BETWEEN 600 AND 950 ORDER BY k";
    b.run("SET SHOWPLAN_TEXT ON").ok();
    let plan = format!("{:?}", b.run(q).rows);
    b.run("SET SHOWPLAN_TEXT OFF").ok();
    assert!(
        plan.contains("Index Seek") && plan.contains("ix_k"),
        "{plan}"
    );
    let by_k = ints(&b.run(q));
    assert_eq!(by_k, (600..=950).collect::<Vec<i64>>());
    let by_k_desc = ints(
        &b.run("SELECT k FROM o WITH (FORCESEEK) WHERE k BETWEEN 600 AND 950 ORDER BY k DESC"),
    );
    assert_eq!(by_k_desc, (600..=950).rev().collect::<Vec<i64>>());
    b.run("COMMIT").ok();
    assert_eq!(b.run("SELECT COUNT(*) FROM o").int(), 400 - 51 + 101);
}

#[test]
fn snapshot_on_a_heap() {
    let (_d, _e, a, b) = setup("heap", false);
    a.run(
        "CREATE TABLE h (id int, v int); INSERT h SELECT value, value FROM GENERATE_SERIES(1, 300)",
    )
    .ok();
    level(&b, "SNAPSHOT");
    assert_eq!(b.run("BEGIN TRAN; SELECT SUM(v) FROM h").int(), 45150);
    a.run("DELETE h WHERE id % 3 = 0; UPDATE h SET v = v * 100 WHERE id % 3 = 1; INSERT h VALUES (1000, 1000)")
        .ok();
    assert_eq!(b.run("SELECT SUM(v) FROM h").int(), 45150);
    assert_eq!(b.run("SELECT COUNT(*) FROM h").int(), 300);
    b.run("COMMIT").ok();
    assert_eq!(b.run("SELECT COUNT(*) FROM h").int(), 201);
}

/// SQL Server's example: the snapshot transaction's update of a row another transaction
/// changed and committed after the snapshot began fails with 3960, and its transaction is
/// rolled back.
#[test]
fn lost_update_is_an_update_conflict_under_snapshot() {
    let (_d, _e, a, b) = setup("conflict", false);
    level(&b, "SNAPSHOT");
    assert_eq!(b.run("BEGIN TRAN; SELECT v FROM t WHERE id = 1").int(), 10);
    a.run("UPDATE t SET v = v + 1 WHERE id = 1").ok();
    let out = b.run("UPDATE t SET v = v + 5 WHERE id = 1; SELECT 'not reached'");
    assert_eq!(out.error(), 3960);
    assert_eq!(
        out.errors[0].1,
        "Snapshot isolation transaction aborted due to update conflict. You cannot use snapshot isolation to access table 'dbo.t' directly or indirectly in database 'snapdb' to update, delete, or insert the row that has been modified or deleted by another transaction. Retry the transaction or change the isolation level for the update/delete statement."
    );
    assert!(out.rows.is_empty(), "3960 ends the batch");
    assert_eq!(b.run("SELECT @@TRANCOUNT").int(), 0, "rolled back");
    assert_eq!(b.run("SELECT v FROM t WHERE id = 1").int(), 11);
    // a row not changed since the snapshot updates fine, and a delete conflicts too
    assert_eq!(b.run("BEGIN TRAN; SELECT v FROM t WHERE id = 2").int(), 20);
    b.run("UPDATE t SET v = 21 WHERE id = 2").ok();
    a.run("UPDATE t SET v = 12 WHERE id = 1").ok();
    assert_eq!(b.run("DELETE t WHERE id = 1").error(), 3960);
    assert_eq!(
        a.run("SELECT SUM(v) FROM t").int(),
        32,
        "B's update rolled back"
    );
}

#[test]
fn snapshot_writer_waits_then_conflicts_or_proceeds() {
    let (_d, _e, a, b) = setup("wait", false);
    level(&b, "SNAPSHOT");
    assert_eq!(b.run("BEGIN TRAN; SELECT v FROM t WHERE id = 1").int(), 10);
    a.run("BEGIN TRAN; UPDATE t SET v = 50 WHERE id = 1").ok();
    // writes take their usual locks: B waits for A
    b.blocks("UPDATE t SET v = v + 1 WHERE id = 1");
    a.run("COMMIT").ok();
    assert_eq!(b.finish().error(), 3960);
    // when the other transaction rolls back there is no conflict
    assert_eq!(b.run("BEGIN TRAN; SELECT v FROM t WHERE id = 1").int(), 50);
    a.run("BEGIN TRAN; UPDATE t SET v = 60 WHERE id = 1").ok();
    b.blocks("UPDATE t SET v = v + 1 WHERE id = 1");
    a.run("ROLLBACK").ok();
    b.finish().ok();
    b.run("COMMIT").ok();
    assert_eq!(a.run("SELECT v FROM t WHERE id = 1").int(), 51);
}

/// Both doctors go off call: the anomaly SNAPSHOT allows (as in SQL Server), since their
/// writes touch different rows.
#[test]
fn write_skew_is_allowed_under_snapshot() {
    let (_d, _e, a, b) = setup("skew", false);
    a.run("CREATE TABLE oncall (doc int PRIMARY KEY, on_call int); INSERT oncall VALUES (1, 1), (2, 1);")
        .ok();
    level(&a, "SNAPSHOT");
    level(&b, "SNAPSHOT");
    let q = "SELECT COUNT(*) FROM oncall WHERE on_call = 1";
    assert_eq!(a.run(&format!("BEGIN TRAN; {q}")).int(), 2);
    assert_eq!(b.run(&format!("BEGIN TRAN; {q}")).int(), 2);
    a.run("UPDATE oncall SET on_call = 0 WHERE doc = 1; COMMIT")
        .ok();
    b.run("UPDATE oncall SET on_call = 0 WHERE doc = 2; COMMIT")
        .ok();
    assert_eq!(a.run(q).int(), 0);
}

#[test]
fn read_committed_snapshot_reads_the_statements_snapshot() {
    let (_d, _e, a, b) = setup("rcsi", true);
    assert_eq!(
        b.run("SELECT is_read_committed_snapshot_on FROM sys.databases WHERE name = 'snapdb'")
            .rows,
        vec![vec![Value::Bit(true)]]
    );
    a.run("BEGIN TRAN; UPDATE t SET v = 99 WHERE id = 1").ok();
    // no dirty read and no wait (READ COMMITTED with row versioning)
    assert_eq!(b.run("SELECT v FROM t WHERE id = 1").int(), 10);
    assert_eq!(b.run("SELECT SUM(v) FROM t").int(), 30);
    // READCOMMITTEDLOCK reads with locks again: it waits
    b.blocks("SELECT v FROM t WITH (READCOMMITTEDLOCK) WHERE id = 1");
    a.run("COMMIT").ok();
    assert_eq!(b.finish().int(), 99);
    // non-repeatable read and phantom: each statement sees what was committed when it began
    assert_eq!(b.run("BEGIN TRAN; SELECT v FROM t WHERE id = 1").int(), 99);
    a.run("UPDATE t SET v = 98 WHERE id = 1; INSERT t VALUES (3, 30)")
        .ok();
    assert_eq!(b.run("SELECT v FROM t WHERE id = 1").int(), 98);
    assert_eq!(b.run("SELECT COUNT(*) FROM t").int(), 3);
    b.run("COMMIT").ok();
    // a lost update is still prevented by the writers' locks (no 3960 under RCSI)
    a.run("BEGIN TRAN; UPDATE t SET v = v + 1 WHERE id = 1")
        .ok();
    b.blocks("UPDATE t SET v = v + 10 WHERE id = 1");
    a.run("COMMIT").ok();
    b.finish().ok();
    assert_eq!(a.run("SELECT v FROM t WHERE id = 1").int(), 109);
}

#[test]
fn read_committed_snapshot_needs_the_database_to_itself() {
    let (_d, _e, a, _b) = setup("rcsi-users", false);
    // B is using snapdb
    assert_eq!(
        a.run("ALTER DATABASE snapdb SET READ_COMMITTED_SNAPSHOT ON")
            .error(),
        5070
    );
    assert_eq!(
        a.run("ALTER DATABASE snapdb SET READ_COMMITTED_SNAPSHOT ON WITH ROLLBACK IMMEDIATE")
            .error(),
        40517
    );
}

#[test]
fn versions_are_cleaned_up_when_the_last_snapshot_ends() {
    let (_d, _e, a, b) = setup("cleanup", false);
    let space = "SELECT reserved_space_kb FROM sys.dm_tran_version_store_space_usage WHERE database_id = DB_ID('snapdb')";
    // no snapshot active: versions go at commit
    a.run("UPDATE t SET v = v + 1").ok();
    assert_eq!(a.run(space).int(), 0);
    level(&b, "SNAPSHOT");
    assert_eq!(b.run("BEGIN TRAN; SELECT COUNT(*) FROM t").int(), 2);
    let spid_b = b.run("SELECT @@SPID").int();
    assert_eq!(
        a.run(
            "SELECT session_id, is_snapshot FROM sys.dm_tran_active_snapshot_database_transactions"
        )
        .rows,
        vec![vec![Value::Int(spid_b as i32), Value::Bit(true)]]
    );
    a.run("UPDATE t SET v = v + 1").ok();
    assert!(a.run(space).int() > 0, "kept for B's snapshot");
    // a rolled-back write leaves no version behind
    let before = a.run(space).int();
    a.run("BEGIN TRAN; INSERT t SELECT value, value FROM GENERATE_SERIES(10, 500); ROLLBACK")
        .ok();
    assert_eq!(a.run(space).int(), before);
    assert_eq!(b.run("SELECT SUM(v) FROM t").int(), 32);
    b.run("COMMIT").ok();
    assert_eq!(a.run(space).int(), 0, "gone with the last snapshot");
    assert_eq!(
        a.run("SELECT COUNT(*) FROM sys.dm_tran_active_snapshot_database_transactions")
            .int(),
        0
    );
}

#[test]
fn the_options_persist_across_a_restart() {
    let d = TempDir::new("versioning-restart");
    {
        let e = Engine::open(d.path(), EngineConfig::default()).expect("open engine");
        let a = Actor::new("A", &e);
        a.run("CREATE DATABASE snapdb; ALTER DATABASE snapdb SET ALLOW_SNAPSHOT_ISOLATION ON; ALTER DATABASE snapdb SET READ_COMMITTED_SNAPSHOT ON")
            .ok();
    }
    let e = Engine::open(d.path(), EngineConfig::default()).expect("reopen engine");
    let a = Actor::new("A", &e);
    let row = a.run("SELECT snapshot_isolation_state, snapshot_isolation_state_desc, is_read_committed_snapshot_on FROM sys.databases WHERE name = 'snapdb'").rows;
    assert_eq!(
        row,
        vec![vec![
            Value::TinyInt(1),
            Value::NVarChar("ON".into()),
            Value::Bit(true)
        ]]
    );
    a.run("ALTER DATABASE snapdb SET ALLOW_SNAPSHOT_ISOLATION OFF")
        .ok();
    a.run("USE snapdb; CREATE TABLE t (id int); SET TRANSACTION ISOLATION LEVEL SNAPSHOT")
        .ok();
    assert_eq!(a.run("SELECT COUNT(*) FROM t").error(), 3952);
}

/// A parallel plan reading a snapshot: its zone runs one worker over the whole table with
/// the snapshot, so it sees what a serial scan sees.
#[test]
fn parallel_plans_read_the_snapshot() {
    let (_d, _e, a, b) = setup("parallel", false);
    a.run("EXEC sp_configure 'show advanced options', 1; RECONFIGURE; EXEC sp_configure 'cost threshold for parallelism', 0; RECONFIGURE;")
        .ok();
    a.run("CREATE TABLE p (id int PRIMARY KEY, v int, pad char(400)); INSERT p SELECT value, value, 'x' FROM GENERATE_SERIES(1, 3000)")
        .ok();
    let q = "SELECT SUM(v), COUNT(*) FROM p WHERE pad = 'x' OPTION (MAXDOP 2)";
    b.run("SET SHOWPLAN_TEXT ON").ok();
    let plan = format!("{:?}", b.run(q).rows);
    b.run("SET SHOWPLAN_TEXT OFF").ok();
    assert!(plan.contains("Parallelism"), "{plan}");
    level(&b, "SNAPSHOT");
    assert_eq!(b.run("BEGIN TRAN; SELECT COUNT(*) FROM p").int(), 3000);
    a.run("DELETE p WHERE id % 2 = 0; UPDATE p SET v = 0 WHERE id < 1000; INSERT p VALUES (5000, 5000, 'x')")
        .ok();
    let out = b.run(q);
    assert!(out.errors.is_empty(), "{:?}", out.errors);
    assert_eq!(
        out.rows,
        vec![vec![Value::Int(4_501_500), Value::Int(3000)]]
    );
    b.run("COMMIT").ok();
    let out = b.run(q);
    assert_eq!(out.rows[0][1], Value::Int(1501));
}

/// Transfers between accounts from two writer threads while readers sum the balances under
/// SNAPSHOT (a transaction's snapshot) and READ_COMMITTED_SNAPSHOT (statement snapshots),
/// through a clustered scan, a heap and a nonclustered seek: every read sees a total that
/// some committed state had, never a half-done transfer.
#[test]
fn snapshot_reads_stay_consistent_under_concurrent_transfers() {
    use engine::{CollectSink, Session};
    use std::sync::atomic::{AtomicBool, Ordering};
    let (_d, e, a, _b) = setup("transfers", true);
    a.run("CREATE TABLE acct (id int PRIMARY KEY, bal int); CREATE INDEX ix_bal ON acct (bal); INSERT acct SELECT value, 100 FROM GENERATE_SERIES(1, 200)")
        .ok();
    a.run("CREATE TABLE hacct (id int, bal int); INSERT hacct SELECT value, 100 FROM GENERATE_SERIES(1, 200)")
        .ok();
    let stop = Arc::new(AtomicBool::new(false));
    let mut writers = Vec::new();
    for w in 0..2u64 {
        let (e, stop) = (e.clone(), stop.clone());
        writers.push(std::thread::spawn(move || {
            let mut s = Session::new(e);
            let mut sink = CollectSink::default();
            s.execute_batch("USE snapdb; SET LOCK_TIMEOUT 2000", &mut sink);
            let mut x = w * 7919 + 1;
            let mut done = 0;
            while !stop.load(Ordering::Relaxed) {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let (from, to, amt) = (x % 200 + 1, (x >> 20) % 200 + 1, (x >> 40) % 30);
                let table = if x % 3 == 0 { "hacct" } else { "acct" };
                let mut sink = CollectSink::default();
                s.execute_batch(
                    &format!("BEGIN TRAN; UPDATE {table} SET bal = bal - {amt} WHERE id = {from}; UPDATE {table} SET bal = bal + {amt} WHERE id = {to}; COMMIT"),
                    &mut sink,
                );
                if !sink.errors().is_empty() {
                    s.execute_batch("IF @@TRANCOUNT > 0 ROLLBACK", &mut CollectSink::default());
                } else {
                    done += 1;
                }
            }
            done
        }));
    }
    let mut s = Session::new(e.clone());
    s.execute_batch("USE snapdb", &mut CollectSink::default());
    let reads = [
        "SELECT SUM(bal), COUNT(*) FROM acct",
        "SELECT SUM(bal), COUNT(*) FROM hacct",
        "SELECT SUM(bal), COUNT(*) FROM acct WITH (FORCESEEK) WHERE bal > -100000",
    ];
    let started = std::time::Instant::now();
    let mut n = 0;
    while started.elapsed() < std::time::Duration::from_secs(3) {
        for (i, q) in reads.iter().enumerate() {
            let level = if n % 2 == 0 {
                "SNAPSHOT"
            } else {
                "READ COMMITTED"
            };
            let mut sink = CollectSink::default();
            s.execute_batch(
                &format!("SET TRANSACTION ISOLATION LEVEL {level}; BEGIN TRAN; {q}; {q}; COMMIT"),
                &mut sink,
            );
            assert!(sink.errors().is_empty(), "{q}: {:?}", sink.errors());
            for rs in sink.result_sets() {
                assert_eq!(
                    rs.as_slice(),
                    &[vec![Value::Int(20000), Value::Int(200)]],
                    "{level} read {i}: {q}"
                );
            }
            n += 1;
        }
    }
    stop.store(true, Ordering::Relaxed);
    let transfers: u64 = writers.into_iter().map(|w| w.join().unwrap_or(0)).sum();
    assert!(transfers > 10, "{transfers} transfers");
    assert!(n > 6, "{n} reads");
}

/// SQL Server: a SNAPSHOT transaction's UPDATE / DELETE finds its rows in its snapshot. A row
/// another session inserted (and committed) since is not a target, so it is neither changed
/// nor a conflict; a row deleted since is a target, and its write is an update conflict
/// (3960), not a silent skip. Clustered table and heap, through a seek and a scan.
#[test]
fn snapshot_update_and_delete_find_their_targets_in_the_snapshot() {
    let (_d, _e, a, b) = setup("targets", false);
    a.run("CREATE TABLE h (id int, v int); INSERT h VALUES (1, 10), (2, 20)")
        .ok();
    level(&b, "SNAPSHOT");
    for table in ["t", "h"] {
        assert_eq!(
            b.run(&format!("BEGIN TRAN; SELECT COUNT(*) FROM {table}"))
                .int(),
            2
        );
        a.run(&format!("INSERT {table} VALUES (3, 30)")).ok();
        // the scan's predicate holds for the new row too, but it is not in the snapshot
        assert_eq!(
            b.run(&format!(
                "UPDATE {table} SET v = v + 1 WHERE v >= 10; SELECT @@ROWCOUNT"
            ))
            .int(),
            2,
            "{table}: only the rows of the snapshot are updated"
        );
        assert_eq!(
            b.run(&format!("DELETE {table} WHERE id = 3; SELECT @@ROWCOUNT"))
                .int(),
            0,
            "{table}: the new row is not a target"
        );
        b.run("COMMIT").ok();
        assert_eq!(
            ints(&a.run(&format!("SELECT v FROM {table} ORDER BY id"))),
            vec![11, 21, 30],
            "{table}"
        );
        a.run(&format!("DELETE {table} WHERE id = 3")).ok();
    }
    for (table, stmt) in [
        ("t", "UPDATE t SET v = 0 WHERE id = 2"),
        ("t", "DELETE t WHERE v = 21"),
        ("h", "UPDATE h SET v = 0 WHERE v = 21"),
        ("h", "DELETE h WHERE id = 2"),
    ] {
        assert_eq!(
            b.run(&format!("BEGIN TRAN; SELECT COUNT(*) FROM {table}"))
                .int(),
            2
        );
        // deleted (and committed) after the snapshot began: a conflict
        a.run(&format!("DELETE {table} WHERE id = 2")).ok();
        let out = b.run(&format!("{stmt}; SELECT 'not reached'"));
        assert_eq!(out.error(), 3960, "{stmt}");
        assert_eq!(b.run("SELECT @@TRANCOUNT").int(), 0, "{stmt}: rolled back");
        a.run(&format!("INSERT {table} VALUES (2, 21)")).ok();
    }
}

/// READ_COMMITTED_SNAPSHOT's UPDATE reads the current committed rows with update locks (not
/// the statement's snapshot): a row committed by another session before the UPDATE runs is
/// found, a row changed away from the predicate is not.
#[test]
fn read_committed_snapshot_update_targets_the_current_committed_rows() {
    let (_d, _e, a, b) = setup("rcsi-targets", true);
    b.run("BEGIN TRAN; SELECT COUNT(*) FROM t").ok();
    a.run("INSERT t VALUES (3, 10); UPDATE t SET v = 11 WHERE id = 1")
        .ok();
    assert_eq!(
        b.run("UPDATE t SET v = 0 WHERE v = 10; SELECT @@ROWCOUNT")
            .int(),
        1,
        "only the row that is 10 now"
    );
    b.run("COMMIT").ok();
    assert_eq!(ints(&a.run("SELECT v FROM t ORDER BY id")), vec![11, 20, 0]);
    // an open writer holds its row: the UPDATE waits, then sees the committed value
    a.run("BEGIN TRAN; UPDATE t SET v = 10 WHERE id = 2").ok();
    b.blocks("UPDATE t SET v = -1 WHERE v = 10");
    a.run("COMMIT").ok();
    b.finish().ok();
    assert_eq!(ints(&a.run("SELECT v FROM t ORDER BY id")), vec![11, -1, 0]);
}

/// Msg 3961: metadata is not versioned, so a SNAPSHOT transaction may not use a table that
/// another transaction created or altered after its snapshot began; the error ends the
/// transaction. Tables not changed, and the transaction's own new tables, stay usable.
#[test]
fn snapshot_transactions_fail_on_tables_changed_by_ddl_since_their_snapshot() {
    let (_d, _e, a, b) = setup("ddl", false);
    a.run("CREATE TABLE other (x int)").ok();
    level(&b, "SNAPSHOT");
    assert_eq!(b.run("BEGIN TRAN; SELECT COUNT(*) FROM t").int(), 2);
    a.run("ALTER TABLE other ADD y int NULL").ok();
    assert_eq!(b.run("SELECT COUNT(*) FROM t").int(), 2, "t is unchanged");
    a.run("ALTER TABLE t ADD c int NULL").ok();
    let out = b.run("SELECT COUNT(*) FROM t; SELECT 'not reached'");
    assert_eq!(out.error(), 3961);
    assert!(
        out.errors[0].1.starts_with(
            "Snapshot isolation transaction failed in database 'snapdb' because the object accessed by the statement has been modified by a DDL statement in another concurrent transaction since the start of this transaction."
        ),
        "{:?}",
        out.errors
    );
    assert!(out.rows.is_empty(), "3961 ends the batch");
    assert_eq!(b.run("SELECT @@TRANCOUNT").int(), 0, "and the transaction");
    // a new snapshot begins after the ALTER: fine
    assert_eq!(b.run("BEGIN TRAN; SELECT COUNT(*) FROM t").int(), 2);
    // a table created after the snapshot began
    a.run("CREATE TABLE n (x int); INSERT n VALUES (1)").ok();
    assert_eq!(b.run("SELECT COUNT(*) FROM n").error(), 3961);
    // the transaction's own DDL does not count
    assert_eq!(b.run("BEGIN TRAN; SELECT COUNT(*) FROM t").int(), 2);
    b.run("CREATE TABLE mine (x int); INSERT mine VALUES (1), (2)")
        .ok();
    assert_eq!(b.run("SELECT COUNT(*) FROM mine").int(), 2);
    b.run("COMMIT").ok();
    // an UPDATE is an access too
    assert_eq!(b.run("BEGIN TRAN; SELECT COUNT(*) FROM t").int(), 2);
    a.run("CREATE INDEX ix_v ON t (v)").ok();
    assert_eq!(b.run("UPDATE t SET v = 0 WHERE id = 1").error(), 3961);
    assert_eq!(a.run("SELECT v FROM t WHERE id = 1").int(), 10);
}
