//! Rule `ScanToCoveringSeek`: a table scan whose predicate an index can seek on, where that
//! nonclustered index covers the query — its INCLUDE columns hold every column the plan reads
//! from the table once the seek has consumed its conjuncts — becomes a seek on that index with
//! no Key / RID Lookup, when that costs less than the scan.
//!
//! Why after column pruning: which columns the plan reads is known only once `PruneColumns`
//! has run, while `SelToIdxSeek` (planner.rs) chose seek vs scan before it and priced every
//! nonclustered seek with its lookup. So a non-selective equality (19,990 of 20,000 rows)
//! scans the base table even when a covering index would return the same rows from its much
//! narrower leaf pages. This pass tries each such index on each scan: it rewrites the scan as
//! the seek, re-prunes the plan (the seek's consumed conjuncts no longer read their columns),
//! keeps the rewrite when the seek is covering and its cost (`cost::seek_cost` without the
//! lookup) is below the scan's. Sound: the seek returns the rows of the index range, the
//! residual predicate filters them as the scan's predicate did, and every column read comes
//! from the index's INCLUDE record. Table hints (INDEX, FORCESCAN, FORCESEEK) are left alone.

use catalog::IndexKind;
use plan::{PhysKind, PhysOp, ScalarExpr};

use crate::planner::Planner;

impl Planner<'_> {
    /// Applies `ScanToCoveringSeek` over a pruned plan (see the module doc).
    pub(crate) fn prefer_covering(&mut self, plan: &mut PhysOp) {
        let scans = count_scans(plan);
        // last to first: rewriting scan k leaves the pre-order positions of scans before it
        for k in (0..scans).rev() {
            let Some(scan) = nth_scan(plan, k).cloned() else {
                continue;
            };
            let (PhysKind::TableScan {
                source,
                predicate: Some(pred),
            }
            | PhysKind::ClusteredIndexScan {
                source,
                predicate: Some(pred),
                ..
            }) = &scan.kind
            else {
                continue;
            };
            if !source.hints.index.is_empty() || source.hints.force_scan || source.with_locator {
                continue;
            }
            if !self.informed(&source.table) {
                continue;
            }
            let mut scan_costed = scan.clone();
            self.annotate(&mut scan_costed);
            let mut best_cost = scan_costed.cost.subtree;
            let conj: Vec<ScalarExpr> = pred.clone().into_conjuncts();
            for (ix, index) in source.table.indexes.iter().enumerate() {
                if index.clustered || index.kind != IndexKind::RowStore || index.filter.is_some() {
                    continue;
                }
                let (range, used) =
                    crate::planner::match_index(&conj, &index.key_columns, &source.table);
                if range.eq.is_empty() && range.lower.is_none() && range.upper.is_none() {
                    continue;
                }
                let rest: Vec<ScalarExpr> = conj
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| !used.contains(i))
                    .map(|(_, c)| c.clone())
                    .collect();
                let mut seek = PhysOp::new(
                    PhysKind::IndexSeek {
                        source: source.clone(),
                        index: ix,
                        range,
                        predicate: ScalarExpr::conjunction(rest),
                        backward: false,
                    },
                    scan.columns.clone(),
                    scan.est_rows,
                );
                seek.node_id = scan.node_id;
                let mut candidate = plan.clone();
                if let Some(slot) = nth_scan(&mut candidate, k) {
                    *slot = seek;
                }
                let n = candidate.columns.len();
                crate::prune::prune(&mut candidate, &vec![true; n]);
                let Some(new_seek) = nth_node_of(&mut candidate, &scan_path(plan, k)) else {
                    continue;
                };
                let covered = match &new_seek.kind {
                    PhysKind::IndexSeek { source, index, .. } => source.covered_by(*index),
                    _ => false,
                };
                if !covered {
                    continue;
                }
                let mut costed = new_seek.clone();
                self.annotate(&mut costed);
                if costed.cost.subtree < best_cost {
                    best_cost = costed.cost.subtree;
                    *plan = candidate;
                }
            }
        }
    }
}

/// An unordered forward scan of a heap or clustered index.
fn is_scan(op: &PhysOp) -> bool {
    matches!(
        op.kind,
        PhysKind::TableScan { .. }
            | PhysKind::ClusteredIndexScan {
                ordered: false,
                backward: false,
                ..
            }
    )
}

fn count_scans(op: &PhysOp) -> usize {
    common::stack::grow(|| {
        usize::from(is_scan(op)) + op.children().into_iter().map(count_scans).sum::<usize>()
    })
}

/// The child positions leading from `op` to its `k`-th scan in pre-order.
fn scan_path(op: &PhysOp, k: usize) -> Vec<usize> {
    fn walk(op: &PhysOp, k: &mut usize, path: &mut Vec<usize>) -> bool {
        common::stack::grow(|| walk_unguarded(op, k, path))
    }
    fn walk_unguarded(op: &PhysOp, k: &mut usize, path: &mut Vec<usize>) -> bool {
        if is_scan(op) {
            if *k == 0 {
                return true;
            }
            *k -= 1;
        }
        for (i, c) in op.children().into_iter().enumerate() {
            path.push(i);
            if walk(c, k, path) {
                return true;
            }
            path.pop();
        }
        false
    }
    let mut path = Vec::new();
    let mut k = k;
    walk(op, &mut k, &mut path);
    path
}

fn nth_node_of<'a>(op: &'a mut PhysOp, path: &[usize]) -> Option<&'a mut PhysOp> {
    let Some((&first, rest)) = path.split_first() else {
        return Some(op);
    };
    let child = op.kind.children_mut().into_iter().nth(first)?;
    nth_node_of(child, rest)
}

/// The `k`-th scan of `op` in pre-order.
fn nth_scan(op: &mut PhysOp, k: usize) -> Option<&mut PhysOp> {
    let path = scan_path(op, k);
    let node = nth_node_of(op, &path)?;
    is_scan(node).then_some(node)
}
