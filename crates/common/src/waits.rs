//! Wait statistics (`sys.dm_os_wait_stats`, `sys.dm_exec_session_wait_stats`) and the current
//! wait of each task (`sys.dm_exec_requests.wait_type`, `sys.dm_os_waiting_tasks`).
//!
//! A layer that is about to block (a page read, a contended page latch, a log flush, a lock,
//! `WAITFOR`) opens a [`Wait`] with [`begin`] and drops it when the wait ends. The drop adds the
//! wait to the process-wide counters and, when the thread runs a session's request, to that
//! session's [`TaskWaits`] (bound to the thread with [`bind`]), which also shows the wait
//! while it lasts. `DBCC SQLPERF('sys.dm_os_wait_stats', CLEAR)` calls [`clear`].
//!
//! Cost: nothing on a path that does not wait. Callers only open a `Wait` on their slow path
//! (a failed try-latch, a buffer miss, a log flush that is not yet durable). Recording is a few
//! relaxed atomic adds and one thread-local read; a snapshot may mix counts of concurrent waits.
//! Signal wait time (runnable but not yet running) is not measurable without a scheduler of our
//! own and is reported as 0.

use std::cell::RefCell;
use std::sync::atomic::{AtomicI32, AtomicU64, AtomicU8, Ordering::Relaxed};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

/// Wait types latchkey can report, with SQL Server's names. [`WaitType`] indexes this list.
pub const WAIT_TYPES: &[&str] = &[
    "ASYNC_NETWORK_IO",
    "BTREE_INSERT_FLOW_CONTROL",
    "CXCONSUMER",
    "CXPACKET",
    "IO_COMPLETION",
    "LCK_M_IS",
    "LCK_M_IU",
    "LCK_M_IX",
    "LCK_M_RIn_NL",
    "LCK_M_RS_S",
    "LCK_M_RS_U",
    "LCK_M_RX_X",
    "LCK_M_S",
    "LCK_M_SCH_M",
    "LCK_M_SCH_S",
    "LCK_M_SIX",
    "LCK_M_U",
    "LCK_M_X",
    "PAGEIOLATCH_EX",
    "PAGEIOLATCH_SH",
    "PAGEIOLATCH_UP",
    "PAGELATCH_EX",
    "PAGELATCH_SH",
    "PAGELATCH_UP",
    "SOS_SCHEDULER_YIELD",
    "WAITFOR",
    "WRITELOG",
];

const N: usize = WAIT_TYPES.len();

/// A wait type: an index into [`WAIT_TYPES`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WaitType(u8);

impl WaitType {
    /// The wait type called `name` (SQL Server's spelling, any case).
    pub fn named(name: &str) -> Option<WaitType> {
        WAIT_TYPES
            .iter()
            .position(|w| w.eq_ignore_ascii_case(name))
            .map(|i| WaitType(i as u8))
    }

    /// SQL Server's name of the wait type.
    pub fn name(self) -> &'static str {
        WAIT_TYPES[self.0 as usize]
    }

    const fn at(name: &str) -> WaitType {
        // const lookup so the constants below cannot drift from WAIT_TYPES
        let mut i = 0;
        while i < N {
            if const_eq(WAIT_TYPES[i], name) {
                return WaitType(i as u8);
            }
            i += 1;
        }
        panic!("wait type missing from WAIT_TYPES"); // compile-time only (const context)
    }

    pub const PAGEIOLATCH_SH: WaitType = WaitType::at("PAGEIOLATCH_SH");
    pub const PAGEIOLATCH_UP: WaitType = WaitType::at("PAGEIOLATCH_UP");
    pub const PAGEIOLATCH_EX: WaitType = WaitType::at("PAGEIOLATCH_EX");
    pub const PAGELATCH_SH: WaitType = WaitType::at("PAGELATCH_SH");
    pub const PAGELATCH_UP: WaitType = WaitType::at("PAGELATCH_UP");
    pub const PAGELATCH_EX: WaitType = WaitType::at("PAGELATCH_EX");
    pub const WRITELOG: WaitType = WaitType::at("WRITELOG");
    pub const WAITFOR: WaitType = WaitType::at("WAITFOR");
    pub const IO_COMPLETION: WaitType = WaitType::at("IO_COMPLETION");
    /// A parallel plan's consumer (Gather Streams' thread) waiting for a producer's rows.
    pub const CXCONSUMER: WaitType = WaitType::at("CXCONSUMER");
    /// A parallel plan's producer waiting for room in a full exchange buffer.
    pub const CXPACKET: WaitType = WaitType::at("CXPACKET");
    pub const BTREE_INSERT_FLOW_CONTROL: WaitType = WaitType::at("BTREE_INSERT_FLOW_CONTROL");
}

const fn const_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

struct Counters {
    count: AtomicU64,
    total_us: AtomicU64,
    max_us: AtomicU64,
    signal_us: AtomicU64,
}

#[allow(clippy::declare_interior_mutable_const)] // reason: array initializer only
const ZERO: Counters = Counters {
    count: AtomicU64::new(0),
    total_us: AtomicU64::new(0),
    max_us: AtomicU64::new(0),
    signal_us: AtomicU64::new(0),
};

impl Counters {
    fn add(&self, wait_us: u64, signal_us: u64) {
        self.count.fetch_add(1, Relaxed);
        self.total_us.fetch_add(wait_us, Relaxed);
        self.max_us.fetch_max(wait_us, Relaxed);
        self.signal_us.fetch_add(signal_us, Relaxed);
    }

    fn clear(&self) {
        self.count.store(0, Relaxed);
        self.total_us.store(0, Relaxed);
        self.max_us.store(0, Relaxed);
        self.signal_us.store(0, Relaxed);
    }
}

/// Process-wide counters, in microseconds (reported in ms, so many short waits still add up).
static STATS: [Counters; N] = [ZERO; N];

/// One row of `sys.dm_os_wait_stats` / `sys.dm_exec_session_wait_stats`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WaitStat {
    pub wait_type: &'static str,
    pub waiting_tasks_count: u64,
    pub wait_time_ms: u64,
    pub max_wait_time_ms: u64,
    pub signal_wait_time_ms: u64,
}

fn snapshot_of(stats: &[Counters; N]) -> Vec<WaitStat> {
    WAIT_TYPES
        .iter()
        .zip(stats.iter())
        .map(|(w, c)| WaitStat {
            wait_type: w,
            waiting_tasks_count: c.count.load(Relaxed),
            wait_time_ms: c.total_us.load(Relaxed) / 1000,
            max_wait_time_ms: c.max_us.load(Relaxed) / 1000,
            signal_wait_time_ms: c.signal_us.load(Relaxed) / 1000,
        })
        .collect()
}

/// Records one finished wait of `wait_type` in the process-wide counters (ignored if the name
/// is not in [`WAIT_TYPES`]). Layers that can open a [`Wait`] should: it also shows the wait
/// in the session's request while it lasts.
pub fn record(wait_type: &str, wait_ms: u64, signal_ms: u64) {
    if let Some(w) = WaitType::named(wait_type) {
        STATS[w.0 as usize].add(wait_ms * 1000, signal_ms * 1000);
    }
}

/// Current process-wide counters, one entry per wait type in [`WAIT_TYPES`] order.
pub fn snapshot() -> Vec<WaitStat> {
    snapshot_of(&STATS)
}

/// Resets every process-wide counter to zero (session counters are kept, as in SQL Server).
pub fn clear() {
    for c in &STATS {
        c.clear();
    }
}

/// Microseconds since the first use of this module (a monotonic clock that fits an atomic).
fn now_us() -> u64 {
    static BASE: OnceLock<Instant> = OnceLock::new();
    BASE.get_or_init(Instant::now).elapsed().as_micros() as u64
}

/// The waits of one session's task: its current wait (shown by `sys.dm_exec_requests` and
/// `sys.dm_os_waiting_tasks` while it lasts), its last wait and its own counters
/// (`sys.dm_exec_session_wait_stats`). Shared between the session's thread (which writes it
/// through [`Wait`]) and readers of the DMVs.
pub struct TaskWaits {
    /// `WaitType` index + 1 of the current wait; 0 when not waiting.
    current: AtomicU8,
    /// Start of the current wait ([`now_us`]).
    since_us: AtomicU64,
    /// `WaitType` index + 1 of the last finished wait; 0 before the first.
    last: AtomicU8,
    /// The session that holds what the current wait is for (a lock's owner), 0 when unknown.
    blocking_session: AtomicI32,
    /// `wait_resource` of the current wait (slow path only: set when a wait begins).
    resource: Mutex<String>,
    stats: [Counters; N],
}

impl std::fmt::Debug for TaskWaits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskWaits")
            .field("current", &self.current())
            .finish()
    }
}

impl Default for TaskWaits {
    fn default() -> Self {
        TaskWaits {
            current: AtomicU8::new(0),
            since_us: AtomicU64::new(0),
            last: AtomicU8::new(0),
            blocking_session: AtomicI32::new(0),
            resource: Mutex::new(String::new()),
            stats: [ZERO; N],
        }
    }
}

/// What a task is waiting on right now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CurrentWait {
    pub wait_type: &'static str,
    /// Milliseconds waited so far.
    pub wait_time_ms: u64,
    pub resource: String,
    /// The session holding what is waited for (0: none known).
    pub blocking_session: i32,
}

impl TaskWaits {
    /// The wait in progress, if any.
    pub fn current(&self) -> Option<CurrentWait> {
        let c = self.current.load(Relaxed);
        if c == 0 {
            return None;
        }
        let since = self.since_us.load(Relaxed);
        Some(CurrentWait {
            wait_type: WAIT_TYPES.get(c as usize - 1)?,
            wait_time_ms: now_us().saturating_sub(since) / 1000,
            resource: self.resource.lock().map(|r| r.clone()).unwrap_or_default(),
            blocking_session: self.blocking_session.load(Relaxed),
        })
    }

    /// The wait type of the last finished wait (`last_wait_type`).
    pub fn last_wait_type(&self) -> Option<&'static str> {
        match self.last.load(Relaxed) {
            0 => None,
            l => WAIT_TYPES.get(l as usize - 1).copied(),
        }
    }

    /// This session's counters (`sys.dm_exec_session_wait_stats`), waits with a count only.
    pub fn snapshot(&self) -> Vec<WaitStat> {
        let mut v = snapshot_of(&self.stats);
        v.retain(|w| w.waiting_tasks_count > 0);
        v
    }
}

thread_local! {
    /// The task whose request this thread is running ([`bind`]).
    static TASK: RefCell<Option<Arc<TaskWaits>>> = const { RefCell::new(None) };
}

/// Binds `task` to the current thread until the guard drops: waits opened on this thread are
/// shown in, and counted for, that task. Nested binds restore the previous task.
pub fn bind(task: Arc<TaskWaits>) -> BindGuard {
    let prev = TASK.with(|t| t.borrow_mut().replace(task));
    BindGuard { prev }
}

/// Restores the thread's previous task when dropped ([`bind`]).
pub struct BindGuard {
    prev: Option<Arc<TaskWaits>>,
}

impl Drop for BindGuard {
    fn drop(&mut self) {
        let prev = self.prev.take();
        TASK.with(|t| *t.borrow_mut() = prev);
    }
}

/// A wait in progress; dropping it ends the wait and records it.
#[must_use = "a wait ends when the value is dropped"]
pub struct Wait {
    ty: WaitType,
    start_us: u64,
    task: Option<Arc<TaskWaits>>,
    /// The task's current wait before this one (0: none), restored at the end.
    outer: u8,
}

/// Opens a wait of `ty` on the current thread (see the module doc: only on a slow path).
pub fn begin(ty: WaitType) -> Wait {
    begin_on(ty, String::new, 0)
}

/// [`begin`] only when the thread runs a session's request ([`bind`]): for work that is a wait
/// when a session does it and background work otherwise (read-ahead threads).
pub fn begin_if_bound(ty: WaitType) -> Option<Wait> {
    TASK.with(|t| t.borrow().is_some()).then(|| begin(ty))
}

/// [`begin`] with the waited-for resource (SQL Server's `wait_resource` text, built only when
/// a session is bound) and the session that holds it (0: unknown).
pub fn begin_on(ty: WaitType, resource: impl FnOnce() -> String, blocking_session: i32) -> Wait {
    let start_us = now_us();
    let task = TASK.with(|t| t.borrow().clone());
    let mut outer = 0;
    if let Some(t) = &task {
        if let Ok(mut r) = t.resource.lock() {
            *r = resource();
        }
        t.blocking_session.store(blocking_session, Relaxed);
        t.since_us.store(start_us, Relaxed);
        outer = t.current.swap(ty.0 + 1, Relaxed);
    }
    Wait {
        ty,
        start_us,
        task,
        outer,
    }
}

impl Drop for Wait {
    fn drop(&mut self) {
        let waited = now_us().saturating_sub(self.start_us);
        STATS[self.ty.0 as usize].add(waited, 0);
        if let Some(t) = &self.task {
            t.stats[self.ty.0 as usize].add(waited, 0);
            t.last.store(self.ty.0 + 1, Relaxed);
            t.current.store(self.outer, Relaxed);
            if self.outer == 0 {
                t.blocking_session.store(0, Relaxed);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_name_their_wait_types() {
        assert_eq!(WaitType::PAGEIOLATCH_SH.name(), "PAGEIOLATCH_SH");
        assert_eq!(WaitType::WRITELOG.name(), "WRITELOG");
        assert_eq!(WaitType::named("waitfor"), Some(WaitType::WAITFOR));
        assert!(WAIT_TYPES.windows(2).all(|w| w[0] < w[1]), "sorted, unique");
    }

    #[test]
    fn record_snapshot_clear() {
        record("WRITELOG", 5, 1);
        record("WRITELOG", 9, 0);
        record("NOT_A_WAIT", 100, 0);
        let s = snapshot();
        let w = s.iter().find(|w| w.wait_type == "WRITELOG").unwrap();
        assert!(w.waiting_tasks_count >= 2);
        assert!(w.max_wait_time_ms >= 9);
        clear();
        assert!(snapshot()
            .iter()
            .all(|w| w.waiting_tasks_count == 0 && w.wait_time_ms == 0 && w.max_wait_time_ms == 0));
    }

    #[test]
    fn a_bound_task_shows_its_wait_while_it_lasts() {
        let task = Arc::new(TaskWaits::default());
        let _g = bind(task.clone());
        assert!(task.current().is_none());
        {
            let _w = begin_on(WaitType::WAITFOR, || "res".into(), 7);
            std::thread::sleep(std::time::Duration::from_millis(5));
            let c = task.current().unwrap();
            assert_eq!(c.wait_type, "WAITFOR");
            assert_eq!(c.resource, "res");
            assert_eq!(c.blocking_session, 7);
            assert!(c.wait_time_ms >= 4);
        }
        assert!(task.current().is_none());
        assert_eq!(task.last_wait_type(), Some("WAITFOR"));
        let s = task.snapshot();
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].waiting_tasks_count, 1);
        assert!(s[0].wait_time_ms >= 4);
    }

    #[test]
    fn an_unbound_thread_counts_only_globally() {
        let task = Arc::new(TaskWaits::default());
        std::thread::spawn(move || {
            drop(begin(WaitType::IO_COMPLETION));
            assert!(task.snapshot().is_empty());
        })
        .join()
        .unwrap();
    }
}
