//! The planner's hooks that fill the memo (memo.rs) where alternatives are costed: table
//! access (scan vs each seek), joins (hash, nested loops over an index seek, commuted inputs,
//! merge; the ones a hint or QueryRuleOff forbade), JoinOrder's subsets. Every hook returns at
//! once when no memo is being recorded.

use std::collections::HashMap;

use plan::{JoinHint, JoinKind, LogicalOp, PhysKind, PhysOp, ScalarExpr, TableSource};

use crate::join_order::{DpTrace, JoinTree, Relation};
use crate::join_search::JoinAlgo;
use crate::memo::{self, Alternative};
use crate::planner::Planner;

/// What a join's record needs from its logical inputs (taken before they are planned).
pub(crate) struct JoinMemo {
    left: String,
    right: String,
    label: String,
    /// Index of the right (left) input's table led by one of its join keys: where nested
    /// loops (commuted nested loops) could seek.
    right_lookup: Option<String>,
    left_lookup: Option<String>,
}

/// A seek alternative of a table access: (index position, cost, rows); cost NaN when the
/// table's rows are unknown (the rule-based preference chose).
pub(crate) type SeekCandidate = (usize, f64, f64);

fn hint_name(h: JoinHint) -> &'static str {
    match h {
        JoinHint::Loop => "LOOP JOIN",
        JoinHint::Hash => "HASH JOIN",
        JoinHint::Merge => "MERGE JOIN",
    }
}

/// The first rowstore index of `src`'s table whose leading key column is one of `keys`.
fn lookup_index(src: &TableSource, keys: &[ScalarExpr]) -> Option<String> {
    let cols: Vec<usize> = keys.iter().filter_map(|k| k.as_column()).collect();
    src.table
        .indexes
        .iter()
        .find(|i| {
            i.kind == catalog::IndexKind::RowStore
                && i.filter.is_none()
                && i.key_columns.first().is_some_and(|k| cols.contains(&k.0))
        })
        .map(|i| {
            let kind = if i.clustered {
                "Clustered Index Seek"
            } else {
                "Index Seek"
            };
            format!("{kind} [{}].[{}]", src.alias, i.name)
        })
}

fn finite(v: f64) -> Option<f64> {
    v.is_finite().then_some(v)
}

impl Planner<'_> {
    /// The memo's view of a join's inputs; None (and nothing computed) when not recording.
    pub(crate) fn memo_join_inputs(
        &self,
        left: &LogicalOp,
        right: &LogicalOp,
        lkeys: &[ScalarExpr],
        rkeys: &[ScalarExpr],
    ) -> Option<JoinMemo> {
        self.memo.as_ref()?;
        let (l, r) = (memo::label_of(left), memo::label_of(right));
        let mut names = Vec::new();
        for s in [&l, &r] {
            let inner = s.trim_start_matches('{').trim_end_matches('}');
            names.extend(
                inner
                    .split(", ")
                    .filter(|n| !n.is_empty())
                    .map(str::to_string),
            );
        }
        let get = |op: &LogicalOp, keys: &[ScalarExpr]| match op {
            LogicalOp::Get(src) => lookup_index(src, keys),
            _ => None,
        };
        Some(JoinMemo {
            right_lookup: get(right, rkeys),
            left_lookup: get(left, lkeys),
            label: memo::label_from(names),
            left: l,
            right: r,
        })
    }

    /// Records a join group: the costed candidates (`best` won) and the alternatives that were
    /// not built because a hint, FORCE ORDER or QueryRuleOff forbade them.
    pub(crate) fn memo_join(
        &mut self,
        jm: &Option<JoinMemo>,
        kind: JoinKind,
        hint: Option<JoinHint>,
        cands: &mut [PhysOp],
        best: usize,
    ) {
        let Some(jm) = jm else { return };
        if self.memo.is_none() {
            return;
        }
        for c in cands.iter_mut() {
            self.annotate(c);
        }
        let winner = cands.get(best).map_or(0.0, |c| c.cost.subtree);
        // (physical operator, rule, why, inputs swapped)
        let mut forbidden: Vec<(String, &'static str, String, bool)> = Vec::new();
        let why_hint = hint.map(|h| format!("forbidden by hint {}", hint_name(h)));
        let has = |f: &dyn Fn(&PhysOp) -> bool| cands.iter().any(f);
        let plain_hash =
            has(&|c| matches!(c.kind, PhysKind::HashJoin { .. })) || kind == JoinKind::Cross;
        if !plain_hash {
            let why = match hint {
                Some(JoinHint::Loop | JoinHint::Merge) => why_hint.clone().unwrap_or_default(),
                _ => {
                    "not costed: rule-based preference for nested loops (row counts unknown)".into()
                }
            };
            forbidden.push((
                format!("Hash Match ({})", kind.hash_match_showplan()),
                "JoinToHash",
                why,
                false,
            ));
        }
        let lookup_kind = matches!(
            kind,
            JoinKind::Inner | JoinKind::LeftOuter | JoinKind::LeftSemi | JoinKind::LeftAntiSemi
        );
        if let Some(ix) = &jm.right_lookup {
            let built = has(&|c| {
                matches!(&c.kind, PhysKind::NestedLoops { inner, .. }
                    if matches!(inner.kind, PhysKind::IndexSeek { .. }))
            });
            let reason = if matches!(hint, Some(JoinHint::Hash | JoinHint::Merge)) {
                why_hint.clone()
            } else if !self.enabled("JNtoIdxLookup") {
                Some("rule disabled: QueryRuleOff JNtoIdxLookup".into())
            } else {
                None
            };
            if let (false, true, Some(r)) = (built, lookup_kind, reason) {
                forbidden.push((
                    format!("Nested Loops ({}) over {ix}", kind.showplan()),
                    "JNtoIdxLookup",
                    r,
                    false,
                ));
            }
        }
        if kind == JoinKind::Inner && !cands.iter().any(memo::is_commuted) {
            let reason = if hint.is_some() {
                why_hint.clone()
            } else if self.options.force_order {
                Some("forbidden by FORCE ORDER".into())
            } else if !self.enabled("JoinCommute") {
                Some("rule disabled: QueryRuleOff JoinCommute".into())
            } else {
                None
            };
            if let Some(r) = reason {
                forbidden.push((
                    format!("Hash Match ({}), inputs swapped", kind.showplan()),
                    "JoinCommute",
                    r.clone(),
                    true,
                ));
                if let Some(ix) = &jm.left_lookup {
                    forbidden.push((
                        format!(
                            "Nested Loops ({}) over {ix}, inputs swapped",
                            kind.showplan()
                        ),
                        "JoinCommute",
                        r,
                        true,
                    ));
                }
            }
        }
        if cands.len() > 1 {
            self.search.costed_choices += 1;
        }
        let Some(m) = self.memo.as_mut() else { return };
        let g = m.group(&jm.label);
        let (lg, rg) = (m.group(&jm.left), m.group(&jm.right));
        for (i, c) in cands.iter().enumerate() {
            let commuted = memo::is_commuted(c);
            let inner = match &c.kind {
                PhysKind::ComputeScalar { input, .. } => &**input,
                _ => c,
            };
            let rule = match &inner.kind {
                _ if commuted => "JoinCommute",
                PhysKind::HashJoin { .. } => "JoinToHash",
                PhysKind::MergeJoin { .. } => "JoinToMerge",
                PhysKind::NestedLoops { inner: seek, .. }
                    if matches!(seek.kind, PhysKind::IndexSeek { .. }) =>
                {
                    "JNtoIdxLookup"
                }
                _ => "JNtoNL",
            };
            let mut physical = memo::describe(inner);
            if commuted {
                physical.push_str(", inputs swapped");
            }
            m.add(
                g,
                Alternative {
                    logical: kind.showplan().to_string(),
                    physical: Some(physical),
                    rule,
                    children: if commuted { vec![rg, lg] } else { vec![lg, rg] },
                    est_rows: Some(c.est_rows),
                    own_cost: Some(inner.cost.io + inner.cost.cpu),
                    subtree_cost: Some(c.cost.subtree),
                    properties: None,
                    chosen: i == best,
                    why_lost: (i != best).then(|| memo::higher_cost(c.cost.subtree, winner)),
                },
            );
        }
        for (physical, rule, why, swapped) in forbidden {
            m.add(
                g,
                Alternative {
                    logical: kind.showplan().to_string(),
                    physical: Some(physical),
                    rule,
                    children: if swapped { vec![rg, lg] } else { vec![lg, rg] },
                    why_lost: Some(why),
                    ..Default::default()
                },
            );
        }
    }

    /// The label of an aggregate's group (`Aggregate {o}`); None when not recording.
    pub(crate) fn memo_aggregate_label(&self, input: &LogicalOp) -> Option<String> {
        self.memo.as_ref()?;
        Some(format!("Aggregate {}", memo::label_of(input)))
    }

    /// Records an aggregate group: the implementation chosen and the one not used, with why
    /// (hash and sort + stream are not costed against each other: the hints and rules decide).
    pub(crate) fn memo_aggregate(&mut self, label: Option<String>, chosen: &mut PhysOp) {
        let Some(label) = label else { return };
        self.annotate(chosen);
        let scalar = matches!(&chosen.kind, PhysKind::StreamAggregate { group_by, .. } if group_by.is_empty());
        let hash = matches!(chosen.kind, PhysKind::HashAggregate { .. });
        let scalar_hashed = matches!(&chosen.kind,
            PhysKind::HashAggregate { group_by, grouping_sets: None, .. } if group_by.is_empty());
        let other = if scalar {
            None
        } else if scalar_hashed {
            Some((
                "Stream Aggregate",
                "GbAggToStrm",
                "rule disabled: QueryRuleOff GbAggToStrm",
            ))
        } else if hash {
            let why = if !self.enabled("GbAggToHS") {
                "rule disabled: QueryRuleOff GbAggToHS"
            } else if self.options.group.hash {
                "forbidden by hint HASH GROUP"
            } else {
                "not costed: GROUP BY hashes unless OPTION (ORDER GROUP) or QueryRuleOff GbAggToHS"
            };
            Some(("Stream Aggregate over Sort", "", why))
        } else {
            let why = if !self.enabled("GbAggToHS") {
                "rule disabled: QueryRuleOff GbAggToHS"
            } else {
                "forbidden by hint ORDER GROUP"
            };
            Some(("Hash Match (Aggregate)", "GbAggToHS", why))
        };
        let Some(m) = self.memo.as_mut() else { return };
        let child = m.last_group();
        let g = m.group(&label);
        let rule = if scalar {
            "GbAggToStrm"
        } else if hash {
            "GbAggToHS"
        } else {
            ""
        };
        m.add(
            g,
            Alternative {
                logical: "Aggregate".into(),
                physical: Some(memo::describe(chosen)),
                rule,
                children: child.into_iter().collect(),
                est_rows: Some(chosen.est_rows),
                own_cost: Some(chosen.cost.io + chosen.cost.cpu),
                subtree_cost: Some(chosen.cost.subtree),
                chosen: true,
                ..Default::default()
            },
        );
        if let Some((physical, rule, why)) = other {
            m.add(
                g,
                Alternative {
                    logical: "Aggregate".into(),
                    physical: Some(physical.into()),
                    rule,
                    children: child.into_iter().collect(),
                    why_lost: Some(why.into()),
                    ..Default::default()
                },
            );
        }
    }

    /// Records a table access group: the scan and every seek candidate, the winner, and what
    /// a hint or QueryRuleOff forbade.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn memo_access(
        &mut self,
        chosen: &PhysOp,
        seeks: Option<Vec<SeekCandidate>>,
        chosen_index: Option<usize>,
        scan_cost: f64,
        scan_rows: f64,
        bindable: &[usize],
    ) {
        let Some(seeks) = seeks else { return };
        let Some(m) = self.memo.as_mut() else { return };
        let src = match &chosen.kind {
            PhysKind::TableScan { source, .. }
            | PhysKind::ClusteredIndexScan { source, .. }
            | PhysKind::IndexSeek { source, .. } => source,
            _ => return,
        };
        let scan_name = match src.table.storage {
            catalog::TableStorage::Heap(_) => format!("Table Scan [{}]", src.alias),
            catalog::TableStorage::Clustered { .. } => {
                format!("Clustered Index Scan [{}]", src.alias)
            }
        };
        let seek_name = |ix: usize| {
            let i = &src.table.indexes[ix];
            let k = if i.clustered {
                "Clustered Index Seek"
            } else {
                "Index Seek"
            };
            format!("{k} [{}].[{}]", src.alias, i.name)
        };
        let winner = match chosen_index {
            Some(ix) => seeks.iter().find(|s| s.0 == ix).map_or(f64::NAN, |s| s.1),
            None => scan_cost,
        };
        let hints = &src.hints;
        let forced_hint = if hints.force_scan {
            Some("forbidden by hint FORCESCAN".to_string())
        } else if !hints.index.is_empty() {
            Some(format!(
                "forbidden by hint INDEX({})",
                hints.index.join(", ")
            ))
        } else if hints.force_seek {
            Some("forbidden by hint FORCESEEK".to_string())
        } else {
            None
        };
        let g = m.group(&memo::label_from(vec![src.alias.clone()]));
        let lost = |cost: f64, is_chosen: bool| -> Option<String> {
            if is_chosen {
                None
            } else if cost.is_finite() && winner.is_finite() {
                if cost <= winner {
                    Some(format!(
                        "seek kept: the scan is cheaper by {} but not by more than {}",
                        memo::fmt_num(winner - cost),
                        crate::planner::SEEK_PREFERENCE
                    ))
                } else {
                    Some(memo::higher_cost(cost, winner))
                }
            } else if let Some(h) = &forced_hint {
                Some(h.clone())
            } else {
                Some("rule-based preference (row counts unknown)".into())
            }
        };
        let scan_chosen = chosen_index.is_none();
        let scan_why = if scan_chosen {
            None
        } else if !hints.index.is_empty() || hints.force_seek {
            forced_hint.clone()
        } else {
            lost(scan_cost, false)
        };
        m.add(
            g,
            Alternative {
                logical: "Get".into(),
                physical: Some(scan_name),
                rule: "GetToScan",
                est_rows: finite(scan_rows),
                own_cost: finite(scan_cost),
                subtree_cost: finite(scan_cost),
                chosen: scan_chosen,
                why_lost: scan_why,
                ..Default::default()
            },
        );
        for &(ix, cost, rows) in &seeks {
            let is_chosen = chosen_index == Some(ix);
            let (rows, properties) = if is_chosen {
                (Some(chosen.est_rows), memo::derived_order(chosen))
            } else {
                (finite(rows), None)
            };
            m.add(
                g,
                Alternative {
                    logical: "Select".into(),
                    physical: Some(seek_name(ix)),
                    rule: "SelToIdxSeek",
                    est_rows: rows,
                    own_cost: finite(cost),
                    subtree_cost: finite(cost),
                    properties,
                    chosen: is_chosen,
                    why_lost: lost(cost, is_chosen),
                    ..Default::default()
                },
            );
        }
        // seekable indexes that were never costed: the rule was off or a hint forbade seeks
        for &ix in bindable {
            if seeks.iter().any(|s| s.0 == ix) {
                continue;
            }
            let why = if hints.force_scan || hints.index.iter().any(|h| h == "0") {
                forced_hint.clone().unwrap_or_default()
            } else if !hints.index.is_empty() {
                format!("forbidden by hint INDEX({})", hints.index.join(", "))
            } else {
                "rule disabled: QueryRuleOff SelToIdxSeek".into()
            };
            m.add(
                g,
                Alternative {
                    logical: "Select".into(),
                    physical: Some(seek_name(ix)),
                    rule: "SelToIdxSeek",
                    why_lost: Some(why),
                    ..Default::default()
                },
            );
        }
    }

    /// Records JoinOrder's search: one group per subset of the relations (labelled by their
    /// tables), each with the splits the dynamic programming considered — costed (the cost of
    /// the split's cheapest physical alternative) or pruned — and its best, then every physical
    /// alternative costed (join_search.rs) with its group's winner; when the search stopped
    /// early or went greedy, the greedy tree's joins.
    pub(crate) fn memo_join_order(
        &mut self,
        rels: &[Relation],
        trace: Option<DpTrace>,
        tree: &JoinTree,
        rows: &[f64],
        edges: &[(u64, f64)],
    ) {
        let (Some(trace), Some(m)) = (trace, self.memo.as_mut()) else {
            return;
        };
        let names: Vec<String> = rels
            .iter()
            .map(|r| {
                let l = memo::label_of(&r.op);
                l.trim_start_matches('{').trim_end_matches('}').to_string()
            })
            .collect();
        let label = |set: u64| {
            memo::label_from(
                (0..names.len())
                    .filter(|i| set & (1 << i) != 0)
                    .flat_map(|i| names[i].split(", ").map(str::to_string))
                    .filter(|n| !n.is_empty())
                    .collect(),
            )
        };
        let mut ids: HashMap<u64, u32> = HashMap::new();
        for &(set, _) in &trace.cards {
            ids.insert(set, m.group(&label(set)));
        }
        let cards: HashMap<u64, f64> = trace.cards.iter().copied().collect();
        let best: HashMap<u64, (f64, u64)> =
            trace.best.iter().map(|&(s, c, l)| (s, (c, l))).collect();
        for a in &trace.alternatives {
            let (Some(&g), Some(&lg), Some(&rg)) =
                (ids.get(&a.set), ids.get(&a.left), ids.get(&a.right))
            else {
                continue;
            };
            let b = best.get(&a.set);
            let chosen = !trace.greedy && b.is_some_and(|b| b.1 == a.left);
            let why_lost = if chosen {
                None
            } else if let Some(p) = &a.pruned {
                Some(p.clone())
            } else if let (Some(c), Some(b)) = (a.cost, b) {
                if c == b.0 {
                    Some("equal cost; the first split found was kept".into())
                } else {
                    Some(memo::higher_cost(c, b.0))
                }
            } else {
                None
            };
            m.add(
                g,
                Alternative {
                    logical: "Inner Join".into(),
                    physical: None,
                    rule: "JoinOrder",
                    children: vec![lg, rg],
                    est_rows: cards.get(&a.set).copied(),
                    own_cost: None,
                    subtree_cost: a.cost,
                    properties: Some("cost = its cheapest physical alternative".into()),
                    chosen,
                    why_lost,
                },
            );
        }
        // the physical alternatives of every split; a group's winner is its cheapest (the first
        // found on a tie), and only a group's winner is ever used by a larger group
        let mut winners: HashMap<u64, (usize, f64)> = HashMap::new();
        for (i, x) in trace.physical.iter().enumerate() {
            let w = winners.entry(x.set).or_insert((i, x.cost));
            if x.cost < w.1 {
                *w = (i, x.cost);
            }
        }
        let columns: Vec<Vec<plan::ColumnMeta>> = rels.iter().map(|r| r.op.columns()).collect();
        let key_name = |(r, c): (usize, usize)| {
            let col = columns
                .get(r)
                .and_then(|cs| cs.get(c))
                .map_or("?", |c| c.name.as_str());
            format!("{}.[{col}]", label(1u64 << r))
        };
        for (i, x) in trace.physical.iter().enumerate() {
            let (Some(&g), Some(&og), Some(&ig)) =
                (ids.get(&x.set), ids.get(&x.outer), ids.get(&x.inner))
            else {
                continue;
            };
            let physical = match x.algo {
                JoinAlgo::Hash => "Hash Match (Inner Join)".to_string(),
                JoinAlgo::LoopsSeek => format!(
                    "Nested Loops (Inner Join) over Index Seek {}",
                    label(x.inner)
                ),
                JoinAlgo::Merge => "Merge Join (Inner Join)".to_string(),
                JoinAlgo::Loops => "Nested Loops (Inner Join) over Table Spool".to_string(),
            };
            let properties = x.merge_key.map(|(ko, ki)| {
                let enforcer = |sorted: bool, k| {
                    if sorted {
                        format!("Sort enforcer for order {} ASC", key_name(k))
                    } else {
                        format!("clustered order {} ASC", key_name(k))
                    }
                };
                format!(
                    "requires: outer {}; inner {}; delivers: order {} ASC",
                    enforcer(x.sort_outer, ko),
                    enforcer(x.sort_inner, ki),
                    key_name(ko)
                )
            });
            let winner = winners.get(&x.set).copied();
            let chosen = winner.is_some_and(|w| w.0 == i);
            m.add(
                g,
                Alternative {
                    logical: "Inner Join".into(),
                    physical: Some(physical),
                    rule: x.algo.rule(),
                    children: vec![og, ig],
                    est_rows: cards.get(&x.set).copied(),
                    own_cost: Some(x.own),
                    subtree_cost: Some(x.cost),
                    properties,
                    chosen,
                    why_lost: match winner {
                        Some(w) if !chosen && x.cost == w.1 => {
                            Some("equal cost; the first alternative found was kept".into())
                        }
                        Some(w) if !chosen => Some(memo::higher_cost(x.cost, w.1)),
                        _ => None,
                    },
                },
            );
        }
        m.dropped += trace.dropped;
        if trace.greedy {
            let costs: HashMap<u64, f64> = trace.best.iter().map(|&(s, c, _)| (s, c)).collect();
            record_tree(m, tree, rows, edges, &costs, &label);
        }
    }
}

/// The joins of a greedy tree, one chosen logical alternative each; returns the tree's group.
fn record_tree(
    m: &mut memo::Memo,
    tree: &JoinTree,
    rows: &[f64],
    edges: &[(u64, f64)],
    costs: &HashMap<u64, f64>,
    label: &dyn Fn(u64) -> String,
) -> (u64, u32) {
    match tree {
        JoinTree::Leaf(i) => {
            let set = 1u64 << i;
            (set, m.group(&label(set)))
        }
        JoinTree::Join(a, b) => {
            let (ma, ga) = record_tree(m, a, rows, edges, costs, label);
            let (mb, gb) = record_tree(m, b, rows, edges, costs, label);
            let set = ma | mb;
            let g = m.group(&label(set));
            let card = crate::join_order::card_of(set, rows, edges);
            m.add(
                g,
                Alternative {
                    logical: "Inner Join".into(),
                    physical: None,
                    rule: "JoinOrder",
                    children: vec![ga, gb],
                    est_rows: Some(card),
                    own_cost: None,
                    subtree_cost: costs.get(&set).copied(),
                    properties: Some(
                        "greedy order (the pair with the fewest rows first); cost = its cheapest physical alternative".into(),
                    ),
                    chosen: true,
                    why_lost: None,
                },
            );
            (set, g)
        }
    }
}
