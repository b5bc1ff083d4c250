//! Rendering values for clients: the jsonl encoding of ENGINE_INTERFACE.md and sqlcmd-like
//! text (SQL Server's `CONVERT(varchar, v, 121)` text for date/time types).

use types::{DataType, Value};

/// Text of a value as SQL Server's conversion to varchar gives it (style 121 for date/time).
/// `None` for NULL. Delegates to `types`, the one implementation of SQL Server's rendering
/// (it keeps datetime on the 1/300 s grid: 2/300 s prints `.007`, not a truncated `.006`).
pub fn value_text(v: &Value, t: &DataType) -> Option<String> {
    (!v.is_null()).then(|| v.to_sql_text_as(t))
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
    out.push_str(&v.to_json(t));
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
        assert_eq!(
            value_text(&Value::Date(0), &DataType::Date).unwrap(),
            "0001-01-01"
        );
        // 2000-01-01 is day 730119 since 0001-01-01.
        assert_eq!(
            value_text(&Value::Date(730_119), &DataType::Date).unwrap(),
            "2000-01-01"
        );
        assert_eq!(
            value_text(
                &Value::Time(12 * 36_000_000_000 + 15 * 600_000_000 + 41_237_000),
                &DataType::Time(7)
            )
            .unwrap(),
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
    fn datetime_keeps_the_one_three_hundredth_grid() {
        // 2/300 s: SQL Server prints .007 (a truncating renderer printed .006).
        let v = Value::DateTime {
            days: 730_119,
            ticks: 66_667,
        };
        assert_eq!(
            value_text(&v, &DataType::DateTime).unwrap(),
            "2000-01-01 00:00:00.007"
        );
    }

    #[test]
    fn decimals_keep_their_scale() {
        let dec = |mantissa, scale| {
            value_text(
                &Value::Decimal { mantissa, scale },
                &DataType::Decimal {
                    precision: 18,
                    scale,
                },
            )
            .unwrap()
        };
        assert_eq!(dec(1250, 3), "1.250");
        assert_eq!(dec(-1, 2), "-0.01");
        assert_eq!(dec(3, 0), "3");
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
        assert_eq!(
            value_text(&Value::UniqueIdentifier(b), &DataType::UniqueIdentifier).unwrap(),
            "D424FDEF-1404-4BAC-8289-C725B540F93D"
        );
    }
}
