//! Proportional fill (storage README A2): new extents go to the data files in proportion to
//! their free space, before and after a reopen (the in-use counts come from the GAM pages).

use std::collections::{BTreeMap, BTreeSet};

use storage::*;

fn cfg() -> StorageConfig {
    StorageConfig {
        data_files: 2,
        buffer_pool_bytes: 4 << 20,
        sync_commit: false,
        ..Default::default()
    }
}

/// 2 MB and 8 MB: file 2 has about 4.5 times the free space of file 1.
fn size_files(db: &Database) {
    db.set_file_limits(1, Some(2 << 20), None, FileGrowth::Default)
        .unwrap();
    db.set_file_limits(2, Some(8 << 20), None, FileGrowth::Default)
        .unwrap();
}

/// Inserts `n` rows of 500 bytes into a new heap; returns the distinct pages per file.
fn load(db: &Database, n: u32) -> BTreeMap<u16, usize> {
    let mut t = db.begin().unwrap();
    let h = db.create_heap(&mut t).unwrap();
    let heap = db.heap(h).unwrap();
    let mut pages = BTreeSet::new();
    for i in 0..n {
        pages.insert(heap.insert(&mut t, &[i as u8; 500]).unwrap().page);
    }
    t.commit().unwrap();
    let mut per_file = BTreeMap::new();
    for p in pages {
        *per_file.entry(p.file).or_insert(0) += 1;
    }
    per_file
}

fn assert_weighted(per_file: &BTreeMap<u16, usize>) {
    let small = per_file.get(&1).copied().unwrap_or(0);
    let big = per_file.get(&2).copied().unwrap_or(0);
    // round robin would give about 1:1; proportional fill about 4:1
    assert!(small > 0, "the small file still gets extents: {per_file:?}");
    assert!(big >= 3 * small, "extents follow free space: {per_file:?}");
}

#[test]
fn extents_follow_free_space_across_reopen() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = Database::open(dir.path(), cfg()).unwrap();
        size_files(&db);
        assert_weighted(&load(&db, 2400));
        assert_eq!(db.check().unwrap(), Vec::<String>::new());
    }
    let db = Database::open(dir.path(), cfg()).unwrap();
    size_files(&db);
    assert_weighted(&load(&db, 1600));
    assert_eq!(db.check().unwrap(), Vec::<String>::new());
}

#[test]
fn equal_files_get_equal_shares() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(
        dir.path(),
        StorageConfig {
            data_files: 4,
            ..cfg()
        },
    )
    .unwrap();
    for f in 1..=4 {
        db.set_file_limits(f, Some(4 << 20), None, FileGrowth::Default)
            .unwrap();
    }
    let per_file = load(&db, 4000);
    let total: usize = per_file.values().sum();
    assert_eq!(per_file.len(), 4, "{per_file:?}");
    for (f, n) in &per_file {
        assert!(
            *n * 100 >= total * 20 && *n * 100 <= total * 30,
            "file {f} holds {n} of {total} pages: {per_file:?}"
        );
    }
}

#[test]
fn used_extents_per_file_from_the_gam() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(dir.path(), cfg()).unwrap();
    size_files(&db);
    let before: Vec<u64> = (1..=2)
        .map(|f| db.data_file_used_extents(f).unwrap())
        .collect();
    assert!(before[0] > 0, "the directory and catalog live in file 1");
    let per_file = load(&db, 2400);
    for f in 1..=2u16 {
        let now = db.data_file_used_extents(f).unwrap();
        let pages = per_file.get(&f).copied().unwrap_or(0) as u64;
        assert!(
            now >= before[usize::from(f) - 1] + pages.div_ceil(8),
            "file {f}: {now} extents for {pages} new pages"
        );
    }
    assert!(db.data_file_used_extents(0).is_err());
    assert!(db.data_file_used_extents(3).is_err());
}
