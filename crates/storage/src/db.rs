//! Database internals: files, directory of objects, allocation (GAM/IAM), LOB chains,
//! transactions, recovery.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::*};
use std::sync::Arc;

use common::{PageId, SqlError, SqlResult};
use parking_lot::{Mutex, RwLock};

use crate::buffer::{BufferPool, PidHash};
use crate::dirlock::{self, DirLock};
use crate::file::{DataFile, FILE_ONLINE, MAX_DATA_FILES};
use crate::fileid::{self, DbGuid, FileHeader, FORMAT_VERSION};
use crate::mtr::{Mtr, NOT_CLR};
use crate::page::{self, rd16, rd32, rd64, wr16, wr32, wr64, PageBuf, PageType, HEADER, PAGE_SIZE};
use crate::wal::{self, Log, PageChange, UndoOp, REC_ABORT, REC_CHECKPOINT, REC_COMMIT, REC_OP};
use crate::StorageConfig;

/// Page 1 of every file: the Global Allocation Map (1 bit per extent).
pub const GAM_PAGE: u32 = 1;
/// File 1 page 2: first directory page; page 3: the directory's IAM.
pub const DIR_PAGE: PageId = PageId::new(1, 2);
pub const DIR_IAM: PageId = PageId::new(1, 3);
/// Extents per GAM page.
pub const GAM_CAP: u32 = ((PAGE_SIZE - HEADER) * 8) as u32;
/// IAM entries per IAM page (8 bytes each).
pub const IAM_CAP: usize = (PAGE_SIZE - HEADER) / 8;
/// Pages 0 (file header) and 1 (GAM) of extent 0: never handed out by `alloc_page`.
pub const SYSTEM_PAGES: u8 = 0b11;
/// IAM header field (first IAM page): last IAM page of the chain.
const OFF_IAM_LAST: usize = 52;
/// Directory header field (first directory page): next object id.
const OFF_NEXT_OBJ: usize = 52;
/// The catalog B-tree's object id.
pub const CATALOG_OBJ: u64 = 1;
/// Directory object (owns the directory pages).
pub const DIR_OBJ: u64 = 0;

pub const KIND_HEAP: u8 = 1;
pub const KIND_BTREE: u8 = 2;
pub const STATE_LIVE: u8 = 1;
pub const STATE_DROPPED: u8 = 2;
pub const STATE_ZOMBIE: u8 = 3;

const DIR_ENTRY: usize = 28;

/// One directory entry (storage README "Directory").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ObjMeta {
    pub obj: u64,
    pub kind: u8,
    pub state: u8,
    pub iam: PageId,
    pub root: PageId,
}

impl ObjMeta {
    fn encode(&self) -> [u8; DIR_ENTRY] {
        let mut b = [0u8; DIR_ENTRY];
        b[0..8].copy_from_slice(&self.obj.to_le_bytes());
        b[8] = self.kind;
        b[9] = self.state;
        b[12..20].copy_from_slice(&self.iam.to_u64().to_le_bytes());
        b[20..28].copy_from_slice(&self.root.to_u64().to_le_bytes());
        b
    }
    fn decode(b: &[u8]) -> Option<ObjMeta> {
        if b.len() < DIR_ENTRY {
            return None;
        }
        Some(ObjMeta {
            obj: rd64(b, 0),
            kind: b[8],
            state: b[9],
            iam: PageId::from_u64(rd64(b, 12)),
            root: PageId::from_u64(rd64(b, 20)),
        })
    }
}

/// Per-transaction state (lives inside `Txn`).
#[derive(Debug, Default)]
pub struct TxnState {
    pub id: u64,
    pub last_lsn: u64,
    /// Undo records of the changes not yet rolled back. Besides undo, this list is the one record
    /// of the pages the transaction frees when it commits (`Undrop`/`Untruncate` entries, see
    /// [`deferred_frees`]): a rollback to a savepoint pops those entries and so cancels the frees.
    pub undo: Vec<(u64, UndoOp)>,
    pub counted_active: bool,
}

/// How an operation is logged.
pub enum Ctx<'t> {
    /// A normal transactional change: an undo record is written and remembered.
    Txn(&'t mut TxnState),
    /// A compensation (undo) action: the record is a CLR with this undo-next LSN.
    Clr(&'t mut TxnState, u64),
    /// Redo-only system change (post-commit frees, recovery cleanup).
    System,
}

pub struct Inner {
    pub dir: PathBuf,
    pub config: StorageConfig,
    pub pool: Arc<BufferPool>,
    pub log: Arc<Log>,
    pub objects: RwLock<HashMap<u64, ObjMeta, PidHash>>,
    pub next_txn: AtomicU64,
    pub heap_hint: Mutex<HashMap<u64, PageId, PidHash>>,
    /// B-tree object -> (root, last leaf seen as the rightmost): the append fast path
    /// (btree/README S3). Validated under the leaf's EX latch; cleared with `heap_hint`.
    pub btree_hint: Mutex<HashMap<u64, (PageId, PageId), PidHash>>,
    /// B-tree object -> its last-page insert flow control (OPTIMIZE_FOR_SEQUENTIAL_KEY,
    /// btree/README S4), created by the first handle that asks for it; cleared with
    /// `btree_hint` (a truncated tree's end starts again).
    pub seq_key_flow: Mutex<HashMap<u64, Arc<crate::btree::flow::SeqKeyFlow>, PidHash>>,
    /// Inserters a flow control admits at a time (default: one per core, as SQL Server's one
    /// per scheduler).
    pub seq_key_admission: AtomicUsize,
    /// Which file a new extent comes from (README A2).
    pub(crate) fill: crate::fill::ProportionalFill,
    pub(crate) gam_hint: Vec<AtomicU64>,
    /// The filegroup (data space id) of objects created without one (the database's DEFAULT
    /// filegroup, set by the engine; README "Filegroups").
    pub(crate) default_data_space: std::sync::atomic::AtomicU16,
    dir_lock: Mutex<()>,
    pub(crate) ckpt_lock: Mutex<()>,
    /// Serialises changes of the file set (add_file / remove_file); taken before `ckpt_lock`.
    pub(crate) file_set_lock: Mutex<()>,
    pub active: AtomicUsize,
    /// End of log at the last checkpoint (automatic checkpoints, wal/README W9).
    last_ckpt: AtomicU64,
    /// Per-object I/O counters (SET STATISTICS IO).
    pub obj_io: crate::objio::ObjIoMap,
    /// The database id stamped into every file header (fileid.rs).
    pub guid: DbGuid,
    /// One owner per directory (dirlock.rs), held while the database is open.
    pub(crate) lock: DirLock,
}

/// How `Inner::open_mode` treats a directory (storage README "Open-time checks",
/// "Emergency and repair").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpenMode {
    /// A directory without database files becomes a new database.
    CreateOrOpen,
    /// The database must exist (else Msg 5120): the engine's registered databases.
    Existing,
    /// EMERGENCY: read-only, the log neither read nor written, no recovery.
    Emergency,
    /// REPAIR_ALLOW_DATA_LOSS: recover what the readable prefix of the log allows, then
    /// continue with a new log (the old one is kept as `log.ldf.damaged`).
    RebuildLog,
}

/// What `OpenMode::RebuildLog` found and did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RepairReport {
    /// The old log: `None` when missing, else why it could not be used or "" when read.
    pub old_log: Option<String>,
    /// Bytes of the old log that were replayed.
    pub replayed_bytes: u64,
    /// Bytes of the old log after its readable prefix (lost).
    pub discarded_bytes: u64,
    /// Transactions in flight in the readable prefix, rolled back.
    pub rolled_back: usize,
}

/// Log bytes after which a committing transaction triggers a checkpoint.
pub const AUTO_CHECKPOINT_BYTES: u64 = 128 << 20;

fn bad(pid: PageId, what: &str) -> SqlError {
    page::corrupt(pid, what)
}

impl Inner {
    /// Opens or creates the database in `dir` and runs recovery.
    pub fn open(dir: &Path, config: StorageConfig) -> SqlResult<Arc<Inner>> {
        Ok(Self::open_mode(dir, config, OpenMode::CreateOrOpen)?.0)
    }

    /// Opens the database in `dir` as `mode` says. Storage README "Open-time checks": the
    /// directory lock first, then every file's identity, then the log's end against the last
    /// checkpoint; damage is refused before any file is written. The report is empty except
    /// for `OpenMode::RebuildLog`.
    pub fn open_mode(
        dir: &Path,
        config: StorageConfig,
        mode: OpenMode,
    ) -> SqlResult<(Arc<Inner>, RepairReport)> {
        let may_create = mode == OpenMode::CreateOrOpen;
        let mut report = RepairReport::default();
        let primary = dir.join("data1.mdf");
        if !may_create && !dir.is_dir() {
            return Err(dirlock::not_found(&primary));
        }
        std::fs::create_dir_all(dir)
            .map_err(|e| SqlError::io("create directory", &dir.display().to_string(), &e))?;
        let lock = DirLock::acquire(dir, &primary)?;
        let log_path = dir.join("log.ldf");
        let data_path = |i: u16| dir.join(format!("data{i}.mdf"));
        let fresh = !primary.exists() && !log_path.exists() && !data_path(2).exists();
        let mut files = Vec::new();
        let (guid, ckpt_lsn, log, base, data);
        if fresh {
            if !may_create {
                return Err(dirlock::not_found(&primary));
            }
            guid = fileid::new_guid();
            ckpt_lsn = 0;
            for i in 1..=config.data_files.max(1) {
                files.push(Arc::new(DataFile::open(
                    i,
                    &data_path(i),
                    config.io_latency,
                )?));
            }
            (log, base, data) =
                Log::open_with(&log_path, config.io_latency, config.sync_commit, Some(guid))?;
        } else {
            let needs_log = matches!(mode, OpenMode::CreateOrOpen | OpenMode::Existing);
            for p in [&primary, &log_path] {
                if !p.exists() && (needs_log || p == &primary) {
                    return Err(dirlock::not_found(p));
                }
            }
            // the files exist: DataFile::open creates nothing
            let f1 = DataFile::open(1, &primary, config.io_latency)?;
            let h1 = fileid::read_header(&f1)?;
            files.push(Arc::new(f1));
            let nfiles = if h1.nfiles > 0 {
                h1.nfiles
            } else {
                let mut n = 1;
                while data_path(n + 1).exists() {
                    n += 1;
                }
                n
            };
            for i in 2..=nfiles {
                if h1.is_absent(i) {
                    continue; // removed by ALTER DATABASE REMOVE FILE (README "file set")
                }
                let p = data_path(i);
                if !p.exists() {
                    return Err(dirlock::not_found(&p));
                }
                let f = DataFile::open(i, &p, config.io_latency)?;
                let h = fileid::read_header(&f)?;
                if h.guid != h1.guid {
                    return Err(fileid::foreign_file());
                }
                f.set_data_space(h.data_space);
                files.push(Arc::new(f));
            }
            let known = |g: &DbGuid| g.iter().any(|&b| b != 0);
            match mode {
                OpenMode::CreateOrOpen | OpenMode::Existing => {
                    (log, base, data) =
                        Log::open_with(&log_path, config.io_latency, config.sync_commit, None)?;
                    let lg = log.guid();
                    if known(&h1.guid) && lg != h1.guid {
                        return Err(fileid::foreign_file());
                    }
                    guid = if known(&h1.guid) {
                        h1.guid
                    } else if known(&lg) {
                        lg // a format-1 database whose upgrade stopped after stamping the log
                    } else {
                        fileid::new_guid()
                    };
                    ckpt_lsn = h1.ckpt_lsn;
                }
                OpenMode::Emergency => {
                    guid = h1.guid;
                    ckpt_lsn = 0;
                    (base, data) = (0, Vec::new());
                    log = crate::repair::scratch_log(&config, guid)?;
                }
                OpenMode::RebuildLog => {
                    guid = if known(&h1.guid) {
                        h1.guid
                    } else {
                        fileid::new_guid()
                    };
                    ckpt_lsn = 0;
                    (log, base, data) =
                        crate::repair::replace_log(&log_path, &config, guid, &files, &mut report)?;
                }
            }
        }
        let log = Arc::new(log);
        let pool = BufferPool::new(config.buffer_pool_bytes, files.clone(), log.clone());
        let pool = Arc::new(pool);
        pool.start_prefetchers(2);
        let inner = Arc::new(Inner {
            dir: dir.to_path_buf(),
            config,
            pool,
            log,
            objects: RwLock::new(HashMap::default()),
            next_txn: AtomicU64::new(1),
            heap_hint: Mutex::new(HashMap::default()),
            btree_hint: Mutex::new(HashMap::default()),
            seq_key_flow: Mutex::new(HashMap::default()),
            seq_key_admission: AtomicUsize::new(
                std::thread::available_parallelism().map_or(1, |n| n.get()),
            ),
            fill: crate::fill::ProportionalFill::new(usize::from(MAX_DATA_FILES)),
            gam_hint: (0..MAX_DATA_FILES).map(|_| AtomicU64::new(1)).collect(),
            default_data_space: std::sync::atomic::AtomicU16::new(fileid::PRIMARY_DATA_SPACE),
            file_set_lock: Mutex::new(()),
            dir_lock: Mutex::new(()),
            ckpt_lock: Mutex::new(()),
            active: AtomicUsize::new(0),
            last_ckpt: AtomicU64::new(0),
            obj_io: Default::default(),
            guid,
            lock,
        });
        if fresh {
            inner.format()?;
        } else if mode == OpenMode::Emergency {
            inner.log.set_read_only(&inner.dir_name());
        } else {
            report.rolled_back =
                inner.recover(base, &data, ckpt_lsn, mode == OpenMode::RebuildLog)?;
        }
        drop(data);
        inner.reload_objects()?;
        inner.count_used_extents();
        if mode == OpenMode::Emergency {
            return Ok((inner, report)); // read-only: no checkpoint, nothing written
        }
        if fresh {
            // the catalog B-tree
            let mut st = TxnState {
                id: inner.next_txn.fetch_add(1, AcqRel),
                ..Default::default()
            };
            let id = inner.create_object(
                &mut Ctx::Txn(&mut st),
                KIND_BTREE,
                Some(fileid::PRIMARY_DATA_SPACE),
            )?;
            debug_assert_eq!(id, CATALOG_OBJ, "catalog must be object 1");
            inner.commit_state(&mut st)?;
        }
        inner.checkpoint()?;
        Ok((inner, report))
    }

    /// Counts each file's extents in use from its GAM page (proportional fill, README A2).
    /// Best effort: an unreadable GAM (EMERGENCY opens, Msg 824 later) only weights the
    /// choice of file with 0, so it is not an error here.
    fn count_used_extents(&self) {
        for f in &self.pool.files {
            if let Ok(g) = self.pool.read(PageId::new(f.id, GAM_PAGE)) {
                self.fill
                    .set_used(f.id, crate::fill::gam_used_extents(&g[..]));
            }
        }
    }

    /// Formats a new database: file headers, GAMs, the directory and its IAM.
    fn format(&self) -> SqlResult<()> {
        let mut mtr = Mtr::new(&self.pool);
        for f in &self.pool.files {
            let h = mtr.latch_new(PageId::new(f.id, 0))?;
            page::init(
                mtr.page_mut(h),
                PageId::new(f.id, 0),
                PageType::FileHeader,
                0,
                0,
            );
            FileHeader {
                file_id: f.id,
                version: FORMAT_VERSION,
                nfiles: self.pool.files.len() as u16,
                guid: self.guid,
                ckpt_lsn: 0,
                absent: [0; fileid::ABSENT_BYTES],
                data_space: fileid::PRIMARY_DATA_SPACE,
            }
            .write_into(mtr.page_mut(h));
            let g = mtr.latch_new(PageId::new(f.id, GAM_PAGE))?;
            page::init(
                mtr.page_mut(g),
                PageId::new(f.id, GAM_PAGE),
                PageType::Gam,
                0,
                0,
            );
            mtr.page_mut(g)[HEADER] |= 1; // extent 0: system pages
        }
        let d = mtr.latch_new(DIR_PAGE)?;
        page::init(mtr.page_mut(d), DIR_PAGE, PageType::Directory, DIR_OBJ, 0);
        wr64(mtr.page_mut(d), OFF_NEXT_OBJ, CATALOG_OBJ);
        let i = mtr.latch_new(DIR_IAM)?;
        page::init(mtr.page_mut(i), DIR_IAM, PageType::Iam, DIR_OBJ, 0);
        let p = mtr.page_mut(i);
        // pages 0 (file header) and 1 (GAM) are in use too: the directory grows into 4..7
        iam_push(p, 1, 0, SYSTEM_PAGES | 0b1100);
        mtr.commit(&self.log, 0, 0, NOT_CLR, None)?;
        Ok(())
    }

    // ------------------------------------------------------------------ logging helpers

    /// Commits an mtr in the given context (wal/README W2).
    pub fn commit_mtr(
        &self,
        mtr: Mtr<'_>,
        ctx: &mut Ctx<'_>,
        undo: Option<UndoOp>,
    ) -> SqlResult<()> {
        match ctx {
            Ctx::Txn(st) => {
                if !st.counted_active {
                    st.counted_active = true;
                    self.active.fetch_add(1, AcqRel);
                }
                if let Some(lsn) =
                    mtr.commit(&self.log, st.id, st.last_lsn, NOT_CLR, undo.as_ref())?
                {
                    st.last_lsn = lsn;
                    if let Some(u) = undo {
                        st.undo.push((lsn, u));
                    }
                }
            }
            Ctx::Clr(st, next) => {
                if let Some(lsn) = mtr.commit(&self.log, st.id, st.last_lsn, *next, None)? {
                    st.last_lsn = lsn;
                }
            }
            Ctx::System => {
                mtr.commit(&self.log, 0, 0, NOT_CLR, None)?;
            }
        }
        Ok(())
    }

    fn append_simple(&self, kind: u8, txn: u64, prev: u64) -> SqlResult<u64> {
        self.log.append_with(|lsn, _, out| {
            let s = wal::begin_record(out, kind, txn, prev);
            wal::finish_record(out, s, lsn);
        })
    }

    // ------------------------------------------------------------------ transactions

    pub fn commit_state(&self, st: &mut TxnState) -> SqlResult<()> {
        self.commit_state_durable(st, true)
    }

    /// `wait_flush` false: the commit record is appended but not waited for (`Txn::commit_lazy`).
    pub fn commit_state_durable(&self, st: &mut TxnState, wait_flush: bool) -> SqlResult<()> {
        if st.last_lsn != 0 {
            let lsn = self.append_simple(REC_COMMIT, st.id, st.last_lsn)?;
            if wait_flush && self.config.sync_commit {
                self.log.flush_to(lsn)?;
            }
        }
        let post = deferred_frees(st);
        st.undo.clear();
        st.last_lsn = 0;
        if st.counted_active {
            st.counted_active = false;
            self.active.fetch_sub(1, AcqRel);
        }
        for obj in post {
            self.free_object(obj)?;
        }
        // wal/README W9: bound the log (and restart time) without the caller's help
        if self
            .log
            .next_lsn()
            .saturating_sub(self.last_ckpt.load(Relaxed))
            > AUTO_CHECKPOINT_BYTES
        {
            if let Some(g) = self.ckpt_lock.try_lock() {
                drop(g);
                self.checkpoint()?;
            }
        }
        Ok(())
    }

    /// Undoes the changes after savepoint `to` (index into the undo list).
    pub fn rollback_state(&self, st: &mut TxnState, to: usize) -> SqlResult<()> {
        while st.undo.len() > to {
            let Some((_, op)) = st.undo.pop() else { break };
            let next = st.undo.last().map(|u| u.0).unwrap_or(0);
            self.undo_op(&op, st, next)?;
        }
        Ok(())
    }

    pub fn abort_state(&self, st: &mut TxnState) -> SqlResult<()> {
        let res = self.rollback_state(st, 0);
        if st.last_lsn != 0 && res.is_ok() {
            self.append_simple(REC_ABORT, st.id, st.last_lsn)?;
        }
        st.last_lsn = 0;
        if st.counted_active {
            st.counted_active = false;
            self.active.fetch_sub(1, AcqRel);
        }
        res
    }

    /// Executes one logical undo action, logged as a CLR with `undo_next`.
    pub fn undo_op(&self, op: &UndoOp, st: &mut TxnState, undo_next: u64) -> SqlResult<()> {
        let before = st.last_lsn;
        let mut ctx = Ctx::Clr(st, undo_next);
        match op {
            UndoOp::BTreeRemove { obj, key } => {
                let m = self.meta_any(*obj)?;
                crate::btree::delete(self, &mut ctx, &m, key)?;
            }
            UndoOp::BTreePut { obj, key, value } => {
                let m = self.meta_any(*obj)?;
                crate::btree::put(self, &mut ctx, &m, key, value, true)?;
            }
            UndoOp::HeapRemove { obj, rid } => {
                let m = self.meta_any(*obj)?;
                crate::heap::undo_remove(self, &mut ctx, &m, rid)?;
            }
            UndoOp::HeapRestore { obj, rid, rec } => {
                let m = self.meta_any(*obj)?;
                crate::heap::undo_restore(self, &mut ctx, &m, rid, rec, false)?;
            }
            UndoOp::HeapReplace { obj, rid, rec } => {
                let m = self.meta_any(*obj)?;
                crate::heap::undo_restore(self, &mut ctx, &m, rid, rec, true)?;
            }
            UndoOp::Uncreate { obj } => self.dir_free_now(&mut ctx, *obj)?,
            UndoOp::Undrop { obj } => self.dir_set_state(&mut ctx, *obj, STATE_LIVE, None)?,
            UndoOp::Untruncate { obj, zombie } => self.dir_untruncate(&mut ctx, *obj, *zombie)?,
        }
        // wal/README W3: a CLR is written even when the action changed nothing
        if let Ctx::Clr(st, next) = ctx {
            if st.last_lsn == before {
                if let Some(l) =
                    Mtr::new(&self.pool).commit(&self.log, st.id, st.last_lsn, next, None)?
                {
                    st.last_lsn = l;
                }
            }
        }
        Ok(())
    }

    // ------------------------------------------------------------------ directory

    pub fn meta(&self, obj: u64) -> SqlResult<ObjMeta> {
        match self.objects.read().get(&obj) {
            Some(m) if m.state == STATE_LIVE => Ok(*m),
            _ => Err(SqlError::custom(
                8630,
                16,
                1,
                format!("storage object {obj} does not exist"),
            )),
        }
    }

    fn meta_any(&self, obj: u64) -> SqlResult<ObjMeta> {
        self.objects.read().get(&obj).copied().ok_or_else(|| {
            SqlError::custom(8630, 16, 1, format!("storage object {obj} does not exist"))
        })
    }

    /// Re-reads the directory pages into the in-memory object table.
    pub fn reload_objects(&self) -> SqlResult<()> {
        let mut map: HashMap<u64, ObjMeta, PidHash> = HashMap::default();
        let mut pid = DIR_PAGE;
        let mut guard = 0;
        while pid.is_valid() {
            guard += 1;
            if guard > 100_000 {
                return Err(bad(pid, "directory chain loops"));
            }
            let g = self.pool.read(pid)?;
            if page::page_type(&g) != Some(PageType::Directory) || page::obj(&g) != DIR_OBJ {
                return Err(bad(pid, "not a directory page"));
            }
            for i in 0..page::slot_count(&g) {
                let r = page::rec_checked(&g, pid, i)?;
                if r.is_empty() {
                    continue;
                }
                let m = ObjMeta::decode(r).ok_or_else(|| bad(pid, "bad directory entry"))?;
                map.insert(m.obj, m);
            }
            pid = page::next(&g);
        }
        *self.objects.write() = map;
        Ok(())
    }

    /// Finds the directory slot of `obj`: latches directory pages in chain order.
    fn dir_find(&self, mtr: &mut Mtr<'_>, obj: u64) -> SqlResult<Option<(usize, usize)>> {
        let mut pid = DIR_PAGE;
        while pid.is_valid() {
            let i = mtr.latch(pid)?;
            let p = mtr.page(i);
            for s in 0..page::slot_count(p) {
                let r = page::rec_checked(p, pid, s)?;
                if r.len() >= 8 && rd64(r, 0) == obj {
                    return Ok(Some((i, s)));
                }
            }
            pid = page::next(mtr.page(i));
        }
        Ok(None)
    }

    fn dir_add(&self, mtr: &mut Mtr<'_>, m: &ObjMeta) -> SqlResult<()> {
        let e = m.encode();
        let mut pid = DIR_PAGE;
        loop {
            let i = mtr.latch(pid)?;
            if page::heap_insert(mtr.page_mut(i), &e).is_some() {
                return Ok(());
            }
            let nx = page::next(mtr.page(i));
            if nx.is_valid() {
                pid = nx;
                continue;
            }
            let np = self.alloc_page(mtr, DIR_IAM, DIR_OBJ)?;
            let ni = mtr.latch_new(np)?;
            page::init(mtr.page_mut(ni), np, PageType::Directory, DIR_OBJ, 0);
            page::set_next(mtr.page_mut(i), np);
            page::set_prev(mtr.page_mut(ni), pid);
            pid = np;
        }
    }

    fn next_obj_id(&self, mtr: &mut Mtr<'_>) -> SqlResult<u64> {
        let d = mtr.latch(DIR_PAGE)?;
        let id = rd64(mtr.page(d), OFF_NEXT_OBJ);
        wr64(mtr.page_mut(d), OFF_NEXT_OBJ, id + 1);
        Ok(id)
    }

    /// Allocates the first extent of a new object: IAM at page 0, root/first page at page 1.
    /// The first extent comes from filegroup `data_space`; the object's later extents come from
    /// the filegroup of its first IAM page's file (README "Filegroups").
    fn new_storage(
        &self,
        mtr: &mut Mtr<'_>,
        obj: u64,
        kind: u8,
        data_space: u16,
    ) -> SqlResult<(PageId, PageId)> {
        let (file, ext) = self.alloc_extent(mtr, obj, data_space)?;
        let iam = PageId::new(file, ext * 8);
        let ii = mtr.latch_new(iam)?;
        page::init(mtr.page_mut(ii), iam, PageType::Iam, obj, 0);
        iam_push(mtr.page_mut(ii), file, ext, 0b1);
        if kind == KIND_BTREE {
            let root = PageId::new(file, ext * 8 + 1);
            iam_set_bit(mtr.page_mut(ii), 0, 1);
            let ri = mtr.latch_new(root)?;
            page::init(mtr.page_mut(ri), root, PageType::Leaf, obj, 0);
            Ok((iam, root))
        } else {
            Ok((iam, PageId::INVALID))
        }
    }

    /// Creates an object in filegroup `data_space` (`None`: the default filegroup).
    pub fn create_object(
        &self,
        ctx: &mut Ctx<'_>,
        kind: u8,
        data_space: Option<u16>,
    ) -> SqlResult<u64> {
        let data_space = data_space.unwrap_or_else(|| self.default_data_space.load(Relaxed));
        let _g = self.dir_lock.lock();
        let mut mtr = Mtr::new(&self.pool);
        let obj = self.next_obj_id(&mut mtr)?;
        // the directory entry first: a new directory page comes from PRIMARY (file 1), whose
        // GAM must be latched before the GAM of any other filegroup's file (README A2 order)
        let mut m = ObjMeta {
            obj,
            kind,
            state: STATE_LIVE,
            iam: PageId::INVALID,
            root: PageId::INVALID,
        };
        self.dir_add(&mut mtr, &m)?;
        (m.iam, m.root) = self.new_storage(&mut mtr, obj, kind, data_space)?;
        let Some((i, s)) = self.dir_find(&mut mtr, obj)? else {
            return Err(SqlError::internal("create: directory entry vanished"));
        };
        page::replace(mtr.page_mut(i), s, &m.encode());
        self.commit_mtr(mtr, ctx, Some(UndoOp::Uncreate { obj }))?;
        self.objects.write().insert(obj, m);
        Ok(obj)
    }

    pub fn drop_object(&self, st: &mut TxnState, obj: u64) -> SqlResult<()> {
        self.meta(obj)?;
        self.dir_set_state(
            &mut Ctx::Txn(st),
            obj,
            STATE_DROPPED,
            Some(UndoOp::Undrop { obj }),
        )?;
        Ok(())
    }

    fn dir_set_state(
        &self,
        ctx: &mut Ctx<'_>,
        obj: u64,
        state: u8,
        undo: Option<UndoOp>,
    ) -> SqlResult<()> {
        let _g = self.dir_lock.lock();
        let mut mtr = Mtr::new(&self.pool);
        if let Some((i, s)) = self.dir_find(&mut mtr, obj)? {
            let pid = mtr.pid(i);
            let r = page::rec_checked(mtr.page(i), pid, s)?.to_vec();
            let mut m = ObjMeta::decode(&r).ok_or_else(|| bad(pid, "bad directory entry"))?;
            m.state = state;
            page::replace(mtr.page_mut(i), s, &m.encode());
            self.commit_mtr(mtr, ctx, undo)?;
            self.objects.write().insert(obj, m);
        } else {
            drop(mtr);
            self.commit_mtr(Mtr::new(&self.pool), ctx, None)?;
        }
        Ok(())
    }

    pub fn truncate_object(&self, st: &mut TxnState, obj: u64) -> SqlResult<()> {
        let _g = self.dir_lock.lock();
        let old = self.meta(obj)?;
        let mut mtr = Mtr::new(&self.pool);
        let zombie = self.next_obj_id(&mut mtr)?;
        let z = ObjMeta {
            obj: zombie,
            state: STATE_ZOMBIE,
            ..old
        };
        // the zombie's entry before the new storage: directory pages come from PRIMARY
        // (file 1), latched before another filegroup's GAM (README A2 order)
        self.dir_add(&mut mtr, &z)?;
        let space = self.data_space_of(old.iam);
        let (iam, root) = self.new_storage(&mut mtr, obj, old.kind, space)?;
        let Some((i, s)) = self.dir_find(&mut mtr, obj)? else {
            return Err(SqlError::internal("truncate: object vanished"));
        };
        let newm = ObjMeta { iam, root, ..old };
        page::replace(mtr.page_mut(i), s, &newm.encode());
        self.commit_mtr(
            mtr,
            &mut Ctx::Txn(st),
            Some(UndoOp::Untruncate { obj, zombie }),
        )?;
        {
            let mut o = self.objects.write();
            o.insert(obj, newm);
            o.insert(zombie, z);
        }
        self.heap_hint.lock().remove(&obj);
        self.btree_hint.lock().remove(&obj);
        self.seq_key_flow.lock().remove(&obj);
        Ok(())
    }

    fn dir_untruncate(&self, ctx: &mut Ctx<'_>, obj: u64, zombie: u64) -> SqlResult<()> {
        let _g = self.dir_lock.lock();
        let cur = self.meta_any(obj)?;
        let z = self.meta_any(zombie)?;
        let mut mtr = Mtr::new(&self.pool);
        let Some((i, s)) = self.dir_find(&mut mtr, obj)? else {
            return Err(SqlError::internal("untruncate: object vanished"));
        };
        let restored = ObjMeta {
            iam: z.iam,
            root: z.root,
            ..cur
        };
        page::replace(mtr.page_mut(i), s, &restored.encode());
        if let Some((zi, zs)) = self.dir_find(&mut mtr, zombie)? {
            page::heap_delete(mtr.page_mut(zi), zs);
        }
        self.free_storage(&mut mtr, &cur)?;
        self.commit_mtr(mtr, ctx, None)?;
        let mut o = self.objects.write();
        o.insert(obj, restored);
        o.remove(&zombie);
        self.heap_hint.lock().remove(&obj);
        self.btree_hint.lock().remove(&obj);
        self.seq_key_flow.lock().remove(&obj);
        Ok(())
    }

    /// Frees an object's pages and removes its directory entry (undo of create; post-commit drop).
    fn dir_free_now(&self, ctx: &mut Ctx<'_>, obj: u64) -> SqlResult<()> {
        let _g = self.dir_lock.lock();
        let Ok(m) = self.meta_any(obj) else {
            return self.commit_mtr(Mtr::new(&self.pool), ctx, None);
        };
        let mut mtr = Mtr::new(&self.pool);
        if let Some((i, s)) = self.dir_find(&mut mtr, obj)? {
            page::heap_delete(mtr.page_mut(i), s);
        }
        self.free_storage(&mut mtr, &m)?;
        self.commit_mtr(mtr, ctx, None)?;
        self.objects.write().remove(&obj);
        self.heap_hint.lock().remove(&obj);
        self.btree_hint.lock().remove(&obj);
        self.seq_key_flow.lock().remove(&obj);
        Ok(())
    }

    /// Frees the storage a committed drop or truncate left behind (state dropped or zombie).
    /// A live object is never freed here: its drop was rolled back (storage README A5).
    pub fn free_object(&self, obj: u64) -> SqlResult<()> {
        match self.objects.read().get(&obj) {
            Some(m) if m.state != STATE_LIVE => {}
            _ => return Ok(()),
        }
        self.dir_free_now(&mut Ctx::System, obj)
    }

    // ------------------------------------------------------------------ allocation

    /// Allocates one extent for object `obj` (proportional fill: the first file tried is
    /// `fill.pick`'s, weighted by free space, README A2) and reserves its disk space before
    /// setting its GAM bit (storage README A5): a file that cannot grow is skipped; if every
    /// file is full, Msg 1105.
    ///
    /// # Locking
    /// Latches one GAM page EX. An mtr already holding a GAM latch keeps using that file
    /// first; otherwise only files with a higher id are tried (storage README A2).
    fn alloc_extent(&self, mtr: &mut Mtr<'_>, obj: u64, data_space: u16) -> SqlResult<(u16, u32)> {
        // ids 1..=n; absent files, files being removed and files of other filegroups are
        // skipped (README "file set", "Filegroups")
        let n = usize::from(self.pool.files.max_id());
        let open = |f: u16| {
            self.pool
                .files
                .get(f)
                .is_some_and(|x| x.state() == FILE_ONLINE && x.data_space() == data_space)
        };
        let held: Vec<u16> = (1..=n as u16)
            .filter(|f| mtr.find(PageId::new(*f, GAM_PAGE)).is_some())
            .collect();
        let order: Vec<u16> = if let Some(&max) = held.iter().max() {
            let mut v = held.clone();
            v.extend((max + 1)..=n as u16);
            v
        } else {
            let sizes: Vec<Option<u64>> = (1..=n as u16)
                .map(|f| open(f).then(|| self.pool.files.get(f).map_or(0, |x| x.size_bytes())))
                .collect();
            let start = usize::from(self.fill.pick(&sizes).max(1)) - 1;
            (0..n).map(|k| ((start + k) % n) as u16 + 1).collect()
        };
        let mut order = order;
        if held.is_empty() {
            // latch order: ascending file ids only after the first pick
            let first = order[0];
            order = std::iter::once(first)
                .chain((first + 1)..=n as u16)
                .collect();
        }
        let mut full = None;
        for f in order {
            if !open(f) {
                continue;
            }
            let gi = mtr.latch(PageId::new(f, GAM_PAGE))?;
            if !open(f) {
                // REMOVE FILE marks the file draining before it latches this GAM to check
                // that the file is empty: seen here under the latch, so no extent slips in
                continue;
            }
            let hint = self.gam_hint[(f - 1) as usize].load(Relaxed) as u32;
            let p = mtr.page_mut(gi);
            let mut found = None;
            for k in 0..GAM_CAP {
                let e = (hint + k) % GAM_CAP;
                if e == 0 {
                    continue;
                }
                let byte = HEADER + (e / 8) as usize;
                if p[byte] & (1 << (e % 8)) == 0 {
                    found = Some(e);
                    break;
                }
            }
            if let Some(e) = found {
                let file = self.pool.file(f)?;
                match file.reserve(e * 8, 8) {
                    Ok(()) => {}
                    Err(err) if crate::file::is_out_of_space(&err) => {
                        full = Some(file.full(&format!("storage object {obj}")));
                        continue;
                    }
                    Err(err) => {
                        return Err(SqlError::io(
                            "write",
                            &file.path.display().to_string(),
                            &err,
                        ))
                    }
                }
                mtr.page_mut(gi)[HEADER + (e / 8) as usize] |= 1 << (e % 8);
                self.fill
                    .set_used(f, crate::fill::gam_used_extents(mtr.page(gi)));
                self.gam_hint[(f - 1) as usize].store(e as u64 + 1, Relaxed);
                return Ok((f, e));
            }
        }
        Err(full.unwrap_or_else(|| {
            if (1..=n as u16).any(|f| {
                self.pool
                    .files
                    .get(f)
                    .is_some_and(|x| x.data_space() == data_space)
            }) {
                SqlError::new(1101, &[&"latchkey", &"PRIMARY"])
            } else {
                // the engine checks before creating (Msg 622 naming the filegroup)
                SqlError::new(622, &[&format!("data space {data_space}")])
            }
        }))
    }

    /// The filegroup (data space id) of the file holding `pid`: an object's filegroup is the
    /// one of its first IAM page (README "Filegroups").
    pub(crate) fn data_space_of(&self, pid: PageId) -> u16 {
        self.pool
            .files
            .get(pid.file)
            .map_or(fileid::PRIMARY_DATA_SPACE, |f| f.data_space())
    }

    /// Allocates a page for object `obj` whose IAM chain starts at `iam_first`.
    ///
    /// # Locking
    /// Latches the first IAM page EX (serialises allocation per object), then the last IAM
    /// page, then a GAM page (storage README A1). The caller latches the new page with
    /// `latch_new`.
    pub fn alloc_page(&self, mtr: &mut Mtr<'_>, iam_first: PageId, obj: u64) -> SqlResult<PageId> {
        let fi = mtr.latch(iam_first)?;
        if page::page_type(mtr.page(fi)) != Some(PageType::Iam) {
            return Err(bad(iam_first, "expected an IAM page"));
        }
        let mut last = PageId::from_u64(rd64(mtr.page(fi), OFF_IAM_LAST));
        if !last.is_valid() {
            last = iam_first;
        }
        let li = mtr.latch(last)?;
        let n = page::slot_count(mtr.page(li)).min(IAM_CAP);
        for e in (0..n).rev() {
            let at = HEADER + e * 8;
            let p = mtr.page_mut(li);
            let mut mask = p[at + 6];
            if rd32(p, at + 2) == 0 && mask & SYSTEM_PAGES != SYSTEM_PAGES {
                // Extent 0 starts with the file header and the GAM. Databases formatted before
                // the fix left them unmarked in the directory's IAM, so the 2nd and 3rd
                // directory pages overwrote them (Msg 824 on reopen): mark them in use.
                mask |= SYSTEM_PAGES;
                p[at + 6] = mask;
            }
            if mask != 0xFF {
                let bit = (!mask).trailing_zeros();
                p[at + 6] |= 1 << bit;
                let file = rd16(p, at);
                let ext = rd32(p, at + 2);
                return Ok(PageId::new(file, ext * 8 + bit));
            }
            if n - e > 4 {
                break; // older entries: holes are not reused (storage README A3)
            }
        }
        let (file, ext) = self.alloc_extent(mtr, obj, self.data_space_of(iam_first))?;
        if n >= IAM_CAP {
            let np = PageId::new(file, ext * 8);
            let ni = mtr.latch_new(np)?;
            page::init(mtr.page_mut(ni), np, PageType::Iam, obj, 0);
            iam_push(mtr.page_mut(ni), file, ext, 0b11);
            page::set_next(mtr.page_mut(li), np);
            page::set_prev(mtr.page_mut(ni), last);
            wr64(mtr.page_mut(fi), OFF_IAM_LAST, np.to_u64());
            Ok(PageId::new(file, ext * 8 + 1))
        } else {
            iam_push(mtr.page_mut(li), file, ext, 0b1);
            Ok(PageId::new(file, ext * 8))
        }
    }

    /// Frees one page of an object (LOB pages). The extent stays with the object.
    pub fn free_page(&self, mtr: &mut Mtr<'_>, iam_first: PageId, pid: PageId) -> SqlResult<()> {
        let mut ip = iam_first;
        while ip.is_valid() {
            let i = mtr.latch(ip)?;
            let n = page::slot_count(mtr.page(i)).min(IAM_CAP);
            for e in 0..n {
                let at = HEADER + e * 8;
                let p = mtr.page(i);
                if rd16(p, at) == pid.file && rd32(p, at + 2) == pid.page / 8 {
                    mtr.page_mut(i)[at + 6] &= !(1u8 << (pid.page % 8));
                    return Ok(());
                }
            }
            ip = page::next(mtr.page(i));
        }
        Err(bad(pid, "freed page not owned by the object"))
    }

    /// All extents of an IAM chain, in chain order: (file, extent, mask).
    pub fn iam_extents(&self, iam_first: PageId) -> SqlResult<Vec<(u16, u32, u8)>> {
        let mut out = Vec::new();
        let mut ip = iam_first;
        let mut guard = 0;
        let mut owner = None;
        while ip.is_valid() {
            guard += 1;
            if guard > 1_000_000 {
                return Err(bad(ip, "IAM chain loops"));
            }
            let g = self.pool.read(ip)?;
            if page::page_type(&g) != Some(PageType::Iam) {
                return Err(bad(ip, "expected an IAM page"));
            }
            // every IAM page of a chain has its first page's owner (page/README invariant 9)
            if *owner.get_or_insert(page::obj(&g)) != page::obj(&g) {
                return Err(bad(ip, "IAM page belongs to another object"));
            }
            let n = page::slot_count(&g).min(IAM_CAP);
            for e in 0..n {
                let at = HEADER + e * 8;
                out.push((rd16(&g[..], at), rd32(&g[..], at + 2), g[at + 6]));
            }
            ip = page::next(&g);
        }
        Ok(out)
    }

    /// `iam_extents` of object `m`, whose first IAM page must carry its id (page/README
    /// invariant 9) so that a misplaced IAM page never hands out, scans or frees another
    /// object's extents. A zombie's pages carry the id of the object it was truncated from.
    pub fn object_extents(&self, m: &ObjMeta) -> SqlResult<Vec<(u16, u32, u8)>> {
        if m.state != STATE_ZOMBIE {
            let g = self.pool.read(m.iam)?;
            if page::page_type(&g) != Some(PageType::Iam) || page::obj(&g) != m.obj {
                return Err(bad(m.iam, "IAM page belongs to another object"));
            }
        }
        self.iam_extents(m.iam)
    }

    /// Frees every extent of object `m` (GAM bits cleared, files in ascending order).
    fn free_storage(&self, mtr: &mut Mtr<'_>, m: &ObjMeta) -> SqlResult<()> {
        let mut ext = self.object_extents(m)?;
        ext.sort();
        for (f, e, _) in ext {
            let gi = mtr.latch(PageId::new(f, GAM_PAGE))?;
            if e < GAM_CAP {
                mtr.page_mut(gi)[HEADER + (e / 8) as usize] &= !(1u8 << (e % 8));
                self.fill.extent_freed(f);
            }
            let h = &self.gam_hint[(f as usize).saturating_sub(1).min(self.gam_hint.len() - 1)];
            h.fetch_min(e as u64, Relaxed);
        }
        Ok(())
    }

    // ------------------------------------------------------------------ LOB chains

    /// Writes `data` into a chain of new LOB pages; returns the first page.
    ///
    /// The pages are allocated in `mtr` (IAM/GAM changes, logged and undone with the row that
    /// references the chain), but each page's content is written and logged in a mini-
    /// transaction of its own and released at once, so a value of any size pins at most one
    /// LOB page (plus the few IAM/GAM pages `mtr` holds) and streams through the buffer pool
    /// (storage README A7). Until `mtr` commits the pages are not allocated: a crash or an
    /// error before that leaves written but free pages, which nothing reads.
    pub fn lob_write(&self, mtr: &mut Mtr<'_>, m: &ObjMeta, data: &[u8]) -> SqlResult<PageId> {
        const CAP: usize = PAGE_SIZE - HEADER;
        let npages = data.len().div_ceil(CAP).max(1);
        let mut pids = Vec::with_capacity(npages);
        for _ in 0..npages {
            pids.push(self.alloc_page(mtr, m.iam, m.obj)?);
        }
        for (k, pid) in pids.iter().enumerate() {
            let c = data
                .get(k * CAP..((k + 1) * CAP).min(data.len()))
                .unwrap_or(&[]);
            let mut page_mtr = Mtr::new(&self.pool);
            let i = page_mtr.latch_new(*pid)?;
            let p = page_mtr.page_mut(i);
            page::init(p, *pid, PageType::Lob, m.obj, 0);
            p[HEADER..HEADER + c.len()].copy_from_slice(c);
            wr16(p, page::OFF_FREE_START, (HEADER + c.len()) as u16);
            wr16(p, page::OFF_FREE_BYTES, (CAP - c.len()) as u16);
            if let Some(nx) = pids.get(k + 1) {
                page::set_next(p, *nx);
            }
            page_mtr.commit(&self.log, 0, 0, NOT_CLR, None)?;
        }
        Ok(pids[0])
    }

    /// Reads a LOB chain (pages checked: type, owner, length).
    pub fn lob_read(&self, obj: u64, first: PageId, len: u64, out: &mut Vec<u8>) -> SqlResult<()> {
        crate::objio::lob_scope(|| self.lob_read_inner(obj, first, len, out))
    }

    fn lob_read_inner(
        &self,
        obj: u64,
        first: PageId,
        len: u64,
        out: &mut Vec<u8>,
    ) -> SqlResult<()> {
        let mut pid = first;
        let mut left = len as usize;
        while left > 0 {
            if !pid.is_valid() {
                return Err(bad(first, "LOB chain shorter than its length"));
            }
            let g = self.pool.read(pid)?;
            if page::page_type(&g) != Some(PageType::Lob) || page::obj(&g) != obj {
                return Err(bad(pid, "expected a LOB page of this object"));
            }
            let n = page::free_start(&g).saturating_sub(HEADER).min(left);
            if HEADER + n > PAGE_SIZE {
                return Err(bad(pid, "LOB page length"));
            }
            out.extend_from_slice(&g[HEADER..HEADER + n]);
            left -= n;
            pid = page::next(&g);
            if n == 0 && left > 0 {
                return Err(bad(pid, "empty LOB page"));
            }
        }
        Ok(())
    }

    /// Pages of a LOB chain of object `obj` (read before latching IAM pages: storage README
    /// A1); each must be a LOB page of `obj` (page/README invariant 9).
    pub fn lob_pages(&self, obj: u64, first: PageId, len: u64) -> SqlResult<Vec<PageId>> {
        let mut v = Vec::new();
        let mut pid = first;
        let npages = (len as usize).div_ceil(PAGE_SIZE - HEADER).max(1);
        for _ in 0..npages {
            if !pid.is_valid() {
                break;
            }
            v.push(pid);
            let g = self.pool.read(pid)?;
            if page::page_type(&g) != Some(PageType::Lob) || page::obj(&g) != obj {
                return Err(bad(pid, "expected a LOB page of this object"));
            }
            pid = page::next(&g);
        }
        Ok(v)
    }

    // ------------------------------------------------------------------ checkpoint & recovery

    pub fn checkpoint(&self) -> SqlResult<()> {
        if self.log.is_read_only() {
            return Ok(()); // EMERGENCY: nothing is written
        }
        let _g = self.ckpt_lock.lock();
        let redo = self.log.begin_checkpoint();
        self.last_ckpt.store(redo, Relaxed);
        self.pool.flush_all()?;
        let next_txn = self.next_txn.load(Acquire);
        let lsn = self.log.append_with(|lsn, _, out| {
            let s = wal::begin_record(out, REC_CHECKPOINT, 0, 0);
            out.extend_from_slice(&redo.to_le_bytes());
            out.extend_from_slice(&next_txn.to_le_bytes());
            wal::finish_record(out, s, lsn);
        })?;
        self.log.flush_to(lsn)?;
        // storage README "File identity": the primary file names the log's durable end, which
        // the log must reach at the next open; written before the log may be truncated to it
        let durable = self.log.flushed_lsn();
        self.stamp_headers(durable)?;
        // wal/README W7: with no active transaction and nothing logged since, restart the log
        let expected = self.log.next_lsn();
        if durable == expected {
            self.pool.flush_all()?;
            self.log
                .try_truncate(expected, || self.active.load(Acquire) == 0)?;
        }
        Ok(())
    }

    /// Open-time check (storage README "Open-time checks"): refuses a data file shorter than
    /// its allocation maps say with Msg 5125. Every page allocated to an object (set in an IAM
    /// page mask, including IAM and directory pages) must lie inside its file, or be cached in
    /// the buffer pool (formatted by redo and not written yet). Runs after redo and before undo,
    /// so a refused open has written nothing but what redo itself had to evict.
    pub fn check_files_cover_allocations(&self) -> SqlResult<()> {
        let files: Vec<Arc<DataFile>> = self.pool.files.iter().cloned().collect();
        // by file id - 1; an absent (removed) file has no pages
        let max_id = usize::from(self.pool.files.max_id());
        let mut pages_on_disk = vec![0u64; max_id];
        let mut present = vec![false; max_id];
        for f in &files {
            pages_on_disk[usize::from(f.id) - 1] = f.size_bytes() / PAGE_SIZE as u64;
            present[usize::from(f.id) - 1] = true;
        }
        // fast path: every file covers its GAM's highest allocated extent (always true when
        // extents are reserved as they are allocated, A5): no IAM page needs reading
        let covered = |f: &DataFile| -> bool {
            let k = usize::from(f.id) - 1;
            let Ok(g) = self.pool.read(PageId::new(f.id, GAM_PAGE)) else {
                return false;
            };
            let top = (1..GAM_CAP)
                .rev()
                .find(|e| g[HEADER + (e / 8) as usize] & (1 << (e % 8)) != 0);
            top.is_none_or(|e| (e as u64 + 1) * 8 <= pages_on_disk[k])
        };
        if files.iter().all(|f| covered(f)) {
            return Ok(());
        }
        // per file: 1 + the highest allocated page that is neither on disk nor cached
        let mut needed = vec![0u64; max_id];
        let mut note = |pid: PageId| -> SqlResult<bool> {
            let k = (pid.file as usize).wrapping_sub(1);
            let (Some(&have), Some(true)) = (pages_on_disk.get(k), present.get(k)) else {
                return Err(bad(pid, "allocated page in a file that does not exist"));
            };
            if (pid.page as u64) < have || self.pool.contains(pid) {
                return Ok(true);
            }
            needed[k] = needed[k].max(pid.page as u64 + 1);
            Ok(false)
        };
        for f in &files {
            note(PageId::new(f.id, GAM_PAGE))?;
        }
        let mut chains: Vec<PageId> = vec![DIR_IAM];
        chains.extend(self.objects.read().values().map(|m| m.iam));
        for first in chains {
            let mut ip = first;
            let mut guard = 0;
            while ip.is_valid() && note(ip)? {
                guard += 1;
                if guard > 1_000_000 {
                    return Err(bad(ip, "IAM chain loops"));
                }
                // a damaged IAM page is reported when the object is used (Msg 824), not here:
                // the database stays openable for DBCC CHECKDB and EMERGENCY
                let g = match self.pool.read(ip) {
                    Ok(g) if page::page_type(&g) == Some(PageType::Iam) => g,
                    _ => break,
                };
                for e in 0..page::slot_count(&g).min(IAM_CAP) {
                    let at = HEADER + e * 8;
                    let (file, ext, mask) = (rd16(&g[..], at), rd32(&g[..], at + 2), g[at + 6]);
                    for b in 0..8u32 {
                        if mask & (1 << b) != 0 {
                            note(PageId::new(file, ext.saturating_mul(8).saturating_add(b)))?;
                        }
                    }
                }
                ip = page::next(&g);
            }
        }
        for f in &files {
            let k = usize::from(f.id) - 1;
            if needed[k] > pages_on_disk[k] {
                return Err(SqlError::new(
                    5125,
                    &[
                        &f.path.display(),
                        &(needed[k] * PAGE_SIZE as u64 / 1024),
                        &(f.size_bytes() / 1024),
                    ],
                ));
            }
        }
        Ok(())
    }

    /// Writes the identity fields into page 0 of every data file (and the id into the log
    /// header), `ckpt_lsn` into the primary's; durable on return (data files fsynced).
    fn stamp_headers(&self, ckpt_lsn: u64) -> SqlResult<()> {
        self.log.stamp_guid(self.guid)?;
        let (nfiles, absent) = self.file_set_fields();
        for f in &self.pool.files {
            let mut w = self.pool.write(PageId::new(f.id, 0))?;
            FileHeader {
                file_id: f.id,
                version: FORMAT_VERSION,
                nfiles,
                guid: self.guid,
                ckpt_lsn: if f.id == 1 { ckpt_lsn } else { 0 },
                absent: if f.id == 1 {
                    absent
                } else {
                    [0; fileid::ABSENT_BYTES]
                },
                data_space: f.data_space(),
            }
            .write_into(&mut w);
            w.mark_dirty();
        }
        self.pool.flush_all()
    }

    /// The database's directory name (Msg 9004 names it; the engine puts the database name).
    pub(crate) fn dir_name(&self) -> String {
        self.dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// ARIES-style restart: analysis, redo (physical, page-LSN guarded), undo of losers (CLRs).
    /// `ckpt_lsn`: the log end the primary file recorded at its last checkpoint (0 = unknown).
    /// `rebuild`: REPAIR_ALLOW_DATA_LOSS (repair.rs): `data` is the readable prefix of the
    /// old log, whose damage is expected; the new log is already in place. Returns the number
    /// of transactions rolled back.
    fn recover(&self, base: u64, data: &[u8], ckpt_lsn: u64, rebuild: bool) -> SqlResult<usize> {
        // analysis
        let mut off = 0usize;
        let mut redo_start = base;
        let mut txns: HashMap<u64, (u64, bool)> = HashMap::new();
        let mut max_txn = 0u64;
        let mut ops: Vec<(u64, usize)> = Vec::new();
        while off < data.len() {
            let lsn = base + off as u64;
            let Some(r) = wal::decode(&data[off..], lsn) else {
                break;
            };
            let len = (r.end - r.lsn) as usize;
            match r.kind {
                REC_OP => {
                    ops.push((lsn, off));
                    if r.txn != 0 {
                        txns.insert(r.txn, (lsn, false));
                    }
                }
                REC_COMMIT | REC_ABORT => {
                    txns.insert(r.txn, (lsn, true));
                }
                REC_CHECKPOINT => {
                    redo_start = r.ckpt_redo.max(base);
                    max_txn = max_txn.max(r.ckpt_next_txn);
                }
                _ => {}
            }
            max_txn = max_txn.max(r.txn + 1);
            off += len;
        }
        let end = base + off as u64;
        // wal/README "End of log or damage": checked before the first write (set_end)
        if !rebuild {
            if off < data.len() && wal::valid_record_after(data, off, base) {
                return Err(wal::damaged_log(&self.dir_name(), 2));
            }
            if ckpt_lsn != 0 && (end < ckpt_lsn || base > ckpt_lsn) {
                return Err(wal::damaged_log(&self.dir_name(), 3));
            }
            self.log.set_end(end)?;
        }
        self.next_txn.store(max_txn.max(1), Release);
        // redo
        for &(lsn, o) in &ops {
            if lsn < redo_start {
                continue;
            }
            let Some(r) = wal::decode(&data[o..], lsn) else {
                break;
            };
            for (pid, ch) in r.pages {
                match ch {
                    PageChange::Image(img) => {
                        let mut w = self.pool.write_new(pid)?;
                        w.copy_from_slice(&img);
                        page::set_lsn(&mut w, lsn);
                        w.mark_dirty();
                    }
                    PageChange::Fresh(ranges) => {
                        let mut w = self.pool.write_new(pid)?;
                        for (at, b) in ranges {
                            let at = at as usize;
                            if at + b.len() > PAGE_SIZE {
                                return Err(wal::bad_log("range beyond page"));
                            }
                            w[at..at + b.len()].copy_from_slice(&b);
                        }
                        page::set_lsn(&mut w, lsn);
                        w.mark_dirty();
                    }
                    PageChange::Diff(ranges) => {
                        let mut w = self.pool.write(pid)?;
                        if page::lsn(&w) < lsn {
                            for (at, b) in ranges {
                                let at = at as usize;
                                if at + b.len() > PAGE_SIZE {
                                    return Err(wal::bad_log("diff beyond page"));
                                }
                                w[at..at + b.len()].copy_from_slice(&b);
                            }
                            page::set_lsn(&mut w, lsn);
                            w.mark_dirty();
                        }
                    }
                }
            }
        }
        self.reload_objects()?;
        self.check_files_cover_allocations()?;
        // undo losers
        let mut losers: Vec<(u64, u64)> = txns
            .iter()
            .filter(|(_, (_, ended))| !ended)
            .map(|(t, (l, _))| (*t, *l))
            .collect();
        losers.sort();
        let rolled_back = losers.len();
        for (t, last) in losers {
            let mut st = TxnState {
                id: t,
                last_lsn: last,
                ..Default::default()
            };
            let mut next = last;
            while next != 0 {
                if next < base {
                    return Err(wal::bad_log("undo chain points before the log start"));
                }
                let o = (next - base) as usize;
                let r = wal::decode(data.get(o..).unwrap_or(&[]), next)
                    .ok_or_else(|| wal::bad_log("undo chain points at a bad record"))?;
                if r.kind == REC_OP && r.undo_next != NOT_CLR {
                    next = r.undo_next;
                    continue;
                }
                if let Some(op) = &r.undo {
                    self.undo_op(op, &mut st, r.prev)?;
                }
                next = r.prev;
            }
            self.append_simple(REC_ABORT, t, st.last_lsn)?;
        }
        // committed drops/truncates whose pages were not freed yet
        let leftovers: Vec<u64> = self
            .objects
            .read()
            .values()
            .filter(|m| m.state != STATE_LIVE)
            .map(|m| m.obj)
            .collect();
        for obj in leftovers {
            self.free_object(obj)?;
        }
        let l = self.log.next_lsn();
        self.log.flush_to(l)?;
        Ok(rolled_back)
    }
}

/// Objects whose pages a committing transaction frees (storage README A5): those it dropped and
/// the old storage (zombies) of those it truncated, read from the undo records that are still
/// there. A drop or truncate undone by a rollback to a savepoint has lost its undo record and
/// frees nothing, so the object it restored stays intact.
fn deferred_frees(st: &TxnState) -> Vec<u64> {
    st.undo
        .iter()
        .filter_map(|(_, op)| match op {
            UndoOp::Undrop { obj } => Some(*obj),
            UndoOp::Untruncate { zombie, .. } => Some(*zombie),
            _ => None,
        })
        .collect()
}

// ------------------------------------------------------------------ IAM page helpers

/// Appends an IAM entry: file, extent, page mask.
pub fn iam_push(p: &mut PageBuf, file: u16, ext: u32, mask: u8) {
    let n = page::slot_count(p);
    if n >= IAM_CAP {
        debug_assert!(false, "iam_push on a full IAM page");
        return;
    }
    let at = HEADER + n * 8;
    wr16(p, at, file);
    wr32(p, at + 2, ext);
    p[at + 6] = mask;
    p[at + 7] = 0;
    wr16(p, page::OFF_SLOTS, (n + 1) as u16);
}

fn iam_set_bit(p: &mut PageBuf, entry: usize, bit: u32) {
    p[HEADER + entry * 8 + 6] |= 1 << bit;
}
