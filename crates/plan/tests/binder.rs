//! Binder tests over an in-test catalog (virtual tables: no storage needed).

use std::sync::Arc;

use catalog::{Catalog, ColumnDef, QualifiedName, TableRef, VirtualTable};
use common::SqlResult;
use plan::{BindEnv, LogicalOp, ScalarKind, Statement};
use types::{DataType, Value};

struct Cat;

impl Catalog for Cat {
    fn current_database(&self) -> String {
        "master".into()
    }
    fn current_schema(&self) -> String {
        "dbo".into()
    }
    fn resolve_table(&self, name: &QualifiedName) -> SqlResult<Option<TableRef>> {
        let cols = |names: &[&str]| -> Vec<ColumnDef> {
            names
                .iter()
                .map(|n| ColumnDef::new(*n, DataType::Int, true))
                .collect()
        };
        let t = match name.name.to_lowercase().as_str() {
            "t1" => VirtualTable {
                schema: "dbo".into(),
                name: "t1".into(),
                columns: cols(&["a", "b"]),
                rows: vec![vec![Value::Int(1), Value::Int(2)]],
            },
            "t2" => VirtualTable {
                schema: "dbo".into(),
                name: "t2".into(),
                columns: cols(&["a", "c"]),
                rows: vec![],
            },
            _ => return Ok(None),
        };
        Ok(Some(TableRef::Virtual(Arc::new(t))))
    }
}

impl BindEnv for Cat {
    fn variable_slot(&self, name: &str) -> Option<(usize, DataType)> {
        (name.eq_ignore_ascii_case("@v")).then_some((0, DataType::BigInt))
    }
}

fn bind(sql: &str) -> SqlResult<plan::BoundStatement> {
    let stmts = parser::parse_batch(sql)?;
    plan::bind_statement(&stmts[0], &Cat)
}

fn err(sql: &str) -> (i32, String) {
    match bind(sql) {
        Ok(_) => panic!("expected error for {sql}"),
        Err(e) => (e.number, e.message),
    }
}

#[test]
fn name_resolution_errors() {
    assert_eq!(err("SELECT x FROM t1").0, 207);
    assert_eq!(err("SELECT a FROM t1, t2").0, 209);
    assert_eq!(err("SELECT t3.a FROM t1").0, 4104);
    assert_eq!(err("SELECT t1.a FROM t1 AS z").0, 4104);
    assert_eq!(err("SELECT * FROM nope").0, 208);
    assert_eq!(err("SELECT * FROM t1 JOIN t1 ON 1 = 1").0, 1013);
    assert_eq!(err("SELECT @w").0, 137);
    assert_eq!(err("SELECT a, COUNT(*) FROM t1").0, 8120);
    assert_eq!(err("SELECT a FROM t1 WHERE COUNT(*) > 1").0, 147);
    assert_eq!(
        err("SELECT a FROM t1 WHERE ROW_NUMBER() OVER (ORDER BY a) > 1").0,
        4108
    );
    assert_eq!(err("SELECT a FROM t1 UNION SELECT a, c FROM t2").0, 205);
    assert_eq!(err("SELECT (SELECT a, b FROM t1)").0, 116);
    assert_eq!(err("SELECT a FROM t1 ORDER BY 3").0, 108);
}

#[test]
fn types_and_shapes() {
    let Statement::Select { columns, .. } =
        bind("SELECT a + 1, 'x' + 'yz', 1.50, a / 2.0, @v FROM t1").expect("bind")
    else {
        panic!("not a select")
    };
    assert_eq!(columns[0].data_type, DataType::Int);
    assert_eq!(columns[1].data_type, DataType::VarChar(Some(3)));
    assert_eq!(
        columns[2].data_type,
        DataType::Numeric {
            precision: 3,
            scale: 2
        }
    );
    assert!(matches!(
        columns[3].data_type,
        DataType::Decimal { .. } | DataType::Numeric { .. }
    ));
    assert_eq!(columns[4].data_type, DataType::BigInt);
    // SUM(int) is int, AVG(int) is int, COUNT_BIG is bigint
    let Statement::Select { columns, .. } =
        bind("SELECT SUM(a), AVG(a), COUNT_BIG(*) FROM t1").expect("bind")
    else {
        panic!()
    };
    assert_eq!(columns[0].data_type, DataType::Int);
    assert_eq!(columns[1].data_type, DataType::Int);
    assert_eq!(columns[2].data_type, DataType::BigInt);
}

#[test]
fn correlated_subquery_gets_parameters() {
    let Statement::Select { input, .. } =
        bind("SELECT a FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.a = t1.a)").expect("bind")
    else {
        panic!()
    };
    fn find_exists(op: &LogicalOp) -> Option<(usize, bool)> {
        match op {
            LogicalOp::Filter { predicate, input } => match &predicate.kind {
                ScalarKind::Exists(sq) => Some((sq.params.len(), sq.uncorrelated)),
                _ => find_exists(input),
            },
            LogicalOp::Project { input, .. } => find_exists(input),
            _ => None,
        }
    }
    assert_eq!(find_exists(&input), Some((1, false)));
    // uncorrelated stays cacheable
    let Statement::Select { input, .. } =
        bind("SELECT a FROM t1 WHERE EXISTS (SELECT 1 FROM t2)").expect("bind")
    else {
        panic!()
    };
    assert_eq!(find_exists(&input), Some((0, true)));
}

#[test]
fn null_constant_folding() {
    let e = parser::parse_expression("5 * CAST(NULL AS int)").expect("parse");
    let b = plan::bind_scalar(&e, &Cat).expect("bind");
    assert!(matches!(b.kind, ScalarKind::Literal(Value::Null)));
}
