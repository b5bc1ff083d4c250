//! Batch-mode Hash Match joins, COUNT(DISTINCT) and STRING_AGG (exec README "Batch mode"):
//! every query gives row mode's rows, messages and errors — NULL keys, duplicate keys, an
//! empty build or probe side, all-equal keys, strings differing in case and trailing blanks,
//! residual predicates, semi / anti semi joins, full outer joins — and the plan shows the join in batch mode.

use std::sync::Arc;

use engine::{CollectSink, Engine, EngineConfig, Event, Session};

fn session(tag: &str) -> (Session, std::path::PathBuf) {
    let d = std::env::temp_dir().join(format!("latchkey-bjoin-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    let e: Arc<Engine> = Engine::open(&d, EngineConfig::default()).expect("open engine");
    (Session::new(e), d)
}

fn run(s: &mut Session, sql: &str) -> CollectSink {
    let mut sink = CollectSink::default();
    s.execute_batch(sql, &mut sink);
    sink
}

fn ok(s: &mut Session, sql: &str) -> CollectSink {
    let out = run(s, sql);
    assert!(out.errors().is_empty(), "{sql}: {:?}", out.errors());
    out
}

/// Result sets (rows in their order: every query here orders or returns one row), then
/// message and error numbers in order.
fn outcome(s: &mut Session, sql: &str) -> Vec<String> {
    let out = run(s, sql);
    let mut v = Vec::new();
    for e in &out.events {
        match e {
            Event::ResultSet { rows, .. } => {
                v.push(format!("rows {rows:?}"));
            }
            Event::Message(m) => v.push(format!("msg {}", m.number)),
            Event::Error(e) => v.push(format!("error {} {}", e.number, e.message)),
            Event::RowCount(n) => v.push(format!("count {n}")),
        }
    }
    v
}

fn plan_text(s: &mut Session, sql: &str) -> String {
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

/// Deterministic pseudo-random numbers (xorshift).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// `l` and `r`: random rows with NULL keys, duplicates, strings differing in case and
/// trailing blanks; `e` empty; `same` all one key.
fn setup(s: &mut Session, rows: usize, seed: u64) {
    ok(
        s,
        "CREATE TABLE l (k int NULL, b bigint NULL, s varchar(10) NULL, v int NULL, d decimal(9,2) NULL);
         CREATE TABLE r (k int NULL, s varchar(10) NULL, w int NULL, t varchar(max) NULL);
         CREATE TABLE e (k int NULL, s varchar(10) NULL, w int NULL, t varchar(max) NULL);
         CREATE TABLE same (k int NULL, w int NULL);",
    );
    let words = ["abc", "ABC", "abc  ", "Abc ", "xyz", "q", ""];
    let mut g = Rng(seed);
    let mut sql = String::from("SET NOCOUNT ON;\n");
    let null_or = |g: &mut Rng, v: String| if g.below(7) == 0 { "NULL".into() } else { v };
    for _ in 0..rows {
        let k = (g.below(300) as i64 - 20).to_string();
        let k = null_or(&mut g, k);
        let b = (g.below(300) as i64 - 20).to_string();
        let b = null_or(&mut g, b);
        let w = words[g.below(words.len() as u64) as usize];
        let sv = format!("'{w}'");
        let sv = null_or(&mut g, sv);
        let v = (g.below(100) as i64 - 50).to_string();
        let v = null_or(&mut g, v);
        let d = format!("{}.{:02}", g.below(1000), g.below(100));
        let d = null_or(&mut g, d);
        sql.push_str(&format!(
            "INSERT INTO l VALUES ({k}, {b}, {sv}, {v}, {d});\n"
        ));
    }
    for _ in 0..rows {
        let k = (g.below(200) as i64).to_string();
        let k = null_or(&mut g, k);
        let w = words[g.below(words.len() as u64) as usize];
        let sv = format!("'{w}'");
        let sv = null_or(&mut g, sv);
        let wv = (g.below(100) as i64 - 50).to_string();
        let wv = null_or(&mut g, wv);
        let t = format!("'t{}'", g.below(50));
        let t = null_or(&mut g, t);
        sql.push_str(&format!("INSERT INTO r VALUES ({k}, {sv}, {wv}, {t});\n"));
    }
    for i in 0..300 {
        sql.push_str(&format!("INSERT INTO same VALUES (7, {i});\n"));
    }
    ok(s, &sql);
}

/// Joins (with their aggregates) whose batch results must equal row mode's.
const QUERIES: &[&str] = &[
    // inner, left outer: NULL keys never match, duplicates multiply
    "SELECT COUNT(*), COUNT(r.w), SUM(l.v), SUM(r.w), MIN(r.s), MAX(l.d) FROM l JOIN r ON l.k = r.k",
    "SELECT COUNT(*), COUNT(r.w), SUM(l.v), SUM(r.w), COUNT(r.k) FROM l LEFT JOIN r ON l.k = r.k",
    "SELECT l.k, COUNT(*), SUM(r.w) FROM l LEFT JOIN r ON l.k = r.k GROUP BY l.k ORDER BY l.k",
    // a bigint key against an int key
    "SELECT COUNT(*), SUM(r.w) FROM l JOIN r ON l.b = r.k",
    // string keys under the default (case-insensitive, trailing blanks ignored) collation
    "SELECT l.s, COUNT(*), COUNT(r.s) FROM l LEFT JOIN r ON l.s = r.s GROUP BY l.s ORDER BY l.s",
    "SELECT COUNT(*) FROM l JOIN r ON l.s = r.s AND l.k = r.k",
    // residual predicates
    "SELECT COUNT(*), SUM(l.v) FROM l JOIN r ON l.k = r.k AND l.v > r.w",
    "SELECT COUNT(*), COUNT(r.w), SUM(l.v) FROM l LEFT JOIN r ON l.k = r.k AND l.v > r.w",
    // semi / anti semi joins, with and without a residual
    "SELECT COUNT(*), SUM(v) FROM l WHERE EXISTS (SELECT 1 FROM r WHERE r.k = l.k)",
    "SELECT COUNT(*), SUM(v) FROM l WHERE NOT EXISTS (SELECT 1 FROM r WHERE r.k = l.k)",
    "SELECT COUNT(*), SUM(v) FROM l WHERE EXISTS (SELECT 1 FROM r WHERE r.k = l.k AND r.w < l.v)",
    "SELECT COUNT(*), SUM(v) FROM l WHERE NOT EXISTS (SELECT 1 FROM r WHERE r.k = l.k AND r.w < l.v)",
    // empty build, empty probe
    "SELECT COUNT(*), COUNT(e.w), SUM(l.v) FROM l LEFT JOIN e ON l.k = e.k",
    "SELECT COUNT(*), SUM(l.v) FROM l JOIN e ON l.k = e.k",
    "SELECT COUNT(*), SUM(e.w) FROM e LEFT JOIN r ON e.k = r.k",
    "SELECT COUNT(*) FROM l WHERE NOT EXISTS (SELECT 1 FROM e WHERE e.k = l.k)",
    // full outer: the never-matched build rows come out after the probe side, NULL-extended
    "SELECT COUNT(*), COUNT(l.k), COUNT(r.k), SUM(l.v), SUM(r.w) FROM l FULL JOIN r ON l.k = r.k",
    "SELECT COUNT(*), COUNT(l.v), COUNT(r.w), SUM(l.v), SUM(r.w) FROM l FULL JOIN r ON l.k = r.k AND l.v > r.w",
    "SELECT r.k, COUNT(*), COUNT(l.v), SUM(l.v) FROM l FULL JOIN r ON l.s = r.s GROUP BY r.k ORDER BY r.k",
    "SELECT COUNT(*), COUNT(e.w), SUM(l.v) FROM l FULL JOIN e ON l.k = e.k",
    "SELECT COUNT(*), COUNT(e.w), SUM(r.w) FROM e FULL JOIN r ON e.k = r.k",
    // all-equal keys: every probe row matches every build row
    "SELECT COUNT(*), SUM(CAST(a.w AS bigint) * b.w) FROM same a JOIN same b ON a.k = b.k",
    // an expression above the join, a join of a join
    "SELECT SUM(l.v * r.w), COUNT(*) FROM l JOIN r ON l.k = r.k WHERE r.w + l.v > 0",
    "SELECT COUNT(*), SUM(r2.w) FROM l JOIN r ON l.k = r.k JOIN r r2 ON r2.k = l.k + 1",
    // COUNT(DISTINCT) (case-insensitive strings) and STRING_AGG over joins and scans
    "SELECT COUNT(DISTINCT l.k), COUNT(DISTINCT r.s), COUNT(DISTINCT l.s) FROM l LEFT JOIN r ON l.k = r.k",
    "SELECT l.k, COUNT(DISTINCT r.w), SUM(DISTINCT r.w) FROM l JOIN r ON l.k = r.k GROUP BY l.k ORDER BY l.k",
    "SELECT r.k, STRING_AGG(r.t, ',') WITHIN GROUP (ORDER BY r.t DESC, r.w) FROM r GROUP BY r.k ORDER BY r.k",
    "SELECT l.k, STRING_AGG(CAST(r.w AS varchar(10)), '-') WITHIN GROUP (ORDER BY r.w) FROM l JOIN r ON l.k = r.k GROUP BY l.k ORDER BY l.k",
    "SELECT LEN(STRING_AGG(r.t, ', ')) FROM r",
    // errors raised inside a batch
    "SELECT COUNT(*) FROM l JOIN r ON l.k = r.k AND l.v / (r.w - r.w) > 0",
    "SELECT STRING_AGG(CAST(s AS varchar(8000)), REPLICATE(',', 10)) FROM l",
];

fn check_same(s: &mut Session, q: &str) {
    let row = outcome(
        s,
        &format!("{q} OPTION (MAXDOP 1, HASH JOIN, USE HINT ('DISALLOW_BATCH_MODE'))"),
    );
    let batch = outcome(
        s,
        &format!("{q} OPTION (MAXDOP 1, HASH JOIN, USE HINT ('ALLOW_BATCH_MODE'))"),
    );
    assert_eq!(row, batch, "{q}");
}

#[test]
fn batch_join_results_match_row_mode() {
    let (mut s, d) = session("diff");
    setup(&mut s, 600, 0x5eed_1234);
    for q in QUERIES {
        check_same(&mut s, q);
    }
    // at least the join shapes run in batch mode
    let mut batch_joins = 0;
    for q in QUERIES {
        let plan = plan_text(
            &mut s,
            &format!("{q} OPTION (MAXDOP 1, HASH JOIN, USE HINT ('ALLOW_BATCH_MODE'))"),
        );
        if plan.lines().any(|l| {
            l.contains("Hash Match(") && !l.contains("Aggregate") && l.contains("Batch mode")
        }) {
            batch_joins += 1;
        }
    }
    assert!(batch_joins >= 18, "batch joins: {batch_joins}");
    drop(s);
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn every_join_kind_runs_in_batch_mode() {
    let (mut s, d) = session("kinds");
    setup(&mut s, 50, 7);
    for (q, kind) in [
        ("SELECT COUNT(*) FROM l JOIN r ON l.k = r.k", "Inner Join"),
        // SQL Server's positional name: the build input (r) is listed first, the preserved
        // probe input (l) second
        (
            "SELECT COUNT(*) FROM l LEFT JOIN r ON l.k = r.k",
            "Right Outer Join",
        ),
        (
            "SELECT COUNT(*) FROM l WHERE EXISTS (SELECT 1 FROM r WHERE r.k = l.k)",
            "Semi Join",
        ),
        (
            "SELECT COUNT(*) FROM l WHERE NOT EXISTS (SELECT 1 FROM r WHERE r.k = l.k)",
            "Anti Semi Join",
        ),
        (
            "SELECT COUNT(DISTINCT l.k) FROM l LEFT JOIN r ON l.k = r.k",
            "Right Outer Join",
        ),
        (
            "SELECT COUNT(*), COUNT(r.w) FROM l FULL JOIN r ON l.k = r.k",
            "Full Outer Join",
        ),
        // the aggregates themselves: STRING_AGG over varchar(max), COUNT(DISTINCT)
        (
            "SELECT r.k, STRING_AGG(r.t, ',') WITHIN GROUP (ORDER BY r.w) FROM r GROUP BY r.k",
            "STRING_AGG",
        ),
        (
            "SELECT COUNT(DISTINCT w), COUNT(DISTINCT s) FROM r",
            "COUNT(DISTINCT",
        ),
    ] {
        let plan = plan_text(
            &mut s,
            &format!("{q} OPTION (MAXDOP 1, HASH JOIN, USE HINT ('ALLOW_BATCH_MODE'))"),
        );
        let line = plan
            .lines()
            .find(|l| {
                l.contains("|--")
                    && l.contains(kind)
                    && (l.contains("Hash Match(") || !kind.contains("Join"))
            })
            .unwrap_or_else(|| panic!("{q}: no {kind} operator:\n{plan}"));
        assert!(line.contains("Batch mode"), "{q}:\n{plan}");
        let plan = plan_text(
            &mut s,
            &format!("{q} OPTION (MAXDOP 1, HASH JOIN, USE HINT ('DISALLOW_BATCH_MODE'))"),
        );
        assert!(!plan.contains("Batch mode"), "{q}:\n{plan}");
    }
    drop(s);
    let _ = std::fs::remove_dir_all(d);
}

/// A build side over the operator memory budget: the pipeline runs in row mode (whose Hash
/// Match spills), with the same result.
#[test]
fn build_over_budget_falls_back_to_row_mode() {
    let d = std::env::temp_dir().join(format!("latchkey-bjoin-budget-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    let cfg = EngineConfig {
        operator_memory_bytes: Some(64 * 1024),
        ..EngineConfig::default()
    };
    let e: Arc<Engine> = Engine::open(&d, cfg).expect("open engine");
    let mut s = Session::new(e);
    ok(
        &mut s,
        "CREATE TABLE a (k int NOT NULL, w int NOT NULL);
         INSERT INTO a SELECT value % 5000, value FROM GENERATE_SERIES(1, 20000);",
    );
    let q = "SELECT COUNT(*), SUM(CAST(x.w AS bigint)) FROM a x JOIN a y ON x.k = y.k";
    let row = outcome(
        &mut s,
        &format!("{q} OPTION (MAXDOP 1, HASH JOIN, USE HINT ('DISALLOW_BATCH_MODE'))"),
    );
    let batch = outcome(
        &mut s,
        &format!("{q} OPTION (MAXDOP 1, HASH JOIN, USE HINT ('ALLOW_BATCH_MODE'))"),
    );
    assert_eq!(row, batch);
    assert!(row[0].contains("80000"), "{row:?}");
    drop(s);
    let _ = std::fs::remove_dir_all(d);
}
