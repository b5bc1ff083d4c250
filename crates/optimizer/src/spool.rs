//! Rule `BuildSpool` (SQL Server's name): a performance spool — Table Spool (Lazy Spool) — on
//! the inner side of nested loops whose inner side does not read the loop's outer row (a join
//! without equality keys, a LOOP JOIN hint without a usable index, the anti semi join of
//! `x > ALL (...)`): the inner side returns the same rows on every execution, so the spool
//! reads it once and replays the rows for every further outer row (exec `spool.rs`; it also
//! re-reads when parameter values of an enclosing loop change).
//!
//! Costed: the spool is built when the outer side is estimated at two or more rows and the
//! re-executions it saves, (outer rows − 1) × (one execution of the inner side − replaying its
//! rows), outweigh keeping the rows once. `OPTION (NO_PERFORMANCE_SPOOL)` switches the rule
//! off (the engine maps the hint onto QUERYRULEOFF BuildSpool), as does QUERYRULEOFF.
//!
//! Sound: a plan whose inner side reads no value of the outer row produces the same rows on
//! every execution (deterministic functions aside, as in SQL Server's spools).

use plan::{PhysKind, PhysOp};

use crate::cost::{SPOOL_ROW, SPOOL_WRITE_ROW};
use crate::planner::Planner;

impl Planner<'_> {
    /// `inner` under a Table Spool when BuildSpool applies and pays off for `outer_rows`.
    pub(crate) fn spool_inner(&mut self, outer_rows: f64, inner: PhysOp) -> PhysOp {
        if !self.enabled("BuildSpool")
            || outer_rows < 2.0
            || matches!(
                inner.kind,
                PhysKind::TableSpool { .. } | PhysKind::ConstantScan { .. }
            )
        {
            return inner;
        }
        let mut once = inner.clone();
        self.annotate(&mut once);
        let rows = inner.est_rows.max(0.0);
        let saved = (outer_rows - 1.0) * (once.cost.subtree - SPOOL_ROW * rows);
        if saved <= SPOOL_WRITE_ROW * rows {
            return inner;
        }
        let columns = inner.columns.clone();
        let mut n = self.node(
            PhysKind::TableSpool {
                input: Box::new(inner),
            },
            columns,
        );
        n.est_rows = rows;
        n
    }
}
