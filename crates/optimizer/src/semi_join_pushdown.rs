//! Rule `SemiJoinPushDown`: a left semi (or anti semi) join whose condition reads the outer
//! side only through the columns of one relation of an inner-join tree is moved onto that
//! relation, below the inner joins — before JoinOrder flattens the tree, so join ordering
//! sees the reduced relation as one of its relations (TPC-H Q18: `o_orderkey IN (SELECT
//! l_orderkey … HAVING SUM(l_quantity) > 300)` filters `orders` to the qualifying keys before
//! `customer` and `lineitem` are joined to it, instead of filtering the 600k-row join).
//!
//! Matches `Join(LeftSemi | LeftAntiSemi, outer, inner, on)` (no subquery in `on`, `on` reads
//! at least one outer column) and walks down `outer` while every outer column `on` reads lies
//! in one input of:
//! * an inner or cross join (either input);
//! * a left outer join's preserved (left) input;
//! * a filter (the semi join goes below it: both only remove rows of the same columns);
//! * another semi / anti semi join's outer input.
//!
//! Produces the same tree with the semi join over the deepest such input, its condition's
//! columns renumbered (the outer columns to that input's positions, the inner columns after
//! them). Nothing is produced when it would only move the semi join below a filter. The
//! planner costs the result against the written tree and keeps the cheaper (a semi join
//! that removes few rows is better applied after selective inner joins, as in TPC-H q21);
//! under a row goal the written tree is kept.
//!
//! Why it is sound: a semi (anti) join keeps a row iff some (no) inner row satisfies `on`,
//! and `on` depends on the row only through the columns of input A. An inner join's rows
//! that come from an A row `a` are therefore all kept or all dropped, exactly as `a` is when
//! the semi join filters A first; filters and semi joins are row filters that commute with
//! it. Not below the null-supplying side of an outer join: there a dropped row would be
//! replaced by a NULL-extended one (the outer join's row survives with NULLs where the semi
//! join above would have dropped it, or kept it) — so neither semi nor anti joins move into
//! the right input of a LEFT JOIN, nor into either input of a FULL JOIN.

use plan::*;

/// How deep the walk goes (each level is one join or filter of the outer tree).
const MAX_DEPTH: usize = 64;

/// `outer kind-JOIN inner ON on` with the semi join pushed as deep into `outer` as it is
/// sound to, or the join as written when it cannot move. `kind` must be a semi / anti semi
/// join.
pub(crate) fn push_down(
    outer: LogicalOp,
    inner: LogicalOp,
    kind: JoinKind,
    on: ScalarExpr,
    hint: Option<JoinHint>,
) -> LogicalOp {
    let la = outer.arity();
    let mut cols = Vec::new();
    on.columns_used(&mut cols);
    let outer_cols: Vec<usize> = cols.into_iter().filter(|&c| c < la).collect();
    if on.has_subquery() || outer_cols.is_empty() || target(&outer, &outer_cols, 0).is_none() {
        return written(outer, inner, kind, on, hint);
    }
    push(outer, inner, kind, on, hint, 0)
}

/// Whether [`push_down`] would move a semi join on `on` (outer columns first) into `outer`.
pub(crate) fn movable(outer: &LogicalOp, on: &ScalarExpr) -> bool {
    let la = outer.arity();
    let mut cols = Vec::new();
    on.columns_used(&mut cols);
    cols.retain(|&c| c < la);
    !on.has_subquery() && !cols.is_empty() && target(outer, &cols, 0).is_some()
}

fn written(
    outer: LogicalOp,
    inner: LogicalOp,
    kind: JoinKind,
    on: ScalarExpr,
    hint: Option<JoinHint>,
) -> LogicalOp {
    LogicalOp::Join {
        left: Box::new(outer),
        right: Box::new(inner),
        kind,
        on: Some(on),
        hint,
    }
}

/// Which input of `outer` (0 left, 1 right) holds every column of `cols` when the semi join
/// may move into it and a join lies below (a move only below a filter gains nothing).
fn target(outer: &LogicalOp, cols: &[usize], depth: usize) -> Option<usize> {
    if depth >= MAX_DEPTH {
        return None;
    }
    match outer {
        LogicalOp::Filter { input, .. } => {
            target(input, cols, depth + 1)?;
            Some(0)
        }
        LogicalOp::Join {
            left,
            kind: JoinKind::LeftSemi | JoinKind::LeftAntiSemi,
            ..
        } => {
            // moving below another semi join only pays when it can go further
            target(left, cols, depth + 1)?;
            Some(0)
        }
        LogicalOp::Join {
            left,
            kind: kind @ (JoinKind::Inner | JoinKind::Cross | JoinKind::LeftOuter),
            ..
        } => {
            let la = left.arity();
            if cols.iter().all(|&c| c < la) {
                Some(0)
            } else if *kind != JoinKind::LeftOuter && cols.iter().all(|&c| c >= la) {
                Some(1)
            } else {
                None
            }
        }
        _ => None,
    }
}

fn push(
    outer: LogicalOp,
    inner: LogicalOp,
    kind: JoinKind,
    on: ScalarExpr,
    hint: Option<JoinHint>,
    depth: usize,
) -> LogicalOp {
    let la = outer.arity();
    let mut cols = Vec::new();
    on.columns_used(&mut cols);
    cols.retain(|&c| c < la);
    let side = if cols.is_empty() {
        None
    } else {
        target(&outer, &cols, depth)
    };
    let Some(side) = side else {
        return written(outer, inner, kind, on, hint);
    };
    match outer {
        LogicalOp::Filter { input, predicate } => LogicalOp::Filter {
            input: Box::new(push(*input, inner, kind, on, hint, depth + 1)),
            predicate,
        },
        LogicalOp::Join {
            left,
            right,
            kind: outer_kind,
            on: outer_on,
            hint: outer_hint,
        } => {
            let ll = left.arity();
            let (left, right) = if side == 0 {
                // outer columns keep their positions; inner ones follow the left input's
                let mut on = on;
                on.remap_columns(&|c| if c < la { c } else { c - la + ll });
                (
                    Box::new(push(*left, inner, kind, on, hint, depth + 1)),
                    right,
                )
            } else {
                let rl = right.arity();
                let mut on = on;
                on.remap_columns(&|c| if c < la { c - ll } else { c - la + rl });
                (
                    left,
                    Box::new(push(*right, inner, kind, on, hint, depth + 1)),
                )
            };
            LogicalOp::Join {
                left,
                right,
                kind: outer_kind,
                on: outer_on,
                hint: outer_hint,
            }
        }
        other => written(other, inner, kind, on, hint),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use types::DataType;

    fn values(n: usize) -> LogicalOp {
        LogicalOp::Values {
            rows: vec![],
            columns: (0..n)
                .map(|i| ColumnMeta::new(format!("c{i}"), DataType::Int, true))
                .collect(),
        }
    }

    fn eq(a: usize, b: usize) -> ScalarExpr {
        ScalarExpr::new(
            ScalarKind::Compare(
                CmpOp::Eq,
                Box::new(ScalarExpr::column(a, DataType::Int)),
                Box::new(ScalarExpr::column(b, DataType::Int)),
            ),
            DataType::Bit,
        )
    }

    fn join(l: LogicalOp, r: LogicalOp, kind: JoinKind, on: Option<ScalarExpr>) -> LogicalOp {
        LogicalOp::Join {
            left: Box::new(l),
            right: Box::new(r),
            kind,
            on,
            hint: None,
        }
    }

    /// (a(2) ⋈ b(3)) ⋈ c(1), semi join on b's second column: lands on b.
    #[test]
    fn semi_join_moves_onto_the_relation_it_reads() {
        let tree = join(
            join(values(2), values(3), JoinKind::Inner, Some(eq(0, 2))),
            values(1),
            JoinKind::Cross,
            None,
        );
        // outer arity 6; b's second column is 3; the inner (1 column) is column 6
        let out = push_down(tree, values(1), JoinKind::LeftSemi, eq(3, 6), None);
        let LogicalOp::Join { left: ab, kind, .. } = &out else {
            panic!("{out:?}")
        };
        assert_eq!(*kind, JoinKind::Cross);
        let LogicalOp::Join { right: b, .. } = &**ab else {
            panic!("{ab:?}")
        };
        let LogicalOp::Join {
            kind: JoinKind::LeftSemi,
            on: Some(on),
            ..
        } = &**b
        else {
            panic!("{b:?}")
        };
        // b-local: its second column is 1, the inner column follows b's three
        let mut cols = Vec::new();
        on.columns_used(&mut cols);
        assert_eq!(cols, vec![1, 3]);
    }

    /// The right input of a LEFT JOIN is null-supplying: the semi join stays above.
    #[test]
    fn not_into_the_null_supplying_side() {
        let tree = join(
            join(values(2), values(3), JoinKind::LeftOuter, Some(eq(0, 2))),
            values(1),
            JoinKind::Cross,
            None,
        );
        let out = push_down(tree, values(1), JoinKind::LeftAntiSemi, eq(3, 6), None);
        let LogicalOp::Join {
            left: lj,
            kind: JoinKind::Cross,
            ..
        } = &out
        else {
            panic!("{out:?}")
        };
        // stopped at the LEFT JOIN: the anti join is over it
        assert!(matches!(
            &**lj,
            LogicalOp::Join {
                kind: JoinKind::LeftAntiSemi,
                ..
            }
        ));
    }

    /// Columns of two relations: it cannot move.
    #[test]
    fn stays_when_the_condition_reads_two_relations() {
        let tree = join(values(2), values(3), JoinKind::Inner, Some(eq(0, 2)));
        let on = ScalarExpr::conjunction(vec![eq(0, 5), eq(3, 5)]).unwrap();
        let out = push_down(tree, values(1), JoinKind::LeftSemi, on, None);
        assert!(matches!(
            out,
            LogicalOp::Join {
                kind: JoinKind::LeftSemi,
                ..
            }
        ));
    }
}
