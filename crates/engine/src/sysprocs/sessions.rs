//! The engine's session registry: every `Session` registers when it is created and leaves
//! when it is dropped; the TDS server registers one per connection through the same calls.
//!
//! Each entry is the session's *published* state, read by other sessions (`sp_who`,
//! `sys.dm_exec_sessions`, `sys.dm_exec_requests`, `sys.dm_os_waiting_tasks`, `KILL`):
//! the session's own thread writes it with relaxed atomics and, once per request, one small
//! per-session mutex; the registry map's lock is only taken to add, remove or list sessions,
//! never on a session's hot path (engine/README "Sessions you can see").

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU32, AtomicU64, AtomicU8, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Instant, SystemTime};

use parking_lot::Mutex;

/// What the server knows of a session's connection (LOGIN7, the socket), for
/// `sys.dm_exec_sessions` / `sys.dm_exec_connections` / `sp_who`. The embedded command line
/// fills what it knows ([`ConnectionInfo::local`]); `Session::set_client_info` replaces it.
#[derive(Clone, Debug)]
pub struct ConnectionInfo {
    /// LOGIN7 HostName.
    pub host_name: String,
    /// LOGIN7 AppName.
    pub program_name: String,
    /// LOGIN7 ClientPID.
    pub host_process_id: i32,
    /// The client library (LOGIN7 CltIntName: "ODBC", "Microsoft JDBC Driver 13.4", ...).
    pub client_interface_name: String,
    /// LOGIN7 TDSVersion as SQL Server shows it (`client_version`, e.g. 7 for TDS 7.4).
    pub client_version: i32,
    /// True for a connection that came over the network (a `sys.dm_exec_connections` row
    /// with TCP); false for the embedded session ('Shared memory').
    pub network: bool,
    /// Client address and port (network connections).
    pub client_net_address: String,
    pub client_tcp_port: Option<i32>,
    /// Server-side address and port of the connection.
    pub local_net_address: String,
    pub local_tcp_port: Option<i32>,
    /// Negotiated packet size in bytes.
    pub net_packet_size: i32,
    /// Whether the connection is encrypted (TLS after login).
    pub encrypt: bool,
    /// `SQL` (a SQL Server login) or `NTLM`/`KERBEROS`.
    pub auth_scheme: String,
    /// TDS protocol version (`protocol_version`, e.g. 0x74000004).
    pub protocol_version: i32,
    pub connect_time: SystemTime,
}

impl ConnectionInfo {
    /// The embedded session: this machine, this process, 'Shared memory'.
    pub fn local() -> ConnectionInfo {
        ConnectionInfo {
            host_name: "localhost".into(),
            program_name: "latchkey".into(),
            host_process_id: std::process::id() as i32,
            client_interface_name: "latchkey".into(),
            client_version: 7,
            network: false,
            client_net_address: "<local machine>".into(),
            client_tcp_port: None,
            local_net_address: String::new(),
            local_tcp_port: None,
            net_packet_size: 4096,
            encrypt: false,
            auth_scheme: "SQL".into(),
            protocol_version: 0x7400_0004,
            connect_time: SystemTime::now(),
        }
    }
}

/// The request a session is running (`sys.dm_exec_requests`), published at its start.
#[derive(Clone, Debug)]
pub struct LiveRequest {
    pub start: Instant,
    pub start_time: SystemTime,
    /// The batch (or parameterised statement) text: `sys.dm_exec_sql_text`.
    pub text: Arc<str>,
    /// The session thread's page counters and their values at the start.
    pub io: Arc<storage::ThreadIo>,
    pub io_start: storage::ThreadIoTotals,
    /// CPU clock of the session's thread and its value at the start (µs).
    pub cpu_clock: Option<libc::clockid_t>,
    pub cpu_start_us: u64,
}

impl LiveRequest {
    /// Pages read and written by the request so far.
    pub fn io(&self) -> storage::ThreadIoTotals {
        self.io.totals().since(&self.io_start)
    }

    /// CPU time of the request so far, in ms (0 when the thread clock is unavailable).
    pub fn cpu_ms(&self) -> u64 {
        self.cpu_clock
            .map(|c| cpu_clock_us(c).saturating_sub(self.cpu_start_us) / 1000)
            .unwrap_or(0)
    }

    /// `sql_handle`: 0x02 then the text's 64-bit FNV-1a hash (enough to find the text again in
    /// `sys.dm_exec_sql_text`, which looks it up among the running requests).
    pub fn sql_handle(&self) -> Vec<u8> {
        sql_handle_of(&self.text)
    }
}

/// The `sql_handle` of a batch text ([`LiveRequest::sql_handle`]).
pub fn sql_handle_of(text: &str) -> Vec<u8> {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    let mut v = vec![0x02u8];
    v.extend_from_slice(&h.to_be_bytes());
    v
}

/// The CPU clock of the calling thread (readable from other threads while it lives).
pub(crate) fn thread_cpu_clock() -> Option<libc::clockid_t> {
    let mut id: libc::clockid_t = 0;
    // SAFETY: pthread_self() is the calling thread; `id` is a valid out-pointer for the call.
    let rc = unsafe { libc::pthread_getcpuclockid(libc::pthread_self(), &mut id) };
    (rc == 0).then_some(id)
}

/// The value of a thread CPU clock in µs (0 if the thread is gone).
pub(crate) fn cpu_clock_us(clock: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; a stale clock id only makes the call fail.
    let rc = unsafe { libc::clock_gettime(clock, &mut ts) };
    if rc != 0 {
        return 0;
    }
    (ts.tv_sec as u64) * 1_000_000 + (ts.tv_nsec as u64) / 1000
}

/// `command` values of `sys.dm_exec_requests` (index 0: no statement yet).
pub const COMMANDS: &[&str] = &[
    "AWAITING COMMAND",
    "SELECT",
    "INSERT",
    "UPDATE",
    "DELETE",
    "MERGE",
    "WAITFOR",
    "EXECUTE",
    "DBCC",
    "CHECKPOINT",
    "BULK INSERT",
    "CREATE TABLE",
    "ALTER TABLE",
    "DROP TABLE",
    "CREATE INDEX",
    "ALTER INDEX",
    "DROP INDEX",
    "CREATE DATABASE",
    "ALTER DATABASE",
    "DROP DATABASE",
    "CREATE VIEW",
    "CREATE PROCEDURE",
    "CREATE FUNCTION",
    "CREATE TRIGGER",
    "TRUNCATE TABLE",
    "UPDATE STATISTICS",
    "BEGIN TRANSACTION",
    "COMMIT TRANSACTION",
    "ROLLBACK TRANSACTION",
    "SAVE TRANSACTION",
    "SET OPTION ON",
    "DECLARE",
    "ASSIGN",
    "COND WITH QUERY",
    "PRINT",
    "RAISERROR",
    "KILL",
    "USE",
];

/// What `sp_who` and the DMVs show of a session.
pub struct SessionEntry {
    pub spid: i32,
    /// The login; a client names it after the session exists (`Session::set_login`).
    pub login: Mutex<String>,
    pub client: Mutex<ConnectionInfo>,
    pub login_time: SystemTime,
    /// Current database, updated by `USE`.
    pub database: Mutex<String>,
    /// The session's cancel flag (`KILL`, attention).
    pub cancel: common::CancelToken,
    /// Set by `KILL`: the connection ends once the running request has rolled back.
    pub killed: AtomicBool,
    /// Run by `KILL` after it cancels (the server closes the connection): a seam for the
    /// server, `Session::set_kill_action`.
    pub kill_action: Mutex<Option<Box<dyn Fn() + Send + Sync>>>,
    /// The running request; `None` while the session waits for the client.
    pub request: Mutex<Option<LiveRequest>>,
    /// Index into [`COMMANDS`] of the running statement.
    pub command: AtomicU8,
    /// The running statement's `statement_start_offset` (high 32 bits) and
    /// `statement_end_offset` (low 32 bits) in its batch's UTF-16 text; see
    /// [`pack_statement_offsets`].
    pub statement_offsets: AtomicU64,
    /// Current wait, last wait and the session's own wait statistics.
    pub waits: Arc<common::waits::TaskWaits>,
    /// `@@TRANCOUNT` (`open_transaction_count`).
    pub trancount: AtomicU32,
    /// Open transaction: its id (0 = none) and begin time (µs since the Unix epoch).
    pub tran_id: AtomicU64,
    pub tran_begin_us: AtomicU64,
    /// `@@ROWCOUNT` of the last statement.
    pub row_count: AtomicI64,
    /// The SET options as of the last SET statement (other sessions' DMV columns).
    pub options: Mutex<crate::session::SessionOptions>,
    /// Totals of the finished requests (`sys.dm_exec_sessions`).
    pub cpu_ms: AtomicU64,
    pub reads: AtomicU64,
    pub writes: AtomicU64,
    pub logical_reads: AtomicU64,
    pub elapsed_ms: AtomicU64,
    /// Start and end of the last request (µs since the Unix epoch; 0 = none yet).
    pub last_request_start_us: AtomicU64,
    pub last_request_end_us: AtomicU64,
}

impl std::fmt::Debug for SessionEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionEntry")
            .field("spid", &self.spid)
            .finish()
    }
}

/// µs since the Unix epoch of `t`.
pub(crate) fn unix_us(t: SystemTime) -> u64 {
    t.duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_micros() as u64)
        .unwrap_or(0)
}

/// The inverse of [`unix_us`].
pub(crate) fn from_unix_us(us: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + std::time::Duration::from_micros(us)
}

impl SessionEntry {
    /// `running` while a request runs, `sleeping` between requests (sys.dm_exec_sessions).
    pub fn status(&self) -> &'static str {
        if self.request.lock().is_some() {
            "running"
        } else {
            "sleeping"
        }
    }

    /// The running statement's command ([`COMMANDS`]).
    pub fn command(&self) -> &'static str {
        COMMANDS
            .get(self.command.load(Relaxed) as usize)
            .copied()
            .unwrap_or("SELECT")
    }

    /// Whether `KILL` ended this session.
    pub fn is_killed(&self) -> bool {
        self.killed.load(Relaxed)
    }
}

/// Sessions of one engine, by spid.
#[derive(Debug, Default)]
pub struct SessionRegistry {
    sessions: Mutex<BTreeMap<i32, Arc<SessionEntry>>>,
}

impl SessionRegistry {
    /// Registers a new session.
    pub fn register(
        &self,
        spid: i32,
        login: &str,
        cancel: common::CancelToken,
    ) -> Arc<SessionEntry> {
        let now = SystemTime::now();
        let e = Arc::new(SessionEntry {
            spid,
            login: Mutex::new(login.to_string()),
            client: Mutex::new(ConnectionInfo::local()),
            login_time: now,
            database: Mutex::new("master".into()),
            cancel,
            killed: AtomicBool::new(false),
            kill_action: Mutex::new(None),
            request: Mutex::new(None),
            command: AtomicU8::new(0),
            statement_offsets: AtomicU64::new(pack_statement_offsets(0, -1)),
            waits: Default::default(),
            trancount: AtomicU32::new(0),
            tran_id: AtomicU64::new(0),
            tran_begin_us: AtomicU64::new(0),
            row_count: AtomicI64::new(0),
            options: Mutex::new(Default::default()),
            cpu_ms: AtomicU64::new(0),
            reads: AtomicU64::new(0),
            writes: AtomicU64::new(0),
            logical_reads: AtomicU64::new(0),
            elapsed_ms: AtomicU64::new(0),
            last_request_start_us: AtomicU64::new(unix_us(now)),
            last_request_end_us: AtomicU64::new(unix_us(now)),
        });
        self.sessions.lock().insert(spid, e.clone());
        e
    }

    /// Removes a session (its `Drop`).
    pub fn unregister(&self, spid: i32) {
        self.sessions.lock().remove(&spid);
    }

    /// The sessions, by spid.
    pub fn snapshot(&self) -> Vec<Arc<SessionEntry>> {
        self.sessions.lock().values().cloned().collect()
    }

    /// The session `spid`, if it exists.
    pub fn get(&self, spid: i32) -> Option<Arc<SessionEntry>> {
        self.sessions.lock().get(&spid).cloned()
    }

    /// Records the login a session runs as.
    pub fn set_login(&self, spid: i32, login: &str) {
        if let Some(e) = self.get(spid) {
            *e.login.lock() = login.to_string();
        }
    }

    /// Records the current database of a session.
    pub fn set_database(&self, spid: i32, database: &str) {
        if let Some(e) = self.get(spid) {
            *e.database.lock() = database.to_string();
        }
    }
}

mod who {
    use common::SqlResult;
    use types::Value;

    use std::sync::atomic::Ordering::Relaxed;

    use super::super::{nv, vc, Args};
    use super::from_unix_us;
    use crate::events::EventSink;
    use crate::session::Session;

    impl Session {
        /// `sp_who [@loginame]` / `sp_who2`: the registered sessions (SQL Server also lists its
        /// system sessions 1-50; latchkey has none). A login name or a spid filters the list;
        /// `'active'` keeps the sessions running a request. Status, command, blocker, CPU and
        /// I/O come from each session's published state (`SessionEntry`).
        pub(in crate::sysprocs) fn sp_who(
            &mut self,
            args: &Args,
            sink: &mut dyn EventSink,
            who2: bool,
        ) -> SqlResult<i32> {
            let filter = args.text("@loginame");
            let me = self.spid();
            let my_db = self.database().to_string();
            let entries = self.engine().sessions.snapshot();
            let mut rows = Vec::new();
            for e in entries.iter().filter(|e| match &filter {
                None => true,
                Some(f) if f.eq_ignore_ascii_case("active") => e.request.lock().is_some(),
                Some(f) => match f.trim().parse::<i32>() {
                    Ok(spid) => e.spid == spid,
                    Err(_) => e.login.lock().eq_ignore_ascii_case(f.trim()),
                },
            }) {
                let db = if e.spid == me {
                    my_db.clone()
                } else {
                    e.database.lock().clone()
                };
                let running = e.request.lock().is_some();
                let wait = e.waits.current();
                let blk = crate::sysviews_sessions::blocking_session(e, wait.as_ref());
                let status = match (running, &wait) {
                    (false, _) => "sleeping",
                    (true, Some(_)) => "suspended",
                    (true, None) => "runnable",
                };
                let cmd = if e.spid == me {
                    // the caller's row: sp_who's own query, as SQL Server shows it
                    "SELECT"
                } else if running {
                    e.command()
                } else {
                    "AWAITING COMMAND"
                };
                let (cpu, io) = crate::sysviews_sessions::cpu_and_io(e);
                let client = e.client.lock().clone();
                if who2 {
                    let last = crate::ddl::datetime_text(from_unix_us(
                        e.last_request_start_us.load(Relaxed),
                    ));
                    // "MM/DD HH:MM:SS" as sp_who2's LastBatch
                    let last_batch = format!(
                        "{}/{} {}",
                        last.get(5..7).unwrap_or(""),
                        last.get(8..10).unwrap_or(""),
                        last.get(11..19).unwrap_or("")
                    );
                    rows.push(vec![
                        vc(&format!("{:<5}", e.spid)),
                        vc(status),
                        vc(&e.login.lock()),
                        vc(&client.host_name),
                        vc(&if blk == 0 {
                            "  .".to_string()
                        } else {
                            format!("{blk:<5}")
                        }),
                        vc(&db),
                        vc(cmd),
                        Value::Int(cpu.min(i32::MAX as u64) as i32),
                        Value::Int((io.physical_reads + io.writes).min(i32::MAX as u64) as i32),
                        vc(&last_batch),
                        vc(&client.program_name),
                        vc(&format!("{:<5}", e.spid)),
                        Value::Int(0),
                    ]);
                } else {
                    rows.push(vec![
                        Value::SmallInt(e.spid as i16),
                        Value::SmallInt(0),
                        nv(status),
                        nv(&e.login.lock()),
                        nv(&client.host_name),
                        vc(&format!("{blk:<5}")),
                        nv(&db),
                        nv(cmd),
                        Value::Int(0),
                    ]);
                }
            }
            let spec: &[&str] = if who2 {
                &[
                    "SPID:char(5)",
                    "Status:varchar(30)",
                    "Login:varchar(128)",
                    "HostName:varchar(128)",
                    "BlkBy:char(5)",
                    "DBName:varchar(128)",
                    "Command:varchar(16)",
                    "CPUTime:int",
                    "DiskIO:int",
                    "LastBatch:varchar(20)",
                    "ProgramName:varchar(128)",
                    "SPID:char(5)",
                    "REQUESTID:int",
                ]
            } else {
                &[
                    "spid:smallint",
                    "ecid:smallint",
                    "status:nchar(30)",
                    "loginame:nchar(128)",
                    "hostname:nchar(128)",
                    "blk:char(5)",
                    "dbname:nchar(128)",
                    "cmd:nchar(16)",
                    "request_id:int",
                ]
            };
            self.send_result(sink, spec, rows)?;
            Ok(0)
        }
    }
}

/// `sys.dm_exec_requests`' two offsets in one atomic, so a reader never sees one statement's
/// start with another's end.
#[inline]
pub fn pack_statement_offsets(start: i32, end: i32) -> u64 {
    ((start as u32 as u64) << 32) | end as u32 as u64
}

/// The inverse of [`pack_statement_offsets`].
#[inline]
pub fn unpack_statement_offsets(v: u64) -> (i32, i32) {
    ((v >> 32) as u32 as i32, v as u32 as i32)
}
