//! Log and data-file damage fuzzer (issue 8, fuzzing part c). See fuzz/README.md.
//!
//! A setup child builds a database `fz` with known committed contents: a clustered table `t`
//! with a nonclustered index, a heap `h`, commits before and after a checkpoint, and an open
//! transaction with uncommitted rows at a second checkpoint; then it is SIGKILLed, so the
//! pristine directory needs crash recovery. Each trial copies the pristine directory, damages
//! one file (flipped bytes, a zeroed page, a page copied over another, truncation, deletion, a
//! file of another database), and opens it in a child process (an abort or stack overflow is a
//! finding too). The child must either refuse (an error at open or at `USE`), or answer every
//! query with the committed contents or an error that reports damage — never a wrong answer,
//! never a panic. The undamaged copy must open with exactly the committed contents.
//!
//! Knobs: LATCHKEY_FUZZ_SEED, LATCHKEY_FUZZ_DAMAGE_TRIALS (per damage kind; CI default 10).

mod fuzzlib;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use engine::Session;
use fuzzlib::{exec, knob, Rng};

const SETUP_ENV: &str = "LATCHKEY_DAMAGE_SETUP";
const TRIAL_ENV: &str = "LATCHKEY_DAMAGE_TRIAL";
const PAGE: u64 = 8192;

/// Committed rows: t has 0..T_ROWS, h has 0..H_ROWS; the open transaction adds H_UNCOMMITTED
/// rows to h that must never be visible.
const T_ROWS: i64 = 3000;
const H_ROWS: i64 = 1500;

const SETUP: &[&str] = &[
    "CREATE DATABASE fz",
    "USE fz",
    "CREATE TABLE t (id int NOT NULL PRIMARY KEY, v int NULL, s varchar(200) NULL)",
    "CREATE INDEX t_v ON t (v)",
    "CREATE TABLE h (id int NOT NULL, s varchar(300) NULL)",
    // committed before the first checkpoint
    "DECLARE @i int = 0 BEGIN TRAN WHILE @i < 2000 BEGIN INSERT t VALUES (@i, @i % 97, REPLICATE('x', @i % 150)) SET @i += 1 END COMMIT",
    "DECLARE @i int = 0 BEGIN TRAN WHILE @i < 1000 BEGIN INSERT h VALUES (@i, REPLICATE('h', @i % 280)) SET @i += 1 END COMMIT",
    "CHECKPOINT",
    // committed after it (only in the log until the next checkpoint)
    "DECLARE @i int = 2000 BEGIN TRAN WHILE @i < 2600 BEGIN INSERT t VALUES (@i, @i % 97, REPLICATE('y', @i % 150)) SET @i += 1 END COMMIT",
    "UPDATE t SET s = 'updated' WHERE id % 50 = 0",
    "DELETE t WHERE id % 333 = 1",
];

/// Runs after the uncommitted transaction began in a second session.
const SETUP_AFTER_OPEN_TXN: &[&str] = &[
    "CHECKPOINT",
    "DECLARE @i int = 2600 BEGIN TRAN WHILE @i < 3000 BEGIN INSERT t VALUES (@i, @i % 97, REPLICATE('z', @i % 150)) SET @i += 1 END COMMIT",
    "DECLARE @i int = 1000 BEGIN TRAN WHILE @i < 1500 BEGIN INSERT h VALUES (@i, REPLICATE('k', @i % 280)) SET @i += 1 END COMMIT",
];

const UNCOMMITTED: &str = "BEGIN TRAN DECLARE @i int = 100000 WHILE @i < 105000 BEGIN INSERT h VALUES (@i, 'uncommitted') SET @i += 1 END";

fn must(s: &mut Session, sql: &str) {
    let o = exec(s, sql).unwrap_or_else(|p| panic!("{sql}: panic {p}"));
    assert!(o.ok(), "{sql}: {:?}", o.errors);
}

/// Setup child: builds the database, leaves a transaction open, prints `@@READY`, waits to be
/// killed.
fn setup_child(dir: &Path) {
    let e = fuzzlib::open_engine(dir).expect("open");
    let mut s1 = Session::new(e.clone());
    for sql in SETUP {
        must(&mut s1, sql);
    }
    let mut s2 = Session::new(e);
    must(&mut s2, "USE fz");
    must(&mut s2, UNCOMMITTED);
    for sql in SETUP_AFTER_OPEN_TXN {
        must(&mut s1, sql);
    }
    println!("@@READY");
    std::thread::sleep(Duration::from_secs(600));
}

/// The queries a trial answers, by name.
const QUERIES: &[(&str, &str)] = &[
    ("t_scan", "SELECT id, v, s FROM t"),
    ("t_count_v", "SELECT COUNT(*) FROM t WHERE v = 5"),
    ("t_by_v", "SELECT v, id FROM t WHERE v BETWEEN 10 AND 12"),
    (
        "t_seek",
        "SELECT id, s FROM t WHERE id IN (7, 1999, 2000, 2599, 2601, 2999)",
    ),
    ("h_scan", "SELECT id, s FROM h"),
];

/// FNV-1a over the sorted rendered rows.
fn digest(rows: &[String]) -> String {
    let mut rows = rows.to_vec();
    rows.sort();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for r in &rows {
        for b in r.bytes().chain(std::iter::once(b'\n')) {
            h ^= b as u64;
            h = h.wrapping_mul(0x100_0000_01b3);
        }
    }
    format!("{}:{h:016x}", rows.len())
}

/// Trial child: open, answer the queries, print one `@@` line per outcome.
fn trial_child(dir: &Path) {
    let limit = libc::rlimit {
        rlim_cur: 4 << 30,
        rlim_max: 4 << 30,
    };
    // SAFETY: setrlimit with a valid pointer to an initialised struct.
    unsafe { libc::setrlimit(libc::RLIMIT_AS, &limit) };
    fuzzlib::quiet_panics();
    let e = match std::panic::catch_unwind(|| fuzzlib::open_engine(dir)) {
        Ok(Ok(e)) => e,
        Ok(Err(e)) => {
            println!("@@REFUSED {} {}", e.number, e.message.replace('\n', " "));
            return;
        }
        Err(p) => {
            println!("@@PANIC open: {}", fuzzlib::panic_text(&p));
            return;
        }
    };
    let mut s = Session::new(e);
    match exec(&mut s, "USE fz") {
        Ok(o) if !o.ok() => {
            let (n, m) = &o.errors[0];
            println!("@@REFUSED {n} USE fz: {m}");
            return;
        }
        Err(p) => {
            println!("@@PANIC USE: {p}");
            return;
        }
        Ok(_) => {}
    }
    for (name, sql) in QUERIES {
        match exec(&mut s, sql) {
            Err(p) => println!("@@PANIC {name}: {p}"),
            Ok(o) if !o.ok() => {
                let (n, m) = &o.errors[0];
                println!("@@E {name} {n} {}", m.replace('\n', " "));
            }
            Ok(o) => println!(
                "@@R {name} {}",
                digest(o.sets.first().map_or(&[][..], |v| v))
            ),
        }
    }
    println!("@@DONE");
}

#[test]
fn damage_child_entry() {
    if let Ok(d) = std::env::var(SETUP_ENV) {
        setup_child(Path::new(&d));
    } else if let Ok(d) = std::env::var(TRIAL_ENV) {
        trial_child(Path::new(&d));
    }
}

fn spawn_child(env: &str, dir: &Path) -> Command {
    let mut c = Command::new(std::env::current_exe().unwrap());
    c.args([
        "damage_child_entry",
        "--exact",
        "--nocapture",
        "--test-threads=1",
    ])
    .env(env, dir)
    .stderr(Stdio::null());
    c
}

/// Builds the pristine (crashed) directory.
fn build_pristine(dir: &Path) {
    let mut c = spawn_child(SETUP_ENV, dir)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let out = BufReader::new(c.stdout.take().unwrap());
    let mut ready = false;
    for line in out.lines().map_while(Result::ok) {
        if line.contains("@@READY") {
            ready = true;
            break;
        }
    }
    c.kill().unwrap(); // SIGKILL: the open transaction stays in the log
    let status = c.wait().unwrap();
    assert!(ready, "setup child did not get ready: {status}");
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let p = e.path();
        if e.file_type().unwrap().is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

/// What a trial child reported.
#[derive(Debug)]
enum Report {
    Refused,
    Answers(BTreeMap<String, String>),
    Crashed(String),
}

fn run_trial(dir: &Path) -> Report {
    let out = spawn_child(TRIAL_ENV, dir).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.find("@@").map(|i| &l[i + 2..]))
        .collect();
    if lines.iter().any(|l| l.starts_with("REFUSED")) {
        return Report::Refused;
    }
    if let Some(l) = lines.iter().find(|l| l.starts_with("PANIC")) {
        return Report::Crashed(l.to_string());
    }
    if !out.status.success() || !lines.contains(&"DONE") {
        return Report::Crashed(format!(
            "child {} without finishing; last: {:?}",
            out.status,
            lines.last()
        ));
    }
    let mut answers = BTreeMap::new();
    for l in lines {
        let mut p = l.splitn(3, ' ');
        match (p.next(), p.next(), p.next()) {
            (Some("R"), Some(q), Some(d)) => {
                answers.insert(q.to_string(), format!("rows {d}"));
            }
            (Some("E"), Some(q), Some(e)) => {
                answers.insert(q.to_string(), format!("error {e}"));
            }
            _ => {}
        }
    }
    Report::Answers(answers)
}

/// Errors that tell the user the database is damaged (SQL Server's numbers).
fn reports_damage(answer: &str) -> bool {
    let Some(rest) = answer.strip_prefix("error ") else {
        return false;
    };
    let n: i32 = rest
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    matches!(
        n,
        823 | 824
            | 825
            | 829
            | 605
            | 5120
            | 5171
            | 5172
            | 5173
            | 5180
            | 9003
            | 9004
            | 3414
            | 3313
            | 3314
            | 926
            | 945
            | 8909
            | 8928
            | 8939
            | 7105
    )
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// 1..=8 random bytes of a data file XORed with random non-zero values.
    FlipData,
    /// One page of a data file overwritten by another page of the same file.
    MisplacedPage,
    /// One page of a data file zeroed (issue 8 finding 3).
    ZeroPage,
    /// A data file truncated (finding 3).
    TruncateData,
    /// Random bytes of the log flipped (finding 4).
    FlipLog,
    /// The log truncated (finding 4).
    TruncateLog,
    /// The log deleted (finding 4).
    DeleteLog,
    /// The data file deleted (finding 5).
    DeleteData,
    /// A file replaced by the same file of another database (master's).
    ForeignFile,
}

impl Kind {
    /// The branch whose fix this kind needs on main (None: passes on main).
    fn needs(self) -> Option<&'static str> {
        match self {
            Kind::FlipData => None,
            Kind::ZeroPage | Kind::TruncateData | Kind::MisplacedPage => Some("h/damage"),
            Kind::FlipLog
            | Kind::TruncateLog
            | Kind::DeleteLog
            | Kind::DeleteData
            | Kind::ForeignFile => Some("h/dirlock"),
        }
    }
}

const ALL_KINDS: &[Kind] = &[
    Kind::FlipData,
    Kind::MisplacedPage,
    Kind::ZeroPage,
    Kind::TruncateData,
    Kind::FlipLog,
    Kind::TruncateLog,
    Kind::DeleteLog,
    Kind::DeleteData,
    Kind::ForeignFile,
];

/// The database directory of `fz` (the only `db_*` directory).
fn fz_dir(root: &Path) -> PathBuf {
    std::fs::read_dir(root)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("db_"))
        .expect("db_ directory of fz")
}

fn data_files(db: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(db)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "mdf"))
        .collect();
    v.sort();
    v
}

/// Applies one damage of `kind`; returns a description.
fn damage(root: &Path, kind: Kind, r: &mut Rng) -> String {
    let db = fz_dir(root);
    let data = r.pick(&data_files(&db)).clone();
    let log = db.join("log.ldf");
    let len = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    let bytes = |p: &Path| std::fs::read(p).unwrap();
    match kind {
        Kind::FlipData | Kind::FlipLog => {
            let f = if kind == Kind::FlipData { &data } else { &log };
            let mut b = bytes(f);
            if b.is_empty() {
                return format!("{} empty", f.display());
            }
            // Skip the file's first page half the time (headers are the easy case).
            let lo = if b.len() as u64 > PAGE && r.chance(50) {
                PAGE as usize
            } else {
                0
            };
            let n = r.range(1, 8);
            let mut at = Vec::new();
            for _ in 0..n {
                let i = lo + r.below((b.len() - lo) as u64) as usize;
                b[i] ^= r.range(1, 255) as u8;
                at.push(i);
            }
            std::fs::write(f, b).unwrap();
            format!("flipped bytes at {at:?} of {}", f.display())
        }
        Kind::ZeroPage | Kind::MisplacedPage => {
            let mut b = bytes(&data);
            let pages = b.len() as u64 / PAGE;
            if pages < 2 {
                return format!("{} too short", data.display());
            }
            let p = r.range(1, pages as i64 - 1) as usize;
            let dst = p * PAGE as usize..(p + 1) * PAGE as usize;
            if kind == Kind::ZeroPage {
                b[dst].fill(0);
                std::fs::write(&data, b).unwrap();
                format!("zeroed page {p} of {}", data.display())
            } else {
                let q = (p + 1 + r.below(pages - 2) as usize) % pages as usize;
                let q = if q == 0 { 1 } else { q };
                let src: Vec<u8> = b[q * PAGE as usize..(q + 1) * PAGE as usize].to_vec();
                b[dst].copy_from_slice(&src);
                std::fs::write(&data, b).unwrap();
                format!("page {q} copied over page {p} of {}", data.display())
            }
        }
        Kind::TruncateData | Kind::TruncateLog => {
            let f = if kind == Kind::TruncateData {
                &data
            } else {
                &log
            };
            let l = len(f);
            let keep = match r.below(3) {
                0 => l / 2,
                1 => r.below(l.max(1)),
                _ => (r.below(l / PAGE + 1)) * PAGE,
            };
            let file = std::fs::OpenOptions::new().write(true).open(f).unwrap();
            file.set_len(keep).unwrap();
            format!("truncated {} from {l} to {keep} bytes", f.display())
        }
        Kind::DeleteLog => {
            std::fs::remove_file(&log).unwrap();
            format!("deleted {}", log.display())
        }
        Kind::DeleteData => {
            if r.chance(30) {
                std::fs::remove_dir_all(&db).unwrap();
                format!("deleted directory {}", db.display())
            } else {
                std::fs::remove_file(&data).unwrap();
                format!("deleted {}", data.display())
            }
        }
        Kind::ForeignFile => {
            let master = root.join("master");
            let (name, target) = if r.chance(50) {
                ("log.ldf", log.clone())
            } else {
                ("data1.mdf", db.join("data1.mdf"))
            };
            std::fs::copy(master.join(name), &target).unwrap();
            format!("{} replaced by master's {name}", target.display())
        }
    }
}

/// Runs `trials` damaged copies per kind; returns (summary lines, violations).
fn fuzz(kinds: &[Kind], trials: u64) -> (Vec<String>, Vec<String>) {
    let seed = fuzzlib::seed(20261124);
    let scratch = fuzzlib::Scratch::new("damage");
    let pristine = scratch.path().join("pristine");
    build_pristine(&pristine);
    // The undamaged copy: recovery must give exactly the committed contents.
    let reference_dir = scratch.path().join("reference");
    copy_dir(&pristine, &reference_dir);
    let Report::Answers(expected) = run_trial(&reference_dir) else {
        panic!(
            "undamaged database did not open: {:?}",
            run_trial(&reference_dir)
        );
    };
    assert_eq!(expected.len(), QUERIES.len(), "{expected:?}");
    assert!(
        expected.values().all(|a| a.starts_with("rows ")),
        "undamaged database: {expected:?}"
    );
    // The DELETE ran before ids 2600.. were inserted.
    let t_rows = (0..T_ROWS).filter(|i| *i >= 2600 || i % 333 != 1).count();
    assert!(
        expected["t_scan"].starts_with(&format!("rows {t_rows}:")),
        "{expected:?}"
    );
    assert!(
        expected["h_scan"].starts_with(&format!("rows {H_ROWS}:")),
        "uncommitted rows visible or committed rows lost: {expected:?}"
    );
    let mut r = Rng::new(seed);
    let mut summary = Vec::new();
    let mut bad = Vec::new();
    for &kind in kinds {
        let (mut refused, mut detected, mut intact, mut wrong) = (0, 0, 0, 0);
        for i in 0..trials {
            let dir = scratch.path().join(format!("trial-{kind:?}-{i}"));
            copy_dir(&pristine, &dir);
            let what = damage(&dir, kind, &mut r);
            match run_trial(&dir) {
                Report::Refused => refused += 1,
                Report::Crashed(c) => {
                    wrong += 1;
                    bad.push(format!("{kind:?}: {what}: crashed: {c}"));
                }
                Report::Answers(a) => {
                    let mut any_error = false;
                    let mut any_wrong = false;
                    for (q, want) in &expected {
                        let got = a.get(q).map_or("(missing)", String::as_str);
                        if got == want {
                            continue;
                        }
                        if reports_damage(got) {
                            any_error = true;
                            continue;
                        }
                        any_wrong = true;
                        bad.push(format!(
                            "{kind:?}: {what}: {q}: got {got}, committed contents are {want}"
                        ));
                    }
                    if any_wrong {
                        wrong += 1;
                    } else if any_error {
                        detected += 1;
                    } else {
                        intact += 1;
                    }
                }
            }
            let _ = std::fs::remove_dir_all(&dir);
        }
        summary.push(format!(
            "{kind:?}: {trials} trials: {refused} refused at open, {detected} reported damage on a query, {intact} read the committed contents, {wrong} wrong answers or crashes"
        ));
    }
    for l in &summary {
        eprintln!("damage fuzz (seed {seed}): {l}");
    }
    (summary, bad)
}

fn check(kinds: &[Kind]) {
    let trials = knob("LATCHKEY_FUZZ_DAMAGE_TRIALS", 10);
    let (_, bad) = fuzz(kinds, trials);
    assert!(
        bad.is_empty(),
        "{} wrong answers or crashes:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// Damage that main already detects (checksums, page ids).
#[test]
fn damage_fuzz_detected_on_main() {
    let kinds: Vec<Kind> = ALL_KINDS
        .iter()
        .copied()
        .filter(|k| k.needs().is_none())
        .collect();
    check(&kinds);
}

#[test]
fn damage_fuzz_zeroed_misplaced_pages_and_short_files() {
    let kinds: Vec<Kind> = ALL_KINDS
        .iter()
        .copied()
        .filter(|k| k.needs() == Some("h/damage"))
        .collect();
    check(&kinds);
}

#[test]
fn damage_fuzz_log_and_missing_files() {
    let kinds: Vec<Kind> = ALL_KINDS
        .iter()
        .copied()
        .filter(|k| k.needs() == Some("h/dirlock"))
        .collect();
    check(&kinds);
}
