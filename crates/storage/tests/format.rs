//! On-disk format stability (CONVENTIONS item 3): a database written by each format version N
//! is checked in under tests/data/format_vN and must stay readable. LATCHKEY_WRITE_FIXTURE=1
//! writes the current version's directory (only when the format version changes).

use std::ops::Bound;
use std::path::Path;

use storage::*;

fn fixture_dir() -> std::path::PathBuf {
    fixture_dir_of(1)
}

fn fixture_dir_of(version: u16) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/data/format_v{version}"))
}

fn value(i: u32) -> Vec<u8> {
    if i == 7 {
        vec![0xAB; 20_000] // LOB
    } else {
        format!("value-{i}").into_bytes()
    }
}

#[test]
fn format_v1_stays_readable() {
    stays_readable(1);
}

#[test]
fn format_v2_stays_readable() {
    stays_readable(2);
}

fn stays_readable(version: u16) {
    if std::env::var("LATCHKEY_WRITE_FIXTURE").is_ok() && version == fileid::FORMAT_VERSION {
        let tmp = tempfile::tempdir().unwrap();
        {
            let db = Database::open(tmp.path(), StorageConfig::default()).unwrap();
            let mut t = db.begin().unwrap();
            let b = db.create_btree(&mut t).unwrap();
            let h = db.create_heap(&mut t).unwrap();
            let cat = db.catalog_btree().unwrap();
            cat.insert(&mut t, b"btree", &b.0.to_le_bytes()).unwrap();
            cat.insert(&mut t, b"heap", &h.0.to_le_bytes()).unwrap();
            for i in 0..300u32 {
                db.btree(b)
                    .unwrap()
                    .insert(&mut t, &i.to_be_bytes(), &value(i))
                    .unwrap();
            }
            for i in 0..10u32 {
                db.heap(h).unwrap().insert(&mut t, &value(i)).unwrap();
            }
            t.commit().unwrap();
        }
        let out = fixture_dir_of(version);
        std::fs::create_dir_all(&out).unwrap();
        for f in ["data1.mdf", "log.ldf"] {
            std::fs::copy(tmp.path().join(f), out.join(f)).unwrap();
        }
    }
    let tmp = tempfile::tempdir().unwrap();
    for f in ["data1.mdf", "log.ldf"] {
        std::fs::copy(fixture_dir_of(version).join(f), tmp.path().join(f)).unwrap();
    }
    let db = Database::open(tmp.path(), StorageConfig::default()).unwrap();
    let cat = db.catalog_btree().unwrap();
    let id = |k: &[u8]| {
        ObjId(u64::from_le_bytes(
            cat.get(k).unwrap().unwrap().try_into().unwrap(),
        ))
    };
    let bt = db.btree(id(b"btree")).unwrap();
    let mut s = bt
        .range(Bound::Unbounded, Bound::Unbounded, ScanDirection::Forward)
        .unwrap();
    let mut b = RowBatch::new();
    let mut n = 0u32;
    while s.next_batch(&mut b).unwrap() {
        for i in 0..b.len() {
            assert_eq!(b.key(i), n.to_be_bytes());
            assert_eq!(b.record(i), value(n).as_slice());
            n += 1;
        }
    }
    assert_eq!(n, 300);
    let mut s = db.heap(id(b"heap")).unwrap().scan().unwrap();
    let mut rows = Vec::new();
    while s.next_batch(&mut b).unwrap() {
        for i in 0..b.len() {
            rows.push(b.record(i).to_vec());
        }
    }
    assert_eq!(rows, (0..10).map(value).collect::<Vec<_>>());
    assert_eq!(db.check().unwrap(), Vec::<String>::new());
}

/// Format 1 files have no identity fields: they are treated as unknown at the first open,
/// which writes them (upgrade on open); the next open checks them.
#[test]
fn format_v1_is_upgraded_on_open() {
    let tmp = tempfile::tempdir().unwrap();
    for f in ["data1.mdf", "log.ldf"] {
        std::fs::copy(fixture_dir().join(f), tmp.path().join(f)).unwrap();
    }
    let version = |p: &Path| {
        let b = std::fs::read(p.join("data1.mdf")).unwrap();
        u16::from_le_bytes([b[96 + 10], b[96 + 11]])
    };
    assert_eq!(version(tmp.path()), 1);
    drop(Database::open(tmp.path(), StorageConfig::default()).unwrap());
    assert_eq!(version(tmp.path()), fileid::FORMAT_VERSION);
    let log = std::fs::read(tmp.path().join("log.ldf")).unwrap();
    assert_eq!(&log[..8], b"LKLOG002");
    let db = Database::open(tmp.path(), StorageConfig::default()).unwrap();
    assert!(db.catalog_btree().unwrap().get(b"btree").unwrap().is_some());
}
