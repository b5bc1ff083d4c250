//! A durable commit waits for the log flush: each such wait is one WRITELOG wait in
//! `common::waits` (what `sys.dm_os_wait_stats` reports), a lazy commit is none.

use storage::*;

fn writelog_count() -> u64 {
    common::waits::snapshot()
        .into_iter()
        .find(|w| w.wait_type == "WRITELOG")
        .map(|w| w.waiting_tasks_count)
        .unwrap_or(0)
}

#[test]
fn durable_commit_counts_one_writelog_wait() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(
        dir.path(),
        StorageConfig {
            buffer_pool_bytes: 4 << 20,
            sync_commit: true,
            ..Default::default()
        },
    )
    .unwrap();
    let mut t = db.begin().unwrap();
    let id = db.create_btree(&mut t).unwrap();
    t.commit().unwrap();
    let bt = db.btree(id).unwrap();

    let before = writelog_count();
    let mut t = db.begin().unwrap();
    assert!(bt.insert(&mut t, b"k1", b"v").unwrap());
    t.commit_lazy().unwrap();
    assert_eq!(
        writelog_count(),
        before,
        "a lazy commit does not wait for the log"
    );

    let mut t = db.begin().unwrap();
    assert!(bt.insert(&mut t, b"k2", b"v").unwrap());
    t.commit().unwrap();
    assert_eq!(writelog_count(), before + 1, "a durable commit waits once");
}
