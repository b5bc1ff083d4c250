//! The request loop without a reader thread: the session thread reads its own socket between
//! requests, the attention watcher notices an attention (plain or under TLS) or a vanished
//! client while a request runs, one OS thread serves one connection, and the commits of many
//! sessions share log flushes (group commit, visible in sys.dm_io_virtual_file_stats).

mod support;

use std::io::Write;
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

use support::{TestServer, SA_PASSWORD};
use tds::client::{Client, ClientConfig, Encrypt, Event};
use tds::login7::{Login7, TDS74};
use tds::packet::{self, ptype, status};
use types::Value;

/// The tests of this file run one at a time: `a_connection_costs_one_thread` counts the
/// process's threads, which a neighbour's sessions would add to.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

fn config(s: &TestServer, encrypt: Encrypt) -> ClientConfig {
    let mut c = ClientConfig::new("localhost", s.addr.port(), "sa", SA_PASSWORD);
    c.encrypt = encrypt;
    c.ca_file = Some(s.cert_path());
    c
}

fn rows(c: &mut Client, sql: &str) -> Vec<Vec<Value>> {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    c.batch(sql, None, &mut |e| match e {
        Event::Row(r) => out.push(r),
        Event::Error(m) => errors.push(m.text),
        _ => {}
    })
    .expect("batch");
    assert!(errors.is_empty(), "{errors:?}");
    out
}

fn int(v: &Value) -> i64 {
    match v {
        Value::Int(i) => *i as i64,
        Value::BigInt(i) => *i,
        Value::SmallInt(i) => *i as i64,
        other => panic!("not an integer: {other:?}"),
    }
}

/// Runs `sql` with a cancel token set after `after`; returns whether the response ended with
/// the attention acknowledged and how long it took.
fn cancelled_after(c: &mut Client, sql: &str, after: Duration) -> (bool, Duration) {
    let token = common::CancelToken::new();
    let t2 = token.clone();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(after);
        t2.cancel();
    });
    let started = Instant::now();
    let mut attn = false;
    c.batch(sql, Some(&token), &mut |e| {
        if let Event::Done(_, d) = e {
            attn |= d.status & tds::tokens::done_status::ATTN != 0;
        }
    })
    .expect("cancelled batch");
    canceller.join().unwrap();
    (attn, started.elapsed())
}

#[test]
fn attention_cancels_a_running_request_under_tls() {
    let _serial = serial();
    // Under TLS the watcher cannot read the packet type (it peeks at an encrypted record):
    // any data arriving while a request runs is the attention.
    let s = TestServer::start_tls();
    let mut c = Client::connect(&config(&s, Encrypt::On)).expect("TLS login");
    let (attn, took) = cancelled_after(
        &mut c,
        "WAITFOR DELAY '00:00:30'",
        Duration::from_millis(300),
    );
    assert!(attn, "the attention was acknowledged");
    assert!(took < Duration::from_secs(10), "cancelled after {took:?}");
    assert_eq!(rows(&mut c, "SELECT 7"), vec![vec![Value::Int(7)]]);
    // and again, so the acknowledged attention left nothing behind
    let (attn, took) = cancelled_after(
        &mut c,
        "WAITFOR DELAY '00:00:30'",
        Duration::from_millis(200),
    );
    assert!(attn && took < Duration::from_secs(10), "{attn} {took:?}");
    assert_eq!(rows(&mut c, "SELECT 8"), vec![vec![Value::Int(8)]]);
}

#[test]
fn attention_cancels_a_running_request_in_plain_text() {
    let _serial = serial();
    let s = TestServer::start();
    let mut c = Client::connect(&ClientConfig::new(
        "127.0.0.1",
        s.addr.port(),
        "sa",
        SA_PASSWORD,
    ))
    .expect("login");
    for _ in 0..3 {
        let (attn, took) = cancelled_after(
            &mut c,
            "WAITFOR DELAY '00:00:30'",
            Duration::from_millis(150),
        );
        assert!(attn && took < Duration::from_secs(10), "{attn} {took:?}");
        assert_eq!(rows(&mut c, "SELECT 7"), vec![vec![Value::Int(7)]]);
    }
}

/// Logs in on a raw socket (LOGIN7 as the first packet) and reads the login response.
fn raw_login(s: &TestServer) -> TcpStream {
    let mut sock = TcpStream::connect(s.addr).unwrap();
    let l = Login7 {
        tds_version: TDS74,
        packet_size: 4096,
        user_name: "sa".into(),
        password: SA_PASSWORD.into(),
        database: "master".into(),
        ..Default::default()
    };
    sock.write_all(&packet::encode_message(ptype::LOGIN7, 0, &l.encode(), 4096))
        .unwrap();
    loop {
        let (h, _) = packet::read_packet(&mut sock, 32767).unwrap().unwrap();
        if h.status & status::EOM != 0 {
            return sock;
        }
    }
}

#[test]
fn a_client_gone_mid_request_has_its_request_cancelled_and_rolled_back() {
    let _serial = serial();
    let s = TestServer::start();
    let mut c = Client::connect(&ClientConfig::new(
        "127.0.0.1",
        s.addr.port(),
        "sa",
        SA_PASSWORD,
    ))
    .expect("login");
    rows(
        &mut c,
        "CREATE TABLE dbo.gone (id int PRIMARY KEY, v int); INSERT INTO dbo.gone VALUES (1, 10)",
    );
    let mut raw = raw_login(&s);
    let batch = tds::batch::SqlBatch {
        headers: Default::default(),
        text: "BEGIN TRAN; UPDATE dbo.gone SET v = 99 WHERE id = 1; WAITFOR DELAY '00:01:00'"
            .into(),
    };
    raw.write_all(&packet::encode_message(
        ptype::SQL_BATCH,
        0,
        &batch.encode(),
        4096,
    ))
    .unwrap();
    // the update holds its lock while the wait runs
    std::thread::sleep(Duration::from_millis(300));
    drop(raw);
    let started = Instant::now();
    // without the watcher the wait would hold the row's X lock for a minute
    let got = rows(
        &mut c,
        "SET LOCK_TIMEOUT 20000; SELECT v FROM dbo.gone WHERE id = 1",
    );
    assert_eq!(
        got,
        vec![vec![Value::Int(10)]],
        "the update was rolled back"
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the lock went only after {:?}",
        started.elapsed()
    );
}

fn thread_count() -> usize {
    std::fs::read_dir("/proc/self/task").map_or(0, |d| d.count())
}

#[test]
fn a_connection_costs_one_thread() {
    let _serial = serial();
    let s = TestServer::start();
    // the first connection starts the watcher thread
    let mut first = Client::connect(&ClientConfig::new(
        "127.0.0.1",
        s.addr.port(),
        "sa",
        SA_PASSWORD,
    ))
    .expect("login");
    rows(&mut first, "SELECT 1");
    let before = thread_count();
    let mut clients: Vec<Client> = (0..16)
        .map(|_| {
            Client::connect(&ClientConfig::new(
                "127.0.0.1",
                s.addr.port(),
                "sa",
                SA_PASSWORD,
            ))
            .expect("login")
        })
        .collect();
    for c in &mut clients {
        assert_eq!(rows(c, "SELECT 2"), vec![vec![Value::Int(2)]]);
    }
    let during = thread_count();
    // 16 session threads, no reader threads (the tests of this file run one at a time)
    assert!(
        during >= before + 16 && during < before + 16 + 8,
        "{before} threads before, {during} with 16 more connections (a reader thread each would be 32)"
    );
    for c in clients {
        c.close();
    }
}

/// An engine whose log flush takes 3 ms (the storage latency model), so concurrent commits
/// find a flush under way and share the next one.
fn server_with_slow_log() -> TestServer {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut cfg = engine::EngineConfig::default();
    cfg.storage.io_latency = Duration::from_millis(3);
    cfg.read_latency_ms = Some(0);
    let engine = engine::Engine::open(dir.path(), cfg).expect("engine");
    engine.provision_sa(Some(SA_PASSWORD)).expect("sa password");
    TestServer::serve(
        engine,
        dir,
        server::ServerConfig::new("127.0.0.1:0".parse().unwrap()),
    )
}

#[test]
fn commits_of_many_sessions_share_log_flushes() {
    let _serial = serial();
    let s = server_with_slow_log();
    let connect = || {
        Client::connect(&ClientConfig::new(
            "127.0.0.1",
            s.addr.port(),
            "sa",
            SA_PASSWORD,
        ))
        .expect("login")
    };
    let mut admin = connect();
    rows(&mut admin, "CREATE DATABASE gc");
    rows(
        &mut admin,
        "USE gc; CREATE TABLE dbo.t (id int IDENTITY PRIMARY KEY, v int)",
    );
    let counters = |c: &mut Client| -> (i64, i64) {
        let r = rows(
            c,
            "SELECT num_of_writes FROM sys.dm_io_virtual_file_stats(DB_ID('gc'), 2)",
        );
        let flushes = int(&r[0][0]);
        let r = rows(
            c,
            "SELECT waiting_tasks_count FROM sys.dm_os_wait_stats WHERE wait_type = 'WRITELOG'",
        );
        (flushes, int(&r[0][0]))
    };
    let (f0, w0) = counters(&mut admin);
    let sessions = 16;
    let commits_each = 10;
    let barrier = Arc::new(std::sync::Barrier::new(sessions));
    let threads: Vec<_> = (0..sessions)
        .map(|_| {
            let mut c = connect();
            let b = barrier.clone();
            std::thread::spawn(move || {
                rows(&mut c, "USE gc");
                b.wait();
                for i in 0..commits_each {
                    rows(
                        &mut c,
                        &format!("BEGIN TRAN; INSERT INTO dbo.t (v) VALUES ({i}); COMMIT"),
                    );
                }
                c.close();
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let (f1, w1) = counters(&mut admin);
    let commits = (sessions * commits_each) as i64;
    let (flushes, waits) = (f1 - f0, w1 - w0);
    eprintln!(
        "{commits} commits from {sessions} sessions: {flushes} log flushes, {waits} WRITELOG waits"
    );
    assert_eq!(
        int(&rows(&mut admin, "SELECT COUNT(*) FROM gc.dbo.t")[0][0]),
        commits
    );
    assert!(flushes > 0, "the log file row counts flushes");
    assert!(
        flushes * 2 <= commits,
        "fewer than 2 commits per log flush: {flushes} flushes for {commits} commits"
    );
    assert!(waits > flushes, "{waits} WRITELOG waits, {flushes} flushes");
}
