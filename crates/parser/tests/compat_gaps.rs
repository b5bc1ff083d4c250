//! Constructs SQL Server accepts that the Babelfish suite exercised: each parses, round-trips
//! through the printer, and has the expected shape.

use parser::ast::*;
use parser::{parse_batch, roundtrip};

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

#[test]
fn parenthesised_expression_starting_with_a_subquery() {
    let sql = "IF ((select count(*) from t1) = 0 and (select count(*) from t2) > 0) select 1";
    rt(sql);
    rt("select ((select 1) + 1) * 2");
    rt("select ((select 1) union (select 2))");
    rt("select (((select 1)))");
    // still an error where the text is wrong
    assert!(parse_batch("select ((select 1) = )").is_err());
    // deep nesting stays an error, not a hang or a crash
    let deep = format!(
        "select {}(select 1){} = 1",
        "(".repeat(200),
        ")".repeat(200)
    );
    assert!(parse_batch(&deep).is_err());
    let ok = format!("select {}(select 1){} + 1", "(".repeat(40), ")".repeat(40));
    rt(&ok);
}

#[test]
fn top_with_a_subquery() {
    rt("select top (select count(*) from t) a from t");
}

#[test]
fn column_constraint_with_column_list_is_a_table_constraint() {
    let k = one("create table t (a int, b int constraint pk primary key (a), c int foreign key (c) references t(a))");
    let StatementKind::CreateTable(ct) = k else {
        panic!("not create table")
    };
    assert_eq!(ct.definition.columns.len(), 3);
    assert_eq!(ct.definition.constraints.len(), 2);
    assert!(matches!(
        ct.definition.constraints[0].kind,
        TableConstraintKind::PrimaryKey { .. }
    ));
    rt("create table t (a int, b int unique (a, b))");
}

#[test]
fn alter_table_add_default_for() {
    rt("alter table t add default 0 for b");
    rt("alter table t add constraint df default 0 for b");
}

#[test]
fn leading_dots_and_empty_argument_list_on_drop_function() {
    rt("select * from ..t");
    rt("exec .dbo.p");
    let k = one("drop function dbo.f(), g()");
    let StatementKind::Drop { names, .. } = k else {
        panic!("not drop")
    };
    assert_eq!(names.len(), 2);
    assert!(parse_batch("drop table t()").is_err());
}

#[test]
fn create_type() {
    let k = one("create type dbo.phone from varchar(12) not null");
    let StatementKind::CreateType(t) = k else {
        panic!("not create type")
    };
    assert_eq!(t.nullable, Some(false));
    assert_eq!(t.base.as_ref().map(|b| b.name.as_str()), Some("varchar"));
    rt("create type phone from int null");
    rt("create type tt as table (a int not null, b varchar(10))");
    assert!(parse_batch("create type x").is_err());
}

#[test]
fn float_exponent_without_digits_and_spaced_not_operators() {
    rt("select 2e, 3.1e, 5.e-, 2e+");
    rt("select 1 where 0! =1");
    rt("select 1 where 0 !  < 1 and 1 ! > 0");
    assert!(parse_batch("select 1 where 1 ! 2").is_err());
}

#[test]
fn precision_is_a_column_name() {
    rt("select name, precision, scale from sys.types");
}
