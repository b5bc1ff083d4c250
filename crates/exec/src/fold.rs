//! Constant folding at execution start: row-independent subexpressions of a plan's predicates
//! and computed columns (`CAST('1994-01-01' AS date)`, `DATEADD(year, 1, ...)`, `0.06 - 0.01`)
//! are evaluated once per execution instead of once per row.
//!
//! Folding happens here, not in the optimizer, because the values depend on the session
//! (DATEFORMAT, LANGUAGE, ...) and plans are cached across executions: each execution folds
//! its own copy of the plan with its own context. A subexpression whose evaluation fails or
//! raises a message is left as it is, so the error or warning comes (or not) exactly when a
//! row evaluates it, as before. A subquery is never constant itself, but its plan's
//! expressions are folded the same way (into a copy of that plan for this execution): TPC-H
//! Q15's `MAX(total_revenue)` over its view re-parsed `CAST('1996-01-01' AS date)` for every
//! lineitem row. An outer reference (a parameter slot) is not constant, so a correlated
//! subquery keeps what depends on it.

use plan::{PhysKind, PhysOp, ScalarExpr, ScalarKind};

use crate::context::ExecCtx;

/// True when some expression of `op`'s tree (outside subqueries) has a constant subexpression
/// worth folding: callers skip the plan copy otherwise.
pub(crate) fn plan_has_foldable(op: &PhysOp) -> bool {
    let mut found = false;
    visit(op, &mut |e| found = found || has_foldable(e));
    found
}

/// A copy of `op` with its constant subexpressions replaced by their values.
pub(crate) fn fold_plan(op: &PhysOp, ctx: &mut ExecCtx) -> PhysOp {
    let mut op = op.clone();
    fold_op(&mut op, ctx);
    op
}

fn has_foldable(e: &ScalarExpr) -> bool {
    common::stack::grow(|| {
        if !matches!(e.kind, ScalarKind::Literal(_)) && e.is_execution_constant() {
            return true;
        }
        if let Some(plan) = physical_subquery(e) {
            if plan_has_foldable(plan) {
                return true;
            }
        }
        e.children().into_iter().any(has_foldable)
    })
}

/// The physical plan of `e` when it is a subquery node.
fn physical_subquery(e: &ScalarExpr) -> Option<&PhysOp> {
    let sq = match &e.kind {
        ScalarKind::ScalarSubquery(s) | ScalarKind::Exists(s) => s,
        ScalarKind::InSubquery { subquery, .. } | ScalarKind::Quantified { subquery, .. } => {
            subquery
        }
        _ => return None,
    };
    match &sq.plan {
        plan::SubqueryPlan::Physical(p) => Some(p),
        plan::SubqueryPlan::Logical(_) => None,
    }
}

/// Replaces the largest constant subtrees of `e` by literals.
fn fold_expr(e: &mut ScalarExpr, ctx: &mut ExecCtx) {
    common::stack::grow(|| {
        if matches!(e.kind, ScalarKind::Literal(_) | ScalarKind::Column(_)) {
            return;
        }
        if e.is_execution_constant() {
            let messages = ctx.messages.len();
            match crate::eval::eval(e, &[], ctx) {
                Ok(v) if ctx.messages.len() == messages => {
                    e.kind = ScalarKind::Literal(v);
                    return;
                }
                _ => ctx.messages.truncate(messages),
            }
        }
        if let Some(sq) = e.subquery_mut() {
            if let plan::SubqueryPlan::Physical(p) = &mut sq.plan {
                if plan_has_foldable(p) {
                    *p = std::sync::Arc::new(fold_plan(p, ctx));
                }
            }
        }
        // (a subquery node's children are its operands, never its plan)
        for c in e.children_mut() {
            fold_expr(c, ctx);
        }
    })
}

/// Calls `f` on each expression the operators of `op`'s tree evaluate per row.
fn visit(op: &PhysOp, f: &mut dyn FnMut(&ScalarExpr)) {
    common::stack::grow(|| {
        match &op.kind {
            PhysKind::TableScan { predicate, .. }
            | PhysKind::ClusteredIndexScan { predicate, .. }
            | PhysKind::IndexSeek { predicate, .. } => predicate.iter().for_each(&mut *f),
            PhysKind::Filter { predicate, .. } => f(predicate),
            PhysKind::ComputeScalar { exprs, .. } => exprs.iter().for_each(&mut *f),
            PhysKind::NestedLoops { predicate, .. } => predicate.iter().for_each(&mut *f),
            PhysKind::HashJoin { residual, .. } | PhysKind::MergeJoin { residual, .. } => {
                residual.iter().for_each(&mut *f)
            }
            PhysKind::HashAggregate { aggs, .. }
            | PhysKind::StreamAggregate { aggs, .. }
            | PhysKind::PartialAggregate { aggs, .. }
            | PhysKind::GlobalAggregate { aggs, .. } => {
                aggs.iter().flat_map(|a| a.args.iter()).for_each(&mut *f)
            }
            _ => {}
        }
        for c in op.children() {
            visit(c, f);
        }
    })
}

fn fold_op(op: &mut PhysOp, ctx: &mut ExecCtx) {
    common::stack::grow(|| {
        match &mut op.kind {
            PhysKind::TableScan { predicate, .. }
            | PhysKind::ClusteredIndexScan { predicate, .. }
            | PhysKind::IndexSeek { predicate, .. } => {
                predicate.iter_mut().for_each(|e| fold_expr(e, ctx))
            }
            PhysKind::Filter { input, predicate } => {
                fold_expr(predicate, ctx);
                fold_op(input, ctx);
            }
            PhysKind::ComputeScalar { input, exprs } => {
                exprs.iter_mut().for_each(|e| fold_expr(e, ctx));
                fold_op(input, ctx);
            }
            PhysKind::NestedLoops {
                outer,
                inner,
                predicate,
                ..
            } => {
                predicate.iter_mut().for_each(|e| fold_expr(e, ctx));
                fold_op(outer, ctx);
                fold_op(inner, ctx);
            }
            PhysKind::HashJoin {
                left,
                right,
                residual,
                ..
            }
            | PhysKind::MergeJoin {
                left,
                right,
                residual,
                ..
            } => {
                residual.iter_mut().for_each(|e| fold_expr(e, ctx));
                fold_op(left, ctx);
                fold_op(right, ctx);
            }
            PhysKind::HashAggregate { input, aggs, .. }
            | PhysKind::StreamAggregate { input, aggs, .. }
            | PhysKind::PartialAggregate { input, aggs, .. }
            | PhysKind::GlobalAggregate { input, aggs, .. } => {
                aggs.iter_mut()
                    .flat_map(|a| a.args.iter_mut())
                    .for_each(|e| fold_expr(e, ctx));
                fold_op(input, ctx);
            }
            PhysKind::Sort { input, .. }
            | PhysKind::Top { input, .. }
            | PhysKind::Window { input, .. }
            | PhysKind::HashDistinct { input }
            | PhysKind::Parallelism { input, .. }
            | PhysKind::Repartition { input, .. } => fold_op(input, ctx),
            PhysKind::HashSetOp { left, right, .. } => {
                fold_op(left, ctx);
                fold_op(right, ctx);
            }
            PhysKind::Concatenation { inputs } => inputs.iter_mut().for_each(|i| fold_op(i, ctx)),
            // a recursive CTE's members re-run per level; the other kinds hold no per-row
            // expressions (or, added later, are left unfolded: folding is only a speed-up)
            _ => {}
        }
    })
}
