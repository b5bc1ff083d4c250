//! Rendering values for clients: the jsonl encoding of ENGINE_INTERFACE.md and sqlcmd-like
//! text (SQL Server's `CONVERT(varchar, v, 121)` text for date/time types).

use types::{DataType, Value};

/// Days since 0001-01-01 → (year, month, day) in the proleptic Gregorian calendar.
pub fn civil_from_days(days: i32) -> (i32, u32, u32) {
    // Shift to days since 0000-03-01 (Howard Hinnant's algorithm, era-based).
    let z = days as i64 + 306; // 0001-01-01 is 306 days after 0000-03-01
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = if m <= 2 { y + 1 } else { y };
    (y as i32, m, d)
}

fn date_text(days: i32) -> String {
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Time of day from 100 ns ticks with `digits` fractional digits (0..=7).
fn time_text(ticks: i64, digits: u8) -> String {
    let ticks = ticks.rem_euclid(864_000_000_000);
    let secs = ticks / 10_000_000;
    let frac = ticks % 10_000_000;
    let (h, mi, s) = (secs / 3600, (secs / 60) % 60, secs % 60);
    let mut out = format!("{h:02}:{mi:02}:{s:02}");
    if digits > 0 {
        let digits = digits.min(7) as u32;
        let f = frac / 10_i64.pow(7 - digits);
        out.push_str(&format!(".{:0width$}", f, width = digits as usize));
    }
    out
}

fn decimal_text(mantissa: i128, scale: u8) -> String {
    let neg = mantissa < 0;
    let digits = mantissa.unsigned_abs().to_string();
    let scale = scale as usize;
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    if scale == 0 {
        out.push_str(&digits);
    } else if digits.len() > scale {
        out.push_str(&digits[..digits.len() - scale]);
        out.push('.');
        out.push_str(&digits[digits.len() - scale..]);
    } else {
        out.push_str("0.");
        out.push_str(&"0".repeat(scale - digits.len()));
        out.push_str(&digits);
    }
    out
}

fn hex_upper(b: &[u8]) -> String {
    let mut s = String::with_capacity(2 + b.len() * 2);
    s.push_str("0x");
    for x in b {
        s.push_str(&format!("{x:02X}"));
    }
    s
}

/// Canonical upper-case GUID text from SQL Server's byte order (first three groups little-endian).
pub fn guid_text(b: &[u8; 16]) -> String {
    format!(
        "{:02X}{:02X}{:02X}{:02X}-{:02X}{:02X}-{:02X}{:02X}-{:02X}{:02X}-{:02X}{:02X}{:02X}{:02X}{:02X}{:02X}",
        b[3], b[2], b[1], b[0], b[5], b[4], b[7], b[6], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]
    )
}

fn float_text(f: f64) -> String {
    if f.is_finite() {
        format!("{f}")
    } else {
        "null".to_string()
    }
}

fn time_digits(t: &DataType) -> u8 {
    match t {
        DataType::Time(n) | DataType::DateTime2(n) | DataType::DateTimeOffset(n) => *n,
        _ => 7,
    }
}

/// Text of a value as SQL Server's conversion to varchar gives it (style 121 for date/time).
/// `None` for NULL.
pub fn value_text(v: &Value, t: &DataType) -> Option<String> {
    Some(match v {
        Value::Null => return None,
        Value::Bit(b) => (if *b { "1" } else { "0" }).to_string(),
        Value::TinyInt(x) => x.to_string(),
        Value::SmallInt(x) => x.to_string(),
        Value::Int(x) => x.to_string(),
        Value::BigInt(x) => x.to_string(),
        Value::Decimal { mantissa, scale } => decimal_text(*mantissa, *scale),
        Value::Float(f) => float_text(*f),
        Value::Real(f) => float_text(*f as f64),
        Value::Money(m) | Value::SmallMoney(m) => decimal_text(*m as i128, 4),
        Value::Char(s) | Value::VarChar(s) | Value::NChar(s) | Value::NVarChar(s) => s.clone(),
        Value::Binary(b) | Value::VarBinary(b) => hex_upper(b),
        Value::Date(d) => date_text(*d),
        Value::Time(ticks) => time_text(*ticks, time_digits(t)),
        Value::DateTime { days, ticks } => {
            format!("{} {}", date_text(*days), time_text(*ticks, 3))
        }
        Value::SmallDateTime { days, ticks } => {
            format!("{} {}", date_text(*days), time_text(*ticks, 0))
        }
        Value::DateTime2 { days, ticks } => {
            format!("{} {}", date_text(*days), time_text(*ticks, time_digits(t)))
        }
        Value::DateTimeOffset {
            days,
            ticks,
            offset_minutes,
        } => {
            let sign = if *offset_minutes < 0 { '-' } else { '+' };
            let off = offset_minutes.unsigned_abs();
            format!(
                "{} {} {sign}{:02}:{:02}",
                date_text(*days),
                time_text(*ticks, time_digits(t)),
                off / 60,
                off % 60
            )
        }
        Value::UniqueIdentifier(g) => guid_text(g),
        #[allow(unreachable_patterns)] // reason: Value may grow variants in the types crate
        other => format!("{other:?}"),
    })
}

fn json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Appends the jsonl encoding of a value of column type `t` (ENGINE_INTERFACE.md table).
pub fn push_json_value(v: &Value, t: &DataType, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bit(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::TinyInt(_) | Value::SmallInt(_) | Value::Int(_) | Value::BigInt(_) => {
            out.push_str(&value_text(v, t).unwrap_or_default())
        }
        Value::Float(f) => out.push_str(&float_text(*f)),
        Value::Real(f) => out.push_str(&float_text(*f as f64)),
        _ => json_string(&value_text(v, t).unwrap_or_default(), out),
    }
}

/// JSON string literal of `s`.
pub fn json_str(s: &str) -> String {
    let mut out = String::new();
    json_string(s, &mut out);
    out
}

/// Display width sqlcmd gives a column of type `t` (before comparing with the name length).
pub fn display_width(t: &DataType) -> usize {
    match t {
        DataType::Bit => 1,
        DataType::TinyInt => 3,
        DataType::SmallInt => 6,
        DataType::Int => 11,
        DataType::BigInt => 20,
        DataType::Decimal { precision, .. } | DataType::Numeric { precision, .. } => {
            *precision as usize + 2
        }
        DataType::Float => 24,
        DataType::Real => 14,
        DataType::Money => 21,
        DataType::SmallMoney => 12,
        DataType::Char(n) | DataType::NChar(n) | DataType::VarChar(Some(n)) => {
            (*n as usize).min(256)
        }
        DataType::NVarChar(Some(n)) => (*n as usize).min(256),
        DataType::VarChar(None) | DataType::NVarChar(None) => 256,
        DataType::Binary(n) | DataType::VarBinary(Some(n)) => (2 + 2 * *n as usize).min(256),
        DataType::VarBinary(None) => 256,
        DataType::Date => 10,
        DataType::Time(n) => 8 + if *n > 0 { 1 + *n as usize } else { 0 },
        DataType::DateTime => 23,
        DataType::SmallDateTime => 19,
        DataType::DateTime2(n) => 19 + if *n > 0 { 1 + *n as usize } else { 0 },
        DataType::DateTimeOffset(n) => 26 + if *n > 0 { 1 + *n as usize } else { 0 },
        DataType::UniqueIdentifier => 36,
        #[allow(unreachable_patterns)] // reason: DataType may grow variants
        _ => 11,
    }
}

/// Whether sqlcmd right-aligns values of this type.
pub fn right_aligned(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Bit
            | DataType::TinyInt
            | DataType::SmallInt
            | DataType::Int
            | DataType::BigInt
            | DataType::Decimal { .. }
            | DataType::Numeric { .. }
            | DataType::Float
            | DataType::Real
            | DataType::Money
            | DataType::SmallMoney
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_render_like_style_121() {
        assert_eq!(date_text(0), "0001-01-01");
        // 2000-01-01 is day 730119 since 0001-01-01.
        assert_eq!(date_text(730_119), "2000-01-01");
        assert_eq!(
            time_text(12 * 36_000_000_000 + 15 * 600_000_000 + 41_237_000, 7),
            "12:15:04.1237000"
        );
        let v = Value::DateTime {
            days: 730_119,
            ticks: 7_900_000,
        };
        assert_eq!(
            value_text(&v, &DataType::DateTime).unwrap(),
            "2000-01-01 00:00:00.790"
        );
    }

    #[test]
    fn decimals_keep_their_scale() {
        assert_eq!(decimal_text(1250, 3), "1.250");
        assert_eq!(decimal_text(-1, 2), "-0.01");
        assert_eq!(decimal_text(3, 0), "3");
        let mut s = String::new();
        push_json_value(&Value::Money(11_111_100), &DataType::Money, &mut s);
        assert_eq!(s, "\"1111.1100\"");
    }

    #[test]
    fn guid_text_is_mixed_endian() {
        let b = [
            0xEF, 0xFD, 0x24, 0xD4, 0x04, 0x14, 0xAC, 0x4B, 0x82, 0x89, 0xC7, 0x25, 0xB5, 0x40,
            0xF9, 0x3D,
        ];
        assert_eq!(guid_text(&b), "D424FDEF-1404-4BAC-8289-C725B540F93D");
    }
}
