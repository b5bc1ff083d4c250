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
            assert!(bt.insert(&mut t, k.as_bytes(), &[i as u8; 100]).unwrap());
        }
        assert!(!bt.insert(&mut t, b"key00000001", b"x").unwrap());
        t.commit().unwrap();
        assert_eq!(db.check().unwrap(), Vec::<String>::new());
        let all = collect(
            &mut bt
                .range(Bound::Unbounded, Bound::Unbounded, ScanDirection::Forward)
                .unwrap(),
        );
        assert_eq!(all.len(), 5000);
        assert!(all.windows(2).all(|w| w[0].0 < w[1].0));
        let back = collect(
            &mut bt
                .range(Bound::Unbounded, Bound::Unbounded, ScanDirection::Backward)
                .unwrap(),
        );
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
    let all = collect(
        &mut bt
            .range(Bound::Unbounded, Bound::Unbounded, ScanDirection::Forward)
            .unwrap(),
    );
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
            let len = if i % 500 == 0 {
                20000
            } else {
                50 + (i as usize % 300)
            };
            rids.push((
                h.insert(&mut t, &vec![(i % 251) as u8; len]).unwrap(),
                i,
                len,
            ));
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

#[test]
fn corrupt_page_is_msg_824() {
    let dir = tempfile::tempdir().unwrap();
    let id;
    {
        let db = Database::open(dir.path(), cfg()).unwrap();
        let mut t = db.begin().unwrap();
        id = db.create_btree(&mut t).unwrap();
        let bt = db.btree(id).unwrap();
        for i in 0..2000u32 {
            bt.insert(&mut t, &i.to_be_bytes(), &[1u8; 100]).unwrap();
        }
        t.commit().unwrap();
    }
    // flip one byte in the middle of every data page after the system extent
    let path = dir.path().join("data1.mdf");
    let mut bytes = std::fs::read(&path).unwrap();
    for p in 8..bytes.len() / 8192 {
        bytes[p * 8192 + 4000] ^= 0x5a;
    }
    std::fs::write(&path, &bytes).unwrap();
    let db = Database::open(dir.path(), cfg()).unwrap();
    let err = db.btree(id).unwrap().get(&5u32.to_be_bytes()).unwrap_err();
    assert_eq!(err.number, 824, "{err:?}");
    assert!(err.message.contains("checksum"), "{}", err.message);
    assert!(db.check().is_err() || !db.check().unwrap().is_empty());
}

#[test]
fn several_files_proportional_fill_and_latency() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(
        dir.path(),
        StorageConfig {
            data_files: 4,
            buffer_pool_bytes: 1 << 20,
            io_latency: std::time::Duration::from_millis(1),
            sync_commit: false,
        },
    )
    .unwrap();
    let mut t = db.begin().unwrap();
    let h = db.create_heap(&mut t).unwrap();
    let heap = db.heap(h).unwrap();
    let mut rids = Vec::new();
    for i in 0..4000u32 {
        rids.push(heap.insert(&mut t, &[i as u8; 500]).unwrap());
    }
    t.commit().unwrap();
    db.checkpoint().unwrap();
    let files: std::collections::BTreeSet<u16> = rids.iter().map(|r| r.page.file).collect();
    assert_eq!(files.len(), 4, "rows spread over all files");
    db.drop_clean_buffers().unwrap();
    let before = db.io_stats();
    assert_eq!(
        heap.get(rids[1234]).unwrap().unwrap(),
        vec![1234u32 as u8; 500]
    );
    let after = db.io_stats();
    assert_eq!(after.files.len(), 4);
    let stall: u64 = after.files.iter().map(|f| f.io_stall_read_ms).sum::<u64>()
        - before.files.iter().map(|f| f.io_stall_read_ms).sum::<u64>();
    assert!(stall >= 1, "latency shows in io_stall_read_ms");
    assert!(after.physical_reads > before.physical_reads);
    assert!(after
        .files
        .iter()
        .all(|f| f.num_of_writes > 0 && f.size_bytes > 0));
    assert_eq!(db.check().unwrap(), Vec::<String>::new());
    drop(heap); // a handle keeps the database open (and its directory locked)
    drop(db);
    let db = Database::open(dir.path(), StorageConfig::default()).unwrap();
    assert_eq!(db.io_stats().files.len(), 4);
    assert_eq!(
        db.heap(h).unwrap().get(rids[3999]).unwrap().unwrap().len(),
        500
    );
}

#[test]
fn drop_truncate_savepoint() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(dir.path(), cfg()).unwrap();
    let mut t = db.begin().unwrap();
    let b = db.create_btree(&mut t).unwrap();
    let h = db.create_heap(&mut t).unwrap();
    t.commit().unwrap();
    let bt = db.btree(b).unwrap();
    let mut t = db.begin().unwrap();
    for i in 0..3000u32 {
        bt.insert(&mut t, &i.to_be_bytes(), &[3u8; 50]).unwrap();
    }
    let sp = t.savepoint();
    bt.insert(&mut t, b"after", b"x").unwrap();
    bt.delete(&mut t, &7u32.to_be_bytes()).unwrap();
    t.rollback_to(sp).unwrap();
    assert!(bt.get(b"after").unwrap().is_none());
    assert!(bt.get(&7u32.to_be_bytes()).unwrap().is_some());
    t.commit().unwrap();
    // truncate, then abort: data back
    let mut t = db.begin().unwrap();
    db.truncate_object(&mut t, b).unwrap();
    assert!(db
        .btree(b)
        .unwrap()
        .get(&7u32.to_be_bytes())
        .unwrap()
        .is_none());
    t.abort().unwrap();
    assert!(db
        .btree(b)
        .unwrap()
        .get(&7u32.to_be_bytes())
        .unwrap()
        .is_some());
    assert_eq!(db.check().unwrap(), Vec::<String>::new());
    // truncate + commit, drop + commit
    let mut t = db.begin().unwrap();
    db.truncate_object(&mut t, b).unwrap();
    db.drop_object(&mut t, h).unwrap();
    t.commit().unwrap();
    assert!(db.heap(h).is_err());
    assert_eq!(db.page_count(b).unwrap(), 2);
    assert_eq!(db.check().unwrap(), Vec::<String>::new());
    // drop + abort keeps the object
    let mut t = db.begin().unwrap();
    db.drop_object(&mut t, b).unwrap();
    drop(t);
    assert!(db.btree(b).is_ok());
    assert_eq!(db.check().unwrap(), Vec::<String>::new());
}

/// Rightmost-append fast path (btree/README S3) and tracked-range logging (wal/README W2a):
/// ascending inserts across splits, an aborted batch, a truncate (new root) + abort + commit,
/// then a reopen (redo of the range-logged records) must give back exactly the model.
#[test]
fn ascending_append_hint_truncate_and_redo() {
    let dir = tempfile::tempdir().unwrap();
    let mut model = std::collections::BTreeMap::new();
    let id;
    {
        let db = Database::open(dir.path(), cfg()).unwrap();
        let mut t = db.begin().unwrap();
        id = db.create_btree(&mut t).unwrap();
        t.commit().unwrap();
        let bt = db.btree(id).unwrap();
        for round in 0..6u64 {
            let mut t = db.begin().unwrap();
            let mut batch = Vec::new();
            for i in 0..700u64 {
                let k = (round * 700 + i).to_be_bytes();
                let v = vec![(i % 251) as u8; 40 + (i % 90) as usize];
                assert!(bt.insert(&mut t, &k, &v).unwrap());
                batch.push((k.to_vec(), v));
            }
            if round == 2 {
                t.abort().unwrap();
            } else {
                t.commit().unwrap();
                model.extend(batch);
            }
        }
        // truncate then abort: old tree (and its last leaf) back; appends continue there
        let mut t = db.begin().unwrap();
        db.truncate_object(&mut t, id).unwrap();
        assert!(db
            .btree(id)
            .unwrap()
            .insert(&mut t, &[0xff; 8], b"x")
            .unwrap());
        t.abort().unwrap();
        let bt = db.btree(id).unwrap();
        let mut t = db.begin().unwrap();
        for i in 5000..5600u64 {
            let v = vec![7u8; 120];
            assert!(bt.insert(&mut t, &i.to_be_bytes(), &v).unwrap());
            model.insert(i.to_be_bytes().to_vec(), v);
        }
        t.commit().unwrap();
        assert_eq!(db.check().unwrap(), Vec::<String>::new());
        // "crash": skip the clean-shutdown checkpoint, so the reopen below replays the log
        // (committed records are in the log file since each commit wrote them)
        std::mem::forget(bt);
        Database::simulate_crash(db);
    }
    let db = Database::open(dir.path(), cfg()).unwrap();
    assert_eq!(db.check().unwrap(), Vec::<String>::new());
    let bt = db.btree(id).unwrap();
    let got = collect(
        &mut bt
            .range(Bound::Unbounded, Bound::Unbounded, ScanDirection::Forward)
            .unwrap(),
    );
    let want: Vec<(Vec<u8>, Vec<u8>)> = model.into_iter().collect();
    assert_eq!(got.len(), want.len());
    assert!(got == want);
    // truncate + commit: a fresh tree (new root) takes appends from scratch
    let mut t = db.begin().unwrap();
    db.truncate_object(&mut t, id).unwrap();
    t.commit().unwrap();
    let bt = db.btree(id).unwrap();
    let mut t = db.begin().unwrap();
    for i in 0..900u64 {
        assert!(bt.insert(&mut t, &i.to_be_bytes(), &[1u8; 60]).unwrap());
    }
    t.commit().unwrap();
    let got = collect(
        &mut bt
            .range(Bound::Unbounded, Bound::Unbounded, ScanDirection::Forward)
            .unwrap(),
    );
    assert_eq!(got.len(), 900);
    assert!(got
        .iter()
        .enumerate()
        .all(|(i, (k, _))| k[..] == (i as u64).to_be_bytes()));
    assert_eq!(db.check().unwrap(), Vec::<String>::new());
}

/// Clean shutdown leaves a log file of just its header (wal/README W7: blocks kept for reuse
/// while running are given back when the checkpoint emptied the log).
#[test]
fn clean_shutdown_cuts_the_log() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = Database::open(dir.path(), cfg()).unwrap();
        let mut t = db.begin().unwrap();
        let id = db.create_btree(&mut t).unwrap();
        let bt = db.btree(id).unwrap();
        for i in 0..2000u32 {
            bt.insert(&mut t, &i.to_be_bytes(), &[5u8; 100]).unwrap();
        }
        t.commit().unwrap();
        db.checkpoint().unwrap();
        let mut t = db.begin().unwrap();
        bt.insert(&mut t, b"zz", b"after the truncation").unwrap();
        t.commit().unwrap();
    }
    let len = std::fs::metadata(dir.path().join("log.ldf")).unwrap().len();
    assert_eq!(len, 64);
    let db = Database::open(dir.path(), cfg()).unwrap();
    assert_eq!(db.check().unwrap(), Vec::<String>::new());
}

/// `Database::set_read_latency` changes the latency of data-file reads at run time (the
/// engine's `latchkey storage read latency (ms)` option): 0 at open, 20 ms after the call,
/// shown in `io_stall_read_ms`; back to 0 stops the stall.
#[test]
fn read_latency_is_settable_at_run_time() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(
        dir.path(),
        StorageConfig {
            buffer_pool_bytes: 1 << 20,
            sync_commit: false,
            ..StorageConfig::default()
        },
    )
    .unwrap();
    let mut t = db.begin().unwrap();
    let h = db.create_heap(&mut t).unwrap();
    let heap = db.heap(h).unwrap();
    let rid = heap.insert(&mut t, &[7u8; 100]).unwrap();
    t.commit().unwrap();
    db.checkpoint().unwrap();
    let stall =
        |db: &Database| -> u64 { db.io_stats().files.iter().map(|f| f.io_stall_read_ms).sum() };
    db.set_read_latency(std::time::Duration::from_millis(20));
    db.drop_clean_buffers().unwrap();
    let before = stall(&db);
    let t0 = std::time::Instant::now();
    assert_eq!(heap.get(rid).unwrap().unwrap(), vec![7u8; 100]);
    assert!(t0.elapsed() >= std::time::Duration::from_millis(20));
    assert!(
        stall(&db) - before >= 20,
        "the new latency shows in io_stall_read_ms"
    );
    db.set_read_latency(std::time::Duration::ZERO);
    db.drop_clean_buffers().unwrap();
    let t0 = std::time::Instant::now();
    assert_eq!(heap.get(rid).unwrap().unwrap(), vec![7u8; 100]);
    assert!(t0.elapsed() < std::time::Duration::from_millis(20));
}

/// CREATE DATABASE ... SIZE / MAXSIZE / FILEGROWTH through `set_file_limits`: the file is
/// grown to SIZE at once, grows by FILEGROWTH, and an insert past MAXSIZE is Msg 1105 (the
/// statement fails, the database stays usable).
#[test]
fn file_size_maxsize_and_growth() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(
        dir.path(),
        StorageConfig {
            buffer_pool_bytes: 1 << 20,
            sync_commit: false,
            ..StorageConfig::default()
        },
    )
    .unwrap();
    db.set_file_limits(
        1,
        Some(1 << 20),
        Some(2 << 20),
        storage::FileGrowth::Bytes(256 << 10),
    )
    .unwrap();
    assert!(
        db.io_stats().files[0].size_bytes >= 1 << 20,
        "grown to SIZE"
    );
    let mut err = None;
    for _ in 0..100 {
        let mut t = db.begin().unwrap();
        let r = db.create_heap(&mut t).and_then(|h| {
            let heap = db.heap(h)?;
            (0..64).try_for_each(|i| heap.insert(&mut t, &[i as u8; 1000]).map(|_| ()))
        });
        match r {
            Ok(()) => t.commit().unwrap(),
            Err(e) => {
                err = Some(e);
                break;
            }
        }
    }
    let e = err.expect("MAXSIZE stops the growth");
    assert_eq!(e.number, 1105, "{}", e.message);
    let size = db.io_stats().files[0].size_bytes;
    assert!(size <= 2 << 20, "never past MAXSIZE: {size}");
    assert_eq!(
        size % (256 << 10),
        0,
        "grown in FILEGROWTH steps from 1 MB: {size}"
    );
    assert_eq!(db.check().unwrap(), Vec::<String>::new());
}
