//! The batch→row adapter: a batch source (scans, filters, compute scalars, batch hash joins —
//! what a batch aggregate's input may be) under any row operator. The optimizer marks such a
//! source where its parent reads every row (`optimizer::batch_mode`, "Reads"); [`BatchRows`]
//! runs the source's pipeline and hands out its selected rows one at a time, each decoded from
//! the vectors once into one reused row buffer.
//!
//! Fallback: when the pipeline cannot run in batch mode (its scan would need row locks, a
//! join's build outgrows the budget) the source's row-mode operator
//! is built then and runs instead; nothing was output yet and the pipeline only reads.
//!
//! Errors: an error raised by the pipeline (which evaluates a batch ahead of the rows handed
//! out, expression by expression) makes the source run again in row mode past the rows
//! already handed out, so the error raised, and the rows before it, are row mode's; when the
//! parent stops before that row, no error at all, as in row mode.
//!
//! Actuals: the source's root node is a `Counted` operator (its rows and executions are
//! counted there); the adapter adds its batches, and every other node of the pipeline its
//! rows, batches and execution, as the batches come.

use common::SqlResult;
use plan::{PhysKind, PhysOp};
use types::Value;

use super::{join, open_pipeline, Batch, Opened};
use crate::context::ExecCtx;
use crate::operator::{BoxOp, Operator};

/// Whether `op` is the root of a batch source [`build`] runs under a row operator (the
/// optimizer marked it batch mode and it is a Filter / Compute Scalar / scan / Hash Match
/// join of a pipeline).
pub(crate) fn is_adapted_source(op: &PhysOp) -> bool {
    op.exec_mode == plan::ExecMode::Batch
        && matches!(
            op.kind,
            PhysKind::Filter { .. }
                | PhysKind::ComputeScalar { .. }
                | PhysKind::HashJoin { .. }
                | PhysKind::TableScan { .. }
                | PhysKind::ClusteredIndexScan { .. }
        )
        && join::is_source(op)
}

/// The adapter over the batch source `op`.
pub(crate) fn build(op: &PhysOp) -> BoxOp<'_> {
    Box::new(BatchRows {
        node: op,
        pipe: None,
        row: None,
        use_row: false,
        cur: None,
        pos: 0,
        current: Vec::new(),
        handed: 0,
    })
}

pub(crate) struct BatchRows<'p> {
    node: &'p PhysOp,
    pipe: Option<Opened<'p>>,
    /// The row-mode operator of the source, built on the first fallback.
    row: Option<BoxOp<'p>>,
    use_row: bool,
    /// The batch being handed out and its selected rows; `pos`: the next of them.
    cur: Option<(Batch, Vec<u32>)>,
    pos: usize,
    current: Vec<Value>,
    /// Rows handed out since the open (a rerun in row mode skips them).
    handed: u64,
}

/// Opens `node`'s pipeline, or None where batch mode cannot run it. In a parallel worker the
/// pipeline's scan reads the worker's morsels.
pub(super) fn open_source<'p>(
    node: &'p PhysOp,
    ctx: &mut ExecCtx,
) -> SqlResult<Option<Opened<'p>>> {
    open_pipeline(node, ctx)
}

/// Adds the counters gathered since the last call to the statement's and zeroes them; `root`
/// (a `Counted` operator, or the batch operator's own node) gets only its batches.
pub(super) fn flush_counts(counts: &mut join::Counts, root: Option<u32>, ctx: &ExecCtx) {
    for c in counts.iter_mut() {
        let rows = if Some(c.0) == root { 0 } else { c.1 };
        if rows != 0 || c.2 != 0 {
            crate::actuals::add_batch_counts(ctx, c.0, rows, c.2);
        }
        c.1 = 0;
        c.2 = 0;
    }
}

/// One execution for each node of an opened pipeline but `root`.
pub(super) fn add_executions(counts: &join::Counts, root: Option<u32>, ctx: &ExecCtx) {
    for c in counts {
        if Some(c.0) != root {
            crate::actuals::add_batch_execution(ctx, c.0);
        }
    }
}

impl BatchRows<'_> {
    fn fall_back(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        self.use_row = true;
        if self.row.is_none() {
            self.row = Some(crate::operator::build_row_mode(self.node)?);
        }
        match self.row.as_mut() {
            Some(r) => r.open(ctx),
            None => Ok(()),
        }
    }

    /// The next batch of the pipeline into `cur`; false at the end.
    fn fill(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        let Some(p) = self.pipe.as_mut() else {
            return Ok(false);
        };
        let r = p.src.next(ctx, &mut p.counts);
        flush_counts(&mut p.counts, Some(self.node.node_id), ctx);
        match r? {
            Some(b) => {
                self.cur = Some(b);
                self.pos = 0;
                Ok(true)
            }
            None => {
                // the end: the scans and joins are released now
                self.pipe = None;
                self.cur = None;
                Ok(false)
            }
        }
    }
}

impl Operator for BatchRows<'_> {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        self.close();
        match open_source(self.node, ctx) {
            Ok(Some(p)) => {
                add_executions(&p.counts, Some(self.node.node_id), ctx);
                self.pipe = Some(p);
                Ok(())
            }
            // an error while a join built: row mode raises its own (the same one, or the
            // one its row order reaches first)
            Ok(None) | Err(_) => self.fall_back(ctx),
        }
    }

    fn next(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        if self.use_row {
            return match self.row.as_mut() {
                Some(r) => r.next(ctx),
                None => Ok(false),
            };
        }
        match self.next_row(ctx) {
            Ok(more) => {
                self.handed += u64::from(more);
                Ok(more)
            }
            Err(e) => self.rerun_in_row_mode(ctx, e),
        }
    }

    fn next_rows(
        &mut self,
        ctx: &mut ExecCtx,
        out: &mut Vec<Value>,
        max: usize,
    ) -> SqlResult<usize> {
        let width = self.node.columns.len();
        let mut n = 0;
        while n < max {
            if self.use_row {
                if !self.next(ctx)? {
                    break;
                }
                out.extend_from_slice(self.row());
                n += 1;
                continue;
            }
            if let Some((batch, sel)) = &self.cur {
                let rest = sel.get(self.pos..).unwrap_or(&[]);
                let take = rest.len().min(max - n);
                for &r in &rest[..take] {
                    let i = r as usize;
                    for c in 0..width {
                        out.push(match batch.columns.get(c) {
                            Some(Some(col)) => col.value(i),
                            _ => Value::Null,
                        });
                    }
                }
                self.pos += take;
                self.handed += take as u64;
                n += take;
                if n == max {
                    break;
                }
            }
            match self.fill(ctx) {
                Ok(true) => {}
                Ok(false) => break,
                Err(e) => {
                    if !self.rerun_in_row_mode(ctx, e)? {
                        break;
                    }
                    out.extend_from_slice(self.row());
                    n += 1;
                }
            }
        }
        Ok(n)
    }

    fn row(&self) -> &[Value] {
        if self.use_row {
            return match &self.row {
                Some(r) => r.row(),
                None => &[],
            };
        }
        &self.current
    }

    fn close(&mut self) {
        if self.use_row {
            if let Some(r) = self.row.as_mut() {
                r.close();
            }
        }
        self.use_row = false;
        self.pipe = None;
        self.cur = None;
        self.pos = 0;
        self.handed = 0;
    }
}

impl BatchRows<'_> {
    /// The pipeline raised an error while evaluating a batch ahead of the rows handed out:
    /// row mode might have raised another one first, or stopped before it. The source runs
    /// again in row mode (it only reads, in the same row order), past the rows already handed
    /// out, so the error is row mode's, raised at row mode's row.
    ///
    /// Not in a parallel worker: its morsels, once claimed, cannot be read again. There the
    /// error `e` is raised as it is — a zone's rows have no order, and its workers run ahead
    /// of the consumer in row mode too, so which failing row is met first is not defined.
    fn rerun_in_row_mode(&mut self, ctx: &mut ExecCtx, e: common::SqlError) -> SqlResult<bool> {
        if ctx.morsels.is_some() {
            self.pipe = None;
            self.cur = None;
            return Err(e);
        }
        self.pipe = None;
        self.cur = None;
        self.fall_back(ctx)?;
        let Some(r) = self.row.as_mut() else {
            return Ok(false);
        };
        for _ in 0..self.handed {
            if !r.next(ctx)? {
                return Ok(false);
            }
        }
        r.next(ctx)
    }

    /// The next selected row of the pipeline into `current`.
    fn next_row(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        loop {
            if let Some((batch, sel)) = &self.cur {
                if let Some(&r) = sel.get(self.pos) {
                    self.pos += 1;
                    let i = r as usize;
                    self.current.clear();
                    for c in 0..self.node.columns.len() {
                        self.current.push(match batch.columns.get(c) {
                            Some(Some(col)) => col.value(i),
                            _ => Value::Null,
                        });
                    }
                    return Ok(true);
                }
            }
            if !self.fill(ctx)? {
                return Ok(false);
            }
        }
    }
}
