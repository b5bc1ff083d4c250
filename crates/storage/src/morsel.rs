//! Morsel-driven parallel scans: a table's pages handed out in morsels (runs of pages in
//! allocation order) through one atomic counter, so the workers of a parallel scan share no
//! latch and no lock on the hot path (seed S6: SQL Server's ACCESS_METHODS_DATASET_PARENT
//! latch is held across I/O while the shared range list is refilled; here a worker claims a
//! morsel with one `fetch_add` and reads it ahead with no latch held).
//!
//! * [`MorselSource`] (shared, `Send + Sync`): the object's page list, snapshotted when the
//!   scan opens (IAM order, as a heap scan reads), and the counter of the next morsel.
//! * [`MorselScan`] (one per worker): claims a morsel when its current one is used up and
//!   visits its pages one at a time: heap pages' rows, B-tree leaves' entries (non-leaf pages
//!   of the list are skipped; the order is allocation order, not key order).
//! * Read-ahead: when a worker claims a morsel whose first page is not cached, it reads the
//!   whole morsel in multi-page reads before latching any page, and queues the asynchronous
//!   read-ahead of the morsel after it; N workers keep about N reads in flight.
//! * The page list is a snapshot: the caller keeps writers out for the scan's duration (exec
//!   takes a table-level S lock before the workers start).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use common::{PageId, SqlResult};

use crate::db::Inner;
use crate::objio::ObjIo;
use crate::ObjId;

/// Pages per morsel at most (8 extents, 512 KB): enough to amortise the claim and the
/// read-ahead call, small enough that a worker slowed by a busy core takes fewer morsels
/// (seed S5) and the last morsel ends soon after the others.
pub const MAX_MORSEL_PAGES: usize = 64;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Heap,
    BTree,
}

/// The shared half of a morsel-driven scan (see the module doc).
pub struct MorselSource {
    db: Arc<Inner>,
    id: ObjId,
    io: Arc<ObjIo>,
    kind: Kind,
    pages: Vec<PageId>,
    morsel: usize,
    next: AtomicUsize,
}

impl MorselSource {
    pub(crate) fn new(
        db: Arc<Inner>,
        id: ObjId,
        io: Arc<ObjIo>,
        heap: bool,
        workers: usize,
    ) -> SqlResult<Arc<MorselSource>> {
        let m = db.meta(id.0)?;
        let pages = crate::heap::object_pages(&db, &m)?;
        // at least ~8 morsels per worker so demand scheduling can even out a slow worker
        let morsel = (pages.len() / (workers.max(1) * 8)).clamp(1, MAX_MORSEL_PAGES);
        io.attribute(1, || ());
        Ok(Arc::new(MorselSource {
            db,
            id,
            io,
            kind: if heap { Kind::Heap } else { Kind::BTree },
            pages,
            morsel,
            next: AtomicUsize::new(0),
        }))
    }

    /// Pages of the object (all of them: for a B-tree inner and LOB pages too).
    pub fn page_count(&self) -> usize {
        self.pages.len()
    }

    /// Pages per morsel.
    pub fn morsel_pages(&self) -> usize {
        self.morsel
    }

    /// A worker's cursor over the morsels it will claim.
    pub fn scanner(self: &Arc<Self>) -> MorselScan {
        MorselScan {
            src: self.clone(),
            cur: 0,
            end: 0,
            morsels: 0,
        }
    }

    /// Claims the next morsel: (first, end) page indexes, None when all are handed out.
    fn claim(&self) -> Option<(usize, usize)> {
        let first = self.next.fetch_add(self.morsel, Ordering::Relaxed);
        if first >= self.pages.len() {
            return None;
        }
        Some((first, (first + self.morsel).min(self.pages.len())))
    }

    /// Reads a claimed morsel ahead (no latch held: the caller holds none) and queues the
    /// next unclaimed one asynchronously.
    fn read_ahead(&self, first: usize, end: usize) -> SqlResult<()> {
        let pool = &self.db.pool;
        if !pool.contains(self.pages[first]) {
            let mut k = first;
            while k < end {
                let run = crate::buffer::window(&self.pages[..end], k);
                k += run.len().max(1);
                if run.len() > 1 {
                    pool.read_ahead(&run)?;
                }
            }
        }
        let next = self.next.load(Ordering::Relaxed);
        if next < self.pages.len() {
            let run = crate::buffer::window(&self.pages, next);
            if run.len() > 1 && !pool.contains(run[0]) {
                pool.prefetch(run);
            }
        }
        Ok(())
    }
}

/// Visitor of [`MorselScan::visit_next`]: (record, locator).
pub type Visitor<'a> = dyn FnMut(&[u8], &[u8]) -> SqlResult<()> + 'a;

/// One worker's side of a morsel-driven scan.
pub struct MorselScan {
    src: Arc<MorselSource>,
    cur: usize,
    end: usize,
    morsels: u64,
}

impl MorselScan {
    /// Morsels this worker claimed so far.
    pub fn morsels_claimed(&self) -> u64 {
        self.morsels
    }

    /// The next page to visit, claiming (and reading ahead) a morsel when needed.
    fn next_page(&mut self) -> SqlResult<Option<PageId>> {
        if self.cur >= self.end {
            let Some((first, end)) = self.src.claim() else {
                return Ok(None);
            };
            self.morsels += 1;
            self.cur = first;
            self.end = end;
            self.src.read_ahead(first, end)?;
        }
        let pid = self.src.pages[self.cur];
        self.cur += 1;
        Ok(Some(pid))
    }

    /// Calls `f(record, locator)` for the rows of the next page of this worker's morsels
    /// (heap: the record and its 8-byte RID; B-tree: the leaf value and its key), straight
    /// from the page under its shared latch; `f` must not read pages or block. False = no
    /// page left. A page may have no rows (nothing visited, true returned).
    pub fn visit_next(&mut self, f: &mut Visitor<'_>) -> SqlResult<bool> {
        let Some(pid) = self.next_page()? else {
            return Ok(false);
        };
        let src = &*self.src;
        let m = src.db.meta(src.id.0)?;
        src.io.attribute(0, || match src.kind {
            Kind::Heap => {
                crate::heap::visit_page(&src.db, &m, pid, &mut |rec, rid| f(rec, &rid.to_bytes()))
            }
            Kind::BTree => crate::btree::visit_page(&src.db, &m, pid, &mut |key, val| f(val, key)),
        })?;
        Ok(true)
    }

    /// Counts the rows of this worker's remaining morsels from slot arrays (records are not
    /// read); stops with the attention error once `cancel` is set (polled per page).
    pub fn count(&mut self, cancel: Option<&common::CancelToken>) -> SqlResult<u64> {
        let mut n = 0u64;
        while let Some(pid) = self.next_page()? {
            if let Some(c) = cancel {
                c.check()?;
            }
            let src = &*self.src;
            let m = src.db.meta(src.id.0)?;
            n += src.io.attribute(0, || match src.kind {
                Kind::Heap => crate::heap::count_page(&src.db, &m, pid),
                Kind::BTree => crate::btree::count_page(&src.db, &m, pid),
            })?;
        }
        Ok(n)
    }
}
