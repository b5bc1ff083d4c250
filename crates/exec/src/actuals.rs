//! Per-operator actual counters (actual plans: `SET STATISTICS XML / PROFILE ON`).
//!
//! Every operator built by [`crate::operator::build`] is wrapped in [`Counted`], which counts
//! its rows, executions (opens) and end-of-scans into [`ExecCtx::actuals`], indexed by the
//! operator's `PhysOp::node_id`. The counts are always on (an add per row); elapsed and CPU
//! times are taken only when the environment hands a CPU clock ([`crate::ExecEnv::op_cpu_clock`]),
//! because reading the clocks per row is not free. Times are inclusive of the children, as SQL
//! Server's row-mode counters are.

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
}

/// Wraps an operator to count its activity under `node`.
pub(crate) struct Counted<'p> {
    inner: BoxOp<'p>,
    node: usize,
}

impl<'p> Counted<'p> {
    pub(crate) fn new(inner: BoxOp<'p>, node: u32) -> Self {
        Counted {
            inner,
            node: node as usize,
        }
    }
}

impl ExecCtx<'_> {
    /// The counters of operator `node`, created on first use (node ids are bounded by the
    /// plan's size).
    #[inline]
    pub(crate) fn actual_mut(&mut self, node: usize) -> &mut OpActuals {
        if node >= self.actuals.len() {
            self.actuals.resize(node + 1, OpActuals::default());
        }
        &mut self.actuals[node]
    }
}

/// Runs `f`, adding its elapsed and CPU time to `node` when timing is on.
#[inline]
fn timed<T>(
    ctx: &mut ExecCtx,
    node: usize,
    f: impl FnOnce(&mut ExecCtx) -> SqlResult<T>,
) -> SqlResult<T> {
    let Some(cpu) = ctx.op_cpu_clock else {
        return f(ctx);
    };
    let (t0, c0) = (Instant::now(), cpu());
    let r = f(ctx);
    let (el, c1) = (t0.elapsed().as_micros() as u64, cpu());
    let a = ctx.actual_mut(node);
    a.elapsed_us += el;
    a.cpu_us += c1.saturating_sub(c0);
    r
}

impl Operator for Counted<'_> {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        ctx.actual_mut(self.node).executions += 1;
        let inner = &mut self.inner;
        timed(ctx, self.node, |ctx| inner.open(ctx))
    }

    #[inline]
    fn next(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        let more = if ctx.op_cpu_clock.is_some() {
            let inner = &mut self.inner;
            timed(ctx, self.node, |ctx| inner.next(ctx))?
        } else {
            self.inner.next(ctx)?
        };
        let a = ctx.actual_mut(self.node);
        if more {
            a.rows += 1;
        } else {
            a.end_of_scans += 1;
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

    fn count_rows(&mut self, ctx: &mut ExecCtx) -> SqlResult<Option<u64>> {
        let inner = &mut self.inner;
        let n = timed(ctx, self.node, |ctx| inner.count_rows(ctx))?;
        if let Some(n) = n {
            let a = ctx.actual_mut(self.node);
            a.rows += n;
            a.end_of_scans += 1;
        }
        Ok(n)
    }
}
