//! The FOR clause of a query (FOR JSON / FOR XML / FOR BROWSE): parsed after ORDER BY, kept on
//! the query (subqueries too) and printed back so that it round-trips.

use parser::ast::*;
use parser::{parse_batch, roundtrip};

fn rt(sql: &str) {
    match roundtrip::check(sql) {
        Ok(true) => {}
        Ok(false) => panic!("does not parse: {sql}\n{:?}", parse_batch(sql).err()),
        Err(e) => panic!("{sql}\n{e}"),
    }
}

fn for_clause(sql: &str) -> ForClause {
    let stmts = parse_batch(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    match &stmts[0].kind {
        StatementKind::Select(q) => *q.for_clause.clone().expect("a FOR clause"),
        k => panic!("not a select: {k:?}"),
    }
}

#[test]
fn for_json_and_xml_round_trip() {
    for sql in [
        "SELECT a FROM t ORDER BY a FOR JSON PATH",
        "SELECT a FROM t FOR JSON AUTO, ROOT('r'), INCLUDE_NULL_VALUES",
        "SELECT a FROM t FOR JSON PATH, WITHOUT_ARRAY_WRAPPER",
        "SELECT a FROM t FOR XML RAW",
        "SELECT a FROM t FOR XML RAW('r'), ROOT('x'), ELEMENTS XSINIL, TYPE",
        "SELECT a FROM t FOR XML AUTO, ELEMENTS, BINARY BASE64",
        "SELECT a FROM t FOR XML PATH(''), TYPE",
        "SELECT a FROM t FOR XML EXPLICIT",
        "SELECT a FROM t FOR BROWSE",
        "SELECT STUFF((SELECT ',' + n FROM t ORDER BY n FOR XML PATH('')), 1, 1, '')",
        "SELECT a FROM t FOR XML PATH('it''s') OPTION (MAXDOP 1)",
    ] {
        rt(sql);
    }
}

#[test]
fn for_clause_shapes() {
    match for_clause("SELECT a FROM t FOR JSON PATH, ROOT") {
        ForClause::Json(j) => {
            assert_eq!(j.mode, ForJsonMode::Path);
            assert_eq!(j.root.as_deref(), Some("root"));
        }
        other => panic!("{other:?}"),
    }
    match for_clause("SELECT a FROM t FOR XML PATH, ELEMENTS") {
        ForClause::Xml(x) => {
            assert_eq!(x.mode, ForXmlMode::Path(None));
            assert_eq!(x.elements, Some(XmlElements::Absent));
        }
        other => panic!("{other:?}"),
    }
    match for_clause("SELECT a FROM t FOR XML RAW, XMLDATA") {
        ForClause::Xml(x) => assert_eq!(x.unsupported, vec!["XMLDATA".to_string()]),
        other => panic!("{other:?}"),
    }
}

#[test]
fn malformed_for_clauses_are_syntax_errors() {
    for sql in [
        "SELECT a FROM t FOR JSON",
        "SELECT a FROM t FOR JSON RAW",
        "SELECT a FROM t FOR JSON PATH, ELEMENTS",
        "SELECT a FROM t FOR XML",
        "SELECT a FROM t FOR XML PATH(1)",
        "SELECT a FROM t FOR XML RAW, NOPE",
    ] {
        let e = parse_batch(sql).expect_err(sql);
        assert_eq!(e.number, 102, "{sql}: {e}");
    }
}
