//! Crash test (acceptance 2): a child process (this test binary re-executed with
//! LATCHKEY_CRASH_CHILD set) runs committed and aborted transactions and is SIGKILLed at
//! random points; after each kill the parent reopens (recovery), checks that every committed
//! transaction is there, that the in-doubt one is all-or-nothing, that nothing else is, and
//! that `Database::check()` is clean. LATCHKEY_CRASH_KILLS sets the number of kills (default 50).

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::ops::Bound;
use std::process::{Command, Stdio};
use std::time::Duration;

use storage::*;

fn cfg() -> StorageConfig {
    StorageConfig {
        buffer_pool_bytes: 64 * 8192,
        ..Default::default()
    }
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// What transaction `t` does: (btree inserts, btree deletes of keys of t-1, heap rows, aborts?).
struct Plan {
    puts: Vec<(Vec<u8>, Vec<u8>)>,
    dels: Vec<Vec<u8>>,
    rows: Vec<Vec<u8>>,
    abort: bool,
}

fn key(t: u64, i: u64) -> Vec<u8> {
    format!("k{t:06}:{i:03}").into_bytes()
}

fn plan(t: u64) -> Plan {
    let mut r = Rng(t * 7919 + 17);
    let n = 1 + r.next() % 30;
    let mut puts = Vec::new();
    for i in 0..n {
        let len = match r.next() % 20 {
            0 => 5000 + (r.next() % 9000) as usize,
            1..=3 => 500 + (r.next() % 2000) as usize,
            _ => (r.next() % 200) as usize,
        };
        let b = (r.next() & 0xff) as u8;
        puts.push((key(t, i), vec![b; len]));
    }
    let dels = (0..r.next() % 5)
        .map(|_| key(t.saturating_sub(1), r.next() % 30))
        .collect();
    let rows = (0..r.next() % 10)
        .map(|i| {
            let mut v = format!("row{t}:{i}:").into_bytes();
            v.resize(20 + (r.next() % 300) as usize, b'x');
            v
        })
        .collect();
    Plan {
        puts,
        dels,
        rows,
        abort: r.next().is_multiple_of(6),
    }
}

fn apply(model: &mut BTreeMap<Vec<u8>, Vec<u8>>, rows: &mut BTreeSet<Vec<u8>>, p: &Plan) {
    for (k, v) in &p.puts {
        model.insert(k.clone(), v.clone());
    }
    for k in &p.dels {
        model.remove(k);
    }
    for r in &p.rows {
        rows.insert(r.clone());
    }
}

fn ids(db: &Database) -> (ObjId, ObjId) {
    let cat = db.catalog_btree().unwrap();
    let b = cat.get(b"bt").unwrap().unwrap();
    let h = cat.get(b"hp").unwrap().unwrap();
    (
        ObjId(u64::from_le_bytes(b.try_into().unwrap())),
        ObjId(u64::from_le_bytes(h.try_into().unwrap())),
    )
}

fn child(dir: &str, start: u64) {
    let db = Database::open(std::path::Path::new(dir), cfg()).unwrap();
    let (bt, hp) = ids(&db);
    let (bt, hp) = (db.btree(bt).unwrap(), db.heap(hp).unwrap());
    let mut out = std::io::stdout();
    let mut t = start;
    loop {
        let p = plan(t);
        writeln!(out, "B {t}").unwrap();
        out.flush().unwrap();
        let mut tx = db.begin().unwrap();
        for (k, v) in &p.puts {
            bt.upsert(&mut tx, k, v).unwrap();
        }
        for k in &p.dels {
            bt.delete(&mut tx, k).unwrap();
        }
        for r in &p.rows {
            hp.insert(&mut tx, r).unwrap();
        }
        if p.abort {
            tx.abort().unwrap();
            writeln!(out, "A {t}").unwrap();
        } else {
            tx.commit().unwrap();
            writeln!(out, "C {t}").unwrap();
        }
        out.flush().unwrap();
        if t.is_multiple_of(7) {
            db.checkpoint().unwrap();
        }
        t += 1;
    }
}

type Model = BTreeMap<Vec<u8>, Vec<u8>>;

fn state(db: &Database) -> (Model, BTreeSet<Vec<u8>>) {
    let (bt, hp) = ids(db);
    let mut m = BTreeMap::new();
    let mut s = db
        .btree(bt)
        .unwrap()
        .range(Bound::Unbounded, Bound::Unbounded, ScanDirection::Forward)
        .unwrap();
    let mut b = RowBatch::new();
    while s.next_batch(&mut b).unwrap() {
        for i in 0..b.len() {
            m.insert(b.key(i).to_vec(), b.record(i).to_vec());
        }
    }
    let mut rows = BTreeSet::new();
    let mut s = db.heap(hp).unwrap().scan().unwrap();
    while s.next_batch(&mut b).unwrap() {
        for i in 0..b.len() {
            assert!(rows.insert(b.record(i).to_vec()), "duplicate heap row");
        }
    }
    (m, rows)
}

#[test]
fn crash_recovery() {
    if let Ok(v) = std::env::var("LATCHKEY_CRASH_CHILD") {
        let (dir, start) = v.split_once('|').unwrap();
        child(dir, start.parse().unwrap());
        return;
    }
    let kills: u64 = std::env::var("LATCHKEY_CRASH_KILLS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(50);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_str().unwrap().to_string();
    {
        let db = Database::open(dir.path(), cfg()).unwrap();
        let mut tx = db.begin().unwrap();
        let b = db.create_btree(&mut tx).unwrap();
        let h = db.create_heap(&mut tx).unwrap();
        let cat = db.catalog_btree().unwrap();
        cat.insert(&mut tx, b"bt", &b.0.to_le_bytes()).unwrap();
        cat.insert(&mut tx, b"hp", &h.0.to_le_bytes()).unwrap();
        tx.commit().unwrap();
    }
    let exe = std::env::current_exe().unwrap();
    let mut model = BTreeMap::new();
    let mut rows = BTreeSet::new();
    let mut next_t = 1u64;
    let mut rng = Rng(42);
    let mut total_committed = 0;
    for kill in 0..kills {
        let mut c = Command::new(&exe)
            .args([
                "crash_recovery",
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("LATCHKEY_CRASH_CHILD", format!("{path}|{next_t}"))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(20 + rng.next() % 120));
        c.kill().unwrap();
        c.wait().unwrap();
        let out = BufReader::new(c.stdout.take().unwrap());
        let mut in_doubt = None;
        for line in out.lines() {
            let line = line.unwrap();
            if std::env::var("LATCHKEY_CRASH_DEBUG").is_ok() {
                eprintln!("child[{kill}]: {line}");
            }
            // the harness prints "test crash_recovery ... " without a newline: use the last two tokens
            let mut it = line.split_whitespace().rev();
            let (Some(t), Some(tag)) = (it.next(), it.next()) else {
                continue;
            };
            let Ok(t) = t.parse::<u64>() else { continue };
            match tag {
                "B" => in_doubt = Some(t),
                "C" => {
                    apply(&mut model, &mut rows, &plan(t));
                    total_committed += 1;
                    in_doubt = None;
                    next_t = t + 1;
                }
                "A" => {
                    in_doubt = None;
                    next_t = t + 1;
                }
                _ => {}
            }
        }
        let db = Database::open(dir.path(), cfg()).unwrap();
        let (m, r) = state(&db);
        if m != model || r != rows {
            let Some(t) = in_doubt else {
                let missing: Vec<_> = model
                    .keys()
                    .filter(|k| !m.contains_key(*k))
                    .map(|k| String::from_utf8_lossy(k).to_string())
                    .take(10)
                    .collect();
                let extra: Vec<_> = m
                    .keys()
                    .filter(|k| !model.contains_key(*k))
                    .map(|k| String::from_utf8_lossy(k).to_string())
                    .take(10)
                    .collect();
                let diffv: Vec<_> = m
                    .iter()
                    .filter(|(k, v)| model.get(*k).is_some_and(|w| w != *v))
                    .map(|(k, _)| String::from_utf8_lossy(k).to_string())
                    .take(10)
                    .collect();
                panic!("kill {kill}: state differs and no txn in doubt; missing {missing:?} extra {extra:?} changed {diffv:?} rows {} vs {}", r.len(), rows.len());
            };
            let p = plan(t);
            let (mut m2, mut r2) = (model.clone(), rows.clone());
            apply(&mut m2, &mut r2, &p);
            assert!(!p.abort, "kill {kill}: aborted txn {t} is visible");
            assert!(
                m == m2 && r == r2,
                "kill {kill}: txn {t} only partly present (or committed data lost)"
            );
            model = m2;
            rows = r2;
        }
        if let Some(t) = in_doubt {
            next_t = t + 1;
        }
        let errs = db.check().unwrap();
        assert!(errs.is_empty(), "kill {kill}: check errors {errs:?}");
    }
    eprintln!(
        "crash test: {kills} kills, {total_committed} committed txns, {} keys, {} heap rows",
        model.len(),
        rows.len()
    );
    assert!(
        total_committed > kills / 2,
        "too few commits ({total_committed}) to be meaningful"
    );
}
