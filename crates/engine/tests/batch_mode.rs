//! Batch mode (exec README "Batch mode"): every aggregate shape the optimizer runs in batch
//! mode gives row mode's results, messages and errors — NULLs, empty tables, all-NULL groups,
//! overflow and divide by zero raised inside a batch, case-insensitive strings, decimals,
//! serial and parallel — and the plan says which mode each operator runs in.

use std::sync::Arc;

use engine::{CollectSink, Engine, EngineConfig, Event, Session};

fn session(tag: &str) -> (Session, std::path::PathBuf) {
    let d = std::env::temp_dir().join(format!("latchkey-batch-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    let e: Arc<Engine> = Engine::open(&d, EngineConfig::default()).expect("open engine");
    let mut s = Session::new(e);
    ok(
        &mut s,
        "EXEC sp_configure 'show advanced options', 1; RECONFIGURE;
         EXEC sp_configure 'cost threshold for parallelism', 0; RECONFIGURE;",
    );
    (s, d)
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

/// Result sets (rows sorted), then message and error numbers in order.
fn outcome(s: &mut Session, sql: &str) -> Vec<String> {
    outcome_folded(s, sql, false)
}

/// [`outcome`], with the rows lower-cased before they are sorted when `fold_case`.
fn outcome_folded(s: &mut Session, sql: &str, fold_case: bool) -> Vec<String> {
    let out = run(s, sql);
    let mut v = Vec::new();
    for e in &out.events {
        match e {
            Event::ResultSet { rows, .. } => {
                let mut r: Vec<String> = rows
                    .iter()
                    .map(|r| format!("{r:?}"))
                    .map(|r| if fold_case { r.to_lowercase() } else { r })
                    .collect();
                r.sort();
                v.push(format!("rows {r:?}"));
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

/// `t` (heap) and `ct` (clustered) with the same random rows: ~1/6 NULLs in every nullable
/// column, strings differing only in case, negative and fractional decimals.
fn setup(s: &mut Session, rows: usize, seed: u64) {
    ok(
        s,
        "CREATE TABLE t (i int NULL, b bigint NULL, si smallint NULL, ti tinyint NULL, bt bit NULL,
                         d decimal(12,3) NULL, m money NULL, f float NULL, r real NULL,
                         dt date NULL, c char(3) NULL, v varchar(10) NULL, nv nvarchar(10) NULL);
         CREATE TABLE ct (id int PRIMARY KEY, i int NULL, b bigint NULL, d decimal(12,3) NULL,
                          v varchar(10) NULL);
         CREATE TABLE empty_t (i int NULL, d decimal(12,3) NULL, v varchar(10) NULL);",
    );
    let mut g = Rng(seed);
    let words = ["abc", "ABC", "Abc", "xyz", "XYZ", "q", ""];
    let mut sql = String::from("SET NOCOUNT ON;\n");
    let mut csql = String::from("SET NOCOUNT ON;\n");
    for k in 0..rows {
        let val = |g: &mut Rng, f: &dyn Fn(&mut Rng) -> String| -> String {
            if g.below(6) == 0 {
                "NULL".into()
            } else {
                f(g)
            }
        };
        let i = val(&mut g, &|g| (g.below(2001) as i64 - 1000).to_string());
        let b = val(&mut g, &|g| {
            (g.below(1 << 40) as i64 - (1 << 39)).to_string()
        });
        let si = val(&mut g, &|g| (g.below(200) as i64 - 100).to_string());
        let ti = val(&mut g, &|g| g.below(256).to_string());
        let bt = val(&mut g, &|g| g.below(2).to_string());
        let d = val(&mut g, &|g| {
            format!("{}.{:03}", g.below(20000) as i64 - 10000, g.below(1000))
        });
        let m = val(&mut g, &|g| {
            format!("{}.{:04}", g.below(1000), g.below(10000))
        });
        let f = val(&mut g, &|g| format!("{}.5E0", g.below(100) as i64 - 50));
        let r = val(&mut g, &|g| format!("{}.25", g.below(100)));
        let dt = val(&mut g, &|g| format!("'2020-01-{:02}'", 1 + g.below(28)));
        let w = words[g.below(words.len() as u64) as usize];
        let c = val(&mut g, &|_| format!("'{w}'"));
        let v = val(&mut g, &|g| {
            format!("'{}'", words[g.below(words.len() as u64) as usize])
        });
        let nv = val(&mut g, &|g| {
            format!("N'{}'", words[g.below(words.len() as u64) as usize])
        });
        sql.push_str(&format!(
            "INSERT INTO t VALUES ({i},{b},{si},{ti},{bt},{d},{m},{f},{r},{dt},{c},{v},{nv});\n"
        ));
        csql.push_str(&format!("INSERT INTO ct VALUES ({k},{i},{b},{d},{v});\n"));
    }
    ok(s, &sql);
    ok(s, &csql);
}

/// Queries that run in batch mode when allowed: each is checked against row mode.
const QUERIES: &[&str] = &[
    "SELECT COUNT(*) FROM t",
    "SELECT COUNT(*), COUNT_BIG(*) FROM ct",
    "SELECT COUNT(i), COUNT(v), COUNT_BIG(d), SUM(i), SUM(b), SUM(si), SUM(ti), AVG(i), AVG(b) FROM t",
    "SELECT SUM(d), AVG(d), MIN(d), MAX(d), SUM(m), AVG(m), SUM(f), AVG(f), SUM(r), MIN(r) FROM t",
    "SELECT MIN(i), MAX(i), MIN(dt), MAX(dt), MIN(v), MAX(v), MIN(nv), MAX(c), MIN(bt) FROM t",
    "SELECT v, COUNT(*), SUM(i), AVG(d), MIN(dt) FROM t GROUP BY v",
    "SELECT c, nv, COUNT(*), SUM(b) FROM t GROUP BY c, nv",
    "SELECT dt, bt, COUNT(i), MAX(f) FROM t GROUP BY dt, bt",
    "SELECT d, COUNT(*) FROM t GROUP BY d",
    "SELECT i % 7, SUM(i * 3 - b / 5), COUNT(*) FROM t GROUP BY i % 7",
    "SELECT SUM(d * (1 - m)), SUM(d * 2.5 + 1), AVG(f * r) FROM t",
    "SELECT COUNT(*), SUM(i) FROM t WHERE i > 100 AND b < 0",
    "SELECT COUNT(*), SUM(d) FROM t WHERE i BETWEEN -10 AND 500 OR v = 'abc'",
    "SELECT COUNT(*) FROM t WHERE NOT (i > 0) OR i IS NULL",
    "SELECT v, COUNT(*) FROM t WHERE v IN ('abc', 'XYZ') GROUP BY v",
    "SELECT COUNT(*), SUM(i) FROM t WHERE v LIKE 'a%' OR nv LIKE N'%y%'",
    "SELECT COUNT(*) FROM t WHERE d >= 0 AND dt < '2020-01-15' AND f <> 0.5",
    "SELECT SUM(CASE WHEN i > 0 THEN d ELSE -d END), SUM(CASE WHEN v = 'ABC' THEN 1 ELSE 0 END) FROM t",
    "SELECT CASE WHEN i IS NULL THEN 'n' ELSE 'v' END, COUNT(*) FROM t GROUP BY CASE WHEN i IS NULL THEN 'n' ELSE 'v' END",
    "SELECT COUNT(*), SUM(CAST(i AS bigint)), MAX(CAST(d AS float)) FROM t WHERE m > 500",
    "SELECT SUM(i), COUNT(*) FROM t WHERE b <> 0 AND i / b = 0",
    "SELECT v, SUM(i), COUNT(d) FROM ct GROUP BY v",
    "SELECT COUNT(*), SUM(d) FROM ct WHERE i > 0",
    "SELECT COUNT(*), SUM(i), MIN(v) FROM empty_t",
    "SELECT v, SUM(i) FROM empty_t GROUP BY v",
    "SELECT v, SUM(i), MAX(d) FROM t WHERE i IS NULL GROUP BY v",
    "SELECT SUM(i) FROM t WHERE i IS NULL",
    // operands of types without a vector (datetime, varchar(max)) inside a predicate
    "SELECT COUNT(*), SUM(i) FROM t WHERE CAST(dt AS datetime) > '2020-01-10' AND CAST(v AS varchar(max)) <> 'q'",
];

/// Queries that fail in row mode (overflow, divide by zero, conversion): batch mode raises
/// the same error.
const FAILING: &[&str] = &[
    "SELECT SUM(i * 2000000) FROM t",
    "SELECT SUM(i / (i - i)) FROM t",
    "SELECT v, SUM(ti + CAST(250 AS tinyint)) FROM t GROUP BY v",
    "SELECT SUM(CAST(b AS int)) FROM t",
    "SELECT COUNT(*) FROM t WHERE 1 / (i - i) = 1",
    "SELECT SUM(b * b) FROM t",
];

fn with_hint(q: &str, hint: &str) -> String {
    format!("{q} OPTION (USE HINT ('{hint}'))")
}

fn check_same(s: &mut Session, q: &str, dop: u32) {
    // MIN/MAX and group keys of strings equal under the case-insensitive collation ('xyz',
    // 'XYZ'): which one a parallel plan returns depends on which worker's rows come first, in
    // row mode as well
    let fold = dop > 1;
    let row = outcome_folded(
        s,
        &format!("{q} OPTION (MAXDOP {dop}, USE HINT ('DISALLOW_BATCH_MODE'))"),
        fold,
    );
    let batch = outcome_folded(
        s,
        &format!("{q} OPTION (MAXDOP {dop}, USE HINT ('ALLOW_BATCH_MODE'))"),
        fold,
    );
    assert_eq!(row, batch, "{q} at MAXDOP {dop}");
}

#[test]
fn batch_mode_results_match_row_mode() {
    let (mut s, d) = session("diff");
    setup(&mut s, 3000, 0x9e37_79b9_7f4a_7c15);
    for q in QUERIES {
        // the query really runs in batch mode when allowed
        let plan = plan_text(&mut s, &with_hint(q, "ALLOW_BATCH_MODE"));
        assert!(
            plan.contains("Batch mode"),
            "{q}: no batch operator in\n{plan}"
        );
        check_same(&mut s, q, 1);
        check_same(&mut s, q, 2);
    }
    for q in FAILING {
        let row = outcome(&mut s, &with_hint(q, "DISALLOW_BATCH_MODE"));
        assert!(row.iter().any(|e| e.starts_with("error")), "{q}: {row:?}");
        check_same(&mut s, q, 1);
        check_same(&mut s, q, 2);
    }
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn differential_random_tables() {
    // several random tables, several seeds: batch vs row on every query
    for seed in [1u64, 42, 0xdead_beef] {
        let (mut s, d) = session(&format!("rand{seed}"));
        setup(&mut s, 700, seed);
        for q in QUERIES.iter().chain(FAILING) {
            check_same(&mut s, q, 1);
        }
        let _ = std::fs::remove_dir_all(d);
    }
}

#[test]
fn disallow_keeps_row_mode_and_plans_show_the_mode() {
    let (mut s, d) = session("plan");
    setup(&mut s, 50, 7);
    let q = "SELECT v, SUM(i) FROM t WHERE i > 0 GROUP BY v";
    let batch = plan_text(
        &mut s,
        &format!("{q} OPTION (MAXDOP 1, USE HINT ('ALLOW_BATCH_MODE'))"),
    );
    assert!(
        batch.contains("Hash Match(Aggregate") && batch.contains("Batch mode"),
        "{batch}"
    );
    let row = plan_text(
        &mut s,
        &format!("{q} OPTION (MAXDOP 1, USE HINT ('DISALLOW_BATCH_MODE'))"),
    );
    assert!(!row.contains("Batch mode"), "{row}");
    // a small table stays in row mode by default (below the batch-mode threshold)
    let small = plan_text(&mut s, &format!("{q} OPTION (MAXDOP 1)"));
    assert!(!small.contains("Batch mode"), "{small}");
    // a DISALLOW after an ALLOW wins, as the last switch given
    let both = plan_text(
        &mut s,
        &format!("{q} OPTION (MAXDOP 1, USE HINT ('ALLOW_BATCH_MODE', 'DISALLOW_BATCH_MODE'))"),
    );
    assert!(!both.contains("Batch mode"), "{both}");
    // a parallel plan: the partial aggregate and its zone run in batch mode per worker
    let par = plan_text(
        &mut s,
        &format!("{q} OPTION (MAXDOP 2, USE HINT ('ALLOW_BATCH_MODE'))"),
    );
    assert!(
        par.contains("Partial Aggregate") && par.contains("Batch mode"),
        "{par}"
    );
    // showplan XML: estimated and actual execution modes
    ok(&mut s, "SET SHOWPLAN_XML ON");
    let xml = run(
        &mut s,
        &format!("{q} OPTION (MAXDOP 1, USE HINT ('ALLOW_BATCH_MODE'))"),
    );
    ok(&mut s, "SET SHOWPLAN_XML OFF");
    let xml = format!("{:?}", xml.result_sets());
    assert!(xml.contains(r#"EstimatedExecutionMode=\"Batch\""#), "{xml}");
    assert!(
        xml.contains(r#"EstimatedExecutionMode=\"Row\""#) || !xml.contains("Compute"),
        "{xml}"
    );
    ok(&mut s, "SET STATISTICS XML ON");
    let actual = run(
        &mut s,
        &format!("{q} OPTION (MAXDOP 1, USE HINT ('ALLOW_BATCH_MODE'))"),
    );
    ok(&mut s, "SET STATISTICS XML OFF");
    let actual = format!("{:?}", actual.result_sets());
    // what ran: the aggregate and its scan in batch mode, with their batches and rows
    assert!(
        actual.contains(r#"ActualExecutionMode=\"Batch\""#),
        "{actual}"
    );
    assert!(actual.contains(r#"Batches=\"1\""#), "{actual}");
    // the scan's rows are those passing its pushed-down predicate, as row mode counts them
    let n = run(
        &mut s,
        "SELECT COUNT(*) FROM t WHERE i > 0 OPTION (USE HINT ('DISALLOW_BATCH_MODE'))",
    );
    let n = format!("{:?}", n.result_sets()[0][0][0]);
    let n = n.trim_start_matches("Int(").trim_end_matches(')');
    let scan_rows = format!(
        r#"ActualRows=\"{n}\" ActualEndOfScans=\"1\" ActualExecutions=\"1\" ActualExecutionMode=\"Batch\""#
    );
    assert!(
        actual.contains(&scan_rows),
        "the scan's rows ({n}): {actual}"
    );
    ok(&mut s, "SET STATISTICS XML ON");
    let actual = run(
        &mut s,
        &format!("{q} OPTION (MAXDOP 1, USE HINT ('DISALLOW_BATCH_MODE'))"),
    );
    ok(&mut s, "SET STATISTICS XML OFF");
    let actual = format!("{:?}", actual.result_sets());
    assert!(
        !actual.contains(r#"ActualExecutionMode=\"Batch\""#),
        "{actual}"
    );
    assert!(
        actual.contains(r#"ActualExecutionMode=\"Row\""#),
        "{actual}"
    );
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn unknown_use_hint_still_errors() {
    let (mut s, d) = session("hint");
    let out = outcome(&mut s, "SELECT 1 OPTION (USE HINT ('ALLOW_BATCH_MODEX'))");
    assert!(out.iter().any(|e| e.starts_with("error 10724")), "{out:?}");
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn large_tables_choose_batch_mode_by_default() {
    let (mut s, d) = session("threshold");
    ok(
        &mut s,
        "SET NOCOUNT ON;
         CREATE TABLE n (k int);
         DECLARE @i int = 0;
         WHILE @i < 320 BEGIN INSERT INTO n VALUES (@i); SET @i += 1; END;
         CREATE TABLE big (a int, b int);
         INSERT INTO big SELECT x.k, y.k FROM n x CROSS JOIN n y;",
    );
    let q = "SELECT a % 10, SUM(b), COUNT(*) FROM big GROUP BY a % 10";
    // 102,400 rows: over the threshold, batch mode without any hint
    let plan = plan_text(&mut s, &format!("{q} OPTION (MAXDOP 1)"));
    assert!(plan.contains("Batch mode"), "{plan}");
    let plan = plan_text(&mut s, "SELECT SUM(k) FROM n OPTION (MAXDOP 1)");
    assert!(!plan.contains("Batch mode"), "{plan}");
    // a whole-table COUNT(*) counts slot arrays in either mode: row mode unless forced
    let plan = plan_text(&mut s, "SELECT COUNT(*) FROM big OPTION (MAXDOP 1)");
    assert!(!plan.contains("Batch mode"), "{plan}");
    let plan = plan_text(
        &mut s,
        "SELECT COUNT(*) FROM big WHERE b > 3 OPTION (MAXDOP 1)",
    );
    assert!(plan.contains("Batch mode"), "{plan}");
    check_same(&mut s, q, 1);
    check_same(&mut s, q, 2);
    check_same(&mut s, "SELECT COUNT(*) FROM big", 1);
    let _ = std::fs::remove_dir_all(d);
}
