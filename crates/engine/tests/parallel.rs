//! Parallel plans (exec README "Parallelism"): every shape the optimizer parallelizes gives the
//! same results, messages and errors at DOP 1 and DOP 2 (heaps and clustered tables, NULLs,
//! LOB rows, empty and tiny tables, overflow raised inside a worker), the plan shows the
//! exchange, and a cancel stops the workers of a running parallel scan.

mod common;

use std::time::{Duration, Instant};

use common::{fresh_session, ok, outcome_as, parallel_at_any_cost, plan_text, run, NUMBERS};
use engine::{EngineConfig, Session};

fn session(tag: &str) -> (Session, std::path::PathBuf) {
    let (mut s, d) = fresh_session("parallel", tag, EngineConfig::default());
    parallel_at_any_cost(&mut s);
    (s, d)
}

/// What a batch produced, row order ignored: result sets (rows sorted), then message and
/// error numbers in order.
fn outcome(s: &mut Session, sql: &str) -> Vec<String> {
    outcome_as(s, sql, NUMBERS)
}

fn setup(s: &mut Session) {
    ok(
        s,
        "CREATE TABLE h (a int, b int NULL, c varchar(20), d decimal(10,2), big varchar(max));
         CREATE TABLE c (id int PRIMARY KEY, a int, b int NULL, d decimal(10,2), big varchar(max));
         CREATE TABLE empty_h (a int, b int);
         CREATE TABLE tiny (a int, b int);
         INSERT INTO tiny VALUES (1, 2), (3, NULL);",
    );
    ok(
        s,
        "SET NOCOUNT ON;
         INSERT INTO h
         SELECT TOP (30000) n % 97, CASE WHEN n % 7 = 0 THEN NULL ELSE n % 1000 END,
                CHAR(65 + n % 26), (n % 500) / 4.0,
                CASE WHEN n % 5000 = 0 THEN REPLICATE(CAST('x' AS varchar(max)), 9000 + n % 7) END
         FROM (SELECT ROW_NUMBER() OVER (ORDER BY (SELECT NULL)) AS n
               FROM master..spt_values a CROSS JOIN master..spt_values b) g;
         INSERT INTO c SELECT ROW_NUMBER() OVER (ORDER BY (SELECT NULL)), a, b, d, big FROM h;",
    );
}

/// Queries the optimizer parallelizes: results must not depend on the DOP.
const SHAPES: &[&str] = &[
    "SELECT COUNT(*), COUNT_BIG(*), COUNT(b), SUM(b), AVG(b), MIN(c), MAX(c), SUM(d), AVG(d), MAX(LEN(big)) FROM {t}",
    "SELECT COUNT(*) FROM {t}",
    "SELECT COUNT(*), SUM(a) FROM {t} WHERE b IS NULL",
    "SELECT a, COUNT(*), SUM(b), AVG(d), MIN(b), MAX(big) FROM {t} GROUP BY a",
    "SELECT b % 3, COUNT(b), AVG(a) FROM {t} WHERE a < 50 GROUP BY b % 3",
    "SELECT c, SUM(a * 2), COUNT_BIG(b) FROM {t} WHERE d > 10 GROUP BY c",
    // no row qualifies: scalar aggregate = one row, grouped = none
    "SELECT COUNT(*), SUM(b), MAX(c) FROM {t} WHERE a > 1000",
    "SELECT a, COUNT(*) FROM {t} WHERE a > 1000 GROUP BY a",
    // errors raised inside a worker: overflow, divide by zero; and at the merge (SUM of int)
    "SELECT SUM(a * 100000000) FROM {t}",
    "SELECT SUM(a / (a - a)) FROM {t}",
    "SELECT SUM(a + 2147483000) FROM {t}",
    // a filtered probe side gathered into a hash join
    "SELECT x.a, x.b, y.a FROM {t} x JOIN tiny y ON x.a = y.a WHERE x.b > 500",
    "SELECT x.a, y.b FROM {t} x LEFT JOIN tiny y ON x.a = y.a WHERE x.b IS NULL",
    "SELECT COUNT(*) FROM {t} x JOIN tiny y ON x.a = y.a WHERE x.a / (x.b - x.b) > 0",
];

#[test]
fn results_are_the_same_at_dop_1_and_2() {
    let (mut s, dir) = session("shapes");
    setup(&mut s);
    for t in ["h", "c", "empty_h", "tiny"] {
        for q in SHAPES {
            let q = q.replace("{t}", t);
            if matches!(t, "empty_h" | "tiny")
                && (q.contains(" c") || q.contains(" d") || q.contains("big"))
            {
                continue;
            }
            let serial = outcome(&mut s, &format!("{q} OPTION (MAXDOP 1)"));
            let parallel = outcome(&mut s, &format!("{q} OPTION (MAXDOP 2)"));
            assert_eq!(serial, parallel, "{q}");
            assert!(!serial.is_empty(), "{q}");
        }
    }
    // the errors really are errors, and 8153 comes once from the workers
    let e = outcome(&mut s, "SELECT SUM(a * 100000000) FROM h OPTION (MAXDOP 2)");
    assert!(e.contains(&"error 8115".to_string()), "{e:?}");
    let e = outcome(&mut s, "SELECT SUM(a / (a - a)) FROM c OPTION (MAXDOP 2)");
    assert!(e.contains(&"error 8134".to_string()), "{e:?}");
    let w = outcome(&mut s, "SELECT SUM(b) FROM h OPTION (MAXDOP 2)");
    assert_eq!(w.iter().filter(|m| *m == "msg 8153").count(), 1, "{w:?}");
    drop(s);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_parallel_read_sees_its_own_transactions_writes_and_waits_for_no_one_else() {
    let (mut s, dir) = session("locks");
    setup(&mut s);
    let q = "SELECT COUNT(*), SUM(b), MAX(a) FROM h";
    let before = outcome(&mut s, &format!("{q} OPTION (MAXDOP 1)"));
    // the own transaction's IX and X row locks do not block its own parallel read
    ok(
        &mut s,
        "BEGIN TRAN; UPDATE h SET b = b + 1 WHERE a = 5; INSERT INTO h (a, b) VALUES (500, 1);",
    );
    let serial = outcome(&mut s, &format!("{q} OPTION (MAXDOP 1)"));
    let parallel = outcome(&mut s, &format!("{q} OPTION (MAXDOP 2)"));
    assert_eq!(serial, parallel);
    assert_ne!(serial, before, "the uncommitted changes are seen");
    ok(&mut s, "ROLLBACK");
    assert_eq!(outcome(&mut s, &format!("{q} OPTION (MAXDOP 2)")), before);
    // the table S lock of a parallel read is released at the end of the statement
    let e = s.engine().clone();
    let mut other = Session::new(e);
    ok(
        &mut other,
        "SET LOCK_TIMEOUT 2000; UPDATE h SET b = b WHERE a = 1;",
    );
    drop(other);
    drop(s);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn an_aggregate_whose_groups_outgrow_the_budget_runs_serially() {
    let config = EngineConfig {
        operator_memory_bytes: Some(1 << 20),
        ..EngineConfig::default()
    };
    let (mut s, d) = fresh_session("parallel", "budget", config);
    parallel_at_any_cost(&mut s);
    setup(&mut s);
    // 30,000 groups: far past a worker's share of 1 MB, so the workers give up
    let q = "SELECT id, COUNT(*), MAX(d), SUM(b) FROM c GROUP BY id";
    let p = plan_text(&mut s, &format!("{q} OPTION (MAXDOP 2)"));
    assert!(p.contains("Parallelism(Gather Streams)"), "{p}");
    let serial = outcome(&mut s, &format!("{q} OPTION (MAXDOP 1)"));
    let parallel = outcome(&mut s, &format!("{q} OPTION (MAXDOP 2)"));
    assert_eq!(serial, parallel);
    drop(s);
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn plans_show_the_exchange_only_when_parallel() {
    let (mut s, dir) = session("plans");
    setup(&mut s);
    let p = plan_text(
        &mut s,
        "SELECT a, SUM(b) FROM c GROUP BY a OPTION (MAXDOP 2)",
    );
    assert!(p.contains("Parallelism(Gather Streams)"), "{p}");
    assert!(p.contains("Hash Match(Partial Aggregate"), "{p}");
    let p = plan_text(
        &mut s,
        "SELECT a, SUM(b) FROM c GROUP BY a OPTION (MAXDOP 1)",
    );
    assert!(!p.contains("Parallelism"), "{p}");
    let p = plan_text(
        &mut s,
        "SELECT x.a, y.b FROM h x JOIN c y ON x.a = y.a WHERE x.b > 5 OPTION (MAXDOP 2, HASH JOIN)",
    );
    assert!(p.contains("Hash Match(Inner Join"), "{p}");
    assert!(p.contains("Parallelism(Gather Streams)"), "{p}");
    // not parallelized: DISTINCT aggregates, variables read per row, ordered input
    for q in [
        "SELECT COUNT(DISTINCT a) FROM h OPTION (MAXDOP 2)",
        "DECLARE @v int = 3; SELECT SUM(a + @v) FROM h OPTION (MAXDOP 2)",
        "SELECT STRING_AGG(c, ',') FROM h OPTION (MAXDOP 2)",
        "SELECT SUM(a) FROM h WITH (UPDLOCK) OPTION (MAXDOP 2)",
        "SELECT SUM(a) FROM h WHERE c = DB_NAME() OPTION (MAXDOP 2)",
    ] {
        let p = plan_text(&mut s, q);
        assert!(!p.contains("Parallelism"), "{q}: {p}");
    }
    // the cost threshold keeps plans of unknown cost serial
    ok(
        &mut s,
        "EXEC sp_configure 'cost threshold for parallelism', 5; RECONFIGURE;",
    );
    let p = plan_text(&mut s, "SELECT a, SUM(b) FROM h GROUP BY a");
    assert!(!p.contains("Parallelism"), "{p}");
    // max degree of parallelism 1 keeps every plan serial
    ok(
        &mut s,
        "EXEC sp_configure 'cost threshold for parallelism', 0; RECONFIGURE;
         EXEC sp_configure 'max degree of parallelism', 1; RECONFIGURE;",
    );
    let p = plan_text(&mut s, "SELECT a, SUM(b) FROM h GROUP BY a");
    assert!(!p.contains("Parallelism"), "{p}");
    drop(s);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn cancel_stops_a_parallel_scan() {
    let (mut s, dir) = session("cancel");
    setup(&mut s);
    // CPU-heavy per row (200 KB strings), so the scan runs for seconds unless cancelled
    let plain = "SELECT MAX(LEN(REPLICATE(CAST(c AS varchar(max)), 200000) + 'z')) FROM h \
                 OPTION (MAXDOP 2)";
    let p = plan_text(&mut s, plain);
    assert!(p.contains("Parallelism(Gather Streams)"), "{p}");
    let handle = s.cancel_handle();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        handle.cancel();
        Instant::now()
    });
    let out = run(&mut s, plain);
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
    let n = outcome(&mut s, "SELECT COUNT(*) FROM h OPTION (MAXDOP 2)");
    assert_eq!(n, vec!["rows [\"[Int(30000)]\"]".to_string()]);
    drop(s);
    let _ = std::fs::remove_dir_all(dir);
}

/// A parallel hash join whose shared build outgrows the operator budget runs serially on the
/// coordinator (where the join spills): same rows as DOP 1, under Gather and under a parallel
/// aggregate alike.
#[test]
fn shared_build_over_budget_runs_the_zone_serially() {
    let config = EngineConfig {
        operator_memory_bytes: Some(32 << 10),
        ..EngineConfig::default()
    };
    let (mut s, d) = fresh_session("parallel", "shared-build", config);
    parallel_at_any_cost(&mut s);
    ok(
        &mut s,
        "SET NOCOUNT ON;
         CREATE TABLE p (id int NOT NULL, k int NULL, pad char(200) NOT NULL DEFAULT '');
         CREATE TABLE b (k int NOT NULL, name varchar(30) NOT NULL);
         INSERT p (id, k) SELECT TOP (5000) n, CASE WHEN n % 9 = 0 THEN NULL ELSE n % 3000 END
           FROM (SELECT ROW_NUMBER() OVER (ORDER BY (SELECT NULL)) AS n
                 FROM master..spt_values x CROSS JOIN master..spt_values y) q;
         INSERT b SELECT number, CONCAT('name-', number, '-', REPLICATE('x', 20))
           FROM master..spt_values WHERE type = 'P' AND number < 2000;",
    );
    let plan = plan_text(
        &mut s,
        "SELECT COUNT(*) FROM p JOIN b ON p.k = b.k OPTION (MAXDOP 2, HASH JOIN, USE HINT ('DISALLOW_BATCH_MODE'))",
    );
    assert!(plan.contains("Parallelism"), "{plan}");
    for q in [
        "SELECT COUNT(*), SUM(CAST(p.id AS bigint)), MAX(b.name) FROM p JOIN b ON p.k = b.k OPTION (MAXDOP {d}, HASH JOIN, USE HINT ('DISALLOW_BATCH_MODE'))",
        "SELECT p.id, b.name FROM p JOIN b ON p.k = b.k WHERE p.id % 7 = 1 OPTION (MAXDOP {d}, HASH JOIN, USE HINT ('DISALLOW_BATCH_MODE'))",
        "SELECT COUNT(*) FROM p WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.k = p.k) OPTION (MAXDOP {d}, HASH JOIN, USE HINT ('DISALLOW_BATCH_MODE'))",
    ] {
        let serial = outcome(&mut s, &q.replace("{d}", "1"));
        let parallel = outcome(&mut s, &q.replace("{d}", "2"));
        assert!(serial.iter().any(|l| l.starts_with("rows")), "{q}: {serial:?}");
        assert_eq!(serial, parallel, "{q}");
    }
    drop(s);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn the_gathering_thread_waits_on_cxconsumer() {
    let (mut s, d) = session("cxconsumer");
    setup(&mut s);
    let waits = |s: &mut Session| -> i64 {
        let out = ok(
            s,
            "SELECT ISNULL(SUM(waiting_tasks_count), 0) FROM sys.dm_exec_session_wait_stats
             WHERE session_id = @@SPID AND wait_type = 'CXCONSUMER'",
        );
        match out.result_sets()[0][0][0] {
            types::Value::BigInt(n) => n,
            types::Value::Int(n) => i64::from(n),
            ref v => panic!("{v:?}"),
        }
    };
    let before = waits(&mut s);
    // serial: no exchange, no wait
    ok(
        &mut s,
        "SELECT COUNT(*) FROM h WHERE b > 0 OPTION (MAXDOP 1)",
    );
    assert_eq!(waits(&mut s), before);
    // the session thread gathers the workers' partial aggregates and waits for them
    let q = "SELECT a, COUNT(*), SUM(b) FROM h GROUP BY a OPTION (MAXDOP 2)";
    assert!(plan_text(&mut s, q).contains("Gather Streams"));
    ok(&mut s, q);
    assert!(waits(&mut s) > before, "no CXCONSUMER wait recorded");
    let _ = std::fs::remove_dir_all(d);
}
