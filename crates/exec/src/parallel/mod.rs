//! Parallel execution: parallel zones run by workers over morsel-driven scans, joined to the
//! serial plan by exchanges (exec README "Parallelism").
//!
//! A *zone* is the subtree below a `Parallelism` node: Filter / Compute Scalar over exactly
//! one Table Scan or Clustered Index Scan, with pure expressions (the optimizer's
//! `parallelize` pass checks it; `open_zone` checks the scan again). When the exchange opens,
//! the coordinator (the session's thread):
//! 1. takes the statement's lock on the scanned table for the whole parallel read: the
//!    access's hints plus `TABLOCK` (an S table lock, released as READ COMMITTED releases it;
//!    with NOLOCK / READUNCOMMITTED nothing), so no writer changes the pages meanwhile and no
//!    row locks are needed — workers never call the session;
//! 2. resolves what workers need into a [`WorkerEnv`] (the database handle, the memory
//!    budget, the cancel flag) and snapshots the table's page list into a shared
//!    `storage::morsel::MorselSource`;
//! 3. starts the workers (std threads, one per degree of parallelism, fewer for a small
//!    table); each builds its own operator tree from the zone's plan (`Arc`, shared) with its
//!    own `ExecCtx`, and its scan claims morsels on demand, so a worker on a busy core simply
//!    takes fewer of them.
//!
//! Errors: the first error of any worker sets the zone's stop flag (polled per page with the
//! cancel flag), the others stop within a page, and the coordinator returns that error. A
//! panic in a worker is caught there, the other workers are stopped and joined, and the
//! panic resumes on the coordinator's thread, where the session contains it as any other
//! (Msg 8630 path, `Session::contain_panic`).

mod aggregate;
mod gather;
mod placement;
mod repartition;

pub(crate) use aggregate::GlobalAggregate;
pub(crate) use gather::Gather;
pub(crate) use repartition::{is_repartitioned_aggregate, RepartitionedAggregate};

use std::any::Any;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Arc;

use common::{SqlError, SqlResult};
use plan::{PhysKind, PhysOp, TableSource};
use types::Value;

use crate::context::ExecCtx;
use crate::locking::{TableAccess, TableLocker};
use crate::table_io::TableStore;
use crate::{ExecEnv, SpillConfig};

/// A table of fewer pages than this is scanned by one worker: starting threads would cost
/// more than they save (the runtime guard behind the optimizer's cost threshold).
pub const MIN_PARALLEL_PAGES: usize = 8;

/// The error a worker returns when the zone was stopped (never surfaces: the coordinator
/// already has the error that stopped it, or closed the exchange).
pub(crate) fn stopped() -> SqlError {
    SqlError::internal(STOPPED)
}

const STOPPED: &str = "parallel worker stopped";

/// Whether `e` is [`stopped`]: a worker that saw the stop flag, not the failure behind it.
fn is_stopped(e: &SqlError) -> bool {
    e.message.ends_with(STOPPED)
}

/// What a worker may ask of its environment: everything resolved by the coordinator when the
/// zone opened. No variables, no transaction, no session calls (the optimizer puts none of
/// them in a zone).
pub(crate) struct WorkerEnv {
    storage: Arc<storage::Database>,
    database: String,
    spill: SpillConfig,
    cancel: Option<common::CancelToken>,
    session_id: i32,
    /// The coordinator's snapshot read (row versioning): the zone then runs one worker over
    /// the whole table, merging versions as a serial scan does.
    snapshot: Option<crate::versions::SnapshotRead>,
}

impl ExecEnv for WorkerEnv {
    fn table_locker(
        &mut self,
        _table: &plan::catalog::TableDef,
        _hints: &[String],
        _access: TableAccess,
    ) -> SqlResult<Option<Box<dyn TableLocker>>> {
        Ok(self
            .snapshot
            .clone()
            .map(|r| Box::new(crate::locking::SnapshotOnly(r)) as Box<dyn TableLocker>))
    }
    fn storage(&mut self, database: &str) -> SqlResult<Arc<storage::Database>> {
        if database.eq_ignore_ascii_case(&self.database) {
            Ok(self.storage.clone())
        } else {
            Err(SqlError::internal(format!(
                "parallel worker: database {database} was not resolved when the zone opened"
            )))
        }
    }
    fn txn(&mut self, _database: &str) -> SqlResult<&mut storage::Txn> {
        Err(SqlError::internal("a parallel worker has no transaction"))
    }
    fn variable_at(&self, _slot: usize) -> Option<&Value> {
        None
    }
    fn set_variable_at(&mut self, _slot: usize, _v: Value) -> SqlResult<()> {
        Err(SqlError::internal("a parallel worker cannot set variables"))
    }
    fn session_id(&self) -> i32 {
        self.session_id
    }
    fn call_function(&mut self, name: &str, _args: &[Value]) -> SqlResult<Option<Value>> {
        // the optimizer keeps session and catalog functions out of zones
        Err(SqlError::internal(format!(
            "{name} reached a parallel worker, which cannot call the session"
        )))
    }
    fn spill_config(&self) -> SpillConfig {
        self.spill.clone()
    }
    fn cancel_token(&self) -> Option<common::CancelToken> {
        self.cancel.clone()
    }
}

/// The scan of a zone: its only Table Scan / Clustered Index Scan (None: not a zone).
pub(crate) fn zone_scan(op: &PhysOp) -> Option<&TableSource> {
    match &op.kind {
        PhysKind::TableScan { source, .. } => Some(source),
        PhysKind::ClusteredIndexScan {
            source, backward, ..
        } if !*backward => Some(source),
        PhysKind::Filter { input, .. }
        | PhysKind::ComputeScalar { input, .. }
        | PhysKind::PartialAggregate { input, .. } => zone_scan(input),
        // the probe side; the build side is read once by the coordinator (shared build)
        PhysKind::HashJoin { left, kind, .. } if crate::hash_match::probe_parallel_kind(*kind) => {
            zone_scan(left)
        }
        _ => None,
    }
}

/// The hash joins of a zone (on the path from its top to its scan), outermost first.
fn zone_joins<'a>(op: &'a PhysOp, out: &mut Vec<&'a PhysOp>) {
    match &op.kind {
        PhysKind::Filter { input, .. }
        | PhysKind::ComputeScalar { input, .. }
        | PhysKind::PartialAggregate { input, .. } => zone_joins(input, out),
        PhysKind::HashJoin { left, .. } => {
            out.push(op);
            zone_joins(left, out)
        }
        _ => {}
    }
}

/// The coordinator reads and hashes the build input of each of the zone's hash joins once
/// (in the session's context: its locks, its variables), before any worker starts: a row-mode
/// table (`hash_match::SharedTable`) or, for a join the workers run in batch mode, column
/// vectors and their key table (`batch::build_shared`). The key tables are indexed by
/// `workers` threads at once, in hash partitions (`byte_keys::PartitionedKeys`; the workers
/// have not started, so their cores are free). None when one outgrows the operator budget:
/// the zone then runs serially.
fn build_shared_tables(
    plan: &PhysOp,
    ctx: &mut ExecCtx,
    workers: usize,
) -> SqlResult<Option<SharedTables>> {
    let mut joins = Vec::new();
    zone_joins(plan, &mut joins);
    let (mut rows, mut batches) = (Vec::new(), Vec::new());
    for join in joins {
        // the key: the join's address in the plan the workers build from
        let key = join as *const PhysOp as usize;
        if join.exec_mode == plan::ExecMode::Batch {
            match crate::batch::build_shared(join, ctx, workers)? {
                Some(t) => batches.push((key, Arc::new(t))),
                None => return Ok(None),
            }
            continue;
        }
        let budget = ctx.spill.operator_budget;
        match crate::hash_match::build_shared(join, ctx, budget, workers)? {
            Some(t) => rows.push((key, Arc::new(t))),
            None => return Ok(None),
        }
    }
    Ok(Some((Arc::new(rows), Arc::new(batches))))
}

/// A zone's shared hash join builds: row-mode tables and batch-mode build sides.
type SharedTables = (
    crate::hash_match::SharedBuilds,
    crate::batch::SharedBatchBuilds,
);

static INJECT_PANIC: AtomicBool = AtomicBool::new(false);

/// Makes the next worker started panic (tests of panic containment; nothing else sets it).
#[doc(hidden)]
pub fn inject_worker_panic_for_tests() {
    INJECT_PANIC.store(true, Ordering::SeqCst);
}

/// A message from a worker to the coordinator.
pub(crate) enum Msg<T> {
    /// Rows or a partial result.
    Data(T),
    /// The worker finished; its informational messages (8153 ...) and its operators' actual
    /// counters (added to the statement's: the actual plan counts every worker's rows).
    Done(Vec<SqlError>, Vec<crate::actuals::OpActuals>),
    Failed(SqlError),
    Panicked(Box<dyn Any + Send>),
}

/// An open zone: the shared state of its workers.
pub(crate) struct Zone<T: Send + 'static> {
    rx: mpsc::Receiver<Msg<T>>,
    stop: Arc<AtomicBool>,
    handles: Vec<std::thread::JoinHandle<()>>,
    /// Workers that have not reported Done / Failed yet.
    running: usize,
    /// `shut_down` ran: nothing more will be received.
    closed: bool,
    /// The table lock of the parallel read (released when the zone is dropped).
    _locker: Option<Box<dyn TableLocker>>,
    /// The workers' channel, for helpers started later ([`Zone::spawn_helper`]).
    tx: mpsc::SyncSender<Msg<T>>,
    /// Informational messages of the finished workers.
    pub messages: Vec<SqlError>,
}

/// Opens the zone `plan` with up to `dop` workers, each running `body` over its own operator
/// context (the morsels of the zone's scan set) and sending what it produces through the
/// channel (`bound` messages in flight at most, so a slow consumer stops the producers).
/// None: a hash join's shared build outgrew its budget; the caller runs the zone serially.
pub(crate) fn open_zone<T, F>(
    plan: &PhysOp,
    dop: u16,
    bound: usize,
    ctx: &mut ExecCtx,
    body: F,
) -> SqlResult<Option<Zone<T>>>
where
    T: Send + 'static,
    F: Fn(&PhysOp, &mut ExecCtx, &mpsc::SyncSender<Msg<T>>) -> SqlResult<()>
        + Send
        + Sync
        + 'static,
{
    open_zone_with(plan, dop, bound, ctx, |_| body)
}

/// [`open_zone`] whose workers' body is made once the number of workers is known
/// (`make_body(workers)`, before any starts): a Repartition Streams routes to as many
/// consumers as there are producers.
pub(crate) fn open_zone_with<T, F, M>(
    plan: &PhysOp,
    dop: u16,
    bound: usize,
    ctx: &mut ExecCtx,
    make_body: M,
) -> SqlResult<Option<Zone<T>>>
where
    T: Send + 'static,
    F: Fn(&PhysOp, &mut ExecCtx, &mpsc::SyncSender<Msg<T>>) -> SqlResult<()>
        + Send
        + Sync
        + 'static,
    M: FnOnce(usize) -> F,
{
    let source =
        zone_scan(plan).ok_or_else(|| SqlError::internal("a parallel zone without its scan"))?;
    let table = source.table.clone();
    let mut hints = source.hints.all.clone();
    if !hints
        .iter()
        .any(|h| h == "NOLOCK" || h == "READUNCOMMITTED" || h == "TABLOCK")
    {
        hints.push("TABLOCK".into());
    }
    let locker = ctx.env.table_locker(&table, &hints, TableAccess::Read)?;
    if locker.as_ref().is_some_and(|l| l.rows_need_locks()) {
        return Err(SqlError::internal(
            "parallel scan: the table lock did not cover the rows",
        ));
    }
    let db = ctx.env.storage(&table.database)?;
    let store = TableStore::open(db.clone(), table.clone())?;
    let wanted = usize::from(dop.max(1));
    let morsels = match (&store.heap, &store.clustered) {
        (Some(h), _) => h.morsels(wanted)?,
        (None, Some((_, bt))) => bt.morsels(wanted)?,
        (None, None) => {
            return Err(SqlError::internal(
                "parallel scan of a table without storage",
            ))
        }
    };
    let by_pages = morsels.page_count().div_ceil(morsels.morsel_pages()).max(1);
    let snapshot = locker.as_ref().and_then(|l| l.snapshot());
    let workers = if morsels.page_count() < MIN_PARALLEL_PAGES || snapshot.is_some() {
        1
    } else {
        wanted.min(by_pages)
    };
    let mut spill = ctx.spill.clone();
    spill.operator_budget = (spill.operator_budget / workers).max(1 << 20);
    let env = WorkerEnv {
        storage: db,
        database: table.database.clone(),
        spill,
        cancel: ctx.cancel_token().cloned(),
        session_id: ctx.env.session_id(),
        snapshot,
    };
    let plan = Arc::new(plan.clone());
    let Some((shared_builds, shared_batch_builds)) = build_shared_tables(&plan, ctx, workers)?
    else {
        return Ok(None);
    };
    let body = Arc::new(make_body(workers));
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::sync_channel(bound.max(workers));
    let mut zone = Zone {
        rx,
        stop: stop.clone(),
        handles: Vec::with_capacity(workers),
        running: 0,
        closed: false,
        _locker: locker,
        tx: tx.clone(),
        messages: Vec::new(),
    };
    let cpus = placement::cpus_for_zone(workers);
    for i in 0..workers {
        let cpu = cpus.get(i).copied();
        let (plan, body, stop, tx, morsels) = (
            plan.clone(),
            body.clone(),
            stop.clone(),
            tx.clone(),
            morsels.clone(),
        );
        let (shared_builds, shared_batch_builds) =
            (shared_builds.clone(), shared_batch_builds.clone());
        let mut env = WorkerEnv {
            storage: env.storage.clone(),
            database: env.database.clone(),
            spill: env.spill.clone(),
            cancel: env.cancel.clone(),
            session_id: env.session_id,
            snapshot: env.snapshot.clone(),
        };
        let spawned = std::thread::Builder::new()
            .name(format!("latchkey-worker-{i}"))
            .spawn(move || {
                if let Some(cpu) = cpu {
                    placement::pin_current_thread(cpu);
                }
                let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    if INJECT_PANIC.swap(false, Ordering::Relaxed) {
                        panic!("panic injected by a test (inject_worker_panic_for_tests)");
                    }
                    let snapshot_read = env.snapshot.is_some();
                    let mut wctx = ExecCtx::new(&mut env);
                    // a snapshot read is one serial scan (versioned rows merged in order)
                    wctx.morsels = (!snapshot_read).then_some(morsels);
                    wctx.stop = Some(stop.clone());
                    wctx.shared_builds = Some(shared_builds);
                    wctx.shared_batch_builds = Some(shared_batch_builds);
                    body(&plan, &mut wctx, &tx).map(|()| {
                        let actuals = wctx.actuals.borrow().clone();
                        (std::mem::take(&mut wctx.messages), actuals)
                    })
                }));
                let _ = tx.send(final_message(run, &stop));
            });
        match spawned {
            Ok(h) => {
                zone.handles.push(h);
                zone.running += 1;
            }
            Err(e) if zone.running == 0 => {
                return Err(SqlError::internal(format!(
                    "could not start a parallel worker: {e}"
                )))
            }
            // fewer workers: the ones started take every morsel
            Err(_) => break,
        }
    }
    Ok(Some(zone))
}

/// A producer's send to its consumer: a full buffer is a CXPACKET wait (the consumer is
/// behind); a consumer that is gone stops the producer.
pub(crate) fn send_to_consumer<T>(tx: &mpsc::SyncSender<Msg<T>>, msg: Msg<T>) -> SqlResult<()> {
    match tx.try_send(msg) {
        Ok(()) => Ok(()),
        Err(mpsc::TrySendError::Full(msg)) => {
            let _wait = common::waits::begin(common::waits::WaitType::CXPACKET);
            tx.send(msg).map_err(|_| stopped())
        }
        Err(mpsc::TrySendError::Disconnected(_)) => Err(stopped()),
    }
}

/// A zone thread's last message: `Done` with its messages and actual counters, or the failure
/// or panic that ends it — which also stops the zone's other threads.
fn final_message<T>(
    run: std::thread::Result<SqlResult<(Vec<SqlError>, Vec<crate::actuals::OpActuals>)>>,
    stop: &AtomicBool,
) -> Msg<T> {
    match run {
        Ok(Ok((messages, actuals))) => Msg::Done(messages, actuals),
        Ok(Err(e)) => {
            stop.store(true, Ordering::Relaxed);
            Msg::Failed(e)
        }
        Err(p) => {
            stop.store(true, Ordering::Relaxed);
            Msg::Panicked(p)
        }
    }
}

impl<T: Send + 'static> Zone<T> {
    /// Starts one more thread of the zone (a consumer of a Repartition Streams): it reports
    /// through the zone's channel as the workers do (`Done` when `body` returns Ok, else
    /// `Failed` / `Panicked`, which stop the zone), so `recv` waits for it too. `body` gets
    /// the channel and the zone's stop flag, which it must poll while it waits.
    pub fn spawn_helper<F>(&mut self, name: String, body: F) -> SqlResult<()>
    where
        F: FnOnce(&mpsc::SyncSender<Msg<T>>, &AtomicBool) -> SqlResult<()> + Send + 'static,
    {
        let (tx, stop) = (self.tx.clone(), self.stop.clone());
        let spawned = std::thread::Builder::new().name(name).spawn(move || {
            let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                body(&tx, &stop).map(|()| (Vec::new(), Vec::new()))
            }));
            let _ = tx.send(final_message(run, &stop));
        });
        match spawned {
            Ok(h) => {
                self.handles.push(h);
                self.running += 1;
                Ok(())
            }
            Err(e) => Err(SqlError::internal(format!(
                "could not start a parallel worker: {e}"
            ))),
        }
    }

    /// The next piece of data from any worker; None once every worker is done. The first
    /// failure stops the others and is returned; a worker's panic resumes here.
    pub fn recv(&mut self, ctx: &ExecCtx) -> SqlResult<Option<T>> {
        if self.closed {
            return Ok(None);
        }
        while self.running > 0 {
            let ready = match self.rx.try_recv() {
                Ok(m) => Ok(m),
                Err(mpsc::TryRecvError::Empty) => {
                    // nothing queued: the consumer waits for its producers (CXCONSUMER)
                    let _wait = common::waits::begin(common::waits::WaitType::CXCONSUMER);
                    self.rx.recv_timeout(common::cancel::CANCEL_POLL)
                }
                Err(mpsc::TryRecvError::Disconnected) => Err(mpsc::RecvTimeoutError::Disconnected),
            };
            let msg = match ready {
                Ok(m) => m,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    // workers poll the same flag per page; this only bounds our wait
                    if let Err(e) = ctx.check_cancel() {
                        self.shut_down();
                        return Err(e);
                    }
                    continue;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    self.running = 0;
                    return Err(SqlError::internal("a parallel worker vanished"));
                }
            };
            match msg {
                Msg::Data(d) => return Ok(Some(d)),
                Msg::Done(m, actuals) => {
                    self.running -= 1;
                    self.messages.extend(m);
                    crate::actuals::add_worker_actuals(ctx, &actuals);
                }
                // the worker whose failure set the stop flag reports it too: wait for it
                Msg::Failed(e) if is_stopped(&e) => self.running -= 1,
                Msg::Failed(e) => {
                    self.running -= 1;
                    self.shut_down();
                    return Err(e);
                }
                Msg::Panicked(p) => {
                    self.running -= 1;
                    self.shut_down();
                    std::panic::resume_unwind(p);
                }
            }
        }
        if self.stop.load(Ordering::Relaxed) {
            // only stopped workers reported: a cancel (or KILL) that another zone of the plan
            // met first (a Repartition Streams' producers report to their own zone) — the
            // session's error is the cancel's
            ctx.check_cancel()?;
            // otherwise impossible: the worker that stopped the others fails
            return Err(SqlError::internal(
                "parallel workers stopped without an error",
            ));
        }
        Ok(None)
    }

    /// Stops the workers and waits for them (they stop within a page; pending sends fail
    /// once the channel is drained).
    pub fn shut_down(&mut self) {
        self.closed = true;
        self.stop.store(true, Ordering::Relaxed);
        // drain so no worker stays blocked on a full channel
        while !self.handles.is_empty() {
            while self.rx.try_recv().is_ok() {}
            if self.handles.iter().all(|h| h.is_finished()) {
                for h in self.handles.drain(..) {
                    let _ = h.join();
                }
                break;
            }
            std::thread::yield_now();
        }
        self.running = 0;
    }
}

impl<T: Send + 'static> Drop for Zone<T> {
    fn drop(&mut self) {
        self.shut_down();
    }
}
