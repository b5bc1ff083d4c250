//! Concurrency stress (acceptance 3): 8 threads insert, delete, abort and scan the same B-tree
//! (interleaved key spaces, so they share leaves and split the same pages) and a shared heap;
//! each thread checks its own keys against its model. LATCHKEY_STRESS_SECS (default 10, the minimum).

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;
use std::time::{Duration, Instant};

use storage::*;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn key(n: u64, thread: u64) -> Vec<u8> {
    let mut k = (n * 8 + thread).to_be_bytes().to_vec();
    k.extend_from_slice(b"-suffix");
    k
}

#[test]
fn eight_threads_one_btree() {
    let secs: u64 = std::env::var("LATCHKEY_STRESS_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(
        dir.path(),
        StorageConfig {
            buffer_pool_bytes: 2 << 20, // small: eviction under concurrency
            sync_commit: false,
            ..Default::default()
        },
    )
    .unwrap();
    let mut t = db.begin().unwrap();
    let id = db.create_btree(&mut t).unwrap();
    let hid = db.create_heap(&mut t).unwrap();
    t.commit().unwrap();
    let deadline = Instant::now() + Duration::from_secs(secs);
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    {
        let done = done.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_secs(secs * 10 + 60));
            if !done.load(std::sync::atomic::Ordering::Acquire) {
                eprintln!("stress test deadlocked");
                std::process::abort();
            }
        });
    }
    let mut handles = Vec::new();
    for th in 0..8u64 {
        let db = db.clone();
        handles.push(std::thread::spawn(move || {
            let bt = db.btree(id).unwrap();
            let hp = db.heap(hid).unwrap();
            let mut rng = Rng(th * 1_000_003 + 7);
            let mut model: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
            let mut rows = Vec::new();
            let mut ops = 0u64;
            while Instant::now() < deadline {
                let mut t = db.begin().unwrap();
                let mut pending = model.clone();
                for _ in 0..(1 + rng.next() % 20) {
                    let n = rng.next() % 3000;
                    let k = key(n, th);
                    match rng.next() % 10 {
                        0..=5 => {
                            let len = if rng.next().is_multiple_of(50) { 6000 } else { (rng.next() % 200) as usize };
                            let v = vec![(n % 251) as u8; len];
                            bt.upsert(&mut t, &k, &v).unwrap();
                            pending.insert(k, v);
                        }
                        6..=7 => {
                            assert_eq!(bt.delete(&mut t, &k).unwrap(), pending.remove(&k).is_some());
                        }
                        8 => {
                            assert_eq!(bt.get(&k).unwrap(), pending.get(&k).cloned());
                        }
                        _ => {
                            let lo = key(n, 0);
                            let hi = key(n + 200, 0);
                            let dirn = if rng.next().is_multiple_of(2) { ScanDirection::Forward } else { ScanDirection::Backward };
                            let mut s = bt.range(Bound::Included(&lo), Bound::Excluded(&hi), dirn).unwrap();
                            let mut b = RowBatch::new();
                            let mut mine = Vec::new();
                            while s.next_batch(&mut b).unwrap() {
                                for i in 0..b.len() {
                                    let k = b.key(i);
                                    if u64::from_be_bytes(k[..8].try_into().unwrap()) % 8 == th {
                                        mine.push((k.to_vec(), b.record(i).to_vec()));
                                    }
                                }
                            }
                            let mut want: Vec<_> = pending
                                .range::<[u8], _>((Bound::Included(lo.as_slice()), Bound::Excluded(hi.as_slice())))
                                .map(|(k, v)| (k.clone(), v.clone()))
                                .collect();
                            if dirn == ScanDirection::Backward {
                                want.reverse();
                            }
                            if mine != want {
                                let mk: Vec<_> = mine.iter().map(|(k, v)| (u64::from_be_bytes(k[..8].try_into().unwrap()), v.len())).collect();
                                let wk: Vec<_> = want.iter().map(|(k, v)| (u64::from_be_bytes(k[..8].try_into().unwrap()), v.len())).collect();
                                let direct: Vec<_> = want.iter().map(|(k, _)| bt.get(k).unwrap().map(|v| v.len())).collect();
                                panic!("thread {th}: scan mismatch {dirn:?}\n got  {mk:?}\n want {wk:?}\n get {direct:?}");
                            }
                        }
                    }
                    ops += 1;
                }
                if rng.next().is_multiple_of(4) {
                    let r = hp.insert(&mut t, &th.to_le_bytes()).unwrap();
                    if rng.next().is_multiple_of(5) {
                        t.abort().unwrap();
                    } else {
                        t.commit().unwrap();
                        model = pending;
                        rows.push(r);
                    }
                } else if rng.next().is_multiple_of(5) {
                    t.abort().unwrap();
                } else {
                    t.commit().unwrap();
                    model = pending;
                }
            }
            (model, rows, ops)
        }));
    }
    // concurrent checkpoints and DROPCLEANBUFFERS while the workers run
    while Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(150));
        db.checkpoint().unwrap();
        db.drop_clean_buffers().unwrap();
    }
    let mut all = BTreeMap::new();
    let mut total = 0;
    let mut rows = 0;
    for h in handles {
        let (m, r, ops) = h.join().unwrap();
        total += ops;
        rows += r.len();
        for rid in r {
            assert!(db.heap(hid).unwrap().get(rid).unwrap().is_some());
        }
        all.extend(m);
    }
    done.store(true, std::sync::atomic::Ordering::Release);
    let bt = db.btree(id).unwrap();
    let mut s = bt
        .range(Bound::Unbounded, Bound::Unbounded, ScanDirection::Forward)
        .unwrap();
    let mut b = RowBatch::new();
    let mut got = BTreeMap::new();
    while s.next_batch(&mut b).unwrap() {
        for i in 0..b.len() {
            got.insert(b.key(i).to_vec(), b.record(i).to_vec());
        }
    }
    assert_eq!(got.len(), all.len());
    assert!(got == all, "lost or extra rows");
    assert_eq!(db.check().unwrap(), Vec::<String>::new());
    eprintln!("stress: {total} ops, {} keys, {rows} heap rows", all.len());
}
