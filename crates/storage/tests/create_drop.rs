//! Regression tests for the directory growing past its first page (Msg 824 on reopen after
//! ~500 CREATE TABLEs: the directory's IAM left pages (1:0) and (1:1) - the file header and
//! the GAM - marked free, so the second and third directory pages overwrote them), plus
//! create/drop/truncate/reopen cycles checked against a model.

use std::collections::BTreeMap;

use proptest::prelude::*;
use storage::*;

fn cfg() -> StorageConfig {
    StorageConfig {
        buffer_pool_bytes: 4 << 20,
        sync_commit: false,
        ..Default::default()
    }
}

fn scan_heap(db: &Database, id: ObjId) -> Vec<Vec<u8>> {
    let mut s = db.heap(id).unwrap().scan().unwrap();
    let mut b = RowBatch::new();
    let mut v = Vec::new();
    loop {
        b.clear();
        let more = s.next_batch(&mut b).unwrap();
        for i in 0..b.len() {
            v.push(b.record(i).to_vec());
        }
        if !more {
            break;
        }
    }
    v
}

/// 700 live objects need three directory pages; before the fix the 2nd directory page was
/// allocated at (1:0) and the 3rd at (1:1), destroying the file header and the GAM.
#[test]
fn directory_grows_past_system_pages() {
    let dir = tempfile::tempdir().unwrap();
    let mut ids = Vec::new();
    {
        let db = Database::open(dir.path(), cfg()).unwrap();
        for i in 0..700u32 {
            let mut t = db.begin().unwrap();
            let h = db.create_heap(&mut t).unwrap();
            db.heap(h)
                .unwrap()
                .insert(&mut t, &i.to_le_bytes())
                .unwrap();
            t.commit().unwrap();
            ids.push(h);
        }
        assert_eq!(db.check().unwrap(), Vec::<String>::new());
        // a new extent after the directory grew must not land on an owned one
        let mut t = db.begin().unwrap();
        let b = db.create_btree(&mut t).unwrap();
        db.btree(b).unwrap().insert(&mut t, b"k", b"v").unwrap();
        t.commit().unwrap();
        assert_eq!(db.check().unwrap(), Vec::<String>::new());
    }
    let db = Database::open(dir.path(), cfg()).unwrap();
    assert_eq!(db.check().unwrap(), Vec::<String>::new());
    for (i, id) in ids.iter().enumerate() {
        assert_eq!(scan_heap(&db, *id), vec![(i as u32).to_le_bytes().to_vec()]);
    }
    // drop them all, reopen: extents are freed and reused
    let mut t = db.begin().unwrap();
    for id in &ids {
        db.drop_object(&mut t, *id).unwrap();
    }
    t.commit().unwrap();
    assert_eq!(db.check().unwrap(), Vec::<String>::new());
    drop(db);
    let db = Database::open(dir.path(), cfg()).unwrap();
    assert_eq!(db.check().unwrap(), Vec::<String>::new());
    let size = std::fs::metadata(dir.path().join("data1.mdf"))
        .unwrap()
        .len();
    for _ in 0..700 {
        let mut t = db.begin().unwrap();
        db.create_heap(&mut t).unwrap();
        t.commit().unwrap();
    }
    assert_eq!(db.check().unwrap(), Vec::<String>::new());
    db.checkpoint().unwrap();
    let after = std::fs::metadata(dir.path().join("data1.mdf"))
        .unwrap()
        .len();
    assert!(
        after <= size + (64 << 10) * 4,
        "freed extents not reused: {size} -> {after}"
    );
}

#[derive(Clone, Debug)]
enum Op {
    Create(u8),
    Drop(usize),
    Truncate(usize),
    Insert(usize, u16),
    Reopen,
    AbortCreate,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => any::<u8>().prop_map(Op::Create),
        3 => any::<usize>().prop_map(Op::Drop),
        1 => any::<usize>().prop_map(Op::Truncate),
        3 => (any::<usize>(), any::<u16>()).prop_map(|(a, b)| Op::Insert(a, b)),
        1 => Just(Op::Reopen),
        1 => Just(Op::AbortCreate),
    ]
}

fn cases() -> u32 {
    std::env::var("LATCHKEY_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(6)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]
    /// Create/drop/truncate/reopen cycles against a model; `check()` after each reopen.
    #[test]
    fn create_drop_reopen_model(ops in proptest::collection::vec(op(), 1..400)) {
        let dir = tempfile::tempdir().unwrap();
        let mut db = Database::open(dir.path(), cfg()).unwrap();
        let mut model: BTreeMap<ObjId, Vec<Vec<u8>>> = BTreeMap::new();
        for o in ops {
            let keys: Vec<ObjId> = model.keys().copied().collect();
            match o {
                Op::Create(n) => {
                    // bursts of creates make the directory span several pages
                    let mut t = db.begin().unwrap();
                    for _ in 0..(n % 8) + 1 {
                        let h = db.create_heap(&mut t).unwrap();
                        model.insert(h, Vec::new());
                    }
                    t.commit().unwrap();
                }
                Op::Drop(i) if !keys.is_empty() => {
                    let id = keys[i % keys.len()];
                    let mut t = db.begin().unwrap();
                    db.drop_object(&mut t, id).unwrap();
                    t.commit().unwrap();
                    model.remove(&id);
                }
                Op::Truncate(i) if !keys.is_empty() => {
                    let id = keys[i % keys.len()];
                    let mut t = db.begin().unwrap();
                    db.truncate_object(&mut t, id).unwrap();
                    t.commit().unwrap();
                    model.insert(id, Vec::new());
                }
                Op::Insert(i, v) if !keys.is_empty() => {
                    let id = keys[i % keys.len()];
                    let mut t = db.begin().unwrap();
                    let rec = vec![v as u8; (v % 3000) as usize + 1];
                    db.heap(id).unwrap().insert(&mut t, &rec).unwrap();
                    t.commit().unwrap();
                    model.get_mut(&id).unwrap().push(rec);
                }
                Op::AbortCreate => {
                    let mut t = db.begin().unwrap();
                    let h = db.create_heap(&mut t).unwrap();
                    db.heap(h).unwrap().insert(&mut t, b"gone").unwrap();
                    t.abort().unwrap();
                }
                Op::Reopen => {
                    drop(db);
                    db = Database::open(dir.path(), cfg()).unwrap();
                    prop_assert_eq!(db.check().unwrap(), Vec::<String>::new());
                }
                _ => {}
            }
        }
        drop(db);
        let db = Database::open(dir.path(), cfg()).unwrap();
        prop_assert_eq!(db.check().unwrap(), Vec::<String>::new());
        for (id, rows) in &model {
            let mut got = scan_heap(&db, *id);
            let mut want = rows.clone();
            got.sort();
            want.sort();
            prop_assert_eq!(got, want);
        }
    }
}
