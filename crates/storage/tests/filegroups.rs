//! Filegroups (storage README "Filegroups"): a file added to a filegroup records it in its
//! own header; an object created in a filegroup takes extents only from that filegroup's
//! files (proportional fill among them), also after a truncate and a reopen; objects created
//! without one go to the default filegroup; a filegroup without files is Msg 622.

use storage::*;

fn cfg() -> StorageConfig {
    StorageConfig {
        buffer_pool_bytes: 64 * 8192,
        ..Default::default()
    }
}

fn insert(db: &Database, h: ObjId, n: u64) {
    let heap = db.heap(h).unwrap();
    let mut tx = db.begin().unwrap();
    for i in 0..n {
        let mut v = format!("row{i}:").into_bytes();
        v.resize(900, b'x');
        heap.insert(&mut tx, &v).unwrap();
    }
    tx.commit().unwrap();
}

fn used(db: &Database) -> Vec<u64> {
    (1..=4)
        .map(|f| db.data_file_used_extents(f).unwrap())
        .collect()
}

#[test]
fn objects_take_extents_only_from_their_filegroup() {
    let dir = tempfile::tempdir().unwrap();
    let (fg_heap, default_heap) = {
        let db = Database::open(dir.path(), cfg()).unwrap();
        assert_eq!(db.add_data_file(4 << 20).unwrap(), 2);
        assert_eq!(db.add_data_file_to(4 << 20, 2).unwrap(), 3);
        assert_eq!(db.add_data_file_to(4 << 20, 2).unwrap(), 4);
        assert_eq!(db.data_file_spaces(), vec![(1, 1), (2, 1), (3, 2), (4, 2)]);
        let mut tx = db.begin().unwrap();
        let fg_heap = db.create_heap_on(&mut tx, Some(2)).unwrap();
        let default_heap = db.create_heap(&mut tx).unwrap();
        tx.commit().unwrap();
        assert_eq!(db.object_data_space(fg_heap).unwrap(), 2);
        assert_eq!(db.object_data_space(default_heap).unwrap(), 1);

        let before = used(&db);
        insert(&db, fg_heap, 1000);
        let after = used(&db);
        assert_eq!(
            after[..2],
            before[..2],
            "PRIMARY's files untouched: {after:?}"
        );
        // proportional fill within the filegroup: both of its files got extents
        assert!(
            after[2] > before[2] + 3 && after[3] > before[3] + 3,
            "{after:?}"
        );

        insert(&db, default_heap, 300);
        let last = used(&db);
        assert_eq!(last[2..], after[2..], "filegroup 2 untouched: {last:?}");
        assert!(last[0] + last[1] > after[0] + after[1]);

        // a truncated object keeps its filegroup
        let mut tx = db.begin().unwrap();
        db.truncate_object(&mut tx, fg_heap).unwrap();
        tx.commit().unwrap();
        assert_eq!(db.object_data_space(fg_heap).unwrap(), 2);

        // the default filegroup applies to objects created without one
        db.set_default_data_space(2);
        let mut tx = db.begin().unwrap();
        let other = db.create_btree(&mut tx).unwrap();
        tx.commit().unwrap();
        assert_eq!(db.object_data_space(other).unwrap(), 2);
        assert!(db.check().unwrap().is_empty());
        (fg_heap, default_heap)
    };
    let db = Database::open(dir.path(), cfg()).unwrap();
    assert_eq!(db.data_file_spaces(), vec![(1, 1), (2, 1), (3, 2), (4, 2)]);
    assert_eq!(db.object_data_space(fg_heap).unwrap(), 2);
    assert_eq!(db.object_data_space(default_heap).unwrap(), 1);
    let before = used(&db);
    insert(&db, fg_heap, 200);
    let after = used(&db);
    assert_eq!(after[..2], before[..2], "{after:?}");
    assert!(db.check().unwrap().is_empty());
}

#[test]
fn a_filegroup_without_files_is_622() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(dir.path(), cfg()).unwrap();
    let mut tx = db.begin().unwrap();
    assert_eq!(db.create_heap_on(&mut tx, Some(3)).unwrap_err().number, 622);
    drop(tx);
    // a file of filegroup 2 being there does not help filegroup 3, nor PRIMARY's objects it
    db.add_data_file_to(1 << 20, 2).unwrap();
    let mut tx = db.begin().unwrap();
    assert_eq!(
        db.create_btree_on(&mut tx, Some(3)).unwrap_err().number,
        622
    );
    let h = db.create_heap(&mut tx).unwrap();
    tx.commit().unwrap();
    assert_eq!(db.object_data_space(h).unwrap(), 1);
}

/// CHECKDB's view: an object whose extents lie in files of two filegroups is reported (here
/// made by rewriting one file's filegroup in its header while the database is closed).
#[test]
fn check_reports_extents_outside_the_objects_filegroup() {
    use std::io::{Read, Seek, SeekFrom, Write};
    let dir = tempfile::tempdir().unwrap();
    {
        let db = Database::open(dir.path(), cfg()).unwrap();
        db.add_data_file_to(4 << 20, 2).unwrap();
        db.add_data_file_to(4 << 20, 2).unwrap();
        let mut tx = db.begin().unwrap();
        let h = db.create_heap_on(&mut tx, Some(2)).unwrap();
        tx.commit().unwrap();
        insert(&db, h, 1000);
        assert!(db.check().unwrap().is_empty());
    }
    let path = dir.path().join("data3.mdf");
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .unwrap();
    let mut buf = Box::new([0u8; page::PAGE_SIZE]);
    f.read_exact(&mut buf[..]).unwrap();
    let mut h = fileid::parse_header(&buf).unwrap();
    assert_eq!(h.data_space, 2);
    h.data_space = 3;
    h.write_into(&mut buf);
    page::seal(&mut buf);
    f.seek(SeekFrom::Start(0)).unwrap();
    f.write_all(&buf[..]).unwrap();
    f.sync_all().unwrap();
    drop(f);
    let db = Database::open(dir.path(), cfg()).unwrap();
    assert_eq!(db.data_file_spaces(), vec![(1, 1), (2, 2), (3, 3)]);
    let found = db.check().unwrap();
    assert!(
        found.iter().any(|t| t.contains("outside its filegroup")),
        "{found:?}"
    );
}
