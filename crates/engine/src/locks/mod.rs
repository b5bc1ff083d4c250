//! Locks (engine README, "Locks"): the lock manager ([`LockManager`]), isolation levels and
//! table hints, and the lockers a session hands to exec for each table access
//! ([`exec::locking::TableLocker`]).

mod manager;
mod mode;
mod resource;

use std::sync::Arc;

use common::{SqlError, SqlResult};
use exec::locking::{TableAccess, TableLocker};
use plan::catalog::{TableDef, TableStorage};

pub use manager::{
    Acquired, LockError, LockInfo, LockManager, LockRequest, ObjectActivity, OwnerId,
    WaitingRequest, ESCALATION_THRESHOLD,
};
pub use mode::LockMode;
pub use resource::Resource;

/// `SET TRANSACTION ISOLATION LEVEL`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IsolationLevel {
    ReadUncommitted,
    #[default]
    ReadCommitted,
    RepeatableRead,
    Serializable,
    /// Row versioning (versioning.rs): reads see the transaction's snapshot; accessing a
    /// database that does not allow snapshot isolation raises Msg 3952.
    Snapshot,
}

impl IsolationLevel {
    pub fn from_ast(l: &parser::ast::IsolationLevel) -> IsolationLevel {
        use parser::ast::IsolationLevel as A;
        match l {
            A::ReadUncommitted => IsolationLevel::ReadUncommitted,
            A::ReadCommitted => IsolationLevel::ReadCommitted,
            A::RepeatableRead => IsolationLevel::RepeatableRead,
            A::Serializable => IsolationLevel::Serializable,
            A::Snapshot => IsolationLevel::Snapshot,
        }
    }

    /// `sys.dm_exec_sessions.transaction_isolation_level`.
    pub fn code(self) -> i16 {
        match self {
            IsolationLevel::ReadUncommitted => 1,
            IsolationLevel::ReadCommitted => 2,
            IsolationLevel::RepeatableRead => 3,
            IsolationLevel::Serializable => 4,
            IsolationLevel::Snapshot => 5,
        }
    }

    /// `DBCC USEROPTIONS`' `isolation level` value.
    pub fn text(self) -> &'static str {
        match self {
            IsolationLevel::ReadUncommitted => "read uncommitted",
            IsolationLevel::ReadCommitted => "read committed",
            IsolationLevel::RepeatableRead => "repeatable read",
            IsolationLevel::Serializable => "serializable",
            IsolationLevel::Snapshot => "snapshot",
        }
    }
}

/// `SET DEADLOCK_PRIORITY` value: LOW = -5, NORMAL = 0, HIGH = 5, or -10..10.
pub fn parse_deadlock_priority(word: &str) -> SqlResult<i32> {
    let w = word.trim();
    let p = match w.to_ascii_uppercase().as_str() {
        "LOW" => -5,
        "NORMAL" => 0,
        "HIGH" => 5,
        _ => match w.parse::<i32>() {
            Ok(n) if (-10..=10).contains(&n) => n,
            _ => return Err(SqlError::new(1023, &[&w, &"DEADLOCK_PRIORITY"])),
        },
    };
    Ok(p)
}

/// The error a failed lock request becomes: 1222 (statement-terminating), 1205 (the engine
/// rolls the transaction back, batch-aborting) or the attention.
pub fn lock_error(e: LockError, spid: i32) -> SqlError {
    match e {
        LockError::Timeout => SqlError::new(1222, &[]).with_state(51),
        LockError::Deadlock => SqlError::new(1205, &[&spid, &"lock"]).with_state(51),
        LockError::Cancelled => SqlError::attention(),
    }
}

/// What one table access locks, decided from the isolation level and the table hints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Plan {
    /// Object lock for the statement's access (None: none).
    object: Option<LockMode>,
    /// The object lock is released when the access ends (READ COMMITTED).
    object_for_statement: bool,
    /// Row lock before a row is read (None: rows are not locked for reading).
    row: Option<LockMode>,
    /// Rows are locked even when no other transaction writes the table (the lock is kept,
    /// or it is an update lock a later write of this statement relies on).
    always: bool,
    /// Row read locks are released as the row is passed.
    release_rows: bool,
    readpast: bool,
    nowait: bool,
    /// Key-range mode of a SERIALIZABLE read of a B-tree (RangeS-S, RangeS-U for an UPDATE /
    /// DELETE scan): every key read and the next key past the range (exec `key_range`).
    range: Option<LockMode>,
}

/// Decides the locks of an access (exec README "Locks" lists the hints). `heap`: the table
/// has no clustered index (SERIALIZABLE then locks the whole table: no keys to range-lock).
fn plan_for(
    level: IsolationLevel,
    hints: &[String],
    access: TableAccess,
    heap: bool,
) -> SqlResult<Plan> {
    let mut level = level;
    let (mut updlock, mut xlock, mut tablock, mut tablockx, mut readpast, mut nowait) =
        (false, false, false, false, false, false);
    for h in hints {
        match h.as_str() {
            "NOLOCK" | "READUNCOMMITTED" => level = IsolationLevel::ReadUncommitted,
            "READCOMMITTED" | "READCOMMITTEDLOCK" => level = IsolationLevel::ReadCommitted,
            "REPEATABLEREAD" => level = IsolationLevel::RepeatableRead,
            "HOLDLOCK" | "SERIALIZABLE" => level = IsolationLevel::Serializable,
            "UPDLOCK" => updlock = true,
            "XLOCK" => xlock = true,
            "TABLOCK" => tablock = true,
            "TABLOCKX" => tablockx = true,
            "READPAST" => readpast = true,
            "NOWAIT" => nowait = true,
            "ROWLOCK" => {}
            "PAGLOCK" => return Err(SqlError::unsupported("PAGLOCK")),
            "SNAPSHOT" => return Err(SqlError::unsupported("table hint SNAPSHOT")),
            _ => {}
        }
    }
    if access == TableAccess::Write {
        return Ok(Plan {
            object: Some(LockMode::IX),
            object_for_statement: false,
            row: None,
            always: true,
            release_rows: false,
            readpast: false,
            nowait,
            range: None,
        });
    }
    if level == IsolationLevel::Snapshot {
        // versioning.rs serves snapshot reads; what locks here is a write's or an UPDATE's
        // scan, which lock as READ COMMITTED does
        level = IsolationLevel::ReadCommitted;
    }
    if access == TableAccess::Target && level == IsolationLevel::ReadUncommitted {
        level = IsolationLevel::ReadCommitted; // READ UNCOMMITTED does not apply to writes
    }
    let mut p = Plan {
        object: Some(LockMode::IS),
        object_for_statement: level == IsolationLevel::ReadCommitted,
        row: Some(LockMode::S),
        always: level == IsolationLevel::RepeatableRead,
        release_rows: level == IsolationLevel::ReadCommitted,
        readpast,
        nowait,
        range: None,
    };
    let serializable = level == IsolationLevel::Serializable;
    match level {
        IsolationLevel::ReadUncommitted => {
            p.object = None;
            p.row = None;
        }
        IsolationLevel::Serializable if heap => {
            // no index keys to range-lock: the whole object is read-locked to the end of the
            // transaction, which keeps out every phantom
            p.object = Some(LockMode::S);
            p.row = None;
        }
        IsolationLevel::Serializable => {
            // SQL Server's key-range locks (exec key_range): S rows kept, RangeS-S on every
            // key read and on the next key past the range
            p.always = true;
            p.range = Some(LockMode::RangeSS);
        }
        _ => {}
    }
    if access == TableAccess::Target {
        p.row = Some(LockMode::U);
        p.always = true;
        p.release_rows = !serializable; // only rows the statement will not change (row_read)
        p.object = Some(if serializable && heap {
            LockMode::X
        } else {
            LockMode::IU
        });
        if serializable && !heap {
            p.range = Some(LockMode::RangeSU);
        }
        p.object_for_statement = false;
    }
    if updlock || xlock {
        let m = if xlock { LockMode::X } else { LockMode::U };
        p.row = Some(m);
        p.always = true;
        p.release_rows = false;
        p.object = Some(if xlock { LockMode::IX } else { LockMode::IU });
        p.object_for_statement = false;
        if p.range.is_some() {
            // UPDLOCK / XLOCK under SERIALIZABLE: the update range mode (XLOCK's X rows
            // convert it to RangeX-X as they are taken)
            p.range = Some(LockMode::RangeSU);
        }
    }
    if tablock || tablockx {
        p.object = Some(if tablockx || xlock {
            LockMode::X
        } else if updlock {
            LockMode::U
        } else {
            LockMode::S
        });
        p.row = None;
        p.range = None;
        p.object_for_statement = !tablockx && !updlock && level == IsolationLevel::ReadCommitted;
    }
    Ok(p)
}

/// The session-side implementation of exec's [`TableLocker`].
pub(crate) struct SessionLocker {
    mgr: Arc<LockManager>,
    req: LockRequest,
    db: i32,
    object: i32,
    heap: bool,
    plan: Plan,
    activity: Arc<ObjectActivity>,
    /// The object lock to give back when the access ends (READ COMMITTED, newly taken).
    release_object: Option<LockMode>,
    /// The object is locked in a mode covering the rows' (escalated): skip row requests.
    covered_read: bool,
    covered_write: bool,
}

impl SessionLocker {
    fn resource(&self, locator: &[u8]) -> Resource {
        if self.heap {
            if let Some(rid) = storage::Rid::from_bytes(locator) {
                return Resource::Rid {
                    db: self.db,
                    object: self.object,
                    file: rid.page.file,
                    page: rid.page.page,
                    slot: rid.slot,
                };
            }
        }
        Resource::key(self.db, self.object, 1, locator)
    }

    fn acquire(&self, res: Resource, mode: LockMode) -> SqlResult<Acquired> {
        self.mgr
            .acquire(&self.req, res, mode)
            .map_err(|e| lock_error(e, self.req.spid))
    }

    fn object_res(&self) -> Resource {
        Resource::Object {
            db: self.db,
            object: self.object,
        }
    }
}

impl TableLocker for SessionLocker {
    #[inline]
    fn rows_need_locks(&self) -> bool {
        self.plan.row.is_some()
            && !self.covered_read
            && (self.plan.always || self.activity.writers() > 0)
    }

    fn lock_row(&mut self, locator: &[u8]) -> SqlResult<bool> {
        let Some(mode) = self.plan.row else {
            return Ok(true);
        };
        let res = self.resource(locator);
        let r = if self.plan.readpast {
            let mut req = self.req.clone();
            req.timeout_ms = 0;
            match self.mgr.acquire(&req, res, mode) {
                Err(LockError::Timeout) => return Ok(false),
                r => r.map_err(|e| lock_error(e, self.req.spid))?,
            }
        } else {
            self.acquire(res, mode)?
        };
        if r == Acquired::Held && self.mgr.holds(self.req.owner, &self.object_res(), mode) {
            self.covered_read = true;
        }
        Ok(true)
    }

    fn row_read(&mut self, locator: &[u8], qualified: bool) {
        let Some(mode) = self.plan.row else {
            return;
        };
        if !self.plan.release_rows || (mode == LockMode::U && qualified) {
            return;
        }
        // only a lock in exactly the mode this access took goes (a row this transaction
        // wrote keeps its X)
        self.mgr
            .release_if(self.req.owner, &self.resource(locator), mode);
    }

    fn locks_key_ranges(&self) -> bool {
        self.plan.range.is_some() && !self.covered_read
    }

    fn lock_key(&mut self, index_id: i32, key: Option<&[u8]>, range: bool) -> SqlResult<bool> {
        self.lock_key_impl(index_id, key, range)
    }

    #[inline]
    fn ranges_may_be_held(&self) -> bool {
        self.activity.range_locks() > 0
    }

    fn lock_insert_gap(&mut self, index_id: i32, next: Option<&[u8]>) -> SqlResult<bool> {
        self.lock_insert_gap_impl(index_id, next)
    }

    fn release_insert_gap(&mut self, index_id: i32, next: Option<&[u8]>) {
        let res = self.key_resource(index_id, next);
        self.mgr.release_if(self.req.owner, &res, LockMode::RangeIN);
    }

    fn lock_row_for_write(&mut self, locator: &[u8]) -> SqlResult<()> {
        if self.covered_write {
            return Ok(());
        }
        let res = self.resource(locator);
        let r = self.acquire(res, LockMode::X)?;
        if r == Acquired::Held
            && self
                .mgr
                .holds(self.req.owner, &self.object_res(), LockMode::X)
        {
            self.covered_write = true;
        }
        Ok(())
    }
}

impl SessionLocker {
    fn key_resource(&self, index_id: i32, key: Option<&[u8]>) -> Resource {
        match key {
            Some(k) => Resource::key(self.db, self.object, index_id, k),
            None => Resource::key_end(self.db, self.object, index_id),
        }
    }
}

/// Key-range locking (exec `key_range`).
impl SessionLocker {
    fn lock_key_impl(&mut self, index_id: i32, key: Option<&[u8]>, range: bool) -> SqlResult<bool> {
        let mode = match (range, self.plan.range, self.plan.row) {
            (true, Some(m), _) => m,
            (false, Some(_), Some(m)) => m,
            _ => return Ok(false),
        };
        if self.covered_read {
            return Ok(true);
        }
        let res = self.key_resource(index_id, key);
        let r = self.acquire(res, mode)?;
        if r == Acquired::Held
            && self
                .mgr
                .holds(self.req.owner, &self.object_res(), mode.row_mode())
        {
            // escalated: the object lock covers every key and gap
            self.covered_read = true;
        }
        Ok(self.covered_read)
    }

    fn lock_insert_gap_impl(&mut self, index_id: i32, next: Option<&[u8]>) -> SqlResult<bool> {
        if self.covered_write {
            return Ok(false);
        }
        let res = self.key_resource(index_id, next);
        Ok(self.acquire(res, LockMode::RangeIN)? == Acquired::New)
    }
}

impl Drop for SessionLocker {
    fn drop(&mut self) {
        if let Some(m) = self.release_object {
            self.mgr.release_if(self.req.owner, &self.object_res(), m);
        }
    }
}

/// The locker of one access to `table` by a session (exec's `ExecEnv::table_locker`).
pub(crate) fn table_locker(
    mgr: &Arc<LockManager>,
    req: LockRequest,
    level: IsolationLevel,
    db: i32,
    table: &TableDef,
    hints: &[String],
    access: TableAccess,
) -> SqlResult<Option<Box<dyn TableLocker>>> {
    // SNAPSHOT (3952 where the database does not allow it) is decided before: versioning.rs
    let heap = matches!(table.storage, TableStorage::Heap(_));
    let plan = plan_for(level, hints, access, heap)?;
    if plan.object.is_none() && plan.row.is_none() {
        return Ok(None);
    }
    let mut req = req;
    if plan.nowait {
        req.timeout_ms = 0;
    }
    let object = table.object_id;
    let mut locker = SessionLocker {
        activity: mgr.activity(db, object),
        mgr: mgr.clone(),
        req,
        db,
        object,
        heap,
        plan,
        release_object: None,
        covered_read: false,
        covered_write: false,
    };
    if let Some(m) = plan.object {
        let r = locker.acquire(locker.object_res(), m)?;
        if plan.object_for_statement && r == Acquired::New {
            locker.release_object = Some(m);
        }
        if plan.row.is_some()
            && mgr.holds(
                locker.req.owner,
                &locker.object_res(),
                plan.row.unwrap_or(LockMode::S),
            )
        {
            locker.covered_read = true;
        }
        if mgr.holds(locker.req.owner, &locker.object_res(), LockMode::X) {
            locker.covered_write = true;
        }
    }
    Ok(Some(Box::new(locker)))
}

/// `DBCC USEROPTIONS`: the session's SET options that are on, in SQL Server's order, ending
/// with the isolation level.
pub(crate) fn user_options(o: &crate::session::SessionOptions) -> Vec<(&'static str, String)> {
    let mut rows: Vec<(&'static str, String)> = vec![
        ("textsize", o.textsize.to_string()),
        ("language", o.language.clone()),
        ("dateformat", o.dateformat.clone()),
        ("datefirst", o.datefirst.to_string()),
        ("lock_timeout", o.lock_timeout.to_string()),
    ];
    for (name, on) in [
        ("quoted_identifier", o.quoted_identifier),
        ("arithabort", o.arithabort),
        ("ansi_null_dflt_on", o.ansi_null_dflt_on),
        ("ansi_warnings", o.ansi_warnings),
        ("ansi_padding", o.ansi_padding),
        ("ansi_nulls", o.ansi_nulls),
        ("concat_null_yields_null", o.concat_null_yields_null),
        ("xact_abort", o.xact_abort),
        ("nocount", o.nocount),
        ("cursor_close_on_commit", o.cursor_close_on_commit),
        ("implicit_transactions", o.implicit_transactions),
    ] {
        if on {
            rows.push((name, "SET".to_string()));
        }
    }
    rows.push(("isolation level", o.isolation.text().to_string()));
    rows
}
