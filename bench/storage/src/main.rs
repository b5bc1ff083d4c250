//! latchkey storage vs SQLite (acceptance 5). Usage:
//!   cargo run --release -p storage-bench -- [ROWS] [--dir PATH] [--pool-mb N] [--only latchkey|sqlite] [--no-sync]
//! Workloads (same data in both engines: 8-byte key, 200-byte value):
//! 1. ROWS ascending-key single-row inserts, one transaction per 1,000 rows, durable commits
//!    (latchkey sync_commit; SQLite WAL + synchronous=FULL);
//! 2. ROWS random point lookups;
//! 3. full scan warm (cache populated) and cold (latchkey: checkpoint + DROPCLEANBUFFERS;
//!    SQLite: reopen the connection; the OS page cache stays warm for both).
//!
//! Page caches are sized alike (--pool-mb, default 256).
//! `--cpu` also prints the on-CPU time of the benchmark thread per workload (Linux
//! `/proc/thread-self/schedstat`): steadier than wall time on a shared machine.

use std::ops::Bound;
use std::time::{Duration, Instant};

use rusqlite::{params, Connection};
use storage::{Database, RowBatch, ScanDirection, StorageConfig};

/// On-CPU nanoseconds of the calling thread (0 where unavailable).
fn thread_cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|v| v.parse().ok()))
        .unwrap_or(0)
}

/// Wall-clock and on-CPU time of one workload.
#[derive(Clone, Copy, Default)]
struct Timer {
    wall: Duration,
    cpu: Duration,
}

struct Started(Instant, u64);
impl Started {
    fn now() -> Started {
        Started(Instant::now(), thread_cpu_ns())
    }
    fn elapsed(&self) -> Timer {
        Timer {
            wall: self.0.elapsed(),
            cpu: Duration::from_nanos(thread_cpu_ns().saturating_sub(self.1)),
        }
    }
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn value(i: u64) -> Vec<u8> {
    let mut v = vec![(i % 251) as u8; 200];
    v[..8].copy_from_slice(&i.to_le_bytes());
    v
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut rows: u64 = 1_000_000;
    let mut dir: Option<std::path::PathBuf> = None;
    let mut pool_mb: usize = 256;
    let mut only: Option<String> = None;
    let mut sync = true;
    let mut cpu = false;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--dir" => {
                i += 1;
                dir = args.get(i).map(Into::into);
            }
            "--no-sync" => sync = false,
            "--cpu" => cpu = true,
            "--only" => {
                i += 1;
                only = args.get(i).cloned();
            }
            "--pool-mb" => {
                i += 1;
                pool_mb = args.get(i).and_then(|s| s.parse().ok()).unwrap_or(pool_mb);
            }
            s => rows = s.replace('_', "").parse()?,
        }
        i += 1;
    }
    let tmp = tempfile::tempdir()?;
    let base = dir.unwrap_or_else(|| tmp.path().to_path_buf());
    let lk_dir = base.join("latchkey");
    let sq_path = base.join("sqlite.db");
    let _ = std::fs::remove_dir_all(&lk_dir);
    let _ = std::fs::remove_file(&sq_path);
    let _ = std::fs::remove_file(base.join("sqlite.db-wal"));
    println!(
        "rows: {rows}, page cache: {pool_mb} MB each, dir: {}",
        base.display()
    );

    let run_lk = only.as_deref() != Some("sqlite");
    let run_sq = only.as_deref() != Some("latchkey");
    let lk = if run_lk {
        latchkey(rows, &lk_dir, pool_mb, sync)?
    } else {
        Default::default()
    };
    let sq = if run_sq {
        sqlite(rows, &sq_path, pool_mb, sync)?
    } else {
        Default::default()
    };
    let rows = [
        ("ascending inserts (txn of 1000)", lk.0, sq.0),
        ("random point lookups", lk.1, sq.1),
        ("full scan, warm", lk.2, sq.2),
        ("full scan, cold", lk.3, sq.3),
    ];
    print_table(&rows.map(|(n, a, b)| (n, a.wall, b.wall)));
    if cpu {
        println!("on-CPU time of the benchmark thread:");
        print_table(&rows.map(|(n, a, b)| (n, a.cpu, b.cpu)));
    }
    Ok(())
}

type Times = (Timer, Timer, Timer, Timer);
type BenchResult<T> = Result<T, Box<dyn std::error::Error>>;

fn latchkey(rows: u64, lk_dir: &std::path::Path, pool_mb: usize, sync: bool) -> BenchResult<Times> {
    let cfg = StorageConfig {
        buffer_pool_bytes: pool_mb << 20,
        sync_commit: sync,
        ..Default::default()
    };
    let db = Database::open(lk_dir, cfg)?;
    let mut t = db.begin()?;
    let id = db.create_btree(&mut t)?;
    t.commit()?;
    let bt = db.btree(id)?;
    let s = Started::now();
    let mut t = db.begin()?;
    for i in 0..rows {
        bt.insert(&mut t, &i.to_be_bytes(), &value(i))?;
        if i % 1000 == 999 {
            t.commit()?;
            t = db.begin()?;
        }
    }
    t.commit()?;
    let lk_insert = s.elapsed();

    let mut rng = Rng(0x1234_5678);
    let s = Started::now();
    let mut found = 0u64;
    for _ in 0..rows {
        let k = rng.next() % rows;
        if bt.get(&k.to_be_bytes())?.is_some() {
            found += 1;
        }
    }
    let lk_lookup = s.elapsed();
    assert_eq!(found, rows, "latchkey lookups missed rows");

    let lk_scan = |db: &Database| -> Result<(Timer, u64), Box<dyn std::error::Error>> {
        let s = Started::now();
        let mut sc =
            db.btree(id)?
                .range(Bound::Unbounded, Bound::Unbounded, ScanDirection::Forward)?;
        let mut b = RowBatch::new();
        let mut n = 0u64;
        let mut bytes = 0u64;
        while sc.next_batch(&mut b)? {
            n += b.len() as u64;
            for i in 0..b.len() {
                bytes += b.record(i).len() as u64;
            }
        }
        assert_eq!(bytes, n * 200);
        Ok((s.elapsed(), n))
    };
    let (lk_warm, n) = lk_scan(&db)?;
    assert_eq!(n, rows);
    db.checkpoint()?;
    db.drop_clean_buffers()?;
    let before = db.io_stats();
    let (lk_cold, _) = lk_scan(&db)?;
    let after = db.io_stats();
    let reads = after.files[0].num_of_reads - before.files[0].num_of_reads;
    let bytes = after.files[0].num_of_bytes_read - before.files[0].num_of_bytes_read;
    println!(
        "latchkey cold scan: {reads} reads, avg {} KB per read, read-ahead pages {}",
        bytes / reads.max(1) / 1024,
        after.read_ahead_reads - before.read_ahead_reads
    );
    drop(bt);
    drop(db);

    Ok((lk_insert, lk_lookup, lk_warm, lk_cold))
}

fn sqlite(rows: u64, sq_path: &std::path::Path, pool_mb: usize, sync: bool) -> BenchResult<Times> {
    let open = || -> rusqlite::Result<Connection> {
        let c = Connection::open(sq_path)?;
        c.pragma_update(None, "journal_mode", "WAL")?;
        c.pragma_update(None, "synchronous", if sync { "FULL" } else { "OFF" })?;
        c.pragma_update(None, "cache_size", -((pool_mb * 1024) as i64))?;
        Ok(c)
    };
    let mut c = open()?;
    c.execute(
        "CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB NOT NULL)",
        [],
    )?;
    let s = Started::now();
    let mut i = 0u64;
    while i < rows {
        let tx = c.transaction()?;
        {
            let mut st = tx.prepare_cached("INSERT INTO t (id, v) VALUES (?1, ?2)")?;
            let end = (i + 1000).min(rows);
            while i < end {
                st.execute(params![i as i64, value(i)])?;
                i += 1;
            }
        }
        tx.commit()?;
    }
    let sq_insert = s.elapsed();

    let mut rng = Rng(0x1234_5678);
    let s = Started::now();
    let mut found = 0u64;
    {
        let mut st = c.prepare_cached("SELECT v FROM t WHERE id = ?1")?;
        for _ in 0..rows {
            let k = rng.next() % rows;
            let mut q = st.query(params![k as i64])?;
            if let Some(r) = q.next()? {
                let v: Vec<u8> = r.get(0)?;
                if v.len() == 200 {
                    found += 1;
                }
            }
        }
    }
    let sq_lookup = s.elapsed();
    assert_eq!(found, rows, "sqlite lookups missed rows");

    let sq_scan = |c: &Connection| -> rusqlite::Result<Timer> {
        let s = Started::now();
        let mut st = c.prepare("SELECT id, v FROM t ORDER BY id")?;
        let mut q = st.query([])?;
        let mut n = 0u64;
        let mut bytes = 0u64;
        while let Some(r) = q.next()? {
            let v = r.get_ref(1)?.as_blob()?;
            bytes += v.len() as u64;
            n += 1;
        }
        assert_eq!(n, rows);
        assert_eq!(bytes, n * 200);
        Ok(s.elapsed())
    };
    let sq_warm = sq_scan(&c)?;
    drop(c);
    c = open()?;
    let sq_cold = sq_scan(&c)?;
    drop(c);

    Ok((sq_insert, sq_lookup, sq_warm, sq_cold))
}

fn print_table(rows: &[(&str, Duration, Duration)]) {
    println!(
        "{:<34} {:>12} {:>12} {:>16}",
        "workload", "latchkey", "sqlite", "latchkey/sqlite"
    );
    for (name, a, b) in rows {
        println!(
            "{:<34} {:>10.3} s {:>10.3} s {:>16.2}",
            name,
            a.as_secs_f64(),
            b.as_secs_f64(),
            a.as_secs_f64() / b.as_secs_f64().max(1e-9)
        );
    }
}
