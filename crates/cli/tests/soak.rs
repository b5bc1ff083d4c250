//! The soak (issue 11, acceptance 4): `latchkey serve` on a fresh data directory under many
//! concurrent TDS sessions (the in-repo client, a thread each) mixing INSERT, UPDATE, DELETE and
//! SELECT in autocommit statements and in multi-statement transactions (one batch, or one
//! request per statement; some rolled back), checked against a model:
//!
//! * each session owns a key range of `owned`, so its model of that range is exact: every
//!   SELECT of the range must equal it, every DML statement must report its exact row count;
//! * `acct` is shared: transfers between random accounts (in any order, so sessions deadlock
//!   and the victims, Msg 1205, retry) keep the sum of the balances constant, and readers check
//!   the sum under a table lock while transfers run.
//!
//! At the end the tables equal the models row for row, the sum holds and `DBCC CHECKDB` is
//! clean. Phase 2 starts the load again, SIGKILLs the server in the middle of it, restarts it
//! on the same directory and checks that every acknowledged commit is there and that a commit
//! whose acknowledgement was lost is there entirely or not at all.
//!
//! Any error other than 1205 fails the test. Knobs: `LATCHKEY_SOAK_SECONDS` (phase 1, default
//! 120), `LATCHKEY_SOAK_SESSIONS` (default 300), `LATCHKEY_SOAK_KILL_AFTER` (seconds of phase 2
//! load before the SIGKILL, default 15), `LATCHKEY_SOAK_SEED`.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

use tds::client::{Client, ClientConfig, ClientError, Event};
use tds::tokens::{done_status, MessageToken};
use types::Value;

const PASSWORD: &str = "Soak-Passw0rd!";
const ACCOUNTS: i32 = 50;
const INITIAL_BALANCE: i64 = 1000;
/// Keys of session `s` are `s * KEY_SPAN ..= s * KEY_SPAN + KEY_SPAN - 1`.
const KEY_SPAN: i32 = 1_000_000;
/// Attempts of one transaction chosen as a deadlock victim before the session gives up on it.
const DEADLOCK_RETRIES: u32 = 50;

fn knob(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The server process; SIGKILLed when dropped (a failing test leaves nothing running).
struct ServerProcess {
    child: Child,
    port: u16,
}

impl ServerProcess {
    fn start(dir: &Path) -> ServerProcess {
        let mut child = Command::new(env!("CARGO_BIN_EXE_latchkey"))
            .args(["serve", "--port", "0", "--data"])
            .arg(dir)
            .env("MSSQL_SA_PASSWORD", PASSWORD)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn latchkey serve");
        let stderr = child.stderr.take().expect("stderr");
        let mut lines = BufReader::new(stderr).lines();
        let mut port = None;
        for line in lines.by_ref() {
            let Ok(line) = line else { break };
            eprintln!("[server] {line}");
            if line.contains("listening on") {
                port = line.rsplit(':').next().and_then(|p| p.trim().parse().ok());
                break;
            }
        }
        // keep draining, so the server never blocks on a full pipe
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                eprintln!("[server] {line}");
            }
        });
        let Some(port) = port else {
            let _ = child.kill();
            panic!("latchkey serve did not start: {:?}", child.wait());
        };
        ServerProcess { child, port }
    }

    fn sigkill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    fn sigterm_and_wait(&mut self) {
        // SAFETY: signals the child process this test started.
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGTERM);
        }
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(60) {
            if let Ok(Some(status)) = self.child.try_wait() {
                assert!(status.success(), "server exit after SIGTERM: {status:?}");
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("the server did not stop within 60 s of SIGTERM");
    }

    fn connect(&self) -> Result<Client, ClientError> {
        let mut cfg = ClientConfig::new("127.0.0.1", self.port, "sa", PASSWORD);
        cfg.database = Some("soak".into());
        cfg.app_name = "latchkey soak".into();
        cfg.connect_timeout = Duration::from_secs(120);
        Client::connect(&cfg)
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One response: the errors, the row counts of the DONE tokens that carry one, the rows.
#[derive(Default)]
struct Reply {
    errors: Vec<MessageToken>,
    infos: Vec<String>,
    counts: Vec<u64>,
    rows: Vec<Vec<Value>>,
}

impl Reply {
    fn deadlocked(&self) -> bool {
        self.errors.iter().any(|e| e.number == 1205)
    }
    fn unexpected_error(&self) -> Option<String> {
        self.errors
            .iter()
            .find(|e| e.number != 1205)
            .map(|e| format!("Msg {}, Level {}: {}", e.number, e.class, e.text))
    }
}

fn request(c: &mut Client, sql: &str) -> Result<Reply, ClientError> {
    let mut r = Reply::default();
    c.batch(sql, None, &mut |e| match e {
        Event::Error(m) => r.errors.push(m),
        Event::Info(m) => r.infos.push(m.text),
        Event::Done(_, d) if d.status & done_status::COUNT != 0 => r.counts.push(d.row_count),
        Event::Row(v) => r.rows.push(v),
        _ => {}
    })?;
    Ok(r)
}

fn int(v: &Value) -> i64 {
    match v {
        Value::TinyInt(x) => *x as i64,
        Value::SmallInt(x) => *x as i64,
        Value::Int(x) => *x as i64,
        Value::BigInt(x) => *x,
        other => panic!("not an integer: {other:?}"),
    }
}

/// splitmix64
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// A change to one key of a session's range: the row's new value, or `None` for deleted.
type Change = (i32, Option<i32>);

/// What a session sends for one transaction, and what it does when it commits.
struct Plan {
    /// The requests, in order (a multi-request transaction has several).
    requests: Vec<String>,
    /// The row counts the DML statements must report, over all requests.
    counts: Vec<u64>,
    /// Applied to the model when the last request is acknowledged without an error.
    changes: Vec<Change>,
    /// Whether the transaction commits (false: it rolls back; the model stays).
    commits: bool,
    /// A read of the session's own range, compared with the model.
    check_range: bool,
    /// A read of the sum of the balances.
    check_sum: bool,
}

#[derive(Default, Debug, Clone)]
struct Stats {
    transactions: u64,
    commits: u64,
    rollbacks: u64,
    statements: u64,
    reads: u64,
    deadlocks: u64,
}

impl Stats {
    fn add(&mut self, o: &Stats) {
        self.transactions += o.transactions;
        self.commits += o.commits;
        self.rollbacks += o.rollbacks;
        self.statements += o.statements;
        self.reads += o.reads;
        self.deadlocks += o.deadlocks;
    }
}

/// One session's model and generator. Survives connections (phase 2 reconnects with it).
struct Session {
    id: i32,
    rng: Rng,
    model: BTreeMap<i32, i32>,
    next_key: i32,
    /// Phase 2: the changes of a transaction whose commit was sent but not acknowledged.
    in_doubt: Option<Vec<Change>>,
    stats: Stats,
}

impl Session {
    fn new(id: i32, seed: u64) -> Session {
        Session {
            id,
            rng: Rng(seed ^ (id as u64).wrapping_mul(0x2545_F491_4F6C_DD1D)),
            model: BTreeMap::new(),
            next_key: 0,
            in_doubt: None,
            stats: Stats::default(),
        }
    }

    fn base(&self) -> i32 {
        self.id * KEY_SPAN
    }

    /// One DML statement on the session's range against `view` (the model as the transaction
    /// sees it so far); returns its text, its row count, and records its change.
    fn statement(
        &mut self,
        view: &mut BTreeMap<i32, i32>,
        changes: &mut Vec<Change>,
    ) -> (String, u64) {
        let choice = self.rng.below(100);
        let existing = if view.is_empty() {
            None
        } else {
            let i = self.rng.below(view.len() as u64) as usize;
            view.keys().nth(i).copied()
        };
        let v = self.rng.below(1_000_000) as i32;
        match (choice, existing) {
            (0..=49, _) | (_, None) => {
                // a new key, or (sometimes) one deleted before: ghosts and reinsertion
                let k = if self.next_key > 0 && self.rng.chance(25) {
                    self.base() + self.rng.below(self.next_key as u64) as i32
                } else {
                    self.next_key += 1;
                    self.base() + self.next_key - 1
                };
                changes.push((k, Some(v)));
                if view.insert(k, v).is_some() {
                    // the key is there: the row gets a new value instead
                    return (format!("UPDATE owned SET v = {v} WHERE k = {k}"), 1);
                }
                (
                    format!("INSERT owned (k, owner, v) VALUES ({k}, {}, {v})", self.id),
                    1,
                )
            }
            (50..=79, Some(k)) => {
                view.insert(k, v);
                changes.push((k, Some(v)));
                (format!("UPDATE owned SET v = {v} WHERE k = {k}"), 1)
            }
            (_, Some(k)) => {
                view.remove(&k);
                changes.push((k, None));
                (format!("DELETE owned WHERE k = {k}"), 1)
            }
        }
    }

    fn plan(&mut self) -> Plan {
        let mut view = self.model.clone();
        let mut changes = Vec::new();
        let mut counts = Vec::new();
        let kind = self.rng.below(100);
        let mut plan = Plan {
            requests: Vec::new(),
            counts: Vec::new(),
            changes: Vec::new(),
            commits: true,
            check_range: false,
            check_sum: false,
        };
        match kind {
            // an autocommit statement
            0..=39 => {
                let (s, n) = self.statement(&mut view, &mut changes);
                plan.requests.push(s);
                counts.push(n);
            }
            // a read of the session's own range
            40..=51 => {
                plan.check_range = true;
                plan.requests.push(format!(
                    "SELECT k, v FROM owned WHERE k BETWEEN {} AND {} ORDER BY k",
                    self.base(),
                    self.base() + KEY_SPAN - 1
                ));
            }
            // a transaction in one batch, committed or rolled back
            52..=71 => {
                plan.commits = !self.rng.chance(25);
                let mut text = String::from("BEGIN TRAN;\n");
                for _ in 0..1 + self.rng.below(4) {
                    let (s, n) = self.statement(&mut view, &mut changes);
                    text.push_str(&s);
                    text.push_str(";\n");
                    counts.push(n);
                }
                text.push_str(if plan.commits {
                    "COMMIT TRAN;"
                } else {
                    "ROLLBACK TRAN;"
                });
                plan.requests.push(text);
            }
            // a transaction over several requests
            72..=79 => {
                plan.commits = !self.rng.chance(25);
                plan.requests.push("BEGIN TRAN".into());
                for _ in 0..1 + self.rng.below(3) {
                    let (s, n) = self.statement(&mut view, &mut changes);
                    plan.requests.push(s);
                    counts.push(n);
                }
                plan.requests.push(
                    if plan.commits {
                        "COMMIT TRAN"
                    } else {
                        "ROLLBACK TRAN"
                    }
                    .into(),
                );
            }
            // a transfer between two accounts, in whatever order they come (deadlocks)
            80..=94 => {
                let a = 1 + self.rng.below(ACCOUNTS as u64) as i32;
                let mut b = 1 + self.rng.below(ACCOUNTS as u64 - 1) as i32;
                if b >= a {
                    b += 1;
                }
                let x = 1 + self.rng.below(100);
                plan.commits = !self.rng.chance(10);
                plan.requests.push(format!(
                    "BEGIN TRAN;\nUPDATE acct SET bal = bal - {x} WHERE id = {a};\n\
                     UPDATE acct SET bal = bal + {x} WHERE id = {b};\n{}",
                    if plan.commits {
                        "COMMIT TRAN;"
                    } else {
                        "ROLLBACK TRAN;"
                    }
                ));
                counts.extend([1, 1]);
            }
            // the invariant, read while transfers run
            _ => {
                plan.check_sum = true;
                plan.requests.push(
                    "SELECT SUM(CAST(bal AS bigint)), COUNT(*) FROM acct WITH (TABLOCK, HOLDLOCK)"
                        .into(),
                );
            }
        }
        plan.counts = counts;
        plan.changes = changes;
        plan
    }

    fn expected_range(&self) -> Vec<(i64, i64)> {
        self.model
            .iter()
            .map(|(k, v)| (*k as i64, *v as i64))
            .collect()
    }
}

/// How a session's run ended.
enum End {
    /// The deadline passed.
    Done,
    /// The connection broke (phase 2: the server was killed).
    Lost(String),
}

/// Runs one plan to its end, retrying deadlock victims. `Err`: the test fails.
fn run_plan(c: &mut Client, s: &mut Session, plan: &Plan) -> Result<Result<(), String>, String> {
    for _attempt in 0..DEADLOCK_RETRIES {
        let mut counts = Vec::new();
        let mut rows = Vec::new();
        let mut deadlocked = false;
        for (i, req) in plan.requests.iter().enumerate() {
            let last = i + 1 == plan.requests.len();
            if last && plan.commits && !plan.changes.is_empty() {
                s.in_doubt = Some(plan.changes.clone());
            }
            let reply = match request(c, req) {
                Ok(r) => r,
                Err(e) => return Ok(Err(format!("{e}"))),
            };
            s.stats.statements += 1;
            if let Some(e) = reply.unexpected_error() {
                return Err(format!("session {}: {e}\nin: {req}", s.id));
            }
            if reply.deadlocked() {
                s.in_doubt = None;
                deadlocked = true;
                // a deadlock victim's transaction is rolled back whole
                if c.transaction_descriptor() != 0 {
                    return Err(format!(
                        "session {}: a transaction is still open after Msg 1205 in: {req}",
                        s.id
                    ));
                }
                break;
            }
            counts.extend(reply.counts);
            rows.extend(reply.rows);
        }
        if deadlocked {
            s.stats.deadlocks += 1;
            continue;
        }
        // a SELECT's DONE carries its row count too: compare the DML statements' only
        let reads = plan.check_range || plan.check_sum;
        if !reads && counts != plan.counts {
            return Err(format!(
                "session {}: row counts {counts:?}, expected {:?}, of {:?}",
                s.id, plan.counts, plan.requests
            ));
        }
        if c.transaction_descriptor() != 0 {
            return Err(format!(
                "session {}: a transaction is left open after {:?}",
                s.id, plan.requests
            ));
        }
        s.in_doubt = None;
        s.stats.transactions += 1;
        if plan.commits {
            for (k, v) in &plan.changes {
                match v {
                    Some(v) => s.model.insert(*k, *v),
                    None => s.model.remove(k),
                };
            }
            if !plan.changes.is_empty() {
                s.stats.commits += 1;
            }
        } else {
            s.stats.rollbacks += 1;
        }
        if plan.check_range {
            s.stats.reads += 1;
            let got: Vec<(i64, i64)> = rows.iter().map(|r| (int(&r[0]), int(&r[1]))).collect();
            if got != s.expected_range() {
                return Err(format!(
                    "session {}: its range reads {} rows, the model has {}",
                    s.id,
                    got.len(),
                    s.model.len()
                ));
            }
        }
        if plan.check_sum {
            s.stats.reads += 1;
            let got = rows.first().map(|r| (int(&r[0]), int(&r[1])));
            if got != Some((INITIAL_BALANCE * ACCOUNTS as i64, ACCOUNTS as i64)) {
                return Err(format!("session {}: sum and count of acct: {got:?}", s.id));
            }
        }
        return Ok(Ok(()));
    }
    Err(format!(
        "session {}: deadlock victim {DEADLOCK_RETRIES} times in a row: {:?}",
        s.id, plan.requests
    ))
}

/// Runs every session on its own connection until `deadline` (or until its connection
/// breaks, when `may_lose_connection`). Returns the sessions and the failures.
fn run_load(
    server: &ServerProcess,
    sessions: Vec<Session>,
    deadline: Instant,
    may_lose_connection: Arc<AtomicBool>,
) -> (Vec<Session>, Vec<String>, Duration) {
    let failures = Arc::new(Mutex::new(Vec::<String>::new()));
    let barrier = Arc::new(Barrier::new(sessions.len() + 1));
    let mut handles = Vec::new();
    for mut s in sessions {
        s.stats = Stats::default();
        let client = server.connect();
        let (failures, barrier, lose) = (
            failures.clone(),
            barrier.clone(),
            may_lose_connection.clone(),
        );
        handles.push(
            std::thread::Builder::new()
                .stack_size(512 * 1024)
                .spawn(move || {
                    barrier.wait();
                    let mut c = match client {
                        Ok(c) => c,
                        Err(e) => {
                            failures
                                .lock()
                                .unwrap()
                                .push(format!("session {}: connect: {e}", s.id));
                            return s;
                        }
                    };
                    let end = loop {
                        if Instant::now() >= deadline {
                            break End::Done;
                        }
                        let plan = s.plan();
                        match run_plan(&mut c, &mut s, &plan) {
                            Ok(Ok(())) => {}
                            Ok(Err(e)) => break End::Lost(e),
                            Err(e) => {
                                failures.lock().unwrap().push(e);
                                break End::Done;
                            }
                        }
                    };
                    if let End::Lost(e) = end {
                        if !lose.load(Ordering::SeqCst) {
                            failures
                                .lock()
                                .unwrap()
                                .push(format!("session {}: connection lost: {e}", s.id));
                        }
                    } else {
                        c.close();
                    }
                    s
                })
                .expect("spawn session thread"),
        );
    }
    barrier.wait();
    let started = Instant::now();
    let sessions: Vec<Session> = handles
        .into_iter()
        .map(|h| h.join().expect("session thread panicked"))
        .collect();
    let elapsed = started.elapsed();
    let failures = std::mem::take(&mut *failures.lock().unwrap());
    (sessions, failures, elapsed)
}

/// The whole database against the models: `owned` row for row, the balance sum, CHECKDB.
fn verify(server: &ServerProcess, sessions: &[Session], allow_in_doubt: bool) {
    let mut c = server.connect().expect("connect to verify");
    let reply = request(&mut c, "SELECT k, owner, v FROM owned ORDER BY k").expect("read owned");
    assert!(reply.errors.is_empty(), "{:?}", reply.errors);
    let mut actual: BTreeMap<i32, BTreeMap<i32, i32>> = BTreeMap::new();
    for r in &reply.rows {
        let (k, owner, v) = (int(&r[0]) as i32, int(&r[1]) as i32, int(&r[2]) as i32);
        assert_eq!(k / KEY_SPAN, owner, "row {k} in the wrong range");
        actual.entry(owner).or_default().insert(k, v);
    }
    let empty = BTreeMap::new();
    let mut in_doubt_applied = 0;
    for s in sessions {
        let got = actual.remove(&s.id).unwrap_or_default();
        if got == s.model {
            continue;
        }
        if allow_in_doubt {
            if let Some(changes) = &s.in_doubt {
                let mut after = s.model.clone();
                for (k, v) in changes {
                    match v {
                        Some(v) => after.insert(*k, *v),
                        None => after.remove(k),
                    };
                }
                if got == after {
                    in_doubt_applied += 1;
                    continue;
                }
            }
        }
        let missing: Vec<_> = s
            .model
            .iter()
            .filter(|(k, v)| got.get(k) != Some(v))
            .take(5)
            .collect();
        let extra: Vec<_> = got
            .iter()
            .filter(|(k, v)| s.model.get(k) != Some(v))
            .take(5)
            .collect();
        panic!(
            "session {}: {} rows, the model has {}; model rows missing or different: {missing:?}; \
             rows not in the model: {extra:?}; in doubt: {:?}",
            s.id,
            got.len(),
            s.model.len(),
            s.in_doubt
        );
    }
    assert_eq!(actual, empty, "rows of sessions that do not exist");
    if allow_in_doubt {
        eprintln!(
            "soak: {} sessions had a commit in doubt, {in_doubt_applied} of them are applied",
            sessions.iter().filter(|s| s.in_doubt.is_some()).count()
        );
    }
    let reply = request(
        &mut c,
        "SELECT SUM(CAST(bal AS bigint)), COUNT(*) FROM acct",
    )
    .unwrap();
    assert!(reply.errors.is_empty(), "{:?}", reply.errors);
    let sum = reply.rows.first().map(|r| (int(&r[0]), int(&r[1])));
    assert_eq!(
        sum,
        Some((INITIAL_BALANCE * ACCOUNTS as i64, ACCOUNTS as i64)),
        "the transfers did not keep the sum"
    );
    let reply = request(&mut c, "DBCC CHECKDB").unwrap();
    assert!(reply.errors.is_empty(), "DBCC CHECKDB: {:?}", reply.errors);
    assert!(
        reply
            .infos
            .iter()
            .any(|m| m.contains("found 0 allocation errors and 0 consistency errors")),
        "DBCC CHECKDB: {:?}",
        reply.infos
    );
    c.close();
}

fn report(label: &str, sessions: &[Session], elapsed: Duration) -> Stats {
    let mut total = Stats::default();
    for s in sessions {
        total.add(&s.stats);
    }
    let secs = elapsed.as_secs_f64().max(0.001);
    eprintln!(
        "soak {label}: {} sessions, {:.1} s: {} transactions ({:.0}/s; {} commits with changes, \
         {} rollbacks), {} requests ({:.0}/s), {} checked reads, {} deadlock victims (1205) retried",
        sessions.len(),
        secs,
        total.transactions,
        total.transactions as f64 / secs,
        total.commits,
        total.rollbacks,
        total.statements,
        total.statements as f64 / secs,
        total.reads,
        total.deadlocks
    );
    total
}

#[test]
fn soak_300_sessions_against_a_model_then_sigkill_and_restart() {
    let test_started = Instant::now();
    let seconds = knob("LATCHKEY_SOAK_SECONDS", 120);
    let n = knob("LATCHKEY_SOAK_SESSIONS", 300) as i32;
    let kill_after = knob("LATCHKEY_SOAK_KILL_AFTER", 15);
    let seed = knob("LATCHKEY_SOAK_SEED", 0x50A4);
    eprintln!("soak: seed {seed}, {n} sessions, {seconds} s, SIGKILL after {kill_after} s");
    let dir = tempfile::tempdir().expect("temp dir");
    let mut server = ServerProcess::start(dir.path());
    {
        let mut cfg = ClientConfig::new("127.0.0.1", server.port, "sa", PASSWORD);
        cfg.database = Some("master".into());
        let mut c = Client::connect(&cfg).expect("connect");
        let setup = format!(
            "CREATE DATABASE soak;\nUSE soak;\n\
             CREATE TABLE owned (k int NOT NULL PRIMARY KEY, owner int NOT NULL, v int NOT NULL);\n\
             CREATE TABLE acct (id int NOT NULL PRIMARY KEY, bal int NOT NULL);\n\
             DECLARE @i int = 1; WHILE @i <= {ACCOUNTS} BEGIN INSERT acct VALUES (@i, {INITIAL_BALANCE}); SET @i += 1; END;"
        );
        let r = request(&mut c, &setup).expect("setup");
        assert!(r.errors.is_empty(), "setup: {:?}", r.errors);
        c.close();
    }
    let sessions: Vec<Session> = (0..n).map(|i| Session::new(i, seed)).collect();

    // Phase 1: the load, then everything against the model.
    let no_loss = Arc::new(AtomicBool::new(false));
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let (sessions, failures, elapsed) = run_load(&server, sessions, deadline, no_loss);
    report("phase 1", &sessions, elapsed);
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    verify(&server, &sessions, false);

    // Phase 2: the load again; SIGKILL in the middle of it; restart; every acknowledged commit
    // is there, a commit in doubt entirely or not at all.
    let killed = Arc::new(AtomicBool::new(false));
    let kill_at = Instant::now() + Duration::from_secs(kill_after);
    let (sessions, failures, elapsed) = std::thread::scope(|scope| {
        let killed2 = killed.clone();
        let server_ref = &mut server;
        let pid = server_ref.child.id() as i32;
        let killer = scope.spawn(move || {
            while Instant::now() < kill_at {
                std::thread::sleep(Duration::from_millis(20));
            }
            killed2.store(true, Ordering::SeqCst);
            // SAFETY: signals the child process this test started.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        });
        // the sessions run until the kill breaks their connections
        let far = Instant::now() + Duration::from_secs(kill_after + 600);
        let r = run_load(server_ref, sessions, far, killed.clone());
        killer.join().expect("killer");
        r
    });
    server.sigkill();
    report("phase 2 (until SIGKILL)", &sessions, elapsed);
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    let restart = Instant::now();
    let server = ServerProcess::start(dir.path());
    eprintln!(
        "soak: restart (recovery) took {:.1} s",
        restart.elapsed().as_secs_f64()
    );
    verify(&server, &sessions, true);
    let mut server = server;
    server.sigterm_and_wait();
    eprintln!(
        "soak: total wall time {:.1} s",
        test_started.elapsed().as_secs_f64()
    );
}
