//! `latchkey bcp`: every type exported with `bcp out` / `queryout` and read back with
//! `bcp in`, BULK INSERT and OPENROWSET(BULK ...) gives the same rows; bcp's flags, output
//! lines and exit status.

use std::path::Path;
use std::process::Command;

/// The table of every type, its rows (non-ASCII text, embedded commas and quotes, extremes,
/// empty strings, NULLs) and three empty copies (`copy1..3`).
const SETUP: &str = include_str!("bcp_all_types.sql");

/// The WITH schema of `all_types` for OPENROWSET.
const SCHEMA: &str = "id int, ti tinyint, si smallint, bi bigint, de decimal(38,10), nu numeric(5,2), \
  mo money, sm smallmoney, fl float, re real, b bit, d date, t time(7), dt datetime, dt2 datetime2(7), \
  sdt smalldatetime, dto datetimeoffset(7), c char(5), vc varchar(50), nc nchar(4), nvc nvarchar(100), \
  bin binary(3), vb varbinary(20), u uniqueidentifier";

fn latchkey(data: &Path, args: &[&str]) -> (String, bool) {
    let out = Command::new(env!("CARGO_BIN_EXE_latchkey"))
        .arg("--data")
        .arg(data)
        .args(args)
        .output()
        .expect("run latchkey");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (text, out.status.success())
}

fn query(data: &Path, q: &str) -> String {
    let (out, ok) = latchkey(data, &["--format", "jsonl", "-Q", q]);
    assert!(ok && !out.contains("\"error\""), "{q}\n{out}");
    out
}

/// Rows of `a` missing from `b` plus rows of `b` missing from `a` (0: the same rows).
fn differences(data: &Path, a: &str, b: &str) -> String {
    query(
        data,
        &format!(
            "SELECT (SELECT COUNT(*) FROM (SELECT * FROM {a} EXCEPT SELECT * FROM {b}) x) \
             + (SELECT COUNT(*) FROM (SELECT * FROM {b} EXCEPT SELECT * FROM {a}) y) AS d, \
             (SELECT COUNT(*) FROM {b}) AS n"
        ),
    )
}

fn setup(dir: &Path) -> std::path::PathBuf {
    let data = dir.join("data");
    let (out, ok) = latchkey(&data, &["-Q", SETUP]);
    assert!(ok && !out.contains("Msg "), "{out}");
    data
}

#[test]
fn every_type_round_trips_through_bcp_bulk_insert_and_openrowset() {
    let dir = tempfile::tempdir().unwrap();
    let data = setup(dir.path());
    let file = dir.path().join("all.txt");
    let f = file.to_str().unwrap();
    let (out, ok) = latchkey(&data, &["bcp", "dbo.all_types", "out", f, "-c"]);
    assert!(ok, "{out}");
    assert!(out.contains("Starting copy...\n\n4 rows copied.\nNetwork packet size (bytes): 4096\nClock Time (ms.) Total     : "), "{out}");
    // NULL is an empty field, an empty string one NUL, rows end with CR LF
    let bytes = std::fs::read(&file).unwrap();
    assert!(
        bytes.windows(3).any(|w| w == b"\t\0\t"),
        "empty string as NUL"
    );
    assert!(bytes.starts_with(b"1\t0\t-32768\t"), "{:?}", &bytes[..20]);
    assert!(bytes.ends_with(b"\r\n"));

    let (out, ok) = latchkey(&data, &["bcp", "copy1", "in", f, "-c"]);
    assert!(ok && out.contains("4 rows copied."), "{out}");
    query(
        &data,
        &format!("BULK INSERT copy2 FROM '{f}' WITH (DATAFILETYPE = 'char')"),
    );
    query(
        &data,
        &format!(
            "INSERT INTO copy3 SELECT * FROM OPENROWSET(BULK '{f}', FIELDTERMINATOR = '\\t', ROWTERMINATOR = '\\n') WITH ({SCHEMA}) AS r"
        ),
    );
    // a zero-length varbinary is written as an empty field, which reads back as NULL (bcp's
    // character mode cannot tell them apart): compare the rest exactly
    let same = "[[0,4]]";
    for copy in ["copy1", "copy2", "copy3"] {
        query(&data, &format!("UPDATE {copy} SET vb = 0x WHERE id = 2"));
        let d = differences(&data, "all_types", copy);
        assert!(d.contains(same), "{copy}: {d}");
    }

    // Unicode character mode (-w) the same way
    let wide = dir.path().join("all.w.txt");
    let w = wide.to_str().unwrap();
    let (out, ok) = latchkey(&data, &["bcp", "all_types", "out", w, "-w"]);
    assert!(ok, "{out}");
    assert_eq!(&std::fs::read(&wide).unwrap()[..4], b"1\0\t\0");
    query(&data, "TRUNCATE TABLE copy1");
    let (out, ok) = latchkey(&data, &["bcp", "copy1", "in", w, "-w"]);
    assert!(ok, "{out}");
    query(&data, "UPDATE copy1 SET vb = 0x WHERE id = 2");
    assert!(differences(&data, "all_types", "copy1").contains(same));
}

#[test]
fn queryout_terminators_rows_and_database() {
    let dir = tempfile::tempdir().unwrap();
    let data = setup(dir.path());
    query(&data, "CREATE DATABASE other");
    query(
        &data,
        "USE other; CREATE TABLE dbo.t (a int, b nvarchar(20))",
    );
    let file = dir.path().join("q.csv");
    let f = file.to_str().unwrap();
    let (out, ok) = latchkey(
        &data,
        &[
            "bcp",
            "SELECT id, vc FROM dbo.all_types ORDER BY id",
            "queryout",
            f,
            "-c",
            "-t,",
            "-r",
            "0x0a",
            "-F",
            "2",
            "-L",
            "3",
        ],
    );
    assert!(ok && out.contains("2 rows copied."), "{out}");
    assert_eq!(std::fs::read(&file).unwrap(), b"2,\0\n3,\n");
    let (out, ok) = latchkey(
        &data,
        &[
            "bcp", "dbo.t", "in", f, "-c", "-t,", "-r0x0a", "-d", "other", "-h", "TABLOCK",
        ],
    );
    assert!(ok && out.contains("2 rows copied."), "{out}");
    let rows = query(&data, "SELECT a, b FROM other.dbo.t ORDER BY a");
    assert!(rows.contains("[[2,\"\"],[3,null]]"), "{rows}");
}

#[test]
fn progress_every_thousand_rows() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let f = dir.path().join("s.txt");
    let (out, ok) = latchkey(
        &data,
        &[
            "bcp",
            "SELECT value FROM GENERATE_SERIES(1, 2500)",
            "queryout",
            f.to_str().unwrap(),
            "-c",
            "-a",
            "8192",
        ],
    );
    assert!(ok, "{out}");
    assert!(out.contains(
        "Starting copy...\n1000 rows successfully bulk-copied to host-file. Total received: 1000\n\
         1000 rows successfully bulk-copied to host-file. Total received: 2000\n\n2500 rows copied.\n\
         Network packet size (bytes): 8192\n"
    ), "{out}");
}

#[test]
fn errors_and_refused_flags() {
    let dir = tempfile::tempdir().unwrap();
    let data = setup(dir.path());
    let f = dir.path().join("x.txt");
    let f = f.to_str().unwrap();
    // -v and -? answer and succeed, as bcp's
    let (out, ok) = latchkey(&data, &["bcp", "-v"]);
    assert!(ok && out.starts_with("BCP - latchkey "), "{out}");
    let (out, ok) = latchkey(&data, &["bcp", "-?"]);
    assert!(ok && out.starts_with("usage: latchkey bcp"), "{out}");
    // a missing table: the server's error as bcp prints it, exit status 1
    let (out, ok) = latchkey(&data, &["bcp", "nosuch", "out", f, "-c"]);
    assert!(!ok);
    assert!(out.contains("SQLState = S0002, NativeError = 208"), "{out}");
    assert!(out.contains("Invalid object name 'nosuch'."), "{out}");
    // no server to connect to, no login to give, no prompting for field formats
    let (out, ok) = latchkey(&data, &["bcp", "all_types", "out", f, "-c", "-S", "prod01"]);
    assert!(!ok && out.contains("TDS server"), "{out}");
    let (out, ok) = latchkey(&data, &["bcp", "all_types", "out", f, "-c", "-U", "sa"]);
    assert!(!ok && out.contains("-U"), "{out}");
    let (out, ok) = latchkey(&data, &["bcp", "all_types", "out", f]);
    assert!(!ok && out.contains("-c"), "{out}");
    let (out, ok) = latchkey(&data, &["bcp", "all_types", "out", f, "-n"]);
    assert!(!ok && out.contains("-n"), "{out}");
    // a row that does not convert: BULK INSERT's message, the good rows stay
    std::fs::write(dir.path().join("bad.txt"), "1\tx\r\nzz\ty\r\n3\tz\r\n").unwrap();
    query(&data, "CREATE TABLE small (a int, b varchar(5))");
    let bad = dir.path().join("bad.txt");
    let (out, ok) = latchkey(&data, &["bcp", "small", "in", bad.to_str().unwrap(), "-c"]);
    assert!(!ok, "{out}");
    assert!(out.contains("NativeError = 4864"), "{out}");
    assert!(out.contains("2 rows copied."), "{out}");
}
