//! One owner per data directory (issue 8 finding 1, acceptance 2): while one `latchkey`
//! process has a data directory open, a second one, reader or writer, fails at once with
//! Msg 5120 / operating system error 32 and a non-zero exit status, and the first's data is
//! intact. Every combination of reader and writer.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, Output, Stdio};

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

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Ids in table `a`, in order.
fn ids(data: &Path) -> Vec<i64> {
    let o = run(data, "SET NOCOUNT ON; SELECT id FROM a ORDER BY id");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    stdout(&o)
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

fn two_processes(first_writes: bool, second_writes: bool) {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path();
    let o = run(
        data,
        "CREATE TABLE a(id int PRIMARY KEY); INSERT a VALUES (1),(2),(3)",
    );
    assert!(o.status.success());
    let first_sql = if first_writes {
        "INSERT a VALUES (10)\nGO\nSELECT 'holding' AS m\nGO\nWAITFOR DELAY '00:00:02'\nINSERT a VALUES (11)\nGO\n"
    } else {
        "SELECT COUNT(*) FROM a\nGO\nSELECT 'holding' AS m\nGO\nWAITFOR DELAY '00:00:02'\nSELECT COUNT(*) FROM a\nGO\n"
    };
    let mut first = Command::new(bin())
        .arg("--data")
        .arg(data)
        .arg("-Q")
        .arg(first_sql)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // the first process prints after each batch: once "holding" shows, it has the directory
    let mut out = BufReader::new(first.stdout.take().unwrap());
    let mut seen = String::new();
    loop {
        let mut line = String::new();
        assert!(
            out.read_line(&mut line).unwrap() > 0,
            "first process ended early: {seen}"
        );
        seen.push_str(&line);
        if line.contains("holding") {
            break;
        }
    }
    let second_sql = if second_writes {
        "INSERT a VALUES (99)"
    } else {
        "SELECT COUNT(*) FROM a"
    };
    let second = run(data, second_sql);
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(!second.status.success(), "the second process must fail");
    assert!(err.contains("Msg 5120, Level 16"), "{err}");
    assert!(
        err.contains("Operating system error 32: \"32(The process cannot access the file because it is being used by another process.)\""),
        "{err}"
    );
    assert_eq!(stdout(&second), "", "the second process ran nothing");
    out.read_to_string(&mut seen).unwrap();
    let status = first.wait().unwrap();
    assert!(status.success(), "first process: {seen}");
    let want: Vec<i64> = if first_writes {
        vec![1, 2, 3, 10, 11]
    } else {
        vec![1, 2, 3]
    };
    assert_eq!(ids(data), want, "the first's data is intact");
}

#[test]
fn writer_then_writer() {
    two_processes(true, true);
}

#[test]
fn writer_then_reader() {
    two_processes(true, false);
}

#[test]
fn reader_then_writer() {
    two_processes(false, true);
}

#[test]
fn reader_then_reader() {
    two_processes(false, false);
}
