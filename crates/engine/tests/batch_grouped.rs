//! The batch aggregate's group lookups (one integer key, packed integer / date / string
//! keys, the general byte keys), its dense COUNT / SUM / AVG accumulators and the dense
//! decimal + − × kernel (exec `batch/groups.rs`, `batch/mod.rs`, `batch/expr.rs`): every
//! query runs in row mode and in batch mode (checked in the plan), serially and at DOP 2,
//! and must give the same rows, messages and errors — NULL keys and values, many groups
//! beyond a batch, one group, empty input, keys equal under the case-insensitive collation,
//! negative decimals, scale changes, money, and overflow (8115) raised by one row.

mod common;

use common::{fresh_session, ok, plan_text, run};
use engine::{EngineConfig, Event, Session};

fn session(tag: &str) -> (Session, std::path::PathBuf) {
    let (mut s, d) = fresh_session("bgrp", tag, EngineConfig::default());
    ok(
        &mut s,
        "EXEC sp_configure 'show advanced options', 1; RECONFIGURE;
         EXEC sp_configure 'cost threshold for parallelism', 0; RECONFIGURE;",
    );
    (s, d)
}

/// Result sets (rows sorted, lower-cased: which spelling of a case-insensitive key a
/// parallel plan returns depends on the workers' order, in row mode as well), then message
/// and error numbers in order.
fn outcome(s: &mut Session, sql: &str) -> Vec<String> {
    let out = run(s, sql);
    let mut v = Vec::new();
    for e in &out.events {
        match e {
            Event::ResultSet { rows, .. } => {
                let mut r: Vec<String> = rows
                    .iter()
                    .map(|r| format!("{r:?}").to_lowercase())
                    .collect();
                r.sort();
                v.push(format!("rows {r:?}"));
            }
            Event::Message(m) => v.push(format!("msg {}", m.number)),
            Event::Error(e) => v.push(format!("error {} {}", e.number, e.message)),
            Event::RowCount(_) => {}
        }
    }
    v
}

/// Row mode's outcome of `q`, checked equal to batch mode's at DOP 1 and 2.
fn check_same(s: &mut Session, q: &str) -> Vec<String> {
    let plan = plan_text(
        s,
        &format!("{q} OPTION (MAXDOP 1, USE HINT ('ALLOW_BATCH_MODE'))"),
    );
    assert!(
        plan.contains("Batch mode"),
        "{q}: no batch operator in\n{plan}"
    );
    let row = outcome(
        s,
        &format!("{q} OPTION (MAXDOP 1, USE HINT ('DISALLOW_BATCH_MODE'))"),
    );
    for dop in [1, 2] {
        let batch = outcome(
            s,
            &format!("{q} OPTION (MAXDOP {dop}, USE HINT ('ALLOW_BATCH_MODE'))"),
        );
        assert_eq!(row, batch, "{q} at MAXDOP {dop}");
    }
    row
}

/// `g`: 9,000 rows (several batches) with keys of every coded kind and NULLs in each;
/// `big`: decimals near decimal(38)'s limit; `none`: no rows.
fn setup(s: &mut Session) {
    ok(
        s,
        "CREATE TABLE g (n int NOT NULL, k int NULL, kb bigint NULL, ks smallint NULL,
                         kt tinyint NULL, kbit bit NULL, dt date NULL, f1 char(1) NULL,
                         f2 char(1) NULL, v varchar(10) NULL, nv nvarchar(10) NULL,
                         p decimal(15,2) NULL, dc decimal(15,2) NULL, tx decimal(15,2) NULL,
                         q decimal(5,3) NULL, m money NULL, fl float NULL);
         CREATE TABLE big (n int NOT NULL, x decimal(38,2) NULL, y decimal(30,0) NULL);
         CREATE TABLE none (k int NULL, f1 char(1) NULL, p decimal(15,2) NULL);",
    );
    let fill = "SELECT q.n,
          CASE WHEN q.n % 23 = 0 THEN NULL ELSE q.n % 4000 - 1500 END,
          CASE WHEN q.n % 29 = 0 THEN NULL ELSE CAST(q.n % 3000 AS bigint) * 4000000000 - 5 END,
          CASE WHEN q.n % 31 = 0 THEN NULL ELSE q.n % 300 - 150 END,
          CASE WHEN q.n % 37 = 0 THEN NULL ELSE q.n % 256 END,
          CASE WHEN q.n % 41 = 0 THEN NULL ELSE q.n % 2 END,
          CASE WHEN q.n % 43 = 0 THEN NULL ELSE DATEADD(day, q.n % 400, CAST('1995-01-01' AS date)) END,
          CASE WHEN q.n % 47 = 0 THEN NULL ELSE SUBSTRING('ARNarn', q.n % 6 + 1, 1) END,
          CASE WHEN q.n % 53 = 0 THEN NULL ELSE SUBSTRING('OFof', q.n % 4 + 1, 1) END,
          CASE WHEN q.n % 59 = 0 THEN NULL ELSE SUBSTRING('abcABCxyz  ', q.n % 9 + 1, 3) END,
          CASE WHEN q.n % 61 = 0 THEN NULL ELSE CONCAT(N'Ж', q.n % 700) END,
          CASE WHEN q.n % 67 = 0 THEN NULL ELSE (q.n % 100000) / 100.0 - 300 END,
          CASE WHEN q.n % 71 = 0 THEN NULL ELSE (q.n % 11) / 100.0 END,
          CASE WHEN q.n % 73 = 0 THEN NULL ELSE (q.n % 9) / 100.0 END,
          CASE WHEN q.n % 79 = 0 THEN NULL ELSE (q.n % 1999) / 1000.0 - 0.999 END,
          CASE WHEN q.n % 83 = 0 THEN NULL ELSE (q.n % 5000) / 7.0 - 300 END,
          CASE WHEN q.n % 89 = 0 THEN NULL ELSE q.n / 3.0 END
        FROM (SELECT TOP (9000) CAST(ROW_NUMBER() OVER (ORDER BY (SELECT NULL)) AS int) n
              FROM master..spt_values a CROSS JOIN master..spt_values b) q";
    ok(s, &format!("SET NOCOUNT ON; INSERT INTO g {fill};"));
    ok(
        s,
        "SET NOCOUNT ON;
         INSERT INTO big SELECT TOP (5000) CAST(ROW_NUMBER() OVER (ORDER BY (SELECT NULL)) AS int),
                CAST(249999999999999999999999999999999999.99 AS decimal(38,2)),
                CAST(999999999999999999999999999999 AS decimal(30,0))
         FROM master..spt_values a CROSS JOIN master..spt_values b;",
    );
}

/// One integer key (int, bigint, smallint, tinyint, bit, a computed int), one date key:
/// thousands of groups across batches, a NULL group, one group, no rows.
#[test]
fn one_integer_key_matches_row_mode() {
    let (mut s, d) = session("one");
    setup(&mut s);
    for q in [
        "SELECT k, COUNT(*), COUNT(p), SUM(p), AVG(p), SUM(n), AVG(ks), MIN(v) FROM g GROUP BY k",
        "SELECT kb, COUNT(*), SUM(kb), AVG(kb), SUM(m) FROM g GROUP BY kb",
        "SELECT ks, COUNT_BIG(*), SUM(kt), AVG(q) FROM g GROUP BY ks",
        "SELECT kt, COUNT(dc), SUM(dc), MAX(dt) FROM g GROUP BY kt",
        // a float sum's last bits depend on the order the workers add in (at DOP 2 too in
        // SQL Server): compared at 9 digits
        "SELECT kbit, COUNT(*), SUM(p), STR(AVG(fl), 20, 9) FROM g GROUP BY kbit",
        "SELECT n % 3, COUNT(*), SUM(p) FROM g GROUP BY n % 3",
        "SELECT dt, COUNT(*), SUM(q), AVG(m) FROM g GROUP BY dt",
        // one group, and every group of one row
        "SELECT kt, COUNT(*), SUM(p) FROM g WHERE kt = 7 GROUP BY kt",
        "SELECT n, SUM(p), COUNT(k) FROM g GROUP BY n",
        // a group of NULL keys only; no rows at all
        "SELECT k, COUNT(*), SUM(p) FROM g WHERE k IS NULL GROUP BY k",
        "SELECT k, COUNT(*), SUM(p) FROM none GROUP BY k",
        "SELECT k, COUNT(*) FROM g WHERE n < 0 GROUP BY k",
        // HAVING over the dense sums (TPC-H Q18's shape)
        "SELECT k, SUM(q) FROM g GROUP BY k HAVING SUM(q) > 1",
    ] {
        check_same(&mut s, q);
    }
    let _ = std::fs::remove_dir_all(d);
}

/// Packed keys: two char(1) flags (TPC-H Q1's shape), strings equal under the collation
/// ('abc' / 'ABC', trailing blanks), nvarchar, mixed integer / date / string keys, NULLs.
#[test]
fn packed_keys_match_row_mode() {
    let (mut s, d) = session("packed");
    setup(&mut s);
    for q in [
        "SELECT f1, f2, SUM(p), SUM(p * (1 - dc)), SUM(p * (1 - dc) * (1 + tx)), AVG(q), AVG(p),
                AVG(dc), COUNT(*) FROM g GROUP BY f1, f2",
        "SELECT v, COUNT(*), SUM(k) FROM g GROUP BY v",
        "SELECT nv, COUNT(*), SUM(p) FROM g GROUP BY nv",
        "SELECT f1, k, COUNT(*), SUM(dc) FROM g GROUP BY f1, k",
        "SELECT dt, kbit, v, COUNT(*), SUM(m) FROM g GROUP BY dt, kbit, v",
        "SELECT k, kb, COUNT(*) FROM g GROUP BY k, kb",
        "SELECT ks, kt, kbit, f2, COUNT(*), SUM(p) FROM g GROUP BY ks, kt, kbit, f2",
        // five keys: the general byte keys
        "SELECT ks, kt, kbit, f2, f1, COUNT(*), SUM(p) FROM g GROUP BY ks, kt, kbit, f2, f1",
        // a decimal key: the general byte keys
        "SELECT q, f1, COUNT(*) FROM g GROUP BY q, f1",
        "SELECT f1, f2, COUNT(*), SUM(p) FROM g WHERE n < 0 GROUP BY f1, f2",
        "SELECT UPPER(f1), COUNT(*) FROM g GROUP BY UPPER(f1)",
    ] {
        check_same(&mut s, q);
    }
    let _ = std::fs::remove_dir_all(d);
}

/// The dense decimal kernel: negative values, operands of different scales, integers and
/// money mixed in, constants on either side, NULLs on either side; and 8115 raised where
/// row mode raises it (a product or sum beyond decimal(38), SUM beyond its type).
#[test]
fn dense_decimal_arithmetic_matches_row_mode() {
    let (mut s, d) = session("dec");
    setup(&mut s);
    for q in [
        "SELECT SUM(p + dc), SUM(p - q), SUM(q - p), SUM(p * q), SUM(q * -2.5), SUM(1.25 - p) FROM g",
        "SELECT SUM(p * k), SUM(k - q), SUM(m * 2), SUM(m + p), SUM(p * m) FROM g",
        "SELECT f1, SUM(p * (1 - dc) * (1 + tx)), AVG(p * (1 - dc)), COUNT(p * dc) FROM g GROUP BY f1",
        "SELECT COUNT(*), SUM(p * dc) FROM g WHERE dc BETWEEN 0.05 AND 0.07 AND q < 0.5",
        "SELECT SUM(p * dc) FROM g WHERE n < 0",
        "SELECT SUM(x - x), SUM(x * 0), COUNT(x) FROM big",
    ] {
        check_same(&mut s, q);
    }
    for (q, want) in [
        // the product needs 39 digits: 8115 at the first row, both modes
        ("SELECT SUM(x * 10) FROM big", "error 8115"),
        ("SELECT SUM(x + x + x + x + x) FROM big", "error 8115"),
        // the sum outgrows decimal(38,2)
        ("SELECT SUM(x) FROM big", "error 8115"),
        (
            "SELECT n % 2, SUM(y * y) FROM big GROUP BY n % 2",
            "error 8115",
        ),
    ] {
        let out = check_same(&mut s, q);
        assert!(out.join(" ").contains(want), "{q}: {want} not in {out:?}");
    }
    let _ = std::fs::remove_dir_all(d);
}
