//! Request payloads other than RPC: ALL_HEADERS ([MS-TDS] 2.2.5.3), SQLBatch (2.2.6.7) and
//! transaction-manager requests (2.2.6.9).

use crate::error::{TdsError, TdsResult};
use crate::login7::{ucs2_decode, ucs2_encode};

/// ALL_HEADERS header types.
pub mod header {
    pub const QUERY_NOTIFICATIONS: u16 = 0x0001;
    pub const TRANSACTION_DESCRIPTOR: u16 = 0x0002;
    pub const TRACE_ACTIVITY: u16 = 0x0003;
}

/// What latchkey reads from ALL_HEADERS.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AllHeaders {
    /// The transaction descriptor the client echoes (0 outside a transaction).
    pub transaction_descriptor: u64,
    pub outstanding_requests: u32,
}

/// Parses ALL_HEADERS at the start of `b`; returns it and the bytes it took. A payload that does
/// not start with a plausible ALL_HEADERS (TDS 7.1 clients omit it) takes 0 bytes.
pub fn parse_all_headers(b: &[u8]) -> TdsResult<(AllHeaders, usize)> {
    let mut h = AllHeaders::default();
    if b.len() < 4 {
        return Ok((h, 0));
    }
    let total = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize;
    // The smallest header is 4 (length) + 2 (type): anything else means "no ALL_HEADERS"
    // (a batch text's first two UCS-2 characters make a length far larger than the payload
    // or one not covering whole headers).
    if total < 4 || total > b.len() {
        return Ok((h, 0));
    }
    let mut pos = 4;
    while pos < total {
        let rest = &b[pos..total];
        if rest.len() < 6 {
            return Err(TdsError::Malformed("ALL_HEADERS header".into()));
        }
        let len = u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
        if len < 6 || len > rest.len() {
            return Err(TdsError::Malformed(format!(
                "ALL_HEADERS header length {len}"
            )));
        }
        let ty = u16::from_le_bytes([rest[4], rest[5]]);
        let data = &rest[6..len];
        if ty == header::TRANSACTION_DESCRIPTOR {
            if data.len() < 12 {
                return Err(TdsError::Malformed("transaction descriptor header".into()));
            }
            let mut d = [0u8; 8];
            d.copy_from_slice(&data[..8]);
            h.transaction_descriptor = u64::from_le_bytes(d);
            h.outstanding_requests = u32::from_le_bytes([data[8], data[9], data[10], data[11]]);
        }
        pos += len;
    }
    Ok((h, total))
}

/// ALL_HEADERS with only the transaction descriptor header (what clients send).
pub fn encode_all_headers(h: &AllHeaders, out: &mut Vec<u8>) {
    out.extend_from_slice(&22u32.to_le_bytes());
    out.extend_from_slice(&18u32.to_le_bytes());
    out.extend_from_slice(&header::TRANSACTION_DESCRIPTOR.to_le_bytes());
    out.extend_from_slice(&h.transaction_descriptor.to_le_bytes());
    out.extend_from_slice(&h.outstanding_requests.to_le_bytes());
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SqlBatch {
    pub headers: AllHeaders,
    pub text: String,
}

impl SqlBatch {
    pub fn parse(b: &[u8]) -> TdsResult<SqlBatch> {
        let (headers, used) = parse_all_headers(b)?;
        Ok(SqlBatch {
            headers,
            text: ucs2_decode(&b[used..])?,
        })
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(22 + self.text.len() * 2);
        encode_all_headers(&self.headers, &mut out);
        ucs2_encode(&self.text, &mut out);
        out
    }
}

/// Transaction-manager request types.
pub mod tm {
    pub const GET_DTC_ADDRESS: u16 = 0;
    pub const PROPAGATE_XACT: u16 = 1;
    pub const BEGIN_XACT: u16 = 5;
    pub const PROMOTE_XACT: u16 = 6;
    pub const COMMIT_XACT: u16 = 7;
    pub const ROLLBACK_XACT: u16 = 8;
    pub const SAVE_XACT: u16 = 9;
}

/// Isolation levels as TM_BEGIN_XACT carries them (0: keep the session's).
pub mod isolation {
    pub const NO_CHANGE: u8 = 0;
    pub const READ_UNCOMMITTED: u8 = 1;
    pub const READ_COMMITTED: u8 = 2;
    pub const REPEATABLE_READ: u8 = 3;
    pub const SERIALIZABLE: u8 = 4;
    pub const SNAPSHOT: u8 = 5;
}

/// A transaction-manager request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TmRequest {
    Begin {
        isolation: u8,
        name: String,
    },
    /// Commit (or roll back) the transaction `name`; `begin_new`: start another one right after
    /// (fBeginXact) with this isolation level and name.
    Commit {
        name: String,
        begin_new: Option<(u8, String)>,
    },
    Rollback {
        name: String,
        begin_new: Option<(u8, String)>,
    },
    Save {
        name: String,
    },
    /// A distributed-transaction request latchkey does not support (the type).
    Unsupported(u16),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TmMessage {
    pub headers: AllHeaders,
    pub request: TmRequest,
}

/// A transaction name: a byte giving the length in BYTES (B_VARBYTE), then UCS-2. Not a
/// B_VARCHAR (character count): SQL Server, tedious and Microsoft's own drivers send
/// `name.len() * 2` there (fix by the clients helper: tedious' named transactions were refused
/// as "truncated B_VARCHAR").
fn b_varchar(b: &[u8], pos: &mut usize) -> TdsResult<String> {
    let n = *b.get(*pos).ok_or(TdsError::Truncated("transaction name"))? as usize;
    let s = b
        .get(*pos + 1..*pos + 1 + n)
        .ok_or(TdsError::Truncated("transaction name"))?;
    *pos += 1 + n;
    ucs2_decode(s)
}

fn put_b_varchar(s: &str, out: &mut Vec<u8>) {
    let mut v = Vec::new();
    ucs2_encode(s, &mut v);
    let n = (v.len() / 2).min(127) * 2;
    out.push(n as u8);
    out.extend_from_slice(&v[..n]);
}

impl TmMessage {
    pub fn parse(b: &[u8]) -> TdsResult<TmMessage> {
        let (headers, mut pos) = parse_all_headers(b)?;
        let t = b
            .get(pos..pos + 2)
            .ok_or(TdsError::Truncated("transaction manager request"))?;
        let ty = u16::from_le_bytes([t[0], t[1]]);
        pos += 2;
        let byte = |pos: &mut usize| -> TdsResult<u8> {
            let v = *b
                .get(*pos)
                .ok_or(TdsError::Truncated("transaction manager request"))?;
            *pos += 1;
            Ok(v)
        };
        let request = match ty {
            tm::BEGIN_XACT => {
                let isolation = byte(&mut pos)?;
                let name = b_varchar(b, &mut pos)?;
                TmRequest::Begin { isolation, name }
            }
            tm::COMMIT_XACT | tm::ROLLBACK_XACT => {
                let name = b_varchar(b, &mut pos)?;
                let flags = byte(&mut pos)?;
                let begin_new = if flags & 0x01 != 0 {
                    let iso = byte(&mut pos)?;
                    Some((iso, b_varchar(b, &mut pos)?))
                } else {
                    None
                };
                if ty == tm::COMMIT_XACT {
                    TmRequest::Commit { name, begin_new }
                } else {
                    TmRequest::Rollback { name, begin_new }
                }
            }
            tm::SAVE_XACT => TmRequest::Save {
                name: b_varchar(b, &mut pos)?,
            },
            other => TmRequest::Unsupported(other),
        };
        Ok(TmMessage { headers, request })
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        encode_all_headers(&self.headers, &mut out);
        let end = |out: &mut Vec<u8>, name: &str, begin_new: &Option<(u8, String)>| {
            put_b_varchar(name, out);
            match begin_new {
                Some((iso, n)) => {
                    out.push(1);
                    out.push(*iso);
                    put_b_varchar(n, out);
                }
                None => out.push(0),
            }
        };
        match &self.request {
            TmRequest::Begin { isolation, name } => {
                out.extend_from_slice(&tm::BEGIN_XACT.to_le_bytes());
                out.push(*isolation);
                put_b_varchar(name, &mut out);
            }
            TmRequest::Commit { name, begin_new } => {
                out.extend_from_slice(&tm::COMMIT_XACT.to_le_bytes());
                end(&mut out, name, begin_new);
            }
            TmRequest::Rollback { name, begin_new } => {
                out.extend_from_slice(&tm::ROLLBACK_XACT.to_le_bytes());
                end(&mut out, name, begin_new);
            }
            TmRequest::Save { name } => {
                out.extend_from_slice(&tm::SAVE_XACT.to_le_bytes());
                put_b_varchar(name, &mut out);
            }
            TmRequest::Unsupported(t) => out.extend_from_slice(&t.to_le_bytes()),
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sql_batch_with_headers_round_trips_byte_exact() {
        let b = SqlBatch {
            headers: AllHeaders {
                transaction_descriptor: 0x0102,
                outstanding_requests: 1,
            },
            text: "select 1".into(),
        };
        let enc = b.encode();
        // [MS-TDS] 4.4: 16 00 00 00 | 12 00 00 00 02 00 | descriptor (8) | 01 00 00 00 | text.
        assert_eq!(
            &enc[..22],
            &[0x16, 0, 0, 0, 0x12, 0, 0, 0, 0x02, 0, 0x02, 0x01, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0]
        );
        assert_eq!(&enc[22..26], &[b's', 0, b'e', 0]);
        assert_eq!(SqlBatch::parse(&enc).unwrap(), b);
    }

    #[test]
    fn batch_without_all_headers_is_plain_text() {
        let mut t = Vec::new();
        ucs2_encode("SELECT 1", &mut t);
        assert_eq!(SqlBatch::parse(&t).unwrap().text, "SELECT 1");
    }

    #[test]
    fn bad_headers_are_errors() {
        // Total 22 but an inner header claiming 200 bytes.
        let mut enc = SqlBatch {
            headers: AllHeaders::default(),
            text: "x".into(),
        }
        .encode();
        enc[4] = 200;
        assert!(SqlBatch::parse(&enc).is_err());
        let mut odd = SqlBatch {
            headers: AllHeaders::default(),
            text: "x".into(),
        }
        .encode();
        odd.push(0);
        assert!(SqlBatch::parse(&odd).is_err());
    }

    #[test]
    fn tm_requests_round_trip() {
        for r in [
            TmRequest::Begin {
                isolation: isolation::SERIALIZABLE,
                name: "t1".into(),
            },
            TmRequest::Commit {
                name: String::new(),
                begin_new: None,
            },
            TmRequest::Rollback {
                name: "t1".into(),
                begin_new: Some((isolation::READ_COMMITTED, "t2".into())),
            },
            TmRequest::Save { name: "sp".into() },
            TmRequest::Unsupported(tm::PROPAGATE_XACT),
        ] {
            let m = TmMessage {
                headers: AllHeaders {
                    transaction_descriptor: 9,
                    outstanding_requests: 1,
                },
                request: r,
            };
            let enc = m.encode();
            assert_eq!(TmMessage::parse(&enc).unwrap(), m);
            for cut in 22..enc.len().saturating_sub(1) {
                let _ = TmMessage::parse(&enc[..cut]);
            }
        }
    }

    #[test]
    fn transaction_names_carry_their_length_in_bytes() {
        // TM_BEGIN_XACT as tedious sends it for beginTransaction(cb, 'lk'): isolation 0, then
        // 0x04 (bytes) and "lk" in UCS-2
        let mut b = Vec::new();
        encode_all_headers(&AllHeaders::default(), &mut b);
        b.extend_from_slice(&tm::BEGIN_XACT.to_le_bytes());
        b.extend_from_slice(&[0, 4, b'l', 0, b'k', 0]);
        let m = TmMessage::parse(&b).expect("parse");
        assert_eq!(
            m.request,
            TmRequest::Begin {
                isolation: 0,
                name: "lk".into()
            }
        );
        assert_eq!(m.encode(), b);
    }
}
