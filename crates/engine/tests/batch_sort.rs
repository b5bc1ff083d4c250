//! Batch pipelines under row operators (exec README "Batch mode", batch→row adapter) and the
//! batch Sort / Top N Sort: a sort over a batch join or a filtered scan, and a batch source
//! under the statement, return row mode's rows in row mode's order — NULLs first, ties in
//! input order, strings differing in case and trailing blanks, descending keys, ORDER BY
//! expressions, TOP (WITH TIES), OFFSET, DISTINCT — and raise errors where row mode does;
//! under a tiny memory budget the sort gives way to row mode with the same rows.

mod common;

use std::sync::Arc;

use common::{fresh_session, ok, plan_text, run};
use engine::{Engine, EngineConfig, Event, Session};

/// Result sets with their rows in order, then messages, errors and row counts in order.
fn outcome(s: &mut Session, sql: &str) -> Vec<String> {
    let out = run(s, sql);
    let mut v = Vec::new();
    for e in &out.events {
        match e {
            Event::ResultSet { rows, .. } => v.push(format!("rows {} {rows:?}", rows.len())),
            Event::Message(m) => v.push(format!("msg {}", m.number)),
            Event::Error(e) => v.push(format!("error {} {}", e.number, e.message)),
            Event::RowCount(n) => v.push(format!("count {n}")),
        }
    }
    v
}

fn hinted(q: &str, hint: &str) -> String {
    format!("{q} OPTION (MAXDOP 1, HASH JOIN, USE HINT ('{hint}'))")
}

/// `t`: NULL keys, many ties, strings differing in case and trailing blanks; `u`: a join
/// partner with duplicate and NULL keys.
const SETUP: &str = "
    CREATE TABLE t (id int NOT NULL, k int NULL, s varchar(10) NULL, d decimal(9,2) NULL, f float NULL, dt date NULL);
    CREATE TABLE u (k int NULL, name varchar(10) NULL, w int NULL);
    INSERT INTO t SELECT value,
        CASE WHEN value % 9 = 0 THEN NULL ELSE (value * 7) % 23 END,
        CASE value % 6 WHEN 0 THEN 'abc' WHEN 1 THEN 'ABC' WHEN 2 THEN 'abc  ' WHEN 3 THEN 'Abd ' WHEN 4 THEN 'xyz' ELSE NULL END,
        CASE WHEN value % 5 = 0 THEN NULL ELSE ((value * 37) % 1000) / 10.0 - 20 END,
        CASE WHEN value % 4 = 0 THEN NULL ELSE ((value * 13) % 17) * 0.5 - 3 END,
        CASE WHEN value % 8 = 0 THEN NULL ELSE DATEADD(day, (value * 11) % 40, '2020-01-01') END
      FROM GENERATE_SERIES(1, 3000);
    INSERT INTO u SELECT CASE WHEN value % 10 = 0 THEN NULL ELSE value % 19 END,
        CASE value % 4 WHEN 0 THEN 'Ann' WHEN 1 THEN 'ann ' WHEN 2 THEN 'bob' ELSE NULL END, value
      FROM GENERATE_SERIES(1, 60);";

const QUERIES: &[&str] = &[
    // filtered scans under a sort
    "SELECT id, k, s FROM t WHERE id % 3 <> 0 ORDER BY k",
    "SELECT id, k, s FROM t WHERE k > 2 ORDER BY s, id DESC",
    "SELECT id, s, d FROM t WHERE id % 2 = 0 ORDER BY s DESC, d",
    "SELECT id, f, dt FROM t WHERE k IS NOT NULL ORDER BY f DESC, dt",
    "SELECT id, k FROM t WHERE k < 20 ORDER BY k * 2 - id % 7, id",
    "SELECT id, s, k + 1 AS k1 FROM t WHERE id > 10 ORDER BY UPPER(s), k1 DESC",
    // Top N Sort, TOP WITH TIES, OFFSET
    "SELECT TOP 7 id, s, k FROM t WHERE k > 3 ORDER BY s, k",
    "SELECT TOP 25 id, d FROM t WHERE id % 5 <> 1 ORDER BY d DESC",
    "SELECT TOP 5 WITH TIES id, k FROM t WHERE k IS NOT NULL ORDER BY k DESC",
    "SELECT TOP 0 id FROM t WHERE k > 1 ORDER BY id",
    "SELECT id, k FROM t WHERE k > 0 ORDER BY k, id OFFSET 5 ROWS FETCH NEXT 10 ROWS ONLY",
    "SELECT DISTINCT TOP 6 s, k FROM t WHERE k < 5 ORDER BY k, s",
    // a batch join under a sort
    "SELECT t.id, u.name, t.k FROM t JOIN u ON t.k = u.k WHERE t.id < 2000 ORDER BY u.name, t.id DESC",
    "SELECT TOP 20 t.id, u.name, t.d FROM t JOIN u ON t.s = u.name ORDER BY t.d DESC, t.id",
    "SELECT t.id, u.w FROM t LEFT JOIN u ON t.k = u.k WHERE t.id < 500 ORDER BY u.w, t.id",
    // a batch source under the statement and under a grouped stream aggregate / concatenation
    "SELECT id, k, s FROM t WHERE k < 4",
    "SELECT t.id, u.name FROM t JOIN u ON t.k = u.k WHERE t.id % 7 = 0",
    "SELECT id FROM t WHERE k = 1 UNION ALL SELECT id FROM t WHERE k = 2",
];

fn setup(s: &mut Session) {
    ok(s, SETUP);
}

#[test]
fn batch_sort_returns_row_modes_rows_in_row_modes_order() {
    let (mut s, d) = fresh_session("bsort", "rows", EngineConfig::default());
    setup(&mut s);
    for q in QUERIES {
        let row = outcome(&mut s, &hinted(q, "DISALLOW_BATCH_MODE"));
        let batch = outcome(&mut s, &hinted(q, "ALLOW_BATCH_MODE"));
        assert!(row[0].starts_with("rows "), "{q}: {row:?}");
        assert_eq!(row, batch, "{q}");
    }
    drop(s);
    let _ = std::fs::remove_dir_all(d);
}

/// The plans: Sort / Top N Sort over a filtered scan or a join in batch mode; the pipeline
/// under the statement in batch mode; not under a TOP without a sort (a batch scan's S table
/// lock would make the TOP wait for writers whose rows it never reaches in row mode).
#[test]
fn plans_show_batch_sort_and_adapted_sources() {
    let (mut s, d) = fresh_session("bsort", "plans", EngineConfig::default());
    setup(&mut s);
    let line = |plan: &str, op: &str| -> String {
        plan.lines()
            .find(|l| l.contains(op))
            .unwrap_or_else(|| panic!("no {op}:\n{plan}"))
            .to_string()
    };
    let p = plan_text(&mut s, &hinted(QUERIES[1], "ALLOW_BATCH_MODE"));
    assert!(line(&p, "|--Sort").contains("Batch mode"), "{p}");
    assert!(line(&p, "Table Scan").contains("Batch mode"), "{p}");
    assert_eq!(p.matches("Batch mode").count(), 2, "once per line: {p}");
    let p = plan_text(&mut s, &hinted(QUERIES[6], "ALLOW_BATCH_MODE"));
    assert!(line(&p, "Sort(TOP").contains("Batch mode"), "{p}");
    let p = plan_text(&mut s, &hinted(QUERIES[12], "ALLOW_BATCH_MODE"));
    assert!(line(&p, "|--Sort").contains("Batch mode"), "{p}");
    assert!(line(&p, "Hash Match").contains("Batch mode"), "{p}");
    let p = plan_text(&mut s, &hinted(QUERIES[15], "ALLOW_BATCH_MODE"));
    assert!(line(&p, "Table Scan").contains("Batch mode"), "{p}");
    let p = plan_text(&mut s, &hinted(QUERIES[1], "DISALLOW_BATCH_MODE"));
    assert!(!p.contains("Batch mode"), "{p}");
    let p = plan_text(
        &mut s,
        &hinted("SELECT TOP 3 id, k FROM t WHERE k > 1", "ALLOW_BATCH_MODE"),
    );
    assert!(!line(&p, "Top(").contains("Batch mode"), "{p}");
    assert!(!line(&p, "Table Scan").contains("Batch mode"), "{p}");
    drop(s);
    let _ = std::fs::remove_dir_all(d);
}

/// Errors: a divide by zero in the sorted rows' projection fails in both modes; a TOP
/// without a sort stops before the failing row in row mode, and so in batch mode, whose
/// adapter evaluated the failing row's batch already.
#[test]
fn errors_are_raised_for_row_modes_rows() {
    let (mut s, d) = fresh_session("bsort", "errors", EngineConfig::default());
    setup(&mut s);
    for q in [
        "SELECT id, 10 / (id - 40) FROM t WHERE k > 0 ORDER BY k",
        "SELECT TOP 3 id, 10 / (id - 40) FROM t WHERE k > 0 ORDER BY k DESC",
        "SELECT id, 10 / (id - 40) FROM t WHERE k > 0",
        "SELECT TOP 3 id, 10 / (id - 40) FROM t WHERE k > 0",
    ] {
        let row = outcome(&mut s, &hinted(q, "DISALLOW_BATCH_MODE"));
        let batch = outcome(&mut s, &hinted(q, "ALLOW_BATCH_MODE"));
        assert_eq!(row, batch, "{q}");
    }
    let top = outcome(
        &mut s,
        &hinted(
            "SELECT TOP 3 id, 10 / (id - 40) FROM t WHERE k > 0",
            "ALLOW_BATCH_MODE",
        ),
    );
    assert!(top.iter().all(|l| !l.starts_with("error")), "{top:?}");
    let sorted = outcome(
        &mut s,
        &hinted(
            "SELECT id, 10 / (id - 40) FROM t WHERE k > 0 ORDER BY k",
            "ALLOW_BATCH_MODE",
        ),
    );
    assert!(
        sorted.iter().any(|l| l.starts_with("error 8134")),
        "{sorted:?}"
    );
    drop(s);
    let _ = std::fs::remove_dir_all(d);
}

/// A sort over the operator memory budget gives way to row mode's (spilling) Sort: same rows.
#[test]
fn sort_over_budget_falls_back_to_row_mode() {
    let d = std::env::temp_dir().join(format!("latchkey-bsort-budget-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    let cfg = EngineConfig {
        operator_memory_bytes: Some(64 * 1024),
        ..EngineConfig::default()
    };
    let e: Arc<Engine> = Engine::open(&d, cfg).expect("open engine");
    let mut s = Session::new(e);
    setup(&mut s);
    for q in [QUERIES[1], QUERIES[2], QUERIES[12], QUERIES[7]] {
        let row = outcome(&mut s, &hinted(q, "DISALLOW_BATCH_MODE"));
        let batch = outcome(&mut s, &hinted(q, "ALLOW_BATCH_MODE"));
        assert_eq!(row, batch, "{q}");
    }
    drop(s);
    let _ = std::fs::remove_dir_all(d);
}

/// The actual plan: the Sort and the scan ran in batch mode; the scan's actual rows are the
/// rows it passed on, counted once.
#[test]
fn actual_plan_counts_the_batch_sort() {
    let (mut s, d) = fresh_session("bsort", "actual", EngineConfig::default());
    setup(&mut s);
    ok(&mut s, "SET STATISTICS XML ON");
    let out = ok(
        &mut s,
        &hinted(
            "SELECT id, k FROM t WHERE k = 3 ORDER BY id DESC",
            "ALLOW_BATCH_MODE",
        ),
    );
    ok(&mut s, "SET STATISTICS XML OFF");
    let xml: String = out
        .result_sets()
        .iter()
        .flat_map(|rs| rs.iter())
        .flat_map(|r| r.iter())
        .map(|v| format!("{v:?}"))
        .find(|v| v.contains("ShowPlanXML"))
        .expect("an actual plan")
        .replace("\\\"", "\"");
    let rows: usize = out.result_sets()[0].len();
    let relop = |name: &str| -> String {
        let at = xml
            .find(&format!("PhysicalOp=\"{name}\""))
            .unwrap_or_else(|| panic!("no {name} in {xml}"));
        let end = xml[at..].find("</RunTimeInformation>").unwrap_or(0);
        xml[at..at + end].to_string()
    };
    for op in ["Sort", "Table Scan"] {
        let r = relop(op);
        assert!(r.contains("ActualExecutionMode=\"Batch\""), "{r}");
        assert!(r.contains(&format!("ActualRows=\"{rows}\"")), "{rows} {r}");
        assert!(r.contains("ActualExecutions=\"1\""), "{r}");
    }
    drop(s);
    let _ = std::fs::remove_dir_all(d);
}

/// Batch sources where the parent may stop early or read them again: under a TOP without a
/// sort, as nested loops' inner side (read again per outer row) and under a merge join —
/// row mode's rows, and row mode's error or none.
#[test]
fn sources_read_in_part_or_again_give_row_modes_rows() {
    let (mut s, d) = fresh_session("bsort", "partial", EngineConfig::default());
    setup(&mut s);
    let with = |q: &str, join: &str, hint: &str| {
        format!("{q} OPTION (MAXDOP 1, {join}, USE HINT ('{hint}'))")
    };
    for (q, join) in [
        ("SELECT TOP 12 id, k, s FROM t WHERE k > 3", "HASH JOIN"),
        ("SELECT TOP 2900 id, k * 2, s FROM t WHERE id % 2 = 0", "HASH JOIN"),
        (
            "SELECT TOP 15 t.id, u.name FROM t JOIN u ON t.k = u.k WHERE t.id % 3 = 0",
            "HASH JOIN",
        ),
        (
            "SELECT u.w, x.n FROM u CROSS APPLY (SELECT COUNT(*) AS n FROM t WHERE t.k > 5) x WHERE u.w < 4",
            "LOOP JOIN",
        ),
        (
            "SELECT u.w, t.id FROM u JOIN t ON t.id < u.w * 3 WHERE t.k > 4",
            "LOOP JOIN",
        ),
        (
            "SELECT u.w, t.id FROM u JOIN t ON t.k = u.k WHERE t.id % 4 = 1",
            "MERGE JOIN",
        ),
        ("SELECT TOP 3 id, 10 / (id - 40) FROM t WHERE k > 0", "HASH JOIN"),
        ("SELECT TOP 200 id, 10 / (id - 40) FROM t WHERE k > 0", "HASH JOIN"),
    ] {
        let row = outcome(&mut s, &with(q, join, "DISALLOW_BATCH_MODE"));
        let batch = outcome(&mut s, &with(q, join, "ALLOW_BATCH_MODE"));
        assert_eq!(row, batch, "{q}");
    }
    // the inner side of nested loops is a batch source read again per outer row
    let p = plan_text(
        &mut s,
        &with(
            "SELECT u.w, t.id FROM u JOIN t ON t.id < u.w * 3 WHERE t.k > 4",
            "LOOP JOIN",
            "ALLOW_BATCH_MODE",
        ),
    );
    assert!(p.contains("Nested Loops"), "{p}");
    assert!(
        p.lines()
            .filter(|l| l.contains("Table Scan"))
            .any(|l| l.contains("Batch mode")),
        "{p}"
    );
    drop(s);
    let _ = std::fs::remove_dir_all(d);
}
