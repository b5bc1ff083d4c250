//! What SQL Server sends a client that logged in with a TDS version older than 7.3: the date
//! and time types of SQL Server 2008 (date, time, datetime2, datetimeoffset; TYPE_INFO 0x28 to
//! 0x2B exist from TDS 7.3 on) go as NVARCHAR columns holding their literal text, sized for the
//! longest literal of the column's fractional-seconds scale ("Enhanced Date/Time Type Behavior
//! with Previous SQL Server Versions", down-level client behaviour). Everything else a TDS 7.2
//! client understands as it is (the max types are PLP from 7.2 on; latchkey accepts no older
//! version).

use ::types::{DataType, Value};

/// TDS 7.3A, the first version with DATENTYPE, TIMENTYPE, DATETIME2NTYPE and
/// DATETIMEOFFSETNTYPE.
pub const TDS73: u32 = 0x730A_0003;

/// Whether a client that logged in with `tds_version` gets the new date/time types as text.
pub fn dates_as_text(tds_version: u32) -> bool {
    tds_version < TDS73
}

/// The longest literal of a date/time type: `yyyy-mm-dd`, `hh:mm:ss[.fffffff]`,
/// `yyyy-mm-dd hh:mm:ss[.fffffff]`, `yyyy-mm-dd hh:mm:ss[.fffffff] +hh:mm`.
fn literal_len(dt: &DataType) -> Option<u32> {
    let fraction = |scale: u8| {
        if scale == 0 {
            0
        } else {
            1 + scale.min(7) as u32
        }
    };
    Some(match dt {
        DataType::Date => 10,
        DataType::Time(s) => 8 + fraction(*s),
        DataType::DateTime2(s) => 19 + fraction(*s),
        DataType::DateTimeOffset(s) => 26 + fraction(*s),
        _ => return None,
    })
}

/// The type a pre-7.3 client is told for a column of type `dt`: `nvarchar(n)` for the
/// 2008 date/time types, `None` for every type it knows.
pub fn column_type(dt: &DataType) -> Option<DataType> {
    literal_len(dt).map(|n| DataType::NVarChar(Some(n)))
}

/// A value of a column [`column_type`] changed: its literal, as `CAST(v AS nvarchar(n))`
/// writes it (the scale's digits of fraction, the offset as `+hh:mm`). NULL stays NULL; a
/// value that is not of a date/time type is returned unchanged.
pub fn value_text(v: &Value, dt: &DataType) -> Value {
    match column_type(dt) {
        Some(text) if !v.is_null() => v.cast(&text).unwrap_or_else(|_| v.clone()),
        _ => v.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_versions_before_7_3_get_text() {
        assert!(dates_as_text(0x7209_0002)); // TDS 7.2
        assert!(!dates_as_text(0x730A_0003)); // 7.3A
        assert!(!dates_as_text(0x730B_0003)); // 7.3B
        assert!(!dates_as_text(0x7400_0004)); // 7.4
    }

    #[test]
    fn column_sizes_are_the_longest_literal_of_the_scale() {
        assert_eq!(
            column_type(&DataType::Date),
            Some(DataType::NVarChar(Some(10)))
        );
        assert_eq!(
            column_type(&DataType::Time(0)),
            Some(DataType::NVarChar(Some(8)))
        );
        assert_eq!(
            column_type(&DataType::Time(7)),
            Some(DataType::NVarChar(Some(16)))
        );
        assert_eq!(
            column_type(&DataType::DateTime2(3)),
            Some(DataType::NVarChar(Some(23)))
        );
        assert_eq!(
            column_type(&DataType::DateTime2(7)),
            Some(DataType::NVarChar(Some(27)))
        );
        assert_eq!(
            column_type(&DataType::DateTimeOffset(7)),
            Some(DataType::NVarChar(Some(34)))
        );
        assert_eq!(
            column_type(&DataType::DateTimeOffset(0)),
            Some(DataType::NVarChar(Some(26)))
        );
        // the types TDS 7.2 has keep their own encoding
        assert_eq!(column_type(&DataType::DateTime), None);
        assert_eq!(column_type(&DataType::SmallDateTime), None);
        assert_eq!(column_type(&DataType::NVarChar(None)), None);
    }

    fn text_of(literal: &str, dt: DataType) -> Value {
        let v = Value::NVarChar(literal.into())
            .cast(&dt)
            .expect("a valid literal");
        value_text(&v, &dt)
    }

    #[test]
    fn values_are_their_literals() {
        assert_eq!(
            text_of("2024-02-29", DataType::Date),
            Value::NVarChar("2024-02-29".into())
        );
        assert_eq!(
            text_of("13:45:10.5", DataType::Time(7)),
            Value::NVarChar("13:45:10.5000000".into())
        );
        assert_eq!(
            text_of("23:59:59", DataType::Time(0)),
            Value::NVarChar("23:59:59".into())
        );
        assert_eq!(
            text_of("2024-02-29T13:45:10.1234567", DataType::DateTime2(7)),
            Value::NVarChar("2024-02-29 13:45:10.1234567".into())
        );
        assert_eq!(
            text_of("2024-02-29T13:45:10.123", DataType::DateTime2(3)),
            Value::NVarChar("2024-02-29 13:45:10.123".into())
        );
        assert_eq!(
            text_of(
                "2024-02-29T13:45:10.1234567+05:30",
                DataType::DateTimeOffset(7)
            ),
            Value::NVarChar("2024-02-29 13:45:10.1234567 +05:30".into())
        );
        assert_eq!(value_text(&Value::Null, &DataType::Date), Value::Null);
        assert_eq!(value_text(&Value::Int(3), &DataType::Int), Value::Int(3));
    }
}
