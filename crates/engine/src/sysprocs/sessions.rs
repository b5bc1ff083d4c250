//! The engine's session registry (`sp_who`, `sp_who2`): every `Session` registers when it is
//! created and leaves when it is dropped. Today a process has the CLI's one session (more in
//! tests); the TDS server will register one per connection through the same calls.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::SystemTime;

use parking_lot::Mutex;

/// What `sp_who` shows of a session that is not the caller.
#[derive(Debug)]
pub struct SessionEntry {
    pub spid: i32,
    /// The login; a client names it after the session exists (`Session::set_login`).
    pub login: Mutex<String>,
    pub host: String,
    pub program: String,
    pub login_time: SystemTime,
    /// Current database, updated by `USE`.
    pub database: Mutex<String>,
}

/// Sessions of one engine, by spid.
#[derive(Debug, Default)]
pub struct SessionRegistry {
    sessions: Mutex<BTreeMap<i32, Arc<SessionEntry>>>,
}

impl SessionRegistry {
    /// Registers a new session.
    pub fn register(&self, spid: i32, login: &str) -> Arc<SessionEntry> {
        let e = Arc::new(SessionEntry {
            spid,
            login: Mutex::new(login.to_string()),
            host: "localhost".into(),
            program: "latchkey".into(),
            login_time: SystemTime::now(),
            database: Mutex::new("master".into()),
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

    /// Records the login a session runs as.
    pub fn set_login(&self, spid: i32, login: &str) {
        if let Some(e) = self.sessions.lock().get(&spid) {
            *e.login.lock() = login.to_string();
        }
    }

    /// Records the current database of a session.
    pub fn set_database(&self, spid: i32, database: &str) {
        if let Some(e) = self.sessions.lock().get(&spid) {
            *e.database.lock() = database.to_string();
        }
    }
}

mod who {
    use common::SqlResult;
    use types::Value;

    use super::super::{nv, vc, Args};
    use crate::events::EventSink;
    use crate::session::Session;

    impl Session {
        /// `sp_who [@loginame]` / `sp_who2`: the registered sessions (SQL Server also lists its
        /// system sessions 1-50; latchkey has none). A login name or a spid filters the list.
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
                // the caller is the one session running a batch (one batch per session)
                Some(f) if f.eq_ignore_ascii_case("active") => e.spid == me,
                Some(f) => match f.trim().parse::<i32>() {
                    Ok(spid) => e.spid == spid,
                    Err(_) => e.login.lock().eq_ignore_ascii_case(f.trim()),
                },
            }) {
                let running = e.spid == me;
                let db = if e.spid == me {
                    my_db.clone()
                } else {
                    e.database.lock().clone()
                };
                let (status, cmd) = if running {
                    ("runnable", "SELECT")
                } else {
                    ("sleeping", "AWAITING COMMAND")
                };
                if who2 {
                    let last = crate::ddl::datetime_text(e.login_time);
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
                        vc(&e.host),
                        vc("  ."),
                        vc(&db),
                        vc(cmd),
                        Value::Int(0),
                        Value::Int(0),
                        vc(&last_batch),
                        vc(&e.program),
                        vc(&format!("{:<5}", e.spid)),
                        Value::Int(0),
                    ]);
                } else {
                    rows.push(vec![
                        Value::SmallInt(e.spid as i16),
                        Value::SmallInt(0),
                        nv(status),
                        nv(&e.login.lock()),
                        nv(&e.host),
                        vc("0"),
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
