//! Row goals: when only the first rows of a result are wanted (`TOP n`, `OFFSET o FETCH n`,
//! `OPTION (FAST n)`, `EXISTS` / `IN` / `ANY` subqueries, the inner side of a semi join), a
//! pipelined plan stops early, so its operators produce — and cost — only part of their full
//! estimate. SQL Server calls the wanted row count the row goal.
//!
//! How a goal is costed ([`apply`], run over a plan the cost model has annotated in full):
//!
//! * An operator whose full estimate is `E` under a goal `g < E` shows `g` as its estimated
//!   rows and keeps `E` in `OpCost::rows_without_row_goal` (showplan's
//!   `EstimateRowsWithoutRowGoal`). Its fraction is `f = g / E`.
//! * Its own cost is scaled by `f` when it streams (scans, seeks, filters, compute scalars,
//!   nested loops, merge joins, a grouped stream aggregate): it does `f` of its work before the
//!   goal is met. A hash join pays its startup and its whole build input up front and scales
//!   only its probe and output work. Blocking operators (sorts, hash aggregates, hash distinct,
//!   windows, set operations, exchanges) consume their whole input before their first row:
//!   their own cost stays full and no goal passes below them.
//! * A streaming child gets the goal `child rows × f` — the uniformity assumption: qualifying
//!   rows are spread evenly through the input, so reading `f` of it yields `f` of the output.
//!   Through a filter of selectivity `s` that is `g / s`. The outer (probe) input of a join gets
//!   the same; a nested loops inner side then runs once per goal-limited outer row (its
//!   executions follow the outer's discounted rows), and the inner side of a semi / anti semi
//!   nested loops join has a goal of 1 row per execution (the first match decides).
//! * A `TOP n` (plus its OFFSET) sets the goal `min(n, goal from above)` on its input; a TOP
//!   N Sort is blocking.
//! * The discount is applied once per operator, and costs stay additive: after the discount
//!   every `subtree` is recomputed as (own I/O + CPU) × executions + the children's subtrees,
//!   exactly the cost model's formula.
//!
//! The guard (seed 002, scenario S7): `SELECT TOP (1) … WHERE NOT EXISTS (…)` over tables where
//! every outer row has a match. The uniformity assumption says the first qualifying row comes
//! after `outer rows / qualifying rows` outer rows, so a nested loops anti join looks nearly
//! free; when nothing qualifies it reads — and seeks for — every outer row, and SQL Server's
//! row-goal plan ran 5× slower than the hash join it discarded. Two rules keep that from
//! happening here:
//!
//! 1. **No goal without evidence.** An anti semi join whose estimate is the estimator's floor
//!    ([`ANTI_SEMI_MIN_FRACTION`] of the outer rows: containment said every outer row matches,
//!    and the floor only keeps the estimate off zero) passes no goal to its inputs and keeps
//!    its own cost in full: nothing supports the assumption that a qualifying row comes early,
//!    and the expected work is the whole outer input.
//! 2. **Bounded regret for anti joins.** Where an anti semi join's estimate does come from
//!    evidence, it is still a difference of two large estimates (outer rows − matched rows)
//!    and its relative error is large exactly when few rows qualify — the case row goals
//!    discount most. So among an anti semi join's alternatives, the goal-discounted costs are
//!    compared only between plans whose full cost is within [`ANTI_JOIN_REGRET`] × the
//!    cheapest full cost ([`choose`]): if the goal's assumption fails and every row must be
//!    read, the chosen plan costs at most that factor more than the plan chosen without a goal.
//!
//! `USE HINT ('DISABLE_OPTIMIZER_ROWGOAL')` and `OPTION (QUERYTRACEON 4138)` switch all of this
//! off (`Options::disable_row_goal`): plans are chosen and shown by their full costs.

use plan::{JoinKind, PhysKind, PhysOp, ScalarKind, TopSpec};

/// The least fraction of its outer rows an anti semi join is estimated to return (the
/// cardinality floor; `costed::join_estimate`, `index_lookup`).
pub(crate) const ANTI_SEMI_MIN_FRACTION: f64 = 0.1;

/// Among an anti semi join's alternatives, how much more than the cheapest full-cost plan a
/// plan chosen for its row-goal cost may cost when the goal's assumption fails.
pub(crate) const ANTI_JOIN_REGRET: f64 = 2.0;

/// Applies the row goal `goal` (rows wanted from `op`; None = all) and every TOP's goal inside
/// `op` to a plan whose costs `cost::annotate` has filled, then recomputes the subtree costs.
pub fn apply(op: &mut PhysOp, goal: Option<f64>) {
    discount(op, goal);
    let executions = if op.cost.executions > 0.0 {
        op.cost.executions
    } else {
        1.0
    };
    resum(op, executions);
}

/// The subtree cost of `op` under the row goal `goal` (on a copy; `op` keeps its full costs).
pub(crate) fn goal_cost(op: &PhysOp, goal: f64) -> f64 {
    let mut c = op.clone();
    apply(&mut c, Some(goal));
    c.cost.subtree
}

/// The alternative to keep among `alternatives` (each annotated in full) for a join of kind
/// `kind` whose output has the row goal `goal`: without a goal the cheapest full cost; with
/// one the cheapest goal-discounted cost, among anti semi joins only between the plans whose
/// full cost is within [`ANTI_JOIN_REGRET`] of the cheapest (guard 2 in the module doc). The
/// earlier alternative wins ties.
pub(crate) fn choose_index(alternatives: &[PhysOp], goal: Option<f64>, kind: JoinKind) -> usize {
    let full_best = alternatives
        .iter()
        .map(|a| a.cost.subtree)
        .fold(f64::INFINITY, f64::min);
    let mut best: Option<(usize, f64)> = None;
    for (i, a) in alternatives.iter().enumerate() {
        let cost = match goal {
            None => a.cost.subtree,
            Some(_)
                if kind == JoinKind::LeftAntiSemi
                    && a.cost.subtree > ANTI_JOIN_REGRET * full_best =>
            {
                continue
            }
            Some(g) => goal_cost(a, g),
        };
        if best.is_none_or(|(_, c)| cost < c) {
            best = Some((i, cost));
        }
    }
    // the cheapest full-cost plan always passes the regret test, so `best` is set
    best.map_or(0, |(i, _)| i)
}

/// The goal a TOP sets on its input: its count plus its offset, when both are literals (no
/// PERCENT, no WITH TIES: those need rows beyond the count).
pub(crate) fn top_goal(spec: &TopSpec) -> Option<f64> {
    if spec.percent || !spec.with_ties.is_empty() {
        return None;
    }
    let literal = |e: &plan::ScalarExpr| match &e.kind {
        ScalarKind::Literal(v) => v.as_f64(),
        _ => None,
    };
    let count = literal(spec.count.as_ref()?)?;
    let offset = match &spec.offset {
        Some(o) => literal(o)?,
        None => 0.0,
    };
    Some((count + offset).max(0.0))
}

fn min_goal(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

/// Whether an anti semi join's estimate is the floor rather than evidence (guard 1).
fn anti_estimate_is_floor(join_rows: f64, outer_rows: f64) -> bool {
    join_rows <= (outer_rows * ANTI_SEMI_MIN_FRACTION).max(1.0) * (1.0 + 1e-9)
}

fn discount(op: &mut PhysOp, goal: Option<f64>) {
    common::stack::grow(|| discount_unguarded(op, goal))
}

fn discount_unguarded(op: &mut PhysOp, goal: Option<f64>) {
    let full = op.est_rows.max(0.0);
    let f = match goal {
        Some(g) if g < full && full > 0.0 => g / full,
        _ => 1.0,
    };
    if f < 1.0 {
        op.cost.rows_without_row_goal = Some(full);
        op.est_rows = full * f;
    }
    // the goal a streaming child gets: its rows × f
    let pass = |c: &PhysOp| (f < 1.0).then(|| c.est_rows.max(0.0) * f);
    let mut own_scale = f;
    match &mut op.kind {
        PhysKind::TableScan { .. }
        | PhysKind::ClusteredIndexScan { .. }
        | PhysKind::IndexSeek { .. }
        | PhysKind::ConstantScan { .. }
        | PhysKind::VirtualScan { .. }
        | PhysKind::WorkTableScan { .. }
        | PhysKind::TableFunction { .. } => {}
        PhysKind::Filter { input, .. } | PhysKind::ComputeScalar { input, .. } => {
            let g = pass(input);
            discount(input, g);
        }
        PhysKind::StreamAggregate {
            input, group_by, ..
        } if !group_by.is_empty() => {
            let g = pass(input);
            discount(input, g);
        }
        PhysKind::Top { input, spec } => {
            let g = min_goal(pass(input), top_goal(spec));
            discount(input, g);
        }
        PhysKind::Concatenation { inputs } => {
            for i in inputs {
                let g = pass(i);
                discount(i, g);
            }
        }
        PhysKind::NestedLoops {
            outer, inner, kind, ..
        } => {
            let semi = matches!(kind, JoinKind::LeftSemi | JoinKind::LeftAntiSemi);
            let guarded =
                *kind == JoinKind::LeftAntiSemi && anti_estimate_is_floor(full, outer.est_rows);
            if guarded {
                own_scale = 1.0;
                discount(outer, None);
            } else {
                let g = pass(outer);
                discount(outer, g);
            }
            // a semi join's inner side stops at its first match
            discount(inner, semi.then_some(1.0));
        }
        PhysKind::HashJoin {
            left, right, kind, ..
        } => {
            let probe_goal = matches!(
                kind,
                JoinKind::Inner
                    | JoinKind::LeftOuter
                    | JoinKind::LeftSemi
                    | JoinKind::LeftAntiSemi
                    | JoinKind::RightSemi
            );
            let guarded =
                *kind == JoinKind::LeftAntiSemi && anti_estimate_is_floor(full, left.est_rows);
            let build_rows = right.est_rows.max(0.0);
            if probe_goal && !guarded && f < 1.0 {
                // startup and the whole build are paid before the first row
                let fixed = crate::cost::hash_join_fixed_cpu(build_rows).min(op.cost.cpu);
                op.cost.cpu = fixed + (op.cost.cpu - fixed) * f;
                op.cost.io *= f;
                let g = pass(left);
                discount(left, g);
            } else {
                discount(left, None);
            }
            own_scale = 1.0;
            discount(right, None);
        }
        PhysKind::MergeJoin {
            left, right, kind, ..
        } => {
            let streamed = matches!(
                kind,
                JoinKind::Inner | JoinKind::LeftOuter | JoinKind::LeftSemi | JoinKind::LeftAntiSemi
            );
            let guarded =
                *kind == JoinKind::LeftAntiSemi && anti_estimate_is_floor(full, left.est_rows);
            if streamed && !guarded {
                let (gl, gr) = (pass(left), pass(right));
                discount(left, gl);
                discount(right, gr);
            } else {
                own_scale = 1.0;
                discount(left, None);
                discount(right, None);
            }
        }
        // blocking: the whole input is consumed before the first row comes out
        kind => {
            own_scale = 1.0;
            for c in kind.children_mut() {
                discount(c, None);
            }
        }
    }
    if own_scale < 1.0 {
        op.cost.io *= own_scale;
        op.cost.cpu *= own_scale;
    }
}

/// Recomputes executions and subtree costs after a discount: the cost model's formula, with a
/// nested loops inner side run once per (discounted) outer row.
fn resum(op: &mut PhysOp, executions: f64) {
    common::stack::grow(|| resum_unguarded(op, executions))
}

fn resum_unguarded(op: &mut PhysOp, executions: f64) {
    let mut children = 0.0;
    match &mut op.kind {
        PhysKind::NestedLoops { outer, inner, .. } => {
            resum(outer, executions);
            let outer_rows = outer.est_rows.max(1.0);
            resum(inner, executions * outer_rows);
            children += outer.cost.subtree + inner.cost.subtree;
        }
        // a performance spool reads its input once (cost::annotate)
        PhysKind::TableSpool { input } => {
            resum(input, 1.0);
            children += input.cost.subtree;
        }
        kind => {
            for c in kind.children_mut() {
                resum(c, executions);
                children += c.cost.subtree;
            }
        }
    }
    op.cost.executions = executions;
    op.cost.subtree = (op.cost.io + op.cost.cpu) * executions + children;
}
