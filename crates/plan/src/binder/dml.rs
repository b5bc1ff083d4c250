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

/// Bound SET items: column assignments and variable assignments.
pub(crate) type SetItems = (Vec<(usize, ScalarExpr)>, Vec<crate::physical::VarAssign>);

impl Binder<'_> {
    pub(crate) fn resolve_target_table(&self, name: &ast::ObjectName) -> SqlResult<Arc<TableDef>> {
        let qn = qualified_name(name);
        match self.env.resolve_table(&qn)? {
            Some(CatRef::Table(t)) => Ok(t),
            Some(CatRef::View(v)) => {
                Err(SqlError::unsupported(format!("modifying view {}", v.name)))
            }
            Some(CatRef::Virtual(v)) => Err(SqlError::custom(
                259,
                16,
                1,
                format!(
                    "Ad hoc updates to system catalogs are not allowed. ({})",
                    v.name
                ),
            )),
            None if name.parts.len() == 1 && name.parts[0].value.starts_with('@') => {
                Err(SqlError::new(1087, &[&name.parts[0].value]))
            }
            None => Err(SqlError::invalid_object(
                &name
                    .parts
                    .iter()
                    .map(|p| p.value.as_str())
                    .collect::<Vec<_>>()
                    .join("."),
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
        if let Some(r) = self.rewrite_insert_view(ins)? {
            return self.bind_insert(&r);
        }
        let name = match &ins.target {
            ast::DmlTarget::Table(n) => n.clone(),
            ast::DmlTarget::Variable(v) => ast::ObjectName::single(v.clone()),
        };
        self.push_ctes(&ins.with);
        let r = self.bind_insert_inner(ins, &name);
        self.pop_ctes(&ins.with);
        r
    }

    fn bind_insert_inner(
        &self,
        ins: &ast::Insert,
        name: &ast::ObjectName,
    ) -> SqlResult<BoundStatement> {
        let table = self.resolve_target_table(name)?;
        self.record_access(&table.database, table.object_id, catalog::Access::Insert);
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
                        return Err(SqlError::new(
                            if ins.columns.is_empty() { 213 } else { 110 },
                            &[],
                        ));
                    }
                    if r.len() < target_cols.len() {
                        return Err(SqlError::new(
                            if ins.columns.is_empty() { 213 } else { 109 },
                            &[],
                        ));
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
                // INSERT ... SELECT ... ORDER BY is allowed (no 1033 check here);
                // its OPTION (MAXRECURSION, join hints) applies to the whole statement
                self.apply_query_options(&q.options)?;
                super::for_clause::refuse_for_clause(q, "INSERT")?;
                self.push_level(Scope::default(), false);
                let r = self.bind_query(q);
                self.pop_level();
                let (op, _) = r?;
                let n = op.arity();
                // without a column list SQL Server reports 213, with one 121 / 120
                if n != target_cols.len() && ins.columns.is_empty() {
                    return Err(SqlError::new(213, &[]));
                }
                if n > target_cols.len() {
                    return Err(SqlError::new(121, &[]));
                }
                if n < target_cols.len() {
                    return Err(SqlError::new(120, &[]));
                }
                op
            }
            ast::InsertSource::DefaultValues => LogicalOp::Values {
                rows: vec![vec![]],
                columns: vec![],
            },
            ast::InsertSource::Exec(_) => return Err(SqlError::unsupported("INSERT ... EXEC")),
        };
        let source = match &ins.top {
            Some(t) => {
                let count = self.bind_expr(&t.quantity, &mut ExprCtx::plain())?;
                LogicalOp::Top {
                    input: Box::new(source),
                    spec: TopSpec {
                        count: Some(count),
                        percent: t.percent,
                        with_ties: vec![],
                        offset: None,
                    },
                }
            }
            None => source,
        };
        // DEFAULT VALUES: every column takes its default (or NULL / identity).
        let target_cols = if matches!(ins.source, ast::InsertSource::DefaultValues) {
            Vec::new()
        } else {
            target_cols
        };
        let columns = self.insert_columns(&table, &target_cols)?;
        let checks = self.bind_checks(&table)?;
        Ok(Statement::Insert {
            table: table.clone(),
            source,
            columns,
            identity_insert,
            checks,
            output: match &ins.output {
                Some(o) => Some(self.bind_output(&table, o, true, false)?),
                None => None,
            },
        })
    }

    /// How each table column gets its value.
    pub(crate) fn insert_columns(
        &self,
        table: &TableDef,
        target_cols: &[usize],
    ) -> SqlResult<Vec<InsertColumn>> {
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

    /// Binds an OUTPUT clause over `inserted.*` (positions 0..n) and `deleted.*` (n..2n).
    fn bind_output(
        &self,
        table: &TableDef,
        o: &ast::OutputClause,
        has_inserted: bool,
        has_deleted: bool,
    ) -> SqlResult<crate::physical::OutputSpec> {
        self.bind_output_ext(table, o, has_inserted, has_deleted, false)
    }

    /// [`Self::bind_output`]; with `action` (MERGE) the pseudo-column `$action` (nvarchar(10))
    /// is value `2n` of the output input row.
    pub(crate) fn bind_output_ext(
        &self,
        table: &TableDef,
        o: &ast::OutputClause,
        has_inserted: bool,
        has_deleted: bool,
        action: bool,
    ) -> SqlResult<crate::physical::OutputSpec> {
        let n = table.columns.len();
        let mut sc = Scope::default();
        for (k, (nm, on)) in [("inserted", has_inserted), ("deleted", has_deleted)]
            .iter()
            .enumerate()
        {
            sc.tables.push(ScopeTable {
                exposed: if *on { nm.to_string() } else { String::new() },
                has_alias: true,
                schema: None,
                database: None,
                start: k * n,
                len: n,
            });
            for c in &table.columns {
                sc.cols.push(ScopeCol {
                    name: c.name.clone(),
                    table: Some(k),
                    data_type: c.data_type.clone(),
                    nullable: true,
                    hidden: !*on,
                });
            }
        }
        if action {
            sc.cols.push(ScopeCol {
                name: "$action".to_string(),
                table: None,
                data_type: DataType::NVarChar(Some(10)),
                nullable: false,
                hidden: false,
            });
        }
        self.push_level(sc.clone(), true);
        let r = (|| {
            let mut exprs = Vec::new();
            let mut columns = Vec::new();
            for it in &o.items {
                match it {
                    ast::SelectItem::Expr { expr, alias } => {
                        let e = self.bind_expr(expr, &mut ExprCtx::plain())?;
                        let name = match (alias, super::query::strip(expr)) {
                            (Some(a), _) => a.value.clone(),
                            (None, ast::Expr::Column(c)) => c.name_str().to_string(),
                            _ => String::new(),
                        };
                        columns.push(ColumnMeta::new(name, e.data_type.clone(), true));
                        exprs.push(e);
                    }
                    ast::SelectItem::QualifiedWildcard(q) => {
                        let which = q.name_str();
                        let k = if name_eq(which, "inserted") && has_inserted {
                            0
                        } else if name_eq(which, "deleted") && has_deleted {
                            1
                        } else {
                            return Err(SqlError::new(4104, &[&format!("{which}.*")]));
                        };
                        for (i, c) in table.columns.iter().enumerate() {
                            exprs.push(ScalarExpr::column(k * n + i, c.data_type.clone()));
                            columns.push(ColumnMeta::new(
                                c.name.clone(),
                                c.data_type.clone(),
                                true,
                            ));
                        }
                    }
                    _ => return Err(SqlError::syntax_near("*")),
                }
            }
            let into = match &o.into {
                None => None,
                Some((target, cols)) => {
                    let tname = match target {
                        ast::DmlTarget::Table(t) => t.clone(),
                        ast::DmlTarget::Variable(v) => ast::ObjectName::single(v.clone()),
                    };
                    let t = self.resolve_target_table(&tname)?;
                    self.record_access(&t.database, t.object_id, catalog::Access::Insert);
                    let map: Vec<usize> = if cols.is_empty() {
                        (0..t.columns.len())
                            .filter(|&i| t.columns[i].identity.is_none())
                            .collect()
                    } else {
                        cols.iter()
                            .map(|c| {
                                t.column_index(&c.value)
                                    .ok_or_else(|| SqlError::new(207, &[&c.value]))
                            })
                            .collect::<SqlResult<_>>()?
                    };
                    if map.len() != exprs.len() {
                        return Err(SqlError::new(213, &[]));
                    }
                    Some((t, map))
                }
            };
            Ok(crate::physical::OutputSpec {
                exprs,
                columns,
                into,
            })
        })();
        self.pop_level();
        r
    }

    /// Binds the table's enabled CHECK constraints.
    pub(crate) fn bind_checks(
        &self,
        table: &TableDef,
    ) -> SqlResult<Vec<crate::physical::BoundCheck>> {
        let mut out = Vec::new();
        for c in &table.checks {
            if c.disabled {
                continue;
            }
            out.push(crate::physical::BoundCheck {
                name: c.name.clone(),
                expr: self.bind_table_expr(table, &c.text)?,
                column: c
                    .column
                    .and_then(|i| table.columns.get(i))
                    .map(|col| col.name.clone()),
            });
        }
        Ok(out)
    }

    fn bind_insert_values(
        &self,
        table: &TableDef,
        target_cols: &[usize],
        rows: &[Vec<ast::Expr>],
    ) -> SqlResult<LogicalOp> {
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
        let columns = tys
            .iter()
            .map(|t| ColumnMeta::new("", t.clone(), true))
            .collect();
        Ok(LogicalOp::Values {
            rows: bound,
            columns,
        })
    }

    pub(crate) fn push_ctes(&self, with: &[ast::Cte]) {
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

    pub(crate) fn pop_ctes(&self, with: &[ast::Cte]) {
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
        let vname;
        let name = match target {
            ast::DmlTarget::Table(n) => n,
            ast::DmlTarget::Variable(v) => {
                vname = ast::ObjectName::single(v.clone());
                &vname
            }
        };
        let (plan, scope) = if from.is_empty() {
            let tref = ast::TableRef::Table {
                name: name.clone(),
                alias: None,
                hints: hints.to_vec(),
            };
            self.bind_from(std::slice::from_ref(&tref))?
        } else {
            self.bind_from(from)?
        };
        // find the target instance: alias / exposed name first, then the only instance of
        // that base table; a target absent from FROM is cross joined (SQL Server semantics)
        let tname = name.name_str();
        let mut found = scope.tables.iter().position(|t| name_eq(&t.exposed, tname));
        if found.is_none() {
            let same: Vec<usize> = scope
                .tables
                .iter()
                .enumerate()
                .filter(|(_, t)| {
                    find_get(&plan, t.start, &scope).is_some_and(|d| name_eq(&d.name, tname))
                })
                .map(|(i, _)| i)
                .collect();
            if same.len() == 1 {
                found = Some(same[0]);
            } else if same.len() > 1 {
                return Err(SqlError::custom(
                    8154,
                    16,
                    1,
                    format!("The table '{tname}' is ambiguous."),
                ));
            }
        }
        let Some(ti) = found else {
            let mut all = vec![ast::TableRef::Table {
                name: name.clone(),
                alias: None,
                hints: hints.to_vec(),
            }];
            all.extend(from.iter().cloned());
            let (plan, scope) = self.bind_from(&all)?;
            let table = find_get(&plan, 0, &scope).ok_or_else(|| {
                SqlError::custom(4405, 16, 1, format!("View or function '{tname}' is not updatable because the modification affects multiple base tables."))
            })?;
            return Ok((plan, scope, table, 0));
        };
        let st = &scope.tables[ti];
        let table = match find_get(&plan, st.start, &scope) {
            Some(t) => t,
            None => return Err(SqlError::custom(4405, 16, 1, format!("View or function '{tname}' is not updatable because the modification affects multiple base tables."))),
        };
        Ok((plan, scope.clone(), table, st.start))
    }

    /// Binds UPDATE-style SET items against `table` whose columns start at `offset` of the
    /// current scope: (column ordinal, new value) pairs and variable assignments.
    pub(crate) fn bind_set_items(
        &self,
        table: &Arc<TableDef>,
        offset: usize,
        items: &[ast::SetItem],
    ) -> SqlResult<SetItems> {
        let mut sets = Vec::new();
        let mut variables = Vec::new();
        for item in items {
            match item {
                ast::SetItem::Column { column, op, value } => {
                    let cname = column.name_str();
                    let Some(ci) = table.column_index(cname) else {
                        return Err(SqlError::new(207, &[&cname]));
                    };
                    if table.columns[ci].identity.is_some() {
                        return Err(SqlError::custom(
                            8102,
                            16,
                            1,
                            format!(
                                "Cannot update identity column '{}'.",
                                table.columns[ci].name
                            ),
                        ));
                    }
                    if table.columns[ci].computed.is_some() {
                        return Err(SqlError::custom(271, 16, 1, format!("The column \"{}\" cannot be modified because it is either a computed column or is the result of a UNION operator.", table.columns[ci].name)));
                    }
                    let mut v = match value {
                        ast::Expr::Default => match &table.columns[ci].default {
                            Some(text) => self.bind_table_expr(table, text)?,
                            None => ScalarExpr::literal(types::Value::Null, DataType::Null),
                        },
                        _ => self.bind_expr(value, &mut ExprCtx::plain())?,
                    };
                    if *op != ast::AssignOp::Assign {
                        let cur =
                            ScalarExpr::column(offset + ci, table.columns[ci].data_type.clone());
                        let bop = match op {
                            ast::AssignOp::Add => {
                                if cur.data_type.is_string() {
                                    BinaryOp::Concat
                                } else {
                                    BinaryOp::Add
                                }
                            }
                            ast::AssignOp::Sub => BinaryOp::Sub,
                            ast::AssignOp::Mul => BinaryOp::Mul,
                            ast::AssignOp::Div => BinaryOp::Div,
                            ast::AssignOp::Mod => BinaryOp::Mod,
                            ast::AssignOp::BitAnd => BinaryOp::BitAnd,
                            ast::AssignOp::BitOr => BinaryOp::BitOr,
                            _ => BinaryOp::BitXor,
                        };
                        let t = typing::binary_result(bop, &cur.data_type, &v.data_type);
                        // CONCAT_NULL_YIELDS_NULL OFF: `col += NULL` and NULL `col += 'x'` read NULL as ''
                        let (cur, rhs) =
                            if bop == BinaryOp::Concat && !self.env.concat_null_yields_null() {
                                (
                                    super::ansi::concat_operand_null_as_empty(cur, &t),
                                    super::ansi::concat_operand_null_as_empty(v, &t),
                                )
                            } else {
                                (cur, v)
                            };
                        v = ScalarExpr::new(
                            crate::scalar::ScalarKind::Binary(bop, Box::new(cur), Box::new(rhs)),
                            t,
                        );
                    }
                    if sets.iter().any(|(c, _)| *c == ci) {
                        return Err(SqlError::custom(264, 16, 1, format!("The column name '{}' is specified more than once in the SET clause or column list of an INSERT. A column cannot be assigned more than one value in the same clause. Modify the clause to make sure that a column is updated only once. If this statement updates or inserts columns into a view, column aliasing can conceal the duplication in your code.", table.columns[ci].name)));
                    }
                    sets.push((ci, v));
                }
                ast::SetItem::Variable { name, op, value } => {
                    let Some((slot, vt)) = self.env.variable_slot(name) else {
                        return Err(SqlError::new(137, &[name]));
                    };
                    let e = super::query::compound_assign(name, *op, value.clone());
                    let b = self.bind_expr(&e, &mut ExprCtx::plain())?;
                    variables.push(crate::physical::VarAssign {
                        variable: crate::scalar::VarRef {
                            slot,
                            name: name.clone(),
                        },
                        expr: super::convert_to(b, &vt),
                        column: None,
                    });
                }
                ast::SetItem::VariableColumn {
                    variable,
                    column,
                    value,
                } => {
                    let Some((slot, vt)) = self.env.variable_slot(variable) else {
                        return Err(SqlError::new(137, &[variable]));
                    };
                    let cname = column.name_str();
                    let Some(ci) = table.column_index(cname) else {
                        return Err(SqlError::new(207, &[&cname]));
                    };
                    let v = self.bind_expr(value, &mut ExprCtx::plain())?;
                    sets.push((ci, v));
                    variables.push(crate::physical::VarAssign {
                        variable: crate::scalar::VarRef {
                            slot,
                            name: variable.clone(),
                        },
                        expr: ScalarExpr::literal(types::Value::Null, vt),
                        column: Some(ci),
                    });
                }
            }
        }
        Ok((sets, variables))
    }

    pub fn bind_update(&self, u: &ast::Update) -> SqlResult<BoundStatement> {
        if let Some(r) = self.rewrite_update_view(u)? {
            return self.bind_update(&r);
        }
        if u.current_of.is_some() {
            return Err(SqlError::unsupported("WHERE CURRENT OF"));
        }
        // OPTION (HASH|LOOP|MERGE JOIN, MAXRECURSION) apply to the joins of its FROM clause
        self.apply_query_options(&u.options)?;
        self.push_ctes(&u.with);
        self.push_level(Scope::default(), false);
        *self.dml_locators.borrow_mut() = true;
        let r = (|| {
            let (mut plan, scope, table, offset) =
                self.bind_dml_source(&u.target, &u.hints, &u.from)?;
            if u.selection.is_none() && u.from.is_empty() {
                self.forget_select(table.object_id);
            }
            self.record_access(&table.database, table.object_id, catalog::Access::Update);
            *self.dml_locators.borrow_mut() = false;
            self.set_scope(scope);
            if let Some(w) = &u.selection {
                let p = self.bind_predicate(w, &mut ExprCtx::plain())?;
                plan = LogicalOp::Filter {
                    input: Box::new(plan),
                    predicate: p,
                };
            }
            let (sets, variables) = self.bind_set_items(&table, offset, &u.set)?;
            if let Some(t) = &u.top {
                let count = self.bind_expr(&t.quantity, &mut ExprCtx::plain())?;
                plan = LogicalOp::Top {
                    input: Box::new(plan),
                    spec: TopSpec {
                        count: Some(count),
                        percent: t.percent,
                        with_ties: vec![],
                        offset: None,
                    },
                };
            }
            let mut computed = Vec::new();
            for (i, c) in table.columns.iter().enumerate() {
                if let Some(text) = &c.computed {
                    computed.push((i, self.bind_table_expr(&table, text)?));
                }
            }
            let checks = self.bind_checks(&table)?;
            Ok(Statement::Update {
                table: table.clone(),
                input: plan,
                target_offset: offset,
                sets,
                computed,
                checks,
                output: match &u.output {
                    Some(o) => Some(self.bind_output(&table, o, true, true)?),
                    None => None,
                },
                variables,
            })
        })();
        *self.dml_locators.borrow_mut() = false;
        self.pop_level();
        self.pop_ctes(&u.with);
        r
    }

    pub fn bind_delete(&self, d: &ast::Delete) -> SqlResult<BoundStatement> {
        if let Some(r) = self.rewrite_delete_view(d)? {
            return self.bind_delete(&r);
        }
        if d.current_of.is_some() {
            return Err(SqlError::unsupported("WHERE CURRENT OF"));
        }
        // OPTION (HASH|LOOP|MERGE JOIN, MAXRECURSION) apply to the joins of its FROM clause
        self.apply_query_options(&d.options)?;
        self.push_ctes(&d.with);
        self.push_level(Scope::default(), false);
        *self.dml_locators.borrow_mut() = true;
        let r = (|| {
            let (mut plan, scope, table, offset) =
                self.bind_dml_source(&d.target, &d.hints, &d.from)?;
            if d.selection.is_none() && d.from.is_empty() {
                self.forget_select(table.object_id);
            }
            self.record_access(&table.database, table.object_id, catalog::Access::Delete);
            *self.dml_locators.borrow_mut() = false;
            self.set_scope(scope);
            if let Some(w) = &d.selection {
                let p = self.bind_predicate(w, &mut ExprCtx::plain())?;
                plan = LogicalOp::Filter {
                    input: Box::new(plan),
                    predicate: p,
                };
            }
            if let Some(t) = &d.top {
                let count = self.bind_expr(&t.quantity, &mut ExprCtx::plain())?;
                plan = LogicalOp::Top {
                    input: Box::new(plan),
                    spec: TopSpec {
                        count: Some(count),
                        percent: t.percent,
                        with_ties: vec![],
                        offset: None,
                    },
                };
            }
            Ok(Statement::Delete {
                table: table.clone(),
                input: plan,
                target_offset: offset,
                output: match &d.output {
                    Some(o) => Some(self.bind_output(&table, o, false, true)?),
                    None => None,
                },
            })
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
        self.record_access(&table.database, table.object_id, catalog::Access::Alter);
        Ok(Statement::Truncate { table })
    }
}

/// Finds the stored table whose columns start at `start` in the FROM plan's output.
fn find_get(plan: &LogicalOp, start: usize, _scope: &Scope) -> Option<Arc<TableDef>> {
    fn walk(op: &LogicalOp, base: usize, start: usize) -> Option<Arc<TableDef>> {
        match op {
            LogicalOp::Get(s) if base == start => Some(s.table.clone()),
            LogicalOp::Filter { input, .. } => walk(input, base, start),
            LogicalOp::Join {
                left, right, kind, ..
            } => {
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

/// A simple updatable view: one base table, plain column select list.
struct ViewTarget {
    base: ast::ObjectName,
    base_alias: Option<ast::Ident>,
    selection: Option<ast::Expr>,
    /// (view column name, base column name)
    columns: Vec<(String, String)>,
}

fn view_target(v: &catalog::ViewDef) -> SqlResult<ViewTarget> {
    let not_updatable = || {
        SqlError::custom(
            4403,
            16,
            1,
            format!("Cannot update the view or function '{}' because it contains aggregates, or a DISTINCT or GROUP BY clause, or PIVOT or UNPIVOT operator.", v.name),
        )
    };
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
    let ast::QueryBody::Select(s) = &q.body else {
        return Err(not_updatable());
    };
    if s.distinct
        || !s.group_by.is_empty()
        || s.having.is_some()
        || s.top.is_some()
        || s.from.len() != 1
    {
        return Err(not_updatable());
    }
    let ast::TableRef::Table { name, alias, .. } = &s.from[0] else {
        return Err(SqlError::custom(4405, 16, 1, format!("View or function '{}' is not updatable because the modification affects multiple base tables.", v.name)));
    };
    let mut columns = Vec::new();
    for it in &s.items {
        match it {
            ast::SelectItem::Expr { expr, alias: a } => match super::query::strip(expr) {
                ast::Expr::Column(n) => {
                    let base = n.name_str().to_string();
                    let shown = a
                        .as_ref()
                        .map(|i| i.value.clone())
                        .unwrap_or_else(|| base.clone());
                    columns.push((shown, base));
                }
                _ => return Err(not_updatable()),
            },
            ast::SelectItem::Wildcard => columns.push(("*".into(), "*".into())),
            _ => return Err(not_updatable()),
        }
    }
    let mut names: Vec<String> = v.columns.clone();
    if names.len() == columns.len() {
        for (c, n) in columns.iter_mut().zip(names.drain(..)) {
            c.0 = n;
        }
    }
    Ok(ViewTarget {
        base: name.clone(),
        base_alias: alias.clone(),
        selection: s.selection.clone(),
        columns,
    })
}

/// Renames view column references in `e` to base column names.
fn map_columns(e: &mut ast::Expr, cols: &[(String, String)]) {
    use ast::Expr as E;
    match e {
        E::Column(n) if n.parts.len() == 1 => {
            if let Some((_, b)) = cols.iter().find(|(v, _)| name_eq(v, n.name_str())) {
                n.parts[0].value = b.clone();
            }
        }
        E::Unary { expr, .. }
        | E::Nested(expr)
        | E::IsNull { expr, .. }
        | E::Cast { expr, .. }
        | E::Collate { expr, .. } => map_columns(expr, cols),
        E::Binary { left, right, .. } => {
            map_columns(left, cols);
            map_columns(right, cols);
        }
        E::Between {
            expr, low, high, ..
        } => {
            map_columns(expr, cols);
            map_columns(low, cols);
            map_columns(high, cols);
        }
        E::InList { expr, list, .. } => {
            map_columns(expr, cols);
            list.iter_mut().for_each(|x| map_columns(x, cols));
        }
        E::Like { expr, pattern, .. } => {
            map_columns(expr, cols);
            map_columns(pattern, cols);
        }
        E::Function(f) => f.args.iter_mut().for_each(|x| map_columns(x, cols)),
        E::Case {
            operand,
            when_then,
            else_result,
        } => {
            if let Some(o) = operand {
                map_columns(o, cols);
            }
            for (w, t) in when_then {
                map_columns(w, cols);
                map_columns(t, cols);
            }
            if let Some(x) = else_result {
                map_columns(x, cols);
            }
        }
        E::Convert { expr, .. } => map_columns(expr, cols),
        _ => {}
    }
}

fn and(a: Option<ast::Expr>, b: Option<ast::Expr>) -> Option<ast::Expr> {
    match (a, b) {
        (Some(a), Some(b)) => Some(ast::Expr::Binary {
            op: ast::BinaryOp::And,
            left: Box::new(ast::Expr::Nested(Box::new(a))),
            right: Box::new(ast::Expr::Nested(Box::new(b))),
        }),
        (a, None) => a,
        (None, b) => b,
    }
}

impl Binder<'_> {
    /// The view behind a DML target name, if it is one (and the statement has no FROM).
    fn dml_view(&self, target: &ast::DmlTarget) -> SqlResult<Option<ViewTarget>> {
        let ast::DmlTarget::Table(name) = target else {
            return Ok(None);
        };
        match self.env.resolve_table(&qualified_name(name))? {
            Some(CatRef::View(v)) => Ok(Some(view_target(&v)?)),
            _ => Ok(None),
        }
    }

    /// Rewrites UPDATE/DELETE/INSERT through a simple view onto its base table.
    pub(crate) fn rewrite_update_view(&self, u: &ast::Update) -> SqlResult<Option<ast::Update>> {
        if !u.from.is_empty() {
            return Ok(None);
        }
        let Some(v) = self.dml_view(&u.target)? else {
            return Ok(None);
        };
        let mut n = u.clone();
        n.target = ast::DmlTarget::Table(v.base.clone());
        let mut sel = u.selection.clone();
        if let Some(s) = &mut sel {
            map_columns(s, &v.columns);
        }
        n.selection = and(v.selection.clone(), sel);
        for it in &mut n.set {
            if let ast::SetItem::Column { column, value, .. } = it {
                let mut c = ast::Expr::Column(column.clone());
                map_columns(&mut c, &v.columns);
                if let ast::Expr::Column(cn) = c {
                    *column = cn;
                }
                map_columns(value, &v.columns);
            }
        }
        if let Some(a) = &v.base_alias {
            n.from = vec![ast::TableRef::Table {
                name: v.base.clone(),
                alias: Some(a.clone()),
                hints: vec![],
            }];
            n.target = ast::DmlTarget::Table(ast::ObjectName::single(a.value.clone()));
        }
        Ok(Some(n))
    }

    pub(crate) fn rewrite_delete_view(&self, d: &ast::Delete) -> SqlResult<Option<ast::Delete>> {
        if !d.from.is_empty() {
            return Ok(None);
        }
        let Some(v) = self.dml_view(&d.target)? else {
            return Ok(None);
        };
        let mut n = d.clone();
        n.target = ast::DmlTarget::Table(v.base.clone());
        let mut sel = d.selection.clone();
        if let Some(s) = &mut sel {
            map_columns(s, &v.columns);
        }
        n.selection = and(v.selection.clone(), sel);
        if let Some(a) = &v.base_alias {
            n.from = vec![ast::TableRef::Table {
                name: v.base.clone(),
                alias: Some(a.clone()),
                hints: vec![],
            }];
            n.target = ast::DmlTarget::Table(ast::ObjectName::single(a.value.clone()));
        }
        Ok(Some(n))
    }

    pub(crate) fn rewrite_insert_view(&self, i: &ast::Insert) -> SqlResult<Option<ast::Insert>> {
        let Some(v) = self.dml_view(&i.target)? else {
            return Ok(None);
        };
        let mut n = i.clone();
        n.target = ast::DmlTarget::Table(v.base.clone());
        if n.columns.is_empty() && !v.columns.iter().any(|c| c.0 == "*") {
            n.columns = v
                .columns
                .iter()
                .map(|c| ast::Ident::new(c.1.clone()))
                .collect();
        } else {
            for c in &mut n.columns {
                if let Some((_, b)) = v.columns.iter().find(|(x, _)| name_eq(x, &c.value)) {
                    c.value = b.clone();
                }
            }
        }
        Ok(Some(n))
    }
}
