//! Binding of table-valued functions: inline expansion, APPLY parameters, built-in column
//! types, multi-statement leaves, errors.

use std::sync::Arc;

use catalog::{
    Catalog, ColumnDef, ModuleDef, ModuleKind, ParameterDef, QualifiedName, TableRef, VirtualTable,
};
use common::SqlResult;
use plan::{BindEnv, LogicalOp, ScalarKind, Statement, TableFunc};
use types::{DataType, Value};

struct Cat;

fn module(name: &str, kind: ModuleKind, text: &str, params: &[(&str, DataType)]) -> ModuleDef {
    ModuleDef {
        object_id: 100,
        database: "master".into(),
        schema: "dbo".into(),
        name: name.into(),
        kind,
        text: text.into(),
        parameters: params
            .iter()
            .map(|(n, t)| ParameterDef {
                name: (*n).into(),
                data_type: t.clone(),
                default: None,
                output: false,
                readonly: false,
                table_type: None,
            })
            .collect(),
        returns: None,
        returns_table: vec![ColumnDef::new("x", DataType::Int, true)],
        trigger: None,
        uses_quoted_identifier: true,
        create_date: String::new(),
        uses_ansi_nulls: true,
    }
}

impl Catalog for Cat {
    fn current_database(&self) -> String {
        "master".into()
    }
    fn current_schema(&self) -> String {
        "dbo".into()
    }
    fn resolve_table(&self, name: &QualifiedName) -> SqlResult<Option<TableRef>> {
        if !name.name.eq_ignore_ascii_case("t1") {
            return Ok(None);
        }
        Ok(Some(TableRef::Virtual(Arc::new(VirtualTable {
            schema: "dbo".into(),
            name: "t1".into(),
            columns: vec![
                ColumnDef::new("a", DataType::Int, true),
                ColumnDef::new("b", DataType::Int, true),
            ],
            rows: vec![vec![Value::Int(1), Value::Int(2)]],
        }))))
    }
    fn resolve_module(&self, name: &QualifiedName) -> SqlResult<Option<Arc<ModuleDef>>> {
        let m = match name.name.to_lowercase().as_str() {
            "inl" => module(
                "inl",
                ModuleKind::InlineTableFunction,
                "CREATE FUNCTION dbo.inl (@p int) RETURNS TABLE AS RETURN SELECT a, b FROM t1 WHERE a > @p",
                &[("@p", DataType::Int)],
            ),
            "corr" => module(
                "corr",
                ModuleKind::InlineTableFunction,
                "CREATE FUNCTION dbo.corr (@p int) RETURNS TABLE AS RETURN SELECT a FROM t1 WHERE EXISTS (SELECT 1 FROM t1 x WHERE x.b = @p)",
                &[("@p", DataType::Int)],
            ),
            "badvar" => module(
                "badvar",
                ModuleKind::InlineTableFunction,
                "CREATE FUNCTION dbo.badvar (@p int) RETURNS TABLE AS RETURN SELECT @q AS q",
                &[("@p", DataType::Int)],
            ),
            "mst" => module(
                "mst",
                ModuleKind::TableFunction,
                "CREATE FUNCTION dbo.mst (@p int) RETURNS @t TABLE (x int) AS BEGIN RETURN END",
                &[("@p", DataType::Int)],
            ),
            "sf" => module(
                "sf",
                ModuleKind::ScalarFunction,
                "CREATE FUNCTION dbo.sf () RETURNS int AS BEGIN RETURN 1 END",
                &[],
            ),
            _ => return Ok(None),
        };
        Ok(Some(Arc::new(m)))
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

fn input(sql: &str) -> LogicalOp {
    match bind(sql).expect(sql) {
        Statement::Select { input, .. } => input,
        other => panic!("not a select: {other:?}"),
    }
}

fn err(sql: &str) -> i32 {
    match bind(sql) {
        Ok(_) => panic!("expected error for {sql}"),
        Err(e) => e.number,
    }
}

fn walk<'a>(op: &'a LogicalOp, out: &mut Vec<&'a LogicalOp>) {
    out.push(op);
    match op {
        LogicalOp::Filter { input, .. }
        | LogicalOp::Project { input, .. }
        | LogicalOp::Sort { input, .. }
        | LogicalOp::Top { input, .. }
        | LogicalOp::Distinct { input }
        | LogicalOp::Aggregate { input, .. }
        | LogicalOp::Window { input, .. } => walk(input, out),
        LogicalOp::Join { left, right, .. }
        | LogicalOp::Apply {
            outer: left,
            inner: right,
            ..
        }
        | LogicalOp::SetOp { left, right, .. } => {
            walk(left, out);
            walk(right, out);
        }
        _ => {}
    }
}

fn nodes(op: &LogicalOp) -> Vec<&LogicalOp> {
    let mut v = Vec::new();
    walk(op, &mut v);
    v
}

#[test]
fn inline_function_expands_with_constant_argument() {
    let op = input("SELECT * FROM dbo.inl(5) AS f");
    let ns = nodes(&op);
    assert!(ns.iter().any(|n| matches!(n, LogicalOp::VirtualGet { .. })));
    assert!(!ns
        .iter()
        .any(|n| matches!(n, LogicalOp::Apply { .. } | LogicalOp::TableFunction { .. })));
    let filter = ns
        .iter()
        .find_map(|n| match n {
            LogicalOp::Filter { predicate, .. } => Some(predicate),
            _ => None,
        })
        .expect("filter");
    let text = format!("{filter:?}");
    assert!(text.contains("Int(5)"), "{text}");
    assert_eq!(op.arity(), 2);
}

#[test]
fn apply_argument_becomes_parameter() {
    let op = input("SELECT t.a, f.b FROM t1 t CROSS APPLY dbo.inl(t.b) f");
    let ns = nodes(&op);
    let params = ns
        .iter()
        .find_map(|n| match n {
            LogicalOp::Apply { params, .. } => Some(params),
            _ => None,
        })
        .expect("apply");
    assert_eq!(params.len(), 1);
    assert!(matches!(params[0].1.kind, ScalarKind::Column(1)));
    // variables pass through unchanged, no apply
    let op = input("SELECT * FROM dbo.inl(@v)");
    assert!(!nodes(&op)
        .iter()
        .any(|n| matches!(n, LogicalOp::Apply { .. })));
}

#[test]
fn parameter_in_body_subquery_marks_it_correlated() {
    let op = input("SELECT t.a FROM t1 t CROSS APPLY dbo.corr(t.a) f");
    let text = format!("{op:?}");
    assert!(text.contains("uncorrelated: false"), "{text}");
}

#[test]
fn builtin_column_types() {
    let op = input("SELECT * FROM STRING_SPLIT('a,b,c', ',')");
    let cols = op.columns();
    assert_eq!(cols.len(), 1);
    assert_eq!(cols[0].data_type, DataType::VarChar(Some(5)));
    let op = input("SELECT * FROM STRING_SPLIT('a,b', N',', 1)");
    let cols = op.columns();
    assert_eq!(cols[0].data_type, DataType::NVarChar(Some(3)));
    assert_eq!(cols[1].data_type, DataType::BigInt);
    let op = input("SELECT value FROM GENERATE_SERIES(1, 10, 2)");
    assert_eq!(op.columns()[0].data_type, DataType::Int);
    let op = input("SELECT [key], value, type FROM OPENJSON(N'{}')");
    assert_eq!(op.arity(), 3);
    let op = input("SELECT * FROM OPENJSON(N'[]') WITH (x int '$.y', j nvarchar(max) AS JSON)");
    assert_eq!(op.columns()[1].data_type, DataType::NVarChar(None));
}

#[test]
fn multi_statement_function_is_a_leaf() {
    let op = input("SELECT x FROM dbo.mst(1)");
    assert!(nodes(&op).iter().any(|n| matches!(
        n,
        LogicalOp::TableFunction {
            func: TableFunc::User { .. },
            ..
        }
    )));
}

#[test]
fn errors() {
    assert_eq!(err("SELECT * FROM dbo.nosuch(1)"), 208);
    assert_eq!(err("SELECT * FROM dbo.inl()"), 313);
    assert_eq!(err("SELECT * FROM dbo.inl(1, 2)"), 8144);
    assert_eq!(err("SELECT * FROM dbo.sf()"), 208);
    assert_eq!(err("SELECT * FROM t1(1)"), 215);
    assert_eq!(err("SELECT * FROM dbo.badvar(1)"), 137);
    assert_eq!(err("SELECT dbo.inl(1)"), 4121);
    assert_eq!(err("SELECT * FROM t1 t, dbo.inl(t.a)"), 4104);
    assert_eq!(err("SELECT * FROM STRING_SPLIT('a', ',', @v)"), 8748);
}
