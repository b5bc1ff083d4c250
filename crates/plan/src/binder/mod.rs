//! The binder: parser AST → [`BoundStatement`] (logical algebra + typed scalar IR).
//!
//! Name resolution follows SQL Server: a query level's FROM clause forms a scope of exposed
//! table names (alias, or the table name) and their columns. Unqualified column names are
//! searched in the innermost level first; a name found in an enclosing level becomes an outer
//! reference: a parameter slot filled by the subquery/apply operator at run time (each level
//! records `(slot, expression valid one level up)`). Errors: 207 invalid column, 208 invalid
//! object, 209 ambiguous column, 1013 duplicate exposed names, 4104 unbindable multi-part
//! identifier, 8120 column not in GROUP BY.

mod ansi;
mod dml;
mod expr;
mod for_clause;
mod functions;
mod merge;
mod openrowset;
mod pivot;
mod query;
mod tvf;
mod view;

use std::cell::RefCell;

use catalog::{name_eq, Catalog};
use common::{SqlError, SqlResult};
use parser::ast;
use types::DataType;

use crate::logical::LogicalOp;
use crate::physical::BoundStatement;
use crate::scalar::{ScalarExpr, ScalarKind};

/// What the binder needs from the session: the catalog plus variable types.
pub trait BindEnv: Catalog {
    /// Slot and declared type of `@name` (with the `@`, any case) in the frame the bound
    /// statement will run in; None if not declared (Msg 137). Variables are resolved here,
    /// once: exec reads them by slot.
    fn variable_slot(&self, name: &str) -> Option<(usize, DataType)>;
    /// Declared type of `@name`, None if not declared.
    fn variable_type(&self, name: &str) -> Option<DataType> {
        self.variable_slot(name).map(|(_, t)| t)
    }
    /// `SET IDENTITY_INSERT table ON` state for a table object id.
    fn identity_insert(&self, _object_id: i32) -> bool {
        false
    }
    /// An external table (`CREATE EXTERNAL TABLE`): its Parquet location and columns.
    fn external_table(&self, _name: &ast::ObjectName) -> Option<(String, Vec<(String, DataType)>)> {
        None
    }
    /// `SET ANSI_NULLS` in effect for what is being bound (a module's creation-time setting
    /// while its body runs): OFF lowers `=`/`<>` with NULL as `binder/ansi.rs` describes.
    fn ansi_nulls(&self) -> bool {
        true
    }
    /// `SET CONCAT_NULL_YIELDS_NULL`: OFF makes string `+` read NULL as ''.
    fn concat_null_yields_null(&self) -> bool {
        true
    }
}

pub use tvf::check_inline_function;
pub use view::check_view_definition;

/// Binds one statement (SELECT / INSERT / UPDATE / DELETE / SELECT INTO / TRUNCATE / MERGE).
pub fn bind_statement(stmt: &ast::Statement, env: &dyn BindEnv) -> SqlResult<BoundStatement> {
    let b = Binder::new(env);
    let r = match &stmt.kind {
        ast::StatementKind::Select(q) => b.bind_select_statement(q),
        ast::StatementKind::Insert(i) => b.bind_insert(i),
        ast::StatementKind::Update(u) => b.bind_update(u),
        ast::StatementKind::Delete(d) => b.bind_delete(d),
        ast::StatementKind::Truncate(name) => b.bind_truncate(name),
        ast::StatementKind::Merge(_) => Err(SqlError::unsupported(
            "MERGE through bind_statement (use bind_merge)",
        )),
        _ => Err(SqlError::internal(
            "bind_statement: not a query or DML statement",
        )),
    };
    b.checked(r).map_err(|e| e.at_line(stmt.line))
}

/// Binds a MERGE statement (`stmt.kind` must be `Merge`); optimize it with
/// [`crate::MergePlan::try_map`] and run it with `exec::execute_merge`.
pub fn bind_merge(
    stmt: &ast::Statement,
    env: &dyn BindEnv,
) -> SqlResult<crate::physical::MergePlan<LogicalOp>> {
    let ast::StatementKind::Merge(m) = &stmt.kind else {
        return Err(SqlError::internal("bind_merge: not a MERGE statement"));
    };
    let b = Binder::new(env);
    let r = b.bind_merge(m);
    b.checked(r).map_err(|e| e.at_line(stmt.line))
}

/// For inserting rows produced outside a query plan (`INSERT ... EXEC`, table-valued
/// parameters): how each column of `table` is filled when the rows carry the columns named in
/// `columns` (all insertable columns when empty), plus the table's CHECK constraints. Feed the
/// result to `exec::insert_rows`.
pub fn bind_insert_target(
    table: &catalog::TableDef,
    columns: &[String],
    env: &dyn BindEnv,
) -> SqlResult<(
    Vec<crate::physical::InsertColumn>,
    Vec<crate::physical::BoundCheck>,
)> {
    let b = Binder::new(env);
    b.record_access(&table.database, table.object_id, catalog::Access::Insert);
    b.checked(Ok(()))?;
    let identity_col = table.identity().map(|(i, _)| i);
    let identity_insert = env.identity_insert(table.object_id);
    let target: Vec<usize> = if columns.is_empty() {
        (0..table.columns.len())
            .filter(|&i| Some(i) != identity_col && table.columns[i].computed.is_none())
            .collect()
    } else {
        let mut v = Vec::new();
        for c in columns {
            let i = table
                .column_index(c)
                .ok_or_else(|| SqlError::new(207, &[c]))?;
            if Some(i) == identity_col && !identity_insert {
                return Err(SqlError::new(544, &[&table.name]));
            }
            v.push(i);
        }
        v
    };
    Ok((b.insert_columns(table, &target)?, b.bind_checks(table)?))
}

/// For BULK INSERT, where the data file has a field for every column: how each column is
/// filled (`Source(c)`; `Identity` for the identity column unless `keep_identity`;
/// `Computed`), each column's bound DEFAULT (for empty fields) and the CHECK constraints.
#[allow(clippy::type_complexity)]
pub fn bind_bulk_target(
    table: &catalog::TableDef,
    keep_identity: bool,
    env: &dyn BindEnv,
) -> SqlResult<(
    Vec<crate::physical::InsertColumn>,
    Vec<Option<ScalarExpr>>,
    Vec<crate::physical::BoundCheck>,
)> {
    use crate::physical::InsertColumn;
    let b = Binder::new(env);
    b.record_access(&table.database, table.object_id, catalog::Access::Insert);
    b.checked(Ok(()))?;
    let mut columns = Vec::with_capacity(table.columns.len());
    let mut defaults = Vec::with_capacity(table.columns.len());
    for (i, c) in table.columns.iter().enumerate() {
        columns.push(if let Some(text) = &c.computed {
            InsertColumn::Computed(b.bind_table_expr(table, text)?)
        } else if c.identity.is_some() && !keep_identity {
            InsertColumn::Identity
        } else {
            InsertColumn::Source(i)
        });
        defaults.push(match &c.default {
            Some(text) => Some(b.bind_table_expr(table, text)?),
            None => None,
        });
    }
    Ok((columns, defaults, b.bind_checks(table)?))
}

/// Binds expression text stored with a table (a computed column's definition) over that
/// table's columns. The result's type is the computed column's type, as SQL Server derives it
/// from the expression (`Amount - ISNULL(Discount, 0)` over decimal(10,2) is decimal(11,2)).
pub fn bind_table_expression(
    table: &catalog::TableDef,
    text: &str,
    env: &dyn BindEnv,
) -> SqlResult<ScalarExpr> {
    Binder::new(env).bind_table_expr(table, text)
}

/// Binds a standalone scalar expression (SET @v = expr, IF cond, PRINT expr, RETURN expr).
/// Subqueries inside it are allowed (they are bound as uncorrelated).
pub fn bind_scalar(expr: &ast::Expr, env: &dyn BindEnv) -> SqlResult<ScalarExpr> {
    let b = Binder::new(env);
    b.push_level(Scope::default(), true);
    let r = b.bind_expr(expr, &mut ExprCtx::plain());
    b.pop_level();
    b.checked(r)
}

/// One table visible in a scope.
#[derive(Clone, Debug)]
pub(crate) struct ScopeTable {
    /// Exposed name (alias or table name).
    pub exposed: String,
    pub has_alias: bool,
    pub schema: Option<String>,
    /// Database of a stored table (kept for four-part name matching and diagnostics).
    #[allow(dead_code)]
    pub database: Option<String>,
    pub start: usize,
    pub len: usize,
}

/// One column visible in a scope.
#[derive(Clone, Debug)]
pub(crate) struct ScopeCol {
    pub name: String,
    pub table: Option<usize>,
    pub data_type: DataType,
    /// Nullability (for SELECT INTO column definitions and future checks).
    #[allow(dead_code)]
    pub nullable: bool,
    /// Hidden columns (row locator) are never found by name or `*`.
    pub hidden: bool,
}

/// Columns visible at one query level (the FROM clause's output row).
#[derive(Clone, Debug, Default)]
pub(crate) struct Scope {
    pub tables: Vec<ScopeTable>,
    pub cols: Vec<ScopeCol>,
}

impl Scope {
    /// Appends `other` (a join's right side) shifting its positions.
    pub fn append(&mut self, other: Scope) {
        let off = self.cols.len();
        let toff = self.tables.len();
        for mut t in other.tables {
            t.start += off;
            self.tables.push(t);
        }
        for mut c in other.cols {
            c.table = c.table.map(|t| t + toff);
            self.cols.push(c);
        }
    }
}

/// A query level during binding.
pub(crate) struct Level {
    pub scope: Scope,
    /// Outer references captured by this level: (slot, expression valid one level up).
    pub params: Vec<(usize, ScalarExpr)>,
    /// (outer level, column) -> slot, to reuse slots.
    origins: Vec<((usize, usize), usize)>,
    /// Name resolution does not look past a barrier (views, standalone expressions).
    pub barrier: bool,
    /// The level reads parameter slots set by an enclosing operator (passed-through outer
    /// references): its results depend on the outer row even when `params` is empty.
    pub uses_outer: bool,
}

/// A CTE definition in scope.
#[derive(Clone, Debug)]
pub(crate) struct CteDef {
    pub name: String,
    pub columns: Vec<String>,
    pub query: ast::Query,
    /// Set while the recursive member is being bound: (work table id, columns).
    pub recursive_binding: Option<(usize, Vec<crate::logical::ColumnMeta>)>,
}

/// Expression-binding context: aggregate handling for grouped queries, windows.
pub(crate) struct ExprCtx<'q> {
    pub grouping: Option<&'q mut query::Grouping>,
    /// Window calls collected while binding a select list (None = windows not allowed here).
    pub windows: Option<&'q mut query::WindowCollector>,
    /// Aggregates allowed here (select list, HAVING, ORDER BY).
    pub aggregates_allowed: bool,
}

impl ExprCtx<'_> {
    pub fn plain() -> ExprCtx<'static> {
        ExprCtx {
            grouping: None,
            windows: None,
            aggregates_allowed: false,
        }
    }
}

/// Binder state for one statement.
pub(crate) struct Binder<'e> {
    pub env: &'e dyn BindEnv,
    pub levels: RefCell<Vec<Level>>,
    pub next_slot: RefCell<usize>,
    pub next_cte_id: RefCell<usize>,
    pub ctes: RefCell<Vec<Vec<CteDef>>>,
    pub view_depth: RefCell<usize>,
    /// `OPTION (MAXRECURSION n)` of the statement.
    pub max_recursion: RefCell<Option<u32>>,
    /// While binding an UPDATE/DELETE source: stored tables expose a hidden row-locator column.
    pub dml_locators: RefCell<bool>,
    /// `OPTION (HASH JOIN | LOOP JOIN | MERGE JOIN)`: applied to joins without their own hint.
    pub query_join_hint: RefCell<Option<crate::logical::JoinHint>>,
    /// Inline table-valued functions being expanded (innermost last): their parameters.
    pub tvf_frames: RefCell<Vec<tvf::TvfFrame>>,
    /// View and CTE references expanded so far (bounded by [`MAX_EXPANSIONS`]).
    pub expansions: std::cell::Cell<u32>,
    /// While a view's query is bound: the ANSI_NULLS the view was created with.
    pub view_ansi_nulls: std::cell::Cell<Option<bool>>,
    /// Objects the statement uses and how, checked once binding succeeds ([`Binder::checked`]).
    pub accesses: RefCell<Vec<catalog::ObjectAccess>>,
    /// Views being expanded (innermost last): (database, view id), for ownership chaining.
    pub view_chain: RefCell<Vec<(String, common::ObjectId)>>,
}

/// Most view / CTE references one statement may expand. Each reference is bound again, so a
/// chain of views that each join the previous one twice doubles per level; beyond this the
/// statement is Msg 8623 rather than minutes of binding and unbounded memory.
pub(crate) const MAX_EXPANSIONS: u32 = 4096;

impl<'e> Binder<'e> {
    pub fn new(env: &'e dyn BindEnv) -> Self {
        Binder {
            env,
            levels: RefCell::new(Vec::new()),
            next_slot: RefCell::new(0),
            next_cte_id: RefCell::new(0),
            ctes: RefCell::new(Vec::new()),
            view_depth: RefCell::new(0),
            max_recursion: RefCell::new(None),
            dml_locators: RefCell::new(false),
            query_join_hint: RefCell::new(None),
            tvf_frames: RefCell::new(Vec::new()),
            expansions: std::cell::Cell::new(0),
            view_ansi_nulls: std::cell::Cell::new(None),
            accesses: RefCell::new(Vec::new()),
            view_chain: RefCell::new(Vec::new()),
        }
    }

    /// Records that the statement uses an object (checked by [`Binder::checked`]).
    pub fn record_access(
        &self,
        database: &str,
        object_id: common::ObjectId,
        access: catalog::Access,
    ) {
        let via = self.view_chain.borrow().last().cloned();
        let a = catalog::ObjectAccess {
            database: database.to_string(),
            object_id,
            access,
            via,
        };
        let mut v = self.accesses.borrow_mut();
        if !v.contains(&a) {
            v.push(a);
        }
    }

    /// Forgets the SELECT recorded for a DML target read only to locate its rows (an UPDATE
    /// or DELETE without WHERE or FROM needs no SELECT permission).
    pub fn forget_select(&self, object_id: common::ObjectId) {
        self.accesses.borrow_mut().retain(|a| {
            !(a.object_id == object_id && a.access == catalog::Access::Select && a.via.is_none())
        });
    }

    /// `r` once every recorded use passes the session's permission check.
    pub fn checked<T>(&self, r: SqlResult<T>) -> SqlResult<T> {
        let v = r?;
        for a in self.accesses.borrow().iter() {
            self.env.check_access(a)?;
        }
        Ok(v)
    }

    /// ANSI_NULLS for what is being bound: the view's while inside one, else the session's.
    pub(crate) fn ansi_nulls(&self) -> bool {
        self.view_ansi_nulls
            .get()
            .unwrap_or_else(|| self.env.ansi_nulls())
    }

    /// Counts one view or CTE expansion: Msg 8623 past [`MAX_EXPANSIONS`].
    pub(crate) fn count_expansion(&self) -> SqlResult<()> {
        let n = self.expansions.get() + 1;
        self.expansions.set(n);
        if n > MAX_EXPANSIONS {
            return Err(SqlError::new(8623, &[]));
        }
        Ok(())
    }

    pub fn push_level(&self, scope: Scope, barrier: bool) {
        self.levels.borrow_mut().push(Level {
            scope,
            params: Vec::new(),
            origins: Vec::new(),
            barrier,
            uses_outer: false,
        });
    }

    /// Pops a level, returning its captured outer references and whether it is correlated.
    pub fn pop_level_full(&self) -> (Vec<(usize, ScalarExpr)>, bool) {
        match self.levels.borrow_mut().pop() {
            Some(l) => {
                let corr = l.uses_outer || !l.params.is_empty();
                (l.params, corr)
            }
            None => (vec![], false),
        }
    }

    /// Pops a level, returning its captured outer references.
    pub fn pop_level(&self) -> Vec<(usize, ScalarExpr)> {
        self.levels
            .borrow_mut()
            .pop()
            .map(|l| l.params)
            .unwrap_or_default()
    }

    pub fn set_scope(&self, scope: Scope) {
        if let Some(l) = self.levels.borrow_mut().last_mut() {
            l.scope = scope;
        }
    }

    pub fn current_scope(&self) -> Scope {
        self.levels
            .borrow()
            .last()
            .map(|l| l.scope.clone())
            .unwrap_or_default()
    }

    /// Finds column `name` qualified by `qual` (0-2 parts) in the scope of `level`.
    /// Ok(None) = not there; errors for ambiguity.
    fn find_in_level(
        &self,
        level: usize,
        qual: &[String],
        name: &str,
    ) -> SqlResult<Option<(usize, DataType)>> {
        let levels = self.levels.borrow();
        let scope = &levels[level].scope;
        let mut found: Option<(usize, DataType)> = None;
        for (i, c) in scope.cols.iter().enumerate() {
            if c.hidden || !name_eq(&c.name, name) {
                continue;
            }
            if !qual.is_empty() {
                let Some(ti) = c.table else { continue };
                let t = &scope.tables[ti];
                if !table_matches(t, qual) {
                    continue;
                }
            }
            if found.is_some() {
                let shown = if qual.is_empty() {
                    name.to_string()
                } else {
                    format!("{}.{}", qual.join("."), name)
                };
                return Err(SqlError::new(209, &[&shown]));
            }
            found = Some((i, c.data_type.clone()));
        }
        Ok(found)
    }

    /// True if a table matching the qualifier exists in `level`'s scope.
    fn qualifier_exists(&self, level: usize, qual: &[String]) -> bool {
        let levels = self.levels.borrow();
        levels[level]
            .scope
            .tables
            .iter()
            .any(|t| table_matches(t, qual))
    }

    /// Resolves a (possibly qualified) column reference from the innermost level.
    pub fn resolve_column(&self, parts: &[String]) -> SqlResult<ScalarExpr> {
        let (name, qual) = match parts.split_last() {
            Some((n, q)) => (n.as_str(), q),
            None => return Err(SqlError::internal("empty column name")),
        };
        // drop an empty server/database part and keep at most schema.table as qualifier
        let qual: Vec<String> = qual.iter().filter(|p| !p.is_empty()).cloned().collect();
        let qual: Vec<String> = if qual.len() > 2 {
            qual[qual.len() - 2..].to_vec()
        } else {
            qual
        };
        let top = self.levels.borrow().len();
        if top == 0 {
            return Err(self.unbound(parts, &qual));
        }
        match self.resolve_at(top - 1, &qual, name)? {
            Some(e) => Ok(e),
            None => Err(self.unbound(parts, &qual)),
        }
    }

    fn unbound(&self, parts: &[String], qual: &[String]) -> SqlError {
        if qual.is_empty() {
            SqlError::new(207, &[&parts.last().map(String::as_str).unwrap_or("")])
        } else {
            SqlError::new(4104, &[&parts.join(".")])
        }
    }

    fn resolve_at(
        &self,
        level: usize,
        qual: &[String],
        name: &str,
    ) -> SqlResult<Option<ScalarExpr>> {
        if let Some((i, t)) = self.find_in_level(level, qual, name)? {
            return Ok(Some(ScalarExpr::column(i, t)));
        }
        // A qualifier naming a table of this level that lacks the column: invalid column.
        if !qual.is_empty() && self.qualifier_exists(level, qual) {
            return Err(SqlError::new(207, &[&name]));
        }
        let barrier = self.levels.borrow()[level].barrier;
        if level == 0 || barrier {
            return Ok(None);
        }
        let Some(outer) = self.resolve_at(level - 1, qual, name)? else {
            return Ok(None);
        };
        // an outer reference that is already a parameter passes through unchanged
        if let ScalarKind::Param(_) = outer.kind {
            self.levels.borrow_mut()[level].uses_outer = true;
            return Ok(Some(outer));
        }
        // capture as a parameter of this level
        let key = match &outer.kind {
            ScalarKind::Column(c) => Some((level - 1, *c)),
            ScalarKind::Param(s) => Some((usize::MAX, *s)),
            _ => None,
        };
        let mut levels = self.levels.borrow_mut();
        if let Some(k) = key {
            if let Some(&(_, slot)) = levels[level].origins.iter().find(|(o, _)| *o == k) {
                return Ok(Some(ScalarExpr::new(
                    ScalarKind::Param(slot),
                    outer.data_type.clone(),
                )));
            }
        }
        let slot = {
            let mut s = self.next_slot.borrow_mut();
            *s += 1;
            *s - 1
        };
        let t = outer.data_type.clone();
        levels[level].params.push((slot, outer));
        if let Some(k) = key {
            levels[level].origins.push((k, slot));
        }
        Ok(Some(ScalarExpr::new(ScalarKind::Param(slot), t)))
    }

    /// Looks up a CTE by name (innermost WITH first).
    pub fn find_cte(&self, name: &str) -> Option<CteDef> {
        let ctes = self.ctes.borrow();
        for frame in ctes.iter().rev() {
            for c in frame.iter().rev() {
                if name_eq(&c.name, name) {
                    return Some(c.clone());
                }
            }
        }
        None
    }

    /// Binds a query used as a table/subquery at a new level; returns the plan and captured
    /// outer references.
    pub fn bind_query_level(
        &self,
        q: &ast::Query,
        barrier: bool,
    ) -> SqlResult<(LogicalOp, Vec<String>, crate::scalar::Params)> {
        check_nested_order_by(q)?;
        self.push_level(Scope::default(), barrier);
        let r = self.bind_query(q);
        let params = self.pop_level();
        let (op, names) = r?;
        Ok((op, names, params))
    }
}

/// ORDER BY in a derived table, subquery, view or CTE needs TOP or OFFSET (1033).
pub(crate) fn check_nested_order_by(q: &ast::Query) -> SqlResult<()> {
    if q.order_by.is_empty() || q.offset.is_some() || q.for_clause.is_some() {
        return Ok(());
    }
    if let ast::QueryBody::Select(s) = &q.body {
        if s.top.is_some() {
            return Ok(());
        }
    }
    Err(SqlError::custom(
        1033,
        15,
        1,
        "The ORDER BY clause is invalid in views, inline functions, derived tables, subqueries, and common table expressions, unless TOP, OFFSET or FOR XML is also specified.",
    ))
}

fn table_matches(t: &ScopeTable, qual: &[String]) -> bool {
    match qual {
        [one] => name_eq(&t.exposed, one),
        [schema, table] => {
            !t.has_alias
                && name_eq(&t.exposed, table)
                && t.schema.as_deref().is_none_or(|s| name_eq(s, schema))
        }
        _ => false,
    }
}

/// Converts an AST object name into a catalog name (4-part names drop the server).
pub fn qualified_name(name: &ast::ObjectName) -> catalog::QualifiedName {
    catalog::QualifiedName {
        database: name.database().map(|i| i.value.clone()),
        schema: name.schema().map(|i| i.value.clone()),
        name: name.name().map(|i| i.value.clone()).unwrap_or_default(),
    }
}

/// Wraps `e` in an implicit conversion to `t` when needed.
pub(crate) fn convert_to(e: ScalarExpr, t: &DataType) -> ScalarExpr {
    if e.data_type == *t {
        return e;
    }
    if let ScalarKind::Literal(v) = &e.kind {
        if v.is_null() {
            return ScalarExpr::literal(types::Value::Null, t.clone());
        }
        // fold constant conversions; a failing one stays a runtime conversion (its error is
        // raised only if the expression is evaluated)
        if let Ok(c) = v.cast(t) {
            return ScalarExpr::literal(c, t.clone());
        }
    }
    ScalarExpr::new(
        ScalarKind::Cast {
            expr: Box::new(e),
            style: None,
            try_: false,
            implicit: true,
        },
        t.clone(),
    )
}

/// Data type from a declaration type name (`varchar(10)`, `decimal(10,2)`; defaults of a
/// column/variable declaration).
pub fn expr_decl_type(t: &ast::DataTypeName) -> SqlResult<DataType> {
    expr::decl_type_impl(t)
}
