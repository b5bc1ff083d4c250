//! BULK INSERT's write side: rows that the engine's file reader has already converted to the
//! column types go straight to [`TableStore::insert_row`] (the B-tree's rightmost-leaf append
//! path for ascending keys, btree/README S3), with BULK INSERT's own rules instead of
//! INSERT's: an empty field takes the column default unless KEEPNULLS, the identity column is
//! generated unless KEEPIDENTITY, CHECK and FOREIGN KEY constraints are checked only with
//! CHECK_CONSTRAINTS, and row images for AFTER triggers are kept only with FIRE_TRIGGERS.
//! NOT NULL, PRIMARY KEY and UNIQUE are always enforced.
//!
//! Transactions are the caller's: one call loads one batch (`BATCHSIZE`) into the session's
//! open transaction; the engine commits or rolls back around it.

use std::sync::Arc;

use catalog::TableDef;
use common::SqlResult;
use plan::catalog;
use plan::{BoundCheck, InsertColumn, ScalarExpr};
use types::Value;

use crate::context::ExecCtx;
use crate::dml::{check_foreign_keys, check_row, to_column, DmlAction, DmlChanges, Images};
use crate::eval::eval;
use crate::ExecEnv;

/// What a bulk load writes into and how (bound once per statement).
pub struct BulkTarget {
    pub table: Arc<TableDef>,
    /// Per column: `Source(_)` (the file's field), `Identity` (generated) or `Computed`.
    pub columns: Vec<InsertColumn>,
    /// Per column: its DEFAULT, used for an empty field without KEEPNULLS.
    pub defaults: Vec<Option<ScalarExpr>>,
    /// CHECK constraints to enforce (empty without CHECK_CONSTRAINTS).
    pub checks: Vec<BoundCheck>,
    pub check_foreign_keys: bool,
    pub keep_nulls: bool,
    /// Keep row images for AFTER INSERT triggers (FIRE_TRIGGERS).
    pub fire_triggers: bool,
}

/// The rows of one batch.
pub trait BulkSource {
    /// Fills `row` (one value per table column, already of the column's type; `Null` for an
    /// empty field) with the next row of the batch; false when the batch is complete.
    fn next_row(&mut self, row: &mut [Value]) -> SqlResult<bool>;
}

/// Loads one batch into the session's transaction. Returns the rows inserted and the row
/// images for AFTER triggers (empty without FIRE_TRIGGERS).
pub fn bulk_insert_batch(
    target: &BulkTarget,
    source: &mut dyn BulkSource,
    env: &mut dyn ExecEnv,
) -> SqlResult<(u64, Vec<DmlChanges>)> {
    let mut ctx = ExecCtx::new(env);
    let table = &target.table;
    let db = ctx.env.storage(&table.database)?;
    let mut store = crate::table_io::open_for_write(&mut ctx, db.clone(), table)?;
    let dbname = table.database.clone();
    let identity = table.identity().map(|(c, _)| c);
    let mut images = if target.fire_triggers {
        Some(Images::new(table, &mut ctx))
    } else {
        None
    };
    let has_computed = target
        .columns
        .iter()
        .any(|c| matches!(c, InsertColumn::Computed(_)));
    let mut row = vec![Value::Null; table.columns.len()];
    let mut n = 0u64;
    while source.next_row(&mut row)? {
        for (c, ic) in target.columns.iter().enumerate() {
            match ic {
                InsertColumn::Source(_) => {
                    if row[c].is_null() && !target.keep_nulls {
                        if let Some(d) = &target.defaults[c] {
                            row[c] = to_column(&eval(d, &[], &mut ctx)?, table, c)?;
                        }
                    }
                    if identity == Some(c) {
                        if let Some(i) = row[c].as_i64() {
                            ctx.env.identity_used(table, i, false);
                        }
                    }
                }
                InsertColumn::Identity => {
                    let i = ctx.env.next_identity(table)?;
                    ctx.env.identity_used(table, i, true);
                    row[c] = Value::BigInt(i).cast(&table.columns[c].data_type)?;
                }
                InsertColumn::Default(_) | InsertColumn::Null | InsertColumn::Computed(_) => {
                    row[c] = Value::Null;
                }
            }
        }
        if has_computed {
            for (c, ic) in target.columns.iter().enumerate() {
                if let InsertColumn::Computed(e) = ic {
                    let v = eval(e, &row, &mut ctx)?;
                    row[c] = if v.is_null() {
                        v
                    } else {
                        v.cast(&table.columns[c].data_type)?
                    };
                }
            }
        }
        check_row(table, &row, &target.checks, "INSERT", &mut ctx)?;
        if target.check_foreign_keys {
            check_foreign_keys(table, &row, None, "INSERT", &db, &mut ctx)?;
        }
        let txn = ctx.env.txn(&dbname)?;
        store.insert_row(txn, &row)?;
        if let Some(im) = images.as_mut() {
            im.add(Some(&row), None);
        }
        n += 1;
    }
    if let Some(im) = images {
        im.finish(
            table,
            DmlAction::Insert,
            (0..table.columns.len()).collect(),
            &mut ctx,
        );
    }
    Ok((n, std::mem::take(&mut ctx.changes)))
}
