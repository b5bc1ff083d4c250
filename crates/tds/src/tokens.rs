//! Non-row tokens of the server's token stream ([MS-TDS] 2.2.7): LOGINACK, ENVCHANGE, INFO,
//! ERROR, DONE / DONEPROC / DONEINPROC, RETURNSTATUS, FEATUREEXTACK. Writers append to a
//! payload buffer; `decode` reads them back (clients, tests). COLMETADATA / ROW / NBCROW /
//! RETURNVALUE are in `rows`.

use crate::error::{TdsError, TdsResult};
use crate::login7::{ucs2_decode, ucs2_encode};

/// Token type bytes.
pub mod token {
    pub const RETURNSTATUS: u8 = 0x79;
    pub const COLMETADATA: u8 = 0x81;
    pub const ORDER: u8 = 0xA9;
    pub const ERROR: u8 = 0xAA;
    pub const INFO: u8 = 0xAB;
    pub const RETURNVALUE: u8 = 0xAC;
    pub const LOGINACK: u8 = 0xAD;
    pub const FEATUREEXTACK: u8 = 0xAE;
    pub const ROW: u8 = 0xD1;
    pub const NBCROW: u8 = 0xD2;
    pub const ENVCHANGE: u8 = 0xE3;
    pub const DONE: u8 = 0xFD;
    pub const DONEPROC: u8 = 0xFE;
    pub const DONEINPROC: u8 = 0xFF;
}

/// DONE status bits.
pub mod done_status {
    pub const FINAL: u16 = 0x0000;
    pub const MORE: u16 = 0x0001;
    pub const ERROR: u16 = 0x0002;
    pub const INXACT: u16 = 0x0004;
    pub const COUNT: u16 = 0x0010;
    pub const ATTN: u16 = 0x0020;
    pub const SRVERROR: u16 = 0x0100;
}

/// DONE CurCmd values for the statements latchkey reports.
pub mod cur_cmd {
    pub const NONE: u16 = 0x00;
    pub const SELECT: u16 = 0xC1;
    pub const INSERT: u16 = 0xC3;
    pub const DELETE: u16 = 0xC4;
    pub const UPDATE: u16 = 0xC5;
    pub const EXECUTE: u16 = 0xE0;
}

/// ENVCHANGE types.
pub mod env_type {
    pub const DATABASE: u8 = 1;
    pub const LANGUAGE: u8 = 2;
    pub const CHARSET: u8 = 3;
    pub const PACKET_SIZE: u8 = 4;
    pub const SQL_COLLATION: u8 = 7;
    pub const BEGIN_TRANSACTION: u8 = 8;
    pub const COMMIT_TRANSACTION: u8 = 9;
    pub const ROLLBACK_TRANSACTION: u8 = 10;
    pub const TRANSACTION_ENDED: u8 = 17;
    pub const RESET_CONNECTION_ACK: u8 = 18;
}

/// LOGINACK interface value for T-SQL.
pub const INTERFACE_TSQL: u8 = 1;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EnvChange {
    Database {
        new: String,
        old: String,
    },
    Language {
        new: String,
        old: String,
    },
    CharSet {
        new: String,
        old: String,
    },
    PacketSize {
        new: u32,
        old: u32,
    },
    /// The 5 collation bytes (new, old; empty when absent).
    SqlCollation {
        new: Vec<u8>,
        old: Vec<u8>,
    },
    BeginTransaction(u64),
    CommitTransaction(u64),
    RollbackTransaction(u64),
    TransactionEnded(u64),
    ResetConnectionAck,
}

/// An INFO or ERROR message.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MessageToken {
    pub number: i32,
    pub state: u8,
    /// Severity.
    pub class: u8,
    pub text: String,
    pub server: String,
    pub procedure: String,
    pub line: i32,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Done {
    pub status: u16,
    pub cur_cmd: u16,
    pub row_count: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoginAck {
    pub interface: u8,
    pub tds_version: u32,
    pub prog_name: String,
    /// Major, minor, build high, build low.
    pub prog_version: [u8; 4],
}

/// A decoded non-row token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Token {
    LoginAck(LoginAck),
    EnvChange(EnvChange),
    Info(MessageToken),
    Error(MessageToken),
    /// (token byte: DONE, DONEPROC or DONEINPROC, its content)
    Done(u8, Done),
    ReturnStatus(i32),
    FeatureExtAck(Vec<(u8, Vec<u8>)>),
}

fn put_b_varchar(s: &str, out: &mut Vec<u8>) {
    let mut v = Vec::new();
    ucs2_encode(s, &mut v);
    let n = (v.len() / 2).min(255);
    out.push(n as u8);
    out.extend_from_slice(&v[..n * 2]);
}

fn put_us_varchar(s: &str, out: &mut Vec<u8>) {
    let mut v = Vec::new();
    ucs2_encode(s, &mut v);
    let n = (v.len() / 2).min(u16::MAX as usize);
    out.extend_from_slice(&(n as u16).to_le_bytes());
    out.extend_from_slice(&v[..n * 2]);
}

fn put_b_varbyte(b: &[u8], out: &mut Vec<u8>) {
    out.push(b.len() as u8);
    out.extend_from_slice(b);
}

/// Appends a token with a u16 length prefix: `body` writes the content.
fn with_len(out: &mut Vec<u8>, tok: u8, body: impl FnOnce(&mut Vec<u8>)) {
    out.push(tok);
    let at = out.len();
    out.extend_from_slice(&[0, 0]);
    body(out);
    let len = (out.len() - at - 2).min(u16::MAX as usize) as u16;
    out[at..at + 2].copy_from_slice(&len.to_le_bytes());
}

pub fn login_ack(out: &mut Vec<u8>, ack: &LoginAck) {
    with_len(out, token::LOGINACK, |o| {
        o.push(ack.interface);
        o.extend_from_slice(&ack.tds_version.to_be_bytes());
        put_b_varchar(&ack.prog_name, o);
        o.extend_from_slice(&ack.prog_version);
    });
}

pub fn env_change(out: &mut Vec<u8>, e: &EnvChange) {
    with_len(out, token::ENVCHANGE, |o| match e {
        EnvChange::Database { new, old } => {
            o.push(env_type::DATABASE);
            put_b_varchar(new, o);
            put_b_varchar(old, o);
        }
        EnvChange::Language { new, old } => {
            o.push(env_type::LANGUAGE);
            put_b_varchar(new, o);
            put_b_varchar(old, o);
        }
        EnvChange::CharSet { new, old } => {
            o.push(env_type::CHARSET);
            put_b_varchar(new, o);
            put_b_varchar(old, o);
        }
        EnvChange::PacketSize { new, old } => {
            o.push(env_type::PACKET_SIZE);
            put_b_varchar(&new.to_string(), o);
            put_b_varchar(&old.to_string(), o);
        }
        EnvChange::SqlCollation { new, old } => {
            o.push(env_type::SQL_COLLATION);
            put_b_varbyte(new, o);
            put_b_varbyte(old, o);
        }
        EnvChange::BeginTransaction(d) => {
            o.push(env_type::BEGIN_TRANSACTION);
            put_b_varbyte(&d.to_le_bytes(), o);
            o.push(0);
        }
        EnvChange::CommitTransaction(d)
        | EnvChange::RollbackTransaction(d)
        | EnvChange::TransactionEnded(d) => {
            o.push(match e {
                EnvChange::CommitTransaction(_) => env_type::COMMIT_TRANSACTION,
                EnvChange::RollbackTransaction(_) => env_type::ROLLBACK_TRANSACTION,
                _ => env_type::TRANSACTION_ENDED,
            });
            o.push(0);
            put_b_varbyte(&d.to_le_bytes(), o);
        }
        EnvChange::ResetConnectionAck => {
            o.push(env_type::RESET_CONNECTION_ACK);
            o.push(0);
            o.push(0);
        }
    });
}

fn message_token(out: &mut Vec<u8>, tok: u8, m: &MessageToken) {
    with_len(out, tok, |o| {
        o.extend_from_slice(&m.number.to_le_bytes());
        o.push(m.state);
        o.push(m.class);
        put_us_varchar(&m.text, o);
        put_b_varchar(&m.server, o);
        put_b_varchar(&m.procedure, o);
        o.extend_from_slice(&m.line.to_le_bytes());
    });
}

pub fn info(out: &mut Vec<u8>, m: &MessageToken) {
    message_token(out, token::INFO, m);
}

pub fn error(out: &mut Vec<u8>, m: &MessageToken) {
    message_token(out, token::ERROR, m);
}

/// DONE, DONEPROC or DONEINPROC (`tok`).
pub fn done(out: &mut Vec<u8>, tok: u8, d: &Done) {
    out.push(tok);
    out.extend_from_slice(&d.status.to_le_bytes());
    out.extend_from_slice(&d.cur_cmd.to_le_bytes());
    out.extend_from_slice(&d.row_count.to_le_bytes());
}

pub fn return_status(out: &mut Vec<u8>, status: i32) {
    out.push(token::RETURNSTATUS);
    out.extend_from_slice(&status.to_le_bytes());
}

pub fn feature_ext_ack(out: &mut Vec<u8>, features: &[(u8, Vec<u8>)]) {
    out.push(token::FEATUREEXTACK);
    for (id, data) in features {
        out.push(*id);
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        out.extend_from_slice(data);
    }
    out.push(crate::login7::feature::TERMINATOR);
}

struct Cursor<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> TdsResult<&'a [u8]> {
        let s = self
            .b
            .get(self.pos..self.pos.saturating_add(n))
            .ok_or(TdsError::Truncated("token"))?;
        self.pos += n;
        Ok(s)
    }
    fn u8(&mut self) -> TdsResult<u8> {
        Ok(self.take(1)?[0])
    }
    fn u16(&mut self) -> TdsResult<u16> {
        let s = self.take(2)?;
        Ok(u16::from_le_bytes([s[0], s[1]]))
    }
    fn u32(&mut self) -> TdsResult<u32> {
        let s = self.take(4)?;
        Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    }
    fn u64(&mut self) -> TdsResult<u64> {
        let s = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(s);
        Ok(u64::from_le_bytes(a))
    }
    fn b_varchar(&mut self) -> TdsResult<String> {
        let n = self.u8()? as usize;
        ucs2_decode(self.take(n * 2)?)
    }
    fn us_varchar(&mut self) -> TdsResult<String> {
        let n = self.u16()? as usize;
        ucs2_decode(self.take(n * 2)?)
    }
    fn b_varbyte(&mut self) -> TdsResult<Vec<u8>> {
        let n = self.u8()? as usize;
        Ok(self.take(n)?.to_vec())
    }
}

fn descriptor(b: &[u8]) -> TdsResult<u64> {
    let a: [u8; 8] = b
        .try_into()
        .map_err(|_| TdsError::Malformed("transaction descriptor length".into()))?;
    Ok(u64::from_le_bytes(a))
}

/// Decodes the non-row token at `b[pos..]`; returns it and the position after it. `Ok(None)`
/// for a token type this module does not own (row tokens: see `rows`).
pub fn decode(b: &[u8], pos: usize) -> TdsResult<Option<(Token, usize)>> {
    let mut c = Cursor { b, pos };
    let tok = c.u8()?;
    let t = match tok {
        token::DONE | token::DONEPROC | token::DONEINPROC => Token::Done(
            tok,
            Done {
                status: c.u16()?,
                cur_cmd: c.u16()?,
                row_count: c.u64()?,
            },
        ),
        token::RETURNSTATUS => Token::ReturnStatus(c.u32()? as i32),
        token::FEATUREEXTACK => {
            let mut v = Vec::new();
            loop {
                let id = c.u8()?;
                if id == crate::login7::feature::TERMINATOR {
                    break;
                }
                let n = c.u32()? as usize;
                v.push((id, c.take(n)?.to_vec()));
            }
            Token::FeatureExtAck(v)
        }
        token::LOGINACK | token::ENVCHANGE | token::INFO | token::ERROR => {
            let len = c.u16()? as usize;
            let body = c.take(len)?;
            let mut c2 = Cursor { b: body, pos: 0 };
            let c = &mut c2;
            match tok {
                token::LOGINACK => {
                    let interface = c.u8()?;
                    let v = c.take(4)?;
                    let tds_version = u32::from_be_bytes([v[0], v[1], v[2], v[3]]);
                    let prog_name = c.b_varchar()?;
                    let p = c.take(4)?;
                    Token::LoginAck(LoginAck {
                        interface,
                        tds_version,
                        prog_name,
                        prog_version: [p[0], p[1], p[2], p[3]],
                    })
                }
                token::ENVCHANGE => {
                    let ty = c.u8()?;
                    let e = match ty {
                        env_type::DATABASE | env_type::LANGUAGE | env_type::CHARSET => {
                            let new = c.b_varchar()?;
                            let old = c.b_varchar()?;
                            match ty {
                                env_type::DATABASE => EnvChange::Database { new, old },
                                env_type::LANGUAGE => EnvChange::Language { new, old },
                                _ => EnvChange::CharSet { new, old },
                            }
                        }
                        env_type::PACKET_SIZE => {
                            let num = |s: String| {
                                s.parse::<u32>()
                                    .map_err(|_| TdsError::Malformed(format!("packet size {s:?}")))
                            };
                            let new = num(c.b_varchar()?)?;
                            let old = c.b_varchar()?;
                            EnvChange::PacketSize {
                                new,
                                old: if old.is_empty() { 0 } else { num(old)? },
                            }
                        }
                        env_type::SQL_COLLATION => EnvChange::SqlCollation {
                            new: c.b_varbyte()?,
                            old: c.b_varbyte()?,
                        },
                        env_type::BEGIN_TRANSACTION => {
                            let d = descriptor(&c.b_varbyte()?)?;
                            c.b_varbyte()?;
                            EnvChange::BeginTransaction(d)
                        }
                        env_type::COMMIT_TRANSACTION
                        | env_type::ROLLBACK_TRANSACTION
                        | env_type::TRANSACTION_ENDED => {
                            c.b_varbyte()?;
                            let d = descriptor(&c.b_varbyte()?)?;
                            match ty {
                                env_type::COMMIT_TRANSACTION => EnvChange::CommitTransaction(d),
                                env_type::ROLLBACK_TRANSACTION => EnvChange::RollbackTransaction(d),
                                _ => EnvChange::TransactionEnded(d),
                            }
                        }
                        env_type::RESET_CONNECTION_ACK => EnvChange::ResetConnectionAck,
                        other => {
                            return Err(TdsError::Unsupported(format!("ENVCHANGE type {other}")))
                        }
                    };
                    Token::EnvChange(e)
                }
                _ => {
                    let m = MessageToken {
                        number: c.u32()? as i32,
                        state: c.u8()?,
                        class: c.u8()?,
                        text: c.us_varchar()?,
                        server: c.b_varchar()?,
                        procedure: c.b_varchar()?,
                        line: c.u32()? as i32,
                    };
                    if tok == token::INFO {
                        Token::Info(m)
                    } else {
                        Token::Error(m)
                    }
                }
            }
        }
        _ => return Ok(None),
    };
    Ok(Some((t, c.pos)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(bytes: &[u8], want: Token) {
        let (t, end) = decode(bytes, 0).unwrap().unwrap();
        assert_eq!(t, want);
        assert_eq!(end, bytes.len());
        for cut in 0..bytes.len() {
            assert!(decode(&bytes[..cut], 0).is_err(), "cut at {cut}");
        }
    }

    #[test]
    fn done_is_byte_exact() {
        let mut out = Vec::new();
        let d = Done {
            status: done_status::COUNT | done_status::MORE,
            cur_cmd: cur_cmd::SELECT,
            row_count: 3,
        };
        done(&mut out, token::DONE, &d);
        // [MS-TDS] 2.2.7.6: FD, Status (2), CurCmd (2), DoneRowCount (8).
        assert_eq!(out, [0xFD, 0x11, 0x00, 0xC1, 0x00, 3, 0, 0, 0, 0, 0, 0, 0]);
        round_trip(&out, Token::Done(token::DONE, d));
    }

    #[test]
    fn loginack_is_byte_exact() {
        let mut out = Vec::new();
        let ack = LoginAck {
            interface: INTERFACE_TSQL,
            tds_version: 0x7400_0004,
            prog_name: "SQL".into(),
            prog_version: [16, 0, 0x10, 0x00],
        };
        login_ack(&mut out, &ack);
        assert_eq!(
            out,
            [
                0xAD, 0x10, 0x00, 0x01, 0x74, 0x00, 0x00, 0x04, 0x03, b'S', 0, b'Q', 0, b'L', 0,
                16, 0, 0x10, 0
            ]
        );
        round_trip(&out, Token::LoginAck(ack));
    }

    #[test]
    fn envchange_database_is_byte_exact() {
        let mut out = Vec::new();
        let e = EnvChange::Database {
            new: "db".into(),
            old: "m".into(),
        };
        env_change(&mut out, &e);
        assert_eq!(
            out,
            [0xE3, 0x09, 0x00, 0x01, 0x02, b'd', 0, b'b', 0, 0x01, b'm', 0]
        );
        round_trip(&out, Token::EnvChange(e));
    }

    #[test]
    fn envchange_transactions_and_others_round_trip() {
        for e in [
            EnvChange::BeginTransaction(0x1122),
            EnvChange::CommitTransaction(7),
            EnvChange::RollbackTransaction(8),
            EnvChange::TransactionEnded(9),
            EnvChange::ResetConnectionAck,
            EnvChange::PacketSize {
                new: 8000,
                old: 4096,
            },
            EnvChange::Language {
                new: "us_english".into(),
                old: String::new(),
            },
            EnvChange::SqlCollation {
                new: vec![0x09, 0x04, 0xD0, 0x00, 0x34],
                old: vec![],
            },
        ] {
            let mut out = Vec::new();
            env_change(&mut out, &e);
            round_trip(&out, Token::EnvChange(e));
        }
        let mut out = Vec::new();
        env_change(&mut out, &EnvChange::BeginTransaction(1));
        // type 8, new = 8-byte descriptor, old = empty.
        assert_eq!(&out[3..6], &[0x08, 0x08, 0x01]);
        assert_eq!(*out.last().unwrap(), 0);
    }

    #[test]
    fn error_and_info_round_trip() {
        let m = MessageToken {
            number: 208,
            state: 1,
            class: 16,
            text: "Invalid object name 'nope'.".into(),
            server: "latchkey".into(),
            procedure: "p".into(),
            line: 3,
        };
        let mut out = Vec::new();
        error(&mut out, &m);
        assert_eq!(&out[..1], &[0xAA]);
        assert_eq!(&out[3..9], &[208, 0, 0, 0, 1, 16]);
        round_trip(&out, Token::Error(m.clone()));
        let mut out = Vec::new();
        info(&mut out, &m);
        round_trip(&out, Token::Info(m));
    }

    #[test]
    fn return_status_and_feature_ack_round_trip() {
        let mut out = Vec::new();
        return_status(&mut out, -4);
        assert_eq!(out, [0x79, 0xFC, 0xFF, 0xFF, 0xFF]);
        round_trip(&out, Token::ReturnStatus(-4));
        let mut out = Vec::new();
        feature_ext_ack(&mut out, &[(0x0A, vec![1])]);
        assert_eq!(out, [0xAE, 0x0A, 1, 0, 0, 0, 1, 0xFF]);
        round_trip(&out, Token::FeatureExtAck(vec![(0x0A, vec![1])]));
    }
}
