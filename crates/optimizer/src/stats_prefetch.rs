//! Statistics asked for once per table before a query is planned (SQL Server too loads a
//! statement's statistics in one step before its cost-based search, creating the missing
//! automatic ones on predicate, join and grouping columns).
//!
//! Without this step the planner asked the catalog as it went: a table's row count first (which
//! builds its never-built index statistics), then its filter columns when its access path was
//! planned, then each join column when a join was estimated. Every ask that found a column
//! without statistics cost the catalog one more sampled read of the table's pages (a first
//! compile of TPC-H q03 read orders three times). Here the logical tree is walked once, each
//! base table's interesting columns gathered — the columns of its single-table predicates (all
//! of them, as the access path planning asks), the columns of `a.x = b.y` join predicates and
//! a grouping's first key column — and the catalog asked once per table
//! ([`StatsCache::get_with`]): the automatic statistics of one table come from one sample. The
//! planner's later asks for the same columns hit the statement's cache; a column found later
//! (a decorrelated subquery's join column) is still asked then.
//!
//! The columns asked are those the planner asks itself on its way; the order is the same too
//! (filter columns ascending, then join and grouping columns as met), so automatic statistics
//! keep their names and stats_ids.

use std::sync::Arc;

use catalog::{Catalog, TableDef};
use plan::{CmpOp, JoinKind, LogicalOp, ScalarExpr, ScalarKind, SubqueryPlan};

use crate::cardinality::StatsCache;

/// An output column's origin: (index into [`Gathered::tables`], table column).
type Origin = Option<(usize, usize)>;

/// The tables met and the columns to ask about per table.
#[derive(Default)]
struct Gathered {
    /// (table, filter columns, join and grouping columns), in the order met.
    tables: Vec<(Arc<TableDef>, Vec<usize>, Vec<usize>)>,
}

impl Gathered {
    fn table(&mut self, t: &Arc<TableDef>) -> usize {
        match self.tables.iter().position(|(x, _, _)| {
            Arc::ptr_eq(x, t) || (x.object_id == t.object_id && x.database == t.database)
        }) {
            Some(i) => i,
            None => {
                self.tables.push((t.clone(), Vec::new(), Vec::new()));
                self.tables.len() - 1
            }
        }
    }

    fn filter(&mut self, (t, c): (usize, usize)) {
        let cols = &mut self.tables[t].1;
        if !cols.contains(&c) {
            cols.push(c);
        }
    }

    fn other(&mut self, (t, c): (usize, usize)) {
        let cols = &mut self.tables[t].2;
        if !cols.contains(&c) {
            cols.push(c);
        }
    }

    /// One conjunct over columns of `origins`: a single-table predicate asks for all its
    /// columns (filter), `a.x = b.y` across two tables for both join columns, others nothing.
    /// `filters`: whether single-table predicates count (not those of an outer join's ON).
    fn conjunct(&mut self, p: &ScalarExpr, origins: &[Origin], filters: bool) {
        let mut used = Vec::new();
        p.columns_used(&mut used);
        let mapped: Option<Vec<(usize, usize)>> = used
            .iter()
            .map(|&c| origins.get(c).copied().flatten())
            .collect();
        let Some(mapped) = mapped else {
            return;
        };
        let Some(&(first, _)) = mapped.first() else {
            return;
        };
        if mapped.iter().all(|&(t, _)| t == first) {
            if filters && !p.has_subquery() {
                for m in mapped {
                    self.filter(m);
                }
            }
            return;
        }
        if let ScalarKind::Compare(CmpOp::Eq, a, b) = &p.kind {
            if let (Some(a), Some(b)) = (a.as_column(), b.as_column()) {
                if let (Some(Some(x)), Some(Some(y))) = (origins.get(a), origins.get(b)) {
                    self.other(*x);
                    self.other(*y);
                }
            }
        }
    }

    /// The origins of `op`'s output columns, gathering the columns its predicates, joins and
    /// groupings read (and those of the subqueries inside them).
    fn walk(&mut self, op: &LogicalOp) -> Vec<Origin> {
        common::stack::grow(|| self.walk_unguarded(op))
    }

    fn walk_unguarded(&mut self, op: &LogicalOp) -> Vec<Origin> {
        match op {
            LogicalOp::Get(src) => {
                let t = self.table(&src.table);
                let mut o: Vec<Origin> =
                    (0..src.table.columns.len()).map(|c| Some((t, c))).collect();
                if src.with_locator {
                    o.push(None);
                }
                o
            }
            LogicalOp::Filter { input, predicate } => {
                let o = self.walk(input);
                self.subqueries(predicate);
                for c in conjuncts(predicate) {
                    self.conjunct(c, &o, true);
                }
                o
            }
            LogicalOp::Project { input, exprs, .. } => {
                let o = self.walk(input);
                exprs
                    .iter()
                    .map(|e| {
                        self.subqueries(e);
                        e.as_column().and_then(|c| o.get(c).copied().flatten())
                    })
                    .collect()
            }
            LogicalOp::Join {
                left,
                right,
                kind,
                on,
                ..
            } => {
                let l = self.walk(left);
                let r = self.walk(right);
                let both: Vec<Origin> = l.iter().chain(&r).copied().collect();
                if let Some(on) = on {
                    self.subqueries(on);
                    let filters = matches!(kind, JoinKind::Inner | JoinKind::Cross);
                    for c in conjuncts(on) {
                        self.conjunct(c, &both, filters);
                    }
                }
                join_output(*kind, l, r)
            }
            LogicalOp::Apply {
                outer,
                inner,
                kind,
                params,
            } => {
                let l = self.walk(outer);
                for (_, e) in params {
                    self.subqueries(e);
                }
                let r = self.walk(inner);
                join_output(*kind, l, r)
            }
            LogicalOp::Aggregate {
                input,
                group_by,
                aggs,
                ..
            } => {
                let o = self.walk(input);
                let mut out: Vec<Origin> = group_by
                    .iter()
                    .map(|g| g.as_column().and_then(|c| o.get(c).copied().flatten()))
                    .collect();
                // the planner's group estimate asks for the keys' base columns in order until
                // their product reaches the input's rows (cardinality.rs group_rows_over):
                // the first always — when every key is computed from base columns — and the
                // others only as the estimates go, so only the first is asked here
                let traced = group_by.iter().all(|g| {
                    let mut used = Vec::new();
                    g.columns_used(&mut used);
                    !g.has_subquery() && used.iter().all(|&c| o.get(c).copied().flatten().is_some())
                });
                if let (true, Some(Some(first))) = (traced, out.first()) {
                    self.other(*first);
                }
                out.extend(aggs.iter().map(|_| None));
                out
            }
            LogicalOp::Window { input, calls } => {
                let mut o = self.walk(input);
                o.extend(calls.iter().map(|_| None));
                o
            }
            LogicalOp::Sort { input, .. }
            | LogicalOp::Top { input, .. }
            | LogicalOp::Distinct { input } => self.walk(input),
            LogicalOp::SetOp { left, right, .. } => {
                self.walk(left);
                self.walk(right);
                vec![None; op.arity()]
            }
            LogicalOp::RecursiveCte {
                anchor, recursive, ..
            } => {
                self.walk(anchor);
                self.walk(recursive);
                vec![None; op.arity()]
            }
            LogicalOp::VirtualGet { .. }
            | LogicalOp::Values { .. }
            | LogicalOp::WorkTable { .. }
            | LogicalOp::TableFunction { .. } => vec![None; op.arity()],
        }
    }

    /// Walks the plans of the subqueries inside `e` (their own tables' predicates).
    fn subqueries(&mut self, e: &ScalarExpr) {
        if !e.has_subquery() {
            return;
        }
        match &e.kind {
            ScalarKind::ScalarSubquery(s)
            | ScalarKind::Exists(s)
            | ScalarKind::InSubquery { subquery: s, .. }
            | ScalarKind::Quantified { subquery: s, .. } => {
                if let SubqueryPlan::Logical(op) = &s.plan {
                    self.walk(op);
                }
            }
            _ => {}
        }
        for c in e.children() {
            self.subqueries(c);
        }
    }
}

/// A join's output origins from its inputs'.
fn join_output(kind: JoinKind, mut l: Vec<Origin>, r: Vec<Origin>) -> Vec<Origin> {
    if !kind.outputs_left() {
        return r;
    }
    if kind.outputs_right() {
        l.extend(r);
    }
    l
}

/// The conjuncts of a predicate (ANDs flattened).
fn conjuncts(p: &ScalarExpr) -> Vec<&ScalarExpr> {
    let mut out = Vec::new();
    let mut pending = vec![p];
    while let Some(e) = pending.pop() {
        match &e.kind {
            ScalarKind::And(v) => pending.extend(v.iter().rev()),
            _ => out.push(e),
        }
    }
    out
}

/// Asks the catalog, once per base table of `root`, for the statistics of every column the
/// planner will estimate with (module doc).
pub(crate) fn prefetch(stats: &mut StatsCache, catalog: &dyn Catalog, root: &LogicalOp) {
    let mut g = Gathered::default();
    g.walk(root);
    for (table, mut filter, other) in g.tables {
        filter.sort_unstable();
        let mut cols = filter;
        for c in other {
            if !cols.contains(&c) {
                cols.push(c);
            }
        }
        stats.get_with(catalog, &table, &cols);
    }
}
