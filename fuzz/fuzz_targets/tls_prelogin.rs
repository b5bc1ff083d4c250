//! TLS inside PRELOGIN packets, server side ([MS-TDS] 2.2.6.5): the loop of
//! `server::tls::handshake` (crates/server/src/tls.rs) over any byte stream — packets read with
//! `read_packet`, anything but PRELOGIN refused, each payload fed to a rustls
//! `ServerConnection` (the server's configuration: TLS 1.2 and 1.3, no session tickets) and its
//! answers wrapped in PRELOGIN packets. Never a panic: an error ends the handshake, as it
//! closes the server's connection. (The server crate itself is not linked: it pulls in the
//! whole engine; this is its handshake loop over `tds` and rustls, kept in step by hand.)
//! Run: `cargo +nightly fuzz run tls_prelogin fuzz/corpus/tls_prelogin` from the repository root.
#![no_main]

use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tds::packet::{self, ptype};

fn config() -> Arc<rustls::ServerConfig> {
    static CONFIG: OnceLock<Arc<rustls::ServerConfig>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let cert = CertificateDer::from_pem_slice(include_bytes!("../tls/cert.pem"))
                .expect("test certificate");
            let key =
                PrivateKeyDer::from_pem_slice(include_bytes!("../tls/key.pem")).expect("test key");
            let provider = Arc::new(rustls::crypto::ring::default_provider());
            let mut c = rustls::ServerConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .expect("protocol versions")
                .with_no_client_auth()
                .with_single_cert(vec![cert], key)
                .expect("server config");
            c.send_tls13_tickets = 0;
            Arc::new(c)
        })
        .clone()
}

fuzz_target!(|data: &[u8]| {
    let Ok(mut conn) = rustls::ServerConnection::new(config()) else {
        return;
    };
    let mut r = data;
    let mut out = Vec::new();
    'handshake: while conn.is_handshaking() {
        if conn.wants_write() {
            out.clear();
            while conn.wants_write() {
                if conn.write_tls(&mut out).is_err() {
                    break 'handshake;
                }
            }
            let _ = packet::encode_message(ptype::PRELOGIN, 0, &out, packet::DEFAULT_PACKET_SIZE);
            continue;
        }
        let Ok(Some((h, payload))) = packet::read_packet(&mut r, packet::MAX_PACKET_SIZE) else {
            break;
        };
        if h.ptype != ptype::PRELOGIN {
            break;
        }
        let mut rd = &payload[..];
        while !rd.is_empty() {
            if conn.read_tls(&mut rd).is_err() || conn.process_new_packets().is_err() {
                break 'handshake;
            }
        }
    }
});
