//! Rule `CorrelatedAggToJoin`: a WHERE conjunct reading a correlated scalar aggregate subquery
//!
//! ```text
//! outer WHERE ... x < (SELECT f(AGG(e)) FROM inner WHERE inner.k = outer.k AND p)
//! ```
//!
//! becomes a left outer join of the outer input with the subquery's aggregate computed once
//! per correlation key,
//!
//! ```text
//! outer LEFT JOIN (SELECT k, AGG(e) FROM inner WHERE p GROUP BY k) g ON outer.k = g.k
//!       WHERE ... x < f(g.agg)
//! ```
//!
//! so the inner input is read once (a hash join) instead of once per outer row (TPC-H q2, q17,
//! q20).
//!
//! Sound because: every correlated conjunct is an equality `inner_expr = outer_expr`, so the
//! rows one outer row's subquery aggregates are exactly the group whose key equals its
//! `outer_expr` values (GROUP BY and `=` use the same comparison; a NULL key matches no outer
//! row, as the correlated `=` would match no inner row); groups have distinct keys, so each
//! outer row joins at most one; an outer row without a group keeps NULL aggregates from the
//! outer join, which is what the aggregates return over no rows — only aggregates whose value
//! over no rows is NULL are accepted (not COUNT, COUNT_BIG, CHECKSUM_AGG, ...); and `f` is
//! evaluated above the join, per outer row, as before. The join's extra columns are projected
//! away.

use plan::*;
use types::DataType;

use crate::decorrelate::{free_params, rewrite};

/// One decorrelated subquery: the grouped inner input and the join condition (over
/// `outer ++ grouped` columns); the subquery's value already replaced it in its conjunct.
struct AggJoin {
    grouped: LogicalOp,
    on: ScalarExpr,
    /// The correlation keys: the outer expressions (over the outer columns) and the inner
    /// ones (over the aggregate's input columns), pairwise compared with `=`.
    outer_keys: Vec<ScalarExpr>,
    inner_keys: Vec<ScalarExpr>,
}

/// Rewrites the first conjunct holding a decorrelatable scalar aggregate subquery: returns the
/// new filter (over a left outer join with the grouped subquery input, projected back to the
/// outer columns), or gives the conjuncts back when none qualifies.
pub(crate) fn try_agg_join(
    input: LogicalOp,
    mut conjuncts: Vec<ScalarExpr>,
    columns: &[ColumnMeta],
) -> Result<LogicalOp, Box<(LogicalOp, Vec<ScalarExpr>)>> {
    let la = input.arity();
    let mut found: Option<AggJoin> = None;
    for c in conjuncts.iter_mut() {
        if replace_first_subquery(c, la, &mut found) {
            break;
        }
    }
    let Some(mut join) = found else {
        return Err(Box::new((input, conjuncts)));
    };
    reduce_groups(&mut join, &input, &conjuncts);
    let Some(predicate) = ScalarExpr::conjunction(conjuncts) else {
        return Err(Box::new((input, Vec::new())));
    };
    let joined = LogicalOp::Join {
        left: Box::new(input),
        right: Box::new(join.grouped),
        kind: JoinKind::LeftOuter,
        on: Some(join.on),
        hint: None,
    };
    Ok(LogicalOp::Project {
        input: Box::new(LogicalOp::Filter {
            input: Box::new(joined),
            predicate,
        }),
        exprs: columns
            .iter()
            .enumerate()
            .map(|(i, c)| ScalarExpr::column(i, c.data_type.clone()))
            .collect(),
        columns: columns.to_vec(),
    })
}

/// Finds (depth first, not inside subquery plans) the first scalar subquery of `e` that
/// [`decorrelate`] accepts and replaces it by its value; true when one was replaced.
fn replace_first_subquery(e: &mut ScalarExpr, la: usize, found: &mut Option<AggJoin>) -> bool {
    if let ScalarKind::ScalarSubquery(sq) = &e.kind {
        if let Some((join, value)) = decorrelate(sq, la) {
            *e = value;
            *found = Some(join);
            return true;
        }
        return false;
    }
    e.children_mut()
        .into_iter()
        .any(|c| replace_first_subquery(c, la, found))
}

/// Aggregates whose value over no rows is NULL (what an unmatched outer join row reads).
fn null_on_empty(f: AggFunc) -> bool {
    matches!(
        f,
        AggFunc::Sum
            | AggFunc::Avg
            | AggFunc::Min
            | AggFunc::Max
            | AggFunc::Stdev
            | AggFunc::StdevP
            | AggFunc::Var
            | AggFunc::VarP
    )
}

/// The grouped join for a correlated scalar subquery shaped
/// `[Project]* Aggregate(no GROUP BY) over [Filter]* over a parameter-free input`, whose
/// correlated conjuncts are all `inner_expr = outer_expr`; and the subquery's value over the
/// join's columns.
fn decorrelate(sq: &Subquery, la: usize) -> Option<(AggJoin, ScalarExpr)> {
    if sq.params.is_empty() {
        return None; // uncorrelated: evaluated once and cached
    }
    let SubqueryPlan::Logical(op) = &sq.plan else {
        return None;
    };
    // the value: the first output column, traced down through the projections
    let mut cur: &LogicalOp = op;
    let mut value: Option<ScalarExpr> = None;
    while let LogicalOp::Project { input, exprs, .. } = cur {
        let next = match value {
            None => exprs.first()?.clone(),
            Some(mut v) => {
                if !substitute_columns(&mut v, exprs) {
                    return None;
                }
                v
            }
        };
        if next.has_subquery() || !free_params(&next).is_empty() {
            return None;
        }
        value = Some(next);
        cur = input;
    }
    let LogicalOp::Aggregate {
        input,
        group_by,
        aggs,
        grouping_sets: None,
    } = cur
    else {
        return None;
    };
    if !group_by.is_empty() || aggs.is_empty() || !aggs.iter().all(|a| null_on_empty(a.func)) {
        return None;
    }
    let mut value = value.unwrap_or_else(|| ScalarExpr::column(0, aggs[0].data_type.clone()));
    // the aggregate's input: conjuncts of the filters over a parameter-free input
    let mut conjuncts = Vec::new();
    let mut inner: &LogicalOp = input;
    while let LogicalOp::Filter { input, predicate } = inner {
        conjuncts.extend(predicate.clone().into_conjuncts());
        inner = input;
    }
    if crate::decorrelate::op_uses_params(inner) {
        return None;
    }
    let slots: Vec<usize> = sq.params.iter().map(|(s, _)| *s).collect();
    let mut keys = Vec::new();
    let mut outer_keys = Vec::new();
    let mut rest = Vec::new();
    for c in conjuncts {
        let free = free_params(&c);
        if free.is_empty() {
            rest.push(c);
            continue;
        }
        if !free.iter().all(|s| slots.contains(s)) || c.has_subquery() {
            return None;
        }
        let ScalarKind::Compare(CmpOp::Eq, a, b) = &c.kind else {
            return None;
        };
        // one side reads only the outer row (parameters), the other only the inner row
        let reads_columns = |x: &ScalarExpr| x.any_column(&mut |_| true);
        let (inner_side, outer_side) = if free_params(a).is_empty() && !reads_columns(b) {
            (a, b)
        } else if free_params(b).is_empty() && !reads_columns(a) {
            (b, a)
        } else {
            return None;
        };
        let mut outer_expr = (**outer_side).clone();
        if !rewrite(&mut outer_expr, &sq.params, 0) {
            return None;
        }
        keys.push((**inner_side).clone());
        outer_keys.push(outer_expr);
    }
    let inner_keys = keys.clone();
    if keys.is_empty() {
        return None;
    }
    if aggs
        .iter()
        .any(|a| a.args.iter().any(|x| !free_params(x).is_empty()))
    {
        return None;
    }
    let nkeys = keys.len();
    let on_parts = outer_keys
        .iter()
        .cloned()
        .zip(&keys)
        .enumerate()
        .map(|(i, (o, k))| {
            ScalarExpr::new(
                ScalarKind::Compare(
                    CmpOp::Eq,
                    Box::new(o),
                    Box::new(ScalarExpr::column(la + i, k.data_type.clone())),
                ),
                DataType::Bit,
            )
        })
        .collect();
    let on = ScalarExpr::conjunction(on_parts)?;
    let filtered = match ScalarExpr::conjunction(rest) {
        Some(p) => LogicalOp::Filter {
            input: Box::new(inner.clone()),
            predicate: p,
        },
        None => inner.clone(),
    };
    let grouped = LogicalOp::Aggregate {
        input: Box::new(filtered),
        group_by: keys,
        aggs: aggs.clone(),
        grouping_sets: None,
    };
    // the value read aggregate j as column j; over the join it is column la + nkeys + j
    value.remap_columns(&|j| la + nkeys + j);
    Some((
        AggJoin {
            grouped,
            on,
            outer_keys,
            inner_keys,
        },
        value,
    ))
}

/// Groups only the keys some outer row can read (a semi join reduction, TPC-H Q17 and Q2):
/// when every outer key reads one relation `R` of the outer input's inner-join tree and the
/// WHERE conjuncts filter `R` alone, the aggregate's input is semi-joined with `R` under those
/// filters on the correlation keys,
///
/// ```text
/// (SELECT k, AGG(e) FROM inner WHERE p AND k IN (SELECT r.k FROM R r WHERE filters(r))
///  GROUP BY k)
/// ```
///
/// so Q17 averages the lineitem rows of its ~20 parts instead of grouping all 600k rows by
/// part. Sound because an outer row that passes the WHERE has an `R` row that passes `R`'s
/// own filters, whose key values are that outer row's keys: its group is kept; the groups
/// dropped are those no outer row joins (the left outer join above never reads them). Only
/// the filters are duplicated (deterministic, without subqueries: the same rows pass them
/// twice); nothing changes when `R` is the whole outer input or no conjunct filters it.
fn reduce_groups(join: &mut AggJoin, outer: &LogicalOp, conjuncts: &[ScalarExpr]) {
    let mut leaves = Vec::new();
    inner_join_leaves(outer, 0, &mut leaves);
    if leaves.len() < 2 {
        return;
    }
    let mut key_cols = Vec::new();
    for k in &join.outer_keys {
        k.columns_used(&mut key_cols);
    }
    if key_cols.is_empty() {
        return;
    }
    let within = |e: &ScalarExpr, off: usize, n: usize| {
        let mut cols = Vec::new();
        e.columns_used(&mut cols);
        !cols.is_empty() && cols.iter().all(|&c| c >= off && c < off + n)
    };
    let Some(&(off, leaf)) = leaves.iter().find(|(off, leaf)| {
        let n = leaf.arity();
        key_cols.iter().all(|&c| c >= *off && c < off + n)
    }) else {
        return;
    };
    if crate::decorrelate::op_uses_params(leaf) {
        return;
    }
    let n = leaf.arity();
    let filters: Vec<ScalarExpr> = conjuncts
        .iter()
        .filter(|c| {
            within(c, off, n)
                && !c.has_subquery()
                && !c.calls_volatile()
                && free_params(c).is_empty()
        })
        .map(|c| {
            let mut c = c.clone();
            c.remap_columns(&|j| j - off);
            c
        })
        .collect();
    let Some(filter) = ScalarExpr::conjunction(filters) else {
        return;
    };
    let LogicalOp::Aggregate { input, .. } = &mut join.grouped else {
        return;
    };
    let ia = input.arity();
    let parts: Vec<ScalarExpr> = join
        .inner_keys
        .iter()
        .zip(&join.outer_keys)
        .map(|(i, o)| {
            let mut o = o.clone();
            o.remap_columns(&|j| j - off + ia);
            ScalarExpr::new(
                ScalarKind::Compare(CmpOp::Eq, Box::new(i.clone()), Box::new(o)),
                DataType::Bit,
            )
        })
        .collect();
    let Some(on) = ScalarExpr::conjunction(parts) else {
        return;
    };
    let grouped_input = std::mem::replace(
        &mut **input,
        LogicalOp::Values {
            rows: Vec::new(),
            columns: Vec::new(),
        },
    );
    **input = LogicalOp::Join {
        left: Box::new(grouped_input),
        right: Box::new(LogicalOp::Filter {
            input: Box::new(leaf.clone()),
            predicate: filter,
        }),
        kind: JoinKind::LeftSemi,
        on: Some(on),
        hint: None,
    };
}

/// The relations of an inner / cross join tree with the offset of their first column in its
/// output (a relation: anything that is not such a join).
fn inner_join_leaves<'a>(op: &'a LogicalOp, off: usize, out: &mut Vec<(usize, &'a LogicalOp)>) {
    match op {
        LogicalOp::Join {
            left,
            right,
            kind: JoinKind::Inner | JoinKind::Cross,
            ..
        } => {
            let la = left.arity();
            inner_join_leaves(left, off, out);
            inner_join_leaves(right, off + la, out);
        }
        _ => out.push((off, op)),
    }
}

/// Replaces each `Column(j)` of `e` by `exprs[j]`; false when one is out of range.
fn substitute_columns(e: &mut ScalarExpr, exprs: &[ScalarExpr]) -> bool {
    if let ScalarKind::Column(j) = e.kind {
        return match exprs.get(j) {
            Some(x) => {
                *e = x.clone();
                true
            }
            None => false,
        };
    }
    if e.subquery_mut().is_some() {
        return false;
    }
    e.children_mut()
        .into_iter()
        .all(|c| substitute_columns(c, exprs))
}
