//! JoinOrder: the order of a tree of inner joins, chosen from the estimated sizes of the
//! intermediate results.
//!
//! The tree (inner and cross joins without hints or subqueries in their conditions, and
//! filters between them) is flattened into relations and predicates over the columns of the
//! written join's output. Up to [`DP_RELATIONS`] relations, dynamic programming over the
//! connected subsets finds the bushy tree with the least total intermediate rows (C_out: the
//! sum of every join's estimated output; cross products only when the join graph is
//! disconnected); beyond, a greedy pass joins the pair of partial results with the smallest
//! result until one is left (so a 30-table join plans in milliseconds). Each join puts its
//! larger input on the left (the hash join's probe side) and the smaller on the right (its
//! build side); the physical choice per join (nested loops with a seek, hash, commuted inputs)
//! is then made by the planner's costs. A projection restores the written column order.
//! Sound: inner joins are associative and commutative, and every predicate is applied at the
//! lowest join whose inputs hold all its columns.

use plan::{CmpOp, JoinKind, LogicalOp, ScalarExpr, ScalarKind};

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

fn connected(a: u64, b: u64, edges: &[(u64, f64)]) -> bool {
    edges
        .iter()
        .any(|&(m, _)| m & a != 0 && m & b != 0 && m & !(a | b) == 0)
}

/// The join order for relations of `rows` estimated rows joined by predicates `edges`
/// (relation mask, selectivity).
pub fn choose(rows: &[f64], edges: &[(u64, f64)]) -> JoinTree {
    let n = rows.len();
    if n <= DP_RELATIONS {
        if let Some(t) = dynamic(rows, edges, true).or_else(|| dynamic(rows, edges, false)) {
            return t;
        }
    }
    greedy(rows, edges)
}

/// Exhaustive bushy DP over subsets (`connected_only`: no cross products).
fn dynamic(rows: &[f64], edges: &[(u64, f64)], connected_only: bool) -> Option<JoinTree> {
    let n = rows.len();
    let full: u64 = (1u64 << n) - 1;
    // best[set] = (cost, left subset)
    let mut best: Vec<Option<(f64, u64)>> = vec![None; 1usize << n];
    let mut cards = vec![0.0f64; 1usize << n];
    for set in 1..=full {
        cards[set as usize] = card(set, rows, edges);
        if set.count_ones() == 1 {
            best[set as usize] = Some((0.0, 0));
            continue;
        }
        let low = set & set.wrapping_neg();
        let mut found: Option<(f64, u64)> = None;
        // submasks holding the lowest relation (each split once)
        let mut a = (set - 1) & set;
        while a > 0 {
            if a & low != 0 {
                let b = set & !a;
                if let (Some((ca, _)), Some((cb, _))) = (best[a as usize], best[b as usize]) {
                    if !connected_only || connected(a, b, edges) {
                        let cost = ca + cb + cards[set as usize];
                        if found.is_none_or(|f| cost < f.0) {
                            found = Some((cost, a));
                        }
                    }
                }
            }
            a = (a - 1) & set;
        }
        best[set as usize] = found;
    }
    best[full as usize]?;
    Some(build_tree(full, &best, &cards))
}

fn build_tree(set: u64, best: &[Option<(f64, u64)>], cards: &[f64]) -> JoinTree {
    if set.count_ones() == 1 {
        return JoinTree::Leaf(set.trailing_zeros() as usize);
    }
    let a = best[set as usize].map_or(set & set.wrapping_neg(), |b| b.1);
    let b = set & !a;
    let (l, r) = if cards[a as usize] >= cards[b as usize] {
        (a, b)
    } else {
        (b, a)
    };
    JoinTree::Join(
        Box::new(build_tree(l, best, cards)),
        Box::new(build_tree(r, best, cards)),
    )
}

/// Greedy: join the connected pair of partial results with the smallest result, repeatedly.
fn greedy(rows: &[f64], edges: &[(u64, f64)]) -> JoinTree {
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
        assert!(
            x.contains(&1) || y.len() == 1 && y[0] == 1 || x.len() == 2,
            "{t:?}"
        );
        let pair = if x.len() == 2 { x } else { y };
        assert!(
            pair.contains(&1),
            "the first join reads the middle relation: {t:?}"
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
