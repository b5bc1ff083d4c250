//! SQL fuzzer with differential oracles (issue 8, fuzzing part a). See fuzz/README.md.
//!
//! Random queries and DML over the schema of `fuzzlib::sqlgen` run in-process; every statement
//! must finish without a panic and without an internal error (8630, 824, ...), and each query's
//! answer must equal the answer of an equivalent statement that runs a different plan:
//! * the same query with `OPTION (HASH JOIN)`, `OPTION (LOOP JOIN)` or `OPTION (MERGE JOIN)`;
//! * the same query against the twin tables (same rows, other storage: heap vs clustered,
//!   with vs without nonclustered indexes);
//! * TLP (SQLancer's ternary logic partitioning): `WHERE p` split into the UNION ALL of
//!   `p`, `NOT p` and `p IS UNKNOWN` must give the rows of the unfiltered query.
//!
//! DML runs against a table and its twin; row counts, errors and the table contents must agree.
//!
//! Results are compared as multisets (in order when the query orders by every output column);
//! strings compare case- and blank-insensitively because the default collation is.
//!
//! Knobs: LATCHKEY_FUZZ_SEED, LATCHKEY_FUZZ_STATEMENTS (CI default 10000),
//! LATCHKEY_FUZZ_SECONDS (stop after this long), LATCHKEY_FUZZ_CONTINUE=1 (report every failure
//! and go on instead of stopping at the first).
//!
//! `hostile_shapes_*`: deep nesting, long JOIN chains, many derived tables, chained CTEs, huge
//! REPLICATE, each in a child process (a stack overflow aborts the process, which no
//! catch_unwind can catch); the child must exit normally with either a result or an error.

mod fuzzlib;

use std::time::{Duration, Instant};

use engine::Session;
use fuzzlib::sqlgen::{self, base, twin};
use fuzzlib::{exec, is_internal_error, knob, Outcome, Rng};

/// Errors that SQL Server itself raises or not depending on the order the plan evaluates
/// expressions in (a subquery returning several rows for a row another plan filters first).
fn plan_dependent_error(n: i32) -> bool {
    matches!(
        n,
        512 | 8134 | 8115 | 220 | 8152 | 241 | 242 | 517 | 8623 | 8622
    )
}

/// Case- and blank-insensitive rendering of a result row (the default collation compares
/// strings that way, so which of 'a' / 'A ' a GROUP BY or UNION keeps is the plan's choice).
fn normalise(set: &[String]) -> Vec<String> {
    set.iter()
        .map(|row| {
            let mut out = String::new();
            for part in row.split(" | ") {
                let p = if let Some(s) = part
                    .strip_prefix("VarChar(\"")
                    .or_else(|| part.strip_prefix("Char(\""))
                    .or_else(|| part.strip_prefix("NVarChar(\""))
                    .or_else(|| part.strip_prefix("NChar(\""))
                {
                    format!("S({})", s.trim_end_matches("\")").trim().to_lowercase())
                } else {
                    part.to_string()
                };
                out.push_str(&p);
                out.push('|');
            }
            out
        })
        .collect()
}

fn same_rows(a: &[String], b: &[String], ordered: bool) -> bool {
    let (mut a, mut b) = (normalise(a), normalise(b));
    if !ordered {
        a.sort();
        b.sort();
    }
    a == b
}

struct Failure {
    kind: &'static str,
    detail: String,
    /// How to re-check just this failure (for the shrink step); set by `run_step`.
    recheck: Option<Recheck>,
}

fn fail(kind: &'static str, detail: String) -> Failure {
    Failure {
        kind,
        detail,
        recheck: None,
    }
}

/// The exact statements of a failure, re-run against a replayed database state.
#[derive(Clone)]
enum Recheck {
    /// A statement panicked or raised an internal error.
    Single(String),
    /// A query and its variant disagreed.
    Pair {
        label: &'static str,
        orig: String,
        alt: String,
        ordered: bool,
    },
    /// A DML statement (placeholders) behaved differently on a table and its twin.
    Dml(String),
}

/// Runs one statement: a panic or an internal error is a failure.
fn run(s: &mut Session, sql: &str, stats: &mut Stats) -> Result<Outcome, Failure> {
    stats.statements += 1;
    let single = |kind, detail| Failure {
        kind,
        detail,
        recheck: Some(Recheck::Single(sql.to_string())),
    };
    let o = exec(s, sql).map_err(|p| single("panic", format!("{p}\n  statement: {sql}")))?;
    if let Some((n, m)) = o.errors.iter().find(|(n, _)| is_internal_error(*n)) {
        return Err(single(
            "internal error",
            format!("Msg {n}: {m}\n  statement: {sql}"),
        ));
    }
    Ok(o)
}

/// Compares the outcome of `alt` with the reference outcome of `orig`.
fn compare(
    label: &str,
    orig_sql: &str,
    orig: &Outcome,
    alt_sql: &str,
    alt: &Outcome,
    ordered: bool,
) -> Result<(), Failure> {
    if !orig.ok() || !alt.ok() {
        let all: Vec<i32> = orig
            .error_numbers()
            .into_iter()
            .chain(alt.error_numbers())
            .collect();
        if orig.error_numbers() == alt.error_numbers()
            || all.iter().all(|n| plan_dependent_error(*n))
        {
            return Ok(());
        }
        return Err(fail(
            "different errors",
            format!(
                "{label}\n  statement: {orig_sql}\n  errors:    {:?}\n  variant:   {alt_sql}\n  errors:    {:?}",
                orig.errors, alt.errors
            ),
        ));
    }
    let (a, b) = (
        orig.sets.first().cloned().unwrap_or_default(),
        alt.sets.first().cloned().unwrap_or_default(),
    );
    if same_rows(&a, &b, ordered) {
        return Ok(());
    }
    Err(fail(
        "different results",
        format!(
            "{label}\n  statement: {orig_sql}\n  rows ({}): {:?}\n  variant:   {alt_sql}\n  rows ({}): {:?}",
            a.len(),
            truncate(&a),
            b.len(),
            truncate(&b)
        ),
    ))
}

fn truncate(rows: &[String]) -> Vec<String> {
    rows.iter().take(12).cloned().collect()
}

#[derive(Default)]
struct Stats {
    statements: u64,
    queries: u64,
    dml: u64,
    compared: u64,
    errors: u64,
    failures: u64,
}

/// One step of an epoch: a query with its variants, or a DML statement applied to a table and
/// its twin.
enum Step {
    Query(sqlgen::Query),
    Dml(String),
}

fn gen_step(r: &mut Rng, next_id: &mut i64) -> Step {
    if r.chance(20) {
        Step::Dml(sqlgen::dml(r, next_id))
    } else {
        Step::Query(sqlgen::query(r))
    }
}

fn run_step(s: &mut Session, step: &Step, r: &mut Rng, stats: &mut Stats) -> Result<(), Failure> {
    match step {
        Step::Dml(sql) => run_dml(s, sql, stats).map_err(|mut f| {
            f.recheck.get_or_insert(Recheck::Dml(sql.clone()));
            f
        }),
        Step::Query(q) => {
            stats.queries += 1;
            let sql = base(&q.sql());
            let orig = run(s, &sql, stats)?;
            if !orig.ok() {
                stats.errors += 1;
            }
            // One or two variants per query keeps the statement mix varied.
            let mut variants: Vec<(&str, String)> = Vec::new();
            let hint = *r.pick(&["HASH JOIN", "LOOP JOIN", "MERGE JOIN"]);
            variants.push(("join hint", format!("{sql} OPTION ({hint})")));
            variants.push(("twin tables", twin(&q.sql())));
            if let Some(t) = q.tlp_sql() {
                variants.push(("TLP", base(&t)));
            }
            let k = r.below(variants.len() as u64) as usize;
            let mut chosen = vec![variants.swap_remove(k)];
            if r.chance(40) && !variants.is_empty() {
                let k = r.below(variants.len() as u64) as usize;
                chosen.push(variants.swap_remove(k));
            }
            for (label, alt_sql) in chosen {
                let alt = run(s, &alt_sql, stats)?;
                if q.nondeterministic {
                    continue;
                }
                // Merge Join has no full outer form: a MERGE JOIN hint over a FULL join has
                // no plan (Msg 8622, as SQL Server when no plan satisfies the hints)
                if alt_sql.ends_with("OPTION (MERGE JOIN)") && alt.error_numbers() == [8622] {
                    continue;
                }
                stats.compared += 1;
                // TLP reorders rows (UNION ALL of three parts): never ordered.
                let ordered = q.ordered && label != "TLP";
                compare(label, &sql, &orig, &alt_sql, &alt, ordered).map_err(|mut f| {
                    f.recheck = Some(Recheck::Pair {
                        label,
                        orig: sql.clone(),
                        alt: alt_sql.clone(),
                        ordered,
                    });
                    f
                })?;
            }
            Ok(())
        }
    }
}

/// A DML statement on a table and on its twin: same success, same row counts, same contents.
fn run_dml(s: &mut Session, sql: &str, stats: &mut Stats) -> Result<(), Failure> {
    {
        {
            stats.dml += 1;
            let (b, t) = (base(sql), twin(sql));
            let ob = run(s, &b, stats)?;
            let ot = run(s, &t, stats)?;
            if !ob.ok() {
                stats.errors += 1;
            }
            // 2627 (PRIMARY KEY) on t1 is 2601 (unique index) on h1: compare failing or not.
            if ob.ok() != ot.ok() || (ob.ok() && ob.row_counts != ot.row_counts) {
                return Err(fail(
                    "DML differs between table and twin",
                    format!(
                        "\n  statement: {b}\n  outcome:   {:?} {:?}\n  twin:      {t}\n  outcome:   {:?} {:?}",
                        ob.row_counts, ob.errors, ot.row_counts, ot.errors
                    ),
                ));
            }
            for n in 1..=3 {
                let q = format!("SELECT id, a, b, c, d FROM t{n}");
                let qt = format!("SELECT id, a, b, c, d FROM h{n}");
                let (x, y) = (run(s, &q, stats)?, run(s, &qt, stats)?);
                compare("contents after DML", &q, &x, &qt, &y, false)
                    .map_err(|f| fail(f.kind, format!("after {b}\n{}", f.detail)))?;
            }
            Ok(())
        }
    }
}

/// Re-runs a failure's statements; true when it still fails.
fn still_fails(s: &mut Session, check: &Recheck) -> bool {
    let mut stats = Stats::default();
    match check {
        Recheck::Single(sql) => run(s, sql, &mut stats).is_err(),
        Recheck::Dml(sql) => run_dml(s, sql, &mut stats).is_err(),
        Recheck::Pair {
            label,
            orig,
            alt,
            ordered,
        } => {
            let (Ok(o), Ok(a)) = (run(s, orig, &mut stats), run(s, alt, &mut stats)) else {
                return true;
            };
            compare(label, orig, &o, alt, &a, *ordered).is_err()
        }
    }
}

fn new_session(dir: &std::path::Path) -> Session {
    let e = fuzzlib::open_engine(dir).expect("open engine");
    let mut s = Session::new(e);
    let o = exec(&mut s, sqlgen::SCHEMA).expect("schema");
    assert!(o.ok(), "schema: {:?}", o.errors);
    s
}

const STEPS_PER_EPOCH: usize = 40;

/// Replays the epoch's reset and the DML statements `dml`, then re-checks the failure.
fn replays_failing(dir: &std::path::Path, reset: &str, dml: &[String], check: &Recheck) -> bool {
    let _ = std::fs::remove_dir_all(dir);
    let mut s = new_session(dir);
    let mut stats = Stats::default();
    let ok = exec(&mut s, reset).is_ok()
        && dml.iter().all(|d| run_dml(&mut s, d, &mut stats).is_ok())
        && still_fails(&mut s, check);
    drop(s);
    let _ = std::fs::remove_dir_all(dir);
    ok
}

/// Shrinks a failure to the DML statements it needs (queries change nothing, so only the
/// epoch's DML is replayed), dropping one statement at a time while the failure persists.
/// None when the failure does not reproduce on a fresh database.
fn shrink(
    dir: &std::path::Path,
    reset: &str,
    steps: &[Step],
    check: &Recheck,
) -> Option<Vec<String>> {
    let mut keep: Vec<String> = steps
        .iter()
        .filter_map(|s| match s {
            Step::Dml(d) => Some(d.clone()),
            Step::Query(_) => None,
        })
        .collect();
    if !replays_failing(dir, reset, &keep, check) {
        return None;
    }
    let mut i = 0;
    while i < keep.len() {
        let mut cand = keep.clone();
        cand.remove(i);
        if replays_failing(dir, reset, &cand, check) {
            keep = cand;
        } else {
            i += 1;
        }
    }
    Some(keep)
}

fn describe(step: &Step) -> String {
    match step {
        Step::Dml(s) => base(s),
        Step::Query(q) => base(&q.sql()),
    }
}

#[test]
fn sql_fuzz_differential() {
    fuzzlib::quiet_panics();
    let seed = fuzzlib::seed(20261124);
    let target = knob("LATCHKEY_FUZZ_STATEMENTS", 10000);
    let seconds = knob("LATCHKEY_FUZZ_SECONDS", 0);
    let keep_going = knob("LATCHKEY_FUZZ_CONTINUE", 0) != 0;
    eprintln!("sql fuzz: seed {seed}, target {target} statements (LATCHKEY_FUZZ_SEED={seed} to reproduce)");
    let scratch = fuzzlib::Scratch::new("sql");
    let mut s = new_session(&scratch.path().join("main"));
    let mut stats = Stats::default();
    let start = Instant::now();
    let mut failures = Vec::new();
    let mut epoch = 0u64;
    'outer: while stats.statements < target {
        if seconds > 0 && start.elapsed() > Duration::from_secs(seconds) {
            break;
        }
        epoch += 1;
        if epoch.is_multiple_of(500) {
            eprintln!(
                "sql fuzz: {} statements, {} failures, {:.0}s",
                stats.statements,
                stats.failures,
                start.elapsed().as_secs_f64()
            );
        }
        let mut r = Rng::new(seed.wrapping_mul(1_000_003).wrapping_add(epoch));
        let rows = r.range(4, 24) as usize;
        let reset = sqlgen::reset_data(&mut r, rows);
        let o = exec(&mut s, &reset)
            .map_err(|p| format!("reset panicked: {p}"))
            .unwrap();
        assert!(o.ok(), "reset: {:?}", o.errors);
        let mut next_id = 100;
        let mut steps = Vec::new();
        for _ in 0..STEPS_PER_EPOCH {
            steps.push(gen_step(&mut r, &mut next_id));
        }
        let mut vr = Rng::new(r.next());
        for (i, step) in steps.iter().enumerate() {
            if let Err(f) = run_step(&mut s, step, &mut vr, &mut stats) {
                stats.failures += 1;
                let mut report = format!(
                    "[{}] seed {seed} epoch {epoch} step {i}: {}\n",
                    f.kind, f.detail
                );
                let shrunk = match &f.recheck {
                    Some(check) if f.kind != "panic" => {
                        shrink(&scratch.path().join("shrink"), &reset, &steps[..i], check)
                    }
                    _ => None,
                };
                match shrunk {
                    Some(dml) => {
                        report.push_str(&format!(
                            "  reproduces after the schema, the epoch's data and these {} DML statements:\n",
                            dml.len()
                        ));
                        for d in &dml {
                            report.push_str(&format!("    {}\n", base(d)));
                        }
                    }
                    None => {
                        report.push_str("  (not shrunk) statements of the epoch before it:\n");
                        for st in &steps[..i] {
                            report.push_str(&format!("    {}\n", describe(st)));
                        }
                    }
                }
                report.push_str(&format!(
                    "  epoch data: {}\n",
                    reset.replace('\n', "\n    ")
                ));
                eprintln!("{report}");
                failures.push(report);
                if !keep_going {
                    break 'outer;
                }
                // A panic may leave the session in any state: start over.
                s = new_session(&scratch.path().join(format!("main{epoch}")));
                continue 'outer;
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "sql fuzz: seed {seed}: {} statements ({} queries, {} DML, {} comparisons, {} statement errors) in {secs:.1}s, {} failures",
        stats.statements, stats.queries, stats.dml, stats.compared, stats.errors, stats.failures
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// Regression tests of the fuzzer's findings (fuzz/FINDINGS.md).

fn answers(s: &mut Session, sql: &str) -> Outcome {
    let o = exec(s, sql).unwrap_or_else(|p| panic!("{sql}: panic {p}"));
    assert!(o.ok(), "{sql}: {:?}", o.errors);
    o
}

/// F1: a FULL JOIN with an equality key under `OPTION (LOOP JOIN)` was planned as nested loops,
/// which cannot return the unmatched inner rows (Msg 8630 "nested loops cannot run right/full
/// outer joins"); it must answer like the unhinted query.
#[test]
fn finding_full_join_under_loop_hint() {
    let scratch = fuzzlib::Scratch::new("f1");
    let mut s = new_session(scratch.path());
    answers(
        &mut s,
        "INSERT t1 (id, a) VALUES (1, 1), (2, 2), (3, NULL)
         INSERT t2 (id, a) VALUES (10, 2), (11, 5)",
    );
    let q = "SELECT x.id, y.id FROM t1 AS x FULL JOIN t2 AS y ON x.a = y.a";
    let plain = answers(&mut s, q);
    assert_eq!(plain.sets[0].len(), 4, "{:?}", plain.sets);
    // MERGE JOIN: exec's Merge Join has no full outer form, so no plan satisfies the hint (8622)
    let merge = exec(&mut s, &format!("{q} OPTION (MERGE JOIN)")).expect("no panic");
    assert_eq!(merge.error_numbers(), [8622], "{:?}", merge.errors);
    for hint in ["LOOP JOIN", "HASH JOIN"] {
        let hinted = answers(&mut s, &format!("{q} OPTION ({hint})"));
        assert!(
            same_rows(&plain.sets[0], &hinted.sets[0], false),
            "{hint}: {:?}",
            hinted.sets
        );
    }
    // Three-way: the FULL JOIN below a LEFT JOIN, as the fuzzer found it.
    let q3 = "SELECT x.id, y.id, z.id FROM t1 AS x FULL JOIN t2 AS y ON x.a = y.a LEFT JOIN t3 AS z ON x.a = z.a";
    let plain = answers(&mut s, q3);
    let hinted = answers(&mut s, &format!("{q3} OPTION (LOOP JOIN)"));
    assert!(same_rows(&plain.sets[0], &hinted.sets[0], false));
}

/// F2: an UPDATE whose SET expression has a subquery over the target table read rows the
/// statement had already updated (values computed while writing), so a clustered table and a
/// heap with the same rows ended different. Every value must be computed from the table as it
/// was before the statement.
#[test]
fn finding_update_set_subquery_reads_target_before_update() {
    let scratch = fuzzlib::Scratch::new("f2");
    let mut s = new_session(scratch.path());
    for t in ["t3", "h3"] {
        answers(
            &mut s,
            &format!("INSERT {t} (id, c, d) VALUES (1, 1.00, '2020-01-01'), (2, 2.00, '2020-01-02'), (3, 3.00, '2020-01-03')"),
        );
        answers(
            &mut s,
            &format!(
                "UPDATE u SET c = (SELECT SUM(x.c) FROM {t} AS x WHERE x.id <> u.id) FROM {t} AS u"
            ),
        );
        // Each row gets the sum of the other rows before the update: 5, 4, 3 (reading updated
        // rows gave 5, 8, 13 in storage order).
        let o = answers(
            &mut s,
            &format!("SELECT id, CAST(c AS int) FROM {t} ORDER BY id"),
        );
        let want: Vec<String> = ["Int(1) | Int(5)", "Int(2) | Int(4)", "Int(3) | Int(3)"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(o.sets[0], want, "{t}");
    }
}

/// F6 (F2's twin in MERGE): `WHEN MATCHED THEN UPDATE SET` with a subquery over the target
/// computed values while writing; every value must come from the table before the statement.
#[test]
fn finding_merge_set_subquery_reads_target_before_update() {
    let scratch = fuzzlib::Scratch::new("f6");
    let mut s = new_session(scratch.path());
    answers(&mut s, "INSERT t2 (id, a) VALUES (1, 1), (2, 2), (3, 3)");
    answers(
        &mut s,
        "MERGE t2 AS tg USING (SELECT id FROM t1 UNION ALL SELECT id FROM t2) AS src ON tg.id = src.id
         WHEN MATCHED THEN UPDATE SET a = (SELECT SUM(x.a) FROM t2 AS x WHERE x.id <> tg.id);",
    );
    let o = answers(&mut s, "SELECT id, a FROM t2 ORDER BY id");
    let want: Vec<String> = ["Int(1) | Int(5)", "Int(2) | Int(4)", "Int(3) | Int(3)"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(o.sets[0], want);
}

/// F4: the result of a correlated subquery was reused for every outer row whose correlated
/// values were equal under the collation ('b' and 'B '), although the subquery's answer can
/// differ for them (`x2.b + x1.b`).
#[test]
fn finding_correlated_subquery_cache_tells_collation_equal_strings_apart() {
    let scratch = fuzzlib::Scratch::new("f4");
    let mut s = new_session(scratch.path());
    answers(
        &mut s,
        "INSERT t2 (id, b) VALUES (1, 'b'), (2, 'B '), (3, 'a'), (4, 'A')",
    );
    let o = answers(
        &mut s,
        "SELECT x1.id, (SELECT MIN(x2.b + x1.b) FROM t2 AS x2 WHERE x2.id = 3) AS m FROM t2 AS x1 ORDER BY x1.id",
    );
    let want: Vec<String> = [
        "Int(1) | VarChar(\"ab\")",
        "Int(2) | VarChar(\"aB \")",
        "Int(3) | VarChar(\"aa\")",
        "Int(4) | VarChar(\"aA\")",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(o.sets[0], want);
}

// ---------------------------------------------------------------------------------------------
// Hostile shapes (issue 8 finding 6), each in a child process: a stack overflow or an abort on
// allocation failure kills the process, which `catch_unwind` cannot see. The child runs with a
// 4 GiB address-space limit; it must exit normally, with a result or with an error.

fn repeat_join(n: usize, sep: &str, f: impl Fn(usize) -> String) -> String {
    (0..n).map(f).collect::<Vec<_>>().join(sep)
}

fn hostile(name: &str) -> String {
    match name {
        "deep_parens" => format!("SELECT {}1{}", "(".repeat(3000), ")".repeat(3000)),
        "deep_subqueries" => format!("SELECT {}1{}", "(SELECT ".repeat(400), ")".repeat(400)),
        "deep_case" => format!(
            "SELECT {}0{}",
            "CASE WHEN 1 = 1 THEN ".repeat(1000),
            " END".repeat(1000)
        ),
        "long_and_chain" => format!(
            "SELECT COUNT(*) FROM t1 WHERE {}",
            repeat_join(5000, " AND ", |i| format!("id <> {i}"))
        ),
        "long_or_chain" => format!(
            "SELECT COUNT(*) FROM t1 WHERE {}",
            repeat_join(5000, " OR ", |i| format!("id = {i}"))
        ),
        "long_plus_chain" => format!("SELECT {}", repeat_join(5000, " + ", |i| i.to_string())),
        "join_chain_1000" => format!(
            "SELECT COUNT(*) FROM (SELECT 1 a) t0 {}",
            repeat_join(1000, " ", |i| format!(
                "JOIN (SELECT 1 a) t{} ON t0.a = t{}.a",
                i + 1,
                i + 1
            ))
        ),
        "derived_tables_900" => format!(
            "SELECT COUNT(*) FROM {}",
            repeat_join(900, ", ", |i| format!("(SELECT 1 a) d{i}"))
        ),
        "chained_ctes_700" => format!(
            "WITH c0 AS (SELECT 1 a), {} SELECT a FROM c700",
            repeat_join(700, ", ", |i| format!("c{} AS (SELECT a FROM c{i})", i + 1))
        ),
        "union_chain_2000" => repeat_join(2000, " UNION ALL ", |i| format!("SELECT {i}")),
        "nested_views_40" => {
            let mut s = "CREATE VIEW v0 AS SELECT 1 a\nGO\n".to_string();
            for i in 1..=40 {
                s.push_str(&format!(
                    "CREATE VIEW v{i} AS SELECT a FROM v{}\nGO\n",
                    i - 1
                ));
            }
            s.push_str("SELECT a FROM v40");
            s
        }
        "huge_replicate" => {
            "SELECT LEN(REPLICATE(CAST(REPLICATE('y', 8000) AS varchar(max)) + 'z', 100000000))"
                .into()
        }
        "replicate_capacity" => {
            "SELECT LEN(REPLICATE(CAST('ab' AS varchar(max)), 9223372036854775807))".into()
        }
        // 7119 ends the statement, not the batch (as in SQL Server): the loop is bounded so
        // that the passes after the cap end too
        "string_doubling" => "DECLARE @s varchar(max) = 'x', @i int = 0\n\
             WHILE @i < 40 BEGIN SET @s = @s + @s; SET @i += 1 END\n\
             SELECT LEN(@s)"
            .into(),
        _ => panic!("unknown hostile shape {name}"),
    }
}

/// Shapes that pass on main (in CI).
const HOSTILE_OK: &[&str] = &[
    "deep_parens",
    "deep_subqueries",
    "deep_case",
    "long_and_chain",
    "long_or_chain",
    "long_plus_chain",
    "union_chain_2000",
    "nested_views_40",
    "replicate_capacity",
];

/// Shapes that crash or run away on main (issue 8 finding 6, owned by h/limits).
const HOSTILE_NEEDS_LIMITS: &[&str] = &[
    "join_chain_1000",
    "derived_tables_900",
    "chained_ctes_700",
    "huge_replicate",
    "string_doubling",
];

const HOSTILE_ENV: &str = "LATCHKEY_FUZZ_HOSTILE_CHILD";
const HOSTILE_DIR_ENV: &str = "LATCHKEY_FUZZ_HOSTILE_DIR";

/// In the child: run the shape under a 4 GiB address-space limit, print the outcome.
fn hostile_child(name: &str) {
    let limit = libc::rlimit {
        rlim_cur: 4 << 30,
        rlim_max: 4 << 30,
    };
    // SAFETY: setrlimit with a valid pointer to an initialised struct.
    unsafe { libc::setrlimit(libc::RLIMIT_AS, &limit) };
    // The parent owns the directory: a child killed by an abort cannot clean up.
    let dir = std::env::var(HOSTILE_DIR_ENV).expect("directory from the parent");
    let mut s = new_session(std::path::Path::new(&dir));
    let mut last = None;
    for batch in hostile(name).split("\nGO\n") {
        last = Some(exec(&mut s, batch));
    }
    match last {
        Some(Ok(o)) => println!("HOSTILE-DONE {name}: errors {:?}", o.error_numbers()),
        Some(Err(p)) => println!("HOSTILE-PANIC {name}: {p}"),
        None => {}
    }
}

/// A hostile shape must end (with a result or an error) within this time, or the test fails.
const HOSTILE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(300);

/// Waits for `child`, killing it once `limit` has passed (a hang is a failure, not a stuck CI).
fn wait_bounded(
    mut child: std::process::Child,
    limit: std::time::Duration,
) -> std::process::Output {
    let start = Instant::now();
    // drain the pipes on threads so a chatty child cannot block on a full pipe
    let mut so = child.stdout.take().expect("piped stdout");
    let mut se = child.stderr.take().expect("piped stderr");
    let out_t = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = std::io::Read::read_to_end(&mut so, &mut b);
        b
    });
    let err_t = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = std::io::Read::read_to_end(&mut se, &mut b);
        b
    });
    let status = loop {
        if let Some(st) = child.try_wait().expect("wait for child") {
            break st;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            break child.wait().expect("wait for killed child");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    std::process::Output {
        status,
        stdout: out_t.join().unwrap_or_default(),
        stderr: err_t.join().unwrap_or_default(),
    }
}

fn run_hostile(names: &[&str]) {
    let exe = std::env::current_exe().expect("test binary");
    let mut bad = Vec::new();
    for name in names {
        let start = Instant::now();
        let scratch = fuzzlib::Scratch::new("hostile");
        let child = std::process::Command::new(&exe)
            .args([
                "hostile_child_entry",
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(HOSTILE_ENV, name)
            .env(HOSTILE_DIR_ENV, scratch.path())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn child");
        let out = wait_bounded(child, HOSTILE_TIMEOUT);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let line = stdout
            .lines()
            .find_map(|l| l.find("HOSTILE-").map(|i| l[i..].to_string()))
            .unwrap_or_default();
        eprintln!(
            "hostile {name}: {:?} in {:.1}s: {line}",
            out.status,
            start.elapsed().as_secs_f64()
        );
        if !out.status.success() || !line.starts_with("HOSTILE-DONE") {
            let stderr = String::from_utf8_lossy(&out.stderr);
            let tail: String = stderr
                .chars()
                .rev()
                .take(600)
                .collect::<String>()
                .chars()
                .rev()
                .collect();
            bad.push(format!("{name}: {:?} {line}\n{tail}", out.status));
        } else if line.contains("8630") {
            bad.push(format!("{name}: internal error: {line}"));
        }
    }
    assert!(bad.is_empty(), "hostile shapes failed:\n{}", bad.join("\n"));
}

/// The child's entry point (does nothing when run as a normal test).
#[test]
fn hostile_child_entry() {
    if let Ok(name) = std::env::var(HOSTILE_ENV) {
        hostile_child(&name);
    }
}

#[test]
fn hostile_shapes() {
    run_hostile(HOSTILE_OK);
}

#[test]
fn hostile_shapes_needing_limits() {
    run_hostile(HOSTILE_NEEDS_LIMITS);
}
