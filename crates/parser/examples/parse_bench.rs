//! Parses a ~1 MB script built from the seed statements and reports throughput.
//! `cargo run --release -p parser --example parse_bench`
use std::time::Instant;

fn main() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/seed_statements");
    let mut batches = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("seed_statements")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .collect();
    files.sort();
    for p in files {
        let text = std::fs::read_to_string(p).unwrap_or_default();
        for b in parser::split_batches(&text) {
            // procedures must be alone in their batch; keep plain statements only
            if !b.text.to_ascii_uppercase().contains("PROCEDURE") {
                batches.push(b.text);
            }
        }
    }
    let mut script = String::new();
    while script.len() < 1 << 20 {
        for b in &batches {
            script.push_str(b);
            script.push_str(";\n");
        }
    }
    let t = Instant::now();
    let mut n = 0;
    let rounds = 20;
    for _ in 0..rounds {
        n = parser::parse_batch(&script).map(|v| v.len()).unwrap_or(0);
    }
    let el = t.elapsed() / rounds;
    println!(
        "{} bytes, {} statements: {:.2} ms per parse ({:.0} MB/s)",
        script.len(),
        n,
        el.as_secs_f64() * 1e3,
        script.len() as f64 / el.as_secs_f64() / 1e6
    );
}
