//! A server on an OS-chosen port over a temporary data directory, and pytds scripts against it.

#![allow(dead_code)]

use std::net::SocketAddr;
use std::process::Command;
use std::sync::Arc;
use std::thread::JoinHandle;

use server::{ErrorLog, Server, ServerConfig, ShutdownHandle};

pub const SA_PASSWORD: &str = "Test-Passw0rd!";

pub struct TestServer {
    pub addr: SocketAddr,
    pub dir: tempfile::TempDir,
    stop: ShutdownHandle,
    thread: Option<JoinHandle<()>>,
}

impl TestServer {
    pub fn start() -> TestServer {
        Self::start_with(|_| {})
    }

    pub fn start_with(configure: impl FnOnce(&mut ServerConfig)) -> TestServer {
        Self::start_in(|c, _| configure(c))
    }

    /// With TLS: the self-signed certificate generated into the data directory.
    pub fn start_tls() -> TestServer {
        Self::start_in(|c, dir| {
            let (cert, key) = server::tls::ensure_self_signed(dir).expect("certificate");
            c.tls = Some(server::tls::load(&cert, &key).expect("tls config"));
            c.tls_strict = Some(server::tls::load_strict(&cert, &key).expect("tls config"));
        })
    }

    pub fn cert_path(&self) -> std::path::PathBuf {
        self.dir.path().join(server::tls::GENERATED_CERT)
    }

    pub fn start_in(configure: impl FnOnce(&mut ServerConfig, &std::path::Path)) -> TestServer {
        let dir = tempfile::tempdir().expect("temp dir");
        let engine = engine::Engine::open(dir.path(), Default::default()).expect("engine");
        engine.provision_sa(Some(SA_PASSWORD)).expect("sa password");
        let mut cfg = ServerConfig::new("127.0.0.1:0".parse().expect("addr"));
        configure(&mut cfg, dir.path());
        Self::serve(engine, dir, cfg)
    }

    /// Serves an engine the test opened itself (over `dir`).
    pub fn serve(
        engine: Arc<engine::Engine>,
        dir: tempfile::TempDir,
        cfg: ServerConfig,
    ) -> TestServer {
        let log = ErrorLog::open(&server::errorlog_path(dir.path())).expect("log");
        let srv = Server::bind(Arc::clone(&engine), cfg, log).expect("bind");
        drop(engine);
        let addr = srv.local_addr().expect("addr");
        let stop = srv.shutdown_handle();
        let thread = std::thread::spawn(move || {
            srv.run().expect("server run");
        });
        TestServer {
            addr,
            dir,
            stop,
            thread: Some(thread),
        }
    }

    pub fn errorlog(&self) -> String {
        std::fs::read_to_string(server::errorlog_path(self.dir.path())).unwrap_or_default()
    }

    /// Runs a Python script with `PORT`, `PASSWORD` and `connect(**kw)` predefined; returns its
    /// standard output. `None` when python3 or pytds is missing (the test then skips).
    pub fn python(&self, script: &str) -> Option<String> {
        if !pytds_available() {
            eprintln!("SKIP: python3 with pytds (pip install python-tds) is not installed");
            return None;
        }
        let prelude = format!(
            "import pytds, sys\nPORT = {}\nPASSWORD = {:?}\n\
             def connect(**kw):\n    a = dict(server='127.0.0.1', port=PORT, user='sa', password=PASSWORD, database='master', autocommit=True, login_timeout=10, timeout=30)\n    a.update(kw)\n    return pytds.connect(**a)\n",
            self.addr.port(),
            SA_PASSWORD
        );
        let out = Command::new("python3")
            .arg("-c")
            .arg(format!("{prelude}{script}"))
            .output()
            .expect("run python3");
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(
            out.status.success(),
            "python failed:\n{}\n{}\nERRORLOG:\n{}",
            stdout,
            String::from_utf8_lossy(&out.stderr),
            self.errorlog()
        );
        Some(stdout)
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.stop.shutdown();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

pub fn pytds_available() -> bool {
    Command::new("python3")
        .args(["-c", "import pytds"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}
