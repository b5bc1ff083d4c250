//! Gather Streams over zones that return rows (exec README "Parallelism"): the workers send
//! their rows in flat chunks whose buffers come back to them, and a zone marked batch mode
//! runs its pipeline on each worker (the batch→row adapter over the worker's morsels),
//! decoding its vectors straight into the chunk. Results, messages and errors are DOP 1's and
//! row mode's, whatever the chunking (tens of chunks per worker here), and the plans show the
//! batch-mode zone below the exchange.

mod common;

use common::{fresh_session, ok, outcome_as, parallel_at_any_cost, plan_text, NUMBERS};
use engine::{EngineConfig, Session};

fn session(tag: &str) -> (Session, std::path::PathBuf) {
    let (mut s, d) = fresh_session("pgather", tag, EngineConfig::default());
    parallel_at_any_cost(&mut s);
    (s, d)
}

/// What a batch produced, row order ignored.
fn outcome(s: &mut Session, sql: &str) -> Vec<String> {
    outcome_as(s, sql, NUMBERS)
}

/// `p`: 30,000 probe rows (NULL keys and values, strings); `b`: 1,200 build rows (duplicate
/// and NULL keys); `e`: empty.
fn setup(s: &mut Session) {
    ok(
        s,
        "CREATE TABLE p (k int NULL, v int NULL, s varchar(10) NULL, d decimal(10,2) NULL);
         CREATE TABLE b (k int NULL, w int NULL, s varchar(10) NULL);
         CREATE TABLE e (k int NULL, w int NULL, s varchar(10) NULL);",
    );
    ok(
        s,
        "SET NOCOUNT ON;
         INSERT INTO p
         SELECT TOP (30000) CASE WHEN n % 11 = 0 THEN NULL ELSE n % 700 END,
                CASE WHEN n % 13 = 0 THEN NULL ELSE n % 1000 - 300 END,
                CASE n % 5 WHEN 0 THEN 'abc' WHEN 1 THEN 'ABC ' WHEN 2 THEN 'xyz' WHEN 3 THEN NULL ELSE 'q' END,
                (n % 500) / 4.0
         FROM (SELECT ROW_NUMBER() OVER (ORDER BY (SELECT NULL)) AS n
               FROM master..spt_values a CROSS JOIN master..spt_values b) g;
         INSERT INTO b
         SELECT TOP (1200) CASE WHEN n % 17 = 0 THEN NULL ELSE n % 400 END,
                CASE WHEN n % 19 = 0 THEN NULL ELSE n % 90 - 20 END,
                CASE n % 4 WHEN 0 THEN 'Abc' WHEN 1 THEN 'xyz  ' WHEN 2 THEN NULL ELSE 'zz' END
         FROM (SELECT ROW_NUMBER() OVER (ORDER BY (SELECT NULL)) AS n
               FROM master..spt_values a CROSS JOIN master..spt_values b) g;",
    );
}

const BATCH: &str = "USE HINT ('ALLOW_BATCH_MODE')";
const ROW: &str = "USE HINT ('DISALLOW_BATCH_MODE')";

/// Joins whose joined rows are gathered (no aggregate above the zone); `{b}`: the build table.
const SHAPES: &[&str] = &[
    "SELECT p.k, p.v, b.w, b.s FROM p JOIN {b} b ON p.k = b.k",
    "SELECT p.k, p.s, b.w FROM p LEFT JOIN {b} b ON p.k = b.k AND b.w > 5 WHERE p.v < 200",
    "SELECT p.v, p.d FROM p WHERE EXISTS (SELECT 1 FROM {b} b WHERE b.k = p.k) AND p.v > 100",
    "SELECT p.k, p.s FROM p WHERE NOT EXISTS (SELECT 1 FROM {b} b WHERE b.k = p.k)",
    // computed columns (strings, decimals) evaluated by the workers' pipelines
    "SELECT UPPER(p.s) + 'x', p.d * 2, b.w + p.v FROM p JOIN {b} b ON p.s = b.s WHERE p.k < 300",
    // a serial operator above the exchange: sort, top N sort
    "SELECT p.k, b.w FROM p JOIN {b} b ON p.k = b.k WHERE p.v > 0 ORDER BY p.k, b.w, p.v",
    "SELECT TOP (40) p.k, p.v, b.w FROM p JOIN {b} b ON p.k = b.k ORDER BY p.v DESC, p.k, b.w",
];

#[test]
fn gathered_zones_give_the_serial_and_row_mode_results() {
    let (mut s, dir) = session("shapes");
    setup(&mut s);
    for build in ["b", "e"] {
        for q in SHAPES {
            let q = q.replace("{b}", build);
            let truth = outcome(&mut s, &format!("{q} OPTION (MAXDOP 1, HASH JOIN, {ROW})"));
            assert!(truth[0].starts_with("rows "), "{q}: {truth:?}");
            for (dop, mode) in [(2, ROW), (1, BATCH), (2, BATCH)] {
                let got = outcome(
                    &mut s,
                    &format!("{q} OPTION (MAXDOP {dop}, HASH JOIN, {mode})"),
                );
                assert_eq!(truth, got, "{q} at DOP {dop} {mode}");
            }
        }
    }
    drop(s);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn plans_show_a_batch_mode_zone_under_gather_streams() {
    let (mut s, dir) = session("plans");
    setup(&mut s);
    for q in [SHAPES[0], SHAPES[4], SHAPES[5]] {
        let q = q.replace("{b}", "b");
        let plan = plan_text(
            &mut s,
            &format!("{q} OPTION (MAXDOP 2, HASH JOIN, {BATCH})"),
        );
        let mut lines = plan.lines().skip_while(|l| !l.contains("Gather Streams"));
        assert!(lines.next().is_some(), "{q}:\n{plan}");
        let join = lines
            .find(|l| l.contains("Hash Match("))
            .unwrap_or_default();
        assert!(join.contains("Batch mode"), "{q}:\n{plan}");
        let scan = plan
            .lines()
            .find(|l| l.contains("Table Scan(OBJECT:([p]") || l.contains("Table Scan(OBJECT:(p"))
            .or_else(|| plan.lines().find(|l| l.contains("Table Scan")))
            .unwrap_or_default();
        assert!(scan.contains("Batch mode"), "{q}:\n{plan}");
        // row mode keeps the row-mode zone
        let plan = plan_text(&mut s, &format!("{q} OPTION (MAXDOP 2, HASH JOIN, {ROW})"));
        assert!(plan.contains("Gather Streams"), "{q}:\n{plan}");
        assert!(!plan.contains("Batch mode"), "{q}:\n{plan}");
    }
    drop(s);
    let _ = std::fs::remove_dir_all(dir);
}

/// A worker's pipeline error is raised once; 8153 reaches the client once; a TOP over the
/// exchange stops it early with its row count.
#[test]
fn errors_messages_and_top_over_a_batch_mode_gather() {
    let (mut s, dir) = session("errors");
    setup(&mut s);
    for mode in [ROW, BATCH] {
        let q = format!(
            "SELECT p.k, 10 / (p.v - p.v) FROM p JOIN b ON p.k = b.k \
             OPTION (MAXDOP 2, HASH JOIN, {mode})"
        );
        let got = outcome(&mut s, &q);
        assert_eq!(
            got.iter().filter(|m| *m == "error 8134").count(),
            1,
            "{q}: {got:?}"
        );
        let q = format!(
            "SELECT TOP (25) p.k, b.w FROM p JOIN b ON p.k = b.k OPTION (MAXDOP 2, HASH JOIN, {mode})"
        );
        let got = outcome_as(
            &mut s,
            &q,
            common::OutcomeFormat {
                row_count: true,
                error_text: true,
            },
        );
        assert!(got[0].starts_with("rows 25 "), "{q}: {got:?}");
    }
    drop(s);
    let _ = std::fs::remove_dir_all(dir);
}
