//! One SQL value.

/// A SQL Server value. `Null` carries no type; the static type travels with the expression.
///
/// Representations (chosen so arithmetic and comparison are exact and cheap):
/// * `Decimal`: unscaled i128 mantissa plus scale (value = mantissa / 10^scale), precision ≤ 38.
/// * `Money`: i64 in ten-thousandths (SQL Server's own representation).
/// * `Date`: days since 0001-01-01. `Time`: 100 ns ticks since midnight.
/// * `DateTime`/`DateTime2`/`SmallDateTime`: days since 0001-01-01 and 100 ns ticks in the day;
///   `DateTime` values are kept at SQL Server's 1/300 s granularity.
/// * `DateTimeOffset`: local date/time as above plus offset minutes.
/// * Strings are Rust `String`s; `char(n)` values are stored padded, as SQL Server does.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bit(bool),
    TinyInt(u8),
    SmallInt(i16),
    Int(i32),
    BigInt(i64),
    Decimal {
        mantissa: i128,
        scale: u8,
    },
    Float(f64),
    Real(f32),
    Money(i64),
    SmallMoney(i64),
    Char(String),
    VarChar(String),
    NChar(String),
    NVarChar(String),
    Binary(Vec<u8>),
    VarBinary(Vec<u8>),
    Date(i32),
    Time(i64),
    DateTime {
        days: i32,
        ticks: i64,
    },
    DateTime2 {
        days: i32,
        ticks: i64,
    },
    SmallDateTime {
        days: i32,
        ticks: i64,
    },
    DateTimeOffset {
        days: i32,
        ticks: i64,
        offset_minutes: i16,
    },
    UniqueIdentifier([u8; 16]),
}

impl Value {
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }
}

use crate::charset;
use crate::datetime::{self, DtKind};
use crate::decimal;
use crate::DataType;

impl Value {
    /// The natural type of a value (what a literal of this value has): strings get their own
    /// length (at least 1, `max` beyond 8000 bytes / 4000 characters), decimals the precision
    /// of their digits, date/time types their maximum fractional precision.
    pub fn data_type(&self) -> DataType {
        match self {
            Value::Null => DataType::Null,
            Value::Bit(_) => DataType::Bit,
            Value::TinyInt(_) => DataType::TinyInt,
            Value::SmallInt(_) => DataType::SmallInt,
            Value::Int(_) => DataType::Int,
            Value::BigInt(_) => DataType::BigInt,
            Value::Decimal { mantissa, scale } => DataType::Numeric {
                precision: decimal::digits(*mantissa).max(*scale).clamp(1, 38),
                scale: (*scale).min(38),
            },
            Value::Float(_) => DataType::Float,
            Value::Real(_) => DataType::Real,
            Value::Money(_) => DataType::Money,
            Value::SmallMoney(_) => DataType::SmallMoney,
            Value::Char(s) => DataType::Char(charset::varchar_len(s).clamp(1, 8000) as u32),
            Value::VarChar(s) => {
                let n = charset::varchar_len(s);
                DataType::VarChar(if n > 8000 {
                    None
                } else {
                    Some(n.max(1) as u32)
                })
            }
            Value::NChar(s) => DataType::NChar(charset::utf16_len(s).clamp(1, 4000) as u32),
            Value::NVarChar(s) => {
                let n = charset::utf16_len(s);
                DataType::NVarChar(if n > 4000 {
                    None
                } else {
                    Some(n.max(1) as u32)
                })
            }
            Value::Binary(b) => DataType::Binary(b.len().clamp(1, 8000) as u32),
            Value::VarBinary(b) => DataType::VarBinary(if b.len() > 8000 {
                None
            } else {
                Some(b.len().max(1) as u32)
            }),
            Value::Date(_) => DataType::Date,
            Value::Time(_) => DataType::Time(7),
            Value::DateTime { .. } => DataType::DateTime,
            Value::DateTime2 { .. } => DataType::DateTime2(7),
            Value::SmallDateTime { .. } => DataType::SmallDateTime,
            Value::DateTimeOffset { .. } => DataType::DateTimeOffset(7),
            Value::UniqueIdentifier(_) => DataType::UniqueIdentifier,
        }
    }

    /// The string content of char/varchar/nchar/nvarchar values.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Char(s) | Value::VarChar(s) | Value::NChar(s) | Value::NVarChar(s) => Some(s),
            _ => None,
        }
    }

    /// The bytes of binary/varbinary values.
    pub fn as_bytes(&self) -> Option<&[u8]> {
        match self {
            Value::Binary(b) | Value::VarBinary(b) => Some(b),
            _ => None,
        }
    }

    /// Integer value of bit/tinyint/smallint/int/bigint.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Bit(b) => Some(*b as i64),
            Value::TinyInt(x) => Some(*x as i64),
            Value::SmallInt(x) => Some(*x as i64),
            Value::Int(x) => Some(*x as i64),
            Value::BigInt(x) => Some(*x),
            _ => None,
        }
    }

    /// Exact numerics as (mantissa, scale): integers, bit, decimal, money.
    pub fn as_decimal(&self) -> Option<(i128, u8)> {
        match self {
            Value::Decimal { mantissa, scale } => Some((*mantissa, *scale)),
            Value::Money(m) | Value::SmallMoney(m) => Some((*m as i128, 4)),
            v => v.as_i64().map(|x| (x as i128, 0)),
        }
    }

    /// Any numeric as f64 (decimal via the deterministic conversion).
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Float(f) => Some(*f),
            Value::Real(f) => Some(*f as f64),
            v => v.as_decimal().map(|(m, s)| decimal::to_f64(m, s)),
        }
    }

    /// Truthiness of a bit value (for predicates that arrive as bit).
    pub fn is_true(&self) -> bool {
        matches!(self, Value::Bit(true))
    }

    /// SQL Server's text of the value for the jsonl interface: CONVERT(varchar, v, 121) for
    /// date/time types (time/datetime2/datetimeoffset at 7 digits — use [`Value::to_sql_text_as`]
    /// to honour a declared scale), decimals with exactly their scale, money with 4 digits,
    /// floats as shortest round-trip text, binary as `0x` + upper-case hex, uniqueidentifier
    /// upper-case. NULL renders as `NULL`.
    pub fn to_sql_text(&self) -> String {
        let mut s = String::new();
        self.write_sql_text(None, &mut s);
        s
    }

    /// Like [`Value::to_sql_text`] with the declared type's scale/length (time(n),
    /// datetime2(n), decimal(p,s), char(n) padding, binary(n) padding).
    pub fn to_sql_text_as(&self, ty: &DataType) -> String {
        let mut s = String::new();
        self.write_sql_text(Some(ty), &mut s);
        s
    }

    fn write_sql_text(&self, ty: Option<&DataType>, out: &mut String) {
        let frac = |default: u8| match ty {
            Some(DataType::Time(s) | DataType::DateTime2(s) | DataType::DateTimeOffset(s)) => {
                (*s).min(7)
            }
            _ => default,
        };
        match self {
            Value::Null => out.push_str("NULL"),
            Value::Bit(b) => out.push(if *b { '1' } else { '0' }),
            Value::TinyInt(x) => out.push_str(&x.to_string()),
            Value::SmallInt(x) => out.push_str(&x.to_string()),
            Value::Int(x) => out.push_str(&x.to_string()),
            Value::BigInt(x) => out.push_str(&x.to_string()),
            Value::Decimal { mantissa, scale } => {
                let target = match ty {
                    Some(DataType::Decimal { scale, .. } | DataType::Numeric { scale, .. }) => {
                        *scale
                    }
                    _ => *scale,
                };
                let (m, s) = match decimal::rescale(*mantissa, *scale, target) {
                    Some(m) => (m, target),
                    None => (*mantissa, *scale),
                };
                decimal::format(m, s, out)
            }
            Value::Float(f) => out.push_str(&format_float(*f)),
            Value::Real(f) => out.push_str(&format_real(*f)),
            Value::Money(m) | Value::SmallMoney(m) => decimal::format(*m as i128, 4, out),
            Value::Char(s) | Value::NChar(s) => {
                out.push_str(s);
                if let Some(DataType::Char(n) | DataType::NChar(n)) = ty {
                    let unicode = matches!(ty, Some(DataType::NChar(_)));
                    let len = charset::str_len(s, unicode);
                    for _ in len..*n as usize {
                        out.push(' ');
                    }
                }
            }
            Value::VarChar(s) | Value::NVarChar(s) => out.push_str(s),
            Value::Binary(b) | Value::VarBinary(b) => {
                out.push_str("0x");
                push_hex(b, out);
                if let Some(DataType::Binary(n)) = ty {
                    for _ in b.len()..*n as usize {
                        out.push_str("00");
                    }
                }
            }
            Value::Date(d) => datetime::fmt_date(*d, out),
            Value::Time(t) => datetime::fmt_time(*t, frac(7), out),
            Value::DateTime { days, ticks } => out.push_str(
                &datetime::format_style(DtKind::DateTime, *days, *ticks, 0, 121)
                    .unwrap_or_default(),
            ),
            Value::SmallDateTime { days, ticks } => {
                datetime::fmt_date(*days, out);
                out.push(' ');
                datetime::fmt_time(*ticks, 0, out);
            }
            Value::DateTime2 { days, ticks } => {
                datetime::fmt_date(*days, out);
                out.push(' ');
                datetime::fmt_time(*ticks, frac(7), out);
            }
            Value::DateTimeOffset {
                days,
                ticks,
                offset_minutes,
            } => {
                datetime::fmt_date(*days, out);
                out.push(' ');
                datetime::fmt_time(*ticks, frac(7), out);
                out.push(' ');
                datetime::fmt_offset(*offset_minutes, out);
            }
            Value::UniqueIdentifier(g) => out.push_str(&guid_text(g)),
        }
    }

    /// The JSON value ENGINE_INTERFACE.md specifies for this value in a column of type `ty`.
    pub fn to_json(&self, ty: &DataType) -> String {
        match self {
            Value::Null => "null".into(),
            Value::Bit(b) => (if *b { "true" } else { "false" }).into(),
            Value::TinyInt(_) | Value::SmallInt(_) | Value::Int(_) | Value::BigInt(_) => {
                self.to_sql_text()
            }
            Value::Float(f) => {
                if f.is_finite() {
                    format_float(*f)
                } else {
                    "null".into()
                }
            }
            Value::Real(f) => {
                if f.is_finite() {
                    format_real(*f)
                } else {
                    "null".into()
                }
            }
            _ => json_string(&self.to_sql_text_as(ty)),
        }
    }

    /// Text for the CLI's table format (sqlcmd-like): like [`Value::to_sql_text`] but floats in
    /// SQL Server's display style (`1.5`, `1E+20`).
    pub fn to_display_text(&self, ty: &DataType) -> String {
        match self {
            Value::Float(f) => display_float(*f),
            Value::Real(f) => display_float(*f as f64),
            _ => self.to_sql_text_as(ty),
        }
    }
}

/// Upper-case hex digits of bytes.
pub fn push_hex(b: &[u8], out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    out.reserve(b.len() * 2);
    for x in b {
        out.push(HEX[(x >> 4) as usize] as char);
        out.push(HEX[(x & 15) as usize] as char);
    }
}

/// The canonical text of a uniqueidentifier stored in SQL Server's byte order (the first three
/// groups little-endian).
pub fn guid_text(g: &[u8; 16]) -> String {
    let mut s = String::with_capacity(36);
    push_hex(&[g[3], g[2], g[1], g[0]], &mut s);
    s.push('-');
    push_hex(&[g[5], g[4]], &mut s);
    s.push('-');
    push_hex(&[g[7], g[6]], &mut s);
    s.push('-');
    push_hex(&g[8..10], &mut s);
    s.push('-');
    push_hex(&g[10..16], &mut s);
    s
}

/// Parses `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` (optionally in braces) into SQL Server byte order.
pub fn parse_guid(text: &str) -> Option<[u8; 16]> {
    let t = text.trim_matches(|c: char| c == ' ');
    let t = t
        .strip_prefix('{')
        .and_then(|x| x.strip_suffix('}'))
        .unwrap_or(t);
    let b = t.as_bytes();
    if b.len() != 36 || b[8] != b'-' || b[13] != b'-' || b[18] != b'-' || b[23] != b'-' {
        return None;
    }
    let hex: Vec<u8> = b.iter().copied().filter(|c| *c != b'-').collect();
    if hex.len() != 32 {
        return None;
    }
    let mut raw = [0u8; 16];
    for i in 0..16 {
        let h = (hex[2 * i] as char).to_digit(16)?;
        let l = (hex[2 * i + 1] as char).to_digit(16)?;
        raw[i] = (h * 16 + l) as u8;
    }
    Some([
        raw[3], raw[2], raw[1], raw[0], raw[5], raw[4], raw[7], raw[6], raw[8], raw[9], raw[10],
        raw[11], raw[12], raw[13], raw[14], raw[15],
    ])
}

/// JSON string literal with escapes.
pub fn json_string(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            '\r' => o.push_str("\\r"),
            '\t' => o.push_str("\\t"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// Shortest round-trip text of a double, valid as a JSON number (`88`, `0.1`, `1e+20` style
/// exponents as `1e20`).
pub fn format_float(f: f64) -> String {
    if f == 0.0 {
        return "0".into();
    }
    let a = f.abs();
    if (1e-5..1e16).contains(&a) {
        format!("{}", f)
    } else {
        format!("{:e}", f)
    }
}

/// Shortest round-trip text of a float32.
pub fn format_real(f: f32) -> String {
    if f == 0.0 {
        return "0".into();
    }
    let a = f.abs();
    if (1e-5..1e16).contains(&a) {
        format!("{}", f)
    } else {
        format!("{:e}", f)
    }
}

/// SQL Server's client display of a float: `1.5`, `1E+20`, `1.5E-07`.
pub fn display_float(f: f64) -> String {
    if !f.is_finite() {
        return format!("{f}");
    }
    if f == 0.0 {
        return "0".into();
    }
    let a = f.abs();
    if (1e-4..1e15).contains(&a) {
        return format!("{}", f);
    }
    let e = format!("{:e}", f);
    match e.split_once('e') {
        Some((m, x)) => {
            let (sign, digits) = match x.strip_prefix('-') {
                Some(d) => ('-', d),
                None => ('+', x),
            };
            let digits = if digits.len() < 2 {
                format!("0{digits}")
            } else {
                digits.to_string()
            };
            format!("{m}E{sign}{digits}")
        }
        None => e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datetime::{days_from_civil, TICKS_PER_HOUR, TICKS_PER_SEC};

    #[test]
    fn sql_text() {
        assert_eq!(
            Value::Decimal {
                mantissa: 1250,
                scale: 3
            }
            .to_sql_text(),
            "1.250"
        );
        assert_eq!(Value::Money(11_111_100).to_sql_text(), "1111.1100");
        assert_eq!(
            Value::Float(153.76000000000002).to_sql_text(),
            "153.76000000000002"
        );
        assert_eq!(Value::Float(88.0).to_json(&DataType::Float), "88");
        assert_eq!(Value::Float(f64::NAN).to_json(&DataType::Float), "null");
        let d = days_from_civil(2000, 10, 12);
        let t =
            datetime::round_to_datetime(34 * 60 * TICKS_PER_SEC + 56 * TICKS_PER_SEC + 7_900_000);
        assert_eq!(
            Value::DateTime { days: d, ticks: t }.to_sql_text(),
            "2000-10-12 00:34:56.790"
        );
        assert_eq!(
            Value::DateTime2 {
                days: d,
                ticks: 12 * TICKS_PER_HOUR
            }
            .to_sql_text_as(&DataType::DateTime2(3)),
            "2000-10-12 12:00:00.000"
        );
        assert_eq!(
            Value::DateTimeOffset {
                days: d,
                ticks: 0,
                offset_minutes: 60
            }
            .to_sql_text(),
            "2000-10-12 00:00:00.0000000 +01:00"
        );
        assert_eq!(
            Value::Time(
                12 * TICKS_PER_HOUR + 15 * 60 * TICKS_PER_SEC + 4 * TICKS_PER_SEC + 1_237_000
            )
            .to_sql_text_as(&DataType::Time(7)),
            "12:15:04.1237000"
        );
        assert_eq!(
            Value::Binary(vec![0x0C, 0x04, 0xC0]).to_json(&DataType::Binary(5)),
            "\"0x0C04C00000\""
        );
        assert_eq!(
            Value::Char("abc".into()).to_json(&DataType::Char(6)),
            "\"abc   \""
        );
        assert_eq!(Value::Bit(true).to_json(&DataType::Bit), "true");
        assert_eq!(
            Value::VarChar("a\"b\n".into()).to_json(&DataType::VarChar(None)),
            "\"a\\\"b\\n\""
        );
        assert_eq!(
            Value::Decimal {
                mantissa: 125,
                scale: 1
            }
            .to_json(&DataType::decimal(10, 3)),
            "\"12.500\""
        );
    }

    #[test]
    fn guid_round_trip() {
        let text = "D424FDEF-1404-4BAC-8289-C725B540F93D";
        let g = parse_guid(text).unwrap();
        assert_eq!(g[0], 0xEF);
        assert_eq!(guid_text(&g), text);
        assert_eq!(parse_guid(&text.to_lowercase()), Some(g));
        assert!(parse_guid("D424FDEF-1404-4BAC-8289-C725B540F93").is_none());
    }

    #[test]
    fn display_floats() {
        assert_eq!(display_float(1.5), "1.5");
        assert_eq!(display_float(1e20), "1E+20");
        assert_eq!(display_float(1.5e-7), "1.5E-07");
    }
}
