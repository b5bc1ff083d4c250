//! What several engine test files share: a data directory removed when the test ends, and a
//! batch runner that expects no error and returns the last result set's rows.
// each test file is its own crate and uses only part of this module
#![allow(dead_code)]

use engine::{CollectSink, Session};
use types::Value;

/// Runs `sql` as one batch; no error allowed; the rows of its last result set.
pub fn run(s: &mut Session, sql: &str) -> Vec<Vec<Value>> {
    let mut sink = CollectSink::default();
    s.execute_batch(sql, &mut sink);
    assert!(sink.errors().is_empty(), "{sql}: {:?}", sink.errors());
    sink.result_sets()
        .last()
        .map(|r| (*r).clone())
        .unwrap_or_default()
}

/// A fresh data directory, removed when dropped.
pub struct TempDir(std::path::PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        let d = std::env::temp_dir().join(format!("latchkey-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        TempDir(d)
    }
    pub fn path(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
