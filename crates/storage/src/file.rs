//! Data files: positioned page I/O, per-file counters, the storage latency model.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU16, AtomicU64, AtomicU8, Ordering::Relaxed};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use common::{SqlError, SqlResult};

use crate::page::PAGE_SIZE;
use crate::FileStats;

/// One data file (`file_id` >= 1).
pub struct DataFile {
    pub id: u16,
    pub path: PathBuf,
    file: File,
    /// Added to every write (`StorageConfig::io_latency`, fixed at open).
    latency: Duration,
    /// Added to every read, in microseconds: starts as `StorageConfig::io_latency` and is
    /// changed at run time by `Database::set_read_latency` (the engine's `latchkey storage
    /// read latency (ms)` option). A relaxed atomic: the read path takes no lock.
    read_latency_us: AtomicU64,
    reads: AtomicU64,
    bytes_read: AtomicU64,
    stall_read_us: AtomicU64,
    writes: AtomicU64,
    bytes_written: AtomicU64,
    stall_write_us: AtomicU64,
    size: AtomicU64,
    /// Test hook (`Database::set_data_space_limit`): the file cannot grow past this many
    /// bytes; growing writes fail as on a full disk (ENOSPC). `u64::MAX` = no limit.
    space_limit: AtomicU64,
    /// FILEGROWTH of the file: bytes (`growth_pct` 0) or percent of the size; 0 and 0 = the
    /// default policy (1/8 of the size, 64 KB to 64 MB; README A5).
    growth_bytes: AtomicU64,
    growth_pct: AtomicU64,
    /// `FILE_ONLINE`, `FILE_DRAINING` (REMOVE FILE in progress: no new extents) or
    /// `FILE_REMOVED` (no longer part of the database; every access is an error).
    state: AtomicU8,
    /// The filegroup (data space id) of the file, from its header (storage README
    /// "Filegroups"); proportional fill gives an object extents only from its own filegroup.
    data_space: AtomicU16,
}

/// Most data files of one database (file ids 1..=MAX_DATA_FILES; the header's absent-file
/// bitmap has one bit per id, storage README "File identity").
pub const MAX_DATA_FILES: u16 = 255;
pub const FILE_ONLINE: u8 = 0;
pub const FILE_DRAINING: u8 = 1;
pub const FILE_REMOVED: u8 = 2;

/// The data files of an open database by file id (storage README "Changing the file set").
/// Slots are set once and never replaced, so `get` hands out a reference with two atomic
/// loads and no lock (the buffer pool's hot path); a removed file keeps its slot (state
/// `FILE_REMOVED`) until the database is closed, so its id is not reused in this process.
pub struct FileSet {
    slots: Vec<OnceLock<Arc<DataFile>>>,
}

impl FileSet {
    /// A set holding `files` (each at its id; ids must be in 1..=MAX_DATA_FILES).
    pub fn new(files: Vec<Arc<DataFile>>) -> FileSet {
        let slots: Vec<OnceLock<Arc<DataFile>>> =
            (0..MAX_DATA_FILES).map(|_| OnceLock::new()).collect();
        for f in files {
            if let Some(s) = slots.get(usize::from(f.id).wrapping_sub(1)) {
                let _ = s.set(f);
            }
        }
        FileSet { slots }
    }

    /// The file with id `id` unless it is absent or removed.
    pub fn get(&self, id: u16) -> Option<&Arc<DataFile>> {
        let f = self.slots.get(usize::from(id).wrapping_sub(1))?.get()?;
        (f.state() != FILE_REMOVED).then_some(f)
    }

    /// The files of the database (not removed), ascending id.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<DataFile>> {
        self.slots
            .iter()
            .filter_map(|s| s.get())
            .filter(|f| f.state() != FILE_REMOVED)
    }

    /// Number of files of the database.
    pub fn len(&self) -> usize {
        self.iter().count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Highest id of a file of the database (0 if none).
    pub fn max_id(&self) -> u16 {
        self.iter().map(|f| f.id).max().unwrap_or(0)
    }

    /// The id a new file gets: one above every slot ever used in this process (ids of files
    /// removed since the open are not reused until the database is reopened), if any is left.
    pub fn next_id(&self) -> Option<u16> {
        let used = self
            .slots
            .iter()
            .rposition(|s| s.get().is_some())
            .map_or(0, |i| i + 1);
        (used < self.slots.len()).then_some(used as u16 + 1)
    }

    /// Whether slot `id` was ever used in this process (a file, removed or not).
    pub fn slot_used(&self, id: u16) -> bool {
        self.slots
            .get(usize::from(id).wrapping_sub(1))
            .is_none_or(|s| s.get().is_some())
    }

    /// Puts a new file at its id; false if the slot was used before.
    pub fn insert(&self, f: Arc<DataFile>) -> bool {
        match self.slots.get(usize::from(f.id).wrapping_sub(1)) {
            Some(s) => s.set(f).is_ok(),
            None => false,
        }
    }
}

impl<'a> IntoIterator for &'a FileSet {
    type Item = &'a Arc<DataFile>;
    type IntoIter = Box<dyn Iterator<Item = &'a Arc<DataFile>> + 'a>;
    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

/// How a data file grows when an extent past its end is allocated (FILEGROWTH).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileGrowth {
    /// 1/8 of the size, 64 KB to 64 MB (README A5).
    Default,
    /// A fixed number of bytes (rounded up to whole extents).
    Bytes(u64),
    /// A percentage of the current size (at least one extent).
    Percent(u32),
}

/// ENOSPC (disk full) or EFBIG (file size limit, e.g. `RLIMIT_FSIZE`): out of space, which SQL
/// Server reports as Msg 1105 (data) or 9002 (log), not as an I/O failure (823).
pub fn is_out_of_space(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::StorageFull | std::io::ErrorKind::FileTooLarge
    )
}

/// The database a data or log file belongs to: the name of its directory.
pub fn database_name(file: &Path) -> String {
    file.parent()
        .and_then(|d| d.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn out_of_space() -> std::io::Error {
    std::io::Error::from(std::io::ErrorKind::StorageFull)
}

impl DataFile {
    pub fn open(id: u16, path: &Path, latency: Duration) -> SqlResult<DataFile> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|e| SqlError::io("open", &path.display().to_string(), &e))?;
        let size = file
            .metadata()
            .map_err(|e| SqlError::io("stat", &path.display().to_string(), &e))?
            .len();
        Ok(DataFile {
            id,
            path: path.to_path_buf(),
            file,
            latency,
            read_latency_us: AtomicU64::new(latency.as_micros().min(u64::MAX as u128) as u64),
            reads: AtomicU64::new(0),
            bytes_read: AtomicU64::new(0),
            stall_read_us: AtomicU64::new(0),
            writes: AtomicU64::new(0),
            bytes_written: AtomicU64::new(0),
            stall_write_us: AtomicU64::new(0),
            size: AtomicU64::new(size),
            space_limit: AtomicU64::new(u64::MAX),
            growth_bytes: AtomicU64::new(0),
            growth_pct: AtomicU64::new(0),
            state: AtomicU8::new(FILE_ONLINE),
            data_space: AtomicU16::new(crate::fileid::PRIMARY_DATA_SPACE),
        })
    }

    /// Creates a data file for ALTER DATABASE ADD FILE: an existing file at `path` is a
    /// leftover of an add or remove cut short (not named by the primary's header) and is
    /// emptied; a symbolic link there is followed (the engine links files placed elsewhere).
    pub fn create_empty(id: u16, path: &Path, latency: Duration) -> SqlResult<DataFile> {
        let f = DataFile::open(id, path, latency)?;
        f.file
            .set_len(0)
            .map_err(|e| SqlError::io("truncate", &path.display().to_string(), &e))?;
        f.size.store(0, Relaxed);
        Ok(f)
    }

    /// The latency added to reads now (`set_read_latency`).
    pub fn read_latency(&self) -> Duration {
        Duration::from_micros(self.read_latency_us.load(Relaxed))
    }

    /// `FILE_ONLINE`, `FILE_DRAINING` or `FILE_REMOVED`.
    /// The filegroup (data space id) the file belongs to.
    pub fn data_space(&self) -> u16 {
        self.data_space.load(Relaxed)
    }

    pub(crate) fn set_data_space(&self, id: u16) {
        self.data_space
            .store(id.max(crate::fileid::PRIMARY_DATA_SPACE), Relaxed);
    }

    pub fn state(&self) -> u8 {
        self.state.load(Relaxed)
    }

    pub fn set_state(&self, state: u8) {
        self.state.store(state, Relaxed);
    }

    fn err(&self, op: &str, e: &std::io::Error) -> SqlError {
        if is_out_of_space(e) {
            // a page write past the reserved extents (storage README A5): the page stays
            // dirty and is written again later; which object it belongs to is not known here
            return self.full("(page flush)");
        }
        SqlError::io(op, &self.path.display().to_string(), e)
    }

    /// Msg 1105 for `object` (storage has ids, not names).
    pub fn full(&self, object: &str) -> SqlError {
        let db = database_name(&self.path);
        SqlError::new(1105, &[&object, &"", &db, &"PRIMARY"])
    }

    /// Sets the test hook of `space_limit` (None = no limit).
    pub fn set_space_limit(&self, bytes: Option<u64>) {
        self.space_limit.store(bytes.unwrap_or(u64::MAX), Relaxed);
    }

    fn check_space(&self, end: u64) -> std::io::Result<()> {
        if end > self.space_limit.load(Relaxed) && end > self.size.load(Relaxed) {
            return Err(out_of_space());
        }
        Ok(())
    }

    /// Sets FILEGROWTH (MAXSIZE is `set_space_limit`).
    pub fn set_growth(&self, growth: FileGrowth) {
        let (bytes, pct) = match growth {
            FileGrowth::Default => (0, 0),
            FileGrowth::Bytes(b) => (b.max(1), 0),
            FileGrowth::Percent(p) => (0, u64::from(p.max(1))),
        };
        self.growth_bytes.store(bytes, Relaxed);
        self.growth_pct.store(pct, Relaxed);
    }

    /// Grows the file to at least `bytes` (whole pages), reserving the blocks (CREATE
    /// DATABASE ... SIZE): the pages past the allocated extents are free space.
    pub fn grow_to(&self, bytes: u64) -> std::io::Result<()> {
        let bytes = bytes.div_ceil(PAGE_SIZE as u64) * PAGE_SIZE as u64;
        let size = self.size.load(Relaxed);
        if bytes <= size {
            return Ok(());
        }
        self.check_space(bytes)?;
        allocate(&self.file, size, bytes - size)?;
        self.size.fetch_max(bytes, Relaxed);
        Ok(())
    }

    /// Reserves disk blocks for `pages` pages from `page` (storage README A5): a newly
    /// allocated extent gets its space when it is allocated, so a full disk fails the
    /// allocating statement (Msg 1105 from `alloc_page`) instead of a later page flush.
    /// The file grows by 1/8 of its size (64 KB to 64 MB, as an autogrowth) so that bulk
    /// loads make few calls; when that much is not available, by just what is needed.
    /// Not counted as a write.
    pub fn reserve(&self, page: u32, pages: u32) -> std::io::Result<()> {
        const EXTENT: u64 = 8 * PAGE_SIZE as u64;
        let need = (page as u64 + pages as u64) * PAGE_SIZE as u64;
        let size = self.size.load(Relaxed);
        if need <= size {
            return Ok(());
        }
        let growth = match (
            self.growth_bytes.load(Relaxed),
            self.growth_pct.load(Relaxed),
        ) {
            // the default step, rounded down to whole extents (as before FILEGROWTH existed)
            (0, 0) => (size / 8).clamp(EXTENT, 64 << 20) / EXTENT * EXTENT,
            // FILEGROWTH: at least what was asked, in whole extents
            (0, pct) => {
                (size / 100)
                    .saturating_mul(pct)
                    .max(EXTENT)
                    .div_ceil(EXTENT)
                    * EXTENT
            }
            (bytes, _) => bytes.max(EXTENT).div_ceil(EXTENT) * EXTENT,
        };
        let grown = need.max(size + growth);
        let res = self
            .check_space(grown)
            .and_then(|_| allocate(&self.file, size, grown - size));
        let end = match res {
            Ok(()) => grown,
            Err(e) if is_out_of_space(&e) && grown > need => {
                self.check_space(need)?;
                allocate(&self.file, size, need - size)?;
                need
            }
            Err(e) => return Err(e),
        };
        self.size.fetch_max(end, Relaxed);
        Ok(())
    }

    /// Reads `buf.len() / PAGE_SIZE` pages starting at `page`; bytes beyond the end of the file
    /// read as zeros, which `page::verify` rejects (page/README invariant 8: a page of a
    /// truncated file is Msg 824).
    pub fn read_pages(&self, page: u32, buf: &mut [u8]) -> SqlResult<()> {
        let t = Instant::now();
        let read_latency = self.read_latency_us.load(Relaxed);
        if read_latency > 0 {
            std::thread::sleep(Duration::from_micros(read_latency));
        }
        let off = page as u64 * PAGE_SIZE as u64;
        let mut done = 0usize;
        while done < buf.len() {
            match self.file.read_at(&mut buf[done..], off + done as u64) {
                Ok(0) => break,
                Ok(n) => done += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.err("read", &e)),
            }
        }
        buf[done..].fill(0);
        self.reads.fetch_add(1, Relaxed);
        self.bytes_read.fetch_add(buf.len() as u64, Relaxed);
        self.stall_read_us
            .fetch_add(t.elapsed().as_micros() as u64, Relaxed);
        Ok(())
    }

    /// Writes whole pages starting at `page`.
    pub fn write_pages(&self, page: u32, buf: &[u8]) -> SqlResult<()> {
        let t = Instant::now();
        if !self.latency.is_zero() {
            std::thread::sleep(self.latency);
        }
        let off = page as u64 * PAGE_SIZE as u64;
        self.check_space(off + buf.len() as u64)
            .and_then(|_| self.file.write_all_at(buf, off))
            .map_err(|e| self.err("write", &e))?;
        self.size.fetch_max(off + buf.len() as u64, Relaxed);
        self.writes.fetch_add(1, Relaxed);
        self.bytes_written.fetch_add(buf.len() as u64, Relaxed);
        self.stall_write_us
            .fetch_add(t.elapsed().as_micros() as u64, Relaxed);
        Ok(())
    }

    /// Sets the latency added to every read from now on (reads already sleeping keep theirs).
    pub fn set_read_latency(&self, latency: Duration) {
        let us = latency.as_micros().min(u64::MAX as u128) as u64;
        self.read_latency_us.store(us, Relaxed);
    }

    pub fn sync(&self) -> SqlResult<()> {
        self.file.sync_data().map_err(|e| self.err("fsync", &e))
    }

    pub fn size_bytes(&self) -> u64 {
        self.size.load(Relaxed)
    }

    pub fn stats(&self) -> FileStats {
        FileStats {
            file_id: self.id,
            path: self.path.clone(),
            num_of_reads: self.reads.load(Relaxed),
            num_of_bytes_read: self.bytes_read.load(Relaxed),
            io_stall_read_ms: self.stall_read_us.load(Relaxed) / 1000,
            num_of_writes: self.writes.load(Relaxed),
            num_of_bytes_written: self.bytes_written.load(Relaxed),
            io_stall_write_ms: self.stall_write_us.load(Relaxed) / 1000,
            size_bytes: self.size_bytes(),
        }
    }
}

/// Allocates disk blocks for `len` bytes at `off` (the file grows if needed).
#[cfg(target_os = "linux")]
fn allocate(file: &File, off: u64, len: u64) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let (Ok(o), Ok(l)) = (libc::off_t::try_from(off), libc::off_t::try_from(len)) else {
        return Err(std::io::Error::from(std::io::ErrorKind::FileTooLarge));
    };
    // SAFETY: a valid open descriptor for the lifetime of `file`; no memory is passed.
    match unsafe { libc::posix_fallocate(file.as_raw_fd(), o, l) } {
        0 => Ok(()),
        libc::EINTR => allocate(file, off, len),
        // a file system without fallocate support: fall back to writing zeros
        libc::EOPNOTSUPP | libc::EINVAL => write_zeros(file, off, len),
        e => Err(std::io::Error::from_raw_os_error(e)),
    }
}

#[cfg(not(target_os = "linux"))]
fn allocate(file: &File, off: u64, len: u64) -> std::io::Result<()> {
    write_zeros(file, off, len)
}

fn write_zeros(file: &File, off: u64, len: u64) -> std::io::Result<()> {
    let size = file.metadata()?.len();
    let start = off.max(size);
    if start >= off + len {
        return Ok(());
    }
    let zeros = vec![0u8; (off + len - start) as usize];
    file.write_all_at(&zeros, start)
}
