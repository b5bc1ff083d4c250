//! Cheap in-crate fuzzing: random mutations of the seed statements and random byte strings
//! must never panic, and whatever parses must round-trip through the printer.
//! `PARSER_FUZZ_ITERS=n` raises the iteration count (default keeps the test to ~1 s).

use std::path::PathBuf;

mod common;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

fn corpus() -> Vec<String> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/seed_statements");
    let mut v = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .collect();
    files.sort();
    for p in files {
        let text = std::fs::read_to_string(p).unwrap();
        for b in parser::split_batches(&text) {
            v.push(b.text);
        }
    }
    for s in common::SCENARIO_STATEMENTS
        .iter()
        .chain(common::OTHER_STATEMENTS)
    {
        v.push(s.to_string());
    }
    v
}

const SNIPPETS: &[&str] = &[
    "(", ")", ",", ";", "'", "N'", "[", "]", "\"", "/*", "*/", "--", "\n", " SELECT ", " FROM ",
    " WHERE ", " END ", " BEGIN ", " CASE ", " WHEN ", " NOT ", " IN ", " OVER ", " WITH ",
    " OPTION ", " JOIN ", " ON ", " AS ", "@x", "@@", "$", "0x", "1e", ".", "..", "*", "=", "<>",
    "!", " GO\n", " UNION ", " EXEC ", " CREATE ", " TABLE ", " INDEX ", " CURSOR ", " FOR ",
];

fn mutate(rng: &mut Rng, s: &str) -> String {
    let mut b: Vec<char> = s.chars().collect();
    for _ in 0..1 + rng.below(4) {
        let len = b.len();
        match rng.below(5) {
            0 if len > 0 => {
                let i = rng.below(len);
                let n = 1 + rng.below(20.min(len - i));
                b.drain(i..i + n);
            }
            1 => {
                let i = rng.below(len + 1);
                let snip = SNIPPETS[rng.below(SNIPPETS.len())];
                for (k, c) in snip.chars().enumerate() {
                    b.insert(i + k, c);
                }
            }
            2 if len > 1 => {
                let i = rng.below(len);
                let n = 1 + rng.below(30.min(len - i));
                let chunk: Vec<char> = b[i..i + n].to_vec();
                let j = rng.below(len + 1);
                for (k, c) in chunk.into_iter().enumerate() {
                    b.insert(j + k, c);
                }
            }
            3 if len > 0 => {
                let i = rng.below(len);
                b[i] = char::from_u32(rng.below(0x300) as u32).unwrap_or('x');
            }
            _ => {
                let keep = rng.below(len + 1);
                b.truncate(keep);
            }
        }
    }
    b.into_iter().collect()
}

#[test]
fn mutated_seeds_never_panic_and_round_trip() {
    let iters: usize = std::env::var("PARSER_FUZZ_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000);
    let corpus = corpus();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C38);
    let mut parsed = 0;
    for _ in 0..iters {
        let base = &corpus[rng.below(corpus.len())];
        let m = mutate(&mut rng, base);
        match parser::roundtrip::check(&m) {
            Ok(true) => parsed += 1,
            Ok(false) => {}
            Err(e) => panic!("round-trip failure on input:\n{m}\n{e}"),
        }
        let _ = parser::split_batches(&m);
        let _ = parser::parse_expression(&m);
    }
    // mutations are small, so a good share still parses (the oracle is exercised)
    assert!(
        parsed * 20 > iters,
        "only {parsed} of {iters} mutants parsed"
    );
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = Rng(42);
    for _ in 0..2000 {
        let n = rng.below(200);
        let bytes: Vec<u8> = (0..n).map(|_| rng.below(128) as u8).collect();
        let s = String::from_utf8_lossy(&bytes);
        let _ = parser::parse_batch(&s);
        let _ = parser::parse_expression(&s);
        let _ = parser::parse_data_type(&s);
        let _ = parser::split_batches(&s);
    }
}
