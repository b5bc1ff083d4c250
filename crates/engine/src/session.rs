//! A session (one connection): current database, SET options, variables, temporary tables and
//! transactions; batch execution with the procedural interpreter (`interp.rs`).
//!
//! Transactions (engine/README T1..T4):
//! T1. A session holds at most one storage `Txn` per database it touched; they are begun lazily
//!     by [`Session::txn_for`].
//! T2. Outside an explicit transaction (`@@TRANCOUNT = 0`) every statement runs in autocommit:
//!     its txns commit when it succeeds and abort when it fails.
//! T3. `BEGIN TRAN` increments `@@TRANCOUNT`; `COMMIT` decrements it and commits every txn when it
//!     reaches 0; `ROLLBACK` aborts every txn and sets it to 0; `SAVE TRAN` records a savepoint
//!     in every open txn (a txn begun after the savepoint is aborted by `ROLLBACK TRAN sp`).
//! T4. After an abort or a rollback to a savepoint, the catalog cache of every database whose
//!     catalog the txn changed is reloaded (dbcat C2).
//! T5. Every partial rollback (`ROLLBACK TRAN savepoint`, a failed statement inside a
//!     transaction) goes through [`Session::rollback_to_mark`]; a [`TxnMark`] also holds the
//!     session's `#temp` name map, restored with the catalog (engine README, "DDL undo").

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use catalog::{Catalog, ModuleDef, QualifiedName, SchemaObject, SequenceDef, TableRef, TypeDef};
use common::{ObjectId, SqlError, SqlResult, TxnId};
use types::{DataType, Value};

use crate::events::{EventSink, TransactionChange};
use crate::server::{DbHandle, Engine};

/// SET options of a session.
#[derive(Clone, Debug)]
pub struct SessionOptions {
    pub nocount: bool,
    pub ansi_nulls: bool,
    pub ansi_padding: bool,
    pub ansi_warnings: bool,
    pub ansi_null_dflt_on: bool,
    pub concat_null_yields_null: bool,
    pub quoted_identifier: bool,
    pub arithabort: bool,
    pub xact_abort: bool,
    pub implicit_transactions: bool,
    /// `SET CURSOR_CLOSE_ON_COMMIT`: recorded and reported (@@OPTIONS 4, DBCC USEROPTIONS);
    /// latchkey has no T-SQL cursors for it to close (DECLARE CURSOR raises 40517).
    pub cursor_close_on_commit: bool,
    /// `SET ROWCOUNT n` (0 = no limit).
    pub rowcount: i64,
    pub datefirst: i32,
    pub dateformat: String,
    pub language: String,
    pub lock_timeout: i64,
    /// `SET TRANSACTION ISOLATION LEVEL` (locks/).
    pub isolation: crate::locks::IsolationLevel,
    /// `SET DEADLOCK_PRIORITY`: -10..10.
    pub deadlock_priority: i32,
    pub textsize: i64,
    /// `SET IDENTITY_INSERT t ON`: (database, object id).
    pub identity_insert: Option<(String, ObjectId)>,
    /// Other ON/OFF options (upper case) for `@@OPTIONS`-style queries and SHOWPLAN/STATISTICS.
    pub flags: HashMap<String, bool>,
    /// `SET STATISTICS IO ON`.
    pub statistics_io: bool,
    /// `SET STATISTICS TIME ON`.
    pub statistics_time: bool,
}

impl Default for SessionOptions {
    fn default() -> Self {
        SessionOptions {
            nocount: false,
            ansi_nulls: true,
            ansi_padding: true,
            ansi_warnings: true,
            ansi_null_dflt_on: true,
            concat_null_yields_null: true,
            quoted_identifier: true,
            arithabort: true,
            xact_abort: false,
            implicit_transactions: false,
            cursor_close_on_commit: false,
            rowcount: 0,
            datefirst: 7,
            dateformat: "mdy".into(),
            language: "us_english".into(),
            lock_timeout: -1,
            isolation: Default::default(),
            deadlock_priority: 0,
            textsize: 2_147_483_647,
            identity_insert: None,
            flags: HashMap::new(),
            statistics_io: false,
            statistics_time: false,
        }
    }
}

/// A declared variable.
#[derive(Clone, Debug)]
pub struct Variable {
    pub data_type: DataType,
    pub value: Value,
}

/// One variable scope (a batch, a module call, a dynamic SQL execution): values in slots
/// assigned at compile time (compile.rs), plus a name index for by-name lookups.
#[derive(Clone, Debug)]
pub struct Frame {
    pub(crate) names: HashMap<String, usize>,
    pub(crate) vars: Vec<Variable>,
    /// Backing tempdb tables of table variables declared in this frame (slot, object id).
    pub(crate) tables: Vec<(usize, ObjectId)>,
    /// Definitions of the frame's table variables (slot, definition).
    pub(crate) table_defs: Vec<(usize, parser::ast::TableDefinition)>,
    /// Slots below this are in scope for the statement being bound (`compile::Node::scope`).
    pub(crate) scope: usize,
    /// Slots the program declared (the scope applies to them); slots past these are added at
    /// run time (INSERT ... EXEC's row variables) and always visible.
    pub(crate) declared: usize,
}

impl Default for Frame {
    fn default() -> Frame {
        Frame {
            names: HashMap::new(),
            vars: Vec::new(),
            tables: Vec::new(),
            table_defs: Vec::new(),
            scope: usize::MAX,
            declared: 0,
        }
    }
}

impl Frame {
    /// A frame with one NULL slot per declared variable of `p`.
    pub(crate) fn for_program(p: &crate::compile::Program) -> Frame {
        let mut f = Frame {
            names: HashMap::with_capacity(p.vars.len()),
            vars: Vec::with_capacity(p.vars.len()),
            tables: Vec::new(),
            table_defs: Vec::new(),
            scope: usize::MAX,
            declared: p.vars.len(),
        };
        for (i, v) in p.vars.iter().enumerate() {
            if let Some(d) = &v.table {
                f.table_defs.push((i, d.clone()));
            }
            f.names.insert(v.name.clone(), i);
            f.vars.push(Variable {
                data_type: v.data_type.clone(),
                value: Value::Null,
            });
        }
        f
    }

    /// Whether the statement being bound may name `slot` (declared before it in the text).
    #[inline]
    pub(crate) fn in_scope(&self, slot: usize) -> bool {
        slot < self.scope || slot >= self.declared
    }

    /// Slot of `name` (with `@`, any case).
    #[inline]
    pub(crate) fn slot(&self, name: &str) -> Option<usize> {
        if let Some(s) = self.names.get(name) {
            return Some(*s);
        }
        if name.bytes().any(|b| b.is_ascii_uppercase()) || !name.is_ascii() {
            return self.names.get(&name.to_lowercase()).copied();
        }
        None
    }

    pub(crate) fn get(&self, name: &str) -> Option<&Variable> {
        self.slot(name).map(|s| &self.vars[s])
    }

    pub(crate) fn get_mut(&mut self, name: &str) -> Option<&mut Variable> {
        self.slot(name).map(|s| &mut self.vars[s])
    }

    pub(crate) fn insert(&mut self, name: &str, v: Variable) {
        match self.slot(name) {
            Some(s) => self.vars[s] = v,
            None => {
                self.names.insert(name.to_lowercase(), self.vars.len());
                self.vars.push(v);
            }
        }
    }
}

/// A rollback point of the session's transaction (T5): a savepoint in each open storage txn
/// (a txn begun later is aborted by a rollback to it) and the #temp name map at that point.
#[derive(Clone, Debug)]
pub struct TxnMark {
    storage: Vec<(String, storage::Savepoint)>,
    /// The transaction's row versions written before the mark (versioning.rs).
    versions: usize,
    temp_tables: HashMap<String, ObjectId>,
}

/// Information about the error being handled in a CATCH block.
#[derive(Clone, Debug)]
pub struct CaughtError {
    pub error: SqlError,
}

/// One connection's state.
/// The login of a session whose client named none: the conformance runners' JDBC login, which
/// their expected outputs carry (conformance/ENGINE_INTERFACE.md).
pub const DEFAULT_LOGIN: &str = "jdbc_user";

pub struct Session {
    pub(crate) engine: Arc<Engine>,
    pub(crate) spid: i32,
    /// The login the session runs as (SUSER_SNAME(), sys.dm_exec_sessions.login_name).
    pub(crate) login: String,
    pub(crate) database: String,
    pub options: SessionOptions,
    /// Variable frames: one per batch / module call (innermost last).
    pub(crate) frames: Vec<Frame>,
    /// `#name` (lower case) → tempdb object id.
    pub(crate) temp_tables: HashMap<String, ObjectId>,
    /// The filegroup the running DDL statement's `ON` names (filegroups.rs); None = none.
    pub(crate) ddl_data_space: Option<u16>,
    /// Open storage transactions, by database name.
    pub(crate) txns: Vec<(String, storage::Txn)>,
    pub(crate) trancount: u32,
    pub(crate) savepoints: Vec<(String, TxnMark)>,
    /// The `#temp` name map when the session's first storage txn began: restored by an abort
    /// (T5), since the catalog reload brings back the #temp tables the txn dropped.
    pub(crate) temp_tables_at_begin: Option<HashMap<String, ObjectId>>,
    /// Name of the outermost `BEGIN TRAN name` (the only one `ROLLBACK TRAN name` accepts
    /// besides savepoints).
    pub(crate) tran_name: Option<String>,
    /// Databases whose catalog the open transaction changed (T4).
    pub(crate) catalog_touched: HashSet<String>,
    /// The transaction can no longer commit (XACT_ABORT / error 3930 state).
    pub(crate) doomed: bool,
    pub(crate) rowcount: i64,
    pub(crate) error: i32,
    pub(crate) last_identity: Option<Value>,
    pub(crate) scope_identity: Option<Value>,
    /// Stack of errors being handled by CATCH blocks.
    pub(crate) caught: Vec<CaughtError>,
    /// TRY nesting depth (errors inside go to the CATCH block).
    pub(crate) try_depth: u32,
    /// Module nesting (`@@NESTLEVEL`) and names for error reports.
    pub(crate) modules: Vec<String>,
    pub(crate) temp_counter: u64,
    /// Compiled procedures: (database, object id) → program and its caches (run.rs).
    pub(crate) proc_cache: HashMap<(String, ObjectId), crate::run::ProcEntry>,
    /// Compiled ad-hoc batches and parameterised statements (plan_cache.rs).
    pub(crate) plan_cache: crate::plan_cache::PlanCache,
    /// Tables whose statistics the compile under way consulted (plan_stats.rs).
    pub(crate) stats_used: std::cell::RefCell<Vec<(String, ObjectId)>>,
    /// (CompileTime, CompileCPU) ms of the plan of the statement running (showplan XML).
    pub(crate) last_compile_ms: Option<(u64, u64)>,
    /// Scalar function nesting (RETURN expr yields a value) and the value returned.
    pub(crate) function_depth: u32,
    pub(crate) function_result: Option<Value>,
    /// Executing DML triggers (`inserted` / `deleted`), see trigger.rs.
    pub(crate) trig: crate::trigger::TriggerState,
    /// `OPTION (MAX_GRANT_PERCENT = p)` of the running statement: scales the operator memory
    /// budget (query.rs `with_grant`).
    pub(crate) grant_percent: Option<f64>,
    /// Per-operator actual counters of the last executed plan (actual plans, showplan.rs).
    pub(crate) last_actuals: Vec<exec::actuals::OpActuals>,
    /// 8 KB pages this session's statements wrote to work files, ever (the `spills` columns
    /// of sys.dm_exec_query_stats are differences of it).
    pub(crate) spilled_pages: u64,
    /// StmtId of the statement being shown in showplan mode (SHOWPLAN_ALL's StmtId column).
    pub(crate) showplan_stmt_id: i32,
    /// The search report of the statement planned last (stage, early abort, memo), for
    /// showplan (showplan.rs, showplan_memo.rs).
    pub(crate) last_search: Option<optimizer::search_stages::SearchReport>,
    /// Set by another thread to cancel the running request (an attention); polled by the
    /// interpreter and exec (`cancel_handle`, README "Cancellation").
    pub(crate) cancel: common::CancelToken,
    /// The caller clears `cancel` itself between requests (the TDS server: an attention that
    /// arrives before the request starts executing must still cancel it), so a new batch or
    /// RPC does not.
    pub(crate) caller_resets_cancel: bool,
    /// How the last transaction that was not a statement's own autocommit one ended: `true`
    /// committed, `false` rolled back (`report_transaction`, the server's ENVCHANGE 9/10).
    pub(crate) last_tran_end: Option<bool>,
    /// Whether a begun user transaction was reported to the sink and its end not yet
    /// (`report_transaction`).
    pub(crate) tran_reported: bool,
    /// The login's sid and sysadmin flag, and the module ownership chain (security/).
    pub(crate) principal: crate::security::SessionPrincipal,
    /// What other sessions see of this one (live.rs, sysprocs/sessions.rs).
    pub(crate) live: Arc<crate::sysprocs::SessionEntry>,
    /// Set when binding resolved a `sys` view: its rows are materialized into the plan, so
    /// the plan must not be cached (a DMV read twice must show the second moment).
    pub(crate) bind_volatile: std::cell::Cell<bool>,
    /// The next request panics (`inject_panic_for_tests`, live.rs `contain_panic`).
    pub(crate) inject_panic: bool,
    /// The lock owner of the session's current transaction (a fresh one after each commit
    /// or rollback, README "Locks").
    pub(crate) lock_owner: crate::locks::OwnerId,
    /// `(done, total)` of the running statement when it knows its total (BULK INSERT bytes,
    /// rows a rebuild copies), read by the shell's progress bar (`progress_handle`).
    pub(crate) progress: common::ProgressMeter,
    /// Row versioning state of the current transaction (versioning.rs).
    pub(crate) versions: crate::versioning::SessionVersions,
    /// The schema generations this session's cached entries depend on (schema_gen.rs).
    pub(crate) schema_view: crate::schema_gen::SchemaView,
}

impl Session {
    /// A new session on `engine` (current database `master`).
    pub fn new(engine: Arc<Engine>) -> Session {
        let spid = engine.next_spid();
        let cancel = common::CancelToken::new();
        let live = engine
            .sessions
            .register(spid, DEFAULT_LOGIN, cancel.clone());
        let engine_locks = engine.locks.clone();
        let s = Session {
            engine,
            spid,
            login: DEFAULT_LOGIN.into(),
            database: "master".into(),
            options: SessionOptions::default(),
            frames: vec![Frame::default()],
            temp_tables: HashMap::new(),
            ddl_data_space: None,
            txns: Vec::new(),
            trancount: 0,
            savepoints: Vec::new(),
            temp_tables_at_begin: None,
            tran_name: None,
            catalog_touched: HashSet::new(),
            doomed: false,
            rowcount: 0,
            error: 0,
            last_identity: None,
            scope_identity: None,
            caught: Vec::new(),
            try_depth: 0,
            modules: Vec::new(),
            temp_counter: 0,
            proc_cache: HashMap::new(),
            plan_cache: Default::default(),
            stats_used: Default::default(),
            last_compile_ms: None,
            function_depth: 0,
            function_result: None,
            trig: Default::default(),
            grant_percent: None,
            last_actuals: Vec::new(),
            spilled_pages: 0,
            showplan_stmt_id: 0,
            last_search: None,
            cancel,
            live,
            bind_volatile: std::cell::Cell::new(false),
            inject_panic: false,
            caller_resets_cancel: false,
            last_tran_end: None,
            tran_reported: false,
            principal: Default::default(),
            lock_owner: engine_locks.new_owner(),
            progress: common::ProgressMeter::new(),
            versions: Default::default(),
            schema_view: Default::default(),
        };
        // master holds the databases, logins and server options every session depends on
        if let Some(m) = s.engine.database("master") {
            s.schema_view.depend_on(&m.generation);
        }
        s
    }

    /// The session's schema generation: what its cached bound expressions and plans are
    /// tagged with; it moves when a database the session depends on changed, or the session
    /// changed something plan-affecting of its own (schema_gen.rs).
    #[inline]
    pub(crate) fn schema_generation(&self) -> u64 {
        self.schema_view.current()
    }

    /// The session's cancel flag: `cancel()` from any thread stops the running batch within
    /// 100 ms as SQL Server handles an attention (README "Cancellation"). Each new batch or
    /// RPC clears it; after `execute_batch` returns it tells whether the batch was cancelled.
    pub fn cancel_handle(&self) -> common::CancelToken {
        self.cancel.clone()
    }

    /// With `true` a new batch or RPC leaves the cancel flag as it is: the caller resets it
    /// once a cancel has been answered (the TDS server's attention protocol).
    pub fn set_caller_resets_cancel(&mut self, on: bool) {
        self.caller_resets_cancel = on;
    }

    /// Tells `sink` whether the user transaction began or ended since the last report (called
    /// after every statement, at any nesting level, and by the TDS server at the end of a
    /// request, for a batch abort's rollback): one `Begin` per transaction, one `End` after it.
    pub fn report_transaction(&mut self, sink: &mut dyn EventSink) {
        // inside a trigger @@TRANCOUNT is at least 1 even for an autocommit statement (its
        // own transaction, never a client's); the firing statement reports what is left
        if !self.trig.stack.is_empty() {
            return;
        }
        let open = self.trancount > 0;
        if open == self.tran_reported {
            return;
        }
        self.tran_reported = open;
        sink.transaction(if open {
            TransactionChange::Begin
        } else {
            TransactionChange::End(self.last_tran_end.take())
        });
    }

    /// The session's progress meter: while a statement with a known total runs (BULK INSERT,
    /// an index build or table rewrite) `get()` is `Some((done, total))`; any thread may read it.
    pub fn progress_handle(&self) -> common::ProgressMeter {
        self.progress.clone()
    }

    /// The engine this session belongs to.
    pub fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }

    /// The login the session runs as: SUSER_SNAME(), SYSTEM_USER, ORIGINAL_LOGIN(),
    /// sys.dm_exec_sessions.login_name. A client sets it when it connects (the command line:
    /// the operating-system user); [`DEFAULT_LOGIN`] until then.
    pub fn login(&self) -> &str {
        &self.login
    }

    /// Sets the login the session runs as, as a sysadmin (the embedded command line's
    /// operating-system user). A server uses [`Session::set_authenticated_login`].
    pub fn set_login(&mut self, login: &str) {
        self.login = login.to_string();
        self.engine.sessions.set_login(self.spid, login);
    }

    /// `@@SPID`.
    pub fn spid(&self) -> i32 {
        self.spid
    }

    /// Current database name.
    pub fn database(&self) -> &str {
        &self.database
    }

    /// `@@TRANCOUNT`.
    pub fn trancount(&self) -> u32 {
        self.trancount
    }

    /// Handle of a database by name (error 911 when missing).
    pub fn db(&self, name: &str) -> SqlResult<Arc<DbHandle>> {
        if let Some(u) = self.engine.unavailable(name) {
            return Err(u.use_error()); // 945 / 926 (dbstate.rs)
        }
        self.engine.check_single_user(name, self.spid)?;
        let h = self.engine.database(name).ok_or_else(|| {
            SqlError::custom(
                911,
                16,
                1,
                format!("Database '{name}' does not exist. Make sure that the name is entered correctly."),
            )
        })?;
        self.schema_view.depend_on(&h.generation);
        Ok(h)
    }

    /// The current database's handle.
    pub fn current_db(&self) -> SqlResult<Arc<DbHandle>> {
        self.db(&self.database)
    }

    // -----------------------------------------------------------------------------------------
    // Transactions

    /// The open storage txn of `database`, begun lazily (T1).
    pub fn txn_for(&mut self, database: &str) -> SqlResult<&mut storage::Txn> {
        let pos = self
            .txns
            .iter()
            .position(|(d, _)| catalog::name_eq(d, database));
        let pos = match pos {
            Some(p) => p,
            None => {
                let h = self.db(database)?;
                let t = h.store.begin()?;
                if self.txns.is_empty() {
                    self.temp_tables_at_begin = Some(self.temp_tables.clone());
                }
                self.txns.push((h.def.name.clone(), t));
                self.txns.len() - 1
            }
        };
        Ok(&mut self.txns[pos].1)
    }

    /// Commits every open txn (T2/T3).
    pub(crate) fn commit_all(&mut self) -> SqlResult<()> {
        let txns = std::mem::take(&mut self.txns);
        self.last_tran_end = Some(true);
        let ddl = self.ddl_transactions(&txns);
        let mut first_err = None;
        let mut failed = Vec::new();
        for (_, t) in txns {
            let id = t.id();
            if let Err(e) = t.commit() {
                failed.push(id);
                first_err.get_or_insert(e);
            }
        }
        // before the locks go: a session waiting for this DDL then reads it committed
        for (h, id) in ddl {
            if failed.contains(&id) {
                h.cat.write().ddl_rolled_back(id);
            } else {
                h.cat.write().ddl_committed(id);
            }
        }
        self.catalog_touched.clear();
        self.savepoints.clear();
        self.temp_tables_at_begin = None;
        self.doomed = false;
        // versions are stamped committed while the rows' locks are still held: a SNAPSHOT
        // writer waiting for them then sees the conflict (3960)
        self.versions_end(true);
        self.release_locks();
        match first_err {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Aborts every open txn and reloads touched catalogs (T3/T4).
    pub(crate) fn abort_all(&mut self) -> SqlResult<()> {
        let txns = std::mem::take(&mut self.txns);
        self.last_tran_end = Some(false);
        let ddl = self.ddl_transactions(&txns);
        let mut first_err = None;
        for (_, t) in txns {
            if let Err(e) = t.abort() {
                first_err.get_or_insert(e);
            }
        }
        self.savepoints.clear();
        self.doomed = false;
        if let Some(names) = self.temp_tables_at_begin.take() {
            self.temp_tables = names;
        }
        let reloaded = self.reload_touched();
        for (h, id) in ddl {
            h.cat.write().ddl_rolled_back(id);
        }
        self.versions_end(false);
        // the undo (rows and catalog cache) ran under the transaction's locks; only now may
        // others see what it restored
        self.release_locks();
        reloaded?;
        match first_err {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Releases every lock of the transaction that ended and starts a new lock owner.
    pub(crate) fn release_locks(&mut self) {
        self.engine.locks.release_all(self.lock_owner);
        self.lock_owner = self.engine.locks.new_owner();
    }

    /// Who asks for a lock now (locks/): this transaction, its priority and lock timeout.
    pub(crate) fn lock_request(&self) -> crate::locks::LockRequest {
        crate::locks::LockRequest {
            owner: self.lock_owner,
            spid: self.spid,
            priority: self.options.deadlock_priority,
            timeout_ms: self.options.lock_timeout,
            cancel: Some(self.cancel.clone()),
        }
    }

    /// Sch-M on a table a DDL statement creates, alters or drops, to the end of the
    /// transaction: other sessions' reads and writes of it wait (README "Locks"; tempdb is
    /// not locked).
    pub(crate) fn lock_schema(&mut self, h: &DbHandle, object_id: ObjectId) -> SqlResult<()> {
        let res = crate::locks::Resource::Object {
            db: h.def.database_id,
            object: object_id,
        };
        self.lock_schema_resource(h, res)
    }

    /// Sch-M on `res` (an object or a METADATA entry) to the end of the transaction.
    fn lock_schema_resource(&mut self, h: &DbHandle, res: crate::locks::Resource) -> SqlResult<()> {
        if h.def.database_id == crate::server::TEMPDB_ID {
            return Ok(());
        }
        self.engine
            .locks
            .acquire(&self.lock_request(), res, crate::locks::LockMode::SchM)
            .map(|_| ())
            .map_err(|e| crate::locks::lock_error(e, self.spid))
    }

    fn reload_touched(&mut self) -> SqlResult<()> {
        let touched: Vec<String> = self.catalog_touched.drain().collect();
        self.reload_catalogs(touched)
    }

    /// Reloads the catalog caches of `dbs` (dbcat C2) and forgets #temp names whose table the
    /// rollback removed.
    fn reload_catalogs(&mut self, dbs: Vec<String>) -> SqlResult<()> {
        let mut first_err = None;
        for d in dbs {
            if let Some(h) = self.engine.database(&d) {
                if let Err(e) = h.reload_catalog() {
                    first_err.get_or_insert(e);
                }
            }
        }
        // Temp tables created in the rolled-back txn no longer exist.
        if let Some(t) = self.engine.database("tempdb") {
            let cat = t.cat.read();
            self.temp_tables
                .retain(|_, id| cat.objects.contains_key(id));
        }
        match first_err {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// A point the open transaction can roll back to (`SAVE TRAN`, the start of a statement).
    pub(crate) fn mark(&mut self) -> TxnMark {
        TxnMark {
            storage: self
                .txns
                .iter_mut()
                .map(|(db, t)| (db.clone(), t.savepoint()))
                .collect(),
            versions: self.versions_mark(),
            temp_tables: self.temp_tables.clone(),
        }
    }

    /// Rolls the transaction back to `mark` (T5): each storage txn to its savepoint (storage
    /// undoes DDL and DML alike, and frees nothing a rolled-back drop restored: storage README
    /// A5), txns begun after the mark are aborted, the touched catalogs are reloaded and the
    /// #temp name map is restored. The transaction stays open, so the touched set stays.
    pub(crate) fn rollback_to_mark(&mut self, mark: &TxnMark) -> SqlResult<()> {
        let mut keep = Vec::new();
        let mut first_err = None;
        for (db, mut t) in std::mem::take(&mut self.txns) {
            let r = match mark.storage.iter().find(|(d, _)| *d == db) {
                Some((_, sp)) => t.rollback_to(*sp).map(|_| keep.push((db, t))),
                None => t.abort(),
            };
            if let Err(e) = r {
                first_err.get_or_insert(e);
            }
        }
        self.txns = keep;
        self.versions_rollback_to(mark.versions);
        self.temp_tables = mark.temp_tables.clone();
        let touched: Vec<String> = self.catalog_touched.iter().cloned().collect();
        let reloaded = self.reload_catalogs(touched);
        match first_err {
            Some(e) => {
                // A txn that could not be rolled back was aborted (Txn's drop): what is left
                // must not commit.
                self.doomed = true;
                Err(e)
            }
            None => reloaded,
        }
    }

    /// `ROLLBACK TRAN savepoint`.
    pub(crate) fn rollback_to_savepoint(&mut self, name: &str) -> SqlResult<()> {
        let Some(pos) = self
            .savepoints
            .iter()
            .rposition(|(n, _)| n.eq_ignore_ascii_case(name))
        else {
            return Err(SqlError::new(6401, &[&name]));
        };
        let mark = self.savepoints[pos].1.clone();
        self.savepoints.truncate(pos + 1);
        self.rollback_to_mark(&mark)
    }

    /// Ends the statement's autocommit txns (T2).
    pub(crate) fn end_statement(&mut self, ok: bool) -> SqlResult<()> {
        if self.trancount > 0 {
            return Ok(());
        }
        // a statement's own transaction is not a user transaction's end (ENVCHANGE 9/10)
        let user_end = self.last_tran_end;
        let r = if ok {
            self.commit_all()
        } else {
            self.abort_all()
        };
        self.last_tran_end = user_end;
        r
    }

    /// Marks the catalog of `database` as changed by the open txn (T4), and takes Sch-M to
    /// the end of the transaction on every object the txn created, altered or dropped there:
    /// other sessions' name resolution and catalog views wait for its end (README "Catalog
    /// visibility"). In tempdb only this session's own cached entries are re-bound: another
    /// session cannot name its `#temp` tables (`DbCatalog::is_private_temp`).
    pub(crate) fn touch_catalog(&mut self, database: &str) -> SqlResult<()> {
        self.catalog_touched.insert(database.to_string());
        let Some(h) = self.engine.database(database) else {
            return Ok(());
        };
        if h.def.database_id == crate::server::TEMPDB_ID {
            self.schema_view.invalidate();
            return Ok(());
        }
        let Some(txn) = self
            .txns
            .iter()
            .find(|(d, _)| catalog::name_eq(d, database))
            .map(|(_, t)| t.id())
        else {
            return Ok(());
        };
        let keys = h.cat.read().pending_ddl_of(txn);
        for k in keys {
            self.lock_schema_resource(&h, k.resource(h.def.database_id))?;
        }
        Ok(())
    }

    /// The storage txns among `txns` whose database catalog this transaction touched, with
    /// their databases: whose uncommitted DDL its end settles (`DbCatalog::ddl_committed`).
    fn ddl_transactions(&self, txns: &[(String, storage::Txn)]) -> Vec<(Arc<DbHandle>, TxnId)> {
        txns.iter()
            .filter(|(d, _)| self.catalog_touched.iter().any(|t| catalog::name_eq(t, d)))
            .filter_map(|(d, t)| Some((self.engine.database(d)?, t.id())))
            .collect()
    }

    /// SQL Server reads metadata (catalog views, metadata functions, permission checks) under
    /// READ COMMITTED whatever the isolation level: a reader waits for every transaction with
    /// uncommitted changes to catalog entries of `classes` in database `h` (on their Sch-M,
    /// under the session's lock timeout and deadlock detection) and then sees what it
    /// committed or what its rollback left. `NOLOCK` / READ UNCOMMITTED readers do not call
    /// this and see the uncommitted catalog. The session's own DDL does not block it.
    pub(crate) fn await_committed_catalog(
        &self,
        h: &DbHandle,
        classes: &[crate::dbcat::MetaClass],
    ) -> SqlResult<()> {
        if h.def.database_id == crate::server::TEMPDB_ID || classes.is_empty() {
            return Ok(());
        }
        let mut waited: Vec<crate::dbcat::MetaKey> = Vec::new();
        loop {
            let keys: Vec<crate::dbcat::MetaKey> = h
                .cat
                .read()
                .pending_ddl(classes)
                .into_iter()
                .filter(|k| !waited.contains(k))
                .collect();
            if keys.is_empty() {
                return Ok(());
            }
            for k in keys {
                self.resource_stable(h, k.resource(h.def.database_id))?;
                waited.push(k);
            }
        }
    }

    /// Name resolution of a schema or a type (`class`): waits for another transaction's
    /// uncommitted change to the entry found by name (`found`, its id) and to any entry of
    /// `class` it dropped (the name of a dropped one is gone from the cache), then the caller
    /// reads the name again. Skipped at READ UNCOMMITTED.
    pub(crate) fn await_named_entry(
        &self,
        h: &DbHandle,
        class: crate::dbcat::MetaClass,
        found: Option<i32>,
    ) -> SqlResult<()> {
        if self.options.isolation == crate::locks::IsolationLevel::ReadUncommitted
            || h.def.database_id == crate::server::TEMPDB_ID
        {
            return Ok(());
        }
        let keys: Vec<crate::dbcat::MetaKey> = {
            let cat = h.cat.read();
            cat.pending_ddl(&[class])
                .into_iter()
                .filter(|k| Some(k.id) == found || !cat.entry_exists(class, k.id))
                .collect()
        };
        for k in keys {
            self.resource_stable(h, k.resource(h.def.database_id))?;
        }
        Ok(())
    }

    /// User-defined type `schema.name` of `h` as committed: another transaction's
    /// uncommitted CREATE / DROP TYPE is waited for ([`Session::await_named_entry`]).
    pub(crate) fn user_type_committed(
        &self,
        h: &DbHandle,
        schema: &str,
        name: &str,
    ) -> SqlResult<Option<Arc<catalog::TypeDef>>> {
        let found = h.cat.read().user_type(schema, name);
        self.await_named_entry(
            h,
            crate::dbcat::MetaClass::Type,
            found.map(|t| t.user_type_id),
        )?;
        // read after the wait: what the other transaction committed or its rollback left
        Ok(h.cat.read().user_type(schema, name))
    }

    /// [`Session::await_committed_catalog`] for one class, skipped at READ UNCOMMITTED: what a
    /// permission check or a type's name resolution reads.
    pub(crate) fn await_committed_class(
        &self,
        h: &DbHandle,
        class: crate::dbcat::MetaClass,
    ) -> SqlResult<()> {
        if self.options.isolation == crate::locks::IsolationLevel::ReadUncommitted {
            return Ok(());
        }
        self.await_committed_catalog(h, &[class])
    }

    // -----------------------------------------------------------------------------------------
    // Variables

    /// Looks a variable up (case-insensitive, with `@`).
    pub fn var(&self, name: &str) -> Option<&Variable> {
        self.frames.last().and_then(|f| f.get(name))
    }

    /// Assigns a variable, converting to its declared type.
    pub fn assign_var(&mut self, name: &str, v: Value) -> SqlResult<()> {
        let frame = self
            .frames
            .last_mut()
            .ok_or_else(|| SqlError::internal("no variable frame"))?;
        let Some(var) = frame.get_mut(name) else {
            return Err(SqlError::new(137, &[&name]));
        };
        var.value = crate::interp::convert_value(v, &var.data_type)?;
        Ok(())
    }

    // -----------------------------------------------------------------------------------------
    // Temp tables

    /// Drops this session's temporary tables (called at session end).
    pub fn drop_temp_tables(&mut self) {
        let ids: Vec<ObjectId> = self.temp_tables.values().copied().collect();
        if ids.is_empty() {
            return;
        }
        let _ = self.abort_all();
        for id in ids {
            let _ = self.drop_table_by_id("tempdb", id);
        }
        let _ = self.commit_all();
        self.temp_tables.clear();
    }

    /// Drops a table (storage objects and catalog row) in the open txn.
    pub(crate) fn drop_table_by_id(&mut self, database: &str, id: ObjectId) -> SqlResult<()> {
        let h = self.db(database)?;
        let obj = h.cat.read().objects.get(&id).cloned();
        let table = match obj {
            Some(SchemaObject::Table(t)) => t,
            Some(SchemaObject::Module(_)) => {
                // A #temp procedure.
                let tree = h.store.catalog_btree()?;
                let txn = self.txn_for(database)?;
                h.cat.write().remove(&tree, txn, id)?;
                self.touch_catalog(database)?;
                self.temp_tables.retain(|_, v| *v != id);
                return Ok(());
            }
            _ => return Ok(()),
        };
        let tree = h.store.catalog_btree()?;
        let txn = self.txn_for(database)?;
        for ix in &table.indexes {
            h.store.drop_object(txn, storage::ObjId(ix.storage_id))?;
        }
        if let catalog::TableStorage::Heap(hid) = table.storage {
            h.store.drop_object(txn, storage::ObjId(hid))?;
        }
        h.cat.write().remove(&tree, txn, id)?;
        self.touch_catalog(database)?;
        self.temp_tables.retain(|_, v| *v != id);
        Ok(())
    }

    // -----------------------------------------------------------------------------------------
    // Name resolution helpers

    /// (database, schema) a name refers to, with defaults; temp names map to tempdb.
    pub fn resolve_parts(&self, name: &QualifiedName) -> (String, String) {
        if name.is_temp() {
            return ("tempdb".into(), "dbo".into());
        }
        let db = name
            .database
            .clone()
            .filter(|d| !d.is_empty())
            .unwrap_or_else(|| self.database.clone());
        let schema = name
            .schema
            .clone()
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "dbo".into());
        (db, schema)
    }

    /// Finds any schema object by name (temp tables included).
    pub fn find_object(
        &self,
        name: &QualifiedName,
    ) -> SqlResult<Option<(Arc<DbHandle>, SchemaObject)>> {
        if name.name.starts_with('@') {
            // Table variable: its backing tempdb table (compile.rs / run.rs).
            let id = self.frames.last().and_then(|f| {
                let slot = f.slot(&name.name)?;
                f.tables.iter().find(|(s, _)| *s == slot).map(|(_, id)| *id)
            });
            let Some(h) = self.engine.database("tempdb") else {
                return Ok(None);
            };
            self.schema_view.depend_on(&h.generation);
            let found = id.and_then(|id| h.cat.read().objects.get(&id).cloned());
            return Ok(found.map(|o| (h.clone(), o)));
        }
        let (dbname, schema) = self.resolve_parts(name);
        let Some(h) = self.engine.database(&dbname) else {
            if let Some(u) = self.engine.unavailable(&dbname) {
                return Err(u.use_error()); // 945 / 926 (dbstate.rs)
            }
            return Ok(None);
        };
        self.schema_view.depend_on(&h.generation);
        if name.is_temp() {
            let id = if name.name.starts_with("##") {
                h.cat
                    .read()
                    .lookup("dbo", &name.name)
                    .map(|o| o.object_id())
            } else {
                self.temp_tables.get(&name.name.to_lowercase()).copied()
            };
            let found = id.and_then(|id| h.cat.read().objects.get(&id).cloned());
            return Ok(found.map(|o| (h.clone(), o)));
        }
        // Inside a trigger, one-part names resolve in the trigger's schema first.
        if name.schema.is_none() && name.database.is_none() {
            if let Some(ts) = self.trigger_schema() {
                let found = h.cat.read().lookup(ts, &name.name).cloned();
                if let Some(o) = found {
                    return Ok(Some((h, o)));
                }
            }
        }
        let id = {
            let cat = h.cat.read();
            match cat.lookup(&schema, &name.name) {
                Some(o) => Some(o.object_id()),
                None => cat.dropped_table(&schema, &name.name),
            }
        };
        let Some(id) = id else {
            return Ok(None);
        };
        self.schema_stable(&h, id)?;
        // read after the wait: what another transaction's DDL committed, or what its
        // rollback left
        let found = h.cat.read().lookup(&schema, &name.name).cloned();
        Ok(found.map(|o| (h, o)))
    }

    /// SQL Server's compile-time Sch-S: waits while another transaction holds Sch-M on the
    /// object (an uncommitted CREATE, ALTER or DROP TABLE: its DDL becomes visible to this
    /// session at its commit), under the session's lock timeout and deadlock detection, and
    /// releases it at once (a lock the transaction already holds on it is kept). tempdb is
    /// not locked.
    fn schema_stable(&self, h: &DbHandle, object_id: ObjectId) -> SqlResult<()> {
        let res = crate::locks::Resource::Object {
            db: h.def.database_id,
            object: object_id,
        };
        self.resource_stable(h, res)
    }

    /// [`Session::schema_stable`] on any resource (an object or a METADATA entry).
    fn resource_stable(&self, h: &DbHandle, res: crate::locks::Resource) -> SqlResult<()> {
        if h.def.database_id == crate::server::TEMPDB_ID {
            return Ok(());
        }
        let mgr = &self.engine.locks;
        let req = self.lock_request();
        let acquired = mgr
            .acquire(&req, res, crate::locks::LockMode::SchS)
            .map_err(|e| crate::locks::lock_error(e, self.spid))?;
        if acquired == crate::locks::Acquired::New {
            mgr.release_if(req.owner, &res, crate::locks::LockMode::SchS);
        }
        Ok(())
    }
}

impl Session {
    /// `DECLARE @t TABLE (...)`: creates the backing tempdb table of slot `slot` of the current
    /// frame (once per frame; a DECLARE in a loop does not re-create it).
    pub(crate) fn declare_table_variable(&mut self, slot: usize) -> SqlResult<()> {
        let Some(frame) = self.frames.last() else {
            return Err(SqlError::internal("no variable frame"));
        };
        if frame.tables.iter().any(|(s, _)| *s == slot) {
            return Ok(());
        }
        let def = self
            .frame_table_definition(slot)
            .ok_or_else(|| SqlError::internal("table variable without definition"))?;
        self.temp_counter += 1;
        let tmp_name = format!("#tv{}_{}", self.spid, self.temp_counter);
        let ct = parser::ast::CreateTable {
            name: parser::ast::ObjectName::single(tmp_name.clone()),
            definition: def,
            on: None,
            textimage_on: None,
            with_options: Vec::new(),
        };
        let t = self.outside_transaction(|me| me.create_table(&ct))?;
        self.temp_tables.remove(&tmp_name.to_lowercase());
        if let Some(f) = self.frames.last_mut() {
            f.tables.push((slot, t.object_id));
        }
        Ok(())
    }

    fn frame_table_definition(&self, slot: usize) -> Option<parser::ast::TableDefinition> {
        self.frames
            .last()?
            .table_defs
            .iter()
            .find(|(s, _)| *s == slot)
            .map(|(_, d)| d.clone())
    }

    /// Drops the backing tables of a frame's table variables (end of batch / module).
    pub(crate) fn drop_table_variables(&mut self, frame: &Frame) {
        for (_, id) in &frame.tables {
            let id = *id;
            let _ = self.outside_transaction(|me| me.drop_table_by_id("tempdb", id));
        }
    }

    /// Runs `f` as an autocommit statement of its own, outside the session's open transaction:
    /// a table variable's backing table exists from its DECLARE to the end of its scope
    /// whatever the transaction does (SQL Server: a rollback does not affect table variables).
    fn outside_transaction<T>(
        &mut self,
        f: impl FnOnce(&mut Session) -> SqlResult<T>,
    ) -> SqlResult<T> {
        let txns = std::mem::take(&mut self.txns);
        let savepoints = std::mem::take(&mut self.savepoints);
        let touched = std::mem::take(&mut self.catalog_touched);
        let at_begin = self.temp_tables_at_begin.take();
        let trancount = std::mem::replace(&mut self.trancount, 0);
        let doomed = std::mem::replace(&mut self.doomed, false);
        let owner = std::mem::replace(&mut self.lock_owner, self.engine.locks.new_owner());
        let r = self.autocommit(f);
        self.engine.locks.release_all(self.lock_owner);
        self.lock_owner = owner;
        // the statement's own txns ended in autocommit; put the transaction back
        self.txns = txns;
        self.savepoints = savepoints;
        self.catalog_touched = touched;
        self.temp_tables_at_begin = at_begin;
        self.trancount = trancount;
        self.doomed = doomed;
        r
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if !self.txns.is_empty() {
            let _ = self.abort_all();
        }
        self.drop_temp_tables();
        self.engine.locks.release_all(self.lock_owner);
        self.engine.sessions.unregister(self.spid);
    }
}

impl Catalog for Session {
    fn current_database(&self) -> String {
        self.database.clone()
    }

    fn current_schema(&self) -> String {
        "dbo".into()
    }

    fn resolve_table(&self, name: &QualifiedName) -> SqlResult<Option<TableRef>> {
        self.resolve_table_reading(name, false)
    }

    fn resolve_table_uncommitted(&self, name: &QualifiedName) -> SqlResult<Option<TableRef>> {
        self.resolve_table_reading(name, true)
    }

    fn check_access(&self, access: &catalog::ObjectAccess) -> SqlResult<()> {
        self.check_object_access(access)
    }

    fn resolve_module(&self, name: &QualifiedName) -> SqlResult<Option<Arc<ModuleDef>>> {
        Ok(match self.find_object(name)? {
            Some((_, SchemaObject::Module(m))) => Some(m),
            _ => None,
        })
    }

    fn resolve_sequence(&self, name: &QualifiedName) -> SqlResult<Option<Arc<SequenceDef>>> {
        Ok(match self.find_object(name)? {
            Some((_, SchemaObject::Sequence(s))) => Some(s),
            _ => None,
        })
    }

    fn resolve_type(&self, name: &QualifiedName) -> SqlResult<Option<Arc<TypeDef>>> {
        let (db, schema) = self.resolve_parts(name);
        let Some(h) = self.engine.database(&db) else {
            return Ok(None);
        };
        self.schema_view.depend_on(&h.generation);
        self.user_type_committed(&h, &schema, &name.name)
    }

    fn resolve_object(&self, name: &QualifiedName) -> SqlResult<Option<SchemaObject>> {
        Ok(self.find_object(name)?.map(|(_, o)| o))
    }

    fn database_id(&self, name: &str) -> Option<i32> {
        self.engine
            .database(name)
            .map(|h| h.def.database_id)
            .or_else(|| self.engine.unavailable(name).map(|u| u.def.database_id))
    }

    fn database_name(&self, id: i32) -> Option<String> {
        self.engine.database_by_id(id).map(|h| h.def.name.clone())
    }

    fn object_name(&self, object_id: ObjectId, database_id: Option<i32>) -> Option<String> {
        let h = match database_id {
            Some(id) => self.engine.database_by_id(id)?,
            None => self.engine.database(&self.database)?,
        };
        // a metadata function reads as READ COMMITTED: an object with another transaction's
        // uncommitted DDL is waited for (a lock error reads as no such object)
        let pending = h.cat.read().is_ddl_pending(object_id);
        if pending && self.options.isolation != crate::locks::IsolationLevel::ReadUncommitted {
            self.schema_stable(&h, object_id).ok()?;
        }
        let cat = h.cat.read();
        cat.objects.get(&object_id).map(|o| o.name().to_string())
    }

    fn schema_id(&self, name: &str) -> Option<i32> {
        let h = self.engine.database(&self.database)?;
        // read committed, as OBJECT_NAME (a lock error reads as no such schema)
        let found = h.cat.read().schema(name).map(|s| s.schema_id);
        self.await_named_entry(&h, crate::dbcat::MetaClass::Schema, found)
            .ok()?;
        let cat = h.cat.read();
        cat.schema(name).map(|s| s.schema_id)
    }

    fn schema_name(&self, id: i32) -> Option<String> {
        let h = self.engine.database(&self.database)?;
        let cat = h.cat.read();
        cat.schema_by_id(id).map(|s| s.name.clone())
    }

    fn table_rows(&self, table: &catalog::TableDef) -> Option<u64> {
        crate::table_rows::table_rows(self, table)
    }

    fn statistics(
        &self,
        table: &catalog::TableDef,
        columns: &[usize],
    ) -> Vec<Arc<catalog::statistics::StatisticsObject>> {
        self.stats_used
            .borrow_mut()
            .push((table.database.clone(), table.object_id));
        crate::statistics::for_optimizer(self, table, columns)
    }
}

impl Session {
    /// `sp_reset_connection` (the TDS RESETCONNECTION status bit of a pooled connection's next
    /// request): rolls back the open transaction unless `keep_transaction`
    /// (RESETCONNECTIONSKIPTRAN), drops the session's #temp tables, and restores the SET
    /// options, variables, error state and the login's database.
    pub fn reset_connection(&mut self, keep_transaction: bool, database: &str) {
        if !keep_transaction {
            self.trancount = 0;
            self.tran_name = None;
            if !self.txns.is_empty() {
                let _ = self.abort_all();
            }
        }
        if self.trancount == 0 {
            self.drop_temp_tables();
        }
        self.options = SessionOptions::default();
        self.frames = vec![Frame::default()];
        self.caught.clear();
        self.try_depth = 0;
        self.modules.clear();
        self.rowcount = 0;
        self.error = 0;
        self.last_identity = None;
        self.scope_identity = None;
        if let Some(h) = self.engine.database(database) {
            self.schema_view.depend_on(&h.generation);
            self.database = database.to_string();
        }
        self.schema_view.invalidate(); // SET options back to their defaults
                                       // a reset's rollback is not reported: the reset itself ends the client's transaction
        self.tran_reported = self.trancount > 0;
        self.last_tran_end = None;
    }
}

impl Session {
    /// `resolve_table`; `dirty`: a `NOLOCK` / `READUNCOMMITTED` reference, whose catalog
    /// view shows other transactions' uncommitted DDL (as does the READ UNCOMMITTED level).
    fn resolve_table_reading(
        &self,
        name: &QualifiedName,
        dirty: bool,
    ) -> SqlResult<Option<TableRef>> {
        if let Some(t) = self.trigger_table(name) {
            return Ok(Some(t));
        }
        if let Some(schema) = &name.schema {
            if schema.eq_ignore_ascii_case("sys")
                || schema.eq_ignore_ascii_case("INFORMATION_SCHEMA")
            {
                let (db, _) = self.resolve_parts(name);
                let read_committed = !dirty
                    && self.options.isolation != crate::locks::IsolationLevel::ReadUncommitted;
                let classes = crate::sysviews::metadata_classes(schema, &name.name);
                if read_committed && !classes.is_empty() {
                    if let Some(h) = self.engine.database(&db) {
                        self.schema_view.depend_on(&h.generation);
                        self.await_committed_catalog(&h, classes)?;
                    }
                    // the server-level security views read master's logins
                    if crate::sysviews::reads_logins(&name.name) {
                        let m = self.engine.master()?;
                        self.await_committed_catalog(&m, classes)?;
                    }
                }
                if let Some(v) = crate::sysviews::system_view(self, &db, schema, &name.name)? {
                    self.bind_volatile.set(true);
                    return Ok(Some(TableRef::Virtual(Arc::new(v))));
                }
                if schema.eq_ignore_ascii_case("INFORMATION_SCHEMA") {
                    return Ok(None);
                }
            }
        }
        Ok(match self.find_object(name)? {
            Some((_, SchemaObject::Table(t))) => Some(TableRef::Table(t)),
            Some((_, SchemaObject::View(v))) => Some(TableRef::View(v)),
            _ => None,
        })
    }
}
