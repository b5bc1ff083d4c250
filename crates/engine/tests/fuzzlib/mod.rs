//! Shared helpers of the engine fuzzers (fuzz_sql.rs, fuzz_txn.rs, fuzz_damage.rs): a seeded
//! RNG, the environment knobs, an in-process session that turns panics into failures, result
//! rendering for comparisons, and scratch directories. See fuzz/README.md.

#![allow(dead_code)]

pub mod sqlgen;
pub mod txnmodel;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use engine::{CollectSink, Engine, EngineConfig, Event, Session};

/// splitmix64: tiny, seedable, reproducible across platforms.
#[derive(Clone)]
pub struct Rng(pub u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }
    /// True with probability `pct` percent.
    pub fn chance(&mut self, pct: u64) -> bool {
        self.below(100) < pct
    }
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

/// A numeric environment knob (`LATCHKEY_FUZZ_*`), with a default for the CI-sized run.
pub fn knob(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

/// The run's seed: `LATCHKEY_FUZZ_SEED`, else the fixed CI seed (runs are reproducible by
/// default; long runs pass a fresh seed).
pub fn seed(default: u64) -> u64 {
    knob("LATCHKEY_FUZZ_SEED", default)
}

/// A fresh scratch directory under the system temp dir, removed on drop.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(tag: &str) -> Scratch {
        static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let d =
            std::env::temp_dir().join(format!("latchkey-fuzz-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("create scratch dir");
        Scratch(d)
    }
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if std::env::var("LATCHKEY_FUZZ_KEEP").is_err() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// Small buffer pool so that even small tables spread over several pages and evictions happen.
pub fn small_config() -> EngineConfig {
    let mut c = EngineConfig::default();
    c.storage.buffer_pool_bytes = 256 * 8192;
    c
}

pub fn open_engine(dir: &Path) -> Result<Arc<Engine>, common::SqlError> {
    Engine::open(dir, small_config())
}

/// What one batch produced, normalised for comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// Result sets: each row rendered with `{:?}` of its values.
    pub sets: Vec<Vec<String>>,
    pub row_counts: Vec<u64>,
    /// (number, message) of each error.
    pub errors: Vec<(i32, String)>,
}

impl Outcome {
    pub fn error_numbers(&self) -> Vec<i32> {
        self.errors.iter().map(|e| e.0).collect()
    }
    pub fn ok(&self) -> bool {
        self.errors.is_empty()
    }
}

pub fn render_row(row: &[types::Value]) -> String {
    let mut s = String::new();
    for (i, v) in row.iter().enumerate() {
        if i > 0 {
            s.push_str(" | ");
        }
        s.push_str(&format!("{v:?}"));
    }
    s
}

pub fn outcome(sink: &CollectSink) -> Outcome {
    let mut o = Outcome {
        sets: Vec::new(),
        row_counts: Vec::new(),
        errors: Vec::new(),
    };
    for e in &sink.events {
        match e {
            Event::ResultSet { rows, .. } => {
                o.sets.push(rows.iter().map(|r| render_row(r)).collect())
            }
            Event::RowCount(n) => o.row_counts.push(*n),
            Event::Error(e) => o.errors.push((e.number, e.message.clone())),
            Event::Message(_) => {}
        }
    }
    o
}

/// Runs one batch; a panic becomes `Err(panic message)`.
pub fn exec(s: &mut Session, sql: &str) -> Result<Outcome, String> {
    let mut sink = CollectSink::default();
    match catch_unwind(AssertUnwindSafe(|| s.execute_batch(sql, &mut sink))) {
        Ok(()) => Ok(outcome(&sink)),
        Err(p) => Err(panic_text(&p)),
    }
}

pub fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".into()
    }
}

/// Silences the default panic hook's backtrace spam for expected-and-caught panics while
/// keeping the message (the fuzzers report it with the statement).
pub fn quiet_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            eprintln!("[fuzz] panic: {info}");
        }));
    });
}

/// Errors that mean "the engine is broken", never an acceptable answer to a generated
/// statement: internal errors, page corruption, I/O failures.
pub fn is_internal_error(n: i32) -> bool {
    matches!(n, 8630 | 824 | 823 | 605 | 5180 | 9004 | 3314 | 3313)
}
