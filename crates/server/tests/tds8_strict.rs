//! TDS 8.0 strict encryption: the client opens with a TLS handshake (ALPN `tds/8.0`) straight on
//! TCP; PRELOGIN, LOGIN7 (TDS version 8.0) and everything after travel inside TLS.

mod support;

use std::io::Write;
use std::net::TcpStream;
use std::sync::Arc;

use support::{TestServer, SA_PASSWORD};
use tds::client::{Client, ClientConfig, ClientError, Encrypt, Event};
use types::Value;

fn config(s: &TestServer, encrypt: Encrypt) -> ClientConfig {
    let mut c = ClientConfig::new("localhost", s.addr.port(), "sa", SA_PASSWORD);
    c.encrypt = encrypt;
    c.ca_file = Some(s.cert_path());
    c
}

fn rows(c: &mut Client, sql: &str) -> Vec<Vec<Value>> {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    c.batch(sql, None, &mut |e| match e {
        Event::Row(r) => out.push(r),
        Event::Error(m) => errors.push(m.text),
        _ => {}
    })
    .expect("batch");
    assert!(errors.is_empty(), "{errors:?}");
    out
}

#[test]
fn strict_encryption_logs_in_over_tls_first_and_answers_as_tds_7_4() {
    let s = TestServer::start_tls();
    let mut c = Client::connect(&config(&s, Encrypt::Strict)).expect("strict login");
    assert!(c.encrypted);
    // LOGINACK says 7.4: clients compare it with 7.3 to decide on date and time types
    assert_eq!(
        c.login_ack.as_ref().map(|a| a.tds_version),
        Some(0x7400_0004)
    );
    let r = rows(
        &mut c,
        "SELECT CAST('2024-02-29' AS date) AS d, REPLICATE(CAST('x' AS varchar(max)), 40000) AS big",
    );
    assert_eq!(r.len(), 1);
    assert!(matches!(r[0][0], Value::Date(_)), "{:?}", r[0][0]);
    assert!(
        matches!(&r[0][1], Value::VarChar(v) if v.len() == 40000),
        "big value"
    );
    // the classic handshakes still work beside it
    let mut full = Client::connect(&config(&s, Encrypt::On)).expect("TDS 7.4 full encryption");
    assert_eq!(rows(&mut full, "SELECT 2").len(), 1);
    let mut login_only = Client::connect(&config(&s, Encrypt::LoginOnly)).expect("login only");
    assert_eq!(rows(&mut login_only, "SELECT 3").len(), 1);
}

#[test]
fn strict_encryption_without_a_certificate_is_refused_and_the_server_goes_on() {
    let s = TestServer::start();
    let mut cfg = config(&s, Encrypt::Strict);
    cfg.trust_server_certificate = true;
    cfg.ca_file = None;
    let err = Client::connect(&cfg)
        .err()
        .expect("no certificate: refused");
    assert!(
        matches!(err, ClientError::Tls(_) | ClientError::Io(_)),
        "{err:?}"
    );
    let log = std::fs::read_to_string(server::errorlog_path(s.dir.path())).unwrap_or_default();
    assert!(log.contains("TDS 8.0 strict encryption"), "{log}");
    let mut plain = Client::connect(&config(&s, Encrypt::LoginOnly)).expect("plain login");
    assert_eq!(rows(&mut plain, "SELECT 1").len(), 1);
}

#[test]
fn a_tls_client_offering_another_protocol_is_refused() {
    let s = TestServer::start_tls();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut cfg = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates({
            use rustls::pki_types::pem::PemObject;
            let mut roots = rustls::RootCertStore::empty();
            for c in rustls::pki_types::CertificateDer::pem_file_iter(s.cert_path()).unwrap() {
                roots.add(c.unwrap()).unwrap();
            }
            roots
        })
        .with_no_client_auth();
    cfg.alpn_protocols = vec![b"h2".to_vec()];
    let name = rustls::pki_types::ServerName::try_from("localhost").unwrap();
    let mut conn = rustls::ClientConnection::new(Arc::new(cfg), name).unwrap();
    let mut sock = TcpStream::connect(s.addr).unwrap();
    let mut failed = false;
    for _ in 0..20 {
        match conn.complete_io(&mut sock) {
            Err(_) => {
                failed = true;
                break;
            }
            Ok(_) if !conn.is_handshaking() => break,
            Ok(_) => {}
        }
    }
    assert!(failed, "a handshake naming only h2 must fail");
    let _ = sock.flush();
    let mut c = Client::connect(&config(&s, Encrypt::Strict)).expect("strict login after");
    assert_eq!(rows(&mut c, "SELECT 1").len(), 1);
}
