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

/// Engine configuration.
#[derive(Clone, Debug, Default)]
pub struct EngineConfig {
    pub storage: StorageConfig,
}

/// One open database: its storage and its catalog cache.
pub struct DbHandle {
    pub def: DatabaseDef,
    pub store: Arc<storage::Database>,
    pub cat: RwLock<DbCatalog>,
    /// Sequence generators of this database (sequence.rs), by object id.
    pub sequences: Mutex<std::collections::HashMap<common::ObjectId, crate::sequence::SeqState>>,
}

impl DbHandle {
    /// Reloads the catalog cache from storage (after a rollback, dbcat C2).
    pub fn reload_catalog(&self) -> SqlResult<()> {
        crate::dbcat::bump_schema_generation();
        let tree = self.store.catalog_btree()?;
        let fresh = DbCatalog::load(&self.def.name, self.def.database_id, &tree)?;
        *self.cat.write() = fresh;
        Ok(())
    }
}

/// The engine: shared by all sessions of a process.
pub struct Engine {
    data_dir: PathBuf,
    config: EngineConfig,
    dbs: Mutex<Vec<Arc<DbHandle>>>,
    next_spid: AtomicI32,
}

pub const MASTER_ID: i32 = 1;
pub const TEMPDB_ID: i32 = 2;

impl Engine {
    /// Opens (creating on first use) the data directory: master, a fresh tempdb, and every
    /// registered user database.
    pub fn open(data_dir: &Path, config: EngineConfig) -> SqlResult<Arc<Engine>> {
        std::fs::create_dir_all(data_dir)
            .map_err(|e| SqlError::io("create directory", &data_dir.display().to_string(), &e))?;
        let engine = Arc::new(Engine {
            data_dir: data_dir.to_path_buf(),
            config,
            dbs: Mutex::new(Vec::new()),
            next_spid: AtomicI32::new(51),
        });
        let master = engine.open_db(DatabaseDef {
            database_id: MASTER_ID,
            name: "master".into(),
            dir: "master".into(),
            compatibility_level: 150,
        })?;
        let tempdir = data_dir.join("tempdb");
        if tempdir.exists() {
            std::fs::remove_dir_all(&tempdir).map_err(|e| {
                SqlError::io("remove directory", &tempdir.display().to_string(), &e)
            })?;
        }
        engine.open_db(DatabaseDef {
            database_id: TEMPDB_ID,
            name: "tempdb".into(),
            dir: "tempdb".into(),
            compatibility_level: 150,
        })?;
        let registered = master.cat.read().databases.clone();
        for d in registered {
            engine.open_db(d)?;
        }
        // A failed bootstrap (a missing feature lower in the stack) must not make the whole
        // engine unusable: report it and go on without spt_values; the next start retries.
        if let Err(e) = crate::bootstrap::bootstrap_master(&engine, &master) {
            eprintln!("latchkey: warning: {}", e.message);
        }
        Ok(engine)
    }

    fn open_db(&self, def: DatabaseDef) -> SqlResult<Arc<DbHandle>> {
        let dir = self.data_dir.join(&def.dir);
        let store = storage::Database::open(&dir, self.config.storage.clone())?;
        let tree = store.catalog_btree()?;
        let cat = DbCatalog::load(&def.name, def.database_id, &tree)?;
        let h = Arc::new(DbHandle {
            def,
            store,
            cat: RwLock::new(cat),
            sequences: Mutex::new(std::collections::HashMap::new()),
        });
        self.dbs.lock().push(h.clone());
        Ok(h)
    }

    /// The data directory.
    pub fn data_dir(&self) -> &Path {
        &self.data_dir
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

    /// `master`.
    pub fn master(&self) -> SqlResult<Arc<DbHandle>> {
        self.database("master")
            .ok_or_else(|| SqlError::internal("master is not open"))
    }

    /// CREATE DATABASE: creates the storage and registers it in master (committed at once:
    /// CREATE DATABASE is not allowed inside a user transaction in SQL Server either).
    pub fn create_database(&self, name: &str) -> SqlResult<Arc<DbHandle>> {
        if self.database(name).is_some() {
            return Err(SqlError::new(1801, &[&name]));
        }
        let master = self.master()?;
        let id = self
            .dbs
            .lock()
            .iter()
            .map(|d| d.def.database_id)
            .max()
            .unwrap_or(4)
            .max(4)
            + 1;
        let def = DatabaseDef {
            database_id: id,
            name: name.to_string(),
            dir: format!("db_{id}"),
            compatibility_level: 150,
        };
        let dir = self.data_dir.join(&def.dir);
        if dir.exists() {
            std::fs::remove_dir_all(&dir)
                .map_err(|e| SqlError::io("remove directory", &dir.display().to_string(), &e))?;
        }
        let h = self.open_db(def.clone())?;
        let tree = master.store.catalog_btree()?;
        let mut txn = master.store.begin()?;
        master.cat.write().put_database(&tree, &mut txn, def)?;
        txn.commit()?;
        Ok(h)
    }

    /// DROP DATABASE: unregisters and deletes the files.
    pub fn drop_database(&self, name: &str) -> SqlResult<()> {
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
        drop(h);
        // Files may still be open by another handle; removal failure is not fatal.
        let _ = std::fs::remove_dir_all(dir);
        Ok(())
    }

    /// A new session id (`@@SPID`).
    pub fn next_spid(&self) -> i32 {
        self.next_spid.fetch_add(1, Ordering::Relaxed)
    }
}
