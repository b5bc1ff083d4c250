//! Local-then-global aggregation: each worker of the zone groups its rows into partial
//! aggregate states (`Hash Match (Partial Aggregate)`), sends its whole group table through
//! the exchange, and the global aggregate merges the tables state by state
//! (`AggState::merge`) and finishes them, so the result is the serial aggregate's.
//!
//! Memory: a worker's groups count against its share of the operator budget; a worker past
//! it gives up and the aggregate runs serially instead (the serial Hash Match spills), which
//! is safe because nothing was output yet and the zone only reads.

use hashbrown::HashMap;

use common::{SqlError, SqlResult};
use plan::{AggCall, AggFunc, PhysKind, PhysOp, ScalarExpr, ScalarKind};
use types::Value;

use super::{open_zone, Msg};
use crate::agg::AggState;
use crate::context::ExecCtx;
use crate::eval::eval;
use crate::operator::{build, Operator};
use crate::spill::row_size;
use crate::valops;

/// One worker's groups: encoded key → index; the keys' values and the states.
#[derive(Default)]
pub(super) struct Groups {
    pub(super) index: HashMap<Box<[u8]>, usize>,
    pub(super) keys: Vec<Vec<Value>>,
    pub(super) states: Vec<Vec<AggState>>,
    /// An estimate of the memory the groups hold (counted against the operator budget).
    pub(super) bytes: usize,
}

impl Groups {
    pub(super) fn process(
        &mut self,
        group_by: &[ScalarExpr],
        aggs: &[AggCall],
        row: &[Value],
        keybuf: &mut Vec<u8>,
        keyvals: &mut Vec<Value>,
        ctx: &mut ExecCtx,
    ) -> SqlResult<()> {
        keybuf.clear();
        keyvals.clear();
        for g in group_by {
            let v = match g.kind {
                ScalarKind::Column(i) => row.get(i).cloned().unwrap_or(Value::Null),
                _ => eval(g, row, ctx)?,
            };
            valops::hash_key(&v, keybuf);
            keyvals.push(v);
        }
        let gi = match self.index.get(&keybuf[..]) {
            Some(&i) => i,
            None => {
                self.bytes += row_size(keyvals)
                    + keybuf.len()
                    + aggs.len() * std::mem::size_of::<AggState>()
                    + 64;
                self.keys.push(keyvals.clone());
                self.states.push(aggs.iter().map(AggState::new).collect());
                self.index
                    .insert(keybuf.clone().into_boxed_slice(), self.keys.len() - 1);
                self.keys.len() - 1
            }
        };
        for (a, s) in aggs.iter().zip(self.states[gi].iter_mut()) {
            s.update(a, row, ctx)?;
        }
        Ok(())
    }

    /// Merges `other`'s groups into these.
    fn merge(&mut self, aggs: &[AggCall], other: Groups) {
        for (key, k, st) in other.into_entries() {
            self.merge_one(aggs, key, k, st);
        }
    }

    /// Merges one partial group (encoded key, key values, states) into these.
    pub(super) fn merge_one(
        &mut self,
        aggs: &[AggCall],
        key: Box<[u8]>,
        k: Vec<Value>,
        st: Vec<AggState>,
    ) {
        match self.index.get(&key) {
            Some(&gi) => {
                for ((a, mine), theirs) in aggs.iter().zip(self.states[gi].iter_mut()).zip(st) {
                    mine.merge(a, theirs);
                }
            }
            None => {
                self.bytes +=
                    row_size(&k) + key.len() + st.len() * std::mem::size_of::<AggState>() + 64;
                self.keys.push(k);
                self.states.push(st);
                self.index.insert(key, self.keys.len() - 1);
            }
        }
    }

    /// The groups in the order they were first seen: (encoded key, key values, states).
    pub(super) fn into_entries(
        self,
    ) -> impl Iterator<Item = (Box<[u8]>, Vec<Value>, Vec<AggState>)> {
        let mut slots: Vec<(Box<[u8]>, usize)> = self.index.into_iter().collect();
        slots.sort_unstable_by_key(|(_, i)| *i);
        slots
            .into_iter()
            .zip(self.keys.into_iter().zip(self.states))
            .map(|((key, _), (k, st))| (key, k, st))
    }
}

/// A worker of the aggregate: `plan` is the zone's PartialAggregate. Sends `None` when its
/// groups outgrow its budget (the aggregate then runs serially).
fn partial(
    plan: &PhysOp,
    ctx: &mut ExecCtx,
    tx: &std::sync::mpsc::SyncSender<Msg<Option<Groups>>>,
) -> SqlResult<()> {
    let PhysKind::PartialAggregate {
        input,
        group_by,
        aggs,
    } = &plan.kind
    else {
        return Err(SqlError::internal(
            "a parallel aggregate without its partial aggregate",
        ));
    };
    let mut groups = Groups::default();
    if plan.exec_mode == ::plan::ExecMode::Batch {
        // batch mode on this worker's morsels (exec/src/batch); None (its groups outgrew
        // the budget, morsels already taken): the aggregate runs serially
        let Some(g) = crate::batch::aggregate(input, group_by, aggs, ctx)? else {
            return super::send_to_consumer(tx, Msg::Data(None));
        };
        {
            let mut keybuf = Vec::new();
            for (keys, states) in g.keys.into_iter().zip(g.states) {
                keybuf.clear();
                for k in &keys {
                    valops::hash_key(k, &mut keybuf);
                }
                groups
                    .index
                    .insert(keybuf.clone().into_boxed_slice(), groups.keys.len());
                groups.keys.push(keys);
                groups.states.push(states);
            }
            return super::send_to_consumer(tx, Msg::Data(Some(groups)));
        }
    }
    let mut op = build(input)?;
    op.open(ctx)?;
    let counts_only = group_by.is_empty()
        && aggs
            .iter()
            .all(|a| matches!(a.func, AggFunc::CountStar | AggFunc::CountBigStar));
    if counts_only {
        if let Some(n) = op.count_rows(ctx)? {
            let mut states: Vec<AggState> = aggs.iter().map(AggState::new).collect();
            for s in &mut states {
                s.add_count(n);
            }
            groups.index.insert(Box::from(&[][..]), 0);
            groups.keys.push(Vec::new());
            groups.states.push(states);
            op.close();
            return super::send_to_consumer(tx, Msg::Data(Some(groups)));
        }
    }
    if group_by.is_empty() {
        // a scalar aggregate: one group, no key to hash per row
        let mut states: Vec<AggState> = aggs.iter().map(AggState::new).collect();
        while op.next(ctx)? {
            ctx.check_cancel()?;
            let row = op.row();
            for (a, s) in aggs.iter().zip(states.iter_mut()) {
                s.update(a, row, ctx)?;
            }
        }
        op.close();
        groups.index.insert(Box::from(&[][..]), 0);
        groups.keys.push(Vec::new());
        groups.states.push(states);
        return super::send_to_consumer(tx, Msg::Data(Some(groups)));
    }
    let budget = ctx.spill.operator_budget;
    let (mut keybuf, mut keyvals) = (Vec::new(), Vec::with_capacity(group_by.len()));
    while op.next(ctx)? {
        // per row, as the serial driver loop: a page's rows may be costly to aggregate
        ctx.check_cancel()?;
        groups.process(group_by, aggs, op.row(), &mut keybuf, &mut keyvals, ctx)?;
        if groups.bytes > budget {
            op.close();
            return super::send_to_consumer(tx, Msg::Data(None));
        }
    }
    op.close();
    super::send_to_consumer(tx, Msg::Data(Some(groups)))
}

/// The global aggregate above a Gather Streams of partial aggregates.
pub(crate) struct GlobalAggregate<'p> {
    node: &'p PhysOp,
    out: Vec<Vec<Value>>,
    pos: usize,
    /// The input was aggregated: when the exchange opens for a grouped (hash) aggregate, as
    /// the serial Hash Match (Aggregate) reads its input when opened (an error then comes
    /// before the result's columns, alone), at the first `next` for a scalar (stream) one,
    /// as the serial Stream Aggregate.
    done: bool,
}

impl<'p> GlobalAggregate<'p> {
    pub(crate) fn new(node: &'p PhysOp) -> Self {
        GlobalAggregate {
            node,
            out: Vec::new(),
            pos: 0,
            done: false,
        }
    }

    /// The serial plan this replaces: a Hash Match (Aggregate) over the zone's input.
    fn run_serially(&mut self, input: &'p PhysOp, ctx: &mut ExecCtx) -> SqlResult<()> {
        self.out = aggregate_serially(self.node, input, ctx)?;
        Ok(())
    }
}

/// The rows of the serial Hash Match (Aggregate) that the global aggregate `node` replaces,
/// over the zone's rows `input` (which spills past the budget where the workers gave up).
pub(super) fn aggregate_serially(
    node: &PhysOp,
    input: &PhysOp,
    ctx: &mut ExecCtx,
) -> SqlResult<Vec<Vec<Value>>> {
    let PhysKind::GlobalAggregate { group_by, aggs, .. } = &node.kind else {
        return Err(SqlError::internal("global aggregate node expected"));
    };
    let mut op = crate::hash_aggregate::HashAggregate::new(build(input)?, group_by, aggs, None);
    op.open(ctx)?;
    let mut out = Vec::new();
    while op.next(ctx)? {
        out.push(op.row().to_vec());
    }
    op.close();
    Ok(out)
}

impl Operator for GlobalAggregate<'_> {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        self.out.clear();
        self.pos = 0;
        self.done = false;
        if matches!(
            self.node.kind,
            PhysKind::GlobalAggregate { stream: false, .. }
        ) {
            self.done = true;
            self.aggregate(ctx)?;
        }
        Ok(())
    }

    fn next(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        if !self.done {
            self.done = true;
            self.aggregate(ctx)?;
        }
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

impl GlobalAggregate<'_> {
    /// Runs the zone's workers and merges their groups into `out`.
    fn aggregate(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        let node = self.node;
        let PhysKind::GlobalAggregate {
            input,
            group_by,
            aggs,
            ..
        } = &node.kind
        else {
            return Err(SqlError::internal("global aggregate node expected"));
        };
        let (PhysKind::Parallelism { input: zone, dop }, true) =
            (&input.kind, aggs.iter().all(AggState::mergeable))
        else {
            return Err(SqlError::internal(
                "global aggregate over a non-parallel input",
            ));
        };
        let PhysKind::PartialAggregate { input: rows, .. } = &zone.kind else {
            return Err(SqlError::internal(
                "global aggregate without a partial aggregate",
            ));
        };
        let Some(mut z) = open_zone(zone, *dop, usize::from(*dop), ctx, partial)? else {
            // a shared hash join build outgrew its budget
            return self.run_serially(rows, ctx);
        };
        let mut all = Groups::default();
        let mut fallback = false;
        // the actual plan's rows of the exchange and of the partial aggregates: the partial
        // groups the workers sent (one message per worker)
        let (mut partial_groups, mut workers) = (0u64, 0u64);
        while let Some(g) = z.recv(ctx)? {
            match g {
                Some(g) if !fallback => {
                    partial_groups += g.keys.len() as u64;
                    workers += 1;
                    all.merge(aggs, g)
                }
                _ => {
                    fallback = true;
                    z.shut_down();
                }
            }
        }
        let messages = std::mem::take(&mut z.messages);
        drop(z);
        if fallback {
            return self.run_serially(rows, ctx);
        }
        crate::actuals::add_node_counts(ctx, input.node_id, partial_groups, 1);
        crate::actuals::add_node_counts(ctx, zone.node_id, partial_groups, workers);
        super::gather::add_worker_messages(ctx, messages);
        if all.keys.is_empty() && group_by.is_empty() {
            all.keys.push(Vec::new());
            all.states.push(aggs.iter().map(AggState::new).collect());
        }
        for (keys, mut states) in all.keys.into_iter().zip(all.states) {
            let mut r = keys;
            for (a, s) in aggs.iter().zip(states.iter_mut()) {
                r.push(s.finish(a)?);
            }
            self.out.push(r);
        }
        Ok(())
    }
}
