//! `server`: latchkey's TDS server. A listener thread accepts connections; each connection gets
//! its own thread (the session thread, which owns the `engine::Session`, reads its socket
//! between requests and runs them); one attention watcher thread turns an attention that
//! arrives while a request runs into a cancel of it. See README.md for the connection state
//! machine, TLS and the attention protocol.

mod attention;
mod conn;
mod errorlog;
mod rpc;
mod sink;
pub mod tls;
mod transport;

use std::collections::HashMap;
use std::io;
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use engine::Engine;

pub use errorlog::ErrorLog;

/// How the server is set up.
pub struct ServerConfig {
    pub listen: SocketAddr,
    /// TLS configuration; `None`: PRELOGIN answers ENCRYPTION = NOT_SUP.
    pub tls: Option<Arc<rustls::ServerConfig>>,
    /// TDS 8.0 strict encryption (TLS before PRELOGIN, ALPN `tds/8.0`); `None`: a client that
    /// opens with a TLS handshake is disconnected.
    pub tls_strict: Option<Arc<rustls::ServerConfig>>,
    /// Largest client message accepted (a bigger one closes the connection).
    pub max_message_bytes: usize,
    /// Test hook: a SQL batch with exactly this text panics inside the request (to test that a
    /// panic stays inside its connection). Never set by `latchkey serve`.
    #[doc(hidden)]
    pub panic_hook_batch: Option<String>,
}

impl ServerConfig {
    pub fn new(listen: SocketAddr) -> Self {
        ServerConfig {
            listen,
            tls: None,
            tls_strict: None,
            max_message_bytes: 256 << 20,
            panic_hook_batch: None,
        }
    }
}

/// A live connection's socket (shut down at server shutdown) and its session's cancel flag
/// (set once the session exists).
pub(crate) type LiveConnection = (Arc<TcpStream>, Option<common::CancelToken>);

/// State shared by the listener and every connection.
pub(crate) struct Shared {
    pub(crate) engine: Arc<Engine>,
    pub(crate) config: ServerConfig,
    pub(crate) log: ErrorLog,
    pub(crate) shutting_down: AtomicBool,
    /// Live connections: socket (to shut down) and the cancel flag of their session.
    pub(crate) conns: Mutex<HashMap<u64, LiveConnection>>,
    pub(crate) next_conn: AtomicU64,
    /// The listener's address (the shutdown wakes `accept` by connecting to it).
    local_addr: Mutex<SocketAddr>,
    /// Notices attentions while requests run (`attention.rs`).
    pub(crate) watcher: Arc<attention::Watcher>,
}

impl Shared {
    pub(crate) fn set_cancel(&self, id: u64, token: common::CancelToken) {
        if let Ok(mut m) = self.conns.lock() {
            if let Some(e) = m.get_mut(&id) {
                e.1 = Some(token);
            }
        }
    }
}

/// A bound server. `run` serves until `shutdown` is called (from a signal watcher thread or a
/// test).
pub struct Server {
    listener: TcpListener,
    shared: Arc<Shared>,
}

/// Stops a running server from another thread.
#[derive(Clone)]
pub struct ShutdownHandle(Arc<Shared>);

impl ShutdownHandle {
    pub fn shutdown(&self) {
        self.0.shutting_down.store(true, Ordering::SeqCst);
        // Wake the blocking accept with a connection of our own.
        if let Ok(mut a) = self.0.local_addr.lock().map(|a| *a) {
            if a.ip().is_unspecified() {
                a.set_ip(std::net::Ipv4Addr::LOCALHOST.into());
            }
            let _ = TcpStream::connect_timeout(&a, Duration::from_secs(1));
        }
    }
}

impl Server {
    pub fn bind(engine: Arc<Engine>, config: ServerConfig, log: ErrorLog) -> io::Result<Server> {
        let listener = TcpListener::bind(config.listen)?;
        let local_addr = Mutex::new(listener.local_addr()?);
        Ok(Server {
            listener,
            shared: Arc::new(Shared {
                engine,
                config,
                log,
                shutting_down: AtomicBool::new(false),
                conns: Mutex::new(HashMap::new()),
                next_conn: AtomicU64::new(1),
                local_addr,
                watcher: Arc::default(),
            }),
        })
    }

    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    pub fn shutdown_handle(&self) -> ShutdownHandle {
        ShutdownHandle(self.shared.clone())
    }

    /// Accepts connections until shutdown, then closes them all: their requests are cancelled,
    /// their sessions roll back, and every database is checkpointed.
    pub fn run(self) -> io::Result<()> {
        let mut threads: Vec<JoinHandle<()>> = Vec::new();
        let shared = self.shared;
        while !shared.shutting_down.load(Ordering::SeqCst) {
            // A blocking accept: polling would add its interval to every connection's setup.
            match self.listener.accept() {
                Ok(_) if shared.shutting_down.load(Ordering::SeqCst) => break,
                Ok((sock, peer)) => {
                    let _ = sock.set_nodelay(true);
                    let sock = Arc::new(sock);
                    let id = shared.next_conn.fetch_add(1, Ordering::Relaxed);
                    if let Ok(mut m) = shared.conns.lock() {
                        m.insert(id, (sock.clone(), None));
                    }
                    let sh = shared.clone();
                    let t = std::thread::Builder::new()
                        .name(format!("tds-conn-{id}"))
                        .spawn(move || {
                            conn::serve(sock, peer, id, &sh);
                            if let Ok(mut m) = sh.conns.lock() {
                                m.remove(&id);
                            }
                        });
                    match t {
                        Ok(t) => threads.push(t),
                        Err(e) => shared
                            .log
                            .line(&format!("cannot start a connection thread: {e}")),
                    }
                    threads.retain(|t| !t.is_finished());
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    shared.log.line(&format!("accept failed: {e}"));
                    std::thread::sleep(Duration::from_millis(50));
                }
            }
        }
        shared.log.line("Server shutdown has been initiated.");
        drop(self.listener);
        if let Ok(m) = shared.conns.lock() {
            for (sock, cancel) in m.values() {
                if let Some(c) = cancel {
                    c.cancel();
                }
                let _ = sock.shutdown(Shutdown::Both);
            }
        }
        for t in threads {
            let _ = t.join();
        }
        for db in shared.engine.databases() {
            // the unused rest of each cached IDENTITY block is not skipped after a clean stop
            if let Err(e) = engine::identity_cache::release(&db) {
                shared.log.line(&format!(
                    "identity values of {} not written back: {e}",
                    db.def.name
                ));
            }
            if let Err(e) = db.store.checkpoint() {
                shared
                    .log
                    .line(&format!("checkpoint of {} failed: {e}", db.def.name));
            }
        }
        shared.log.line("SQL Server shutdown has completed.");
        Ok(())
    }
}

/// `<data>/log/ERRORLOG`.
pub fn errorlog_path(data_dir: &std::path::Path) -> PathBuf {
    data_dir.join("log").join("ERRORLOG")
}
