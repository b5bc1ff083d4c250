//! Buffer pool: frames, page table, clock eviction, pin counts, SH/UP/EX page latches,
//! dirty tracking, checkpoint flushing, multi-page read-ahead (see buffer/README.md).

use std::collections::HashMap;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::*};
use std::sync::Arc;

/// Hasher for maps keyed by trusted internal ids (page table, object table): a page id is
/// 6 bytes the engine itself produced (no hash flooding), so a multiply-rotate hash
/// (FxHash style) replaces SipHash on the hottest lookups of the crate.
#[derive(Default, Clone, Copy)]
pub struct PidHasher(u64);

impl std::hash::Hasher for PidHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    #[inline]
    fn write_u16(&mut self, v: u16) {
        self.write_u64(v as u64);
    }
    #[inline]
    fn write_u32(&mut self, v: u32) {
        self.write_u64(v as u64);
    }
    #[inline]
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

/// Most pages written with one `pwrite` (buffer/README B8).
const MAX_RUN: usize = 64;

/// `BuildHasher` of the page table.
pub type PidHash = std::hash::BuildHasherDefault<PidHasher>;

use common::waits::WaitType;
use common::{PageId, SqlError, SqlResult};
use parking_lot::{Mutex, RwLock, RwLockReadGuard, RwLockUpgradableReadGuard, RwLockWriteGuard};

use crate::file::DataFile;
use crate::page::{self, PageBuf, PAGE_SIZE};
use crate::wal::Log;

/// Contents of one frame, protected by the frame's page latch.
/// A frame's page buffer, allocated on first write: a large pool costs no memory (and no page
/// faults at start-up) until its frames are used. Reading an unallocated buffer sees zeroes.
pub struct FrameBuf(Option<Box<PageBuf>>);

static ZERO_PAGE: PageBuf = [0u8; PAGE_SIZE];

impl std::ops::Deref for FrameBuf {
    type Target = PageBuf;
    fn deref(&self) -> &PageBuf {
        match &self.0 {
            Some(b) => b,
            None => &ZERO_PAGE,
        }
    }
}

impl std::ops::DerefMut for FrameBuf {
    fn deref_mut(&mut self) -> &mut PageBuf {
        self.0.get_or_insert_with(|| Box::new([0u8; PAGE_SIZE]))
    }
}

pub struct FrameData {
    pub buf: FrameBuf,
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
    /// The page is being read into the frame (its EX latch is the "page I/O latch", B3): a
    /// thread that waits for the latch now records PAGEIOLATCH_*, not PAGELATCH_* (B11).
    loading: AtomicBool,
}

/// The latch a caller asks for, naming its wait types (buffer/README B11).
#[derive(Clone, Copy)]
enum LatchMode {
    Sh,
    Up,
    Ex,
}

impl LatchMode {
    fn io_wait(self) -> WaitType {
        match self {
            LatchMode::Sh => WaitType::PAGEIOLATCH_SH,
            LatchMode::Up => WaitType::PAGEIOLATCH_UP,
            LatchMode::Ex => WaitType::PAGEIOLATCH_EX,
        }
    }
    fn latch_wait(self) -> WaitType {
        match self {
            LatchMode::Sh => WaitType::PAGELATCH_SH,
            LatchMode::Up => WaitType::PAGELATCH_UP,
            LatchMode::Ex => WaitType::PAGELATCH_EX,
        }
    }
}

/// UP -> EX: immediate when no SH holder is left, else a timed PAGELATCH_EX wait (B11).
fn upgrade_timed(g: RwLockUpgradableReadGuard<'_, FrameData>) -> RwLockWriteGuard<'_, FrameData> {
    match RwLockUpgradableReadGuard::try_upgrade(g) {
        Ok(w) => w,
        Err(g) => {
            let _wait = common::waits::begin(WaitType::PAGELATCH_EX);
            RwLockUpgradableReadGuard::upgrade(g)
        }
    }
}

/// Takes a frame latch: `try_latch` first (the uncontended path costs nothing more), else
/// waits with `latch`, timing the wait as PAGEIOLATCH_* when the holder is loading the page
/// and PAGELATCH_* otherwise (buffer/README B11).
#[inline]
fn take_latch<'l, G>(
    f: &'l Frame,
    mode: LatchMode,
    try_latch: impl FnOnce(&'l RwLock<FrameData>) -> Option<G>,
    latch: impl FnOnce(&'l RwLock<FrameData>) -> G,
) -> G {
    if let Some(g) = try_latch(&f.latch) {
        return g;
    }
    let ty = if f.loading.load(Acquire) {
        mode.io_wait()
    } else {
        mode.latch_wait()
    };
    let _wait = common::waits::begin(ty);
    latch(&f.latch)
}

/// Shards of the page map (buffer/README B12).
const MAP_SHARDS: usize = 64;

/// One shard of the page map: page id -> frame index.
type PageMap = HashMap<PageId, usize, PidHash>;

/// Frame replacement state, under the table mutex (B1, B12). The page -> frame map itself is
/// in `BufferPool::map`, sharded: a hit takes one shard's mutex and never this one.
struct Table {
    /// The page in each frame handed out so far (frames `0..owner.len()`; the others have
    /// never been used and need no entry).
    owner: Vec<Option<PageId>>,
    /// Frames given back (unmapped), reused first.
    free: Vec<usize>,
    hand: usize,
}

/// Frames per lazily allocated chunk.
const FRAME_CHUNK: usize = 1024;

/// The pool's frames, allocated a chunk at a time on first use: a pool sized to a share of
/// the machine's memory costs neither page buffers nor frame headers until pages are read
/// (frames are handed out in index order, so chunks fill one after another).
struct Frames {
    chunks: Box<[std::sync::OnceLock<Box<[Frame]>>]>,
    len: usize,
}

impl Frames {
    fn new(len: usize) -> Frames {
        Frames {
            chunks: (0..len.div_ceil(FRAME_CHUNK))
                .map(|_| std::sync::OnceLock::new())
                .collect(),
            len,
        }
    }

    fn len(&self) -> usize {
        self.len
    }

    /// Frame `i` if its chunk was ever allocated (never allocates).
    fn allocated(&self, i: usize) -> Option<&Frame> {
        self.chunks[i / FRAME_CHUNK]
            .get()
            .map(|c| &c[i % FRAME_CHUNK])
    }
}

impl std::ops::Index<usize> for Frames {
    type Output = Frame;
    fn index(&self, i: usize) -> &Frame {
        let chunk = self.chunks[i / FRAME_CHUNK].get_or_init(|| {
            let n = FRAME_CHUNK.min(self.len - (i / FRAME_CHUNK) * FRAME_CHUNK);
            (0..n).map(|_| Frame::empty()).collect()
        });
        &chunk[i % FRAME_CHUNK]
    }
}

impl Frame {
    fn empty() -> Frame {
        Frame {
            latch: RwLock::new(FrameData {
                buf: FrameBuf(None),
                pid: PageId::INVALID,
                valid: false,
            }),
            pin: AtomicU32::new(0),
            dirty: AtomicBool::new(false),
            refbit: AtomicBool::new(false),
            writing: AtomicBool::new(false),
            loading: AtomicBool::new(false),
        }
    }
}

/// The buffer pool.
pub struct BufferPool {
    frames: Frames,
    /// Page -> frame, in [`MAP_SHARDS`] shards by page id (buffer/README B12). A mapping is
    /// added or removed only by a holder of `table` (lock order: table, then a shard).
    map: Box<[Mutex<PageMap>]>,
    table: Mutex<Table>,
    /// The data files by id; files can be added and removed while open (db.rs `add_file`).
    pub files: crate::file::FileSet,
    log: Arc<Log>,
    pub logical_reads: AtomicU64,
    pub physical_reads: AtomicU64,
    pub read_ahead_reads: AtomicU64,
    /// Queue of the background read-ahead threads (buffer/README B9).
    prefetch_tx: Mutex<Option<std::sync::mpsc::SyncSender<Vec<PageId>>>>,
}

/// Keeps a scan's read-ahead one window (64 pages) ahead of its position: the first window
/// is read synchronously on a miss, later windows asynchronously by the I/O threads.
#[derive(Default)]
pub struct ReadAhead {
    issued_until: usize,
}

impl ReadAhead {
    /// `pages`: the object's pages in scan order; `k`: index of the page about to be read.
    pub fn advance(&mut self, pool: &BufferPool, pages: &[PageId], k: usize) -> SqlResult<()> {
        let Some(&pid) = pages.get(k) else {
            return Ok(());
        };
        if !pool.contains(pid) {
            // a miss: the async window (if any) has not started yet; read it now
            let run = window(pages, k);
            self.issued_until = self.issued_until.max(k + run.len());
            if run.len() > 1 {
                pool.read_ahead(&run)?;
            }
        }
        self.ahead(pool, pages, k);
        Ok(())
    }

    /// Only the asynchronous part of `advance` (safe while holding a latch: it just queues).
    pub fn ahead(&mut self, pool: &BufferPool, pages: &[PageId], k: usize) {
        if k >= self.issued_until {
            self.issued_until = k + 1;
        }
        if k + 32 >= self.issued_until && self.issued_until < pages.len() {
            let run = window(pages, self.issued_until);
            self.issued_until += run.len().max(1);
            if run.len() > 1 {
                pool.prefetch(run);
            }
        }
    }
}

/// Up to 64 pages from `pages[k..]` in the same file within 64 pages of `pages[k]`.
pub(crate) fn window(pages: &[PageId], k: usize) -> Vec<PageId> {
    let Some(&first) = pages.get(k) else {
        return Vec::new();
    };
    pages[k..]
        .iter()
        .take(64)
        .take_while(|p| p.file == first.file && p.page >= first.page && p.page < first.page + 64)
        .copied()
        .collect()
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
        let g = self.g.take().map(upgrade_timed);
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

/// A pin: keeps `pid` in its frame (not evictable) without latching it. Latch guards borrow
/// from the pin (`sh`, `up`, `ex`), so a guard can never outlive its pin. Dropping unpins.
pub struct Pin<'a> {
    pool: &'a BufferPool,
    idx: usize,
    pub pid: PageId,
}

/// SH guard borrowed from a [`Pin`].
pub struct ShGuard<'p> {
    g: RwLockReadGuard<'p, FrameData>,
}
/// UP guard borrowed from a [`Pin`].
pub struct UpGuard<'p> {
    g: RwLockUpgradableReadGuard<'p, FrameData>,
}
/// EX guard borrowed from a [`Pin`]; marks the page dirty only through the mtr path.
pub struct ExGuard<'p> {
    g: RwLockWriteGuard<'p, FrameData>,
}

impl Deref for ShGuard<'_> {
    type Target = PageBuf;
    fn deref(&self) -> &PageBuf {
        &self.g.buf
    }
}
impl Deref for UpGuard<'_> {
    type Target = PageBuf;
    fn deref(&self) -> &PageBuf {
        &self.g.buf
    }
}
impl Deref for ExGuard<'_> {
    type Target = PageBuf;
    fn deref(&self) -> &PageBuf {
        &self.g.buf
    }
}

impl<'p> UpGuard<'p> {
    /// UP -> EX (waits for SH holders to leave).
    pub fn upgrade(self) -> ExGuard<'p> {
        ExGuard {
            g: upgrade_timed(self.g),
        }
    }
}

impl<'a> Pin<'a> {
    fn frame(&self) -> &'a Frame {
        &self.pool.frames[self.idx]
    }
    /// Shared latch.
    pub fn sh(&self) -> SqlResult<ShGuard<'_>> {
        let g = take_latch(self.frame(), LatchMode::Sh, |l| l.try_read(), |l| l.read());
        self.pool.check_valid(self.idx, &g, self.pid)?;
        Ok(ShGuard { g })
    }
    /// Update latch (compatible with SH, exclusive against UP and EX).
    pub fn up(&self) -> SqlResult<UpGuard<'_>> {
        let g = take_latch(
            self.frame(),
            LatchMode::Up,
            |l| l.try_upgradable_read(),
            |l| l.upgradable_read(),
        );
        self.pool.check_valid(self.idx, &g, self.pid)?;
        Ok(UpGuard { g })
    }
    /// Exclusive latch. Read-only access here: changes go through `mtr::Mtr` (wal/README W2).
    pub fn ex(&self) -> SqlResult<ExGuard<'_>> {
        let g = take_latch(
            self.frame(),
            LatchMode::Ex,
            |l| l.try_write(),
            |l| l.write(),
        );
        self.pool.check_valid(self.idx, &g, self.pid)?;
        Ok(ExGuard { g })
    }
}

impl Drop for Pin<'_> {
    fn drop(&mut self) {
        self.pool.unpin(self.idx);
    }
}

fn io_corrupt(pid: PageId, detail: &str, f: &DataFile) -> SqlError {
    SqlError::corrupt_page_at(
        detail,
        &pid.to_string(),
        pid.page as u64 * PAGE_SIZE as u64,
        &f.path.display().to_string(),
    )
}

impl BufferPool {
    /// Size of the pool in bytes (frames x page size).
    pub fn bytes(&self) -> usize {
        self.frames.len() * PAGE_SIZE
    }

    pub fn new(bytes: usize, files: Vec<Arc<DataFile>>, log: Arc<Log>) -> BufferPool {
        let n = (bytes / PAGE_SIZE).max(64);
        BufferPool {
            frames: Frames::new(n),
            map: (0..MAP_SHARDS)
                .map(|_| {
                    Mutex::new(HashMap::with_capacity_and_hasher(
                        (n / MAP_SHARDS).min(FRAME_CHUNK),
                        PidHash::default(),
                    ))
                })
                .collect(),
            table: Mutex::new(Table {
                owner: Vec::new(),
                free: Vec::new(),
                hand: 0,
            }),
            files: crate::file::FileSet::new(files),
            log,
            logical_reads: AtomicU64::new(0),
            physical_reads: AtomicU64::new(0),
            read_ahead_reads: AtomicU64::new(0),
            prefetch_tx: Mutex::new(None),
        }
    }

    /// Starts `n` background read-ahead threads. They hold only a weak reference to the pool
    /// and exit when the pool (and with it the queue's sender) is dropped.
    pub fn start_prefetchers(self: &Arc<Self>, n: usize) {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<PageId>>(64);
        let rx = Arc::new(Mutex::new(rx));
        for _ in 0..n {
            let weak = Arc::downgrade(self);
            let rx = rx.clone();
            let spawned = std::thread::Builder::new()
                .name("latchkey-readahead".into())
                .spawn(move || loop {
                    let job = rx.lock().recv();
                    let Ok(pages) = job else { break };
                    let Some(pool) = weak.upgrade() else { break };
                    // errors surface on the demand read of the page
                    let _ = pool.read_ahead(&pages);
                });
            if spawned.is_err() {
                return; // no thread: read-ahead stays synchronous
            }
        }
        *self.prefetch_tx.lock() = Some(tx);
    }

    /// Queues an asynchronous read-ahead (dropped if the queue is full or no thread runs).
    pub fn prefetch(&self, pages: Vec<PageId>) {
        let tx = self.prefetch_tx.lock();
        match tx.as_ref() {
            Some(tx) => {
                let _ = tx.try_send(pages);
            }
            None => {
                drop(tx);
                let _ = self.read_ahead(&pages);
            }
        }
    }

    pub fn frame_count(&self) -> usize {
        self.frames.len()
    }

    pub fn file(&self, id: u16) -> SqlResult<&Arc<DataFile>> {
        self.files
            .get(id)
            .ok_or_else(|| SqlError::corrupt_page("invalid file id", &format!("({id}:?)"), "?"))
    }

    /// The page-map shard of `pid` (multiplicative hash: consecutive pages spread).
    #[inline]
    fn shard(&self, pid: PageId) -> &Mutex<PageMap> {
        let h = ((pid.file as u64) << 32 | pid.page as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        &self.map[(h >> 58) as usize % MAP_SHARDS]
    }

    /// Unmaps frame `i` (owned by `old`) if it is still unpinned and clean, checked under
    /// the page's shard mutex, which every pin through the map takes (B2, B12). The caller
    /// holds the table mutex.
    fn unmap_if_idle(&self, t: &mut Table, i: usize, old: PageId) -> bool {
        let f = &self.frames[i];
        let mut m = self.shard(old).lock();
        // pin before dirty: a writer marks dirty before it unpins
        if f.pin.load(Acquire) > 0 || f.dirty.load(Acquire) {
            return false;
        }
        m.remove(&old);
        t.owner[i] = None;
        true
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
        if t.owner.len() < n {
            // a never-used frame (its chunk is allocated when it is first touched)
            t.owner.push(None);
            return Some(t.owner.len() - 1);
        }
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
                if dirty.len() < 256 {
                    dirty.push(i);
                }
                continue;
            }
            if let Some(old) = t.owner[i] {
                if !self.unmap_if_idle(t, i, old) {
                    continue; // pinned through the map meanwhile
                }
            }
            return Some(i);
        }
        None
    }

    /// Pins `pid`, loading it if needed (the read is timed as `mode`'s PAGEIOLATCH wait).
    /// Returns the frame index (pinned).
    fn fix(&self, pid: PageId, new_page: bool, mode: LatchMode) -> SqlResult<usize> {
        if !pid.is_valid() {
            return Err(SqlError::corrupt_page(
                "invalid page id",
                &pid.to_string(),
                "?",
            ));
        }
        // a reference (no `Arc` clone per fix); also rejects a bad file id before mapping
        let file = self.file(pid.file)?;
        self.logical_reads.fetch_add(1, Relaxed);
        crate::objio::note_logical();
        let mut dirty = Vec::new();
        for attempt in 0..100_000u32 {
            // a hit: one shard's mutex (B12)
            if let Some(i) = self.pin_mapped(pid) {
                return Ok(i);
            }
            let mut t = self.table.lock();
            // mapped by another thread meanwhile (mappings change only under the table mutex)
            if let Some(i) = self.pin_mapped(pid) {
                return Ok(i);
            }
            dirty.clear();
            let Some(i) = self.victim(&mut t, &mut dirty) else {
                drop(t);
                // buffer/README B6: flush dirty victims without the table mutex, never blocking on a latch
                let flushed = self.flush_frames(&dirty, false)?;
                if flushed == 0 {
                    // every frame pinned or latched by others: wait for them (up to ~10 s)
                    if attempt < 100 {
                        std::thread::yield_now();
                    } else {
                        std::thread::sleep(std::time::Duration::from_micros(100));
                    }
                }
                continue;
            };
            let f = &self.frames[i];
            let Some(mut g) = f.latch.try_write() else {
                // cannot happen (unpinned frames hold no latch): leave it to the clock, retry
                continue;
            };
            f.pin.store(1, Release);
            f.refbit.store(true, Release);
            f.dirty.store(false, Release);
            self.shard(pid).lock().insert(pid, i);
            t.owner[i] = Some(pid);
            drop(t);
            g.pid = pid;
            if new_page {
                g.buf.fill(0);
                g.valid = true;
                return Ok(i);
            }
            f.loading.store(true, Release);
            let res = {
                let _wait = common::waits::begin(mode.io_wait());
                file.read_pages(pid.page, &mut g.buf[..])
            }
            .and_then(|_| page::verify(&g.buf, pid).map_err(|d| io_corrupt(pid, &d, file)));
            f.loading.store(false, Release);
            self.physical_reads.fetch_add(1, Relaxed);
            crate::objio::note_physical();
            match res {
                Ok(()) => {
                    g.valid = true;
                    return Ok(i);
                }
                Err(e) => {
                    g.valid = false;
                    let mut t = self.table.lock();
                    let mut m = self.shard(pid).lock();
                    if m.get(&pid) == Some(&i) {
                        m.remove(&pid);
                        t.owner[i] = None;
                    }
                    drop(m);
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

    /// Pins `pid`'s frame if the page is mapped (under its shard's mutex, B12).
    #[inline]
    fn pin_mapped(&self, pid: PageId) -> Option<usize> {
        let m = self.shard(pid).lock();
        let &i = m.get(&pid)?;
        let f = &self.frames[i];
        f.pin.fetch_add(1, AcqRel);
        f.refbit.store(true, Release);
        Some(i)
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

    /// Pins `pid` (loading it if needed) without latching it.
    pub fn pin(&self, pid: PageId) -> SqlResult<Pin<'_>> {
        let idx = self.fix(pid, false, LatchMode::Sh)?;
        Ok(Pin {
            pool: self,
            idx,
            pid,
        })
    }

    /// Fixes `pid` and latches it with `latch`, checking the frame holds the page. A frame left
    /// invalid by a concurrent load that failed (e.g. read-ahead of a damaged page) is fixed
    /// again once, so the caller gets the load's own error (824 with its detail) rather than
    /// the generic one.
    fn fix_latched<'a, G>(
        &'a self,
        pid: PageId,
        mode: LatchMode,
        try_latch: impl Fn(&'a RwLock<FrameData>) -> Option<G>,
        latch: impl Fn(&'a RwLock<FrameData>) -> G,
    ) -> SqlResult<(usize, G)>
    where
        G: std::ops::Deref<Target = FrameData>,
    {
        let mut retried = false;
        loop {
            let idx = self.fix(pid, false, mode)?;
            let g = take_latch(&self.frames[idx], mode, &try_latch, &latch);
            match self.check_valid(idx, &g, pid) {
                Ok(()) => return Ok((idx, g)),
                Err(e) => {
                    drop(g);
                    self.unpin(idx);
                    if retried {
                        return Err(e);
                    }
                    retried = true;
                }
            }
        }
    }

    /// SH latch on `pid`.
    pub fn read(&self, pid: PageId) -> SqlResult<PageRead<'_>> {
        let (idx, g) = self.fix_latched(pid, LatchMode::Sh, |l| l.try_read(), |l| l.read())?;
        Ok(PageRead {
            pool: self,
            idx,
            pid,
            g: Some(g),
        })
    }

    /// UP latch on `pid`.
    pub fn read_up(&self, pid: PageId) -> SqlResult<PageUp<'_>> {
        let (idx, g) = self.fix_latched(
            pid,
            LatchMode::Up,
            |l| l.try_upgradable_read(),
            |l| l.upgradable_read(),
        )?;
        Ok(PageUp {
            pool: self,
            idx,
            pid,
            g: Some(g),
        })
    }

    /// EX latch on `pid`.
    pub fn write(&self, pid: PageId) -> SqlResult<PageWrite<'_>> {
        let (idx, g) = self.fix_latched(pid, LatchMode::Ex, |l| l.try_write(), |l| l.write())?;
        Ok(PageWrite {
            pool: self,
            idx,
            pid,
            g: Some(g),
        })
    }

    /// EX latch on `pid` only if it is free now (None: another thread holds a latch on it or
    /// is loading it). What a thread that already holds a latch uses for one it must not wait
    /// for (btree/README L3): a failed try waits for nothing and records no wait.
    pub fn try_write(&self, pid: PageId) -> SqlResult<Option<PageWrite<'_>>> {
        let idx = self.fix(pid, false, LatchMode::Ex)?;
        let Some(g) = self.frames[idx].latch.try_write() else {
            self.unpin(idx);
            return Ok(None);
        };
        if let Err(e) = self.check_valid(idx, &g, pid) {
            drop(g);
            self.unpin(idx);
            return Err(e);
        }
        Ok(Some(PageWrite {
            pool: self,
            idx,
            pid,
            g: Some(g),
        }))
    }

    /// EX latch on a freshly allocated page: not read from disk, zero-filled.
    pub fn write_new(&self, pid: PageId) -> SqlResult<PageWrite<'_>> {
        let idx = self.fix(pid, true, LatchMode::Ex)?;
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

    /// Writes the dirty frames among `idxs`: copies them under SH latches, makes the log
    /// durable once up to the highest page LSN (WAL rule, wal/README W1), then writes the
    /// copies sorted by page id, coalescing contiguous pages into one write.
    /// `blocking`: wait for latches (checkpoint) or skip latched frames (eviction path,
    /// buffer/README B6). Returns the number of pages written.
    fn flush_frames(&self, idxs: &[usize], blocking: bool) -> SqlResult<usize> {
        // page-id order (from the table), so contiguous pages become one write
        let mut order: Vec<(PageId, usize)> = {
            let t = self.table.lock();
            idxs.iter()
                .filter(|&&i| self.frames[i].dirty.load(Acquire))
                .filter_map(|&i| t.owner[i].map(|p| (p, i)))
                .collect()
        };
        if order.is_empty() {
            return Ok(0);
        }
        order.sort_unstable();
        // one staging buffer per call: each page is copied once (under its SH latch), sealed
        // in place and written with its neighbours; no per-page allocation
        let mut buf: Vec<u8> = Vec::with_capacity(MAX_RUN.min(order.len()) * PAGE_SIZE);
        let mut taken: Vec<usize> = Vec::with_capacity(MAX_RUN);
        let mut written = 0;
        let mut k = 0;
        while k < order.len() {
            buf.clear();
            taken.clear();
            let mut first: Option<PageId> = None;
            let mut max_lsn = 0u64;
            while k < order.len() && taken.len() < MAX_RUN {
                let (pid, idx) = order[k];
                if let Some(s) = first {
                    if pid.file != s.file || pid.page != s.page + taken.len() as u32 {
                        break;
                    }
                }
                k += 1;
                let f = &self.frames[idx];
                // buffer/README B7: one write per frame in flight
                if f.writing
                    .compare_exchange(false, true, AcqRel, Acquire)
                    .is_err()
                {
                    if !blocking {
                        continue;
                    }
                    while f
                        .writing
                        .compare_exchange(false, true, AcqRel, Acquire)
                        .is_err()
                    {
                        std::thread::yield_now();
                    }
                }
                f.pin.fetch_add(1, AcqRel);
                let g = if blocking {
                    Some(f.latch.read())
                } else {
                    f.latch.try_read()
                };
                match g {
                    Some(g) if g.valid && g.pid == pid && f.dirty.load(Acquire) => {
                        let at = buf.len();
                        buf.extend_from_slice(&g.buf[..]);
                        f.dirty.store(false, Release);
                        max_lsn = max_lsn.max(page::lsn(&g.buf));
                        drop(g);
                        page::seal_bytes(&mut buf[at..]);
                        taken.push(idx);
                        first.get_or_insert(pid);
                    }
                    _ => {
                        f.writing.store(false, Release);
                        self.unpin(idx);
                    }
                }
            }
            let Some(start) = first else { continue };
            // buffer/README B8: WAL rule before the write
            let res = self
                .log
                .flush_to(max_lsn)
                .and_then(|_| self.file(start.file)?.write_pages(start.page, &buf));
            for &idx in &taken {
                let f = &self.frames[idx];
                if res.is_err() {
                    f.dirty.store(true, Release);
                }
                f.writing.store(false, Release);
                self.unpin(idx);
            }
            res?;
            written += taken.len();
        }
        Ok(written)
    }

    /// Writes every dirty page (checkpoint). Data files are fsynced afterwards.
    pub fn flush_all(&self) -> SqlResult<()> {
        let dirty: Vec<usize> = (0..self.frames.len())
            .filter(|&i| {
                self.frames
                    .allocated(i)
                    .is_some_and(|f| f.dirty.load(Acquire))
            })
            .collect();
        for chunk in dirty.chunks(4096) {
            self.flush_frames(chunk, true)?;
        }
        for f in &self.files {
            f.sync()?;
        }
        Ok(())
    }

    /// Evicts every clean unpinned page (DBCC DROPCLEANBUFFERS).
    pub fn drop_clean(&self) {
        let mut t = self.table.lock();
        for i in 0..t.owner.len() {
            if let Some(old) = t.owner[i] {
                if self.unmap_if_idle(&mut t, i, old) {
                    t.free.push(i);
                }
            }
        }
    }

    /// Evicts the pages of data file `file` (ALTER DATABASE REMOVE FILE, after a checkpoint
    /// wrote them). Returns how many stayed (pinned or dirty): 0 = none of its pages is cached.
    pub fn drop_file_pages(&self, file: u16) -> usize {
        let mut t = self.table.lock();
        let mut kept = 0;
        // frames past `owner.len()` were never handed out (lazily allocated chunks)
        for i in 0..t.owner.len() {
            if t.owner[i].is_none_or(|p| p.file != file) {
                continue;
            }
            if let Some(old) = t.owner[i] {
                if self.unmap_if_idle(&mut t, i, old) {
                    t.free.push(i);
                } else {
                    kept += 1;
                }
            }
        }
        kept
    }

    /// True if `pid` is cached.
    pub fn contains(&self, pid: PageId) -> bool {
        self.shard(pid).lock().contains_key(&pid)
    }

    /// Read-ahead: loads the not-yet-cached pages of `pages` (ascending, same file,
    /// contiguous or not) with as few multi-page reads as possible, at most 64 pages each.
    /// The caller holds no latch (buffer/README B5). Returns pages brought in.
    pub fn read_ahead(&self, pages: &[PageId]) -> SqlResult<usize> {
        // never let read-ahead take more than 1/8 of the pool (buffer/README B5)
        let pages = &pages[..pages.len().min((self.frames.len() / 8).max(1))];
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
                if pid.file != first.file || self.shard(pid).lock().contains_key(&pid) {
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
                f.loading.store(true, Release);
                self.shard(pid).lock().insert(pid, i);
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
            let res = {
                // a scan's synchronous read-ahead is a wait of its session; the background
                // read-ahead threads wait for nobody (buffer/README B11)
                let _wait = common::waits::begin_if_bound(WaitType::PAGEIOLATCH_SH);
                file.read_pages(start, &mut buf[..npages * PAGE_SIZE])
            };
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
            self.frames[i].loading.store(false, Release);
            if !g.valid {
                bad.push((g.pid, i));
            }
            idxs.push(i);
            drop(g);
        }
        if !bad.is_empty() {
            let mut t = self.table.lock();
            for (pid, i) in &bad {
                let mut m = self.shard(*pid).lock();
                if m.get(pid) == Some(i) {
                    m.remove(pid);
                    t.owner[*i] = None;
                }
            }
        }
        for i in idxs {
            self.unpin(i);
        }
        self.read_ahead_reads.fetch_add(loaded as u64, Relaxed);
        crate::objio::note_read_ahead(loaded as u64);
        Ok(loaded)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_large_pool_allocates_frames_only_as_pages_are_used() {
        let dir = tempfile::tempdir().unwrap();
        let (log, _, _) = Log::open(
            &dir.path().join("log.ldf"),
            std::time::Duration::ZERO,
            false,
        )
        .unwrap();
        let f = Arc::new(
            DataFile::open(1, &dir.path().join("d.mdf"), std::time::Duration::ZERO).unwrap(),
        );
        // 64 GiB of frames: eager headers alone would take hundreds of MB
        let pool = BufferPool::new(64 << 30, vec![f], Arc::new(log));
        let allocated =
            |p: &BufferPool| p.frames.chunks.iter().filter(|c| c.get().is_some()).count();
        assert_eq!(allocated(&pool), 0);
        for k in 0..(FRAME_CHUNK as u32 + 10) {
            let pid = PageId::new(1, 16 + k);
            let mut w = pool.write_new(pid).unwrap();
            page::init(&mut w, pid, page::PageType::Heap, 5, 0);
        }
        assert_eq!(allocated(&pool), 2, "two chunks for 1,034 pages");
        pool.flush_all().unwrap();
        pool.drop_clean();
        assert_eq!(
            allocated(&pool),
            2,
            "neither checkpoint nor eviction allocates"
        );
    }

    #[test]
    fn pins_and_latch_guards() {
        let dir = tempfile::tempdir().unwrap();
        let (log, _, _) = Log::open(
            &dir.path().join("log.ldf"),
            std::time::Duration::ZERO,
            false,
        )
        .unwrap();
        let f = Arc::new(
            DataFile::open(1, &dir.path().join("d.mdf"), std::time::Duration::ZERO).unwrap(),
        );
        let pool = BufferPool::new(64 * PAGE_SIZE, vec![f], Arc::new(log));
        let pid = PageId::new(1, 9);
        {
            let mut w = pool.write_new(pid).unwrap();
            page::init(&mut w, pid, page::PageType::Heap, 5, 0);
        }
        let pin = pool.pin(pid).unwrap();
        {
            let a = pin.sh().unwrap();
            let b = pin.sh().unwrap();
            assert_eq!(page::obj(&a), 5);
            assert_eq!(page::obj(&b), 5);
            assert!(
                pool.frames[pin.idx].latch.try_write().is_none(),
                "SH blocks EX"
            );
        }
        {
            let u = pin.up().unwrap();
            let s = pin.sh().unwrap(); // UP is compatible with SH
            assert_eq!(page::obj(&s), 5);
            drop(s);
            let x = u.upgrade();
            assert_eq!(page::page_type(&x), Some(page::PageType::Heap));
            assert!(
                pool.frames[pin.idx].latch.try_read().is_none(),
                "EX blocks SH"
            );
        }
        assert_eq!(pool.frames[pin.idx].pin.load(Acquire), 1);
        drop(pin);
        assert_eq!(
            (0..pool.frames.len())
                .filter_map(|i| pool.frames.allocated(i))
                .map(|f| f.pin.load(Acquire))
                .sum::<u32>(),
            0
        );
    }
}
