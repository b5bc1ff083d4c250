//! JoinOrder: the order of a tree of inner joins, chosen from the estimated sizes of the
//! intermediate results.
//!
//! The tree (inner and cross joins without hints or subqueries in their conditions, and
//! filters between them) is flattened into relations and predicates over the columns of the
//! written join's output. The order and each join's implementation are chosen by the costed
//! search in join_search.rs (dynamic programming over the connected subsets up to
//! [`DP_RELATIONS`] relations, each subset a memo group whose winner is its cheapest plan by the
//! cost model; beyond, the greedy pass here joins the pair of partial results with the smallest
//! result until one is left, so a 30-table join plans in milliseconds, and each of its joins is
//! costed). [`build`] turns the chosen tree (left input = outer / probe side) into logical
//! joins; a projection restores the written column order. Sound: inner joins are associative
//! and commutative, and every predicate is applied at the lowest join whose inputs hold all its
//! columns.

use plan::{CmpOp, JoinKind, LogicalOp, ScalarExpr, ScalarKind};

#[cfg(test)]
use crate::search_stages::SearchState;

/// Relations up to which the order is exhaustive (3^12 subset splits at most).
pub const DP_RELATIONS: usize = 12;
/// Relations beyond which the written order is kept (one bit per relation in a u64).
const MAX_RELATIONS: usize = 64;

/// An inner-join tree flattened: relations (each with its own single-relation predicates
/// applied) and their column offsets in the written join's output, and the join predicates.
pub struct Flat {
    pub rels: Vec<Relation>,
    /// Predicates over the written output's columns that read two or more relations (or none).
    pub preds: Vec<ScalarExpr>,
}

pub struct Relation {
    pub op: LogicalOp,
    pub offset: usize,
    pub arity: usize,
}

/// A join tree over relation numbers.
#[derive(Clone, Debug)]
pub enum JoinTree {
    Leaf(usize),
    Join(Box<JoinTree>, Box<JoinTree>),
}

/// Flattens `left JOIN right ON on` (an inner or cross join); None when it holds fewer than
/// three relations or more than [`MAX_RELATIONS`].
pub fn flatten(left: &LogicalOp, right: &LogicalOp, on: Option<&ScalarExpr>) -> Option<Flat> {
    if on.is_some_and(|o| o.has_subquery()) {
        return None;
    }
    if !within_limit(left, right) {
        return None;
    }
    let mut rels = Vec::new();
    let mut preds = Vec::new();
    let la = left.arity();
    collect(left, 0, &mut rels, &mut preds);
    collect(right, la, &mut rels, &mut preds);
    if let Some(o) = on {
        preds.extend(o.clone().into_conjuncts());
    }
    if rels.len() < 3 || rels.len() > MAX_RELATIONS {
        return None;
    }
    // single-relation predicates filter their relation
    let mut joins = Vec::new();
    for p in preds {
        let mask = rel_mask(&p, &rels);
        if mask.count_ones() == 1 {
            let i = mask.trailing_zeros() as usize;
            let r = &mut rels[i];
            let mut p = p;
            let off = r.offset;
            p.remap_columns(&|c| c - off);
            let op = std::mem::replace(
                &mut r.op,
                LogicalOp::Values {
                    rows: vec![],
                    columns: vec![],
                },
            );
            r.op = LogicalOp::Filter {
                input: Box::new(op),
                predicate: p,
            };
        } else {
            joins.push(p);
        }
    }
    Some(Flat { rels, preds: joins })
}

/// Whether the join tree under `left JOIN right` holds at most [`MAX_RELATIONS`] relations,
/// counted without recursion or copies (the planner asks at every join of a 1,000-table
/// chain, whose depth would overflow the stack of a recursive walk).
fn within_limit(left: &LogicalOp, right: &LogicalOp) -> bool {
    let mut pending = vec![left, right];
    let mut relations = 0;
    while let Some(op) = pending.pop() {
        match op {
            LogicalOp::Join {
                left,
                right,
                kind: JoinKind::Inner | JoinKind::Cross,
                hint: None,
                ..
            } => {
                pending.push(left);
                pending.push(right);
            }
            LogicalOp::Filter { input, .. }
                if matches!(
                    &**input,
                    LogicalOp::Join {
                        kind: JoinKind::Inner | JoinKind::Cross,
                        hint: None,
                        ..
                    }
                ) =>
            {
                pending.push(input)
            }
            _ => {
                relations += 1;
                if relations > MAX_RELATIONS {
                    return false;
                }
            }
        }
    }
    true
}

fn collect(op: &LogicalOp, offset: usize, rels: &mut Vec<Relation>, preds: &mut Vec<ScalarExpr>) {
    common::stack::grow(|| collect_unguarded(op, offset, rels, preds))
}

fn collect_unguarded(
    op: &LogicalOp,
    offset: usize,
    rels: &mut Vec<Relation>,
    preds: &mut Vec<ScalarExpr>,
) {
    match op {
        LogicalOp::Join {
            left,
            right,
            kind: JoinKind::Inner | JoinKind::Cross,
            on,
            hint: None,
        } if !on.as_ref().is_some_and(|o| o.has_subquery()) && rels.len() < MAX_RELATIONS => {
            let la = left.arity();
            collect(left, offset, rels, preds);
            collect(right, offset + la, rels, preds);
            if let Some(o) = on {
                for mut c in o.clone().into_conjuncts() {
                    c.remap_columns(&|i| i + offset);
                    preds.push(c);
                }
            }
        }
        LogicalOp::Filter { input, predicate }
            if !predicate.has_subquery()
                && matches!(
                    &**input,
                    LogicalOp::Join {
                        kind: JoinKind::Inner | JoinKind::Cross,
                        hint: None,
                        ..
                    }
                ) =>
        {
            collect(input, offset, rels, preds);
            for mut c in predicate.clone().into_conjuncts() {
                c.remap_columns(&|i| i + offset);
                preds.push(c);
            }
        }
        other => rels.push(Relation {
            op: other.clone(),
            offset,
            arity: other.arity(),
        }),
    }
}

/// The relations a predicate reads, as a bit mask.
pub fn rel_mask(p: &ScalarExpr, rels: &[Relation]) -> u64 {
    let mut cols = Vec::new();
    p.columns_used(&mut cols);
    let mut m = 0u64;
    for c in cols {
        if let Some(i) = rels
            .iter()
            .position(|r| c >= r.offset && c < r.offset + r.arity)
        {
            m |= 1 << i;
        }
    }
    m
}

/// `a.x = b.y` between two relations: the two (relation, local column) pairs.
pub fn equi_columns(p: &ScalarExpr, rels: &[Relation]) -> Option<((usize, usize), (usize, usize))> {
    let ScalarKind::Compare(CmpOp::Eq, a, b) = &p.kind else {
        return None;
    };
    let side = |e: &ScalarExpr| {
        let c = e.as_column()?;
        let i = rels
            .iter()
            .position(|r| c >= r.offset && c < r.offset + r.arity)?;
        Some((i, c - rels[i].offset))
    };
    let (x, y) = (side(a)?, side(b)?);
    (x.0 != y.0).then_some((x, y))
}

/// Estimated rows of the join of the relations in `set` (for the memo).
pub fn card_of(set: u64, rows: &[f64], edges: &[(u64, f64)]) -> f64 {
    card(set, rows, edges)
}

/// Estimated rows of the join of the relations in `set`.
fn card(set: u64, rows: &[f64], edges: &[(u64, f64)]) -> f64 {
    let mut c = 1.0;
    for (i, r) in rows.iter().enumerate() {
        if set & (1 << i) != 0 {
            c *= r.max(1.0);
        }
    }
    for &(m, s) in edges {
        if m != 0 && m & set == m {
            c *= s;
        }
    }
    c.max(1.0)
}

pub(crate) fn connected(a: u64, b: u64, edges: &[(u64, f64)]) -> bool {
    edges
        .iter()
        .any(|&(m, _)| m & a != 0 && m & b != 0 && m & !(a | b) == 0)
}

/// One alternative JoinOrder considered for a subset (`set` = `left` | `right`): its C_out, or
/// why it was not costed.
#[derive(Clone, Debug)]
pub struct DpAlternative {
    pub set: u64,
    pub left: u64,
    pub right: u64,
    /// C_out of the subtree (None: not costed).
    pub cost: Option<f64>,
    pub pruned: Option<String>,
}

/// What JoinOrder's search considered, for the memo (kept only when recording).
#[derive(Clone, Debug, Default)]
pub struct DpTrace {
    pub alternatives: Vec<DpAlternative>,
    /// The physical alternatives costed for each split (join_search.rs).
    pub physical: Vec<crate::join_search::PhysAlternative>,
    /// Best C_out per subset that got a plan.
    pub best: Vec<(u64, f64, u64)>,
    /// Estimated rows per subset seen.
    pub cards: Vec<(u64, f64)>,
    /// Alternatives not kept past [`crate::memo::MEMO_ALTERNATIVES_CAP`].
    pub dropped: u64,
    /// How the search ended (exhaustive, greedy after an early stop, greedy beyond the DP).
    pub greedy: bool,
}

/// The join order for relations known only by their estimated rows, joined by predicates
/// `edges` (relation mask, selectivity), each two-relation predicate an equality: the costed
/// search (join_search.rs) with every relation's cost its rows read, no index and no order.
#[cfg(test)]
pub fn choose(rows: &[f64], edges: &[(u64, f64)]) -> JoinTree {
    choose_searched(rows, edges, &mut SearchState::default(), None)
}

#[cfg(test)]
pub fn choose_searched(
    rows: &[f64],
    edges: &[(u64, f64)],
    state: &mut SearchState,
    trace: Option<&mut DpTrace>,
) -> JoinTree {
    use crate::join_search::{search, Equi, RelInput, SearchInput, SearchRules};
    let rels: Vec<RelInput> = rows
        .iter()
        .map(|&r| RelInput {
            rows: r,
            cost: crate::cost::CPU_ROW * r,
            order: None,
            width: 0.0,
        })
        .collect();
    let equis: Vec<Equi> = edges
        .iter()
        .filter(|(m, _)| m.count_ones() == 2)
        .map(|(m, _)| Equi {
            a: (m.trailing_zeros() as usize, 0),
            b: (63 - m.leading_zeros() as usize, 0),
            seek_into_a: None,
            seek_into_b: None,
            mergeable: false,
        })
        .collect();
    let input = SearchInput {
        rels: &rels,
        edges,
        equis: &equis,
        rules: SearchRules::default(),
    };
    search(&input, state, trace).tree
}

/// (subset, C_out) of a join tree: the sum of the estimated rows of its joins.
pub fn c_out(tree: &JoinTree, rows: &[f64], edges: &[(u64, f64)]) -> (u64, f64) {
    match tree {
        JoinTree::Leaf(i) => (1u64 << i, 0.0),
        JoinTree::Join(a, b) => {
            let (ma, ca) = c_out(a, rows, edges);
            let (mb, cb) = c_out(b, rows, edges);
            let set = ma | mb;
            (set, ca + cb + card(set, rows, edges))
        }
    }
}

/// Greedy: join the connected pair of partial results with the smallest result, repeatedly.
pub(crate) fn greedy(rows: &[f64], edges: &[(u64, f64)]) -> JoinTree {
    let mut parts: Vec<(u64, f64, JoinTree)> = rows
        .iter()
        .enumerate()
        .map(|(i, &r)| (1u64 << i, r.max(1.0), JoinTree::Leaf(i)))
        .collect();
    while parts.len() > 1 {
        let mut pick: Option<(bool, f64, usize, usize)> = None;
        for i in 0..parts.len() {
            for j in i + 1..parts.len() {
                let m = parts[i].0 | parts[j].0;
                let c = card(m, rows, edges);
                let conn = connected(parts[i].0, parts[j].0, edges);
                // connected pairs first, then the smallest result
                let better = match pick {
                    None => true,
                    Some((pc, pcard, _, _)) => (conn && !pc) || (conn == pc && c < pcard),
                };
                if better {
                    pick = Some((conn, c, i, j));
                }
            }
        }
        let Some((_, c, i, j)) = pick else {
            break;
        };
        let (mj, cj, tj) = parts.swap_remove(j);
        let (mi, ci, ti) = parts.swap_remove(i);
        let tree = if ci >= cj {
            JoinTree::Join(Box::new(ti), Box::new(tj))
        } else {
            JoinTree::Join(Box::new(tj), Box::new(ti))
        };
        parts.push((mi | mj, c, tree));
    }
    parts.pop().map_or(JoinTree::Leaf(0), |(_, _, t)| t)
}

/// Builds the logical join tree for `tree`: returns the operator and, for each of its output
/// columns, the column of the written join's output it holds.
pub fn build(
    tree: &JoinTree,
    rels: &mut [Option<LogicalOp>],
    offsets: &[(usize, usize)],
    preds: &mut Vec<(u64, ScalarExpr)>,
) -> (LogicalOp, Vec<usize>, u64) {
    match tree {
        JoinTree::Leaf(i) => {
            let op = rels[*i].take().unwrap_or(LogicalOp::Values {
                rows: vec![],
                columns: vec![],
            });
            let (off, arity) = offsets[*i];
            (op, (off..off + arity).collect(), 1u64 << i)
        }
        JoinTree::Join(a, b) => {
            let (lop, mut layout, ma) = build(a, rels, offsets, preds);
            let (rop, rlayout, mb) = build(b, rels, offsets, preds);
            layout.extend(rlayout);
            let set = ma | mb;
            let mut on = Vec::new();
            let mut i = 0;
            while i < preds.len() {
                let m = preds[i].0;
                if m != 0 && m & set == m {
                    let (_, mut p) = preds.swap_remove(i);
                    p.remap_columns(&|g| layout.iter().position(|&x| x == g).unwrap_or(g));
                    on.push(p);
                } else {
                    i += 1;
                }
            }
            let on = ScalarExpr::conjunction(on);
            let kind = if on.is_some() {
                JoinKind::Inner
            } else {
                JoinKind::Cross
            };
            (
                LogicalOp::Join {
                    left: Box::new(lop),
                    right: Box::new(rop),
                    kind,
                    on,
                    hint: None,
                },
                layout,
                set,
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search_stages::EarlyAbort;

    fn leaves(t: &JoinTree, out: &mut Vec<usize>) {
        match t {
            JoinTree::Leaf(i) => out.push(*i),
            JoinTree::Join(a, b) => {
                leaves(a, out);
                leaves(b, out);
            }
        }
    }

    #[test]
    fn star_joins_the_selective_dimension_first() {
        // fact 0 (1M rows) with dimensions 1 (10 rows, a filter keeps 1) and 2 (1000 rows)
        let rows = [1_000_000.0, 1.0, 1000.0];
        let edges = [(0b011, 1.0 / 10.0), (0b101, 1.0 / 1000.0)];
        let t = choose(&rows, &edges);
        // fact x dim1 first (100k rows), then dim2
        let JoinTree::Join(a, b) = &t else {
            panic!("a join")
        };
        let mut inner = Vec::new();
        leaves(a, &mut inner);
        inner.sort();
        assert_eq!(inner, vec![0, 1], "{t:?}");
        assert!(matches!(**b, JoinTree::Leaf(2)));
    }

    #[test]
    fn no_cross_product_while_the_graph_is_connected() {
        // chain 0 - 1 - 2: 0 and 2 are tiny but not connected
        let rows = [1.0, 1_000_000.0, 1.0];
        let edges = [(0b011, 1e-6), (0b110, 1e-6)];
        let t = choose(&rows, &edges);
        let JoinTree::Join(a, b) = &t else {
            panic!("a join")
        };
        let (mut x, mut y) = (Vec::new(), Vec::new());
        leaves(a, &mut x);
        leaves(b, &mut y);
        // (every join here yields one row, so the greedy order is already optimal and either
        // side may hold the first join)
        let pair = if x.len() == 2 { x } else { y };
        assert_eq!(pair.len(), 2, "{t:?}");
        assert!(
            pair.contains(&1),
            "the first join reads the middle relation: {t:?}"
        );
    }

    fn searched(rows: &[f64], edges: &[(u64, f64)]) -> (JoinTree, SearchState) {
        let mut state = SearchState::default();
        let t = choose_searched(rows, edges, &mut state, None);
        (t, state)
    }

    #[test]
    fn exhaustive_search_within_the_budget_records_no_early_abort() {
        let rows = [1_000_000.0, 10.0, 1000.0];
        let edges = [(0b011, 1.0 / 10.0), (0b101, 1.0 / 1000.0)];
        let (_, state) = searched(&rows, &edges);
        assert_eq!(state.early_abort, None);
        assert!(state.explored > 0 && state.explored < 100);
    }

    #[test]
    fn thirteen_relations_exceed_the_budget_timeout() {
        // a chain of 13: the enumeration would visit 3^13 > SEARCH_BUDGET splits
        let rows: Vec<f64> = (0..13).map(|i| 100.0 + i as f64).collect();
        let edges: Vec<(u64, f64)> = (0..12).map(|i| (0b11u64 << i, 0.05)).collect();
        let (t, state) = searched(&rows, &edges);
        assert_eq!(state.early_abort, Some(EarlyAbort::TimeOut));
        assert_eq!(state.explored, 0, "not started");
        let mut all = Vec::new();
        leaves(&t, &mut all);
        all.sort();
        assert_eq!(all, (0..13).collect::<Vec<_>>());
    }

    #[test]
    fn a_twelve_relation_clique_exceeds_the_memo_cap() {
        // every subset of a clique is connected: 4,095 groups > MEMO_GROUP_CAP
        let rows = vec![1000.0; 12];
        let mut edges = Vec::new();
        for i in 0..12 {
            for j in i + 1..12 {
                edges.push(((1u64 << i) | (1u64 << j), 0.01));
            }
        }
        let (t, state) = searched(&rows, &edges);
        assert_eq!(state.early_abort, Some(EarlyAbort::MemoryLimitExceeded));
        let mut all = Vec::new();
        leaves(&t, &mut all);
        assert_eq!(all.len(), 12);
    }

    #[test]
    fn one_row_joins_are_good_enough_without_the_exhaustive_search() {
        // every join yields one row: the greedy order's C_out is the lower bound n - 1
        let rows = [1.0, 1.0, 1.0, 1.0];
        let edges = [(0b0011, 1.0), (0b0110, 1.0), (0b1100, 1.0)];
        let (_, state) = searched(&rows, &edges);
        assert_eq!(state.early_abort, Some(EarlyAbort::GoodEnoughPlanFound));
        assert_eq!(state.explored, 0);
    }

    #[test]
    fn the_trace_holds_every_subset_and_the_pruned_cross_product() {
        // chain 0 - 1 - 2: {0, 2} is a cross product
        let rows = [100.0, 1000.0, 10.0];
        let edges = [(0b011, 0.01), (0b110, 0.001)];
        let mut trace = DpTrace::default();
        choose_searched(&rows, &edges, &mut SearchState::default(), Some(&mut trace));
        let sets: Vec<u64> = trace.cards.iter().map(|c| c.0).collect();
        assert_eq!(sets, (1..8).collect::<Vec<u64>>());
        let cross = trace
            .alternatives
            .iter()
            .find(|a| a.set == 0b101)
            .expect("the {0, 2} split");
        assert!(cross.cost.is_none() && cross.pruned.is_some());
        assert_eq!(
            trace.alternatives.iter().filter(|a| a.set == 0b111).count(),
            3
        );
    }

    #[test]
    fn greedy_handles_thirty_relations() {
        let rows: Vec<f64> = (0..30).map(|i| 10.0 + i as f64).collect();
        let edges: Vec<(u64, f64)> = (0..29).map(|i| (0b11u64 << i, 0.1)).collect();
        let t = choose(&rows, &edges);
        let mut all = Vec::new();
        leaves(&t, &mut all);
        all.sort();
        assert_eq!(all, (0..30).collect::<Vec<_>>());
    }
}
