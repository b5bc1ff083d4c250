//! What a session publishes for other sessions to see (engine/README "Sessions you can see"):
//! the running request, its statement's command, transaction and row count, and `KILL`.
//!
//! The session's thread writes its [`SessionEntry`] (sysprocs/sessions.rs): once per request
//! a small per-session mutex (the request's start, text and counters), once per statement a
//! few relaxed atomic stores. Readers (`sys.dm_exec_*`, `sp_who`, `KILL`) never block the
//! session for longer than that mutex's critical section.
//!
//! Per-session I/O: a request runs on one thread, and the storage layer counts page reads and
//! writes per thread (storage objio.rs), so the request's reads are the thread's counters
//! minus their values at the request's start, whatever other sessions do meanwhile.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use common::{SqlError, SqlResult};
use parser::ast::StatementKind;

use crate::compile::{Node, NodeKind};
use crate::events::EventSink;
use crate::session::Session;
use crate::sysprocs::{ConnectionInfo, LiveRequest, SessionEntry, COMMANDS};

/// Index into [`COMMANDS`] of `name` (0 when absent).
fn command_index(name: &str) -> u8 {
    COMMANDS.iter().position(|c| *c == name).unwrap_or(1) as u8
}

/// The `sys.dm_exec_requests.command` of a statement.
fn command_of(kind: &StatementKind) -> &'static str {
    use StatementKind as K;
    match kind {
        K::Select(_) => "SELECT",
        K::Insert(_) => "INSERT",
        K::Update(_) => "UPDATE",
        K::Delete(_) => "DELETE",
        K::Merge(_) => "MERGE",
        K::WaitFor { .. } => "WAITFOR",
        K::Exec(_) => "EXECUTE",
        K::Dbcc(_) => "DBCC",
        K::Checkpoint(_) => "CHECKPOINT",
        K::BulkInsert(_) => "BULK INSERT",
        K::CreateTable(_) => "CREATE TABLE",
        K::AlterTable(_) => "ALTER TABLE",
        K::Drop { .. } => "DROP TABLE",
        K::CreateIndex(_) => "CREATE INDEX",
        K::AlterIndex(_) => "ALTER INDEX",
        K::DropIndex { .. } => "DROP INDEX",
        K::CreateDatabase(_) => "CREATE DATABASE",
        K::AlterDatabase(_) => "ALTER DATABASE",
        K::AlterDatabaseScopedConfiguration(_) => "ALTER DATABASE SCOPED CONFIGURATION",
        K::CreateView(_) => "CREATE VIEW",
        K::CreateProcedure(_) => "CREATE PROCEDURE",
        K::CreateFunction(_) => "CREATE FUNCTION",
        K::CreateTrigger(_) => "CREATE TRIGGER",
        K::Truncate(_) => "TRUNCATE TABLE",
        K::UpdateStatistics(_) => "UPDATE STATISTICS",
        K::BeginTransaction { .. } => "BEGIN TRANSACTION",
        K::Commit { .. } => "COMMIT TRANSACTION",
        K::Rollback { .. } => "ROLLBACK TRANSACTION",
        K::SaveTransaction { .. } => "SAVE TRANSACTION",
        K::SetOption(_) => "SET OPTION ON",
        K::Declare(_) => "DECLARE",
        K::Print(_) => "PRINT",
        K::RaisError(_) => "RAISERROR",
        K::Use(_) => "USE",
        K::Unsupported { keyword, .. } if keyword == "KILL" => "KILL",
        _ => "SELECT",
    }
}

/// The command index of a compiled statement (`Node::command`, set when it is compiled).
pub(crate) fn command_index_of(kind: &NodeKind) -> Option<u8> {
    node_command(kind).map(command_index)
}

fn node_command(kind: &NodeKind) -> Option<&'static str> {
    Some(match kind {
        NodeKind::Query { stmt, .. } => command_of(&stmt.kind),
        NodeKind::Other(s) => command_of(&s.kind),
        NodeKind::Declare(_) | NodeKind::DeclareTable(_) => "DECLARE",
        NodeKind::Set { .. } => "ASSIGN",
        NodeKind::If { .. } | NodeKind::While { .. } => "COND WITH QUERY",
        NodeKind::Print(_) => "PRINT",
        _ => return None,
    })
}

/// Binds the session's wait slot to the running thread for one request (waits opened by any
/// layer on this thread are the session's) and publishes the request; both end on drop.
pub(crate) struct RequestScope {
    entry: Arc<SessionEntry>,
    _bind: common::waits::BindGuard,
}

impl Drop for RequestScope {
    fn drop(&mut self) {
        let e = &self.entry;
        let Some(r) = e.request.lock().take() else {
            return;
        };
        let io = r.io();
        e.cpu_ms.fetch_add(r.cpu_ms(), Relaxed);
        e.reads.fetch_add(io.physical_reads, Relaxed);
        e.writes.fetch_add(io.writes, Relaxed);
        e.logical_reads.fetch_add(io.logical_reads, Relaxed);
        e.elapsed_ms
            .fetch_add(r.start.elapsed().as_millis() as u64, Relaxed);
        e.last_request_end_us.store(
            crate::sysprocs::unix_us(std::time::SystemTime::now()),
            Relaxed,
        );
        e.command.store(0, Relaxed);
    }
}

impl Session {
    /// Publishes the start of a request (a batch or an RPC) with its text; the returned scope
    /// ends it. Also binds the session's waits to this thread for the request's duration.
    pub(crate) fn begin_request(&mut self, text: &str) -> RequestScope {
        let io = storage::objio::thread_io();
        let io_start = io.totals();
        let cpu_clock = crate::sysprocs::thread_cpu_clock();
        let cpu_start_us = cpu_clock.map(crate::sysprocs::cpu_clock_us).unwrap_or(0);
        let start_time = std::time::SystemTime::now();
        let req = LiveRequest {
            start: std::time::Instant::now(),
            start_time,
            text: Arc::from(text),
            io,
            io_start,
            cpu_clock,
            cpu_start_us,
        };
        let e = &self.live;
        e.last_request_start_us
            .store(crate::sysprocs::unix_us(start_time), Relaxed);
        *e.request.lock() = Some(req);
        e.statement_offsets
            .store(crate::sysprocs::pack_statement_offsets(0, -1), Relaxed);
        RequestScope {
            entry: e.clone(),
            _bind: common::waits::bind(e.waits.clone()),
        }
    }

    /// Before a statement: its command (`sys.dm_exec_requests.command`).
    #[inline]
    pub(crate) fn publish_statement(&self, n: &Node) {
        if let Some(c) = n.command {
            self.live.command.store(c, Relaxed);
        }
    }

    /// After a statement: row count, transaction count and the open transaction; a SET
    /// statement also publishes the session's options.
    #[inline]
    pub(crate) fn publish_after_statement(&self, n: &Node) {
        let e = &self.live;
        e.row_count.store(self.rowcount, Relaxed);
        e.trancount.store(self.trancount, Relaxed);
        let tran = self.txns.first().map(|(_, t)| t.id().0).unwrap_or(0);
        if e.tran_id.load(Relaxed) != tran {
            e.tran_id.store(tran, Relaxed);
            e.tran_begin_us.store(
                crate::sysprocs::unix_us(std::time::SystemTime::now()),
                Relaxed,
            );
        }
        if let NodeKind::Other(s) = &n.kind {
            if matches!(s.kind, StatementKind::SetOption(_)) {
                *e.options.lock() = self.options.clone();
            }
        }
    }

    /// The session's published state (sysprocs/sessions.rs).
    pub fn live_entry(&self) -> &Arc<SessionEntry> {
        &self.live
    }

    /// Records what the server learned of the connection (LOGIN7 and the socket): shown by
    /// `sys.dm_exec_sessions`, `sys.dm_exec_connections` and `sp_who`.
    pub fn set_client_info(&mut self, info: ConnectionInfo) {
        *self.live.client.lock() = info;
    }

    /// True once `KILL` ended this session: the server closes the connection after the
    /// running request (rolled back by then) returns.
    pub fn is_killed(&self) -> bool {
        self.live.is_killed()
    }

    /// Runs `action` (from the killing session's thread) when `KILL` ends this session: the
    /// server uses it to close an idle connection at once.
    pub fn set_kill_action(&mut self, action: Box<dyn Fn() + Send + Sync>) {
        *self.live.kill_action.lock() = Some(action);
    }

    /// `KILL spid [WITH STATUSONLY]` (the statement's text after the keyword).
    pub(crate) fn kill_statement(&mut self, text: &str, sink: &mut dyn EventSink) -> SqlResult<()> {
        let _ = sink;
        let rest = text.trim().trim_end_matches(';').trim();
        let rest = rest.get(4..).unwrap_or("").trim(); // after KILL
        let (target, statusonly) = match rest.to_ascii_uppercase().find("WITH") {
            Some(i) => {
                let opt = rest[i + 4..].trim();
                if !opt.eq_ignore_ascii_case("STATUSONLY") {
                    return Err(SqlError::new(102, &[&opt]));
                }
                (rest[..i].trim(), true)
            }
            None => (rest, false),
        };
        let spid: i32 = match target.parse() {
            Ok(n) => n,
            Err(_) => {
                // KILL 'unit of work id' (a DTC UOW) or a variable: not something latchkey has
                return Err(SqlError::new(6112, &[&target]));
            }
        };
        crate::live::check_kill_permission(self)?;
        if spid == self.spid {
            return Err(SqlError::new(6104, &[]));
        }
        let Some(target) = self.engine.sessions.get(spid) else {
            return Err(SqlError::new(6106, &[&spid]).with_state(2));
        };
        if statusonly {
            // nothing is ever left rolling back after a KILL: the rollback is synchronous
            return Err(SqlError::new(6120, &[&spid]));
        }
        target.killed.store(true, Relaxed);
        target.cancel.cancel();
        if let Some(action) = target.kill_action.lock().as_ref() {
            action();
        }
        Ok(())
    }

    /// After a request of a killed session: what SQL Server sends before it closes the
    /// connection (Msg 596).
    pub(crate) fn report_killed(&self, sink: &mut dyn EventSink) {
        if self.live.is_killed() {
            sink.error(&SqlError::new(596, &[]));
        }
    }
}

/// The permission seam of `KILL` (SQL Server: sysadmin or ALTER ANY CONNECTION; Msg 6102).
/// The embedded session is sysadmin; a server connection is its login (security/).
pub(crate) fn check_kill_permission(session: &Session) -> SqlResult<()> {
    // KILL needs ALTER ANY CONNECTION, which latchkey's server roles give only to sysadmin
    if session.principal.sysadmin {
        Ok(())
    } else {
        Err(SqlError::new(6102, &[]))
    }
}

impl Session {
    /// Runs a request's body so that a panic in it (a latchkey bug) ends only this request
    /// (DESIGN principle 6): the panic becomes Msg 8630 for this session, its transaction is
    /// rolled back and its variable frames reset; other sessions and the process go on.
    /// Latches and pins are guards, so unwinding released them.
    pub(crate) fn contain_panic<T>(
        &mut self,
        body: impl FnOnce(&mut Session) -> T,
    ) -> Result<T, SqlError> {
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            if std::mem::take(&mut self.inject_panic) {
                panic!("panic injected by a test (Session::inject_panic_for_tests)");
            }
            body(self)
        }));
        match run {
            Ok(v) => Ok(v),
            Err(payload) => {
                let what = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".into());
                self.trancount = 0;
                let _ = self.abort_all();
                self.frames.truncate(1);
                self.plan_cache = Default::default();
                self.proc_cache.clear();
                Err(SqlError::internal(format!(
                    "the request failed unexpectedly and was rolled back ({what})"
                )))
            }
        }
    }

    /// Makes the next request panic inside [`Session::contain_panic`] (tests of panic
    /// isolation; nothing else sets it).
    #[doc(hidden)]
    pub fn inject_panic_for_tests(&mut self) {
        self.inject_panic = true;
    }
}
