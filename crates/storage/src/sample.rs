//! Page samples (statistics builds, row-count estimates): the object's page list comes from its
//! IAM chain (an extent walk, no data page read), the caller's coin picks pages, and only the
//! picked pages are read — in ascending order per file, the next batch queued for the
//! read-ahead threads while the current one is visited (SQL Server samples whole pages through
//! the IAM the same way: `TABLESAMPLE` / the automatic statistics sample).
//!
//! * Heaps: every page of the list is a data page except the IAM and LOB pages, which are
//!   skipped when picked (they hold no rows, so the row estimate stays unbiased: they are
//!   sampled at the same rate as any page).
//! * B-trees: leaves are visited in allocation order (no key order); picked inner, IAM and LOB
//!   pages are skipped the same way.
//! * The page list is a snapshot: a page freed and reused by another object while the sample
//!   runs ends it with the page's error (the caller, a statistics build, keeps what it had).

use std::sync::Arc;

use common::{PageId, SqlResult};

use crate::db::Inner;
use crate::objio::ObjIo;
use crate::ObjId;

/// Picked pages read ahead (and queued for the read-ahead threads) at a time.
const BATCH_PAGES: usize = 32;

/// Pages of one object picked for a sample (see the module doc).
pub struct PageSample {
    db: Arc<Inner>,
    id: ObjId,
    io: Arc<ObjIo>,
    heap: bool,
    total: usize,
    picked: Vec<PageId>,
}

/// What a [`PageSample::visit`] saw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SampleCounts {
    /// Pages of the object (all of them: IAM, LOB and B-tree inner pages too).
    pub total_pages: u64,
    /// Pages picked and read.
    pub picked_pages: u64,
    /// Rows on the picked pages.
    pub rows: u64,
}

impl SampleCounts {
    /// The object's rows estimated from the sample: rows seen × total / picked pages (every
    /// page, row-holding or not, was picked with the same probability).
    pub fn estimated_rows(&self) -> u64 {
        if self.picked_pages == 0 {
            return 0;
        }
        ((self.rows as u128 * self.total_pages as u128) / self.picked_pages as u128) as u64
    }
}

impl PageSample {
    /// The pages of object `id` that `pick(page index, page)` accepts, asked once per page in
    /// allocation order; no data page is read.
    pub(crate) fn new(
        db: Arc<Inner>,
        id: ObjId,
        io: Arc<ObjIo>,
        heap: bool,
        pick: &mut dyn FnMut(usize, PageId) -> bool,
    ) -> SqlResult<PageSample> {
        let m = db.meta(id.0)?;
        let all = crate::heap::object_pages(&db, &m)?;
        let total = all.len();
        let picked = all
            .into_iter()
            .enumerate()
            .filter_map(|(i, p)| pick(i, p).then_some(p))
            .collect();
        Ok(PageSample {
            db,
            id,
            io,
            heap,
            total,
            picked,
        })
    }

    /// Pages of the object.
    pub fn total_pages(&self) -> usize {
        self.total
    }

    /// Pages picked.
    pub fn picked_pages(&self) -> usize {
        self.picked.len()
    }

    /// Calls `f(record, page)` for every row of the picked pages (heap: the row; B-tree: the
    /// leaf entry's value; `page`: the ordinal of its page among the picked ones, ascending),
    /// straight from the page under its shared latch (`f` must not read pages or block; LOB
    /// rows come after the latch is released). Counts one scan.
    pub fn visit(&self, f: &mut dyn FnMut(&[u8], u32) -> SqlResult<()>) -> SqlResult<SampleCounts> {
        let m = self.db.meta(self.id.0)?;
        let pool = &self.db.pool;
        let mut rows = 0u64;
        self.io.attribute(1, || -> SqlResult<()> {
            for (b, batch) in self.picked.chunks(BATCH_PAGES).enumerate() {
                // the next batch goes to the read-ahead threads while this one is visited
                if let Some(next) = self.picked.chunks(BATCH_PAGES).nth(b + 1) {
                    for run in contiguous_runs(next) {
                        if !pool.contains(run[0]) {
                            pool.prefetch(run.to_vec());
                        }
                    }
                }
                // this batch: runs of adjacent pages not cached yet in one read each (a batch
                // already queued is mostly in by now; single pages are read on demand)
                read_runs(pool, batch)?;
                for (k, &pid) in batch.iter().enumerate() {
                    let page = (b * BATCH_PAGES + k) as u32;
                    if self.heap {
                        crate::heap::visit_page(&self.db, &m, pid, &mut |rec, _| {
                            rows += 1;
                            f(rec, page)
                        })?;
                    } else {
                        crate::btree::visit_page(&self.db, &m, pid, &mut |_, val| {
                            rows += 1;
                            f(val, page)
                        })?;
                    }
                }
            }
            Ok(())
        })?;
        Ok(SampleCounts {
            total_pages: self.total as u64,
            picked_pages: self.picked.len() as u64,
            rows,
        })
    }

    /// Counts the rows of the picked pages from their slot arrays (records are not read).
    pub fn count(&self) -> SqlResult<SampleCounts> {
        let m = self.db.meta(self.id.0)?;
        let pool = &self.db.pool;
        let mut rows = 0u64;
        self.io.attribute(1, || -> SqlResult<()> {
            for batch in self.picked.chunks(BATCH_PAGES) {
                read_runs(pool, batch)?;
                for &pid in batch {
                    rows += if self.heap {
                        crate::heap::count_page(&self.db, &m, pid)?
                    } else {
                        crate::btree::count_page(&self.db, &m, pid)?
                    };
                }
            }
            Ok(())
        })?;
        Ok(SampleCounts {
            total_pages: self.total as u64,
            picked_pages: self.picked.len() as u64,
            rows,
        })
    }
}

/// Reads the runs of adjacent pages of `batch` that are not all cached, one read each.
fn read_runs(pool: &crate::buffer::BufferPool, batch: &[PageId]) -> SqlResult<()> {
    for run in contiguous_runs(batch) {
        if run.len() > 1 && run.iter().any(|&p| !pool.contains(p)) {
            pool.read_ahead(run)?;
        }
    }
    Ok(())
}

/// `pages` split into runs of adjacent pages of one file: one read each, never reading the
/// pages between two picked ones (a sparse sample must not cost a read of the whole table).
fn contiguous_runs(pages: &[PageId]) -> impl Iterator<Item = &[PageId]> {
    pages.chunk_by(|a, b| a.file == b.file && a.page + 1 == b.page)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_split_at_gaps_and_file_changes() {
        let p = |f, n| PageId::new(f, n);
        let pages = [
            p(1, 3),
            p(1, 4),
            p(1, 9),
            p(2, 10),
            p(2, 11),
            p(2, 12),
            p(1, 13),
        ];
        let runs: Vec<usize> = contiguous_runs(&pages).map(|r| r.len()).collect();
        assert_eq!(runs, vec![2, 1, 3, 1]);
    }

    #[test]
    fn estimate_scales_rows_by_pages() {
        let c = SampleCounts {
            total_pages: 1000,
            picked_pages: 10,
            rows: 600,
        };
        assert_eq!(c.estimated_rows(), 60_000);
        assert_eq!(SampleCounts::default().estimated_rows(), 0);
    }
}
