//! Parallelism (Gather Streams): the workers of a zone send their rows in chunks through a
//! bounded channel; the consumer reads them in arrival order (no order is kept: the optimizer
//! gathers only inputs whose order nothing above relies on).
//!
//! A chunk ([`RowChunk`]) is one flat buffer of up to [`BATCH_ROWS`] rows back to back, filled
//! by the worker's `Operator::next_rows` (a batch-mode zone decodes its column vectors straight
//! into it); the consumer hands each row out as a slice of it, without copying, and returns
//! the buffer to its worker when it is done with it. So the exchange costs one buffer per
//! chunk in flight — not one allocation per row — and the values' own storage (strings) is
//! freed by the thread that made it.

use std::sync::mpsc;

use common::{SqlError, SqlResult};
use plan::PhysOp;
use types::Value;

use super::{open_zone, Msg, Zone};
use crate::context::ExecCtx;
use crate::operator::{build, Operator};

/// Rows per chunk sent by a worker.
const BATCH_ROWS: usize = 1024;
/// Chunks in flight per worker at most (back-pressure on the producers).
const BATCHES_PER_WORKER: usize = 4;

/// Rows of one worker, back to back (`rows` of the zone's width), and the way back to it.
pub(crate) struct RowChunk {
    values: Vec<Value>,
    rows: usize,
    /// The worker's spare buffers (it clears and refills them; gone once it finished).
    back: mpsc::Sender<Vec<Value>>,
}

pub(crate) struct Gather<'p> {
    input: &'p PhysOp,
    dop: u16,
    zone: Option<Zone<RowChunk>>,
    /// The zone run by the coordinator alone (a shared hash join build outgrew its budget).
    serial: Option<crate::operator::BoxOp<'p>>,
    /// The chunk being handed out and the next of its rows.
    chunk: Option<RowChunk>,
    pos: usize,
    /// Where the current row starts in the chunk (`usize::MAX`: the serial operator's row).
    start: usize,
    width: usize,
}

impl<'p> Gather<'p> {
    pub(crate) fn new(input: &'p PhysOp, dop: u16) -> Self {
        Gather {
            input,
            dop,
            zone: None,
            serial: None,
            chunk: None,
            pos: 0,
            start: 0,
            width: input.columns.len(),
        }
    }

    /// Gives the chunk being handed out back to its worker.
    fn return_chunk(&mut self) {
        if let Some(c) = self.chunk.take() {
            // a worker that finished has no use for it: it is dropped here then
            let _ = c.back.send(c.values);
        }
    }
}

/// A worker of a Gather Streams: runs its copy of the zone and sends its rows in chunks.
fn produce(
    plan: &PhysOp,
    ctx: &mut ExecCtx,
    tx: &mpsc::SyncSender<Msg<RowChunk>>,
) -> SqlResult<()> {
    let width = plan.columns.len();
    let (back, spare) = mpsc::channel::<Vec<Value>>();
    let mut op = build(plan)?;
    op.open(ctx)?;
    loop {
        ctx.check_cancel()?;
        let mut values = match spare.try_recv() {
            Ok(mut v) => {
                v.clear();
                v
            }
            Err(_) => Vec::with_capacity(BATCH_ROWS * width),
        };
        let rows = op.next_rows(ctx, &mut values, BATCH_ROWS)?;
        if values.len() != rows * width {
            return Err(SqlError::internal(
                "gather streams: a row of the zone has not the zone's width",
            ));
        }
        if rows > 0 {
            let chunk = RowChunk {
                values,
                rows,
                back: back.clone(),
            };
            super::send_to_consumer(tx, Msg::Data(chunk))?;
        }
        if rows < BATCH_ROWS {
            break;
        }
    }
    op.close();
    Ok(())
}

impl Operator for Gather<'_> {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        self.zone = None; // a re-open stops the previous workers first
        self.serial = None;
        self.chunk = None;
        self.pos = 0;
        let bound = usize::from(self.dop.max(1)) * BATCHES_PER_WORKER;
        self.zone = open_zone(self.input, self.dop, bound, ctx, produce)?;
        if self.zone.is_none() {
            let mut op = build(self.input)?;
            op.open(ctx)?;
            self.serial = Some(op);
        }
        Ok(())
    }

    fn next(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        if let Some(op) = self.serial.as_mut() {
            self.start = usize::MAX;
            return op.next(ctx);
        }
        loop {
            if let Some(c) = &self.chunk {
                if self.pos < c.rows {
                    self.start = self.pos * self.width;
                    self.pos += 1;
                    return Ok(true);
                }
                self.return_chunk();
            }
            let Some(zone) = self.zone.as_mut() else {
                return Ok(false);
            };
            match zone.recv(ctx)? {
                Some(c) => {
                    self.chunk = Some(c);
                    self.pos = 0;
                }
                None => {
                    let messages = std::mem::take(&mut zone.messages);
                    self.zone = None;
                    add_worker_messages(ctx, messages);
                    return Ok(false);
                }
            }
        }
    }

    fn row(&self) -> &[Value] {
        if self.start == usize::MAX {
            return match &self.serial {
                Some(op) => op.row(),
                None => &[],
            };
        }
        match &self.chunk {
            Some(c) => c
                .values
                .get(self.start..self.start + self.width)
                .unwrap_or(&[]),
            None => &[],
        }
    }

    fn close(&mut self) {
        if let Some(mut op) = self.serial.take() {
            op.close();
        }
        self.chunk = None;
        self.zone = None;
    }
}

/// Passes the workers' informational messages on: 8153 once per statement as usual.
pub(crate) fn add_worker_messages(ctx: &mut ExecCtx, messages: Vec<SqlError>) {
    for m in messages {
        if m.number == 8153 {
            ctx.null_eliminated();
        } else {
            ctx.messages.push(m);
        }
    }
}
