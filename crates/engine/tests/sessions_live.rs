//! Several sessions on one engine (threads): what one session sees of another's running
//! request (sys.dm_exec_requests, sys.dm_os_waiting_tasks, sp_who), KILL, real waits
//! (WAITFOR, PAGEIOLATCH under injected read latency, WRITELOG), per-session I/O counters
//! (SET STATISTICS IO, reads of a running request) and the transaction DMVs.

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use engine::{CollectSink, ConnectionInfo, Engine, EngineConfig, Event, Session};
use support::{run, TempDir};
use types::Value;

fn open(tag: &str, config: EngineConfig) -> (TempDir, Arc<Engine>) {
    let dir = TempDir::new(tag);
    let e = Engine::open(dir.path(), config).expect("open");
    (dir, e)
}

fn text(v: &Value) -> String {
    match v {
        Value::Null => "NULL".into(),
        Value::NVarChar(s) | Value::VarChar(s) | Value::Char(s) | Value::NChar(s) => {
            s.trim_end().to_string()
        }
        Value::Int(i) => i.to_string(),
        Value::SmallInt(i) => i.to_string(),
        Value::BigInt(i) => i.to_string(),
        Value::Bit(b) => (*b as i32).to_string(),
        other => format!("{other:?}"),
    }
}

fn int(v: &Value) -> i64 {
    match v {
        Value::Int(i) => *i as i64,
        Value::SmallInt(i) => *i as i64,
        Value::BigInt(i) => *i,
        other => panic!("not an integer: {other:?}"),
    }
}

/// Polls `sql` in session `s` until it returns a row (at most 5 s).
fn wait_for_row(s: &mut Session, sql: &str) -> Vec<Value> {
    let end = Instant::now() + Duration::from_secs(5);
    loop {
        if let Some(r) = run(s, sql).into_iter().next() {
            return r;
        }
        assert!(Instant::now() < end, "no row from: {sql}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Runs `sql` in `s` on a thread; the join handle gives back the session and its events.
fn spawn_batch(
    mut s: Session,
    sql: &'static str,
) -> std::thread::JoinHandle<(Session, CollectSink, Duration)> {
    std::thread::spawn(move || {
        let mut sink = CollectSink::default();
        let t = Instant::now();
        s.execute_batch(sql, &mut sink);
        (s, sink, t.elapsed())
    })
}

#[test]
fn a_session_sees_another_sessions_waitfor_and_kills_it() {
    let (_dir, e) = open("live-waitfor", EngineConfig::default());
    let mut a = Session::new(e.clone());
    let b = Session::new(e.clone());
    let spid_b = b.spid();
    let h = spawn_batch(b, "SELECT 1; WAITFOR DELAY '00:00:20'; SELECT 2");

    let row = wait_for_row(
        &mut a,
        &format!(
            "SELECT status, command, wait_type, wait_time, total_elapsed_time, \
             blocking_session_id, last_wait_type, row_count \
             FROM sys.dm_exec_requests WHERE session_id = {spid_b} AND wait_type IS NOT NULL"
        ),
    );
    assert_eq!(text(&row[0]), "suspended");
    assert_eq!(text(&row[1]), "WAITFOR");
    assert_eq!(text(&row[2]), "WAITFOR");
    std::thread::sleep(Duration::from_millis(120));
    let row = run(
        &mut a,
        &format!(
            "SELECT wait_time, total_elapsed_time FROM sys.dm_exec_requests \
             WHERE session_id = {spid_b}"
        ),
    );
    assert!(int(&row[0][0]) >= 100, "wait_time {:?}", row[0][0]);
    assert!(int(&row[0][1]) >= int(&row[0][0]), "elapsed {:?}", row[0]);

    // the same request through the other views
    let w = run(
        &mut a,
        &format!(
            "SELECT wait_type, wait_duration_ms FROM sys.dm_os_waiting_tasks \
             WHERE session_id = {spid_b}"
        ),
    );
    assert_eq!(text(&w[0][0]), "WAITFOR");
    let sets = {
        let mut sink = CollectSink::default();
        a.execute_batch(&format!("EXEC sp_who '{spid_b}'"), &mut sink);
        sink.result_sets()[0].clone()
    };
    assert_eq!(text(&sets[0][2]), "suspended");
    assert_eq!(text(&sets[0][7]), "WAITFOR");
    let st = run(
        &mut a,
        &format!("SELECT status FROM sys.dm_exec_sessions WHERE session_id = {spid_b}"),
    );
    assert_eq!(text(&st[0][0]), "running");

    // KILL cancels the running request at once and ends the session
    let t = Instant::now();
    run(&mut a, &format!("KILL {spid_b}"));
    let (mut b, sink, took) = h.join().expect("b");
    assert!(took < Duration::from_secs(5), "WAITFOR ran {took:?}");
    assert!(t.elapsed() < Duration::from_secs(2));
    assert!(b.is_killed());
    let errs: Vec<i32> = sink.errors().iter().map(|e| e.number).collect();
    assert_eq!(errs, [596], "{:?}", sink.errors());
    assert_eq!(sink.result_sets().len(), 1, "SELECT 2 must not run");
    // a killed session runs nothing more
    let mut sink = CollectSink::default();
    b.execute_batch("SELECT 3", &mut sink);
    assert!(sink.result_sets().is_empty());
    assert_eq!(sink.errors()[0].number, 596);

    // the wait was recorded in the session (and the process: only checked where no other
    // test clears the process-wide counters in between, page_reads_under_latency...)
    let w = run(
        &mut a,
        &format!(
            "SELECT waiting_tasks_count FROM sys.dm_exec_session_wait_stats \
             WHERE session_id = {spid_b} AND wait_type = 'WAITFOR'"
        ),
    );
    assert_eq!(int(&w[0][0]), 1);
}

#[test]
fn kill_errors() {
    let (_dir, e) = open("live-kill-errors", EngineConfig::default());
    let mut a = Session::new(e.clone());
    let b = Session::new(e.clone());
    let cases = [
        (format!("KILL {}", a.spid()), 6104, "Cannot use KILL to kill your own process."),
        (
            "KILL 999".to_string(),
            6106,
            "Process ID 999 is not an active process ID.",
        ),
        (
            format!("KILL {} WITH STATUSONLY", b.spid()),
            6120,
            "Status report cannot be obtained. Rollback operation for Process ID {b} is not in progress.",
        ),
    ];
    for (sql, number, msg) in cases {
        let mut sink = CollectSink::default();
        a.execute_batch(&sql, &mut sink);
        let errs = sink.errors();
        assert_eq!(errs.len(), 1, "{sql}");
        assert_eq!(errs[0].number, number, "{sql}");
        assert_eq!(
            errs[0].message,
            msg.replace("{b}", &b.spid().to_string()),
            "{sql}"
        );
    }
    assert!(!b.is_killed());
}

#[test]
fn killing_an_idle_session_runs_its_kill_action_and_rolls_back_its_transaction() {
    let (_dir, e) = open("live-kill-idle", EngineConfig::default());
    let mut a = Session::new(e.clone());
    let mut b = Session::new(e.clone());
    run(&mut a, "CREATE TABLE t (id int)");
    run(&mut b, "BEGIN TRAN; INSERT t VALUES (1)");
    let row = run(
        &mut a,
        &format!(
            "SELECT s.is_user_transaction, s.open_transaction_count, t.name, t.transaction_state \
             FROM sys.dm_tran_session_transactions s \
             JOIN sys.dm_tran_active_transactions t ON t.transaction_id = s.transaction_id \
             WHERE s.session_id = {}",
            b.spid()
        ),
    );
    assert_eq!(row.len(), 1);
    assert_eq!(text(&row[0][0]), "1");
    assert_eq!(int(&row[0][1]), 1);
    assert_eq!(text(&row[0][2]), "user_transaction");
    assert_eq!(int(&row[0][3]), 2);
    let st = run(
        &mut a,
        &format!(
            "SELECT status, open_transaction_count FROM sys.dm_exec_sessions WHERE session_id = {}",
            b.spid()
        ),
    );
    assert_eq!(text(&st[0][0]), "sleeping");
    assert_eq!(int(&st[0][1]), 1);

    let closed = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let c = closed.clone();
    b.set_kill_action(Box::new(move || {
        c.store(true, std::sync::atomic::Ordering::SeqCst)
    }));
    run(&mut a, &format!("KILL {}", b.spid()));
    assert!(closed.load(std::sync::atomic::Ordering::SeqCst));
    assert!(b.is_killed());
    drop(b); // the server drops a killed session: its transaction rolls back
    assert_eq!(run(&mut a, "SELECT COUNT(*) FROM t")[0][0], Value::Int(0));
}

#[test]
fn statistics_io_shows_only_the_sessions_own_reads() {
    let (_dir, e) = open("live-stats-io", EngineConfig::default());
    let mut a = Session::new(e.clone());
    run(
        &mut a,
        "CREATE TABLE small (id int PRIMARY KEY, v char(100)); \
         CREATE TABLE big (id int PRIMARY KEY, v char(400)); \
         INSERT small SELECT value, 'x' FROM GENERATE_SERIES(1, 500); \
         INSERT big SELECT value, 'y' FROM GENERATE_SERIES(1, 20000)",
    );
    let stats = |a: &mut Session| -> Vec<String> {
        let mut sink = CollectSink::default();
        a.execute_batch(
            "SET STATISTICS IO ON; SELECT COUNT(*) FROM small; SET STATISTICS IO OFF",
            &mut sink,
        );
        assert!(sink.errors().is_empty(), "{:?}", sink.errors());
        sink.events
            .iter()
            .filter_map(|e| match e {
                Event::Message(m) if m.number == 3615 => Some(m.text.clone()),
                _ => None,
            })
            .collect()
    };
    let alone = stats(&mut a);
    assert_eq!(alone.len(), 1, "{alone:?}");

    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (e2, stop2) = (e.clone(), stop.clone());
    let reader = std::thread::spawn(move || {
        let mut b = Session::new(e2);
        let mut scans = 0;
        while !stop2.load(std::sync::atomic::Ordering::Relaxed) || scans == 0 {
            run(&mut b, "SELECT COUNT(*) FROM big");
            scans += 1;
        }
        scans
    });
    for _ in 0..20 {
        let busy = stats(&mut a);
        assert_eq!(
            busy, alone,
            "another session's reads leaked into STATISTICS IO"
        );
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    assert!(reader.join().expect("reader") > 0);
}

#[test]
fn a_running_request_shows_its_own_reads_live() {
    let (_dir, e) = open("live-reads", EngineConfig::default());
    let mut a = Session::new(e.clone());
    run(
        &mut a,
        "CREATE TABLE big (id int PRIMARY KEY, v char(400)); \
         INSERT big SELECT value, 'y' FROM GENERATE_SERIES(1, 5000)",
    );
    let b = Session::new(e.clone());
    let spid_b = b.spid();
    let h = spawn_batch(b, "SELECT COUNT(*) FROM big; WAITFOR DELAY '00:00:10'");
    let row = wait_for_row(
        &mut a,
        &format!(
            "SELECT logical_reads, command FROM sys.dm_exec_requests \
             WHERE session_id = {spid_b} AND command = 'WAITFOR'"
        ),
    );
    // the scan's pages (5000 rows of 400 bytes: > 250 pages), not a's reads
    assert!(int(&row[0]) > 250, "{row:?}");
    let mine = run(
        &mut a,
        "SELECT logical_reads FROM sys.dm_exec_requests WHERE session_id = @@SPID",
    );
    assert!(int(&mine[0][0]) < 100, "{mine:?}");
    run(&mut a, &format!("KILL {spid_b}"));
    let (b, _, _) = h.join().expect("b");
    let total = run(
        &mut a,
        &format!("SELECT logical_reads FROM sys.dm_exec_sessions WHERE session_id = {spid_b}"),
    );
    // a killed session stays listed until the server drops it; its finished request's reads
    // are the session's totals
    assert!(int(&total[0][0]) > 250, "{total:?}");
    drop(b);
}

#[test]
fn page_reads_under_latency_are_pageiolatch_waits() {
    let config = EngineConfig {
        read_latency_ms: Some(2),
        ..EngineConfig::default()
    };
    let (_dir, e) = open("live-pageiolatch", config);
    let mut a = Session::new(e);
    run(
        &mut a,
        "CREATE DATABASE w; USE w; CREATE TABLE t (id int PRIMARY KEY, v char(2000)); \
         INSERT t SELECT value, 'z' FROM GENERATE_SERIES(1, 200)",
    );
    run(&mut a, "CHECKPOINT; DBCC DROPCLEANBUFFERS");
    run(&mut a, "DBCC SQLPERF('sys.dm_os_wait_stats', CLEAR)");
    run(&mut a, "SELECT id FROM t WHERE id = 150");
    let w = run(
        &mut a,
        "SELECT waiting_tasks_count, wait_time_ms FROM sys.dm_os_wait_stats \
         WHERE wait_type = 'PAGEIOLATCH_SH'",
    );
    assert!(int(&w[0][0]) >= 2, "root and leaf at least: {w:?}");
    assert!(int(&w[0][1]) >= 2, "{w:?}");
    let mine = run(
        &mut a,
        "SELECT waiting_tasks_count FROM sys.dm_exec_session_wait_stats \
         WHERE session_id = @@SPID AND wait_type = 'PAGEIOLATCH_SH'",
    );
    assert!(int(&mine[0][0]) >= 2, "{mine:?}");
    // a commit waits for its log flush
    run(&mut a, "INSERT t VALUES (1000, 'c')");
    let w = run(
        &mut a,
        "SELECT waiting_tasks_count FROM sys.dm_os_wait_stats WHERE wait_type = 'WRITELOG'",
    );
    assert!(int(&w[0][0]) >= 1, "{w:?}");
    run(&mut a, "WAITFOR DELAY '00:00:00.020'");
    let w = run(
        &mut a,
        "SELECT waiting_tasks_count, wait_time_ms FROM sys.dm_os_wait_stats \
         WHERE wait_type = 'WAITFOR'",
    );
    assert!(int(&w[0][0]) >= 1 && int(&w[0][1]) >= 20, "{w:?}");
    run(&mut a, "DBCC SQLPERF('sys.dm_os_wait_stats', CLEAR)");
    let w = run(
        &mut a,
        "SELECT SUM(waiting_tasks_count) FROM sys.dm_os_wait_stats \
         WHERE wait_type LIKE 'PAGEIOLATCH%'",
    );
    assert_eq!(int(&w[0][0]), 0);
}

#[test]
fn a_dmv_read_in_a_loop_is_not_served_from_a_cached_plan() {
    let (_dir, e) = open("live-dmv-cache", EngineConfig::default());
    let mut a = Session::new(e);
    let sql = "DECLARE @a int, @b int, @i int = 0; \
               WHILE @i < 2 BEGIN \
                 SELECT @b = total_elapsed_time FROM sys.dm_exec_requests WHERE session_id = @@SPID; \
                 IF @i = 0 SET @a = @b; \
                 WAITFOR DELAY '00:00:00.100'; \
                 SET @i += 1; \
               END; \
               SELECT @b - @a";
    for _ in 0..2 {
        let r = run(&mut a, sql);
        assert!(int(&r[0][0]) >= 90, "{r:?}");
    }
}

#[test]
fn connection_info_from_the_server_is_shown() {
    let (_dir, e) = open("live-conn", EngineConfig::default());
    let mut a = Session::new(e.clone());
    let mut b = Session::new(e.clone());
    let mut info = ConnectionInfo::local();
    info.network = true;
    info.host_name = "APPHOST".into();
    info.program_name = "pytds".into();
    info.client_interface_name = "ODBC".into();
    info.client_net_address = "127.0.0.1".into();
    info.client_tcp_port = Some(50123);
    info.local_net_address = "127.0.0.1".into();
    info.local_tcp_port = Some(1433);
    b.set_client_info(info);
    let rows = run(
        &mut a,
        "SELECT c.session_id, c.net_transport, c.client_net_address, c.client_tcp_port, \
         s.host_name, s.program_name, s.client_interface_name \
         FROM sys.dm_exec_connections c JOIN sys.dm_exec_sessions s \
         ON s.session_id = c.session_id ORDER BY c.session_id",
    );
    let rows: Vec<Vec<String>> = rows.iter().map(|r| r.iter().map(text).collect()).collect();
    assert_eq!(
        rows,
        [
            vec![
                a.spid().to_string(),
                "Shared memory".into(),
                "<local machine>".into(),
                "NULL".into(),
                "localhost".into(),
                "latchkey".into(),
                "latchkey".into(),
            ],
            vec![
                b.spid().to_string(),
                "TCP".into(),
                "127.0.0.1".into(),
                "50123".into(),
                "APPHOST".into(),
                "pytds".into(),
                "ODBC".into(),
            ],
        ]
    );
}

#[test]
fn a_panic_in_a_request_is_an_error_of_that_session_only() {
    let (_dir, e) = open("live-panic", EngineConfig::default());
    let mut a = Session::new(e.clone());
    let mut b = Session::new(e.clone());
    run(&mut a, "CREATE TABLE t (id int)");
    run(&mut a, "BEGIN TRAN; INSERT t VALUES (1)");
    a.inject_panic_for_tests();
    let mut sink = CollectSink::default();
    a.execute_batch("SELECT 1", &mut sink);
    assert!(sink.result_sets().is_empty());
    let errs = sink.errors();
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0].number, 8630);
    // the session goes on, its transaction rolled back; the other session never noticed
    assert_eq!(run(&mut a, "SELECT @@TRANCOUNT")[0][0], Value::Int(0));
    assert_eq!(run(&mut b, "SELECT COUNT(*) FROM t")[0][0], Value::Int(0));
    assert_eq!(run(&mut a, "SELECT 2")[0][0], Value::Int(2));
    // the RPC path too
    a.inject_panic_for_tests();
    let mut sink = CollectSink::default();
    a.execute_parameterized(
        "SELECT @p",
        vec![("@p".into(), types::DataType::Int, Value::Int(3))],
        &mut sink,
    );
    assert_eq!(sink.errors()[0].number, 8630);
}

#[test]
fn a_lock_wait_shows_its_blocker() {
    let (_dir, e) = open("live-lock-wait", EngineConfig::default());
    let mut a = Session::new(e.clone());
    let mut holder = Session::new(e.clone());
    let waiter = Session::new(e.clone());
    let (spid_h, spid_w) = (holder.spid(), waiter.spid());
    run(
        &mut a,
        "CREATE TABLE t (id int PRIMARY KEY, v int); INSERT t VALUES (1, 10)",
    );
    run(&mut holder, "BEGIN TRAN; UPDATE t SET v = 99 WHERE id = 1");
    let h = spawn_batch(waiter, "SELECT v FROM t WHERE id = 1");
    let row = wait_for_row(
        &mut a,
        &format!(
            "SELECT wait_type, blocking_session_id, status FROM sys.dm_exec_requests \
             WHERE session_id = {spid_w} AND wait_type LIKE 'LCK_M_%'"
        ),
    );
    assert_eq!(int(&row[1]), spid_h as i64, "{row:?}");
    assert_eq!(text(&row[2]), "suspended");
    let w = run(
        &mut a,
        &format!(
            "SELECT blocking_session_id FROM sys.dm_os_waiting_tasks WHERE session_id = {spid_w}"
        ),
    );
    assert_eq!(int(&w[0][0]), spid_h as i64);
    run(&mut holder, "ROLLBACK");
    let (_w, sink, _) = h.join().expect("waiter");
    assert!(sink.errors().is_empty(), "{:?}", sink.errors());
    assert_eq!(sink.result_sets()[0][0][0], Value::Int(10));
}
