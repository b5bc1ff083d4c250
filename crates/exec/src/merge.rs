//! MERGE: both inputs are materialized first (Halloween protection; `RowBuffer`s, spilled past
//! the operator memory budget), then every
//! `source LEFT JOIN target` row takes the first applicable MATCHED / NOT MATCHED BY TARGET
//! clause and every unmatched target row the first applicable NOT MATCHED BY SOURCE clause.
//! A target row updated or deleted twice raises 8672. Constraint checks, identity and index
//! maintenance are those of INSERT / UPDATE / DELETE (`dml`).

use std::collections::HashSet;
use std::sync::Arc;

use catalog::TableDef;
use common::{SqlError, SqlResult};
use plan::catalog;
use plan::{InsertColumn, MergeAct, MergeClausePlan, MergePlan, MergeWhen, PhysOp, ScalarExpr};
use types::Value;

use crate::context::ExecCtx;
use crate::dml::{
    atomically, check_foreign_keys, check_references, check_row, insert_rows_into, locator_of,
    spool, to_column, DmlAction, Images, Output, VecRows,
};
use crate::eval::{eval, eval_pred};
use crate::RowSink;

fn err_8672() -> SqlError {
    SqlError::custom(
        8672,
        16,
        1,
        "The MERGE statement attempted to UPDATE or DELETE the same row more than once. This happens when a target row matches more than one source row. A MERGE statement cannot UPDATE/DELETE the same row of the target table multiple times. Refine the ON clause to ensure a target row matches at most one source row, or use the GROUP BY clause to group the source rows.",
    )
}

/// First clause of kind `when` whose condition holds for `row`.
fn pick<'p>(
    clauses: &'p [MergeClausePlan],
    when: MergeWhen,
    row: &[Value],
    ctx: &mut ExecCtx,
) -> SqlResult<Option<&'p MergeClausePlan>> {
    for c in clauses.iter().filter(|c| c.when == when) {
        let ok = match &c.condition {
            None => true,
            Some(p) => eval_pred(p, row, ctx)?,
        };
        if ok {
            return Ok(Some(c));
        }
    }
    Ok(None)
}

/// Runs a MERGE; returns the number of rows inserted + updated + deleted.
pub(crate) fn merge(
    plan: &MergePlan<PhysOp>,
    ctx: &mut ExecCtx,
    sink: &mut dyn RowSink,
) -> SqlResult<u64> {
    let table: &Arc<TableDef> = &plan.table;
    let ncols = table.columns.len();
    let off = plan.target_offset;
    let joined = spool(&plan.input, ctx)?;
    let target_rows = match &plan.target_rows {
        Some(p) => Some(spool(p, ctx)?),
        None => None,
    };
    let limit = match &plan.top {
        Some(e) => match eval(e, &[], ctx)?.as_i64() {
            Some(n) if n >= 0 => Some(n as u64),
            _ => {
                return Err(SqlError::custom(
                    1060,
                    16,
                    1,
                    "The number of rows provided for a TOP or FETCH clauses row count parameter must be an integer.",
                ))
            }
        },
        None => None,
    };
    let db = ctx.env.storage(&table.database)?;
    let mut store = crate::table_io::open_for_write(ctx, db.clone(), table)?;
    let mut out = Output::new(plan.output.as_ref());
    let dbname = table.database.clone();
    let mut upd_images = Images::new(table, ctx);
    let mut del_images = Images::new(table, ctx);
    let n = atomically(ctx, &dbname, &mut |ctx| {
        // First decide every row's action and compute its values, then write: a WHEN condition
        // or SET/VALUES expression whose subquery reads the target must see it as it was before
        // the statement (as UPDATE does). The inputs are spooled (they spill); the planned
        // actions are held in memory (exec README, "what still grows with the input").
        let mut acted: HashSet<Vec<u8>> = HashSet::new();
        // locators of the target rows the source matched (all joined rows come first)
        let mut matched: HashSet<Vec<u8>> = HashSet::new();
        let mut planned: Vec<Planned> = Vec::new();
        let mut joined_rows = joined.cursor()?;
        let mut target_cursor = target_rows.as_ref().map(|t| t.cursor()).transpose()?;
        let mut joined_done = false;
        loop {
            if limit.is_some_and(|l| planned.len() as u64 >= l) {
                break;
            }
            let (r, at, when) = if !joined_done {
                let Some(r) = joined_rows.next_row()? else {
                    joined_done = true;
                    continue;
                };
                match locator_of(r, off + ncols)? {
                    Some(loc) => {
                        matched.insert(loc);
                        (r, off, MergeWhen::Matched)
                    }
                    None => (r, off, MergeWhen::NotMatchedByTarget),
                }
            } else {
                let Some(r) = (match target_cursor.as_mut() {
                    Some(c) => c.next_row()?,
                    None => None,
                }) else {
                    break;
                };
                match locator_of(r, ncols)? {
                    Some(loc) if !matched.contains(&loc) => (r, 0, MergeWhen::NotMatchedBySource),
                    _ => continue,
                }
            };
            let Some(clause) = pick(&plan.clauses, when, r, ctx)? else {
                continue;
            };
            match &clause.action {
                MergeAct::Insert { values, columns } => {
                    let vals = values
                        .iter()
                        .map(|e| eval(e, r, ctx))
                        .collect::<SqlResult<Vec<_>>>()?;
                    planned.push(Planned::Insert(vals, columns));
                }
                act => {
                    let Some(loc) = locator_of(r, at + ncols)? else {
                        return Err(SqlError::internal("MERGE: matched row without locator"));
                    };
                    if !acted.insert(loc.clone()) {
                        return Err(err_8672());
                    }
                    let old = &r[at..at + ncols];
                    match act {
                        MergeAct::Update { sets } => {
                            let new = new_row(table, old, r, sets, &plan.computed, ctx)?;
                            planned.push(Planned::Update(loc, old.to_vec(), new));
                        }
                        _ => planned.push(Planned::Delete(loc, old.to_vec())),
                    }
                }
            }
        }
        // updated keys are unique in the statement's final state, not after each row
        store.defer_unique_checks();
        let mut n = 0u64;
        for p in planned {
            match p {
                Planned::Insert(vals, columns) => {
                    let mut one = VecRows {
                        rows: vec![vals],
                        pos: 0,
                    };
                    insert_rows_into(
                        &mut store,
                        table,
                        &mut one,
                        columns,
                        &plan.checks,
                        &mut out,
                        ctx,
                        "MERGE",
                        Some("INSERT"),
                    )?;
                }
                Planned::Update(loc, old, new) => {
                    check_row(table, &new, &plan.checks, "MERGE", ctx)?;
                    check_foreign_keys(table, &new, Some(&old), "MERGE", &db, ctx)?;
                    check_references(table, &old, Some(&new), "MERGE", &db, ctx)?;
                    let txn = ctx.env.txn(&dbname)?;
                    store.update_row(txn, &loc, &old, &new)?;
                    out.add_action(Some(&new), Some(&old), ncols, Some("UPDATE"), ctx)?;
                    upd_images.add(Some(&new), Some(&old));
                }
                Planned::Delete(loc, old) => {
                    check_references(table, &old, None, "MERGE", &db, ctx)?;
                    let txn = ctx.env.txn(&dbname)?;
                    store.delete_row(txn, &loc, &old)?;
                    out.add_action(None, Some(&old), ncols, Some("DELETE"), ctx)?;
                    del_images.add(None, Some(&old));
                }
            }
            n += 1;
        }
        store.finish_deferred(ctx.env.txn(&dbname)?)?;
        Ok(n)
    })?;
    out.finish(ctx, sink)?;
    // AFTER triggers fire for every action the MERGE specifies, also with no row.
    let mut set_cols: Vec<usize> = Vec::new();
    let (mut has_ins, mut has_upd, mut has_del) = (false, false, false);
    for c in &plan.clauses {
        match &c.action {
            MergeAct::Insert { .. } => has_ins = true,
            MergeAct::Update { sets } => {
                has_upd = true;
                set_cols.extend(sets.iter().map(|(c, _)| *c));
            }
            _ => has_del = true,
        }
    }
    if has_ins {
        Images::new(table, ctx).finish(table, DmlAction::Insert, (0..ncols).collect(), ctx);
    }
    if has_upd {
        set_cols.sort_unstable();
        set_cols.dedup();
        upd_images.finish(table, DmlAction::Update, set_cols, ctx);
    }
    if has_del {
        del_images.finish(table, DmlAction::Delete, Vec::new(), ctx);
    }
    Ok(n)
}

/// The updated image of `old`: SET values (over the input row `r`), then computed columns.
fn new_row(
    table: &TableDef,
    old: &[Value],
    r: &[Value],
    sets: &[(usize, ScalarExpr)],
    computed: &[(usize, ScalarExpr)],
    ctx: &mut ExecCtx,
) -> SqlResult<Vec<Value>> {
    let mut new = old.to_vec();
    for (c, e) in sets {
        let v = eval(e, r, ctx)?;
        new[*c] = to_column(&v, table, *c)?;
    }
    for (c, e) in computed {
        let v = eval(e, &new, ctx)?;
        new[*c] = if v.is_null() {
            v
        } else {
            v.cast(&table.columns[*c].data_type)?
        };
    }
    Ok(new)
}

/// One row's MERGE action with its values computed (before any row is written).
enum Planned<'a> {
    Insert(Vec<Value>, &'a [InsertColumn]),
    Update(Vec<u8>, Vec<Value>, Vec<Value>),
    Delete(Vec<u8>, Vec<Value>),
}
