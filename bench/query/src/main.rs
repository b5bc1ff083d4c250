//! latchkey query execution vs SQLite, side by side in one process (row mode).
//!
//! Usage:
//!   cargo run --release -p query-bench -- [--scale F] [--rows N] [--join N] [--sort N]
//!       [--lookups N] [--repeat R] [--pool-mb MB] [--only a,b,c,d,e,f] [--engine latchkey|sqlite]
//!       [--spill-budget MB]   (latchkey per-operator memory budget: spill sorts / joins)
//!
//! Workloads (same data in both engines, page caches sized alike, default 512 MB):
//! * (a) `SELECT COUNT(*)` over `t` (5M rows: `id int PRIMARY KEY, a int, b int`);
//! * (b) `SELECT SUM(b) FROM t WHERE a < 100` (10% selectivity) over the same rows;
//! * (c) `SELECT COUNT(*) FROM j1 JOIN j2 ON j1.k = j2.k`, 1M x 1M integer keys (heaps in
//!   latchkey, so a Hash Match join; SQLite uses an automatic index);
//! * (d) `SELECT k, v FROM j2 ORDER BY v` — 1M rows, all fetched to the client;
//! * (e) 100k point lookups `SELECT b FROM t WHERE id = @id`, parameterised: latchkey
//!   `Session::execute_parameterized` (what an RPC `sp_executesql` call does; compiled once, then
//!   served from the session plan cache), SQLite one prepared statement rebound per lookup;
//! * (f) the same lookups as ad-hoc texts with the key as a literal (every text differs: both
//!   engines parse and plan each one; SQLite prepares each text).
//!
//! Each timing is the median of `--repeat` runs (default 3). Ratio = latchkey / SQLite.

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::SqlError;
use engine::{Engine, EngineConfig, EventSink, InfoMessage, OutColumn, Session};
use rusqlite::Connection;
use types::Value;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

struct Sizes {
    rows: u64,
    join: u64,
    sort: u64,
    lookups: u64,
}

/// Counts rows and keeps a checksum of the first column so no engine can skip work.
#[derive(Default)]
struct CountSink {
    rows: u64,
    first: Option<i64>,
    check: i64,
    errors: Vec<SqlError>,
}

impl EventSink for CountSink {
    fn result_start(&mut self, _columns: &[OutColumn]) {}
    fn row(&mut self, row: &[Value]) {
        self.rows += 1;
        let v = match row.first() {
            Some(Value::Int(i)) => *i as i64,
            Some(Value::BigInt(i)) => *i,
            _ => 0,
        };
        if self.first.is_none() {
            self.first = Some(v);
        }
        self.check = self.check.wrapping_add(v);
    }
    fn result_end(&mut self, _rows: u64, _incomplete: bool, _show_count: bool) {}
    fn row_count(&mut self, _count: u64) {}
    fn message(&mut self, _msg: &InfoMessage) {}
    fn error(&mut self, err: &SqlError) {
        self.errors.push(err.clone());
    }
}

fn lk(session: &mut Session, sql: &str) -> Res<CountSink> {
    let mut sink = CountSink::default();
    session.execute_batch(sql, &mut sink);
    if let Some(e) = sink.errors.first() {
        return Err(format!("latchkey: {sql}: Msg {}: {}", e.number, e.message).into());
    }
    Ok(sink)
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

fn lookup_keys(s: &Sizes) -> Vec<i64> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    (0..s.lookups)
        .map(|_| (rng.next() % s.rows) as i64 + 1)
        .collect()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Runs `f` `repeat` times; returns the median time and the last result (checked equal).
fn time<T: PartialEq + std::fmt::Debug>(
    repeat: usize,
    mut f: impl FnMut() -> Res<T>,
) -> Res<(Duration, T)> {
    let mut times = Vec::new();
    let mut last: Option<T> = None;
    for _ in 0..repeat {
        let t = Instant::now();
        let r = f()?;
        times.push(t.elapsed());
        if let Some(prev) = &last {
            if *prev != r {
                return Err(format!("result changed between runs: {prev:?} vs {r:?}").into());
            }
        }
        last = Some(r);
    }
    Ok((median(times), last.ok_or("no runs")?))
}

// ---------------------------------------------------------------- latchkey

fn lk_load(session: &mut Session, s: &Sizes) -> Res<()> {
    lk(session, "CREATE DATABASE qbench")?;
    lk(session, "USE qbench")?;
    lk(session, "CREATE TABLE nums (n int NOT NULL)")?;
    lk(
        session,
        "INSERT INTO nums SELECT number FROM master.dbo.spt_values WHERE type = N'P' AND number < 1000",
    )?;
    lk(
        session,
        "CREATE TABLE t (id int NOT NULL PRIMARY KEY, a int NOT NULL, b int NOT NULL)",
    )?;
    lk(session, "CREATE TABLE j1 (k int NOT NULL, v int NOT NULL)")?;
    lk(session, "CREATE TABLE j2 (k int NOT NULL, v int NOT NULL)")?;
    // Chunks of up to 1M rows: x = 0-based row number.
    let fill = |session: &mut Session, table: &str, total: u64, cols: &str| -> Res<()> {
        let mut base = 0u64;
        while base < total {
            let cnt = (total - base).min(1_000_000);
            let sql = format!(
                "INSERT INTO {table} SELECT {cols} FROM (SELECT {base} + x.n * 1000 + y.n AS x \
                 FROM nums x CROSS JOIN nums y WHERE x.n * 1000 + y.n < {cnt}) g"
            );
            lk(session, &sql)?;
            base += cnt;
        }
        Ok(())
    };
    fill(
        session,
        "t",
        s.rows,
        "x + 1, ((x % 1000) * 7919) % 1000, x % 10007",
    )?;
    let j = s.join as i64;
    fill(session, "j1", s.join, &format!("(x * 7) % {j}, x % 1000"))?;
    let sv = s.sort as i64;
    fill(
        session,
        "j2",
        s.join.max(s.sort),
        &format!("x, (CAST(x AS bigint) * 7919) % {sv}"),
    )?;
    lk(session, "CHECKPOINT").ok();
    Ok(())
}

// ---------------------------------------------------------------- sqlite

fn sq_load(conn: &Connection, s: &Sizes) -> Res<()> {
    conn.execute_batch(
        "CREATE TABLE t (id INTEGER PRIMARY KEY, a INT NOT NULL, b INT NOT NULL);
         CREATE TABLE j1 (k INT NOT NULL, v INT NOT NULL);
         CREATE TABLE j2 (k INT NOT NULL, v INT NOT NULL);",
    )?;
    let gen = |table: &str, total: u64, cols: &str| -> Res<()> {
        conn.execute_batch(&format!(
            "INSERT INTO {table} WITH RECURSIVE g(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM g \
             WHERE x + 1 < {total}) SELECT {cols} FROM g"
        ))?;
        Ok(())
    };
    gen("t", s.rows, "x + 1, ((x % 1000) * 7919) % 1000, x % 10007")?;
    gen(
        "j1",
        s.join,
        &format!("(x * 7) % {}, x % 1000", s.join as i64),
    )?;
    gen(
        "j2",
        s.join.max(s.sort),
        &format!("x, (x * 7919) % {}", s.sort as i64),
    )?;
    Ok(())
}

fn sq_scalar(conn: &Connection, sql: &str) -> Res<i64> {
    Ok(conn
        .query_row(sql, [], |r| r.get::<_, Option<i64>>(0))?
        .unwrap_or(0))
}

// ---------------------------------------------------------------- main

fn arg_val(args: &[String], i: &mut usize) -> Res<String> {
    *i += 1;
    args.get(*i)
        .cloned()
        .ok_or_else(|| format!("missing value after {}", args[*i - 1]).into())
}

fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut scale = 1.0f64;
    let (mut rows, mut join, mut sort, mut lookups) = (None, None, None, None);
    let mut repeat = 3usize;
    let mut pool_mb = 512usize;
    let mut only = "abcdef".to_string();
    let mut which: Option<String> = None;
    let mut dir: Option<std::path::PathBuf> = None;
    // --spill-budget MB: latchkey's per-operator memory budget (sort / hash join / hash
    // aggregate spill to tempdb work files beyond it); default: the engine's (256 MB).
    let mut spill_mb: Option<usize> = None;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--scale" => scale = arg_val(&args, &mut i)?.parse()?,
            "--rows" => rows = Some(arg_val(&args, &mut i)?.replace('_', "").parse::<u64>()?),
            "--join" => join = Some(arg_val(&args, &mut i)?.replace('_', "").parse::<u64>()?),
            "--sort" => sort = Some(arg_val(&args, &mut i)?.replace('_', "").parse::<u64>()?),
            "--lookups" => lookups = Some(arg_val(&args, &mut i)?.replace('_', "").parse::<u64>()?),
            "--repeat" => repeat = arg_val(&args, &mut i)?.parse::<usize>()?.max(1),
            "--pool-mb" => pool_mb = arg_val(&args, &mut i)?.parse()?,
            "--only" => only = arg_val(&args, &mut i)?,
            "--engine" => which = Some(arg_val(&args, &mut i)?),
            "--dir" => dir = Some(arg_val(&args, &mut i)?.into()),
            "--spill-budget" => spill_mb = Some(arg_val(&args, &mut i)?.parse()?),
            "-h" | "--help" => {
                println!("query-bench [--scale F] [--rows N] [--join N] [--sort N] [--lookups N] [--repeat R] [--pool-mb MB] [--only abcdef] [--engine latchkey|sqlite] [--dir PATH (keep/reuse loaded data)] [--spill-budget MB]");
                return Ok(());
            }
            other => return Err(format!("unknown argument {other}").into()),
        }
        i += 1;
    }
    let sc = |n: u64| ((n as f64 * scale).round() as u64).max(1);
    let s = Sizes {
        rows: rows.unwrap_or(sc(5_000_000)),
        join: join.unwrap_or(sc(1_000_000)),
        sort: sort.unwrap_or(sc(1_000_000)),
        lookups: lookups.unwrap_or(sc(100_000)),
    };
    let run_lk = which.as_deref() != Some("sqlite");
    let run_sq = which.as_deref() != Some("latchkey");
    println!(
        "rows {} | join {} x {} | sort {} | lookups {} | page cache {pool_mb} MB each | median of {repeat}",
        s.rows, s.join, s.join, s.sort, s.lookups
    );
    let tmp = tempfile::tempdir()?;
    let base = dir.unwrap_or_else(|| tmp.path().to_path_buf());
    std::fs::create_dir_all(&base)?;
    // A marker per engine: data of these sizes is already loaded (reused with --dir).
    let tag = format!("{}-{}-{}", s.rows, s.join, s.sort);
    let loaded = |name: &str| {
        std::fs::read_to_string(base.join(format!("{name}.loaded")))
            .ok()
            .as_deref()
            == Some(&tag)
    };

    // Setup.
    let mut session = None;
    if run_lk {
        let t = Instant::now();
        let config = EngineConfig {
            storage: storage::StorageConfig {
                buffer_pool_bytes: pool_mb << 20,
                sync_commit: false,
                ..Default::default()
            },
            operator_memory_bytes: spill_mb.map(|mb| mb << 20),
            ..Default::default()
        };
        if let Some(mb) = spill_mb {
            println!("latchkey operator memory budget: {mb} MB (spills beyond it)");
        }
        let fresh = !loaded("latchkey");
        if fresh {
            let _ = std::fs::remove_dir_all(base.join("latchkey"));
        }
        let eng: Arc<Engine> = Engine::open(&base.join("latchkey"), config)?;
        let mut sess = Session::new(eng);
        if fresh {
            lk_load(&mut sess, &s)?;
            std::fs::write(base.join("latchkey.loaded"), &tag)?;
            println!("latchkey load: {:.2}s", t.elapsed().as_secs_f64());
        } else {
            lk(&mut sess, "USE qbench")?;
        }
        session = Some(sess);
    }
    let mut conn = None;
    if run_sq {
        let t = Instant::now();
        let fresh = !loaded("sqlite");
        if fresh {
            let _ = std::fs::remove_file(base.join("sqlite.db"));
            let _ = std::fs::remove_file(base.join("sqlite.db-wal"));
        }
        let c = Connection::open(base.join("sqlite.db"))?;
        c.execute_batch(&format!(
            "PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF; PRAGMA cache_size=-{};",
            pool_mb * 1024
        ))?;
        if fresh {
            sq_load(&c, &s)?;
            std::fs::write(base.join("sqlite.loaded"), &tag)?;
            println!("sqlite load:   {:.2}s", t.elapsed().as_secs_f64());
        }
        conn = Some(c);
    }

    let keys = lookup_keys(&s);
    type LkFn<'a> = Box<dyn FnMut(&mut Session) -> Res<i64> + 'a>;
    type SqFn<'a> = Box<dyn FnMut(&Connection) -> Res<i64> + 'a>;
    let scalar_lk = |sql: &'static str| -> LkFn<'static> {
        Box::new(move |se: &mut Session| Ok(lk(se, sql)?.check))
    };
    let scalar_sq =
        |sql: &'static str| -> SqFn<'static> { Box::new(move |c: &Connection| sq_scalar(c, sql)) };
    let keys_lk = keys.clone();
    let keys_sq = keys.clone();
    let keys_adhoc_lk = keys.clone();
    let keys_adhoc_sq = keys.clone();
    let cases: Vec<(char, &str, LkFn, SqFn)> = vec![
        (
            'a',
            "COUNT(*) 5M",
            scalar_lk("SELECT COUNT(*) FROM t"),
            scalar_sq("SELECT COUNT(*) FROM t"),
        ),
        (
            'b',
            "SUM WHERE a<100",
            scalar_lk("SELECT SUM(CAST(b AS bigint)) FROM t WHERE a < 100"),
            scalar_sq("SELECT SUM(b) FROM t WHERE a < 100"),
        ),
        (
            'c',
            "hash join 1Mx1M",
            scalar_lk("SELECT COUNT(*) FROM j1 JOIN j2 ON j1.k = j2.k"),
            scalar_sq("SELECT COUNT(*) FROM j1 JOIN j2 ON j1.k = j2.k"),
        ),
        (
            'd',
            "ORDER BY 1M fetch",
            Box::new(move |se: &mut Session| {
                let r = lk(se, "SELECT v, k FROM j2 ORDER BY v, k")?;
                Ok(r.first.unwrap_or(0) + r.rows as i64 * 1_000_003 + r.check)
            }),
            Box::new(move |c: &Connection| {
                let mut st = c.prepare("SELECT v, k FROM j2 ORDER BY v, k")?;
                let mut rows = st.query([])?;
                let (mut n, mut check, mut first) = (0i64, 0i64, None);
                while let Some(r) = rows.next()? {
                    let v: i64 = r.get(0)?;
                    let _k: i64 = r.get(1)?;
                    first.get_or_insert(v);
                    n += 1;
                    check = check.wrapping_add(v);
                }
                Ok(first.unwrap_or(0) + n * 1_000_003 + check)
            }),
        ),
        (
            'e',
            "100k point lookups",
            Box::new(move |se: &mut Session| {
                // A client's parameterised RPC (sp_executesql): compiled once, then cached.
                let mut sum = 0i64;
                for k in &keys_lk {
                    let mut sink = CountSink::default();
                    se.execute_parameterized(
                        "SELECT b FROM t WHERE id = @id",
                        vec![("@id".into(), types::DataType::Int, Value::Int(*k as i32))],
                        &mut sink,
                    );
                    if let Some(e) = sink.errors.first() {
                        return Err(
                            format!("latchkey lookup: Msg {}: {}", e.number, e.message).into()
                        );
                    }
                    sum += sink.check;
                }
                Ok(sum)
            }),
            Box::new(move |c: &Connection| {
                let mut st = c.prepare_cached("SELECT b FROM t WHERE id = ?1")?;
                let mut sum = 0i64;
                for k in &keys_sq {
                    sum += st.query_row([k], |r| r.get::<_, i64>(0))?;
                }
                Ok(sum)
            }),
        ),
        (
            'f',
            "100k ad-hoc lookups",
            Box::new(move |se: &mut Session| {
                let mut sum = 0i64;
                for k in &keys_adhoc_lk {
                    sum += lk(se, &format!("SELECT b FROM t WHERE id = {k}"))?.check;
                }
                Ok(sum)
            }),
            Box::new(move |c: &Connection| {
                let mut sum = 0i64;
                for k in &keys_adhoc_sq {
                    sum += c.query_row(&format!("SELECT b FROM t WHERE id = {k}"), [], |r| {
                        r.get::<_, i64>(0)
                    })?;
                }
                Ok(sum)
            }),
        ),
    ];

    println!(
        "{:<22} {:>12} {:>12} {:>8}",
        "query", "latchkey s", "sqlite s", "ratio"
    );
    for (id, name, mut f_lk, mut f_sq) in cases {
        if !only.contains(id) {
            continue;
        }
        let lk_r = match session.as_mut() {
            Some(se) => Some(time(repeat, || f_lk(se))?),
            None => None,
        };
        let sq_r = match conn.as_mut() {
            Some(c) => Some(time(repeat, || f_sq(c))?),
            None => None,
        };
        if let (Some((_, a)), Some((_, b))) = (&lk_r, &sq_r) {
            if a != b {
                eprintln!("warning: ({id}) results differ: latchkey {a} vs sqlite {b}");
            }
        }
        let fmt = |r: &Option<(Duration, i64)>| {
            r.as_ref()
                .map(|(d, _)| format!("{:.3}", d.as_secs_f64()))
                .unwrap_or_else(|| "-".into())
        };
        let ratio = match (&lk_r, &sq_r) {
            (Some((a, _)), Some((b, _))) => format!("{:.2}", a.as_secs_f64() / b.as_secs_f64()),
            _ => "-".into(),
        };
        println!(
            "({id}) {:<18} {:>12} {:>12} {:>8}",
            name,
            fmt(&lk_r),
            fmt(&sq_r),
            ratio
        );
    }
    Ok(())
}
