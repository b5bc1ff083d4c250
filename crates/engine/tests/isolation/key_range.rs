//! Key-range locks under SERIALIZABLE, two sessions: a range reader keeps inserts out of the
//! range it read (and out of the gap up to the next key) but not elsewhere; a missing key
//! locks the next key; two range readers inserting into each other's range deadlock (1205);
//! sys.dm_tran_locks shows RangeS-S, RangeI-N, RangeX-X and the end-of-index key; heaps keep
//! the table lock; past 5,000 keys the range locks escalate to the object.

use std::sync::Arc;

use engine::Engine;

use super::support::TempDir;
use super::{engine, level, Actor};

/// Table `r (id int primary key, v int)` with ids 5, 10, 15, 20, 25, 30, 2000, and two
/// actors, A at SERIALIZABLE.
fn setup(tag: &str) -> (TempDir, Arc<Engine>, Actor, Actor) {
    let (d, e) = engine(&format!("krange-{tag}"));
    let a = Actor::new("A", &e);
    let b = Actor::new("B", &e);
    a.run(
        "CREATE TABLE r (id int PRIMARY KEY, v int);
         INSERT r VALUES (5, 0), (10, 0), (15, 0), (20, 0), (25, 0), (30, 0), (2000, 0);",
    )
    .ok();
    level(&a, "SERIALIZABLE");
    (d, e, a, b)
}

fn count_locks(a: &Actor, spid: i64, filter: &str) -> i64 {
    a.run(&format!(
        "SELECT COUNT(*) FROM sys.dm_tran_locks WHERE request_session_id = {spid} AND {filter}"
    ))
    .int()
}

#[test]
fn range_reader_blocks_inserts_in_its_range_only() {
    let (_d, _e, a, b) = setup("range");
    assert_eq!(
        a.run("BEGIN TRAN; SELECT COUNT(*) FROM r WHERE id BETWEEN 10 AND 20")
            .int(),
        3
    );
    // far outside the range, and below it (the gap under 10 ends at 5, which is not locked)
    b.run("INSERT r VALUES (1000, 0)").ok();
    b.run("INSERT r VALUES (1, 0)").ok();
    // inside the range: waits, and the reader sees no phantom meanwhile
    b.blocks("INSERT r VALUES (12, 0)");
    assert_eq!(
        a.run("SELECT COUNT(*) FROM r WHERE id BETWEEN 10 AND 20")
            .int(),
        3,
        "no phantom"
    );
    a.run("COMMIT").ok();
    b.finish().ok();

    // the gap past the range up to the next key (25) is locked too
    assert_eq!(
        a.run("BEGIN TRAN; SELECT COUNT(*) FROM r WHERE id BETWEEN 10 AND 20")
            .int(),
        4
    );
    b.blocks("INSERT r VALUES (22, 0)");
    a.run("COMMIT").ok();
    b.finish().ok();

    // a backward range scan locks the same keys
    a.run("BEGIN TRAN; SELECT TOP (10) id FROM r WHERE id BETWEEN 10 AND 20 ORDER BY id DESC")
        .ok();
    b.run("INSERT r VALUES (1500, 0)").ok();
    b.blocks("INSERT r VALUES (11, 0)");
    a.run("COMMIT").ok();
    b.finish().ok();
}

#[test]
fn a_missing_key_locks_the_next_key() {
    let (_d, _e, a, b) = setup("missing");
    let out = a.run("BEGIN TRAN; SELECT v FROM r WHERE id = 17");
    out.ok();
    assert!(out.rows.is_empty());
    // 17 would go below 20: the range lock on 20 keeps it (and 18) out
    b.run("INSERT r VALUES (21, 0)").ok();
    b.run("INSERT r VALUES (14, 0)").ok();
    b.blocks("INSERT r VALUES (17, 0)");
    assert!(a.run("SELECT v FROM r WHERE id = 17").rows.is_empty());
    a.run("COMMIT").ok();
    b.finish().ok();
    // a key found by an equality seek of the unique key locks only that key
    a.run("BEGIN TRAN; SELECT v FROM r WHERE id = 20").ok();
    b.run("INSERT r VALUES (19, 0)").ok();
    b.run("INSERT r VALUES (22, 0)").ok();
    a.run("COMMIT").ok();
    // past the last key: the end of the index is locked
    a.run("BEGIN TRAN; SELECT v FROM r WHERE id > 5000").ok();
    b.run("INSERT r VALUES (1900, 0)").ok();
    b.blocks("INSERT r VALUES (9000, 0)");
    a.run("COMMIT").ok();
    b.finish().ok();
}

#[test]
fn range_readers_inserting_into_each_others_range_deadlock() {
    let (_d, _e, a, b) = setup("deadlock");
    level(&b, "SERIALIZABLE");
    a.run("BEGIN TRAN; SELECT COUNT(*) FROM r WHERE id BETWEEN 10 AND 20")
        .ok();
    b.run("BEGIN TRAN; SELECT COUNT(*) FROM r WHERE id BETWEEN 26 AND 30")
        .ok();
    // A's insert goes below 30, which B range-locked; B's below 15, which A did
    a.blocks("INSERT r VALUES (28, 0)");
    b.start("INSERT r VALUES (12, 0)");
    let (oa, ob) = (a.finish(), b.finish());
    let victims: Vec<i32> = [&oa, &ob]
        .iter()
        .flat_map(|o| o.errors.iter().map(|e| e.0))
        .collect();
    assert_eq!(victims, vec![1205], "{oa:?} {ob:?}");
    a.run("IF @@TRANCOUNT > 0 COMMIT").ok();
    b.run("IF @@TRANCOUNT > 0 COMMIT").ok();
    // exactly one of the two inserts survived
    assert_eq!(
        a.run("SELECT COUNT(*) FROM r WHERE id IN (12, 28)").int(),
        1
    );
}

#[test]
fn dm_tran_locks_shows_range_modes() {
    let (_d, _e, a, b) = setup("dmv");
    let spid_a = a.run("SELECT @@SPID").int();
    let spid_b = b.run("SELECT @@SPID").int();
    a.run("BEGIN TRAN; SELECT COUNT(*) FROM r WHERE id BETWEEN 1500 AND 9000")
        .ok();
    // 2000 and the end of the index
    assert_eq!(
        count_locks(
            &a,
            spid_a,
            "resource_type = 'KEY' AND request_mode = 'RangeS-S'"
        ),
        2
    );
    assert_eq!(
        count_locks(
            &a,
            spid_a,
            "request_mode = 'RangeS-S' AND resource_description = '(ffffffffffff)'"
        ),
        1
    );
    assert_eq!(
        count_locks(
            &a,
            spid_a,
            "resource_type = 'OBJECT' AND request_mode = 'IS'"
        ),
        1
    );
    // an insert past 2000 waits for RangeI-N on the end of the index
    b.blocks("BEGIN TRAN; INSERT r VALUES (5000, 0)");
    assert_eq!(
        count_locks(
            &a,
            spid_b,
            "request_mode = 'RangeI-N' AND request_status = 'WAIT' AND resource_description = '(ffffffffffff)'"
        ),
        1
    );
    assert_eq!(
        a.run(&format!(
            "SELECT COUNT(*) FROM sys.dm_os_waiting_tasks WHERE session_id = {spid_b} AND wait_type = 'LCK_M_RIn_NL'"
        ))
        .int(),
        1
    );
    a.run("COMMIT").ok();
    b.finish().ok();
    // the insert's RangeI-N lasted while the key went in: only its X on the new key stays
    assert_eq!(count_locks(&a, spid_b, "request_mode = 'RangeI-N'"), 0);
    assert_eq!(
        count_locks(&a, spid_b, "resource_type = 'KEY' AND request_mode = 'X'"),
        1
    );
    b.run("COMMIT").ok();
    // a SERIALIZABLE update of a range: RangeX-X on the keys it changed, RangeS-U on the rest
    a.run("BEGIN TRAN; UPDATE r SET v = 1 WHERE id BETWEEN 10 AND 15 AND v = 0")
        .ok();
    assert_eq!(count_locks(&a, spid_a, "request_mode = 'RangeX-X'"), 2);
    assert!(count_locks(&a, spid_a, "request_mode = 'RangeS-U'") >= 1);
    b.blocks("INSERT r VALUES (13, 0)");
    a.run("ROLLBACK").ok();
    b.finish().ok();
}

#[test]
fn heaps_keep_the_table_lock() {
    let (_d, e, a, b) = setup("heap");
    let _ = e;
    a.run("CREATE TABLE h (id int, v int); INSERT h VALUES (10, 0), (20, 0);")
        .ok();
    let spid_a = a.run("SELECT @@SPID").int();
    a.run("BEGIN TRAN; SELECT COUNT(*) FROM h WHERE id BETWEEN 10 AND 20")
        .ok();
    assert_eq!(
        count_locks(
            &a,
            spid_a,
            "resource_type = 'OBJECT' AND request_mode = 'S'"
        ),
        1
    );
    b.blocks("INSERT h VALUES (1000, 0)");
    a.run("COMMIT").ok();
    b.finish().ok();
}

#[test]
fn range_locks_escalate_to_the_object() {
    let (_d, _e, a, b) = setup("escalate");
    a.run(
        "INSERT r SELECT n, 0 FROM (SELECT TOP (6000) 3000 + ROW_NUMBER() OVER (ORDER BY (SELECT NULL)) AS n FROM master..spt_values x CROSS JOIN master..spt_values y) s",
    )
    .ok();
    let spid_a = a.run("SELECT @@SPID").int();
    a.run("BEGIN TRAN; SELECT COUNT(*) FROM r WHERE id > 2500")
        .ok();
    assert_eq!(
        count_locks(
            &a,
            spid_a,
            "resource_type = 'OBJECT' AND request_mode = 'S'"
        ),
        1
    );
    assert!(count_locks(&a, spid_a, "resource_type = 'KEY'") < 100);
    b.blocks("INSERT r VALUES (2, 0)");
    a.run("COMMIT").ok();
    b.finish().ok();
}

#[test]
fn nonclustered_seeks_lock_their_index_keys() {
    let (_d, _e, a, b) = setup("nc");
    a.run(
        "CREATE TABLE n (id int PRIMARY KEY, v int, w int); CREATE INDEX ix_v ON n (v);
         INSERT n SELECT n, n * 10, 0 FROM (SELECT TOP (300) ROW_NUMBER() OVER (ORDER BY (SELECT NULL)) AS n FROM master..spt_values) s;",
    )
    .ok();
    let spid_a = a.run("SELECT @@SPID").int();
    // v 100..200: ids 10..20
    assert_eq!(
        a.run("BEGIN TRAN; SELECT COUNT(*) FROM n WITH (INDEX (ix_v)) WHERE v BETWEEN 100 AND 200")
            .int(),
        11
    );
    assert_eq!(
        count_locks(
            &a,
            spid_a,
            "resource_type = 'KEY' AND request_mode = 'RangeS-S'"
        ),
        12,
        "every index key read and the next one"
    );
    assert_eq!(
        count_locks(&a, spid_a, "resource_type = 'KEY' AND request_mode = 'S'"),
        11,
        "the rows looked up"
    );
    // far outside the index range, whatever the clustered key
    b.run("INSERT n VALUES (1000, 99999, 0)").ok();
    b.run("INSERT n VALUES (15000, 5, 0)").ok();
    // inside it: the new index entry's next key is range-locked
    b.blocks("INSERT n VALUES (2000, 150, 0)");
    a.run("COMMIT").ok();
    b.finish().ok();
    // an update that moves a row's index entry into the range waits too
    assert_eq!(
        a.run("BEGIN TRAN; SELECT COUNT(*) FROM n WITH (INDEX (ix_v)) WHERE v BETWEEN 100 AND 200")
            .int(),
        12
    );
    b.run("UPDATE n SET w = 1 WHERE id = 250").ok();
    b.blocks("UPDATE n SET v = 155 WHERE id = 250");
    assert_eq!(
        a.run("SELECT COUNT(*) FROM n WITH (INDEX (ix_v)) WHERE v BETWEEN 100 AND 200")
            .int(),
        12,
        "no phantom"
    );
    a.run("COMMIT").ok();
    b.finish().ok();
}

/// Inserters racing a SERIALIZABLE range reader (the insert's unlocked fast path, the
/// look-again after each lock, the post-insert test): the reader's second count inside its
/// transaction always equals its first. A 1205 (the rare post-insert deadlock) retries.
#[test]
fn no_phantom_while_inserts_race_the_range_reader() {
    use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
    let (_d, e) = engine("krange-race");
    let a = Actor::new("A", &e);
    a.run("CREATE TABLE q (id int PRIMARY KEY, v int); INSERT q VALUES (0, 0), (1000000, 0);")
        .ok();
    let stop = Arc::new(AtomicBool::new(false));
    let next = Arc::new(AtomicI64::new(0));
    let mut inserters = Vec::new();
    for t in 0..2i64 {
        let (e, stop, next) = (e.clone(), stop.clone(), next.clone());
        inserters.push(std::thread::spawn(move || {
            let mut s = engine::Session::new(e);
            while !stop.load(Ordering::Relaxed) {
                // spread over the whole key space, so inserts land inside, next to and
                // outside the reader's ranges
                let n = next.fetch_add(1, Ordering::Relaxed);
                let id = (n * 7919 + t * 104729) % 999_983 + 1;
                let mut sink = engine::CollectSink::default();
                s.execute_batch(&format!("INSERT q VALUES ({id}, 0)"), &mut sink);
            }
        }));
    }
    level(&a, "SERIALIZABLE");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(4);
    let mut checked = 0;
    let mut k = 0i64;
    while std::time::Instant::now() < deadline {
        k += 1;
        let lo = (k * 104_729) % 900_000;
        let hi = lo + 50_000;
        let q = format!("SELECT COUNT(*) FROM q WHERE id BETWEEN {lo} AND {hi}");
        let first = a.run(&format!("BEGIN TRAN; {q}"));
        if first.errors.iter().any(|e| e.0 == 1205) {
            continue;
        }
        let c1 = first.int();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let second = a.run(&q);
        if second.errors.iter().any(|e| e.0 == 1205) {
            continue;
        }
        assert_eq!(second.int(), c1, "phantom in [{lo}, {hi}]");
        a.run("COMMIT").ok();
        checked += 1;
    }
    stop.store(true, Ordering::Relaxed);
    for t in inserters {
        let _ = t.join();
    }
    assert!(checked > 5, "only {checked} reads checked");
    assert!(next.load(Ordering::Relaxed) > 20, "the inserters ran");
}
