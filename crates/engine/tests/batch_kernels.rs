//! Late materialization in the batch scan and the LIKE / CASE / YEAR-MONTH-DAY kernels
//! (exec README "Batch mode"): every query runs in row mode and in batch mode (checked in
//! the plan) and must give the same rows, messages and errors — over tables of several
//! batches (heap and clustered), with NULLs, empty strings, trailing blanks, case
//! differences, char padding, Unicode text, patterns with every wildcard and ESCAPE, dates at
//! the type's limits, and errors that only some rows raise.

mod common;

use common::{fresh_session, ok, outcome_as, plan_text, OutcomeFormat};
use engine::{EngineConfig, Session};

fn session(tag: &str) -> (Session, std::path::PathBuf) {
    fresh_session("bkern", tag, EngineConfig::default())
}

/// Result sets (rows sorted), then message and error numbers in order.
fn outcome(s: &mut Session, sql: &str) -> Vec<String> {
    outcome_as(
        s,
        sql,
        OutcomeFormat {
            row_count: false,
            error_text: true,
        },
    )
}

/// Row mode's outcome of `q`, checked equal to batch mode's (batch mode in the plan).
fn check_same(s: &mut Session, q: &str) -> Vec<String> {
    let batch_q = format!("{q} OPTION (MAXDOP 1, USE HINT ('ALLOW_BATCH_MODE'))");
    let plan = plan_text(s, &batch_q);
    assert!(
        plan.contains("Batch mode"),
        "{q}: no batch operator in\n{plan}"
    );
    let row = outcome(
        s,
        &format!("{q} OPTION (MAXDOP 1, USE HINT ('DISALLOW_BATCH_MODE'))"),
    );
    let batch = outcome(s, &batch_q);
    assert_eq!(row, batch, "{q}");
    row
}

fn check_contains(s: &mut Session, q: &str, want: &str) {
    let out = check_same(s, q);
    assert!(out.join(" ").contains(want), "{q}: {want} not in {out:?}");
}

/// `h` (heap) and `k` (clustered) with 6,000 rows: several batches and pages. Strings of
/// every shape LIKE meets, dates from 0001-01-01 to 9999-12-31, NULLs in every column.
fn setup(s: &mut Session) {
    let cols = "n int NOT NULL, i int NULL, v varchar(40) NULL, c char(30) NULL,
                nv nvarchar(40) NULL, dt date NULL, dn decimal(9,2) NULL";
    ok(
        s,
        &format!(
            "CREATE TABLE h ({cols});
             CREATE TABLE k ({cols}, PRIMARY KEY (n));
             CREATE TABLE words (w int NOT NULL, t varchar(40) NULL, u nvarchar(40) NULL);
             SET NOCOUNT ON;
             INSERT INTO words VALUES
               (0, 'PROMO BRUSHED TIN', N'PROMO BRUSHED TIN'), (1, 'promo plated brass', N'promo plated brass'),
               (2, 'LARGE BRASS', N'LARGE BRASS'), (3, 'forest green lace', N'forest green lace'),
               (4, 'special requests packages', N'special requests packages'),
               (5, 'requests special', N'requests special'), (6, '', N''), (7, NULL, NULL),
               (8, 'abc  ', N'abc  '), (9, 'a%b_c[d]', N'a%b_c[d]'), (10, 'Ünïcode brass', N'Ünïcode brass ж'),
               (11, '  ', N'  '), (12, 'MEDIUM POLISHED STEEL', N'MEDIUM POLISHED STEEL'),
               (13, 'Customer xx Complaints', N'Customer xx Complaints'), (14, 'x', N'x'),
               (15, 'ABC', N'abc'), (16, 'a1b2', N'a1b2');"
        ),
    );
    let fill = "SELECT q.n, CASE WHEN q.n % 11 = 0 THEN NULL ELSE q.n % 97 - 40 END,
                       CASE WHEN q.n % 13 = 0 THEN NULL ELSE CONCAT(w.t, q.n % 5) END,
                       w.t,
                       CASE WHEN q.n % 7 = 0 THEN NULL ELSE w.u END,
                       CASE WHEN q.n % 17 = 0 THEN NULL
                            WHEN q.n % 17 = 1 THEN CAST('0001-01-01' AS date)
                            WHEN q.n % 17 = 2 THEN CAST('9999-12-31' AS date)
                            WHEN q.n % 17 = 3 THEN CAST('2024-02-29' AS date)
                            ELSE DATEADD(day, q.n * 37, CAST('1992-01-01' AS date)) END,
                       CASE WHEN q.n % 19 = 0 THEN NULL ELSE (q.n % 1000) / 100.0 END
                FROM (SELECT TOP (6000) CAST(ROW_NUMBER() OVER (ORDER BY (SELECT NULL)) AS int) n
                      FROM master..spt_values a CROSS JOIN master..spt_values b) q
                JOIN words w ON w.w = q.n % 17";
    ok(s, &format!("INSERT INTO h {fill}; INSERT INTO k {fill};"));
}

/// The scan evaluates its predicate's conjuncts first and decodes the other columns only
/// for the rows that pass: results, the scan's COUNT(*) path and errors of later conjuncts
/// (raised only for rows the earlier ones let through) are row mode's.
#[test]
fn late_materialization_matches_row_mode() {
    let (mut s, d) = session("late");
    setup(&mut s);
    for t in ["h", "k"] {
        for q in [
            // selective: one row in 17 passes the first conjunct
            format!("SELECT COUNT(*), SUM(dn), MIN(v), MAX(nv), MIN(dt) FROM {t} WHERE n % 17 = 3 AND i > 0"),
            format!("SELECT i % 5, COUNT(*), SUM(dn), MAX(c) FROM {t} WHERE dn < 2 AND v IS NOT NULL GROUP BY i % 5"),
            // nothing passes
            format!("SELECT COUNT(*), SUM(dn), MAX(v) FROM {t} WHERE i > 1000"),
            // everything passes
            format!("SELECT COUNT(*), SUM(dn), MAX(v) FROM {t} WHERE dn IS NULL OR dn >= 0"),
            // the scan's COUNT(*) with a predicate
            format!("SELECT COUNT(*) FROM {t} WHERE i BETWEEN -3 AND 3 AND dn > 1"),
            // OR and NOT as one conjunct, a column read by two conjuncts
            format!("SELECT COUNT(*), SUM(i) FROM {t} WHERE (i < -30 OR dn > 9) AND NOT (i = -35) AND dt > '2000-01-01'"),
            // a compute scalar above the filtered scan
            format!("SELECT SUM(dn * 2 + i), COUNT(DISTINCT v) FROM {t} WHERE i >= 10 AND dn IS NOT NULL"),
            // the divisor is zero only on rows the first conjunct removes
            format!("SELECT COUNT(*), SUM(100 / (i - 7)) FROM {t} WHERE i > 10 AND 100 / (i - 7) > 0"),
        ] {
            check_same(&mut s, &q);
        }
        // the zero divisor on a row the first conjunct keeps: Msg 8134 in both modes
        check_contains(
            &mut s,
            &format!("SELECT COUNT(*) FROM {t} WHERE i < 10 AND 100 / (i - 7) > 0"),
            "error 8134",
        );
        check_contains(
            &mut s,
            &format!("SELECT COUNT(*) FROM {t} WHERE n % 17 = 3 AND i > 0"),
            "Int(",
        );
    }
    let _ = std::fs::remove_dir_all(d);
}

/// LIKE / NOT LIKE with constant patterns: prefix, suffix, contains, general, `_`, sets,
/// negated sets, ESCAPE, case-insensitive under the default collation, trailing blanks,
/// char padding, Unicode operands, NULLs and empty strings.
#[test]
fn like_kernel_matches_row_mode() {
    let (mut s, d) = session("like");
    setup(&mut s);
    let patterns = [
        "'promo%'",
        "'%BRASS'",
        "'%brass%'",
        "'%special%requests%'",
        "'%Customer%Complaints%'",
        "'MEDIUM POLISHED%'",
        "'abc'",
        "'abc%'",
        "'a_c'",
        "'%[a-c]%'",
        "'[^a-z]%'",
        "'%1_2%'",
        "''",
        "'%'",
        "'% '",
        "'a!%b!_c![d]%' ESCAPE '!'",
        "'a%b\\_c%' ESCAPE '\\'",
        "'%ü%'",
        "'%ж'",
        "'x%'",
    ];
    for t in ["h", "k"] {
        for p in patterns {
            for col in ["v", "c", "nv"] {
                check_same(
                    &mut s,
                    &format!(
                        "SELECT COUNT(*), SUM(CASE WHEN {col} NOT LIKE {p} THEN 1 ELSE 0 END)
                         FROM {t} WHERE {col} LIKE {p} OR n % 3 = 0"
                    ),
                );
            }
        }
    }
    // known answers (17 shapes, 6,000 rows: words 0 and 1 are 352 + 353 rows, 8 and 15 353 each)
    check_contains(
        &mut s,
        "SELECT COUNT(*) FROM h WHERE c LIKE 'PROMO%'",
        "Int(705)",
    );
    check_contains(
        &mut s,
        "SELECT COUNT(*) FROM h WHERE c LIKE 'abc'",
        "Int(706)",
    );
    let _ = std::fs::remove_dir_all(d);
}

/// Searched and simple CASE: first TRUE branch wins, NULL conditions fall through, no ELSE
/// gives NULL, results converted to the CASE's type, and a branch's error raised only for
/// the rows that take it.
#[test]
fn case_kernel_matches_row_mode() {
    let (mut s, d) = session("case");
    setup(&mut s);
    for t in ["h", "k"] {
        for q in [
            format!("SELECT SUM(CASE WHEN v LIKE 'PROMO%' THEN dn * (1 - dn) ELSE 0 END), SUM(dn) FROM {t}"),
            format!("SELECT CASE WHEN i > 0 THEN 'pos' WHEN i < 0 THEN 'neg' END, COUNT(*) FROM {t} GROUP BY CASE WHEN i > 0 THEN 'pos' WHEN i < 0 THEN 'neg' END"),
            format!("SELECT SUM(CASE i % 3 WHEN 0 THEN 1.5 WHEN 1 THEN i ELSE NULL END), COUNT(*) FROM {t}"),
            format!("SELECT MAX(CASE WHEN dt IS NULL THEN N'none' WHEN dn > 5 THEN nv ELSE v END) FROM {t}"),
            format!("SELECT SUM(CASE WHEN i = 7 THEN 0 ELSE 100 / (i - 7) END) FROM {t}"),
        ] {
            check_same(&mut s, &q);
        }
        check_contains(
            &mut s,
            &format!("SELECT SUM(CASE WHEN i > 0 THEN 100 / (i - 7) ELSE 0 END) FROM {t}"),
            "error 8134",
        );
    }
    let _ = std::fs::remove_dir_all(d);
}

/// DATEPART reads SET DATEFIRST only for week and weekday: other parts carry no
/// `@@DATEFIRST` argument (a pure expression: parallel workers may evaluate it), and the
/// week and weekday numbers still change with the setting.
#[test]
fn datepart_reads_datefirst_only_for_week_and_weekday() {
    let (mut s, d) = session("datefirst");
    let plan = plan_text(
        &mut s,
        "SELECT DATEPART(year, d), DATEPART(week, d), DATENAME(month, d) \
         FROM (VALUES (CAST('2024-03-06' AS date))) v(d)",
    );
    assert_eq!(plan.matches("@@datefirst").count(), 1, "{plan}");
    assert!(plan.contains("datepart(('year'),[Expr1000])"), "{plan}");
    let q = "SELECT DATEPART(year, d), DATEPART(week, d), DATEPART(weekday, d), DATENAME(week, d) \
             FROM (VALUES (CAST('2024-03-10' AS date))) v(d)";
    let sunday_first = outcome(&mut s, q);
    ok(&mut s, "SET DATEFIRST 1");
    let monday_first = outcome(&mut s, q);
    assert_eq!(
        sunday_first,
        [r#"rows ["[Int(2024), Int(11), Int(1), NVarChar(\"11\")]"]"#]
    );
    assert_eq!(
        monday_first,
        [r#"rows ["[Int(2024), Int(10), Int(7), NVarChar(\"10\")]"]"#]
    );
    let _ = std::fs::remove_dir_all(d);
}

/// YEAR / MONTH / DAY of date vectors, 0001-01-01 to 9999-12-31, leap days and NULLs.
#[test]
fn date_part_kernels_match_row_mode() {
    let (mut s, d) = session("date");
    setup(&mut s);
    for t in ["h", "k"] {
        for q in [
            format!("SELECT YEAR(dt), COUNT(*) FROM {t} GROUP BY YEAR(dt)"),
            format!("SELECT MONTH(dt), DAY(dt), COUNT(*) FROM {t} GROUP BY MONTH(dt), DAY(dt)"),
            format!("SELECT SUM(YEAR(dt) * 10000 + MONTH(dt) * 100 + DAY(dt)), MIN(YEAR(dt)), MAX(YEAR(dt)) FROM {t}"),
            format!("SELECT COUNT(*) FROM {t} WHERE YEAR(dt) = 1995 AND MONTH(dt) IN (1, 2)"),
            // DATEPART of year / month / day: the same kernel (TPC-H Q7, Q8, Q9)
            format!("SELECT DATEPART(year, dt), DATEPART(mm, dt), COUNT(*) FROM {t} GROUP BY DATEPART(year, dt), DATEPART(mm, dt)"),
            format!("SELECT SUM(DATEPART(yyyy, dt) * 10000 + DATEPART(m, dt) * 100 + DATEPART(dd, dt)), MAX(DATEPART(day, dt)) FROM {t}"),
            // week and weekday follow SET DATEFIRST: value by value, as row mode
            format!("SELECT DATEPART(week, dt), DATEPART(dw, dt), COUNT(*) FROM {t} GROUP BY DATEPART(week, dt), DATEPART(dw, dt)"),
        ] {
            check_same(&mut s, &q);
        }
        check_contains(
            &mut s,
            &format!("SELECT MIN(YEAR(dt)), MAX(YEAR(dt)), MAX(DAY(dt)) FROM {t}"),
            "[Int(1), Int(9999), Int(31)]",
        );
    }
    let _ = std::fs::remove_dir_all(d);
}
