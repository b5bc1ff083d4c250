#![allow(dead_code)] // each target uses its own part
//! What the server does with one reassembled message, by packet type (crates/server/src/conn.rs
//! dispatches the same way), plus a round-trip oracle: whatever decodes re-encodes to bytes
//! that decode, and that encoding is a fixed point.

use tds::batch::{SqlBatch, TmMessage};
use tds::login7::Login7;
use tds::packet::{self, ptype, Assembled, MessageReader};
use tds::prelogin::PreLogin;
use tds::rpc::{parse_rpc_batch_checked, write_rpc_batch};

/// The round-trip oracle. Encoding may normalise (a char parameter is blank-padded to its
/// length, LOGIN7's fExtension bit follows the feature list), so the check is that the first
/// encoding decodes, and that encoding is then a fixed point: decode(encode(v)) encodes to
/// the same bytes.
fn fixed_point<T: std::fmt::Debug, E: std::fmt::Debug>(
    what: &str,
    value: T,
    encode: impl Fn(&T) -> Option<Vec<u8>>,
    decode: impl Fn(&[u8]) -> Result<T, E>,
) {
    let Some(first) = encode(&value) else {
        return;
    };
    let again = match decode(&first) {
        Ok(v) => v,
        Err(e) => panic!("{what}: {value:?} re-encodes to bytes that do not decode: {e:?}"),
    };
    assert_eq!(
        encode(&again),
        Some(first),
        "{what}: encoding is not a fixed point"
    );
}

pub fn prelogin(b: &[u8]) {
    if let Ok(p) = PreLogin::parse(b) {
        fixed_point("PRELOGIN", p, |p| Some(p.encode()), PreLogin::parse);
    }
}

pub fn login7(b: &[u8]) {
    if let Ok(l) = Login7::parse(b) {
        fixed_point("LOGIN7", l, |l| Some(l.encode()), Login7::parse);
    }
}

pub fn sqlbatch(b: &[u8]) {
    if let Ok(s) = SqlBatch::parse(b) {
        fixed_point("SQLBatch", s, |s| Some(s.encode()), SqlBatch::parse);
    }
}

pub fn tm(b: &[u8]) {
    if let Ok(t) = TmMessage::parse(b) {
        fixed_point(
            "transaction manager",
            t,
            |t| Some(t.encode()),
            TmMessage::parse,
        );
    }
}

pub fn rpc(b: &[u8]) {
    // As the server does: ALL_HEADERS, then the requests.
    let Ok((_, at)) = tds::batch::parse_all_headers(b) else {
        return;
    };
    let Ok(reqs) = parse_rpc_batch_checked(&b[at..]) else {
        return;
    };
    fixed_point(
        "RPC",
        reqs,
        |r| {
            let mut out = Vec::new();
            write_rpc_batch(&mut out, r).ok().map(|_| out)
        },
        parse_rpc_batch_checked,
    );
}

/// One message as the server's request loop sees it.
pub fn message(ty: u8, payload: &[u8]) {
    match ty {
        ptype::PRELOGIN => prelogin(payload),
        ptype::LOGIN7 => login7(payload),
        ptype::SQL_BATCH => sqlbatch(payload),
        ptype::RPC => rpc(payload),
        ptype::TRANSACTION_MANAGER => tm(payload),
        _ => {}
    }
}

/// conn.rs: MAX_HANDSHAKE_MESSAGE; a small cap makes the fuzzer reach the cap check.
const MAX_MESSAGE: usize = 128 * 1024;

/// A client's byte stream through the server's framing: packets read with `read_packet`
/// (header length checked before the payload is allocated), reassembled by `MessageReader`
/// (an attention abandons a partial message), each whole message decoded by [`message`]. A
/// framing error ends the stream, as it closes the server's connection.
pub fn packet_stream(data: &[u8]) {
    let mut r = data;
    let mut asm = MessageReader::new(MAX_MESSAGE);
    while let Ok(Some((h, p))) = packet::read_packet(&mut r, packet::MAX_PACKET_SIZE) {
        if h.ptype == ptype::ATTENTION {
            asm = MessageReader::new(MAX_MESSAGE);
            continue;
        }
        match asm.push(&h, &p) {
            Ok(Assembled::Message(m)) => message(m.ptype, &m.payload),
            Ok(_) => {}
            Err(_) => break,
        }
    }
}
