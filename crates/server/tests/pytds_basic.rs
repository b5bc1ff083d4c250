//! The server driven by an unmodified client (pytds): login, batches, messages, errors.

mod support;

use support::TestServer;

#[test]
fn select_1_and_wrong_password() {
    let s = TestServer::start();
    let Some(out) = s.python(
        "c = connect(); cur = c.cursor(); cur.execute('SELECT 1 AS one'); print(cur.fetchall())\n\
         try:\n    connect(password='wrong')\nexcept pytds.Error as e:\n    print('ERR', e.msg_no if hasattr(e,'msg_no') else '', e)\n",
    ) else {
        return;
    };
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "[(1,)]");
    assert!(lines[1].starts_with("ERR 18456"), "{out}");
    assert!(lines[1].contains("Login failed for user 'sa'."), "{out}");
    assert!(
        !lines[1].contains("Password"),
        "no detail to the client: {out}"
    );
    assert!(
        s.errorlog().contains("Password did not match"),
        "{}",
        s.errorlog()
    );
}

#[test]
fn batch_with_result_sets_row_counts_messages_and_errors() {
    let s = TestServer::start();
    let Some(out) = s.python(
        r#"
c = connect(); cur = c.cursor()
cur.execute("CREATE TABLE t (a int, b nvarchar(10)); INSERT t VALUES (1, N'x'), (2, NULL)")
print('inserted', cur.rowcount)
cur.execute("SELECT a, b FROM t ORDER BY a; SELECT COUNT(*) FROM t; UPDATE t SET a = a + 10")
print(cur.fetchall())
cur.nextset(); print(cur.fetchall())
cur.nextset(); print('rowcount', cur.rowcount)
cur.execute("PRINT 'hello'; RAISERROR('warned %d', 10, 3, 7)")
print(sorted(str(m[1]) for m in cur.messages))
try:
    cur.execute("SELECT 1\nSELECT * FROM nope")
    while cur.nextset(): pass
except pytds.ProgrammingError as e:
    print('ERR', e.msg_no, e.severity, e.state, e.line, e.text)
cur.execute("SELECT 'still alive'"); print(cur.fetchall())
"#,
    ) else {
        return;
    };
    let mut lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.remove(0), "inserted 2", "{out}");
    assert_eq!(lines[0], "[(1, 'x'), (2, None)]", "{out}");
    assert_eq!(lines[1], "[(2,)]", "{out}");
    assert_eq!(lines[2], "rowcount 2", "{out}");
    assert!(
        lines[3].contains("hello") && lines[3].contains("warned 7"),
        "{out}"
    );
    assert_eq!(
        lines[4], "ERR 208 16 1 2 Invalid object name 'nope'.",
        "{out}"
    );
    assert_eq!(lines[5], "[('still alive',)]", "{out}");
}

#[test]
fn sp_executesql_with_typed_and_output_parameters_and_procedure_return_status() {
    let s = TestServer::start();
    let Some(out) = s.python(
        r#"
c = connect(); cur = c.cursor()
cur.execute("SELECT %s + 1 AS a, %s AS b", (41, 'text'))
print(cur.fetchall())
cur.execute("CREATE PROCEDURE dbo.p @y int OUTPUT, @x int AS BEGIN SET @y = @x * 2; SELECT @x AS x; RETURN 5 END")
# (pytds's get_proc_outputs indexes by ordinal into a list sized by the output count:
# the OUTPUT parameter comes first)
r = cur.callproc('dbo.p', (pytds.output(value=None, param_type='int'), 21))
print(cur.fetchall())
while cur.nextset(): pass
print(r[1], cur.get_proc_outputs(), cur.get_proc_return_status())
"#,
    ) else {
        return;
    };
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "[(42, 'text')]", "{out}");
    assert_eq!(lines[1], "[(21,)]", "{out}");
    assert_eq!(lines[2], "21 [42] 5", "{out}");
}

#[test]
fn transactions_over_tm_requests_and_begin_tran() {
    let s = TestServer::start();
    let Some(out) = s.python(
        r#"
c = connect(autocommit=False); cur = c.cursor()
cur.execute("CREATE TABLE t (a int)"); c.commit()
cur.execute("INSERT t VALUES (1)"); c.rollback()
cur.execute("SELECT COUNT(*) FROM t"); print(cur.fetchall())
cur.execute("INSERT t VALUES (2)"); c.commit()
cur.execute("SELECT @@TRANCOUNT, COUNT(*) FROM t"); print(cur.fetchall())
c.commit()
a = connect(); ca = a.cursor()
ca.execute("BEGIN TRAN; INSERT t VALUES (3)")
ca.execute("SELECT @@TRANCOUNT"); print(ca.fetchall())
ca.execute("ROLLBACK")
ca.execute("SELECT @@TRANCOUNT, COUNT(*) FROM t"); print(ca.fetchall())
"#,
    ) else {
        return;
    };
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "[(0,)]", "{out}");
    assert_eq!(lines[1], "[(1, 1)]", "{out}");
    assert_eq!(lines[2], "[(1,)]", "{out}");
    assert_eq!(lines[3], "[(0, 1)]", "{out}");
}

#[test]
fn attention_cancels_waitfor() {
    let s = TestServer::start();
    let Some(out) = s.python(
        r#"
import time
c = connect(timeout=1); cur = c.cursor()
t0 = time.time()
try:
    cur.execute("WAITFOR DELAY '00:00:10'; SELECT 'not reached'")
    print('no timeout')
except pytds.TimeoutError:
    print('timeout')
cur.execute("SELECT 'after cancel'"); print(cur.fetchall())
print('fast' if time.time() - t0 < 6 else 'slow %.1f' % (time.time() - t0))
"#,
    ) else {
        return;
    };
    assert_eq!(out, "timeout\n[('after cancel',)]\nfast\n", "{out}");
}

#[test]
fn garbage_from_one_client_does_not_disturb_another() {
    use std::io::{Read, Write};
    let s = TestServer::start();
    if !support::pytds_available() {
        eprintln!("SKIP: python3 with pytds is not installed");
        return;
    }
    // A first client logs in and holds its connection while garbage arrives on others.
    let script = r#"
import socket, time
c = connect(); cur = c.cursor()
cur.execute("SELECT 1"); print(cur.fetchall())
open(sys.argv[1] if len(sys.argv) > 1 else '/dev/null', 'w')
time.sleep(1.5)
cur.execute("SELECT 2"); print(cur.fetchall())
"#;
    let s2 = &s;
    std::thread::scope(|scope| {
        let h = scope.spawn(move || s2.python(script));
        std::thread::sleep(std::time::Duration::from_millis(500));
        for garbage in [
            vec![0xFFu8; 64],
            vec![0x12, 0x01, 0x00, 0x04, 0, 0, 0, 0],
            vec![0x12, 0x01, 0xFF, 0xFF, 0, 0, 0, 0, 1, 2, 3],
            b"GET / HTTP/1.1\r\n\r\n".to_vec(),
        ] {
            let mut c = std::net::TcpStream::connect(s.addr).unwrap();
            c.set_read_timeout(Some(std::time::Duration::from_secs(5)))
                .unwrap();
            let _ = c.write_all(&garbage);
            let mut buf = Vec::new();
            // The server closes the connection (EOF or reset), it does not hang or crash.
            let _ = c.read_to_end(&mut buf);
        }
        let out = h.join().unwrap().unwrap();
        assert_eq!(out, "[(1,)]\n[(2,)]\n");
    });
}

#[test]
fn a_panic_in_a_request_closes_only_its_connection() {
    let s = TestServer::start_with(|c| c.panic_hook_batch = Some("SELECT 'boom'".into()));
    let Some(out) = s.python(
        r#"
other = connect(); oc = other.cursor()
oc.execute("CREATE TABLE #keep (a int); INSERT #keep VALUES (1)")
c = connect(); cur = c.cursor()
cur.execute("CREATE TABLE t (a int)")
cur.execute("BEGIN TRAN; INSERT t VALUES (1)")
try:
    cur.execute("SELECT 'boom'")
    print('no error')
except pytds.Error as e:
    print('ERR', getattr(e, 'msg_no', ''), getattr(e, 'severity', ''))
try:
    cur.execute("SELECT 1")
    print('still open')
except Exception as e:
    print('closed')
oc.execute("SELECT COUNT(*) FROM #keep"); print(oc.fetchall())
oc.execute("SELECT COUNT(*) FROM t"); print(oc.fetchall())
"#,
    ) else {
        return;
    };
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "ERR 3624 20", "{out}");
    assert_eq!(lines[1], "closed", "{out}");
    assert_eq!(lines[2], "[(1,)]", "{out}");
    assert_eq!(
        lines[3], "[(0,)]",
        "the panicked session's insert was rolled back: {out}"
    );
    assert!(s.errorlog().contains("panicked"), "{}", s.errorlog());
}

#[test]
fn single_statement_batches_leave_pytds_idle_without_a_cancel() {
    let s = TestServer::start();
    let Some(out) = s.python(
        r#"
import pytds.tds_session as ts
cancels = []
orig = ts._TdsSession.put_cancel
def counting(self):
    cancels.append(1)
    return orig(self)
ts._TdsSession.put_cancel = counting
c = connect(); cur = c.cursor()
cur.execute("CREATE TABLE dbo.t (id bigint IDENTITY PRIMARY KEY, v int)")
cur.execute("BEGIN TRANSACTION")
for i in range(5):
    cur.execute("INSERT INTO dbo.t (v) VALUES (1)")
    print('rowcount', cur.rowcount, 'idle', cur._session.state == pytds.tds_base.TDS_IDLE)
cur.execute("COMMIT TRANSACTION")
cur.execute("SELECT COUNT(*) FROM dbo.t"); print(cur.fetchall())
print('cancels', len(cancels))
"#,
    ) else {
        return;
    };
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "rowcount 1 idle True", "{out}");
    assert_eq!(lines[4], "rowcount 1 idle True", "{out}");
    assert_eq!(lines[5], "[(5,)]", "{out}");
    assert_eq!(lines[6], "cancels 0", "{out}");
}
