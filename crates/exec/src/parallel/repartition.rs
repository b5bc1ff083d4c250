//! Parallel aggregation with Repartition Streams (hash): local aggregate per producer →
//! Repartition Streams on the group keys → global aggregate per consumer → Gather Streams.
//!
//! ```text
//! Parallelism(Gather Streams)                 RepartitionedAggregate (coordinator)
//!   Hash Match(Aggregate)                     consumers: merge their groups, finish them
//!     Parallelism(Repartition Streams, Hash)  per producer: a bounded channel per consumer
//!       Hash Match(Partial Aggregate)         producers: the zone's workers
//!         zone (morsels)
//! ```
//!
//! * **Producers** are the zone's workers (`open_zone_with`): each groups the rows of its
//!   morsels into partial states, as the local half of the merge-at-gather aggregate does,
//!   and routes every partial group to consumer `partition_of(encoded key)`, in chunks of
//!   [`CHUNK_GROUPS`] over one bounded `sync_channel` per consumer ([`CHUNKS_PER_PRODUCER`]
//!   chunks in flight per producer and consumer): no lock on the hot path, and a slow
//!   consumer stops the producers (back-pressure). A row-mode producer whose table reaches
//!   half its share of the operator budget routes (flushes) what it has and starts again, so
//!   producers never give up however many groups there are; the consumers merge duplicates.
//! * **Consumers** are extra threads of the zone (`Zone::spawn_helper`), one per producer,
//!   so a table scanned by one worker gives one consumer and the merge-at-gather's order.
//!   Each merges the partial groups of its partition (`AggState::merge`, exact) and, once
//!   every producer is done (its channel disconnects), finishes its groups and sends the
//!   result rows to the coordinator in batches of [`OUT_ROWS`].
//! * **Skew (seed S4).** Routing happens after the local aggregation: a producer sends one
//!   partial group per distinct key it saw, never one row per input row. When every key is
//!   equal each producer sends one group, so the per-row work stays where the morsels put
//!   it (balanced by demand) and one consumer merges DOP partial groups. SQL Server
//!   repartitions the rows themselves and puts all of them on one thread.
//! * **Budget.** A consumer whose groups outgrow its share of the operator budget reports
//!   it before outputting anything; the coordinator, which keeps the result until every
//!   consumer finished, stops the zone and runs the serial Hash Match (Aggregate), which
//!   spills. A batch-mode producer (`crate::batch::aggregate`) that outgrows its budget does
//!   the same.
//! * **Errors, cancel, panics** travel as in every zone: the first failure (a producer's
//!   arithmetic error, a consumer's overflow when finishing) sets the stop flag; producers
//!   poll it per page and per send, consumers per chunk and every `CANCEL_POLL` while they
//!   wait; a consumer that stops drops its channel, which fails a producer blocked on it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Arc;

use common::{SqlError, SqlResult};
use plan::{AggCall, PhysKind, PhysOp};
use types::Value;

use super::aggregate::{aggregate_serially, Groups};
use super::{open_zone_with, Msg};
use crate::agg::AggState;
use crate::context::ExecCtx;
use crate::operator::{build, Operator};
use crate::valops;

/// Partial groups per message from a producer to a consumer.
pub const CHUNK_GROUPS: usize = 1024;
/// Chunks in flight per producer on each consumer's channel.
pub const CHUNKS_PER_PRODUCER: usize = 4;
/// Result rows per message from a consumer to the coordinator.
pub const OUT_ROWS: usize = 1024;

/// One partial group: its encoded key (`valops::hash_key`), key values and states.
type Partial = (Box<[u8]>, Vec<Value>, Vec<AggState>);

/// What producers and consumers send the coordinator.
pub(super) enum Out {
    /// Finished result rows of a consumer.
    Rows(Vec<Vec<Value>>),
    /// A consumer's groups (or a batch-mode producer's) outgrew the budget: run serially.
    GaveUp,
}

/// Whether the input of a Gather Streams is the global half of a repartitioned aggregate.
pub(crate) fn is_repartitioned_aggregate(op: &PhysOp) -> bool {
    matches!(&op.kind, PhysKind::GlobalAggregate { input, .. }
        if matches!(input.kind, PhysKind::Repartition { .. }))
}

/// The consumer (of `n`) that a group whose encoded key is `key` goes to: FNV-1a over the
/// bytes, a 64-bit finalizer, then a multiply-shift into `0..n`. The same on every producer
/// (no per-process seed), so equal keys always meet.
pub fn partition_of(key: &[u8], n: usize) -> usize {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in key {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^= h >> 33;
    ((u128::from(h) * n as u128) >> 64) as usize
}

/// A producer's side of the exchange: one pending chunk per consumer.
struct Router {
    outs: Arc<Vec<mpsc::SyncSender<Vec<Partial>>>>,
    chunks: Vec<Vec<Partial>>,
    routed: u64,
}

impl Router {
    fn new(outs: Arc<Vec<mpsc::SyncSender<Vec<Partial>>>>) -> Self {
        let chunks = (0..outs.len()).map(|_| Vec::new()).collect();
        Router {
            outs,
            chunks,
            routed: 0,
        }
    }

    fn route(&mut self, ctx: &ExecCtx, (key, k, st): Partial) -> SqlResult<()> {
        let p = partition_of(&key, self.outs.len());
        self.routed += 1;
        let Some(chunk) = self.chunks.get_mut(p) else {
            return Err(SqlError::internal("repartition: no such consumer"));
        };
        chunk.push((key, k, st));
        if chunk.len() >= CHUNK_GROUPS {
            self.send(ctx, p)?;
        }
        Ok(())
    }

    fn send(&mut self, ctx: &ExecCtx, p: usize) -> SqlResult<()> {
        ctx.check_cancel()?;
        let chunk = std::mem::take(&mut self.chunks[p]);
        // fails once the consumer stopped (the zone is being shut down); a full buffer is a
        // CXPACKET wait (the consumer is behind)
        match self.outs[p].try_send(chunk) {
            Ok(()) => Ok(()),
            Err(mpsc::TrySendError::Full(chunk)) => {
                let _wait = common::waits::begin(common::waits::WaitType::CXPACKET);
                self.outs[p].send(chunk).map_err(|_| super::stopped())
            }
            Err(mpsc::TrySendError::Disconnected(_)) => Err(super::stopped()),
        }
    }

    fn flush(&mut self, ctx: &ExecCtx) -> SqlResult<()> {
        for p in 0..self.chunks.len() {
            if !self.chunks[p].is_empty() {
                self.send(ctx, p)?;
            }
        }
        Ok(())
    }
}

/// A producer: `plan` is the zone's PartialAggregate; `repartition` the exchange's node id
/// (its actual rows: the partial groups routed).
fn produce(
    plan: &PhysOp,
    ctx: &mut ExecCtx,
    tx: &mpsc::SyncSender<Msg<Out>>,
    router: &mut Router,
    repartition: u32,
) -> SqlResult<()> {
    let PhysKind::PartialAggregate {
        input,
        group_by,
        aggs,
    } = &plan.kind
    else {
        return Err(SqlError::internal(
            "a repartitioned aggregate without its partial aggregate",
        ));
    };
    if plan.exec_mode == ::plan::ExecMode::Batch {
        let Some(g) = crate::batch::aggregate(input, group_by, aggs, ctx)? else {
            return super::send_to_consumer(tx, Msg::Data(Out::GaveUp));
        };
        let mut keybuf = Vec::new();
        for (keys, states) in g.keys.into_iter().zip(g.states) {
            keybuf.clear();
            for k in &keys {
                valops::hash_key(k, &mut keybuf);
            }
            router.route(ctx, (keybuf.clone().into_boxed_slice(), keys, states))?;
        }
    } else {
        let mut op = build(input)?;
        op.open(ctx)?;
        let flush_at = ctx.spill.operator_budget / 2;
        let mut groups = Groups::default();
        let (mut keybuf, mut keyvals) = (Vec::new(), Vec::with_capacity(group_by.len()));
        while op.next(ctx)? {
            ctx.check_cancel()?;
            groups.process(group_by, aggs, op.row(), &mut keybuf, &mut keyvals, ctx)?;
            if groups.bytes > flush_at {
                for e in std::mem::take(&mut groups).into_entries() {
                    router.route(ctx, e)?;
                }
            }
        }
        op.close();
        for e in groups.into_entries() {
            router.route(ctx, e)?;
        }
    }
    router.flush(ctx)?;
    // the partial aggregate's and the exchange's rows: the partial groups this worker routed
    crate::actuals::add_node_counts(ctx, plan.node_id, router.routed, 1);
    crate::actuals::add_node_counts(ctx, repartition, router.routed, 1);
    Ok(())
}

/// A consumer: merges the partial groups of its partition until every producer is done,
/// then finishes them and sends the result rows.
fn consume(
    inbox: mpsc::Receiver<Vec<Partial>>,
    aggs: &[AggCall],
    budget: usize,
    cancel: Option<common::CancelToken>,
    tx: &mpsc::SyncSender<Msg<Out>>,
    stop: &AtomicBool,
) -> SqlResult<()> {
    let stopped =
        || stop.load(Ordering::Relaxed) || cancel.as_ref().is_some_and(|c| c.is_cancelled());
    let mut groups = Groups::default();
    loop {
        let ready = match inbox.try_recv() {
            Ok(chunk) => Ok(chunk),
            Err(mpsc::TryRecvError::Empty) => {
                // waiting for the producers' partial groups (CXCONSUMER)
                let _wait = common::waits::begin(common::waits::WaitType::CXCONSUMER);
                inbox.recv_timeout(common::cancel::CANCEL_POLL)
            }
            Err(mpsc::TryRecvError::Disconnected) => Err(mpsc::RecvTimeoutError::Disconnected),
        };
        match ready {
            Ok(chunk) => {
                if stopped() {
                    return Err(super::stopped());
                }
                for (key, k, st) in chunk {
                    groups.merge_one(aggs, key, k, st);
                }
                if groups.bytes > budget {
                    return super::send_to_consumer(tx, Msg::Data(Out::GaveUp));
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) if stopped() => return Err(super::stopped()),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            // every producer finished (or failed: the zone then stops before using ours)
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    drop(inbox);
    let mut batch = Vec::with_capacity(OUT_ROWS);
    for (keys, mut states) in groups.keys.into_iter().zip(groups.states) {
        let mut r = keys;
        for (a, s) in aggs.iter().zip(states.iter_mut()) {
            r.push(s.finish(a)?);
        }
        batch.push(r);
        if batch.len() == OUT_ROWS {
            if stopped() {
                return Err(super::stopped());
            }
            let full = std::mem::replace(&mut batch, Vec::with_capacity(OUT_ROWS));
            super::send_to_consumer(tx, Msg::Data(Out::Rows(full)))?;
        }
    }
    if !batch.is_empty() {
        super::send_to_consumer(tx, Msg::Data(Out::Rows(batch)))?;
    }
    Ok(())
}

/// The Gather Streams over a repartitioned aggregate: runs the producers and consumers and
/// returns the consumers' rows (kept until all finished, so the serial fallback stays
/// possible, as the merge-at-gather aggregate keeps its merged groups).
pub(crate) struct RepartitionedAggregate<'p> {
    node: &'p PhysOp,
    out: Vec<Vec<Value>>,
    pos: usize,
}

impl<'p> RepartitionedAggregate<'p> {
    pub(crate) fn new(node: &'p PhysOp) -> Self {
        RepartitionedAggregate {
            node,
            out: Vec::new(),
            pos: 0,
        }
    }

    fn aggregate(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        let shape = || SqlError::internal("repartitioned aggregate: unexpected plan shape");
        let PhysKind::Parallelism { input: global, dop } = &self.node.kind else {
            return Err(shape());
        };
        let PhysKind::GlobalAggregate {
            input: exchange,
            aggs,
            ..
        } = &global.kind
        else {
            return Err(shape());
        };
        let PhysKind::Repartition { input: partial, .. } = &exchange.kind else {
            return Err(shape());
        };
        let PhysKind::PartialAggregate { input: rows, .. } = &partial.kind else {
            return Err(shape());
        };
        if !aggs.iter().all(AggState::mergeable) {
            return Err(shape());
        }
        let repartition = exchange.node_id;
        let mut inboxes = Vec::new();
        let zone = open_zone_with(
            partial,
            *dop,
            usize::from(*dop) * CHUNKS_PER_PRODUCER,
            ctx,
            |workers| {
                let (outs, rxs): (Vec<_>, Vec<_>) = (0..workers)
                    .map(|_| mpsc::sync_channel(CHUNKS_PER_PRODUCER * workers))
                    .unzip();
                inboxes = rxs;
                let outs = Arc::new(outs);
                move |plan: &PhysOp, ctx: &mut ExecCtx, tx: &mpsc::SyncSender<Msg<Out>>| {
                    let mut router = Router::new(outs.clone());
                    produce(plan, ctx, tx, &mut router, repartition)
                }
            },
        )?;
        let Some(mut z) = zone else {
            // a shared hash join build outgrew its budget
            self.out = aggregate_serially(global, rows, ctx)?;
            return Ok(());
        };
        let consumers = inboxes.len();
        let budget = (ctx.spill.operator_budget / consumers.max(1)).max(1 << 20);
        for (i, inbox) in inboxes.into_iter().enumerate() {
            let (aggs, cancel) = (aggs.clone(), ctx.cancel_token().cloned());
            z.spawn_helper(format!("latchkey-consumer-{i}"), move |tx, stop| {
                consume(inbox, &aggs, budget, cancel, tx, stop)
            })?;
        }
        let mut gave_up = false;
        while let Some(m) = z.recv(ctx)? {
            match m {
                Out::Rows(b) if !gave_up => self.out.extend(b),
                Out::Rows(_) => {}
                Out::GaveUp => {
                    gave_up = true;
                    z.shut_down();
                }
            }
        }
        let messages = std::mem::take(&mut z.messages);
        drop(z);
        if gave_up {
            self.out = aggregate_serially(global, rows, ctx)?;
            return Ok(());
        }
        crate::actuals::add_node_counts(
            ctx,
            global.node_id,
            self.out.len() as u64,
            consumers as u64,
        );
        super::gather::add_worker_messages(ctx, messages);
        Ok(())
    }
}

impl Operator for RepartitionedAggregate<'_> {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        self.out.clear();
        self.pos = 0;
        // when opened, as the serial Hash Match (Aggregate) it replaces reads its input: an
        // error then comes before the result's columns, as serially
        self.aggregate(ctx)
    }

    fn next(&mut self, _ctx: &mut ExecCtx) -> SqlResult<bool> {
        if self.pos < self.out.len() {
            self.pos += 1;
            return Ok(true);
        }
        Ok(false)
    }

    fn row(&self) -> &[Value] {
        match self.pos.checked_sub(1).and_then(|i| self.out.get(i)) {
            Some(r) => r,
            None => &[],
        }
    }

    fn close(&mut self) {
        self.out = Vec::new();
    }
}

#[cfg(test)]
mod tests {
    use super::partition_of;

    #[test]
    fn partitions_spread_distinct_keys_and_keep_equal_keys_together() {
        let n = 4;
        let mut counts = [0usize; 4];
        for i in 0..40_000u32 {
            let key = i.to_be_bytes();
            let p = partition_of(&key, n);
            assert_eq!(p, partition_of(&key, n));
            counts[p] += 1;
        }
        for c in counts {
            assert!((9_000..11_000).contains(&c), "{counts:?}");
        }
        assert_eq!(partition_of(&[], 1), 0);
    }
}
