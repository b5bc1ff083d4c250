//! `PIVOT` / `UNPIVOT` are rewritten to operators that already exist:
//! - `src PIVOT (agg(v) FOR p IN ([a], [b])) AS x` is
//!   `(SELECT g.., agg(CASE WHEN p = N'a' THEN v END) AS [a], .. FROM src GROUP BY g..) AS x`
//!   where `g..` are the source's columns other than `p` and `v` (SQL Server's implicit
//!   grouping); a pivot value no row has gives the aggregate of no rows (NULL, 0 for COUNT).
//! - `src UNPIVOT (v FOR n IN (c1, c2)) AS x` is
//!   `(SELECT g.., n, v FROM src CROSS APPLY (VALUES (N'c1', c1), (N'c2', c2)) AS u (n, v)
//!   WHERE v IS NOT NULL) AS x`: one row per listed column, NULL values dropped.

use catalog::name_eq;
use common::{SqlError, SqlResult};
use parser::ast;

use super::query::is_aggregate_name;
use super::{Binder, Scope};
use crate::logical::LogicalOp;

/// Exposed name of the VALUES list an UNPIVOT applies; never visible outside the rewrite.
const UNPIVOT_ROWS: &str = "$unpivot";

fn col(name: &str) -> ast::Expr {
    ast::Expr::Column(ast::ObjectName::single(name.to_string()))
}

fn qcol(table: &str, name: &str) -> ast::Expr {
    ast::Expr::Column(ast::ObjectName {
        parts: vec![ast::Ident::new(table), ast::Ident::new(name)],
    })
}

fn nstring(s: &str) -> ast::Expr {
    ast::Expr::Literal(ast::Literal::String {
        value: s.to_string(),
        national: true,
    })
}

fn select_query(select: ast::Select) -> ast::Query {
    ast::Query {
        with: Vec::new(),
        body: ast::QueryBody::Select(Box::new(select)),
        order_by: Vec::new(),
        offset: None,
        options: Vec::new(),
        for_clause: None,
    }
}

impl Binder<'_> {
    /// The visible column names of `source`, bound once for its shape only.
    fn source_columns(&self, source: &ast::TableRef) -> SqlResult<Scope> {
        let (_, scope, _) = self.bind_table_ref(source)?;
        Ok(scope)
    }

    pub(crate) fn bind_pivot(
        &self,
        source: &ast::TableRef,
        aggregate: &ast::FunctionCall,
        pivot_column: &ast::Ident,
        values: &[ast::Ident],
        alias: &ast::Ident,
    ) -> SqlResult<(LogicalOp, Scope, crate::scalar::Params)> {
        if aggregate.name.parts.len() != 1
            || !is_aggregate_name(aggregate.name.name_str())
            || aggregate.over.is_some()
        {
            return Err(SqlError::new(
                195,
                &[&aggregate.name.name_str(), &"aggregate function"],
            ));
        }
        let scope = self.source_columns(source)?;
        let visible: Vec<&str> = scope
            .cols
            .iter()
            .filter(|c| !c.hidden)
            .map(|c| c.name.as_str())
            .collect();
        for (i, c) in visible.iter().enumerate() {
            if visible[..i].iter().any(|d| name_eq(c, d)) {
                return Err(SqlError::new(8156, &[c, &alias.value]));
            }
        }
        if !visible.iter().any(|c| name_eq(c, &pivot_column.value)) {
            return Err(SqlError::new(207, &[&pivot_column.value]));
        }
        // the aggregate's column arguments are consumed, like the pivot column
        let value_columns: Vec<&str> = aggregate
            .args
            .iter()
            .filter_map(|a| match super::query::strip(a) {
                ast::Expr::Column(n) if n.parts.len() == 1 => Some(n.name_str()),
                _ => None,
            })
            .collect();
        for v in &value_columns {
            if !visible.iter().any(|c| name_eq(c, v)) {
                return Err(SqlError::new(207, &[v]));
            }
        }
        let grouping: Vec<&str> = visible
            .iter()
            .copied()
            .filter(|c| {
                !name_eq(c, &pivot_column.value) && !value_columns.iter().any(|v| name_eq(c, v))
            })
            .collect();
        for (i, v) in values.iter().enumerate() {
            if grouping.iter().any(|g| name_eq(g, &v.value)) {
                return Err(SqlError::new(265, &[&v.value, &"PIVOT", &"PIVOT"]));
            }
            if values[..i].iter().any(|w| name_eq(&w.value, &v.value)) {
                return Err(SqlError::new(8156, &[&v.value, &alias.value]));
            }
        }
        let mut items: Vec<ast::SelectItem> = grouping
            .iter()
            .map(|g| ast::SelectItem::Expr {
                expr: col(g),
                alias: None,
            })
            .collect();
        for v in values {
            let mut call = aggregate.clone();
            call.args = aggregate
                .args
                .iter()
                .map(|a| ast::Expr::Case {
                    operand: None,
                    when_then: vec![(
                        ast::Expr::Binary {
                            op: ast::BinaryOp::Eq,
                            left: Box::new(col(&pivot_column.value)),
                            right: Box::new(nstring(&v.value)),
                        },
                        a.clone(),
                    )],
                    else_result: None,
                })
                .collect();
            items.push(ast::SelectItem::Expr {
                expr: ast::Expr::Function(Box::new(call)),
                alias: Some(v.clone()),
            });
        }
        let select = ast::Select {
            distinct: false,
            top: None,
            items,
            into: None,
            from: vec![source.clone()],
            selection: None,
            group_by: grouping
                .iter()
                .map(|g| ast::GroupByItem::Expr(col(g)))
                .collect(),
            having: None,
        };
        self.bind_table_ref(&ast::TableRef::Derived {
            query: Box::new(select_query(select)),
            alias: Some(alias.clone()),
            columns: Vec::new(),
        })
    }

    pub(crate) fn bind_unpivot(
        &self,
        source: &ast::TableRef,
        value_column: &ast::Ident,
        name_column: &ast::Ident,
        columns: &[ast::Ident],
        alias: &ast::Ident,
    ) -> SqlResult<(LogicalOp, Scope, crate::scalar::Params)> {
        let scope = self.source_columns(source)?;
        let visible: Vec<_> = scope.cols.iter().filter(|c| !c.hidden).collect();
        // every listed column exists and has exactly the first one's type (length included)
        let mut first_type = None;
        for (i, c) in columns.iter().enumerate() {
            let Some(sc) = visible.iter().find(|s| name_eq(&s.name, &c.value)) else {
                return Err(SqlError::new(207, &[&c.value]));
            };
            if columns[..i].iter().any(|d| name_eq(&d.value, &c.value)) {
                return Err(SqlError::new(8156, &[&c.value, &alias.value]));
            }
            match &first_type {
                None => first_type = Some(sc.data_type.clone()),
                Some(t) if *t != sc.data_type => {
                    return Err(SqlError::new(8167, &[&c.value]));
                }
                Some(_) => {}
            }
        }
        let remaining: Vec<&str> = visible
            .iter()
            .map(|c| c.name.as_str())
            .filter(|n| !columns.iter().any(|c| name_eq(n, &c.value)))
            .collect();
        for new in [name_column, value_column] {
            if remaining.iter().any(|r| name_eq(r, &new.value)) {
                return Err(SqlError::new(265, &[&new.value, &"UNPIVOT", &"UNPIVOT"]));
            }
        }
        if name_eq(&name_column.value, &value_column.value) {
            return Err(SqlError::new(8156, &[&name_column.value, &alias.value]));
        }
        let sysname = ast::DataTypeName {
            name: "nvarchar".into(),
            schema: None,
            params: vec![ast::TypeParam::Number(128)],
        };
        let rows: Vec<Vec<ast::Expr>> = columns
            .iter()
            .map(|c| {
                vec![
                    ast::Expr::Cast {
                        expr: Box::new(nstring(&c.value)),
                        data_type: sysname.clone(),
                        try_cast: false,
                    },
                    col(&c.value),
                ]
            })
            .collect();
        let values = ast::TableRef::Values {
            rows,
            alias: Some(ast::Ident::new(UNPIVOT_ROWS)),
            columns: vec![name_column.clone(), value_column.clone()],
        };
        let mut items: Vec<ast::SelectItem> = remaining
            .iter()
            .map(|r| ast::SelectItem::Expr {
                expr: col(r),
                alias: None,
            })
            .collect();
        for c in [name_column, value_column] {
            items.push(ast::SelectItem::Expr {
                expr: qcol(UNPIVOT_ROWS, &c.value),
                alias: None,
            });
        }
        let select = ast::Select {
            distinct: false,
            top: None,
            items,
            into: None,
            from: vec![ast::TableRef::Join {
                left: Box::new(source.clone()),
                right: Box::new(values),
                kind: ast::JoinKind::CrossApply,
                hint: None,
                on: None,
            }],
            selection: Some(ast::Expr::IsNull {
                expr: Box::new(qcol(UNPIVOT_ROWS, &value_column.value)),
                negated: true,
            }),
            group_by: Vec::new(),
            having: None,
        };
        self.bind_table_ref(&ast::TableRef::Derived {
            query: Box::new(select_query(select)),
            alias: Some(alias.clone()),
            columns: Vec::new(),
        })
    }
}
