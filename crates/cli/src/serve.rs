//! `latchkey serve [--data DIR] [--port 1433] [--listen ADDR] [--tls-cert F --tls-key F]`: the
//! TDS server over one data directory (which the engine locks), logging to
//! `<data>/log/ERRORLOG`, until SIGTERM or SIGINT (then: stop accepting, cancel requests, roll
//! back, checkpoint).

use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use engine::{Engine, EngineConfig};
use server::{ErrorLog, Server, ServerConfig};

#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// TCP port to listen on.
    #[arg(long, default_value_t = 1433)]
    pub port: u16,
    /// Address to listen on (127.0.0.1 unless told otherwise; 0.0.0.0 for every interface).
    #[arg(long, default_value = "127.0.0.1")]
    pub listen: IpAddr,
    /// PEM certificate for TLS (default: a self-signed one generated into the data directory).
    #[arg(long = "tls-cert", value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// PEM private key of --tls-cert.
    #[arg(long = "tls-key", value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
}

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_stop_signal(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

pub fn run(args: &ServeArgs, data: &Path, config: EngineConfig) -> ExitCode {
    let engine = match Engine::open(data, config) {
        Ok(e) => e,
        Err(e) => {
            eprintln!(
                "latchkey serve: cannot open data directory {}: {e}",
                data.display()
            );
            return ExitCode::from(1);
        }
    };
    // sa gets the password of the environment at the first start (kept afterwards); without
    // one and with sa still passwordless the server refuses to start, as SQL Server's image.
    if let Err(e) = engine.provision_sa(engine::security::sa_password_from_env().as_deref()) {
        eprintln!("ERROR: {}", e.message);
        return ExitCode::from(1);
    }
    let log = match ErrorLog::open(&server::errorlog_path(data)) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("latchkey serve: cannot open the error log: {e}");
            return ExitCode::from(1);
        }
    };
    log.line(&format!(
        "{} starting, data directory {}",
        engine::VERSION_STRING,
        data.display()
    ));
    let (cert, key) = match (&args.tls_cert, &args.tls_key) {
        (Some(c), Some(k)) => (c.clone(), k.clone()),
        _ => match server::tls::ensure_self_signed(data) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("latchkey serve: {e}");
                return ExitCode::from(1);
            }
        },
    };
    let tls = match server::tls::load(&cert, &key)
        .and_then(|t| Ok((t, server::tls::load_strict(&cert, &key)?)))
    {
        Ok(t) => t,
        Err(e) => {
            eprintln!("latchkey serve: {e}");
            return ExitCode::from(1);
        }
    };
    log.line(&format!("TLS certificate {}", cert.display()));
    let mut cfg = ServerConfig::new(SocketAddr::new(args.listen, args.port));
    cfg.tls = Some(tls.0);
    cfg.tls_strict = Some(tls.1);
    let srv = match Server::bind(engine, cfg, log.clone()) {
        Ok(s) => s,
        Err(e) => {
            eprintln!(
                "latchkey serve: cannot listen on {}:{}: {e}",
                args.listen, args.port
            );
            return ExitCode::from(1);
        }
    };
    let addr = srv.local_addr().map(|a| a.to_string()).unwrap_or_default();
    log.line(&format!("Server is listening on [ {addr} ]."));
    eprintln!("latchkey serve: listening on {addr}");
    // SAFETY: the handler only stores to an atomic (async-signal-safe).
    unsafe {
        libc::signal(
            libc::SIGTERM,
            on_stop_signal as extern "C" fn(libc::c_int) as libc::sighandler_t,
        );
        libc::signal(
            libc::SIGINT,
            on_stop_signal as extern "C" fn(libc::c_int) as libc::sighandler_t,
        );
    }
    let stop = srv.shutdown_handle();
    std::thread::spawn(move || loop {
        if STOP.load(Ordering::SeqCst) {
            stop.shutdown();
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    });
    match srv.run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("latchkey serve: {e}");
            ExitCode::from(1)
        }
    }
}
