//! Parallelism (Gather Streams): the workers of a zone send their rows in batches through a
//! bounded channel; the consumer reads them in arrival order (no order is kept: the optimizer
//! gathers only inputs whose order nothing above relies on).

use common::{SqlError, SqlResult};
use plan::PhysOp;
use types::Value;

use super::{open_zone, Msg, Zone};
use crate::context::ExecCtx;
use crate::operator::{build, Operator};

/// Rows per batch sent by a worker.
const BATCH_ROWS: usize = 1024;
/// Batches in flight per worker at most (back-pressure on the producers).
const BATCHES_PER_WORKER: usize = 4;

pub(crate) struct Gather<'p> {
    input: &'p PhysOp,
    dop: u16,
    zone: Option<Zone<Vec<Vec<Value>>>>,
    /// The zone run by the coordinator alone (a shared hash join build outgrew its budget).
    serial: Option<crate::operator::BoxOp<'p>>,
    batch: Vec<Vec<Value>>,
    pos: usize,
    row: Vec<Value>,
}

impl<'p> Gather<'p> {
    pub(crate) fn new(input: &'p PhysOp, dop: u16) -> Self {
        Gather {
            input,
            dop,
            zone: None,
            serial: None,
            batch: Vec::new(),
            pos: 0,
            row: Vec::new(),
        }
    }
}

/// A worker of a Gather Streams: runs its copy of the zone and sends its rows.
fn produce(
    plan: &PhysOp,
    ctx: &mut ExecCtx,
    tx: &std::sync::mpsc::SyncSender<Msg<Vec<Vec<Value>>>>,
) -> SqlResult<()> {
    let mut op = build(plan)?;
    op.open(ctx)?;
    let mut batch = Vec::with_capacity(BATCH_ROWS);
    while op.next(ctx)? {
        ctx.check_cancel()?;
        batch.push(op.row().to_vec());
        if batch.len() == BATCH_ROWS {
            let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH_ROWS));
            super::send_to_consumer(tx, Msg::Data(full))?;
        }
    }
    op.close();
    if !batch.is_empty() {
        super::send_to_consumer(tx, Msg::Data(batch))?;
    }
    Ok(())
}

impl Operator for Gather<'_> {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        self.zone = None; // a re-open stops the previous workers first
        self.serial = None;
        self.batch.clear();
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
            if !op.next(ctx)? {
                return Ok(false);
            }
            self.row.clear();
            self.row.extend_from_slice(op.row());
            return Ok(true);
        }
        loop {
            if let Some(r) = self.batch.get_mut(self.pos) {
                self.row = std::mem::take(r);
                self.pos += 1;
                return Ok(true);
            }
            let Some(zone) = self.zone.as_mut() else {
                return Ok(false);
            };
            match zone.recv(ctx)? {
                Some(b) => {
                    self.batch = b;
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
        &self.row
    }

    fn close(&mut self) {
        if let Some(mut op) = self.serial.take() {
            op.close();
        }
        self.zone = None;
        self.batch = Vec::new();
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
