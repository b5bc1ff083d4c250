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
