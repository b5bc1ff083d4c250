//! The latch protocol of inserts (btree/README L3): an insert that finds a leaf's latch busy
//! waits for it holding no latch above it.

use std::sync::Arc;

use common::PageId;

use super::{inner_child, search_inner};
use crate::page;
use crate::{Database, StorageConfig};

/// The leaf that holds (or would hold) `key`, by an SH descent from `root`.
fn leaf_of(db: &crate::db::Inner, root: PageId, key: &[u8]) -> PageId {
    let mut pid = root;
    loop {
        let g = db.pool.read(pid).unwrap();
        if page::page_type(&g) == Some(page::PageType::Leaf) {
            return pid;
        }
        let i = search_inner(&g, pid, key, false).unwrap();
        pid = inner_child(page::rec_checked(&g, pid, i).unwrap());
    }
}

#[test]
fn an_insert_waiting_for_a_busy_leaf_holds_no_latch_above_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(
        dir.path(),
        StorageConfig {
            buffer_pool_bytes: 8 << 20,
            sync_commit: false,
            ..Default::default()
        },
    )
    .unwrap();
    let mut t = db.begin().unwrap();
    let id = db.create_btree(&mut t).unwrap();
    let bt = db.btree(id).unwrap();
    for k in 0..2000u64 {
        assert!(bt
            .insert(&mut t, &(k * 2).to_be_bytes(), &[1u8; 60])
            .unwrap());
    }
    t.commit().unwrap();
    let inner = db.inner.clone();
    // no append hint: the insert descends from the root (optimistic, btree/README L2)
    inner.btree_hint.lock().clear();
    let m = inner.meta(id.0).unwrap();
    let key = (1001u64 * 2 + 1).to_be_bytes();
    let leaf = leaf_of(&inner, m.root, &key);
    assert_ne!(leaf, m.root, "the tree has inner pages");
    let busy = inner.pool.write(leaf).unwrap();
    let task = Arc::new(common::waits::TaskWaits::default());
    let db = Arc::new(db);
    let inserter = {
        let (db, task) = (db.clone(), task.clone());
        std::thread::spawn(move || {
            let _bound = common::waits::bind(task);
            let mut t = db.begin().unwrap();
            let ok = db
                .btree(id)
                .unwrap()
                .insert(&mut t, &key, &[2u8; 60])
                .unwrap();
            t.commit().unwrap();
            ok
        })
    };
    // wait until the inserter waits for the leaf's latch
    let mut polls = 0;
    while task.current().map(|w| w.wait_type) != Some("PAGELATCH_EX") {
        polls += 1;
        assert!(polls < 20_000, "the insert never waited for the busy leaf");
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    // while it waits, nothing above the leaf is latched: the root can be taken exclusively
    let root = inner.pool.try_write(m.root).unwrap();
    assert!(
        root.is_some(),
        "an insert waiting for a leaf holds a latch on the root"
    );
    drop(root);
    drop(busy);
    assert!(inserter.join().unwrap());
    assert_eq!(bt.get(&key).unwrap(), Some(vec![2u8; 60]));
    assert_eq!(db.check().unwrap(), Vec::<String>::new());
}

/// btree/README S3c: a split of the last leaf (and the root's first split) makes its new
/// right page the append target at once, so the inserts that follow go straight to it.
#[test]
fn the_append_hint_follows_every_split_of_the_last_leaf() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(
        dir.path(),
        StorageConfig {
            buffer_pool_bytes: 8 << 20,
            sync_commit: false,
            ..Default::default()
        },
    )
    .unwrap();
    let mut t = db.begin().unwrap();
    let id = db.create_btree(&mut t).unwrap();
    let bt = db.btree(id).unwrap();
    let inner = db.inner.clone();
    let top = u64::MAX.to_be_bytes();
    let mut splits = 0;
    let mut last = PageId::INVALID;
    for k in 0..3000u64 {
        assert!(bt.insert(&mut t, &k.to_be_bytes(), &[1u8; 60]).unwrap());
        let root = inner.meta(id.0).unwrap().root;
        let now = leaf_of(&inner, root, &top);
        if now != last {
            splits += 1;
            last = now;
        }
        let hint = inner.btree_hint.lock().get(&id.0).copied();
        assert_eq!(
            hint,
            Some((root, now)),
            "after key {k}: the hint is the last leaf"
        );
    }
    assert!(splits > 10, "{splits} splits");
    t.commit().unwrap();
    assert_eq!(db.check().unwrap(), Vec::<String>::new());
}
