//! `latchkey -S` and `latchkey stress` against a `latchkey serve` started by the test: the same
//! output as embedded mode, login failures, attention through `-t`, and the load tool's report.

use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const PASSWORD: &str = "Remote-Test-1";

/// One server at a time in this test binary: `free_port` closes the port it found before the
/// server binds it, so two tests starting servers at once could get the same port, and one
/// test's client would talk to the other's server (a CI failure: a client exited 1).
static ONE_SERVER: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// A server on a free port of 127.0.0.1, killed when dropped.
struct Server {
    child: Child,
    port: u16,
    _dir: tempfile::TempDir,
    _one: std::sync::MutexGuard<'static, ()>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind port 0");
    l.local_addr().expect("local addr").port()
}

fn start_server() -> Server {
    let one = ONE_SERVER.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().expect("tempdir");
    let port = free_port();
    let child = Command::new(env!("CARGO_BIN_EXE_latchkey"))
        .arg("--data")
        .arg(dir.path().join("data"))
        .args(["serve", "--port", &port.to_string()])
        .env("MSSQL_SA_PASSWORD", PASSWORD)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start latchkey serve");
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "latchkey serve did not listen");
        std::thread::sleep(Duration::from_millis(50));
    }
    Server {
        child,
        port,
        _dir: dir,
        _one: one,
    }
}

fn latchkey(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_latchkey"))
        .current_dir(cwd)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run latchkey")
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn remote_output_is_the_embedded_output() {
    let server = start_server();
    let script = "SET NOCOUNT OFF;\nSELECT 1 AS a, N'x' AS b;\nPRINT 'hello';\n\
                  SELECT v FROM (VALUES (2), (3)) AS t(v) ORDER BY v;\nGO\n\
                  CREATE TABLE #t (i int);\nINSERT INTO #t VALUES (1), (2);\nGO\n\
                  SELECT 1/0;\nGO\nSELECT CAST(12.5 AS decimal(5,2)) AS d, \
                  CAST('2024-02-29' AS date) AS dt, CAST(NULL AS int) AS n;\n";
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("s.sql"), script).expect("write script");
    let server_arg = format!("127.0.0.1,{}", server.port);
    let remote = latchkey(
        &["-S", &server_arg, "-U", "sa", "-P", PASSWORD, "-i", "s.sql"],
        dir.path(),
    );
    let local = latchkey(&["--data", "data", "-i", "s.sql"], dir.path());
    assert_eq!(remote.status.code(), Some(0), "{}", text(&remote));
    assert_eq!(text(&remote), text(&local));
    assert!(text(&remote).contains("Divide by zero error encountered."));
}

#[test]
fn wrong_password_is_msg_18456_and_status_1() {
    let server = start_server();
    let dir = tempfile::tempdir().expect("tempdir");
    let server_arg = format!("127.0.0.1,{}", server.port);
    let o = latchkey(
        &[
            "-S",
            &server_arg,
            "-U",
            "sa",
            "-P",
            "wrong",
            "-Q",
            "SELECT 1",
        ],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("Msg 18456, Level 14"), "{err}");
    assert!(err.contains("Login failed for user 'sa'."), "{err}");
}

#[test]
fn full_encryption_needs_trust_or_a_certificate() {
    let server = start_server();
    let dir = tempfile::tempdir().expect("tempdir");
    let server_arg = format!("127.0.0.1,{}", server.port);
    let trusted = latchkey(
        &[
            "-S",
            &server_arg,
            "-U",
            "sa",
            "-P",
            PASSWORD,
            "-N",
            "-C",
            "-Q",
            "SELECT 'tls' AS t",
        ],
        dir.path(),
    );
    assert_eq!(trusted.status.code(), Some(0));
    assert!(text(&trusted).contains("tls"));
    let unchecked = latchkey(
        &[
            "-S",
            &server_arg,
            "-U",
            "sa",
            "-P",
            PASSWORD,
            "-N",
            "-Q",
            "SELECT 1",
        ],
        dir.path(),
    );
    assert_eq!(unchecked.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&unchecked.stderr).contains("cannot be checked"));
}

#[test]
fn strict_encryption_with_ns_and_a_bad_mode_is_refused() {
    let server = start_server();
    let dir = tempfile::tempdir().expect("tempdir");
    let server_arg = format!("127.0.0.1,{}", server.port);
    let strict = latchkey(
        &[
            "-S",
            &server_arg,
            "-U",
            "sa",
            "-P",
            PASSWORD,
            "-Ns",
            "-C",
            "-Q",
            "SELECT 'tds8' AS t",
        ],
        dir.path(),
    );
    assert_eq!(
        strict.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&strict.stderr)
    );
    assert!(text(&strict).contains("tds8"));
    let bad = latchkey(
        &[
            "-S",
            &server_arg,
            "-U",
            "sa",
            "-P",
            PASSWORD,
            "-Nx",
            "-Q",
            "SELECT 1",
        ],
        dir.path(),
    );
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("not an encryption mode"));
}

#[test]
fn query_timeout_sends_an_attention_and_the_session_goes_on() {
    let server = start_server();
    let dir = tempfile::tempdir().expect("tempdir");
    let server_arg = format!("127.0.0.1,{}", server.port);
    let started = Instant::now();
    let o = latchkey(
        &[
            "-S",
            &server_arg,
            "-U",
            "sa",
            "-P",
            PASSWORD,
            "-t",
            "1",
            "-Q",
            "WAITFOR DELAY '00:00:20'\nGO\nSELECT 'after' AS x",
        ],
        dir.path(),
    );
    assert!(started.elapsed() < Duration::from_secs(10), "not cancelled");
    let out = text(&o);
    assert!(out.contains("Query timeout expired"), "{out}");
    assert!(out.contains("after"), "{out}");
}

#[test]
fn stress_reports_throughput_percentiles_and_errors() {
    let server = start_server();
    let dir = tempfile::tempdir().expect("tempdir");
    let server_arg = format!("127.0.0.1,{}", server.port);
    let ok = latchkey(
        &[
            "stress",
            "-S",
            &server_arg,
            "-U",
            "sa",
            "-P",
            PASSWORD,
            "-n",
            "4",
            "-r",
            "5",
            "-Q",
            "SELECT 1",
        ],
        dir.path(),
    );
    let out = text(&ok);
    assert_eq!(ok.status.code(), Some(0), "{out}");
    assert!(out.contains("connected: 4 of 4"), "{out}");
    assert!(out.contains("batches: 20 in"), "{out}");
    assert!(out.contains("rows returned: 20"), "{out}");
    assert!(out.contains("latency (ms): p50 "), "{out}");
    let failing = latchkey(
        &[
            "stress",
            "-S",
            &server_arg,
            "-U",
            "sa",
            "-P",
            PASSWORD,
            "-n",
            "2",
            "-r",
            "3",
            "-Q",
            "SELECT 1/0",
        ],
        dir.path(),
    );
    let out = text(&failing);
    assert_eq!(failing.status.code(), Some(1), "{out}");
    assert!(
        out.contains("6 x Msg 8134: Divide by zero error encountered."),
        "{out}"
    );
}
