//! A blocking TDS 7.4 client: PRELOGIN, optional TLS (inside PRELOGIN packets during the
//! handshake, as [MS-TDS] 2.2.6.5 says), LOGIN7, SQLBatch, RPC, transaction descriptors from
//! ENVCHANGE, attention, and the token stream decoded into [`Event`]s. `latchkey -S` and
//! `latchkey stress` run on it, and the server's tests use it as a second, independent side of
//! the wire.
//!
//! The connection reads whole packets into its own buffer before decoding, so a read that times
//! out (it does every 100 ms while a [`CancelToken`] is given) loses nothing: between reads the
//! token is checked and, once set, one ATTENTION packet is sent; the client then reads on until
//! the server's DONE with the attention bit, as [MS-TDS] 3.2.5.1 requires.
//!
//! Everything read from the network is untrusted: packet lengths are checked, a message is
//! capped at [`MAX_MESSAGE`] bytes, and malformed input is an error, never a panic.

use std::io::{self, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use common::CancelToken;
use types::Value;

use crate::batch::{encode_all_headers, AllHeaders, SqlBatch};
use crate::error::TdsError;
use crate::login7::{Login7, TDS74};
use crate::packet::{ptype, status, PacketHeader, DEFAULT_PACKET_SIZE, HEADER_LEN};
use crate::prelogin::{encryption, PreLogin};
use crate::rows::{
    read_colmetadata, read_nbcrow, read_returnvalue, read_row, ColumnMeta, ReturnValue,
    TOKEN_COLMETADATA, TOKEN_NBCROW, TOKEN_RETURNVALUE, TOKEN_ROW,
};
use crate::rpc::{write_rpc, RpcRequest};
use crate::tokens::{self, done_status, token, Done, EnvChange, LoginAck, MessageToken, Token};

/// The largest response message the client keeps in memory at once (a result set streams
/// through: decoded tokens are dropped from the buffer as they are consumed).
pub const MAX_MESSAGE: usize = 1 << 30;

/// How often a blocked read wakes up to look at the cancel token.
const CANCEL_POLL: Duration = Duration::from_millis(100);

/// What the client asks for in PRELOGIN's ENCRYPTION option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encrypt {
    /// ENCRYPT_OFF: TLS for LOGIN7 only when the server has a certificate (ODBC's
    /// `Encrypt=no`); the certificate is not checked, as ODBC does not check it for that.
    LoginOnly,
    /// ENCRYPT_ON: the whole connection over TLS; the certificate is checked unless
    /// `trust_server_certificate`.
    On,
    /// TDS 8.0 strict encryption (ODBC's `Encrypt=Strict`, sqlcmd `-N s`): TLS first, straight
    /// on TCP with ALPN `tds/8.0`, then PRELOGIN and everything else inside it; the certificate
    /// is checked unless `trust_server_certificate`.
    Strict,
}

#[derive(Clone, Debug)]
pub struct ClientConfig {
    pub host: String,
    pub port: u16,
    pub user: String,
    pub password: String,
    /// Initial database (LOGIN7's Database); `None`: the login's default.
    pub database: Option<String>,
    pub app_name: String,
    pub encrypt: Encrypt,
    /// Accept any server certificate (sqlcmd `-C`, TrustServerCertificate=yes).
    pub trust_server_certificate: bool,
    /// PEM file with the certificate(s) to trust when the certificate is checked.
    pub ca_file: Option<PathBuf>,
    /// Packet size asked for in LOGIN7 (512–32767); the server's ENVCHANGE decides.
    pub packet_size: u32,
    pub connect_timeout: Duration,
}

impl ClientConfig {
    pub fn new(host: &str, port: u16, user: &str, password: &str) -> ClientConfig {
        ClientConfig {
            host: host.to_string(),
            port,
            user: user.to_string(),
            password: password.to_string(),
            database: None,
            app_name: "latchkey".to_string(),
            encrypt: Encrypt::LoginOnly,
            trust_server_certificate: false,
            ca_file: None,
            packet_size: DEFAULT_PACKET_SIZE as u32,
            connect_timeout: Duration::from_secs(15),
        }
    }
}

/// What went wrong on a connection. Server errors inside a request are [`Event::Error`]s, not
/// this: this is for the connection itself (I/O, malformed bytes, a failed login).
#[derive(Debug)]
pub enum ClientError {
    Io(io::Error),
    Protocol(TdsError),
    Tls(String),
    /// The server refused the login (its ERROR token: 18456 and the like).
    Login(MessageToken),
}

impl std::fmt::Display for ClientError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClientError::Io(e) => write!(f, "{e}"),
            ClientError::Protocol(e) => write!(f, "{e}"),
            ClientError::Tls(m) => write!(f, "TLS: {m}"),
            ClientError::Login(m) => write!(
                f,
                "Msg {}, Level {}, State {}, Server {}, Line {}\n{}",
                m.number, m.class, m.state, m.server, m.line, m.text
            ),
        }
    }
}

impl std::error::Error for ClientError {}

impl From<io::Error> for ClientError {
    fn from(e: io::Error) -> Self {
        ClientError::Io(e)
    }
}

impl From<TdsError> for ClientError {
    fn from(e: TdsError) -> Self {
        ClientError::Protocol(e)
    }
}

pub type ClientResult<T> = Result<T, ClientError>;

/// One decoded item of a response.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// COLMETADATA: a result set begins (an empty list: NoMetaData).
    Columns(Arc<Vec<ColumnMeta>>),
    /// ROW or NBCROW, one value per column of the last `Columns`.
    Row(Vec<Value>),
    /// DONE, DONEPROC or DONEINPROC (the token byte, then its content).
    Done(u8, Done),
    Info(MessageToken),
    Error(MessageToken),
    EnvChange(EnvChange),
    ReturnValue(ReturnValue),
    ReturnStatus(i32),
}

/// The byte stream under the TDS packets: plain TCP, or TLS whose handshake travels inside
/// PRELOGIN packets.
enum Transport {
    Plain(TcpStream),
    Tls(Box<rustls::StreamOwned<rustls::ClientConnection, PreloginFramed>>),
}

impl Transport {
    fn tcp(&self) -> &TcpStream {
        match self {
            Transport::Plain(s) => s,
            Transport::Tls(t) => &t.sock.tcp,
        }
    }
}

impl Read for Transport {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Transport::Plain(s) => s.read(buf),
            Transport::Tls(t) => t.read(buf),
        }
    }
}

impl Write for Transport {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Transport::Plain(s) => s.write(buf),
            Transport::Tls(t) => t.write(buf),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match self {
            Transport::Plain(s) => s.flush(),
            Transport::Tls(t) => t.flush(),
        }
    }
}

/// TCP that, while `handshake` is set, wraps what TLS writes in PRELOGIN packets and unwraps
/// what it reads from them; afterwards TLS records go over TCP as they are.
struct PreloginFramed {
    tcp: TcpStream,
    handshake: bool,
    pending: Vec<u8>,
    at: usize,
}

impl Read for PreloginFramed {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if !self.handshake {
            return self.tcp.read(buf);
        }
        if self.at == self.pending.len() {
            let mut h = [0u8; HEADER_LEN];
            self.tcp.read_exact(&mut h)?;
            let h = PacketHeader::parse(&h).map_err(crate::packet::to_io)?;
            self.pending = vec![0; h.payload_len()];
            self.tcp.read_exact(&mut self.pending)?;
            self.at = 0;
        }
        let n = buf.len().min(self.pending.len() - self.at);
        buf[..n].copy_from_slice(&self.pending[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

impl Write for PreloginFramed {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if !self.handshake {
            return self.tcp.write(buf);
        }
        let msg = crate::packet::encode_message(ptype::PRELOGIN, 0, buf, DEFAULT_PACKET_SIZE);
        self.tcp.write_all(&msg)?;
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        self.tcp.flush()
    }
}

/// Accepts any certificate (TrustServerCertificate); signatures are still checked, so the
/// handshake proves the server holds the certificate's key.
#[derive(Debug)]
struct TrustAnyCertificate(Arc<rustls::crypto::CryptoProvider>);

impl rustls::client::danger::ServerCertVerifier for TrustAnyCertificate {
    fn verify_server_cert(
        &self,
        _end_entity: &rustls::pki_types::CertificateDer<'_>,
        _intermediates: &[rustls::pki_types::CertificateDer<'_>],
        _server_name: &rustls::pki_types::ServerName<'_>,
        _ocsp_response: &[u8],
        _now: rustls::pki_types::UnixTime,
    ) -> Result<rustls::client::danger::ServerCertVerified, rustls::Error> {
        Ok(rustls::client::danger::ServerCertVerified::assertion())
    }
    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &rustls::pki_types::CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }
    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &rustls::pki_types::CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }
    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// Runs the TLS handshake on `tcp`: wrapped in PRELOGIN packets (TDS 7.x, `framed`) or
/// straight on the socket with ALPN `tds/8.0` (TDS 8.0 strict).
fn tls_stream(
    cfg: &ClientConfig,
    tcp: TcpStream,
    check: bool,
    framed: bool,
) -> ClientResult<rustls::StreamOwned<rustls::ClientConnection, PreloginFramed>> {
    let mut config = tls_config(cfg, check)?;
    if !framed {
        config.alpn_protocols = vec![b"tds/8.0".to_vec()];
    }
    let name = rustls::pki_types::ServerName::try_from(cfg.host.clone())
        .map_err(|e| ClientError::Tls(e.to_string()))?;
    let conn = rustls::ClientConnection::new(Arc::new(config), name)
        .map_err(|e| ClientError::Tls(e.to_string()))?;
    let mut stream = rustls::StreamOwned::new(
        conn,
        PreloginFramed {
            tcp,
            handshake: framed,
            pending: Vec::new(),
            at: 0,
        },
    );
    while stream.conn.is_handshaking() {
        stream
            .conn
            .complete_io(&mut stream.sock)
            .map_err(|e| ClientError::Tls(e.to_string()))?;
    }
    stream.sock.handshake = false;
    Ok(stream)
}

fn tls_config(cfg: &ClientConfig, check: bool) -> ClientResult<rustls::ClientConfig> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| ClientError::Tls(e.to_string()))?;
    if !check || cfg.trust_server_certificate {
        return Ok(builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(TrustAnyCertificate(provider)))
            .with_no_client_auth());
    }
    let Some(ca) = &cfg.ca_file else {
        return Err(ClientError::Tls(
            "the server's certificate cannot be checked: no trusted certificate was given \
             (trust it with -C, TrustServerCertificate)"
                .into(),
        ));
    };
    use rustls::pki_types::pem::PemObject;
    let mut roots = rustls::RootCertStore::empty();
    let certs = rustls::pki_types::CertificateDer::pem_file_iter(ca)
        .map_err(|e| ClientError::Tls(format!("{}: {e}", ca.display())))?;
    for c in certs {
        let c = c.map_err(|e| ClientError::Tls(format!("{}: {e}", ca.display())))?;
        roots
            .add(c)
            .map_err(|e| ClientError::Tls(format!("{}: {e}", ca.display())))?;
    }
    Ok(builder.with_root_certificates(roots).with_no_client_auth())
}

/// A connection after a successful login.
pub struct Client {
    io: Transport,
    /// Raw bytes read but not yet split into packets.
    raw: Vec<u8>,
    packet_size: usize,
    /// The descriptor of the open transaction (ENVCHANGE 8), echoed in ALL_HEADERS; 0: none.
    transaction: u64,
    /// The server's LOGINACK.
    pub login_ack: Option<LoginAck>,
    /// The database the session is in (ENVCHANGE 1).
    pub database: String,
    /// The server process id of this session (the packet header's SPID).
    pub spid: u16,
    /// Whether TLS covers the whole connection (false: plain, or login-only encryption).
    pub encrypted: bool,
}

impl Client {
    /// Connects over TCP, negotiates encryption and logs in.
    pub fn connect(cfg: &ClientConfig) -> ClientResult<Client> {
        let addrs: Vec<_> = (cfg.host.as_str(), cfg.port).to_socket_addrs()?.collect();
        let mut last = io::Error::new(io::ErrorKind::NotFound, "no address for the host");
        let mut tcp = None;
        for a in addrs {
            match TcpStream::connect_timeout(&a, cfg.connect_timeout) {
                Ok(s) => {
                    tcp = Some(s);
                    break;
                }
                Err(e) => last = e,
            }
        }
        let tcp = tcp.ok_or(last)?;
        tcp.set_nodelay(true)?;
        Client::handshake(tcp, cfg)
    }

    fn handshake(tcp: TcpStream, cfg: &ClientConfig) -> ClientResult<Client> {
        tcp.set_read_timeout(Some(cfg.connect_timeout))?;
        let strict = cfg.encrypt == Encrypt::Strict;
        let pre = PreLogin {
            version: Some(([0, 1, 0, 0], 0)),
            encryption: Some(match cfg.encrypt {
                Encrypt::LoginOnly => encryption::OFF,
                Encrypt::On => encryption::ON,
                // already under TLS: nothing to negotiate
                Encrypt::Strict => encryption::NOT_SUP,
            }),
            instance: Some(Vec::new()),
            thread_id: Some(std::process::id()),
            mars: Some(0),
            ..PreLogin::default()
        };
        let io = if strict {
            Transport::Tls(Box::new(tls_stream(cfg, tcp, true, false)?))
        } else {
            Transport::Plain(tcp)
        };
        let mut plain = Client {
            io,
            raw: Vec::new(),
            packet_size: DEFAULT_PACKET_SIZE,
            transaction: 0,
            login_ack: None,
            database: String::new(),
            spid: 0,
            encrypted: strict,
        };
        plain.send(ptype::PRELOGIN, &pre.encode(), 0)?;
        let (reply, _) = plain.read_message(None)?;
        let answer = PreLogin::parse(&reply)?;
        if strict {
            return plain.login(cfg, false);
        }
        let server_enc = answer.encryption.unwrap_or(encryption::NOT_SUP);
        // [MS-TDS] 2.2.6.5's table: the server's answer decides.
        let tls = match (cfg.encrypt, server_enc) {
            (Encrypt::On, encryption::NOT_SUP) => {
                return Err(ClientError::Tls(
                    "encryption was asked for, but the server does not support it".into(),
                ))
            }
            (_, encryption::NOT_SUP) => None,
            (Encrypt::LoginOnly, encryption::OFF) => Some(false),
            _ => Some(true),
        };
        let Transport::Plain(tcp) = plain.io else {
            return Err(ClientError::Tls("transport changed during PRELOGIN".into()));
        };
        let client = match tls {
            None => Client {
                io: Transport::Plain(tcp),
                ..plain
            },
            Some(full) => Client {
                io: Transport::Tls(Box::new(tls_stream(cfg, tcp, full, true)?)),
                encrypted: full,
                ..plain
            },
        };
        client.login(cfg, tls == Some(false))
    }

    fn login(mut self, cfg: &ClientConfig, login_only: bool) -> ClientResult<Client> {
        let login = Login7 {
            tds_version: if self.encrypted && cfg.encrypt == Encrypt::Strict {
                crate::login7::TDS80
            } else {
                TDS74
            },
            packet_size: cfg.packet_size,
            client_prog_ver: 0x0100_0000,
            client_pid: std::process::id(),
            // fUseDB, fDatabase fatal, fSetLang; fLanguage fatal, fODBC (the ODBC/JDBC SET
            // options, as sqlcmd's connection has them); no integrated security.
            option_flags1: 0xE0,
            option_flags2: 0x03,
            client_lcid: 0x0409,
            host_name: hostname(),
            user_name: cfg.user.clone(),
            password: cfg.password.clone(),
            app_name: cfg.app_name.clone(),
            server_name: cfg.host.clone(),
            library_name: "latchkey".to_string(),
            database: cfg.database.clone().unwrap_or_default(),
            ..Login7::default()
        };
        self.send(ptype::LOGIN7, &login.encode(), 0)?;
        if login_only {
            // Login-only encryption: TLS ends after LOGIN7; the response comes in clear.
            let tcp = self.io.tcp().try_clone()?;
            self.io = Transport::Plain(tcp);
        }
        let mut error = None;
        let ack = self.response(None, &mut |e| {
            if let Event::Error(m) = e {
                error.get_or_insert(m);
            }
        })?;
        if let Some(m) = error {
            return Err(ClientError::Login(m));
        }
        let Some(ack) = ack else {
            return Err(ClientError::Protocol(TdsError::Malformed(
                "login response without LOGINACK".into(),
            )));
        };
        self.login_ack = Some(ack);
        self.io.tcp().set_read_timeout(None)?;
        Ok(self)
    }

    /// The packet size in use (after the server's ENVCHANGE).
    pub fn packet_size(&self) -> usize {
        self.packet_size
    }

    /// The descriptor of the open transaction, 0 when none is open.
    pub fn transaction_descriptor(&self) -> u64 {
        self.transaction
    }

    fn headers(&self) -> AllHeaders {
        AllHeaders {
            transaction_descriptor: self.transaction,
            outstanding_requests: 1,
        }
    }

    /// Runs a SQL batch; `on_event` sees every event of the response. A `cancel` token set
    /// while the batch runs sends an attention.
    pub fn batch(
        &mut self,
        text: &str,
        cancel: Option<&CancelToken>,
        on_event: &mut dyn FnMut(Event),
    ) -> ClientResult<()> {
        let payload = SqlBatch {
            headers: self.headers(),
            text: text.to_string(),
        }
        .encode();
        self.send(ptype::SQL_BATCH, &payload, 0)?;
        self.response(cancel, on_event).map(|_| ())
    }

    /// Runs one RPC request (sp_executesql, a procedure by name, ...).
    pub fn rpc(
        &mut self,
        request: &RpcRequest,
        cancel: Option<&CancelToken>,
        on_event: &mut dyn FnMut(Event),
    ) -> ClientResult<()> {
        let mut payload = Vec::new();
        encode_all_headers(&self.headers(), &mut payload);
        write_rpc(&mut payload, request)?;
        self.send(ptype::RPC, &payload, 0)?;
        self.response(cancel, on_event).map(|_| ())
    }

    /// Sends a raw request of type `ptype` (tests: transaction-manager requests, odd packets)
    /// and reads its response.
    pub fn request(
        &mut self,
        ptype: u8,
        payload: &[u8],
        cancel: Option<&CancelToken>,
        on_event: &mut dyn FnMut(Event),
    ) -> ClientResult<()> {
        self.send(ptype, payload, 0)?;
        self.response(cancel, on_event).map(|_| ())
    }

    fn send(&mut self, ptype: u8, payload: &[u8], status_first: u8) -> ClientResult<()> {
        let msg = crate::packet::encode_message(ptype, status_first, payload, self.packet_size);
        self.io.write_all(&msg)?;
        self.io.flush()?;
        Ok(())
    }

    fn send_attention(&mut self) -> ClientResult<()> {
        let h = PacketHeader {
            ptype: ptype::ATTENTION,
            status: status::EOM,
            length: HEADER_LEN as u16,
            spid: 0,
            packet_id: 1,
            window: 0,
        };
        self.io.write_all(&h.encode())?;
        self.io.flush()?;
        Ok(())
    }

    /// The next packet. While `cancel` is given, reads wake every [`CANCEL_POLL`] to look at
    /// it; the first time it is set an attention goes out (`attention_sent`).
    fn next_packet(
        &mut self,
        cancel: Option<&CancelToken>,
        attention_sent: &mut bool,
    ) -> ClientResult<(PacketHeader, Vec<u8>)> {
        let mut chunk = [0u8; 16 * 1024];
        loop {
            if self.raw.len() >= HEADER_LEN {
                let mut hb = [0u8; HEADER_LEN];
                hb.copy_from_slice(&self.raw[..HEADER_LEN]);
                let h = PacketHeader::parse(&hb)?;
                let len = h.length as usize;
                if self.raw.len() >= len {
                    let payload = self.raw[HEADER_LEN..len].to_vec();
                    self.raw.drain(..len);
                    if self.spid == 0 {
                        self.spid = h.spid;
                    }
                    return Ok((h, payload));
                }
            }
            match self.io.read(&mut chunk) {
                Ok(0) => {
                    return Err(ClientError::Io(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "the server closed the connection",
                    )))
                }
                Ok(n) => self.raw.extend_from_slice(&chunk[..n]),
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) && cancel.is_some() =>
                {
                    if !*attention_sent && cancel.is_some_and(|c| c.is_cancelled()) {
                        *attention_sent = true;
                        self.send_attention()?;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// One whole message (PRELOGIN's answer): its payload and whether its last packet was seen.
    fn read_message(&mut self, cancel: Option<&CancelToken>) -> ClientResult<(Vec<u8>, bool)> {
        let mut out = Vec::new();
        let mut sent = false;
        loop {
            let (h, p) = self.next_packet(cancel, &mut sent)?;
            if out.len() + p.len() > MAX_MESSAGE {
                return Err(TdsError::Malformed("response message too large".into()).into());
            }
            out.extend_from_slice(&p);
            if h.status & status::EOM != 0 {
                return Ok((out, sent));
            }
        }
    }

    /// Reads a response to its end, decoding tokens as packets arrive. Returns the LOGINACK
    /// if there was one.
    fn response(
        &mut self,
        cancel: Option<&CancelToken>,
        on_event: &mut dyn FnMut(Event),
    ) -> ClientResult<Option<LoginAck>> {
        let poll = cancel.is_some();
        if poll {
            self.io.tcp().set_read_timeout(Some(CANCEL_POLL))?;
        }
        let r = self.response_inner(cancel, on_event);
        if poll {
            // best effort: a failed reset shows up on the next read
            let _ = self.io.tcp().set_read_timeout(None);
        }
        r
    }

    fn response_inner(
        &mut self,
        cancel: Option<&CancelToken>,
        on_event: &mut dyn FnMut(Event),
    ) -> ClientResult<Option<LoginAck>> {
        let mut attention_sent = false;
        let mut attention_acked = false;
        let mut ack = None;
        let mut columns: Arc<Vec<ColumnMeta>> = Arc::new(Vec::new());
        loop {
            // one message
            let mut buf: Vec<u8> = Vec::new();
            let mut pos = 0usize;
            let mut eom = false;
            let mut need = 1usize;
            loop {
                while !eom && buf.len() - pos < need {
                    let (h, p) = self.next_packet(cancel, &mut attention_sent)?;
                    if pos > 0 && pos >= buf.len() / 2 {
                        buf.drain(..pos);
                        pos = 0;
                    }
                    if buf.len() + p.len() > MAX_MESSAGE {
                        return Err(TdsError::Malformed("token too large".into()).into());
                    }
                    buf.extend_from_slice(&p);
                    eom = h.status & status::EOM != 0;
                }
                if pos == buf.len() {
                    if eom {
                        break;
                    }
                    need = 1;
                    continue;
                }
                match decode_one(&buf[pos..], &columns) {
                    Ok((event, used)) => {
                        pos += used;
                        need = 1;
                        match event {
                            Decoded::Event(e) => {
                                if let Event::Columns(c) = &e {
                                    columns = c.clone();
                                }
                                if let Event::Done(_, d) = &e {
                                    if d.status & done_status::ATTN != 0 {
                                        attention_acked = true;
                                    }
                                }
                                if let Event::EnvChange(env) = &e {
                                    self.env_change(env);
                                }
                                on_event(e);
                            }
                            Decoded::LoginAck(a) => ack = Some(a),
                            Decoded::Skip => {}
                        }
                    }
                    Err(TdsError::Truncated(_)) if !eom => {
                        // wait for at least twice the bytes there are, so a large value
                        // spanning many packets is not decoded again for every packet
                        need = (buf.len() - pos).saturating_mul(2).max(1);
                    }
                    Err(e) => return Err(e.into()),
                }
            }
            if !attention_sent || attention_acked {
                return Ok(ack);
            }
            // the attention went out after this response's last packet was on its way: its
            // acknowledgement is a message of its own
        }
    }

    fn env_change(&mut self, e: &EnvChange) {
        match e {
            EnvChange::BeginTransaction(d) => self.transaction = *d,
            EnvChange::CommitTransaction(_)
            | EnvChange::RollbackTransaction(_)
            | EnvChange::TransactionEnded(_) => self.transaction = 0,
            EnvChange::Database { new, .. } => self.database = new.clone(),
            // the new size applies from the next request (after LOGINACK during login)
            EnvChange::PacketSize { new, .. } => {
                self.packet_size = (*new as usize).clamp(512, 32767)
            }
            _ => {}
        }
    }

    /// Closes the connection (the server sees the socket close, as after any client).
    pub fn close(self) {
        let _ = self.io.tcp().shutdown(std::net::Shutdown::Both);
    }
}

enum Decoded {
    Event(Event),
    LoginAck(LoginAck),
    Skip,
}

/// Decodes the token at the start of `b`: the event and the bytes it took.
fn decode_one(b: &[u8], columns: &Arc<Vec<ColumnMeta>>) -> Result<(Decoded, usize), TdsError> {
    let Some(&tok) = b.first() else {
        return Err(TdsError::Truncated("token"));
    };
    let mut input = &b[1..];
    let event = match tok {
        TOKEN_COLMETADATA => {
            Decoded::Event(Event::Columns(Arc::new(read_colmetadata(&mut input)?)))
        }
        TOKEN_ROW => Decoded::Event(Event::Row(read_row(&mut input, columns)?)),
        TOKEN_NBCROW => Decoded::Event(Event::Row(read_nbcrow(&mut input, columns)?)),
        TOKEN_RETURNVALUE => Decoded::Event(Event::ReturnValue(read_returnvalue(&mut input)?)),
        token::ORDER => {
            let n = crate::types::read_u16(&mut input, "ORDER length")? as usize;
            crate::types::take(&mut input, n, "ORDER")?;
            Decoded::Skip
        }
        _ => {
            let Some((t, next)) = tokens::decode(b, 0)? else {
                return Err(TdsError::Malformed(format!("unknown token 0x{tok:02X}")));
            };
            let d = match t {
                Token::LoginAck(a) => Decoded::LoginAck(a),
                Token::EnvChange(e) => Decoded::Event(Event::EnvChange(e)),
                Token::Info(m) => Decoded::Event(Event::Info(m)),
                Token::Error(m) => Decoded::Event(Event::Error(m)),
                Token::Done(k, d) => Decoded::Event(Event::Done(k, d)),
                Token::ReturnStatus(s) => Decoded::Event(Event::ReturnStatus(s)),
                Token::FeatureExtAck(_) => Decoded::Skip,
            };
            return Ok((d, next));
        }
    };
    Ok((event, b.len() - input.len()))
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// `host[,port]` (sqlcmd's -S; also `tcp:host,port` and `host:port`), default port 1433.
pub fn parse_server(s: &str) -> Result<(String, u16), String> {
    let s = s.trim();
    let s = s.strip_prefix("tcp:").unwrap_or(s);
    let (host, port) = match s.rsplit_once(',') {
        Some((h, p)) => (h, Some(p)),
        None => match s.rsplit_once(':') {
            Some((h, p)) if !h.contains(':') => (h, Some(p)),
            _ => (s, None),
        },
    };
    if host.contains('\\') {
        return Err(format!(
            "named instances ({host}) need SQL Browser, which latchkey does not run: give the port (-S host,port)"
        ));
    }
    let host = if host.is_empty() || host == "." || host.eq_ignore_ascii_case("(local)") {
        "127.0.0.1"
    } else {
        host
    };
    let port = match port {
        None => 1433,
        Some(p) => p
            .trim()
            .parse::<u16>()
            .map_err(|_| format!("invalid port in -S {s}"))?,
    };
    Ok((host.to_string(), port))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_argument_forms() {
        assert_eq!(parse_server("db,1444"), Ok(("db".into(), 1444)));
        assert_eq!(parse_server("tcp:db,1444"), Ok(("db".into(), 1444)));
        assert_eq!(parse_server("db:1444"), Ok(("db".into(), 1444)));
        assert_eq!(parse_server("db"), Ok(("db".into(), 1433)));
        assert_eq!(parse_server("."), Ok(("127.0.0.1".into(), 1433)));
        assert!(parse_server("db,x").is_err());
        assert!(parse_server("db\\SQLEXPRESS").is_err());
    }

    #[test]
    fn decode_one_reads_done_and_rows_and_waits_on_truncation() {
        let mut b = Vec::new();
        tokens::done(
            &mut b,
            token::DONE,
            &Done {
                status: done_status::COUNT,
                cur_cmd: 0xC1,
                row_count: 3,
            },
        );
        let cols = Arc::new(Vec::new());
        let (d, used) = decode_one(&b, &cols).expect("done");
        assert_eq!(used, b.len());
        assert!(matches!(
            d,
            Decoded::Event(Event::Done(token::DONE, Done { row_count: 3, .. }))
        ));
        assert!(matches!(
            decode_one(&b[..5], &cols),
            Err(TdsError::Truncated(_))
        ));
        let col = ColumnMeta::new("a", &types::DataType::Int, false);
        let mut r = Vec::new();
        crate::rows::write_colmetadata(&mut r, std::slice::from_ref(&col));
        let (d, used) = decode_one(&r, &cols).expect("colmetadata");
        assert_eq!(used, r.len());
        let Decoded::Event(Event::Columns(c)) = d else {
            panic!("not columns")
        };
        let mut row = Vec::new();
        crate::rows::write_row(&mut row, &c, &[Value::Int(7)]).expect("row");
        let (d, _) = decode_one(&row, &c).expect("row");
        assert!(matches!(d, Decoded::Event(Event::Row(v)) if v == vec![Value::Int(7)]));
        assert!(decode_one(&[0x42], &cols).is_err());
    }
}
