//! The costed join search: JoinOrder's dynamic programming with the memo as its table.
//!
//! Each group is a subset of the flattened join's relations (a bit mask). For every split of a
//! group into two connected groups (the logical alternatives JoinOrder enumerates; JoinCommute
//! gives both input orders) the physical alternatives are costed with the cost model
//! (`cost.rs`: a subtree's cost is its own plus its inputs'):
//!
//! * `JoinToHash`: Hash Match probing with the outer input, building on the inner one;
//! * `JNtoIdxLookup`: Nested Loops whose inner side is one base relation sought through an
//!   index led by the join column (the inner group's own plan is not paid: one seek per outer
//!   row instead);
//! * `JoinToMerge`: Merge Join on the one integer equality between the inputs, each input
//!   read in the key's order — the order its clustered scan delivers, else through a Sort
//!   enforcer (the group's best plan under a Sort);
//! * `JNtoNL`: Nested Loops over a spooled inner side when no equality joins the inputs.
//!
//! The group keeps its cheapest plan (the winner); the required sort order a merge join asks
//! of an input is satisfied by the input group's winner for that order: a relation whose plan
//! is a clustered index scan led by the key column delivers it at its own cost, every other
//! group pays its winner plus a Sort. Derived orders are only those the planner can then
//! extract (an ordered clustered scan, `try_ordered_scan`): the order Nested Loops keeps from
//! its outer side and a Merge Join's output order are not derived, so a merge join above a
//! join sorts its input.
//!
//! Branch and bound: a split whose inputs' winners already cost at least the group's best so
//! far (less the inner input's cost where an index seek could replace it) is not expanded; it
//! is recorded as pruned.
//!
//! Beyond the DP's size (or its budget) the greedy pairing of join_order.rs picks the tree and
//! each of its joins is costed here the same way: the cheapest input order and algorithm.

use crate::join_order::{self, DpTrace, JoinTree};
use crate::search_stages::{EarlyAbort, SearchState, MEMO_GROUP_CAP, SEARCH_BUDGET};

/// A join's physical implementation as the search chose it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JoinAlgo {
    Hash,
    LoopsSeek,
    Merge,
    /// Nested loops without keys (cross or theta join).
    Loops,
}

impl JoinAlgo {
    /// The rule that produces it (`rules::RULES`).
    pub fn rule(self) -> &'static str {
        match self {
            JoinAlgo::Hash => "JoinToHash",
            JoinAlgo::LoopsSeek => "JNtoIdxLookup",
            JoinAlgo::Merge => "JoinToMerge",
            JoinAlgo::Loops => "JNtoNL",
        }
    }
}

/// What the search knows of one relation.
#[derive(Clone, Debug, Default)]
pub struct RelInput {
    /// Estimated rows.
    pub rows: f64,
    /// Subtree cost of its own plan.
    pub cost: f64,
    /// The local column its plan can be read in order on (a clustered index scan's leading
    /// key), if any.
    pub order: Option<usize>,
    /// Estimated bytes of one of its rows (a Sort enforcer's memory and spill); 0: unknown.
    pub width: f64,
}

/// An equality between two relations' columns, as the search uses it.
#[derive(Clone, Debug)]
pub struct Equi {
    /// (relation, local column) of each side.
    pub a: (usize, usize),
    pub b: (usize, usize),
    /// Cost of one index seek into `a`'s relation (descent, matching rows, lookups) for one
    /// value of `b`, when an index on a's column serves it; and the same into `b`.
    pub seek_into_a: Option<crate::cost::SeekCost>,
    pub seek_into_b: Option<crate::cost::SeekCost>,
    /// Both sides are integers: a merge join on it reads both in the same order.
    pub mergeable: bool,
}

/// The rules the search may use (QueryRuleOff switches them off).
#[derive(Clone, Copy, Debug)]
pub struct SearchRules {
    pub loops_seek: bool,
    pub merge: bool,
    /// Both input orders of every split (else the larger input is the outer one).
    pub commute: bool,
}

impl Default for SearchRules {
    fn default() -> Self {
        SearchRules {
            loops_seek: true,
            merge: true,
            commute: true,
        }
    }
}

/// The inputs of a search.
pub struct SearchInput<'a> {
    pub rels: &'a [RelInput],
    /// (relation mask, selectivity) per join predicate.
    pub edges: &'a [(u64, f64)],
    /// The equalities among the predicates (any order).
    pub equis: &'a [Equi],
    pub rules: SearchRules,
}

/// One physical alternative the search costed (or pruned) for group `set`.
#[derive(Clone, Debug)]
pub struct PhysAlternative {
    pub set: u64,
    /// Outer (probe) and inner (build) groups.
    pub outer: u64,
    pub inner: u64,
    pub algo: JoinAlgo,
    /// Own cost (one execution of the join operator, the inner side's seeks included for
    /// JNtoIdxLookup) and subtree cost.
    pub own: f64,
    pub cost: f64,
    /// Inputs read through a Sort enforcer (merge join).
    pub sort_outer: bool,
    pub sort_inner: bool,
    /// The merge key's (relation, column) on the outer and inner sides.
    pub merge_key: Option<((usize, usize), (usize, usize))>,
}

/// One join of the extracted winner: its outer and inner groups and implementation.
#[derive(Clone, Debug)]
pub struct Extracted {
    pub outer: u64,
    pub inner: u64,
    pub algo: JoinAlgo,
}

/// The search's result: the join tree (left = outer / probe input) and each join's
/// implementation.
pub struct Searched {
    pub tree: JoinTree,
    pub joins: Vec<Extracted>,
}

fn rows_of(input: &SearchInput, rows: &[f64], set: u64) -> f64 {
    join_order::card_of(set, rows, input.edges)
}

/// Cost of a Sort enforcer over `rows` rows of `width` bytes (cost.rs's Sort).
pub fn sort_cost(rows: f64, width: f64) -> f64 {
    crate::cost::sort_own_cost(rows, width)
}

/// Estimated bytes of a row of the join of the relations in `set`.
fn width_of(input: &SearchInput, set: u64) -> f64 {
    (0..input.rels.len())
        .filter(|i| set & (1 << i) != 0)
        .map(|i| input.rels[i].width)
        .sum()
}

/// The physical alternatives of joining `outer` (costing `co`, `ro` rows) with `inner`
/// (`ci`, `ri`) into `out` rows.
#[allow(clippy::too_many_arguments)]
fn alternatives(
    input: &SearchInput,
    set: u64,
    outer: u64,
    inner: u64,
    (co, ro): (f64, f64),
    (ci, ri): (f64, f64),
    out: f64,
    alts: &mut Vec<PhysAlternative>,
) {
    let single = |s: u64| (s.count_ones() == 1).then(|| s.trailing_zeros() as usize);
    let mut equis_between = input.equis.iter().filter(|e| {
        let (ma, mb) = (1u64 << e.a.0, 1u64 << e.b.0);
        (ma & outer != 0 && mb & inner != 0) || (mb & outer != 0 && ma & inner != 0)
    });
    let first = equis_between.next();
    let more = equis_between.next().is_some();
    let alt = |algo, own: f64, cost: f64| PhysAlternative {
        set,
        outer,
        inner,
        algo,
        own,
        cost,
        sort_outer: false,
        sort_inner: false,
        merge_key: None,
    };
    let Some(first) = first else {
        // nested loops over a spooled inner side: the spool keeps the inner rows once and
        // replays them for every outer row
        let own = crate::cost::loops_own_cost(ro) + crate::cost::spool_replay_cost(ro * ri, ri);
        alts.push(alt(JoinAlgo::Loops, own, own + co + ci));
        return;
    };
    let own = crate::cost::hash_join_own_cost(ri, ro, out);
    alts.push(alt(JoinAlgo::Hash, own, own + co + ci));
    // an index seek into a single inner relation, once per outer row
    if input.rules.loops_seek {
        if let Some(r) = single(inner) {
            let seek = input
                .equis
                .iter()
                .filter_map(|e| {
                    if e.a.0 == r && (1u64 << e.b.0) & outer != 0 {
                        e.seek_into_a
                    } else if e.b.0 == r && (1u64 << e.a.0) & outer != 0 {
                        e.seek_into_b
                    } else {
                        None
                    }
                })
                .map(|s| s.times(ro))
                .fold(None, |m: Option<f64>, s| Some(m.map_or(s, |m| m.min(s))));
            if let Some(seeks) = seek {
                let own = crate::cost::loops_own_cost(ro) + seeks;
                alts.push(alt(JoinAlgo::LoopsSeek, own, own + co));
            }
        }
    }
    // a merge join on the one equality between the inputs
    if input.rules.merge && !more && first.mergeable {
        let (ko, ki) = if (1u64 << first.a.0) & outer != 0 {
            (first.a, first.b)
        } else {
            (first.b, first.a)
        };
        let ordered = |s: u64, key: (usize, usize), c: f64, rows: f64| -> (f64, bool) {
            match single(s) {
                Some(r) if r == key.0 && input.rels[r].order == Some(key.1) => (c, false),
                _ => (c + sort_cost(rows, width_of(input, s)), true),
            }
        };
        let (co2, so) = ordered(outer, ko, co, ro);
        let (ci2, si) = ordered(inner, ki, ci, ri);
        let own = crate::cost::merge_join_own_cost(ro, ri);
        let mut a = alt(JoinAlgo::Merge, own, own + co2 + ci2);
        a.sort_outer = so;
        a.sort_inner = si;
        a.merge_key = Some((ko, ki));
        alts.push(a);
    }
}

/// The best group winners: (cost, outer, inner, algo) per subset.
type Winner = Option<(f64, u64, u64, JoinAlgo)>;

/// Exhaustive costed DP over subsets (`connected_only`: no cross products). Ok(None): no plan
/// without cross products; Err: the budget or the group cap stopped it.
fn dynamic(
    input: &SearchInput,
    connected_only: bool,
    state: &mut SearchState,
    mut trace: Option<&mut DpTrace>,
) -> Result<Option<Searched>, EarlyAbort> {
    let n = input.rels.len();
    let full: u64 = (1u64 << n) - 1;
    let mut best: Vec<Winner> = vec![None; 1usize << n];
    let mut cost = vec![0.0f64; 1usize << n];
    let mut cards = vec![0.0f64; 1usize << n];
    let mut groups = 0usize;
    if let Some(t) = trace.as_deref_mut() {
        // a second (cross product) pass replaces the first one's record
        t.alternatives.clear();
        t.physical.clear();
        t.best.clear();
        t.cards.clear();
    }
    let mut alts = Vec::new();
    let rows: Vec<f64> = input.rels.iter().map(|r| r.rows).collect();
    for set in 1..=full {
        cards[set as usize] = rows_of(input, &rows, set);
        if let Some(t) = trace.as_deref_mut() {
            t.cards.push((set, cards[set as usize]));
        }
        if set.count_ones() == 1 {
            let r = set.trailing_zeros() as usize;
            cost[set as usize] = input.rels[r].cost;
            best[set as usize] = Some((input.rels[r].cost, 0, 0, JoinAlgo::Hash));
            continue;
        }
        let low = set & set.wrapping_neg();
        let mut found: Winner = None;
        let mut a = (set - 1) & set;
        while a > 0 {
            state.explored += 1;
            if a & low != 0 {
                let b = set & !a;
                let considered = match (best[a as usize], best[b as usize]) {
                    (Some(_), Some(_)) => {
                        if !connected_only || join_order::connected(a, b, input.edges) {
                            let (ca, cb) = (cost[a as usize], cost[b as usize]);
                            // branch and bound: an index seek may replace a single inner
                            // relation's own plan, nothing else is cheaper than its inputs
                            let seekable = |s: u64| s.count_ones() == 1 && input.rules.loops_seek;
                            let mut bound = ca + cb;
                            if seekable(b) {
                                bound = bound.min(ca);
                            }
                            if seekable(a) && input.rules.commute {
                                bound = bound.min(cb);
                            }
                            match found {
                                Some(f) if bound >= f.0 => Err(format!(
                                    "pruned: lower bound {} >= the group's best {}",
                                    crate::memo::fmt_num(bound),
                                    crate::memo::fmt_num(f.0)
                                )),
                                _ => {
                                    alts.clear();
                                    split_alternatives(
                                        input,
                                        set,
                                        (a, b),
                                        (&cost, &cards),
                                        cards[set as usize],
                                        &mut alts,
                                    );
                                    let mut split_best: Option<f64> = None;
                                    for x in &alts {
                                        if found.is_none_or(|f| x.cost < f.0) {
                                            found = Some((x.cost, x.outer, x.inner, x.algo));
                                        }
                                        split_best =
                                            Some(split_best.map_or(x.cost, |s| s.min(x.cost)));
                                    }
                                    if let Some(t) = trace.as_deref_mut() {
                                        for x in &alts {
                                            if t.physical.len() < crate::memo::MEMO_ALTERNATIVES_CAP
                                            {
                                                t.physical.push(x.clone());
                                            } else {
                                                t.dropped += 1;
                                            }
                                        }
                                    }
                                    split_best.ok_or_else(|| "no physical alternative".into())
                                }
                            }
                        } else {
                            Err(
                                "pruned: cross product (no join predicate between the inputs)"
                                    .to_string(),
                            )
                        }
                    }
                    _ => {
                        Err("pruned: an input subset has no plan (it needs a cross product)".into())
                    }
                };
                if let Some(t) = trace.as_deref_mut() {
                    if t.alternatives.len() < crate::memo::MEMO_ALTERNATIVES_CAP {
                        let (cost, pruned) = match considered {
                            Ok(c) => (Some(c), None),
                            Err(e) => (None, Some(e)),
                        };
                        t.alternatives.push(join_order::DpAlternative {
                            set,
                            left: a,
                            right: b,
                            cost,
                            pruned,
                        });
                    } else {
                        t.dropped += 1;
                    }
                }
            }
            a = (a - 1) & set;
        }
        if state.explored > SEARCH_BUDGET {
            return Err(EarlyAbort::TimeOut);
        }
        if let Some(f) = found {
            groups += 1;
            if groups > MEMO_GROUP_CAP {
                return Err(EarlyAbort::MemoryLimitExceeded);
            }
            cost[set as usize] = f.0;
            if let Some(t) = trace.as_deref_mut() {
                let split = if f.1 & low != 0 { f.1 } else { f.2 };
                t.best.push((set, f.0, split));
            }
        }
        best[set as usize] = found;
    }
    if best[full as usize].is_none() {
        return Ok(None);
    }
    let mut joins = Vec::new();
    let tree = extract(full, &best, &mut joins);
    Ok(Some(Searched { tree, joins }))
}

/// The alternatives of one split in the input orders the rules allow.
fn split_alternatives(
    input: &SearchInput,
    set: u64,
    (a, b): (u64, u64),
    (cost, cards): (&[f64], &[f64]),
    out: f64,
    alts: &mut Vec<PhysAlternative>,
) {
    let side = |s: u64| (cost[s as usize], cards[s as usize]);
    let orders: &[(u64, u64)] = if input.rules.commute {
        &[(a, b), (b, a)]
    } else if cards[a as usize] >= cards[b as usize] {
        &[(a, b)]
    } else {
        &[(b, a)]
    };
    for &(o, i) in orders {
        alternatives(input, set, o, i, side(o), side(i), out, alts);
    }
}

fn extract(set: u64, best: &[Winner], joins: &mut Vec<Extracted>) -> JoinTree {
    match best[set as usize] {
        Some((_, o, i, algo)) if set.count_ones() > 1 => {
            let l = extract(o, best, joins);
            let r = extract(i, best, joins);
            joins.push(Extracted {
                outer: o,
                inner: i,
                algo,
            });
            JoinTree::Join(Box::new(l), Box::new(r))
        }
        _ => JoinTree::Leaf(set.trailing_zeros() as usize),
    }
}

/// A group as a join input: (set, winner's cost, rows).
type Side = (u64, f64, f64);

/// Costs a tree chosen elsewhere (the greedy pairing): each join gets its cheapest input order
/// and algorithm; returns (set, cost) and the oriented tree.
fn cost_tree(
    input: &SearchInput,
    rows: &[f64],
    tree: &JoinTree,
    joins: &mut Vec<Extracted>,
    mut trace: Option<&mut DpTrace>,
) -> (u64, f64, JoinTree) {
    match tree {
        JoinTree::Leaf(i) => (1u64 << i, input.rels[*i].cost, JoinTree::Leaf(*i)),
        JoinTree::Join(a, b) => {
            let (ma, ca, ta) = cost_tree(input, rows, a, joins, trace.as_deref_mut());
            let (mb, cb, tb) = cost_tree(input, rows, b, joins, trace.as_deref_mut());
            let set = ma | mb;
            let out = rows_of(input, rows, set);
            let (ra, rb) = (rows_of(input, rows, ma), rows_of(input, rows, mb));
            let mut alts = Vec::new();
            // the greedy tree has the larger input on the left: kept unless JoinCommute may swap
            let orders: &[(Side, Side)] = if input.rules.commute {
                &[((ma, ca, ra), (mb, cb, rb)), ((mb, cb, rb), (ma, ca, ra))]
            } else {
                &[((ma, ca, ra), (mb, cb, rb))]
            };
            for &((o, co, ro), (i, ci, ri)) in orders {
                alternatives(input, set, o, i, (co, ro), (ci, ri), out, &mut alts);
            }
            let Some(w) = alts
                .iter()
                .min_by(|x, y| x.cost.total_cmp(&y.cost))
                .cloned()
            else {
                return (set, ca + cb, JoinTree::Join(Box::new(ta), Box::new(tb)));
            };
            if let Some(t) = trace {
                for x in alts {
                    if t.physical.len() < crate::memo::MEMO_ALTERNATIVES_CAP {
                        t.physical.push(x);
                    } else {
                        t.dropped += 1;
                    }
                }
                t.best.push((set, w.cost, ma));
            }
            joins.push(Extracted {
                outer: w.outer,
                inner: w.inner,
                algo: w.algo,
            });
            let tree = if w.outer == ma {
                JoinTree::Join(Box::new(ta), Box::new(tb))
            } else {
                JoinTree::Join(Box::new(tb), Box::new(ta))
            };
            (set, w.cost, tree)
        }
    }
}

/// The costed search within the statement's budget (search_stages.rs): exhaustive dynamic
/// programming while it fits [`SEARCH_BUDGET`] and [`MEMO_GROUP_CAP`]; beyond, or when the
/// greedy order is already at the lower bound of intermediate rows (GoodEnoughPlanFound), the
/// greedy tree, costed join by join.
pub fn search(
    input: &SearchInput,
    state: &mut SearchState,
    mut trace: Option<&mut DpTrace>,
) -> Searched {
    let n = input.rels.len();
    let rows: Vec<f64> = input.rels.iter().map(|r| r.rows).collect();
    // the greedy order first: when no join in it yields more than one row no order is cheaper
    let quick = join_order::greedy(&rows, input.edges);
    let greedy = |state: &mut SearchState, reason: EarlyAbort, trace: Option<&mut DpTrace>| {
        state.abort(reason);
        let mut joins = Vec::new();
        let mut trace = trace;
        if let Some(t) = trace.as_deref_mut() {
            t.greedy = true;
            t.alternatives.clear();
            t.physical.clear();
            t.best.clear();
        }
        let (_, _, tree) = cost_tree(input, &rows, &quick, &mut joins, trace);
        Searched { tree, joins }
    };
    if join_order::c_out(&quick, &rows, input.edges).1 <= (n.saturating_sub(1)) as f64 {
        return greedy(state, EarlyAbort::GoodEnoughPlanFound, trace);
    }
    let predicted = 3f64.powi(n.min(64) as i32);
    if n > join_order::DP_RELATIONS || state.explored as f64 + predicted > SEARCH_BUDGET as f64 {
        return greedy(state, EarlyAbort::TimeOut, trace);
    }
    let mut outcome = dynamic(input, true, state, trace.as_deref_mut());
    if matches!(outcome, Ok(None)) {
        outcome = dynamic(input, false, state, trace.as_deref_mut());
    }
    match outcome {
        Ok(Some(s)) => s,
        Ok(None) => greedy(state, EarlyAbort::TimeOut, trace),
        Err(reason) => greedy(state, reason, trace),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(rows: f64, cost: f64) -> RelInput {
        RelInput {
            rows,
            cost,
            order: None,
            width: 0.0,
        }
    }

    fn equi(a: (usize, usize), b: (usize, usize)) -> Equi {
        Equi {
            a,
            b,
            seek_into_a: None,
            seek_into_b: None,
            mergeable: false,
        }
    }

    fn run(input: &SearchInput) -> (Searched, DpTrace) {
        let mut trace = DpTrace::default();
        let s = search(input, &mut SearchState::default(), Some(&mut trace));
        (s, trace)
    }

    #[test]
    fn hash_builds_on_the_smaller_input_by_cost() {
        // 0: 1M rows, 1: 100 rows, 2: 10k rows; chain 0-1, 0-2
        let rels = [rel(1e6, 10.0), rel(100.0, 0.01), rel(1e4, 0.1)];
        let edges = [(0b011, 1.0 / 100.0), (0b101, 1.0 / 1e4)];
        let equis = [equi((0, 0), (1, 0)), equi((0, 1), (2, 0))];
        let input = SearchInput {
            rels: &rels,
            edges: &edges,
            equis: &equis,
            rules: SearchRules::default(),
        };
        let (s, _) = run(&input);
        for j in &s.joins {
            assert_eq!(j.algo, JoinAlgo::Hash);
            // the big relation is probed, never built on
            assert_eq!(j.inner & 1, 0, "{:?}", s.joins);
        }
    }

    #[test]
    fn an_index_seek_replaces_a_large_inner_scan() {
        // 0: 10 rows joined to 1: 1M rows whose index on the key costs 0.0032 per seek
        let rels = [rel(10.0, 0.003), rel(1e6, 12.0), rel(5.0, 0.003)];
        let edges = [(0b011, 1e-6), (0b101, 0.2)];
        let mut e = equi((1, 0), (0, 0));
        e.seek_into_a = Some(crate::cost::SeekCost::flat(0.0032));
        let equis = [e, equi((0, 1), (2, 0))];
        let input = SearchInput {
            rels: &rels,
            edges: &edges,
            equis: &equis,
            rules: SearchRules::default(),
        };
        let (s, trace) = run(&input);
        let seek = s
            .joins
            .iter()
            .find(|j| j.inner == 0b010)
            .expect("relation 1 is an inner input");
        assert_eq!(seek.algo, JoinAlgo::LoopsSeek, "{:?}", s.joins);
        let total = trace
            .best
            .iter()
            .find(|b| b.0 == 0b111)
            .expect("the root group")
            .1;
        assert!(total < 1.0, "the 1M-row scan is not paid: {total}");
        // the hash alternatives over relation 1 lost by cost
        assert!(trace
            .physical
            .iter()
            .any(|p| p.algo == JoinAlgo::Hash && p.inner == 0b010));
        // switched off, the seek is never considered
        let off = SearchInput {
            rules: SearchRules {
                loops_seek: false,
                ..SearchRules::default()
            },
            ..input
        };
        let (s, _) = run(&off);
        assert!(s.joins.iter().all(|j| j.algo != JoinAlgo::LoopsSeek));
    }

    #[test]
    fn merge_join_reads_clustered_order_and_sorts_the_rest() {
        // two large relations ordered on the join key, a small third one
        let mut r0 = rel(1e5, 1.0);
        r0.order = Some(0);
        let mut r1 = rel(1e5, 1.0);
        r1.order = Some(0);
        let rels = [r0, r1, rel(1e5, 1.0)];
        let edges = [(0b011, 1e-5), (0b101, 1e-5)];
        let mut e01 = equi((0, 0), (1, 0));
        e01.mergeable = true;
        let mut e02 = equi((0, 1), (2, 0));
        e02.mergeable = true;
        let equis = [e01, e02];
        let input = SearchInput {
            rels: &rels,
            edges: &edges,
            equis: &equis,
            rules: SearchRules::default(),
        };
        let (_, trace) = run(&input);
        // the merge joining 0 and 1 reads both in their clustered order, no Sort (whether it
        // wins is the calibrated costs' call: on this executor a merge row costs about twice
        // a hash join's, bench/cost_calibration.py)
        assert!(trace.physical.iter().any(|p| p.algo == JoinAlgo::Merge
            && p.set == 0b011
            && !p.sort_inner
            && !p.sort_outer));
        // the merge alternative joining 0 and 2 needs a Sort enforcer on relation 2
        assert!(trace.physical.iter().any(|p| p.algo == JoinAlgo::Merge
            && p.set == 0b101
            && (p.sort_inner || p.sort_outer)));
        // without the merge rule a hash join
        let off = SearchInput {
            rules: SearchRules {
                merge: false,
                ..SearchRules::default()
            },
            ..input
        };
        let (s, _) = run(&off);
        assert!(s.joins.iter().all(|j| j.algo == JoinAlgo::Hash));
    }

    #[test]
    fn branch_and_bound_prunes_splits_above_the_best() {
        // chain 0 - 1 - 2: 0 is small and selective, 1 and 2 large; {1, 2} alone already
        // costs more than the whole plan joining 0 with 1 first
        let rels = [rel(10.0, 0.01), rel(1e6, 50.0), rel(1e6, 50.0)];
        let edges = [(0b011, 1e-6), (0b110, 1e-6)];
        let equis = [equi((0, 0), (1, 0)), equi((1, 1), (2, 0))];
        let input = SearchInput {
            rels: &rels,
            edges: &edges,
            equis: &equis,
            rules: SearchRules::default(),
        };
        let (_, trace) = run(&input);
        assert!(
            trace.alternatives.iter().any(|a| a
                .pruned
                .as_deref()
                .is_some_and(|p| p.starts_with("pruned: lower bound"))),
            "{:?}",
            trace.alternatives
        );
    }

    #[test]
    fn beyond_the_dp_the_greedy_tree_is_costed() {
        let rels: Vec<RelInput> = (0..30).map(|i| rel(10.0 + i as f64, 0.01)).collect();
        let edges: Vec<(u64, f64)> = (0..29).map(|i| (0b11u64 << i, 0.1)).collect();
        let equis: Vec<Equi> = (0..29).map(|i| equi((i, 0), (i + 1, 1))).collect();
        let input = SearchInput {
            rels: &rels,
            edges: &edges,
            equis: &equis,
            rules: SearchRules::default(),
        };
        let mut state = SearchState::default();
        let s = search(&input, &mut state, None);
        assert_eq!(state.early_abort, Some(EarlyAbort::TimeOut));
        assert_eq!(s.joins.len(), 29);
    }
}
