//! Binding of queries: WITH, set operations, SELECT, FROM, GROUP BY, windows, ORDER BY, TOP.

use std::sync::Arc;

use catalog::{name_eq, TableRef as CatRef};
use common::{SqlError, SqlResult};
use parser::ast;
use types::{DataType, Value};

use super::{convert_to, qualified_name, Binder, CteDef, ExprCtx, Scope, ScopeCol, ScopeTable};
use crate::logical::*;
use crate::physical::{BoundStatement, NewTableSpec, Statement};
use crate::scalar::{ScalarExpr, ScalarKind};
use crate::typing;

/// Aggregation state of a grouped query while its select list / HAVING / ORDER BY are bound.
pub(crate) struct Grouping {
    pub group_asts: Vec<ast::Expr>,
    /// For group-by items that are plain columns: their FROM-scope column index.
    pub group_cols: Vec<Option<usize>>,
    pub group_exprs: Vec<ScalarExpr>,
    pub aggs: Vec<AggCall>,
    pub agg_asts: Vec<ast::Expr>,
    /// True while binding aggregate arguments (plain FROM-scope binding).
    pub in_aggregate: bool,
}

/// Window calls collected from a select list.
pub(crate) struct WindowCollector {
    pub calls: Vec<WindowCall>,
    pub asts: Vec<ast::Expr>,
}

pub(crate) fn strip(e: &ast::Expr) -> &ast::Expr {
    match e {
        ast::Expr::Nested(i) => strip(i),
        _ => e,
    }
}

const AGGREGATES: &[&str] = &[
    "COUNT",
    "COUNT_BIG",
    "SUM",
    "AVG",
    "MIN",
    "MAX",
    "STDEV",
    "STDEVP",
    "VAR",
    "VARP",
    "STRING_AGG",
    "CHECKSUM_AGG",
    "APPROX_COUNT_DISTINCT",
    "GROUPING",
    "GROUPING_ID",
];

pub(crate) fn is_aggregate_name(name: &str) -> bool {
    AGGREGATES.iter().any(|a| a.eq_ignore_ascii_case(name))
}

/// True when `e` contains an aggregate call outside subqueries and OVER clauses.
pub(crate) fn has_aggregate(e: &ast::Expr) -> bool {
    use ast::Expr as E;
    match e {
        E::Function(f) => {
            if f.over.is_none() && f.name.parts.len() == 1 && is_aggregate_name(f.name.name_str()) {
                return true;
            }
            f.args.iter().any(has_aggregate)
        }
        E::Unary { expr, .. } | E::Nested(expr) | E::IsNull { expr, .. } => has_aggregate(expr),
        E::Binary { left, right, .. } => has_aggregate(left) || has_aggregate(right),
        E::Between {
            expr, low, high, ..
        } => has_aggregate(expr) || has_aggregate(low) || has_aggregate(high),
        E::InList { expr, list, .. } => has_aggregate(expr) || list.iter().any(has_aggregate),
        E::InSubquery { expr, .. } => has_aggregate(expr),
        E::Like { expr, pattern, .. } => has_aggregate(expr) || has_aggregate(pattern),
        E::Quantified { left, .. } => has_aggregate(left),
        E::Case {
            operand,
            when_then,
            else_result,
        } => {
            operand.as_deref().is_some_and(has_aggregate)
                || when_then
                    .iter()
                    .any(|(a, b)| has_aggregate(a) || has_aggregate(b))
                || else_result.as_deref().is_some_and(has_aggregate)
        }
        E::Cast { expr, .. } | E::Collate { expr, .. } => has_aggregate(expr),
        E::Convert { expr, style, .. } => {
            has_aggregate(expr) || style.as_deref().is_some_and(has_aggregate)
        }
        _ => false,
    }
}

/// Column name of a select item.
fn item_name(expr: &ast::Expr, alias: Option<&ast::Ident>) -> String {
    if let Some(a) = alias {
        return a.value.clone();
    }
    match strip(expr) {
        ast::Expr::Column(n) => n.name_str().to_string(),
        _ => String::new(),
    }
}

impl Binder<'_> {
    /// A top-level SELECT statement (handles INTO and variable assignment).
    pub fn bind_select_statement(&self, q: &ast::Query) -> SqlResult<BoundStatement> {
        self.apply_query_options(&q.options)?;
        // variable assignment: SELECT @a = x, @b = y FROM ...
        self.bind_select_statement_body(q)
    }

    /// `OPTION (...)` of a SELECT or of the query of an INSERT ... SELECT.
    pub(crate) fn apply_query_options(&self, options: &[ast::QueryHint]) -> SqlResult<()> {
        for h in options {
            match h {
                ast::QueryHint::MaxRecursion(n) => {
                    // valid range 0..=32767 (0: unlimited)
                    if *n > 32767 {
                        return Err(SqlError::new(310, &[n, &32767]));
                    }
                    *self.max_recursion.borrow_mut() = Some(*n)
                }
                ast::QueryHint::HashJoin => {
                    *self.query_join_hint.borrow_mut() = Some(JoinHint::Hash)
                }
                ast::QueryHint::LoopJoin => {
                    *self.query_join_hint.borrow_mut() = Some(JoinHint::Loop)
                }
                ast::QueryHint::MergeJoin => {
                    *self.query_join_hint.borrow_mut() = Some(JoinHint::Merge)
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn bind_select_statement_body(&self, q: &ast::Query) -> SqlResult<BoundStatement> {
        if let Some((input, columns)) = self.bind_for_statement(q)? {
            return Ok(Statement::Select {
                input,
                columns,
                assign: None,
            });
        }
        if let ast::QueryBody::Select(s) = &q.body {
            let assigns: Vec<_> = s
                .items
                .iter()
                .filter(|i| matches!(i, ast::SelectItem::Assign { .. }))
                .collect();
            if !assigns.is_empty() {
                if assigns.len() != s.items.len() {
                    return Err(SqlError::new(141, &[]));
                }
                let mut vars = Vec::new();
                let mut rewritten = (**s).clone();
                rewritten.items = Vec::new();
                for it in &s.items {
                    if let ast::SelectItem::Assign { variable, op, expr } = it {
                        let Some((slot, t)) = self.env.variable_slot(variable) else {
                            return Err(SqlError::new(137, &[variable]));
                        };
                        vars.push((
                            crate::scalar::VarRef {
                                slot,
                                name: variable.clone(),
                            },
                            t,
                        ));
                        let e = compound_assign(variable, *op, expr.clone());
                        rewritten.items.push(ast::SelectItem::Expr {
                            expr: e,
                            alias: None,
                        });
                    }
                }
                let mut q2 = q.clone();
                q2.body = ast::QueryBody::Select(Box::new(rewritten));
                let (mut input, _) = self.bind_query_top(&q2)?;
                // convert each value to the variable's type
                let cols = input.columns();
                let exprs: Vec<ScalarExpr> = cols
                    .iter()
                    .enumerate()
                    .zip(&vars)
                    .map(|((i, c), (_, t))| {
                        convert_to(ScalarExpr::column(i, c.data_type.clone()), t)
                    })
                    .collect();
                let columns = exprs
                    .iter()
                    .zip(&vars)
                    .map(|(e, (v, _))| ColumnMeta::new(v.name.clone(), e.data_type.clone(), true))
                    .collect::<Vec<_>>();
                let vars = vars.into_iter().map(|(v, _)| v).collect();
                input = LogicalOp::Project {
                    input: Box::new(input),
                    exprs,
                    columns: columns.clone(),
                };
                return Ok(Statement::Select {
                    input,
                    columns,
                    assign: Some(vars),
                });
            }
            if let Some(into) = &s.into {
                let mut q2 = q.clone();
                if let ast::QueryBody::Select(s2) = &mut q2.body {
                    s2.into = None;
                }
                let (input, _) = self.bind_query_top(&q2)?;
                let cols = input.columns();
                let mut columns = Vec::new();
                for (i, c) in cols.iter().enumerate() {
                    if c.name.is_empty() {
                        return Err(SqlError::custom(
                            1038,
                            16,
                            1,
                            format!("An object or column name is missing or empty. For SELECT INTO statements, verify each column has a name. For other statements, look for empty alias names. Aliases defined as \"\" or [] are not allowed. Change the alias to a valid name. (column {})", i + 1),
                        ));
                    }
                    let t = if c.data_type == DataType::Null {
                        DataType::Int
                    } else {
                        c.data_type.clone()
                    };
                    columns.push(catalog::ColumnDef::new(c.name.clone(), t, c.nullable));
                }
                let qn = qualified_name(into);
                if !qn.is_temp() {
                    // a new table: the database permission CREATE TABLE (object id 0)
                    let db = qn
                        .database
                        .clone()
                        .unwrap_or_else(|| self.env.current_database());
                    self.record_access(&db, 0, catalog::Access::CreateTable);
                }
                return Ok(Statement::SelectInto {
                    target: NewTableSpec {
                        database: qn.database,
                        schema: qn.schema,
                        name: qn.name,
                        columns,
                    },
                    source: input,
                });
            }
        }
        let (input, _) = self.bind_query_top(q)?;
        let columns = input.columns();
        Ok(Statement::Select {
            input,
            columns,
            assign: None,
        })
    }

    fn bind_query_top(&self, q: &ast::Query) -> SqlResult<(LogicalOp, Vec<String>)> {
        self.push_level(Scope::default(), false);
        let r = self.bind_query(q);
        self.pop_level();
        r
    }

    /// Binds a query at the current (freshly pushed) level.
    pub fn bind_query(&self, q: &ast::Query) -> SqlResult<(LogicalOp, Vec<String>)> {
        common::stack::grow(|| self.bind_query_unguarded(q))
    }

    fn bind_query_unguarded(&self, q: &ast::Query) -> SqlResult<(LogicalOp, Vec<String>)> {
        if let Some(fc) = &q.for_clause {
            return self.bind_for_clause(q, fc);
        }
        let pushed = !q.with.is_empty();
        if pushed {
            let defs = q
                .with
                .iter()
                .map(|c| CteDef {
                    name: c.name.value.clone(),
                    columns: c.columns.iter().map(|i| i.value.clone()).collect(),
                    query: c.query.clone(),
                    recursive_binding: None,
                })
                .collect();
            self.ctes.borrow_mut().push(defs);
        }
        let r = self.bind_query_inner(q);
        if pushed {
            self.ctes.borrow_mut().pop();
        }
        r
    }

    fn bind_query_inner(&self, q: &ast::Query) -> SqlResult<(LogicalOp, Vec<String>)> {
        match &q.body {
            ast::QueryBody::Select(s) => self.bind_select(s, &q.order_by, q.offset.as_ref()),
            body => {
                let (op, names) = self.bind_body(body)?;
                if q.order_by.is_empty() && q.offset.is_none() {
                    return Ok((op, names));
                }
                // ORDER BY over the set operation's output columns
                let cols = op.columns();
                let mut scope = Scope::default();
                scope.tables.push(ScopeTable {
                    exposed: String::new(),
                    has_alias: true,
                    schema: None,
                    database: None,
                    start: 0,
                    len: cols.len(),
                });
                for c in &cols {
                    scope.cols.push(ScopeCol {
                        name: c.name.clone(),
                        table: Some(0),
                        data_type: c.data_type.clone(),
                        nullable: c.nullable,
                        hidden: false,
                    });
                }
                let saved = self.current_scope();
                self.set_scope(scope);
                let mut keys = Vec::new();
                for item in &q.order_by {
                    let e = match strip(&item.expr) {
                        ast::Expr::Literal(ast::Literal::Integer(t)) => {
                            let k: usize = t.parse().unwrap_or(0);
                            if k == 0 || k > cols.len() {
                                self.set_scope(saved);
                                return Err(SqlError::custom(108, 16, 1, format!("The ORDER BY position number {k} is out of range of the number of items in the select list.")));
                            }
                            ScalarExpr::column(k - 1, cols[k - 1].data_type.clone())
                        }
                        other => match self.bind_expr(other, &mut ExprCtx::plain()) {
                            Ok(e) => e,
                            Err(err) => {
                                self.set_scope(saved);
                                return Err(if err.number == 207 {
                                    SqlError::custom(
                                        104,
                                        16,
                                        1,
                                        "ORDER BY items must appear in the select list if the statement contains a UNION, INTERSECT or EXCEPT operator.",
                                    )
                                } else {
                                    err
                                });
                            }
                        },
                    };
                    keys.push(SortKey {
                        expr: e,
                        desc: item.desc,
                    });
                }
                self.set_scope(saved);
                let mut op = LogicalOp::Sort {
                    input: Box::new(op),
                    keys,
                };
                if let Some(off) = &q.offset {
                    op = LogicalOp::Top {
                        input: Box::new(op),
                        spec: self.offset_spec(off)?,
                    };
                }
                Ok((op, names))
            }
        }
    }

    fn offset_spec(&self, off: &ast::OffsetFetch) -> SqlResult<TopSpec> {
        let offset = self.bind_expr(&off.offset, &mut ExprCtx::plain())?;
        let count = match &off.fetch {
            Some(f) => Some(self.bind_expr(f, &mut ExprCtx::plain())?),
            None => None,
        };
        Ok(TopSpec {
            count,
            percent: false,
            with_ties: vec![],
            offset: Some(offset),
        })
    }

    /// Binds a query body (set operations) at the current level.
    fn bind_body(&self, body: &ast::QueryBody) -> SqlResult<(LogicalOp, Vec<String>)> {
        common::stack::grow(|| self.bind_body_unguarded(body))
    }

    fn bind_body_unguarded(&self, body: &ast::QueryBody) -> SqlResult<(LogicalOp, Vec<String>)> {
        match body {
            ast::QueryBody::Select(s) => self.bind_select(s, &[], None),
            ast::QueryBody::Parenthesized(q) => {
                let (op, names, params) = self.bind_query_level(q, false)?;
                self.forward_params(params);
                Ok((op, names))
            }
            ast::QueryBody::SetOp {
                op,
                all,
                left,
                right,
            } => {
                let (l, names) = self.bind_body_isolated(left)?;
                let (r, _) = self.bind_body_isolated(right)?;
                let lc = l.columns();
                let rc = r.columns();
                if lc.len() != rc.len() {
                    return Err(SqlError::custom(205, 16, 1, "All queries combined using a UNION, INTERSECT or EXCEPT operator must have an equal number of expressions in their target lists."));
                }
                let types: Vec<DataType> = lc
                    .iter()
                    .zip(&rc)
                    .map(|(a, b)| typing::unify(&a.data_type, &b.data_type))
                    .collect();
                let l = cast_columns(l, &types);
                let r = cast_columns(r, &types);
                let columns: Vec<ColumnMeta> = names
                    .iter()
                    .zip(&types)
                    .zip(lc.iter().zip(&rc))
                    .map(|((n, t), (a, b))| {
                        ColumnMeta::new(n.clone(), t.clone(), a.nullable || b.nullable)
                    })
                    .collect();
                let kind = match op {
                    ast::SetOperator::Union => SetOpKind::Union,
                    ast::SetOperator::Except => SetOpKind::Except,
                    ast::SetOperator::Intersect => SetOpKind::Intersect,
                };
                Ok((
                    LogicalOp::SetOp {
                        kind,
                        all: *all,
                        left: Box::new(l),
                        right: Box::new(r),
                        columns,
                    },
                    names,
                ))
            }
        }
    }

    /// Binds a set-operation operand in its own level (its FROM scope must not leak).
    fn bind_body_isolated(&self, body: &ast::QueryBody) -> SqlResult<(LogicalOp, Vec<String>)> {
        self.push_level(Scope::default(), false);
        let r = self.bind_body(body);
        let params = self.pop_level();
        self.forward_params(params);
        r
    }

    /// Params captured by an inner non-operator level are re-captured by the current level
    /// (they are valid one level up, i.e. at the current level's parent).
    pub(crate) fn forward_params(&self, params: Vec<(usize, ScalarExpr)>) {
        if params.is_empty() {
            return;
        }
        let mut levels = self.levels.borrow_mut();
        if let Some(l) = levels.last_mut() {
            l.params.extend(params);
        }
    }

    fn bind_select(
        &self,
        s: &ast::Select,
        order_by: &[ast::OrderByItem],
        offset: Option<&ast::OffsetFetch>,
    ) -> SqlResult<(LogicalOp, Vec<String>)> {
        // FROM
        let (mut plan, scope) = if s.from.is_empty() {
            (
                LogicalOp::Values {
                    rows: vec![vec![]],
                    columns: vec![],
                },
                Scope::default(),
            )
        } else {
            self.bind_from(&s.from)?
        };
        self.set_scope(scope.clone());
        // WHERE
        if let Some(w) = &s.selection {
            if has_aggregate(w) {
                return Err(SqlError::custom(147, 15, 1, "An aggregate may not appear in the WHERE clause unless it is in a subquery contained in a HAVING clause or a select list, and the column being aggregated is an outer reference."));
            }
            let p = self.bind_predicate(w, &mut ExprCtx::plain())?;
            plan = LogicalOp::Filter {
                input: Box::new(plan),
                predicate: p,
            };
        }
        // expand select items
        let mut items: Vec<(ast::Expr, String)> = Vec::new();
        for it in &s.items {
            match it {
                ast::SelectItem::Expr { expr, alias } => {
                    items.push((expr.clone(), item_name(expr, alias.as_ref())))
                }
                ast::SelectItem::Wildcard => {
                    if s.from.is_empty() {
                        return Err(SqlError::custom(
                            263,
                            16,
                            1,
                            "Must specify table to select from.",
                        ));
                    }
                    for c in scope.cols.iter().filter(|c| !c.hidden) {
                        let mut parts = Vec::new();
                        if let Some(t) = c.table {
                            parts.push(ast::Ident {
                                value: scope.tables[t].exposed.clone(),
                                quoted: true,
                            });
                        }
                        parts.push(ast::Ident {
                            value: c.name.clone(),
                            quoted: true,
                        });
                        items.push((ast::Expr::Column(ast::ObjectName { parts }), c.name.clone()));
                    }
                }
                ast::SelectItem::QualifiedWildcard(q) => {
                    let qual: Vec<String> = q.parts.iter().map(|p| p.value.clone()).collect();
                    let Some(t) = scope
                        .tables
                        .iter()
                        .find(|t| super::table_matches(t, &qual[qual.len().saturating_sub(2)..]))
                    else {
                        return Err(SqlError::custom(107, 16, 1, format!("The column prefix '{}' does not match with a table name or alias name used in the query.", qual.join("."))));
                    };
                    for c in &scope.cols[t.start..t.start + t.len] {
                        if c.hidden {
                            continue;
                        }
                        items.push((
                            ast::Expr::Column(ast::ObjectName {
                                parts: vec![
                                    ast::Ident {
                                        value: t.exposed.clone(),
                                        quoted: true,
                                    },
                                    ast::Ident {
                                        value: c.name.clone(),
                                        quoted: true,
                                    },
                                ],
                            }),
                            c.name.clone(),
                        ));
                    }
                }
                ast::SelectItem::Assign { .. } => return Err(SqlError::new(141, &[])),
            }
        }
        let grouped = !s.group_by.is_empty()
            || items.iter().any(|(e, _)| has_aggregate(e))
            || s.having.as_ref().is_some_and(has_aggregate)
            || s.having.is_some()
            || order_by.iter().any(|o| has_aggregate(&o.expr));
        let mut grouping = None;
        let mut grouping_sets = None;
        if grouped {
            let (asts, sets) = flatten_group_by(&s.group_by);
            grouping_sets = sets;
            let mut g = Grouping {
                group_asts: Vec::new(),
                group_cols: Vec::new(),
                group_exprs: Vec::new(),
                aggs: Vec::new(),
                agg_asts: Vec::new(),
                in_aggregate: false,
            };
            for a in asts {
                if has_aggregate(&a) {
                    return Err(SqlError::custom(144, 15, 1, "Cannot use an aggregate or a subquery in an expression used for the group by list of a GROUP BY clause."));
                }
                let e = self.bind_expr(&a, &mut ExprCtx::plain())?;
                g.group_cols.push(e.as_column());
                g.group_exprs.push(e);
                g.group_asts.push(strip(&a).clone());
            }
            grouping = Some(g);
        }
        let base_arity = match &grouping {
            Some(g) => g.group_exprs.len(), // aggregates appended later; windows use a post-agg projection
            None => scope.cols.len(),
        };
        let _ = base_arity;
        let mut windows = WindowCollector {
            calls: Vec::new(),
            asts: Vec::new(),
        };
        // bind select list
        let mut exprs = Vec::new();
        let mut names = Vec::new();
        for (e, n) in &items {
            let mut ctx = ExprCtx {
                grouping: grouping.as_mut(),
                windows: Some(&mut windows),
                aggregates_allowed: true,
            };
            exprs.push(self.bind_expr(e, &mut ctx)?);
            names.push(n.clone());
        }
        // HAVING
        let having = match &s.having {
            Some(h) => {
                let mut ctx = ExprCtx {
                    grouping: grouping.as_mut(),
                    windows: None,
                    aggregates_allowed: true,
                };
                Some(self.bind_predicate(h, &mut ctx)?)
            }
            None => None,
        };
        // ORDER BY: ordinals, aliases, select expressions, or extra hidden expressions
        let mut sort_keys: Vec<(usize, bool)> = Vec::new();
        let visible = exprs.len();
        for item in order_by {
            let e = strip(&item.expr);
            if let ast::Expr::Literal(ast::Literal::Integer(t)) = e {
                let k: usize = t.parse().unwrap_or(0);
                if k == 0 || k > visible {
                    return Err(SqlError::custom(108, 16, 1, format!("The ORDER BY position number {k} is out of range of the number of items in the select list.")));
                }
                sort_keys.push((k - 1, item.desc));
                continue;
            }
            if let ast::Expr::Column(n) = e {
                if n.parts.len() == 1 {
                    if let Some(i) = names.iter().position(|x| name_eq(x, n.name_str())) {
                        sort_keys.push((i, item.desc));
                        continue;
                    }
                }
            }
            if let Some(i) = items.iter().position(|(x, _)| strip(x) == e) {
                sort_keys.push((i, item.desc));
                continue;
            }
            if s.distinct {
                return Err(SqlError::new(145, &[]));
            }
            let mut ctx = ExprCtx {
                grouping: grouping.as_mut(),
                windows: Some(&mut windows),
                aggregates_allowed: true,
            };
            let b = self.bind_expr(e, &mut ctx).map_err(|err| {
                if err.number == 8120 {
                    SqlError::new(8127, &[&err.message.split('\'').nth(1).unwrap_or("")])
                } else {
                    err
                }
            })?;
            exprs.push(b);
            names.push(String::new());
            sort_keys.push((exprs.len() - 1, item.desc));
        }
        // assemble: aggregate
        if let Some(g) = grouping {
            plan = LogicalOp::Aggregate {
                input: Box::new(plan),
                group_by: g.group_exprs,
                aggs: g.aggs,
                grouping_sets,
            };
            if let Some(h) = having {
                plan = LogicalOp::Filter {
                    input: Box::new(plan),
                    predicate: h,
                };
            }
        }
        // windows: calls reference the row below; results appended after it
        if !windows.calls.is_empty() {
            let arity = plan.arity();
            for e in &mut exprs {
                shift_window_refs(e, arity);
            }
            // `SELECT TOP (n) ROW_NUMBER() OVER (ORDER BY (SELECT NULL)) FROM big CROSS JOIN
            // big` (every seed script's row generator): with no ORDER BY/DISTINCT/grouping and
            // only unpartitioned ROW_NUMBERs over a row-independent order, numbering the first n
            // input rows gives what numbering all rows and keeping n would, so the TOP is also
            // applied below the window (SQL Server's Sequence Project streams the same way).
            if let Some(t) = &s.top {
                let streamable = !t.percent
                    && !t.with_ties
                    && sort_keys.is_empty()
                    && offset.is_none()
                    && !s.distinct
                    && windows.calls.iter().all(|c| {
                        c.func == WindowFunc::RowNumber
                            && c.partition_by.is_empty()
                            && c.order_by.iter().all(|k| !k.expr.any_column(&mut |_| true))
                    });
                if streamable {
                    let count = self.bind_expr(&t.quantity, &mut ExprCtx::plain())?;
                    plan = LogicalOp::Top {
                        input: Box::new(plan),
                        spec: TopSpec {
                            count: Some(convert_to(count, &DataType::BigInt)),
                            percent: false,
                            with_ties: vec![],
                            offset: None,
                        },
                    };
                }
            }
            plan = LogicalOp::Window {
                input: Box::new(plan),
                calls: windows.calls,
            };
        }
        // nullability (SELECT INTO copies it): a plain column keeps its input's, a non-NULL
        // literal is NOT NULL, anything else is nullable
        let input_cols = plan.columns();
        let columns: Vec<ColumnMeta> = exprs
            .iter()
            .zip(&names)
            .map(|(e, n)| {
                let nullable = match &e.kind {
                    ScalarKind::Column(i) => input_cols.get(*i).is_none_or(|c| c.nullable),
                    ScalarKind::Literal(v) => v.is_null(),
                    _ => true,
                };
                ColumnMeta::new(n.clone(), e.data_type.clone(), nullable)
            })
            .collect();
        plan = LogicalOp::Project {
            input: Box::new(plan),
            exprs,
            columns: columns.clone(),
        };
        if s.distinct {
            plan = LogicalOp::Distinct {
                input: Box::new(plan),
            };
        }
        let keys: Vec<SortKey> = sort_keys
            .iter()
            .map(|(i, d)| SortKey {
                expr: ScalarExpr::column(*i, columns[*i].data_type.clone()),
                desc: *d,
            })
            .collect();
        if !keys.is_empty() {
            plan = LogicalOp::Sort {
                input: Box::new(plan),
                keys: keys.clone(),
            };
        }
        if let Some(t) = &s.top {
            let mut count = self.bind_expr(&t.quantity, &mut ExprCtx::plain())?;
            if !t.percent {
                count = convert_to(count, &DataType::BigInt);
            }
            plan = LogicalOp::Top {
                input: Box::new(plan),
                spec: TopSpec {
                    count: Some(count),
                    percent: t.percent,
                    with_ties: if t.with_ties { keys.clone() } else { vec![] },
                    offset: None,
                },
            };
        }
        if let Some(off) = offset {
            if keys.is_empty() {
                return Err(SqlError::custom(
                    10741,
                    15,
                    1,
                    "A TOP can not be used in the same query or sub-query as a OFFSET.",
                ));
            }
            plan = LogicalOp::Top {
                input: Box::new(plan),
                spec: self.offset_spec(off)?,
            };
        }
        if columns.len() > visible {
            let exprs = (0..visible)
                .map(|i| ScalarExpr::column(i, columns[i].data_type.clone()))
                .collect();
            plan = LogicalOp::Project {
                input: Box::new(plan),
                exprs,
                columns: columns[..visible].to_vec(),
            };
        }
        names.truncate(visible);
        Ok((plan, names))
    }

    /// Binds a FROM list (comma-separated entries are cross joined).
    pub(crate) fn bind_from(&self, from: &[ast::TableRef]) -> SqlResult<(LogicalOp, Scope)> {
        let mut acc: Option<(LogicalOp, Scope)> = None;
        for t in from {
            let (op, sc, params) = self.bind_table_ref(t)?;
            acc = Some(match acc {
                None => {
                    self.forward_params(params);
                    (op, sc)
                }
                Some((l, mut lsc)) => {
                    lsc.append(sc);
                    let j = if params.is_empty() {
                        LogicalOp::Join {
                            left: Box::new(l),
                            right: Box::new(op),
                            kind: JoinKind::Cross,
                            on: None,
                            hint: *self.query_join_hint.borrow(),
                        }
                    } else {
                        LogicalOp::Apply {
                            outer: Box::new(l),
                            inner: Box::new(op),
                            kind: JoinKind::Inner,
                            params,
                        }
                    };
                    (j, lsc)
                }
            });
        }
        let (op, scope) = acc.ok_or_else(|| SqlError::internal("empty FROM"))?;
        // duplicate exposed names (1013)
        for (i, a) in scope.tables.iter().enumerate() {
            if a.exposed.is_empty() {
                continue;
            }
            for b in &scope.tables[i + 1..] {
                if name_eq(&a.exposed, &b.exposed)
                    && a.schema.as_deref().map(str::to_lowercase)
                        == b.schema.as_deref().map(str::to_lowercase)
                {
                    return Err(SqlError::new(1013, &[&a.exposed, &b.exposed]));
                }
            }
        }
        Ok((op, scope))
    }

    /// Binds one FROM entry. Returns the operator, its scope, and outer references it captured
    /// that must be supplied by an Apply from the row to its left.
    pub(crate) fn bind_table_ref(
        &self,
        t: &ast::TableRef,
    ) -> SqlResult<(LogicalOp, Scope, crate::scalar::Params)> {
        common::stack::grow(|| self.bind_table_ref_unguarded(t))
    }

    fn bind_table_ref_unguarded(
        &self,
        t: &ast::TableRef,
    ) -> SqlResult<(LogicalOp, Scope, crate::scalar::Params)> {
        match t {
            ast::TableRef::Table { name, alias, hints } => {
                match self.bind_named_table(name, alias.as_ref(), hints) {
                    Ok((op, sc)) => Ok((op, sc, vec![])),
                    Err(e) if e.number == 208 => match self.env.external_table(name) {
                        Some(ext) if hints.is_empty() => {
                            self.bind_external_table(name, alias.as_ref(), ext)
                        }
                        _ => Err(e),
                    },
                    Err(e) => Err(e),
                }
            }
            ast::TableRef::Nested(inner) => self.bind_table_ref(inner),
            ast::TableRef::Pivot {
                source,
                aggregate,
                pivot_column,
                values,
                alias,
            } => self.bind_pivot(source, aggregate, pivot_column, values, alias),
            ast::TableRef::Unpivot {
                source,
                value_column,
                name_column,
                columns,
                alias,
            } => self.bind_unpivot(source, value_column, name_column, columns, alias),
            ast::TableRef::Derived {
                query,
                alias,
                columns,
            } => {
                // the left scope is visible only to APPLY; plain derived tables see outer levels
                let (op, names, params) = self.bind_query_level(query, false)?;
                let alias = alias.as_ref().map(|a| a.value.clone()).unwrap_or_default();
                let (op, sc) = self.derived_scope(op, names, &alias, columns)?;
                Ok((op, sc, params))
            }
            ast::TableRef::Values {
                rows,
                alias,
                columns,
            } => {
                let alias = alias.as_ref().map(|a| a.value.clone()).unwrap_or_default();
                // its own level: references to the left side of an APPLY become parameters
                self.push_level(Scope::default(), false);
                let r = self.bind_values(rows);
                let params = self.pop_level();
                let op = r?;
                let n = op.arity();
                let names: Vec<String> = (0..n).map(|_| String::new()).collect();
                let (op, sc) = self.derived_scope(op, names, &alias, columns)?;
                Ok((op, sc, params))
            }
            ast::TableRef::Variable { name, alias } => {
                // table variables resolve through the catalog under their `@name`
                let on = ast::ObjectName::single(name.clone());
                let alias = alias
                    .clone()
                    .or_else(|| Some(ast::Ident::new(name.clone())));
                let (op, sc) = self
                    .bind_named_table(&on, alias.as_ref(), &[])
                    .map_err(|e| {
                        if e.number == 208 {
                            SqlError::new(1087, &[name])
                        } else {
                            e
                        }
                    })?;
                Ok((op, sc, vec![]))
            }
            ast::TableRef::Function {
                name,
                args,
                alias,
                columns,
                schema,
            } => self.bind_table_function(name, args, alias.as_ref(), columns, schema),
            ast::TableRef::OpenRowset(o) => self.bind_openrowset(o),
            ast::TableRef::Join {
                left: l,
                right: r,
                kind,
                hint,
                on,
            } => {
                let (lop, lsc, lparams) = self.bind_table_ref(l)?;
                self.forward_params(lparams);
                let apply = matches!(kind, ast::JoinKind::CrossApply | ast::JoinKind::OuterApply);
                let (rop, rsc, rparams) = if apply {
                    // the right side sees the left side's columns as outer references
                    self.push_level(lsc.clone(), false);
                    let r = self.bind_table_ref(r);
                    let through = self.pop_level();
                    self.forward_params(through);
                    r?
                } else {
                    self.bind_table_ref(r)?
                };
                let mut sc = lsc.clone();
                sc.append(rsc);
                let jk = match kind {
                    ast::JoinKind::Inner | ast::JoinKind::CrossApply => JoinKind::Inner,
                    ast::JoinKind::LeftOuter | ast::JoinKind::OuterApply => JoinKind::LeftOuter,
                    ast::JoinKind::RightOuter => JoinKind::RightOuter,
                    ast::JoinKind::FullOuter => JoinKind::FullOuter,
                    ast::JoinKind::Cross => JoinKind::Cross,
                };
                let on = match on {
                    Some(e) => {
                        let saved = self.current_scope();
                        self.set_scope(sc.clone());
                        let r = self.bind_predicate(e, &mut ExprCtx::plain());
                        self.set_scope(saved);
                        Some(r?)
                    }
                    None => None,
                };
                let hint = hint
                    .and_then(|h| match h {
                        ast::JoinHint::Hash => Some(JoinHint::Hash),
                        ast::JoinHint::Loop => Some(JoinHint::Loop),
                        ast::JoinHint::Merge => Some(JoinHint::Merge),
                        ast::JoinHint::Remote => None,
                    })
                    .or(*self.query_join_hint.borrow());
                let op = if !rparams.is_empty() {
                    let mut inner = rop;
                    if let Some(p) = on {
                        // ON over left++right: evaluate inside the apply as a filter on the
                        // combined row is not possible; keep it as the apply's join predicate
                        inner = LogicalOp::Filter {
                            input: Box::new(inner),
                            predicate: shift_to_right(p, lsc.cols.len()),
                        };
                    }
                    LogicalOp::Apply {
                        outer: Box::new(lop),
                        inner: Box::new(inner),
                        kind: if jk == JoinKind::Cross {
                            JoinKind::Inner
                        } else {
                            jk
                        },
                        params: rparams,
                    }
                } else {
                    LogicalOp::Join {
                        left: Box::new(lop),
                        right: Box::new(rop),
                        kind: jk,
                        on,
                        hint,
                    }
                };
                Ok((op, sc, vec![]))
            }
        }
    }

    /// Gives a derived table / VALUES / CTE its exposed name and column names.
    pub(crate) fn derived_scope(
        &self,
        op: LogicalOp,
        names: Vec<String>,
        alias: &str,
        columns: &[ast::Ident],
    ) -> SqlResult<(LogicalOp, Scope)> {
        let cols = op.columns();
        let names: Vec<String> = if columns.is_empty() {
            names
        } else {
            if columns.len() != cols.len() {
                return Err(SqlError::custom(
                    8158,
                    16,
                    1,
                    format!("'{alias}' has more columns than were specified in the column list."),
                ));
            }
            columns.iter().map(|c| c.value.clone()).collect()
        };
        for (i, n) in names.iter().enumerate() {
            if n.is_empty() {
                return Err(SqlError::new(8155, &[&(i + 1), &alias]));
            }
            if names[..i].iter().any(|m| name_eq(m, n)) {
                return Err(SqlError::new(8156, &[n, &alias]));
            }
        }
        let mut sc = Scope::default();
        sc.tables.push(ScopeTable {
            exposed: alias.to_string(),
            has_alias: true,
            schema: None,
            database: None,
            start: 0,
            len: cols.len(),
        });
        for (c, n) in cols.iter().zip(&names) {
            sc.cols.push(ScopeCol {
                name: n.clone(),
                table: Some(0),
                data_type: c.data_type.clone(),
                nullable: c.nullable,
                hidden: false,
            });
        }
        Ok((op, sc))
    }

    /// `VALUES (..), (..)` rows with unified column types.
    pub(crate) fn bind_values(&self, rows: &[Vec<ast::Expr>]) -> SqlResult<LogicalOp> {
        let n = rows.first().map_or(0, Vec::len);
        let mut bound = Vec::new();
        for r in rows {
            if r.len() != n {
                return Err(SqlError::custom(10709, 16, 1, "The number of columns for each row in a table value constructor must be the same."));
            }
            let mut br = Vec::new();
            for e in r {
                br.push(self.bind_expr(e, &mut ExprCtx::plain())?);
            }
            bound.push(br);
        }
        let mut types = vec![DataType::Null; n];
        for r in &bound {
            for (i, e) in r.iter().enumerate() {
                types[i] = typing::unify(&types[i], &e.data_type);
            }
        }
        let rows = bound
            .into_iter()
            .map(|r| {
                r.into_iter()
                    .zip(&types)
                    .map(|(e, t)| convert_to(e, t))
                    .collect()
            })
            .collect();
        let columns = types
            .iter()
            .map(|t| ColumnMeta::new("", t.clone(), true))
            .collect();
        Ok(LogicalOp::Values { rows, columns })
    }

    /// A named table: CTE, table, view or virtual table.
    fn bind_named_table(
        &self,
        name: &ast::ObjectName,
        alias: Option<&ast::Ident>,
        hints: &[ast::TableHint],
    ) -> SqlResult<(LogicalOp, Scope)> {
        let qn = qualified_name(name);
        let exposed = alias
            .map(|a| a.value.clone())
            .unwrap_or_else(|| qn.name.clone());
        if name.parts.len() == 1 {
            if let Some(cte) = self.find_cte(&qn.name) {
                let op = self.bind_cte(&cte)?;
                let names = op.columns().iter().map(|c| c.name.clone()).collect();
                return self.derived_scope(op, names, &exposed, &[]);
            }
        }
        let dirty = hints
            .iter()
            .any(|h| matches!(h, ast::TableHint::NoLock | ast::TableHint::ReadUncommitted));
        let resolved = if dirty {
            self.env.resolve_table_uncommitted(&qn)?
        } else {
            self.env.resolve_table(&qn)?
        };
        let Some(r) = resolved else {
            let shown = name
                .parts
                .iter()
                .map(|p| p.value.as_str())
                .collect::<Vec<_>>()
                .join(".");
            return Err(SqlError::invalid_object(&shown));
        };
        match r {
            CatRef::Table(def) => {
                self.record_access(&def.database, def.object_id, catalog::Access::Select);
                let th = table_hints(hints);
                check_index_hints(&th, &def)?;
                let with_locator = *self.dml_locators.borrow();
                let src = TableSource {
                    table: def.clone(),
                    alias: exposed.clone(),
                    hints: th,
                    with_locator,
                    needed: None,
                };
                let mut sc = Scope::default();
                sc.tables.push(ScopeTable {
                    exposed,
                    has_alias: alias.is_some(),
                    schema: Some(def.schema.clone()),
                    database: Some(def.database.clone()),
                    start: 0,
                    len: def.columns.len(),
                });
                for c in &def.columns {
                    sc.cols.push(ScopeCol {
                        name: c.name.clone(),
                        table: Some(0),
                        data_type: c.data_type.clone(),
                        nullable: c.nullable,
                        hidden: false,
                    });
                }
                if with_locator {
                    sc.cols.push(ScopeCol {
                        name: "%%locator%%".into(),
                        table: Some(0),
                        data_type: DataType::VarBinary(None),
                        nullable: false,
                        hidden: true,
                    });
                    sc.tables[0].len += 1;
                }
                Ok((LogicalOp::Get(src), sc))
            }
            CatRef::Virtual(vt) => {
                let mut sc = Scope::default();
                sc.tables.push(ScopeTable {
                    exposed: exposed.clone(),
                    has_alias: alias.is_some(),
                    schema: Some(vt.schema.clone()),
                    database: None,
                    start: 0,
                    len: vt.columns.len(),
                });
                for c in &vt.columns {
                    sc.cols.push(ScopeCol {
                        name: c.name.clone(),
                        table: Some(0),
                        data_type: c.data_type.clone(),
                        nullable: c.nullable,
                        hidden: false,
                    });
                }
                Ok((
                    LogicalOp::VirtualGet {
                        table: Arc::clone(&vt),
                        alias: exposed,
                    },
                    sc,
                ))
            }
            CatRef::View(v) => {
                self.record_access(&v.database, v.object_id, catalog::Access::Select);
                {
                    let mut d = self.view_depth.borrow_mut();
                    *d += 1;
                    if *d > 32 {
                        return Err(SqlError::new(217, &[&32]));
                    }
                }
                let outer_ansi_nulls = self.view_ansi_nulls.replace(Some(v.uses_ansi_nulls));
                let r = self.bind_view(&v);
                self.view_ansi_nulls.set(outer_ansi_nulls);
                *self.view_depth.borrow_mut() -= 1;
                let (op, names) = r?;
                let mut names = names;
                if !v.columns.is_empty() && v.columns.len() == names.len() {
                    names = v.columns.clone();
                }
                let (op, mut sc) = self.derived_scope(op, names, &exposed, &[])?;
                if let Some(t) = sc.tables.first_mut() {
                    t.has_alias = alias.is_some();
                    t.schema = Some(v.schema.clone());
                }
                Ok((op, sc))
            }
        }
    }

    fn bind_view(&self, v: &catalog::ViewDef) -> SqlResult<(LogicalOp, Vec<String>)> {
        self.count_expansion()?;
        // objects the view's query names are checked through the view (ownership chaining)
        self.view_chain
            .borrow_mut()
            .push((v.database.clone(), v.object_id));
        let r = common::stack::grow(|| self.bind_view_unguarded(v));
        self.view_chain.borrow_mut().pop();
        r
    }

    fn bind_view_unguarded(&self, v: &catalog::ViewDef) -> SqlResult<(LogicalOp, Vec<String>)> {
        let stmts = parser::parse_batch_with(
            &v.text,
            parser::ParseOptions {
                quoted_identifier: v.uses_quoted_identifier,
            },
        )?;
        let q = stmts
            .iter()
            .find_map(|s| match &s.kind {
                ast::StatementKind::CreateView(cv) => Some(cv.query.clone()),
                _ => None,
            })
            .ok_or_else(|| SqlError::internal(format!("view {} has no query", v.name)))?;
        let saved = std::mem::take(&mut *self.ctes.borrow_mut());
        let r = self.bind_query_level(&q, true);
        *self.ctes.borrow_mut() = saved;
        let (op, names, _) = r?;
        Ok((op, names))
    }

    /// Expands a CTE reference (recursive CTEs become RecursiveCte / WorkTable).
    fn bind_cte(&self, cte: &CteDef) -> SqlResult<LogicalOp> {
        self.count_expansion()?;
        common::stack::grow(|| self.bind_cte_unguarded(cte))
    }

    fn bind_cte_unguarded(&self, cte: &CteDef) -> SqlResult<LogicalOp> {
        if let Some((id, cols)) = &cte.recursive_binding {
            return Ok(LogicalOp::WorkTable {
                id: *id,
                columns: cols.clone(),
            });
        }
        let recursive = query_references(&cte.query, &cte.name);
        let rename = |op: LogicalOp, names: Vec<String>| -> SqlResult<LogicalOp> {
            let cols = op.columns();
            let names = if cte.columns.is_empty() {
                names
            } else {
                if cte.columns.len() != cols.len() {
                    return Err(SqlError::custom(
                        8158,
                        16,
                        1,
                        format!(
                            "'{}' has more columns than were specified in the column list.",
                            cte.name
                        ),
                    ));
                }
                cte.columns.clone()
            };
            let exprs = cols
                .iter()
                .enumerate()
                .map(|(i, c)| ScalarExpr::column(i, c.data_type.clone()))
                .collect();
            let columns = cols
                .iter()
                .zip(&names)
                .map(|(c, n)| ColumnMeta::new(n.clone(), c.data_type.clone(), c.nullable))
                .collect();
            Ok(LogicalOp::Project {
                input: Box::new(op),
                exprs,
                columns,
            })
        };
        if !recursive {
            // hide this and later CTEs of the same WITH? SQL Server allows earlier ones only;
            // binding with the full list is a superset.
            let (op, names, params) = self.bind_query_level(&cte.query, false)?;
            self.forward_params(params);
            return rename(op, names);
        }
        let ast::QueryBody::SetOp {
            op: ast::SetOperator::Union,
            all: true,
            left,
            right,
        } = &cte.query.body
        else {
            return Err(SqlError::custom(252, 16, 1, format!("Recursive common table expression '{}' does not contain a top-level UNION ALL operator.", cte.name)));
        };
        // anchor
        let anchor_q = ast::Query {
            with: vec![],
            body: (**left).clone(),
            order_by: vec![],
            offset: None,
            options: vec![],
            for_clause: None,
        };
        let (anchor, anames, _) = self.bind_query_level(&anchor_q, false)?;
        let anchor = rename(anchor, anames)?;
        let columns = anchor.columns();
        let id = {
            let mut n = self.next_cte_id.borrow_mut();
            *n += 1;
            *n - 1
        };
        // bind the recursive member with the CTE name resolving to the work table
        let mut frame = Vec::new();
        let mut def = cte.clone();
        def.recursive_binding = Some((id, columns.clone()));
        frame.push(def);
        self.ctes.borrow_mut().push(frame);
        let rec_q = ast::Query {
            with: vec![],
            body: (**right).clone(),
            order_by: vec![],
            offset: None,
            options: vec![],
            for_clause: None,
        };
        let r = self.bind_query_level(&rec_q, false);
        self.ctes.borrow_mut().pop();
        let (rec, _, _) = r?;
        let types: Vec<DataType> = columns.iter().map(|c| c.data_type.clone()).collect();
        if rec.arity() != types.len() {
            return Err(SqlError::custom(205, 16, 1, "All queries combined using a UNION, INTERSECT or EXCEPT operator must have an equal number of expressions in their target lists."));
        }
        let rec = cast_columns(rec, &types);
        Ok(LogicalOp::RecursiveCte {
            id,
            anchor: Box::new(anchor),
            recursive: Box::new(rec),
            columns,
            max_recursion: *self.max_recursion.borrow(),
        })
    }
}

/// Shifts column refs of an ON predicate bound over left++right so it reads the right row only
/// when used inside an apply (left columns become parameters is not possible here; callers only
/// use it when the predicate references right columns).
fn shift_to_right(mut p: ScalarExpr, left_arity: usize) -> ScalarExpr {
    p.remap_columns(&|i| i.saturating_sub(left_arity));
    p
}

pub(crate) fn compound_assign(var: &str, op: ast::AssignOp, e: ast::Expr) -> ast::Expr {
    let bop = match op {
        ast::AssignOp::Assign => return e,
        ast::AssignOp::Add => ast::BinaryOp::Add,
        ast::AssignOp::Sub => ast::BinaryOp::Sub,
        ast::AssignOp::Mul => ast::BinaryOp::Mul,
        ast::AssignOp::Div => ast::BinaryOp::Div,
        ast::AssignOp::Mod => ast::BinaryOp::Mod,
        ast::AssignOp::BitAnd => ast::BinaryOp::BitAnd,
        ast::AssignOp::BitOr => ast::BinaryOp::BitOr,
        ast::AssignOp::BitXor => ast::BinaryOp::BitXor,
    };
    ast::Expr::Binary {
        op: bop,
        left: Box::new(ast::Expr::Variable(var.to_string())),
        right: Box::new(e),
    }
}

/// Wraps `op` in a projection converting its columns to `types` where they differ.
pub(crate) fn cast_columns(op: LogicalOp, types: &[DataType]) -> LogicalOp {
    let cols = op.columns();
    if cols.iter().zip(types).all(|(c, t)| c.data_type == *t) {
        return op;
    }
    let exprs = cols
        .iter()
        .enumerate()
        .zip(types)
        .map(|((i, c), t)| convert_to(ScalarExpr::column(i, c.data_type.clone()), t))
        .collect();
    let columns = cols
        .iter()
        .zip(types)
        .map(|(c, t)| ColumnMeta::new(c.name.clone(), t.clone(), c.nullable))
        .collect();
    LogicalOp::Project {
        input: Box::new(op),
        exprs,
        columns,
    }
}

/// Window result references were bound as `Column(WINDOW_BASE + k)`; rebase them.
fn shift_window_refs(e: &mut ScalarExpr, arity: usize) {
    e.remap_columns(&|i| {
        if i >= WINDOW_BASE {
            i - WINDOW_BASE + arity
        } else {
            i
        }
    });
}

/// Marker offset for window-result column references during select-list binding.
pub(crate) const WINDOW_BASE: usize = 1 << 40;

fn table_hints(hints: &[ast::TableHint]) -> TableHints {
    let mut th = TableHints::default();
    for h in hints {
        match h {
            ast::TableHint::NoLock | ast::TableHint::ReadUncommitted => th.nolock = true,
            ast::TableHint::ForceSeek => th.force_seek = true,
            ast::TableHint::ForceScan => th.force_scan = true,
            ast::TableHint::Index(targets) => {
                for t in targets {
                    th.index.push(match t {
                        ast::IndexTarget::Id(i) => i.to_string(),
                        ast::IndexTarget::Name(n) => n.value.clone(),
                    });
                }
            }
            _ => {}
        }
        th.all.push(format!("{h:?}").to_uppercase());
    }
    th
}

/// `WITH (INDEX(...))` must name indexes the table has (Msg 308 by name, 307 by id; id 0 is
/// the heap or clustered scan, id 1 the clustered index or, on a heap, the heap itself).
fn check_index_hints(th: &TableHints, table: &catalog::TableDef) -> SqlResult<()> {
    for h in &th.index {
        match h.parse::<i32>() {
            Ok(id) => {
                if id != 0 && id != 1 && !table.indexes.iter().any(|i| i.index_id == id) {
                    return Err(SqlError::new(307, &[&id, &table.name]));
                }
            }
            Err(_) => {
                if !table.indexes.iter().any(|i| catalog::name_eq(&i.name, h)) {
                    return Err(SqlError::new(308, &[h, &table.name]));
                }
            }
        }
    }
    Ok(())
}

/// GROUP BY items → distinct expressions + grouping sets (positions) when ROLLUP/CUBE/SETS.
fn flatten_group_by(items: &[ast::GroupByItem]) -> (Vec<ast::Expr>, Option<Vec<Vec<usize>>>) {
    let mut exprs: Vec<ast::Expr> = Vec::new();
    let pos = |e: &ast::Expr, exprs: &mut Vec<ast::Expr>| -> usize {
        let e = strip(e).clone();
        match exprs.iter().position(|x| *x == e) {
            Some(i) => i,
            None => {
                exprs.push(e);
                exprs.len() - 1
            }
        }
    };
    // each item yields a list of alternative sets; the query's sets are the cross product
    let mut product: Vec<Vec<usize>> = vec![vec![]];
    let mut special = false;
    for it in items {
        let alts: Vec<Vec<usize>> = match it {
            ast::GroupByItem::Expr(e) => vec![vec![pos(e, &mut exprs)]],
            ast::GroupByItem::Set(es) => vec![es.iter().map(|e| pos(e, &mut exprs)).collect()],
            ast::GroupByItem::Rollup(groups) => {
                special = true;
                let gs: Vec<Vec<usize>> = groups
                    .iter()
                    .map(|g| g.iter().map(|e| pos(e, &mut exprs)).collect())
                    .collect();
                (0..=gs.len()).rev().map(|k| gs[..k].concat()).collect()
            }
            ast::GroupByItem::Cube(groups) => {
                special = true;
                let gs: Vec<Vec<usize>> = groups
                    .iter()
                    .map(|g| g.iter().map(|e| pos(e, &mut exprs)).collect())
                    .collect();
                let n = gs.len();
                let mut v = Vec::new();
                for mask in (0..(1u32 << n)).rev() {
                    let mut s = Vec::new();
                    for (i, g) in gs.iter().enumerate() {
                        if mask & (1 << (n - 1 - i)) != 0 {
                            s.extend(g.iter().copied());
                        }
                    }
                    v.push(s);
                }
                v
            }
            ast::GroupByItem::GroupingSets(sets) => {
                special = true;
                let mut v = Vec::new();
                for s in sets {
                    match s {
                        ast::GroupByItem::Set(es) => {
                            v.push(es.iter().map(|e| pos(e, &mut exprs)).collect())
                        }
                        ast::GroupByItem::Expr(e) => v.push(vec![pos(e, &mut exprs)]),
                        _ => {}
                    }
                }
                v
            }
        };
        let mut next = Vec::new();
        for p in &product {
            for a in &alts {
                let mut s = p.clone();
                s.extend(a.iter().copied());
                next.push(s);
            }
        }
        product = next;
    }
    (exprs, if special { Some(product) } else { None })
}

/// True if the query mentions a table named `name` (recursive CTE detection).
fn query_references(q: &ast::Query, name: &str) -> bool {
    fn body(b: &ast::QueryBody, name: &str) -> bool {
        match b {
            ast::QueryBody::Select(s) => s.from.iter().any(|t| tref(t, name)),
            ast::QueryBody::SetOp { left, right, .. } => body(left, name) || body(right, name),
            ast::QueryBody::Parenthesized(q) => query_references(q, name),
        }
    }
    fn tref(t: &ast::TableRef, name: &str) -> bool {
        match t {
            ast::TableRef::Table { name: n, .. } => {
                n.parts.len() == 1 && name_eq(n.name_str(), name)
            }
            ast::TableRef::Derived { query, .. } => query_references(query, name),
            ast::TableRef::Join { left, right, .. } => tref(left, name) || tref(right, name),
            ast::TableRef::Nested(i) => tref(i, name),
            ast::TableRef::Pivot { source, .. } | ast::TableRef::Unpivot { source, .. } => {
                tref(source, name)
            }
            _ => false,
        }
    }
    body(&q.body, name)
}

#[allow(dead_code)]
fn null_literal() -> ScalarExpr {
    ScalarExpr::new(ScalarKind::Literal(Value::Null), DataType::Null)
}
