//! Halloween protection decisions: may a DML statement consume its source rows while it
//! modifies the target, instead of materializing them all first?
//!
//! Streaming is allowed only when the source plan provably cannot observe the target's
//! changes: every operator is one this module knows, no scan or seek reads the target table
//! (same database and object id), and no expression can read tables or run other statements
//! (subqueries, engine-evaluated `ScalarFunc::Named` functions). Anything else (recursive CTEs,
//! table functions, unknown operators) keeps the materializing path.

use catalog::TableDef;
use plan::{catalog, PhysKind, PhysOp, ScalarExpr, ScalarFunc, ScalarKind, SortKey, TableSource};

/// True when `source` may be read row by row while rows are written into `target`.
pub(crate) fn can_stream_into(source: &PhysOp, target: &TableDef) -> bool {
    independent(source, target)
}

fn other_table(s: &TableSource, target: &TableDef) -> bool {
    !(s.table.object_id == target.object_id
        && s.table.database.eq_ignore_ascii_case(&target.database))
}

fn pure(e: &ScalarExpr) -> bool {
    match &e.kind {
        ScalarKind::ScalarSubquery(_)
        | ScalarKind::Exists(_)
        | ScalarKind::InSubquery { .. }
        | ScalarKind::Quantified { .. } => false,
        ScalarKind::Function {
            func: ScalarFunc::Named,
            ..
        } => false,
        _ => e.children().into_iter().all(pure),
    }
}

fn pure_opt(e: &Option<ScalarExpr>) -> bool {
    e.as_ref().is_none_or(pure)
}

fn pure_all(es: &[ScalarExpr]) -> bool {
    es.iter().all(pure)
}

fn pure_keys(ks: &[SortKey]) -> bool {
    ks.iter().all(|k| pure(&k.expr))
}

fn independent(op: &PhysOp, target: &TableDef) -> bool {
    match &op.kind {
        PhysKind::ConstantScan { rows } => rows.iter().all(|r| pure_all(r)),
        PhysKind::VirtualScan { .. } => true,
        PhysKind::TableScan { source, predicate }
        | PhysKind::ClusteredIndexScan {
            source, predicate, ..
        } => other_table(source, target) && pure_opt(predicate),
        PhysKind::IndexSeek {
            source,
            range,
            predicate,
            ..
        } => {
            other_table(source, target)
                && pure_opt(predicate)
                && pure_all(&range.eq)
                && range.lower.as_ref().is_none_or(|(e, _)| pure(e))
                && range.upper.as_ref().is_none_or(|(e, _)| pure(e))
        }
        PhysKind::Filter { input, predicate } => pure(predicate) && independent(input, target),
        PhysKind::ComputeScalar { input, exprs } => pure_all(exprs) && independent(input, target),
        PhysKind::NestedLoops {
            outer,
            inner,
            predicate,
            params,
            ..
        } => {
            pure_opt(predicate)
                && params.iter().all(|(_, e)| pure(e))
                && independent(outer, target)
                && independent(inner, target)
        }
        PhysKind::HashJoin {
            left,
            right,
            left_keys,
            right_keys,
            residual,
            ..
        }
        | PhysKind::MergeJoin {
            left,
            right,
            left_keys,
            right_keys,
            residual,
            ..
        } => {
            pure_all(left_keys)
                && pure_all(right_keys)
                && pure_opt(residual)
                && independent(left, target)
                && independent(right, target)
        }
        PhysKind::Sort {
            input, keys, top, ..
        } => pure_keys(keys) && pure_opt(top) && independent(input, target),
        PhysKind::HashAggregate {
            input,
            group_by,
            aggs,
            ..
        }
        | PhysKind::StreamAggregate {
            input,
            group_by,
            aggs,
        } => {
            pure_all(group_by)
                && aggs
                    .iter()
                    .all(|a| pure_all(&a.args) && pure_keys(&a.order_by))
                && independent(input, target)
        }
        PhysKind::Top { input, spec } => {
            pure_opt(&spec.count)
                && pure_opt(&spec.offset)
                && pure_keys(&spec.with_ties)
                && independent(input, target)
        }
        PhysKind::Window { input, calls } => {
            calls
                .iter()
                .all(|c| pure_all(&c.args) && pure_all(&c.partition_by) && pure_keys(&c.order_by))
                && independent(input, target)
        }
        PhysKind::Concatenation { inputs } => inputs.iter().all(|i| independent(i, target)),
        PhysKind::HashSetOp { left, right, .. } => {
            independent(left, target) && independent(right, target)
        }
        PhysKind::HashDistinct { input } => independent(input, target),
        PhysKind::TableSpool { input } => independent(input, target),
        PhysKind::RecursiveCte { .. }
        | PhysKind::WorkTableScan { .. }
        | PhysKind::TableFunction { .. }
        | PhysKind::Parallelism { .. }
        | PhysKind::Repartition { .. }
        | PhysKind::PartialAggregate { .. }
        | PhysKind::GlobalAggregate { .. } => false,
    }
}
