//! Property tests: B-tree and heap against BTreeMap/Vec models (acceptance 1), including
//! aborts, savepoints and reopen.

use std::collections::BTreeMap;
use std::ops::Bound;

use proptest::prelude::*;
use storage::*;

type Model = BTreeMap<Vec<u8>, Vec<u8>>;

fn cfg() -> StorageConfig {
    StorageConfig {
        buffer_pool_bytes: 64 * 8192, // tiny: forces eviction
        sync_commit: false,
        ..Default::default()
    }
}

#[derive(Debug, Clone)]
enum Op {
    Insert(Vec<u8>, usize),
    Upsert(Vec<u8>, usize),
    Delete(Vec<u8>),
    Get(Vec<u8>),
    Scan(Option<Vec<u8>>, Option<Vec<u8>>, bool, bool),
    Commit,
    Abort,
    Savepoint,
    RollbackTo,
    Reopen,
}

fn key() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop::sample::select(vec![b'a', b'b', b'c', 0u8, 255u8]),
        1..24,
    )
}

fn vlen() -> impl Strategy<Value = usize> {
    prop_oneof![8 => 0usize..300, 2 => 300usize..3000, 1 => 3000usize..12000]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        10 => (key(), vlen()).prop_map(|(k, v)| Op::Insert(k, v)),
        4 => (key(), vlen()).prop_map(|(k, v)| Op::Upsert(k, v)),
        4 => key().prop_map(Op::Delete),
        3 => key().prop_map(Op::Get),
        2 => (prop::option::of(key()), prop::option::of(key()), any::<bool>(), any::<bool>())
            .prop_map(|(a, b, inc, back)| Op::Scan(a, b, inc, back)),
        2 => Just(Op::Commit),
        1 => Just(Op::Abort),
        1 => Just(Op::Savepoint),
        1 => Just(Op::RollbackTo),
        1 => Just(Op::Reopen),
    ]
}

fn val(k: &[u8], n: usize, salt: usize) -> Vec<u8> {
    (0..n).map(|i| (i + k.len() * 7 + salt) as u8).collect()
}

fn scan_all(s: &mut BTreeScan) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut b = RowBatch::new();
    let mut v = Vec::new();
    while s.next_batch(&mut b).unwrap() {
        for i in 0..b.len() {
            v.push((b.key(i).to_vec(), b.record(i).to_vec()));
        }
    }
    v
}

proptest! {
    #![proptest_config(ProptestConfig { cases: std::env::var("LATCHKEY_PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(24), .. ProptestConfig::default() })]

    #[test]
    fn btree_matches_model(ops in prop::collection::vec(op(), 1..250)) {
        let dir = tempfile::tempdir().unwrap();
        let mut db = Database::open(dir.path(), cfg()).unwrap();
        let mut t = db.begin().unwrap();
        let id = db.create_btree(&mut t).unwrap();
        t.commit().unwrap();
        let mut committed: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
        let mut work = committed.clone();
        let mut sp: Option<(Savepoint, Model)> = None;
        let mut t = db.begin().unwrap();
        for (n, op) in ops.into_iter().enumerate() {
            let bt = db.btree(id).unwrap();
            match op {
                Op::Insert(k, l) => {
                    let v = val(&k, l, n);
                    let fresh = !work.contains_key(&k);
                    prop_assert_eq!(bt.insert(&mut t, &k, &v).unwrap(), fresh);
                    work.entry(k).or_insert(v);
                }
                Op::Upsert(k, l) => {
                    let v = val(&k, l, n);
                    bt.upsert(&mut t, &k, &v).unwrap();
                    work.insert(k, v);
                }
                Op::Delete(k) => {
                    prop_assert_eq!(bt.delete(&mut t, &k).unwrap(), work.remove(&k).is_some());
                }
                Op::Get(k) => {
                    prop_assert_eq!(bt.get(&k).unwrap(), work.get(&k).cloned());
                }
                Op::Scan(a, b, inc, back) => {
                    let lo = match &a { Some(x) if inc => Bound::Included(x.as_slice()), Some(x) => Bound::Excluded(x.as_slice()), None => Bound::Unbounded };
                    let hi = match &b { Some(x) if !inc => Bound::Included(x.as_slice()), Some(x) => Bound::Excluded(x.as_slice()), None => Bound::Unbounded };
                    let valid = match (&a, &b) { (Some(x), Some(y)) => x <= y, _ => true };
                    if valid {
                        let dir = if back { ScanDirection::Backward } else { ScanDirection::Forward };
                        let got = scan_all(&mut bt.range(lo, hi, dir).unwrap());
                        let mut want: Vec<(Vec<u8>, Vec<u8>)> = work
                            .range::<[u8], _>((lo, hi))
                            .map(|(k, v)| (k.clone(), v.clone()))
                            .collect();
                        if back { want.reverse(); }
                        prop_assert_eq!(got.len(), want.len());
                        prop_assert!(got == want);
                    }
                }
                Op::Commit => {
                    t.commit().unwrap();
                    committed = work.clone();
                    sp = None;
                    t = db.begin().unwrap();
                }
                Op::Abort => {
                    t.abort().unwrap();
                    work = committed.clone();
                    sp = None;
                    t = db.begin().unwrap();
                }
                Op::Savepoint => {
                    sp = Some((t.savepoint(), work.clone()));
                }
                Op::RollbackTo => {
                    if let Some((s, m)) = sp.take() {
                        t.rollback_to(s).unwrap();
                        work = m;
                    }
                }
                Op::Reopen => {
                    t.commit().unwrap();
                    committed = work.clone();
                    sp = None;
                    drop(bt); // a handle keeps the database (and its directory lock) open
                    drop(db);
                    db = Database::open(dir.path(), cfg()).unwrap();
                    t = db.begin().unwrap();
                }
            }
        }
        t.abort().unwrap();
        let bt = db.btree(id).unwrap();
        let got = scan_all(&mut bt.range(Bound::Unbounded, Bound::Unbounded, ScanDirection::Forward).unwrap());
        let want: Vec<_> = committed.into_iter().collect();
        prop_assert!(got == want);
        prop_assert_eq!(db.check().unwrap(), Vec::<String>::new());
    }

    #[test]
    fn heap_matches_model(ops in prop::collection::vec((0u8..6, 0usize..400, vlen()), 1..300)) {
        let dir = tempfile::tempdir().unwrap();
        let mut db = Database::open(dir.path(), cfg()).unwrap();
        let mut t = db.begin().unwrap();
        let id = db.create_heap(&mut t).unwrap();
        t.commit().unwrap();
        let mut committed: Vec<(Rid, Vec<u8>)> = Vec::new();
        let mut work = committed.clone();
        let mut t = db.begin().unwrap();
        for (n, (kind, pick, l)) in ops.into_iter().enumerate() {
            let h = db.heap(id).unwrap();
            match kind {
                0 | 1 => {
                    let v = val(&[], l, n);
                    let rid = h.insert(&mut t, &v).unwrap();
                    prop_assert!(work.iter().all(|(r, _)| *r != rid));
                    work.push((rid, v));
                }
                2 if !work.is_empty() => {
                    let i = pick % work.len();
                    let (rid, _) = work.remove(i);
                    prop_assert!(h.delete(&mut t, rid).unwrap());
                    prop_assert_eq!(h.get(rid).unwrap(), None);
                }
                3 if !work.is_empty() => {
                    let i = pick % work.len();
                    let v = val(&[1], l, n);
                    let rid = h.update(&mut t, work[i].0, &v).unwrap();
                    work[i] = (rid, v);
                }
                4 => {
                    if pick % 3 == 0 {
                        t.abort().unwrap();
                        work = committed.clone();
                    } else {
                        t.commit().unwrap();
                        committed = work.clone();
                    }
                    if pick % 7 == 0 {
                        drop(h); // a handle keeps the database (and its directory lock) open
                        drop(db);
                        db = Database::open(dir.path(), cfg()).unwrap();
                    }
                    t = db.begin().unwrap();
                }
                _ => {
                    let mut s = h.scan().unwrap();
                    let mut b = RowBatch::new();
                    let mut got = Vec::new();
                    while s.next_batch(&mut b).unwrap() {
                        for i in 0..b.len() { got.push((b.rid(i), b.record(i).to_vec())); }
                    }
                    got.sort();
                    let mut want = work.clone();
                    want.sort();
                    prop_assert!(got == want);
                }
            }
        }
        t.commit().unwrap();
        let h = db.heap(id).unwrap();
        for (rid, v) in &work {
            let g = h.get(*rid).unwrap();
            prop_assert_eq!(g.as_ref(), Some(v));
        }
        prop_assert_eq!(db.check().unwrap(), Vec::<String>::new());
    }
}
