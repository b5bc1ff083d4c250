//! `latchkey -S host[,port] -U login -P password`: the script runner and shell over TDS to a
//! running `latchkey serve` (or any SQL Server), so one binary is both `sqlservr` and
//! `sqlcmd`. The TDS client's events are translated into the same `EventSink` calls the
//! embedded engine makes, so the output is the same in both modes.

use common::{CancelToken, SqlError};
use engine::{EventSink, InfoMessage, OutColumn, Session};
use tds::client::{Client, ClientConfig, ClientError, Encrypt, Event};
use tds::tokens::{cur_cmd, done_status, MessageToken};
use types::DataType;

/// Where the runner's batches go: the engine in this process, or a server over TDS.
pub(crate) enum Backend {
    Local(Box<Session>),
    Remote(Box<RemoteSession>),
}

impl From<Session> for Backend {
    fn from(s: Session) -> Self {
        Backend::Local(Box::new(s))
    }
}

impl Backend {
    pub(crate) fn execute_batch(&mut self, text: &str, sink: &mut dyn EventSink) {
        match self {
            Backend::Local(s) => s.execute_batch(text, sink),
            Backend::Remote(r) => r.execute_batch(text, sink),
        }
    }

    /// The flag Ctrl-C and `-t` set: the engine's own, or the one the client polls to send an
    /// attention.
    pub(crate) fn cancel_handle(&self) -> CancelToken {
        match self {
            Backend::Local(s) => s.cancel_handle(),
            Backend::Remote(r) => r.cancel.clone(),
        }
    }

    /// The running statement's `(done, total)` for the shell's progress bar. Over TDS the
    /// server does not report progress (SQL Server neither), so the meter stays empty and the
    /// shell shows elapsed time only.
    pub(crate) fn progress_handle(&self) -> common::ProgressMeter {
        match self {
            Backend::Local(s) => s.progress_handle(),
            Backend::Remote(_) => common::ProgressMeter::new(),
        }
    }

    /// Names for the shell's completion (none over TDS: completing must not run SQL).
    pub(crate) fn completion_names(&self) -> Vec<String> {
        match self {
            Backend::Local(s) => s.completion_names(),
            Backend::Remote(_) => Vec::new(),
        }
    }

    pub(crate) fn local_mut(&mut self) -> Option<&mut Session> {
        match self {
            Backend::Local(s) => Some(s),
            Backend::Remote(_) => None,
        }
    }
}

pub(crate) struct RemoteSession {
    client: Option<Client>,
    cancel: CancelToken,
}

/// Connection options from the command line.
pub(crate) struct RemoteOptions<'a> {
    pub server: &'a str,
    pub user: Option<&'a str>,
    pub password: Option<&'a str>,
    pub database: Option<&'a str>,
    pub encrypt: Encrypt,
    pub trust_server_certificate: bool,
}

/// Connects and logs in; `Err`: the text for standard error (sqlcmd exits with status 1).
pub(crate) fn connect(o: &RemoteOptions) -> Result<RemoteSession, String> {
    let (host, port) = tds::client::parse_server(o.server).map_err(|e| format!("latchkey: {e}"))?;
    let Some(user) = o.user else {
        return Err(
            "latchkey: -S needs a SQL Server login (-U): integrated authentication is \
                    not supported"
                .to_string(),
        );
    };
    // sqlcmd reads the password from SQLCMDPASSWORD when -P is not given
    let password = o
        .password
        .map(str::to_string)
        .or_else(|| std::env::var("SQLCMDPASSWORD").ok())
        .unwrap_or_default();
    let mut cfg = ClientConfig::new(&host, port, user, &password);
    cfg.database = o.database.map(str::to_string);
    cfg.app_name = "latchkey".to_string();
    cfg.encrypt = o.encrypt;
    cfg.trust_server_certificate = o.trust_server_certificate;
    match Client::connect(&cfg) {
        Ok(client) => Ok(RemoteSession {
            client: Some(client),
            cancel: CancelToken::new(),
        }),
        Err(ClientError::Login(m)) => Err(format!(
            "Msg {}, Level {}, State {}, Server {}, Line {}\n{}",
            m.number,
            m.class,
            m.state,
            if m.server.is_empty() {
                &host
            } else {
                &m.server
            },
            m.line,
            m.text
        )),
        Err(e) => Err(format!(
            "Sqlcmd: Error: cannot connect to {host},{port}: {e}"
        )),
    }
}

impl RemoteSession {
    pub(crate) fn execute_batch(&mut self, text: &str, sink: &mut dyn EventSink) {
        self.cancel.reset();
        let Some(client) = self.client.as_mut() else {
            sink.error(&link_failure(
                "the connection was closed after an earlier failure",
            ));
            return;
        };
        let mut t = Translator { sink, open: None };
        let r = client.batch(text, Some(&self.cancel), &mut |e| t.event(e));
        t.close_open(true);
        if let Err(e) = r {
            // the connection is gone (I/O or protocol failure): severity 20, as SQL Server's
            // clients report a broken link; a script stops here
            self.client = None;
            t.sink.error(&link_failure(&e.to_string()));
        }
    }
}

fn link_failure(detail: &str) -> SqlError {
    SqlError {
        number: 0,
        severity: 20,
        state: 1,
        message: format!("Communication link failure: {detail}"),
        line: 0,
        procedure: String::new(),
    }
}

/// The engine's event order from the token stream: COLMETADATA starts a result set, its rows
/// follow, the DONE after them ends it with its count; a DONE outside a result set with the
/// COUNT bit is a DML row count; ERROR inside a result set ends it as incomplete.
struct Translator<'a> {
    sink: &'a mut dyn EventSink,
    /// Rows of the open result set, if one is open.
    open: Option<u64>,
}

impl Translator<'_> {
    fn event(&mut self, e: Event) {
        match e {
            Event::Columns(cols) => {
                self.close_open(false);
                if cols.is_empty() {
                    return;
                }
                let out: Vec<OutColumn> = cols
                    .iter()
                    .map(|c| OutColumn {
                        name: c.name.clone(),
                        // a type the engine has no name for is shown as text
                        data_type: c
                            .type_info
                            .to_data_type()
                            .unwrap_or(DataType::NVarChar(None)),
                    })
                    .collect();
                self.sink.result_start(&out);
                self.open = Some(0);
            }
            Event::Row(values) => {
                if let Some(n) = self.open.as_mut() {
                    *n += 1;
                    self.sink.row(&values);
                }
            }
            Event::Done(_, d) => {
                let counted = d.status & done_status::COUNT != 0;
                let incomplete = d.status & (done_status::ERROR | done_status::ATTN) != 0;
                match self.open.take() {
                    Some(rows) => {
                        let dml = matches!(
                            d.cur_cmd,
                            cur_cmd::INSERT | cur_cmd::UPDATE | cur_cmd::DELETE
                        );
                        if dml {
                            // DML with OUTPUT: its rows were the result set; one count
                            self.sink.result_end(rows, incomplete, false);
                            if counted {
                                self.sink.output_row_count(d.row_count);
                            }
                        } else {
                            self.sink.result_end(rows, incomplete, counted);
                        }
                    }
                    None if counted => self.sink.row_count(d.row_count),
                    None => {}
                }
            }
            Event::Info(m) => self.sink.message(&InfoMessage {
                text: m.text,
                number: m.number,
                severity: m.class,
                state: m.state,
            }),
            Event::Error(m) => {
                if let Some(rows) = self.open.take() {
                    self.sink.result_end(rows, true, false);
                }
                self.sink.error(&to_sql_error(m));
            }
            Event::EnvChange(_) | Event::ReturnValue(_) | Event::ReturnStatus(_) => {}
        }
    }

    /// A result set still open when the response ended (or before the next one) ends here.
    fn close_open(&mut self, incomplete: bool) {
        if let Some(rows) = self.open.take() {
            self.sink.result_end(rows, incomplete, false);
        }
    }
}

fn to_sql_error(m: MessageToken) -> SqlError {
    SqlError {
        number: m.number,
        severity: m.class,
        state: m.state,
        message: m.text,
        line: m.line.max(0) as u32,
        procedure: m.procedure,
    }
}

/// `-N`'s value, as sqlcmd (ODBC Driver 18) reads it: s[trict], m[andatory] (also true/yes),
/// o[ptional] (also false/no).
pub fn parse_encrypt(v: &str) -> Result<Encrypt, String> {
    match v.to_ascii_lowercase().as_str() {
        "s" | "strict" => Ok(Encrypt::Strict),
        "m" | "mandatory" | "t" | "true" | "y" | "yes" => Ok(Encrypt::On),
        "o" | "optional" | "f" | "false" | "n" | "no" => Ok(Encrypt::LoginOnly),
        _ => Err(format!(
            "'{v}' is not an encryption mode: use s (strict), m (mandatory) or o (optional)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::{CollectSink, Event as EngineEvent};
    use std::sync::Arc;
    use tds::rows::ColumnMeta;
    use tds::tokens::{token, Done};
    use types::Value;

    fn col(name: &str) -> ColumnMeta {
        ColumnMeta::new(name, &DataType::Int, false)
    }

    #[test]
    fn result_sets_counts_and_errors_map_to_engine_events() {
        let mut sink = CollectSink::new();
        let mut t = Translator {
            sink: &mut sink,
            open: None,
        };
        let done = |status, cmd, n| {
            Event::Done(
                token::DONE,
                Done {
                    status,
                    cur_cmd: cmd,
                    row_count: n,
                },
            )
        };
        t.event(Event::Columns(Arc::new(vec![col("a")])));
        t.event(Event::Row(vec![Value::Int(1)]));
        t.event(Event::Row(vec![Value::Int(2)]));
        t.event(done(
            done_status::MORE | done_status::COUNT,
            cur_cmd::SELECT,
            2,
        ));
        t.event(done(
            done_status::MORE | done_status::COUNT,
            cur_cmd::INSERT,
            5,
        ));
        t.event(Event::Columns(Arc::new(vec![col("b")])));
        t.event(Event::Row(vec![Value::Int(3)]));
        t.event(Event::Error(MessageToken {
            number: 8134,
            state: 1,
            class: 16,
            text: "Divide by zero error encountered.".into(),
            ..MessageToken::default()
        }));
        t.event(done(done_status::ERROR, cur_cmd::SELECT, 0));
        t.close_open(true);
        let ev = &sink.events;
        assert_eq!(ev.len(), 4, "{ev:?}");
        assert!(
            matches!(&ev[0], EngineEvent::ResultSet { rows, incomplete: false, .. } if rows.len() == 2)
        );
        assert_eq!(ev[1], EngineEvent::RowCount(5));
        assert!(
            matches!(&ev[2], EngineEvent::ResultSet { rows, incomplete: true, .. } if rows.len() == 1)
        );
        assert!(matches!(&ev[3], EngineEvent::Error(e) if e.number == 8134 && e.severity == 16));
    }
}
