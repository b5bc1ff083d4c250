//! One small statement per construct the brief and SCENARIOS.md list: each must parse and
//! round-trip through the printer; key shapes are asserted on the AST.

use parser::ast::*;
use parser::{parse_batch, parse_expression, roundtrip};

mod common;
use common::{OTHER_STATEMENTS, SCENARIO_STATEMENTS};

fn rt(sql: &str) {
    match roundtrip::check(sql) {
        Ok(true) => {}
        Ok(false) => panic!("does not parse: {sql}\n{:?}", parse_batch(sql).err()),
        Err(e) => panic!("{sql}\n{e}"),
    }
}

fn one(sql: &str) -> StatementKind {
    let mut v = parse_batch(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    assert_eq!(v.len(), 1, "{sql}");
    v.remove(0).kind
}

fn query(sql: &str) -> Query {
    match one(sql) {
        StatementKind::Select(q) => *q,
        k => panic!("not a select: {k:?}"),
    }
}

fn select(sql: &str) -> Select {
    match query(sql).body {
        QueryBody::Select(s) => *s,
        b => panic!("not a simple select: {b:?}"),
    }
}

#[test]
fn scenario_statements_parse_and_round_trip() {
    for s in SCENARIO_STATEMENTS {
        rt(s);
    }
}

#[test]
fn other_statements_parse_and_round_trip() {
    for s in OTHER_STATEMENTS {
        rt(s);
    }
}

#[test]
fn unsupported_statements_are_kept() {
    match one("RECONFIGURE WITH OVERRIDE") {
        StatementKind::Unsupported { keyword, text } => {
            assert_eq!(keyword, "RECONFIGURE");
            assert_eq!(text, "RECONFIGURE WITH OVERRIDE");
        }
        k => panic!("{k:?}"),
    }
}

#[test]
fn security_statements_parse_and_keep_their_text() {
    use parser::ast::{PermissionAction, PrincipalValue, SecurityStatement as Sec};
    match one("GRANT SELECT, EXEC ON OBJECT::dbo.t TO u, [r 1] WITH GRANT OPTION") {
        StatementKind::Security { stmt, text } => {
            assert_eq!(
                text,
                "GRANT SELECT, EXEC ON OBJECT::dbo.t TO u, [r 1] WITH GRANT OPTION"
            );
            let Sec::Permission(p) = *stmt else { panic!() };
            assert_eq!(p.action, PermissionAction::Grant);
            assert_eq!(p.permissions, ["SELECT", "EXEC"]);
            assert_eq!(p.class.as_deref(), Some("OBJECT"));
            assert_eq!(p.principals.len(), 2);
            assert!(p.with_grant_option);
        }
        k => panic!("{k:?}"),
    }
    // a batch without semicolons: the next statement starts on a keyword
    let v = parse_batch("DENY SELECT ON SCHEMA::s TO u\nSELECT 1").unwrap();
    assert_eq!(v.len(), 2);
    match one("CREATE LOGIN l WITH PASSWORD = 0x0200AB HASHED, SID = 0x01, CHECK_POLICY = OFF") {
        StatementKind::Security { stmt, .. } => match *stmt {
            Sec::CreateLogin { options, .. } => {
                assert_eq!(options.len(), 3);
                assert_eq!(options[0].value, PrincipalValue::Binary("0x0200AB".into()));
                assert_eq!(options[0].flags, ["HASHED"]);
                assert_eq!(options[2].value, PrincipalValue::Off);
            }
            k => panic!("{k:?}"),
        },
        k => panic!("{k:?}"),
    }
    for sql in [
        "ALTER LOGIN l WITH PASSWORD = 'x' OLD_PASSWORD = 'y'",
        "ALTER LOGIN l DISABLE",
        "DROP LOGIN l",
        "CREATE USER u FOR LOGIN l WITH DEFAULT_SCHEMA = dbo",
        "CREATE USER u WITHOUT LOGIN",
        "ALTER USER u WITH NAME = v",
        "DROP USER IF EXISTS u",
        "CREATE ROLE r AUTHORIZATION dbo",
        "ALTER ROLE r ADD MEMBER u",
        "ALTER SERVER ROLE sysadmin DROP MEMBER l",
        "DROP ROLE r",
        "REVOKE GRANT OPTION FOR SELECT ON t FROM u CASCADE",
    ] {
        match one(sql) {
            StatementKind::Security { text, .. } => assert_eq!(text, sql),
            k => panic!("{sql}: {k:?}"),
        }
    }
    for bad in [
        "GRANT ON t TO u",
        "GRANT SELECT ON t",
        "CREATE LOGIN",
        "ALTER ROLE r ADD u",
    ] {
        assert!(parse_batch(bad).is_err(), "{bad}");
    }
}

#[test]
fn statements_without_separators_and_lines() {
    let v = parse_batch("DECLARE @x int SET @x = 1\nSELECT @x\n\n  PRINT @x;;SELECT 2").unwrap();
    let lines: Vec<u32> = v.iter().map(|s| s.line).collect();
    assert_eq!(lines, vec![1, 1, 2, 4, 4]);
    assert_eq!(v[2].span.start, 26);
}

#[test]
fn select_item_shapes() {
    let s = select("SELECT a AS x, b y, z = c, @v = d, t.*, *, 'q' w FROM t");
    assert_eq!(s.items.len(), 7);
    match &s.items[2] {
        SelectItem::Expr { alias, expr } => {
            assert_eq!(alias.as_ref().unwrap().value, "z");
            assert!(matches!(expr, Expr::Column(_)));
        }
        i => panic!("{i:?}"),
    }
    assert!(
        matches!(&s.items[3], SelectItem::Assign { variable, op: AssignOp::Assign, .. } if variable == "@v")
    );
    assert!(matches!(&s.items[4], SelectItem::QualifiedWildcard(n) if n.name_str() == "t"));
    assert!(matches!(&s.items[5], SelectItem::Wildcard));
    assert!(matches!(&s.items[6], SelectItem::Expr { alias: Some(a), .. } if a.value == "w"));
}

#[test]
fn operator_precedence() {
    // * binds tighter than +, comparison tighter than NOT, NOT tighter than AND, AND than OR
    let e = parse_expression("1 + 2 * 3").unwrap();
    assert!(
        matches!(e, Expr::Binary { op: BinaryOp::Add, ref right, .. } if matches!(**right, Expr::Binary { op: BinaryOp::Mul, .. }))
    );
    let e = parse_expression("a = 1 OR b = 2 AND NOT c = 3").unwrap();
    match e {
        Expr::Binary {
            op: BinaryOp::Or,
            right,
            ..
        } => match *right {
            Expr::Binary {
                op: BinaryOp::And,
                right,
                ..
            } => {
                assert!(
                    matches!(*right, Expr::Unary { op: UnaryOp::Not, ref expr } if matches!(**expr, Expr::Binary { op: BinaryOp::Eq, .. }))
                )
            }
            e => panic!("{e:?}"),
        },
        e => panic!("{e:?}"),
    }
    // BETWEEN's AND is not the logical AND
    let e = parse_expression("a BETWEEN 1 AND 2 AND b = 1").unwrap();
    assert!(
        matches!(e, Expr::Binary { op: BinaryOp::And, ref left, .. } if matches!(**left, Expr::Between { .. }))
    );
    // left associativity
    let e = parse_expression("10 - 2 - 3").unwrap();
    assert!(
        matches!(e, Expr::Binary { op: BinaryOp::Sub, ref left, .. } if matches!(**left, Expr::Binary { op: BinaryOp::Sub, .. }))
    );
    // set operators: INTERSECT binds tighter than UNION
    let q = query("SELECT 1 UNION SELECT 2 INTERSECT SELECT 3");
    assert!(
        matches!(q.body, QueryBody::SetOp { op: SetOperator::Union, ref right, .. } if matches!(**right, QueryBody::SetOp { op: SetOperator::Intersect, .. }))
    );
}

#[test]
fn literals() {
    let s = select("SELECT 1, 1.50, 1e3, $2.5, 'it''s', N'x', 0x0aF, NULL, 2147483648");
    let lits: Vec<&Expr> = s
        .items
        .iter()
        .map(|i| match i {
            SelectItem::Expr { expr, .. } => expr,
            _ => panic!(),
        })
        .collect();
    assert_eq!(lits[0], &Expr::Literal(Literal::Integer("1".into())));
    assert_eq!(lits[1], &Expr::Literal(Literal::Decimal("1.50".into())));
    assert_eq!(lits[2], &Expr::Literal(Literal::Float("1e3".into())));
    assert_eq!(lits[3], &Expr::Literal(Literal::Money("2.5".into())));
    assert_eq!(
        lits[4],
        &Expr::Literal(Literal::String {
            value: "it's".into(),
            national: false
        })
    );
    assert_eq!(
        lits[5],
        &Expr::Literal(Literal::String {
            value: "x".into(),
            national: true
        })
    );
    assert_eq!(lits[6], &Expr::Literal(Literal::Binary(vec![0x00, 0xaf])));
    assert_eq!(lits[7], &Expr::Literal(Literal::Null));
    assert_eq!(
        lits[8],
        &Expr::Literal(Literal::Integer("2147483648".into()))
    );
}

#[test]
fn names_and_hints() {
    let s = select(
        "SELECT * FROM master..spt_values t1 WITH (NOLOCK, INDEX(1)) CROSS JOIN [srv].db.dbo.[t 2]",
    );
    match &s.from[0] {
        TableRef::Join {
            left,
            right,
            kind: JoinKind::Cross,
            ..
        } => {
            match &**left {
                TableRef::Table { name, alias, hints } => {
                    assert_eq!(name.name_str(), "spt_values");
                    assert!(name.schema().is_none());
                    assert_eq!(name.database().unwrap().value, "master");
                    assert_eq!(alias.as_ref().unwrap().value, "t1");
                    assert_eq!(
                        hints,
                        &vec![
                            TableHint::NoLock,
                            TableHint::Index(vec![IndexTarget::Id(1)])
                        ]
                    );
                }
                t => panic!("{t:?}"),
            }
            match &**right {
                TableRef::Table { name, .. } => {
                    assert_eq!(name.server().unwrap().value, "srv");
                    assert!(name.name().unwrap().quoted);
                    assert_eq!(name.name_str(), "t 2");
                }
                t => panic!("{t:?}"),
            }
        }
        t => panic!("{t:?}"),
    }
    let q = query("SELECT 1 OPTION (MAXDOP 2, USE HINT ('A', 'B'), QUERYRULEOFF BuildSpool)");
    assert_eq!(
        q.options,
        vec![
            QueryHint::MaxDop(2),
            QueryHint::UseHint(vec!["A".into(), "B".into()]),
            QueryHint::QueryRuleOff("BuildSpool".into())
        ]
    );
}

#[test]
fn legacy_table_hints() {
    let s = select("SELECT * FROM t (NOLOCK) x JOIN u (TABLOCK, INDEX(2)) ON 1 = 1");
    match &s.from[0] {
        TableRef::Join { left, right, .. } => {
            assert!(
                matches!(&**left, TableRef::Table { hints, alias: Some(a), .. } if hints == &vec![TableHint::NoLock] && a.value == "x")
            );
            assert!(matches!(&**right, TableRef::Table { hints, .. } if hints.len() == 2));
        }
        t => panic!("{t:?}"),
    }
    rt("SELECT * FROM t (NOLOCK)");
    // a table-valued function call is still a call
    assert!(matches!(
        &select("SELECT * FROM f(nolock_col)").from[0],
        TableRef::Function { .. }
    ));
}

#[test]
fn insert_select_keeps_option_on_query() {
    match one("INSERT INTO t WITH (TABLOCK) SELECT 1 OPTION (MAXDOP 1)") {
        StatementKind::Insert(i) => {
            assert_eq!(i.hints, vec![TableHint::TabLock]);
            match &i.source {
                InsertSource::Query(q) => assert_eq!(q.options, vec![QueryHint::MaxDop(1)]),
                s => panic!("{s:?}"),
            }
        }
        k => panic!("{k:?}"),
    }
}

#[test]
fn procedure_body_and_text() {
    let sql = "-- header comment\nCREATE OR ALTER PROCEDURE dbo.p @a INT\nAS\nBEGIN\n  SELECT @a;\nEND;\n";
    match one(sql) {
        StatementKind::CreateProcedure(p) => {
            assert_eq!(p.mode, CreateMode::CreateOrAlter);
            assert_eq!(p.params.len(), 1);
            assert_eq!(p.body.len(), 1);
            assert_eq!(p.body[0].line, 4);
            assert!(p.text.starts_with("-- header comment\nCREATE"));
            assert!(p.text.ends_with("END;"));
        }
        k => panic!("{k:?}"),
    }
}

#[test]
fn create_module_must_be_first_in_batch() {
    let e = parse_batch("SELECT 1\nCREATE VIEW v AS SELECT 1").unwrap_err();
    assert_eq!(e.number, 111);
    assert_eq!(
        e.message,
        "'CREATE VIEW' must be the first statement in a query batch."
    );
    assert_eq!(e.line, 2);
}

#[test]
fn bare_procedure_name_first_in_batch_is_exec() {
    match one("sp_who 1") {
        StatementKind::Exec(e) => match *e {
            Exec::Module {
                module: ExecModule::Name(n),
                args,
                ..
            } => {
                assert_eq!(n.name_str(), "sp_who");
                assert_eq!(args.len(), 1);
            }
            e => panic!("{e:?}"),
        },
        k => panic!("{k:?}"),
    }
}

#[test]
fn cursor_options() {
    match one("DECLARE FF CURSOR FAST_FORWARD FOR SELECT ID FROM tbl_1 WHERE ID2 < 1 ORDER BY ID") {
        StatementKind::DeclareCursor(c) => {
            assert_eq!(c.options.kind, Some(CursorKind::FastForward));
            assert_eq!(c.query.order_by.len(), 1);
        }
        k => panic!("{k:?}"),
    }
}

#[test]
fn data_types() {
    let t = parser::parse_data_type("varchar(max)").unwrap();
    assert_eq!(t.params, vec![TypeParam::Max]);
    let t = parser::parse_data_type("decimal(10, 2)").unwrap();
    assert_eq!(t.params, vec![TypeParam::Number(10), TypeParam::Number(2)]);
    let t = parser::parse_data_type("double precision").unwrap();
    assert_eq!(t.name, "float");
    assert!(parser::parse_data_type("int int").is_err());
}
