//! Parallel aggregation with Repartition Streams (exec `parallel/repartition.rs`): a GROUP BY
//! of many groups runs its global aggregate on every consumer behind a hash repartitioning of
//! the partial groups; results, messages and errors are the serial plan's (many groups, NULL
//! keys, every key equal, batch mode on and off, a budget too small for the consumers),
//! errors and a cancel inside the repartitioned plan stop it, and the plan shows the exchange.

mod common;

use std::time::{Duration, Instant};

use common::{fresh_session, ok, outcome_as, parallel_at_any_cost, plan_text, run, OutcomeFormat};
use engine::{EngineConfig, Session};

fn engine_session(tag: &str, config: EngineConfig) -> (Session, std::path::PathBuf) {
    let (mut s, d) = fresh_session("repartition", tag, config);
    parallel_at_any_cost(&mut s);
    (s, d)
}

/// Result sets (rows sorted), then message and error numbers in order.
fn outcome(s: &mut Session, sql: &str) -> Vec<String> {
    outcome_as(
        s,
        sql,
        OutcomeFormat {
            row_count: true,
            error_text: false,
        },
    )
}

/// `g`: 40,000 rows, `k` unique, `m` 5,000 groups with NULLs, `one` always 7, `big` one
/// group per 4 rows whose int sum overflows.
fn setup(s: &mut Session) {
    ok(
        s,
        "SET NOCOUNT ON;
         CREATE TABLE g (k int NOT NULL, m int NULL, one int NOT NULL, v int NULL, big int NOT NULL,
                         d decimal(12,2), c varchar(20));
         INSERT INTO g
         SELECT TOP (40000) n, CASE WHEN n % 11 = 0 THEN NULL ELSE n % 5000 END, 7,
                CASE WHEN n % 13 = 0 THEN NULL ELSE n % 1000 END,
                CASE WHEN n % 10000 = 9999 THEN 2147483000 ELSE 1 END,
                (n % 700) / 4.0, CHAR(65 + n % 26) + CAST(n % 3000 AS varchar(10))
         FROM (SELECT ROW_NUMBER() OVER (ORDER BY (SELECT NULL)) AS n
               FROM master..spt_values a CROSS JOIN master..spt_values b) x;
         CREATE STATISTICS g_k ON g (k) WITH FULLSCAN;
         CREATE STATISTICS g_m ON g (m) WITH FULLSCAN;
         CREATE STATISTICS g_c ON g (c) WITH FULLSCAN;",
    );
}

/// Grouped aggregates of many groups: the optimizer repartitions them at DOP 2.
const MANY_GROUPS: &[&str] = &[
    "SELECT k, COUNT(*), SUM(v), AVG(d), MIN(c), MAX(v) FROM g GROUP BY k",
    "SELECT m, COUNT(*), COUNT(v), SUM(CAST(v AS bigint)), AVG(d) FROM g GROUP BY m",
    "SELECT c, COUNT_BIG(*), MAX(d), MIN(m) FROM g WHERE v > 10 GROUP BY c",
    "SELECT k / 2, SUM(v) FROM g GROUP BY k / 2",
];

#[test]
fn many_groups_are_repartitioned_with_the_serial_results() {
    let (mut s, dir) = engine_session("results", EngineConfig::default());
    setup(&mut s);
    for q in MANY_GROUPS {
        let p = plan_text(&mut s, &format!("{q} OPTION (MAXDOP 2)"));
        assert!(
            p.contains("Parallelism(Repartition Streams, Hash Partitioning, PARTITION COLUMNS:("),
            "{q}: {p}"
        );
        assert!(p.contains("Parallelism(Gather Streams)"), "{q}: {p}");
        assert!(p.contains("Hash Match(Partial Aggregate"), "{q}: {p}");
        let serial = outcome(&mut s, &format!("{q} OPTION (MAXDOP 1)"));
        for hint in [
            "",
            ", USE HINT ('DISALLOW_BATCH_MODE')",
            ", USE HINT ('ALLOW_BATCH_MODE')",
        ] {
            let parallel = outcome(&mut s, &format!("{q} OPTION (MAXDOP 2{hint})"));
            assert!(serial == parallel, "{q}{hint}");
        }
    }
    // few groups stay merged at the Gather Streams (the repartition would not pay)
    let p = plan_text(
        &mut s,
        "SELECT one, COUNT(*) FROM g GROUP BY one OPTION (MAXDOP 2)",
    );
    assert!(p.contains("Parallelism(Gather Streams)"), "{p}");
    assert!(!p.contains("Repartition"), "{p}");
    // no row qualifies (the estimate says so too): no group either way
    let q = "SELECT k, COUNT(*) FROM g WHERE k < 0 GROUP BY k";
    assert_eq!(
        outcome(&mut s, &format!("{q} OPTION (MAXDOP 1)")),
        outcome(&mut s, &format!("{q} OPTION (MAXDOP 2)"))
    );
    // the serial plan has no exchange
    let p = plan_text(
        &mut s,
        "SELECT k, COUNT(*) FROM g GROUP BY k OPTION (MAXDOP 1)",
    );
    assert!(!p.contains("Parallelism"), "{p}");
    drop(s);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn errors_inside_a_repartitioned_plan_are_the_serial_ones() {
    let (mut s, dir) = engine_session("errors", EngineConfig::default());
    setup(&mut s);
    for q in [
        // raised by a producer (per row) and by a consumer (the int sum of one group overflows
        // only when the partial states are merged and finished)
        "SELECT k, SUM(v / (k - k)) FROM g GROUP BY k",
        "SELECT k % 10000, SUM(big) FROM g GROUP BY k % 10000",
        // 8153 once, from the producers
        "SELECT k, SUM(v) FROM g GROUP BY k",
    ] {
        let p = plan_text(&mut s, &format!("{q} OPTION (MAXDOP 2)"));
        assert!(p.contains("Repartition Streams"), "{q}: {p}");
        let serial = outcome(&mut s, &format!("{q} OPTION (MAXDOP 1)"));
        let parallel = outcome(&mut s, &format!("{q} OPTION (MAXDOP 2)"));
        assert!(serial == parallel, "{q}");
    }
    let e = outcome(
        &mut s,
        "SELECT k, SUM(v / (k - k)) FROM g GROUP BY k OPTION (MAXDOP 2)",
    );
    assert!(e.contains(&"error 8134".to_string()), "{e:?}");
    let e = outcome(
        &mut s,
        "SELECT k % 10000, SUM(big) FROM g GROUP BY k % 10000 OPTION (MAXDOP 2)",
    );
    assert_eq!(e, vec!["error 8115".to_string()]);
    let w = outcome(
        &mut s,
        "SELECT k, SUM(v) FROM g GROUP BY k OPTION (MAXDOP 2)",
    );
    assert_eq!(w.iter().filter(|m| *m == "msg 8153").count(), 1, "{w:?}");
    // the session goes on
    let n = outcome(&mut s, "SELECT COUNT(*) FROM g OPTION (MAXDOP 2)");
    assert_eq!(n, vec!["rows 1 [\"[Int(40000)]\"]".to_string()]);
    drop(s);
    let _ = std::fs::remove_dir_all(dir);
}

/// Seed S4: every key equal under a plan compiled for many groups (the statistics still
/// describe the old, distinct keys). Producers route one partial group each, so the rows stay
/// spread over the workers by their morsels; the result is the serial one.
#[test]
fn all_keys_equal_stays_correct_and_routes_one_group_per_producer() {
    let (mut s, dir) = engine_session("skew", EngineConfig::default());
    setup(&mut s);
    let q = "SELECT k, COUNT(*), SUM(v), MAX(d) FROM g GROUP BY k";
    let p = plan_text(&mut s, &format!("{q} OPTION (MAXDOP 2)"));
    assert!(p.contains("Repartition Streams"), "{p}");
    // NORECOMPUTE: the statistics keep describing 40,000 distinct keys after the update
    ok(
        &mut s,
        "SET NOCOUNT ON; DROP STATISTICS g.g_k;
         CREATE STATISTICS g_k ON g (k) WITH FULLSCAN, NORECOMPUTE;
         UPDATE g SET k = 5",
    );
    let p = plan_text(&mut s, &format!("{q} OPTION (MAXDOP 2)"));
    assert!(p.contains("Repartition Streams"), "{p}");
    let serial = outcome(&mut s, &format!("{q} OPTION (MAXDOP 1)"));
    assert!(serial[0].starts_with("rows 1 "), "{serial:?}");
    let parallel = outcome(&mut s, &format!("{q} OPTION (MAXDOP 2)"));
    assert!(serial == parallel, "{q}");
    // the actual plan: both producers scanned (two executions of the scan, all its rows),
    // and the exchange carried one partial group per producer, not the 40,000 rows
    ok(&mut s, "SET STATISTICS XML ON");
    let actual = run(&mut s, &format!("{q} OPTION (MAXDOP 2)"));
    ok(&mut s, "SET STATISTICS XML OFF");
    let actual = format!("{:?}", actual.result_sets());
    let counters = |marker: &str| -> (String, String) {
        let at = actual
            .find(marker)
            .unwrap_or_else(|| panic!("{marker}: {actual}"));
        let attr = |name: &str| {
            let rest = &actual[at..];
            let i = rest.find(name).map(|i| i + name.len()).unwrap_or(0);
            rest[i..]
                .chars()
                .take_while(|c| c.is_ascii_digit())
                .collect::<String>()
        };
        (attr("ActualRows=\\\""), attr("ActualExecutions=\\\""))
    };
    assert_eq!(
        counters("LogicalOp=\\\"Repartition Streams\\\""),
        ("2".to_string(), "2".to_string()),
        "{actual}"
    );
    assert_eq!(
        counters("PhysicalOp=\\\"Table Scan\\\""),
        ("40000".to_string(), "2".to_string()),
        "{actual}"
    );
    drop(s);
    let _ = std::fs::remove_dir_all(dir);
}

/// Consumers whose groups outgrow their share of a 1 MB budget report it before any row
/// went out: the aggregate runs serially (and spills) with the same result.
#[test]
fn consumers_over_budget_fall_back_to_the_serial_aggregate() {
    let config = EngineConfig {
        operator_memory_bytes: Some(1 << 20),
        ..EngineConfig::default()
    };
    let (mut s, dir) = engine_session("budget", config);
    setup(&mut s);
    let q = "SELECT k, COUNT(*), MAX(c), SUM(v) FROM g GROUP BY k";
    let p = plan_text(&mut s, &format!("{q} OPTION (MAXDOP 2)"));
    assert!(p.contains("Repartition Streams"), "{p}");
    let serial = outcome(&mut s, &format!("{q} OPTION (MAXDOP 1)"));
    let parallel = outcome(&mut s, &format!("{q} OPTION (MAXDOP 2)"));
    assert!(serial == parallel, "{q}");
    drop(s);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn cancel_stops_a_repartitioned_aggregate() {
    let (mut s, dir) = engine_session("cancel", EngineConfig::default());
    setup(&mut s);
    // CPU-heavy per row (200 KB strings), so the producers run for seconds unless cancelled
    let q = "SELECT k, MAX(LEN(REPLICATE(CAST(c AS varchar(max)), 200000) + 'z')) FROM g \
             GROUP BY k OPTION (MAXDOP 2)";
    let p = plan_text(&mut s, q);
    assert!(p.contains("Repartition Streams"), "{p}");
    let handle = s.cancel_handle();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        handle.cancel();
        Instant::now()
    });
    let out = run(&mut s, q);
    let returned = Instant::now();
    let cancelled_at = canceller.join().expect("canceller");
    assert!(out.errors().is_empty(), "{:?}", out.errors());
    let rows: usize = out.result_sets().iter().map(|r| r.len()).sum();
    assert_eq!(rows, 0, "no result after a cancel");
    let late = returned.saturating_duration_since(cancelled_at);
    assert!(
        late < Duration::from_millis(400),
        "stopped {late:?} after the cancel"
    );
    let n = outcome(
        &mut s,
        "SELECT COUNT(*) FROM (SELECT k FROM g GROUP BY k) x OPTION (MAXDOP 2)",
    );
    assert_eq!(n, vec!["rows 1 [\"[Int(40000)]\"]".to_string()]);
    drop(s);
    let _ = std::fs::remove_dir_all(dir);
}
