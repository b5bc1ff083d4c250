//! Per-operator actual counters (actual plans: `SET STATISTICS XML / PROFILE ON`).
//!
//! Every operator a plan shows is wrapped by [`crate::operator::build`] in [`Counted`], which
//! counts its rows, executions (opens) and end-of-scans in its own fields and adds them to
//! [`ExecCtx::actuals`] (indexed by the operator's `PhysOp::node_id`) when it is dropped, so a
//! row costs one plain add and a predictable branch. Elapsed times are taken only when the
//! environment hands a CPU clock ([`crate::ExecEnv::op_cpu_clock`]), because reading a clock
//! per row is not free; CPU times are then apportioned from them ([`apportion_cpu`]). Times
//! are inclusive of the children, as SQL Server's row-mode counters are. Even a vDSO clock
//! read around every row cost 25–50 % of a row-mode aggregate or join, so an operator times
//! its first [`TIMED_EXACTLY`] calls and then one call in [`TIME_ONE_IN`], counting each
//! sampled call [`TIME_ONE_IN`] times (an unbiased estimate of the total; exec README "Actual
//! counters" has the measured cost). Every operator of a statement is dropped before `execute` returns, so its
//! `ExecSummary::actuals` is complete.

use std::time::Instant;

use common::SqlResult;
use types::Value;

use crate::context::ExecCtx;
use crate::operator::{BoxOp, Operator};

/// Counters of one operator over one statement execution (one thread).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpActuals {
    pub rows: u64,
    /// Opens (1 + rebinds: the inner side of nested loops opens once per outer row).
    pub executions: u64,
    /// Times the operator reported its end.
    pub end_of_scans: u64,
    /// Inclusive elapsed and thread CPU time in µs (0 unless timing was on).
    pub elapsed_us: u64,
    pub cpu_us: u64,
    /// A Table Spool's executions that read its input (rebinds) and that replayed the kept
    /// rows (rewinds); 0 for every other operator.
    pub rebinds: u64,
    pub rewinds: u64,
    /// Batches the operator processed in batch mode (0: it ran in row mode); showplan's
    /// `Batches` and `ActualExecutionMode`.
    pub batches: u64,
}

/// `node`'s counters in the statement's, grown to hold it.
fn slot(all: &mut Vec<OpActuals>, node: u32) -> &mut OpActuals {
    let node = node as usize;
    if node >= all.len() {
        all.resize(node + 1, OpActuals::default());
    }
    &mut all[node]
}

/// Adds a parallel worker's counters (its own `ExecCtx::actuals`) to the statement's: an
/// operator of a zone ran once per worker, so its rows, executions and times add up.
pub(crate) fn add_worker_actuals(ctx: &ExecCtx, worker: &[OpActuals]) {
    let Ok(mut all) = ctx.actuals.try_borrow_mut() else {
        return;
    };
    if worker.len() > all.len() {
        all.resize(worker.len(), OpActuals::default());
    }
    for (a, w) in all.iter_mut().zip(worker) {
        a.rows += w.rows;
        a.executions += w.executions;
        a.end_of_scans += w.end_of_scans;
        a.elapsed_us += w.elapsed_us;
        a.cpu_us += w.cpu_us;
        a.rebinds += w.rebinds;
        a.rewinds += w.rewinds;
        a.batches += w.batches;
    }
}

/// Adds `rows` and `executions` (each with its end of scan) to `node`: operators the
/// coordinator of a parallel aggregate stands in for (its exchange, the workers' partial
/// aggregates), which are not [`Counted`] operators.
pub(crate) fn add_node_counts(ctx: &ExecCtx, node: u32, rows: u64, executions: u64) {
    if node == plan::HIDDEN_NODE {
        return;
    }
    let Ok(mut all) = ctx.actuals.try_borrow_mut() else {
        return;
    };
    let a = slot(&mut all, node);
    a.rows += rows;
    a.executions += executions;
    a.end_of_scans += executions;
}

/// Adds the counters of a batch-mode operator (exec/src/batch: its nodes are not
/// [`Counted`] operators) to the statement's.
pub(crate) fn add_batch_counts(ctx: &ExecCtx, node: u32, rows: u64, batches: u64) {
    if node == plan::HIDDEN_NODE {
        return;
    }
    let Ok(mut all) = ctx.actuals.try_borrow_mut() else {
        return;
    };
    let a = slot(&mut all, node);
    a.rows += rows;
    a.batches += batches;
}

/// Marks `node`'s execution (one open, one end of scan) for a batch-mode pipeline node.
pub(crate) fn add_batch_execution(ctx: &ExecCtx, node: u32) {
    if node == plan::HIDDEN_NODE {
        return;
    }
    let Ok(mut all) = ctx.actuals.try_borrow_mut() else {
        return;
    };
    let a = slot(&mut all, node);
    a.executions += 1;
    a.end_of_scans += 1;
}

/// The statement's counters, shared by its operators (each adds its own on drop).
pub(crate) type SharedActuals = std::rc::Rc<std::cell::RefCell<Vec<OpActuals>>>;

/// Calls of an operator timed one by one before it samples.
pub(crate) const TIMED_EXACTLY: u64 = 256;
/// Past [`TIMED_EXACTLY`] calls, one call in this many is timed (a power of two).
pub(crate) const TIME_ONE_IN: u64 = 16;

/// Whether call number `call` (from 1) of an operator is timed, and how many calls its time
/// stands for.
#[inline]
fn timing_weight(call: u64) -> Option<u64> {
    if call <= TIMED_EXACTLY {
        Some(1)
    } else if call.is_multiple_of(TIME_ONE_IN) {
        Some(TIME_ONE_IN)
    } else {
        None
    }
}

/// Wraps an operator to count its activity under `node`.
pub(crate) struct Counted<'p> {
    inner: BoxOp<'p>,
    node: usize,
    counts: OpActuals,
    /// Set on the first open: where the counts go, and the CPU clock when timing (its
    /// presence switches timing on; the statement reads it, see [`apportion_cpu`]).
    sink: Option<SharedActuals>,
    clock: Option<fn() -> u64>,
    /// Calls made (open, next, count_rows), which picks the ones to time.
    calls: u64,
    /// Estimated inclusive elapsed time in ns (sampled calls weighted).
    elapsed_ns: u64,
}

impl<'p> Counted<'p> {
    pub(crate) fn new(inner: BoxOp<'p>, node: u32) -> Self {
        Counted {
            inner,
            node: node as usize,
            counts: OpActuals::default(),
            sink: None,
            clock: None,
            calls: 0,
            elapsed_ns: 0,
        }
    }

    /// Runs `f`, adding its elapsed time when timing is on.
    #[inline]
    fn timed<T>(
        &mut self,
        ctx: &mut ExecCtx,
        f: impl FnOnce(&mut BoxOp<'p>, &mut ExecCtx) -> SqlResult<T>,
    ) -> SqlResult<T> {
        if self.clock.is_none() {
            return f(&mut self.inner, ctx);
        }
        self.calls += 1;
        let Some(weight) = timing_weight(self.calls) else {
            return f(&mut self.inner, ctx);
        };
        let t0 = Instant::now();
        let r = f(&mut self.inner, ctx);
        let ns = u64::try_from(t0.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.elapsed_ns = self.elapsed_ns.saturating_add(ns.saturating_mul(weight));
        r
    }
}

/// Per-operator CPU time from the elapsed times: reading the thread CPU clock is a system
/// call, and reading it around every row made a 1M-row scan 15 times slower. Each operator's
/// elapsed time is scaled by the statement's own CPU / elapsed ratio (`cpu_us`, `elapsed_us`
/// of the whole execution, measured once), so waits (I/O, locks) lower it as they lower the
/// statement's.
pub(crate) fn apportion_cpu(actuals: &mut [OpActuals], cpu_us: u64, elapsed_us: u64) {
    let ratio = if elapsed_us == 0 {
        1.0
    } else {
        (cpu_us as f64 / elapsed_us as f64).min(1.0)
    };
    for a in actuals {
        a.cpu_us = (a.elapsed_us as f64 * ratio) as u64;
    }
}

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        let Some(sink) = &self.sink else { return };
        let Ok(mut all) = sink.try_borrow_mut() else {
            return;
        };
        if self.node >= all.len() {
            all.resize(self.node + 1, OpActuals::default());
        }
        let a = &mut all[self.node];
        let c = &self.counts;
        a.rows += c.rows;
        a.executions += c.executions;
        a.end_of_scans += c.end_of_scans;
        a.elapsed_us += self.elapsed_ns / 1_000;
        if let Some((rebinds, rewinds)) = self.inner.spool_counts() {
            a.rebinds += rebinds;
            a.rewinds += rewinds;
        }
    }
}

impl Operator for Counted<'_> {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        if self.sink.is_none() {
            self.sink = Some(ctx.actuals.clone());
            self.clock = ctx.op_cpu_clock;
        }
        self.counts.executions += 1;
        self.timed(ctx, |inner, ctx| inner.open(ctx))
    }

    #[inline]
    fn next(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        let more = if self.clock.is_some() {
            self.timed(ctx, |inner, ctx| inner.next(ctx))?
        } else {
            self.inner.next(ctx)?
        };
        if more {
            self.counts.rows += 1;
        } else {
            self.counts.end_of_scans += 1;
        }
        Ok(more)
    }

    #[inline]
    fn row(&self) -> &[Value] {
        self.inner.row()
    }

    fn close(&mut self) {
        self.inner.close()
    }

    fn next_rows(
        &mut self,
        ctx: &mut ExecCtx,
        out: &mut Vec<Value>,
        max: usize,
    ) -> SqlResult<usize> {
        let n = self.timed(ctx, |inner, ctx| inner.next_rows(ctx, out, max))?;
        self.counts.rows += n as u64;
        if n < max {
            self.counts.end_of_scans += 1;
        }
        Ok(n)
    }

    fn count_rows(&mut self, ctx: &mut ExecCtx) -> SqlResult<Option<u64>> {
        let n = self.timed(ctx, |inner, ctx| inner.count_rows(ctx))?;
        if let Some(n) = n {
            self.counts.rows += n;
            self.counts.end_of_scans += 1;
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn early_calls_are_timed_exactly_then_one_in_n_stands_for_n() {
        for call in 1..=TIMED_EXACTLY {
            assert_eq!(timing_weight(call), Some(1));
        }
        let timed: Vec<u64> = (TIMED_EXACTLY + 1..=TIMED_EXACTLY + 64)
            .filter(|&c| timing_weight(c).is_some())
            .collect();
        assert_eq!(timed.len() as u64, 64 / TIME_ONE_IN);
        // the weights of a long run add up to its number of calls (within one stride)
        for calls in [TIMED_EXACTLY, 1_000, 1_000_003, 5_000_000] {
            let weighted: u64 = (1..=calls).filter_map(timing_weight).sum();
            assert!(
                weighted.abs_diff(calls) < TIME_ONE_IN,
                "{calls}: {weighted}"
            );
        }
    }
}
