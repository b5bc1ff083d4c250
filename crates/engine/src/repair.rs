//! SQL Server's explicit way out of a damaged database (storage README "Emergency and
//! repair"): `ALTER DATABASE x SET EMERGENCY | ONLINE | SINGLE_USER | MULTI_USER` and
//! `DBCC CHECKDB (x, REPAIR_ALLOW_DATA_LOSS)`. Kept apart from the DBCC checks (interp.rs
//! calls `checkdb_repair` first when a repair option is given).
//!
//! EMERGENCY and SINGLE_USER live in memory (`Engine::access`): after a restart a damaged
//! database is RECOVERY_PENDING / SUSPECT again and MULTI_USER.

use std::sync::Arc;

use catalog::DatabaseDef;
use common::{SqlError, SqlResult};
use parking_lot::{Mutex, RwLock};
use parser::ast;

use crate::dbcat::DbCatalog;
use crate::dbstate::{DbState, Unavailable};
use crate::events::{EventSink, InfoMessage};
use crate::server::{DbHandle, Engine};
use crate::session::Session;

/// In-memory access state of a database (`sys.databases` state / user_access).
#[derive(Clone, Debug, Default)]
pub struct DbAccess {
    /// Open in EMERGENCY mode (read-only, no recovery); the open error that made it damaged.
    pub emergency: Option<Unavailable>,
    /// SINGLE_USER: the session that holds it.
    pub single_user: Option<i32>,
}

fn info(sink: &mut dyn EventSink, number: i32, text: String) {
    sink.message(&InfoMessage {
        text,
        number,
        severity: 10,
        state: 1,
    });
}

impl Engine {
    /// Access state of database `id`.
    pub fn access(&self, id: i32) -> DbAccess {
        self.access_map()
            .lock()
            .get(&id)
            .cloned()
            .unwrap_or_default()
    }

    /// Msg 924 when another session holds `name` in SINGLE_USER mode.
    pub fn check_single_user(&self, name: &str, spid: i32) -> SqlResult<()> {
        let id = match (self.database(name), self.unavailable(name)) {
            (Some(h), _) => h.def.database_id,
            (None, Some(u)) => u.def.database_id,
            _ => return Ok(()),
        };
        match self.access(id).single_user {
            Some(owner) if owner != spid => Err(SqlError::new(924, &[&name])),
            _ => Ok(()),
        }
    }

    fn handle_of(
        &self,
        def: DatabaseDef,
        store: Arc<storage::Database>,
    ) -> SqlResult<Arc<DbHandle>> {
        let tree = store.catalog_btree()?;
        let cat = DbCatalog::load(&def.name, def.database_id, &tree)?;
        Ok(Arc::new(DbHandle {
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
        }))
    }

    /// Closes an open database's storage (the handle leaves the list; its files are released
    /// when the last reference goes).
    fn close_db(&self, id: i32) -> Option<Arc<DbHandle>> {
        let mut dbs = self.dbs_list().lock();
        let pos = dbs.iter().position(|d| d.def.database_id == id)?;
        Some(dbs.remove(pos))
    }

    /// `ALTER DATABASE x SET EMERGENCY`: a damaged database opened read-only without
    /// recovery.
    fn set_emergency(&self, name: &str) -> SqlResult<()> {
        if let Some(h) = self.database(name) {
            if self.access(h.def.database_id).emergency.is_some() {
                return Ok(());
            }
            return Err(SqlError::unsupported(
                "SET EMERGENCY on an ONLINE database (latchkey enters EMERGENCY only from RECOVERY_PENDING or SUSPECT)",
            ));
        }
        let Some(u) = self.unavailable(name) else {
            return Err(SqlError::new(5011, &[&name]));
        };
        let dir = self.data_dir().join(&u.def.dir);
        let store = storage::Database::open_emergency(&dir, self.storage_config(), &u.def.name)?;
        let h = self.handle_of(u.def.clone(), store)?;
        self.unavailable_list()
            .lock()
            .retain(|x| x.def.database_id != u.def.database_id);
        self.dbs_list().lock().push(h);
        let id = u.def.database_id;
        self.access_map().lock().entry(id).or_default().emergency = Some(u);
        Ok(())
    }

    /// `ALTER DATABASE x SET ONLINE`: opens a damaged or EMERGENCY database normally (after
    /// its files were restored); if that fails it stays (or becomes again) unavailable.
    fn set_online(&self, name: &str) -> SqlResult<()> {
        let def = if let Some(h) = self.database(name) {
            let id = h.def.database_id;
            let Some(u) = self.access(id).emergency else {
                return Ok(()); // already ONLINE
            };
            drop(h);
            self.close_db(id);
            u.def
        } else if let Some(u) = self.unavailable(name) {
            self.unavailable_list()
                .lock()
                .retain(|x| x.def.database_id != u.def.database_id);
            u.def
        } else {
            return Err(SqlError::new(5011, &[&name]));
        };
        let id = def.database_id;
        if let Some(a) = self.access_map().lock().get_mut(&id) {
            a.emergency = None;
        }
        let dir = self.data_dir().join(&def.dir);
        let opened = storage::Database::open_existing(&dir, self.storage_config())
            .map_err(|e| crate::dbstate::name_open_error(e, &def.name))
            .and_then(|store| self.handle_of(def.clone(), store));
        match opened {
            Ok(h) => {
                self.dbs_list().lock().push(h);
                Ok(())
            }
            Err(error) => {
                self.unavailable_list().lock().push(Unavailable {
                    state: DbState::of_open_error(&error),
                    def,
                    error: error.clone(),
                });
                Err(error)
            }
        }
    }
}

impl Session {
    /// `ALTER DATABASE`: the options of the way out (module doc); other options keep their
    /// earlier handling (accepted, no effect).
    pub(crate) fn alter_database(&mut self, a: &ast::AlterDatabase) -> SqlResult<()> {
        let ast::AlterDatabaseAction::Set {
            options,
            termination,
        } = &a.action
        else {
            return Ok(());
        };
        let name = match &a.name {
            Some(n) => n.value.clone(),
            None => self.database().to_string(),
        };
        for o in options {
            match o.name.as_str() {
                "EMERGENCY" => self.engine().set_emergency(&name)?,
                "AUTO_CREATE_STATISTICS" | "AUTO_UPDATE_STATISTICS" => {
                    self.set_auto_statistics(&name, o)?
                }
                "ONLINE" => self.engine().set_online(&name)?,
                "ALLOW_SNAPSHOT_ISOLATION" | "READ_COMMITTED_SNAPSHOT" => {
                    self.alter_database_versioning(&name, o, termination.as_deref())?
                }
                "SINGLE_USER" | "MULTI_USER" | "RESTRICTED_USER" => {
                    let engine = self.engine().clone();
                    engine.check_single_user(&name, self.spid())?;
                    let id = match (engine.database(&name), engine.unavailable(&name)) {
                        (Some(h), _) => h.def.database_id,
                        (None, Some(u)) => u.def.database_id,
                        _ => return Err(SqlError::new(5011, &[&name])),
                    };
                    let mut map = engine.access_map().lock();
                    let entry = map.entry(id).or_default();
                    entry.single_user = match o.name.as_str() {
                        "SINGLE_USER" => Some(self.spid()),
                        "MULTI_USER" => None,
                        _ => return Err(SqlError::unsupported("SET RESTRICTED_USER")),
                    };
                }
                _ => {
                    let level = self
                        .engine()
                        .database(&name)
                        .map(|h| h.def.compatibility_level as i64)
                        .unwrap_or_default();
                    crate::noops::check_database_set_option(o, level)?
                }
            }
        }
        Ok(())
    }
}

/// True if `DBCC CHECKDB` names a repair option.
pub(crate) fn is_repair(d: &ast::Dbcc) -> bool {
    d.command == "CHECKDB" && d.args.iter().skip(1).any(|a| repair_option(a).is_some())
}

fn repair_option(e: &ast::Expr) -> Option<String> {
    match e {
        ast::Expr::Column(n) => {
            let s = n.name_str().to_ascii_uppercase();
            s.starts_with("REPAIR_").then_some(s)
        }
        _ => None,
    }
}

/// `DBCC CHECKDB (x, REPAIR_ALLOW_DATA_LOSS)`: requires SINGLE_USER (Msg 7919). An
/// EMERGENCY / RECOVERY_PENDING / SUSPECT database gets its log rebuilt from what the old one
/// still holds (storage `rebuild_log`), is checked, and comes back ONLINE; what was lost is
/// reported. Page-level repair is not implemented (an error says so).
pub(crate) fn checkdb_repair(
    s: &mut Session,
    d: &ast::Dbcc,
    sink: &mut dyn EventSink,
) -> SqlResult<()> {
    let option = d
        .args
        .iter()
        .skip(1)
        .find_map(repair_option)
        .unwrap_or_default();
    if option != "REPAIR_ALLOW_DATA_LOSS" {
        return Err(SqlError::unsupported(format!("DBCC CHECKDB {option}")));
    }
    let name = match d.args.first() {
        Some(ast::Expr::Column(n)) => n.name_str().to_string(),
        Some(e) => {
            let v = s.eval(e)?;
            crate::render::value_text(&v, &types::DataType::VarChar(None)).unwrap_or_default()
        }
        None => s.database().to_string(),
    };
    let engine = s.engine().clone();
    let (def, damaged) = match (engine.database(&name), engine.unavailable(&name)) {
        (Some(h), _) => (h.def.clone(), engine.access(h.def.database_id).emergency),
        (None, Some(u)) => (u.def.clone(), Some(u)),
        _ => return Err(SqlError::custom(2520, 16, 1, format!("Could not find database '{name}'. The database either does not exist, or was dropped before a statement tried to use it. Verify if the database exists by querying the sys.databases catalog view."))),
    };
    if engine.access(def.database_id).single_user.is_none() {
        return Err(SqlError::new(7919, &[]));
    }
    if damaged.is_none() {
        let h = s.db(&name)?;
        let errs = h.store.check()?;
        if errs.is_empty() {
            info(
                sink,
                8989,
                format!(
                    "CHECKDB found 0 allocation errors and 0 consistency errors in database '{}'.",
                    def.name
                ),
            );
            info(sink, 2528, "DBCC execution completed. If DBCC printed error messages, contact your system administrator.".into());
            return Ok(());
        }
        return Err(SqlError::unsupported(
            "REPAIR_ALLOW_DATA_LOSS of page-level damage in an ONLINE database",
        ));
    }
    let id = def.database_id;
    engine.close_db(id);
    engine
        .unavailable_list()
        .lock()
        .retain(|x| x.def.database_id != id);
    let dir = engine.data_dir().join(&def.dir);
    let result = storage::Database::rebuild_log(&dir, engine.storage_config())
        .map_err(|e| crate::dbstate::name_open_error(e, &def.name))
        .and_then(|(store, report)| Ok((engine.handle_of(def.clone(), store)?, report)));
    let (h, report) = match result {
        Ok(x) => x,
        Err(error) => {
            // still damaged: back to the list, not in EMERGENCY any more
            if let Some(a) = engine.access_map().lock().get_mut(&id) {
                a.emergency = None;
            }
            engine.unavailable_list().lock().push(Unavailable {
                state: DbState::of_open_error(&error),
                def,
                error: error.clone(),
            });
            return Err(error);
        }
    };
    if let Some(a) = engine.access_map().lock().get_mut(&id) {
        a.emergency = None;
    }
    let log = dir.join("log.ldf");
    match &report.old_log {
        None => info(sink, 8992, format!("Repair: the log file \"{}\" was missing; changes of transactions in flight at the last checkpoint could not be undone.", log.display())),
        Some(why) if !why.is_empty() => info(sink, 8992, format!("Repair: the log file \"{}\" could not be used ({why}); changes of transactions in flight at the last checkpoint could not be undone.", log.display())),
        Some(_) => info(sink, 8992, format!(
            "Repair: {} bytes of the log were replayed; {} bytes after its first damaged record were lost with the transactions they held; {} transaction(s) in flight were rolled back.",
            report.replayed_bytes, report.discarded_bytes, report.rolled_back
        )),
    }
    info(sink, 5029, format!("Warning: The log for database '{}' has been rebuilt. Transactional consistency has been lost. The RESTORE chain was broken, and the server no longer has context on the previous log files, so you will need to know what they were. You should run DBCC CHECKDB to validate physical consistency. The database has been put in dbo-only mode. When you are ready to make the database available for use, you will need to reset database options and delete any extra log files.", def.name));
    let errs = h.store.check()?;
    engine.dbs_list().lock().push(h);
    for e in &errs {
        info(sink, 8939, format!("Repair: not repaired: {e}"));
    }
    info(
        sink,
        8989,
        format!(
            "CHECKDB found 0 allocation errors and {} consistency errors in database '{}'.",
            errs.len(),
            def.name
        ),
    );
    info(sink, 2528, "DBCC execution completed. If DBCC printed error messages, contact your system administrator.".into());
    Ok(())
}
