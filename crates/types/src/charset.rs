//! Code page 1252 (the code page of `SQL_Latin1_General_CP1_*` collations) for `char`/`varchar`
//! storage, and UTF-16 helpers for `nchar`/`nvarchar` lengths.

use std::borrow::Cow;

/// Windows-1252 bytes 0x80..=0x9F. Undefined positions map to the C1 control of the same value,
/// as Windows' best-fit table does, so every byte round-trips.
const HIGH: [char; 32] = [
    '\u{20AC}', '\u{0081}', '\u{201A}', '\u{0192}', '\u{201E}', '\u{2026}', '\u{2020}', '\u{2021}',
    '\u{02C6}', '\u{2030}', '\u{0160}', '\u{2039}', '\u{0152}', '\u{008D}', '\u{017D}', '\u{008F}',
    '\u{0090}', '\u{2018}', '\u{2019}', '\u{201C}', '\u{201D}', '\u{2022}', '\u{2013}', '\u{2014}',
    '\u{02DC}', '\u{2122}', '\u{0161}', '\u{203A}', '\u{0153}', '\u{009D}', '\u{017E}', '\u{0178}',
];

/// The character of a code page 1252 byte.
#[inline]
pub fn decode_byte(b: u8) -> char {
    if (0x80..0xA0).contains(&b) {
        HIGH[(b - 0x80) as usize]
    } else {
        b as char
    }
}

/// The code page 1252 byte of a character, if it has one.
#[inline]
pub fn encode_char(c: char) -> Option<u8> {
    let u = c as u32;
    if u < 0x80 || (0xA0..=0xFF).contains(&u) {
        return Some(u as u8);
    }
    HIGH.iter().position(|h| *h == c).map(|i| 0x80 + i as u8)
}

/// Replaces characters that code page 1252 cannot hold with `?` (what SQL Server does when a
/// Unicode string is converted to varchar).
pub fn to_cp1252_text(s: &str) -> Cow<'_, str> {
    if s.is_ascii() || s.chars().all(|c| encode_char(c).is_some()) {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(
            s.chars()
                .map(|c| if encode_char(c).is_some() { c } else { '?' })
                .collect(),
        )
    }
}

/// Encodes into code page 1252 bytes (unmappable characters become `?`).
pub fn encode_cp1252(s: &str, out: &mut Vec<u8>) {
    if s.is_ascii() {
        out.extend_from_slice(s.as_bytes());
        return;
    }
    out.extend(s.chars().map(|c| encode_char(c).unwrap_or(b'?')));
}

/// Decodes code page 1252 bytes.
pub fn decode_cp1252(b: &[u8]) -> String {
    if b.is_ascii() {
        // ASCII is valid UTF-8 and the same characters in code page 1252 (`from_utf8_lossy`
        // here walked a chunk iterator per value: 2.6 % of a row-mode scan's samples)
        if let Ok(s) = std::str::from_utf8(b) {
            return s.to_owned();
        }
    }
    b.iter().map(|&c| decode_byte(c)).collect()
}

/// Length in bytes of a varchar value (1 per character for code page 1252).
#[inline]
pub fn varchar_len(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        s.chars().count()
    }
}

/// Length in UTF-16 code units (SQL Server's nvarchar "characters").
#[inline]
pub fn utf16_len(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        s.chars().map(char::len_utf16).sum()
    }
}

/// Length in the type's units: bytes for varchar, UTF-16 units for nvarchar.
#[inline]
pub fn str_len(s: &str, unicode: bool) -> usize {
    if unicode {
        utf16_len(s)
    } else {
        varchar_len(s)
    }
}

/// The longest prefix of `s` with at most `n` units (bytes for varchar, UTF-16 units for
/// nvarchar), never splitting a surrogate pair.
pub fn truncate_units(s: &str, n: usize, unicode: bool) -> &str {
    if s.is_ascii() {
        return &s[..n.min(s.len())];
    }
    let mut used = 0;
    for (i, c) in s.char_indices() {
        let w = if unicode { c.len_utf16() } else { 1 };
        if used + w > n {
            return &s[..i];
        }
        used += w;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cp1252_round_trip() {
        for b in 0u8..=255 {
            let c = decode_byte(b);
            assert_eq!(encode_char(c), Some(b));
        }
        assert_eq!(to_cp1252_text("a€日"), "a€?");
        assert_eq!(utf16_len("a😀"), 3);
        assert_eq!(truncate_units("a😀b", 2, true), "a");
        assert_eq!(truncate_units("héllo", 2, false), "hé");
    }
}
