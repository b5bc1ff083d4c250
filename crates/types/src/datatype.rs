//! SQL Server system data types.

/// A SQL Server type, with its declared length / precision / scale.
///
/// Lengths are in characters for `Char`/`VarChar`/`NChar`/`NVarChar` and bytes for binary types;
/// `None` length on a variable type means `(MAX)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum DataType {
    Bit,
    TinyInt,
    SmallInt,
    Int,
    BigInt,
    /// `decimal(p, s)`; `numeric` is the same type but keeps its name for metadata.
    Decimal {
        precision: u8,
        scale: u8,
    },
    Numeric {
        precision: u8,
        scale: u8,
    },
    Float,
    Real,
    Money,
    SmallMoney,
    Char(u32),
    VarChar(Option<u32>),
    NChar(u32),
    NVarChar(Option<u32>),
    Binary(u32),
    VarBinary(Option<u32>),
    Date,
    /// `time(n)`, n = fractional-second digits 0..=7.
    Time(u8),
    DateTime,
    DateTime2(u8),
    SmallDateTime,
    DateTimeOffset(u8),
    UniqueIdentifier,
    /// The type of an untyped NULL literal before it meets context.
    Null,
}
