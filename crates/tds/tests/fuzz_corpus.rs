//! Replays the committed cargo-fuzz corpus of the server-side decoders (`fuzz/corpus/<target>/`,
//! seeded from real client traffic and grown by libFuzzer; see `fuzz/README.md`) through the
//! same target code (`fuzz/fuzz_targets/shared.rs`) under `cargo test`, on stable: every input
//! decodes to a value or an error, never a panic, and what decodes round-trips. The fuzzer's
//! findings stay tested in CI without a nightly toolchain.

#[path = "../../../fuzz/fuzz_targets/shared.rs"]
mod shared;

use std::path::PathBuf;

fn corpus(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(target);
    let mut out = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = e.expect("dir entry").path();
        match std::fs::read(&p) {
            Ok(bytes) => out.push((p, bytes)),
            // a fuzzer running on the corpus replaces files as it reduces them
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => panic!("{}: {e}", p.display()),
        }
    }
    assert!(!out.is_empty(), "{} is empty", dir.display());
    out
}

fn replay(target: &str, run: fn(&[u8])) {
    let inputs = corpus(target);
    for (path, bytes) in &inputs {
        if std::panic::catch_unwind(|| run(bytes)).is_err() {
            panic!("{target}: {} panicked", path.display());
        }
    }
    eprintln!("{target}: {} inputs", inputs.len());
}

#[test]
fn corpus_tds_packets() {
    replay("tds_packets", shared::packet_stream);
}

#[test]
fn corpus_prelogin() {
    replay("prelogin", shared::prelogin);
}

#[test]
fn corpus_login7() {
    replay("login7", shared::login7);
}

#[test]
fn corpus_sqlbatch() {
    replay("sqlbatch", shared::sqlbatch);
}

#[test]
fn corpus_rpc() {
    replay("rpc", shared::rpc);
}

#[test]
fn corpus_tm() {
    replay("tm", shared::tm);
}

/// The corpus holds real client traffic, not only what the fuzzer made up: python-tds's RPC
/// with typed parameters and its transaction-manager commit decode.
#[test]
fn corpus_holds_decodable_client_messages() {
    let rpc_ok = corpus("rpc").iter().any(|(_, b)| {
        tds::batch::parse_all_headers(b)
            .ok()
            .and_then(|(_, at)| tds::rpc::parse_rpc_batch(&b[at..]).ok())
            .is_some_and(|r| r.iter().any(|q| !q.params.is_empty()))
    });
    assert!(rpc_ok, "no RPC with parameters in fuzz/corpus/rpc");
    let tm_ok = corpus("tm")
        .iter()
        .any(|(_, b)| tds::batch::TmMessage::parse(b).is_ok());
    assert!(tm_ok, "no transaction-manager request in fuzz/corpus/tm");
    let login_ok = corpus("login7")
        .iter()
        .any(|(_, b)| tds::login7::Login7::parse(b).is_ok_and(|l| l.user_name == "sa"));
    assert!(login_ok, "no LOGIN7 of sa in fuzz/corpus/login7");
}
