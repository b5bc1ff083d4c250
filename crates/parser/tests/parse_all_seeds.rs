//! Every T-SQL statement of the seed documents parses, and round-trips through the printer.
//!
//! The statements were extracted from /work/shared/seeds/*.txt into tests/seed_statements/*.sql
//! (batches separated by GO, each headed by the seed line it came from; pieces the seed text
//! lost to HTML stripping are restored and marked "repaired"). When the seeds are present
//! (`../../../shared/seeds` from this crate), the test also checks that every copied line still
//! occurs verbatim in its seed.

use std::path::PathBuf;

fn statements_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/seed_statements")
}

fn seed_files() -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = std::fs::read_dir(statements_dir())
        .expect("seed_statements dir")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "sql"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn every_seed_statement_parses() {
    let mut total = 0;
    let mut failures = Vec::new();
    for (name, text) in seed_files() {
        for b in parser::split_batches(&text) {
            match parser::parse_batch(&b.text) {
                Ok(s) => total += s.len(),
                Err(e) => failures.push(format!("{name} batch at line {}: {e}", b.first_line)),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // 5 seed files, 167 top-level statements; guard against an extraction that lost everything
    assert!(total >= 160, "only {total} statements parsed");
}

#[test]
fn seed_statements_round_trip() {
    let mut checked = 0;
    for (name, text) in seed_files() {
        for b in parser::split_batches(&text) {
            match parser::roundtrip::check(&b.text) {
                Ok(true) => checked += 1,
                Ok(false) => panic!("{name}: batch at line {} does not parse", b.first_line),
                Err(e) => panic!("{name}: batch at line {}: {e}", b.first_line),
            }
        }
    }
    assert!(checked >= 60, "only {checked} batches checked");
}

#[test]
fn copied_lines_occur_in_the_seeds() {
    let seeds = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/seeds");
    let Ok(dir) = std::fs::read_dir(&seeds) else {
        eprintln!(
            "seeds not found at {}; skipping the provenance check",
            seeds.display()
        );
        return;
    };
    let mut seed_text = std::collections::HashMap::new();
    for e in dir.filter_map(|e| e.ok()) {
        let n = e.file_name().to_string_lossy().to_string();
        if n.ends_with(".txt") {
            seed_text.insert(
                n[..3].to_string(),
                std::fs::read_to_string(e.path()).unwrap(),
            );
        }
    }
    for (name, text) in seed_files() {
        if name == "seed_003.sql" {
            continue; // reconstructed by hand, see its header
        }
        let key = &name[5..8];
        let seed = &seed_text[key];
        let mut after_repair = false;
        for line in text.lines() {
            if line.starts_with("-- repaired") {
                after_repair = true;
                continue;
            }
            if after_repair {
                after_repair = false;
                continue;
            }
            if line.starts_with("-- seed ") || line == "GO" || line.trim().is_empty() {
                continue;
            }
            assert!(
                seed.contains(line),
                "{name}: line not in seed {key}: {line:?}"
            );
        }
    }
}
