//! Many threads inserting into one B-tree at once, so that splits (of the last leaf above all,
//! btree/README S2/L3) overlap with inserts that wait for the leaf being split and start over:
//! every key inserted once, in order, and the tree's invariants hold (`Database::check`, the
//! DBCC CHECKTABLE of storage). A small buffer pool makes pages leave and come back while
//! they run (the sharded page map, buffer/README B12).

use std::ops::Bound;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

use storage::*;

fn open(dir: &std::path::Path) -> Arc<Database> {
    Database::open(
        dir,
        StorageConfig {
            buffer_pool_bytes: 1 << 20, // 128 frames: eviction while the splits run
            sync_commit: false,
            ..Default::default()
        },
    )
    .unwrap()
}

/// Every key of the tree, in scan order.
fn keys(bt: &BTree) -> Vec<Vec<u8>> {
    let mut s = bt
        .range(Bound::Unbounded, Bound::Unbounded, ScanDirection::Forward)
        .unwrap();
    let mut b = RowBatch::new();
    let mut out = Vec::new();
    loop {
        b.clear();
        let more = s.next_batch(&mut b).unwrap();
        for i in 0..b.len() {
            out.push(b.key(i).to_vec());
        }
        if !more {
            return out;
        }
    }
}

/// `threads` threads take keys from one ascending counter (as sessions take IDENTITY values)
/// and insert them, 50 per transaction.
#[test]
fn ascending_keys_from_many_threads() {
    let dir = tempfile::tempdir().unwrap();
    let db = open(dir.path());
    let mut t = db.begin().unwrap();
    let id = db.create_btree(&mut t).unwrap();
    t.commit().unwrap();
    let bt = db.btree(id).unwrap();
    let (threads, per_thread) = (16u64, 1500u64);
    let next = Arc::new(AtomicU64::new(0));
    std::thread::scope(|s| {
        for _ in 0..threads {
            let (db, bt, next) = (db.clone(), bt.clone(), next.clone());
            s.spawn(move || {
                let mut t = db.begin().unwrap();
                for i in 0..per_thread {
                    let k = next.fetch_add(1, Relaxed);
                    assert!(bt.insert(&mut t, &k.to_be_bytes(), &[7u8; 90]).unwrap());
                    if i % 50 == 49 {
                        t.commit_lazy().unwrap();
                        t = db.begin().unwrap();
                    }
                }
                t.commit_lazy().unwrap();
            });
        }
    });
    let want: Vec<Vec<u8>> = (0..threads * per_thread)
        .map(|k| k.to_be_bytes().to_vec())
        .collect();
    assert!(keys(&bt) == want, "keys lost, duplicated or out of order");
    assert_eq!(db.check().unwrap(), Vec::<String>::new());
}

/// Ascending appends at the end and inserts spread over the whole key range (splits in the
/// middle, whose right sibling is latched too) at once, with deletes of some of them.
#[test]
fn appends_and_middle_inserts_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = open(dir.path());
    let mut t = db.begin().unwrap();
    let id = db.create_btree(&mut t).unwrap();
    t.commit().unwrap();
    let bt = db.btree(id).unwrap();
    let (threads, per_thread) = (8u64, 1200u64);
    let next = Arc::new(AtomicU64::new(1 << 40));
    let kept: Vec<Vec<u64>> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..threads)
            .map(|th| {
                let (db, bt, next) = (db.clone(), bt.clone(), next.clone());
                s.spawn(move || {
                    let mut mine = Vec::new();
                    let mut t = db.begin().unwrap();
                    let mut x = th.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
                    for i in 0..per_thread {
                        let k = if th % 2 == 0 {
                            next.fetch_add(1, Relaxed)
                        } else {
                            // a xorshift spread below the appends, unique per thread
                            x ^= x << 13;
                            x ^= x >> 7;
                            x ^= x << 17;
                            ((x % (1 << 30)) << 4) | th
                        };
                        if !bt
                            .insert(&mut t, &k.to_be_bytes(), &[th as u8; 120])
                            .unwrap()
                        {
                            continue; // a repeat of the generator: already in
                        }
                        if i % 7 == 3 {
                            assert!(bt.delete(&mut t, &k.to_be_bytes()).unwrap());
                        } else {
                            mine.push(k);
                        }
                        if i % 40 == 39 {
                            t.commit_lazy().unwrap();
                            t = db.begin().unwrap();
                        }
                    }
                    t.commit_lazy().unwrap();
                    mine
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut want: Vec<Vec<u8>> = kept
        .into_iter()
        .flatten()
        .map(|k| k.to_be_bytes().to_vec())
        .collect();
    want.sort();
    want.dedup();
    assert!(keys(&bt) == want, "keys lost, duplicated or out of order");
    assert_eq!(db.check().unwrap(), Vec::<String>::new());
}
