//! Drops and truncates rolled back to a savepoint (storage README A5). Before the fix a drop
//! undone by `rollback_to` was still on the transaction's list of objects to free after
//! commit, so committing destroyed the object it had just restored (Msg 8630 "storage object
//! N does not exist" forever, `check()` clean). Deterministic cases, a model of random
//! create/drop/truncate/insert/savepoint/rollback sequences with reopen, and a SIGKILL test.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::ops::Bound;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::SqlResult;
use proptest::prelude::*;
use storage::*;

fn cfg() -> StorageConfig {
    StorageConfig {
        buffer_pool_bytes: 4 << 20,
        sync_commit: false,
        ..Default::default()
    }
}

fn heap_rows(db: &Database, id: ObjId) -> SqlResult<Vec<Vec<u8>>> {
    let mut s = db.heap(id)?.scan()?;
    let mut b = RowBatch::new();
    let mut v = Vec::new();
    loop {
        b.clear();
        let more = s.next_batch(&mut b)?;
        for i in 0..b.len() {
            v.push(b.record(i).to_vec());
        }
        if !more {
            break;
        }
    }
    v.sort();
    Ok(v)
}

fn btree_rows(db: &Database, id: ObjId) -> SqlResult<Vec<Vec<u8>>> {
    let mut s = db
        .btree(id)?
        .range(Bound::Unbounded, Bound::Unbounded, ScanDirection::Forward)?;
    let mut b = RowBatch::new();
    let mut v = Vec::new();
    loop {
        b.clear();
        let more = s.next_batch(&mut b)?;
        for i in 0..b.len() {
            v.push(b.key(i).to_vec());
        }
        if !more {
            break;
        }
    }
    Ok(v)
}

fn clean(db: &Database) {
    assert_eq!(db.check().unwrap(), Vec::<String>::new());
}

/// A heap and a B-tree with three rows each, committed.
fn setup(db: &Database) -> (ObjId, ObjId) {
    let mut t = db.begin().unwrap();
    let h = db.create_heap(&mut t).unwrap();
    let b = db.create_btree(&mut t).unwrap();
    for i in 0..3u8 {
        db.heap(h).unwrap().insert(&mut t, &[b'h', i]).unwrap();
        db.btree(b)
            .unwrap()
            .insert(&mut t, &[b'b', i], b"v")
            .unwrap();
    }
    t.commit().unwrap();
    (h, b)
}

fn three(tag: u8) -> Vec<Vec<u8>> {
    (0..3u8).map(|i| vec![tag, i]).collect()
}

/// The case at storage level: DML, savepoint, drop, rollback to it, commit.
#[test]
fn drop_rolled_back_to_savepoint_survives_commit_and_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(dir.path(), cfg()).unwrap();
    let (h, b) = setup(&db);
    let mut t = db.begin().unwrap();
    db.heap(h).unwrap().insert(&mut t, b"before").unwrap();
    let sp = t.savepoint();
    db.drop_object(&mut t, h).unwrap();
    db.drop_object(&mut t, b).unwrap();
    assert!(db.heap(h).is_err());
    t.rollback_to(sp).unwrap();
    db.btree(b).unwrap().insert(&mut t, b"after", b"v").unwrap();
    t.commit().unwrap();
    let mut want_h = three(b'h');
    want_h.push(b"before".to_vec());
    want_h.sort();
    let mut want_b = three(b'b');
    want_b.push(b"after".to_vec());
    want_b.sort();
    assert_eq!(heap_rows(&db, h).unwrap(), want_h);
    assert_eq!(btree_rows(&db, b).unwrap(), want_b);
    clean(&db);
    drop(db);
    let db = Database::open(dir.path(), cfg()).unwrap();
    assert_eq!(heap_rows(&db, h).unwrap(), want_h);
    assert_eq!(btree_rows(&db, b).unwrap(), want_b);
    clean(&db);
}

/// Truncate undone by a savepoint: the old rows come back, the new storage is freed, and a
/// later commit frees nothing that is in use.
#[test]
fn truncate_rolled_back_to_savepoint() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(dir.path(), cfg()).unwrap();
    let (h, b) = setup(&db);
    let mut t = db.begin().unwrap();
    db.btree(b).unwrap().insert(&mut t, b"x", b"v").unwrap();
    let sp = t.savepoint();
    db.truncate_object(&mut t, h).unwrap();
    db.truncate_object(&mut t, b).unwrap();
    db.heap(h).unwrap().insert(&mut t, b"new").unwrap();
    // the zombies (old storage, freed at commit) carry the pages of the truncated objects:
    // check() inside the transaction (DBCC CHECKDB in an open transaction) is clean
    clean(&db);
    t.rollback_to(sp).unwrap();
    t.commit().unwrap();
    let mut want_b = three(b'b');
    want_b.push(b"x".to_vec());
    assert_eq!(heap_rows(&db, h).unwrap(), three(b'h'));
    assert_eq!(btree_rows(&db, b).unwrap(), want_b);
    clean(&db);
    drop(db);
    let db = Database::open(dir.path(), cfg()).unwrap();
    assert_eq!(heap_rows(&db, h).unwrap(), three(b'h'));
    assert_eq!(btree_rows(&db, b).unwrap(), want_b);
    clean(&db);
}

/// Nested savepoints: what was dropped before the inner savepoint stays dropped (and is freed),
/// what was dropped or truncated after it comes back.
#[test]
fn nested_savepoints_keep_outer_drops() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(dir.path(), cfg()).unwrap();
    let (h, b) = setup(&db);
    let (h2, b2) = setup(&db);
    let mut t = db.begin().unwrap();
    db.heap(h2).unwrap().insert(&mut t, b"dml").unwrap();
    let _outer = t.savepoint();
    db.drop_object(&mut t, h).unwrap();
    db.truncate_object(&mut t, b2).unwrap();
    let inner = t.savepoint();
    db.drop_object(&mut t, b).unwrap();
    db.drop_object(&mut t, b2).unwrap();
    db.truncate_object(&mut t, h2).unwrap();
    t.rollback_to(inner).unwrap();
    // the same object dropped again after the rollback is freed once at commit
    let inner2 = t.savepoint();
    db.drop_object(&mut t, b).unwrap();
    t.rollback_to(inner2).unwrap();
    db.drop_object(&mut t, b).unwrap();
    t.commit().unwrap();
    assert!(db.heap(h).is_err());
    assert!(db.btree(b).is_err());
    let mut want_h2 = three(b'h');
    want_h2.push(b"dml".to_vec());
    want_h2.sort();
    assert_eq!(heap_rows(&db, h2).unwrap(), want_h2);
    assert_eq!(btree_rows(&db, b2).unwrap(), Vec::<Vec<u8>>::new());
    clean(&db);
    drop(db);
    let db = Database::open(dir.path(), cfg()).unwrap();
    assert!(db.heap(h).is_err());
    assert_eq!(heap_rows(&db, h2).unwrap(), want_h2);
    clean(&db);
}

// ------------------------------------------------------------------ model

#[derive(Clone, Debug)]
enum Op {
    Create(bool),
    Insert(usize, u16),
    Drop(usize),
    Truncate(usize),
    Save,
    RollbackTo(usize),
    Commit,
    Abort,
    Reopen,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => any::<bool>().prop_map(Op::Create),
        6 => (any::<usize>(), any::<u16>()).prop_map(|(a, b)| Op::Insert(a, b)),
        3 => any::<usize>().prop_map(Op::Drop),
        2 => any::<usize>().prop_map(Op::Truncate),
        3 => Just(Op::Save),
        3 => any::<usize>().prop_map(Op::RollbackTo),
        2 => Just(Op::Commit),
        1 => Just(Op::Abort),
        1 => Just(Op::Reopen),
    ]
}

fn cases() -> u32 {
    std::env::var("LATCHKEY_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(24)
}

/// Object id -> (is B-tree, rows).
type Model = BTreeMap<ObjId, (bool, Vec<Vec<u8>>)>;

fn rows_of(db: &Database, id: ObjId, btree: bool) -> SqlResult<Vec<Vec<u8>>> {
    if btree {
        btree_rows(db, id)
    } else {
        heap_rows(db, id)
    }
}

fn assert_model(db: &Database, m: &Model) -> Result<(), TestCaseError> {
    for (id, (bt, rows)) in m {
        let mut want = rows.clone();
        want.sort();
        let got = rows_of(db, *id, *bt)
            .map_err(|e| TestCaseError::fail(format!("object {id:?}: {}", e.message)))?;
        prop_assert_eq!(got, want, "object {:?}", id);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]
    /// Random create/insert/drop/truncate/savepoint/rollback/commit/abort/reopen sequences
    /// against a model whose savepoints are snapshots; `check()` after every end of txn.
    #[test]
    fn ddl_savepoint_model(ops in proptest::collection::vec(op(), 1..120)) {
        let dir = tempfile::tempdir().unwrap();
        let mut db = Database::open(dir.path(), cfg()).unwrap();
        let mut committed: Model = BTreeMap::new();
        let mut cur: Model = BTreeMap::new();
        let mut txn: Option<Txn> = None;
        let mut saves: Vec<(Savepoint, Model)> = Vec::new();
        let mut seq = 0u32;
        for o in ops {
            let live: Vec<ObjId> = cur.keys().copied().collect();
            if txn.is_none() && !matches!(o, Op::Reopen) {
                txn = Some(db.begin().unwrap());
            }
            match o {
                Op::Create(bt) => {
                    let t = txn.as_mut().unwrap();
                    let id = if bt { db.create_btree(t) } else { db.create_heap(t) }.unwrap();
                    cur.insert(id, (bt, Vec::new()));
                }
                Op::Insert(i, v) if !live.is_empty() => {
                    let id = live[i % live.len()];
                    let t = txn.as_mut().unwrap();
                    seq += 1;
                    let mut rec = format!("{seq:08}").into_bytes();
                    rec.resize(8 + (v % 600) as usize, v as u8);
                    let (bt, rows) = cur.get_mut(&id).unwrap();
                    if *bt {
                        db.btree(id).unwrap().insert(t, &rec, b"v").unwrap();
                    } else {
                        db.heap(id).unwrap().insert(t, &rec).unwrap();
                    }
                    rows.push(rec);
                }
                Op::Drop(i) if !live.is_empty() => {
                    let id = live[i % live.len()];
                    db.drop_object(txn.as_mut().unwrap(), id).unwrap();
                    cur.remove(&id);
                }
                Op::Truncate(i) if !live.is_empty() => {
                    let id = live[i % live.len()];
                    db.truncate_object(txn.as_mut().unwrap(), id).unwrap();
                    cur.get_mut(&id).unwrap().1.clear();
                    prop_assert_eq!(db.check().unwrap(), Vec::<String>::new());
                }
                Op::Save => {
                    let sp = txn.as_mut().unwrap().savepoint();
                    saves.push((sp, cur.clone()));
                }
                Op::RollbackTo(k) if !saves.is_empty() => {
                    let k = k % saves.len();
                    let (sp, snap) = saves[k].clone();
                    saves.truncate(k + 1);
                    txn.as_mut().unwrap().rollback_to(sp).unwrap();
                    cur = snap;
                    assert_model(&db, &cur)?;
                }
                Op::Commit => {
                    txn.take().unwrap().commit().unwrap();
                    saves.clear();
                    committed = cur.clone();
                    prop_assert_eq!(db.check().unwrap(), Vec::<String>::new());
                    assert_model(&db, &committed)?;
                }
                Op::Abort => {
                    txn.take().unwrap().abort().unwrap();
                    saves.clear();
                    cur = committed.clone();
                    prop_assert_eq!(db.check().unwrap(), Vec::<String>::new());
                    assert_model(&db, &committed)?;
                }
                Op::Reopen => {
                    if let Some(t) = txn.take() {
                        t.commit().unwrap();
                        saves.clear();
                        committed = cur.clone();
                    }
                    drop(db);
                    db = Database::open(dir.path(), cfg()).unwrap();
                    prop_assert_eq!(db.check().unwrap(), Vec::<String>::new());
                    assert_model(&db, &committed)?;
                }
                _ => {}
            }
        }
        if let Some(t) = txn.take() {
            t.commit().unwrap();
            committed = cur.clone();
        }
        drop(db);
        let db = Database::open(dir.path(), cfg()).unwrap();
        prop_assert_eq!(db.check().unwrap(), Vec::<String>::new());
        assert_model(&db, &committed)?;
    }
}

// ------------------------------------------------------------------ SIGKILL

/// Child: txn `t` inserts row `t` into the kept heap, drops or truncates it after a savepoint,
/// rolls that back, truncates and drops a scratch object, and commits (or aborts every 5th).
fn crash_child(dir: &str, start: u64) {
    let db = Database::open(std::path::Path::new(dir), crash_cfg()).unwrap();
    let cat = db.catalog_btree().unwrap();
    let id = cat.get(b"kept").unwrap().unwrap();
    let kept = ObjId(u64::from_le_bytes(id.try_into().unwrap()));
    let mut out = std::io::stdout();
    for t in start.. {
        writeln!(out, "B {t}").unwrap();
        out.flush().unwrap();
        let mut tx = db.begin().unwrap();
        db.heap(kept)
            .unwrap()
            .insert(&mut tx, format!("row{t:08}").as_bytes())
            .unwrap();
        let sp = tx.savepoint();
        if t % 2 == 0 {
            db.drop_object(&mut tx, kept).unwrap();
        } else {
            db.truncate_object(&mut tx, kept).unwrap();
            db.heap(kept).unwrap().insert(&mut tx, b"gone").unwrap();
        }
        let scratch = db.create_heap(&mut tx).unwrap();
        db.heap(scratch)
            .unwrap()
            .insert(&mut tx, &[7; 3000])
            .unwrap();
        tx.rollback_to(sp).unwrap();
        let scratch = db.create_btree(&mut tx).unwrap();
        db.btree(scratch)
            .unwrap()
            .insert(&mut tx, b"k", &[1; 2000])
            .unwrap();
        db.truncate_object(&mut tx, scratch).unwrap();
        db.drop_object(&mut tx, scratch).unwrap();
        if t % 5 == 0 {
            tx.abort().unwrap();
            writeln!(out, "A {t}").unwrap();
        } else {
            tx.commit().unwrap();
            writeln!(out, "C {t}").unwrap();
        }
        out.flush().unwrap();
        if t % 11 == 0 {
            db.checkpoint().unwrap();
        }
    }
}

fn crash_cfg() -> StorageConfig {
    StorageConfig {
        buffer_pool_bytes: 64 * 8192,
        ..Default::default()
    }
}

/// SIGKILL at random points of transactions that drop/truncate and roll back to savepoints:
/// recovery keeps the heap with every committed row (the in-doubt txn all or nothing) and
/// `check()` is clean. LATCHKEY_CRASH_KILLS sets the number of kills (default 12).
#[test]
fn ddl_savepoint_crash() {
    if let Ok(v) = std::env::var("LATCHKEY_DDL_CRASH_CHILD") {
        let (dir, start) = v.split_once('|').unwrap();
        crash_child(dir, start.parse().unwrap());
        return;
    }
    let kills: u64 = std::env::var("LATCHKEY_CRASH_KILLS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(12);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_str().unwrap().to_string();
    {
        let db = Database::open(dir.path(), crash_cfg()).unwrap();
        let mut tx = db.begin().unwrap();
        let h = db.create_heap(&mut tx).unwrap();
        let cat = db.catalog_btree().unwrap();
        cat.insert(&mut tx, b"kept", &h.0.to_le_bytes()).unwrap();
        tx.commit().unwrap();
    }
    let exe = std::env::current_exe().unwrap();
    let mut rows: Vec<Vec<u8>> = Vec::new();
    let mut next_t = 1u64;
    let mut committed = 0;
    for kill in 0..kills {
        let mut c = Command::new(&exe)
            .args([
                "ddl_savepoint_crash",
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("LATCHKEY_DDL_CRASH_CHILD", format!("{path}|{next_t}"))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(30 + (kill * 37) % 150));
        c.kill().unwrap();
        c.wait().unwrap();
        let mut in_doubt = None;
        for line in BufReader::new(c.stdout.take().unwrap()).lines() {
            let line = line.unwrap();
            let mut it = line.split_whitespace().rev();
            let (Some(t), Some(tag)) = (it.next(), it.next()) else {
                continue;
            };
            let Ok(t) = t.parse::<u64>() else { continue };
            match tag {
                "B" => in_doubt = Some(t),
                "C" => {
                    rows.push(format!("row{t:08}").into_bytes());
                    committed += 1;
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
        let db = Database::open(dir.path(), crash_cfg()).unwrap();
        let cat = db.catalog_btree().unwrap();
        let id = cat.get(b"kept").unwrap().unwrap();
        let kept = ObjId(u64::from_le_bytes(id.try_into().unwrap()));
        let got = heap_rows(&db, kept)
            .unwrap_or_else(|e| panic!("kill {kill}: kept heap unreadable: {}", e.message));
        if got != rows {
            let t = in_doubt.unwrap_or_else(|| panic!("kill {kill}: rows differ, none in doubt"));
            assert!(t % 5 != 0, "kill {kill}: aborted txn {t} is visible");
            let mut with = rows.clone();
            with.push(format!("row{t:08}").into_bytes());
            assert_eq!(
                got, with,
                "kill {kill}: txn {t} partly present or data lost"
            );
            rows = with;
        }
        if let Some(t) = in_doubt {
            next_t = t + 1;
        }
        assert_eq!(db.check().unwrap(), Vec::<String>::new(), "kill {kill}");
    }
    eprintln!("ddl savepoint crash test: {kills} kills, {committed} committed txns");
    assert!(committed > 0, "no transaction committed");
}
