//! Model test of DDL undo (engine README "DDL undo"): random sequences of DDL (CREATE/DROP
//! TABLE, ADD/DROP COLUMN, ALTER COLUMN, CREATE/DROP UNIQUE INDEX, TRUNCATE), DML, failing
//! statements (duplicate keys: statement rollback, T3), BEGIN/SAVE/ROLLBACK TRAN sp/ROLLBACK/
//! COMMIT and engine reopens, checked against a model after every end of transaction: the rows
//! of every table through its clustered key and through its index, its columns, DBCC CHECKDB.
//! `ddl_undo_kill` runs the same sequences in a child process killed with SIGKILL at random
//! points: after recovery the database equals the model at the last acknowledged commit or
//! (the commit in flight) the one after it.
//!
//! Knobs: LATCHKEY_DDL_MODEL_SEQS (sequences, default 12), LATCHKEY_DDL_MODEL_OPS (ops per
//! sequence, default 120), LATCHKEY_CRASH_KILLS (kills, default 8), LATCHKEY_DDL_MODEL_SEED.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use engine::{CollectSink, Engine, EngineConfig, Session};
use types::Value;

const TABLES: usize = 3;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One table of the model: `k int PRIMARY KEY, v int|bigint [, c int NULL]`, optional
/// `UNIQUE INDEX ix (v)`.
#[derive(Clone, Debug, PartialEq)]
struct Tbl {
    has_c: bool,
    has_ix: bool,
    v_big: bool,
    rows: BTreeMap<i64, (i64, Option<i64>)>,
}

type Model = BTreeMap<usize, Tbl>;

/// The session-side state: the model now, the committed one and the savepoint snapshots.
#[derive(Clone, Default)]
struct State {
    now: Model,
    committed: Model,
    in_tran: bool,
    saves: Vec<(String, Model)>,
    save_no: u32,
}

/// One generated statement and what the model says it does.
struct Step {
    sql: String,
    /// The statement must fail (statement rollback).
    fails: bool,
    /// The statement ends a transaction that commits (the kill test's acknowledgement point).
    commits: bool,
    reopen: bool,
}

fn v_taken(t: &Tbl, v: i64, except: Option<i64>) -> bool {
    t.rows
        .iter()
        .any(|(k, (x, _))| *x == v && Some(*k) != except)
}

/// Draws the next statement and applies it to the model.
fn step(r: &mut Rng, st: &mut State) -> Step {
    let mut s = Step {
        sql: String::new(),
        fails: false,
        commits: false,
        reopen: false,
    };
    loop {
        let n = r.below(TABLES as u64) as usize;
        let name = format!("t{n}");
        let exists = st.now.contains_key(&n);
        match r.below(22) {
            0 if !st.in_tran => {
                s.sql = "BEGIN TRAN".into();
                st.in_tran = true;
                st.committed = st.now.clone();
            }
            1 if st.in_tran => {
                s.sql = "COMMIT".into();
                s.commits = true;
                st.in_tran = false;
                st.saves.clear();
                st.committed = st.now.clone();
            }
            2 if st.in_tran => {
                s.sql = "ROLLBACK".into();
                st.in_tran = false;
                st.saves.clear();
                st.now = st.committed.clone();
            }
            3 | 4 if st.in_tran => {
                st.save_no += 1;
                let sp = format!("s{}", st.save_no);
                s.sql = format!("SAVE TRAN {sp}");
                st.saves.push((sp, st.now.clone()));
            }
            5 | 6 if st.in_tran && !st.saves.is_empty() => {
                let i = r.below(st.saves.len() as u64) as usize;
                let (sp, snap) = st.saves[i].clone();
                s.sql = format!("ROLLBACK TRAN {sp}");
                st.saves.truncate(i + 1);
                st.now = snap;
            }
            7 if !st.in_tran && r.below(3) == 0 => {
                s.sql = String::new();
                s.reopen = true;
            }
            8 if !exists => {
                s.sql = format!("CREATE TABLE {name}(k int NOT NULL PRIMARY KEY, v int NOT NULL)");
                st.now.insert(
                    n,
                    Tbl {
                        has_c: false,
                        has_ix: false,
                        v_big: false,
                        rows: BTreeMap::new(),
                    },
                );
            }
            9 if exists => {
                s.sql = format!("DROP TABLE {name}");
                st.now.remove(&n);
            }
            10..=13 if exists => {
                let t = st.now.get_mut(&n).unwrap();
                let k = r.below(12) as i64;
                let v = r.below(40) as i64;
                if t.rows.contains_key(&k) || (t.has_ix && v_taken(t, v, None)) {
                    s.fails = true;
                } else {
                    t.rows.insert(k, (v, None));
                }
                s.sql = format!("INSERT {name} (k, v) VALUES ({k}, {v})");
            }
            14 if exists => {
                let t = st.now.get_mut(&n).unwrap();
                let k = r.below(12) as i64;
                let v = r.below(40) as i64;
                let set_c = if t.has_c {
                    format!(", c = {}", v * 10)
                } else {
                    String::new()
                };
                s.sql = format!("UPDATE {name} SET v = {v}{set_c} WHERE k = {k}");
                if t.rows.contains_key(&k) {
                    if t.has_ix && v_taken(t, v, Some(k)) {
                        s.fails = true;
                    } else {
                        let c = t.has_c.then_some(v * 10);
                        t.rows.insert(k, (v, c));
                    }
                }
            }
            15 if exists => {
                let t = st.now.get_mut(&n).unwrap();
                let k = r.below(12) as i64;
                s.sql = format!("DELETE {name} WHERE k = {k}");
                t.rows.remove(&k);
            }
            16 if exists => {
                let t = st.now.get_mut(&n).unwrap();
                if t.has_c {
                    s.sql = format!("ALTER TABLE {name} DROP COLUMN c");
                    t.has_c = false;
                    for row in t.rows.values_mut() {
                        row.1 = None;
                    }
                } else {
                    s.sql = format!("ALTER TABLE {name} ADD c int NULL");
                    t.has_c = true;
                }
            }
            // (not with the index on v: latchkey checks 5074 only when the table has rows)
            17 if exists && !st.now[&n].has_ix => {
                let t = st.now.get_mut(&n).unwrap();
                let ty = if t.v_big { "int" } else { "bigint" };
                s.sql = format!("ALTER TABLE {name} ALTER COLUMN v {ty} NOT NULL");
                t.v_big = !t.v_big;
            }
            18 if exists => {
                let t = st.now.get_mut(&n).unwrap();
                if t.has_ix {
                    s.sql = format!("DROP INDEX ix ON {name}");
                    t.has_ix = false;
                } else {
                    s.sql = format!("CREATE UNIQUE INDEX ix ON {name}(v)");
                    let mut vs: Vec<i64> = t.rows.values().map(|r| r.0).collect();
                    vs.sort();
                    vs.dedup();
                    if vs.len() < t.rows.len() {
                        s.fails = true; // 1505
                    } else {
                        t.has_ix = true;
                    }
                }
            }
            19 if exists => {
                s.sql = format!("TRUNCATE TABLE {name}");
                st.now.get_mut(&n).unwrap().rows.clear();
            }
            _ => continue,
        }
        if !st.in_tran && !s.reopen && !s.sql.starts_with("ROLLBACK") {
            // autocommit statement (or the COMMIT itself)
            s.commits = s.commits || !s.fails;
            if !s.fails {
                st.committed = st.now.clone();
            }
        }
        return s;
    }
}

fn open(dir: &Path) -> Session {
    let e: Arc<Engine> = Engine::open(dir, EngineConfig::default()).expect("open engine");
    let mut s = Session::new(e);
    let out = run(&mut s, "IF DB_ID('m') IS NULL CREATE DATABASE m");
    assert!(out.errors().is_empty(), "{:?}", out.errors());
    let out = run(&mut s, "USE m");
    assert!(out.errors().is_empty(), "{:?}", out.errors());
    s
}

fn run(s: &mut Session, sql: &str) -> CollectSink {
    let mut sink = CollectSink::default();
    s.execute_batch(sql, &mut sink);
    sink
}

fn int(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i as i64),
        Value::BigInt(i) => Some(*i),
        _ => None,
    }
}

/// Compares the database with `m`; returns a description of the first difference.
fn diff(s: &mut Session, m: &Model) -> Option<String> {
    for n in 0..TABLES {
        let Some(t) = m.get(&n) else {
            let out = run(s, &format!("SELECT OBJECT_ID('t{n}')"));
            let rows = out.result_sets().last().map(|r| (*r).clone());
            if rows != Some(vec![vec![Value::Null]]) {
                return Some(format!(
                    "t{n} should not exist: {rows:?} {:?}",
                    out.errors()
                ));
            }
            continue;
        };
        let cols = if t.has_c { "k, v, c" } else { "k, v" };
        let out = run(s, &format!("SELECT {cols} FROM t{n} ORDER BY k"));
        if !out.errors().is_empty() {
            return Some(format!("t{n}: {:?}", out.errors()));
        }
        let got: Vec<(i64, i64, Option<i64>)> = out
            .result_sets()
            .last()
            .map(|r| {
                r.iter()
                    .map(|row| {
                        let c = row.get(2).and_then(int);
                        (int(&row[0]).unwrap_or(-1), int(&row[1]).unwrap_or(-1), c)
                    })
                    .collect()
            })
            .unwrap_or_default();
        let want: Vec<(i64, i64, Option<i64>)> =
            t.rows.iter().map(|(k, (v, c))| (*k, *v, *c)).collect();
        if got != want {
            return Some(format!("t{n}: rows {got:?}, model {want:?}"));
        }
        let out = run(
            s,
            &format!(
                "SELECT COUNT(*) FROM sys.columns WHERE object_id = OBJECT_ID('t{n}');
                 SELECT COUNT(*) FROM sys.indexes WHERE object_id = OBJECT_ID('t{n}') AND name = 'ix';
                 SELECT t.name FROM sys.columns c JOIN sys.types t ON t.user_type_id = c.user_type_id
                   WHERE c.object_id = OBJECT_ID('t{n}') AND c.name = 'v'"
            ),
        );
        let sets = out.result_sets();
        let ncols = sets
            .first()
            .and_then(|r| r.first())
            .and_then(|r| int(&r[0]));
        let nix = sets.get(1).and_then(|r| r.first()).and_then(|r| int(&r[0]));
        let vtype = sets
            .get(2)
            .and_then(|r| r.first())
            .and_then(|r| match &r[0] {
                Value::VarChar(x) | Value::NVarChar(x) => Some(x.clone()),
                _ => None,
            });
        let want_type = if t.v_big { "bigint" } else { "int" };
        if ncols != Some(2 + t.has_c as i64)
            || nix != Some(t.has_ix as i64)
            || vtype.as_deref() != Some(want_type)
        {
            return Some(format!(
                "t{n}: columns {ncols:?} index {nix:?} v {vtype:?}, model {t:?} {:?}",
                out.errors()
            ));
        }
        if t.has_ix {
            let out = run(
                s,
                &format!("SELECT v FROM t{n} WITH (INDEX(ix)) ORDER BY v"),
            );
            let got: Vec<i64> = out
                .result_sets()
                .last()
                .map(|r| r.iter().filter_map(|row| int(&row[0])).collect())
                .unwrap_or_default();
            let mut want: Vec<i64> = t.rows.values().map(|r| r.0).collect();
            want.sort();
            if got != want {
                return Some(format!(
                    "t{n} index: {got:?}, model {want:?} {:?}",
                    out.errors()
                ));
            }
        }
    }
    let out = run(s, "DBCC CHECKDB WITH NO_INFOMSGS");
    if !out.errors().is_empty() {
        return Some(format!("DBCC: {:?}", out.errors()));
    }
    None
}

fn seed() -> u64 {
    std::env::var("LATCHKEY_DDL_MODEL_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0xDD1)
}

fn knob(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("latchkey-ddlmodel-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn ddl_undo_model() {
    let seqs = knob("LATCHKEY_DDL_MODEL_SEQS", 12);
    let ops = knob("LATCHKEY_DDL_MODEL_OPS", 120);
    let base = seed();
    for q in 0..seqs {
        let dir = temp_dir(&format!("m{q}"));
        let mut s = open(&dir);
        let mut r = Rng(base.wrapping_mul(1_000_003).wrapping_add(q));
        let mut st = State::default();
        let mut log: Vec<String> = Vec::new();
        for _ in 0..ops {
            let stp = step(&mut r, &mut st);
            if stp.reopen {
                log.push("-- reopen".into());
                drop(s);
                s = open(&dir);
            } else {
                log.push(stp.sql.clone());
                let out = run(&mut s, &stp.sql);
                let errs: Vec<String> = out
                    .errors()
                    .iter()
                    .map(|e| format!("{} {}", e.number, e.message))
                    .collect();
                assert_eq!(
                    !errs.is_empty(),
                    stp.fails,
                    "sequence {q}: `{}` errors {errs:?}\n{}",
                    stp.sql,
                    log.join("\n")
                );
            }
            let end = stp.reopen || !st.in_tran || stp.sql.starts_with("ROLLBACK TRAN");
            if end {
                let m = st.now.clone();
                if let Some(d) = diff(&mut s, &m) {
                    panic!("sequence {q}: {d}\n{}", log.join("\n"));
                }
            }
        }
        drop(s);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Child of `ddl_undo_kill`: runs sequence `seed` on `dir`, printing `C i` after statement `i`
/// committed (an autocommit statement or COMMIT); `B i` before it starts.
fn kill_child(dir: &Path, seed: u64, ops: u64) {
    let mut s = open(dir);
    let mut r = Rng(seed);
    let mut st = State::default();
    let mut out = std::io::stdout();
    for i in 0..ops {
        let stp = step(&mut r, &mut st);
        if stp.reopen {
            continue;
        }
        writeln!(out, "B {i}").unwrap();
        out.flush().unwrap();
        let res = run(&mut s, &stp.sql);
        assert_eq!(
            !res.errors().is_empty(),
            stp.fails,
            "{}: {:?}",
            stp.sql,
            res.errors()
        );
        if stp.commits {
            writeln!(out, "C {i}").unwrap();
            out.flush().unwrap();
        }
    }
    // wait for the kill
    std::thread::sleep(Duration::from_secs(60));
}

/// SIGKILL while sequences of DDL/DML/savepoint transactions run: recovery yields the committed
/// model, or the model after the commit that was in flight; DBCC CHECKDB is clean.
#[test]
fn ddl_undo_kill() {
    if let Ok(v) = std::env::var("LATCHKEY_DDL_KILL_CHILD") {
        let mut it = v.split('|');
        let (Some(dir), Some(seed), Some(ops)) = (it.next(), it.next(), it.next()) else {
            panic!("bad child spec");
        };
        kill_child(Path::new(dir), seed.parse().unwrap(), ops.parse().unwrap());
        return;
    }
    let kills = knob("LATCHKEY_CRASH_KILLS", 8);
    let ops = knob("LATCHKEY_DDL_MODEL_OPS", 120);
    let exe = std::env::current_exe().unwrap();
    let mut total_commits = 0;
    for kill in 0..kills {
        let dir = temp_dir(&format!("k{kill}"));
        let seed = seed().wrapping_mul(7_777_777).wrapping_add(kill);
        let mut c = Command::new(&exe)
            .args([
                "ddl_undo_kill",
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(
                "LATCHKEY_DDL_KILL_CHILD",
                format!("{}|{seed}|{ops}", dir.display()),
            )
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // kill while statement `target` runs (or just after): somewhere inside the sequence
        let target = Rng(seed).below(ops.max(2) - 1) + 1;
        let mut last_commit: Option<u64> = None;
        let mut started: Option<u64> = None;
        let mut killed = false;
        for line in BufReader::new(c.stdout.take().unwrap()).lines() {
            let line = line.unwrap();
            let mut it = line.split_whitespace().rev();
            let (Some(i), Some(tag)) = (it.next(), it.next()) else {
                continue;
            };
            let Ok(i) = i.parse::<u64>() else { continue };
            match tag {
                "B" => started = Some(i),
                "C" => {
                    last_commit = Some(i);
                    total_commits += 1;
                }
                _ => {}
            }
            if !killed && started.is_some_and(|b| b >= target) {
                // a few microseconds into statement `target`, or a bit later
                std::thread::sleep(Duration::from_micros(seed % 3000));
                c.kill().unwrap();
                killed = true;
            }
        }
        if !killed {
            c.kill().unwrap();
        }
        c.wait().unwrap();
        // replay the model: committed state after the last acknowledged commit, and after the
        // statement in flight if it commits
        let mut r = Rng(seed);
        let mut st = State::default();
        let mut acked = Model::new();
        let mut in_flight: Option<Model> = None;
        for i in 0..ops {
            let stp = step(&mut r, &mut st);
            if last_commit.is_some_and(|c| i <= c) {
                acked = st.committed.clone();
            }
            if started == Some(i) && stp.commits && last_commit != Some(i) {
                in_flight = Some(st.committed.clone());
            }
        }
        let mut s = open(&dir);
        if let Some(d) = diff(&mut s, &acked) {
            let alt = in_flight.as_ref().and_then(|m| diff(&mut s, m));
            if in_flight.is_none() || alt.is_some() {
                panic!(
                    "kill {kill} (seed {seed}, last commit {last_commit:?}, started {started:?}): {d}; in flight: {alt:?}"
                );
            }
        }
        drop(s);
        let _ = std::fs::remove_dir_all(&dir);
    }
    eprintln!("ddl undo kill test: {kills} kills, {total_commits} acknowledged commits");
}
