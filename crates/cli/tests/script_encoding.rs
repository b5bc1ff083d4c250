//! Script input encodings (`-i FILE` and standard input): UTF-8 with or without a byte order
//! mark and UTF-16 LE/BE with one are read as sqlcmd reads them; invalid bytes are an error
//! naming the line, with a non-zero exit status, and nothing of a bad file runs.

use std::io::Write;
use std::process::{Command, Output, Stdio};

const SCRIPT: &str = "CREATE TABLE t (s nvarchar(20))\nGO\nINSERT t VALUES (N'straße €𝄞')\nSELECT s, LEN(s) AS n FROM t\nGO\n";

fn utf16(s: &str, le: bool) -> Vec<u8> {
    let mut out = if le {
        vec![0xFF, 0xFE]
    } else {
        vec![0xFE, 0xFF]
    };
    for u in s.encode_utf16() {
        out.extend_from_slice(&if le { u.to_le_bytes() } else { u.to_be_bytes() });
    }
    out
}

fn encodings() -> Vec<(&'static str, Vec<u8>)> {
    let mut bom8 = vec![0xEF, 0xBB, 0xBF];
    bom8.extend_from_slice(SCRIPT.as_bytes());
    vec![
        ("utf-8", SCRIPT.as_bytes().to_vec()),
        ("utf-8 bom", bom8),
        ("utf-16le bom", utf16(SCRIPT, true)),
        ("utf-16be bom", utf16(SCRIPT, false)),
    ]
}

fn latchkey(data: &std::path::Path, args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_latchkey"))
        .arg("--data")
        .arg(data)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run latchkey");
    let mut input = child.stdin.take().expect("stdin");
    input
        .write_all(stdin.unwrap_or_default())
        .expect("write stdin");
    drop(input);
    child.wait_with_output().expect("wait")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn every_bom_kind_from_a_file_and_from_stdin() {
    for (name, bytes) in encodings() {
        for via_stdin in [false, true] {
            let dir = tempfile::tempdir().expect("tempdir");
            let file = dir.path().join("s.sql");
            std::fs::write(&file, &bytes).expect("write");
            let f = file.to_str().expect("path");
            let out = if via_stdin {
                latchkey(&dir.path().join("d"), &[], Some(&bytes))
            } else {
                latchkey(&dir.path().join("d"), &["-i", f], None)
            };
            let stdout = text(&out.stdout);
            assert!(
                out.status.success(),
                "{name}: {stdout}{}",
                text(&out.stderr)
            );
            assert!(
                stdout.contains("straße €𝄞") && stdout.contains(" 10"),
                "{name} (stdin {via_stdin}): {stdout}"
            );
            assert!(!stdout.contains("Msg"), "{name}: {stdout}");
        }
    }
}

#[test]
fn invalid_bytes_name_the_line_and_fail_in_every_mode() {
    let bad: &[u8] = b"CREATE TABLE t (a int)\nGO\nINSERT t VALUES (1) -- caf\xe9\nGO\n";
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("bad.sql");
    std::fs::write(&file, bad).expect("write");
    let f = file.to_str().expect("path");
    for (mode, args, stdin) in [
        ("-i table", vec!["-i", f], None),
        ("-i jsonl", vec!["-i", f, "--format", "jsonl"], None),
        ("stdin table", vec![], Some(bad)),
        ("stdin jsonl", vec!["--format", "jsonl"], Some(bad)),
    ] {
        let data = dir.path().join(mode.replace(' ', "_"));
        let out = latchkey(&data, &args, stdin);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{mode}: {err}");
        assert!(
            err.contains("invalid UTF-8") && err.contains("line 3"),
            "{mode}: {err}"
        );
        if args.first() == Some(&"-i") {
            // a bad file runs none of its batches
            let check = latchkey(&data, &["-Q", "SELECT OBJECT_ID('t') AS id"], None);
            assert!(
                text(&check.stdout).contains("NULL"),
                "{mode}: {}",
                text(&check.stdout)
            );
        }
    }
    // an odd byte count in UTF-16 and an unpaired surrogate
    let mut odd = utf16("SELECT 1\nGO\n", true);
    odd.push(0x41);
    let mut lone = utf16("SELECT 1\nGO\nSELECT 2", true);
    lone.extend_from_slice(&[0x00, 0xDC]);
    for bytes in [odd, lone] {
        let out = latchkey(&dir.path().join("u"), &[], Some(&bytes));
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains("UTF-16"),
            "{}",
            text(&out.stderr)
        );
    }
}
