//! Rule `SimplifyOuterJoin` (SQL Server simplifies the same way, as LOJ → JN during
//! simplification; it has no rule name there): an outer join under a predicate that rejects
//! NULLs of a null-extended side loses that side's NULL extension.
//!
//! * `a LEFT JOIN b` under a predicate null-rejecting on b → `a JOIN b`;
//! * `a RIGHT JOIN b` under a predicate null-rejecting on a → `a JOIN b`;
//! * `a FULL JOIN b` → LEFT (rejecting on a), RIGHT (on b) or inner (both).
//!
//! The predicates come from a WHERE above the join (through filters and other joins that do not
//! null-extend the side in between) and from the ON of an inner join above it. Once a join is
//! inner, its own ON conjuncts simplify the joins below it in turn (`a LEFT JOIN b ... LEFT JOIN
//! c ON b.k = c.k WHERE c.v = 1`: both become inner). Inner joins can then be reordered
//! (JoinOrder) and have predicates pushed into them (PushSelectIntoJoin).
//!
//! Sound: the rows an outer join adds over the inner join are exactly those whose other side
//! is all NULL; a predicate that is never TRUE when every column of that side is NULL removes
//! all of them, so the filtered results are equal.
//!
//! Null rejection is decided conservatively ([`rejects_nulls`]): a comparison, LIKE or IN list
//! over an operand that is NULL whenever the side's columns are (the column itself, arithmetic,
//! string concatenation, negation, a non-TRY cast of one), `NOT` of such a comparison, `IS NOT
//! NULL` of such an operand, an AND with one rejecting conjunct, an OR whose every arm rejects.
//! Functions (ISNULL, COALESCE, CONCAT …), CASE, IS NULL and subqueries never count.

use plan::*;

/// True if `e` is NULL whenever every column in `lo..hi` is NULL.
fn null_if(e: &ScalarExpr, lo: usize, hi: usize) -> bool {
    match &e.kind {
        ScalarKind::Column(i) => (lo..hi).contains(i),
        ScalarKind::Unary(_, a) | ScalarKind::Not(a) => null_if(a, lo, hi),
        ScalarKind::Binary(_, a, b) | ScalarKind::Compare(_, a, b) => {
            null_if(a, lo, hi) || null_if(b, lo, hi)
        }
        ScalarKind::Cast {
            expr, try_: false, ..
        } => null_if(expr, lo, hi),
        ScalarKind::Like { expr, pattern, .. } => null_if(expr, lo, hi) || null_if(pattern, lo, hi),
        ScalarKind::InList { expr, .. } => null_if(expr, lo, hi),
        _ => false,
    }
}

/// True if predicate `e` is never TRUE when every column in `lo..hi` is NULL.
pub(crate) fn rejects_nulls(e: &ScalarExpr, lo: usize, hi: usize) -> bool {
    match &e.kind {
        ScalarKind::And(v) => v.iter().any(|p| rejects_nulls(p, lo, hi)),
        ScalarKind::Or(v) => !v.is_empty() && v.iter().all(|p| rejects_nulls(p, lo, hi)),
        ScalarKind::Not(a) => match &a.kind {
            ScalarKind::IsNull(x) => null_if(x, lo, hi),
            _ => null_if(a, lo, hi),
        },
        ScalarKind::Compare(..) | ScalarKind::Like { .. } | ScalarKind::InList { .. } => {
            null_if(e, lo, hi)
        }
        _ => false,
    }
}

/// A predicate over some row in which the simplified operator's columns start at `offset`.
#[derive(Clone)]
struct Pred<'a> {
    expr: &'a ScalarExpr,
    offset: usize,
}

/// Simplifies the outer joins of `op` under the conjuncts `preds` (over `op`'s own columns).
/// Returns whether some join changed.
pub(crate) fn simplify(op: &mut LogicalOp, preds: &[ScalarExpr]) -> bool {
    let preds: Vec<Pred> = preds
        .iter()
        .filter(|p| !p.has_subquery())
        .map(|expr| Pred { expr, offset: 0 })
        .collect();
    walk(op, &preds)
}

/// Simplifies the joins below an inner join with `on`: its inputs are `left` (columns first)
/// and `right`.
pub(crate) fn simplify_inputs(
    left: &mut LogicalOp,
    right: &mut LogicalOp,
    on: Option<&ScalarExpr>,
) -> bool {
    let Some(on) = on else {
        return false;
    };
    let conj: Vec<ScalarExpr> = on.clone().into_conjuncts();
    let preds: Vec<Pred> = conj
        .iter()
        .filter(|p| !p.has_subquery())
        .map(|expr| Pred { expr, offset: 0 })
        .collect();
    let la = left.arity();
    let l = walk(left, &preds);
    let shifted: Vec<Pred> = preds
        .iter()
        .map(|p| Pred {
            expr: p.expr,
            offset: p.offset + la,
        })
        .collect();
    walk(right, &shifted) || l
}

fn walk(op: &mut LogicalOp, preds: &[Pred]) -> bool {
    if preds.is_empty() {
        return false;
    }
    common::stack::grow(|| walk_unguarded(op, preds))
}

fn walk_unguarded(op: &mut LogicalOp, preds: &[Pred]) -> bool {
    match op {
        LogicalOp::Filter { input, predicate } => {
            let own = predicate.clone().into_conjuncts();
            let mut all = preds.to_vec();
            all.extend(
                own.iter()
                    .filter(|p| !p.has_subquery())
                    .map(|expr| Pred { expr, offset: 0 }),
            );
            walk(input, &all)
        }
        LogicalOp::Join {
            left,
            right,
            kind,
            on,
            ..
        } => {
            let la = left.arity();
            let n = la + right.arity();
            let rejects = |lo: usize, hi: usize| {
                preds
                    .iter()
                    .any(|p| rejects_nulls(p.expr, p.offset + lo, p.offset + hi))
            };
            let (left_rej, right_rej) = (rejects(0, la), rejects(la, n));
            let before = *kind;
            *kind = match (*kind, left_rej, right_rej) {
                (JoinKind::LeftOuter, _, true) | (JoinKind::RightOuter, true, _) => JoinKind::Inner,
                (JoinKind::FullOuter, true, true) => JoinKind::Inner,
                (JoinKind::FullOuter, true, false) => JoinKind::LeftOuter,
                (JoinKind::FullOuter, false, true) => JoinKind::RightOuter,
                (k, _, _) => k,
            };
            let mut changed = *kind != before;
            // predicates reach an input only where the join does not null-extend it
            let to_left = matches!(
                *kind,
                JoinKind::Inner | JoinKind::Cross | JoinKind::LeftOuter
            ) || matches!(*kind, JoinKind::LeftSemi | JoinKind::LeftAntiSemi);
            let to_right = matches!(
                *kind,
                JoinKind::Inner | JoinKind::Cross | JoinKind::RightOuter
            );
            let own: Vec<ScalarExpr> = match (&*kind, on.as_ref()) {
                (JoinKind::Inner, Some(o)) => o.clone().into_conjuncts(),
                _ => vec![],
            };
            let mut down: Vec<Pred> = preds.to_vec();
            down.extend(
                own.iter()
                    .filter(|p| !p.has_subquery())
                    .map(|expr| Pred { expr, offset: 0 }),
            );
            // (a semi / anti join outputs only its left columns: the predicates read those)
            if to_left {
                changed |= walk(left, &down);
            }
            if to_right {
                let shifted: Vec<Pred> = down
                    .iter()
                    .map(|p| Pred {
                        expr: p.expr,
                        offset: p.offset + la,
                    })
                    .collect();
                changed |= walk(right, &shifted);
            }
            changed
        }
        _ => false,
    }
}

/// Rule `EliminateOuterJoin`: `a LEFT JOIN b ON …` under a projection that reads none of b's
/// columns, where b is a table read and the ON binds every key column of a unique index of b
/// (no filter) with equalities to expressions that read nothing of b, is `a` itself: each
/// row of `a` matches at most one row of `b` and is kept (NULL-extended) when it matches none,
/// so the join returns exactly the rows of `a`. Between the projection and the join a filter
/// reading only `a`'s columns may stand. Returns the input unchanged when the rule does not apply.
pub(crate) fn eliminate_unused_join(op: LogicalOp, read: &[usize]) -> LogicalOp {
    match op {
        LogicalOp::Filter { input, predicate } => {
            let mut cols = read.to_vec();
            predicate.columns_used(&mut cols);
            let input = eliminate_unused_join(*input, &cols);
            LogicalOp::Filter {
                input: Box::new(input),
                predicate,
            }
        }
        LogicalOp::Join {
            left,
            right,
            kind: JoinKind::LeftOuter,
            on: Some(on),
            hint,
        } => {
            let la = left.arity();
            let unused = read.iter().all(|&c| c < la);
            if unused && !on.has_subquery() && unique_match(&right, &on, la) {
                return *left;
            }
            LogicalOp::Join {
                left,
                right,
                kind: JoinKind::LeftOuter,
                on: Some(on),
                hint,
            }
        }
        other => other,
    }
}

/// Whether `on` (over left ++ right, left has `la` columns) binds all key columns of a
/// unique, unfiltered index of the table `right` reads to values that do not read `right`.
fn unique_match(right: &LogicalOp, on: &ScalarExpr, la: usize) -> bool {
    let LogicalOp::Get(src) = right else {
        return false;
    };
    let mut bound = Vec::new();
    for c in on.clone().into_conjuncts() {
        if let ScalarKind::Compare(CmpOp::Eq, a, b) = &c.kind {
            for (col, other) in [(a, b), (b, a)] {
                let Some(i) = col.as_column() else {
                    continue;
                };
                let mut oc = Vec::new();
                other.columns_used(&mut oc);
                if i >= la && oc.iter().all(|&x| x < la) {
                    bound.push(i - la);
                }
            }
        }
    }
    src.table.indexes.iter().any(|ix| {
        ix.unique
            && ix.filter.is_none()
            && !ix.key_columns.is_empty()
            && ix.key_columns.iter().all(|(k, _)| bound.contains(k))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use types::DataType;

    fn col(i: usize) -> ScalarExpr {
        ScalarExpr::column(i, DataType::Int)
    }
    fn lit(v: i32) -> ScalarExpr {
        ScalarExpr::literal(types::Value::Int(v), DataType::Int)
    }
    fn bit(k: ScalarKind) -> ScalarExpr {
        ScalarExpr::new(k, DataType::Bit)
    }

    #[test]
    fn comparisons_reject_nulls_of_their_columns_only() {
        let eq = bit(ScalarKind::Compare(
            CmpOp::Eq,
            Box::new(col(2)),
            Box::new(lit(1)),
        ));
        assert!(rejects_nulls(&eq, 2, 4));
        assert!(!rejects_nulls(&eq, 0, 2));
        let is_null = bit(ScalarKind::IsNull(Box::new(col(2))));
        assert!(!rejects_nulls(&is_null, 2, 4));
        let not_null = bit(ScalarKind::Not(Box::new(is_null.clone())));
        assert!(rejects_nulls(&not_null, 2, 4));
        // OR: every arm must reject
        let or = bit(ScalarKind::Or(vec![eq.clone(), is_null]));
        assert!(!rejects_nulls(&or, 2, 4));
        let or2 = bit(ScalarKind::Or(vec![eq.clone(), not_null]));
        assert!(rejects_nulls(&or2, 2, 4));
        // a function (ISNULL) hides the NULL
        let isnull_fn = bit(ScalarKind::Compare(
            CmpOp::Eq,
            Box::new(ScalarExpr::new(
                ScalarKind::Function {
                    func: ScalarFunc::Named,
                    name: "ISNULL".into(),
                    args: vec![col(2), lit(0)],
                },
                DataType::Int,
            )),
            Box::new(lit(0)),
        ));
        assert!(!rejects_nulls(&isnull_fn, 2, 4));
        // arithmetic propagates NULL
        let arith = bit(ScalarKind::Compare(
            CmpOp::Gt,
            Box::new(ScalarExpr::new(
                ScalarKind::Binary(BinaryOp::Add, Box::new(col(3)), Box::new(lit(1))),
                DataType::Int,
            )),
            Box::new(col(0)),
        ));
        assert!(rejects_nulls(&arith, 2, 4));
        assert!(rejects_nulls(&arith, 0, 1));
    }
}
