//! Disk contents never cause a panic (CONVENTIONS item 8): pages are corrupted in ways the
//! checksum does not catch (random bytes, then re-sealed with a valid checksum) and every read
//! path (get, scans both ways, heap scan, check) must return data or an error, never panic.

use std::ops::Bound;

use proptest::prelude::*;
use storage::page;
use storage::*;

fn build(dir: &std::path::Path) -> (ObjId, ObjId) {
    let db = Database::open(
        dir,
        StorageConfig {
            buffer_pool_bytes: 1 << 20,
            sync_commit: false,
            ..Default::default()
        },
    )
    .unwrap();
    let mut t = db.begin().unwrap();
    let b = db.create_btree(&mut t).unwrap();
    let h = db.create_heap(&mut t).unwrap();
    for i in 0..600u32 {
        let v = if i % 97 == 0 {
            vec![1u8; 9000]
        } else {
            vec![2u8; 60]
        };
        db.btree(b)
            .unwrap()
            .insert(&mut t, &i.to_be_bytes(), &v)
            .unwrap();
        db.heap(h).unwrap().insert(&mut t, &v).unwrap();
    }
    t.commit().unwrap();
    (b, h)
}

fn exercise(dir: &std::path::Path, b: ObjId, h: ObjId) {
    let Ok(db) = Database::open(
        dir,
        StorageConfig {
            buffer_pool_bytes: 1 << 20,
            ..Default::default()
        },
    ) else {
        return;
    };
    let mut batch = RowBatch::new();
    if let Ok(bt) = db.btree(b) {
        for k in [0u32, 5, 97, 300, 599, 1000] {
            let _ = bt.get(&k.to_be_bytes());
        }
        for dir in [ScanDirection::Forward, ScanDirection::Backward] {
            if let Ok(mut s) = bt.range(Bound::Unbounded, Bound::Unbounded, dir) {
                for _ in 0..10_000 {
                    match s.next_batch(&mut batch) {
                        Ok(true) => {}
                        _ => break,
                    }
                }
            }
        }
    }
    if let Ok(hp) = db.heap(h) {
        if let Ok(mut s) = hp.scan() {
            for _ in 0..10_000 {
                match s.next_batch(&mut batch) {
                    Ok(true) => {}
                    _ => break,
                }
            }
        }
    }
    let _ = db.check();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: std::env::var("LATCHKEY_FUZZ_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(40), .. ProptestConfig::default() })]

    #[test]
    fn resealed_garbage_never_panics(page_pick in 0usize..1000, edits in prop::collection::vec((prop_oneof![12usize..96, 7900usize..8192, 96usize..8192], any::<u8>()), 1..12)) {
        let dir = tempfile::tempdir().unwrap();
        let (b, h) = build(dir.path());
        let path = dir.path().join("data1.mdf");
        let mut bytes = std::fs::read(&path).unwrap();
        let npages = bytes.len() / 8192;
        let p = 8 + page_pick % (npages - 8);
        let pg = &mut bytes[p * 8192..(p + 1) * 8192];
        for (at, v) in &edits {
            if *at >= 12 { // keep checksum/page id/type so the page passes verify
                pg[*at] = *v;
            }
        }
        let mut buf = [0u8; 8192];
        buf.copy_from_slice(pg);
        page::seal(&mut buf);
        pg.copy_from_slice(&buf);
        std::fs::write(&path, &bytes).unwrap();
        exercise(dir.path(), b, h);
    }
}
