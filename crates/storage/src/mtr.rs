//! Mini-transactions: the one path for WAL-logged page changes (CONVENTIONS item 4):
//! latch (EX) -> modify -> log (one atomic record) -> set page LSN -> mark dirty -> release.
//! An mtr dropped without commit restores the before-images (nothing half-done stays in memory).
//!
//! Two ways to change a latched page:
//! - **tracked** (`page_t`): the page operation reports each byte range before it changes it
//!   (`page::Touch`); the mtr saves those before-bytes (for rollback) and logs the ranges'
//!   after-bytes at commit. No whole-page copy or compare: the hot row paths (B-tree leaf
//!   insert/delete, heap insert/delete/update) use this.
//! - **untracked** (`page_mut`): the first call copies the page's before-image (rebuilt from
//!   the current bytes and the tracked before-bytes, if any); commit diffs it against the page.
//!   Used by structure changes (splits, allocation, directory, LOB), which are rare.

use common::{PageId, SqlResult};

use crate::buffer::{BufferPool, PageWrite};
use crate::page::{self, PageBuf, Touch, PAGE_SIZE};
use crate::wal::{self, Log, UndoOp, REC_OP};

/// Before-bytes of the ranges a tracked page operation changed, in one buffer (one
/// allocation per changed page): per touch `before-bytes | offset u16 | length u16`, so the
/// entries are walked newest first from the end.
#[derive(Default)]
pub struct RangeLog {
    log: Vec<u8>,
}

impl Touch for RangeLog {
    #[inline]
    fn touch(&mut self, p: &PageBuf, off: usize, len: usize) {
        let end = (off + len).min(PAGE_SIZE);
        if off >= end {
            return;
        }
        if self.log.capacity() == 0 {
            self.log.reserve(512); // a typical row change (header, record, slot) fits
        }
        self.log.extend_from_slice(&p[off..end]);
        self.log.extend_from_slice(&(off as u16).to_le_bytes());
        self.log
            .extend_from_slice(&((end - off) as u16).to_le_bytes());
    }
}

impl RangeLog {
    fn is_empty(&self) -> bool {
        self.log.is_empty()
    }

    /// Entries newest first: (offset, before-bytes).
    fn newest_first(&self) -> impl Iterator<Item = (usize, &[u8])> {
        let mut end = self.log.len();
        std::iter::from_fn(move || {
            if end < 4 {
                return None;
            }
            let off = page::rd16(&self.log, end - 4) as usize;
            let len = page::rd16(&self.log, end - 2) as usize;
            let start = end - 4 - len;
            let bytes = &self.log[start..end - 4];
            end = start;
            Some((off, bytes))
        })
    }

    /// Restores the before-bytes into `p` (newest first, so overlapping ranges unwind).
    fn undo(&self, p: &mut PageBuf) {
        for (off, b) in self.newest_first() {
            p[off..off + b.len()].copy_from_slice(b);
        }
    }

    /// Appends the touched ranges to `out`, sorted and merged (gaps below 16 bytes are
    /// merged: logging a few unchanged bytes is cheaper than another range header).
    fn merged_into(&self, out: &mut Vec<(usize, usize)>) {
        let start = out.len();
        out.extend(self.newest_first().map(|(o, b)| (o, o + b.len())));
        out[start..].sort_unstable();
        let mut w = start;
        for r in start..out.len() {
            let (s, e) = out[r];
            if w > start && s < out[w - 1].1 + 16 {
                out[w - 1].1 = out[w - 1].1.max(e);
            } else {
                out[w] = (s, e);
                w += 1;
            }
        }
        out.truncate(w);
    }

    #[cfg(test)]
    fn merged(&self) -> Vec<(usize, usize)> {
        let mut v = Vec::new();
        self.merged_into(&mut v);
        v
    }
}

struct MtrPage<'a> {
    w: PageWrite<'a>,
    /// Full before-image: set by `page_mut` (untracked changes, diffed at commit). A new
    /// page (`latch_new`) needs none: it is logged whole and was all zeros before.
    before: Option<Box<PageBuf>>,
    /// Tracked changes (only while `before` is None).
    track: RangeLog,
    /// This page's ranges in the commit's span list (None = unchanged).
    span: Option<(usize, usize)>,
    /// Page LSN when latched (first-change-after-checkpoint test, wal/README W4).
    old_lsn: u64,
    new: bool,
}

impl MtrPage<'_> {
    fn changed(&self) -> bool {
        match &self.before {
            _ if self.new => true,
            Some(b) => b[..] != self.w[..],
            None => !self.track.is_empty(),
        }
    }

    /// Puts the page back as it was when latched.
    fn restore(&mut self) {
        match self.before.take() {
            Some(b) => self.w.copy_from_slice(&b[..]),
            // a fresh page (`latch_new`) was all zeros (`BufferPool::write_new`)
            None if self.new => self.w.fill(0),
            None => {
                let t = std::mem::take(&mut self.track);
                t.undo(&mut self.w);
            }
        }
    }
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
        let old_lsn = page::lsn(&w);
        self.pages.push(Some(MtrPage {
            w,
            before: None,
            track: RangeLog::default(),
            span: None,
            old_lsn,
            new: false,
        }));
        Ok(self.pages.len() - 1)
    }

    /// EX-latches `pid` only if its latch is free now (`BufferPool::try_write`); Some(index)
    /// also when the mtr already holds it.
    pub fn try_latch(&mut self, pid: PageId) -> SqlResult<Option<usize>> {
        if let Some(i) = self.find(pid) {
            return Ok(Some(i));
        }
        let Some(w) = self.pool.try_write(pid)? else {
            return Ok(None);
        };
        let old_lsn = page::lsn(&w);
        self.pages.push(Some(MtrPage {
            w,
            before: None,
            track: RangeLog::default(),
            span: None,
            old_lsn,
            new: false,
        }));
        Ok(Some(self.pages.len() - 1))
    }

    /// EX-latches a freshly allocated page (not read from disk; logged as a full image).
    pub fn latch_new(&mut self, pid: PageId) -> SqlResult<usize> {
        if let Some(i) = self.find(pid) {
            self.untracked(i);
            if let Some(p) = self.pages[i].as_mut() {
                p.new = true;
            }
            return Ok(i);
        }
        let w = self.pool.write_new(pid)?;
        self.pages.push(Some(MtrPage {
            w,
            before: None,
            track: RangeLog::default(),
            span: None,
            old_lsn: 0,
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

    /// Switches page `i` to untracked mode: keeps a full before-image (commit diffs it).
    fn untracked(&mut self, i: usize) {
        let Some(p) = self.pages[i].as_mut() else {
            return;
        };
        if p.before.is_none() && !p.new {
            let mut b = Box::new(*p.w);
            let t = std::mem::take(&mut p.track);
            t.undo(&mut b);
            p.before = Some(b);
        }
    }

    /// Untracked write access (structure changes): the page is diffed against a copy of its
    /// before-image at commit.
    pub fn page_mut(&mut self, i: usize) -> &mut PageBuf {
        self.untracked(i);
        match &mut self.pages[i] {
            Some(p) => &mut p.w,
            None => {
                debug_assert!(false, "mtr page used after release");
                Box::leak(Box::new([0u8; page::PAGE_SIZE]))
            }
        }
    }

    /// Tracked write access: pass the `RangeLog` to a `page::*_t` operation, which reports
    /// every range before changing it. Only those ranges are logged. Writing the page without
    /// reporting the range is a bug (the change would be lost on redo). After `page_mut` the
    /// page is diffed instead and the reported ranges are ignored.
    pub fn page_t(&mut self, i: usize) -> Option<(&mut PageBuf, &mut RangeLog)> {
        let p = self.pages[i].as_mut()?;
        Some((&mut p.w, &mut p.track))
    }

    /// Runs a tracked page operation on page `i` (see `page_t`); a released page yields
    /// `R::default()` (false / None: "did not fit").
    pub fn with_t<R: Default>(
        &mut self,
        i: usize,
        f: impl FnOnce(&mut PageBuf, &mut RangeLog) -> R,
    ) -> R {
        match self.page_t(i) {
            Some((p, t)) => f(p, t),
            None => {
                debug_assert!(false, "mtr page used after release");
                R::default()
            }
        }
    }

    /// Releases an unmodified page early (latch coupling in pessimistic descent).
    pub fn release_unchanged(&mut self, i: usize) {
        if let Some(p) = &self.pages[i] {
            if !p.new && !p.changed() {
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
        // byte ranges are computed before taking the log mutex (less work in the critical
        // section): tracked pages merge their touched ranges, untracked ones diff.
        // `spans[span.0..span.1]` are a page's ranges (a per-thread scratch list: no
        // allocation per commit).
        let mut spans = SPANS.with(|c| std::mem::take(&mut *c.borrow_mut()));
        spans.clear();
        let mut nchanged = 0usize;
        for p in self.pages.iter_mut().flatten() {
            let start = spans.len();
            if !p.new {
                match &p.before {
                    Some(b) => spans.extend(wal::diff_spans(&b[..], &p.w[..])),
                    None => p.track.merged_into(&mut spans),
                }
            }
            p.span = (p.new || spans.len() > start).then_some((start, spans.len()));
            nchanged += p.span.is_some() as usize;
        }
        if nchanged == 0 && undo.is_none() && undo_next == NOT_CLR {
            SPANS.with(|c| *c.borrow_mut() = spans);
            return Ok(None);
        }
        let pages = &mut self.pages;
        // wal/README W2/W10: encode, append, set page LSNs and mark dirty under the log mutex,
        // so a checkpoint that begins after this record finds the pages dirty.
        let res = log.append_with(|lsn, ckpt_redo, out| {
            let start = wal::begin_record(out, REC_OP, txn, prev);
            wal::encode_op_head(out, undo_next, undo, nchanged as u32);
            for p in pages.iter().flatten() {
                let Some((s, e)) = p.span else { continue };
                // wal/README W4: first change after the checkpoint's redo LSN logs a full image
                if p.new || p.old_lsn < ckpt_redo {
                    let full = wal::diff_spans(&EMPTY[..], &p.w[..]);
                    wal::encode_page_ranges(out, p.w.pid, wal::TAG_FRESH, &p.w[..], &full);
                } else {
                    wal::encode_page_ranges(out, p.w.pid, wal::TAG_DIFF, &p.w[..], &spans[s..e]);
                }
            }
            wal::finish_record(out, start, lsn);
            for p in pages.iter_mut().flatten().filter(|p| p.span.is_some()) {
                page::set_lsn(&mut p.w, lsn);
                p.w.mark_dirty();
            }
        });
        SPANS.with(|c| *c.borrow_mut() = spans);
        match res {
            Ok(l) => {
                crate::objio::note_write(nchanged as u64);
                Ok(Some(l))
            }
            Err(e) => {
                // restore before images: the change was never logged
                for p in self.pages.iter_mut().flatten() {
                    p.restore();
                }
                Err(e)
            }
        }
    }
}

thread_local! {
    /// Scratch list of byte spans reused by `Mtr::commit` on this thread.
    static SPANS: std::cell::RefCell<Vec<(usize, usize)>> = const { std::cell::RefCell::new(Vec::new()) };
}

static EMPTY: PageBuf = [0u8; page::PAGE_SIZE];

impl Drop for Mtr<'_> {
    fn drop(&mut self) {
        if self.committed {
            return;
        }
        for p in self.pages.iter_mut().flatten() {
            p.restore();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page::{self, PageType};

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    /// Tracked operations report every byte they change: the merged ranges' after-bytes
    /// applied to the old page give the new page (redo), and `undo` gives the old page back.
    #[test]
    fn tracked_ranges_cover_every_change() {
        let mut r = Rng(0x9e37_79b9_7f4a_7c15);
        for round in 0..400 {
            let heap = round % 2 == 0;
            let mut p = [0u8; PAGE_SIZE];
            let ty = if heap { PageType::Heap } else { PageType::Leaf };
            page::init(&mut p, PageId::new(1, 8), ty, 5, 0);
            // age the page: random untracked ops (holes, deleted slots)
            for _ in 0..(r.next() % 120) {
                let n = page::slot_count(&p);
                let len = 1 + (r.next() % 300) as usize;
                let data = vec![(r.next() % 255) as u8 + 1; len];
                match r.next() % 3 {
                    0 | 1 if heap => {
                        let _ = page::heap_insert(&mut p, &data);
                    }
                    0 | 1 => {
                        let _ = page::insert_at(&mut p, (r.next() as usize) % (n + 1), &data);
                    }
                    _ if n > 0 && heap => page::heap_delete(&mut p, r.next() as usize % n),
                    _ if n > 0 => page::remove_at(&mut p, r.next() as usize % n),
                    _ => {}
                }
            }
            let old = p;
            let mut t = RangeLog::default();
            for _ in 0..(1 + r.next() % 6) {
                let n = page::slot_count(&p);
                let len = 1 + (r.next() % 600) as usize;
                let data = vec![(r.next() % 255) as u8 + 1; len];
                let idx = if n == 0 { 0 } else { r.next() as usize % n };
                match (heap, r.next() % 4) {
                    (true, 0) => {
                        let _ = page::heap_insert_t(&mut p, &data, &mut t);
                    }
                    (true, 1) if n > 0 => page::heap_delete_t(&mut p, idx, &mut t),
                    (true, 2) if n > 0 => {
                        let _ = page::replace_t(&mut p, idx, &data, &mut t);
                    }
                    (true, _) => {
                        let at = idx + (r.next() % 3) as usize;
                        if at >= n || page::slot(&p, at).0 == 0 {
                            let _ = page::heap_insert_at_t(&mut p, at, &data, &mut t);
                        }
                    }
                    (false, 0 | 1) => {
                        let at = if n == 0 {
                            0
                        } else {
                            r.next() as usize % (n + 1)
                        };
                        let _ = page::insert_at_t(&mut p, at, &data, &mut t);
                    }
                    (false, 2) if n > 0 => page::remove_at_t(&mut p, idx, &mut t),
                    (false, _) if n > 0 => {
                        let _ = page::replace_t(&mut p, idx, &data, &mut t);
                    }
                    _ => {}
                }
                page::validate_slots(&p).unwrap();
            }
            let mut redo = old;
            for (s, e) in t.merged() {
                redo[s..e].copy_from_slice(&p[s..e]);
            }
            assert_eq!(redo[..], p[..], "round {round}: redo from ranges");
            let mut back = p;
            t.undo(&mut back);
            assert_eq!(back[..], old[..], "round {round}: undo from saved bytes");
        }
    }
}
