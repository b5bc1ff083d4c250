//! Parser fuzz target: any UTF-8 input must parse or fail with a SqlError (never panic), and
//! whatever parses must round-trip: parse -> print -> parse gives the same tree.
//! Run: `cargo +nightly fuzz run parse fuzz/corpus/parse` from the repository root.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(e) = parser::roundtrip::check(text) {
        panic!("round-trip oracle failed: {e}");
    }
    for b in parser::split_batches(text) {
        let _ = parser::parse_batch(&b.text);
    }
    let _ = parser::parse_expression(text);
    let _ = parser::parse_data_type(text);
});
