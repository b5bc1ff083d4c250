//! The protocol at the byte level with the `tds` codec as the client: LOGIN7 as the first packet
//! (jTDS), packet-size negotiation, the reset-connection bit, prepared statements over RPC,
//! transaction-manager requests with their descriptors, and a zero-length attention.

mod support;

use std::io::Write;
use std::net::TcpStream;

use support::{TestServer, SA_PASSWORD};
use tds::batch::{AllHeaders, SqlBatch, TmMessage, TmRequest};
use tds::login7::{Login7, TDS74};
use tds::packet::{self, ptype, status, Assembled, MessageReader};
use tds::rows::{self, ColumnMeta};
use tds::rpc::{proc_id, RpcParam, RpcProc, RpcRequest};
use tds::tokens::{self, done_status, token, EnvChange, Token};
use tds::types::TypeInfo;
use types::{DataType, Value};

#[derive(Debug)]
enum Item {
    Token(Token),
    Columns,
    Row(Vec<Value>),
    ReturnValue(u16, Value),
}

struct Client {
    sock: TcpStream,
    packet_size: usize,
    descriptor: u64,
    /// Largest packet seen in responses.
    largest_packet: usize,
}

impl Client {
    fn send(&mut self, ty: u8, st: u8, payload: &[u8]) {
        let m = packet::encode_message(ty, st, payload, self.packet_size);
        self.sock.write_all(&m).unwrap();
    }

    fn response(&mut self) -> Vec<Item> {
        let mut asm = MessageReader::new(64 << 20);
        let msg = loop {
            let (h, p) = packet::read_packet(&mut self.sock, 32767)
                .unwrap()
                .expect("eof");
            self.largest_packet = self.largest_packet.max(h.length as usize);
            if let Assembled::Message(m) = asm.push(&h, &p).unwrap() {
                break m;
            }
        };
        let b = &msg.payload[..];
        let mut pos = 0;
        let mut cols: Vec<ColumnMeta> = Vec::new();
        let mut items = Vec::new();
        while pos < b.len() {
            let mut rest = &b[pos + 1..];
            let before = rest.len();
            match b[pos] {
                token::COLMETADATA => {
                    cols = rows::read_colmetadata(&mut rest).unwrap();
                    items.push(Item::Columns);
                }
                token::ROW => items.push(Item::Row(rows::read_row(&mut rest, &cols).unwrap())),
                token::NBCROW => {
                    items.push(Item::Row(rows::read_nbcrow(&mut rest, &cols).unwrap()))
                }
                token::RETURNVALUE => {
                    let r = rows::read_returnvalue(&mut rest).unwrap();
                    items.push(Item::ReturnValue(r.ordinal, r.value));
                }
                _ => {
                    let (t, end) = tokens::decode(b, pos).unwrap().expect("known token");
                    if let Token::EnvChange(EnvChange::BeginTransaction(d)) = &t {
                        self.descriptor = *d;
                    }
                    if let Token::EnvChange(EnvChange::PacketSize { new, .. }) = &t {
                        self.packet_size = *new as usize;
                    }
                    items.push(Item::Token(t));
                    pos = end;
                    continue;
                }
            }
            pos += 1 + before - rest.len();
        }
        items
    }

    fn batch(&mut self, text: &str, st: u8) -> Vec<Item> {
        let b = SqlBatch {
            headers: AllHeaders {
                transaction_descriptor: self.descriptor,
                outstanding_requests: 1,
            },
            text: text.into(),
        };
        self.send(ptype::SQL_BATCH, st, &b.encode());
        self.response()
    }

    fn rpc(&mut self, req: RpcRequest) -> Vec<Item> {
        let mut out = Vec::new();
        tds::batch::encode_all_headers(
            &AllHeaders {
                transaction_descriptor: self.descriptor,
                outstanding_requests: 1,
            },
            &mut out,
        );
        tds::rpc::write_rpc(&mut out, &req).unwrap();
        self.send(ptype::RPC, 0, &out);
        self.response()
    }
}

fn rows_of(items: &[Item]) -> Vec<Vec<Value>> {
    items
        .iter()
        .filter_map(|i| match i {
            Item::Row(r) => Some(r.clone()),
            _ => None,
        })
        .collect()
}

fn errors_of(items: &[Item]) -> Vec<i32> {
    items
        .iter()
        .filter_map(|i| match i {
            Item::Token(Token::Error(m)) => Some(m.number),
            _ => None,
        })
        .collect()
}

fn param(name: &str, dt: DataType, v: Value, output: bool) -> RpcParam {
    RpcParam {
        name: name.into(),
        output,
        by_default: false,
        type_info: TypeInfo::for_data_type(&dt),
        value: v,
    }
}

/// Logs in with LOGIN7 as the very first packet and a 512-byte packet size.
fn login(s: &TestServer) -> Client {
    login_with_version(s, TDS74)
}

/// [`login`] with LOGIN7's TDSVersion `version` (LOGINACK answers the same version).
fn login_with_version(s: &TestServer, version: u32) -> Client {
    let sock = TcpStream::connect(s.addr).unwrap();
    let mut c = Client {
        sock,
        packet_size: 4096,
        descriptor: 0,
        largest_packet: 0,
    };
    let l = Login7 {
        tds_version: version,
        packet_size: 512,
        user_name: "sa".into(),
        password: SA_PASSWORD.into(),
        app_name: "raw".into(),
        database: "master".into(),
        ..Default::default()
    };
    c.send(ptype::LOGIN7, 0, &l.encode());
    let items = c.response();
    assert!(
        items
            .iter()
            .any(|i| matches!(i, Item::Token(Token::LoginAck(a)) if a.tds_version == version)),
        "{items:?}"
    );
    assert_eq!(c.packet_size, 512, "ENVCHANGE packet size: {items:?}");
    c
}

#[test]
fn a_tds_7_2_login_gets_the_2008_date_types_as_nvarchar_literals() {
    let s = TestServer::start();
    let query = "SELECT CAST('2024-02-29' AS date), CAST('13:45:10.5' AS time), \
                 CAST('2024-02-29T13:45:10.123' AS datetime2(3)), \
                 CAST('2024-02-29T13:45:10.1234567+05:30' AS datetimeoffset), \
                 CAST(NULL AS time(0)), CAST('2024-02-29T13:45:10.997' AS datetime), \
                 REPLICATE(CAST(N'x' AS nvarchar(max)), 5000)";
    // TDS 7.2 (SQL Server 2005) has no DATEN/TIMEN/DATETIME2N/DATETIMEOFFSETN: the values
    // come as NVARCHAR holding their literals; datetime and the max types are unchanged
    let mut old = login_with_version(&s, 0x7209_0002);
    let rows = rows_of(&old.batch(query, 0));
    let text = |t: &str| Value::NVarChar(t.into());
    assert_eq!(rows.len(), 1);
    assert_eq!(
        rows[0][..5],
        [
            text("2024-02-29"),
            text("13:45:10.5000000"),
            text("2024-02-29 13:45:10.123"),
            text("2024-02-29 13:45:10.1234567 +05:30"),
            Value::Null,
        ]
    );
    assert!(
        matches!(rows[0][5], Value::DateTime { .. }),
        "{:?}",
        rows[0][5]
    );
    assert_eq!(rows[0][6], text(&"x".repeat(5000)));
    // TDS 7.3 and later get the types themselves
    let mut new = login(&s);
    let rows = rows_of(&new.batch(query, 0));
    assert!(matches!(rows[0][0], Value::Date(_)), "{:?}", rows[0][0]);
    assert!(
        matches!(rows[0][3], Value::DateTimeOffset { .. }),
        "{:?}",
        rows[0][3]
    );
}

#[test]
fn login7_first_packet_size_and_streamed_rows() {
    let s = TestServer::start();
    let mut c = login(&s);
    let items = c.batch(
        "SELECT TOP 300 CAST(value AS int) AS v, REPLICATE('x', 40) AS pad FROM GENERATE_SERIES(1, 300)",
        0,
    );
    let rows = rows_of(&items);
    assert_eq!(rows.len(), 300, "{:?}", errors_of(&items));
    assert_eq!(rows[299][0], Value::Int(300));
    assert!(
        c.largest_packet <= 512,
        "packets of the negotiated size: {}",
        c.largest_packet
    );
    // The final DONE has no MORE bit and the row count of the SELECT is on a DONE with COUNT.
    let dones: Vec<_> = items
        .iter()
        .filter_map(|i| match i {
            Item::Token(Token::Done(token::DONE, d)) => Some(*d),
            _ => None,
        })
        .collect();
    assert!(dones
        .iter()
        .any(|d| d.status & done_status::COUNT != 0 && d.row_count == 300));
    assert_eq!(dones.last().unwrap().status & done_status::MORE, 0);
}

#[test]
fn reset_connection_drops_temp_tables_and_restores_options_and_database() {
    let s = TestServer::start();
    let mut c = login(&s);
    let items = c.batch(
        "CREATE DATABASE other; CREATE TABLE #t (a int); SET NOCOUNT ON; USE other",
        0,
    );
    assert!(errors_of(&items).is_empty(), "{items:?}");
    assert!(
        items.iter().any(|i| matches!(i, Item::Token(Token::EnvChange(EnvChange::Database { new, .. })) if new == "other")),
        "ENVCHANGE database after USE: {items:?}"
    );
    let items = c.batch(
        "SELECT OBJECT_ID('tempdb..#t'), DB_NAME(), @@OPTIONS & 512",
        status::RESET_CONNECTION,
    );
    assert!(
        matches!(
            items.first(),
            Some(Item::Token(Token::EnvChange(EnvChange::ResetConnectionAck)))
        ),
        "{items:?}"
    );
    assert_eq!(
        rows_of(&items),
        vec![vec![
            Value::Null,
            Value::NVarChar("master".into()),
            Value::Int(0)
        ]]
    );
}

#[test]
fn sp_executesql_takes_its_statement_and_declarations_by_position() {
    // tiberius names them "stmt" and "params", without the @: SQL Server runs the call
    let s = TestServer::start();
    let mut c = login(&s);
    let items = c.rpc(RpcRequest {
        proc: RpcProc::Id(proc_id::SP_EXECUTESQL),
        option_flags: 0,
        params: vec![
            param(
                "stmt",
                DataType::NVarChar(Some(100)),
                Value::NVarChar("SELECT @P1 + 1 AS v".into()),
                false,
            ),
            param(
                "params",
                DataType::NVarChar(Some(100)),
                Value::NVarChar("@P1 int".into()),
                false,
            ),
            param("@P1", DataType::Int, Value::Int(41), false),
        ],
    });
    assert!(errors_of(&items).is_empty(), "{items:?}");
    assert_eq!(rows_of(&items), vec![vec![Value::Int(42)]]);
}

#[test]
fn prepared_statements_over_rpc() {
    let s = TestServer::start();
    let mut c = login(&s);
    let items = c.rpc(RpcRequest {
        proc: RpcProc::Id(proc_id::SP_PREPARE),
        option_flags: 0,
        params: vec![
            param("@handle", DataType::Int, Value::Null, true),
            param(
                "@params",
                DataType::NVarChar(Some(100)),
                Value::NVarChar("@a int, @b int OUTPUT".into()),
                false,
            ),
            param(
                "@stmt",
                DataType::NVarChar(Some(100)),
                Value::NVarChar("SELECT @a * 2 AS d; SET @b = @a + 1".into()),
                false,
            ),
        ],
    });
    let handle = items
        .iter()
        .find_map(|i| match i {
            Item::ReturnValue(0, Value::Int(h)) => Some(*h),
            _ => None,
        })
        .unwrap_or_else(|| panic!("handle: {items:?}"));
    let items = c.rpc(RpcRequest {
        proc: RpcProc::Id(proc_id::SP_EXECUTE),
        option_flags: 0,
        params: vec![
            param("", DataType::Int, Value::Int(handle), false),
            param("", DataType::Int, Value::Int(20), false),
            param("", DataType::Int, Value::Null, true),
        ],
    });
    assert_eq!(rows_of(&items), vec![vec![Value::Int(40)]], "{items:?}");
    assert!(
        items
            .iter()
            .any(|i| matches!(i, Item::ReturnValue(2, Value::Int(21)))),
        "OUTPUT value as RETURNVALUE: {items:?}"
    );
    assert!(items
        .iter()
        .any(|i| matches!(i, Item::Token(Token::ReturnStatus(0)))));
    assert!(matches!(
        items.last(),
        Some(Item::Token(Token::Done(token::DONEPROC, _)))
    ));
    let items = c.rpc(RpcRequest {
        proc: RpcProc::Id(proc_id::SP_UNPREPARE),
        option_flags: 0,
        params: vec![param("", DataType::Int, Value::Int(handle), false)],
    });
    assert!(errors_of(&items).is_empty());
    let items = c.rpc(RpcRequest {
        proc: RpcProc::Id(proc_id::SP_EXECUTE),
        option_flags: 0,
        params: vec![param("", DataType::Int, Value::Int(handle), false)],
    });
    assert_eq!(errors_of(&items), vec![8179]);
}

#[test]
fn transaction_manager_requests_carry_descriptors() {
    let s = TestServer::start();
    let mut c = login(&s);
    c.batch("CREATE TABLE t (a int)", 0);
    let tm = |c: &mut Client, r: TmRequest| {
        let m = TmMessage {
            headers: AllHeaders {
                transaction_descriptor: c.descriptor,
                outstanding_requests: 1,
            },
            request: r,
        };
        c.send(ptype::TRANSACTION_MANAGER, 0, &m.encode());
        c.response()
    };
    let items = tm(
        &mut c,
        TmRequest::Begin {
            isolation: 0,
            name: String::new(),
        },
    );
    assert!(c.descriptor != 0, "{items:?}");
    let d = c.descriptor;
    c.batch(
        "INSERT t VALUES (1); SAVE TRANSACTION s; INSERT t VALUES (2)",
        0,
    );
    let items = tm(
        &mut c,
        TmRequest::Rollback {
            name: "s".into(),
            begin_new: None,
        },
    );
    assert!(errors_of(&items).is_empty(), "{items:?}");
    let items = tm(
        &mut c,
        TmRequest::Commit {
            name: String::new(),
            begin_new: None,
        },
    );
    assert!(
        items.iter().any(|i| matches!(i, Item::Token(Token::EnvChange(EnvChange::CommitTransaction(x))) if *x == d)),
        "{items:?}"
    );
    let items = c.batch("SELECT COUNT(*), @@TRANCOUNT FROM t", 0);
    assert_eq!(rows_of(&items), vec![vec![Value::Int(1), Value::Int(0)]]);
}

#[test]
fn zero_length_attention_while_idle_is_answered_with_done_attn() {
    let s = TestServer::start();
    let mut c = login(&s);
    c.send(ptype::ATTENTION, 0, &[]);
    let items = c.response();
    assert!(
        matches!(items.as_slice(), [Item::Token(Token::Done(token::DONE, d))] if d.status & done_status::ATTN != 0),
        "{items:?}"
    );
    let items = c.batch("SELECT 7", 0);
    assert_eq!(rows_of(&items), vec![vec![Value::Int(7)]]);
}

#[test]
fn attention_while_rows_stream_ends_the_result_with_done_attn() {
    let s = TestServer::start();
    let mut c = login(&s);
    let b = SqlBatch {
        headers: AllHeaders::default(),
        text: "SELECT a.value * 100000 + b.value FROM GENERATE_SERIES(1, 100000) a CROSS JOIN GENERATE_SERIES(1, 100000) b"
            .into(),
    };
    c.send(ptype::SQL_BATCH, 0, &b.encode());
    // The first packet of the streamed result arrives before the query is anywhere near done.
    let (h, _) = packet::read_packet(&mut c.sock, 32767).unwrap().unwrap();
    assert_eq!(h.status & status::EOM, 0, "rows stream in packets");
    c.send(ptype::ATTENTION, 0, &[]);
    let mut last = Vec::new();
    let started = std::time::Instant::now();
    loop {
        let (h, p) = packet::read_packet(&mut c.sock, 32767).unwrap().unwrap();
        last = [last, p].concat();
        if last.len() > 64 {
            last.drain(..last.len() - 64);
        }
        if h.status & status::EOM != 0 {
            break;
        }
    }
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    // The result ends with a plain DONE; the acknowledgement follows as its own message.
    let done = &last[last.len() - 13..];
    assert_eq!(done[0], token::DONE);
    let ack = raw_response_within(&mut c, std::time::Duration::from_secs(5));
    assert_eq!(ack[0], token::DONE, "{ack:?}");
    let st = u16::from_le_bytes([ack[1], ack[2]]);
    assert_ne!(st & done_status::ATTN, 0, "{ack:?}");
    let items = c.batch("SELECT 7", 0);
    assert_eq!(rows_of(&items), vec![vec![Value::Int(7)]]);
}

#[test]
fn login_to_a_missing_database_is_4060_then_18456() {
    let s = TestServer::start();
    let sock = TcpStream::connect(s.addr).unwrap();
    let mut c = Client {
        sock,
        packet_size: 4096,
        descriptor: 0,
        largest_packet: 0,
    };
    let l = Login7 {
        tds_version: TDS74,
        packet_size: 4096,
        user_name: "sa".into(),
        password: SA_PASSWORD.into(),
        database: "nosuchdb".into(),
        ..Default::default()
    };
    c.send(ptype::LOGIN7, 0, &l.encode());
    let items = c.response();
    assert_eq!(errors_of(&items), vec![4060, 18456], "{items:?}");
    assert!(!items
        .iter()
        .any(|i| matches!(i, Item::Token(Token::LoginAck(_)))));
}

/// Reads one whole response message as raw token bytes, failing after `limit`.
fn raw_response_within(c: &mut Client, limit: std::time::Duration) -> Vec<u8> {
    c.sock.set_read_timeout(Some(limit)).unwrap();
    let mut all = Vec::new();
    loop {
        let (h, p) = packet::read_packet(&mut c.sock, 32767)
            .unwrap()
            .expect("eof");
        all.extend_from_slice(&p);
        if h.status & status::EOM != 0 {
            break;
        }
    }
    c.sock.set_read_timeout(None).unwrap();
    all
}

fn send_executesql(c: &mut Client, text: &str) {
    let mut out = Vec::new();
    tds::batch::encode_all_headers(
        &AllHeaders {
            transaction_descriptor: c.descriptor,
            outstanding_requests: 1,
        },
        &mut out,
    );
    let req = RpcRequest {
        proc: RpcProc::Id(proc_id::SP_EXECUTESQL),
        option_flags: 0,
        params: vec![param(
            "@stmt",
            DataType::NVarChar(Some(100)),
            Value::NVarChar(text.into()),
            false,
        )],
    };
    tds::rpc::write_rpc(&mut out, &req).unwrap();
    c.send(ptype::RPC, 0, &out);
}

/// The acknowledgement of an attention is a message of its own holding one DONE with ATTN,
/// after the cancelled request's response (tedious reads it from the next message).
fn assert_response_then_done_attn(c: &mut Client) {
    let limit = std::time::Duration::from_secs(5);
    let first = raw_response_within(c, limit);
    assert!(first.len() >= 13, "{first:?}");
    let done = &first[first.len() - 13..];
    assert!(
        done[0] == token::DONE || done[0] == token::DONEPROC,
        "{first:?}"
    );
    let st = u16::from_le_bytes([done[1], done[2]]);
    assert_eq!(st & done_status::ATTN, 0, "ATTN only in the ack: {done:?}");
    let ack = raw_response_within(c, limit);
    assert_eq!(ack.len(), 13, "{ack:?}");
    assert_eq!(ack[0], token::DONE, "{ack:?}");
    let st = u16::from_le_bytes([ack[1], ack[2]]);
    assert_ne!(st & done_status::ATTN, 0, "{ack:?}");
}

#[test]
fn attention_during_rpc_waitfor_is_answered_with_done_attn() {
    let s = TestServer::start();
    let mut c = login(&s);
    send_executesql(&mut c, "WAITFOR DELAY '00:00:30'");
    std::thread::sleep(std::time::Duration::from_millis(300));
    c.send(ptype::ATTENTION, 0, &[]);
    assert_response_then_done_attn(&mut c);
    let items = c.batch("SELECT 7", 0);
    assert_eq!(rows_of(&items), vec![vec![Value::Int(7)]]);
}

#[test]
fn attention_sent_right_behind_an_rpc_cancels_it() {
    let s = TestServer::start();
    let mut c = login(&s);
    for _ in 0..5 {
        // The attention may reach the server before the request starts executing: it must
        // still cancel that request, not be forgotten until the 30 s wait is over.
        send_executesql(&mut c, "WAITFOR DELAY '00:00:30'");
        c.send(ptype::ATTENTION, 0, &[]);
        assert_response_then_done_attn(&mut c);
        let items = c.batch("SELECT 7", 0);
        assert_eq!(rows_of(&items), vec![vec![Value::Int(7)]]);
    }
}

fn tran_end_of(items: &[Item]) -> Option<&'static str> {
    items.iter().find_map(|i| match i {
        Item::Token(Token::EnvChange(EnvChange::CommitTransaction(_))) => Some("commit"),
        Item::Token(Token::EnvChange(EnvChange::RollbackTransaction(_))) => Some("rollback"),
        _ => None,
    })
}

#[test]
fn envchange_commit_or_rollback_follows_what_the_engine_did() {
    let s = TestServer::start();
    let mut c = login(&s);
    c.batch("CREATE TABLE te (a int)", 0);
    // COMMIT followed by an error in the same batch: still a commit.
    c.batch("BEGIN TRAN; INSERT te VALUES (1)", 0);
    let items = c.batch("COMMIT; SELECT 1/0", 0);
    assert_eq!(errors_of(&items), vec![8134]);
    assert_eq!(tran_end_of(&items), Some("commit"), "{items:?}");
    // The word "rollback" in a batch that commits.
    c.batch("BEGIN TRAN; INSERT te VALUES (2)", 0);
    let items = c.batch("IF 1 = 0 PRINT 'rollback'; COMMIT", 0);
    assert_eq!(tran_end_of(&items), Some("commit"), "{items:?}");
    // A rollback by XACT_ABORT, no ROLLBACK in the text.
    c.batch("SET XACT_ABORT ON; BEGIN TRAN; INSERT te VALUES (3)", 0);
    let items = c.batch("SELECT 1/0", 0);
    assert_eq!(tran_end_of(&items), Some("rollback"), "{items:?}");
    let items = c.batch("SET XACT_ABORT OFF; SELECT COUNT(*) FROM te", 0);
    assert_eq!(rows_of(&items), vec![vec![Value::Int(2)]]);
}

fn tran_changes_of(items: &[Item]) -> Vec<(&'static str, u64)> {
    items
        .iter()
        .filter_map(|i| match i {
            Item::Token(Token::EnvChange(EnvChange::BeginTransaction(d))) => Some(("begin", *d)),
            Item::Token(Token::EnvChange(EnvChange::CommitTransaction(d))) => Some(("commit", *d)),
            Item::Token(Token::EnvChange(EnvChange::RollbackTransaction(d))) => {
                Some(("rollback", *d))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn a_transaction_begun_and_ended_inside_one_request_sends_both_envchanges() {
    let s = TestServer::start();
    let mut c = login(&s);
    c.batch(
        "CREATE TABLE tb (a int); EXEC('CREATE PROCEDURE pb AS BEGIN TRAN; INSERT tb VALUES (9); COMMIT')",
        0,
    );
    // begin and commit in one batch: ENVCHANGE 8 then 9, same descriptor, in statement order
    let items = c.batch("BEGIN TRAN; INSERT tb VALUES (1); COMMIT; SELECT 1", 0);
    let ch = tran_changes_of(&items);
    assert_eq!(ch.len(), 2, "{items:?}");
    assert_eq!((ch[0].0, ch[1].0), ("begin", "commit"));
    assert_eq!(ch[0].1, ch[1].1);
    assert_ne!(ch[0].1, 0);
    let begin_at = items.iter().position(|i| {
        matches!(
            i,
            Item::Token(Token::EnvChange(EnvChange::BeginTransaction(_)))
        )
    });
    let first_row = items.iter().position(|i| matches!(i, Item::Row(_)));
    assert!(
        begin_at < first_row,
        "the ENVCHANGEs come where the statements ran: {items:?}"
    );
    // two transactions in one batch: two pairs with distinct descriptors
    let items = c.batch(
        "BEGIN TRAN; INSERT tb VALUES (2); ROLLBACK; BEGIN TRAN; INSERT tb VALUES (3); COMMIT",
        0,
    );
    let ch = tran_changes_of(&items);
    let kinds: Vec<&str> = ch.iter().map(|c| c.0).collect();
    assert_eq!(
        kinds,
        vec!["begin", "rollback", "begin", "commit"],
        "{items:?}"
    );
    assert_ne!(ch[0].1, ch[2].1);
    // inside a procedure: still reported
    let items = c.batch("EXEC pb", 0);
    let kinds: Vec<&str> = tran_changes_of(&items).iter().map(|c| c.0).collect();
    assert_eq!(kinds, vec!["begin", "commit"], "{items:?}");
    // a transaction left open: begin only, then its commit in the next batch
    let items = c.batch("BEGIN TRAN; INSERT tb VALUES (4)", 0);
    let open = tran_changes_of(&items);
    assert_eq!(open.len(), 1);
    let items = c.batch("COMMIT", 0);
    assert_eq!(tran_changes_of(&items), vec![("commit", open[0].1)]);
    // 1, 3, 9 (the procedure's) and 4; 2 was rolled back
    let items = c.batch("SELECT COUNT(*) FROM tb", 0);
    assert_eq!(rows_of(&items), vec![vec![Value::Int(4)]]);
}

#[test]
fn a_trigger_on_an_autocommit_statement_sends_no_transaction_envchange() {
    let s = TestServer::start();
    let mut c = login(&s);
    c.batch(
        "CREATE TABLE tt (a int); CREATE TABLE tlog (a int); \
         EXEC('CREATE TRIGGER trg ON tt AFTER INSERT AS INSERT tlog SELECT a FROM inserted')",
        0,
    );
    // @@TRANCOUNT is 1 inside the trigger, but that is the statement's own transaction
    let items = c.batch("INSERT tt VALUES (1); SELECT COUNT(*) FROM tlog", 0);
    assert_eq!(tran_changes_of(&items), vec![], "{items:?}");
    assert_eq!(rows_of(&items), vec![vec![Value::Int(1)]]);
    // a trigger that rolls back the client's transaction: begin, then its rollback
    c.batch(
        "EXEC('CREATE TRIGGER trg2 ON tlog AFTER INSERT AS IF EXISTS (SELECT * FROM inserted WHERE a = 2) ROLLBACK')",
        0,
    );
    let items = c.batch("BEGIN TRAN; INSERT tt VALUES (2)", 0);
    let kinds: Vec<&str> = tran_changes_of(&items).iter().map(|c| c.0).collect();
    assert_eq!(kinds, vec!["begin", "rollback"], "{items:?}");
}

/// Issue 11 acceptance 6: a malformed packet or message from one logged-in client closes that
/// client's connection only. Another session, in the middle of a transaction holding a
/// #temp table, goes on as if nothing happened, and new clients still log in.
#[test]
fn a_malformed_packet_after_login_closes_only_its_own_connection() {
    use std::io::Read;
    let s = TestServer::start();
    let mut a = login(&s);
    let items = a.batch(
        "CREATE TABLE iso (k int PRIMARY KEY); CREATE TABLE #mine (x int); \
         INSERT #mine VALUES (7); BEGIN TRAN; INSERT iso VALUES (1)",
        0,
    );
    assert!(errors_of(&items).is_empty(), "{items:?}");
    let spid_a = rows_of(&a.batch("SELECT @@SPID", 0));

    let mut rpc_truncated = Vec::new();
    tds::batch::encode_all_headers(&AllHeaders::default(), &mut rpc_truncated);
    rpc_truncated.extend_from_slice(&[0x0A, 0x00, b's', 0x00]);
    let batch_start = SqlBatch {
        headers: AllHeaders::default(),
        text: "SELECT 1".into(),
    }
    .encode();
    let mut cases: Vec<(&str, Vec<u8>)> = vec![
        (
            "header length below 8",
            vec![0x01, 0x01, 0x00, 0x04, 0, 0, 1, 0],
        ),
        (
            "packet longer than the largest packet size",
            vec![0x01, 0x01, 0xFF, 0xFF, 0, 0, 1, 0, b'x', 0],
        ),
        (
            "unknown packet type",
            vec![0x55, 0x01, 0x00, 0x09, 0, 0, 1, 0, 0],
        ),
        (
            "a LOGIN7 after login",
            packet::encode_message(ptype::LOGIN7, 0, &[0u8; 40], 512),
        ),
        (
            "a truncated RPC",
            packet::encode_message(ptype::RPC, 0, &rpc_truncated, 512),
        ),
    ];
    // the packet type switches in the middle of a message: SQLBatch without EOM, then RPC
    let mut switch = packet::encode_message(ptype::SQL_BATCH, 0, &batch_start, 512);
    switch[1] &= !status::EOM;
    switch.extend(packet::encode_message(ptype::RPC, 0, &rpc_truncated, 512));
    cases.push(("the packet type switching inside a message", switch));

    for (what, bytes) in cases {
        let mut b = login(&s);
        b.sock.write_all(&bytes).unwrap();
        b.sock
            .set_read_timeout(Some(std::time::Duration::from_secs(10)))
            .unwrap();
        let mut rest = Vec::new();
        match b.sock.read_to_end(&mut rest) {
            Ok(_) => {}
            Err(e) => assert!(
                !matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ),
                "{what}: the server kept the connection open"
            ),
        }
        // the other session: same spid, its transaction and #temp table intact
        assert_eq!(rows_of(&a.batch("SELECT @@SPID", 0)), spid_a, "{what}");
        let items = a.batch(
            "SELECT @@TRANCOUNT, (SELECT COUNT(*) FROM iso), (SELECT x FROM #mine)",
            0,
        );
        assert_eq!(
            rows_of(&items),
            vec![vec![Value::Int(1), Value::Int(1), Value::Int(7)]],
            "{what}: {items:?}"
        );
    }
    let items = a.batch("COMMIT", 0);
    assert!(errors_of(&items).is_empty(), "{items:?}");
    let mut c = login(&s);
    assert_eq!(
        rows_of(&c.batch("SELECT COUNT(*) FROM iso", 0)),
        vec![vec![Value::Int(1)]]
    );
    // each closed connection left its reason in the ERRORLOG
    let log = s.errorlog();
    let closed = log
        .lines()
        .filter(|l| l.contains("connection closed:") || l.contains("closing connection:"))
        .count();
    assert!(closed >= 6, "{log}");
}

fn dones_of(items: &[Item]) -> Vec<tokens::Done> {
    items
        .iter()
        .filter_map(|i| match i {
            Item::Token(Token::Done(token::DONE, d)) => Some(*d),
            _ => None,
        })
        .collect()
}

#[test]
fn the_last_statement_done_is_the_final_done() {
    let s = TestServer::start();
    let mut c = login(&s);
    let items = c.batch("CREATE TABLE dbo.t (id int IDENTITY PRIMARY KEY, v int)", 0);
    assert!(errors_of(&items).is_empty(), "{items:?}");
    // One INSERT: one DONE, with its count and without MORE (SQL Server sends no empty DONE
    // after it; pytds stops at a DONE with MORE and COUNT and would cancel the request).
    let items = c.batch("INSERT dbo.t (v) VALUES (1)", 0);
    let dones = dones_of(&items);
    assert_eq!(dones.len(), 1, "{items:?}");
    assert_eq!(dones[0].status, done_status::COUNT, "{items:?}");
    assert_eq!(dones[0].row_count, 1);
    // Two statements: MORE on the first, the second is final with its count.
    let items = c.batch("INSERT dbo.t (v) VALUES (2); SELECT v FROM dbo.t", 0);
    let dones = dones_of(&items);
    assert_eq!(dones.len(), 2, "{items:?}");
    assert_eq!(
        dones[0].status,
        done_status::MORE | done_status::COUNT,
        "{items:?}"
    );
    assert_eq!(dones[1].status, done_status::COUNT, "{items:?}");
    assert_eq!(dones[1].row_count, 2);
    // Inside a transaction: INXACT on the final DONE, the ENVCHANGE before it.
    let items = c.batch("BEGIN TRANSACTION; INSERT dbo.t (v) VALUES (3)", 0);
    let dones = dones_of(&items);
    assert_eq!(dones.len(), 1, "{items:?}");
    assert_eq!(
        dones[0].status,
        done_status::COUNT | done_status::INXACT,
        "{items:?}"
    );
    assert_eq!(tran_changes_of(&items).len(), 1, "{items:?}");
    // COMMIT after the INSERT: the INSERT's DONE carries MORE, the ENVCHANGE follows it, and
    // the final DONE is the batch's own, outside the transaction.
    let items = c.batch("INSERT dbo.t (v) VALUES (4); COMMIT", 0);
    let dones = dones_of(&items);
    assert_eq!(dones.len(), 2, "{items:?}");
    assert_ne!(dones[0].status & done_status::MORE, 0, "{items:?}");
    assert_eq!(
        dones[1].status & (done_status::MORE | done_status::INXACT),
        0
    );
    // An error after a statement: that statement's DONE has MORE, the final DONE has ERROR.
    let items = c.batch("INSERT dbo.t (v) VALUES (5); SELECT * FROM dbo.nope", 0);
    let dones = dones_of(&items);
    assert_eq!(errors_of(&items), vec![208], "{items:?}");
    assert_ne!(dones[0].status & done_status::MORE, 0, "{items:?}");
    let last = dones.last().unwrap();
    assert_eq!(last.status & done_status::MORE, 0, "{items:?}");
    assert_ne!(last.status & done_status::ERROR, 0, "{items:?}");
}
