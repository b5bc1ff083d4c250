//! One connection: the handshake (PRELOGIN, TLS, LOGIN7, authentication, LOGINACK) and then the
//! request loop. States: `PreLogin` → (`TlsHandshake`) → `Login` → `LoggedIn` (requests) →
//! closed. The session thread reads its socket between requests and runs them; while one runs,
//! the attention watcher (`attention.rs`) turns an attention into a cancel.

use std::io::{self, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

use common::SqlError;
use engine::{CollectSink, EventSink, Session};
use tds::batch::{SqlBatch, TmMessage, TmRequest};
use tds::login7::{self, Login7};
use tds::packet::{self, ptype, Assembled, Message, MessageReader, PacketWriter};
use tds::prelogin::{encryption, PreLogin};
use tds::tokens::{self, cur_cmd, done_status, token, Done, EnvChange, LoginAck, MessageToken};

use crate::attention::Watch;
use crate::sink::{message_token, TdsSink, SERVER_NAME};
use crate::transport::{ReadHalf, SharedTls, WriteHalf};
use crate::Shared;

/// SQL Server 2019 RTM (15.0.2000): PRELOGIN VERSION and LOGINACK's program version.
const PRODUCT_VERSION: [u8; 4] = [15, 0, 0x07, 0xD0];
/// The largest handshake message (PRELOGIN, LOGIN7) accepted before login.
const MAX_HANDSHAKE_MESSAGE: usize = 128 * 1024;
/// SQL_Latin1_General_CP1_CI_AS.
const COLLATION: [u8; 5] = tds::types::DEFAULT_COLLATION;
const TDS72: u32 = 0x7209_0002;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Encryption {
    None,
    /// Only LOGIN7 travels encrypted.
    LoginOnly,
    Full,
    /// TDS 8.0: TLS first, then everything.
    Strict,
}

/// The content type of a TLS handshake record, the first byte a TDS 8.0 client sends.
const TLS_HANDSHAKE_RECORD: u8 = 0x16;

fn protocol(msg: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg.into())
}

/// Reads one whole message from `r`.
fn read_message<R: io::Read>(r: &mut R, max: usize) -> io::Result<Message> {
    let mut asm = MessageReader::new(max);
    loop {
        let (h, p) = packet::read_packet(r, packet::MAX_PACKET_SIZE)?
            .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof))?;
        match asm.push(&h, &p).map_err(packet::to_io)? {
            Assembled::Message(m) => return Ok(m),
            Assembled::Partial | Assembled::Ignored => {}
        }
    }
}

/// Serves one accepted connection until it closes.
pub(crate) fn serve(sock: Arc<TcpStream>, peer: SocketAddr, id: u64, sh: &Arc<Shared>) {
    match handshake(sock, peer, id, sh) {
        Ok(Some(c)) => c.run(),
        Ok(None) => {}
        Err(e) => {
            if e.kind() != io::ErrorKind::UnexpectedEof {
                sh.log
                    .line(&format!("connection from {peer} closed during login: {e}"));
            }
        }
    }
}

struct Connection {
    sh: Arc<Shared>,
    id: u64,
    sock: Arc<TcpStream>,
    tls: Option<SharedTls>,
    session: Session,
    /// The login's database (restored by a connection reset).
    login_database: String,
    packet_size: usize,
    /// The TDS version of the LOGINACK: before 7.3 the 2008 date/time types go as text.
    tds_version: u32,
    /// The transaction descriptor of the open transaction (0: none), echoed by the client.
    descriptor: u64,
    next_descriptor: u64,
    prepared: crate::rpc::Prepared,
    /// The attention watcher's view of this connection (set when the request loop starts).
    watch: Option<Arc<Watch>>,
}

fn handshake(
    sock: Arc<TcpStream>,
    peer: SocketAddr,
    id: u64,
    sh: &Arc<Shared>,
) -> io::Result<Option<Connection>> {
    let mut enc = Encryption::None;
    let mut tls: Option<SharedTls> = None;
    // TDS 8.0 strict encryption: the client's first byte is a TLS record (a ClientHello), not
    // a TDS packet type; TLS covers everything from PRELOGIN on.
    let mut first_byte = [0u8; 1];
    let strict = sock.peek(&mut first_byte)? == 1 && first_byte[0] == TLS_HANDSHAKE_RECORD;
    if strict {
        let Some(cfg) = &sh.config.tls_strict else {
            sh.log.line(&format!(
                "connection from {peer} closed: TDS 8.0 strict encryption asked for, but no certificate is configured"
            ));
            return Ok(None);
        };
        let conn = crate::tls::handshake_strict(&sock, cfg)?;
        tls = Some(Arc::new(Mutex::new(conn)));
        enc = Encryption::Strict;
    }
    let first = read_message(
        &mut ReadHalf::new(&sock, tls.clone()),
        MAX_HANDSHAKE_MESSAGE,
    )?;
    let login_msg = match first.ptype {
        ptype::PRELOGIN => {
            let pre = PreLogin::parse(&first.payload).map_err(packet::to_io)?;
            let client = pre.encryption.unwrap_or(encryption::OFF);
            let answer = match (&sh.config.tls, client) {
                // Under TLS already: nothing more to negotiate (the client ignores the value).
                _ if strict => encryption::NOT_SUP,
                (None, _) | (_, encryption::NOT_SUP) => encryption::NOT_SUP,
                (Some(_), encryption::OFF) => {
                    enc = Encryption::LoginOnly;
                    encryption::OFF
                }
                (Some(_), _) => {
                    enc = Encryption::Full;
                    encryption::ON
                }
            };
            let reply = PreLogin {
                version: Some((PRODUCT_VERSION, 0)),
                encryption: Some(answer),
                instance: Some(Vec::new()),
                thread_id: None,
                mars: Some(0),
                trace_id: None,
                fed_auth_required: pre.fed_auth_required.map(|_| 0),
                nonce: None,
            };
            let bytes = packet::encode_message(
                ptype::TABULAR_RESULT,
                0,
                &reply.encode(),
                packet::DEFAULT_PACKET_SIZE,
            );
            WriteHalf::new(&sock, tls.clone()).write_all(&bytes)?;
            if (client == encryption::REQ || client == encryption::ON)
                && sh.config.tls.is_none()
                && !strict
            {
                // The client requires encryption the server cannot give: it closes.
                return Ok(None);
            }
            None
        }
        ptype::LOGIN7 => Some(first),
        other => {
            return Err(protocol(format!(
                "first packet of type {other:#04x} (expected PRELOGIN or LOGIN7)"
            )))
        }
    };
    if let (Some(cfg), Encryption::LoginOnly | Encryption::Full) = (&sh.config.tls, enc) {
        let conn = crate::tls::handshake(&sock, cfg)?;
        tls = Some(Arc::new(Mutex::new(conn)));
    }
    let login_msg = match login_msg {
        Some(m) => m,
        None => {
            let mut r = ReadHalf::new(&sock, tls.clone());
            read_message(&mut r, MAX_HANDSHAKE_MESSAGE)?
        }
    };
    if enc == Encryption::LoginOnly {
        tls = None;
    }
    if login_msg.ptype != ptype::LOGIN7 {
        return Err(protocol(format!(
            "packet of type {:#04x} where LOGIN7 was expected",
            login_msg.ptype
        )));
    }
    let login = Login7::parse(&login_msg.payload).map_err(packet::to_io)?;
    let mut w = WriteHalf::new(&sock, tls.clone());
    let mut pw = PacketWriter::new(ptype::TABULAR_RESULT, packet::DEFAULT_PACKET_SIZE, 0);
    let fail = |pw: &mut PacketWriter, w: &mut WriteHalf, reason: &str, extra: Option<SqlError>| {
        let line = if reason.starts_with("Error: 18456") {
            format!("{reason} [CLIENT: {}]", peer.ip())
        } else {
            format!(
                "Error: 18456, Severity: 14, State: 1. Login failed for user '{}'. Reason: {reason} [CLIENT: {}]",
                login.user_name,
                peer.ip()
            )
        };
        sh.log.line(&line);
        if let Some(e) = extra {
            tokens::error(pw.buf(), &message_token(&e));
        }
        let e = login_failed(&login.user_name);
        tokens::error(pw.buf(), &message_token(&e));
        tokens::done(
            pw.buf(),
            token::DONE,
            &Done {
                status: done_status::ERROR,
                cur_cmd: 0,
                row_count: 0,
            },
        );
        let _ = pw.finish(w);
    };
    // TDS 8.0 (0x08000000) is TDS 7.4 on a TLS-first transport.
    let tds_version = if login.tds_version == login7::TDS80 {
        login7::TDS74
    } else {
        login.tds_version
    };
    if tds_version < TDS72 {
        fail(
            &mut pw,
            &mut w,
            &format!("TDS version {:#010x} is older than 7.2", login.tds_version),
            None,
        );
        return Ok(None);
    }
    if login.option_flags2 & login7::OPTION2_INTEGRATED_SECURITY != 0 || !login.sspi.is_empty() {
        fail(
            &mut pw,
            &mut w,
            "Windows authentication is not supported; use a SQL Server login",
            None,
        );
        return Ok(None);
    }
    let auth = match sh.engine.authenticate(&login.user_name, &login.password) {
        Ok(a) => a,
        Err(f) => {
            fail(&mut pw, &mut w, &f.log_text(), None);
            return Ok(None);
        }
    };
    let mut session = Session::new(sh.engine.clone());
    if let Err(e) = session.set_authenticated_login(&auth) {
        let reason = format!("Cannot open the login's default database: {e}");
        let e4064 = SqlError::custom(
            4064,
            11,
            1,
            "Cannot open user default database. Login failed.",
        );
        fail(&mut pw, &mut w, &reason, Some(e4064));
        return Ok(None);
    }
    if !login.database.is_empty() {
        let mut c = CollectSink::new();
        session.execute_batch(
            &format!("USE [{}]", login.database.replace(']', "]]")),
            &mut c,
        );
        if !c.errors().is_empty() {
            let e = SqlError::custom(
                4060,
                11,
                1,
                format!(
                    "Cannot open database \"{}\" requested by the login. The login failed.",
                    login.database
                ),
            );
            fail(
                &mut pw,
                &mut w,
                &format!(
                    "Failed to open the explicitly specified database '{}'.",
                    login.database
                ),
                Some(e),
            );
            return Ok(None);
        }
    }
    let requested = login.packet_size as usize;
    let packet_size = if requested == 0 {
        packet::DEFAULT_PACKET_SIZE
    } else {
        requested.clamp(packet::MIN_PACKET_SIZE, packet::MAX_PACKET_SIZE)
    };
    let database = session.database().to_string();
    let b = pw.buf();
    tokens::env_change(
        b,
        &EnvChange::Database {
            new: database.clone(),
            old: "master".into(),
        },
    );
    tokens::info(
        b,
        &info(
            5701,
            2,
            &format!("Changed database context to '{database}'."),
        ),
    );
    tokens::env_change(
        b,
        &EnvChange::SqlCollation {
            new: COLLATION.to_vec(),
            old: Vec::new(),
        },
    );
    tokens::env_change(
        b,
        &EnvChange::Language {
            new: "us_english".into(),
            old: String::new(),
        },
    );
    tokens::info(b, &info(5703, 1, "Changed language setting to us_english."));
    tokens::login_ack(
        b,
        &LoginAck {
            interface: tokens::INTERFACE_TSQL,
            tds_version: tds_version.min(login7::TDS74),
            prog_name: "Microsoft SQL Server".into(),
            prog_version: PRODUCT_VERSION,
        },
    );
    if login.option_flags3 & login7::OPTION3_EXTENSION != 0 {
        // UTF8_SUPPORT is acknowledged as "not supported": latchkey's collation is Latin1.
        let acks: Vec<(u8, Vec<u8>)> = login
            .feature(login7::feature::UTF8_SUPPORT)
            .map(|_| vec![(login7::feature::UTF8_SUPPORT, vec![0])])
            .unwrap_or_default();
        tokens::feature_ext_ack(b, &acks);
    }
    tokens::env_change(
        b,
        &EnvChange::PacketSize {
            new: packet_size as u32,
            old: packet::DEFAULT_PACKET_SIZE as u32,
        },
    );
    tokens::done(b, token::DONE, &Done::default());
    pw.finish(&mut w)?;
    sh.set_cancel(id, session.cancel_handle());
    Ok(Some(Connection {
        sh: sh.clone(),
        id,
        sock,
        tls,
        session,
        login_database: database,
        packet_size,
        tds_version: tds_version.min(login7::TDS74),
        descriptor: 0,
        next_descriptor: 1,
        prepared: Default::default(),
        watch: None,
    }))
}

fn info(number: i32, state: u8, text: &str) -> MessageToken {
    MessageToken {
        number,
        state,
        class: 0,
        text: text.into(),
        server: SERVER_NAME.into(),
        procedure: String::new(),
        line: 0,
    }
}

/// Msg 18456: the only thing a client learns about a failed login.
fn login_failed(user: &str) -> SqlError {
    SqlError::custom(18456, 14, 1, format!("Login failed for user '{user}'."))
}

/// What the session thread reads between requests.
enum Incoming {
    Message(Message),
    Attention,
    Closed(Option<io::Error>),
}

/// Reads the next whole message, or an attention (at a packet boundary; also a zero-length
/// one: a message being reassembled is abandoned), or the end of the connection.
fn next_incoming(r: &mut ReadHalf, max_message: usize) -> Incoming {
    let mut asm = MessageReader::new(max_message);
    loop {
        let (h, p) = match packet::read_packet(r, packet::MAX_PACKET_SIZE) {
            Ok(Some(x)) => x,
            Ok(None) => return Incoming::Closed(None),
            Err(e) => return Incoming::Closed(Some(e)),
        };
        if h.ptype == ptype::ATTENTION {
            return Incoming::Attention;
        }
        match asm.push(&h, &p) {
            Ok(Assembled::Message(m)) => return Incoming::Message(m),
            Ok(_) => {}
            Err(e) => return Incoming::Closed(Some(packet::to_io(e))),
        }
    }
}

impl Connection {
    fn run(mut self) {
        // The flag is cleared here once an attention is answered, not when a request starts:
        // an attention that arrives before its request begins executing must still cancel it.
        self.session.set_caller_resets_cancel(true);
        let cancel = self.session.cancel_handle();
        let watch = self
            .sh
            .watcher
            .watch(self.id, &self.sock, self.tls.is_some(), cancel.clone());
        self.watch = Some(watch.clone());
        let mut reader = ReadHalf::new(&self.sock, self.tls.clone());
        let max = self.sh.config.max_message_bytes;
        let mut w = WriteHalf::new(&self.sock, self.tls.clone());
        let spid = self.session.spid().clamp(0, u16::MAX as i32) as u16;
        let mut pw = PacketWriter::new(ptype::TABULAR_RESULT, self.packet_size, spid);
        loop {
            match next_incoming(&mut reader, max) {
                Incoming::Closed(e) => {
                    if let Some(e) = e {
                        self.sh
                            .log
                            .line(&format!("spid {spid}: connection closed: {e}"));
                    }
                    break;
                }
                Incoming::Attention => {
                    // The acknowledgement is a message of its own, after the response of the
                    // request it cancelled (which ends normally): tedious reads the ack from the
                    // message after the one under way when it cancelled; go-mssqldb, pytds and
                    // mssql-jdbc read on until it comes.
                    pw.buf().clear();
                    tokens::done(
                        pw.buf(),
                        token::DONE,
                        &Done {
                            status: done_status::ATTN,
                            cur_cmd: 0,
                            row_count: 0,
                        },
                    );
                    if pw.finish(&mut w).is_err() {
                        break;
                    }
                    // answered: the flag set for it must not cancel (or mark with ATTN) the
                    // next request, whose DONE would then swallow a later attention
                    cancel.reset();
                }
                Incoming::Message(m) => {
                    // Under TLS the read may have taken the attention sent right behind the
                    // request into rustls' buffer, where the watcher cannot see it.
                    if reader.has_buffered_plaintext() {
                        cancel.cancel();
                    }
                    watch.begin();
                    let r = catch_unwind(AssertUnwindSafe(|| self.request(&m, &mut pw, &mut w)));
                    watch.end();
                    match r {
                        Ok(Ok(())) => {}
                        Ok(Err(e)) => {
                            self.sh
                                .log
                                .line(&format!("spid {spid}: closing connection: {e}"));
                            break;
                        }
                        Err(p) => {
                            let what = p
                                .downcast_ref::<&str>()
                                .map(|s| s.to_string())
                                .or_else(|| p.downcast_ref::<String>().cloned())
                                .unwrap_or_default();
                            self.sh.log.line(&format!(
                                "spid {spid}: a request panicked ({what}); its transaction is rolled back and the connection closed"
                            ));
                            self.panicked(&mut pw, &mut w);
                            break;
                        }
                    }
                }
            }
        }
        // Dropping the session rolls back its transaction and drops its #temp tables; that is
        // done before the socket closes so a client that saw the close sees the rollback.
        let sock = self.sock;
        drop(watch);
        drop(self.watch);
        drop(self.session);
        let _ = sock.shutdown(Shutdown::Both);
    }

    /// After a panic: a severity-20 error ends the connection.
    fn panicked(&mut self, pw: &mut PacketWriter, w: &mut WriteHalf) {
        pw.buf().clear();
        let e = SqlError::custom(
            3624,
            20,
            1,
            "A system assertion check has failed. Check the SQL Server error log for details. Typically, an assertion failure is caused by a software bug or data corruption. To check for database corruption, consider running DBCC CHECKDB.",
        );
        tokens::error(pw.buf(), &message_token(&e));
        tokens::done(
            pw.buf(),
            token::DONE,
            &Done {
                status: done_status::ERROR | done_status::SRVERROR,
                cur_cmd: 0,
                row_count: 0,
            },
        );
        let _ = pw.finish(w);
    }

    fn request(&mut self, m: &Message, pw: &mut PacketWriter, w: &mut WriteHalf) -> io::Result<()> {
        let reset = m.reset_connection() || m.reset_connection_skip_tran();
        if reset {
            let keep = m.reset_connection_skip_tran() && !m.reset_connection();
            let before = self.session.trancount();
            self.session
                .reset_connection(keep, &self.login_database.clone());
            if before > 0 && self.session.trancount() == 0 {
                self.descriptor = 0;
            }
        }
        let db_before = self.session.database().to_string();
        let tran_before = self.session.trancount();
        let cancel = self.session.cancel_handle();
        let mut sink = TdsSink::new(pw, w, cancel.clone());
        sink.dates_as_text = tds::downlevel::dates_as_text(self.tds_version);
        self.lend_descriptors(&mut sink);
        if reset {
            tokens::env_change(sink.buf(), &EnvChange::ResetConnectionAck);
        }
        sink.in_xact = tran_before > 0;
        let mut cmd = cur_cmd::NONE;
        match m.ptype {
            ptype::SQL_BATCH => {
                let b = SqlBatch::parse(&m.payload).map_err(packet::to_io)?;
                if self.sh.config.panic_hook_batch.as_deref() == Some(b.text.as_str()) {
                    panic!("test hook: panic inside a request");
                }
                sink.rollback_hint = b.text.to_ascii_lowercase().contains("rollback");
                self.session.execute_batch(&b.text, &mut sink);
            }
            ptype::RPC => {
                sink.in_proc = true;
                cmd = cur_cmd::EXECUTE;
                crate::rpc::handle(&mut self.session, &mut self.prepared, &m.payload, &mut sink)?;
            }
            ptype::TRANSACTION_MANAGER => {
                let t = TmMessage::parse(&m.payload).map_err(packet::to_io)?;
                return self.transaction_manager(t.request, sink);
            }
            other => {
                return Err(protocol(format!("unexpected packet type {other:#04x}")));
            }
        }
        self.env_changes(&mut sink, &db_before);
        // A cancel from the reader thread (an attention) is answered by its marker in `run`;
        // the sink's own cancel has no marker and must not cancel the next request.
        let attention = cancel.is_cancelled() && !sink.self_cancelled;
        sink.in_xact = self.session.trancount() > 0;
        sink.final_done(attention, cmd);
        if sink.self_cancelled {
            cancel.reset();
        }
        if let Some(e) = sink.broken.take() {
            return Err(e);
        }
        self.request_ends();
        pw.finish(w)
    }

    /// The request's response is complete but for its last packet: from here on the client
    /// may send the next request, which the attention watcher must not take for an attention.
    fn request_ends(&self) {
        if let Some(w) = &self.watch {
            w.end();
        }
    }

    /// ENVCHANGE tokens for what the request changed: the database (USE), and a transaction
    /// change the statements did not report (a batch abort's rollback): the sink writes those
    /// (`TdsSink::transaction`), with the connection's descriptors lent to it.
    fn env_changes<W: Write>(&mut self, sink: &mut TdsSink<'_, W>, db_before: &str) {
        let db = self.session.database();
        if db != db_before {
            tokens::env_change(
                sink.buf(),
                &EnvChange::Database {
                    new: db.to_string(),
                    old: db_before.to_string(),
                },
            );
        }
        self.session.report_transaction(sink);
        self.descriptor = sink.descriptor;
        self.next_descriptor = sink.next_descriptor;
    }

    /// A sink for one request, holding the connection's transaction descriptors.
    fn lend_descriptors<W: Write>(&self, sink: &mut TdsSink<'_, W>) {
        sink.descriptor = self.descriptor;
        sink.next_descriptor = self.next_descriptor;
    }

    /// A transaction-manager request: run as the T-SQL statement it stands for, answered with
    /// the ENVCHANGE of the transaction and DONE.
    fn transaction_manager<W: Write>(
        &mut self,
        req: TmRequest,
        mut sink: TdsSink<'_, W>,
    ) -> io::Result<()> {
        let quote = |n: &str| format!("[{}]", n.replace(']', "]]"));
        let iso = |level: u8| -> Option<&'static str> {
            use tds::batch::isolation as i;
            Some(match level {
                i::READ_UNCOMMITTED => "READ UNCOMMITTED",
                i::READ_COMMITTED => "READ COMMITTED",
                i::REPEATABLE_READ => "REPEATABLE READ",
                i::SERIALIZABLE => "SERIALIZABLE",
                i::SNAPSHOT => "SNAPSHOT",
                _ => return None,
            })
        };
        let begin = |level: u8, name: &str| {
            let mut s = String::new();
            if let Some(l) = iso(level) {
                s.push_str(&format!("SET TRANSACTION ISOLATION LEVEL {l}; "));
            }
            s.push_str("BEGIN TRANSACTION");
            if !name.is_empty() {
                s.push(' ');
                s.push_str(&quote(name));
            }
            s
        };
        let (end_sql, begin_new, rollback) = match &req {
            TmRequest::Begin { isolation, name } => (begin(*isolation, name), None, false),
            TmRequest::Commit { name, begin_new } => (
                format!(
                    "COMMIT TRANSACTION {}",
                    if name.is_empty() {
                        String::new()
                    } else {
                        quote(name)
                    }
                ),
                begin_new.clone(),
                false,
            ),
            TmRequest::Rollback { name, begin_new } => (
                format!(
                    "ROLLBACK TRANSACTION {}",
                    if name.is_empty() {
                        String::new()
                    } else {
                        quote(name)
                    }
                ),
                begin_new.clone(),
                true,
            ),
            TmRequest::Save { name } => (format!("SAVE TRANSACTION {}", quote(name)), None, false),
            TmRequest::Unsupported(t) => {
                let e = SqlError::custom(
                    40517,
                    16,
                    1,
                    format!("Keyword or statement option 'transaction manager request {t}' is not supported in this version of SQL Server."),
                );
                sink.error(&e);
                sink.final_done(false, 0);
                self.request_ends();
                return sink.pw.finish(sink.out);
            }
        };
        let db_before = self.session.database().to_string();
        self.lend_descriptors(&mut sink);
        sink.rollback_hint = rollback;
        self.session.execute_batch(&end_sql, &mut sink);
        self.env_changes(&mut sink, &db_before);
        if let Some((level, name)) = begin_new {
            sink.rollback_hint = false;
            self.session.execute_batch(&begin(level, &name), &mut sink);
            self.env_changes(&mut sink, &db_before);
        }
        sink.in_xact = self.session.trancount() > 0;
        sink.final_done(false, 0);
        if let Some(e) = sink.broken.take() {
            return Err(e);
        }
        self.request_ends();
        sink.pw.finish(sink.out)
    }
}
