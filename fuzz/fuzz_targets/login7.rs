//! Server-side TDS decoder fuzz target: any bytes as a login7 message payload decode to a value or
//! an error, never a panic; a decoded value re-encodes and decodes to itself.
//! Run: `cargo +nightly fuzz run login7 fuzz/corpus/login7` from the repository root.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "shared.rs"]
mod shared;

fuzz_target!(|data: &[u8]| {
    shared::login7(data);
});
