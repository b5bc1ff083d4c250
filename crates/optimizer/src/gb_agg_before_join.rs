//! Rule `GbAggBeforeJoin` (SQL Server's name): a GROUP BY over an inner join whose aggregates
//! read only one input (the "many" side, A) is also planned as a partial aggregate of A below
//! the join — grouped by every A column the join condition or the GROUP BY reads — and a final
//! aggregate above it; the planner costs both and keeps the cheaper (the pre-aggregate wins
//! when A's groups are few against its rows, from `cardinality.rs`'s group estimate).
//!
//! Matches: `Aggregate(GROUP BY g…, aggs)` (a non-empty GROUP BY, no grouping sets) over
//! `Join(Inner | Cross)` without subqueries in ON, where every aggregate is COUNT(*),
//! COUNT_BIG(*), COUNT, COUNT_BIG, SUM, MIN or MAX without DISTINCT and its arguments read
//! only A's columns (COUNT(*) reads none: either side may be A).
//!
//! Produces `Aggregate(g…; final aggs)` over `Join(Aggregate(A; keys K; partial aggs), B)`
//! with the same ON and the same join hint. The count-multiplication rules: every A row of a
//! partial group joins the same B rows (the ON reads A only through K), so a joined row of the
//! original contributes to a final group exactly as its partial group's joined row does:
//! * SUM(x) = SUM(partial SUM(x)); MIN / MAX = MIN / MAX of the partial MIN / MAX;
//! * COUNT(*), COUNT(x) (and the _BIG forms) = SUM(partial count), typed as the original
//!   (SUM keeps int / bigint).
//!
//! A GROUP BY is required: a scalar aggregate over no joined rows returns one row (COUNT 0),
//! where SUM of partial counts would be NULL.

use plan::*;

/// The alternatives for `Aggregate(group_by, aggs)` over `input` (one per side that can be
/// pre-aggregated), or none when the rule does not match.
pub(crate) fn alternatives(
    input: &LogicalOp,
    group_by: &[ScalarExpr],
    aggs: &[AggCall],
) -> Vec<LogicalOp> {
    let LogicalOp::Join {
        left,
        right,
        kind: kind @ (JoinKind::Inner | JoinKind::Cross),
        on,
        hint,
    } = input
    else {
        return vec![];
    };
    if group_by.is_empty() || on.as_ref().is_some_and(|o| o.has_subquery()) {
        return vec![];
    }
    let partial_ok = |a: &AggCall| {
        matches!(
            a.func,
            AggFunc::CountStar
                | AggFunc::CountBigStar
                | AggFunc::Count
                | AggFunc::CountBig
                | AggFunc::Sum
                | AggFunc::Min
                | AggFunc::Max
        ) && !a.distinct
            && a.order_by.is_empty()
            && a.serialize.is_none()
            && a.args.iter().all(|e| !e.has_subquery())
    };
    if !aggs.iter().all(partial_ok) || group_by.iter().any(|g| g.has_subquery()) {
        return vec![];
    }
    let la = left.arity();
    let n = la + right.arity();
    let mut out = Vec::new();
    for a_is_left in [true, false] {
        let (lo, hi) = if a_is_left { (0, la) } else { (la, n) };
        let reads_only_a = aggs.iter().all(|a| {
            let mut cols = Vec::new();
            a.args.iter().for_each(|e| e.columns_used(&mut cols));
            cols.iter().all(|c| (lo..hi).contains(c))
        });
        let a_side: &LogicalOp = if a_is_left { left } else { right };
        // the side is already an aggregate (e.g. this rule's own output): nothing to gain
        if !reads_only_a || matches!(a_side, LogicalOp::Aggregate { .. }) {
            continue;
        }
        // K: the A columns the ON and the GROUP BY read (A-local positions)
        let mut read = Vec::new();
        if let Some(o) = on {
            o.columns_used(&mut read);
        }
        group_by.iter().for_each(|g| g.columns_used(&mut read));
        let mut keys: Vec<usize> = read
            .into_iter()
            .filter(|c| (lo..hi).contains(c))
            .map(|c| c - lo)
            .collect();
        keys.sort_unstable();
        keys.dedup();
        let a_cols = a_side.columns();
        let partial_aggs: Vec<AggCall> = aggs
            .iter()
            .map(|a| {
                let mut p = a.clone();
                for e in &mut p.args {
                    e.remap_columns(&|c| c - lo);
                }
                p
            })
            .collect();
        let pre = LogicalOp::Aggregate {
            input: Box::new(a_side.clone()),
            group_by: keys
                .iter()
                .map(|&k| ScalarExpr::column(k, a_cols[k].data_type.clone()))
                .collect(),
            aggs: partial_aggs,
            grouping_sets: None,
        };
        let pre_arity = keys.len() + aggs.len();
        let b_arity = if a_is_left { n - la } else { la };
        // original join column → new join column
        let pos = |k: usize| keys.iter().position(|&x| x == k).unwrap_or(0);
        let map = |c: usize| -> usize {
            if a_is_left {
                if c < la {
                    pos(c)
                } else {
                    c - la + pre_arity
                }
            } else if c < la {
                c
            } else {
                b_arity + pos(c - la)
            }
        };
        let on = on.clone().map(|mut o| {
            o.remap_columns(&map);
            o
        });
        let b_side: &LogicalOp = if a_is_left { right } else { left };
        let join = if a_is_left {
            LogicalOp::Join {
                left: Box::new(pre),
                right: Box::new(b_side.clone()),
                kind: *kind,
                on,
                hint: *hint,
            }
        } else {
            LogicalOp::Join {
                left: Box::new(b_side.clone()),
                right: Box::new(pre),
                kind: *kind,
                on,
                hint: *hint,
            }
        };
        let partial_base = if a_is_left {
            keys.len()
        } else {
            b_arity + keys.len()
        };
        let final_aggs: Vec<AggCall> = aggs
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let func = match a.func {
                    AggFunc::Min => AggFunc::Min,
                    AggFunc::Max => AggFunc::Max,
                    _ => AggFunc::Sum,
                };
                AggCall {
                    func,
                    args: vec![ScalarExpr::column(partial_base + i, a.data_type.clone())],
                    distinct: false,
                    order_by: vec![],
                    data_type: a.data_type.clone(),
                    serialize: None,
                }
            })
            .collect();
        let group_by = group_by
            .iter()
            .map(|g| {
                let mut g = g.clone();
                g.remap_columns(&map);
                g
            })
            .collect();
        out.push(LogicalOp::Aggregate {
            input: Box::new(join),
            group_by,
            aggs: final_aggs,
            grouping_sets: None,
        });
    }
    out
}
