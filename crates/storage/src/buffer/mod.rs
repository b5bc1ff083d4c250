//! Buffer pool: frames, page table, clock eviction, pin counts, SH/UP/EX page latches,
//! dirty tracking, checkpoint flushing, multi-page read-ahead (see buffer/README.md).

use std::collections::HashMap;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::*};
use std::sync::Arc;

use common::{PageId, SqlError, SqlResult};
use parking_lot::{
    Mutex, RwLock, RwLockReadGuard, RwLockUpgradableReadGuard, RwLockWriteGuard,
};

use crate::file::DataFile;
use crate::page::{self, PageBuf, PAGE_SIZE};
use crate::wal::Log;

/// Contents of one frame, protected by the frame's page latch.
pub struct FrameData {
    pub buf: Box<PageBuf>,
    pub pid: PageId,
    /// False while unloaded or after a failed read.
    pub valid: bool,
}

struct Frame {
    latch: RwLock<FrameData>,
    pin: AtomicU32,
    dirty: AtomicBool,
    refbit: AtomicBool,
    /// A write of this frame is in flight (buffer/README B7: one writer per frame at a time,
    /// otherwise an older copy could land on disk after a newer one).
    writing: AtomicBool,
}

struct Table {
    map: HashMap<PageId, usize>,
    owner: Vec<Option<PageId>>,
    free: Vec<usize>,
    hand: usize,
}

/// The buffer pool.
pub struct BufferPool {
    frames: Vec<Frame>,
    table: Mutex<Table>,
    pub files: Vec<Arc<DataFile>>,
    log: Arc<Log>,
    pub logical_reads: AtomicU64,
    pub physical_reads: AtomicU64,
    pub read_ahead_reads: AtomicU64,
}

/// A shared (SH) latched, pinned page. Dropping releases the latch, then the pin.
pub struct PageRead<'a> {
    pool: &'a BufferPool,
    idx: usize,
    pub pid: PageId,
    g: Option<RwLockReadGuard<'a, FrameData>>,
}

/// An update (UP) latched page: compatible with SH, exclusive against UP/EX; upgrade to EX.
pub struct PageUp<'a> {
    pool: &'a BufferPool,
    idx: usize,
    pub pid: PageId,
    g: Option<RwLockUpgradableReadGuard<'a, FrameData>>,
}

/// An exclusive (EX) latched, pinned page.
pub struct PageWrite<'a> {
    pool: &'a BufferPool,
    idx: usize,
    pub pid: PageId,
    g: Option<RwLockWriteGuard<'a, FrameData>>,
}

impl Deref for PageRead<'_> {
    type Target = PageBuf;
    fn deref(&self) -> &PageBuf {
        match &self.g {
            Some(g) => &g.buf,
            None => unreachable_page(),
        }
    }
}
impl Deref for PageUp<'_> {
    type Target = PageBuf;
    fn deref(&self) -> &PageBuf {
        match &self.g {
            Some(g) => &g.buf,
            None => unreachable_page(),
        }
    }
}
impl Deref for PageWrite<'_> {
    type Target = PageBuf;
    fn deref(&self) -> &PageBuf {
        match &self.g {
            Some(g) => &g.buf,
            None => unreachable_page(),
        }
    }
}
impl DerefMut for PageWrite<'_> {
    fn deref_mut(&mut self) -> &mut PageBuf {
        match &mut self.g {
            Some(g) => &mut g.buf,
            None => unreachable_page_mut(),
        }
    }
}

// The guard is only None during drop; these exist to avoid unwrap in Deref.
static ZERO_PAGE: PageBuf = [0u8; PAGE_SIZE];
fn unreachable_page() -> &'static PageBuf {
    debug_assert!(false, "page guard used after release");
    &ZERO_PAGE
}
fn unreachable_page_mut() -> &'static mut PageBuf {
    // never reached: guards are Some until drop
    Box::leak(Box::new([0u8; PAGE_SIZE]))
}

impl Drop for PageRead<'_> {
    fn drop(&mut self) {
        self.g.take();
        self.pool.unpin(self.idx);
    }
}
impl Drop for PageUp<'_> {
    fn drop(&mut self) {
        self.g.take();
        self.pool.unpin(self.idx);
    }
}
impl Drop for PageWrite<'_> {
    fn drop(&mut self) {
        self.g.take();
        self.pool.unpin(self.idx);
    }
}

impl<'a> PageUp<'a> {
    /// Upgrades UP to EX (waits for SH holders to leave).
    pub fn upgrade(mut self) -> PageWrite<'a> {
        let g = self.g.take().map(RwLockUpgradableReadGuard::upgrade);
        let w = PageWrite {
            pool: self.pool,
            idx: self.idx,
            pid: self.pid,
            g,
        };
        // pin ownership moves to `w`
        self.pool.frames[self.idx].pin.fetch_add(1, AcqRel);
        w
    }
}

impl PageWrite<'_> {
    /// Marks the page dirty (called by the mini-transaction after logging; buffer/README B4).
    pub fn mark_dirty(&self) {
        self.pool.frames[self.idx].dirty.store(true, Release);
    }
}

fn io_corrupt(pid: PageId, detail: &str, f: &DataFile) -> SqlError {
    SqlError::corrupt_page(detail, &pid.to_string(), &f.path.display().to_string())
}

impl BufferPool {
    pub fn new(bytes: usize, files: Vec<Arc<DataFile>>, log: Arc<Log>) -> BufferPool {
        let n = (bytes / PAGE_SIZE).max(64);
        let mut frames = Vec::with_capacity(n);
        for _ in 0..n {
            frames.push(Frame {
                latch: RwLock::new(FrameData {
                    buf: Box::new([0u8; PAGE_SIZE]),
                    pid: PageId::INVALID,
                    valid: false,
                }),
                pin: AtomicU32::new(0),
                dirty: AtomicBool::new(false),
                refbit: AtomicBool::new(false),
                writing: AtomicBool::new(false),
            });
        }
        BufferPool {
            frames,
            table: Mutex::new(Table {
                map: HashMap::with_capacity(n),
                owner: vec![None; n],
                free: (0..n).rev().collect(),
                hand: 0,
            }),
            files,
            log,
            logical_reads: AtomicU64::new(0),
            physical_reads: AtomicU64::new(0),
            read_ahead_reads: AtomicU64::new(0),
        }
    }

    pub fn frame_count(&self) -> usize {
        self.frames.len()
    }

    pub fn file(&self, id: u16) -> SqlResult<&Arc<DataFile>> {
        self.files
            .get((id as usize).wrapping_sub(1))
            .ok_or_else(|| SqlError::corrupt_page("invalid file id", &format!("({id}:?)"), "?"))
    }

    fn unpin(&self, idx: usize) {
        self.frames[idx].pin.fetch_sub(1, AcqRel);
    }

    /// Picks an unpinned clean frame (clock), unmapping it. Returns dirty candidates if none.
    fn victim(&self, t: &mut Table, dirty: &mut Vec<usize>) -> Option<usize> {
        if let Some(i) = t.free.pop() {
            return Some(i);
        }
        let n = self.frames.len();
        for _ in 0..(2 * n) {
            let i = t.hand;
            t.hand = (t.hand + 1) % n;
            let f = &self.frames[i];
            if f.pin.load(Acquire) > 0 {
                continue;
            }
            if f.refbit.swap(false, AcqRel) {
                continue;
            }
            if f.dirty.load(Acquire) {
                if dirty.len() < 64 {
                    dirty.push(i);
                }
                continue;
            }
            if let Some(old) = t.owner[i].take() {
                t.map.remove(&old);
            }
            return Some(i);
        }
        None
    }

    /// Pins `pid`, loading it if needed. Returns the frame index (pinned).
    fn fix(&self, pid: PageId, new_page: bool) -> SqlResult<usize> {
        if !pid.is_valid() {
            return Err(SqlError::corrupt_page("invalid page id", &pid.to_string(), "?"));
        }
        let file = self.file(pid.file)?.clone();
        self.logical_reads.fetch_add(1, Relaxed);
        let mut dirty = Vec::new();
        for _attempt in 0..1000 {
            let mut t = self.table.lock();
            if let Some(&i) = t.map.get(&pid) {
                let f = &self.frames[i];
                f.pin.fetch_add(1, AcqRel);
                f.refbit.store(true, Release);
                return Ok(i);
            }
            dirty.clear();
            let Some(i) = self.victim(&mut t, &mut dirty) else {
                drop(t);
                // buffer/README B6: flush dirty victims without the table mutex, never blocking on a latch
                let mut flushed = 0;
                for &d in &dirty {
                    if self.flush_frame(d, false)? {
                        flushed += 1;
                    }
                }
                if flushed == 0 {
                    std::thread::yield_now();
                }
                continue;
            };
            let f = &self.frames[i];
            f.pin.store(1, Release);
            f.refbit.store(true, Release);
            f.dirty.store(false, Release);
            t.map.insert(pid, i);
            t.owner[i] = Some(pid);
            let Some(mut g) = f.latch.try_write() else {
                // cannot happen (unpinned frames hold no latch); undo the mapping and retry
                t.map.remove(&pid);
                t.owner[i] = None;
                f.pin.store(0, Release);
                continue;
            };
            drop(t);
            g.pid = pid;
            if new_page {
                g.buf.fill(0);
                g.valid = true;
                return Ok(i);
            }
            let res = file.read_pages(pid.page, &mut g.buf[..]).and_then(|_| {
                page::verify(&g.buf, pid).map_err(|d| io_corrupt(pid, &d, &file))
            });
            self.physical_reads.fetch_add(1, Relaxed);
            match res {
                Ok(()) => {
                    g.valid = true;
                    return Ok(i);
                }
                Err(e) => {
                    g.valid = false;
                    let mut t = self.table.lock();
                    if t.map.get(&pid) == Some(&i) {
                        t.map.remove(&pid);
                        t.owner[i] = None;
                    }
                    drop(t);
                    drop(g);
                    self.unpin(i);
                    return Err(e);
                }
            }
        }
        Err(SqlError::internal(
            "buffer pool exhausted: every frame is pinned or cannot be flushed",
        ))
    }

    fn check_valid(&self, idx: usize, data: &FrameData, pid: PageId) -> SqlResult<()> {
        if !data.valid || data.pid != pid {
            let _ = idx;
            return Err(SqlError::corrupt_page(
                "page could not be read",
                &pid.to_string(),
                "data file",
            ));
        }
        Ok(())
    }

    /// SH latch on `pid`.
    pub fn read(&self, pid: PageId) -> SqlResult<PageRead<'_>> {
        let idx = self.fix(pid, false)?;
        let g = self.frames[idx].latch.read();
        if let Err(e) = self.check_valid(idx, &g, pid) {
            drop(g);
            self.unpin(idx);
            return Err(e);
        }
        Ok(PageRead {
            pool: self,
            idx,
            pid,
            g: Some(g),
        })
    }

    /// UP latch on `pid`.
    pub fn read_up(&self, pid: PageId) -> SqlResult<PageUp<'_>> {
        let idx = self.fix(pid, false)?;
        let g = self.frames[idx].latch.upgradable_read();
        if let Err(e) = self.check_valid(idx, &g, pid) {
            drop(g);
            self.unpin(idx);
            return Err(e);
        }
        Ok(PageUp {
            pool: self,
            idx,
            pid,
            g: Some(g),
        })
    }

    /// EX latch on `pid`.
    pub fn write(&self, pid: PageId) -> SqlResult<PageWrite<'_>> {
        let idx = self.fix(pid, false)?;
        let g = self.frames[idx].latch.write();
        if let Err(e) = self.check_valid(idx, &g, pid) {
            drop(g);
            self.unpin(idx);
            return Err(e);
        }
        Ok(PageWrite {
            pool: self,
            idx,
            pid,
            g: Some(g),
        })
    }

    /// EX latch on a freshly allocated page: not read from disk, zero-filled.
    pub fn write_new(&self, pid: PageId) -> SqlResult<PageWrite<'_>> {
        let idx = self.fix(pid, true)?;
        let mut g = self.frames[idx].latch.write();
        g.buf.fill(0);
        g.valid = true;
        g.pid = pid;
        Ok(PageWrite {
            pool: self,
            idx,
            pid,
            g: Some(g),
        })
    }

    /// Writes frame `idx` if dirty. `blocking`: wait for the SH latch (checkpoint) or skip
    /// the frame if it is latched (eviction path, buffer/README B6). Returns true if written.
    fn flush_frame(&self, idx: usize, blocking: bool) -> SqlResult<bool> {
        let f = &self.frames[idx];
        while f.writing.compare_exchange(false, true, AcqRel, Acquire).is_err() {
            if !blocking {
                return Ok(false);
            }
            std::thread::yield_now();
        }
        f.pin.fetch_add(1, AcqRel);
        let res = (|| {
            let g = if blocking {
                f.latch.read()
            } else {
                match f.latch.try_read() {
                    Some(g) => g,
                    None => return Ok(false),
                }
            };
            if !g.valid || !f.dirty.load(Acquire) {
                return Ok(false);
            }
            let mut copy: Box<PageBuf> = Box::new(*g.buf);
            let pid = g.pid;
            f.dirty.store(false, Release);
            drop(g);
            let lsn = page::lsn(&copy);
            // WAL rule (wal/README W1): the log up to the page LSN is durable first.
            if let Err(e) = self.log.flush_to(lsn) {
                f.dirty.store(true, Release);
                return Err(e);
            }
            page::seal(&mut copy);
            let file = self.file(pid.file)?;
            if let Err(e) = file.write_pages(pid.page, &copy[..]) {
                f.dirty.store(true, Release);
                return Err(e);
            }
            Ok(true)
        })();
        f.writing.store(false, Release);
        self.unpin(idx);
        res
    }

    /// Writes every dirty page (checkpoint). Data files are fsynced afterwards.
    pub fn flush_all(&self) -> SqlResult<()> {
        for i in 0..self.frames.len() {
            if self.frames[i].dirty.load(Acquire) {
                self.flush_frame(i, true)?;
            }
        }
        for f in &self.files {
            f.sync()?;
        }
        Ok(())
    }

    /// Evicts every clean unpinned page (DBCC DROPCLEANBUFFERS).
    pub fn drop_clean(&self) {
        let mut t = self.table.lock();
        for i in 0..self.frames.len() {
            let f = &self.frames[i];
            if f.pin.load(Acquire) == 0 && !f.dirty.load(Acquire) {
                if let Some(old) = t.owner[i].take() {
                    t.map.remove(&old);
                    t.free.push(i);
                }
            }
        }
    }

    /// True if `pid` is cached.
    pub fn contains(&self, pid: PageId) -> bool {
        self.table.lock().map.contains_key(&pid)
    }

    /// Read-ahead: loads the not-yet-cached pages of `pages` (ascending, same file,
    /// contiguous or not) with as few multi-page reads as possible, at most 64 pages each.
    /// The caller holds no latch (buffer/README B5). Returns pages brought in.
    pub fn read_ahead(&self, pages: &[PageId]) -> SqlResult<usize> {
        let Some(first) = pages.first() else {
            return Ok(0);
        };
        let file = self.file(first.file)?.clone();
        // reserve frames for absent pages: pinned + EX latched ("I/O in progress")
        let mut reserved: Vec<(u32, usize, RwLockWriteGuard<'_, FrameData>)> = Vec::new();
        {
            let mut t = self.table.lock();
            let mut dirty = Vec::new();
            for &pid in pages {
                if pid.file != first.file || t.map.contains_key(&pid) {
                    continue;
                }
                let Some(i) = self.victim(&mut t, &mut dirty) else {
                    break;
                };
                let f = &self.frames[i];
                let Some(mut g) = f.latch.try_write() else {
                    t.free.push(i);
                    continue;
                };
                f.pin.store(1, Release);
                f.refbit.store(false, Release);
                f.dirty.store(false, Release);
                g.valid = false;
                g.pid = pid;
                t.map.insert(pid, i);
                t.owner[i] = Some(pid);
                reserved.push((pid.page, i, g));
            }
        }
        let mut loaded = 0;
        let mut k = 0;
        let mut buf = vec![0u8; 64 * PAGE_SIZE];
        while k < reserved.len() {
            let start = reserved[k].0;
            let mut end = k;
            while end + 1 < reserved.len() && reserved[end + 1].0 < start + 64 {
                end += 1;
            }
            let npages = (reserved[end].0 - start + 1) as usize;
            let res = file.read_pages(start, &mut buf[..npages * PAGE_SIZE]);
            for (page_no, _i, g) in reserved[k..=end].iter_mut() {
                let off = (*page_no - start) as usize * PAGE_SIZE;
                if res.is_err() {
                    continue;
                }
                g.buf.copy_from_slice(&buf[off..off + PAGE_SIZE]);
                if page::verify(&g.buf, g.pid).is_ok() {
                    g.valid = true;
                    loaded += 1;
                }
            }
            k = end + 1;
        }
        // release: invalid frames are unmapped so a demand read reports the error
        let mut bad = Vec::new();
        let mut idxs = Vec::with_capacity(reserved.len());
        for (_, i, g) in reserved {
            if !g.valid {
                bad.push((g.pid, i));
            }
            idxs.push(i);
            drop(g);
        }
        if !bad.is_empty() {
            let mut t = self.table.lock();
            for (pid, i) in &bad {
                if t.map.get(pid) == Some(i) {
                    t.map.remove(pid);
                    t.owner[*i] = None;
                }
            }
        }
        for i in idxs {
            self.unpin(i);
        }
        self.read_ahead_reads.fetch_add(loaded as u64, Relaxed);
        Ok(loaded)
    }
}
