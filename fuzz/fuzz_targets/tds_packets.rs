//! The server's packet framing on any byte stream (`shared::packet_stream`): packets,
//! reassembly under the server's caps, and each whole message decoded as the server's request
//! loop would (PRELOGIN, LOGIN7, SQLBatch, RPC, transaction manager). Never a panic.
//! Run: `cargo +nightly fuzz run tds_packets fuzz/corpus/tds_packets` from the repository root.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "shared.rs"]
mod shared;

fuzz_target!(|data: &[u8]| {
    shared::packet_stream(data);
});
