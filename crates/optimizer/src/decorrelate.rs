//! Rule `SubqueryToSemiJoin`: a WHERE conjunct `EXISTS (subquery)`, `NOT EXISTS (subquery)` or
//! `expr IN (subquery)` whose subquery is `[Project] Filter(pred) over a parameter-free input`
//! becomes a left semi / anti semi join of the filter's input with that input, on `pred`
//! (outer references replaced by the outer columns they read) — so the join can run as a hash
//! or index nested loops join instead of re-running the subquery per row. Sound because the
//! subquery's only dependence on the outer row is through its parameters, all of which occur in
//! `pred`; NOT IN is not rewritten (its NULL semantics differ from an anti join).

use plan::*;

/// True if any expression in the tree (subquery plans included) reads a parameter slot.
pub(crate) fn op_uses_params(op: &LogicalOp) -> bool {
    common::stack::grow(|| op_uses_params_unguarded(op))
}

fn op_uses_params_unguarded(op: &LogicalOp) -> bool {
    let e = |x: &ScalarExpr| expr_uses_params(x);
    let keys = |v: &[SortKey]| v.iter().any(|k| expr_uses_params(&k.expr));
    match op {
        LogicalOp::Get(_) | LogicalOp::VirtualGet { .. } | LogicalOp::WorkTable { .. } => false,
        LogicalOp::Values { rows, .. } => rows.iter().flatten().any(e),
        LogicalOp::TableFunction { args, .. } => args.iter().any(e),
        LogicalOp::Filter { input, predicate } => e(predicate) || op_uses_params(input),
        LogicalOp::Project { input, exprs, .. } => exprs.iter().any(e) || op_uses_params(input),
        LogicalOp::Join {
            left, right, on, ..
        } => on.as_ref().is_some_and(e) || op_uses_params(left) || op_uses_params(right),
        LogicalOp::Apply {
            outer,
            inner,
            params,
            ..
        } => params.iter().any(|(_, x)| e(x)) || op_uses_params(outer) || op_uses_params(inner),
        LogicalOp::Aggregate {
            input,
            group_by,
            aggs,
            ..
        } => {
            group_by.iter().any(e)
                || aggs
                    .iter()
                    .any(|a| a.args.iter().any(e) || keys(&a.order_by))
                || op_uses_params(input)
        }
        LogicalOp::Window { input, calls } => {
            calls
                .iter()
                .any(|c| c.args.iter().any(e) || c.partition_by.iter().any(e) || keys(&c.order_by))
                || op_uses_params(input)
        }
        LogicalOp::Sort { input, keys: k } => keys(k) || op_uses_params(input),
        LogicalOp::Top { input, spec } => {
            spec.count.as_ref().is_some_and(e)
                || spec.offset.as_ref().is_some_and(e)
                || keys(&spec.with_ties)
                || op_uses_params(input)
        }
        LogicalOp::Distinct { input } => op_uses_params(input),
        LogicalOp::SetOp { left, right, .. } => op_uses_params(left) || op_uses_params(right),
        LogicalOp::RecursiveCte {
            anchor, recursive, ..
        } => op_uses_params(anchor) || op_uses_params(recursive),
    }
}

fn expr_uses_params(e: &ScalarExpr) -> bool {
    if let ScalarKind::Param(_) = e.kind {
        return true;
    }
    let sub = match &e.kind {
        ScalarKind::ScalarSubquery(s) | ScalarKind::Exists(s) => Some(s),
        ScalarKind::InSubquery { subquery, .. } | ScalarKind::Quantified { subquery, .. } => {
            Some(subquery)
        }
        _ => None,
    };
    if let Some(s) = sub {
        if let SubqueryPlan::Logical(op) = &s.plan {
            if op_uses_params(op) {
                return true;
            }
        }
    }
    e.children().into_iter().any(expr_uses_params)
}

/// Replaces `Param(slot)` by the expressions in `params` and shifts column refs by `shift`.
fn rewrite(e: &mut ScalarExpr, params: &[(usize, ScalarExpr)], shift: usize) -> bool {
    match &e.kind {
        ScalarKind::Param(s) => match params.iter().find(|(k, _)| k == s) {
            Some((_, x)) => {
                *e = x.clone();
                return true;
            }
            None => return false,
        },
        ScalarKind::Column(i) => {
            let i = *i;
            e.kind = ScalarKind::Column(i + shift);
            return true;
        }
        _ => {}
    }
    if e.subquery_mut().is_some() {
        return false;
    }
    e.children_mut()
        .into_iter()
        .all(|c| rewrite(c, params, shift))
}

/// Tries to turn one conjunct into a semi/anti join with `la` outer columns.
pub(crate) fn try_semi_join(
    c: &ScalarExpr,
    la: usize,
) -> Option<(LogicalOp, JoinKind, ScalarExpr)> {
    let (sq, kind, in_expr) = match &c.kind {
        ScalarKind::Exists(sq) => (sq, JoinKind::LeftSemi, None),
        ScalarKind::Not(inner) => match &inner.kind {
            ScalarKind::Exists(sq) => (sq, JoinKind::LeftAntiSemi, None),
            _ => return None,
        },
        ScalarKind::InSubquery { expr, subquery } => (subquery, JoinKind::LeftSemi, Some(expr)),
        _ => return None,
    };
    if sq.params.is_empty() && in_expr.is_none() {
        return None; // uncorrelated EXISTS: evaluated once and cached
    }
    let SubqueryPlan::Logical(op) = &sq.plan else {
        return None;
    };
    // peel projections (keep the IN value expression)
    let mut cur: &LogicalOp = op;
    let mut value: Option<ScalarExpr> = None;
    while let LogicalOp::Project { input, exprs, .. } = cur {
        if in_expr.is_some() {
            let v = match &value {
                None => exprs.first()?.clone(),
                Some(prev) => {
                    let j = prev.as_column()?;
                    exprs.get(j)?.clone()
                }
            };
            if v.has_subquery() {
                return None;
            }
            value = Some(v);
        }
        cur = input;
    }
    let (inner, pred) = match cur {
        LogicalOp::Filter { input, predicate } => ((**input).clone(), Some(predicate.clone())),
        other => (other.clone(), None),
    };
    if op_uses_params(&inner) {
        return None;
    }
    if let Some(v) = &value {
        if expr_uses_params(v) {
            return None;
        }
    }
    let mut join_parts = Vec::new();
    let mut inner_parts = Vec::new();
    if let Some(p) = pred {
        for part in p.into_conjuncts() {
            if expr_uses_params(&part) {
                let mut part = part;
                if !rewrite(&mut part, &sq.params, la) {
                    return None;
                }
                join_parts.push(part);
            } else {
                inner_parts.push(part);
            }
        }
    }
    if let (Some(outer_v), Some(mut v)) = (in_expr, value) {
        if !rewrite(&mut v, &[], la) {
            return None;
        }
        join_parts.push(ScalarExpr::new(
            ScalarKind::Compare(CmpOp::Eq, Box::new((**outer_v).clone()), Box::new(v)),
            types::DataType::Bit,
        ));
    }
    let inner = match ScalarExpr::conjunction(inner_parts) {
        Some(p) => LogicalOp::Filter {
            input: Box::new(inner),
            predicate: p,
        },
        None => inner,
    };
    let on = ScalarExpr::conjunction(join_parts)?;
    Some((inner, kind, on))
}
