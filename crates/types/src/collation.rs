//! Collations: how strings compare, hash and sort.
//!
//! A character's collation weights are (primary, accent, case):
//! * primary: the letter ignoring case and accents. ASCII punctuation/controls sort first (in
//!   code order), then digits, then letters a–z; Latin-1 accented letters share their base
//!   letter's primary; other characters follow in (lower-cased) code point order.
//! * accent: 0 for none, then grave, acute, circumflex, tilde, diaeresis, ring, cedilla …
//! * case: 0 lower/uncased, 1 upper (only case-sensitive collations use it: `a` < `A`).
//!
//! Comparison first compares primaries (shorter string first on a common prefix), then the
//! first differing accent, then the first differing case. Trailing spaces are ignored
//! (`'a' = 'a  '`), as SQL Server pads the shorter string with blanks. Binary collations
//! (`_BIN`, `_BIN2`) compare code points.

use std::cmp::Ordering;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Kind {
    CiAs,
    CsAs,
    CiAi,
    CsAi,
    Bin,
}

/// Supported collation names and their comparison kind.
static TABLE: &[(&str, Kind)] = &[
    ("SQL_Latin1_General_CP1_CI_AS", Kind::CiAs),
    ("SQL_Latin1_General_CP1_CS_AS", Kind::CsAs),
    ("SQL_Latin1_General_CP1_CI_AI", Kind::CiAi),
    ("SQL_Latin1_General_CP1_CS_AI", Kind::CsAi),
    ("Latin1_General_CI_AS", Kind::CiAs),
    ("Latin1_General_CS_AS", Kind::CsAs),
    ("Latin1_General_CI_AI", Kind::CiAi),
    ("Latin1_General_CS_AI", Kind::CsAi),
    ("Latin1_General_BIN", Kind::Bin),
    ("Latin1_General_BIN2", Kind::Bin),
    ("Latin1_General_100_CI_AS", Kind::CiAs),
    ("Latin1_General_100_CS_AS", Kind::CsAs),
    ("Latin1_General_100_CI_AI", Kind::CiAi),
    ("Latin1_General_100_CS_AI", Kind::CsAi),
    ("Latin1_General_100_BIN", Kind::Bin),
    ("Latin1_General_100_BIN2", Kind::Bin),
    ("Latin1_General_100_CI_AS_SC", Kind::CiAs),
    ("Latin1_General_100_CS_AS_SC", Kind::CsAs),
    ("Latin1_General_100_CI_AS_SC_UTF8", Kind::CiAs),
    ("Latin1_General_100_BIN2_UTF8", Kind::Bin),
    ("SQL_Latin1_General_CP1_CI_AS_KS_WS", Kind::CiAs),
    ("SQL_Latin1_General_CP437_BIN", Kind::Bin),
    ("SQL_Latin1_General_CP850_BIN", Kind::Bin),
];

/// A collation (index into the table of supported collations). `Copy`, cheap to pass per row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Collation(u8);

impl Default for Collation {
    fn default() -> Self {
        Collation::DEFAULT
    }
}

impl Collation {
    /// `SQL_Latin1_General_CP1_CI_AS`, the server default.
    pub const DEFAULT: Collation = Collation(0);
    /// `SQL_Latin1_General_CP1_CS_AS`.
    pub const CS_AS: Collation = Collation(1);
    /// `Latin1_General_CS_AS`.
    pub const LATIN1_CS_AS: Collation = Collation(5);
    /// `Latin1_General_BIN2`.
    pub const BIN2: Collation = Collation(9);
    /// `Latin1_General_BIN`.
    pub const BIN: Collation = Collation(8);
    /// `Latin1_General_CI_AI`.
    pub const CI_AI: Collation = Collation(6);

    /// Looks a collation name up (case-insensitively). `None`: SQL Server raises error 448
    /// "Invalid collation '%.*ls'.".
    pub fn from_name(name: &str) -> Option<Collation> {
        TABLE
            .iter()
            .position(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|i| Collation(i as u8))
    }

    /// The collation's name as `sys.columns.collation_name` shows it.
    pub fn name(self) -> &'static str {
        TABLE[self.0 as usize].0
    }

    fn kind(self) -> Kind {
        TABLE[self.0 as usize].1
    }

    pub fn case_sensitive(self) -> bool {
        matches!(self.kind(), Kind::CsAs | Kind::CsAi | Kind::Bin)
    }

    pub fn accent_sensitive(self) -> bool {
        matches!(self.kind(), Kind::CsAs | Kind::CiAs | Kind::Bin)
    }

    pub fn is_binary(self) -> bool {
        self.kind() == Kind::Bin
    }

    /// Compares two strings under this collation (trailing spaces ignored). Never allocates.
    pub fn compare(self, a: &str, b: &str) -> Ordering {
        let a = trim_trailing_spaces(a);
        let b = trim_trailing_spaces(b);
        let kind = self.kind();
        if kind == Kind::Bin {
            // UTF-8 byte order is code point order.
            return a.as_bytes().cmp(b.as_bytes());
        }
        if a.is_ascii() && b.is_ascii() {
            return compare_ascii(kind, a.as_bytes(), b.as_bytes());
        }
        let use_accent = matches!(kind, Kind::CiAs | Kind::CsAs);
        let use_case = matches!(kind, Kind::CsAs | Kind::CsAi);
        let mut sec = Ordering::Equal;
        let mut ter = Ordering::Equal;
        let mut ia = a.chars();
        let mut ib = b.chars();
        loop {
            match (ia.next(), ib.next()) {
                (None, None) => break,
                (None, Some(_)) => return Ordering::Less,
                (Some(_), None) => return Ordering::Greater,
                (Some(x), Some(y)) => {
                    if x == y {
                        continue;
                    }
                    let wx = weights(x);
                    let wy = weights(y);
                    match wx.0.cmp(&wy.0) {
                        Ordering::Equal => {}
                        o => return o,
                    }
                    if sec == Ordering::Equal && use_accent {
                        sec = wx.1.cmp(&wy.1);
                    }
                    if ter == Ordering::Equal && use_case {
                        ter = wx.2.cmp(&wy.2);
                    }
                }
            }
        }
        sec.then(ter)
    }

    /// True when the strings are equal under this collation.
    pub fn eq(self, a: &str, b: &str) -> bool {
        self.compare(a, b) == Ordering::Equal
    }

    /// Feeds the collation weights of `s` to a hasher: equal strings hash equally.
    pub fn hash_str<H: std::hash::Hasher>(self, s: &str, h: &mut H) {
        let s = trim_trailing_spaces(s);
        let kind = self.kind();
        if kind == Kind::Bin {
            h.write(s.as_bytes());
            h.write_u8(0xFF);
            return;
        }
        let use_accent = matches!(kind, Kind::CiAs | Kind::CsAs);
        let use_case = matches!(kind, Kind::CsAs | Kind::CsAi);
        if s.is_ascii() {
            for &b in s.as_bytes() {
                let w = ascii_weights(b);
                h.write_u32(w.0);
                if use_accent {
                    h.write_u8(0);
                }
                if use_case {
                    h.write_u8(w.2);
                }
            }
        } else {
            for c in s.chars() {
                let w = weights(c);
                h.write_u32(w.0);
                if use_accent {
                    h.write_u8(w.1);
                }
                if use_case {
                    h.write_u8(w.2);
                }
            }
        }
        h.write_u8(0xFF);
    }

    /// Appends the raw sort key of `s`: memcmp order of sort keys equals [`Collation::compare`]
    /// order. Layout: primary weights (order-preserving varint, each >= 1), then for
    /// accent-sensitive collations a 0x00 separator and one accent byte (accent + 1) per
    /// character with trailing 0x01s dropped, then for case-sensitive collations a 0x00
    /// separator and case bytes likewise. Binary collations: the UTF-8 bytes. The result may
    /// contain 0x00 bytes; [`crate::key`] escapes them.
    pub fn sort_key(self, s: &str, out: &mut Vec<u8>) {
        let s = trim_trailing_spaces(s);
        let kind = self.kind();
        if kind == Kind::Bin {
            out.extend_from_slice(s.as_bytes());
            return;
        }
        let use_accent = matches!(kind, Kind::CiAs | Kind::CsAs);
        let use_case = matches!(kind, Kind::CsAs | Kind::CsAi);
        for c in s.chars() {
            push_weight(weights(c).0, out);
        }
        if use_accent {
            out.push(0);
            let start = out.len();
            for c in s.chars() {
                out.push(weights(c).1 + 1);
            }
            while out.len() > start && out[out.len() - 1] == 1 {
                out.pop();
            }
        }
        if use_case {
            out.push(0);
            let start = out.len();
            for c in s.chars() {
                out.push(weights(c).2 + 1);
            }
            while out.len() > start && out[out.len() - 1] == 1 {
                out.pop();
            }
        }
    }

    /// Case-folds a character the way this collation's equality does (identity for
    /// case-sensitive collations); used by LIKE.
    pub fn fold_char(self, c: char) -> (u32, u8) {
        let w = weights(c);
        match self.kind() {
            Kind::Bin => (c as u32, 0),
            Kind::CiAs => (w.0, w.1),
            Kind::CsAs => (w.0, w.1 * 2 + w.2),
            Kind::CiAi => (w.0, 0),
            Kind::CsAi => (w.0, w.2),
        }
    }
}

/// Strips trailing U+0020 spaces.
#[inline]
pub fn trim_trailing_spaces(s: &str) -> &str {
    s.trim_end_matches(' ')
}

/// Order-preserving varint of a weight >= 1: 1 byte below 0x80, 2 bytes (0x80|hi6) below
/// 0x4000, else 3 bytes (0xC0|hi6).
fn push_weight(w: u32, out: &mut Vec<u8>) {
    if w < 0x80 {
        out.push(w as u8);
    } else if w < 0x4000 {
        out.push(0x80 | (w >> 8) as u8);
        out.push(w as u8);
    } else {
        out.push(0xC0 | ((w >> 16) as u8 & 0x3F));
        out.push((w >> 8) as u8);
        out.push(w as u8);
    }
}

/// Primary weights: 1..=33 controls/space, punctuation 34.., digits, letters.
const PRIMARY_ASCII: [u8; 128] = {
    let mut t = [0u8; 128];
    let mut w = 1u8;
    let mut c = 0usize;
    // controls, space and punctuation (non-alphanumerics) in code order
    while c < 128 {
        let b = c as u8;
        if !(b.is_ascii_alphanumeric()) {
            t[c] = w;
            w += 1;
        }
        c += 1;
    }
    // digits
    c = b'0' as usize;
    while c <= b'9' as usize {
        t[c] = w;
        w += 1;
        c += 1;
    }
    // letters, case-folded
    c = 0;
    while c < 26 {
        t[b'a' as usize + c] = w;
        t[b'A' as usize + c] = w;
        w += 1;
        c += 1;
    }
    t
};

#[inline]
fn ascii_weights(b: u8) -> (u32, u8, u8) {
    (
        PRIMARY_ASCII[(b & 0x7F) as usize] as u32,
        0,
        b.is_ascii_uppercase() as u8,
    )
}

#[inline]
fn compare_ascii(kind: Kind, a: &[u8], b: &[u8]) -> Ordering {
    let use_case = matches!(kind, Kind::CsAs | Kind::CsAi);
    let mut ter = Ordering::Equal;
    let n = a.len().min(b.len());
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        if x == y {
            continue;
        }
        let (px, py) = (PRIMARY_ASCII[x as usize], PRIMARY_ASCII[y as usize]);
        if px != py {
            return px.cmp(&py);
        }
        if ter == Ordering::Equal && use_case {
            ter = x.is_ascii_uppercase().cmp(&y.is_ascii_uppercase());
        }
    }
    a.len().cmp(&b.len()).then(ter)
}

/// Base letter and accent of Latin-1 Supplement letters U+00C0..=U+00FF.
/// Accent codes: 1 grave, 2 acute, 3 circumflex, 4 tilde, 5 diaeresis, 6 ring, 7 cedilla,
/// 8 stroke, 9 ligature, 10 eth, 11 sharp s.
const LATIN1: [(u8, u8); 64] = [
    (b'a', 1),
    (b'a', 2),
    (b'a', 3),
    (b'a', 4),
    (b'a', 5),
    (b'a', 6),
    (b'a', 9),
    (b'c', 7),
    (b'e', 1),
    (b'e', 2),
    (b'e', 3),
    (b'e', 5),
    (b'i', 1),
    (b'i', 2),
    (b'i', 3),
    (b'i', 5),
    (b'd', 10),
    (b'n', 4),
    (b'o', 1),
    (b'o', 2),
    (b'o', 3),
    (b'o', 4),
    (b'o', 5),
    (0, 0), // × (multiplication sign): not a letter
    (b'o', 8),
    (b'u', 1),
    (b'u', 2),
    (b'u', 3),
    (b'u', 5),
    (b'y', 2),
    (0, 1), // Þ thorn: own letter (handled below)
    (b's', 11),
    (b'a', 1),
    (b'a', 2),
    (b'a', 3),
    (b'a', 4),
    (b'a', 5),
    (b'a', 6),
    (b'a', 9),
    (b'c', 7),
    (b'e', 1),
    (b'e', 2),
    (b'e', 3),
    (b'e', 5),
    (b'i', 1),
    (b'i', 2),
    (b'i', 3),
    (b'i', 5),
    (b'd', 10),
    (b'n', 4),
    (b'o', 1),
    (b'o', 2),
    (b'o', 3),
    (b'o', 4),
    (b'o', 5),
    (0, 0), // ÷
    (b'o', 8),
    (b'u', 1),
    (b'u', 2),
    (b'u', 3),
    (b'u', 5),
    (b'y', 2),
    (0, 1), // þ
    (b'y', 5),
];

/// (primary, accent, case) of a character.
#[inline]
pub(crate) fn weights(c: char) -> (u32, u8, u8) {
    let u = c as u32;
    if u < 0x80 {
        return ascii_weights(u as u8);
    }
    if (0xC0..=0xFF).contains(&u) {
        let (base, accent) = LATIN1[(u - 0xC0) as usize];
        let upper = (u < 0xDF && u != 0xD7) as u8;
        if base != 0 {
            return (PRIMARY_ASCII[base as usize] as u32, accent, upper);
        }
        if accent == 1 {
            // thorn: after z
            return (PRIMARY_ASCII[b'z' as usize] as u32 + 1, 0, upper);
        }
    }
    // Other characters: case-folded code point, after all ASCII letters.
    let mut lower = c.to_lowercase();
    let l = match (lower.next(), lower.next()) {
        (Some(l), None) => l,
        _ => c,
    };
    let upper = (l != c) as u8;
    (0x100 + l as u32, 0, upper)
}

#[cfg(test)]
mod tests {
    use super::*;
    use Ordering::*;

    #[test]
    fn default_is_case_insensitive_accent_sensitive() {
        let c = Collation::DEFAULT;
        assert_eq!(c.compare("abc", "ABC"), Equal);
        assert_eq!(c.compare("a", "a  "), Equal);
        assert_eq!(c.compare("a", "b"), Less);
        assert_eq!(c.compare("B", "a"), Greater);
        assert_eq!(c.compare("e", "é"), Less);
        assert_eq!(c.compare("é", "f"), Less);
        assert_eq!(c.compare("É", "é"), Equal);
        assert_eq!(c.compare("ab", "abc"), Less);
        assert_eq!(c.compare("_", "a"), Less);
        assert_eq!(c.compare("1", "a"), Less);
        assert_eq!(c.compare("", "   "), Equal);
    }

    #[test]
    fn case_sensitive_and_binary() {
        let cs = Collation::LATIN1_CS_AS;
        assert_eq!(cs.compare("a", "A"), Less);
        assert_eq!(cs.compare("A", "b"), Less);
        assert_eq!(cs.compare("a", "a "), Equal);
        let b = Collation::BIN2;
        assert_eq!(b.compare("B", "a"), Less);
        assert_eq!(b.compare("a", "a  "), Equal);
        let ai = Collation::CI_AI;
        assert_eq!(ai.compare("É", "e"), Equal);
        assert_eq!(
            Collation::from_name("latin1_general_cs_as"),
            Some(Collation::LATIN1_CS_AS)
        );
        assert_eq!(Collation::DEFAULT.name(), "SQL_Latin1_General_CP1_CI_AS");
    }

    #[test]
    fn sort_key_matches_compare() {
        let words = [
            "", "a", "A", "a ", "ab", "Ab", "é", "É", "e", "f", "ea", "éa", "eá", "z", "_", "1",
            "日本", "ñ", "n", "o", "~", "ß", "ss", "Ω", "ω", "\u{1}",
        ];
        for c in [
            Collation::DEFAULT,
            Collation::LATIN1_CS_AS,
            Collation::BIN2,
            Collation::CI_AI,
        ] {
            for a in words {
                for b in words {
                    let (mut ka, mut kb) = (Vec::new(), Vec::new());
                    c.sort_key(a, &mut ka);
                    c.sort_key(b, &mut kb);
                    assert_eq!(ka.cmp(&kb), c.compare(a, b), "{a:?} {b:?} {}", c.name());
                }
            }
        }
    }
}
