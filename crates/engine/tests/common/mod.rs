//! Helpers shared by the engine's single-session test files (a fresh engine in a temp
//! directory, running a batch, asserting it succeeded, reading its text plan, and a batch's
//! outcome as strings two plans of one query must agree on).
#![allow(dead_code)] // each test binary uses its own subset

use std::sync::Arc;

use engine::{CollectSink, Engine, EngineConfig, Session};

/// A session on a new engine in `latchkey-{prefix}-{tag}-{pid}` under the temp directory
/// (removed first); the caller removes it when done.
pub fn fresh_session(
    prefix: &str,
    tag: &str,
    config: EngineConfig,
) -> (Session, std::path::PathBuf) {
    let d = std::env::temp_dir().join(format!("latchkey-{prefix}-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    let e: Arc<Engine> = Engine::open(&d, config).expect("open engine");
    (Session::new(e), d)
}

/// Lets the optimizer parallelize any plan: table row counts may be unknown to it, so only a
/// cost threshold of 0 makes the parallel pass fire.
pub fn parallel_at_any_cost(s: &mut Session) {
    ok(
        s,
        "EXEC sp_configure 'show advanced options', 1; RECONFIGURE;
         EXEC sp_configure 'cost threshold for parallelism', 0; RECONFIGURE;",
    );
}

pub fn run(s: &mut Session, sql: &str) -> CollectSink {
    let mut sink = CollectSink::default();
    s.execute_batch(sql, &mut sink);
    sink
}

pub fn ok(s: &mut Session, sql: &str) -> CollectSink {
    let out = run(s, sql);
    assert!(out.errors().is_empty(), "{sql}: {:?}", out.errors());
    out
}

/// The statement's SHOWPLAN_TEXT, one line per value.
pub fn plan_text(s: &mut Session, sql: &str) -> String {
    ok(s, "SET SHOWPLAN_TEXT ON");
    let out = run(s, sql);
    ok(s, "SET SHOWPLAN_TEXT OFF");
    out.result_sets()
        .iter()
        .flat_map(|rs| rs.iter())
        .flat_map(|r| r.iter())
        .map(|v| format!("{v:?}\n"))
        .collect()
}

/// How [`outcome_as`] writes a batch's events: whether a result set's line carries its row
/// count, and whether an error's carries its text besides its number.
#[derive(Clone, Copy)]
pub struct OutcomeFormat {
    pub row_count: bool,
    pub error_text: bool,
}

/// Numbers only: `rows [..]`, `msg N`, `error N`, `count N`.
pub const NUMBERS: OutcomeFormat = OutcomeFormat {
    row_count: false,
    error_text: false,
};

/// What a batch produced, row order ignored: each result set's rows (sorted), then messages,
/// errors and row counts in order.
pub fn outcome_as(s: &mut Session, sql: &str, f: OutcomeFormat) -> Vec<String> {
    use engine::Event;
    let out = run(s, sql);
    let mut v = Vec::new();
    for e in &out.events {
        match e {
            Event::ResultSet { rows, .. } => {
                let mut r: Vec<String> = rows.iter().map(|r| format!("{r:?}")).collect();
                r.sort();
                v.push(if f.row_count {
                    format!("rows {} {r:?}", r.len())
                } else {
                    format!("rows {r:?}")
                });
            }
            Event::Message(m) => v.push(format!("msg {}", m.number)),
            Event::Error(e) if f.error_text => v.push(format!("error {} {}", e.number, e.message)),
            Event::Error(e) => v.push(format!("error {}", e.number)),
            Event::RowCount(n) => v.push(format!("count {n}")),
        }
    }
    v
}
