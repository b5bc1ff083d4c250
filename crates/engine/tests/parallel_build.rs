//! Hash join builds indexed in parallel (exec README "Parallelism": a zone's shared build is
//! hashed into partitions by several threads at once, `byte_keys::PartitionedKeys`), and the
//! integer-pair key table of batch joins. A build side large enough for the threads to start
//! (80,000 rows: string keys differing in case and trailing blanks, duplicate and NULL keys,
//! negative integers) gives, in row and batch mode at DOP 2, the results of DOP 1; under a
//! tiny memory grant the build outgrows its budget, the zone runs serially and the join spills,
//! with the same results again.

mod common;

use common::{fresh_session, ok, outcome_as, parallel_at_any_cost, plan_text, NUMBERS};
use engine::{EngineConfig, Session};

fn session(tag: &str, config: EngineConfig) -> (Session, std::path::PathBuf) {
    let (mut s, d) = fresh_session("pbuild", tag, config);
    parallel_at_any_cost(&mut s);
    (s, d)
}

/// `bb`: 80,000 build rows; `pp`: 60,000 probe rows, a third of their keys absent from `bb`.
fn setup(s: &mut Session) {
    ok(
        s,
        "CREATE TABLE bb (k int NULL, k2 bigint NULL, s varchar(12) NULL, w int NULL);
         CREATE TABLE pp (k int NULL, k2 bigint NULL, s varchar(12) NULL, v int NULL);",
    );
    ok(
        s,
        "SET NOCOUNT ON;
         INSERT INTO bb
         SELECT TOP (80000) CASE WHEN n % 23 = 0 THEN NULL ELSE n % 40000 END,
                CASE WHEN n % 31 = 0 THEN NULL ELSE n % 3 - 1 END,
                CASE WHEN n % 29 = 0 THEN NULL
                     WHEN n % 3 = 0 THEN 'key' + CAST(n % 40000 AS varchar(8))
                     WHEN n % 3 = 1 THEN 'KEY' + CAST(n % 40000 AS varchar(8)) + '  '
                     ELSE 'Key' + CAST(n % 40000 AS varchar(8)) END,
                n % 1000 - 500
         FROM (SELECT ROW_NUMBER() OVER (ORDER BY (SELECT NULL)) AS n
               FROM master..spt_values a CROSS JOIN master..spt_values b) g;
         INSERT INTO pp
         SELECT TOP (60000) CASE WHEN n % 19 = 0 THEN NULL ELSE n % 60000 END,
                CASE WHEN n % 37 = 0 THEN NULL ELSE n % 5 - 2 END,
                CASE WHEN n % 41 = 0 THEN NULL
                     WHEN n % 2 = 0 THEN 'kEy' + CAST(n % 60000 AS varchar(8)) + ' '
                     ELSE 'KEY' + CAST(n % 60000 AS varchar(8)) END,
                n % 777
         FROM (SELECT ROW_NUMBER() OVER (ORDER BY (SELECT NULL)) AS n
               FROM master..spt_values a CROSS JOIN master..spt_values b) g;",
    );
}

const BATCH: &str = "USE HINT ('ALLOW_BATCH_MODE')";
const ROW: &str = "USE HINT ('DISALLOW_BATCH_MODE')";

const SHAPES: &[&str] = &[
    // string keys (the default collation: case and trailing blanks ignored), duplicates
    "SELECT COUNT(*), SUM(CAST(p.v AS bigint)), SUM(CAST(b.w AS bigint)), MAX(b.s) FROM pp p JOIN bb b ON p.s = b.s",
    "SELECT COUNT(*), SUM(CAST(p.v AS bigint)) FROM pp p WHERE NOT EXISTS (SELECT 1 FROM bb b WHERE b.s = p.s)",
    "SELECT COUNT(*), SUM(CAST(p.v AS bigint)) FROM pp p WHERE EXISTS (SELECT 1 FROM bb b WHERE b.s = p.s)",
    "SELECT COUNT(*), COUNT(b.w), SUM(CAST(b.w AS bigint)) FROM pp p LEFT JOIN bb b ON p.s = b.s",
    // two integer keys (negative values, NULLs)
    "SELECT COUNT(*), SUM(CAST(b.w AS bigint)), SUM(b.k2) FROM pp p JOIN bb b ON p.k = b.k AND p.k2 = b.k2",
    "SELECT COUNT(*), SUM(CAST(p.v AS bigint)) FROM pp p WHERE NOT EXISTS (SELECT 1 FROM bb b WHERE b.k = p.k AND b.k2 = p.k2)",
    // a string and an integer key, with a residual
    "SELECT COUNT(*), SUM(CAST(b.w AS bigint)) FROM pp p JOIN bb b ON p.s = b.s AND p.k2 = b.k2 AND p.v > b.w",
];

fn outcomes(s: &mut Session) -> Vec<Vec<String>> {
    let mut all = Vec::new();
    for q in SHAPES {
        let truth = outcome_as(
            s,
            &format!("{q} OPTION (MAXDOP 1, HASH JOIN, {ROW})"),
            NUMBERS,
        );
        assert!(
            truth.iter().any(|l| l.starts_with("rows")),
            "{q}: {truth:?}"
        );
        for mode in [ROW, BATCH] {
            let got = outcome_as(
                s,
                &format!("{q} OPTION (MAXDOP 2, HASH JOIN, {mode})"),
                NUMBERS,
            );
            assert_eq!(truth, got, "{q} at DOP 2, {mode}");
            let got = outcome_as(
                s,
                &format!("{q} OPTION (MAXDOP 1, HASH JOIN, {mode})"),
                NUMBERS,
            );
            assert_eq!(truth, got, "{q} at DOP 1, {mode}");
        }
        all.push(truth);
    }
    all
}

#[test]
fn parallel_builds_give_the_serial_results_and_spill_under_a_tiny_grant() {
    let (mut s, dir) = session("default", EngineConfig::default());
    setup(&mut s);
    // the joins really are parallel, their build sides shared
    for q in &SHAPES[..2] {
        for mode in [ROW, BATCH] {
            let plan = plan_text(&mut s, &format!("{q} OPTION (MAXDOP 2, HASH JOIN, {mode})"));
            assert!(plan.contains("Parallelism(Gather Streams)"), "{q}:\n{plan}");
        }
    }
    // spot checks against hand-computed counts: every probe key 'KEY<n>' with n < 40000
    // matches its case- and blank-insensitive build rows
    let r = outcome_as(
        &mut s,
        &format!("SELECT COUNT(*) FROM pp p WHERE EXISTS (SELECT 1 FROM bb b WHERE b.s = p.s) AND p.s = 'key7' OPTION (MAXDOP 2, HASH JOIN, {ROW})"),
        NUMBERS,
    );
    assert_eq!(r, vec!["rows [\"[Int(1)]\"]".to_string()], "{r:?}");
    let default = outcomes(&mut s);
    drop(s);
    let _ = std::fs::remove_dir_all(dir);

    // a 64 KB grant: the shared build is over budget, the zone runs serially and spills
    let tiny = EngineConfig {
        operator_memory_bytes: Some(64 * 1024),
        ..EngineConfig::default()
    };
    let (mut s, dir) = session("tiny", tiny);
    setup(&mut s);
    let spilled = outcomes(&mut s);
    assert_eq!(default, spilled);
    drop(s);
    let _ = std::fs::remove_dir_all(dir);
}
