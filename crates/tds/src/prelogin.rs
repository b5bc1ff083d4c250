//! PRELOGIN ([MS-TDS] 2.2.6.5): the option table (token, offset, length; 0xFF ends it) and the
//! option data after it. Both sides send the same layout.

use crate::error::{TdsError, TdsResult};

/// Option tokens.
pub mod option {
    pub const VERSION: u8 = 0x00;
    pub const ENCRYPTION: u8 = 0x01;
    pub const INSTOPT: u8 = 0x02;
    pub const THREADID: u8 = 0x03;
    pub const MARS: u8 = 0x04;
    pub const TRACEID: u8 = 0x05;
    pub const FEDAUTHREQUIRED: u8 = 0x06;
    pub const NONCEOPT: u8 = 0x07;
    pub const TERMINATOR: u8 = 0xFF;
}

/// ENCRYPTION values.
pub mod encryption {
    /// Encryption available but off: only LOGIN7 is encrypted.
    pub const OFF: u8 = 0x00;
    pub const ON: u8 = 0x01;
    pub const NOT_SUP: u8 = 0x02;
    pub const REQ: u8 = 0x03;
}

/// A PRELOGIN message; `None` for options not present.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PreLogin {
    /// UL_VERSION (major, minor, build as big-endian bytes) and US_SUBBUILD.
    pub version: Option<([u8; 4], u16)>,
    pub encryption: Option<u8>,
    /// Instance name, without its terminating zero byte.
    pub instance: Option<Vec<u8>>,
    pub thread_id: Option<u32>,
    pub mars: Option<u8>,
    /// Connection id (16) + activity id (16) + sequence (4).
    pub trace_id: Option<Vec<u8>>,
    pub fed_auth_required: Option<u8>,
    pub nonce: Option<[u8; 32]>,
}

impl PreLogin {
    pub fn parse(b: &[u8]) -> TdsResult<PreLogin> {
        let mut p = PreLogin::default();
        let mut pos = 0;
        // Each option entry is 5 bytes; the table cannot have more entries than bytes/5.
        loop {
            let token = *b
                .get(pos)
                .ok_or(TdsError::Truncated("PRELOGIN option table"))?;
            if token == option::TERMINATOR {
                break;
            }
            let e = b
                .get(pos + 1..pos + 5)
                .ok_or(TdsError::Truncated("PRELOGIN option"))?;
            let off = u16::from_be_bytes([e[0], e[1]]) as usize;
            let len = u16::from_be_bytes([e[2], e[3]]) as usize;
            let data = b.get(off..off + len).ok_or_else(|| {
                TdsError::Malformed(format!("PRELOGIN option {token:#04x} outside the message"))
            })?;
            let fixed = |n: usize| -> TdsResult<&[u8]> {
                if data.len() < n {
                    Err(TdsError::Malformed(format!(
                        "PRELOGIN option {token:#04x} has {} bytes, needs {n}",
                        data.len()
                    )))
                } else {
                    Ok(&data[..n])
                }
            };
            match token {
                option::VERSION => {
                    let d = fixed(6)?;
                    p.version = Some(([d[0], d[1], d[2], d[3]], u16::from_le_bytes([d[4], d[5]])));
                }
                option::ENCRYPTION => p.encryption = Some(fixed(1)?[0]),
                option::INSTOPT => {
                    let end = data.iter().position(|&c| c == 0).unwrap_or(data.len());
                    p.instance = Some(data[..end].to_vec());
                }
                // Some clients send an empty THREADID.
                option::THREADID if data.len() >= 4 => {
                    p.thread_id = Some(u32::from_be_bytes([data[0], data[1], data[2], data[3]]));
                }
                option::MARS => p.mars = Some(fixed(1)?[0]),
                option::TRACEID => p.trace_id = Some(data.to_vec()),
                option::FEDAUTHREQUIRED => p.fed_auth_required = Some(fixed(1)?[0]),
                option::NONCEOPT => {
                    let d = fixed(32)?;
                    let mut n = [0u8; 32];
                    n.copy_from_slice(d);
                    p.nonce = Some(n);
                }
                // Unknown options are skipped ([MS-TDS]: a receiver ignores tokens it does not
                // know).
                _ => {}
            }
            pos += 5;
        }
        Ok(p)
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut opts: Vec<(u8, Vec<u8>)> = Vec::new();
        if let Some((v, sub)) = self.version {
            let mut d = v.to_vec();
            d.extend_from_slice(&sub.to_le_bytes());
            opts.push((option::VERSION, d));
        }
        if let Some(e) = self.encryption {
            opts.push((option::ENCRYPTION, vec![e]));
        }
        if let Some(i) = &self.instance {
            let mut d = i.clone();
            d.push(0);
            opts.push((option::INSTOPT, d));
        }
        if let Some(t) = self.thread_id {
            opts.push((option::THREADID, t.to_be_bytes().to_vec()));
        }
        if let Some(m) = self.mars {
            opts.push((option::MARS, vec![m]));
        }
        if let Some(t) = &self.trace_id {
            opts.push((option::TRACEID, t.clone()));
        }
        if let Some(f) = self.fed_auth_required {
            opts.push((option::FEDAUTHREQUIRED, vec![f]));
        }
        if let Some(n) = self.nonce {
            opts.push((option::NONCEOPT, n.to_vec()));
        }
        let mut out = Vec::new();
        let mut off = opts.len() * 5 + 1;
        for (t, d) in &opts {
            out.push(*t);
            out.extend_from_slice(&(off as u16).to_be_bytes());
            out.extend_from_slice(&(d.len() as u16).to_be_bytes());
            off += d.len();
        }
        out.push(option::TERMINATOR);
        for (_, d) in &opts {
            out.extend_from_slice(d);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [MS-TDS] 4.1 "PRELOGIN Client Request", payload after the packet header.
    const SPEC_CLIENT: [u8; 39] = [
        0x00, 0x00, 0x1A, 0x00, 0x06, 0x01, 0x00, 0x20, 0x00, 0x01, 0x02, 0x00, 0x21, 0x00, 0x01,
        0x03, 0x00, 0x22, 0x00, 0x04, 0x04, 0x00, 0x26, 0x00, 0x01, 0xFF, 0x09, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x01, 0x00, 0xB8, 0x0D, 0x00, 0x00, 0x01,
    ];

    #[test]
    fn spec_example_parses_and_re_encodes_byte_exact() {
        let p = PreLogin::parse(&SPEC_CLIENT).unwrap();
        assert_eq!(p.version, Some(([9, 0, 0, 0], 0)));
        assert_eq!(p.encryption, Some(encryption::ON));
        assert_eq!(p.instance, Some(vec![]));
        assert_eq!(p.thread_id, Some(0xB80D_0000));
        assert_eq!(p.mars, Some(1));
        assert_eq!(p.encode(), SPEC_CLIENT);
    }

    #[test]
    fn truncated_or_out_of_range_options_are_errors() {
        for cut in 0..SPEC_CLIENT.len() - 13 {
            assert!(
                PreLogin::parse(&SPEC_CLIENT[..cut]).is_err(),
                "cut at {cut}"
            );
        }
        let mut bad = SPEC_CLIENT;
        bad[1] = 0x7F; // VERSION offset far past the end
        assert!(PreLogin::parse(&bad).is_err());
    }

    #[test]
    fn all_options_round_trip() {
        let p = PreLogin {
            version: Some(([16, 0, 0x10, 0x00], 7)),
            encryption: Some(encryption::NOT_SUP),
            instance: Some(b"MSSQLServer".to_vec()),
            thread_id: Some(42),
            mars: Some(0),
            trace_id: Some(vec![3; 36]),
            fed_auth_required: Some(1),
            nonce: Some([5; 32]),
        };
        assert_eq!(PreLogin::parse(&p.encode()).unwrap(), p);
    }
}
