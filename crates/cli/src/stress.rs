//! `latchkey stress`: an ostress-like load tool. N connections (threads) each run the batch(es)
//! R times over TDS; the report gives connect time, throughput, latency percentiles and the
//! errors by number.
//!
//! ```text
//! latchkey stress -S HOST[,PORT] -U LOGIN -P PASSWORD [-d DB] [-N] [-C]
//!                 -n CONNECTIONS -r REPETITIONS (-Q TEXT | -i FILE)
//! ```
//!
//! All connections log in first and then start together (a barrier), so the measured interval
//! is the load, not the logins. Exit status 1 when a connection failed or any batch raised an
//! error, so a script can use it as a check.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

use tds::client::{Client, ClientConfig, Encrypt, Event};

use crate::runner::go_line;

#[derive(clap::Args, Debug)]
pub struct StressArgs {
    /// Server: host[,port].
    #[arg(short = 'S', value_name = "SERVER")]
    server: String,
    /// SQL Server login.
    #[arg(short = 'U', value_name = "LOGIN")]
    user: String,
    /// Password (default: $SQLCMDPASSWORD).
    #[arg(short = 'P', value_name = "PASSWORD")]
    password: Option<String>,
    /// Database for every connection.
    #[arg(short = 'd', value_name = "DATABASE")]
    database: Option<String>,
    /// Connections (threads), 1 to 4096.
    #[arg(short = 'n', default_value_t = 1, value_name = "N")]
    connections: usize,
    /// Times each connection runs the batches.
    #[arg(short = 'r', default_value_t = 1, value_name = "R")]
    repetitions: u64,
    /// The batch text (GO lines separate batches).
    #[arg(short = 'Q', value_name = "TEXT", conflicts_with = "input")]
    query: Option<String>,
    /// A script file (GO lines separate batches).
    #[arg(short = 'i', value_name = "FILE")]
    input: Option<PathBuf>,
    /// Encrypt the whole connection.
    #[arg(short = 'N')]
    encrypt: bool,
    /// Trust the server's certificate.
    #[arg(short = 'C')]
    trust_server_certificate: bool,
}

/// What one connection measured.
#[derive(Default)]
struct Tally {
    latencies_us: Vec<u64>,
    errors: BTreeMap<i32, (u64, String)>,
    rows: u64,
}

/// Splits a script at GO lines (`GO n` repeats a batch n times).
fn batches(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for line in text.split_inclusive('\n') {
        if let Some(n) = go_line(line, false) {
            if !cur.trim().is_empty() {
                for _ in 0..n.min(10_000) {
                    out.push(cur.clone());
                }
            }
            cur.clear();
        } else {
            cur.push_str(line);
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur);
    }
    out
}

/// The value at quantile `q` (0..=1) of sorted `v`, nearest rank.
fn percentile(v: &[u64], q: f64) -> u64 {
    if v.is_empty() {
        return 0;
    }
    let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
    v[rank - 1]
}

fn ms(us: u64) -> String {
    format!("{:.2}", us as f64 / 1000.0)
}

pub fn run(a: &StressArgs) -> ExitCode {
    let (host, port) = match tds::client::parse_server(&a.server) {
        Ok(hp) => hp,
        Err(e) => {
            eprintln!("latchkey stress: {e}");
            return ExitCode::from(1);
        }
    };
    let text = match (&a.query, &a.input) {
        (Some(q), _) => q.clone(),
        (None, Some(f)) => match std::fs::read_to_string(f) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("latchkey stress: cannot read {}: {e}", f.display());
                return ExitCode::from(1);
            }
        },
        (None, None) => {
            eprintln!("latchkey stress: give the batch with -Q TEXT or -i FILE");
            return ExitCode::from(1);
        }
    };
    let work = Arc::new(batches(&text));
    if work.is_empty() {
        eprintln!("latchkey stress: the script has no batch");
        return ExitCode::from(1);
    }
    if !(1..=4096).contains(&a.connections) {
        eprintln!("latchkey stress: -n must be between 1 and 4096");
        return ExitCode::from(1);
    }
    let password = a
        .password
        .clone()
        .or_else(|| std::env::var("SQLCMDPASSWORD").ok())
        .unwrap_or_default();
    let mut cfg = ClientConfig::new(&host, port, &a.user, &password);
    cfg.database = a.database.clone();
    cfg.app_name = "latchkey stress".to_string();
    cfg.encrypt = if a.encrypt {
        Encrypt::On
    } else {
        Encrypt::LoginOnly
    };
    cfg.trust_server_certificate = a.trust_server_certificate;
    let cfg = Arc::new(cfg);

    println!(
        "latchkey stress: {} connection(s) x {} repetition(s) of {} batch(es) on {host},{port}",
        a.connections,
        a.repetitions,
        work.len()
    );
    // every thread connects, then waits here with the others; the main thread joins the
    // barrier too, to start the clock
    let start = Arc::new(Barrier::new(a.connections + 1));
    let connect_failures = Arc::new(Mutex::new(Vec::<String>::new()));
    let connect_started = Instant::now();
    let mut handles = Vec::with_capacity(a.connections);
    for _ in 0..a.connections {
        let (cfg, work, start, failures) = (
            cfg.clone(),
            work.clone(),
            start.clone(),
            connect_failures.clone(),
        );
        let reps = a.repetitions;
        let spawned = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || {
                let client = Client::connect(&cfg);
                start.wait();
                let mut client = match client {
                    Ok(c) => c,
                    Err(e) => {
                        if let Ok(mut f) = failures.lock() {
                            f.push(e.to_string());
                        }
                        return Tally::default();
                    }
                };
                let mut t = Tally {
                    latencies_us: Vec::with_capacity(
                        (reps as usize).saturating_mul(work.len()).min(1 << 20),
                    ),
                    ..Tally::default()
                };
                'outer: for _ in 0..reps {
                    for b in work.iter() {
                        let began = Instant::now();
                        let mut rows = 0u64;
                        let mut errs = Vec::new();
                        let r = client.batch(b, None, &mut |e| match e {
                            Event::Row(_) => rows += 1,
                            Event::Error(m) => errs.push((m.number, m.text)),
                            _ => {}
                        });
                        t.latencies_us.push(began.elapsed().as_micros() as u64);
                        t.rows += rows;
                        for (n, text) in errs {
                            t.errors.entry(n).or_insert((0, text)).0 += 1;
                        }
                        if let Err(e) = r {
                            t.errors
                                .entry(-1)
                                .or_insert((0, format!("connection lost: {e}")))
                                .0 += 1;
                            break 'outer;
                        }
                    }
                }
                client.close();
                t
            });
        match spawned {
            Ok(h) => handles.push(h),
            Err(e) => {
                eprintln!("latchkey stress: cannot start a thread: {e}");
                return ExitCode::from(1);
            }
        }
    }
    start.wait();
    let connect_time = connect_started.elapsed();
    let began = Instant::now();
    let mut all = Tally::default();
    for h in handles {
        let t = h.join().unwrap_or_else(|_| Tally {
            errors: BTreeMap::from([(-2, (1, "a client thread panicked".to_string()))]),
            ..Tally::default()
        });
        all.latencies_us.extend(t.latencies_us);
        all.rows += t.rows;
        for (n, (c, text)) in t.errors {
            all.errors.entry(n).or_insert((0, text)).0 += c;
        }
    }
    let elapsed = began.elapsed();
    let failures = connect_failures
        .lock()
        .map(|f| f.clone())
        .unwrap_or_default();
    report(a, &all, &failures, connect_time, elapsed)
}

fn report(
    a: &StressArgs,
    all: &Tally,
    failures: &[String],
    connect_time: Duration,
    elapsed: Duration,
) -> ExitCode {
    let mut lat = all.latencies_us.clone();
    lat.sort_unstable();
    let secs = elapsed.as_secs_f64().max(1e-9);
    println!(
        "connected: {} of {} in {:.2} s",
        a.connections - failures.len(),
        a.connections,
        connect_time.as_secs_f64()
    );
    if let Some(f) = failures.first() {
        println!("connection failures: {} (first: {f})", failures.len());
    }
    println!(
        "batches: {} in {:.3} s = {:.1} batches/s; rows returned: {}",
        lat.len(),
        secs,
        lat.len() as f64 / secs,
        all.rows
    );
    println!(
        "latency (ms): p50 {}  p95 {}  p99 {}  max {}",
        ms(percentile(&lat, 0.50)),
        ms(percentile(&lat, 0.95)),
        ms(percentile(&lat, 0.99)),
        ms(lat.last().copied().unwrap_or(0))
    );
    let total: u64 = all.errors.values().map(|(c, _)| c).sum();
    println!("errors: {total}");
    for (n, (c, text)) in &all.errors {
        match n {
            -1 | -2 => println!("  {c} x {text}"),
            _ => println!("  {c} x Msg {n}: {text}"),
        }
    }
    if failures.is_empty() && total == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_rank() {
        let v: Vec<u64> = (1..=100).collect();
        assert_eq!(percentile(&v, 0.50), 50);
        assert_eq!(percentile(&v, 0.95), 95);
        assert_eq!(percentile(&v, 0.99), 99);
        assert_eq!(percentile(&v, 1.0), 100);
        assert_eq!(percentile(&[7], 0.5), 7);
        assert_eq!(percentile(&[], 0.5), 0);
    }

    #[test]
    fn scripts_split_at_go_lines_with_repeat_counts() {
        assert_eq!(
            batches("SELECT 1\nGO 2\nSELECT 2"),
            vec!["SELECT 1\n", "SELECT 1\n", "SELECT 2"]
        );
        assert_eq!(batches("GO\n\nGO\n"), Vec::<String>::new());
    }
}
