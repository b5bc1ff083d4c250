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
    let mut found = false;
    for_each_expr(
        op,
        &mut |x| found = found || expr_uses_params(x),
        &mut |_| {},
    );
    found
}

/// Calls `f` on every expression `op`'s operators hold (not descending into the expressions)
/// and `bind` on every parameter slot an Apply among them fills.
fn for_each_expr(op: &LogicalOp, f: &mut dyn FnMut(&ScalarExpr), bind: &mut dyn FnMut(usize)) {
    common::stack::grow(|| for_each_expr_unguarded(op, f, bind))
}

fn for_each_expr_unguarded(
    op: &LogicalOp,
    f: &mut dyn FnMut(&ScalarExpr),
    bind: &mut dyn FnMut(usize),
) {
    let keys = |v: &[SortKey], f: &mut dyn FnMut(&ScalarExpr)| v.iter().for_each(|k| f(&k.expr));
    match op {
        LogicalOp::Get(_) | LogicalOp::VirtualGet { .. } | LogicalOp::WorkTable { .. } => {}
        LogicalOp::Values { rows, .. } => rows.iter().flatten().for_each(f),
        LogicalOp::TableFunction { args, .. } => args.iter().for_each(f),
        LogicalOp::Filter { input, predicate } => {
            f(predicate);
            for_each_expr(input, f, bind)
        }
        LogicalOp::Project { input, exprs, .. } => {
            exprs.iter().for_each(&mut *f);
            for_each_expr(input, f, bind)
        }
        LogicalOp::Join {
            left, right, on, ..
        } => {
            on.iter().for_each(&mut *f);
            for_each_expr(left, f, bind);
            for_each_expr(right, f, bind)
        }
        LogicalOp::Apply {
            outer,
            inner,
            params,
            ..
        } => {
            for (slot, x) in params {
                bind(*slot);
                f(x);
            }
            for_each_expr(outer, f, bind);
            for_each_expr(inner, f, bind)
        }
        LogicalOp::Aggregate {
            input,
            group_by,
            aggs,
            ..
        } => {
            group_by.iter().for_each(&mut *f);
            for a in aggs {
                a.args.iter().for_each(&mut *f);
                keys(&a.order_by, f);
            }
            for_each_expr(input, f, bind)
        }
        LogicalOp::Window { input, calls } => {
            for c in calls {
                c.args.iter().for_each(&mut *f);
                c.partition_by.iter().for_each(&mut *f);
                keys(&c.order_by, f);
            }
            for_each_expr(input, f, bind)
        }
        LogicalOp::Sort { input, keys: k } => {
            keys(k, f);
            for_each_expr(input, f, bind)
        }
        LogicalOp::Top { input, spec } => {
            spec.count.iter().for_each(&mut *f);
            spec.offset.iter().for_each(&mut *f);
            keys(&spec.with_ties, f);
            for_each_expr(input, f, bind)
        }
        LogicalOp::Distinct { input } => for_each_expr(input, f, bind),
        LogicalOp::SetOp { left, right, .. }
        | LogicalOp::RecursiveCte {
            anchor: left,
            recursive: right,
            ..
        } => {
            for_each_expr(left, f, bind);
            for_each_expr(right, f, bind)
        }
    }
}

/// The parameter slots `e` reads that nothing inside `e` fills: slots read anywhere (nested
/// subquery plans included) minus those a nested subquery or Apply binds. Slots are numbered
/// once per statement, so a slot bound inside `e` is read only within that binding's scope.
pub(crate) fn free_params(e: &ScalarExpr) -> Vec<usize> {
    let mut reads = Vec::new();
    let mut binds = Vec::new();
    expr_slots(e, &mut reads, &mut binds);
    reads.retain(|s| !binds.contains(s));
    reads
}

fn expr_slots(e: &ScalarExpr, reads: &mut Vec<usize>, binds: &mut Vec<usize>) {
    if let ScalarKind::Param(s) = e.kind {
        reads.push(s);
    }
    let sub = match &e.kind {
        ScalarKind::ScalarSubquery(s) | ScalarKind::Exists(s) => Some(s),
        ScalarKind::InSubquery { subquery, .. } | ScalarKind::Quantified { subquery, .. } => {
            Some(subquery)
        }
        _ => None,
    };
    if let Some(s) = sub {
        for (slot, x) in &s.params {
            binds.push(*slot);
            expr_slots(x, reads, binds);
        }
        match &s.plan {
            SubqueryPlan::Logical(op) => {
                let mut inner_binds = Vec::new();
                for_each_expr(op, &mut |x| expr_slots(x, reads, binds), &mut |slot| {
                    inner_binds.push(slot)
                });
                binds.extend(inner_binds);
            }
            // already planned: it cannot be rewritten here, so count it as reading a slot
            // nobody binds (callers treat the expression as correlated)
            _ => reads.push(usize::MAX),
        }
    }
    for c in e.children() {
        expr_slots(c, reads, binds);
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
pub(crate) fn rewrite(e: &mut ScalarExpr, params: &[(usize, ScalarExpr)], shift: usize) -> bool {
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

/// A subquery taken apart for unnesting: its input (with the subquery's uncorrelated
/// conjuncts as a filter), its correlated conjuncts rewritten over `outer ++ inner` columns,
/// and its first output column as an expression over `inner` (for IN / ANY / ALL).
pub(crate) struct SubqueryParts {
    pub inner: LogicalOp,
    pub join_parts: Vec<ScalarExpr>,
    /// The value the subquery returns, over the inner input's columns.
    pub value: Option<ScalarExpr>,
}

/// Takes apart a subquery shaped `[Project] [Filter(pred)]` over a parameter-free input, with
/// `la` outer columns. `want_value`: also trace its first output column (IN / ANY / ALL).
pub(crate) fn subquery_parts(sq: &Subquery, la: usize, want_value: bool) -> Option<SubqueryParts> {
    let SubqueryPlan::Logical(op) = &sq.plan else {
        return None;
    };
    // peel projections (keep the value expression)
    let mut cur: &LogicalOp = op;
    let mut value: Option<ScalarExpr> = None;
    while let LogicalOp::Project { input, exprs, .. } = cur {
        if want_value {
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
    if want_value && value.is_none() {
        // a bare table read: its only column is the value
        if cur.arity() != 1 {
            return None;
        }
        let c = cur.columns();
        value = Some(ScalarExpr::column(0, c.first()?.data_type.clone()));
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
            // correlated: reads a slot not filled inside the conjunct itself (a nested
            // subquery's own correlation stays with the inner input, planned there)
            if !free_params(&part).is_empty() {
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
    let inner = match ScalarExpr::conjunction(inner_parts) {
        Some(p) => LogicalOp::Filter {
            input: Box::new(inner),
            predicate: p,
        },
        None => inner,
    };
    Some(SubqueryParts {
        inner,
        join_parts,
        value,
    })
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
    let SubqueryParts {
        inner,
        mut join_parts,
        value,
    } = subquery_parts(sq, la, in_expr.is_some())?;
    if let (Some(outer_v), Some(mut v)) = (in_expr, value) {
        if !rewrite(&mut v, &[], la) {
            return None;
        }
        join_parts.push(ScalarExpr::new(
            ScalarKind::Compare(CmpOp::Eq, Box::new((**outer_v).clone()), Box::new(v)),
            types::DataType::Bit,
        ));
    }
    let on = ScalarExpr::conjunction(join_parts)?;
    Some((inner, kind, on))
}
