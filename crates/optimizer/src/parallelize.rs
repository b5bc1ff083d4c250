//! The parallel post-pass: when the statement may use more than one worker
//! ([`Options::max_dop`](crate::Options)) and its estimated cost reaches the cost threshold
//! for parallelism, the aggregates that read one table through a pure zone become
//! local-then-global aggregates:
//!
//! ```text
//! Hash Match(Aggregate)              GlobalAggregate        (session thread)
//!   Parallelism(Gather Streams)      Parallelism { dop }    (the exchange)
//!     Hash Match(Partial Aggregate)  PartialAggregate       (each worker)
//!       Filter / Compute Scalar ...  the zone               (each worker)
//!         Table Scan / Clustered Index Scan                 (morsels)
//! ```
//!
//! A zone (exec/src/parallel) is Filter / Compute Scalar over exactly one unordered,
//! forward Table Scan or Clustered Index Scan without a row locator, with only pure
//! expressions: no variable, parameter, subquery, non-deterministic function or function
//! reading the session or the catalog (workers never call the session). Aggregates must be mergeable (COUNT,
//! COUNT_BIG, SUM, AVG, MIN, MAX without DISTINCT), without grouping sets; a Stream Aggregate
//! qualifies only as a scalar aggregate (a grouped one relies on its input's order).
//!
//! A Hash Match join (inner, left outer, left semi, left anti semi) whose probe (left) input is
//! a zone is itself part of the zone: the coordinator reads and hashes the build (right) input
//! once when the exchange opens, every worker probes that one shared table with the morsels of
//! the probe side's scan (exec `hash_match::SharedTable`), and an aggregate above it becomes
//! local-then-global as over a scan. Otherwise the probe input, when it is a zone that
//! filters, is run by the workers under a `Parallelism(Gather Streams)` and the join stays
//! serial.
//!
//! Cost: the plan's `cost.subtree` when the optimizer filled it, else the zone's scan is
//! costed from `Catalog::table_rows` (SQL Server's per-row scan CPU plus I/O of ~20 rows a
//! page). Unknown rows count as cheap unless the threshold is 0. Exec adds a runtime guard:
//! a table of few pages runs on one worker.

use catalog::Catalog;

use crate::batch_mode::BatchModeHint;
use plan::{AggCall, AggFunc, JoinKind, PhysKind, PhysOp, ScalarExpr, ScalarFunc, ScalarKind};

/// Cost units per row of a scan when only the row count is known (CPU 0.0001581 plus the
/// I/O of a page, 0.00074, shared by ~20 rows).
const ROW_COST: f64 = 0.0001581 + 0.00074 / 20.0;

/// Batch mode's CPU per row against row mode's, for the same operators: batch mode made W3's
/// join about 3x faster than row mode on one core (exec README "Batch mode"), the scan
/// aggregates about 2x. The I/O is the same in both modes.
pub(crate) const BATCH_CPU_FACTOR: f64 = 0.4;

/// Rewrites the eligible aggregates of `op` for `dop` workers (dop > 1), when the cost of the
/// plan reaches `threshold`. An aggregate over a zone with a hash join is costed three ways
/// ([`JoinAggregateCosts`]): serial batch mode (`batch`: the statement's batch-mode hint),
/// parallel row mode and parallel batch mode; the cheapest plan is kept.
pub(crate) fn parallelize(
    op: &mut PhysOp,
    dop: u16,
    threshold: f64,
    batch: BatchModeHint,
    catalog: &dyn Catalog,
) {
    if dop <= 1 {
        return;
    }
    let cost = if op.cost.subtree > 0.0 {
        Some(op.cost.subtree)
    } else {
        scan_cost(op, catalog)
    };
    let worth_it = match cost {
        Some(c) => c >= threshold,
        None => threshold <= 0.0,
    };
    if worth_it {
        rewrite(op, dop, (batch, catalog));
    }
}

/// An aggregate over a hash join zone, costed three ways (cost units): the serial plan in
/// batch mode, the local-then-global plan with row-mode workers and with batch-mode workers
/// (None: batch mode cannot take it). A worker's share of the zone is its cost divided by the
/// degree of parallelism; the build sides run before the workers (serially, or gathered from
/// workers when they filter); the exchange costs its startup and the partial groups it moves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct JoinAggregateCosts {
    pub serial_batch: Option<f64>,
    pub parallel_row: f64,
    pub parallel_batch: Option<f64>,
}

/// Which plan an aggregate over a hash join zone gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum JoinAggregatePlan {
    SerialBatch,
    ParallelRow,
    ParallelBatch,
}

impl JoinAggregateCosts {
    /// The cheapest plan (ties: the serial one, then batch mode).
    pub(crate) fn cheapest(&self) -> JoinAggregatePlan {
        let mut best = (JoinAggregatePlan::ParallelRow, self.parallel_row);
        if let Some(c) = self.parallel_batch {
            if c <= best.1 {
                best = (JoinAggregatePlan::ParallelBatch, c);
            }
        }
        if let Some(c) = self.serial_batch {
            if c <= best.1 {
                best = (JoinAggregatePlan::SerialBatch, c);
            }
        }
        best.0
    }
}

/// Own CPU and I/O costs summed over a subtree.
#[derive(Debug, Default, Clone, Copy)]
struct CpuIo {
    cpu: f64,
    io: f64,
}

impl CpuIo {
    fn add(&mut self, o: &PhysOp) {
        let n = o.cost.executions.max(1.0);
        self.cpu += o.cost.cpu * n;
        self.io += o.cost.io * n;
    }

    fn of_subtree(op: &PhysOp) -> CpuIo {
        let mut t = CpuIo::default();
        let mut stack = vec![op];
        while let Some(o) = stack.pop() {
            t.add(o);
            stack.extend(o.children());
        }
        t
    }

    /// In the mode whose CPU per row is `factor` times row mode's.
    fn total(&self, factor: f64) -> f64 {
        self.cpu * factor + self.io
    }
}

/// Costs the plans of the serial aggregate `op` over a zone with hash joins (see
/// [`JoinAggregateCosts`]). `serial_batch` / `parallel_batch`: whether batch mode can run
/// each form.
fn join_aggregate_costs(
    op: &PhysOp,
    dop: u16,
    serial_batch: bool,
    parallel_batch: bool,
) -> JoinAggregateCosts {
    let dop = f64::from(dop.max(1));
    // the aggregate and its zone (probe sides), and the build sides
    let mut zone = CpuIo::default();
    zone.add(op);
    let mut builds: Vec<&PhysOp> = Vec::new();
    let mut cur = op.children().into_iter().next();
    while let Some(o) = cur {
        zone.add(o);
        cur = match &o.kind {
            PhysKind::Filter { input, .. } | PhysKind::ComputeScalar { input, .. } => {
                Some(&**input)
            }
            PhysKind::HashJoin { left, right, .. } => {
                builds.push(right);
                Some(&**left)
            }
            _ => None,
        };
    }
    let build_cost = |factor: f64| -> f64 {
        builds
            .iter()
            .map(|b| {
                let c = CpuIo::of_subtree(b);
                if gathers_build(b, dop, factor < 1.0) {
                    gathered_build_cost(b, dop)
                } else {
                    c.total(factor)
                }
            })
            .sum()
    };
    let exchange =
        crate::cost::EXCHANGE_STARTUP + crate::cost::EXCHANGE_ROW * op.est_rows.max(1.0) * dop;
    let parallel = |factor: f64| zone.total(factor) / dop + build_cost(factor) + exchange;
    let serial = |factor: f64| {
        zone.total(factor)
            + builds
                .iter()
                .map(|b| CpuIo::of_subtree(b).total(factor))
                .sum::<f64>()
    };
    JoinAggregateCosts {
        serial_batch: serial_batch.then(|| serial(BATCH_CPU_FACTOR)),
        parallel_row: parallel(1.0),
        parallel_batch: parallel_batch.then(|| parallel(BATCH_CPU_FACTOR)),
    }
}

/// The fallback cost: the rows of every table scanned, costed per row (None: a scanned
/// table's rows are unknown).
fn scan_cost(op: &PhysOp, catalog: &dyn Catalog) -> Option<f64> {
    let mut total = 0.0;
    let mut stack = vec![op];
    while let Some(o) = stack.pop() {
        match &o.kind {
            PhysKind::TableScan { source, .. } | PhysKind::ClusteredIndexScan { source, .. } => {
                total += catalog.table_rows(&source.table)? as f64 * ROW_COST;
            }
            _ => stack.extend(o.children()),
        }
    }
    Some(total)
}

/// The statement's batch-mode hint and the catalog batch mode decides with.
type BatchChoice<'c> = (BatchModeHint, &'c dyn Catalog);

fn rewrite(op: &mut PhysOp, dop: u16, batch: BatchChoice<'_>) {
    common::stack::grow(|| {
        if let Some(mut new) = parallel_aggregate(op, dop) {
            let mut workers_batch = false;
            if aggregates_a_join(op) {
                let (hint, catalog) = batch;
                let allowed = hint != BatchModeHint::Disallow;
                let serial_batch = allowed && crate::batch_mode::eligible(op, hint, catalog);
                let parallel_batch = allowed
                    && partial_aggregate_mut(&mut new).is_some_and(|p| {
                        crate::batch_mode::partial_join_eligible(p, hint, catalog)
                    });
                let costs = join_aggregate_costs(op, dop, serial_batch, parallel_batch);
                match costs.cheapest() {
                    JoinAggregatePlan::SerialBatch => return,
                    JoinAggregatePlan::ParallelBatch => workers_batch = true,
                    JoinAggregatePlan::ParallelRow => {}
                }
            }
            *op = new;
            if let Some(partial) = partial_aggregate_mut(op) {
                parallelize_builds(partial, dop, batch, workers_batch);
                if workers_batch {
                    // the batch-mode pass leaves a join zone's partial aggregate alone: the
                    // choice was made here, on cost
                    crate::batch_mode::mark_partial_join(partial);
                }
            }
            return;
        }
        if matches!(op.kind, PhysKind::HashJoin { .. }) && is_zone(op) {
            // a parallel hash join with a shared build: the coordinator reads and hashes the
            // build side once, the workers probe it with the morsels of the probe side's scan
            // and the joined rows are gathered (unordered, like the scan)
            gather(op, dop);
            if let PhysKind::Parallelism { input, .. } = &mut op.kind {
                parallelize_builds(input, dop, batch, false);
            }
            return;
        }
        if let PhysKind::HashJoin { left, .. } = &mut op.kind {
            // the probe side: a filtered zone is scanned and filtered by the workers and
            // gathered (the join itself stays on the coordinator; its output order was
            // never promised: the scan is unordered) — unless batch mode would read it
            // serially for less ([`gathers_probe`])
            if gathers_probe(left, dop, batch) {
                gather(left, dop);
            }
        }
        for c in children_mut(op) {
            rewrite(c, dop, batch);
        }
    })
}

/// The build sides of a zone's hash joins, which the coordinator reads before the workers
/// start: a filtering zone is itself scanned by workers and gathered (else the serial build
/// scan bounds the speed-up, Amdahl), anything else is parallelized as a plan of its own.
/// `workers_batch`: the workers probe in batch mode, and then a filtering zone that batch mode
/// reads stays serial and is read in batch mode ([`gathers_build`]).
fn parallelize_builds(zone: &mut PhysOp, dop: u16, batch: BatchChoice<'_>, workers_batch: bool) {
    match &mut zone.kind {
        PhysKind::Filter { input, .. }
        | PhysKind::ComputeScalar { input, .. }
        | PhysKind::PartialAggregate { input, .. } => {
            parallelize_builds(input, dop, batch, workers_batch)
        }
        PhysKind::HashJoin { left, right, .. } => {
            if gathers_build(right, f64::from(dop.max(1)), workers_batch) {
                gather(right, dop);
            } else if !(workers_batch && crate::batch_mode::batch_build(right)) {
                // (a batch source under batch-mode workers is read serially in batch mode,
                // as [`gathers_build`] says for a filtering zone: TPC-H Q3's and Q10's
                // customer-orders joins)
                rewrite(right, dop, batch);
            }
            parallelize_builds(left, dop, batch, workers_batch);
        }
        _ => {}
    }
}

/// Whether the build side `b` of a zone's join is a filtering zone gathered from row-mode
/// workers. When the workers probe in batch mode (`workers_batch`) and batch mode reads `b`
/// as a source, only when that costs less than reading it serially in batch mode: the
/// row-mode workers filter each row through the row evaluator (TPC-H Q12's lineitem build:
/// 600k rows, 3,155 kept), the serial batch scan filters column-wise and decodes the other
/// columns only for the rows that pass (exec README "Late materialization"), at
/// `BATCH_CPU_FACTOR` of row mode's CPU, without the exchange, but reads every page itself.
fn gathers_build(b: &PhysOp, dop: f64, workers_batch: bool) -> bool {
    if !(is_zone(b) && filters(b)) {
        return false;
    }
    if !(workers_batch && crate::batch_mode::batch_build(b)) {
        return true;
    }
    gathered_build_cost(b, dop) < CpuIo::of_subtree(b).total(BATCH_CPU_FACTOR)
}

/// Whether the filtering zone `probe` of a serial hash join (one a parallel zone cannot hold:
/// a build-side-preserving semi join, a join over a non-zone) is scanned by row-mode workers
/// and gathered. The gathered rows reach the join in row mode, which takes the join and the
/// operators above it out of batch mode: TPC-H q04's Right Semi Join probed 380k gathered
/// lineitem rows (SF 0.1) in row mode, twice the time of the serial batch plan. So where
/// batch mode would read the zone (a batch source over the batch-mode threshold, or batch
/// mode forced) the gather must cost less than a serial batch read ([`gathers_build`]'s
/// comparison).
fn gathers_probe(probe: &PhysOp, dop: u16, (hint, catalog): BatchChoice<'_>) -> bool {
    if !(is_zone(probe) && filters(probe)) {
        return false;
    }
    let batch_reads = match hint {
        BatchModeHint::Disallow => false,
        BatchModeHint::Allow => true,
        BatchModeHint::Auto => {
            crate::batch_mode::scan_rows(probe, catalog) >= crate::batch_mode::BATCH_MODE_MIN_ROWS
        }
    };
    gathers_build(probe, f64::from(dop.max(1)), batch_reads)
}

/// A filtering zone's cost when row-mode workers scan it and the coordinator gathers its
/// rows. As in SQL Server's model only the CPU is shared among the workers: the pages are read
/// once whatever the DOP, so the I/O cost is not divided (dividing it made a gathered row-mode
/// scan of TPC-H q04's and q12's lineitem look cheaper than the serial batch read that runs in
/// half the time).
fn gathered_build_cost(b: &PhysOp, dop: f64) -> f64 {
    let c = CpuIo::of_subtree(b);
    c.cpu / dop + c.io + crate::cost::EXCHANGE_STARTUP + crate::cost::EXCHANGE_ROW * b.est_rows
}

/// An aggregate whose input zone holds a hash join.
fn aggregates_a_join(op: &PhysOp) -> bool {
    fn has_join(op: &PhysOp) -> bool {
        match &op.kind {
            PhysKind::HashJoin { .. } => true,
            PhysKind::Filter { input, .. } | PhysKind::ComputeScalar { input, .. } => {
                has_join(input)
            }
            _ => false,
        }
    }
    match &op.kind {
        PhysKind::HashAggregate { input, .. } | PhysKind::StreamAggregate { input, .. } => {
            has_join(input)
        }
        _ => false,
    }
}

/// Puts `op` under a `Parallelism(Gather Streams)` of `dop` workers.
fn gather(op: &mut PhysOp, dop: u16) {
    let columns = op.columns.clone();
    let est_rows = op.est_rows;
    let zone = std::mem::replace(
        op,
        PhysOp::new(PhysKind::ConstantScan { rows: vec![] }, vec![], 0.0),
    );
    *op = PhysOp::new(
        PhysKind::Parallelism {
            input: Box::new(zone),
            dop,
        },
        columns,
        est_rows,
    );
}

/// Whether a zone drops rows (a Filter or a scan predicate): only then is gathering its rows
/// cheaper than scanning them on the coordinator.
fn filters(op: &PhysOp) -> bool {
    match &op.kind {
        PhysKind::TableScan { predicate, .. } | PhysKind::ClusteredIndexScan { predicate, .. } => {
            predicate.is_some()
        }
        PhysKind::Filter { .. } => true,
        PhysKind::ComputeScalar { input, .. } => filters(input),
        _ => false,
    }
}

fn children_mut(op: &mut PhysOp) -> Vec<&mut PhysOp> {
    match &mut op.kind {
        PhysKind::Filter { input, .. }
        | PhysKind::ComputeScalar { input, .. }
        | PhysKind::Sort { input, .. }
        | PhysKind::HashAggregate { input, .. }
        | PhysKind::StreamAggregate { input, .. }
        | PhysKind::Top { input, .. }
        | PhysKind::Window { input, .. }
        | PhysKind::HashDistinct { input } => vec![&mut **input],
        PhysKind::HashJoin { left, right, .. }
        | PhysKind::MergeJoin { left, right, .. }
        | PhysKind::HashSetOp { left, right, .. } => vec![&mut **left, &mut **right],
        // the inner side of nested loops is re-opened per outer row: never a zone
        PhysKind::NestedLoops { outer, .. } => vec![&mut **outer],
        PhysKind::Concatenation { inputs } => inputs.iter_mut().collect(),
        _ => vec![],
    }
}

/// The partial aggregate of a local-then-global aggregate (either form).
fn partial_aggregate_mut(op: &mut PhysOp) -> Option<&mut PhysOp> {
    let mut cur = op;
    loop {
        match cur.kind {
            PhysKind::PartialAggregate { .. } => return Some(cur),
            PhysKind::GlobalAggregate { .. }
            | PhysKind::Parallelism { .. }
            | PhysKind::Repartition { .. } => {}
            _ => return None,
        }
        cur = cur.children_mut().into_iter().next()?;
    }
}

/// Whether the global half of a grouped local-then-global aggregate of about `groups`
/// groups over `input_rows` rows should run on `dop` consumers behind a Repartition Streams
/// (requiring `Hash(group keys)`) rather than merge every worker's partial groups on the
/// coordinator (requiring `Single`): the two plans costed through the distribution
/// property's enforcers (`distribution::aggregate_plans`). The serial merge's share
/// `(1 - 1/dop)` of hashing the partial groups against a second exchange: about 3,000
/// groups at DOP 2.
pub(crate) fn repartition_pays(groups: f64, input_rows: f64, dop: u16, keys: usize) -> bool {
    if dop <= 1 || !groups.is_finite() || groups < 1.0 || keys == 0 {
        return false;
    }
    // each worker sees at most every group, and no more groups than it has rows
    let partials = (groups * f64::from(dop)).min(input_rows.max(groups));
    let keys: Vec<usize> = (0..keys).collect();
    let (at_gather, repartitioned) =
        crate::distribution::aggregate_plans(groups, partials, dop, &keys);
    repartitioned < at_gather
}

/// The local-then-global form of `op` when it is an eligible aggregate: merged at the
/// Gather Streams, or, when [`repartition_pays`], repartitioned on the group keys with the
/// global aggregate on every consumer:
///
/// ```text
/// Parallelism(Gather Streams)
///   Hash Match(Aggregate)                     GlobalAggregate (per consumer)
///     Parallelism(Repartition Streams, Hash)  Repartition { keys: group_by }
///       Hash Match(Partial Aggregate)         PartialAggregate (per producer)
///         zone
/// ```
fn parallel_aggregate(op: &PhysOp, dop: u16) -> Option<PhysOp> {
    let (input, group_by, aggs, stream) = match &op.kind {
        PhysKind::HashAggregate {
            input,
            group_by,
            aggs,
            grouping_sets: None,
        } => (input, group_by, aggs, false),
        PhysKind::StreamAggregate {
            input,
            group_by,
            aggs,
        } if group_by.is_empty() => (input, group_by, aggs, true),
        _ => return None,
    };
    if !aggs.iter().all(mergeable) || !group_by.iter().all(pure) || !is_zone(input) {
        return None;
    }
    if !aggs.iter().all(|a| a.args.iter().all(pure)) {
        return None;
    }
    let partial = PhysOp {
        kind: PhysKind::PartialAggregate {
            input: input.clone(),
            group_by: group_by.clone(),
            aggs: aggs.clone(),
        },
        columns: op.columns.clone(),
        est_rows: op.est_rows,
        cost: Default::default(),
        node_id: 0,
        exec_mode: Default::default(),
    };
    if repartition_pays(op.est_rows, input.est_rows, dop, group_by.len()) {
        let exchange = PhysOp {
            kind: PhysKind::Repartition {
                input: Box::new(partial),
                dop,
                keys: group_by.clone(),
            },
            columns: op.columns.clone(),
            est_rows: op.est_rows,
            cost: Default::default(),
            node_id: 0,
            exec_mode: Default::default(),
        };
        let global = PhysOp {
            kind: PhysKind::GlobalAggregate {
                input: Box::new(exchange),
                group_by: group_by.clone(),
                aggs: aggs.clone(),
                stream,
            },
            columns: op.columns.clone(),
            est_rows: op.est_rows,
            cost: Default::default(),
            node_id: 0,
            exec_mode: Default::default(),
        };
        return Some(PhysOp {
            kind: PhysKind::Parallelism {
                input: Box::new(global),
                dop,
            },
            columns: op.columns.clone(),
            est_rows: op.est_rows,
            cost: op.cost,
            node_id: op.node_id,
            exec_mode: Default::default(),
        });
    }
    let gather = PhysOp {
        kind: PhysKind::Parallelism {
            input: Box::new(partial),
            dop,
        },
        columns: op.columns.clone(),
        est_rows: op.est_rows,
        cost: Default::default(),
        node_id: 0,
        exec_mode: Default::default(),
    };
    Some(PhysOp {
        kind: PhysKind::GlobalAggregate {
            input: Box::new(gather),
            group_by: group_by.clone(),
            aggs: aggs.clone(),
            stream,
        },
        columns: op.columns.clone(),
        est_rows: op.est_rows,
        cost: op.cost,
        node_id: op.node_id,
        exec_mode: Default::default(),
    })
}

/// Exec's `AggState::mergeable`, decided here from the plan.
pub(crate) fn mergeable(a: &AggCall) -> bool {
    !a.distinct
        && matches!(
            a.func,
            AggFunc::CountStar
                | AggFunc::Count
                | AggFunc::CountBigStar
                | AggFunc::CountBig
                | AggFunc::Sum
                | AggFunc::Avg
                | AggFunc::Min
                | AggFunc::Max
        )
}

/// Filter / Compute Scalar over one forward, unordered scan with pure expressions, whose
/// table hints fit the table S lock a parallel read takes (no UPDLOCK, XLOCK, READPAST ...).
pub(crate) fn is_zone(op: &PhysOp) -> bool {
    let plain = |s: &plan::TableSource| {
        !s.with_locator
            && s.hints.all.iter().all(|h| {
                matches!(
                    h.as_str(),
                    "NOLOCK" | "READUNCOMMITTED" | "READCOMMITTED" | "TABLOCK"
                )
            })
    };
    match &op.kind {
        PhysKind::TableScan { source, predicate } => {
            plain(source) && predicate.as_ref().is_none_or(pure)
        }
        PhysKind::ClusteredIndexScan {
            source,
            predicate,
            ordered,
            backward,
        } => plain(source) && !ordered && !backward && predicate.as_ref().is_none_or(pure),
        PhysKind::Filter { input, predicate } => pure(predicate) && is_zone(input),
        PhysKind::ComputeScalar { input, exprs } => exprs.iter().all(pure) && is_zone(input),
        // the probe side of a hash join whose build side the coordinator reads once (exec's
        // shared build): only kinds that never emit unmatched build rows, whose probe rows
        // are independent of each other
        PhysKind::HashJoin {
            left,
            kind,
            left_keys,
            residual,
            ..
        } => {
            matches!(
                kind,
                JoinKind::Inner | JoinKind::LeftOuter | JoinKind::LeftSemi | JoinKind::LeftAntiSemi
            ) && left_keys.iter().all(pure)
                && residual.as_ref().is_none_or(pure)
                && is_zone(left)
        }
        _ => false,
    }
}

/// An expression a worker can evaluate alone: no variable, parameter or subquery, no
/// non-deterministic function or function reading the session or the catalog.
pub(crate) fn pure(e: &ScalarExpr) -> bool {
    match &e.kind {
        ScalarKind::Variable(_)
        | ScalarKind::Param(_)
        | ScalarKind::ScalarSubquery(_)
        | ScalarKind::Exists(_)
        | ScalarKind::InSubquery { .. }
        | ScalarKind::Quantified { .. } => false,
        ScalarKind::Function { func, .. } if !worker_safe(*func) => false,
        _ => e.children().into_iter().all(pure),
    }
}

/// Functions a worker evaluates alone: not non-deterministic per row, not reading the
/// session, its options or the catalog.
fn worker_safe(f: ScalarFunc) -> bool {
    use ScalarFunc::*;
    !matches!(
        f,
        Rand | NewId
            | GetDate
            | SysDateTime
            | GetUtcDate
            | Named
            | ObjectId
            | DbName
            | DbId
            | SchemaName
            | UserName
            | SuserSname
            | HostName
            | AppName
            | Version
            | SpId
            | RowCount
            | TranCount
            | Error
            | Identity
            | ScopeIdentity
            | ServerProperty
            | DatabasePropertyEx
            | ObjectName
            | ColumnProperty
            | TypeName
            | ErrorNumber
            | ErrorMessage
            | ErrorSeverity
            | ErrorState
            | ErrorLine
            | ErrorProcedure
            | IsDate
            | Format
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A node with its own CPU / I/O cost (no scan: the build side is read serially).
    fn node(kind: PhysKind, cpu: f64, io: f64, rows: f64) -> PhysOp {
        let mut op = PhysOp::new(kind, vec![], rows);
        op.cost.cpu = cpu;
        op.cost.io = io;
        op.cost.executions = 1.0;
        op
    }

    /// An aggregate over a hash join: the probe input costs `probe` (CPU, I/O), the build
    /// input `build`; `groups` partial groups per worker.
    fn join_aggregate(probe: (f64, f64), build: (f64, f64), groups: f64) -> PhysOp {
        let scan =
            |(cpu, io): (f64, f64)| node(PhysKind::ConstantScan { rows: vec![] }, cpu, io, 1.0);
        let join = node(
            PhysKind::HashJoin {
                left: Box::new(scan(probe)),
                right: Box::new(scan(build)),
                kind: JoinKind::Inner,
                left_keys: vec![],
                right_keys: vec![],
                residual: None,
            },
            probe.0 / 4.0,
            0.0,
            1.0,
        );
        node(
            PhysKind::HashAggregate {
                input: Box::new(join),
                group_by: vec![],
                aggs: vec![],
                grouping_sets: None,
            },
            probe.0 / 10.0,
            0.0,
            groups,
        )
    }

    #[test]
    fn a_large_join_aggregate_runs_in_parallel_batch_mode() {
        let op = join_aggregate((40.0, 10.0), (0.5, 0.1), 1.0);
        let c = join_aggregate_costs(&op, 2, true, true);
        assert_eq!(c.cheapest(), JoinAggregatePlan::ParallelBatch, "{c:?}");
        // without batch mode in the workers, the parallel row plan still beats the serial
        // batch plan at DOP 4, not necessarily at DOP 2 (batch CPU is 0.4x row mode's)
        let c = join_aggregate_costs(&op, 4, true, false);
        assert_eq!(c.cheapest(), JoinAggregatePlan::ParallelRow, "{c:?}");
        let c = join_aggregate_costs(&op, 2, true, false);
        assert_eq!(c.cheapest(), JoinAggregatePlan::SerialBatch, "{c:?}");
        // batch mode disallowed: parallel row
        let c = join_aggregate_costs(&op, 2, false, false);
        assert_eq!(c.cheapest(), JoinAggregatePlan::ParallelRow, "{c:?}");
    }

    #[test]
    fn a_small_join_aggregate_stays_serial_batch() {
        // the exchange's startup (0.0285) is more than a worker saves
        let op = join_aggregate((0.01, 0.003), (0.001, 0.003), 1.0);
        let c = join_aggregate_costs(&op, 2, true, true);
        assert_eq!(c.cheapest(), JoinAggregatePlan::SerialBatch, "{c:?}");
    }

    #[test]
    fn a_serial_build_and_many_partial_groups_keep_the_plan_serial() {
        // the build input is read before the workers start and every worker sends its
        // partial groups through the exchange: halving the probe does not pay for both
        let op = join_aggregate((1.0, 0.2), (1.0, 0.2), 200_000.0);
        let c = join_aggregate_costs(&op, 2, true, true);
        assert_eq!(c.cheapest(), JoinAggregatePlan::SerialBatch, "{c:?}");
    }
}
