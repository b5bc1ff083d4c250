//! Server-side TDS decoder fuzz target: any bytes as a tm message payload decode to a value or
//! an error, never a panic; a decoded value re-encodes and decodes to itself.
//! Run: `cargo +nightly fuzz run tm fuzz/corpus/tm` from the repository root.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "shared.rs"]
mod shared;

fuzz_target!(|data: &[u8]| {
    shared::tm(data);
});
