//! Binding of MERGE (see [`crate::physical::MergePlan`] for the bound shape).

use catalog::name_eq;
use common::{SqlError, SqlResult};
use parser::ast;

use super::{Binder, ExprCtx};
use crate::logical::LogicalOp;
use crate::physical::{MergeAct, MergeClausePlan, MergePlan, MergeWhen};
use crate::scalar::ScalarExpr;

impl Binder<'_> {
    pub fn bind_merge(&self, m: &ast::Merge) -> SqlResult<MergePlan<LogicalOp>> {
        // OPTION (HASH|LOOP|MERGE JOIN) applies to the source-target join like any other
        self.apply_query_options(&m.options)?;
        self.push_ctes(&m.with);
        self.push_level(super::Scope::default(), false);
        let r = self.bind_merge_inner(m);
        *self.dml_locators.borrow_mut() = false;
        self.pop_level();
        self.pop_ctes(&m.with);
        r
    }

    fn bind_merge_inner(&self, m: &ast::Merge) -> SqlResult<MergePlan<LogicalOp>> {
        let table = self.resolve_target_table(&m.target)?;
        for c in &m.clauses {
            let access = match c.action {
                ast::MergeAction::Update(_) => catalog::Access::Update,
                ast::MergeAction::Delete => catalog::Access::Delete,
                ast::MergeAction::Insert { .. } => catalog::Access::Insert,
            };
            self.record_access(&table.database, table.object_id, access);
        }
        let target_ref = ast::TableRef::Table {
            name: m.target.clone(),
            alias: m.target_alias.clone(),
            hints: m.hints.clone(),
        };
        let exposed = match &m.target_alias {
            Some(a) => a.value.clone(),
            None => m.target.name_str().to_string(),
        };
        // source LEFT OUTER JOIN target ON cond (the target's locator is hidden after it)
        let join = ast::TableRef::Join {
            left: Box::new(m.source.clone()),
            right: Box::new(target_ref.clone()),
            kind: ast::JoinKind::LeftOuter,
            hint: None,
            on: Some(m.on.clone()),
        };
        *self.dml_locators.borrow_mut() = true;
        let (input, scope) = self.bind_from(std::slice::from_ref(&join))?;
        *self.dml_locators.borrow_mut() = false;
        // the target is the last exposed table named like it
        let offset = scope
            .tables
            .iter()
            .rev()
            .find(|t| name_eq(&t.exposed, &exposed))
            .map(|t| t.start)
            .ok_or_else(|| SqlError::internal("MERGE target not found in its scope"))?;
        let by_source = m
            .clauses
            .iter()
            .any(|c| c.kind == ast::MergeMatch::NotMatchedBySource);
        let target_rows = if by_source {
            *self.dml_locators.borrow_mut() = true;
            let r = self.bind_from(std::slice::from_ref(&target_ref));
            *self.dml_locators.borrow_mut() = false;
            Some(r?)
        } else {
            None
        };
        let mut clauses = Vec::with_capacity(m.clauses.len());
        for c in &m.clauses {
            let (when, off) = match c.kind {
                ast::MergeMatch::Matched => (MergeWhen::Matched, offset),
                ast::MergeMatch::NotMatchedByTarget => (MergeWhen::NotMatchedByTarget, offset),
                ast::MergeMatch::NotMatchedBySource => (MergeWhen::NotMatchedBySource, 0),
            };
            match (&target_rows, when) {
                (Some((_, sc)), MergeWhen::NotMatchedBySource) => self.set_scope(sc.clone()),
                _ => self.set_scope(scope.clone()),
            }
            let condition = match &c.condition {
                Some(e) => Some(self.bind_predicate(e, &mut ExprCtx::plain())?),
                None => None,
            };
            let action = match (&c.action, when) {
                (ast::MergeAction::Insert { .. }, MergeWhen::Matched)
                | (ast::MergeAction::Insert { .. }, MergeWhen::NotMatchedBySource) => {
                    return Err(SqlError::custom(
                        10711,
                        15,
                        1,
                        "An action of type 'INSERT' is not allowed in the 'WHEN MATCHED' clause of a MERGE statement.",
                    ))
                }
                (ast::MergeAction::Update(_), MergeWhen::NotMatchedByTarget)
                | (ast::MergeAction::Delete, MergeWhen::NotMatchedByTarget) => {
                    return Err(SqlError::custom(
                        10710,
                        15,
                        1,
                        "An action of type 'UPDATE' or 'DELETE' is not allowed in the 'WHEN NOT MATCHED' clause of a MERGE statement.",
                    ))
                }
                (ast::MergeAction::Update(items), _) => {
                    let (sets, variables) = self.bind_set_items(&table, off, items)?;
                    if !variables.is_empty() {
                        return Err(SqlError::unsupported("variable assignment in MERGE"));
                    }
                    MergeAct::Update { sets }
                }
                (ast::MergeAction::Delete, _) => MergeAct::Delete,
                (ast::MergeAction::Insert { columns, values }, _) => {
                    self.bind_merge_insert(&table, columns, values.as_deref())?
                }
            };
            clauses.push(MergeClausePlan {
                when,
                condition,
                action,
            });
        }
        self.set_scope(super::Scope::default());
        let top = match &m.top {
            Some(t) if t.percent => return Err(SqlError::unsupported("MERGE TOP PERCENT")),
            Some(t) => Some(self.bind_expr(&t.quantity, &mut ExprCtx::plain())?),
            None => None,
        };
        let mut computed = Vec::new();
        for (i, c) in table.columns.iter().enumerate() {
            if let Some(text) = &c.computed {
                computed.push((i, self.bind_table_expr(&table, text)?));
            }
        }
        let checks = self.bind_checks(&table)?;
        let output = match &m.output {
            Some(o) => Some(self.bind_output_ext(&table, o, true, true, true)?),
            None => None,
        };
        Ok(MergePlan {
            table,
            input,
            target_offset: offset,
            target_rows: target_rows.map(|(p, _)| p),
            top,
            clauses,
            computed,
            checks,
            output,
        })
    }

    fn bind_merge_insert(
        &self,
        table: &catalog::TableDef,
        columns: &[ast::Ident],
        values: Option<&[ast::Expr]>,
    ) -> SqlResult<MergeAct> {
        let identity_insert = self.env.identity_insert(table.object_id);
        let identity_col = table.identity().map(|(i, _)| i);
        let values = values.unwrap_or(&[]);
        let target_cols: Vec<usize> = if columns.is_empty() {
            if values.is_empty() {
                vec![]
            } else {
                (0..table.columns.len())
                    .filter(|&i| Some(i) != identity_col && table.columns[i].computed.is_none())
                    .collect()
            }
        } else {
            let mut v = Vec::new();
            for c in columns {
                let Some(i) = table.column_index(&c.value) else {
                    return Err(SqlError::new(207, &[&c.value]));
                };
                if table.columns[i].computed.is_some() {
                    return Err(SqlError::custom(271, 16, 1, format!("The column \"{}\" cannot be modified because it is either a computed column or is the result of a UNION operator.", table.columns[i].name)));
                }
                if Some(i) == identity_col && !identity_insert {
                    return Err(SqlError::new(544, &[&table.name]));
                }
                v.push(i);
            }
            v
        };
        if values.len() > target_cols.len() {
            return Err(SqlError::new(
                if columns.is_empty() { 213 } else { 110 },
                &[],
            ));
        }
        if values.len() < target_cols.len() {
            return Err(SqlError::new(
                if columns.is_empty() { 213 } else { 109 },
                &[],
            ));
        }
        let mut bound: Vec<ScalarExpr> = Vec::with_capacity(values.len());
        for (k, e) in values.iter().enumerate() {
            let ci = target_cols[k];
            bound.push(match e {
                ast::Expr::Default => match &table.columns[ci].default {
                    Some(text) => self.bind_table_expr(table, text)?,
                    None => ScalarExpr::literal(types::Value::Null, types::DataType::Null),
                },
                _ => self.bind_expr(e, &mut ExprCtx::plain())?,
            });
        }
        Ok(MergeAct::Insert {
            values: bound,
            columns: self.insert_columns(table, &target_cols)?,
        })
    }
}
