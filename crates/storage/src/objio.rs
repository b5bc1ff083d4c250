//! Per-object I/O counters (SET STATISTICS IO, one line per table) and per-thread counters
//! (a session's request: `sys.dm_exec_requests.reads/logical_reads/writes`).
//!
//! The buffer pool counts every page fix, demand read and read-ahead load of the *current
//! thread* in its [`ThreadIo`] ([`note_logical`], [`note_physical`], [`note_read_ahead`];
//! reads made inside [`lob_scope`] count as LOB reads; [`note_write`] counts the pages the thread
//! changed). Each cell has one writer, its thread, so a bump is a plain load and store (no
//! locked instruction); other threads read the cells through [`thread_io`]'s `Arc` to show a
//! running request's work live. A request runs on one thread, so these counters are the
//! session's own work whatever other sessions do.
//!
//! Each public handle call (`Heap`, `BTree`, their scans) runs inside [`ObjIo::attribute`],
//! which adds the thread's delta to the object's counters (process-wide: `sys` views) and, while
//! [`set_thread_collect`] is on (a session with `SET STATISTICS IO ON`), to the thread's own
//! per-object map ([`thread_object_io`]), so STATISTICS IO shows only the session's reads.
//! Cost per call: a few thread-local reads and, only when pages were read, relaxed atomic
//! adds. Pages loaded by the background prefetch threads are not attributed (the synchronous
//! read-ahead of a scan is).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

use parking_lot::Mutex;

/// Snapshot of one object's counters (cumulative since the database was opened).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ObjectIo {
    /// Scans and range seeks started (`Heap::scan`, `BTree::range`).
    pub scans: u64,
    pub logical_reads: u64,
    pub physical_reads: u64,
    pub read_ahead_reads: u64,
    pub lob_logical_reads: u64,
    pub lob_physical_reads: u64,
}

impl ObjectIo {
    /// `self - before`, counter by counter.
    pub fn since(&self, before: &ObjectIo) -> ObjectIo {
        ObjectIo {
            scans: self.scans.saturating_sub(before.scans),
            logical_reads: self.logical_reads.saturating_sub(before.logical_reads),
            physical_reads: self.physical_reads.saturating_sub(before.physical_reads),
            read_ahead_reads: self
                .read_ahead_reads
                .saturating_sub(before.read_ahead_reads),
            lob_logical_reads: self
                .lob_logical_reads
                .saturating_sub(before.lob_logical_reads),
            lob_physical_reads: self
                .lob_physical_reads
                .saturating_sub(before.lob_physical_reads),
        }
    }
    /// True when nothing was counted.
    pub fn is_zero(&self) -> bool {
        *self == ObjectIo::default()
    }
}

const LOGICAL: usize = 0;
const PHYSICAL: usize = 1;
const READ_AHEAD: usize = 2;
const LOB_LOGICAL: usize = 3;
const LOB_PHYSICAL: usize = 4;
const WRITES: usize = 5;
const N: usize = 5;

/// One thread's page counters since the thread started (cumulative; take differences).
#[derive(Debug, Default)]
pub struct ThreadIo {
    c: [AtomicU64; N + 1],
}

/// A snapshot of a [`ThreadIo`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ThreadIoTotals {
    /// Page fixes (hits and misses), LOB pages included.
    pub logical_reads: u64,
    /// Pages read from disk on demand or by this thread's read-ahead, LOB pages included.
    pub physical_reads: u64,
    /// Pages this thread changed (one per page per mini-transaction).
    pub writes: u64,
}

impl ThreadIoTotals {
    /// `self - before`, counter by counter.
    pub fn since(&self, before: &ThreadIoTotals) -> ThreadIoTotals {
        ThreadIoTotals {
            logical_reads: self.logical_reads.saturating_sub(before.logical_reads),
            physical_reads: self.physical_reads.saturating_sub(before.physical_reads),
            writes: self.writes.saturating_sub(before.writes),
        }
    }
}

impl ThreadIo {
    /// Current totals (readable from any thread).
    pub fn totals(&self) -> ThreadIoTotals {
        let g = |i: usize| self.c[i].load(Relaxed);
        ThreadIoTotals {
            logical_reads: g(LOGICAL) + g(LOB_LOGICAL),
            physical_reads: g(PHYSICAL) + g(LOB_PHYSICAL) + g(READ_AHEAD),
            writes: g(WRITES),
        }
    }

    fn array(&self) -> [u64; N] {
        std::array::from_fn(|i| self.c[i].load(Relaxed))
    }
}

thread_local! {
    static TL: Arc<ThreadIo> = Arc::new(ThreadIo::default());
    static IN_LOB: Cell<bool> = const { Cell::new(false) };
    /// Per-object counters of this thread while [`set_thread_collect`] is on, by
    /// (object map id, object id).
    static COLLECT: Cell<bool> = const { Cell::new(false) };
    static MINE: RefCell<HashMap<(u64, u64), ObjectIo>> = RefCell::new(HashMap::new());
}

/// The current thread's counters, shared so another thread can read them live.
pub fn thread_io() -> Arc<ThreadIo> {
    TL.with(|t| t.clone())
}

/// Starts (`true`) or stops collecting this thread's per-object counters
/// ([`thread_object_io`]). Collected counters are kept until the thread ends.
pub fn set_thread_collect(on: bool) {
    COLLECT.with(|c| c.set(on));
}

/// Whether this thread collects per-object counters now (work the engine does for itself,
/// like the optimizer's row counts, switches it off around its reads).
pub fn thread_collecting() -> bool {
    COLLECT.with(|c| c.get())
}

/// Stops collecting this thread's per-object counters until dropped, then restores the
/// previous state (also on an early return or unwind): for work the engine does for itself
/// inside a user's statement (the optimizer's row counts, automatic statistics), which SQL
/// Server does not report in SET STATISTICS IO.
pub struct NotCollected(bool);

impl NotCollected {
    pub fn new() -> Self {
        let was = thread_collecting();
        set_thread_collect(false);
        NotCollected(was)
    }
}

impl Default for NotCollected {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for NotCollected {
    fn drop(&mut self) {
        set_thread_collect(self.0);
    }
}

/// This thread's collected per-object counters: ((object map id, object id), counters),
/// cumulative since collection was first turned on. The map id is `Database::obj_io_id`.
pub fn thread_object_io() -> Vec<((u64, u64), ObjectIo)> {
    MINE.with(|m| m.borrow().iter().map(|(k, v)| (*k, *v)).collect())
}

#[inline]
fn bump(i: usize, n: u64) {
    TL.with(|c| {
        // single writer (this thread): a plain load + store, readable from other threads
        let a = &c.c[i];
        a.store(a.load(Relaxed).wrapping_add(n), Relaxed);
    });
}

/// `n` pages changed by this thread (the mini-transaction commit).
#[inline]
pub(crate) fn note_write(n: u64) {
    bump(WRITES, n);
}

/// A page fix through the buffer pool (hit or miss).
#[inline]
pub(crate) fn note_logical() {
    bump(
        if IN_LOB.with(|l| l.get()) {
            LOB_LOGICAL
        } else {
            LOGICAL
        },
        1,
    );
}

/// A demand read from disk.
#[inline]
pub(crate) fn note_physical() {
    bump(
        if IN_LOB.with(|l| l.get()) {
            LOB_PHYSICAL
        } else {
            PHYSICAL
        },
        1,
    );
}

/// Pages loaded by read-ahead on this thread.
#[inline]
pub(crate) fn note_read_ahead(n: u64) {
    bump(READ_AHEAD, n);
}

/// Runs `f` with its page reads counted as LOB reads.
pub(crate) fn lob_scope<T>(f: impl FnOnce() -> T) -> T {
    let was = IN_LOB.with(|l| l.replace(true));
    let r = f();
    IN_LOB.with(|l| l.set(was));
    r
}

/// Live counters of one object.
#[derive(Debug, Default)]
pub struct ObjIo {
    c: [AtomicU64; N],
    scans: AtomicU64,
    /// (object map id, object id): the key of this object in a thread's collected counters.
    key: (u64, u64),
}

impl ObjIo {
    /// Runs `f`, adding this thread's page reads during it to the object (and `scans`).
    #[inline]
    pub(crate) fn attribute<T>(&self, scans: u64, f: impl FnOnce() -> T) -> T {
        let before = TL.with(|c| c.array());
        let r = f();
        let after = TL.with(|c| c.array());
        let mut d = [0u64; N];
        let mut any = false;
        for i in 0..N {
            d[i] = after[i].wrapping_sub(before[i]);
            if d[i] != 0 {
                any = true;
                self.c[i].fetch_add(d[i], Relaxed);
            }
        }
        if scans != 0 {
            self.scans.fetch_add(scans, Relaxed);
        }
        if (any || scans != 0) && COLLECT.with(|c| c.get()) {
            MINE.with(|m| {
                let mut m = m.borrow_mut();
                let e = m.entry(self.key).or_default();
                e.scans += scans;
                e.logical_reads += d[LOGICAL];
                e.physical_reads += d[PHYSICAL];
                e.read_ahead_reads += d[READ_AHEAD];
                e.lob_logical_reads += d[LOB_LOGICAL];
                e.lob_physical_reads += d[LOB_PHYSICAL];
            });
        }
        r
    }

    pub(crate) fn snapshot(&self) -> ObjectIo {
        ObjectIo {
            scans: self.scans.load(Relaxed),
            logical_reads: self.c[LOGICAL].load(Relaxed),
            physical_reads: self.c[PHYSICAL].load(Relaxed),
            read_ahead_reads: self.c[READ_AHEAD].load(Relaxed),
            lob_logical_reads: self.c[LOB_LOGICAL].load(Relaxed),
            lob_physical_reads: self.c[LOB_PHYSICAL].load(Relaxed),
        }
    }
}

/// Counters of every object touched since the database was opened.
#[derive(Debug)]
pub struct ObjIoMap {
    /// Process-unique id of this map (one per open database): tells databases apart in a
    /// thread's collected counters.
    id: u64,
    map: Mutex<HashMap<u64, Arc<ObjIo>>>,
}

impl Default for ObjIoMap {
    fn default() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        ObjIoMap {
            id: NEXT.fetch_add(1, Relaxed),
            map: Mutex::new(HashMap::new()),
        }
    }
}

impl ObjIoMap {
    /// The process-unique id of this map ([`thread_object_io`] keys).
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The counters of `obj` (created on first use).
    pub(crate) fn get(&self, obj: u64) -> Arc<ObjIo> {
        let id = self.id;
        self.map
            .lock()
            .entry(obj)
            .or_insert_with(|| {
                Arc::new(ObjIo {
                    key: (id, obj),
                    ..Default::default()
                })
            })
            .clone()
    }
    /// Snapshot of every object's counters.
    pub(crate) fn snapshot(&self) -> Vec<(u64, ObjectIo)> {
        let mut v: Vec<(u64, ObjectIo)> = self
            .map
            .lock()
            .iter()
            .map(|(k, c)| (*k, c.snapshot()))
            .collect();
        v.sort_by_key(|(k, _)| *k);
        v
    }
}
