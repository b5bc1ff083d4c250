//! The engine-wide view of cached plans behind `sys.dm_exec_cached_plans`,
//! `sys.dm_exec_query_stats`, `sys.dm_exec_sql_text`, `sys.dm_exec_query_plan` and
//! `sys.dm_exec_text_query_plan` (sysviews_plans.rs), and the statistics-changed recompile
//! check of cached statement plans.
//!
//! * Compiled programs stay in each session's cache (plan_cache.rs). Every program compiled
//!   from a cacheable key is also registered here under its `plan_handle` (a hash of the key:
//!   text, parameter declarations, database, plan-affecting SET options), so two sessions
//!   running the same text share one [`PlanEntry`] and one row of each view, as they share one
//!   plan in SQL Server. The entry is referenced from the program's `RunCache`.
//! * Counters are per statement ([`StmtStats`]) and updated at the end of each execution with
//!   relaxed atomics: no lock on the hot path. The registry's mutex is taken only when a
//!   program is compiled, when a view reads it and by `DBCC FREEPROCCACHE`.
//! * `plan_generation_num` counts the compilations of a statement's plan for different schema
//!   or statistics states: a second session compiling its own copy under the same state does
//!   not count (SQL Server would have shared the plan). A recompile resets the statement's
//!   counters and `creation_time`, as SQL Server's row describes the plan since its compile.
//! * Statistics-changed recompile: every install of a statistics object (CREATE / UPDATE
//!   STATISTICS, sp_updatestats, an automatic create or update in any session) bumps the
//!   table's version in its database's `TableStatistics` and the process-wide
//!   [`statistics_generation`]. A cached statement plan remembers the tables whose statistics
//!   its compile consulted and their versions ([`StatsStamp`]); on its next use in any session,
//!   if the generation moved, the versions are compared and a changed one recompiles it.

use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use hashbrown::HashMap;
use sha2::{Digest, Sha256};

use crate::compile::{Node, NodeKind, Program};

/// Most entries kept; past it the least recently used half is dropped.
const MAX_ENTRIES: usize = 4096;

static STATS_GEN: AtomicU64 = AtomicU64::new(1);

/// Bumped by every statistics install in the process (see the module comment).
#[inline]
pub(crate) fn statistics_generation() -> u64 {
    STATS_GEN.load(std::sync::atomic::Ordering::Acquire)
}

/// Called by the statistics module after it installed a table's objects.
/// Returns the new generation.
pub(crate) fn bump_statistics_generation() -> u64 {
    STATS_GEN.fetch_add(1, std::sync::atomic::Ordering::AcqRel) + 1
}

/// The statistics a compiled statement plan was built from: (database name, table id,
/// statistics version) per table whose statistics the optimizer consulted.
#[derive(Clone, Default)]
pub(crate) struct StatsStamp {
    pub generation: u64,
    pub tables: Vec<(String, common::ObjectId, u64)>,
    /// Per table whose statistics update automatically: its storage, its modification count
    /// at compile and SQL Server's update threshold for the rows its statistics describe. A
    /// plan whose table passed the threshold recompiles (and the compile updates them).
    pub thresholds: Vec<(Arc<storage::Database>, common::ObjectId, u64, f64)>,
    /// (CompileTime, CompileCPU) in ms, for the showplan of the cached plan.
    pub compile_ms: (u64, u64),
}

/// `total / last / min / max` of one measure of a statement.
#[derive(Default)]
pub(crate) struct Measure {
    pub total: AtomicU64,
    pub last: AtomicU64,
    min: AtomicU64,
    pub max: AtomicU64,
}

impl Measure {
    fn record(&self, v: u64) {
        self.total.fetch_add(v, Relaxed);
        self.last.store(v, Relaxed);
        // min starts at 0 meaning "none yet": store v + 1
        let m = v.saturating_add(1);
        let _ = self
            .min
            .fetch_update(Relaxed, Relaxed, |cur| (cur == 0 || m < cur).then_some(m));
        self.max.fetch_max(v, Relaxed);
    }

    pub(crate) fn min(&self) -> u64 {
        self.min.load(Relaxed).saturating_sub(1)
    }

    fn reset(&self) {
        self.total.store(0, Relaxed);
        self.last.store(0, Relaxed);
        self.min.store(0, Relaxed);
        self.max.store(0, Relaxed);
    }
}

/// What one execution of a statement measured.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Execution {
    pub worker_us: u64,
    pub elapsed_us: u64,
    pub physical_reads: u64,
    pub logical_reads: u64,
    pub logical_writes: u64,
    pub rows: u64,
    pub dop: u64,
    /// 8 KB pages written to work files (sorts, hashes and spools that spilled).
    pub spills: u64,
}

/// The compiled plan of one statement as the views show it.
pub(crate) struct ShownPlan {
    pub plan: Arc<plan::PhysicalPlan>,
    pub statement_type: String,
    pub compile_ms: (u64, u64),
}

/// One statement of a cached program (one row of `sys.dm_exec_query_stats` once executed).
pub(crate) struct StmtStats {
    /// Byte offsets in the UTF-16 text, SQL Server's `statement_start_offset` /
    /// `statement_end_offset` (-1: to the end of the batch).
    pub start_offset: i32,
    pub end_offset: i32,
    pub text: String,
    pub query_hash: u64,
    pub plan_generation: AtomicU64,
    /// (schema generation, statistics generation) of the last counted compile.
    compiled_under: Mutex<(u64, u64)>,
    pub created_us: AtomicU64,
    pub last_execution_us: AtomicU64,
    pub executions: AtomicU64,
    pub worker: Measure,
    pub physical_reads: Measure,
    pub logical_writes: Measure,
    pub logical_reads: Measure,
    pub elapsed: Measure,
    pub rows: Measure,
    pub dop: Measure,
    pub spills: Measure,
    pub query_plan_hash: AtomicU64,
    pub plan: Mutex<Option<ShownPlan>>,
}

impl StmtStats {
    fn new(start_offset: i32, end_offset: i32, text: String) -> StmtStats {
        StmtStats {
            start_offset,
            end_offset,
            query_hash: fnv(parser::query_shape(&text).as_bytes()),
            text,
            plan_generation: AtomicU64::new(0),
            compiled_under: Mutex::new((0, 0)),
            created_us: AtomicU64::new(0),
            last_execution_us: AtomicU64::new(0),
            executions: AtomicU64::new(0),
            worker: Measure::default(),
            physical_reads: Measure::default(),
            logical_writes: Measure::default(),
            logical_reads: Measure::default(),
            elapsed: Measure::default(),
            rows: Measure::default(),
            dop: Measure::default(),
            spills: Measure::default(),
            query_plan_hash: AtomicU64::new(0),
            plan: Mutex::new(None),
        }
    }

    /// A session compiled this statement's plan (see the module comment for what counts).
    /// `schema_state` is the engine's ([`crate::server::Engine::schema_state`]): the same for
    /// every session, so two sessions compiling the same text count once.
    pub(crate) fn compiled(&self, shown: ShownPlan, schema_state: u64) {
        let state = (schema_state, statistics_generation());
        let plan_hash = fnv(plan_shape(&shown.plan).as_bytes());
        {
            let mut under = lock(&self.compiled_under);
            let first = self.plan_generation.load(Relaxed) == 0;
            if !first && *under == state {
                return;
            }
            *under = state;
            self.plan_generation.fetch_add(1, Relaxed);
            if !first {
                self.executions.store(0, Relaxed);
                for m in self.measures() {
                    m.reset();
                }
            }
        }
        self.created_us.store(now_us(), Relaxed);
        self.query_plan_hash.store(plan_hash, Relaxed);
        *lock(&self.plan) = Some(shown);
    }

    fn measures(&self) -> [&Measure; 8] {
        [
            &self.worker,
            &self.physical_reads,
            &self.logical_writes,
            &self.logical_reads,
            &self.elapsed,
            &self.rows,
            &self.dop,
            &self.spills,
        ]
    }

    /// The end of one execution.
    pub(crate) fn executed(&self, started_us: u64, e: &Execution) {
        self.last_execution_us.store(started_us, Relaxed);
        self.worker.record(e.worker_us);
        self.physical_reads.record(e.physical_reads);
        self.logical_writes.record(e.logical_writes);
        self.logical_reads.record(e.logical_reads);
        self.elapsed.record(e.elapsed_us);
        self.rows.record(e.rows);
        self.dop.record(e.dop);
        self.spills.record(e.spills);
        self.executions.fetch_add(1, Relaxed);
    }
}

/// One cached program: one row of `sys.dm_exec_cached_plans`.
pub(crate) struct PlanEntry {
    pub plan_handle: Vec<u8>,
    pub sql_handle: Vec<u8>,
    pub text: Arc<str>,
    pub database_id: i32,
    /// `Adhoc` or `Prepared`.
    pub objtype: &'static str,
    pub usecounts: AtomicU64,
    /// Sessions holding a compiled copy.
    pub refcounts: AtomicU64,
    last_used: AtomicU64,
    /// By plan slot of the program (compile.rs `NodeKind::Query::plan`).
    pub statements: Vec<Option<StmtStats>>,
}

impl PlanEntry {
    pub(crate) fn statement(&self, slot: usize) -> Option<&StmtStats> {
        self.statements.get(slot).and_then(|s| s.as_ref())
    }

    /// Rough size of the compiled plan: the text and the statements' plans.
    pub(crate) fn size_in_bytes(&self) -> u64 {
        let plans: u64 = self
            .statements
            .iter()
            .flatten()
            .map(|s| {
                lock(&s.plan)
                    .as_ref()
                    .map(|p| plan_shape(&p.plan).len() as u64 * 8)
                    .unwrap_or(0)
            })
            .sum();
        // SQL Server allocates plans in 8 KB pages
        (self.text.len() as u64 * 2 + plans + 1024).div_ceil(8192) * 8192
    }

    /// The start of one execution of the program.
    pub(crate) fn used(&self) {
        self.usecounts.fetch_add(1, Relaxed);
        self.last_used.store(now_us(), Relaxed);
    }
}

/// Every registered plan of an engine.
#[derive(Default)]
pub(crate) struct PlanRegistry {
    map: Mutex<HashMap<Vec<u8>, Arc<PlanEntry>>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl PlanRegistry {
    /// The entry for a program compiled from `key_text` (the plan key's description), created
    /// on first use. `text` is the batch or statement text as shown by `dm_exec_sql_text`.
    pub(crate) fn register(
        &self,
        key_text: &str,
        prefix: &str,
        text: &str,
        database_id: i32,
        prog: &Program,
    ) -> Arc<PlanEntry> {
        let handle = plan_handle(key_text);
        let mut map = lock(&self.map);
        if let Some(e) = map.get(&handle) {
            e.refcounts.fetch_add(1, Relaxed);
            return e.clone();
        }
        if map.len() >= MAX_ENTRIES {
            let mut ticks: Vec<u64> = map.values().map(|e| e.last_used.load(Relaxed)).collect();
            let mid = ticks.len() / 2;
            let (_, median, _) = ticks.select_nth_unstable(mid);
            let median = *median;
            map.retain(|_, e| e.last_used.load(Relaxed) > median);
        }
        let mut statements: Vec<Option<StmtStats>> = (0..prog.n_plans).map(|_| None).collect();
        let shift = utf16_bytes(prefix, prefix.len());
        collect_statements(&prog.nodes, text, shift, &mut statements);
        let shown = format!("{prefix}{text}");
        let entry = Arc::new(PlanEntry {
            plan_handle: handle.clone(),
            sql_handle: crate::sysprocs::sql_handle_of(&shown),
            text: Arc::from(shown),
            database_id,
            objtype: if prefix.is_empty() {
                "Adhoc"
            } else {
                "Prepared"
            },
            usecounts: AtomicU64::new(0),
            refcounts: AtomicU64::new(1),
            last_used: AtomicU64::new(now_us()),
            statements,
        });
        map.insert(handle, entry.clone());
        entry
    }

    /// Every entry, ordered by handle (stable view output).
    pub(crate) fn entries(&self) -> Vec<Arc<PlanEntry>> {
        let mut v: Vec<Arc<PlanEntry>> = lock(&self.map).values().cloned().collect();
        v.sort_by(|a, b| a.plan_handle.cmp(&b.plan_handle));
        v
    }

    /// `ALTER DATABASE SCOPED CONFIGURATION CLEAR PROCEDURE_CACHE`: the plans of one database.
    pub(crate) fn remove_database(&self, database_id: i32) {
        lock(&self.map).retain(|_, e| e.database_id != database_id);
    }

    /// `DBCC FREEPROCCACHE`: everything, or the one plan of `handle` (false: no such plan).
    pub(crate) fn remove(&self, handle: Option<&[u8]>) -> bool {
        let mut map = lock(&self.map);
        match handle {
            None => {
                map.clear();
                true
            }
            Some(h) => map.remove(h).is_some(),
        }
    }
}

/// Fills `out[slot]` for each query statement of `nodes`.
fn collect_statements(nodes: &[Node], text: &str, shift: i32, out: &mut [Option<StmtStats>]) {
    for n in nodes {
        match &n.kind {
            NodeKind::Query { stmt, plan, .. } => {
                let (start, end) = (stmt.span.start as usize, stmt.span.end as usize);
                let stmt_text = text.get(start..end).unwrap_or_default();
                let start_off = utf16_bytes(text, start) + shift;
                let rest = text.get(end..).unwrap_or_default();
                let end_off = if rest.trim().trim_start_matches(';').trim().is_empty() {
                    -1
                } else {
                    utf16_bytes(text, end) + shift
                };
                if let Some(slot) = out.get_mut(*plan) {
                    *slot = Some(StmtStats::new(start_off, end_off, stmt_text.to_string()));
                }
            }
            NodeKind::If { then, els, .. } => {
                collect_statements(then, text, shift, out);
                collect_statements(els, text, shift, out);
            }
            NodeKind::While { body, .. } | NodeKind::Block(body) => {
                collect_statements(body, text, shift, out)
            }
            NodeKind::Try { body, catch } => {
                collect_statements(body, text, shift, out);
                collect_statements(catch, text, shift, out);
            }
            _ => {}
        }
    }
}

/// The UTF-16 byte offset of UTF-8 byte offset `at` of `text`.
fn utf16_bytes(text: &str, at: usize) -> i32 {
    let units: usize = text
        .get(..at)
        .unwrap_or(text)
        .chars()
        .map(char::len_utf16)
        .sum();
    (units * 2).min(i32::MAX as usize) as i32
}

/// A 64-byte `plan_handle`: 0x06 (SQL Server's first byte for ad hoc and prepared plans), three
/// zero bytes, the SHA-256 of the plan key, zero padding.
pub(crate) fn plan_handle(key_text: &str) -> Vec<u8> {
    let mut v = vec![0x06u8, 0, 0, 0];
    v.extend_from_slice(&Sha256::digest(key_text.as_bytes()));
    v.resize(64, 0);
    v
}

/// 64-bit FNV-1a.
fn fnv(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The plan's operator tree as SHOWPLAN_TEXT shows it, no estimates (`query_plan_hash` input).
fn plan_shape(p: &plan::PhysicalPlan) -> String {
    optimizer::explain(p)
}

/// `(@a int,@b nvarchar(10))`: the parameter list SQL Server puts before a prepared text.
pub(crate) fn parameter_prefix(params: &[crate::compile::VarDecl]) -> String {
    if params.is_empty() {
        return String::new();
    }
    let list: Vec<String> = params
        .iter()
        .map(|p| format!("{} {}", p.name, p.data_type))
        .collect();
    format!("({})", list.join(","))
}

/// The counters at the start of one execution.
pub(crate) struct Measuring {
    pub started_us: u64,
    wall: std::time::Instant,
    cpu_us: u64,
    io: storage::ThreadIoTotals,
}

impl Measuring {
    pub(crate) fn start() -> Measuring {
        Measuring {
            started_us: now_us(),
            wall: std::time::Instant::now(),
            cpu_us: crate::run::thread_cpu_us(),
            io: storage::objio::thread_io().totals(),
        }
    }

    pub(crate) fn finish(self, rows: u64) -> Execution {
        let io = storage::objio::thread_io().totals().since(&self.io);
        Execution {
            worker_us: crate::run::thread_cpu_us().saturating_sub(self.cpu_us),
            elapsed_us: self.wall.elapsed().as_micros() as u64,
            physical_reads: io.physical_reads,
            logical_reads: io.logical_reads,
            logical_writes: io.writes,
            rows,
            dop: 1,
            spills: 0,
        }
    }
}

impl crate::session::Session {
    /// The statistics version of a table (0 when its database is gone).
    fn statistics_version(&self, database: &str, table: common::ObjectId) -> u64 {
        self.engine()
            .database(database)
            .map(|h| h.cat.read().statistics.version(table))
            .unwrap_or(0)
    }

    /// After a compile: the statistics it consulted ([`Self::stats_used`]) and their versions.
    pub(crate) fn statistics_stamp(&self, compile_ms: (u64, u64)) -> StatsStamp {
        let mut used = std::mem::take(&mut *self.stats_used.borrow_mut());
        used.sort();
        used.dedup();
        let generation = statistics_generation();
        let mut thresholds = Vec::new();
        let tables = used
            .into_iter()
            .map(|(db, id)| {
                let v = self.statistics_version(&db, id);
                if let Some(t) = self.modification_threshold(&db, id) {
                    thresholds.push(t);
                }
                (db, id, v)
            })
            .collect();
        StatsStamp {
            generation,
            tables,
            thresholds,
            compile_ms,
        }
    }

    /// (storage, table, modifications now, threshold) when the table's statistics update
    /// automatically: AUTO_UPDATE_STATISTICS on and a built object without NORECOMPUTE.
    fn modification_threshold(
        &self,
        database: &str,
        table: common::ObjectId,
    ) -> Option<(Arc<storage::Database>, common::ObjectId, u64, f64)> {
        let h = self.engine().database(database)?;
        let rows = {
            let cat = h.cat.read();
            if !cat.statistics.auto_update() {
                return None;
            }
            cat.statistics
                .stored(table)
                .iter()
                .filter(|o| !o.no_recompute && o.filter.is_none())
                .filter_map(|o| o.data.as_ref().map(|d| d.rows))
                .max()?
        };
        let now = exec::table_io::modification_count(&h.store, table);
        Some((
            h.store.clone(),
            table,
            now,
            crate::statistics::update_threshold(rows).max(1.0),
        ))
    }

    /// Whether a cached plan's statistics are still those it was compiled from. One atomic
    /// load when no statistics changed anywhere since; otherwise its tables' versions are
    /// compared (and the stamp moved forward when none of them changed).
    pub(crate) fn plan_statistics_current(&self, stamp: Option<&mut Option<StatsStamp>>) -> bool {
        let Some(Some(st)) = stamp else {
            return true;
        };
        // SQL Server's recompilation threshold: enough rows changed since the compile that
        // the statistics are out of date (one mutex-guarded map read per such table)
        if st.thresholds.iter().any(|(store, id, base, threshold)| {
            exec::table_io::modification_count(store, *id).saturating_sub(*base) as f64
                >= *threshold
        }) {
            return false;
        }
        let now = statistics_generation();
        if st.generation == now {
            return true;
        }
        if st
            .tables
            .iter()
            .any(|(db, id, v)| self.statistics_version(db, *id) != *v)
        {
            return false;
        }
        st.generation = now;
        true
    }

    /// Registers a program compiled from `key` in the engine's plan registry.
    pub(crate) fn register_plan(
        &self,
        key: &crate::plan_cache::PlanKey,
        prefix: &str,
        text: &str,
        prog: &Program,
    ) -> Arc<PlanEntry> {
        let db = self
            .engine()
            .database(&self.database)
            .map(|h| h.def.database_id)
            .unwrap_or(0);
        self.engine()
            .plans
            .register(&key.describe(), prefix, text, db, prog)
    }
}

pub(crate) fn now_us() -> u64 {
    crate::sysprocs::unix_us(SystemTime::now())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measure_min_ignores_the_empty_state() {
        let m = Measure::default();
        assert_eq!(m.min(), 0);
        m.record(5);
        m.record(0);
        m.record(9);
        assert_eq!(
            (
                m.total.load(Relaxed),
                m.last.load(Relaxed),
                m.min(),
                m.max.load(Relaxed)
            ),
            (14, 9, 0, 9)
        );
    }

    #[test]
    fn offsets_are_utf16_bytes() {
        assert_eq!(utf16_bytes("ab", 1), 2);
        assert_eq!(utf16_bytes("é€x", "é€".len()), 4);
        assert_eq!(plan_handle("k").len(), 64);
    }
}
