//! Per-object I/O counters (SET STATISTICS IO, one line per table).
//!
//! The buffer pool counts every page fix, demand read and read-ahead load of the *current
//! thread* in thread-local cells ([`note_logical`], [`note_physical`], [`note_read_ahead`];
//! reads made inside [`lob_scope`] count as LOB reads). Each public handle call (`Heap`,
//! `BTree`, their scans) runs inside [`ObjIo::attribute`], which adds the thread's delta to
//! the object's counters. Cost per call: a few thread-local reads and, only when pages were
//! read, relaxed atomic adds. Pages loaded by the background prefetch threads are not
//! attributed (the synchronous read-ahead of a scan is).

use std::cell::Cell;
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
const N: usize = 5;

thread_local! {
    static TL: Cell<[u64; N]> = const { Cell::new([0; N]) };
    static IN_LOB: Cell<bool> = const { Cell::new(false) };
}

fn bump(i: usize, n: u64) {
    TL.with(|c| {
        let mut v = c.get();
        v[i] += n;
        c.set(v);
    });
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
}

impl ObjIo {
    /// Runs `f`, adding this thread's page reads during it to the object (and `scans`).
    #[inline]
    pub(crate) fn attribute<T>(&self, scans: u64, f: impl FnOnce() -> T) -> T {
        let before = TL.with(|c| c.get());
        let r = f();
        let after = TL.with(|c| c.get());
        for i in 0..N {
            let d = after[i].wrapping_sub(before[i]);
            if d != 0 {
                self.c[i].fetch_add(d, Relaxed);
            }
        }
        if scans != 0 {
            self.scans.fetch_add(scans, Relaxed);
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
#[derive(Debug, Default)]
pub struct ObjIoMap {
    map: Mutex<HashMap<u64, Arc<ObjIo>>>,
}

impl ObjIoMap {
    /// The counters of `obj` (created on first use).
    pub(crate) fn get(&self, obj: u64) -> Arc<ObjIo> {
        self.map.lock().entry(obj).or_default().clone()
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
