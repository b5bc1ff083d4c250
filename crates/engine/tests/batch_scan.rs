//! The batch scan's columnar decoder and batch mode's decimal kernels (exec README "Batch
//! mode"): every vector type decoded straight from the record — NULLs, char padding,
//! strings of the maximum length, code page 1252 and UTF-16 text, negative and 38-digit
//! decimals, money at its limits — and decimal arithmetic and comparisons across scales and
//! kinds give row mode's results and row mode's errors (8115), with the plan in batch mode.

mod common;

use common::{fresh_session, ok, outcome_as, plan_text, OutcomeFormat};
use engine::{EngineConfig, Session};

fn session(tag: &str) -> (Session, std::path::PathBuf) {
    fresh_session("bscan", tag, EngineConfig::default())
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

/// Row mode's and batch mode's outcomes of `q` (batch mode checked to be in the plan).
fn both(s: &mut Session, q: &str) -> (Vec<String>, Vec<String>) {
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
    (row, outcome(s, &batch_q))
}

fn check_same(s: &mut Session, q: &str) -> Vec<String> {
    let (row, batch) = both(s, q);
    assert_eq!(row, batch, "{q}");
    row
}

/// A heap and a clustered table holding every vector type, with rows at the types' limits.
fn setup(s: &mut Session) {
    let cols = "i int NULL, b bigint NULL, si smallint NULL, ti tinyint NULL, bt bit NULL,
                d decimal(38,4) NULL, dn numeric(5,2) NULL, m money NULL, sm smallmoney NULL,
                f float NULL, r real NULL, dt date NULL, c char(5) NULL, nc nchar(4) NULL,
                v varchar(8000) NULL, nv nvarchar(4000) NULL, vm varchar(max) NULL,
                nvm nvarchar(max) NULL";
    ok(
        s,
        &format!(
            "CREATE TABLE h ({cols});
             CREATE TABLE k (id int PRIMARY KEY, {cols});"
        ),
    );
    let rows = [
        // all NULL
        "NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL",
        // minimums, negative decimals, padded strings
        "-2147483648, -9223372036854775808, -32768, 0, 0,
         -9999999999999999999999999999999999.9999, -999.99, -922337203685477.5808, -214748.3648,
         -1.79E+308, -3.4E+38, '0001-01-01', 'ab', N'é', 'x ', N'y ', 'z', N'w'",
        // maximums, strings of the maximum length
        "2147483647, 9223372036854775807, 32767, 255, 1,
         9999999999999999999999999999999999.9999, 999.99, 922337203685477.5807, 214748.3647,
         1.79E+308, 3.4E+38, '9999-12-31', 'abcde', N'€ü😀',
         REPLICATE('v', 8000), REPLICATE(N'ж', 4000),
         REPLICATE(CAST('m' AS varchar(max)), 9000), REPLICATE(CAST(N'ж' AS nvarchar(max)), 5000)",
        // small negatives, code page 1252 text, empty strings
        "-1, -1, -1, 1, 1, -0.0001, -0.01, -0.0001, -0.0001, -0.5, -0.25, '2024-02-29',
         'é€', N'a', '', N'', '', N''",
        "7, 7, 7, 7, 0, 12.5, 1.5, 3.25, 2.5, 1.5, 2.5, '1998-09-02', 'A', N'B', 'abc', N'ABC',
         'long', N'Long'",
    ];
    let mut sql = String::from("SET NOCOUNT ON;\n");
    for (n, r) in rows.iter().enumerate() {
        sql.push_str(&format!("INSERT INTO h VALUES ({r});\n"));
        sql.push_str(&format!("INSERT INTO k VALUES ({n}, {r});\n"));
    }
    ok(s, &sql);
}

/// Per column: the distinct values with their counts (a batch hash aggregate over the batch
/// scan), in both tables.
#[test]
fn every_vector_type_decodes_as_row_mode_reads_it() {
    let (mut s, d) = session("types");
    setup(&mut s);
    for t in ["h", "k"] {
        for c in [
            "i", "b", "si", "ti", "bt", "d", "dn", "m", "sm", "f", "r", "dt", "c", "nc", "v", "nv",
            "vm", "nvm",
        ] {
            let out = check_same(
                &mut s,
                &format!("SELECT {c}, COUNT(*) FROM {t} GROUP BY {c}"),
            );
            assert!(
                out[0].contains("Null"),
                "{t}.{c}: the NULL row is a group: {out:?}"
            );
        }
        // char padding kept, lengths of the maximum-length strings, non-ASCII text
        let out = check_same(
            &mut s,
            &format!(
                "SELECT MAX(c + '|'), MIN(nc + N'|'), MAX(DATALENGTH(v)), MAX(LEN(nv)),
                        MAX(DATALENGTH(vm)), MAX(DATALENGTH(nvm)), COUNT(*)
                 FROM {t} WHERE i IS NOT NULL"
            ),
        );
        let text = out.join(" ");
        for want in ["é€   |", "8000", "4000", "9000", "10000"] {
            assert!(text.contains(want), "{t}: {want} missing in {text}");
        }
        // money and decimal extremes summed in the vectors' own types
        check_same(
            &mut s,
            &format!("SELECT SUM(m), SUM(sm), SUM(dn), MIN(d), MAX(d), SUM(f), MIN(r) FROM {t}"),
        );
    }
    let _ = std::fs::remove_dir_all(d);
}

/// Decimal and money arithmetic in batch mode: SQL Server's result types and values,
/// negative operands, integers and literals mixed in, and the overflow error (Msg 8115) on
/// the same row as row mode.
#[test]
fn decimal_kernels_match_row_mode() {
    let (mut s, d) = session("dec");
    setup(&mut s);
    for q in [
        "SELECT SUM(dn * (1 - dn)), SUM(dn * (1 - dn) * (1 + dn)), SUM(dn + 0.005) FROM h",
        "SELECT SUM(m * 2), SUM(m - sm), SUM(sm + 1), SUM(dn * m) FROM h WHERE i BETWEEN -5 AND 10",
        "SELECT dn - 1.5, COUNT(*) FROM h GROUP BY dn - 1.5",
        "SELECT SUM(dn / 3), SUM(dn / 0.7), SUM(i * dn) FROM h WHERE i BETWEEN -5 AND 10",
        "SELECT SUM(d - 1), SUM(d + d) FROM h WHERE d < 1",
        "SELECT COUNT(*) FROM h WHERE dn * 2 > i",
        "SELECT COUNT(*), SUM(dn) FROM h WHERE dn < 24 AND dn >= -1",
        "SELECT COUNT(*) FROM h WHERE dn BETWEEN 0.5 AND 1.51 OR m > dn OR sm = 2.5",
        "SELECT COUNT(*) FROM h WHERE i > 1.5 AND b <= 7.000 AND ti <> 0.0 AND bt < 0.5",
        "SELECT COUNT(*) FROM h WHERE d > -9999999999999999999999999999999999.9999",
    ] {
        check_same(&mut s, q);
    }
    for q in [
        // decimal(38,4) + decimal(38,4): the maximum plus one digit overflows
        "SELECT SUM(d + d) FROM h",
        "SELECT SUM(d * 10) FROM h",
        // money and smallmoney beyond their ranges
        "SELECT SUM(m + m) FROM h",
        "SELECT SUM(sm - 1) FROM h",
        "SELECT SUM(dn / (dn - dn)) FROM h",
    ] {
        let row = check_same(&mut s, q);
        assert!(
            row.iter()
                .any(|e| e.starts_with("error 8115") || e.starts_with("error 8134")),
            "{q}: {row:?}"
        );
    }
    let _ = std::fs::remove_dir_all(d);
}

/// String comparisons and IN lists in batch mode: the default collation (case-insensitive,
/// trailing blanks ignored), char padding, NULL items (UNKNOWN, not FALSE), numbers of
/// different scales, and the lists without a kernel (dates, floats, expressions).
#[test]
fn string_and_in_list_kernels_match_row_mode() {
    let (mut s, d) = session("str");
    setup(&mut s);
    for (q, want) in [
        (
            // 'ab   ' = 'AB', 'abc' = 'ABC', N'y ' and N'жжж…' > N'x'
            "SELECT COUNT(*) FROM h WHERE c = 'AB' OR v = 'ABC' OR nv > N'x'",
            Some("[Int(3)]"),
        ),
        (
            "SELECT COUNT(*) FROM h WHERE c IN ('AB', 'a', NULL)",
            Some("[Int(2)]"),
        ),
        (
            "SELECT COUNT(*) FROM h WHERE NOT (c IN ('ab', NULL))",
            Some("[Int(0)]"),
        ),
        (
            "SELECT COUNT(*) FROM h WHERE NOT (c IN ('ab', 'zz'))",
            Some("[Int(3)]"),
        ),
        (
            "SELECT COUNT(*) FROM h WHERE i IN (7, -1, 2147483647) AND dn IN (1.5, -0.01, 999.990)",
            Some("[Int(3)]"),
        ),
        (
            "SELECT COUNT(*) FROM h WHERE m IN (3.25, -0.0001) OR ti IN (255)",
            Some("[Int(3)]"),
        ),
        (
            "SELECT SUM(CASE WHEN c IN ('x', 'abcde') THEN 1 ELSE 0 END) FROM h",
            Some("[Int(1)]"),
        ),
        (
            "SELECT COUNT(*) FROM h WHERE v IN ('abc', 'LONG', '') AND nv IN (N'abc', N'')",
            Some("[Int(2)]"),
        ),
        (
            "SELECT COUNT(*) FROM h WHERE dt IN ('1998-09-02', '2024-02-29')",
            Some("[Int(2)]"),
        ),
        (
            // i + 1 overflows at the maximum before the item 7 is reached: 8115 in both modes
            "SELECT COUNT(*) FROM h WHERE f IN (1.5, 2) OR i IN (i + 1, 7 - 0)",
            Some("error 8115"),
        ),
        (
            "SELECT c, COUNT(*) FROM h WHERE c <> 'é€' AND c >= 'a' GROUP BY c",
            None,
        ),
    ] {
        let out = check_same(&mut s, q);
        if let Some(want) = want {
            assert!(out.join(" ").contains(want), "{q}: {out:?}");
        }
    }
    let _ = std::fs::remove_dir_all(d);
}
