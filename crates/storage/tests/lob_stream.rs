//! A LOB larger than the buffer pool streams through it: writing, reading, updating, deleting
//! and rolling back a value several times the pool's size never needs more than a bounded
//! number of pages pinned at once, and the value survives a reopen (redo) intact.

use storage::*;

/// A 1 MiB pool (128 pages).
fn tiny_pool() -> StorageConfig {
    StorageConfig {
        buffer_pool_bytes: 1 << 20,
        ..Default::default()
    }
}

/// `n` bytes that differ page to page (a misplaced page shows).
fn value(n: usize, salt: u8) -> Vec<u8> {
    (0..n)
        .map(|i| (i / 7 + i / 8096 * 31 + salt as usize) as u8)
        .collect()
}

#[test]
fn heap_lob_larger_than_the_pool() {
    let dir = tempfile::tempdir().unwrap();
    let big = value(6 << 20, 1);
    let h;
    let rid;
    {
        let db = Database::open(dir.path(), tiny_pool()).unwrap();
        let mut t = db.begin().unwrap();
        h = db.create_heap(&mut t).unwrap();
        let heap = db.heap(h).unwrap();
        rid = heap.insert(&mut t, &big).unwrap();
        let small = heap.insert(&mut t, b"small row").unwrap();
        t.commit().unwrap();
        assert_eq!(heap.get(rid).unwrap().unwrap(), big);
        assert_eq!(heap.get(small).unwrap().unwrap(), b"small row");
        // rolled back: a second big value disappears, its pages come back
        let mut t = db.begin().unwrap();
        let r2 = heap.insert(&mut t, &value(5 << 20, 2)).unwrap();
        t.abort().unwrap();
        assert_eq!(heap.get(r2).unwrap(), None);
        assert_eq!(db.check().unwrap(), Vec::<String>::new());
    }
    // reopen: redo (or the flushed pages) gives the same bytes
    let db = Database::open(dir.path(), tiny_pool()).unwrap();
    let heap = db.heap(h).unwrap();
    assert_eq!(heap.get(rid).unwrap().unwrap(), big);
    let mut t = db.begin().unwrap();
    let bigger = value(7 << 20, 3);
    let rid = heap.update(&mut t, rid, &bigger).unwrap();
    t.commit().unwrap();
    assert_eq!(heap.get(rid).unwrap().unwrap(), bigger);
    let mut t = db.begin().unwrap();
    assert!(heap.delete(&mut t, rid).unwrap());
    t.commit().unwrap();
    assert_eq!(heap.get(rid).unwrap(), None);
    assert_eq!(db.check().unwrap(), Vec::<String>::new());
}

#[test]
fn btree_lob_larger_than_the_pool() {
    let dir = tempfile::tempdir().unwrap();
    let big = value(5 << 20, 4);
    let id;
    {
        let db = Database::open(dir.path(), tiny_pool()).unwrap();
        let mut t = db.begin().unwrap();
        id = db.create_btree(&mut t).unwrap();
        let bt = db.btree(id).unwrap();
        assert!(bt.insert(&mut t, b"k1", &big).unwrap());
        assert!(bt.insert(&mut t, b"k2", b"v2").unwrap());
        t.commit().unwrap();
        assert_eq!(bt.get(b"k1").unwrap().unwrap(), big);
    }
    let db = Database::open(dir.path(), tiny_pool()).unwrap();
    let bt = db.btree(id).unwrap();
    assert_eq!(bt.get(b"k1").unwrap().unwrap(), big);
    let other = value(6 << 20, 5);
    let mut t = db.begin().unwrap();
    bt.upsert(&mut t, b"k1", &other).unwrap();
    t.commit().unwrap();
    assert_eq!(bt.get(b"k1").unwrap().unwrap(), other);
    let mut t = db.begin().unwrap();
    assert!(bt.delete(&mut t, b"k1").unwrap());
    t.abort().unwrap();
    assert_eq!(bt.get(b"k1").unwrap().unwrap(), other);
    let mut t = db.begin().unwrap();
    assert!(bt.delete(&mut t, b"k1").unwrap());
    t.commit().unwrap();
    assert_eq!(bt.get(b"k1").unwrap(), None);
    assert_eq!(bt.get(b"k2").unwrap().unwrap(), b"v2");
    assert_eq!(db.check().unwrap(), Vec::<String>::new());
}
