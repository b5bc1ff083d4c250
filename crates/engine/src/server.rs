//! The database manager: the data directory, `master`, `tempdb` and user databases.
//!
//! Layout of the data directory:
//!
//! | path | what |
//! |---|---|
//! | `master/` | storage::Database of `master`; its catalog also registers user databases (`D` rows) |
//! | `tempdb/` | removed and recreated at every start |
//! | `db_<id>/` | a user database (the name lives in master's catalog) |

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;

use catalog::DatabaseDef;
use common::{SqlError, SqlResult};
use parking_lot::{Mutex, RwLock};
use storage::StorageConfig;

use crate::dbcat::DbCatalog;
use crate::dbstate::{name_open_error, DbState, Unavailable};

/// Engine configuration.
#[derive(Clone, Debug, Default)]
pub struct EngineConfig {
    pub storage: StorageConfig,
    /// Memory budget of one memory-consuming query operator (sort, hash join, hash
    /// aggregate) before it spills to tempdb work files; `None` = the default (256 MiB).
    pub operator_memory_bytes: Option<usize>,
    /// `latchkey --io-latency-ms N`: the data-file read latency of this run, over the stored
    /// `latchkey storage read latency (ms)` (config.rs).
    pub read_latency_ms: Option<u64>,
}

/// One open database: its storage and its catalog cache.
pub struct DbHandle {
    pub def: DatabaseDef,
    pub store: Arc<storage::Database>,
    pub cat: RwLock<DbCatalog>,
    /// Sequence generators of this database (sequence.rs), by object id.
    pub sequences: Mutex<std::collections::HashMap<common::ObjectId, crate::sequence::SeqState>>,
    /// Row counts behind `Catalog::table_rows` (table_rows.rs).
    pub row_estimates: crate::table_rows::RowEstimates,
    /// The catalog's schema generation (the same counter as `cat`'s, readable without its
    /// lock; schema_gen.rs).
    pub generation: crate::schema_gen::DbGeneration,
    /// `ALTER DATABASE SCOPED CONFIGURATION SET IDENTITY_CACHE`: on unless turned off
    /// (identity_cache.rs).
    pub identity_cache: std::sync::atomic::AtomicBool,
}

impl DbHandle {
    /// Whether IDENTITY values come from a cache of reserved values (identity_cache.rs).
    pub fn identity_cache_on(&self) -> bool {
        self.identity_cache
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Reloads the catalog cache from storage (after a rollback, dbcat C2).
    pub fn reload_catalog(&self) -> SqlResult<()> {
        let tree = self.store.catalog_btree()?;
        let mut fresh = DbCatalog::load(&self.def.name, self.def.database_id, &tree)?;
        let mut cat = self.cat.write();
        fresh.keep_identity_progress(&cat);
        // the sessions depending on this database hold its counter: keep it, and move it;
        // the DDL marks (Msg 3961) and other transactions' uncommitted DDL stay
        fresh.keep_schema_history(&mut cat);
        fresh.generation.bump();
        *cat = fresh;
        Ok(())
    }
}

/// The engine: shared by all sessions of a process.
pub struct Engine {
    data_dir: PathBuf,
    /// `<data_dir>/tempdb/workfiles`: spill files of sorts, hash joins and aggregates.
    workfiles: Arc<Path>,
    config: EngineConfig,
    dbs: Mutex<Vec<Arc<DbHandle>>>,
    /// Registered databases that could not be opened (dbstate.rs).
    unavailable: Mutex<Vec<Unavailable>>,
    /// EMERGENCY / SINGLE_USER by database id (repair.rs).
    access: Mutex<std::collections::HashMap<i32, crate::repair::DbAccess>>,
    next_spid: AtomicI32,
    /// Open sessions (`sp_who`; sysprocs/sessions.rs).
    pub(crate) sessions: crate::sysprocs::SessionRegistry,
    /// sp_configure values in use (config.rs).
    settings: crate::config::Settings,
    /// `LATCHKEY_CONFIG`: the configuration of a test run (run_config.rs).
    run_config: crate::run_config::RunConfig,
    /// The lock manager shared by every session (locks/, README "Locks").
    pub(crate) locks: Arc<crate::locks::LockManager>,
    /// The row version store shared by every session (versioning.rs, exec::versions).
    pub(crate) versions: Arc<exec::versions::VersionStore>,
    /// Cached plans of every session and their counters (plan_stats.rs).
    pub(crate) plans: crate::plan_stats::PlanRegistry,
    /// One engine per data directory (storage README "Directory lock"), held while open.
    _lock: storage::dirlock::DirLock,
}

pub const MASTER_ID: i32 = 1;
pub const TEMPDB_ID: i32 = 2;

impl Engine {
    /// The lock manager: `sys.dm_tran_locks` ([`crate::locks::LockManager::snapshot`]) and the
    /// waiting requests ([`crate::locks::LockManager::waiting_requests`]: spid, wait type, wait
    /// ms, blocking spid, resource) for `sys.dm_exec_requests` / `sys.dm_os_waiting_tasks`.
    pub fn lock_manager(&self) -> &Arc<crate::locks::LockManager> {
        &self.locks
    }

    /// Opens (creating on first use) the data directory: master, a fresh tempdb, and every
    /// registered user database. The directory is locked first (a second process gets Msg
    /// 5120 before any file is touched); damage in master refuses to start, damage in a user
    /// database leaves it RECOVERY_PENDING or SUSPECT (dbstate.rs).
    pub fn open(data_dir: &Path, mut config: EngineConfig) -> SqlResult<Arc<Engine>> {
        let run_config = crate::run_config::RunConfig::from_env()?;
        run_config.apply(&mut config);
        std::fs::create_dir_all(data_dir)
            .map_err(|e| SqlError::io("create directory", &data_dir.display().to_string(), &e))?;
        let master_file = data_dir.join("master").join("data1.mdf");
        let lock = storage::dirlock::DirLock::acquire(data_dir, &master_file)?;
        if !data_dir.join("master").exists() && holds_user_databases(data_dir) {
            // master is gone but databases are not: damage, not a new installation
            return Err(storage::dirlock::not_found(&master_file));
        }
        let engine = Arc::new(Engine {
            data_dir: data_dir.to_path_buf(),
            workfiles: data_dir.join("tempdb").join("workfiles").into(),
            dbs: Mutex::new(Vec::new()),
            unavailable: Mutex::new(Vec::new()),
            access: Mutex::new(std::collections::HashMap::new()),
            next_spid: AtomicI32::new(51),
            sessions: Default::default(),
            settings: crate::config::Settings::new(
                config
                    .read_latency_ms
                    .map(std::time::Duration::from_millis)
                    .unwrap_or(config.storage.io_latency),
            ),
            config,
            run_config,
            locks: Default::default(),
            versions: exec::versions::VersionStore::new(),
            plans: Default::default(),
            _lock: lock,
        });
        let master = engine
            .open_db(
                DatabaseDef {
                    database_id: MASTER_ID,
                    name: "master".into(),
                    dir: "master".into(),
                    compatibility_level: 150,
                    files: Vec::new(),
                    filegroups: Vec::new(),
                    default_data_space: 1,
                },
                true,
            )
            .map_err(|e| name_open_error(e, "master"))?;
        crate::security::bootstrap(&engine)?;
        let configured = master.cat.read().configs.clone();
        crate::config::load_at_start(
            &engine,
            &configured,
            engine.config.read_latency_ms.is_some(),
        );
        master
            .store
            .set_read_latency(engine.settings.read_latency());
        let tempdir = data_dir.join("tempdb");
        if tempdir.exists() {
            std::fs::remove_dir_all(&tempdir).map_err(|e| {
                SqlError::io("remove directory", &tempdir.display().to_string(), &e)
            })?;
        }
        engine.open_db(
            DatabaseDef {
                database_id: TEMPDB_ID,
                name: "tempdb".into(),
                dir: "tempdb".into(),
                compatibility_level: 150,
                files: Vec::new(),
                filegroups: Vec::new(),
                default_data_space: 1,
            },
            true,
        )?;
        let registered = master.cat.read().databases.clone();
        for d in registered {
            if let Err(e) = engine.open_db(d.clone(), false) {
                let error = name_open_error(e, &d.name);
                // SQL Server's errorlog line; the database stays registered, not open
                eprintln!("latchkey: database '{}' cannot be opened: {error}", d.name);
                engine.unavailable.lock().push(Unavailable {
                    state: DbState::of_open_error(&error),
                    def: d,
                    error,
                });
            }
        }
        // A failed bootstrap (a missing feature lower in the stack) must not make the whole
        // engine unusable: report it and go on without spt_values; the next start retries.
        if let Err(e) = crate::bootstrap::bootstrap_master(&engine, &master) {
            eprintln!("latchkey: warning: {}", e.message);
        }
        Ok(engine)
    }

    /// Opens a database's storage; `create`: a missing one is created (else Msg 5120).
    fn open_db(&self, def: DatabaseDef, create: bool) -> SqlResult<Arc<DbHandle>> {
        let dir = self.data_dir.join(&def.dir);
        let mut config = self.config.storage.clone();
        config.buffer_pool_bytes = self.settings.pool_bytes(config.buffer_pool_bytes);
        let data_files = def.files.iter().filter(|f| !f.is_log()).count();
        if data_files > 0 {
            config.data_files = u16::try_from(data_files).unwrap_or(u16::MAX);
        }
        let store = if create {
            storage::Database::open(&dir, config)?
        } else {
            storage::Database::open_existing(&dir, config)?
        };
        store.set_read_latency(self.settings.read_latency());
        crate::files::apply_file_limits(&def, &store, create)?;
        crate::filegroups::apply_default(&def, &store);
        let tree = store.catalog_btree()?;
        let cat = DbCatalog::load(&def.name, def.database_id, &tree)?;
        let h = Arc::new(DbHandle {
            generation: cat.generation.clone(),
            identity_cache: std::sync::atomic::AtomicBool::new(
                self.run_config().identity_cache.unwrap_or_else(|| {
                    crate::scoped_config::value_in(&cat, crate::scoped_config::IDENTITY_CACHE) != 0
                }),
            ),
            def,
            store,
            cat: RwLock::new(cat),
            sequences: Mutex::new(std::collections::HashMap::new()),
            row_estimates: Default::default(),
        });
        self.dbs.lock().push(h.clone());
        Ok(h)
    }

    /// The run's `LATCHKEY_CONFIG` (run_config.rs).
    pub fn run_config(&self) -> &crate::run_config::RunConfig {
        &self.run_config
    }

    /// The data directory.
    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// Memory budget and work file directory (`<data_dir>/tempdb/workfiles`, removed with
    /// tempdb at every start) of query operators.
    pub fn spill_config(&self) -> exec::SpillConfig {
        exec::SpillConfig {
            operator_budget: self
                .config
                .operator_memory_bytes
                .unwrap_or(exec::spill::DEFAULT_OPERATOR_BUDGET),
            dir: Some(self.workfiles.clone()),
        }
    }

    /// A database by name (case-insensitive).
    pub fn database(&self, name: &str) -> Option<Arc<DbHandle>> {
        self.dbs
            .lock()
            .iter()
            .find(|d| catalog::name_eq(&d.def.name, name))
            .cloned()
    }

    /// A database by id.
    pub fn database_by_id(&self, id: i32) -> Option<Arc<DbHandle>> {
        self.dbs
            .lock()
            .iter()
            .find(|d| d.def.database_id == id)
            .cloned()
    }

    /// All databases, by id.
    pub fn databases(&self) -> Vec<Arc<DbHandle>> {
        let mut v = self.dbs.lock().clone();
        v.sort_by_key(|d| d.def.database_id);
        v
    }

    /// A registered database that could not be opened, by name (case-insensitive).
    pub fn unavailable(&self, name: &str) -> Option<Unavailable> {
        self.unavailable
            .lock()
            .iter()
            .find(|u| catalog::name_eq(&u.def.name, name))
            .cloned()
    }

    pub(crate) fn unavailable_list(&self) -> &Mutex<Vec<Unavailable>> {
        &self.unavailable
    }

    pub(crate) fn dbs_list(&self) -> &Mutex<Vec<Arc<DbHandle>>> {
        &self.dbs
    }

    pub(crate) fn access_map(
        &self,
    ) -> &Mutex<std::collections::HashMap<i32, crate::repair::DbAccess>> {
        &self.access
    }

    pub(crate) fn settings(&self) -> &crate::config::Settings {
        &self.settings
    }

    pub(crate) fn storage_config(&self) -> StorageConfig {
        self.config.storage.clone()
    }

    /// Every registered database that could not be opened.
    pub fn unavailable_databases(&self) -> Vec<Unavailable> {
        self.unavailable.lock().clone()
    }

    /// `master`.
    pub fn master(&self) -> SqlResult<Arc<DbHandle>> {
        self.database("master")
            .ok_or_else(|| SqlError::internal("master is not open"))
    }

    /// CREATE DATABASE: creates the storage and registers it in master (committed at once:
    /// CREATE DATABASE is not allowed inside a user transaction in SQL Server either).
    pub fn create_database(&self, name: &str) -> SqlResult<Arc<DbHandle>> {
        self.create_database_with(name, &|_| Ok(Vec::new()))
    }

    /// CREATE DATABASE with the files `files` returns for the database's directory (files.rs:
    /// it checks the specs and links files placed elsewhere into the directory).
    pub(crate) fn create_database_with(
        &self,
        name: &str,
        files: &dyn Fn(&Path) -> SqlResult<Vec<catalog::DbFileDef>>,
    ) -> SqlResult<Arc<DbHandle>> {
        if self.database(name).is_some() || self.unavailable(name).is_some() {
            return Err(SqlError::new(1801, &[&name]));
        }
        let master = self.master()?;
        // ids (and so directories) of databases that could not be opened are taken too
        let unavailable_max = self
            .unavailable
            .lock()
            .iter()
            .map(|u| u.def.database_id)
            .max()
            .unwrap_or(4);
        let id = self
            .dbs
            .lock()
            .iter()
            .map(|d| d.def.database_id)
            .max()
            .unwrap_or(4)
            .max(4)
            .max(unavailable_max)
            + 1;
        let mut def = DatabaseDef {
            database_id: id,
            name: name.to_string(),
            dir: format!("db_{id}"),
            compatibility_level: 150,
            files: Vec::new(),
            filegroups: Vec::new(),
            default_data_space: 1,
        };
        let dir = self.data_dir.join(&def.dir);
        if dir.exists() {
            std::fs::remove_dir_all(&dir)
                .map_err(|e| SqlError::io("remove directory", &dir.display().to_string(), &e))?;
        }
        def.files = files(&dir)?;
        let h = match self.open_db(def.clone(), true) {
            Ok(h) => h,
            Err(e) => {
                crate::files::remove_files(&def, &dir);
                return Err(e);
            }
        };
        let tree = master.store.catalog_btree()?;
        let mut txn = master.store.begin()?;
        master.cat.write().put_database(&tree, &mut txn, def)?;
        txn.commit()?;
        Ok(h)
    }

    /// DROP DATABASE: unregisters and deletes the files.
    pub fn drop_database(&self, name: &str) -> SqlResult<()> {
        if let Some(u) = self.unavailable(name) {
            // a damaged database can be dropped (SQL Server allows it for SUSPECT ones)
            let master = self.master()?;
            let tree = master.store.catalog_btree()?;
            let mut txn = master.store.begin()?;
            master
                .cat
                .write()
                .remove_database(&tree, &mut txn, u.def.database_id)?;
            txn.commit()?;
            self.unavailable
                .lock()
                .retain(|x| x.def.database_id != u.def.database_id);
            crate::files::remove_files(&u.def, &self.data_dir.join(&u.def.dir));
            return Ok(());
        }
        let Some(h) = self.database(name) else {
            return Err(SqlError::new(3701, &[&"database", &name]));
        };
        if h.def.database_id <= 4 {
            return Err(SqlError::custom(
                3708,
                16,
                1,
                format!("Cannot drop the database '{name}' because it is a system database."),
            ));
        }
        let master = self.master()?;
        let tree = master.store.catalog_btree()?;
        let mut txn = master.store.begin()?;
        master
            .cat
            .write()
            .remove_database(&tree, &mut txn, h.def.database_id)?;
        txn.commit()?;
        self.dbs
            .lock()
            .retain(|d| d.def.database_id != h.def.database_id);
        let dir = self.data_dir.join(&h.def.dir);
        let def = h.def.clone();
        drop(h);
        // Files may still be open by another handle; removal failure is not fatal.
        crate::files::remove_files(&def, &dir);
        Ok(())
    }

    /// A new session id (`@@SPID`).
    pub fn next_spid(&self) -> i32 {
        self.next_spid.fetch_add(1, Ordering::Relaxed)
    }
}

// ---------------------------------------------------------------- SET STATISTICS IO

/// This thread's per-object I/O counters (taken before a statement): ((database's object
/// map id, storage object id), counters). Per thread, so per session (storage objio.rs).
pub(crate) type IoSnapshot = Vec<((u64, u64), storage::ObjectIo)>;

impl Engine {
    /// Snapshot of this thread's per-object I/O counters (turns their collection on).
    pub(crate) fn object_io_snapshot(&self) -> IoSnapshot {
        storage::objio::set_thread_collect(true);
        let mut v = storage::objio::thread_object_io();
        v.sort_unstable_by_key(|(k, _)| *k);
        v
    }

    /// SQL Server's STATISTICS IO lines for the tables whose storage this thread (the
    /// session's request) read since `before`: one per table (heap or clustered index plus
    /// its nonclustered indexes), in storage creation order. Other sessions' reads are not in
    /// them.
    pub(crate) fn statistics_io_lines(&self, before: &IoSnapshot) -> Vec<String> {
        let now = storage::objio::thread_object_io();
        let mut lines = Vec::new();
        for h in self.databases() {
            let map_id = h.store.obj_io_id();
            let mut touched: Vec<(u64, storage::ObjectIo)> = Vec::new();
            for ((m, obj), io) in &now {
                if *m != map_id {
                    continue;
                }
                let prev = before
                    .binary_search_by_key(&(*m, *obj), |(k, _)| *k)
                    .map(|i| before[i].1)
                    .unwrap_or_default();
                let d = io.since(&prev);
                if !d.is_zero() {
                    touched.push((*obj, d));
                }
            }
            if touched.is_empty() {
                continue;
            }
            let owners = h.storage_owners();
            // (first storage id, table name, summed counters)
            let mut tables: Vec<(u64, String, storage::ObjectIo)> = Vec::new();
            for (obj, d) in touched {
                let Some((first, name)) = owners.get(&obj) else {
                    continue; // the catalog B-tree, dropped objects
                };
                match tables.iter_mut().find(|t| t.0 == *first) {
                    Some(t) => {
                        t.2.scans += d.scans;
                        t.2.logical_reads += d.logical_reads;
                        t.2.physical_reads += d.physical_reads;
                        t.2.read_ahead_reads += d.read_ahead_reads;
                        t.2.lob_logical_reads += d.lob_logical_reads;
                        t.2.lob_physical_reads += d.lob_physical_reads;
                    }
                    None => tables.push((*first, name.clone(), d)),
                }
            }
            tables.sort_by_key(|t| t.0);
            for (_, name, d) in tables {
                lines.push(statistics_io_line(&name, &d));
            }
        }
        lines
    }
}

/// True if `data_dir` has a user database directory (`db_<id>`).
fn holds_user_databases(data_dir: &Path) -> bool {
    std::fs::read_dir(data_dir)
        .map(|rd| {
            rd.flatten()
                .any(|e| e.file_name().to_string_lossy().starts_with("db_"))
        })
        .unwrap_or(false)
}

/// One `Table 'T'. Scan count ...` line (SQL Server 2019+ text, message 3615).
pub fn statistics_io_line(table: &str, d: &storage::ObjectIo) -> String {
    format!(
        "Table '{table}'. Scan count {}, logical reads {}, physical reads {}, page server reads 0, read-ahead reads {}, page server read-ahead reads 0, lob logical reads {}, lob physical reads {}, lob page server reads 0, lob read-ahead reads 0, lob page server read-ahead reads 0.",
        d.scans,
        d.logical_reads,
        d.physical_reads,
        d.read_ahead_reads,
        d.lob_logical_reads,
        d.lob_physical_reads
    )
}

impl DbHandle {
    /// Storage object id -> (the table's first storage id, table name) for every heap and
    /// index of the database's tables.
    pub fn storage_owners(&self) -> std::collections::HashMap<u64, (u64, String)> {
        let cat = self.cat.read();
        let mut m = std::collections::HashMap::new();
        for t in cat.tables() {
            let mut ids: Vec<u64> = t.indexes.iter().map(|i| i.storage_id).collect();
            if let catalog::TableStorage::Heap(h) = t.storage {
                ids.push(h);
            }
            ids.retain(|&i| i != 0);
            let Some(&first) = ids.iter().min() else {
                continue;
            };
            for i in ids {
                m.insert(i, (first, t.name.clone()));
            }
        }
        m
    }
}
