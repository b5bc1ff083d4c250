//! Morsel-driven scans (`storage::morsel`): workers claiming morsels concurrently visit every
//! row of a heap and every entry of a B-tree exactly once (LOB rows included, read after the
//! latch is released), and their slot counts add up to the row count — with a pool much
//! smaller than the table, so morsels are read ahead from disk while others are scanned.

use std::collections::HashMap;
use std::sync::Arc;

use storage::morsel::{MorselScan, MorselSource};
use storage::*;

fn cfg() -> StorageConfig {
    StorageConfig {
        buffer_pool_bytes: 2 << 20,
        ..Default::default()
    }
}

/// Runs `workers` threads over `src`; returns every (locator, record) visited.
fn visit_all(src: &Arc<MorselSource>, workers: usize) -> Vec<(Vec<u8>, Vec<u8>)> {
    let handles: Vec<_> = (0..workers)
        .map(|_| {
            let mut scan: MorselScan = src.scanner();
            std::thread::spawn(move || {
                let mut seen = Vec::new();
                while scan
                    .visit_next(&mut |rec, loc| {
                        seen.push((loc.to_vec(), rec.to_vec()));
                        Ok(())
                    })
                    .unwrap()
                {}
                (seen, scan.morsels_claimed())
            })
        })
        .collect();
    let mut all = Vec::new();
    let mut claimed = 0;
    for h in handles {
        let (seen, n) = h.join().unwrap();
        claimed += n;
        all.extend(seen);
    }
    assert_eq!(
        claimed as usize,
        src.page_count().div_ceil(src.morsel_pages()),
        "every morsel claimed once"
    );
    all
}

fn count_all(src: &Arc<MorselSource>, workers: usize) -> u64 {
    let handles: Vec<_> = (0..workers)
        .map(|_| {
            let mut scan = src.scanner();
            std::thread::spawn(move || scan.count(None).unwrap())
        })
        .collect();
    handles.into_iter().map(|h| h.join().unwrap()).sum()
}

#[test]
fn heap_and_btree_morsels_visit_each_row_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(dir.path(), cfg()).unwrap();
    let mut t = db.begin().unwrap();
    let hid = db.create_heap(&mut t).unwrap();
    let bid = db.create_btree(&mut t).unwrap();
    let heap = db.heap(hid).unwrap();
    let bt = db.btree(bid).unwrap();
    let mut expected = HashMap::new();
    for i in 0..20_000u32 {
        let rec = if i.is_multiple_of(997) {
            vec![(i % 251) as u8; 12_000] // LOB row
        } else {
            format!("row {i:06} {}", "p".repeat((i % 90) as usize)).into_bytes()
        };
        let rid = heap.insert(&mut t, &rec).unwrap();
        expected.insert(rid.to_bytes().to_vec(), rec.clone());
        bt.insert(&mut t, format!("k{i:08}").as_bytes(), &rec)
            .unwrap();
    }
    t.commit().unwrap();

    for workers in [1, 2, 3] {
        let src = heap.morsels(workers).unwrap();
        assert!(src.page_count() > 100, "{} pages", src.page_count());
        let seen = visit_all(&src, workers);
        assert_eq!(seen.len(), expected.len(), "heap, {workers} workers");
        let got: HashMap<_, _> = seen.into_iter().collect();
        assert_eq!(got, expected, "heap: each row once, LOB rows whole");
        assert_eq!(count_all(&heap.morsels(workers).unwrap(), workers), 20_000);

        let src = bt.morsels(workers).unwrap();
        let seen = visit_all(&src, workers);
        assert_eq!(seen.len(), 20_000, "btree, {workers} workers");
        let keys: std::collections::HashSet<_> = seen.iter().map(|(k, _)| k.clone()).collect();
        assert_eq!(keys.len(), 20_000, "btree: each entry once");
        for (k, v) in &seen {
            let i: u32 = std::str::from_utf8(&k[1..]).unwrap().parse().unwrap();
            if i.is_multiple_of(997) {
                assert_eq!(v.len(), 12_000, "LOB value read whole");
            }
        }
        assert_eq!(count_all(&bt.morsels(workers).unwrap(), workers), 20_000);
    }
}
