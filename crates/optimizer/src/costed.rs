//! The planner's costed decisions (an `impl Planner` beside planner.rs): whether a table's
//! rows are known, the final cost pass, join cardinalities, JoinOrder's rebuilt join tree and
//! JoinCommute's swapped alternatives. planner.rs calls them where it plans joins.

use std::sync::Arc;

use common::SqlResult;
use plan::*;

use crate::planner::Planner;

/// An equality edge of a join search: (edge index, (relation, column), (relation, column)).
type EquiEdge = (usize, (usize, usize), (usize, usize));

impl Planner<'_> {
    /// Whether the catalog knows the table's rows (or has statistics on it): costs then decide
    /// between alternatives; otherwise the rule-based preferences stand.
    pub(crate) fn informed(&mut self, table: &Arc<catalog::TableDef>) -> bool {
        self.stats.get(self.catalog, table).known
    }

    /// Fills the cost figures of a finished (sub)plan.
    pub fn annotate(&mut self, op: &mut PhysOp) {
        let (catalog, stats) = (self.catalog, &mut self.stats);
        crate::cost::annotate(op, 1.0, &mut |t| stats.get(catalog, t).rows);
    }

    /// Rows of an equi-join node from its inputs and key expressions (containment).
    pub(crate) fn join_estimate(
        &mut self,
        left: &PhysOp,
        right: &PhysOp,
        lkeys: &[ScalarExpr],
        rkeys: &[ScalarExpr],
        kind: JoinKind,
        residual: &[ScalarExpr],
    ) -> f64 {
        let keys: Vec<(Option<usize>, Option<usize>)> = lkeys
            .iter()
            .zip(rkeys)
            .map(|(l, r)| (l.as_column(), r.as_column()))
            .collect();
        let mut inner = self.stats.join_rows(self.catalog, left, right, &keys);
        if !residual.is_empty() {
            // from the statistics of the tables the residual reads (30 % where none)
            let (catalog, stats) = (self.catalog, &mut self.stats);
            inner *= crate::residual_estimate::selectivity(stats, catalog, left, right, residual);
        }
        let (l, r) = (left.est_rows, right.est_rows);
        match kind {
            JoinKind::LeftSemi => inner.min(l),
            JoinKind::LeftAntiSemi => (l - inner.min(l))
                .max(l * crate::row_goal::ANTI_SEMI_MIN_FRACTION)
                .max(1.0),
            JoinKind::LeftOuter => inner.max(l),
            JoinKind::RightOuter => inner.max(r),
            JoinKind::FullOuter => inner.max(l).max(r),
            _ => inner,
        }
    }

    /// Two or more equalities between the same two relations of a join search are one
    /// composite key (composite_key.rs): the first edge carries their joint selectivity, the
    /// others 1 (the search multiplies its edges' selectivities).
    fn composite_key_edges(
        &mut self,
        phys: &[PhysOp],
        equi_edges: &[EquiEdge],
        edges: &mut [(u64, f64)],
    ) {
        let mut done = vec![false; equi_edges.len()];
        for k in 0..equi_edges.len() {
            if done[k] {
                continue;
            }
            let (a, b) = (equi_edges[k].1 .0, equi_edges[k].2 .0);
            let mut group = Vec::new();
            let mut pairs = Vec::new();
            for (m, &(e, (i, ci), (j, cj))) in equi_edges.iter().enumerate().skip(k) {
                let pair = if (i, j) == (a, b) {
                    (ci, cj)
                } else if (i, j) == (b, a) {
                    (cj, ci)
                } else {
                    continue;
                };
                done[m] = true;
                if !pairs.contains(&pair) {
                    group.push(e);
                    pairs.push(pair);
                }
            }
            if pairs.len() < 2 {
                continue;
            }
            let per_pair: Vec<f64> = group.iter().map(|&e| edges[e].1).collect();
            let sel = self.stats.multi_key_selectivity(
                self.catalog,
                &phys[a],
                &phys[b],
                &pairs,
                per_pair,
            );
            for (n, &e) in group.iter().enumerate() {
                edges[e].1 = if n == 0 { sel } else { 1.0 };
            }
        }
    }

    /// JoinOrder (join_order.rs, join_search.rs): a tree of three or more inner joins over
    /// tables whose row counts are known, planned in the order and with the implementations of
    /// the cheapest plan the costed search found (`goal`: a row goal is on the result, so each
    /// join's implementation is left to the planner's choice under it); None leaves the
    /// written order.
    pub(crate) fn reorder_joins(
        &mut self,
        left: &LogicalOp,
        right: &LogicalOp,
        on: Option<&ScalarExpr>,
        columns: &[ColumnMeta],
        goal: bool,
    ) -> SqlResult<Option<PhysOp>> {
        use crate::{join_order, join_search, memo};
        let Some(flat) = join_order::flatten(left, right, on) else {
            return Ok(None);
        };
        let mut phys = Vec::with_capacity(flat.rels.len());
        // the relations are planned here only for their estimates: not recorded in the memo
        let memo = self.memo.take();
        let mut planned = Ok(true);
        for r in &flat.rels {
            if let Some(t) = base_table(&r.op) {
                if !self.informed(&t) {
                    planned = Ok(false);
                    break;
                }
            }
            match self.op(r.op.clone()) {
                Ok(p) => phys.push(p),
                Err(e) => {
                    planned = Err(e);
                    break;
                }
            }
        }
        self.memo = memo;
        if !planned? {
            return Ok(None);
        }
        let rows: Vec<f64> = phys.iter().map(|p| p.est_rows).collect();
        let mut edges = Vec::with_capacity(flat.preds.len());
        let mut preds = Vec::with_capacity(flat.preds.len());
        let mut equis = Vec::new();
        let mut equi_edges: Vec<EquiEdge> = Vec::new();
        for p in flat.preds {
            let mask = join_order::rel_mask(&p, &flat.rels);
            let sel = match join_order::equi_columns(&p, &flat.rels) {
                Some(((i, ci), (j, cj))) => {
                    let di = self.stats.distinct(self.catalog, &phys[i], ci);
                    let dj = self.stats.distinct(self.catalog, &phys[j], cj);
                    let (ti, tj) = (
                        &phys[i].columns[ci].data_type,
                        &phys[j].columns[cj].data_type,
                    );
                    equis.push(join_search::Equi {
                        a: (i, ci),
                        b: (j, cj),
                        seek_into_a: self.seek_per_row(&flat.rels[i].op, &phys[i], ci, tj),
                        seek_into_b: self.seek_per_row(&flat.rels[j].op, &phys[j], cj, ti),
                        mergeable: ti.is_integer() && tj.is_integer(),
                    });
                    equi_edges.push((edges.len(), (i, ci), (j, cj)));
                    crate::cardinality::equi_selectivity(di, dj, rows[i], rows[j])
                }
                None => crate::cardinality::OTHER_GUESS,
            };
            edges.push((mask, sel));
            preds.push((mask, p));
        }
        self.composite_key_edges(&phys, &equi_edges, &mut edges);
        let rels: Vec<join_search::RelInput> = phys
            .iter_mut()
            .map(|p| {
                self.annotate(p);
                join_search::RelInput {
                    rows: p.est_rows,
                    cost: p.cost.subtree,
                    order: clustered_order(p),
                    width: crate::cost::row_width(&p.columns),
                }
            })
            .collect();
        let input = join_search::SearchInput {
            rels: &rels,
            edges: &edges,
            equis: &equis,
            rules: join_search::SearchRules {
                loops_seek: self.enabled("JNtoIdxLookup"),
                merge: self.enabled("JoinToMerge"),
                commute: self.enabled("JoinCommute"),
            },
        };
        let mut trace = self.memo.as_ref().map(|_| join_order::DpTrace::default());
        let searched = join_search::search(&input, &mut self.search, trace.as_mut());
        let tree = &searched.tree;
        self.memo_join_order(&flat.rels, trace, tree, &rows, &edges);
        // the winner is extracted: each join of the tree is planned with the implementation the
        // search chose for it (under a row goal the planner's own choice per join stands: the
        // search costs full results)
        let labels: Vec<String> = flat.rels.iter().map(|r| memo::label_of(&r.op)).collect();
        let label = |set: u64| {
            memo::label_from(
                (0..labels.len())
                    .filter(|i| set & (1 << i) != 0)
                    .flat_map(|i| {
                        labels[i]
                            .trim_start_matches('{')
                            .trim_end_matches('}')
                            .split(", ")
                            .filter(|n| !n.is_empty())
                            .map(str::to_string)
                            .collect::<Vec<_>>()
                    })
                    .collect(),
            )
        };
        let extracted: Vec<(String, String, join_search::JoinAlgo)> = if goal {
            Vec::new()
        } else {
            searched
                .joins
                .iter()
                .map(|j| (label(j.outer), label(j.inner), j.algo))
                .collect()
        };
        let offsets: Vec<(usize, usize)> = flat.rels.iter().map(|r| (r.offset, r.arity)).collect();
        let mut rels: Vec<Option<LogicalOp>> = flat.rels.into_iter().map(|r| Some(r.op)).collect();
        let (mut op, layout, _) = join_order::build(tree, &mut rels, &offsets, &mut preds);
        let position = |g: usize| layout.iter().position(|&x| x == g).unwrap_or(g);
        // predicates over no relation (constants, variables) filter the result
        let rest: Vec<ScalarExpr> = preds
            .into_iter()
            .map(|(_, mut p)| {
                p.remap_columns(&position);
                p
            })
            .collect();
        if let Some(p) = ScalarExpr::conjunction(rest) {
            op = LogicalOp::Filter {
                input: Box::new(op),
                predicate: p,
            };
        }
        let exprs = (0..columns.len())
            .map(|g| ScalarExpr::column(position(g), columns[g].data_type.clone()))
            .collect();
        let project = LogicalOp::Project {
            input: Box::new(op),
            exprs,
            columns: columns.to_vec(),
        };
        self.reordering = true;
        let outer_extracted = std::mem::replace(&mut self.extracted, extracted);
        let planned = self.op(project);
        self.extracted = outer_extracted;
        self.reordering = false;
        planned.map(Some)
    }

    /// The cost of one index seek into relation `op` (a base table read) on local column `col`
    /// for one outer value of type `outer_type`: the cheapest index led by the column, returning
    /// the rows one value matches (rows / distinct values), lookups included. None when no
    /// index serves it (what `index_lookup` would find).
    fn seek_per_row(
        &mut self,
        op: &LogicalOp,
        phys: &PhysOp,
        col: usize,
        outer_type: &types::DataType,
    ) -> Option<crate::cost::SeekCost> {
        let LogicalOp::Get(src) = op else {
            return None;
        };
        let table = &src.table;
        let column = table.columns.get(col)?;
        if !crate::planner::seek_compatible(outer_type, &column.data_type) {
            return None;
        }
        let table_rows = self.stats.get(self.catalog, table).rows;
        let distinct = self
            .stats
            .distinct(self.catalog, phys, col)
            .unwrap_or(table_rows)
            .max(1.0);
        let per_value = (table_rows / distinct).max(1.0);
        table
            .indexes
            .iter()
            .enumerate()
            .filter(|(_, ix)| {
                ix.kind == catalog::IndexKind::RowStore
                    && ix.filter.is_none()
                    && ix.key_columns.first().is_some_and(|&(c, _)| c == col)
            })
            .map(|(i, _)| {
                let (io, cpu) =
                    crate::cost::seek_cost(table, table_rows, i, per_value, src.covered_by(i));
                crate::cost::SeekCost {
                    io,
                    cpu,
                    pages: crate::cost::seek_pages(table, table_rows, i),
                }
            })
            .reduce(|a, b| if b.io + b.cpu < a.io + a.cpu { b } else { a })
    }

    /// The implementation the join search chose for the join of `left` with `right` (its
    /// extracted winner), when this join is one of a tree it ordered.
    pub(crate) fn extracted_algo(
        &self,
        left: &LogicalOp,
        right: &LogicalOp,
    ) -> Option<crate::join_search::JoinAlgo> {
        if self.extracted.is_empty() {
            return None;
        }
        let (l, r) = (crate::memo::label_of(left), crate::memo::label_of(right));
        self.extracted
            .iter()
            .find(|(o, i, _)| *o == l && *i == r)
            .map(|e| e.2)
    }

    /// JoinCommute: the inner equi-join `hash` (left ++ right) with its inputs swapped, behind
    /// a projection that puts the columns back in order: nested loops seeking into the left
    /// table when it is a base table with an index on its keys, and a hash join building on
    /// the left input when the right one is large (over [`COMMUTE_BUILD_ROWS`] rows and four
    /// times the left; below that both builds are cheap and the written sides stay).
    pub(crate) fn commuted_join(
        &mut self,
        hash: &PhysOp,
        left_get: Option<TableSource>,
        la: usize,
        ra: usize,
        columns: &[ColumnMeta],
    ) -> SqlResult<Vec<PhysOp>> {
        let PhysKind::HashJoin {
            left,
            right,
            left_keys,
            right_keys,
            residual,
            ..
        } = &hash.kind
        else {
            return Ok(vec![]);
        };
        let swap_cols = |i: usize| if i < la { i + ra } else { i - la };
        let residual_sw: Vec<ScalarExpr> = residual
            .iter()
            .map(|r| {
                let mut r = r.clone();
                r.remap_columns(&swap_cols);
                r
            })
            .collect();
        let swapped_cols: Vec<ColumnMeta> = columns[la..]
            .iter()
            .chain(columns[..la].iter())
            .cloned()
            .collect();
        let mut out = Vec::new();
        if let Some(src) = left_get {
            if let Some(n) = self.index_lookup(
                (**right).clone(),
                src,
                right_keys,
                left_keys,
                &residual_sw,
                JoinKind::Inner,
                swapped_cols.clone(),
            )? {
                out.push(n);
            }
        }
        if right.est_rows > COMMUTE_BUILD_ROWS && right.est_rows > 4.0 * left.est_rows {
            let mut n = self.node(
                PhysKind::HashJoin {
                    left: right.clone(),
                    right: left.clone(),
                    kind: JoinKind::Inner,
                    left_keys: right_keys.clone(),
                    right_keys: left_keys.clone(),
                    residual: ScalarExpr::conjunction(residual_sw),
                },
                swapped_cols,
            );
            n.est_rows = hash.est_rows;
            out.push(n);
        }
        Ok(out
            .into_iter()
            .map(|j| {
                let e = j.est_rows;
                let exprs = (0..la + ra)
                    .map(|i| ScalarExpr::column(swap_cols(i), columns[i].data_type.clone()))
                    .collect();
                let mut p = self.node(
                    PhysKind::ComputeScalar {
                        input: Box::new(j),
                        exprs,
                    },
                    columns.to_vec(),
                );
                p.est_rows = e;
                p
            })
            .collect())
    }
}

impl Planner<'_> {
    /// The semi / anti semi hash join `hash` (probing with its preserved left input, building
    /// on the subquery input) with its inputs swapped: a Right Semi / Right Anti Semi Join
    /// that builds on the preserved input and probes with the subquery input. Offered when
    /// the subquery input is large (over [`COMMUTE_BUILD_ROWS`] rows and four times the
    /// preserved input, as JoinCommute's inner joins): its rows then stream past a small
    /// table instead of being hashed. The output is the preserved input's columns either way.
    pub(crate) fn swapped_semi_join(&mut self, hash: &PhysOp, la: usize) -> Option<PhysOp> {
        let PhysKind::HashJoin {
            left,
            right,
            kind: kind @ (JoinKind::LeftSemi | JoinKind::LeftAntiSemi),
            left_keys,
            right_keys,
            residual,
        } = &hash.kind
        else {
            return None;
        };
        if left_keys.is_empty()
            || right.est_rows <= COMMUTE_BUILD_ROWS
            || right.est_rows <= 4.0 * left.est_rows
        {
            return None;
        }
        let ra = right.columns.len();
        // the residual reads probe ++ build: (subquery ++ preserved) now
        let residual = residual.clone().map(|mut r| {
            r.remap_columns(&|i| if i < la { i + ra } else { i - la });
            r
        });
        let mut n = self.node(
            PhysKind::HashJoin {
                left: right.clone(),
                right: left.clone(),
                kind: kind.swapped(),
                left_keys: right_keys.clone(),
                right_keys: left_keys.clone(),
                residual,
            },
            hash.columns.clone(),
        );
        n.est_rows = hash.est_rows;
        Some(n)
    }
}

/// The table a relation reads when it is a (filtered) base table.
pub(crate) fn base_table(op: &LogicalOp) -> Option<Arc<catalog::TableDef>> {
    match op {
        LogicalOp::Get(src) => Some(src.table.clone()),
        LogicalOp::Filter { input, .. } => base_table(input),
        _ => None,
    }
}

/// The local column a relation's plan can be read in order on: the leading key of the
/// clustered index it scans (through filters), as `try_ordered_scan` makes it ordered.
fn clustered_order(op: &PhysOp) -> Option<usize> {
    match &op.kind {
        PhysKind::Filter { input, .. } => clustered_order(input),
        PhysKind::ClusteredIndexScan { source, .. } => source
            .table
            .clustered_index()
            .and_then(|ci| ci.key_columns.first())
            .map(|&(c, _)| c),
        _ => None,
    }
}

/// Rows above which a hash join's build input is worth swapping to the smaller side.
const COMMUTE_BUILD_ROWS: f64 = 1000.0;
