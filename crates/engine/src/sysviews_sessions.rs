//! The session DMVs, built from every session's published state (sysprocs/sessions.rs,
//! live.rs) in SQL Server's shapes: `sys.dm_exec_sessions`, `sys.dm_exec_connections`,
//! `sys.dm_exec_requests`, `sys.dm_os_waiting_tasks`, `sys.dm_exec_session_wait_stats`,
//! `sys.dm_tran_active_transactions`, `sys.dm_tran_session_transactions`.
//!
//! Like every `sys` view they are materialized when a statement binds them (and such plans
//! are not cached, see `Session::bind_volatile`), so they show the moment of that statement.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use catalog::ColumnDef;
use common::SqlResult;
use types::Value;

use crate::session::{Session, SessionOptions};
use crate::sysprocs::{from_unix_us, SessionEntry};
use crate::sysviews::{b, dt, s};
use crate::sysviews_more::columns;

type Rows = (Vec<ColumnDef>, Vec<Vec<Value>>);

/// The session views of this module, `Ok(None)` when `lname` (lower case) is not one.
pub(crate) fn sys_view(session: &Session, lname: &str) -> SqlResult<Option<Rows>> {
    Ok(Some(match lname {
        "dm_exec_sessions" => exec_sessions(session)?,
        "dm_exec_requests" => exec_requests(session)?,
        "dm_exec_connections" => exec_connections(session)?,
        "dm_os_waiting_tasks" => waiting_tasks(session)?,
        "dm_exec_session_wait_stats" => session_wait_stats(session)?,
        "dm_tran_active_transactions" => active_transactions(session)?,
        "dm_tran_session_transactions" => session_transactions(session)?,
        _ => return Ok(None),
    }))
}

/// Names this module answers (listed in sys.system_objects; checked by a test there).
#[cfg(test)]
pub(crate) const VIEW_NAMES: &[&str] = &[
    "dm_exec_connections",
    "dm_exec_requests",
    "dm_exec_session_wait_stats",
    "dm_exec_sessions",
    "dm_os_waiting_tasks",
    "dm_tran_active_transactions",
    "dm_tran_session_transactions",
];

/// A lock waiter as the lock manager reports it (the **locks** work's seam).
#[derive(Clone, Debug)]
pub(crate) struct LockWaiter {
    pub spid: i32,
    pub wait_type: &'static str,
    pub wait_ms: u64,
    pub blocking_spid: i32,
    pub resource: String,
}

/// The lock manager's current waiters (the one seam between the session DMVs and the lock
/// manager, `LockManager::waiting_requests`).
pub(crate) fn lock_waiters(session: &Session) -> Vec<LockWaiter> {
    session
        .engine()
        .locks
        .waiting_requests()
        .into_iter()
        .map(|w| LockWaiter {
            spid: w.spid,
            wait_type: w.wait_type,
            wait_ms: w.wait_ms,
            blocking_spid: w.blocking_spid.unwrap_or(0),
            resource: w.resource,
        })
        .collect()
}

/// `blocking_session_id` of a session: the holder named by its current wait.
pub(crate) fn blocking_session(e: &SessionEntry, wait: Option<&common::waits::CurrentWait>) -> i32 {
    let _ = e;
    wait.map(|w| w.blocking_session).unwrap_or(0)
}

/// CPU ms and page counters of a session: finished requests plus the running one.
pub(crate) fn cpu_and_io(e: &SessionEntry) -> (u64, storage::ThreadIoTotals) {
    let mut cpu = e.cpu_ms.load(Relaxed);
    let mut io = storage::ThreadIoTotals {
        logical_reads: e.logical_reads.load(Relaxed),
        physical_reads: e.reads.load(Relaxed),
        writes: e.writes.load(Relaxed),
    };
    if let Some(r) = e.request.lock().as_ref() {
        cpu += r.cpu_ms();
        let d = r.io();
        io.logical_reads += d.logical_reads;
        io.physical_reads += d.physical_reads;
        io.writes += d.writes;
    }
    (cpu, io)
}

fn datetime(t: std::time::SystemTime) -> Value {
    dt(&crate::ddl::datetime_text(t))
}

fn small(v: i64) -> Value {
    Value::SmallInt(v.clamp(i16::MIN as i64, i16::MAX as i64) as i16)
}

fn int(v: u64) -> Value {
    Value::Int(v.min(i32::MAX as u64) as i32)
}

fn big(v: u64) -> Value {
    Value::BigInt(v.min(i64::MAX as u64) as i64)
}

/// Per session: (entry, its options, its database id), the caller's own from its live state.
fn sessions(session: &Session) -> Vec<(Arc<SessionEntry>, SessionOptions, i32)> {
    let me = session.spid();
    session
        .engine()
        .sessions
        .snapshot()
        .into_iter()
        .map(|e| {
            let (opts, db) = if e.spid == me {
                (session.options.clone(), session.database().to_string())
            } else {
                (e.options.lock().clone(), e.database.lock().clone())
            };
            let db_id = session
                .engine()
                .database(&db)
                .map(|h| h.def.database_id)
                .unwrap_or(1);
            (e, opts, db_id)
        })
        .collect()
}

fn exec_sessions(session: &Session) -> SqlResult<Rows> {
    let c = columns(&[
        "session_id smallint",
        "login_time datetime",
        "host_name nvarchar(128)",
        "program_name nvarchar(128)",
        "host_process_id int",
        "client_version int",
        "client_interface_name nvarchar(32)",
        "security_id varbinary(85)",
        "login_name nvarchar(128)",
        "nt_domain nvarchar(128)",
        "nt_user_name nvarchar(128)",
        "status nvarchar(30)",
        "context_info varbinary(128)",
        "cpu_time int",
        "memory_usage int",
        "total_scheduled_time int",
        "total_elapsed_time int",
        "endpoint_id int",
        "last_request_start_time datetime",
        "last_request_end_time datetime",
        "reads bigint",
        "writes bigint",
        "logical_reads bigint",
        "is_user_process bit",
        "text_size int",
        "language nvarchar(128)",
        "date_format nvarchar(3)",
        "date_first smallint",
        "quoted_identifier bit",
        "arithabort bit",
        "ansi_null_dflt_on bit",
        "ansi_defaults bit",
        "ansi_warnings bit",
        "ansi_padding bit",
        "ansi_nulls bit",
        "concat_null_yields_null bit",
        "transaction_isolation_level smallint",
        "lock_timeout int",
        "deadlock_priority int",
        "row_count bigint",
        "prev_error int",
        "original_security_id varbinary(85)",
        "original_login_name nvarchar(128)",
        "last_successful_logon datetime",
        "last_unsuccessful_logon datetime",
        "unsuccessful_logons bigint",
        "group_id int",
        "database_id smallint",
        "authenticating_database_id int",
        "open_transaction_count int",
        "page_server_reads bigint",
    ])?;
    let me = session.spid();
    let mut rows = Vec::new();
    for (e, o, db_id) in sessions(session) {
        let client = e.client.lock().clone();
        let login = e.login.lock().clone();
        let (cpu, io) = cpu_and_io(&e);
        let running_ms = e
            .request
            .lock()
            .as_ref()
            .map(|r| r.start.elapsed().as_millis() as u64)
            .unwrap_or(0);
        let (row_count, trancount) = if e.spid == me {
            (session.rowcount, session.trancount())
        } else {
            (e.row_count.load(Relaxed), e.trancount.load(Relaxed))
        };
        rows.push(vec![
            small(e.spid as i64),
            datetime(e.login_time),
            s(&client.host_name),
            s(&client.program_name),
            Value::Int(client.host_process_id),
            Value::Int(client.client_version),
            s(&client.client_interface_name),
            Value::VarBinary(vec![1]),
            s(&login),
            s(""),
            s(""),
            s(e.status()),
            Value::VarBinary(Vec::new()),
            int(cpu),
            Value::Int(2),
            int(cpu),
            int(e.elapsed_ms.load(Relaxed) + running_ms),
            Value::Int(if client.network { 4 } else { 2 }),
            datetime(from_unix_us(e.last_request_start_us.load(Relaxed))),
            datetime(from_unix_us(e.last_request_end_us.load(Relaxed))),
            big(io.physical_reads),
            big(io.writes),
            big(io.logical_reads),
            b(true),
            Value::Int(o.textsize.clamp(-1, i32::MAX as i64) as i32),
            s(&o.language),
            s(&o.dateformat),
            small(o.datefirst as i64),
            b(o.quoted_identifier),
            b(o.arithabort),
            b(o.ansi_null_dflt_on),
            b(false),
            b(o.ansi_warnings),
            b(o.ansi_padding),
            b(o.ansi_nulls),
            b(o.concat_null_yields_null),
            small(o.isolation.code() as i64),
            Value::Int(o.lock_timeout.clamp(-1, i32::MAX as i64) as i32),
            Value::Int(0),
            Value::BigInt(row_count),
            Value::Int(if e.spid == me { session.error } else { 0 }),
            Value::VarBinary(vec![1]),
            s(&login),
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Int(2),
            small(db_id as i64),
            Value::Int(1),
            Value::Int(trancount as i32),
            Value::BigInt(0),
        ]);
    }
    Ok((c, rows))
}

fn exec_requests(session: &Session) -> SqlResult<Rows> {
    let c = columns(&[
        "session_id smallint",
        "request_id int",
        "start_time datetime",
        "status nvarchar(30)",
        "command nvarchar(32)",
        "sql_handle varbinary(64)",
        "statement_start_offset int",
        "statement_end_offset int",
        "plan_handle varbinary(64)",
        "database_id smallint",
        "user_id int",
        "connection_id uniqueidentifier",
        "blocking_session_id smallint",
        "wait_type nvarchar(60)",
        "wait_time int",
        "last_wait_type nvarchar(60)",
        "wait_resource nvarchar(256)",
        "open_transaction_count int",
        "open_resultset_count int",
        "transaction_id bigint",
        "context_info varbinary(128)",
        "percent_complete real",
        "estimated_completion_time bigint",
        "cpu_time int",
        "total_elapsed_time int",
        "scheduler_id int",
        "task_address varbinary(8)",
        "reads bigint",
        "writes bigint",
        "logical_reads bigint",
        "text_size int",
        "language nvarchar(128)",
        "date_format nvarchar(3)",
        "date_first smallint",
        "quoted_identifier bit",
        "arithabort bit",
        "ansi_null_dflt_on bit",
        "ansi_defaults bit",
        "ansi_warnings bit",
        "ansi_padding bit",
        "ansi_nulls bit",
        "concat_null_yields_null bit",
        "transaction_isolation_level smallint",
        "lock_timeout int",
        "deadlock_priority int",
        "row_count bigint",
        "prev_error int",
        "nest_level int",
        "granted_query_memory int",
        "executing_managed_code bit",
        "group_id int",
        "query_hash binary(8)",
        "query_plan_hash binary(8)",
        "statement_sql_handle varbinary(64)",
        "statement_context_id bigint",
        "dop int",
        "parallel_worker_count int",
        "external_script_request_id uniqueidentifier",
        "is_resumable bit",
        "page_resource binary(8)",
        "page_server_reads bigint",
    ])?;
    let me = session.spid();
    let waiters = lock_waiters(session);
    let plans = session.engine().plans.entries();
    let mut rows = Vec::new();
    for (e, o, db_id) in sessions(session) {
        let Some(r) = e.request.lock().clone() else {
            continue;
        };
        let lock_wait = waiters.iter().find(|w| w.spid == e.spid);
        let wait = e.waits.current();
        let (wait_type, wait_ms, resource, blocker) = match (lock_wait, &wait) {
            (Some(l), _) => (
                Some(l.wait_type),
                l.wait_ms,
                l.resource.clone(),
                l.blocking_spid,
            ),
            (None, Some(w)) => (
                Some(w.wait_type),
                w.wait_time_ms,
                w.resource.clone(),
                blocking_session(&e, Some(w)),
            ),
            (None, None) => (None, 0, String::new(), 0),
        };
        let status = if e.spid == me {
            "running"
        } else if wait_type.is_some() {
            "suspended"
        } else {
            "runnable"
        };
        let io = r.io();
        let (row_count, trancount, nest) = if e.spid == me {
            (
                session.rowcount,
                session.trancount(),
                session.modules.len() as i32,
            )
        } else {
            (e.row_count.load(Relaxed), e.trancount.load(Relaxed), 0)
        };
        let handle = r.sql_handle();
        let (stmt_start, stmt_end) =
            crate::sysprocs::unpack_statement_offsets(e.statement_offsets.load(Relaxed));
        // the cached plan of the running batch (plan_stats.rs), else the text's handle
        let plan_handle = plans
            .iter()
            .find(|p| p.sql_handle == handle)
            .map(|p| p.plan_handle.clone())
            .unwrap_or_else(|| handle.clone());
        rows.push(vec![
            small(e.spid as i64),
            Value::Int(0),
            datetime(r.start_time),
            s(status),
            s(e.command()),
            Value::VarBinary(handle.clone()),
            Value::Int(stmt_start),
            Value::Int(stmt_end),
            Value::VarBinary(plan_handle),
            small(db_id as i64),
            Value::Int(1),
            Value::Null,
            small(blocker as i64),
            wait_type.map(s).unwrap_or(Value::Null),
            int(wait_ms),
            s(e.waits.last_wait_type().unwrap_or("MISCELLANEOUS")),
            s(&resource),
            Value::Int(trancount as i32),
            Value::Int(1),
            big(e.tran_id.load(Relaxed)),
            Value::Null,
            Value::Real(0.0),
            Value::BigInt(0),
            int(r.cpu_ms()),
            int(r.start.elapsed().as_millis() as u64),
            Value::Int(0),
            Value::Null,
            big(io.physical_reads),
            big(io.writes),
            big(io.logical_reads),
            Value::Int(o.textsize.clamp(-1, i32::MAX as i64) as i32),
            s(&o.language),
            s(&o.dateformat),
            small(o.datefirst as i64),
            b(o.quoted_identifier),
            b(o.arithabort),
            b(o.ansi_null_dflt_on),
            b(false),
            b(o.ansi_warnings),
            b(o.ansi_padding),
            b(o.ansi_nulls),
            b(o.concat_null_yields_null),
            small(o.isolation.code() as i64),
            Value::Int(o.lock_timeout.clamp(-1, i32::MAX as i64) as i32),
            Value::Int(0),
            Value::BigInt(row_count),
            Value::Int(0),
            Value::Int(nest),
            Value::Int(0),
            b(false),
            Value::Int(2),
            Value::Null,
            Value::Null,
            Value::VarBinary(handle),
            Value::BigInt(0),
            Value::Int(1),
            Value::Null,
            Value::Null,
            b(false),
            Value::Null,
            Value::BigInt(0),
        ]);
    }
    Ok((c, rows))
}

fn exec_connections(session: &Session) -> SqlResult<Rows> {
    let c = columns(&[
        "session_id int",
        "most_recent_session_id int",
        "connect_time datetime",
        "net_transport nvarchar(40)",
        "protocol_type nvarchar(40)",
        "protocol_version int",
        "endpoint_id int",
        "encrypt_option nvarchar(40)",
        "auth_scheme nvarchar(40)",
        "node_affinity smallint",
        "num_reads int",
        "num_writes int",
        "last_read datetime",
        "last_write datetime",
        "net_packet_size int",
        "client_net_address varchar(48)",
        "client_tcp_port int",
        "local_net_address varchar(48)",
        "local_tcp_port int",
        "connection_id uniqueidentifier",
        "parent_connection_id uniqueidentifier",
        "most_recent_sql_handle varbinary(64)",
    ])?;
    let mut rows = Vec::new();
    for e in session.engine().sessions.snapshot() {
        let c = e.client.lock().clone();
        let vs = |t: &str| Value::VarChar(t.to_string());
        let handle = e
            .request
            .lock()
            .as_ref()
            .map(|r| Value::VarBinary(r.sql_handle()))
            .unwrap_or(Value::Null);
        let mut id = [0u8; 16];
        id[..4].copy_from_slice(&e.spid.to_be_bytes());
        rows.push(vec![
            Value::Int(e.spid),
            Value::Int(e.spid),
            datetime(c.connect_time),
            s(if c.network { "TCP" } else { "Shared memory" }),
            s("TSQL"),
            Value::Int(c.protocol_version),
            Value::Int(if c.network { 4 } else { 2 }),
            s(if c.encrypt { "TRUE" } else { "FALSE" }),
            s(&c.auth_scheme),
            small(0),
            Value::Int(0),
            Value::Int(0),
            datetime(from_unix_us(e.last_request_start_us.load(Relaxed))),
            datetime(from_unix_us(e.last_request_end_us.load(Relaxed))),
            Value::Int(c.net_packet_size),
            vs(&c.client_net_address),
            c.client_tcp_port.map(Value::Int).unwrap_or(Value::Null),
            if c.network {
                vs(&c.local_net_address)
            } else {
                Value::Null
            },
            c.local_tcp_port.map(Value::Int).unwrap_or(Value::Null),
            Value::UniqueIdentifier(id),
            Value::Null,
            handle,
        ]);
    }
    Ok((c, rows))
}

fn waiting_tasks(session: &Session) -> SqlResult<Rows> {
    let c = columns(&[
        "waiting_task_address varbinary(8)",
        "session_id smallint",
        "exec_context_id int",
        "wait_duration_ms bigint",
        "wait_type nvarchar(60)",
        "resource_address varbinary(8)",
        "blocking_task_address varbinary(8)",
        "blocking_session_id smallint",
        "blocking_exec_context_id int",
        "resource_description nvarchar(3072)",
    ])?;
    let task = |spid: i32| Value::VarBinary((spid as i64).to_be_bytes().to_vec());
    let mut rows = Vec::new();
    let waiters = lock_waiters(session);
    for e in session.engine().sessions.snapshot() {
        let (ty, ms, blocker, resource) = match waiters.iter().find(|w| w.spid == e.spid) {
            Some(l) => (l.wait_type, l.wait_ms, l.blocking_spid, l.resource.clone()),
            None => match e.waits.current() {
                Some(w) => (
                    w.wait_type,
                    w.wait_time_ms,
                    blocking_session(&e, Some(&w)),
                    w.resource,
                ),
                None => continue,
            },
        };
        rows.push(vec![
            task(e.spid),
            small(e.spid as i64),
            Value::Int(0),
            big(ms),
            s(ty),
            Value::Null,
            if blocker > 0 {
                task(blocker)
            } else {
                Value::Null
            },
            if blocker > 0 {
                small(blocker as i64)
            } else {
                Value::Null
            },
            if blocker > 0 {
                Value::Int(0)
            } else {
                Value::Null
            },
            if resource.is_empty() {
                Value::Null
            } else {
                s(&resource)
            },
        ]);
    }
    Ok((c, rows))
}

fn session_wait_stats(session: &Session) -> SqlResult<Rows> {
    let c = columns(&[
        "session_id smallint",
        "wait_type nvarchar(60)",
        "waiting_tasks_count bigint",
        "wait_time_ms bigint",
        "max_wait_time_ms bigint",
        "signal_wait_time_ms bigint",
    ])?;
    let mut rows = Vec::new();
    for e in session.engine().sessions.snapshot() {
        for w in e.waits.snapshot() {
            rows.push(vec![
                small(e.spid as i64),
                s(w.wait_type),
                big(w.waiting_tasks_count),
                big(w.wait_time_ms),
                big(w.max_wait_time_ms),
                big(w.signal_wait_time_ms),
            ]);
        }
    }
    Ok((c, rows))
}

/// Sessions with an open transaction: (entry, transaction id, user transaction, trancount).
fn open_transactions(session: &Session) -> Vec<(Arc<SessionEntry>, u64, bool, u32)> {
    let me = session.spid();
    let mut v = Vec::new();
    for e in session.engine().sessions.snapshot() {
        let (id, trancount) = if e.spid == me {
            (
                session.txns.first().map(|(_, t)| t.id().0).unwrap_or(0),
                session.trancount(),
            )
        } else {
            (e.tran_id.load(Relaxed), e.trancount.load(Relaxed))
        };
        if id != 0 {
            v.push((e, id, trancount > 0, trancount));
        }
    }
    v
}

fn active_transactions(session: &Session) -> SqlResult<Rows> {
    let c = columns(&[
        "transaction_id bigint",
        "name nvarchar(32)",
        "transaction_begin_time datetime",
        "transaction_type int",
        "transaction_uow uniqueidentifier",
        "transaction_state int",
        "transaction_status int",
        "transaction_status2 int",
        "dtc_state int",
        "dtc_status int",
        "dtc_isolation_level int",
        "filestream_transaction_id varbinary(128)",
    ])?;
    let mut rows = Vec::new();
    for (e, id, user, _) in open_transactions(session) {
        let name = if user {
            "user_transaction"
        } else {
            e.command()
        };
        rows.push(vec![
            big(id),
            s(name),
            datetime(from_unix_us(e.tran_begin_us.load(Relaxed))),
            Value::Int(1),
            Value::Null,
            Value::Int(2),
            Value::Int(0),
            Value::Int(0),
            Value::Int(0),
            Value::Int(0),
            Value::Int(0),
            Value::Null,
        ]);
    }
    Ok((c, rows))
}

fn session_transactions(session: &Session) -> SqlResult<Rows> {
    let c = columns(&[
        "session_id int",
        "transaction_id bigint",
        "transaction_descriptor binary(8)",
        "enlist_count int",
        "is_user_transaction bit",
        "is_local bit",
        "is_enlisted bit",
        "is_bound bit",
        "open_transaction_count int",
    ])?;
    let mut rows = Vec::new();
    for (e, id, user, trancount) in open_transactions(session) {
        rows.push(vec![
            Value::Int(e.spid),
            big(id),
            Value::Binary(id.to_le_bytes().to_vec()),
            Value::Int(1),
            b(user),
            b(true),
            b(false),
            b(false),
            Value::Int(trancount as i32),
        ]);
    }
    Ok((c, rows))
}
