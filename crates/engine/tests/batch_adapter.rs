//! Batch-mode joins over inputs that are not batch sources (exec README "Batch mode",
//! row→batch adapter): a join whose build or probe input is an aggregate, a Concatenation, a
//! TOP sort or a row-mode join runs in batch mode with that input in row mode under the
//! adapter, and gives row mode's rows, messages and errors — NULL keys, duplicates, empty
//! inputs, errors raised inside the adapted input. Uncorrelated subqueries get batch mode of
//! their own (TPC-H Q15's MAX over its view).

mod common;

use common::{fresh_session, ok, parallel_at_any_cost, plan_text, run};
use engine::{EngineConfig, Event, Session};

fn session(tag: &str) -> (Session, std::path::PathBuf) {
    fresh_session("badapt", tag, EngineConfig::default())
}

/// Result sets (rows in their order: every query here orders or returns one row), then
/// message and error numbers in order.
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

/// `l` and `r`: rows with NULL keys, duplicate keys and strings differing in case and
/// trailing blanks; `e` empty; `same` one key.
fn setup(s: &mut Session, rows: usize) {
    ok(
        s,
        "CREATE TABLE l (k int NULL, s varchar(10) NULL, v int NULL, d decimal(9,2) NULL);
         CREATE TABLE r (k int NULL, s varchar(10) NULL, w int NULL, t varchar(max) NULL);
         CREATE TABLE e (k int NULL, s varchar(10) NULL, w int NULL, t varchar(max) NULL);
         CREATE TABLE same (k int NULL, w int NULL);",
    );
    let words = ["abc", "ABC", "abc  ", "Abc ", "xyz", "q", ""];
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut below = |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    let mut sql = String::from("SET NOCOUNT ON;\n");
    for i in 0..rows {
        let k = if i % 9 == 0 {
            "NULL".to_string()
        } else {
            (below(120) as i64 - 10).to_string()
        };
        let w = words[below(words.len() as u64) as usize];
        let v = if i % 11 == 0 {
            "NULL".to_string()
        } else {
            (below(100) as i64 - 50).to_string()
        };
        let d = format!("{}.{:02}", below(1000), below(100));
        sql.push_str(&format!("INSERT INTO l VALUES ({k}, '{w}', {v}, {d});\n"));
    }
    for i in 0..rows {
        let k = if i % 7 == 0 {
            "NULL".to_string()
        } else {
            below(100).to_string()
        };
        let w = words[below(words.len() as u64) as usize];
        let wv = if i % 13 == 0 {
            "NULL".to_string()
        } else {
            (below(100) as i64 - 50).to_string()
        };
        let t = format!("'t{}'", below(40));
        sql.push_str(&format!("INSERT INTO r VALUES ({k}, '{w}', {wv}, {t});\n"));
    }
    for i in 0..100 {
        sql.push_str(&format!("INSERT INTO same VALUES (7, {i});\n"));
    }
    ok(s, &sql);
}

/// Joins over adapted inputs whose batch results must equal row mode's.
const QUERIES: &[&str] = &[
    // the build input is an aggregate (NULL group keys never match)
    "SELECT COUNT(*), SUM(l.v), SUM(g.n) FROM l JOIN (SELECT k, COUNT(*) AS n FROM r GROUP BY k) g ON l.k = g.k",
    "SELECT l.k, COUNT(*), SUM(g.n) FROM l LEFT JOIN (SELECT k, COUNT(*) AS n FROM r GROUP BY k) g ON l.k = g.k GROUP BY l.k ORDER BY l.k",
    // string keys out of an aggregate (case-insensitive, trailing blanks ignored)
    "SELECT l.s, COUNT(*), SUM(g.n) FROM l JOIN (SELECT s, COUNT(*) AS n FROM r GROUP BY s) g ON l.s = g.s GROUP BY l.s ORDER BY l.s",
    // a varchar(max) value out of an aggregate
    "SELECT COUNT(*), MAX(g.t), MIN(g.t) FROM l JOIN (SELECT k, MAX(t) AS t FROM r GROUP BY k) g ON l.k = g.k",
    // semi / anti semi joins against a filtered aggregate (TPC-H Q18's IN (... HAVING ...))
    "SELECT COUNT(*), SUM(v) FROM l WHERE k IN (SELECT k FROM r GROUP BY k HAVING SUM(w) > 10)",
    "SELECT COUNT(*), SUM(v) FROM l WHERE NOT EXISTS (SELECT 1 FROM (SELECT k FROM r GROUP BY k HAVING COUNT(*) > 1) g WHERE g.k = l.k)",
    // both inputs aggregates, and an aggregate joined to a join
    "SELECT COUNT(*), SUM(a.n * b.n) FROM (SELECT k, COUNT(*) AS n FROM l GROUP BY k) a JOIN (SELECT k, COUNT(*) AS n FROM r GROUP BY k) b ON a.k = b.k",
    "SELECT COUNT(*), SUM(g.n), SUM(r.w) FROM l JOIN r ON l.k = r.k JOIN (SELECT k, COUNT(*) AS n FROM r GROUP BY k) g ON g.k = r.k",
    // Concatenation and a TOP sort as inputs
    "SELECT COUNT(*), SUM(l.v) FROM l JOIN (SELECT k FROM r UNION ALL SELECT k FROM e UNION ALL SELECT k FROM same) u ON l.k = u.k",
    "SELECT COUNT(*), SUM(l.v), SUM(t.w) FROM l JOIN (SELECT TOP (30) k, w FROM r ORDER BY w DESC, k, s, t) t ON l.k = t.k",
    // an empty adapted input
    "SELECT COUNT(*), COUNT(g.n), SUM(l.v) FROM l LEFT JOIN (SELECT k, COUNT(*) AS n FROM e GROUP BY k) g ON l.k = g.k",
    "SELECT COUNT(*), SUM(g.n) FROM (SELECT k, COUNT(*) AS n FROM e GROUP BY k) g JOIN l ON l.k = g.k",
    // all-equal keys out of a UNION ALL
    "SELECT COUNT(*), SUM(CAST(a.w AS bigint) * u.w) FROM same a JOIN (SELECT k, w FROM same UNION ALL SELECT k, w FROM same) u ON a.k = u.k",
    // an error raised inside the adapted input, and one in the batch join above it
    "SELECT COUNT(*) FROM l JOIN (SELECT k, SUM(w) / (COUNT(*) - COUNT(*)) AS z FROM r GROUP BY k) g ON l.k = g.k",
    "SELECT COUNT(*) FROM l JOIN (SELECT k, COUNT(*) AS n FROM r GROUP BY k) g ON l.k = g.k AND l.v / (g.n - g.n) > 0",
    // uncorrelated subqueries: a plan of their own (TPC-H Q15's shape)
    "SELECT g.k, g.s FROM (SELECT k, SUM(w) AS s FROM r GROUP BY k) g WHERE g.s = (SELECT MAX(x.s) FROM (SELECT SUM(w) AS s FROM r GROUP BY k) x) ORDER BY g.k",
    "SELECT COUNT(*), SUM(v) FROM l WHERE v > (SELECT AVG(w) FROM r)",
    // DATEPART reads the session's @@DATEFIRST (TPC-H Q7's year; weekday depends on it)
    "SET DATEFIRST 3; SELECT DATEPART(weekday, DATEADD(day, l.v, CAST('2020-01-01' AS date))) AS wd, COUNT(*), SUM(g.n) FROM l JOIN (SELECT k, COUNT(*) AS n FROM r GROUP BY k) g ON l.k = g.k GROUP BY DATEPART(weekday, DATEADD(day, l.v, CAST('2020-01-01' AS date))) ORDER BY wd",
];

fn hinted(q: &str, mode: &str) -> String {
    format!("{q} OPTION (MAXDOP 1, HASH JOIN, USE HINT ('{mode}'))")
}

#[test]
fn adapted_inputs_give_row_mode_results() {
    let (mut s, d) = session("diff");
    setup(&mut s, 500);
    for q in QUERIES {
        let row = outcome(&mut s, &hinted(q, "DISALLOW_BATCH_MODE"));
        let batch = outcome(&mut s, &hinted(q, "ALLOW_BATCH_MODE"));
        assert_eq!(row, batch, "{q}");
    }
    // the error cases raise their error in both modes
    let err = outcome(&mut s, &hinted(QUERIES[13], "ALLOW_BATCH_MODE"));
    assert!(err.iter().any(|l| l.starts_with("error 8134")), "{err:?}");
    drop(s);
    let _ = std::fs::remove_dir_all(d);
}

/// The join runs in batch mode, its non-source input in row mode (an aggregate over a scan
/// is batch mode of its own).
#[test]
fn joins_over_adapted_inputs_run_in_batch_mode() {
    let (mut s, d) = session("plans");
    setup(&mut s, 40);
    for (q, join, row_op) in [
        (QUERIES[0], "Hash Match(Inner Join", None),
        (QUERIES[4], "Semi Join", None),
        (QUERIES[5], "Anti Semi Join", None),
        (QUERIES[8], "Hash Match(Inner Join", Some("Concatenation")),
        // the TOP sort is a batch sort of its own (exec batch/sort.rs), still an adapted
        // input of the join: its rows are gathered into batches again
        (QUERIES[9], "Hash Match(Inner Join", None),
        (QUERIES[17], "Hash Match(Aggregate", None),
    ] {
        let plan = plan_text(&mut s, &hinted(q, "ALLOW_BATCH_MODE"));
        let line = plan
            .lines()
            .find(|l| l.contains(join) && l.contains("Hash Match("))
            .unwrap_or_else(|| panic!("{q}: no {join}:\n{plan}"));
        assert!(line.contains("Batch mode"), "{q}:\n{plan}");
        if let Some(op) = row_op {
            let line = plan
                .lines()
                .find(|l| l.contains(op))
                .unwrap_or_else(|| panic!("{q}: no {op}:\n{plan}"));
            assert!(!line.contains("Batch mode"), "{q}:\n{plan}");
        }
        let plan = plan_text(&mut s, &hinted(q, "DISALLOW_BATCH_MODE"));
        assert!(!plan.contains("Batch mode"), "{q}:\n{plan}");
    }
    drop(s);
    let _ = std::fs::remove_dir_all(d);
}

/// The actual plan: the join's counters are batch mode's, the adapted input's are row
/// mode's (it counts its own rows).
#[test]
fn actual_plan_shows_the_adapted_input_in_row_mode() {
    let (mut s, d) = session("actual");
    setup(&mut s, 60);
    ok(&mut s, "SET STATISTICS XML ON");
    let out = ok(&mut s, &hinted(QUERIES[8], "ALLOW_BATCH_MODE"));
    ok(&mut s, "SET STATISTICS XML OFF");
    let xml: String = out
        .result_sets()
        .iter()
        .flat_map(|rs| rs.iter())
        .flat_map(|r| r.iter())
        .map(|v| format!("{v:?}"))
        .find(|v| v.contains("ShowPlanXML"))
        .expect("an actual plan");
    let relop = |name: &str| -> String {
        let at = xml
            .find(&format!("PhysicalOp=\\\"{name}\\\""))
            .or_else(|| xml.find(&format!("PhysicalOp=\"{name}\"")))
            .unwrap_or_else(|| panic!("no {name} in {xml}"));
        let end = xml[at..].find("</RunTimeInformation>").unwrap_or(0);
        xml[at..at + end].to_string()
    };
    let join = relop("Hash Match");
    assert!(
        join.contains("ActualExecutionMode=\\\"Batch\\\"")
            || join.contains("ActualExecutionMode=\"Batch\""),
        "{join}"
    );
    let concat = relop("Concatenation");
    assert!(
        concat.contains("ActualExecutionMode=\\\"Row\\\"")
            || concat.contains("ActualExecutionMode=\"Row\""),
        "{concat}"
    );
    drop(s);
    let _ = std::fs::remove_dir_all(d);
}

/// At DOP 2 an aggregate over a join whose build input is an aggregate (TPC-H Q18's shape)
/// stays a serial batch-mode plan, as one over a plain join does (parallelize's choice).
#[test]
fn adapted_join_is_batch_mode_at_dop_2() {
    let (mut s, d) = session("dop2");
    setup(&mut s, 40);
    parallel_at_any_cost(&mut s);
    let q = "SELECT COUNT(*), SUM(v) FROM l WHERE k IN (SELECT k FROM r GROUP BY k HAVING SUM(w) > 10) OPTION (MAXDOP 2, HASH JOIN, USE HINT ('ALLOW_BATCH_MODE'))";
    let plan = plan_text(&mut s, q);
    let line = plan
        .lines()
        .find(|l| l.contains("Semi Join"))
        .unwrap_or_else(|| panic!("no semi join:\n{plan}"));
    assert!(line.contains("Batch mode"), "{plan}");
    let row = outcome(
        &mut s,
        &q.replace("ALLOW_BATCH_MODE", "DISALLOW_BATCH_MODE"),
    );
    assert_eq!(row, outcome(&mut s, q));
    drop(s);
    let _ = std::fs::remove_dir_all(d);
}
