//! Mini-transactions: the one path for WAL-logged page changes (CONVENTIONS item 4):
//! latch (EX) -> modify -> log (one atomic record) -> set page LSN -> mark dirty -> release.
//! An mtr dropped without commit restores the before-images (nothing half-done stays in memory).

use common::{PageId, SqlResult};

use crate::buffer::{BufferPool, PageWrite};
use crate::page::{self, PageBuf};
use crate::wal::{self, Log, PageChange, UndoOp, REC_OP};

struct MtrPage<'a> {
    w: PageWrite<'a>,
    before: Box<PageBuf>,
    new: bool,
}

/// A set of EX-latched pages changed together and logged as one record.
pub struct Mtr<'a> {
    pool: &'a BufferPool,
    pages: Vec<Option<MtrPage<'a>>>,
    committed: bool,
}

/// `undo_next` value of an Op record that is not a CLR.
pub const NOT_CLR: u64 = u64::MAX;

impl<'a> Mtr<'a> {
    pub fn new(pool: &'a BufferPool) -> Self {
        Mtr {
            pool,
            pages: Vec::new(),
            committed: false,
        }
    }

    pub fn find(&self, pid: PageId) -> Option<usize> {
        self.pages
            .iter()
            .position(|p| p.as_ref().is_some_and(|p| p.w.pid == pid))
    }

    /// EX-latches `pid` (no-op if already held).
    ///
    /// # Locking
    /// Callers follow the latch order of btree/README L1-L5.
    pub fn latch(&mut self, pid: PageId) -> SqlResult<usize> {
        if let Some(i) = self.find(pid) {
            return Ok(i);
        }
        let w = self.pool.write(pid)?;
        let before = Box::new(*w);
        self.pages.push(Some(MtrPage {
            w,
            before,
            new: false,
        }));
        Ok(self.pages.len() - 1)
    }

    /// EX-latches a freshly allocated page (not read from disk; logged as a full image).
    pub fn latch_new(&mut self, pid: PageId) -> SqlResult<usize> {
        if let Some(i) = self.find(pid) {
            if let Some(p) = self.pages[i].as_mut() {
                p.new = true;
            }
            return Ok(i);
        }
        let w = self.pool.write_new(pid)?;
        let before = Box::new(*w);
        self.pages.push(Some(MtrPage {
            w,
            before,
            new: true,
        }));
        Ok(self.pages.len() - 1)
    }

    pub fn pid(&self, i: usize) -> PageId {
        self.pages[i]
            .as_ref()
            .map(|p| p.w.pid)
            .unwrap_or(PageId::INVALID)
    }

    pub fn page(&self, i: usize) -> &PageBuf {
        match &self.pages[i] {
            Some(p) => &p.w,
            None => &EMPTY,
        }
    }

    pub fn page_mut(&mut self, i: usize) -> &mut PageBuf {
        if self.pages[i].is_none() {
            debug_assert!(false, "mtr page used after release");
            return Box::leak(Box::new([0u8; page::PAGE_SIZE]));
        }
        match &mut self.pages[i] {
            Some(p) => &mut p.w,
            None => Box::leak(Box::new([0u8; page::PAGE_SIZE])),
        }
    }

    /// Releases an unmodified page early (latch coupling in pessimistic descent).
    pub fn release_unchanged(&mut self, i: usize) {
        if let Some(p) = &self.pages[i] {
            if !p.new && p.before[..] == p.w[..] {
                self.pages[i] = None;
            }
        }
    }

    /// Logs all changes as one Op record and releases the latches. Returns the record's LSN,
    /// or None if nothing needed logging.
    pub fn commit(
        mut self,
        log: &Log,
        txn: u64,
        prev: u64,
        undo_next: u64,
        undo: Option<&UndoOp>,
    ) -> SqlResult<Option<u64>> {
        self.committed = true;
        let mut pages: Vec<MtrPage<'a>> = std::mem::take(&mut self.pages)
            .into_iter()
            .flatten()
            .collect();
        // diffs are computed before taking the log mutex (less work in the critical section)
        let mut diffs: Vec<Option<wal::Ranges>> = pages
            .iter()
            .map(|p| {
                if p.new {
                    Some(Vec::new())
                } else {
                    let d = wal::diff(&p.before[..], &p.w[..]);
                    (!d.is_empty()).then_some(d)
                }
            })
            .collect();
        let changed: Vec<bool> = diffs.iter().map(|d| d.is_some()).collect();
        if !changed.iter().any(|c| *c) && undo.is_none() && undo_next == NOT_CLR {
            return Ok(None);
        }
        // wal/README W2/W10: encode, append, set page LSNs and mark dirty under the log mutex,
        // so a checkpoint that begins after this record finds the pages dirty.
        let res = log.append_with(|lsn, ckpt_redo, out| {
            let start = wal::begin_record(out, REC_OP, txn, prev);
            let mut list = Vec::with_capacity(pages.len());
            for (p, d) in pages.iter().zip(diffs.iter_mut()) {
                let Some(d) = d.take() else { continue };
                // wal/README W4: first change after the checkpoint's redo LSN logs a full image
                let ch = if p.new || page::lsn(&p.before) < ckpt_redo {
                    PageChange::Fresh(wal::diff(&EMPTY[..], &p.w[..]))
                } else {
                    PageChange::Diff(d)
                };
                list.push((p.w.pid, ch));
            }
            wal::encode_op_body(out, undo_next, undo, &list);
            wal::finish_record(out, start, lsn);
            for (p, _) in pages.iter_mut().zip(&changed).filter(|(_, c)| **c) {
                page::set_lsn(&mut p.w, lsn);
                p.w.mark_dirty();
            }
        });
        let lsn = match res {
            Ok(l) => l,
            Err(e) => {
                // restore before images: the change was never logged
                for p in pages.iter_mut() {
                    let b = p.before.clone();
                    p.w.copy_from_slice(&b[..]);
                }
                return Err(e);
            }
        };
        Ok(Some(lsn))
    }
}

static EMPTY: PageBuf = [0u8; page::PAGE_SIZE];

impl Drop for Mtr<'_> {
    fn drop(&mut self) {
        if self.committed {
            return;
        }
        for p in self.pages.iter_mut().flatten() {
            let b = p.before.clone();
            p.w.copy_from_slice(&b[..]);
        }
    }
}
