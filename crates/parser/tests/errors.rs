//! Syntax errors carry SQL Server's numbers, texts and lines.

use parser::parse_batch;

fn err(sql: &str) -> (i32, String, u32) {
    let e = parse_batch(sql).expect_err(sql);
    (e.number, e.message, e.line)
}

#[test]
fn incorrect_syntax_near_token() {
    assert_eq!(
        err("SELECT 1 +"),
        (102, "Incorrect syntax near '+'.".into(), 1)
    );
    assert_eq!(
        err("SELECT a b c FROM t"),
        (102, "Incorrect syntax near 'c'.".into(), 1)
    );
    assert_eq!(
        err("SELECT 1\nSELECT * FROM t WHERE (a = 1"),
        (102, "Incorrect syntax near '1'.".into(), 2)
    );
    assert_eq!(
        err("SELECT 'a' 'b' 'c'"),
        (102, "Incorrect syntax near 'c'.".into(), 1)
    );
    assert_eq!(
        err("SELECT [a] [b] [c]"),
        (102, "Incorrect syntax near 'c'.".into(), 1)
    );
}

#[test]
fn incorrect_syntax_near_keyword() {
    assert_eq!(
        err("SELECT * FROM WHERE a = 1"),
        (156, "Incorrect syntax near the keyword 'WHERE'.".into(), 1)
    );
    // at end of input: the last token
    assert_eq!(
        err("select *\nfrom"),
        (156, "Incorrect syntax near the keyword 'from'.".into(), 2)
    );
    assert_eq!(
        err("BEGIN\nSELECT 1\n"),
        (102, "Incorrect syntax near '1'.".into(), 2)
    );
    assert_eq!(
        err("SELECT 1 END"),
        (156, "Incorrect syntax near the keyword 'END'.".into(), 1)
    );
}

#[test]
fn unclosed_quote_and_comment() {
    assert_eq!(
        err("SELECT 1\nPRINT 'abc"),
        (
            105,
            "Unclosed quotation mark after the character string 'abc'.".into(),
            2
        )
    );
    assert_eq!(err("SELECT [abc").0, 105);
    assert_eq!(
        err("SELECT 1 /* a /* nested */ still open"),
        (113, "Missing end comment mark '*/'.".into(), 1)
    );
    // nested comments close properly
    assert!(parse_batch("SELECT 1 /* a /* b */ c */").is_ok());
}

#[test]
fn nesting_limit_is_an_error_not_a_crash() {
    let deep = format!("SELECT {}1{}", "(".repeat(5000), ")".repeat(5000));
    assert_eq!(err(&deep).0, 191);
    let long = format!("SELECT 1{}", "+1".repeat(5000));
    assert_eq!(err(&long).0, 191);
    // moderately deep input is fine
    let ok = format!("SELECT {}1{}", "(".repeat(40), ")".repeat(40));
    assert!(parse_batch(&ok).is_ok());
    let ok = format!("SELECT 1{}", "+1".repeat(500));
    assert!(parse_batch(&ok).is_ok());
}

#[test]
fn bad_characters() {
    assert_eq!(err("SELECT 1 ` 2").0, 102);
    assert_eq!(err("SELECT !").0, 102);
}

/// Inputs found by the mutation fuzzer (convention 8: every finding becomes a test).
#[test]
fn fuzz_regressions() {
    // multi-byte character right after "G" on a line (char boundary in the GO detector)
    assert_eq!(parser::split_batches("EȽƻp\nGȽ\n").len(), 1);
    // an object name may not end in an empty part
    assert_eq!(err("DROP INDEX t...ix").0, 102);
    assert_eq!(err("DROP INDEX t..ix").0, 102);
    // unknown ALTER targets are syntax errors, not swallowed as unsupported statements
    assert_eq!(err("ALTER SET QUERY_STORE x = 5);").0, 156);
    // a select-list item is scalar: `a = b = c` is not an alias of a comparison
    assert_eq!(err("SELECT id = ROW_ = NUMBER() OVER (ORDER BY a)").0, 102);
    assert_eq!(err("SELECT 1 = 1").0, 102);
    // mutated data type names print bracketed
    assert_eq!(
        parser::roundtrip::check("CREATE TABLE t (a [0varchar](50))"),
        Ok(true)
    );
}

/// Found by cargo-fuzz: an unsupported statement's text must not absorb a `;` (printing
/// appended another `;` each round).
#[test]
fn fuzz_regression_unsupported_text_stops_at_semicolon() {
    let sql = "CREATE MASTER KEY x (a (b);\nSELECT 1";
    assert_eq!(parser::roundtrip::check(sql), Ok(true));
    let v = parser::parse_batch(sql).unwrap();
    assert_eq!(v.len(), 2);
}

/// Found by cargo-fuzz: an option name must be a word (`[]` printed as nothing).
#[test]
fn fuzz_regression_option_name_is_a_word() {
    assert_eq!(err("ALTER DATABASE d SET [], o").0, 102);
}
