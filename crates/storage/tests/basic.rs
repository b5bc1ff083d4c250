use std::ops::Bound;

use storage::*;

fn cfg() -> StorageConfig {
    StorageConfig {
        buffer_pool_bytes: 4 << 20,
        ..Default::default()
    }
}

fn collect(s: &mut BTreeScan) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut b = RowBatch::new();
    let mut v = Vec::new();
    while s.next_batch(&mut b).unwrap() {
        for i in 0..b.len() {
            v.push((b.key(i).to_vec(), b.record(i).to_vec()));
        }
    }
    v
}

#[test]
fn btree_basic_and_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let id;
    {
        let db = Database::open(dir.path(), cfg()).unwrap();
        let mut t = db.begin().unwrap();
        id = db.create_btree(&mut t).unwrap();
        let bt = db.btree(id).unwrap();
        for i in 0..5000u32 {
            let k = format!("key{:08}", i * 7919 % 5000);
            assert!(bt.insert(&mut t, k.as_bytes(), &vec![i as u8; 100]).unwrap());
        }
        assert!(!bt.insert(&mut t, b"key00000001", b"x").unwrap());
        t.commit().unwrap();
        assert_eq!(db.check().unwrap(), Vec::<String>::new());
        let all = collect(&mut bt.range(Bound::Unbounded, Bound::Unbounded, ScanDirection::Forward).unwrap());
        assert_eq!(all.len(), 5000);
        assert!(all.windows(2).all(|w| w[0].0 < w[1].0));
        let back = collect(&mut bt.range(Bound::Unbounded, Bound::Unbounded, ScanDirection::Backward).unwrap());
        assert_eq!(back.len(), 5000);
        assert!(back.windows(2).all(|w| w[0].0 > w[1].0));
        // big value -> LOB
        let mut t = db.begin().unwrap();
        let big = vec![42u8; 30000];
        bt.upsert(&mut t, b"key00000010", &big).unwrap();
        t.commit().unwrap();
        assert_eq!(bt.get(b"key00000010").unwrap().unwrap(), big);
        // aborted change disappears
        let mut t = db.begin().unwrap();
        bt.delete(&mut t, b"key00000011").unwrap();
        bt.insert(&mut t, b"zzz", b"new").unwrap();
        t.abort().unwrap();
        assert!(bt.get(b"key00000011").unwrap().is_some());
        assert!(bt.get(b"zzz").unwrap().is_none());
        assert_eq!(db.check().unwrap(), Vec::<String>::new());
    }
    let db = Database::open(dir.path(), cfg()).unwrap();
    let bt = db.btree(id).unwrap();
    assert_eq!(bt.get(b"key00000010").unwrap().unwrap(), vec![42u8; 30000]);
    assert_eq!(bt.get(b"key00000001").unwrap().unwrap().len(), 100);
    assert!(bt.get(b"zzz").unwrap().is_none());
    let all = collect(&mut bt.range(Bound::Unbounded, Bound::Unbounded, ScanDirection::Forward).unwrap());
    assert_eq!(all.len(), 5000);
    assert_eq!(db.check().unwrap(), Vec::<String>::new());
}

#[test]
fn heap_basic_and_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let id;
    let mut rids = Vec::new();
    {
        let db = Database::open(dir.path(), cfg()).unwrap();
        let mut t = db.begin().unwrap();
        id = db.create_heap(&mut t).unwrap();
        let h = db.heap(id).unwrap();
        for i in 0..3000u32 {
            let len = if i % 500 == 0 { 20000 } else { 50 + (i as usize % 300) };
            rids.push((h.insert(&mut t, &vec![(i % 251) as u8; len]).unwrap(), i, len));
        }
        t.commit().unwrap();
        let mut t = db.begin().unwrap();
        assert!(h.delete(&mut t, rids[5].0).unwrap());
        t.commit().unwrap();
        rids.remove(5);
        assert_eq!(db.check().unwrap(), Vec::<String>::new());
    }
    let db = Database::open(dir.path(), cfg()).unwrap();
    let h = db.heap(id).unwrap();
    for (rid, i, len) in &rids {
        assert_eq!(h.get(*rid).unwrap().unwrap(), vec![(*i % 251) as u8; *len]);
    }
    let mut s = h.scan().unwrap();
    let mut b = RowBatch::new();
    let mut n = 0;
    while s.next_batch(&mut b).unwrap() {
        n += b.len();
    }
    assert_eq!(n, rids.len());
    assert_eq!(db.check().unwrap(), Vec::<String>::new());
}
