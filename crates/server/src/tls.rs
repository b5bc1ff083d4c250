//! TLS setup: the certificate (given, or self-signed and generated into the data directory on
//! first start) and the two handshakes: TDS 7.x's, carried inside PRELOGIN packets ([MS-TDS]
//! 3.2.5.2: until the handshake completes, TLS records travel as the payload of packets of type
//! 0x12; after it, TLS records carry the TDS packets), and TDS 8.0's strict encryption, where
//! the TLS handshake comes first, straight on the socket, and PRELOGIN travels inside it.

use std::io;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::ServerConfig;
use tds::packet::{self, ptype};

/// The files generated on first start, inside the data directory.
pub const GENERATED_CERT: &str = "latchkey-cert.pem";
pub const GENERATED_KEY: &str = "latchkey-key.pem";

/// Loads `cert`/`key` (PEM) into a rustls server configuration for TDS 7.x encryption (the
/// handshake inside PRELOGIN packets).
pub fn load(cert: &Path, key: &Path) -> Result<Arc<ServerConfig>, String> {
    // TLS 1.2 only, as SQL Server for TDS 7.x ([MS-TDS]: TLS 1.3 comes with TDS 8's strict
    // encryption): FreeTDS (GnuTLS) and mssql-jdbc stall after a TLS 1.3 handshake carried in
    // PRELOGIN packets
    let mut cfg = build(cert, key, &[&rustls::version::TLS12])?;
    // TLS 1.3 session tickets would follow the handshake outside PRELOGIN packets, where a
    // client that considers the handshake over does not expect them.
    cfg.send_tls13_tickets = 0;
    Ok(Arc::new(cfg))
}

/// The ALPN protocol a TDS 8.0 client names in its TLS ClientHello.
pub const TDS8_ALPN: &[u8] = b"tds/8.0";

/// The configuration for TDS 8.0 strict encryption (`Encrypt=Strict`): the client opens with a
/// TLS handshake straight on the socket, before any TDS packet, offering ALPN `tds/8.0`;
/// TLS 1.2 and 1.3.
pub fn load_strict(cert: &Path, key: &Path) -> Result<Arc<ServerConfig>, String> {
    let mut cfg = build(
        cert,
        key,
        &[&rustls::version::TLS13, &rustls::version::TLS12],
    )?;
    cfg.alpn_protocols = vec![TDS8_ALPN.to_vec()];
    // no session resumption: nothing would use the tickets
    cfg.send_tls13_tickets = 0;
    Ok(Arc::new(cfg))
}

fn build(
    cert: &Path,
    key: &Path,
    versions: &[&'static rustls::SupportedProtocolVersion],
) -> Result<ServerConfig, String> {
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .map_err(|e| format!("cannot read certificate {}: {e}", cert.display()))?
        .collect::<Result<_, _>>()
        .map_err(|e| format!("cannot parse certificate {}: {e}", cert.display()))?;
    if certs.is_empty() {
        return Err(format!("no certificate in {}", cert.display()));
    }
    let key = PrivateKeyDer::from_pem_file(key)
        .map_err(|e| format!("cannot read private key {}: {e}", key.display()))?;
    ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_protocol_versions(versions)
        .map_err(|e| format!("TLS configuration: {e}"))?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(|e| format!("TLS certificate: {e}"))
}

/// The generated self-signed certificate of `data_dir` (created when missing): paths of the
/// certificate and key.
pub fn ensure_self_signed(data_dir: &Path) -> Result<(PathBuf, PathBuf), String> {
    let cert = data_dir.join(GENERATED_CERT);
    let key = data_dir.join(GENERATED_KEY);
    if cert.exists() && key.exists() {
        return Ok((cert, key));
    }
    let host = std::env::var("HOSTNAME").unwrap_or_else(|_| "localhost".into());
    let names = vec!["localhost".to_string(), "127.0.0.1".to_string(), host];
    let ck = rcgen::generate_simple_self_signed(names)
        .map_err(|e| format!("cannot generate a certificate: {e}"))?;
    std::fs::write(&cert, ck.cert.pem())
        .map_err(|e| format!("cannot write {}: {e}", cert.display()))?;
    write_private(&key, ck.key_pair.serialize_pem().as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", key.display()))?;
    Ok((cert, key))
}

fn write_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    f.write_all(bytes)
}

/// TDS 8.0: runs the TLS handshake straight on the socket (the client's first bytes are a TLS
/// ClientHello, not a TDS packet). A client that does not offer ALPN `tds/8.0` is still served:
/// rustls refuses only a client offering other protocols only.
pub(crate) fn handshake_strict(
    sock: &TcpStream,
    cfg: &Arc<ServerConfig>,
) -> io::Result<rustls::ServerConnection> {
    let mut sock = sock;
    let mut conn = rustls::ServerConnection::new(cfg.clone()).map_err(io::Error::other)?;
    while conn.is_handshaking() {
        conn.complete_io(&mut sock)?;
    }
    while conn.wants_write() {
        conn.write_tls(&mut sock)?;
    }
    Ok(conn)
}

/// Runs the TLS handshake with records wrapped in PRELOGIN packets.
pub(crate) fn handshake(
    sock: &TcpStream,
    cfg: &Arc<ServerConfig>,
) -> io::Result<rustls::ServerConnection> {
    let mut sock = sock;
    let mut conn = rustls::ServerConnection::new(cfg.clone()).map_err(io::Error::other)?;
    let mut out = Vec::new();
    while conn.is_handshaking() {
        if conn.wants_write() {
            send_wrapped(&mut conn, sock, &mut out)?;
            continue;
        }
        let (h, payload) = packet::read_packet(&mut sock, packet::MAX_PACKET_SIZE)?
            .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof))?;
        if h.ptype != ptype::PRELOGIN {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("packet type {:#04x} during the TLS handshake", h.ptype),
            ));
        }
        let mut rd = &payload[..];
        while !rd.is_empty() {
            conn.read_tls(&mut rd)?;
            conn.process_new_packets()
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
        }
    }
    // TLS 1.2: the server's last flight (ChangeCipherSpec, Finished) is still handshake.
    if conn.wants_write() {
        send_wrapped(&mut conn, sock, &mut out)?;
    }
    Ok(conn)
}

fn send_wrapped(
    conn: &mut rustls::ServerConnection,
    mut sock: &TcpStream,
    out: &mut Vec<u8>,
) -> io::Result<()> {
    use std::io::Write;
    out.clear();
    while conn.wants_write() {
        conn.write_tls(out)?;
    }
    let msg = packet::encode_message(ptype::PRELOGIN, 0, out, packet::DEFAULT_PACKET_SIZE);
    sock.write_all(&msg)?;
    sock.flush()
}
