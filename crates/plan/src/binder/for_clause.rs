//! Binding of a query's FOR clause (`FOR JSON`, `FOR XML`, `FOR BROWSE`): the query is bound
//! without it and wrapped in the [`AggFunc::ForClause`] aggregate (see `crate::for_clause`).

use std::sync::Arc;

use common::{SqlError, SqlResult};
use parser::ast;
use types::DataType;

use super::Binder;
use crate::for_clause::*;
use crate::logical::{AggCall, AggFunc, ColumnMeta, JoinKind, LogicalOp};
use crate::scalar::{ScalarExpr, ScalarFunc, ScalarKind, SubqueryPlan};
use crate::table_function::TableFunc;

fn unsupported(what: &str) -> SqlError {
    SqlError::custom(
        40517,
        16,
        1,
        format!(
            "Keyword or statement option '{what}' is not supported in this version of latchkey."
        ),
    )
}

impl Binder<'_> {
    /// A query with a FOR clause, at any level: one nvarchar(max) column, one row.
    pub(crate) fn bind_for_clause(
        &self,
        q: &ast::Query,
        fc: &ast::ForClause,
    ) -> SqlResult<(LogicalOp, Vec<String>)> {
        let format = for_format(fc)?;
        let mut inner_q = q.clone();
        inner_q.for_clause = None;
        let (input, _) = self.bind_query(&inner_q)?;
        let cols = input.columns();
        let origins = column_origins(&input);
        let embedded = column_embedding(&input);
        let columns: Vec<ForColumn> = cols
            .iter()
            .enumerate()
            .map(|(i, c)| ForColumn {
                name: c.name.clone(),
                table: origins.get(i).cloned().flatten(),
                embedded: embedded.get(i).copied().unwrap_or(Embedded::Value),
                data_type: c.data_type.clone(),
            })
            .collect();
        check_columns(&format, &columns)?;
        check_binary_columns(fc, &columns)?;
        let name = match format {
            ForFormat::Json { .. } => JSON_COLUMN,
            ForFormat::Xml { .. } => XML_COLUMN,
        };
        let args = cols
            .iter()
            .enumerate()
            .map(|(i, c)| ScalarExpr::column(i, c.data_type.clone()))
            .collect();
        let result_type = DataType::NVarChar(None);
        let agg = LogicalOp::Aggregate {
            input: Box::new(input),
            group_by: vec![],
            aggs: vec![AggCall {
                func: AggFunc::ForClause,
                args,
                distinct: false,
                order_by: vec![],
                data_type: result_type.clone(),
                serialize: Some(Arc::new(ForSpec { format, columns })),
            }],
            grouping_sets: None,
        };
        let op = LogicalOp::Project {
            input: Box::new(agg),
            exprs: vec![ScalarExpr::column(0, result_type.clone())],
            columns: vec![ColumnMeta::new(name, result_type, true)],
        };
        Ok((op, vec![name.to_string()]))
    }

    /// A SELECT statement with a FOR clause: no row at all when the query has none (the
    /// aggregate's NULL is filtered out), as SQL Server sends nothing in that case.
    pub(crate) fn bind_for_statement(
        &self,
        q: &ast::Query,
    ) -> SqlResult<Option<(LogicalOp, Vec<ColumnMeta>)>> {
        let Some(fc) = &q.for_clause else {
            return Ok(None);
        };
        if let ast::QueryBody::Select(s) = &q.body {
            if s.into.is_some() && matches!(**fc, ast::ForClause::Json(_)) {
                return Err(SqlError::new(13602, &[&"SELECT INTO"]));
            }
            if s.into.is_some()
                || s.items
                    .iter()
                    .any(|i| matches!(i, ast::SelectItem::Assign { .. }))
            {
                let mut e = SqlError::new(
                    6819,
                    &[&if s.into.is_some() {
                        "SELECT INTO"
                    } else {
                        "ASSIGNMENT"
                    }],
                );
                e.state = if s.into.is_some() { 1 } else { 3 };
                return Err(e);
            }
        }
        self.push_level(super::Scope::default(), false);
        let r = self.bind_query(q);
        self.pop_level();
        let (op, _) = r?;
        let columns = op.columns();
        // FOR XML ..., TYPE is one xml value; the rest streams as rows of 2033 characters
        let typed = matches!(&**fc, ast::ForClause::Xml(x) if x.type_directive);
        if typed {
            let t = DataType::NVarChar(None);
            let op = LogicalOp::Filter {
                input: Box::new(op),
                predicate: ScalarExpr::new(
                    ScalarKind::Not(Box::new(ScalarExpr::new(
                        ScalarKind::IsNull(Box::new(ScalarExpr::column(0, t))),
                        ScalarExpr::bool_type(),
                    ))),
                    ScalarExpr::bool_type(),
                ),
            };
            return Ok(Some((op, columns)));
        }
        let slot = {
            let mut s = self.next_slot.borrow_mut();
            *s += 1;
            *s - 1
        };
        let doc = ScalarExpr::column(0, DataType::NVarChar(None));
        let op = LogicalOp::Apply {
            outer: Box::new(op),
            inner: Box::new(LogicalOp::TableFunction {
                func: TableFunc::ClientRows,
                args: vec![ScalarExpr::new(
                    ScalarKind::Param(slot),
                    DataType::NVarChar(None),
                )],
                columns: columns.clone(),
            }),
            kind: JoinKind::Inner,
            params: vec![(slot, doc)],
        };
        let t = DataType::NVarChar(None);
        let op = LogicalOp::Project {
            input: Box::new(op),
            exprs: vec![ScalarExpr::column(1, t)],
            columns: columns.clone(),
        };
        Ok(Some((op, columns)))
    }
}

fn for_format(fc: &ast::ForClause) -> SqlResult<ForFormat> {
    Ok(match fc {
        ast::ForClause::Browse => return Err(unsupported("FOR BROWSE")),
        ast::ForClause::Json(j) => {
            if j.root.is_some() && j.without_array_wrapper {
                return Err(SqlError::new(13620, &[]));
            }
            ForFormat::Json {
                mode: match j.mode {
                    ast::ForJsonMode::Auto => JsonMode::Auto,
                    ast::ForJsonMode::Path => JsonMode::Path,
                },
                root: j.root.clone(),
                include_null_values: j.include_null_values,
                without_array_wrapper: j.without_array_wrapper,
            }
        }
        ast::ForClause::Xml(x) => {
            if let Some(u) = x.unsupported.first() {
                return Err(unsupported(&format!("FOR XML {u}")));
            }
            let mode = match &x.mode {
                ast::ForXmlMode::Raw(n) => XmlMode::Raw(n.clone().unwrap_or_else(|| "row".into())),
                ast::ForXmlMode::Auto => XmlMode::Auto,
                ast::ForXmlMode::Path(n) => {
                    XmlMode::Path(n.clone().unwrap_or_else(|| "row".into()))
                }
                ast::ForXmlMode::Explicit => return Err(unsupported("FOR XML EXPLICIT")),
            };
            ForFormat::Xml {
                mode,
                root: x.root.clone(),
                elements: x.elements.map(|e| XmlElements {
                    xsi_nil: e == ast::XmlElements::XsiNil,
                }),
                typed: x.type_directive,
            }
        }
    })
}

/// The query an INSERT writes from may not end in a FOR clause (13602 for JSON, 6819 for XML).
pub(crate) fn refuse_for_clause(q: &ast::Query, statement: &str) -> SqlResult<()> {
    match q.for_clause.as_deref() {
        Some(ast::ForClause::Json(_)) => Err(SqlError::new(13602, &[&statement])),
        Some(ast::ForClause::Xml(_)) => Err(SqlError::new(6819, &[&statement])),
        _ => Ok(()),
    }
}

/// Binary columns: FOR XML RAW needs BINARY BASE64 (Msg 6829); AUTO without it would write URL
/// references to the rows, which latchkey does not produce (40517). PATH always writes base64.
fn check_binary_columns(fc: &ast::ForClause, columns: &[ForColumn]) -> SqlResult<()> {
    let ast::ForClause::Xml(x) = fc else {
        return Ok(());
    };
    if x.binary_base64 {
        return Ok(());
    }
    let Some(c) = columns.iter().find(|c| c.data_type.is_binary()) else {
        return Ok(());
    };
    match x.mode {
        ast::ForXmlMode::Raw(_) => Err(SqlError::new(6829, &[&c.name])),
        ast::ForXmlMode::Auto => Err(unsupported(
            "FOR XML AUTO of binary data without BINARY BASE64",
        )),
        _ => Ok(()),
    }
}

/// Checks SQL Server makes while compiling (they fire even when the query returns no rows).
fn check_columns(format: &ForFormat, columns: &[ForColumn]) -> SqlResult<()> {
    let ForFormat::Json { mode, .. } = format else {
        return Ok(());
    };
    if columns.iter().any(|c| c.name.is_empty()) {
        return Err(SqlError::new(13605, &[]));
    }
    if *mode == JsonMode::Auto {
        if columns.iter().all(|c| c.table.is_none()) {
            return Err(SqlError::new(13600, &[]));
        }
        return Ok(());
    }
    // PATH: dotted names nest; an object's members must be contiguous, a leaf unique
    let mut done: Vec<Vec<String>> = Vec::new();
    let mut prev: Vec<String> = Vec::new();
    for c in columns {
        let path: Vec<String> = c.name.split('.').map(str::to_string).collect();
        if path.iter().any(String::is_empty) {
            return Err(SqlError::new(13603, &[&c.name]));
        }
        let common = prev
            .iter()
            .zip(&path)
            .take_while(|(a, b)| a == b)
            .count()
            .min(path.len() - 1)
            .min(prev.len().saturating_sub(1));
        // every prefix being closed since the previous column is finished
        for k in common + 1..prev.len() {
            done.push(prev[..k].to_vec());
        }
        for k in common + 1..=path.len() {
            let p = path[..k].to_vec();
            if done.contains(&p) {
                return Err(SqlError::new(13601, &[&c.name]));
            }
        }
        done.push(path.clone());
        prev = path;
    }
    Ok(())
}

/// Per output column, the exposed name of the table it reads (AUTO mode's nesting levels).
fn column_origins(op: &LogicalOp) -> Vec<Option<String>> {
    common::stack::grow(|| match op {
        LogicalOp::Get(s) => vec![Some(s.alias.clone()); s.columns().len()],
        LogicalOp::VirtualGet { table, alias } => vec![Some(alias.clone()); table.columns.len()],
        LogicalOp::Filter { input, .. }
        | LogicalOp::Sort { input, .. }
        | LogicalOp::Top { input, .. }
        | LogicalOp::Distinct { input } => column_origins(input),
        LogicalOp::Window { input, calls } => {
            let mut v = column_origins(input);
            v.extend(calls.iter().map(|_| None));
            v
        }
        LogicalOp::Join {
            left, right, kind, ..
        }
        | LogicalOp::Apply {
            outer: left,
            inner: right,
            kind,
            ..
        } => {
            let mut v = column_origins(left);
            if kind.outputs_right() {
                v.extend(column_origins(right));
            }
            v
        }
        LogicalOp::Project { input, exprs, .. } => {
            let inner = column_origins(input);
            exprs
                .iter()
                .map(|e| e.as_column().and_then(|i| inner.get(i).cloned().flatten()))
                .collect()
        }
        other => vec![None; other.arity()],
    })
}

/// Per output column, whether its values are JSON text or XML already.
fn column_embedding(op: &LogicalOp) -> Vec<Embedded> {
    common::stack::grow(|| match op {
        LogicalOp::Filter { input, .. }
        | LogicalOp::Sort { input, .. }
        | LogicalOp::Top { input, .. }
        | LogicalOp::Distinct { input } => column_embedding(input),
        LogicalOp::Project { input, exprs, .. } => {
            let inner = column_embedding(input);
            exprs.iter().map(|e| embedded_of(e, &inner)).collect()
        }
        LogicalOp::Aggregate { aggs, .. } if aggs.len() == 1 => match for_spec_of(op) {
            Some(s) if s.yields_json_text() => vec![Embedded::Json],
            Some(s) if s.yields_xml() => vec![Embedded::Xml],
            _ => vec![Embedded::Value; op.arity()],
        },
        other => vec![Embedded::Value; other.arity()],
    })
}

/// Whether an expression's value is JSON text or XML (SQL Server marks the results of
/// JSON_QUERY, JSON_MODIFY and FOR JSON as JSON, and of FOR XML ..., TYPE as xml).
pub(crate) fn embedded_of(e: &ScalarExpr, input: &[Embedded]) -> Embedded {
    match &e.kind {
        ScalarKind::Column(i) => input.get(*i).copied().unwrap_or(Embedded::Value),
        ScalarKind::Function {
            func: ScalarFunc::Builtin,
            name,
            ..
        } if matches!(
            name.as_str(),
            "JSON_QUERY" | "JSON_MODIFY" | types::json::JSON_MODIFY_RAW
        ) =>
        {
            Embedded::Json
        }
        ScalarKind::ScalarSubquery(sq) => match &sq.plan {
            SubqueryPlan::Logical(op) => match for_spec_of(op) {
                Some(s) if s.yields_json_text() => Embedded::Json,
                Some(s) if s.yields_xml() => Embedded::Xml,
                _ => Embedded::Value,
            },
            SubqueryPlan::Physical(_) => Embedded::Value,
        },
        _ => Embedded::Value,
    }
}

/// The FOR clause a bound query ends in, if any.
pub(crate) fn for_spec_of(op: &LogicalOp) -> Option<&ForSpec> {
    match op {
        LogicalOp::Project { input, .. } | LogicalOp::Filter { input, .. } => for_spec_of(input),
        LogicalOp::Aggregate { aggs, .. } => aggs
            .first()
            .filter(|a| a.func == AggFunc::ForClause)
            .and_then(|a| a.serialize.as_deref()),
        _ => None,
    }
}

/// JSON_MODIFY whose new value is JSON text embeds it as is (the internal raw form).
pub(crate) fn json_modify_name(args: &[ScalarExpr]) -> &'static str {
    match args.get(2) {
        Some(e) if embedded_of(e, &[]) == Embedded::Json => types::json::JSON_MODIFY_RAW,
        _ => "JSON_MODIFY",
    }
}

/// ISJSON's second argument: the word VALUE, SCALAR, ARRAY or OBJECT (not an expression).
pub(crate) fn json_type_constraint(a: &ast::Expr) -> SqlResult<ScalarExpr> {
    let word = match a {
        ast::Expr::Column(n) if n.parts.len() == 1 => n.name_str().to_ascii_uppercase(),
        _ => {
            return Err(SqlError::custom(
                1023,
                15,
                1,
                "Invalid parameter 2 specified for isjson.",
            ))
        }
    };
    if !matches!(word.as_str(), "VALUE" | "SCALAR" | "ARRAY" | "OBJECT") {
        return Err(SqlError::new(155, &[&n_word(a), &"isjson"]));
    }
    Ok(ScalarExpr::literal(
        types::Value::NVarChar(word),
        DataType::NVarChar(Some(10)),
    ))
}

fn n_word(a: &ast::Expr) -> String {
    match a {
        ast::Expr::Column(n) => n.name_str().to_string(),
        _ => String::new(),
    }
}
