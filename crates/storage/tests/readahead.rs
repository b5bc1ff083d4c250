//! Read-ahead (acceptance 4): a cold full scan reads with large multi-page I/Os.
//! Default: a 64 MB table. LATCHKEY_READAHEAD_MB=1024 runs the 1 GB variant.

use std::ops::Bound;

use storage::*;

fn run(kind: &str) {
    let mb: usize = std::env::var("LATCHKEY_READAHEAD_MB")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(64);
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(
        dir.path(),
        StorageConfig {
            buffer_pool_bytes: 32 << 20,
            sync_commit: false,
            ..Default::default()
        },
    )
    .unwrap();
    let row = vec![7u8; 400];
    let rows = mb * 1024 * 1024 / 420;
    let mut t = db.begin().unwrap();
    let id = if kind == "heap" {
        db.create_heap(&mut t).unwrap()
    } else {
        db.create_btree(&mut t).unwrap()
    };
    for i in 0..rows {
        if kind == "heap" {
            db.heap(id).unwrap().insert(&mut t, &row).unwrap();
        } else {
            db.btree(id)
                .unwrap()
                .insert(&mut t, &(i as u64).to_be_bytes(), &row)
                .unwrap();
        }
        if i % 10_000 == 9_999 {
            t.commit().unwrap();
            t = db.begin().unwrap();
        }
    }
    t.commit().unwrap();
    db.checkpoint().unwrap();
    db.drop_clean_buffers().unwrap();
    let before = db.io_stats();
    let mut b = RowBatch::new();
    let mut n = 0;
    if kind == "heap" {
        let mut s = db.heap(id).unwrap().scan().unwrap();
        while s.next_batch(&mut b).unwrap() {
            n += b.len();
        }
    } else {
        let mut s = db
            .btree(id)
            .unwrap()
            .range(Bound::Unbounded, Bound::Unbounded, ScanDirection::Forward)
            .unwrap();
        while s.next_batch(&mut b).unwrap() {
            n += b.len();
        }
    }
    assert_eq!(n, rows);
    let after = db.io_stats();
    let reads = after.files[0].num_of_reads - before.files[0].num_of_reads;
    let bytes = after.files[0].num_of_bytes_read - before.files[0].num_of_bytes_read;
    let avg = bytes / reads.max(1);
    eprintln!(
        "{kind} cold scan of {mb} MB: {reads} reads, {bytes} bytes, avg {} KB, read-ahead pages {}, physical {}",
        avg / 1024,
        after.read_ahead_reads - before.read_ahead_reads,
        after.physical_reads - before.physical_reads
    );
    assert!(avg >= 256 * 1024, "average read {avg} bytes < 256 KB");
}

#[test]
fn heap_cold_scan_reads_ahead() {
    run("heap");
}

#[test]
fn btree_cold_scan_reads_ahead() {
    run("btree");
}
