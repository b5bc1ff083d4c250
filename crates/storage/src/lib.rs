//! `storage`: latchkey's storage engine — bytes, not SQL.
//!
//! A database is a directory with data files (`data1.mdf`, `data2.mdf` ...) of 8 KB pages and
//! one write-ahead log (`log.ldf`). Layers, bottom up:
//! * [`page`] — page format (96-byte header, slot array), pure functions, checksums.
//! * `file` — positioned I/O, per-file counters, the storage latency model.
//! * `buffer` — buffer pool: page table, clock eviction, pins, SH/UP/EX latch guards,
//!   dirty tracking, checkpoint flushing, multi-page read-ahead.
//! * `wal` — log records, group commit, WAL rule; `mtr` — the one path for logged page changes.
//! * `db` — directory of objects, allocation (GAM/IAM extents; `fill` picks the file by
//!   proportional fill), LOB chains,
//!   transactions, checkpoint, ARIES-style recovery.
//! * `heap`, `btree` — access methods; [`record`] — FixedVar row format helpers.
//! * `check` — consistency checker.
//! * [`objio`] — per-object I/O counters (SET STATISTICS IO): [`Database::object_io`].
//!
//! Scans hand rows out either copied into a [`RowBatch`] (`next_batch`) or straight from the
//! latched page to a visitor (`HeapScan::visit_next`, `BTreeScan::visit_next`); `count()`
//! counts rows from slot arrays without reading records (`COUNT(*)`).
//!
//! Important types: [`Database`], [`Txn`], [`Heap`], [`BTree`], [`RowBatch`], [`IoStats`].
//! Invariants and latch rules live in README.md and the per-module READMEs.
//! What does NOT belong here: SQL types, collations, locks/isolation (a later layer), catalogs.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use common::{PageId, SqlError, SqlResult, TxnId};

pub mod btree;
pub mod buffer;
mod check;
pub mod db;
pub mod dirlock;
mod file;
pub mod fileid;
mod fileset;
mod fill;
pub mod heap;
pub mod morsel;
mod mtr;
pub mod objio;
pub mod page;
pub mod record;
mod repair;
pub mod sample;
pub mod wal;

pub use check::Finding;
use db::{Ctx, Inner, TxnState};
pub use file::FileGrowth;
pub use objio::{ObjectIo, ThreadIo, ThreadIoTotals};

/// Storage configuration.
#[derive(Clone, Debug)]
pub struct StorageConfig {
    /// Buffer pool size in bytes (default [`default_pool_bytes`]: half the machine's memory;
    /// frames are allocated as pages are read, so a large pool costs nothing up front).
    pub buffer_pool_bytes: usize,
    /// Added to every physical read and write (S2/S6 model); default 0.
    pub io_latency: std::time::Duration,
    /// Data files created for a new database (default 1).
    pub data_files: u16,
    /// Commit returns when the log is durable (default true).
    pub sync_commit: bool,
}

/// The default buffer pool size: half the machine's physical memory (SQL Server's default
/// `max server memory` lets its pool grow to nearly all of it; half leaves room for query
/// memory and other processes, and `sp_configure 'max server memory (MB)'` caps it). 256 MiB
/// when the memory size cannot be read.
pub fn default_pool_bytes() -> usize {
    const FALLBACK: usize = 256 << 20;
    let Ok(text) = std::fs::read_to_string("/proc/meminfo") else {
        return FALLBACK;
    };
    text.lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.trim().strip_suffix("kB"))
        .and_then(|kb| kb.trim().parse::<usize>().ok())
        // whole pages: the pool's size reads back exactly
        .map(|kb| ((kb / 2).saturating_mul(1024) / page::PAGE_SIZE * page::PAGE_SIZE).max(FALLBACK))
        .unwrap_or(FALLBACK)
}

impl Default for StorageConfig {
    fn default() -> Self {
        StorageConfig {
            buffer_pool_bytes: default_pool_bytes(),
            io_latency: std::time::Duration::ZERO,
            data_files: 1,
            sync_commit: true,
        }
    }
}

/// Storage object (allocation unit) id.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct ObjId(pub u64);

/// One database = data files + one log file in a directory. Thread-safe.
pub struct Database {
    inner: Arc<Inner>,
    /// Unique in the process for its whole life (`instance_id`).
    instance: u64,
}

/// The next `Database::instance_id`.
static NEXT_INSTANCE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

impl Drop for Database {
    fn drop(&mut self) {
        // clean shutdown: everything committed is on disk and the log is short (cut to its
        // header when the checkpoint emptied it, wal/README W7)
        if self.inner.checkpoint().is_ok() {
            let _ = self.inner.log.cut_if_empty();
        }
    }
}

impl Database {
    /// Opens (creating if missing) the database in `dir`, running crash recovery first.
    pub fn open(dir: &Path, config: StorageConfig) -> SqlResult<Arc<Database>> {
        Ok(Database::wrap(Inner::open(dir, config)?))
    }

    fn wrap(inner: Arc<Inner>) -> Arc<Database> {
        Arc::new(Database {
            inner,
            instance: NEXT_INSTANCE.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        })
    }

    /// A number no other open of any database in this process has had or will have: a key
    /// for per-open state kept outside the handle (an address can be reused after a drop).
    pub fn instance_id(&self) -> u64 {
        self.instance
    }
    /// Opens an existing database: a missing directory, data file or log is Msg 5120 and
    /// nothing is created (storage README "Open-time checks").
    pub fn open_existing(dir: &Path, config: StorageConfig) -> SqlResult<Arc<Database>> {
        let (inner, _) = Inner::open_mode(dir, config, db::OpenMode::Existing)?;
        Ok(Database::wrap(inner))
    }

    /// EMERGENCY mode (storage README "Emergency and repair"): the data files as they are,
    /// read-only, without the log and without recovery (uncommitted changes that reached the
    /// data files are visible; nothing is undone). Every change fails with Msg 3906 naming
    /// `name`. The data files must be there and belong together.
    pub fn open_emergency(
        dir: &Path,
        config: StorageConfig,
        name: &str,
    ) -> SqlResult<Arc<Database>> {
        let (inner, _) = Inner::open_mode(dir, config, db::OpenMode::Emergency)?;
        inner.log.set_read_only(name);
        Ok(Database::wrap(inner))
    }

    /// REPAIR_ALLOW_DATA_LOSS's log rebuild (storage README "Emergency and repair"): replays
    /// and rolls back what the readable prefix of the old log allows, moves the old log aside
    /// (`log.ldf.damaged`) and continues with a new one. Transactional consistency is lost
    /// for whatever the discarded part of the log held; the report says how much that was.
    pub fn rebuild_log(
        dir: &Path,
        config: StorageConfig,
    ) -> SqlResult<(Arc<Database>, db::RepairReport)> {
        let (inner, report) = Inner::open_mode(dir, config, db::OpenMode::RebuildLog)?;
        Ok((Database::wrap(inner), report))
    }
    /// Tests: a crash without leaving the process. Releases the directory lock and leaks the
    /// database without its clean-shutdown checkpoint (handles the caller still holds must be
    /// leaked too), so the next open runs recovery.
    #[doc(hidden)]
    pub fn simulate_crash(db: Arc<Database>) {
        db.inner.lock.release();
        std::mem::forget(db);
    }
    /// Starts a storage-level transaction.
    pub fn begin(&self) -> SqlResult<Txn> {
        let id = self
            .inner
            .next_txn
            .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        Ok(Txn {
            db: self.inner.clone(),
            st: TxnState {
                id,
                ..Default::default()
            },
            finished: false,
        })
    }
    /// Creates a heap; the id is stable across restarts.
    /// Creates a heap in the default filegroup; the id is stable across restarts.
    pub fn create_heap(&self, txn: &mut Txn) -> SqlResult<ObjId> {
        self.create_heap_on(txn, None)
    }
    /// Creates a B-tree (unique memcmp-ordered keys) in the default filegroup.
    pub fn create_btree(&self, txn: &mut Txn) -> SqlResult<ObjId> {
        self.create_btree_on(txn, None)
    }
    /// Creates a heap whose extents come only from filegroup `data_space` (`None`: the
    /// default filegroup); README "Filegroups".
    pub fn create_heap_on(&self, txn: &mut Txn, data_space: Option<u16>) -> SqlResult<ObjId> {
        self.inner
            .create_object(&mut Ctx::Txn(&mut txn.st), db::KIND_HEAP, data_space)
            .map(ObjId)
    }
    /// Creates a B-tree whose extents come only from filegroup `data_space` (`None`: the
    /// default filegroup).
    pub fn create_btree_on(&self, txn: &mut Txn, data_space: Option<u16>) -> SqlResult<ObjId> {
        self.inner
            .create_object(&mut Ctx::Txn(&mut txn.st), db::KIND_BTREE, data_space)
            .map(ObjId)
    }
    /// The filegroup (data space id) an object's extents come from (its first IAM page's).
    pub fn object_data_space(&self, id: ObjId) -> SqlResult<u16> {
        let m = self.inner.meta(id.0)?;
        Ok(self.inner.data_space_of(m.iam))
    }
    /// The filegroup of objects created without one (the engine's DEFAULT filegroup; kept
    /// in memory only, the engine sets it at every open).
    pub fn set_default_data_space(&self, data_space: u16) {
        self.inner.default_data_space.store(
            data_space.max(fileid::PRIMARY_DATA_SPACE),
            std::sync::atomic::Ordering::Relaxed,
        );
    }
    /// (file id, filegroup data space id) of every data file.
    pub fn data_file_spaces(&self) -> Vec<(u16, u16)> {
        self.inner
            .pool
            .files
            .iter()
            .map(|f| (f.id, f.data_space()))
            .collect()
    }
    /// Drops an object; its pages are freed when `txn` commits.
    pub fn drop_object(&self, txn: &mut Txn, id: ObjId) -> SqlResult<()> {
        self.inner.drop_object(&mut txn.st, id.0)
    }
    /// Empties an object (new storage; the old pages are freed when `txn` commits).
    pub fn truncate_object(&self, txn: &mut Txn, id: ObjId) -> SqlResult<()> {
        self.inner.truncate_object(&mut txn.st, id.0)
    }
    /// Handle to a live heap (error if dropped or not a heap).
    pub fn heap(&self, id: ObjId) -> SqlResult<Heap> {
        let m = self.inner.meta(id.0)?;
        if m.kind != db::KIND_HEAP {
            return Err(common::SqlError::internal(format!(
                "object {} is not a heap",
                id.0
            )));
        }
        Ok(Heap {
            io: self.inner.obj_io.get(id.0),
            db: self.inner.clone(),
            id,
        })
    }
    /// Handle to a live B-tree (error if dropped or not a B-tree).
    pub fn btree(&self, id: ObjId) -> SqlResult<BTree> {
        let m = self.inner.meta(id.0)?;
        if m.kind != db::KIND_BTREE {
            return Err(common::SqlError::internal(format!(
                "object {} is not a B-tree",
                id.0
            )));
        }
        Ok(BTree {
            io: self.inner.obj_io.get(id.0),
            db: self.inner.clone(),
            id,
            flow: None,
        })
    }
    /// How many inserters a B-tree's last-page flow control admits at a time
    /// (`BTree::with_sequential_key`; default one per core). Applies to flow controls created
    /// after the call: the existing ones are dropped.
    pub fn set_sequential_key_admission(&self, inserters: usize) {
        self.inner
            .seq_key_admission
            .store(inserters.max(1), std::sync::atomic::Ordering::Relaxed);
        self.inner.seq_key_flow.lock().clear();
    }
    /// The catalog B-tree (object 1), created with the database.
    pub fn catalog_btree(&self) -> SqlResult<BTree> {
        self.btree(ObjId(db::CATALOG_OBJ))
    }
    /// Flushes every dirty page and writes a checkpoint record (may shorten the log).
    pub fn checkpoint(&self) -> SqlResult<()> {
        self.inner.checkpoint()
    }
    /// DBCC DROPCLEANBUFFERS: evicts every clean page.
    pub fn drop_clean_buffers(&self) -> SqlResult<()> {
        self.inner.pool.drop_clean();
        Ok(())
    }
    /// Global page counters and per-file I/O counters (sys.dm_io_virtual_file_stats).
    pub fn io_stats(&self) -> IoStats {
        use std::sync::atomic::Ordering::Relaxed;
        let p = &self.inner.pool;
        IoStats {
            logical_reads: p.logical_reads.load(Relaxed),
            physical_reads: p.physical_reads.load(Relaxed),
            read_ahead_reads: p.read_ahead_reads.load(Relaxed),
            files: p.files.iter().map(|f| f.stats()).collect(),
        }
    }
    /// Counters of the log file (sys.dm_io_virtual_file_stats' log row): `num_of_writes` is the
    /// number of log flushes, `flush_waits` the commits (and WAL-rule page writes) that waited
    /// for one: with group commit under concurrency, more waits than flushes.
    pub fn log_stats(&self) -> LogStats {
        use std::sync::atomic::Ordering::Relaxed;
        let l = &self.inner.log;
        LogStats {
            path: l.path.clone(),
            num_of_writes: l.flushes.load(Relaxed),
            num_of_bytes_written: l.bytes_written.load(Relaxed),
            io_stall_write_ms: l.flush_stall_us.load(Relaxed) / 1000,
            flush_waits: l.flush_waits.load(Relaxed),
            size_bytes: std::fs::metadata(&l.path).map_or(0, |m| m.len()),
        }
    }
    /// Sets the latency added to every data-file read from now on (the S2/S6 model at run
    /// time; `StorageConfig::io_latency` is the value at open and stays on writes and the log).
    pub fn set_read_latency(&self, latency: std::time::Duration) {
        for f in &self.inner.pool.files {
            f.set_read_latency(latency);
        }
    }
    /// Size of the buffer pool in bytes (`StorageConfig::buffer_pool_bytes`, at least 64 pages).
    pub fn buffer_pool_bytes(&self) -> usize {
        self.inner.pool.bytes()
    }
    /// Number of data files (`dataN.mdf`; ids are 1..=count unless a file was removed).
    pub fn data_file_count(&self) -> u16 {
        self.inner.pool.files.len() as u16
    }
    /// Ids of the data files, ascending (`dataN.mdf` = id N).
    pub fn data_file_ids(&self) -> Vec<u16> {
        self.inner.pool.files.iter().map(|f| f.id).collect()
    }
    /// The id the next `add_data_file` gives (ids of files removed since the open are not
    /// reused); Msg 40517 when the database has as many files as it can.
    pub fn next_data_file_id(&self) -> SqlResult<u16> {
        self.inner.pool.files.next_id().ok_or_else(|| {
            SqlError::unsupported(format!(
                "more than {} data files in a database",
                file::MAX_DATA_FILES
            ))
        })
    }
    /// ALTER DATABASE ADD FILE (storage README "Changing the file set"): creates the next
    /// `dataN.mdf` of at least `size_bytes` (a symbolic link there is followed) and adds it
    /// to the database, crash-safely; returns N. New extents use it at once (A2).
    pub fn add_data_file(&self, size_bytes: u64) -> SqlResult<u16> {
        self.inner.add_file(size_bytes, fileid::PRIMARY_DATA_SPACE)
    }
    /// ADD FILE ... TO FILEGROUP: as `add_data_file`, the file in filegroup `data_space`
    /// (recorded in its own header before the primary names it).
    pub fn add_data_file_to(&self, size_bytes: u64, data_space: u16) -> SqlResult<u16> {
        self.inner.add_file(size_bytes, data_space)
    }
    /// ALTER DATABASE REMOVE FILE of data file `id`: Msg 5042 naming `logical` unless the
    /// file is empty; else it leaves the database (crash-safely) and is deleted.
    pub fn remove_data_file(&self, id: u16, logical: &str) -> SqlResult<()> {
        self.inner.remove_file(id, logical)
    }
    /// CREATE DATABASE / ALTER DATABASE ... MODIFY FILE on data file `index` (1-based):
    /// grows it to `size_bytes` now, limits it to `max_bytes` (MAXSIZE: growing past it is
    /// Msg 1105, as a full disk, README A5) and sets its FILEGROWTH. Not logged: sizes are
    /// reapplied by the engine at every open (from its catalog), and a file longer than its
    /// allocation maps is free space.
    pub fn set_file_limits(
        &self,
        index: u16,
        size_bytes: Option<u64>,
        max_bytes: Option<u64>,
        growth: file::FileGrowth,
    ) -> SqlResult<()> {
        let Some(f) = self.inner.pool.files.get(index) else {
            return Err(SqlError::internal(format!("no data file {index}")));
        };
        f.set_space_limit(max_bytes);
        f.set_growth(growth);
        if let Some(b) = size_bytes {
            f.grow_to(b).map_err(|e| {
                if file::is_out_of_space(&e) {
                    f.full("(file size)")
                } else {
                    SqlError::io("allocate", &f.path.display().to_string(), &e)
                }
            })?;
        }
        Ok(())
    }
    /// Extents of data file `index` (1-based) that its GAM page marks in use, extent 0 (file
    /// header and GAM) not counted: 0 = the file is empty (ALTER DATABASE REMOVE FILE's
    /// Msg 5042 test). Reads the GAM page under a shared latch.
    pub fn data_file_used_extents(&self, index: u16) -> SqlResult<u64> {
        if self.inner.pool.files.get(index).is_none() {
            return Err(SqlError::internal(format!("no data file {index}")));
        }
        let g = self.inner.pool.read(PageId::new(index, db::GAM_PAGE))?;
        Ok(fill::gam_used_extents(&g[..]))
    }
    /// Per-object I/O counters since the database was opened (objects touched through a
    /// `Heap`/`BTree` handle only), sorted by object id. Diff two snapshots with
    /// `ObjectIo::since` for one statement (SET STATISTICS IO).
    /// The id of this database's object counters in a thread's collected counters
    /// (`objio::thread_object_io`).
    pub fn obj_io_id(&self) -> u64 {
        self.inner.obj_io.id()
    }
    pub fn object_io(&self) -> Vec<(ObjId, ObjectIo)> {
        self.inner
            .obj_io
            .snapshot()
            .into_iter()
            .map(|(o, io)| (ObjId(o), io))
            .collect()
    }
    /// Fault injection for tests: data files cannot grow past `bytes` each (None = no
    /// limit); growing fails as on a full disk (ENOSPC). Lifting it is "space is back".
    #[doc(hidden)]
    pub fn set_data_space_limit(&self, bytes: Option<u64>) {
        for f in &self.inner.pool.files {
            f.set_space_limit(bytes);
        }
    }
    /// Consistency check; an empty list means no errors.
    pub fn check(&self) -> SqlResult<Vec<String>> {
        check::check(&self.inner)
    }
    /// Consistency check with structured findings (DBCC CHECKDB / CHECKALLOC / CHECKTABLE).
    pub fn check_report(&self) -> SqlResult<Vec<Finding>> {
        check::check_report(&self.inner)
    }
    /// Pages allocated to the object (data, index, IAM and LOB pages).
    pub fn page_count(&self, id: ObjId) -> SqlResult<u64> {
        let m = self.inner.meta(id.0)?;
        Ok(self
            .inner
            .object_extents(&m)?
            .iter()
            .map(|(_, _, mask)| mask.count_ones() as u64)
            .sum())
    }
    /// Directory holding the files.
    pub fn path(&self) -> &Path {
        &self.inner.dir
    }
}

/// Storage-level transaction. Dropped without commit = abort.
pub struct Txn {
    db: Arc<Inner>,
    st: TxnState,
    finished: bool,
}

/// Savepoint marker (opaque).
#[derive(Clone, Copy, Debug)]
pub struct Savepoint(usize);

impl Txn {
    /// Storage transaction id.
    pub fn id(&self) -> TxnId {
        TxnId(self.st.id)
    }
    /// Commits; durable on return when `sync_commit`.
    pub fn commit(mut self) -> SqlResult<()> {
        self.finished = true;
        self.db.commit_state(&mut self.st)
    }
    /// Commits without waiting for the log flush (SQL Server's delayed durability): durable
    /// once any later commit, checkpoint or flush writes the log past it. For system
    /// transactions whose loss in a crash is harmless because everything that depends on them
    /// commits later in the same log (an identity counter bumped before the row that uses it).
    pub fn commit_lazy(mut self) -> SqlResult<()> {
        self.finished = true;
        self.db.commit_state_durable(&mut self.st, false)
    }
    /// Undoes every change of this transaction.
    pub fn abort(mut self) -> SqlResult<()> {
        self.finished = true;
        self.db.abort_state(&mut self.st)
    }
    /// Marks the current point for `rollback_to`.
    pub fn savepoint(&mut self) -> Savepoint {
        Savepoint(self.st.undo.len())
    }
    /// Undoes the changes made after `sp`; the transaction stays open.
    pub fn rollback_to(&mut self, sp: Savepoint) -> SqlResult<()> {
        self.db.rollback_state(&mut self.st, sp.0)
    }
}

impl Drop for Txn {
    fn drop(&mut self) {
        if !self.finished {
            let _ = self.db.abort_state(&mut self.st);
        }
    }
}

/// Row locator.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Rid {
    pub page: PageId,
    pub slot: u16,
}

impl Rid {
    pub fn to_bytes(&self) -> [u8; 8] {
        let mut b = [0u8; 8];
        b[0..2].copy_from_slice(&self.page.file.to_le_bytes());
        b[2..6].copy_from_slice(&self.page.page.to_le_bytes());
        b[6..8].copy_from_slice(&self.slot.to_le_bytes());
        b
    }
    pub fn from_bytes(b: &[u8]) -> Option<Rid> {
        if b.len() != 8 {
            return None;
        }
        Some(Rid {
            page: PageId::new(
                u16::from_le_bytes([b[0], b[1]]),
                u32::from_le_bytes([b[2], b[3], b[4], b[5]]),
            ),
            slot: u16::from_le_bytes([b[6], b[7]]),
        })
    }
}

/// Heap handle (cheap to clone).
#[derive(Clone)]
pub struct Heap {
    db: Arc<Inner>,
    id: ObjId,
    io: Arc<objio::ObjIo>,
}

impl Heap {
    /// Inserts a record (any size: > 8,060 bytes goes to LOB pages).
    pub fn insert(&self, txn: &mut Txn, record: &[u8]) -> SqlResult<Rid> {
        let m = self.db.meta(self.id.0)?;
        self.io.attribute(0, || {
            heap::insert(&self.db, &mut Ctx::Txn(&mut txn.st), &m, record)
        })
    }
    /// The row at `rid` (None if deleted / not a row of this heap).
    pub fn get(&self, rid: Rid) -> SqlResult<Option<Vec<u8>>> {
        let m = self.db.meta(self.id.0)?;
        self.io.attribute(0, || heap::get(&self.db, &m, rid))
    }
    /// Updates in place when the row still fits its page; otherwise the row MOVES and the new
    /// rid is returned (the old rid becomes invalid; no forwarding stub).
    pub fn update(&self, txn: &mut Txn, rid: Rid, record: &[u8]) -> SqlResult<Rid> {
        let m = self.db.meta(self.id.0)?;
        self.io.attribute(0, || {
            heap::update(&self.db, &mut Ctx::Txn(&mut txn.st), &m, rid, record)
        })
    }
    /// Deletes the row; false if there was none.
    pub fn delete(&self, txn: &mut Txn, rid: Rid) -> SqlResult<bool> {
        let m = self.db.meta(self.id.0)?;
        self.io.attribute(0, || {
            heap::delete(&self.db, &mut Ctx::Txn(&mut txn.st), &m, rid)
        })
    }
    /// Scan in allocation order with read-ahead.
    pub fn scan(&self) -> SqlResult<HeapScan> {
        let m = self.db.meta(self.id.0)?;
        Ok(HeapScan {
            scan: self.io.attribute(1, || heap::Scan::new(&self.db, &m))?,
            db: self.db.clone(),
            id: self.id,
            io: self.io.clone(),
        })
    }
    /// The object id.
    pub fn id(&self) -> ObjId {
        self.id
    }
    /// The shared side of a morsel-driven parallel scan for `workers` workers (`morsel`).
    pub fn morsels(&self, workers: usize) -> SqlResult<Arc<morsel::MorselSource>> {
        morsel::MorselSource::new(self.db.clone(), self.id, self.io.clone(), true, workers)
    }
    /// The pages `pick(index, page)` accepts, from the IAM without reading a data page; only
    /// they are read by [`sample::PageSample::visit`] (statistics samples, `sample`).
    pub fn page_sample(
        &self,
        pick: &mut dyn FnMut(usize, PageId) -> bool,
    ) -> SqlResult<sample::PageSample> {
        sample::PageSample::new(self.db.clone(), self.id, self.io.clone(), true, pick)
    }
}

/// Heap scan: one page of rows per batch; no latch held between batches.
pub struct HeapScan {
    scan: heap::Scan,
    db: Arc<Inner>,
    id: ObjId,
    io: Arc<objio::ObjIo>,
}
impl HeapScan {
    /// Fills `out` with the next rows; false = end.
    pub fn next_batch(&mut self, out: &mut RowBatch) -> SqlResult<bool> {
        let m = self.db.meta(self.id.0)?;
        self.io
            .attribute(0, || self.scan.next_batch(&self.db, &m, out))
    }
    /// Calls `f(record, rid)` for the rows of the next non-empty page, straight from the
    /// page under its shared latch (no copy); false = end. `f` must not touch other pages
    /// or block (it runs under the latch); a LOB row is read after the latch is released and
    /// ends the call.
    pub fn visit_next(&mut self, f: &mut heap::Visitor<'_>) -> SqlResult<bool> {
        let m = self.db.meta(self.id.0)?;
        self.io
            .attribute(0, || self.scan.visit_next(&self.db, &m, f))
    }
    /// Counts the rows not returned yet from the pages' slot arrays (records are not read)
    /// and ends the scan.
    pub fn count(&mut self) -> SqlResult<u64> {
        self.count_cancellable(None)
    }
    /// [`Self::count`] that stops with the attention error once `cancel` is set.
    pub fn count_cancellable(&mut self, cancel: Option<&common::CancelToken>) -> SqlResult<u64> {
        let m = self.db.meta(self.id.0)?;
        self.io
            .attribute(0, || self.scan.count(&self.db, &m, cancel))
    }
}

/// Reusable batch of rows.
#[derive(Default, Debug)]
pub struct RowBatch {
    buf: Vec<u8>,
    /// (key_start, key_end/record_start, record_end, rid)
    rows: Vec<(u32, u32, u32, Rid)>,
}

impl RowBatch {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn clear(&mut self) {
        self.buf.clear();
        self.rows.clear();
    }
    pub fn len(&self) -> usize {
        self.rows.len()
    }
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
    pub fn rid(&self, i: usize) -> Rid {
        self.rows[i].3
    }
    pub fn key(&self, i: usize) -> &[u8] {
        let r = &self.rows[i];
        &self.buf[r.0 as usize..r.1 as usize]
    }
    pub fn record(&self, i: usize) -> &[u8] {
        let r = &self.rows[i];
        &self.buf[r.1 as usize..r.2 as usize]
    }
    pub(crate) fn push(&mut self, key: &[u8], rec: &[u8], rid: Option<Rid>) {
        let a = self.buf.len() as u32;
        self.buf.extend_from_slice(key);
        let b = self.buf.len() as u32;
        self.buf.extend_from_slice(rec);
        let c = self.buf.len() as u32;
        let rid = rid.unwrap_or(Rid {
            page: PageId::INVALID,
            slot: 0,
        });
        self.rows.push((a, b, c, rid));
    }
}

/// B-tree handle (cheap to clone). Keys <= 1,700 bytes, memcmp order; values any size.
#[derive(Clone)]
pub struct BTree {
    db: Arc<Inner>,
    id: ObjId,
    io: Arc<objio::ObjIo>,
    /// Last-page insert flow control (OPTIMIZE_FOR_SEQUENTIAL_KEY = ON; btree/README S4).
    flow: Option<Arc<btree::flow::SeqKeyFlow>>,
}

impl BTree {
    /// This handle with the index's `OPTIMIZE_FOR_SEQUENTIAL_KEY` setting: `true` makes its
    /// inserts past the end of the index go through the tree's flow control (btree/README S4),
    /// shared by every handle of the tree that turns it on.
    pub fn with_sequential_key(mut self, on: bool) -> BTree {
        self.flow = on.then(|| {
            let limit = self
                .db
                .seq_key_admission
                .load(std::sync::atomic::Ordering::Relaxed);
            self.db
                .seq_key_flow
                .lock()
                .entry(self.id.0)
                .or_insert_with(|| Arc::new(btree::flow::SeqKeyFlow::new(limit)))
                .clone()
        });
        self
    }
    /// Inserts; false = key already present (nothing changed).
    pub fn insert(&self, txn: &mut Txn, key: &[u8], value: &[u8]) -> SqlResult<bool> {
        let m = self.db.meta(self.id.0)?;
        let permit = self.flow.as_deref().and_then(|f| f.admit(key));
        let inserted = self.io.attribute(0, || {
            btree::put(&self.db, &mut Ctx::Txn(&mut txn.st), &m, key, value, false)
        })?;
        if let Some(p) = permit {
            if inserted {
                p.inserted(key);
            }
        }
        Ok(inserted)
    }
    /// Inserts or replaces the value of `key`.
    pub fn upsert(&self, txn: &mut Txn, key: &[u8], value: &[u8]) -> SqlResult<()> {
        let m = self.db.meta(self.id.0)?;
        self.io.attribute(0, || {
            btree::put(&self.db, &mut Ctx::Txn(&mut txn.st), &m, key, value, true).map(|_| ())
        })
    }
    /// Deletes `key`; false if absent.
    pub fn delete(&self, txn: &mut Txn, key: &[u8]) -> SqlResult<bool> {
        let m = self.db.meta(self.id.0)?;
        self.io.attribute(0, || {
            btree::delete(&self.db, &mut Ctx::Txn(&mut txn.st), &m, key)
        })
    }
    /// Point lookup.
    pub fn get(&self, key: &[u8]) -> SqlResult<Option<Vec<u8>>> {
        let m = self.db.meta(self.id.0)?;
        self.io.attribute(0, || btree::get(&self.db, &m, key))
    }
    /// Range scan in key order (or reverse); bounds on full keys or key prefixes.
    pub fn range(
        &self,
        lower: Bound<&[u8]>,
        upper: Bound<&[u8]>,
        dir: ScanDirection,
    ) -> SqlResult<BTreeScan> {
        self.db.meta(self.id.0)?;
        self.io.attribute(1, || ());
        Ok(BTreeScan {
            scan: btree::Scan::new(lower, upper, dir),
            db: self.db.clone(),
            id: self.id,
            io: self.io.clone(),
        })
    }
    /// `range` for a seek of one value of a unique key: SET STATISTICS IO counts no scan for
    /// it (SQL Server's "Scan count 0"); the pages it reads are counted as usual.
    pub fn range_unique_point(
        &self,
        lower: Bound<&[u8]>,
        upper: Bound<&[u8]>,
        dir: ScanDirection,
    ) -> SqlResult<BTreeScan> {
        self.db.meta(self.id.0)?;
        Ok(BTreeScan {
            scan: btree::Scan::new(lower, upper, dir),
            db: self.db.clone(),
            id: self.id,
            io: self.io.clone(),
        })
    }
    /// The first key at or after `lower` (None: past the last key): the "next key" of
    /// key-range locking. Counts no scan in SET STATISTICS IO (its pages are counted).
    pub fn first_key(&self, lower: Bound<&[u8]>) -> SqlResult<Option<Vec<u8>>> {
        let m = self.db.meta(self.id.0)?;
        let mut scan = btree::Scan::new(lower, Bound::Unbounded, ScanDirection::Forward);
        let mut first: Option<Vec<u8>> = None;
        loop {
            let more = self.io.attribute(0, || {
                scan.visit_next(&self.db, &m, &mut |k, _| {
                    if first.is_none() {
                        first = Some(k.to_vec());
                    }
                    Ok(())
                })
            })?;
            if first.is_some() || !more {
                return Ok(first);
            }
        }
    }
    /// The object id.
    pub fn id(&self) -> ObjId {
        self.id
    }
    /// The shared side of a morsel-driven parallel scan of every leaf entry, in allocation
    /// order (not key order), for `workers` workers (`morsel`).
    pub fn morsels(&self, workers: usize) -> SqlResult<Arc<morsel::MorselSource>> {
        morsel::MorselSource::new(self.db.clone(), self.id, self.io.clone(), false, workers)
    }
    /// The pages `pick(index, page)` accepts, from the IAM without reading a page; only they
    /// are read by [`sample::PageSample::visit`] (leaf entries in allocation order, `sample`).
    pub fn page_sample(
        &self,
        pick: &mut dyn FnMut(usize, PageId) -> bool,
    ) -> SqlResult<sample::PageSample> {
        sample::PageSample::new(self.db.clone(), self.id, self.io.clone(), false, pick)
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ScanDirection {
    Forward,
    Backward,
}

/// B-tree range scan: one leaf of rows per batch; no latch held between batches.
pub struct BTreeScan {
    scan: btree::Scan,
    db: Arc<Inner>,
    id: ObjId,
    io: Arc<objio::ObjIo>,
}
impl BTreeScan {
    /// Fills `out` with the next rows; false = end.
    pub fn next_batch(&mut self, out: &mut RowBatch) -> SqlResult<bool> {
        let m = self.db.meta(self.id.0)?;
        self.io
            .attribute(0, || self.scan.next_batch(&self.db, &m, out))
    }
    /// Calls `f(key, value)` for the entries of the next leaf, straight from the page under
    /// its shared latch (no copy); false = end. Same rules for `f` as `HeapScan::visit_next`.
    pub fn visit_next(&mut self, f: &mut btree::Visitor<'_>) -> SqlResult<bool> {
        let m = self.db.meta(self.id.0)?;
        self.io
            .attribute(0, || self.scan.visit_next(&self.db, &m, f))
    }
    /// Counts the entries left in the range (whole leaves by their slot count; values are
    /// not read) and ends the scan.
    pub fn count(&mut self) -> SqlResult<u64> {
        self.count_cancellable(None)
    }
    /// [`Self::count`] that stops with the attention error once `cancel` is set.
    pub fn count_cancellable(&mut self, cancel: Option<&common::CancelToken>) -> SqlResult<u64> {
        let m = self.db.meta(self.id.0)?;
        self.io
            .attribute(0, || self.scan.count(&self.db, &m, cancel))
    }
}

/// I/O counters since the database was opened.
#[derive(Clone, Debug, Default)]
pub struct IoStats {
    /// Page fetches through the buffer pool (hits and misses).
    pub logical_reads: u64,
    /// Pages read on demand (a miss not covered by read-ahead).
    pub physical_reads: u64,
    /// Pages brought in by read-ahead (synchronous or background).
    pub read_ahead_reads: u64,
    /// Per data file counters (sys.dm_io_virtual_file_stats).
    pub files: Vec<FileStats>,
}

/// Counters of one data file; stall times include `StorageConfig::io_latency`.
#[derive(Clone, Debug, Default)]
pub struct FileStats {
    pub file_id: u16,
    pub path: PathBuf,
    pub num_of_reads: u64,
    pub num_of_bytes_read: u64,
    pub io_stall_read_ms: u64,
    pub num_of_writes: u64,
    pub num_of_bytes_written: u64,
    pub io_stall_write_ms: u64,
    pub size_bytes: u64,
}

/// Counters of the log file (`Database::log_stats`).
#[derive(Clone, Debug, Default)]
pub struct LogStats {
    pub path: PathBuf,
    /// Log flushes (write + fdatasync).
    pub num_of_writes: u64,
    pub num_of_bytes_written: u64,
    pub io_stall_write_ms: u64,
    /// `Log::flush_to` calls that waited for a flush (WRITELOG waits).
    pub flush_waits: u64,
    pub size_bytes: u64,
}

// Threading contract (README "Concurrency"), checked at compile time.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    const fn send<T: Send>() {}
    send_sync::<Database>();
    send_sync::<Heap>();
    send_sync::<BTree>();
    send::<Txn>();
    send::<HeapScan>();
    send::<BTreeScan>();
    send::<RowBatch>();
    send_sync::<morsel::MorselSource>();
    send::<morsel::MorselScan>();
};
