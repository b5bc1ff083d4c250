//! `visit_next` and `count` agree with `next_batch` (heaps and B-trees, LOB rows, bounds,
//! both directions, partially consumed scans).

use std::ops::Bound;

use storage::*;

fn cfg() -> StorageConfig {
    StorageConfig {
        buffer_pool_bytes: 4 << 20,
        sync_commit: false,
        ..Default::default()
    }
}

fn val(i: u32) -> Vec<u8> {
    // every 97th row is a LOB (longer than a page)
    let len = if i % 97 == 5 {
        9000 + i as usize
    } else {
        (i % 40) as usize + 1
    };
    vec![(i % 251) as u8; len]
}

fn batches_heap(s: &mut HeapScan) -> Vec<(Vec<u8>, Rid)> {
    let mut b = RowBatch::new();
    let mut v = Vec::new();
    while s.next_batch(&mut b).unwrap() {
        for i in 0..b.len() {
            v.push((b.record(i).to_vec(), b.rid(i)));
        }
    }
    v
}

fn visits_heap(s: &mut HeapScan) -> Vec<(Vec<u8>, Rid)> {
    let mut v = Vec::new();
    while s
        .visit_next(&mut |r, rid| {
            v.push((r.to_vec(), rid));
            Ok(())
        })
        .unwrap()
    {}
    v
}

#[test]
fn heap_visit_and_count() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(dir.path(), cfg()).unwrap();
    let mut t = db.begin().unwrap();
    let h = db.create_heap(&mut t).unwrap();
    let heap = db.heap(h).unwrap();
    let mut rids = Vec::new();
    for i in 0..3000u32 {
        rids.push(heap.insert(&mut t, &val(i)).unwrap());
    }
    // holes: deleted rows are skipped by all three
    for r in rids.iter().step_by(7) {
        assert!(heap.delete(&mut t, *r).unwrap());
    }
    t.commit().unwrap();
    let want = batches_heap(&mut heap.scan().unwrap());
    assert_eq!(want.len(), 3000 - 3000_usize.div_ceil(7));
    assert_eq!(visits_heap(&mut heap.scan().unwrap()), want);
    assert_eq!(heap.scan().unwrap().count().unwrap(), want.len() as u64);
    // a cancelled request stops the slot-count path with the attention error (3617)
    let cancel = common::CancelToken::new();
    let n = heap.scan().unwrap().count_cancellable(Some(&cancel));
    assert_eq!(n.unwrap(), want.len() as u64);
    cancel.cancel();
    let e = heap.scan().unwrap().count_cancellable(Some(&cancel));
    assert!(e.is_err_and(|e| e.is_attention()));
    // count after a partial visit counts the rest only; mixing with next_batch continues
    let mut s = heap.scan().unwrap();
    let mut seen = 0u64;
    for _ in 0..3 {
        s.visit_next(&mut |_, _| {
            seen += 1;
            Ok(())
        })
        .unwrap();
    }
    assert_eq!(seen + s.count().unwrap(), want.len() as u64);
    let mut s = heap.scan().unwrap();
    let mut got = Vec::new();
    // a LOB row ends a visit; the following next_batch resumes on the same page
    for _ in 0..40 {
        s.visit_next(&mut |r, rid| {
            got.push((r.to_vec(), rid));
            Ok(())
        })
        .unwrap();
    }
    got.extend(batches_heap(&mut s));
    assert_eq!(got, want);
    // an error from the visitor stops the scan and comes back
    let mut s = heap.scan().unwrap();
    let e = s
        .visit_next(&mut |_, _| Err(common::SqlError::internal("stop")))
        .unwrap_err();
    assert!(e.message.contains("stop"));
}

fn key(i: u32) -> Vec<u8> {
    format!("k{:06}", i).into_bytes()
}

#[test]
fn btree_visit_and_count() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(dir.path(), cfg()).unwrap();
    let mut t = db.begin().unwrap();
    let b = db.create_btree(&mut t).unwrap();
    let bt = db.btree(b).unwrap();
    for i in 0..5000u32 {
        let i = i * 7919 % 5000;
        assert!(bt.insert(&mut t, &key(i), &val(i)).unwrap());
    }
    t.commit().unwrap();
    let (k10, k4321, kx) = (key(10), key(4321), b"k".to_vec());
    type Range<'a> = (Bound<&'a [u8]>, Bound<&'a [u8]>);
    let bounds: Vec<Range> = vec![
        (Bound::Unbounded, Bound::Unbounded),
        (Bound::Included(&k10), Bound::Excluded(&k4321)),
        (Bound::Excluded(&k10), Bound::Included(&k4321)),
        (Bound::Unbounded, Bound::Included(&k10)),
        (Bound::Excluded(&k4321), Bound::Unbounded),
        (Bound::Included(&kx), Bound::Excluded(&kx)),
    ];
    for (lo, hi) in bounds {
        for dir in [ScanDirection::Forward, ScanDirection::Backward] {
            let mut s = bt.range(lo, hi, dir).unwrap();
            let mut want = Vec::new();
            let mut batch = RowBatch::new();
            while s.next_batch(&mut batch).unwrap() {
                for i in 0..batch.len() {
                    want.push((batch.key(i).to_vec(), batch.record(i).to_vec()));
                }
            }
            let mut got = Vec::new();
            let mut s = bt.range(lo, hi, dir).unwrap();
            while s
                .visit_next(&mut |k, v| {
                    got.push((k.to_vec(), v.to_vec()));
                    Ok(())
                })
                .unwrap()
            {}
            assert_eq!(got, want, "{lo:?} {hi:?} {dir:?}");
            let n = bt.range(lo, hi, dir).unwrap().count().unwrap();
            assert_eq!(n, want.len() as u64, "{lo:?} {hi:?} {dir:?}");
            let cancel = common::CancelToken::new();
            cancel.cancel();
            let e = bt
                .range(lo, hi, dir)
                .unwrap()
                .count_cancellable(Some(&cancel));
            assert!(e.is_err_and(|e| e.is_attention()), "{lo:?} {hi:?} {dir:?}");
            // partially consumed, then counted
            let mut s = bt.range(lo, hi, dir).unwrap();
            let mut seen = 0u64;
            s.visit_next(&mut |_, _| {
                seen += 1;
                Ok(())
            })
            .unwrap();
            assert_eq!(seen + s.count().unwrap(), want.len() as u64);
        }
    }
}
