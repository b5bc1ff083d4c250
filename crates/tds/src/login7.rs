//! LOGIN7 ([MS-TDS] 2.2.6.4): the 94-byte fixed part (lengths, versions, flags, then offset /
//! character-count pairs into the variable part), UCS-2 strings, the scrambled password and
//! the feature extensions (FEATUREEXT, reached through the 4-byte offset at ibExtension).

use crate::error::{TdsError, TdsResult};

/// Length of the fixed part of LOGIN7.
pub const FIXED_LEN: usize = 94;
/// TDS 7.4, as a client sends it in LOGIN7 (little-endian on the wire).
pub const TDS74: u32 = 0x7400_0004;
/// TDS 8.0 (strict encryption), as a LOGIN7 TDSVersion: TDS 7.4's messages on a TLS-first
/// connection. The server answers with 7.4 in LOGINACK (clients compare that value against
/// 7.3 to decide on date and time types).
pub const TDS80: u32 = 0x0800_0000;

/// OptionFlags3 bit: the extension block (feature extensions) is present.
pub const OPTION3_EXTENSION: u8 = 0x10;
/// OptionFlags2 bit: integrated security (SSPI) — latchkey has no Windows authentication.
pub const OPTION2_INTEGRATED_SECURITY: u8 = 0x80;
/// TypeFlags bit: the application intends read-only access.
pub const TYPE_READ_ONLY_INTENT: u8 = 0x20;

/// Feature extension ids.
pub mod feature {
    pub const SESSIONRECOVERY: u8 = 0x01;
    pub const FEDAUTH: u8 = 0x02;
    pub const COLUMNENCRYPTION: u8 = 0x04;
    pub const GLOBALTRANSACTIONS: u8 = 0x05;
    pub const AZURESQLSUPPORT: u8 = 0x08;
    pub const DATACLASSIFICATION: u8 = 0x09;
    pub const UTF8_SUPPORT: u8 = 0x0A;
    pub const AZURESQLDNSCACHING: u8 = 0x0B;
    pub const TERMINATOR: u8 = 0xFF;
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FeatureExt {
    pub id: u8,
    pub data: Vec<u8>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Login7 {
    pub tds_version: u32,
    pub packet_size: u32,
    pub client_prog_ver: u32,
    pub client_pid: u32,
    pub connection_id: u32,
    pub option_flags1: u8,
    pub option_flags2: u8,
    pub type_flags: u8,
    pub option_flags3: u8,
    pub client_time_zone: i32,
    pub client_lcid: u32,
    pub host_name: String,
    pub user_name: String,
    /// Clear text (unscrambled while parsing, scrambled again by `encode`).
    pub password: String,
    pub app_name: String,
    pub server_name: String,
    pub library_name: String,
    pub language: String,
    pub database: String,
    pub client_id: [u8; 6],
    pub sspi: Vec<u8>,
    pub attach_db_file: String,
    pub change_password: String,
    pub features: Vec<FeatureExt>,
}

/// Decodes UTF-16LE (UCS-2 as clients send it); unpaired surrogates become U+FFFD.
pub fn ucs2_decode(b: &[u8]) -> TdsResult<String> {
    if !b.len().is_multiple_of(2) {
        return Err(TdsError::Malformed(
            "UCS-2 string of odd byte length".into(),
        ));
    }
    let units = b.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]]));
    Ok(char::decode_utf16(units)
        .map(|r| r.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect())
}

/// Appends `s` as UTF-16LE.
pub fn ucs2_encode(s: &str, out: &mut Vec<u8>) {
    for u in s.encode_utf16() {
        out.extend_from_slice(&u.to_le_bytes());
    }
}

/// [MS-TDS]: each byte of the UCS-2 password has its nibbles swapped, then is XORed with 0xA5.
pub fn scramble_password(b: &mut [u8]) {
    for x in b {
        *x = x.rotate_left(4) ^ 0xA5;
    }
}

pub fn unscramble_password(b: &mut [u8]) {
    for x in b {
        *x = (*x ^ 0xA5).rotate_left(4);
    }
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// The (offset, length) pair at `at` as a byte range inside `b`; `chars`: length counts UCS-2
/// characters.
fn field<'a>(b: &'a [u8], at: usize, chars: bool, what: &'static str) -> TdsResult<&'a [u8]> {
    let off = u16_at(b, at) as usize;
    let len = u16_at(b, at + 2) as usize * if chars { 2 } else { 1 };
    if len == 0 {
        return Ok(&[]);
    }
    b.get(off..off + len)
        .ok_or_else(|| TdsError::Malformed(format!("LOGIN7 {what} outside the message")))
}

impl Login7 {
    pub fn parse(b: &[u8]) -> TdsResult<Login7> {
        if b.len() < FIXED_LEN {
            return Err(TdsError::Truncated("LOGIN7"));
        }
        let length = u32_at(b, 0) as usize;
        if length > b.len() || length < FIXED_LEN {
            return Err(TdsError::Malformed(format!(
                "LOGIN7 length {length} does not match the message ({} bytes)",
                b.len()
            )));
        }
        let b = &b[..length];
        let s = |at: usize, what: &'static str| -> TdsResult<String> {
            ucs2_decode(field(b, at, true, what)?)
        };
        let mut pw = field(b, 44, true, "password")?.to_vec();
        unscramble_password(&mut pw);
        let option_flags3 = b[27];
        let mut l = Login7 {
            tds_version: u32_at(b, 4),
            packet_size: u32_at(b, 8),
            client_prog_ver: u32_at(b, 12),
            client_pid: u32_at(b, 16),
            connection_id: u32_at(b, 20),
            option_flags1: b[24],
            option_flags2: b[25],
            type_flags: b[26],
            option_flags3,
            client_time_zone: u32_at(b, 28) as i32,
            client_lcid: u32_at(b, 32),
            host_name: s(36, "host name")?,
            user_name: s(40, "user name")?,
            password: ucs2_decode(&pw)?,
            app_name: s(48, "application name")?,
            server_name: s(52, "server name")?,
            library_name: s(60, "library name")?,
            language: s(64, "language")?,
            database: s(68, "database")?,
            client_id: [b[72], b[73], b[74], b[75], b[76], b[77]],
            sspi: Vec::new(),
            attach_db_file: s(82, "attach file")?,
            change_password: String::new(),
            features: Vec::new(),
        };
        let mut sspi_len = u16_at(b, 80) as usize;
        if sspi_len == 0xFFFF {
            sspi_len = u32_at(b, 90) as usize;
        }
        if sspi_len > 0 {
            let off = u16_at(b, 78) as usize;
            l.sspi = b
                .get(off..off + sspi_len)
                .ok_or_else(|| TdsError::Malformed("LOGIN7 SSPI data outside the message".into()))?
                .to_vec();
        }
        let mut cpw = field(b, 86, true, "change password")?.to_vec();
        unscramble_password(&mut cpw);
        l.change_password = ucs2_decode(&cpw)?;
        if option_flags3 & OPTION3_EXTENSION != 0 {
            let ext = field(b, 56, false, "extension")?;
            if ext.len() < 4 {
                return Err(TdsError::Malformed("LOGIN7 extension offset".into()));
            }
            let at = u32_at(ext, 0) as usize;
            l.features = parse_features(b.get(at..).ok_or_else(|| {
                TdsError::Malformed("LOGIN7 feature extension outside the message".into())
            })?)?;
        }
        Ok(l)
    }

    /// Encodes the message (client side and tests).
    pub fn encode(&self) -> Vec<u8> {
        let mut fixed = Vec::with_capacity(FIXED_LEN);
        fixed.extend_from_slice(&[0; 4]); // length, patched below
        for v in [
            self.tds_version,
            self.packet_size,
            self.client_prog_ver,
            self.client_pid,
            self.connection_id,
        ] {
            fixed.extend_from_slice(&v.to_le_bytes());
        }
        let option_flags3 = if self.features.is_empty() {
            self.option_flags3 & !OPTION3_EXTENSION
        } else {
            self.option_flags3 | OPTION3_EXTENSION
        };
        fixed.extend_from_slice(&[
            self.option_flags1,
            self.option_flags2,
            self.type_flags,
            option_flags3,
        ]);
        fixed.extend_from_slice(&self.client_time_zone.to_le_bytes());
        fixed.extend_from_slice(&self.client_lcid.to_le_bytes());
        let mut var: Vec<u8> = Vec::new();
        fn pair(fixed: &mut Vec<u8>, var: &mut Vec<u8>, bytes: &[u8], count: usize) {
            let off = if count == 0 { 0 } else { FIXED_LEN + var.len() };
            fixed.extend_from_slice(&(off as u16).to_le_bytes());
            fixed.extend_from_slice(&(count as u16).to_le_bytes());
            var.extend_from_slice(bytes);
        }
        let ucs = |s: &str| {
            let mut v = Vec::new();
            ucs2_encode(s, &mut v);
            v
        };
        let mut pw = ucs(&self.password);
        scramble_password(&mut pw);
        let strs = [
            ucs(&self.host_name),
            ucs(&self.user_name),
            pw,
            ucs(&self.app_name),
            ucs(&self.server_name),
        ];
        for v in &strs {
            pair(&mut fixed, &mut var, v, v.len() / 2);
        }
        // Extension: a 4-byte offset to the feature data placed at the end; patched below.
        let ext_at = FIXED_LEN + var.len();
        if self.features.is_empty() {
            pair(&mut fixed, &mut var, &[], 0);
        } else {
            pair(&mut fixed, &mut var, &[0; 4], 4);
        }
        for v in [
            ucs(&self.library_name),
            ucs(&self.language),
            ucs(&self.database),
        ] {
            pair(&mut fixed, &mut var, &v, v.len() / 2);
        }
        fixed.extend_from_slice(&self.client_id);
        pair(&mut fixed, &mut var, &self.sspi, self.sspi.len());
        let a = ucs(&self.attach_db_file);
        pair(&mut fixed, &mut var, &a, a.len() / 2);
        let mut cpw = ucs(&self.change_password);
        scramble_password(&mut cpw);
        pair(&mut fixed, &mut var, &cpw, cpw.len() / 2);
        fixed.extend_from_slice(&0u32.to_le_bytes()); // cbSSPILong
        debug_assert_eq!(fixed.len(), FIXED_LEN);
        let mut out = fixed;
        out.extend_from_slice(&var);
        if !self.features.is_empty() {
            let feat_at = out.len() as u32;
            out[ext_at..ext_at + 4].copy_from_slice(&feat_at.to_le_bytes());
            for f in &self.features {
                out.push(f.id);
                out.extend_from_slice(&(f.data.len() as u32).to_le_bytes());
                out.extend_from_slice(&f.data);
            }
            out.push(feature::TERMINATOR);
        }
        let len = out.len() as u32;
        out[..4].copy_from_slice(&len.to_le_bytes());
        out
    }

    /// The feature extension `id`, when the client sent it.
    pub fn feature(&self, id: u8) -> Option<&FeatureExt> {
        self.features.iter().find(|f| f.id == id)
    }
}

/// FeatureId (1), FeatureDataLen (4), data, ... up to the 0xFF terminator.
fn parse_features(mut b: &[u8]) -> TdsResult<Vec<FeatureExt>> {
    let mut out = Vec::new();
    loop {
        let (&id, rest) = b
            .split_first()
            .ok_or(TdsError::Truncated("LOGIN7 feature extension"))?;
        if id == feature::TERMINATOR {
            return Ok(out);
        }
        if rest.len() < 4 {
            return Err(TdsError::Truncated("LOGIN7 feature extension"));
        }
        let len = u32_at(rest, 0) as usize;
        let data = rest
            .get(4..4usize.saturating_add(len))
            .ok_or(TdsError::Truncated("LOGIN7 feature data"))?;
        out.push(FeatureExt {
            id,
            data: data.to_vec(),
        });
        b = &rest[4 + len..];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Login7 {
        Login7 {
            tds_version: TDS74,
            packet_size: 4096,
            client_prog_ver: 7,
            client_pid: 100,
            option_flags1: 0xE0,
            option_flags2: 0x03,
            client_lcid: 0x409,
            host_name: "host".into(),
            user_name: "sa".into(),
            password: "Pässw0rd!".into(),
            app_name: "app".into(),
            server_name: "127.0.0.1".into(),
            library_name: "pytds".into(),
            language: "us_english".into(),
            database: "master".into(),
            client_id: [1, 2, 3, 4, 5, 6],
            features: vec![FeatureExt {
                id: feature::UTF8_SUPPORT,
                data: vec![],
            }],
            ..Default::default()
        }
    }

    #[test]
    fn password_scrambling_matches_the_spec_rule() {
        // 'a' (0x61, 0x00): swap nibbles -> 0x16, 0x00; xor 0xA5 -> 0xB3, 0xA5.
        let mut b = [0x61, 0x00];
        scramble_password(&mut b);
        assert_eq!(b, [0xB3, 0xA5]);
        unscramble_password(&mut b);
        assert_eq!(b, [0x61, 0x00]);
    }

    #[test]
    fn round_trip_with_features() {
        let l = sample();
        let enc = l.encode();
        assert_eq!(u32_at(&enc, 0) as usize, enc.len());
        assert_eq!(
            &enc[4..8],
            &[0x04, 0x00, 0x00, 0x74],
            "TDS 7.4 is little-endian"
        );
        let back = Login7::parse(&enc).unwrap();
        assert_eq!(back.option_flags3 & OPTION3_EXTENSION, OPTION3_EXTENSION);
        assert_eq!(
            back,
            Login7 {
                option_flags3: OPTION3_EXTENSION,
                ..l
            }
        );
        assert!(back.feature(feature::UTF8_SUPPORT).is_some());
    }

    #[test]
    fn every_truncation_is_an_error_not_a_panic() {
        let enc = sample().encode();
        for cut in 0..enc.len() {
            let mut b = enc[..cut].to_vec();
            if b.len() >= 4 {
                b[..4].copy_from_slice(&(cut as u32).to_le_bytes());
            }
            let _ = Login7::parse(&b); // must not panic
        }
        let mut bad = enc.clone();
        bad[40] = 0xFF; // user name offset past the end
        bad[41] = 0x7F;
        assert!(Login7::parse(&bad).is_err());
    }
}
