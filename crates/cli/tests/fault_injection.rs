//! Fault injection through the `latchkey` binary (issue 8 acceptance 3): a deleted data file,
//! a deleted database directory, a deleted master, a truncated / flipped / deleted log after a
//! crash with a checkpoint inside an open transaction, files swapped between two databases,
//! a zeroed page and a short data file. Each gives a clear error (the damaged database is
//! RECOVERY_PENDING or SUSPECT, Msg 945 / 926; damage in master stops the start), never a
//! wrong result, and the refused open changes no file; once the file is restored the database
//! opens with every committed transaction and none of the uncommitted one.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Rows committed by `setup` in `f.dbo.t`.
const COMMITTED: i64 = 1000;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_latchkey")
}

fn run(data: &Path, sql: &str) -> Output {
    Command::new(bin())
        .arg("--data")
        .arg(data)
        .arg("-Q")
        .arg(sql)
        .output()
        .expect("run latchkey")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// `SELECT COUNT(*)` of `table`: Ok(count) or Err(all output).
fn count(data: &Path, table: &str) -> Result<i64, String> {
    let o = run(
        data,
        &format!("SET NOCOUNT ON; SELECT COUNT(*) FROM {table}"),
    );
    let all = text(&o);
    let out = String::from_utf8_lossy(&o.stdout);
    if out.contains("Msg ") || !o.status.success() {
        return Err(all);
    }
    out.lines()
        .filter_map(|l| l.trim().parse().ok())
        .next()
        .ok_or(all)
}

fn state_of(data: &Path, db: &str) -> String {
    let o = run(
        data,
        &format!("SET NOCOUNT ON; SELECT state_desc FROM sys.databases WHERE name = '{db}'"),
    );
    assert!(o.status.success(), "{}", text(&o));
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .rfind(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .to_string()
}

/// Bytes of a log file up to its last non-zero byte (the file grows in zero-filled chunks).
fn used_len(log: &[u8]) -> usize {
    log.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1)
}

/// Bytes of every file under `dir` (lock files excepted).
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut m = BTreeMap::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return m;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            m.extend(snapshot(&p));
        } else if e.file_name() != "latchkey.lock" {
            m.insert(p.clone(), std::fs::read(&p).unwrap());
        }
    }
    m
}

fn restore(snap: &BTreeMap<PathBuf, Vec<u8>>) {
    for (p, b) in snap {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, b).unwrap();
    }
}

/// A data directory with databases `f` (db_5) and `g` (db_6); `f.dbo.t` (B-tree) and `f.dbo.h`
/// (heap) hold COMMITTED rows each from ten transactions, `g.dbo.u` 10 rows.
fn setup() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut sql = String::from(
        "CREATE DATABASE f\nGO\nCREATE DATABASE g\nGO\nUSE g; CREATE TABLE u(id int); \
         INSERT u SELECT TOP 10 number FROM master.dbo.spt_values WHERE type = 'P'\nGO\n\
         USE f; CREATE TABLE t(id int PRIMARY KEY, v varchar(100)); CREATE TABLE h(id int, v varchar(100))\nGO\n",
    );
    for b in 0..10 {
        sql.push_str(&format!(
            "DECLARE @i int = {}; WHILE @i < {} BEGIN INSERT t VALUES (@i, REPLICATE('v', 80)); INSERT h VALUES (@i, REPLICATE('h', 80)); SET @i += 1 END\nGO\n",
            b * 100,
            b * 100 + 100
        ));
    }
    let o = run(dir.path(), &sql);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(count(dir.path(), "f.dbo.t"), Ok(COMMITTED));
    dir
}

/// Leaves `f`'s log with work to recover: 5,000 uncommitted rows, a checkpoint taken while
/// their transaction is open, then SIGKILL.
fn crash_in_open_transaction(data: &Path) {
    let sql = "USE f\nGO\nBEGIN TRAN\nDECLARE @i int = 100000; WHILE @i < 105000 BEGIN INSERT t VALUES (@i, 'uncommitted'); SET @i += 1 END\nCHECKPOINT\nSELECT 'holding' AS m\nGO\nWAITFOR DELAY '00:01:00'\nGO\n";
    let mut child = Command::new(bin())
        .arg("--data")
        .arg(data)
        .arg("-Q")
        .arg(sql)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    loop {
        let mut line = String::new();
        assert!(out.read_line(&mut line).unwrap() > 0, "script ended early");
        if line.contains("holding") {
            break;
        }
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
}

/// Runs a query against the damaged `f`: the expected error, the state, no file of `f`
/// changed, master still usable.
fn assert_refused(data: &Path, msg: &str, state: &str) {
    let fdir = data.join("db_5");
    let before = snapshot(&fdir);
    let err = count(data, "f.dbo.t").expect_err("a damaged database gave a result");
    assert!(err.contains(msg), "want {msg}: {err}");
    assert_eq!(state_of(data, "f"), state);
    assert_eq!(
        count(data, "g.dbo.u"),
        Ok(10),
        "other databases stay usable"
    );
    assert_eq!(snapshot(&fdir), before, "the refused open changed a file");
}

#[test]
fn deleted_data_file() {
    let dir = setup();
    let good = snapshot(dir.path());
    std::fs::remove_file(dir.path().join("db_5/data1.mdf")).unwrap();
    assert_refused(dir.path(), "Msg 945, Level 14", "RECOVERY_PENDING");
    restore(&good);
    assert_eq!(count(dir.path(), "f.dbo.t"), Ok(COMMITTED));
}

#[test]
fn deleted_database_directory() {
    let dir = setup();
    let good = snapshot(dir.path());
    std::fs::remove_dir_all(dir.path().join("db_5")).unwrap();
    assert_refused(dir.path(), "Msg 945, Level 14", "RECOVERY_PENDING");
    assert!(
        !dir.path().join("db_5").exists(),
        "no empty database was created"
    );
    restore(&good);
    assert_eq!(count(dir.path(), "f.dbo.t"), Ok(COMMITTED));
}

#[test]
fn deleted_master_data_file_refuses_to_start() {
    let dir = setup();
    let good = snapshot(dir.path());
    for victim in ["master/data1.mdf", "master"] {
        let p = dir.path().join(victim);
        if p.is_dir() {
            std::fs::remove_dir_all(&p).unwrap();
        } else {
            std::fs::remove_file(&p).unwrap();
        }
        let o = run(dir.path(), "SELECT 1");
        assert!(!o.status.success(), "{victim}: the engine started");
        let err = text(&o);
        assert!(err.contains("Msg 5120"), "{victim}: {err}");
        assert!(err.contains("master"), "{victim}: {err}");
        assert!(!dir.path().join("master/data1.mdf").exists());
        restore(&good);
    }
    assert_eq!(count(dir.path(), "f.dbo.t"), Ok(COMMITTED));
}

/// Issue 8 finding 4: before the fix the 5,000 uncommitted rows became visible as committed.
#[test]
fn damaged_log_after_checkpoint_in_open_transaction() {
    let dir = setup();
    crash_in_open_transaction(dir.path());
    let crashed = snapshot(dir.path());
    let log_path = dir.path().join("db_5/log.ldf");
    let log = std::fs::read(&log_path).unwrap();
    let used = used_len(&log);
    assert!(used > 100_000, "the crash left a log to recover");
    // truncated
    std::fs::write(&log_path, &log[..used / 2]).unwrap();
    assert_refused(dir.path(), "Msg 926, Level 14", "SUSPECT");
    restore(&crashed);
    // one flipped byte in the middle
    let mut flipped = log.clone();
    let mid = used / 2;
    flipped[mid] ^= 0x10;
    std::fs::write(&log_path, &flipped).unwrap();
    assert_refused(dir.path(), "Msg 926, Level 14", "SUSPECT");
    restore(&crashed);
    // deleted
    std::fs::remove_file(&log_path).unwrap();
    assert_refused(dir.path(), "Msg 945, Level 14", "RECOVERY_PENDING");
    restore(&crashed);
    // restored: every committed row, none of the open transaction's
    assert_eq!(count(dir.path(), "f.dbo.t"), Ok(COMMITTED));
    assert_eq!(
        count(dir.path(), "f.dbo.t WHERE id >= 100000"),
        Ok(0),
        "uncommitted rows are rolled back"
    );
}

#[test]
fn files_swapped_between_two_databases() {
    let dir = setup();
    let good = snapshot(dir.path());
    let (f, g) = (dir.path().join("db_5"), dir.path().join("db_6"));
    for name in ["data1.mdf", "log.ldf"] {
        std::fs::rename(f.join(name), dir.path().join("swap")).unwrap();
        std::fs::rename(g.join(name), f.join(name)).unwrap();
        std::fs::rename(dir.path().join("swap"), g.join(name)).unwrap();
        let err = count(dir.path(), "f.dbo.t").expect_err("swapped files gave a result");
        assert!(err.contains("Msg 945"), "{name}: {err}");
        assert_eq!(state_of(dir.path(), "f"), "RECOVERY_PENDING");
        assert_eq!(state_of(dir.path(), "g"), "RECOVERY_PENDING");
        restore(&good);
    }
    assert_eq!(count(dir.path(), "f.dbo.t"), Ok(COMMITTED));
    assert_eq!(count(dir.path(), "g.dbo.u"), Ok(10));
}

/// Either an error or the right answer, never a wrong count (B-tree and heap).
fn never_wrong(data: &Path) {
    for table in ["f.dbo.t", "f.dbo.h"] {
        match count(data, table) {
            Ok(n) => assert_eq!(n, COMMITTED, "{table}: a damaged file gave a wrong result"),
            Err(e) => assert!(
                e.contains("Msg 824")
                    || e.contains("Msg 5125")
                    || e.contains("Msg 945")
                    || e.contains("Msg 926"),
                "{table}: {e}"
            ),
        }
    }
}

/// Zeroes the first page of `page_type` (storage page README: 5 heap, 6 B-tree leaf) in
/// the middle of `f`'s data.
fn zero_page_of_type(data: &Path, page_type: u8) {
    let p = data.join("db_5/data1.mdf");
    let mut b = std::fs::read(&p).unwrap();
    let pages = b.len() / 8192;
    let victim = (pages / 2..pages)
        .chain(8..pages / 2)
        .find(|&i| b[i * 8192 + 10] == page_type)
        .expect("a page of that type");
    b[victim * 8192..(victim + 1) * 8192].fill(0);
    std::fs::write(&p, &b).unwrap();
}

#[test]
fn zeroed_page() {
    let dir = setup();
    let good = snapshot(dir.path());
    for page_type in [5u8, 6] {
        zero_page_of_type(dir.path(), page_type);
        never_wrong(dir.path());
        restore(&good);
    }
    assert_eq!(count(dir.path(), "f.dbo.t"), Ok(COMMITTED));
    assert_eq!(count(dir.path(), "f.dbo.h"), Ok(COMMITTED));
}

#[test]
fn short_data_file() {
    let dir = setup();
    let good = snapshot(dir.path());
    let p = dir.path().join("db_5/data1.mdf");
    let b = std::fs::read(&p).unwrap();
    std::fs::write(&p, &b[..b.len() / 2 / 8192 * 8192]).unwrap();
    never_wrong(dir.path());
    restore(&good);
    assert_eq!(count(dir.path(), "f.dbo.t"), Ok(COMMITTED));
}

/// SQL Server's explicit way out of a damaged log: EMERGENCY (read-only), SINGLE_USER and
/// DBCC CHECKDB (f, REPAIR_ALLOW_DATA_LOSS), which rebuilds the log, reports what was lost
/// and brings the database ONLINE; the repaired database checks clean and takes writes.
#[test]
fn explicit_way_out_after_a_damaged_log() {
    let dir = setup();
    crash_in_open_transaction(dir.path());
    let log_path = dir.path().join("db_5/log.ldf");
    let log = std::fs::read(&log_path).unwrap();
    std::fs::write(&log_path, &log[..used_len(&log) / 2]).unwrap();
    assert_eq!(state_of(dir.path(), "f"), "SUSPECT");
    let o = run(
        dir.path(),
        "DBCC CHECKDB (f, REPAIR_ALLOW_DATA_LOSS)\nGO\nALTER DATABASE f SET EMERGENCY\nGO\n\
         SELECT state_desc FROM sys.databases WHERE name = 'f'\nGO\n\
         INSERT f.dbo.t VALUES (-1, 'x')\nGO\nALTER DATABASE f SET SINGLE_USER\nGO\n\
         DBCC CHECKDB (f, REPAIR_ALLOW_DATA_LOSS)\nGO\nALTER DATABASE f SET MULTI_USER\nGO\n",
    );
    let out = text(&o);
    assert!(out.contains("Msg 7919"), "{out}");
    assert!(out.contains("EMERGENCY"), "{out}");
    assert!(out.contains("Msg 3906"), "{out}");
    assert!(out.contains("bytes of the log were replayed"), "{out}");
    assert!(
        out.contains("The log for database 'f' has been rebuilt"),
        "{out}"
    );
    assert!(
        out.contains("CHECKDB found 0 allocation errors and 0 consistency errors in database 'f'."),
        "{out}"
    );
    assert_eq!(state_of(dir.path(), "f"), "ONLINE");
    assert_eq!(
        count(dir.path(), "f.dbo.t WHERE id < 100000"),
        Ok(COMMITTED),
        "the committed rows survive the repair"
    );
    let o = run(dir.path(), "INSERT f.dbo.t VALUES (-1, 'after repair')");
    assert!(
        o.status.success() && !text(&o).contains("Msg "),
        "{}",
        text(&o)
    );
    assert_eq!(count(dir.path(), "f.dbo.t WHERE id = -1"), Ok(1));
}
