//! Batch-mode hash joins inside parallel zones (exec README "Parallelism", "Batch mode"): the
//! coordinator reads and hashes the build side once, every worker probes it with its own
//! batch pipeline over the morsels it claims, and the partial aggregates are merged as for a
//! scan aggregate. Results, messages and errors are those of DOP 1 and of row mode (inner,
//! left outer, semi and anti semi joins, NULL and duplicate keys, string keys differing in
//! case and trailing blanks, residuals, a filtered build side gathered from workers), an
//! error is raised once, a cancel stops the workers, and the choice between serial batch,
//! parallel row and parallel batch plans is made on cost.

mod common;

use std::time::{Duration, Instant};

use common::{fresh_session, ok, outcome_as, parallel_at_any_cost, plan_text, run, NUMBERS};
use engine::{EngineConfig, Session};

fn session(tag: &str) -> (Session, std::path::PathBuf) {
    let (mut s, d) = fresh_session("pbatch", tag, EngineConfig::default());
    parallel_at_any_cost(&mut s);
    (s, d)
}

/// What a batch produced, row order ignored: result sets (rows sorted), then message and
/// error numbers in order.
fn outcome(s: &mut Session, sql: &str) -> Vec<String> {
    outcome_as(s, sql, NUMBERS)
}

/// `p`: 30,000 probe rows (NULL keys, NULL values, strings differing in case and trailing
/// blanks); `b`: 1,200 build rows (duplicate and NULL keys); `e`: an empty build side.
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

/// Aggregates over hash joins whose probe side is a zone: `{b}` is the build table.
const SHAPES: &[&str] = &[
    "SELECT COUNT(*), SUM(p.v), MAX(b.s), MIN(b.w), AVG(p.d) FROM p JOIN {b} b ON p.k = b.k",
    "SELECT p.k % 5, COUNT(*), SUM(b.w), MAX(p.s) FROM p JOIN {b} b ON p.k = b.k GROUP BY p.k % 5",
    "SELECT COUNT(*), COUNT(b.w), SUM(b.w), COUNT(b.k) FROM p LEFT JOIN {b} b ON p.k = b.k",
    "SELECT COUNT(*), SUM(p.v) FROM p WHERE EXISTS (SELECT 1 FROM {b} b WHERE b.k = p.k)",
    "SELECT COUNT(*), SUM(p.v) FROM p WHERE NOT EXISTS (SELECT 1 FROM {b} b WHERE b.k = p.k)",
    // string keys: case-insensitive collation, trailing blanks ignored
    "SELECT COUNT(*), MAX(b.s), MIN(p.s) FROM p JOIN {b} b ON p.s = b.s",
    // residual predicates, on inner, outer, semi and anti semi joins
    "SELECT COUNT(*), SUM(b.w) FROM p JOIN {b} b ON p.k = b.k AND p.v > b.w",
    "SELECT COUNT(*), COUNT(b.w) FROM p LEFT JOIN {b} b ON p.k = b.k AND p.v < b.w",
    "SELECT COUNT(*) FROM p WHERE EXISTS (SELECT 1 FROM {b} b WHERE b.k = p.k AND b.w > p.v)",
    "SELECT COUNT(*) FROM p WHERE NOT EXISTS (SELECT 1 FROM {b} b WHERE b.k = p.k AND b.w > p.v)",
    // a filtered build side (gathered from row-mode workers, then read into vectors)
    "SELECT COUNT(*), SUM(p.v), MAX(b.w) FROM p JOIN {b} b ON p.k = b.k WHERE b.w > 10 AND p.v < 500",
    // errors in a worker: divide by zero, overflow; NULLs eliminated (8153 once)
    "SELECT SUM(p.v / (b.w - b.w)) FROM p JOIN {b} b ON p.k = b.k",
    "SELECT SUM(p.v * 2000000000) FROM p JOIN {b} b ON p.k = b.k",
    "SELECT p.k % 3, SUM(p.v / (b.w - b.w)) FROM p JOIN {b} b ON p.k = b.k GROUP BY p.k % 3",
];

#[test]
fn batch_joins_in_parallel_zones_give_the_serial_and_row_mode_results() {
    let (mut s, dir) = session("shapes");
    setup(&mut s);
    for build in ["b", "e"] {
        for q in SHAPES {
            let q = q.replace("{b}", build);
            let truth = outcome(&mut s, &format!("{q} OPTION (MAXDOP 1, HASH JOIN, {ROW})"));
            assert!(!truth.is_empty(), "{q}");
            for dop in [1, 2] {
                let got = outcome(
                    &mut s,
                    &format!("{q} OPTION (MAXDOP {dop}, HASH JOIN, {BATCH})"),
                );
                assert_eq!(truth, got, "{q} at DOP {dop}");
            }
        }
    }
    // the errors really are errors, raised once; 8153 comes once from the workers
    let e = outcome(
        &mut s,
        &format!("SELECT SUM(p.v / (b.w - b.w)) FROM p JOIN b ON p.k = b.k OPTION (MAXDOP 2, HASH JOIN, {BATCH})"),
    );
    assert_eq!(e.iter().filter(|m| *m == "error 8134").count(), 1, "{e:?}");
    let w = outcome(
        &mut s,
        &format!(
            "SELECT SUM(b.w) FROM p JOIN b ON p.k = b.k OPTION (MAXDOP 2, HASH JOIN, {BATCH})"
        ),
    );
    assert_eq!(w.iter().filter(|m| *m == "msg 8153").count(), 1, "{w:?}");
    drop(s);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn plans_show_a_parallel_batch_join_with_its_exchange() {
    let (mut s, dir) = session("plans");
    setup(&mut s);
    for q in [
        "SELECT COUNT(*), SUM(p.v) FROM p JOIN b ON p.k = b.k",
        "SELECT COUNT(*), COUNT(b.w) FROM p LEFT JOIN b ON p.k = b.k",
        "SELECT COUNT(*) FROM p WHERE EXISTS (SELECT 1 FROM b WHERE b.k = p.k)",
        "SELECT COUNT(*) FROM p WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.k = p.k)",
    ] {
        let plan = plan_text(
            &mut s,
            &format!("{q} OPTION (MAXDOP 2, HASH JOIN, {BATCH})"),
        );
        assert!(plan.contains("Parallelism(Gather Streams)"), "{q}:\n{plan}");
        let join = plan
            .lines()
            .find(|l| l.contains("Hash Match(") && !l.contains("Aggregate"))
            .unwrap_or_default();
        assert!(join.contains("Batch mode"), "{q}:\n{plan}");
        let partial = plan
            .lines()
            .find(|l| l.contains("Partial Aggregate"))
            .unwrap_or_default();
        assert!(partial.contains("Batch mode"), "{q}:\n{plan}");
        // row mode keeps the parallel row-mode join
        let plan = plan_text(&mut s, &format!("{q} OPTION (MAXDOP 2, HASH JOIN, {ROW})"));
        assert!(plan.contains("Parallelism(Gather Streams)"), "{q}:\n{plan}");
        assert!(!plan.contains("Batch mode"), "{q}:\n{plan}");
    }
    drop(s);
    let _ = std::fs::remove_dir_all(dir);
}

/// The cost decides: over a handful of rows the exchange's startup costs more than a worker
/// saves, so the serial batch plan wins where a constant DOP rule would have parallelized.
#[test]
fn a_small_join_aggregate_stays_serial_batch_on_cost() {
    let (mut s, dir) = session("small");
    ok(
        &mut s,
        "CREATE TABLE sp (k int, v int); CREATE TABLE sb (k int, w int);
         INSERT INTO sp VALUES (1, 1), (2, 2), (3, 3); INSERT INTO sb VALUES (1, 10), (3, 30);",
    );
    let q = "SELECT COUNT(*), SUM(sb.w) FROM sp JOIN sb ON sp.k = sb.k";
    let plan = plan_text(
        &mut s,
        &format!("{q} OPTION (MAXDOP 2, HASH JOIN, {BATCH})"),
    );
    assert!(!plan.contains("Parallelism"), "{plan}");
    assert!(plan.contains("Batch mode"), "{plan}");
    let r = outcome(
        &mut s,
        &format!("{q} OPTION (MAXDOP 2, HASH JOIN, {BATCH})"),
    );
    assert_eq!(r, vec!["rows [\"[Int(2), Int(40)]\"]".to_string()]);
    drop(s);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn cancel_stops_a_parallel_batch_join() {
    let (mut s, dir) = session("cancel");
    setup(&mut s);
    // ~60 matches per probe row and a few KB of string per joined row: the probe runs for
    // seconds unless cancelled, a batch of joined rows for milliseconds (the cancel flag is
    // polled per batch)
    let q = format!(
        "SELECT MAX(LEN(REPLICATE(CAST(p.s AS varchar(max)), 1000) + 'z')) FROM p JOIN b \
         ON p.k % 20 = b.k % 20 OPTION (MAXDOP 2, HASH JOIN, {BATCH})"
    );
    let plan = plan_text(&mut s, &q);
    assert!(plan.contains("Parallelism(Gather Streams)"), "{plan}");
    assert!(plan.contains("Batch mode"), "{plan}");
    let handle = s.cancel_handle();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        handle.cancel();
        Instant::now()
    });
    let out = run(&mut s, &q);
    let returned = Instant::now();
    let cancelled_at = canceller.join().expect("canceller");
    assert!(
        out.errors().is_empty(),
        "an attention is not an error: {:?}",
        out.errors()
    );
    assert!(
        out.result_sets().iter().all(|r| r.is_empty()),
        "no result after a cancel"
    );
    let late = returned.saturating_duration_since(cancelled_at);
    assert!(
        late < Duration::from_millis(400),
        "stopped {late:?} after the cancel"
    );
    // the session goes on
    let n = outcome(&mut s, "SELECT COUNT(*) FROM b OPTION (MAXDOP 2)");
    assert_eq!(n, vec!["rows [\"[Int(1200)]\"]".to_string()]);
    drop(s);
    let _ = std::fs::remove_dir_all(dir);
}

/// A grouped aggregate merged at the Gather Streams reads its input when it opens, as the
/// serial Hash Match (Aggregate): an error in an aggregate argument comes alone, with no
/// (empty) result set before it — in row and batch mode, over a scan and over a join.
#[test]
fn a_failing_grouped_parallel_aggregate_sends_the_error_alone() {
    let (mut s, dir) = session("gather-error");
    setup(&mut s);
    for q in [
        "SELECT p.s, SUM(p.v / (p.k - p.k)) FROM p GROUP BY p.s",
        "SELECT p.s, SUM(p.v / (b.w - b.w)) FROM p JOIN b ON p.k = b.k GROUP BY p.s",
    ] {
        for mode in [ROW, BATCH] {
            let plan = plan_text(&mut s, &format!("{q} OPTION (MAXDOP 2, HASH JOIN, {mode})"));
            assert!(plan.contains("Gather Streams"), "{q}:\n{plan}");
            assert!(!plan.contains("Repartition"), "{q}:\n{plan}");
            for dop in [1, 2] {
                let got = outcome(
                    &mut s,
                    &format!("{q} OPTION (MAXDOP {dop}, HASH JOIN, {mode})"),
                );
                assert_eq!(got, vec!["error 8134".to_string()], "{q} {mode} DOP {dop}");
            }
        }
    }
    drop(s);
    let _ = std::fs::remove_dir_all(dir);
}
