//! sqlcmd compatibility of the `latchkey` binary: one test per flag and per command, exit
//! status included (crates/cli/README.md lists the behaviour these tests pin down).

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

struct Run {
    code: Option<i32>,
    out: String,
    err: String,
}

/// Runs latchkey on data directory `dir/data` (cwd `dir`) with `args`, feeding `stdin`.
fn run_in(dir: &Path, args: &[&str], stdin: &str) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_latchkey"))
        .current_dir(dir)
        .arg("--data")
        .arg(dir.join("data"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run latchkey");
    let mut input = child.stdin.take().expect("stdin");
    input.write_all(stdin.as_bytes()).expect("write stdin");
    drop(input);
    let o = child.wait_with_output().expect("wait");
    Run {
        code: o.status.code(),
        out: String::from_utf8_lossy(&o.stdout).into_owned(),
        err: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

fn run(args: &[&str], stdin: &str) -> Run {
    let dir = tempfile::tempdir().expect("tempdir");
    run_in(dir.path(), args, stdin)
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    std::fs::write(&p, text).expect("write");
    p.to_str().expect("utf-8 path").to_string()
}

#[test]
fn big_q_runs_and_exits() {
    let r = run(
        &["-Q", "SELECT 41 + 1 AS answer"],
        "SELECT 'stdin is not read'",
    );
    assert_eq!(r.code, Some(0), "{}", r.err);
    assert!(
        r.out.contains("answer") && r.out.contains("42"),
        "{}",
        r.out
    );
    assert!(!r.out.contains("stdin is not read"), "{}", r.out);
}

#[test]
fn small_q_runs_then_reads_standard_input() {
    let r = run(
        &["-q", "CREATE TABLE #t (n int); INSERT #t VALUES (7)"],
        "SELECT n * 6 AS v FROM #t\nGO\n",
    );
    assert_eq!(r.code, Some(0), "{}", r.err);
    assert!(
        r.out.contains("42"),
        "same session, temp table kept: {}",
        r.out
    );
}

#[test]
fn i_takes_a_list_and_repeats_in_order() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = write(dir.path(), "a.sql", "SELECT 'from a' AS s\n");
    let b = write(dir.path(), "b.sql", "SELECT 'from b' AS s\n");
    let c = write(dir.path(), "c.sql", "SELECT 'from c' AS s\n");
    let list = format!("{a},{b}");
    let r = run_in(dir.path(), &["-i", &list, "-i", &c], "");
    assert_eq!(r.code, Some(0), "{}", r.err);
    let (pa, pb, pc) = (
        r.out.find("from a").expect("a ran"),
        r.out.find("from b").expect("b ran"),
        r.out.find("from c").expect("c ran"),
    );
    assert!(pa < pb && pb < pc, "{}", r.out);
}

#[test]
fn a_bad_script_file_is_status_1_in_every_format() {
    for format in ["table", "csv", "jsonl"] {
        let r = run(&["--format", format, "-i", "no/such/file.sql"], "");
        assert_eq!(r.code, Some(1), "{format}: {}", r.err);
        assert!(r.err.contains("no/such/file.sql"), "{format}: {}", r.err);
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let main = write(
        dir.path(),
        "main.sql",
        "SELECT 'before' AS s\nGO\n:r missing.sql\nSELECT 'after' AS s\n",
    );
    let r = run_in(dir.path(), &["-i", &main], "");
    assert_eq!(r.code, Some(1), "{}", r.err);
    assert!(
        r.out.contains("before") && !r.out.contains("after"),
        "{}",
        r.out
    );
    assert!(r.err.contains("missing.sql"), "{}", r.err);
}

#[test]
fn o_writes_results_and_errors_to_a_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.txt");
    let o = out.to_str().expect("path");
    let r = run_in(
        dir.path(),
        &["-o", o, "-Q", "SELECT 'into the file' AS s\nGO\nSELECT 1/0"],
        "",
    );
    assert_eq!(r.code, Some(0), "{}", r.err);
    assert_eq!(r.out, "");
    let text = std::fs::read_to_string(&out).expect("output file");
    assert!(text.contains("into the file"), "{text}");
    assert!(text.contains("Msg 8134, Level 16"), "{text}");
}

#[test]
fn v_defines_variables_and_setvar_overrides() {
    let r = run(
        &[
            "-v",
            "Col=name",
            "Tbl=sys.databases",
            "-Q",
            "SELECT $(col) FROM $(TBL) WHERE database_id = 1\nGO\n:setvar col database_id\nSELECT $(col) AS id FROM $(tbl) WHERE name = 'master'",
        ],
        "",
    );
    assert_eq!(r.code, Some(0), "{}", r.err);
    assert!(r.out.contains("master"), "{}", r.out);
    assert!(r.out.contains("id\n"), "{}", r.out);
}

#[test]
fn setvar_quoted_values_and_builtin_variables() {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = write(
        dir.path(),
        "s.sql",
        ":setvar greeting \"say \"\"hi\"\" twice\"\nSELECT '$(greeting)' AS g, '$(SQLCMDDBNAME)' AS db\n",
    );
    let r = run_in(dir.path(), &["-d", "tempdb", "-i", &s], "");
    assert_eq!(r.code, Some(0), "{}", r.err);
    assert!(r.out.contains("say \"hi\" twice"), "{}", r.out);
    assert!(r.out.contains("tempdb"), "{}", r.out);
    // the connection's variables are read-only, as in sqlcmd
    let r = run(&["-Q", ":setvar SQLCMDSERVER other\nSELECT 1 AS one"], "");
    assert!(
        r.err
            .contains("The scripting variable: 'SQLCMDSERVER' is read-only"),
        "{}",
        r.err
    );
    assert_eq!(r.code, Some(0));
}

#[test]
fn environment_variables_are_scripting_variables() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = Command::new(env!("CARGO_BIN_EXE_latchkey"))
        .env("LK_TEST_COLOUR", "teal")
        .arg("--data")
        .arg(dir.path().join("data"))
        .args(["-Q", "SELECT '$(LK_TEST_COLOUR)' AS c"])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("teal"), "{text}");
}

#[test]
fn an_undefined_variable_stops_the_script_with_status_1() {
    let r = run(
        &[
            "-Q",
            "SELECT 'first' AS s\nGO\nSELECT $(nowhere)\nGO\nSELECT 'never' AS s",
        ],
        "",
    );
    assert_eq!(r.code, Some(1));
    assert!(
        r.err.contains("'nowhere' scripting variable not defined."),
        "{}",
        r.err
    );
    assert!(
        r.out.contains("first") && !r.out.contains("never"),
        "{}",
        r.out
    );
}

#[test]
fn x_leaves_variables_alone() {
    let r = run(&["-x", "-Q", "SELECT '$(not_a_var)' AS s"], "");
    assert_eq!(r.code, Some(0), "{}", r.err);
    assert!(r.out.contains("$(not_a_var)"), "{}", r.out);
}

#[test]
fn b_stops_at_an_error_with_status_1() {
    let script = "SELECT 'one' AS s\nGO\nSELECT 1/0\nGO\nSELECT 'three' AS s\n";
    let r = run(&["-b", "-Q", script], "");
    assert_eq!(r.code, Some(1));
    assert!(
        r.out.contains("one") && r.out.contains("Msg 8134"),
        "{}",
        r.out
    );
    assert!(!r.out.contains("three"), "{}", r.out);
    // without -b: every batch runs and the status is 0 (sqlcmd)
    let r = run(&["-Q", script], "");
    assert_eq!(r.code, Some(0));
    assert!(r.out.contains("three"), "{}", r.out);
    // severity 10 and below is not an error for -b
    let r = run(
        &[
            "-b",
            "-Q",
            "RAISERROR('just info', 10, 1)\nGO\nSELECT 'ran' AS s",
        ],
        "",
    );
    assert_eq!(r.code, Some(0));
    assert!(
        r.out.contains("just info") && r.out.contains("ran"),
        "{}",
        r.out
    );
    // -b applies to standard input too
    let r = run(&["-b"], "SELECT 1/0\nGO\nSELECT 'not run' AS s\nGO\n");
    assert_eq!(r.code, Some(1));
    assert!(!r.out.contains("not run"), "{}", r.out);
}

#[test]
fn a_fatal_error_ends_with_a_nonzero_status_in_every_mode() {
    let r = run(
        &[
            "-Q",
            "RAISERROR('fatal', 20, 1) WITH LOG\nGO\nSELECT 'after' AS s",
        ],
        "",
    );
    assert_eq!(r.code, Some(1), "{}", r.out);
    assert!(r.out.contains("Msg 50000, Level 20"), "{}", r.out);
    assert!(!r.out.contains("after"), "{}", r.out);
    for format in ["csv", "jsonl"] {
        let r = run(
            &[
                "--format",
                format,
                "-Q",
                "RAISERROR('fatal', 20, 1) WITH LOG\nGO\nSELECT 'after' AS s",
            ],
            "",
        );
        assert_eq!(r.code, Some(1), "{format}: {}{}", r.out, r.err);
        assert!(!r.out.contains("after"), "{format}: {}", r.out);
    }
    // jsonl on standard input keeps ENGINE_INTERFACE.md's status 0
    let r = run(
        &["--format", "jsonl"],
        "RAISERROR('fatal', 20, 1) WITH LOG\nGO\n",
    );
    assert_eq!(r.code, Some(0), "{}", r.out);
}

#[test]
fn raiserror_state_127_exits_with_the_message_number() {
    let r = run(
        &[
            "-Q",
            "RAISERROR('quit now', 16, 127)\nGO\nSELECT 'after' AS s",
        ],
        "",
    );
    // 50000 & 0xFF: a Unix exit status keeps the low byte
    assert_eq!(r.code, Some(50000 & 0xFF), "{}{}", r.out, r.err);
    assert!(!r.out.contains("after"), "{}", r.out);
}

#[test]
fn on_error_exit_and_ignore() {
    let r = run(
        &[
            "-Q",
            ":on error exit\nSELECT 1/0\nGO\nSELECT 'not run' AS s",
        ],
        "",
    );
    assert_eq!(r.code, Some(1));
    assert!(!r.out.contains("not run"), "{}", r.out);
    let r = run(
        &[
            "-b",
            "-Q",
            ":ON ERROR IGNORE\nSELECT 1/0\nGO\nSELECT 'still run' AS s",
        ],
        "",
    );
    assert_eq!(r.code, Some(0));
    assert!(r.out.contains("still run"), "{}", r.out);
    let r = run(&["-Q", ":on error sometimes\nSELECT 1 AS x"], "");
    assert!(
        r.err
            .contains("Sqlcmd: Error: Syntax error at line 1 near command 'ON ERROR'."),
        "{}",
        r.err
    );
}

#[test]
fn r_includes_relative_to_the_including_file_and_joins_the_batch() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "lib/cols.sql", ":r inner.sql\n");
    write(dir.path(), "lib/inner.sql", "'included' AS s\n");
    let main = write(dir.path(), "main.sql", "SELECT\n:r lib/cols.sql\nGO\n");
    // run from elsewhere: names are taken from the including file's directory
    let other = tempfile::tempdir().expect("tempdir");
    let r = run_in(other.path(), &["-i", &main], "");
    assert_eq!(r.code, Some(0), "{}", r.err);
    assert!(r.out.contains("included"), "{}", r.out);
}

#[test]
fn r_reads_utf16_and_bom_files() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut utf16 = vec![0xFF, 0xFE];
    for u in "SELECT N'straße' AS s\nGO\n".encode_utf16() {
        utf16.extend_from_slice(&u.to_le_bytes());
    }
    std::fs::write(dir.path().join("u16.sql"), utf16).expect("write");
    let mut bom8 = vec![0xEF, 0xBB, 0xBF];
    bom8.extend_from_slice(b"SELECT 'bom' AS s\nGO\n");
    std::fs::write(dir.path().join("bom.sql"), bom8).expect("write");
    let main = write(dir.path(), "main.sql", ":r u16.sql\n:r bom.sql\n");
    let r = run_in(dir.path(), &["-i", &main], "");
    assert_eq!(r.code, Some(0), "{}", r.err);
    assert!(
        r.out.contains("straße") && r.out.contains("bom"),
        "{}",
        r.out
    );
    assert!(!r.out.contains("Msg"), "{}", r.out);
}

#[test]
fn r_that_includes_itself_stops() {
    let dir = tempfile::tempdir().expect("tempdir");
    let me = write(dir.path(), "me.sql", ":r me.sql\n");
    let r = run_in(dir.path(), &["-i", &me], "");
    assert_eq!(r.code, Some(1));
    assert!(r.err.contains("nested more than"), "{}", r.err);
}

#[test]
fn exit_forms() {
    // EXIT: quits without running the batch being typed
    let r = run(
        &["-Q", "SELECT 'typed' AS s\nEXIT\nSELECT 'later' AS s"],
        "",
    );
    assert_eq!(r.code, Some(0));
    assert!(
        !r.out.contains("typed") && !r.out.contains("later"),
        "{}",
        r.out
    );
    // EXIT(): runs it, then quits
    let r = run(
        &["-Q", "SELECT 'typed' AS s\nEXIT()\nSELECT 'later' AS s"],
        "",
    );
    assert_eq!(r.code, Some(0));
    assert!(
        r.out.contains("typed") && !r.out.contains("later"),
        "{}",
        r.out
    );
    // EXIT(query): the first column of the first row is the exit status
    let r = run(&["-Q", "exit(SELECT 3 + 4, 'x')"], "");
    assert_eq!(r.code, Some(7), "{}{}", r.out, r.err);
    // an empty result set before the first row does not lend its column type
    let r = run(
        &[
            "-Q",
            "CREATE TABLE #d (d decimal(10, 0))\nGO\nEXIT(SELECT d FROM #d; SELECT CAST(9.75 AS decimal(5, 2)))",
        ],
        "",
    );
    assert_eq!(r.code, Some(9), "{}{}", r.out, r.err);
    let r = run(
        &[],
        "CREATE TABLE #e (n int)\nGO\n:EXIT(SELECT n FROM #e)\n",
    );
    assert_eq!(r.code, Some(-101i32 & 0xFF), "no rows: {}", r.out);
    // QUIT and :quit
    let r = run(&[], "SELECT 'a' AS s\nGO\nquit\nSELECT 'b' AS s\nGO\n");
    assert_eq!(r.code, Some(0));
    assert!(r.out.contains('a') && !r.out.contains("b\n"), "{}", r.out);
    let r = run(&["-Q", "EXIT now"], "");
    assert!(
        r.err.contains("Syntax error at line 1 near command 'EXIT'"),
        "{}",
        r.err
    );
}

#[test]
fn go_n_repeats_and_says_so() {
    let r = run(
        &[
            "-Q",
            "CREATE TABLE #c (n int)\nGO\nINSERT #c VALUES (1)\nGO 5\nSELECT COUNT(*) AS n FROM #c",
        ],
        "",
    );
    assert_eq!(r.code, Some(0), "{}", r.err);
    assert!(
        r.out.contains("Batch execution completed 5 times."),
        "{}",
        r.out
    );
    assert!(r.out.contains("          5\n"), "{}", r.out);
    let r = run(&["-Q", "SELECT 1 AS one\nGO 1"], "");
    assert!(!r.out.contains("Batch execution completed"), "{}", r.out);
}

#[test]
fn e_echoes_each_batch() {
    let r = run(&["-e", "-Q", "SELECT 'x' AS echoed_col"], "");
    assert_eq!(r.code, Some(0));
    let echo = r.out.find("SELECT 'x' AS echoed_col").expect("echo");
    let header = r.out.rfind("echoed_col\n").expect("header");
    assert!(echo < header, "{}", r.out);
}

#[test]
fn big_i_is_accepted_and_quoted_identifier_is_on() {
    let r = run(
        &[
            "-I",
            "-Q",
            "SELECT SESSIONPROPERTY('QUOTED_IDENTIFIER') AS qi, 1 AS \"quoted\"",
        ],
        "",
    );
    assert_eq!(r.code, Some(0), "{}", r.err);
    assert!(r.out.contains("quoted") && r.out.contains('1'), "{}", r.out);
    assert!(!r.out.contains("Msg"), "{}", r.out);
}

#[test]
fn w_trims_and_s_separates() {
    let q = "SELECT CAST('ab' AS varchar(20)) AS name, 5 AS n";
    let r = run(&["-W", "-s", ",", "-Q", q], "");
    assert!(r.out.starts_with("name,n\n----,-\nab,5\n"), "{:?}", r.out);
    let r = run(&["-Q", q], "");
    assert!(r.out.starts_with("name                 n\n"), "{:?}", r.out);
}

#[test]
fn h_repeats_or_hides_headers() {
    let q = "SELECT n FROM (VALUES (1),(2),(3)) v(n)";
    let r = run(&["-h", "-1", "-Q", q], "");
    assert!(
        !r.out.lines().any(|l| l.trim() == "n") && !r.out.contains("---"),
        "{}",
        r.out
    );
    assert!(r.out.contains("          1\n"), "{}", r.out);
    let r = run(&["-h", "2", "-Q", q], "");
    assert_eq!(r.out.matches("-----------").count(), 2, "{}", r.out);
    let r = run(&["-h", "0", "-Q", q], "");
    assert_eq!(r.code, Some(1));
    assert!(
        r.err
            .contains("'-h 0': header value must be either -1 or a value between 1 and 2147483647"),
        "{}",
        r.err
    );
}

#[test]
fn w_wraps_long_lines() {
    let r = run(&["-w", "10", "-Q", "SELECT 'abcdefghijklmnop' AS s"], "");
    assert!(r.out.contains("abcdefghij\nklmnop\n"), "{}", r.out);
    let r = run(&["-w", "3", "-Q", "SELECT 1"], "");
    assert_eq!(r.code, Some(1));
    assert!(
        r.err
            .contains("'-w 3': value must be greater than 8 and less than 65536."),
        "{}",
        r.err
    );
}

#[test]
fn y_and_big_y_cut_display_widths() {
    let r = run(
        &[
            "-y",
            "5",
            "-Q",
            "SELECT CAST('abcdefgh' AS varchar(max)) AS v",
        ],
        "",
    );
    assert!(
        r.out.contains("abcde\n") && !r.out.contains("abcdef"),
        "{}",
        r.out
    );
    let r = run(
        &[
            "-Y",
            "3",
            "-Q",
            "SELECT CAST('abcdefgh' AS varchar(20)) AS v",
        ],
        "",
    );
    assert!(
        r.out.contains("abc\n") && !r.out.contains("abcd"),
        "{}",
        r.out
    );
}

#[test]
fn t_cancels_a_batch_past_the_timeout_and_keeps_the_session() {
    let script = "CREATE TABLE #t (n int); INSERT #t VALUES (1)\nGO\nWAITFOR DELAY '00:00:30'; SELECT 'not reached' AS x\nGO\nSELECT n AS still_there FROM #t";
    let start = std::time::Instant::now();
    let r = run(&["-t", "1", "-Q", script], "");
    assert!(
        start.elapsed() < std::time::Duration::from_secs(20),
        "not cancelled"
    );
    assert_eq!(r.code, Some(0), "{}", r.err);
    assert!(
        r.out.contains("Sqlcmd: Error: Query timeout expired."),
        "{}",
        r.out
    );
    assert!(!r.out.contains("not reached"), "{}", r.out);
    assert!(r.out.contains("still_there"), "session kept: {}", r.out);
    // under -b a timeout is an error
    let r = run(&["-b", "-t", "1", "-Q", script], "");
    assert_eq!(r.code, Some(1), "{}", r.out);
    assert!(!r.out.contains("still_there"), "{}", r.out);
    // a timed-out batch is not repeated by GO n
    let start = std::time::Instant::now();
    let r = run(&["-t", "1", "-Q", "WAITFOR DELAY '00:00:03'\nGO 4"], "");
    assert!(
        start.elapsed() < std::time::Duration::from_secs(3),
        "repeated"
    );
    assert_eq!(
        r.out.matches("Query timeout expired").count(),
        1,
        "{}",
        r.out
    );
    let r = run(&["-t", "0", "-Q", "SELECT 1 AS one"], "");
    assert_eq!(r.code, Some(0), "{}", r.err);
    let r = run(&["-t", "70000", "-Q", "SELECT 1 AS one"], "");
    assert_eq!(r.code, Some(1));
    assert!(r.err.contains("'-t 70000': value must be"), "{}", r.err);
}

#[test]
fn d_is_the_database_and_a_missing_one_is_911() {
    let r = run(&["-d", "tempdb", "-Q", "SELECT DB_NAME() AS db"], "");
    assert_eq!(r.code, Some(0), "{}", r.err);
    assert!(r.out.contains("tempdb"), "{}", r.out);
    let r = run(&["-d", "nosuch", "-Q", "SELECT 'ran' AS s"], "");
    assert_eq!(r.code, Some(1));
    assert!(r.err.contains("Msg 911, Level 16"), "{}", r.err);
    assert!(!r.out.contains("ran"), "{}", r.out);
}

#[test]
fn old_d_data_directory_form_points_to_data() {
    let dir = tempfile::tempdir().expect("tempdir");
    let first = run_in(dir.path(), &["-Q", "SELECT 1"], "");
    assert_eq!(first.code, Some(0));
    let data = dir.path().join("data");
    let r = Command::new(env!("CARGO_BIN_EXE_latchkey"))
        .args(["-d", data.to_str().expect("path"), "-Q", "SELECT 1"])
        .output()
        .expect("run");
    assert_eq!(r.status.code(), Some(1));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("--data"), "{err}");
}

#[test]
fn question_mark_prints_usage() {
    let r = run(&["-?"], "");
    assert_eq!(r.code, Some(0));
    assert!(
        r.out.contains("Usage: latchkey") && r.out.contains("-Q"),
        "{}",
        r.out
    );
}

#[test]
fn help_listvar_list_and_reset() {
    let r = run(
        &[
            "-Q",
            ":help\nSELECT 'dropped' AS s\n:list\n:reset\nSELECT 'kept' AS s\nGO\n:listvar",
        ],
        "",
    );
    assert_eq!(r.code, Some(0), "{}", r.err);
    assert!(r.out.contains(":Setvar"), "{}", r.out);
    assert!(
        r.out.contains("SELECT 'dropped' AS s\n"),
        ":list: {}",
        r.out
    );
    assert!(!r.out.contains("dropped\n"), "reset: {}", r.out);
    assert!(r.out.contains("kept"), "{}", r.out);
    assert!(r.out.contains("SQLCMDSERVER = \""), "{}", r.out);
}

#[test]
fn unknown_and_unsupported_commands_are_errors() {
    let r = run(&["-Q", ":frobnicate\nSELECT 'ran' AS s"], "");
    assert!(
        r.err
            .contains("Sqlcmd: Error: Syntax error at line 1 near command ':FROBNICATE'."),
        "{}",
        r.err
    );
    assert!(r.out.contains("ran"), "{}", r.out);
    // `::name` starting a line is T-SQL (old system-function syntax), not a command
    let r = run(
        &["-Q", "SELECT COUNT(*) AS n FROM\n::fn_helpcollations()"],
        "",
    );
    assert!(!r.err.contains("Sqlcmd: Error"), "{}", r.err);
    let r = run(&["-b", "-Q", ":connect otherserver\nSELECT 'ran' AS s"], "");
    assert_eq!(r.code, Some(1));
    assert!(r.err.contains("not supported"), "{}", r.err);
    assert!(!r.out.contains("ran"), "{}", r.out);
}

#[test]
fn out_redirects_later_output() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("later.txt");
    let script = format!(
        "SELECT 'to stdout' AS s\nGO\n:out {}\nSELECT 'to file' AS s\nGO\n:out stdout\nSELECT 'back' AS s",
        file.display()
    );
    let r = run_in(dir.path(), &["-Q", &script], "");
    assert_eq!(r.code, Some(0), "{}", r.err);
    assert!(
        r.out.contains("to stdout") && r.out.contains("back"),
        "{}",
        r.out
    );
    assert!(!r.out.contains("to file"), "{}", r.out);
    let text = std::fs::read_to_string(&file).expect("file");
    assert!(text.contains("to file"), "{text}");
}

#[test]
fn csv_format_quotes_as_rfc_4180() {
    let r = run(
        &[
            "--format",
            "csv",
            "-Q",
            "SELECT 1 AS id, 'a,b' AS s, 'say \"hi\"' AS q, NULL AS n, '' AS e\nSELECT 2 AS other\nPRINT 'to stderr'",
        ],
        "",
    );
    assert_eq!(r.code, Some(0), "{}", r.err);
    assert_eq!(
        r.out,
        "id,s,q,n,e\r\n1,\"a,b\",\"say \"\"hi\"\"\",,\"\"\r\n\r\nother\r\n2\r\n"
    );
    assert!(r.err.contains("to stderr"), "{}", r.err);
}

#[test]
fn sqlcmd_flags_are_refused_with_jsonl() {
    let r = run(&["--format", "jsonl", "-b"], "");
    assert_eq!(r.code, Some(1));
    assert!(
        r.err.contains("-b applies to --format table and csv"),
        "{}",
        r.err
    );
}

#[test]
fn jsonl_stdin_contract_is_unchanged() {
    // no substitution, no commands, exactly-GO lines, the unterminated tail discarded
    let r = run(
        &["--format", "jsonl"],
        "SELECT '$(x)' AS s\nGO\n:setvar x 1\nGO\nSELECT 'tail'\n",
    );
    assert_eq!(r.code, Some(0), "{}", r.err);
    let lines: Vec<&str> = r.out.lines().collect();
    assert!(lines[0].contains("\"$(x)\""), "{}", r.out);
    assert_eq!(lines[1], "{\"type\":\"batch_end\"}");
    assert!(
        lines[2].contains("\"type\":\"error\""),
        ":setvar reached the engine: {}",
        r.out
    );
    assert!(!r.out.contains("tail"), "{}", r.out);
}
