//! Model-based transaction fuzzer (issue 8, fuzzing part b). See fuzz/README.md.
//!
//! A child process (this test binary re-executed with LATCHKEY_TXN_CHILD set) opens the data
//! directory and runs random sequences (fuzzlib::txnmodel): DDL (CREATE/DROP/ALTER TABLE,
//! CREATE/DROP INDEX, TRUNCATE), DML, BEGIN / SAVE TRAN / ROLLBACK TRAN savepoint / ROLLBACK /
//! COMMIT, one statement per batch. After every sequence the child compares the database with
//! its model of committed state. The parent SIGKILLs the child at a random moment (or lets it
//! stop cleanly), reopens the directory in-process (recovery), checks the database against the
//! model (the sequence in flight at the kill may be there entirely or not at all), runs
//! DBCC CHECKDB, and starts the next child from the verified state.
//!
//! Knobs: LATCHKEY_FUZZ_SEED, LATCHKEY_FUZZ_TXN_ROUNDS (children started; CI default 12),
//! LATCHKEY_FUZZ_TXN_SEQUENCES (stop once this many sequences ran; default unlimited),
//! LATCHKEY_FUZZ_SECONDS (stop after this long), LATCHKEY_FUZZ_TXN_MAX_MS (longest a child runs
//! before the kill; default 1500).

mod fuzzlib;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use engine::Session;
use fuzzlib::txnmodel::{self, Cell, GenOptions, Model};
use fuzzlib::{exec, knob, Rng};

const CHILD_ENV: &str = "LATCHKEY_TXN_CHILD";

/// The database's tables and rows, read back in the model's terms. Err: a statement failed.
fn observe(s: &mut Session, model: &Model) -> Result<(), String> {
    let o =
        exec(s, "SELECT name FROM sys.tables ORDER BY name").map_err(|p| format!("panic: {p}"))?;
    if !o.ok() {
        return Err(format!("sys.tables: {:?}", o.errors));
    }
    let mut names: Vec<String> = o.sets[0]
        .iter()
        .map(|r| {
            let inner = r.split_once("(\"").map_or(r.as_str(), |x| x.1);
            inner.trim_end_matches("\")").to_string()
        })
        .collect();
    names.sort();
    let expect: Vec<String> = model.tables.keys().cloned().collect();
    if names != expect {
        return Err(format!("tables {names:?}, model {expect:?}"));
    }
    // Nonclustered indexes by (table, index) name: an in-doubt CREATE/DROP INDEX changes no row.
    let o = exec(
        s,
        "SELECT t.name, i.name FROM sys.indexes AS i JOIN sys.tables AS t ON t.object_id = i.object_id WHERE i.name LIKE 'ix%'",
    )
    .map_err(|p| format!("panic: {p}"))?;
    if !o.ok() {
        return Err(format!("sys.indexes: {:?}", o.errors));
    }
    let mut got_ix: Vec<String> = o.sets[0]
        .iter()
        .map(|r| r.replace("NVarChar", "").replace("VarChar", ""))
        .collect();
    got_ix.sort();
    let mut want_ix: Vec<String> = model
        .tables
        .iter()
        .flat_map(|(t, tab)| {
            tab.indexes
                .keys()
                .map(move |ix| format!("(\"{t}\") | (\"{ix}\")"))
        })
        .collect();
    want_ix.sort();
    if got_ix != want_ix {
        return Err(format!("indexes {got_ix:?}, model {want_ix:?}"));
    }
    for (name, t) in &model.tables {
        let cols: Vec<&str> = t.columns.iter().map(|c| c.name.as_str()).collect();
        let mut sink = engine::CollectSink::default();
        let sql = format!("SELECT * FROM {name}");
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            s.execute_batch(&sql, &mut sink)
        }))
        .map_err(|p| format!("{sql}: panic {}", fuzzlib::panic_text(&p)))?;
        if !sink.errors().is_empty() {
            return Err(format!("{sql}: {:?}", sink.errors()));
        }
        let Some(engine::Event::ResultSet { columns, rows, .. }) = sink.events.first() else {
            return Err(format!("{sql}: no result set"));
        };
        let got_cols: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
        if got_cols != cols {
            return Err(format!("{name}: columns {got_cols:?}, model {cols:?}"));
        }
        // Column types (an in-doubt ALTER COLUMN changes no value).
        for (c, m) in columns.iter().zip(&t.columns) {
            let got = format!("{:?}", c.data_type).to_lowercase();
            let want = m.ty.split('(').next().unwrap_or("");
            if !got.starts_with(want) {
                return Err(format!("{name}.{}: type {got}, model {}", c.name, m.ty));
            }
        }
        let mut got: Vec<Vec<Cell>> = rows
            .iter()
            .map(|r| r.iter().map(Cell::from_value).collect())
            .collect();
        let mut want = t.rows.clone();
        got.sort();
        want.sort();
        if got != want {
            return Err(format!(
                "{name}: {} rows, model {} rows; first differences: got {:?} want {:?}",
                got.len(),
                want.len(),
                got.iter().find(|r| !want.contains(r)),
                want.iter().find(|r| !got.contains(r))
            ));
        }
    }
    Ok(())
}

/// A session on the fuzz database `fz` (master holds spt_values, which the model does not).
fn fz_session(data: &Path) -> Result<Session, String> {
    let e =
        fuzzlib::open_engine(data).map_err(|e| format!("open: Msg {} {}", e.number, e.message))?;
    let mut s = Session::new(e);
    let o = exec(&mut s, "IF DB_ID('fz') IS NULL CREATE DATABASE fz")
        .map_err(|p| format!("panic: {p}"))?;
    if !o.ok() {
        return Err(format!("CREATE DATABASE: {:?}", o.errors));
    }
    let o = exec(&mut s, "USE fz").map_err(|p| format!("panic: {p}"))?;
    if !o.ok() {
        return Err(format!("USE fz: {:?}", o.errors));
    }
    Ok(s)
}

fn checkdb(s: &mut Session) -> Result<(), String> {
    let o = exec(s, "DBCC CHECKDB").map_err(|p| format!("DBCC panic: {p}"))?;
    if !o.ok() {
        return Err(format!("DBCC CHECKDB: {:?}", o.errors));
    }
    Ok(())
}

fn options_from_env() -> GenOptions {
    GenOptions {
        ddl_after_savepoint: knob("LATCHKEY_FUZZ_TXN_DDL_SAVEPOINTS", 0) != 0,
    }
}

/// The child: runs sequences from `start` until killed (or `stop_after` sequences ran).
/// Protocol on stdout (each line prefixed `@@`): `B n` before sequence n, `C n` / `A n` after it committed / rolled
/// back, `V n <text>` for a violation (then exit 1).
fn child(arg: &str) {
    let mut parts = arg.splitn(4, '|');
    let dir = Path::new(parts.next().unwrap()).to_path_buf();
    let seed: u64 = parts.next().unwrap().parse().unwrap();
    let start: u64 = parts.next().unwrap().parse().unwrap();
    let stop_after: u64 = parts.next().unwrap().parse().unwrap();
    let opts = options_from_env();
    let mut model = Model::from_text(&std::fs::read_to_string(dir.join("model.txt")).unwrap());
    let mut s = fz_session(&dir.join("data")).expect("open");
    let mut n = start;
    let violation = |n: u64, text: String| -> ! {
        println!("@@V {n} {}", text.replace('\n', " "));
        std::process::exit(1);
    };
    while n < start + stop_after {
        let seq = txnmodel::sequence(seed, n, &model, opts);
        println!("@@B {n}");
        for st in &seq.statements {
            match exec(&mut s, st) {
                Err(p) => violation(n, format!("panic in `{st}`: {p}")),
                Ok(o) if !o.ok() => violation(n, format!("`{st}` failed: {:?}", o.errors)),
                Ok(_) => {}
            }
        }
        println!("@@{} {n}", if seq.commits { "C" } else { "A" });
        model = seq.after;
        if let Err(e) = observe(&mut s, &model) {
            violation(
                n,
                format!("after sequence: {e}\n statements: {:?}", seq.statements),
            );
        }
        n += 1;
    }
}

#[test]
fn txn_child_entry() {
    if let Ok(arg) = std::env::var(CHILD_ENV) {
        child(&arg);
    }
}

struct RunStats {
    sequences: u64,
    kills: u64,
    clean_stops: u64,
    in_doubt_committed: u64,
}

/// The parent loop; returns the violations found (empty = pass).
fn fuzz(seed: u64, rounds: u64, opts_env: &[(&str, &str)]) -> (RunStats, Vec<String>) {
    fuzzlib::quiet_panics();
    let seq_target = knob("LATCHKEY_FUZZ_TXN_SEQUENCES", u64::MAX);
    let seconds = knob("LATCHKEY_FUZZ_SECONDS", 0);
    let max_ms = knob("LATCHKEY_FUZZ_TXN_MAX_MS", 1500);
    let scratch = fuzzlib::Scratch::new("txn");
    let dir = scratch.path().to_path_buf();
    let mut model = Model::default();
    let mut rng = Rng::new(seed ^ 0xABCD);
    let mut next = 0u64;
    let mut st = RunStats {
        sequences: 0,
        kills: 0,
        clean_stops: 0,
        in_doubt_committed: 0,
    };
    let exe = std::env::current_exe().unwrap();
    let started = Instant::now();
    let mut opts = options_from_env();
    for (k, v) in opts_env {
        if *k == "LATCHKEY_FUZZ_TXN_DDL_SAVEPOINTS" {
            opts.ddl_after_savepoint = *v == "1";
        }
    }
    drop(fz_session(&dir.join("data")).expect("create fz"));
    for round in 0..rounds {
        if st.sequences >= seq_target
            || (seconds > 0 && started.elapsed() > Duration::from_secs(seconds))
        {
            break;
        }
        std::fs::write(dir.join("model.txt"), model.to_text()).unwrap();
        // One round in five stops cleanly after a few sequences; the others are SIGKILLed.
        let clean = rng.chance(20);
        let stop_after = if clean {
            rng.range(1, 30) as u64
        } else {
            u64::MAX / 4
        };
        let mut cmd = Command::new(&exe);
        cmd.args([
            "txn_child_entry",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(
            CHILD_ENV,
            format!("{}|{seed}|{next}|{stop_after}", dir.display()),
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
        for (k, v) in opts_env {
            cmd.env(k, v);
        }
        let mut c = cmd.spawn().unwrap();
        let stdout = c.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                // The test harness may print its own text before ours on a line.
                let Some(i) = line.find("@@") else { continue };
                if tx.send(line[i + 2..].to_string()).is_err() {
                    break;
                }
            }
        });
        let deadline = Instant::now() + Duration::from_millis(rng.range(30, max_ms as i64) as u64);
        let mut lines = Vec::new();
        let mut exited = None;
        loop {
            if !clean && Instant::now() >= deadline {
                break;
            }
            match rx.recv_timeout(Duration::from_millis(5)) {
                Ok(l) => lines.push(l),
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    if let Some(status) = c.try_wait().unwrap() {
                        exited = Some(status);
                        break;
                    }
                }
                Err(_) => {
                    exited = Some(c.wait().unwrap());
                    break;
                }
            }
        }
        if exited.is_none() {
            c.kill().unwrap(); // SIGKILL
            c.wait().unwrap();
            st.kills += 1;
        } else {
            st.clean_stops += 1;
        }
        while let Ok(l) = rx.recv_timeout(Duration::from_millis(50)) {
            lines.push(l);
        }
        if let Some(v) = lines.iter().find(|l| l.starts_with("V ")) {
            return (
                st,
                vec![format!("seed {seed} round {round}: child violation: {v}")],
            );
        }
        if let Some(status) = exited {
            if !status.success() {
                return (
                    st,
                    vec![format!(
                        "seed {seed} round {round}: child exited with {status}; last lines {:?}",
                        lines.iter().rev().take(3).collect::<Vec<_>>()
                    )],
                );
            }
        }
        // Replay the model over what the child reported.
        let mut in_doubt: Option<Model> = None;
        for l in &lines {
            let (tag, n) = l.split_once(' ').unwrap_or(("", ""));
            let Ok(n) = n.parse::<u64>() else { continue };
            match tag {
                "B" => {
                    assert_eq!(n, next, "child ran sequences out of order");
                    in_doubt = Some(txnmodel::sequence(seed, n, &model, opts).after);
                }
                "C" | "A" => {
                    model = in_doubt.take().expect("end without begin");
                    next = n + 1;
                    st.sequences += 1;
                }
                _ => {}
            }
        }
        // Recovery: reopen in-process, compare, DBCC.
        let mut s = match fz_session(&dir.join("data")) {
            Ok(s) => s,
            Err(e) => {
                return (
                    st,
                    vec![format!("seed {seed} round {round}: reopen failed: {e}")],
                )
            }
        };
        if let Some(after) = in_doubt {
            // The kill landed inside sequence `next`: all of it or none of it.
            if observe(&mut s, &model).is_err() {
                if let Err(e) = observe(&mut s, &after) {
                    return (st, vec![format!(
                        "seed {seed} round {round}: after the kill inside sequence {next} the database is neither before nor after it: {e}\n  statements: {:?}",
                        txnmodel::sequence(seed, next, &model, opts).statements
                    )]);
                }
                model = after;
                st.in_doubt_committed += 1;
                st.sequences += 1;
                next += 1;
            }
        } else if let Err(e) = observe(&mut s, &model) {
            return (
                st,
                vec![format!("seed {seed} round {round}: after reopen: {e}")],
            );
        }
        if let Err(e) = checkdb(&mut s) {
            return (st, vec![format!("seed {seed} round {round}: {e}")]);
        }
    }
    eprintln!(
        "txn fuzz: seed {seed}: {} sequences, {} SIGKILLs, {} clean stops, {} in-doubt sequences found committed, in {:.1}s",
        st.sequences,
        st.kills,
        st.clean_stops,
        st.in_doubt_committed,
        started.elapsed().as_secs_f64()
    );
    (st, Vec::new())
}

/// CI-sized run without the shapes of the known DDL-savepoint bug (issue 8 finding 2): no DDL
/// after a SAVE TRAN in the same transaction (`ddl_after_savepoint = false`).
#[test]
fn txn_fuzz_without_ddl_after_savepoint() {
    let seed = fuzzlib::seed(20261124);
    let rounds = knob("LATCHKEY_FUZZ_TXN_ROUNDS", 12);
    let (st, bad) = fuzz(seed, rounds, &[("LATCHKEY_FUZZ_TXN_DDL_SAVEPOINTS", "0")]);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(st.sequences > 0);
}

/// The full mix, DDL after savepoints included.
#[test]
fn txn_fuzz_with_ddl_after_savepoint() {
    let seed = fuzzlib::seed(20261124);
    let rounds = knob("LATCHKEY_FUZZ_TXN_ROUNDS", 12);
    let (st, bad) = fuzz(seed, rounds, &[("LATCHKEY_FUZZ_TXN_DDL_SAVEPOINTS", "1")]);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(st.sequences > 0);
}

/// The model's text form round-trips (the child depends on it).
#[test]
fn model_text_round_trips() {
    let mut m = Model::default();
    let opts = GenOptions {
        ddl_after_savepoint: true,
    };
    for n in 0..200 {
        let seq = txnmodel::sequence(7, n, &m, opts);
        m = seq.after;
        assert_eq!(Model::from_text(&m.to_text()), m);
    }
}

/// Prints the statements of sequences `LATCHKEY_FUZZ_TXN_PRINT=from-to` of seed
/// LATCHKEY_FUZZ_SEED (the stream is deterministic: a killed sequence is re-run unchanged),
/// to reproduce a reported violation by hand.
#[test]
#[ignore = "tool: prints generated sequences"]
fn txn_print_sequences() {
    let seed = fuzzlib::seed(20261124);
    let range = std::env::var("LATCHKEY_FUZZ_TXN_PRINT").unwrap_or_else(|_| "0-20".into());
    let (from, to) = range.split_once('-').expect("from-to");
    let (from, to): (u64, u64) = (from.parse().unwrap(), to.parse().unwrap());
    let opts = options_from_env();
    let mut m = Model::default();
    for n in 0..=to {
        let seq = txnmodel::sequence(seed, n, &m, opts);
        if n >= from {
            println!(
                "-- sequence {n} ({})",
                if seq.commits { "commits" } else { "rolls back" }
            );
            for st in &seq.statements {
                println!("{st}");
            }
        }
        m = seq.after;
    }
}
