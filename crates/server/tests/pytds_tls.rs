//! TLS inside PRELOGIN: full encryption, login-only encryption, and none.

mod support;

use support::TestServer;

fn has_pyopenssl() -> bool {
    std::process::Command::new("python3")
        .args(["-c", "import OpenSSL"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

#[test]
fn tls_full_login_only_and_off() {
    if !has_pyopenssl() {
        eprintln!("SKIP: pytds needs pyOpenSSL (pip install pyopenssl) for TLS");
        return;
    }
    let s = TestServer::start_tls();
    let cert = s.cert_path();
    assert!(cert.exists());
    let script = format!(
        r#"
CA = {cert:?}
full = connect(cafile=CA, validate_host=False); c = full.cursor()
c.execute("SELECT REPLICATE(CAST('x' AS varchar(max)), 20000) AS big, 1 AS one"); r = c.fetchall(); print(len(r[0][0]), r[0][1])
lo = connect(cafile=CA, validate_host=False, enc_login_only=True); c2 = lo.cursor()
c2.execute("SELECT 'login only'"); print(c2.fetchall())
plain = connect(); c3 = plain.cursor()
c3.execute("SELECT 'plain'"); print(c3.fetchall())
"#,
        cert = cert.display().to_string()
    );
    let Some(out) = s.python(&script) else {
        return;
    };
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "20000 1", "{out}");
    assert_eq!(lines[1], "[('login only',)]", "{out}");
    assert_eq!(lines[2], "[('plain',)]", "{out}");
}

#[test]
fn encryption_required_by_the_client_without_a_certificate_fails_cleanly() {
    if !has_pyopenssl() {
        eprintln!("SKIP: pytds needs pyOpenSSL (pip install pyopenssl) for TLS");
        return;
    }
    let s = TestServer::start();
    let dir = tempfile::tempdir().unwrap();
    let (cert, _) = server::tls::ensure_self_signed(dir.path()).unwrap();
    let script = format!(
        r#"
try:
    connect(cafile={:?}, validate_host=False)
    print('connected')
except Exception as e:
    print('refused', 'not supported' in str(e))
c = connect().cursor(); c.execute("SELECT 2"); print(c.fetchall())
"#,
        cert.display().to_string()
    );
    let Some(out) = s.python(&script) else {
        return;
    };
    assert_eq!(out, "refused True\n[(2,)]\n", "{out}");
}
