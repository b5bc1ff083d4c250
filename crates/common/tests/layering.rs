//! Enforces DESIGN.md's dependency picture: each crate may depend only on the workspace crates
//! listed for it here. Reads every `crates/*/Cargo.toml` `[dependencies]` section.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// DESIGN.md, "Workspace layout": allowed direct workspace dependencies per crate.
fn allowed() -> BTreeMap<&'static str, &'static [&'static str]> {
    let mut m: BTreeMap<&'static str, &'static [&'static str]> = BTreeMap::new();
    m.insert("common", &[]);
    m.insert("types", &["common"]);
    m.insert("parser", &["common"]);
    m.insert("storage", &["common", "types"]);
    // fileio (external files: Parquet for OPENROWSET and external tables) sits beside storage:
    // a leaf over common/types. The binder reads a file's schema through it (as it reads the
    // catalog), the engine its rows. DESIGN.md's picture lives in ../shared, which this
    // repository cannot change: this line is the record until the picture gains the box.
    m.insert("fileio", &["common", "types"]);
    m.insert("catalog", &["common", "types"]);
    m.insert("plan", &["common", "types", "parser", "catalog", "fileio"]);
    m.insert("optimizer", &["common", "types", "plan", "catalog"]);
    m.insert("exec", &["common", "types", "plan", "storage"]);
    m.insert("tds", &["common", "types"]);
    m.insert(
        "engine",
        &[
            "common",
            "types",
            "parser",
            "storage",
            "catalog",
            "plan",
            "optimizer",
            "exec",
            "fileio",
        ],
    );
    m.insert("server", &["common", "types", "engine", "tds"]);
    // cli -> tds: `latchkey -S` and `latchkey stress` are TDS clients (tds::client); the
    // server crate is the other side of the wire and has no reason to re-export the client.
    m.insert("cli", &["common", "types", "engine", "server", "tds"]);
    m
}

fn workspace_deps(manifest: &str, workspace_crates: &BTreeSet<String>) -> BTreeSet<String> {
    let mut deps = BTreeSet::new();
    let mut in_deps = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            // dev-dependencies are test scaffolding and may reach further down; build and normal
            // dependencies are what the picture constrains.
            in_deps = line == "[dependencies]" || line == "[build-dependencies]";
            continue;
        }
        if !in_deps {
            continue;
        }
        if let Some(name) = line.split(['=', '.', ' ']).next() {
            if workspace_crates.contains(name) {
                deps.insert(name.to_string());
            }
        }
    }
    deps
}

#[test]
fn crates_depend_only_downwards() {
    let crates_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut manifests = BTreeMap::new();
    for entry in std::fs::read_dir(&crates_dir).expect("crates dir") {
        let path = entry.expect("entry").path().join("Cargo.toml");
        if let Ok(text) = std::fs::read_to_string(&path) {
            let name = path
                .parent()
                .unwrap()
                .file_name()
                .unwrap()
                .to_string_lossy()
                .to_string();
            manifests.insert(name, text);
        }
    }
    let names: BTreeSet<String> = manifests.keys().cloned().collect();
    let allowed = allowed();
    let mut violations = Vec::new();
    for (name, text) in &manifests {
        let Some(ok) = allowed.get(name.as_str()) else {
            violations.push(format!("crate `{name}` is not in DESIGN.md's picture"));
            continue;
        };
        for dep in workspace_deps(text, &names) {
            if !ok.contains(&dep.as_str()) {
                violations.push(format!("`{name}` must not depend on `{dep}`"));
            }
        }
    }
    assert!(
        violations.is_empty(),
        "layering violations:\n{}",
        violations.join("\n")
    );
}
