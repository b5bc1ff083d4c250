//! Selectivity of a join's residual predicate (what is left of ON / WHERE after the equality
//! keys) from the statistics of the tables its columns come from, instead of a flat 30 %.
//!
//! The case it is for is TPC-H Q19: `(p_brand = 'Brand#12' AND p_container IN (…) AND
//! l_quantity BETWEEN 1 AND 11 AND p_size BETWEEN 1 AND 5) OR (…) OR (…)` over `lineitem ⋈
//! part` — every arm is a conjunction of single-table predicates, but the OR as a whole reads
//! both tables, so it stays on the join. Estimated as SQL Server 2014+ does for disjunctions
//! and conjunctions (exponential backoff):
//! * AND: the conjuncts are grouped by the table they read; each group is priced by that
//!   table's statistics as a table filter would be (two bounds on a column are one range),
//!   and the groups combine by backoff, most selective first: s1 × s2^½ × s3^¼ × s4^⅛;
//! * OR: backoff over the complements: 1 − (1 − s1) × (1 − s2)^½ …;
//! * NOT: the complement;
//! * anything reading two tables, or a column with no base table: 30 % (`OTHER_GUESS`).
//!
//! Each table's selectivity is measured against the whole table (independence: the join's
//! inputs may already be filtered on other columns).

use std::sync::Arc;

use catalog::{Catalog, TableDef};
use plan::*;

use crate::cardinality::{and_backoff, column_origin, StatsCache, OTHER_GUESS};

/// Nesting depth past which a subexpression gets the flat guess (bounded recursion).
const MAX_DEPTH: usize = 32;

/// Selectivity of the conjunction `residual` over the output of `left JOIN right` (columns:
/// left's, then right's). 1.0 for an empty residual.
pub(crate) fn selectivity(
    stats: &mut StatsCache,
    catalog: &dyn Catalog,
    left: &PhysOp,
    right: &PhysOp,
    residual: &[ScalarExpr],
) -> f64 {
    if residual.is_empty() {
        return 1.0;
    }
    let mut est = Estimator {
        stats,
        catalog,
        left,
        right,
    };
    est.conjunction(residual, 0).clamp(0.0, 1.0)
}

struct Estimator<'a> {
    stats: &'a mut StatsCache,
    catalog: &'a dyn Catalog,
    left: &'a PhysOp,
    right: &'a PhysOp,
}

impl Estimator<'_> {
    /// The base table every column of `e` reads, and `e` over that table's columns.
    fn single_table(&self, e: &ScalarExpr) -> Option<(Arc<TableDef>, ScalarExpr)> {
        if e.has_subquery() {
            return None;
        }
        let mut cols = Vec::new();
        e.columns_used(&mut cols);
        let la = self.left.columns.len();
        let mut table: Option<Arc<TableDef>> = None;
        let mut map = Vec::new();
        for c in cols {
            let origin = if c < la {
                column_origin(self.left, c)
            } else {
                column_origin(self.right, c - la)
            };
            let (t, base) = origin?;
            match &table {
                Some(x) if !Arc::ptr_eq(x, &t) => return None,
                Some(_) => {}
                None => table = Some(t),
            }
            map.push((c, base));
        }
        let table = table?;
        let mut e = e.clone();
        e.remap_columns(&|c| {
            map.iter()
                .find(|(from, _)| *from == c)
                .map_or(c, |(_, to)| *to)
        });
        Some((table, e))
    }

    fn conjunction(&mut self, conj: &[ScalarExpr], depth: usize) -> f64 {
        // conjuncts over one table are priced together (ranges), the rest one by one
        let mut groups: Vec<(Arc<TableDef>, Vec<ScalarExpr>)> = Vec::new();
        let mut sels = Vec::new();
        for c in conj {
            match self.single_table(c) {
                Some((t, e)) => match groups.iter_mut().find(|(x, _)| Arc::ptr_eq(x, &t)) {
                    Some((_, v)) => v.push(e),
                    None => groups.push((t, vec![e])),
                },
                _ => sels.push(self.one(c, depth + 1)),
            }
        }
        for (t, preds) in groups {
            let mut cols = Vec::new();
            preds.iter().for_each(|p| p.columns_used(&mut cols));
            cols.sort_unstable();
            cols.dedup();
            let ts = self.stats.get_with(self.catalog, &t, &cols);
            sels.push(ts.conj_selectivity(&preds));
        }
        and_backoff(sels)
    }

    fn one(&mut self, e: &ScalarExpr, depth: usize) -> f64 {
        if depth > MAX_DEPTH {
            return OTHER_GUESS;
        }
        match &e.kind {
            ScalarKind::And(v) => self.conjunction(v, depth),
            ScalarKind::Or(v) => {
                let c: Vec<f64> = v.iter().map(|x| 1.0 - self.one(x, depth + 1)).collect();
                1.0 - and_backoff(c)
            }
            ScalarKind::Not(x) => 1.0 - self.one(x, depth + 1),
            _ => match self.single_table(e) {
                Some((t, e)) => {
                    let mut cols = Vec::new();
                    e.columns_used(&mut cols);
                    self.stats.get_with(self.catalog, &t, &cols).selectivity(&e)
                }
                None => OTHER_GUESS,
            },
        }
    }
}
