//! `exec`: row-mode execution of physical plans (see README.md).
//!
//! Important items: [`execute`] runs a [`plan::PhysicalPlan`] against an [`ExecEnv`] (the
//! engine's session) and streams result rows into a [`RowSink`]; [`eval_scalar`] evaluates a
//! standalone expression (`SET @v = ...`, `IF`, `PRINT`); [`table_io`] creates, fills and drops
//! the storage objects of tables and indexes (DDL support for the engine); [`row_format`] is the
//! on-disk encoding of table rows and index entries; [`spill`] holds the tempdb work files of
//! sorts, hash joins and hash aggregates that exceed their memory budget
//! ([`ExecEnv::spill_config`], [`SpillConfig`]).
//!
//! Operators follow the iterator model (`open` / `next` / `row`), one file per showplan operator.
//! Threading contract: a plan runs on the session's thread, except the zones below a
//! `Parallelism` node, which run on workers ([`parallel`], README "Parallelism").
//!
//! What does NOT belong here: name binding (plan), plan choice (optimizer), page formats
//! (storage), SQL value semantics (types).

pub mod actuals;
pub mod agg;
mod batch;
pub mod bulk;
mod byte_keys;
pub mod context;
pub mod eval;
pub mod hll;
pub mod index_check;
pub mod key_range;
pub mod locking;
pub mod operator;
pub mod row_format;
pub mod spill;
pub mod table_io;
pub mod valops;
pub mod versions;

mod compute_scalar;
mod concatenation;
mod constant_scan;
mod dml;
mod filter;
mod fold;
pub mod for_clause;
mod halloween;
mod hash_aggregate;
mod hash_match;
mod index_seek;
mod merge;
mod merge_join;
mod nested_loops;
pub mod parallel;
mod recursive_cte;
mod row_buffer;
mod set_ops;
mod sort;
mod spool;
mod stream_aggregate;
mod table_function;
mod table_scan;
mod top;
mod window;

use std::sync::Arc;

use common::{SqlError, SqlResult};
use plan::catalog::TableDef;
use plan::{NewTableSpec, PhysicalPlan, ScalarExpr, Statement};
use types::{DataType, Value};

pub use context::ExecCtx;
pub use dml::{DmlAction, DmlChanges};
pub use spill::{SpillConfig, SpillStats};

/// What exec needs from the session (implemented by `engine::Session`).
pub trait ExecEnv {
    /// The storage database holding `database`'s objects.
    fn storage(&mut self, database: &str) -> SqlResult<Arc<storage::Database>>;
    /// The current transaction in that database (the engine begins one lazily).
    fn txn(&mut self, database: &str) -> SqlResult<&mut storage::Txn>;
    /// The value in variable slot `slot` of the frame the statement runs in (the slot the
    /// binder resolved, `plan::VarRef`), read in place: no name lookup, no copy of a large
    /// string just to measure or concatenate it. None: no such slot (reads as NULL).
    fn variable_at(&self, slot: usize) -> Option<&Value>;
    /// Assigns variable slot `slot`, converting to its declared type.
    fn set_variable_at(&mut self, slot: usize, v: Value) -> SqlResult<()>;
    fn session_id(&self) -> i32;
    /// SELECT ... INTO: create the table (engine DDL) and return its definition.
    fn create_table(&mut self, spec: &NewTableSpec) -> SqlResult<Arc<TableDef>> {
        Err(SqlError::unsupported(format!("SELECT INTO {}", spec.name)))
    }
    /// Next identity value for `table` (the engine keeps the counter in its catalog).
    fn next_identity(&mut self, table: &TableDef) -> SqlResult<i64> {
        Err(SqlError::unsupported(format!("IDENTITY on {}", table.name)))
    }
    /// Records an explicitly inserted identity value (IDENTITY_INSERT ON) so the counter moves
    /// past it, and the last identity generated (for SCOPE_IDENTITY / @@IDENTITY).
    fn identity_used(&mut self, _table: &TableDef, _value: i64, _generated: bool) {}
    /// Session- or catalog-dependent functions (`@@ROWCOUNT`, `DB_NAME()`, `OBJECT_ID(..)`,
    /// user-defined functions ...). `name` is upper case. Return `Ok(None)` if unknown.
    fn call_function(&mut self, _name: &str, _args: &[Value]) -> SqlResult<Option<Value>> {
        Ok(None)
    }
    /// Runs a multi-statement table-valued function (`database`, `object_id`) with argument
    /// values already converted to its parameter types; returns the rows of its result table.
    fn call_table_function(
        &mut self,
        _database: &str,
        _object_id: i32,
        _args: &[Value],
    ) -> SqlResult<Vec<Vec<Value>>> {
        Err(SqlError::unsupported(
            "multi-statement table-valued functions",
        ))
    }
    /// Opens the file of `OPENROWSET(BULK ...)` to read rows of `columns` (the result
    /// columns) one at a time.
    fn open_bulk_rowset(
        &mut self,
        _spec: &plan::BulkRowset,
        _columns: &[plan::ColumnMeta],
    ) -> SqlResult<Box<dyn BulkRowReader>> {
        Err(SqlError::unsupported("OPENROWSET(BULK ...)"))
    }
    /// Tables (in `database`) with a FOREIGN KEY referencing `object_id`, for REFERENCE checks
    /// on DELETE/UPDATE of the referenced table. Default: none (checks skipped).
    fn referencing_tables(
        &mut self,
        _database: &str,
        _object_id: i32,
    ) -> SqlResult<Vec<Arc<TableDef>>> {
        Ok(Vec::new())
    }
    /// Whether the DML of this statement on `table` must hand back its row images
    /// ([`ExecSummary::changes`]): the engine answers true for tables with enabled triggers.
    fn wants_images(&mut self, _table: &TableDef) -> bool {
        false
    }
    /// The table definition of a referenced table (foreign key checks), by object id.
    fn table_by_id(
        &mut self,
        _database: &str,
        _object_id: i32,
    ) -> SqlResult<Option<Arc<TableDef>>> {
        Ok(None)
    }
    /// Memory budget of memory-consuming operators (sort, hash join, hash aggregate) and the
    /// directory of their spill files (the engine: `<data_dir>/tempdb/workfiles`).
    fn spill_config(&self) -> SpillConfig {
        SpillConfig::default()
    }
    /// The running request's cancel flag, polled by the operators' row loops
    /// ([`ExecCtx::check_cancel`]); `None`: this execution cannot be cancelled.
    fn cancel_token(&self) -> Option<common::CancelToken> {
        None
    }
    /// A clock of the calling thread's CPU time in µs, handed when per-operator elapsed and
    /// CPU times should be collected (actual plans, see [`actuals`]); `None` (the default):
    /// only rows and executions are counted.
    fn op_cpu_clock(&self) -> Option<fn() -> u64> {
        None
    }
    /// The locks of one access to `table` (`hints`: its table hints, upper case, as
    /// `plan::TableHints::all` keeps them). `None`: nothing to lock (the default, and tempdb).
    fn table_locker(
        &mut self,
        _table: &TableDef,
        _hints: &[String],
        _access: locking::TableAccess,
    ) -> SqlResult<Option<Box<dyn locking::TableLocker>>> {
        Ok(None)
    }
}

/// The rows of an `OPENROWSET(BULK ...)` file, read as the query asks for them (a file is
/// never held in memory whole).
pub trait BulkRowReader {
    /// The next row, None at the end; rows rejected on the way (within MAXERRORS) are added
    /// to `messages`.
    fn next_row(&mut self, messages: &mut Vec<SqlError>) -> SqlResult<Option<Vec<Value>>>;
}

/// Name and type of a result column.
#[derive(Clone, Debug, PartialEq)]
pub struct ResultColumn {
    pub name: String,
    pub data_type: DataType,
}

/// Receives a result set.
pub trait RowSink {
    fn columns(&mut self, cols: &[ResultColumn]) -> SqlResult<()>;
    fn row(&mut self, row: &[Value]) -> SqlResult<()>;
}

/// What a statement did.
#[derive(Clone, Debug, Default)]
pub struct ExecSummary {
    /// Rows affected (DML) or returned (SELECT); None for statements without a count.
    pub rows_affected: Option<u64>,
    /// Informational messages raised during execution (e.g. 8153 warnings), in order.
    pub messages: Vec<SqlError>,
    /// Before/after images of the modified rows, per table and action (see
    /// [`ExecEnv::wants_images`]); empty unless asked for.
    pub changes: Vec<DmlChanges>,
    /// What the operators spilled to tempdb work files.
    pub spills: SpillStats,
    /// Actual counters per operator, indexed by `PhysOp::node_id` (see [`actuals`]).
    pub actuals: Vec<actuals::OpActuals>,
}

/// Runs a physical plan.
pub fn execute(
    plan: &PhysicalPlan,
    env: &mut dyn ExecEnv,
    sink: &mut dyn RowSink,
) -> SqlResult<ExecSummary> {
    let mut ctx = ExecCtx::new(env);
    let started = ctx.op_cpu_clock.map(|c| (std::time::Instant::now(), c()));
    let rows = match plan {
        Statement::Select {
            input,
            columns,
            assign,
        } => {
            let folded;
            let input = if fold::plan_has_foldable(input) {
                folded = fold::fold_plan(input, &mut ctx);
                &folded
            } else {
                input
            };
            let mut op = operator::build(input)?;
            op.open(&mut ctx)?;
            let mut n = 0u64;
            match assign {
                None => {
                    let cols: Vec<ResultColumn> = columns
                        .iter()
                        .map(|c| ResultColumn {
                            name: c.name.clone(),
                            data_type: c.data_type.clone(),
                        })
                        .collect();
                    sink.columns(&cols)?;
                    while op.next(&mut ctx)? {
                        ctx.check_cancel()?;
                        sink.row(op.row())?;
                        n += 1;
                    }
                }
                Some(vars) => {
                    while op.next(&mut ctx)? {
                        let row = op.row();
                        for (i, v) in vars.iter().enumerate() {
                            let val = row.get(i).cloned().unwrap_or(Value::Null);
                            ctx.env.set_variable_at(v.slot, val)?;
                        }
                        n += 1;
                    }
                }
            }
            op.close();
            Some(n)
        }
        Statement::Insert {
            table,
            source,
            columns,
            checks,
            output,
            ..
        } => Some(dml::insert(
            table,
            source,
            columns,
            checks,
            output.as_ref(),
            &mut ctx,
            sink,
        )?),
        Statement::Update {
            table,
            input,
            target_offset,
            sets,
            computed,
            checks,
            output,
            variables,
        } => Some(dml::update(
            table,
            input,
            *target_offset,
            sets,
            computed,
            checks,
            variables,
            output.as_ref(),
            &mut ctx,
            sink,
        )?),
        Statement::Delete {
            table,
            input,
            target_offset,
            output,
        } => Some(dml::delete(
            table,
            input,
            *target_offset,
            output.as_ref(),
            &mut ctx,
            sink,
        )?),
        Statement::Truncate { table } => {
            dml::truncate(table, &mut ctx)?;
            None
        }
        Statement::SelectInto { target, source } => {
            Some(dml::select_into(target, source, &mut ctx)?)
        }
    };
    let mut actuals = ctx.actuals.take();
    if let (Some((t0, c0)), Some(clock)) = (started, ctx.op_cpu_clock) {
        let elapsed = t0.elapsed().as_micros() as u64;
        actuals::apportion_cpu(&mut actuals, clock().saturating_sub(c0), elapsed);
    }
    Ok(ExecSummary {
        rows_affected: rows,
        messages: std::mem::take(&mut ctx.messages),
        changes: std::mem::take(&mut ctx.changes),
        spills: ctx.spill_stats,
        actuals,
    })
}

/// `plan` with its row-independent subexpressions evaluated once for this execution (what
/// [`execute`] runs for a SELECT; see `fold.rs`). Exposed for tests and plan inspection.
pub fn fold_constants(plan: &plan::PhysOp, env: &mut dyn ExecEnv) -> plan::PhysOp {
    let mut ctx = ExecCtx::new(env);
    fold::fold_plan(plan, &mut ctx)
}

/// Runs a MERGE (bound by `plan::bind_merge`, optimized through `MergePlan::try_map`); OUTPUT
/// rows go to `sink`. `rows_affected` = rows inserted + updated + deleted.
pub fn execute_merge(
    plan: &plan::MergePlan<plan::PhysOp>,
    env: &mut dyn ExecEnv,
    sink: &mut dyn RowSink,
) -> SqlResult<ExecSummary> {
    let mut ctx = ExecCtx::new(env);
    let n = merge::merge(plan, &mut ctx, sink)?;
    Ok(ExecSummary {
        rows_affected: Some(n),
        messages: std::mem::take(&mut ctx.messages),
        changes: std::mem::take(&mut ctx.changes),
        spills: ctx.spill_stats,
        actuals: ctx.actuals.take(),
    })
}

/// Inserts rows produced outside a plan (`INSERT ... EXEC`, table-valued parameters) with the
/// full INSERT semantics (conversions, identity, defaults, constraints, indexes); `columns` and
/// `checks` come from `plan::bind_insert_target`. Returns the number of rows inserted.
pub fn insert_rows(
    table: &Arc<TableDef>,
    rows: Vec<Vec<Value>>,
    columns: &[plan::InsertColumn],
    checks: &[plan::BoundCheck],
    env: &mut dyn ExecEnv,
) -> SqlResult<u64> {
    let mut ctx = ExecCtx::new(env);
    dml::insert_values(table, rows, columns, checks, &mut ctx)
}

/// Validates the existing rows of `table` against `checks` (from `plan::bind_insert_target`)
/// and its enabled foreign keys: `ALTER TABLE ... WITH CHECK ADD / CHECK CONSTRAINT` (547).
pub fn validate_constraints(
    table: &Arc<TableDef>,
    checks: &[plan::BoundCheck],
    env: &mut dyn ExecEnv,
) -> SqlResult<()> {
    let mut ctx = ExecCtx::new(env);
    dml::validate_rows(table, checks, &mut ctx)
}

/// Evaluates a scalar expression over one row of a table (a computed column's expression
/// bound by `plan::bind_table_expression`, when `ALTER TABLE ... ADD c AS (...)` fills the
/// rows already there).
pub fn eval_over_row(expr: &ScalarExpr, row: &[Value], env: &mut dyn ExecEnv) -> SqlResult<Value> {
    let mut ctx = ExecCtx::new(env);
    eval::eval(expr, row, &mut ctx)
}

/// Evaluates a standalone scalar expression (no input row).
///
/// Inlined into the caller with its context-free shapes (literal, variable, integer arithmetic
/// and comparison: `SET @i = @i + 1`), so the environment's variable reads are direct calls
/// there (the caller's concrete `ExecEnv` is known); anything else goes through
/// [`eval_scalar_in_ctx`].
#[inline]
pub fn eval_scalar(expr: &ScalarExpr, env: &mut dyn ExecEnv) -> SqlResult<Value> {
    if let Some(v) = eval::eval_without_ctx(expr, env) {
        return Ok(v);
    }
    eval_scalar_in_ctx(expr, env)
}

/// [`eval_scalar`] with an execution context (functions, subqueries, messages).
pub fn eval_scalar_in_ctx(expr: &ScalarExpr, env: &mut dyn ExecEnv) -> SqlResult<Value> {
    let mut ctx = ExecCtx::new(env);
    eval::eval(expr, &[], &mut ctx)
}
