//! Right Semi / Right Anti Semi Hash Match joins (plan README "Join kinds and Hash Match
//! sides"): a semi / anti semi join whose preserved input is much smaller than its subquery
//! input builds on the preserved input. Every query gives the rows of the left semi / anti
//! semi join (`QUERYRULEOFF JoinCommute` keeps that one) in row and batch mode, serially and
//! under MAXDOP 2, and under a memory budget that makes the join spill — on data with
//! duplicate and NULL keys on both sides, residual predicates, string keys and empty inputs.

use std::sync::Arc;

use engine::{CollectSink, Engine, EngineConfig, Event, Session};

fn open(dir: &std::path::Path, budget: Option<usize>) -> Session {
    let cfg = EngineConfig {
        operator_memory_bytes: budget,
        ..EngineConfig::default()
    };
    let e: Arc<Engine> = Engine::open(dir, cfg).expect("open engine");
    Session::new(e)
}

fn dir(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("latchkey-rsemi-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn run(s: &mut Session, sql: &str) -> CollectSink {
    let mut sink = CollectSink::default();
    s.execute_batch(sql, &mut sink);
    sink
}

fn ok(s: &mut Session, sql: &str) {
    let out = run(s, sql);
    assert!(out.errors().is_empty(), "{sql}: {:?}", out.errors());
}

/// Result rows (in order: every query orders or aggregates), messages and errors.
fn outcome(s: &mut Session, sql: &str) -> Vec<String> {
    let out = run(s, sql);
    let mut v = Vec::new();
    for e in &out.events {
        match e {
            Event::ResultSet { rows, .. } => v.push(format!("rows {rows:?}")),
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
    assert!(out.errors().is_empty(), "{sql}: {:?}", out.errors());
    out.result_sets()
        .iter()
        .flat_map(|rs| rs.iter())
        .flat_map(|r| r.iter())
        .map(|v| format!("{v:?}\n"))
        .collect()
}

/// `o`: 150 preserved rows, keys 0..148 even, each twice, every 11th NULL; `big`: 6000
/// subquery rows, keys 0..129 (so the keys 130..148 of `o` never match), every 13th NULL;
/// `eo`: empty.
const SETUP: &str = "SET NOCOUNT ON;
    CREATE TABLE o (id int NOT NULL, k int NULL, s varchar(10) NULL, v int NULL);
    CREATE TABLE big (k int NULL, s varchar(10) NULL, w int NULL);
    CREATE TABLE eo (id int NOT NULL, k int NULL, v int NULL);
    INSERT INTO o SELECT value, CASE WHEN value % 11 = 0 THEN NULL ELSE value % 75 * 2 END,
        CASE value % 3 WHEN 0 THEN 'abc' WHEN 1 THEN 'ABC ' ELSE 'x' END, value % 50 - 25
        FROM GENERATE_SERIES(1, 150);
    INSERT INTO big SELECT CASE WHEN value % 13 = 0 THEN NULL ELSE value * 7 % 130 END,
        CASE value % 4 WHEN 0 THEN 'Abc' WHEN 1 THEN 'x ' WHEN 2 THEN NULL ELSE 'y' END,
        value % 60 - 30
        FROM GENERATE_SERIES(1, 6000);";

/// (query, the join the default plan shows).
const QUERIES: &[(&str, &str)] = &[
    (
        "SELECT id, k FROM o WHERE EXISTS (SELECT 1 FROM big WHERE big.k = o.k) ORDER BY id",
        "Left Semi Join",
    ),
    (
        "SELECT id, k FROM o WHERE NOT EXISTS (SELECT 1 FROM big WHERE big.k = o.k) ORDER BY id",
        "Left Anti Semi Join",
    ),
    (
        "SELECT id FROM o WHERE EXISTS (SELECT 1 FROM big WHERE big.k = o.k AND big.w > o.v + 20) ORDER BY id",
        "Left Semi Join",
    ),
    (
        "SELECT id FROM o WHERE NOT EXISTS (SELECT 1 FROM big WHERE big.k = o.k AND big.w > o.v + 25) ORDER BY id",
        "Left Anti Semi Join",
    ),
    (
        "SELECT id FROM o WHERE EXISTS (SELECT 1 FROM big WHERE big.s = o.s AND big.k = o.k) ORDER BY id",
        "Left Semi Join",
    ),
    (
        "SELECT COUNT(*), SUM(v), MIN(id), MAX(id) FROM o WHERE EXISTS (SELECT 1 FROM big WHERE big.k = o.k)",
        "Left Semi Join",
    ),
    (
        "SELECT COUNT(*), SUM(v), MIN(id), MAX(id) FROM o WHERE NOT EXISTS (SELECT 1 FROM big WHERE big.k = o.k AND big.w < o.v)",
        "Left Anti Semi Join",
    ),
    (
        "SELECT COUNT(*), SUM(v) FROM eo WHERE EXISTS (SELECT 1 FROM big WHERE big.k = eo.k)",
        "Left Semi Join",
    ),
    (
        "SELECT COUNT(*), SUM(v) FROM eo WHERE NOT EXISTS (SELECT 1 FROM big WHERE big.k = eo.k)",
        "Left Anti Semi Join",
    ),
    (
        "SELECT COUNT(*), SUM(v) FROM o WHERE NOT EXISTS (SELECT 1 FROM big WHERE big.k = o.k AND big.w > 1000)",
        "",
    ),
    (
        "SELECT id FROM o WHERE k IN (SELECT k FROM big WHERE w > 25) ORDER BY id",
        "",
    ),
];

const MODES: &[&str] = &[
    "MAXDOP 1, USE HINT ('DISALLOW_BATCH_MODE')",
    "MAXDOP 1, USE HINT ('ALLOW_BATCH_MODE')",
    "MAXDOP 2, USE HINT ('DISALLOW_BATCH_MODE')",
    "MAXDOP 2, USE HINT ('ALLOW_BATCH_MODE')",
];

fn check_all(s: &mut Session) -> Vec<Vec<String>> {
    let mut results = Vec::new();
    for (q, _) in QUERIES {
        let left = outcome(
            s,
            &format!(
                "{q} OPTION (QUERYRULEOFF JoinCommute, MAXDOP 1, USE HINT ('DISALLOW_BATCH_MODE'))"
            ),
        );
        assert!(
            !left.iter().any(|l| l.starts_with("error")),
            "{q}: {left:?}"
        );
        for mode in MODES {
            let got = outcome(s, &format!("{q} OPTION ({mode})"));
            assert_eq!(got, left, "{q} OPTION ({mode})");
        }
        results.push(left);
    }
    results
}

#[test]
fn right_semi_joins_give_the_left_semi_joins_rows() {
    let d = dir("rows");
    let mut s = open(&d, None);
    ok(&mut s, SETUP);
    for (q, join) in QUERIES {
        if join.is_empty() {
            continue;
        }
        let plan = plan_text(&mut s, &format!("{q} OPTION (MAXDOP 1)"));
        assert!(
            plan.contains(&format!("Hash Match({join}")),
            "{q}: no {join}:\n{plan}"
        );
        let off = plan_text(
            &mut s,
            &format!("{q} OPTION (QUERYRULEOFF JoinCommute, MAXDOP 1)"),
        );
        assert!(!off.contains("Hash Match(Left"), "{q}:\n{off}");
        // OPTION (HASH JOIN) fixes the algorithm, not the sides
        let hinted = plan_text(&mut s, &format!("{q} OPTION (HASH JOIN, MAXDOP 1)"));
        assert!(
            hinted.contains(&format!("Hash Match({join}")),
            "{q}:\n{hinted}"
        );
        // FORCE ORDER keeps the written sides, as for JoinCommute's inner joins
        let forced = plan_text(&mut s, &format!("{q} OPTION (FORCE ORDER, MAXDOP 1)"));
        assert!(!forced.contains("Hash Match(Left"), "{q}:\n{forced}");
    }
    // batch mode runs the right kinds too
    let q = QUERIES[5].0;
    let plan = plan_text(
        &mut s,
        &format!("{q} OPTION (MAXDOP 1, USE HINT ('ALLOW_BATCH_MODE'))"),
    );
    let line = plan
        .lines()
        .find(|l| l.contains("Hash Match(Left Semi Join"))
        .unwrap_or_else(|| panic!("{plan}"));
    assert!(line.contains("Batch mode"), "{plan}");
    let results = check_all(&mut s);
    // the data has both outcomes: some rows of `o` match, some do not
    assert!(
        results[0][0].len() > 20 && results[1][0].len() > 20,
        "{results:?}"
    );
    drop(s);
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn a_large_preserved_input_keeps_the_left_semi_join() {
    let d = dir("sizes");
    let mut s = open(&d, None);
    ok(&mut s, SETUP);
    for q in [
        "SELECT COUNT(*) FROM big WHERE EXISTS (SELECT 1 FROM o WHERE o.k = big.k)",
        "SELECT COUNT(*) FROM big WHERE NOT EXISTS (SELECT 1 FROM o WHERE o.k = big.k)",
    ] {
        let plan = plan_text(&mut s, &format!("{q} OPTION (MAXDOP 1)"));
        assert!(plan.contains("Hash Match(Right"), "{q}:\n{plan}");
        assert!(!plan.contains("Hash Match(Left"), "{q}:\n{plan}");
    }
    drop(s);
    let _ = std::fs::remove_dir_all(d);
}

/// Under a budget far below the build side, the right semi / anti semi joins spill (grace
/// partitions; NULL-keyed build rows stay for the anti semi join) and give the same rows.
#[test]
fn right_semi_joins_spill_with_the_same_rows() {
    let d = dir("spill");
    let mut s = open(&d, None);
    ok(&mut s, "CREATE DATABASE rs");
    ok(&mut s, "USE rs");
    ok(&mut s, SETUP);
    // a preserved side big enough to spill: 3000 rows against 24000
    ok(
        &mut s,
        "SET NOCOUNT ON;
         INSERT INTO o SELECT value + 1000, CASE WHEN value % 17 = 0 THEN NULL ELSE value % 1500 * 2 END,
            'x', value % 40 FROM GENERATE_SERIES(1, 2850);
         INSERT INTO big SELECT big.k + 130 * g.value, big.s, big.w + g.value FROM big
            CROSS JOIN GENERATE_SERIES(1, 3) g;",
    );
    let expected = check_all(&mut s);
    let plan = plan_text(&mut s, &format!("{} OPTION (MAXDOP 1)", QUERIES[1].0));
    assert!(plan.contains("Left Anti Semi Join"), "{plan}");
    drop(s);
    let work = d.join("tempdb").join("workfiles");
    // one join alone (no sort to spill instead): the right anti semi join's build spills
    for i in [5, 6] {
        let mut s = open(&d, Some(16 << 10));
        ok(&mut s, "USE rs");
        assert!(!work.exists(), "tempdb is recreated at start");
        let q = QUERIES[i].0;
        let got = outcome(
            &mut s,
            &format!("{q} OPTION (MAXDOP 1, USE HINT ('DISALLOW_BATCH_MODE'))"),
        );
        assert_eq!(got, expected[i], "{q}");
        assert!(work.exists(), "did not spill: {q}");
        assert_eq!(std::fs::read_dir(&work).expect("dir").count(), 0);
    }
    let mut s = open(&d, Some(16 << 10));
    ok(&mut s, "USE rs");
    let got = check_all(&mut s);
    assert_eq!(got, expected);
    drop(s);
    let _ = std::fs::remove_dir_all(d);
}
