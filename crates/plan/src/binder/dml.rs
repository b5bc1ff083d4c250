//! Binding of INSERT / UPDATE / DELETE / TRUNCATE.

use std::sync::Arc;

use catalog::{name_eq, TableDef, TableRef as CatRef};
use common::{SqlError, SqlResult};
use parser::ast;
use types::DataType;

use super::{qualified_name, Binder, ExprCtx, Scope, ScopeCol, ScopeTable};
use crate::logical::*;
use crate::physical::{BoundStatement, InsertColumn, Statement};
use crate::scalar::{BinaryOp, ScalarExpr};
use crate::typing;

impl Binder<'_> {
    fn resolve_target_table(&self, name: &ast::ObjectName) -> SqlResult<Arc<TableDef>> {
        let qn = qualified_name(name);
        match self.env.resolve_table(&qn)? {
            Some(CatRef::Table(t)) => Ok(t),
            Some(CatRef::View(v)) => Err(SqlError::unsupported(format!("modifying view {}", v.name))),
            Some(CatRef::Virtual(v)) => Err(SqlError::custom(
                259,
                16,
                1,
                format!("Ad hoc updates to system catalogs are not allowed. ({})", v.name),
            )),
            None => Err(SqlError::invalid_object(
                &name.parts.iter().map(|p| p.value.as_str()).collect::<Vec<_>>().join("."),
            )),
        }
    }

    /// Scope of a table's own columns (positions 0..n), for defaults/computed columns/checks.
    fn table_scope(t: &TableDef) -> Scope {
        let mut sc = Scope::default();
        sc.tables.push(ScopeTable {
            exposed: t.name.clone(),
            has_alias: false,
            schema: Some(t.schema.clone()),
            database: Some(t.database.clone()),
            start: 0,
            len: t.columns.len(),
        });
        for c in &t.columns {
            sc.cols.push(ScopeCol {
                name: c.name.clone(),
                table: Some(0),
                data_type: c.data_type.clone(),
                nullable: c.nullable,
                hidden: false,
            });
        }
        sc
    }

    /// Binds expression text stored in the catalog (default, computed column, check) over the
    /// table's own columns.
    pub(crate) fn bind_table_expr(&self, t: &TableDef, text: &str) -> SqlResult<ScalarExpr> {
        let e = parser::parse_expression(text)?;
        self.push_level(Self::table_scope(t), true);
        let r = self.bind_expr(&e, &mut ExprCtx::plain());
        self.pop_level();
        r
    }

    pub fn bind_insert(&self, ins: &ast::Insert) -> SqlResult<BoundStatement> {
        let ast::DmlTarget::Table(name) = &ins.target else {
            return Err(SqlError::unsupported("INSERT into a table variable"));
        };
        self.push_ctes(&ins.with);
        let r = self.bind_insert_inner(ins, name);
        self.pop_ctes(&ins.with);
        r
    }

    fn bind_insert_inner(&self, ins: &ast::Insert, name: &ast::ObjectName) -> SqlResult<BoundStatement> {
        if ins.output.is_some() {
            return Err(SqlError::unsupported("OUTPUT clause"));
        }
        let table = self.resolve_target_table(name)?;
        let identity_insert = self.env.identity_insert(table.object_id);
        let identity_col = table.identity().map(|(i, _)| i);
        // target columns in source order
        let target_cols: Vec<usize> = if ins.columns.is_empty() {
            if identity_insert && identity_col.is_some() {
                return Err(SqlError::new(8101, &[&table.name]));
            }
            (0..table.columns.len())
                .filter(|&i| Some(i) != identity_col && table.columns[i].computed.is_none())
                .collect()
        } else {
            let mut v = Vec::new();
            for c in &ins.columns {
                let Some(i) = table.column_index(&c.value) else {
                    return Err(SqlError::new(207, &[&c.value]));
                };
                if v.contains(&i) {
                    return Err(SqlError::custom(264, 16, 1, format!("The column name '{}' is specified more than once in the SET clause or column list of an INSERT. A column cannot be assigned more than one value in the same clause. Modify the clause to make sure that a column is updated only once. If this statement updates or inserts columns into a view, column aliasing can conceal the duplication in your code.", c.value)));
                }
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
        // per-cell DEFAULT in VALUES is replaced by the column's default
        let source = match &ins.source {
            ast::InsertSource::Values(rows) => {
                for r in rows {
                    if r.len() > target_cols.len() {
                        return Err(SqlError::new(if ins.columns.is_empty() { 213 } else { 110 }, &[]));
                    }
                    if r.len() < target_cols.len() {
                        return Err(SqlError::new(if ins.columns.is_empty() { 213 } else { 109 }, &[]));
                    }
                }
                if rows.len() > 1000 {
                    return Err(SqlError::new(10738, &[&1000]));
                }
                self.push_level(Scope::default(), false);
                let r = self.bind_insert_values(&table, &target_cols, rows);
                self.pop_level();
                r?
            }
            ast::InsertSource::Query(q) => {
                let (op, _, _) = self.bind_query_level(q, false)?;
                let n = op.arity();
                if n > target_cols.len() {
                    return Err(SqlError::new(121, &[]));
                }
                if n < target_cols.len() {
                    return Err(SqlError::new(120, &[]));
                }
                op
            }
            ast::InsertSource::DefaultValues => LogicalOp::Values { rows: vec![vec![]], columns: vec![] },
            ast::InsertSource::Exec(_) => return Err(SqlError::unsupported("INSERT ... EXEC")),
        };
        let source = match &ins.top {
            Some(t) => {
                let count = self.bind_expr(&t.quantity, &mut ExprCtx::plain())?;
                LogicalOp::Top {
                    input: Box::new(source),
                    spec: TopSpec { count: Some(count), percent: t.percent, with_ties: vec![], offset: None },
                }
            }
            None => source,
        };
        let columns = self.insert_columns(&table, &target_cols)?;
        let checks = self.bind_checks(&table)?;
        Ok(Statement::Insert { table, source, columns, identity_insert, checks, output: None })
    }

    /// How each table column gets its value.
    fn insert_columns(&self, table: &TableDef, target_cols: &[usize]) -> SqlResult<Vec<InsertColumn>> {
        let mut out = Vec::with_capacity(table.columns.len());
        for (i, c) in table.columns.iter().enumerate() {
            if let Some(k) = target_cols.iter().position(|&t| t == i) {
                out.push(InsertColumn::Source(k));
            } else if c.identity.is_some() {
                out.push(InsertColumn::Identity);
            } else if let Some(text) = &c.computed {
                out.push(InsertColumn::Computed(self.bind_table_expr(table, text)?));
            } else if let Some(text) = &c.default {
                out.push(InsertColumn::Default(self.bind_table_expr(table, text)?));
            } else {
                out.push(InsertColumn::Null);
            }
        }
        Ok(out)
    }

    /// Binds the table's enabled CHECK constraints.
    fn bind_checks(&self, table: &TableDef) -> SqlResult<Vec<crate::physical::BoundCheck>> {
        let mut out = Vec::new();
        for c in &table.checks {
            if c.disabled {
                continue;
            }
            out.push(crate::physical::BoundCheck {
                name: c.name.clone(),
                expr: self.bind_table_expr(table, &c.text)?,
                column: c.column.and_then(|i| table.columns.get(i)).map(|col| col.name.clone()),
            });
        }
        Ok(out)
    }

    fn bind_insert_values(&self, table: &TableDef, target_cols: &[usize], rows: &[Vec<ast::Expr>]) -> SqlResult<LogicalOp> {
        let mut bound = Vec::new();
        for r in rows {
            let mut br = Vec::new();
            for (k, e) in r.iter().enumerate() {
                let col = &table.columns[target_cols[k]];
                let b = match e {
                    ast::Expr::Default => match &col.default {
                        Some(text) => self.bind_table_expr(table, text)?,
                        None => ScalarExpr::literal(types::Value::Null, DataType::Null),
                    },
                    _ => self.bind_expr(e, &mut ExprCtx::plain())?,
                };
                br.push(b);
            }
            bound.push(br);
        }
        let n = target_cols.len();
        let mut tys = vec![DataType::Null; n];
        for r in &bound {
            for (i, e) in r.iter().enumerate() {
                tys[i] = typing::unify(&tys[i], &e.data_type);
            }
        }
        // keep each value's own type; exec converts per column (assignment semantics)
        let columns = tys.iter().map(|t| ColumnMeta::new("", t.clone(), true)).collect();
        Ok(LogicalOp::Values { rows: bound, columns })
    }

    fn push_ctes(&self, with: &[ast::Cte]) {
        if with.is_empty() {
            return;
        }
        let defs = with
            .iter()
            .map(|c| super::CteDef {
                name: c.name.value.clone(),
                columns: c.columns.iter().map(|i| i.value.clone()).collect(),
                query: c.query.clone(),
                recursive_binding: None,
            })
            .collect();
        self.ctes.borrow_mut().push(defs);
    }

    fn pop_ctes(&self, with: &[ast::Cte]) {
        if !with.is_empty() {
            self.ctes.borrow_mut().pop();
        }
    }

    /// Binds the FROM of an UPDATE/DELETE and locates the target: (plan, scope, table, offset).
    fn bind_dml_source(
        &self,
        target: &ast::DmlTarget,
        hints: &[ast::TableHint],
        from: &[ast::TableRef],
    ) -> SqlResult<(LogicalOp, Scope, Arc<TableDef>, usize)> {
        let ast::DmlTarget::Table(name) = target else {
            return Err(SqlError::unsupported("UPDATE/DELETE of a table variable"));
        };
        let (plan, scope) = if from.is_empty() {
            let tref = ast::TableRef::Table { name: name.clone(), alias: None, hints: hints.to_vec() };
            self.bind_from(std::slice::from_ref(&tref))?
        } else {
            self.bind_from(from)?
        };
        // find the target instance: alias / exposed name first
        let tname = name.name_str();
        let found = scope.tables.iter().position(|t| name_eq(&t.exposed, tname));
        let Some(ti) = found else {
            // target not in FROM: SQL Server cross joins it; we require it to be present
            return Err(SqlError::unsupported("UPDATE/DELETE target not named in its FROM clause"));
        };
        let st = &scope.tables[ti];
        let table = match find_get(&plan, st.start, &scope) {
            Some(t) => t,
            None => return Err(SqlError::custom(4405, 16, 1, format!("View or function '{tname}' is not updatable because the modification affects multiple base tables."))),
        };
        Ok((plan, scope.clone(), table, st.start))
    }

    pub fn bind_update(&self, u: &ast::Update) -> SqlResult<BoundStatement> {
        if u.output.is_some() {
            return Err(SqlError::unsupported("OUTPUT clause"));
        }
        if u.current_of.is_some() {
            return Err(SqlError::unsupported("WHERE CURRENT OF"));
        }
        self.push_ctes(&u.with);
        self.push_level(Scope::default(), false);
        *self.dml_locators.borrow_mut() = true;
        let r = (|| {
            let (mut plan, scope, table, offset) = self.bind_dml_source(&u.target, &u.hints, &u.from)?;
            *self.dml_locators.borrow_mut() = false;
            self.set_scope(scope);
            if let Some(w) = &u.selection {
                let p = self.bind_predicate(w, &mut ExprCtx::plain())?;
                plan = LogicalOp::Filter { input: Box::new(plan), predicate: p };
            }
            let mut sets = Vec::new();
            for item in &u.set {
                match item {
                    ast::SetItem::Column { column, op, value } => {
                        let cname = column.name_str();
                        let Some(ci) = table.column_index(cname) else {
                            return Err(SqlError::new(207, &[&cname]));
                        };
                        if table.columns[ci].identity.is_some() {
                            return Err(SqlError::custom(8102, 16, 1, format!("Cannot update identity column '{}'.", table.columns[ci].name)));
                        }
                        if table.columns[ci].computed.is_some() {
                            return Err(SqlError::custom(271, 16, 1, format!("The column \"{}\" cannot be modified because it is either a computed column or is the result of a UNION operator.", table.columns[ci].name)));
                        }
                        let mut v = match value {
                            ast::Expr::Default => match &table.columns[ci].default {
                                Some(text) => self.bind_table_expr(&table, text)?,
                                None => ScalarExpr::literal(types::Value::Null, DataType::Null),
                            },
                            _ => self.bind_expr(value, &mut ExprCtx::plain())?,
                        };
                        if *op != ast::AssignOp::Assign {
                            let cur = ScalarExpr::column(offset + ci, table.columns[ci].data_type.clone());
                            let bop = match op {
                                ast::AssignOp::Add => if cur.data_type.is_string() { BinaryOp::Concat } else { BinaryOp::Add },
                                ast::AssignOp::Sub => BinaryOp::Sub,
                                ast::AssignOp::Mul => BinaryOp::Mul,
                                ast::AssignOp::Div => BinaryOp::Div,
                                ast::AssignOp::Mod => BinaryOp::Mod,
                                ast::AssignOp::BitAnd => BinaryOp::BitAnd,
                                ast::AssignOp::BitOr => BinaryOp::BitOr,
                                _ => BinaryOp::BitXor,
                            };
                            let t = typing::binary_result(bop, &cur.data_type, &v.data_type);
                            v = ScalarExpr::new(crate::scalar::ScalarKind::Binary(bop, Box::new(cur), Box::new(v)), t);
                        }
                        if sets.iter().any(|(c, _)| *c == ci) {
                            return Err(SqlError::custom(264, 16, 1, format!("The column name '{}' is specified more than once in the SET clause or column list of an INSERT. A column cannot be assigned more than one value in the same clause. Modify the clause to make sure that a column is updated only once. If this statement updates or inserts columns into a view, column aliasing can conceal the duplication in your code.", table.columns[ci].name)));
                        }
                        sets.push((ci, v));
                    }
                    _ => return Err(SqlError::unsupported("variable assignment in UPDATE SET")),
                }
            }
            if let Some(t) = &u.top {
                let count = self.bind_expr(&t.quantity, &mut ExprCtx::plain())?;
                plan = LogicalOp::Top { input: Box::new(plan), spec: TopSpec { count: Some(count), percent: t.percent, with_ties: vec![], offset: None } };
            }
            let mut computed = Vec::new();
            for (i, c) in table.columns.iter().enumerate() {
                if let Some(text) = &c.computed {
                    computed.push((i, self.bind_table_expr(&table, text)?));
                }
            }
            let checks = self.bind_checks(&table)?;
            Ok(Statement::Update { table, input: plan, target_offset: offset, sets, computed, checks, output: None })
        })();
        *self.dml_locators.borrow_mut() = false;
        self.pop_level();
        self.pop_ctes(&u.with);
        r
    }

    pub fn bind_delete(&self, d: &ast::Delete) -> SqlResult<BoundStatement> {
        if d.output.is_some() {
            return Err(SqlError::unsupported("OUTPUT clause"));
        }
        if d.current_of.is_some() {
            return Err(SqlError::unsupported("WHERE CURRENT OF"));
        }
        self.push_ctes(&d.with);
        self.push_level(Scope::default(), false);
        *self.dml_locators.borrow_mut() = true;
        let r = (|| {
            let (mut plan, scope, table, offset) = self.bind_dml_source(&d.target, &d.hints, &d.from)?;
            *self.dml_locators.borrow_mut() = false;
            self.set_scope(scope);
            if let Some(w) = &d.selection {
                let p = self.bind_predicate(w, &mut ExprCtx::plain())?;
                plan = LogicalOp::Filter { input: Box::new(plan), predicate: p };
            }
            if let Some(t) = &d.top {
                let count = self.bind_expr(&t.quantity, &mut ExprCtx::plain())?;
                plan = LogicalOp::Top { input: Box::new(plan), spec: TopSpec { count: Some(count), percent: t.percent, with_ties: vec![], offset: None } };
            }
            Ok(Statement::Delete { table, input: plan, target_offset: offset, output: None })
        })();
        *self.dml_locators.borrow_mut() = false;
        self.pop_level();
        self.pop_ctes(&d.with);
        r
    }

    pub fn bind_truncate(&self, name: &ast::ObjectName) -> SqlResult<BoundStatement> {
        let table = self.resolve_target_table(name).map_err(|e| {
            if e.number == 208 {
                SqlError::new(4701, &[&name.name_str()])
            } else {
                e
            }
        })?;
        Ok(Statement::Truncate { table })
    }
}

/// Finds the stored table whose columns start at `start` in the FROM plan's output.
fn find_get(plan: &LogicalOp, start: usize, _scope: &Scope) -> Option<Arc<TableDef>> {
    fn walk(op: &LogicalOp, base: usize, start: usize) -> Option<Arc<TableDef>> {
        match op {
            LogicalOp::Get(s) if base == start => Some(s.table.clone()),
            LogicalOp::Filter { input, .. } => walk(input, base, start),
            LogicalOp::Join { left, right, kind, .. } => {
                let la = left.arity();
                if start < base + la {
                    walk(left, base, start)
                } else if kind.outputs_right() {
                    walk(right, base + la, start)
                } else {
                    None
                }
            }
            LogicalOp::Apply { outer, inner, .. } => {
                let la = outer.arity();
                if start < base + la {
                    walk(outer, base, start)
                } else {
                    walk(inner, base + la, start)
                }
            }
            _ => None,
        }
    }
    walk(plan, 0, start)
}
