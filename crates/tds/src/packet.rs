//! TDS packets ([MS-TDS] 2.2.3): the 8-byte header, reassembly of a message from its packets
//! (with a cap on the message size), and a writer that splits an outgoing message into packets
//! of the negotiated size.

use std::io::{self, Read, Write};

use crate::error::{TdsError, TdsResult};

/// Size of a packet header.
pub const HEADER_LEN: usize = 8;
/// Smallest and largest packet size a client may negotiate (LOGIN7 `PacketSize`).
pub const MIN_PACKET_SIZE: usize = 512;
pub const MAX_PACKET_SIZE: usize = 32767;
/// The packet size before LOGIN7 negotiates one (PRELOGIN and LOGIN7 itself).
pub const DEFAULT_PACKET_SIZE: usize = 4096;

/// Packet types (header byte 0).
pub mod ptype {
    pub const SQL_BATCH: u8 = 0x01;
    pub const PRE_TDS7_LOGIN: u8 = 0x02;
    pub const RPC: u8 = 0x03;
    pub const TABULAR_RESULT: u8 = 0x04;
    pub const ATTENTION: u8 = 0x06;
    pub const BULK_LOAD: u8 = 0x07;
    pub const FEDAUTH_TOKEN: u8 = 0x08;
    pub const TRANSACTION_MANAGER: u8 = 0x0E;
    pub const LOGIN7: u8 = 0x10;
    pub const SSPI: u8 = 0x11;
    pub const PRELOGIN: u8 = 0x12;
}

/// Status bits (header byte 1).
pub mod status {
    /// Last packet of the message.
    pub const EOM: u8 = 0x01;
    /// Client-to-server: the message must be ignored (sent with EOM to abandon a message).
    pub const IGNORE: u8 = 0x02;
    /// Reset the connection before running this request (first packet of the message).
    pub const RESET_CONNECTION: u8 = 0x08;
    /// Reset the connection but keep its transaction state.
    pub const RESET_CONNECTION_SKIP_TRAN: u8 = 0x10;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PacketHeader {
    pub ptype: u8,
    pub status: u8,
    /// Length of the whole packet, header included (big-endian on the wire).
    pub length: u16,
    pub spid: u16,
    pub packet_id: u8,
    pub window: u8,
}

impl PacketHeader {
    pub fn parse(b: &[u8; HEADER_LEN]) -> TdsResult<PacketHeader> {
        let h = PacketHeader {
            ptype: b[0],
            status: b[1],
            length: u16::from_be_bytes([b[2], b[3]]),
            spid: u16::from_be_bytes([b[4], b[5]]),
            packet_id: b[6],
            window: b[7],
        };
        if (h.length as usize) < HEADER_LEN {
            return Err(TdsError::Malformed(format!(
                "packet length {} is shorter than its header",
                h.length
            )));
        }
        Ok(h)
    }

    pub fn encode(&self) -> [u8; HEADER_LEN] {
        let l = self.length.to_be_bytes();
        let s = self.spid.to_be_bytes();
        [
            self.ptype,
            self.status,
            l[0],
            l[1],
            s[0],
            s[1],
            self.packet_id,
            self.window,
        ]
    }

    /// Payload bytes after the header.
    pub fn payload_len(&self) -> usize {
        self.length as usize - HEADER_LEN
    }
}

/// Reads one packet. `Ok(None)` at a clean end of stream (no byte of a new packet read);
/// a packet longer than `max_packet` is malformed (a client must keep to the size it
/// negotiated). The payload buffer is allocated only after the header's length was checked.
pub fn read_packet<R: Read>(
    r: &mut R,
    max_packet: usize,
) -> io::Result<Option<(PacketHeader, Vec<u8>)>> {
    let mut hb = [0u8; HEADER_LEN];
    let mut got = 0;
    while got < HEADER_LEN {
        match r.read(&mut hb[got..]) {
            Ok(0) if got == 0 => return Ok(None),
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let h = PacketHeader::parse(&hb).map_err(to_io)?;
    if h.length as usize > max_packet {
        return Err(to_io(TdsError::Malformed(format!(
            "packet length {} exceeds the packet size {max_packet}",
            h.length
        ))));
    }
    let mut payload = vec![0u8; h.payload_len()];
    r.read_exact(&mut payload)?;
    Ok(Some((h, payload)))
}

/// A codec error as an I/O error (the connection is closed on either).
pub fn to_io(e: TdsError) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, e)
}

/// A complete client message (all packets up to EOM).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    pub ptype: u8,
    /// Status bits of the first packet (RESETCONNECTION lives there).
    pub status: u8,
    pub payload: Vec<u8>,
}

impl Message {
    pub fn reset_connection(&self) -> bool {
        self.status & status::RESET_CONNECTION != 0
    }
    pub fn reset_connection_skip_tran(&self) -> bool {
        self.status & status::RESET_CONNECTION_SKIP_TRAN != 0
    }
}

/// What a packet did to the message being reassembled.
#[derive(Debug, PartialEq, Eq)]
pub enum Assembled {
    /// More packets are needed.
    Partial,
    /// The message is complete.
    Message(Message),
    /// The client abandoned the message (IGNORE with EOM): nothing to answer.
    Ignored,
}

/// Reassembles messages from packets, refusing messages larger than `max_message` bytes.
#[derive(Debug)]
pub struct MessageReader {
    max_message: usize,
    current: Option<Message>,
}

impl MessageReader {
    pub fn new(max_message: usize) -> Self {
        MessageReader {
            max_message,
            current: None,
        }
    }

    /// True while a message has some but not all of its packets.
    pub fn in_progress(&self) -> bool {
        self.current.is_some()
    }

    pub fn push(&mut self, h: &PacketHeader, payload: &[u8]) -> TdsResult<Assembled> {
        let cur = match &mut self.current {
            Some(m) => {
                if m.ptype != h.ptype {
                    return Err(TdsError::Malformed(format!(
                        "packet of type {:#04x} inside a message of type {:#04x}",
                        h.ptype, m.ptype
                    )));
                }
                m
            }
            None => self.current.insert(Message {
                ptype: h.ptype,
                status: h.status,
                payload: Vec::new(),
            }),
        };
        if cur.payload.len() + payload.len() > self.max_message {
            self.current = None;
            return Err(TdsError::Malformed(format!(
                "message larger than {} bytes",
                self.max_message
            )));
        }
        cur.payload.extend_from_slice(payload);
        if h.status & status::EOM == 0 {
            return Ok(Assembled::Partial);
        }
        let m = self.current.take().ok_or(TdsError::Truncated("message"))?;
        if h.status & status::IGNORE != 0 {
            return Ok(Assembled::Ignored);
        }
        Ok(Assembled::Message(m))
    }
}

/// Writes one outgoing message as packets of `packet_size` bytes: the payload is buffered and
/// a packet goes out (status 0) each time one is full; `finish` sends the last one with EOM.
pub struct PacketWriter {
    ptype: u8,
    packet_size: usize,
    spid: u16,
    packet_id: u8,
    buf: Vec<u8>,
}

impl PacketWriter {
    pub fn new(ptype: u8, packet_size: usize, spid: u16) -> Self {
        let packet_size = packet_size.clamp(MIN_PACKET_SIZE, MAX_PACKET_SIZE);
        PacketWriter {
            ptype,
            packet_size,
            spid,
            packet_id: 1,
            buf: Vec::with_capacity(packet_size),
        }
    }

    pub fn packet_size(&self) -> usize {
        self.packet_size
    }

    /// Switches the packet size (after the LOGINACK that announced it).
    pub fn set_packet_size(&mut self, size: usize) {
        self.packet_size = size.clamp(MIN_PACKET_SIZE, MAX_PACKET_SIZE);
    }

    /// Payload bytes buffered and not yet sent.
    pub fn buffered(&self) -> usize {
        self.buf.len()
    }

    /// The payload buffer to append tokens to; call `flush_full` after appending.
    pub fn buf(&mut self) -> &mut Vec<u8> {
        &mut self.buf
    }

    /// Sends every full packet in the buffer.
    pub fn flush_full<W: Write>(&mut self, w: &mut W) -> io::Result<()> {
        let cap = self.packet_size - HEADER_LEN;
        if self.buf.len() <= cap {
            return Ok(());
        }
        let mut start = 0;
        // Keep at least one byte back so `finish` always has a packet to mark EOM.
        while self.buf.len() - start > cap {
            self.send(w, start, start + cap, 0)?;
            start += cap;
        }
        self.buf.drain(..start);
        Ok(())
    }

    /// Sends the rest of the message, the last packet with EOM (an empty message is one
    /// header-only packet), and flushes `w`.
    pub fn finish<W: Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.flush_full(w)?;
        let end = self.buf.len();
        self.send(w, 0, end, status::EOM)?;
        self.buf.clear();
        self.packet_id = 1;
        w.flush()
    }

    fn send<W: Write>(&mut self, w: &mut W, from: usize, to: usize, st: u8) -> io::Result<()> {
        let h = PacketHeader {
            ptype: self.ptype,
            status: st,
            length: (to - from + HEADER_LEN) as u16,
            spid: self.spid,
            packet_id: self.packet_id,
            window: 0,
        };
        self.packet_id = self.packet_id.wrapping_add(1);
        let mut packet = Vec::with_capacity(to - from + HEADER_LEN);
        packet.extend_from_slice(&h.encode());
        packet.extend_from_slice(&self.buf[from..to]);
        w.write_all(&packet)
    }
}

/// Encodes `payload` as one message of packets of at most `packet_size` bytes (tests,
/// clients, and short replies such as PRELOGIN).
pub fn encode_message(ptype: u8, status_first: u8, payload: &[u8], packet_size: usize) -> Vec<u8> {
    let cap = packet_size.clamp(MIN_PACKET_SIZE, MAX_PACKET_SIZE) - HEADER_LEN;
    let mut out = Vec::with_capacity(payload.len() + HEADER_LEN * (payload.len() / cap + 1));
    let mut chunks: Vec<&[u8]> = payload.chunks(cap).collect();
    if chunks.is_empty() {
        chunks.push(&[]);
    }
    let n = chunks.len();
    for (i, c) in chunks.into_iter().enumerate() {
        let mut st = if i + 1 == n { status::EOM } else { 0 };
        if i == 0 {
            st |= status_first;
        }
        let h = PacketHeader {
            ptype,
            status: st,
            length: (c.len() + HEADER_LEN) as u16,
            spid: 0,
            packet_id: (i + 1) as u8,
            window: 0,
        };
        out.extend_from_slice(&h.encode());
        out.extend_from_slice(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trip_is_big_endian() {
        // [MS-TDS] 4.1 PRELOGIN example header: 12 01 00 2F 00 00 01 00.
        let b = [0x12, 0x01, 0x00, 0x2F, 0x00, 0x00, 0x01, 0x00];
        let h = PacketHeader::parse(&b).unwrap();
        assert_eq!(h.ptype, ptype::PRELOGIN);
        assert_eq!(h.status, status::EOM);
        assert_eq!(h.length, 0x2F);
        assert_eq!(h.packet_id, 1);
        assert_eq!(h.encode(), b);
    }

    #[test]
    fn header_shorter_than_itself_is_malformed() {
        let b = [0x01, 0x01, 0x00, 0x07, 0, 0, 1, 0];
        assert!(PacketHeader::parse(&b).is_err());
    }

    #[test]
    fn reassembles_and_caps_messages() {
        let msg = encode_message(
            ptype::SQL_BATCH,
            status::RESET_CONNECTION,
            &[7u8; 1500],
            512,
        );
        let mut r = &msg[..];
        let mut asm = MessageReader::new(10_000);
        let mut out = None;
        while let Some((h, p)) = read_packet(&mut r, 512).unwrap() {
            if let Assembled::Message(m) = asm.push(&h, &p).unwrap() {
                out = Some(m);
            }
        }
        let m = out.unwrap();
        assert_eq!(m.payload.len(), 1500);
        assert!(m.reset_connection());

        let mut r = &msg[..];
        let mut small = MessageReader::new(1000);
        let mut failed = false;
        while let Some((h, p)) = read_packet(&mut r, 512).unwrap() {
            if small.push(&h, &p).is_err() {
                failed = true;
                break;
            }
        }
        assert!(failed, "a message over the cap is refused");
    }

    #[test]
    fn oversized_packet_and_type_switch_are_errors() {
        let msg = encode_message(ptype::SQL_BATCH, 0, &[1u8; 1000], 4096);
        assert!(read_packet(&mut &msg[..], 512).is_err());
        let mut asm = MessageReader::new(1 << 20);
        let h1 = PacketHeader {
            ptype: ptype::SQL_BATCH,
            status: 0,
            length: 9,
            spid: 0,
            packet_id: 1,
            window: 0,
        };
        assert_eq!(asm.push(&h1, &[1]).unwrap(), Assembled::Partial);
        let h2 = PacketHeader {
            ptype: ptype::RPC,
            status: status::EOM,
            ..h1
        };
        assert!(asm.push(&h2, &[1]).is_err());
    }

    #[test]
    fn ignore_bit_discards_the_message() {
        let mut asm = MessageReader::new(1 << 20);
        let h = PacketHeader {
            ptype: ptype::SQL_BATCH,
            status: status::EOM | status::IGNORE,
            length: 9,
            spid: 0,
            packet_id: 1,
            window: 0,
        };
        assert_eq!(asm.push(&h, &[1]).unwrap(), Assembled::Ignored);
    }

    #[test]
    fn writer_splits_by_packet_size_and_marks_eom_last() {
        let mut w = PacketWriter::new(ptype::TABULAR_RESULT, 512, 51);
        let mut out = Vec::new();
        w.buf().extend_from_slice(&[9u8; 1200]);
        w.flush_full(&mut out).unwrap();
        w.finish(&mut out).unwrap();
        let mut r = &out[..];
        let mut sizes = Vec::new();
        while let Some((h, p)) = read_packet(&mut r, 512).unwrap() {
            assert_eq!(h.spid, 51);
            sizes.push((p.len(), h.status, h.packet_id));
        }
        assert_eq!(sizes, vec![(504, 0, 1), (504, 0, 2), (192, 1, 3)]);
        // An empty message is one header-only EOM packet.
        let mut out = Vec::new();
        w.finish(&mut out).unwrap();
        assert_eq!(out, [0x04, 0x01, 0x00, 0x08, 0x00, 0x33, 0x01, 0x00]);
    }
}
