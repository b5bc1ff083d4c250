//! OPTIMIZE_FOR_SEQUENTIAL_KEY's flow control (btree/README S4): concurrent ascending-key
//! inserts through handles with the option wait on BTREE_INSERT_FLOW_CONTROL when more than
//! the admitted number arrive at the end of the index; without the option they never do.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

use storage::*;

fn flow_control_waits() -> u64 {
    common::waits::snapshot()
        .into_iter()
        .find(|w| w.wait_type == "BTREE_INSERT_FLOW_CONTROL")
        .map(|w| w.waiting_tasks_count)
        .unwrap_or(0)
}

/// `threads` threads insert ascending keys (one shared counter) into `bt`, 50 per
/// transaction; returns how many keys went in.
fn ascending_inserts(db: &Arc<Database>, bt: &BTree, threads: u64, per_thread: u64) -> u64 {
    ascending_inserts_from(db, bt, threads, per_thread, 1)
}

/// [`ascending_inserts`] of the keys from `first` on.
fn ascending_inserts_from(
    db: &Arc<Database>,
    bt: &BTree,
    threads: u64,
    per_thread: u64,
    first: u64,
) -> u64 {
    let next = Arc::new(AtomicU64::new(first));
    let start = Arc::new(std::sync::Barrier::new(threads as usize));
    std::thread::scope(|s| {
        for _ in 0..threads {
            let (db, bt, next, start) = (db.clone(), bt.clone(), next.clone(), start.clone());
            s.spawn(move || {
                start.wait(); // all at once: the inserts overlap
                let mut t = db.begin().unwrap();
                for i in 0..per_thread {
                    let k = next.fetch_add(1, Relaxed);
                    assert!(bt.insert(&mut t, &k.to_be_bytes(), &[7u8; 60]).unwrap());
                    if i % 50 == 49 {
                        t.commit_lazy().unwrap();
                        t = db.begin().unwrap();
                    }
                }
                t.commit_lazy().unwrap();
            });
        }
    });
    next.load(Relaxed) - first
}

#[test]
fn flow_control_gates_appends_only_with_the_option() {
    let dir = tempfile::tempdir().unwrap();
    let db = Arc::new(
        Database::open(
            dir.path(),
            StorageConfig {
                buffer_pool_bytes: 16 << 20,
                sync_commit: false,
                ..Default::default()
            },
        )
        .unwrap(),
    );
    // one inserter at a time at the end of the index: any overlap of two threads waits
    db.set_sequential_key_admission(1);
    let mut t = db.begin().unwrap();
    let off_id = db.create_btree(&mut t).unwrap();
    let on_id = db.create_btree(&mut t).unwrap();
    t.commit().unwrap();

    let before = flow_control_waits();
    let off = db.btree(off_id).unwrap().with_sequential_key(false);
    let n = ascending_inserts(&db, &off, 8, 1000);
    assert_eq!(
        flow_control_waits(),
        before,
        "no flow control without OPTIMIZE_FOR_SEQUENTIAL_KEY"
    );

    let on = db.btree(on_id).unwrap().with_sequential_key(true);
    // two threads inside one insert at the same instant is likely in a round, not certain (a
    // thread can finish its inserts before the next one starts): up to 20 rounds
    let mut m = 0;
    for _ in 0..20 {
        let next = m + 1;
        m += ascending_inserts_from(&db, &on, 8, 1000, next);
        if flow_control_waits() > before {
            break;
        }
    }
    assert!(
        flow_control_waits() > before,
        "8 threads appending through an admission of 1 must wait on BTREE_INSERT_FLOW_CONTROL"
    );

    // both trees hold every key, in order, and are consistent
    for (bt, want) in [(&off, n), (&on, m)] {
        let mut scan = bt
            .range(
                std::ops::Bound::Unbounded,
                std::ops::Bound::Unbounded,
                ScanDirection::Forward,
            )
            .unwrap();
        let (mut b, mut count) = (RowBatch::new(), 0u64);
        while scan.next_batch(&mut b).unwrap() {
            for i in 0..b.len() {
                count += 1;
                assert_eq!(b.key(i), count.to_be_bytes());
            }
        }
        assert_eq!(count, want);
    }
    assert_eq!(db.check().unwrap(), Vec::<String>::new());
}

/// btree/README S3b: an ascending key that arrives after a higher one (two sessions took
/// identity values in one order and insert them in the other) goes into the rightmost leaf
/// through the append path, one page fix, instead of a descent from the root; a key that is
/// already there is still refused.
#[test]
fn a_late_ascending_key_is_inserted_in_the_last_leaf_without_a_descent() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(
        dir.path(),
        StorageConfig {
            buffer_pool_bytes: 16 << 20,
            sync_commit: false,
            ..Default::default()
        },
    )
    .unwrap();
    let mut t = db.begin().unwrap();
    let id = db.create_btree(&mut t).unwrap();
    let bt = db.btree(id).unwrap();
    // a tree of two levels whose last leaf has room: keys 10, 20, ..., 4000, then 3995
    for k in 1..=400u64 {
        assert!(bt
            .insert(&mut t, &(k * 10).to_be_bytes(), &[1u8; 60])
            .unwrap());
    }
    let fixes = || storage::objio::thread_io().totals().logical_reads;
    let before = fixes();
    assert!(bt
        .insert(&mut t, &3995u64.to_be_bytes(), &[2u8; 60])
        .unwrap());
    assert_eq!(
        fixes() - before,
        1,
        "the late key took the append path (one page fix)"
    );
    let before = fixes();
    assert!(!bt
        .insert(&mut t, &3995u64.to_be_bytes(), &[3u8; 60])
        .unwrap());
    assert_eq!(fixes() - before, 1, "a duplicate is found on the same page");
    t.commit().unwrap();
    let mut scan = bt
        .range(
            std::ops::Bound::Unbounded,
            std::ops::Bound::Unbounded,
            ScanDirection::Forward,
        )
        .unwrap();
    let (mut b, mut keys) = (RowBatch::new(), Vec::new());
    while scan.next_batch(&mut b).unwrap() {
        for i in 0..b.len() {
            keys.push(u64::from_be_bytes(b.key(i).try_into().unwrap()));
        }
    }
    let mut want: Vec<u64> = (1..=400).map(|k| k * 10).collect();
    want.insert(want.len() - 1, 3995);
    assert_eq!(keys, want);
    assert_eq!(db.check().unwrap(), Vec::<String>::new());
}
