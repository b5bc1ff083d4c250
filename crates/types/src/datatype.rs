//! SQL Server system data types: names, declarations, precedence and storage sizes.

use common::{SqlError, SqlResult};
use std::fmt;

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

/// One parameter of a type declaration: `varchar(10)` has `Num(10)`, `varchar(max)` has `Max`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeParam {
    Num(i64),
    Max,
}

/// Maximum decimal precision.
pub const MAX_PRECISION: u8 = 38;

impl DataType {
    /// The system type name in lower case, as `sys.types.name` / the jsonl `type` field shows it.
    pub fn sql_name(&self) -> &'static str {
        match self {
            DataType::Bit => "bit",
            DataType::TinyInt => "tinyint",
            DataType::SmallInt => "smallint",
            DataType::Int => "int",
            DataType::BigInt => "bigint",
            DataType::Decimal { .. } => "decimal",
            DataType::Numeric { .. } => "numeric",
            DataType::Float => "float",
            DataType::Real => "real",
            DataType::Money => "money",
            DataType::SmallMoney => "smallmoney",
            DataType::Char(_) => "char",
            DataType::VarChar(_) => "varchar",
            DataType::NChar(_) => "nchar",
            DataType::NVarChar(_) => "nvarchar",
            DataType::Binary(_) => "binary",
            DataType::VarBinary(_) => "varbinary",
            DataType::Date => "date",
            DataType::Time(_) => "time",
            DataType::DateTime => "datetime",
            DataType::DateTime2(_) => "datetime2",
            DataType::SmallDateTime => "smalldatetime",
            DataType::DateTimeOffset(_) => "datetimeoffset",
            DataType::UniqueIdentifier => "uniqueidentifier",
            DataType::Null => "int",
        }
    }

    /// `decimal(p,s)`/`numeric(p,s)` for precision and scale.
    pub fn decimal(precision: u8, scale: u8) -> DataType {
        DataType::Decimal { precision, scale }
    }

    /// Resolves a T-SQL type name (synonyms included) with its declaration parameters, using
    /// the defaults of a column/variable declaration (`varchar` = `varchar(1)`).
    pub fn from_name(name: &str, params: &[TypeParam]) -> SqlResult<DataType> {
        Self::resolve(name, params, 1)
    }

    /// Like [`DataType::from_name`] but with the defaults of `CAST`/`CONVERT`
    /// (`varchar` = `varchar(30)`).
    pub fn from_name_in_cast(name: &str, params: &[TypeParam]) -> SqlResult<DataType> {
        Self::resolve(name, params, 30)
    }

    fn resolve(name: &str, params: &[TypeParam], default_len: u32) -> SqlResult<DataType> {
        let norm: String = name
            .split_whitespace()
            .map(|w| w.to_ascii_lowercase())
            .collect::<Vec<_>>()
            .join(" ");
        let lname = norm
            .strip_prefix("sys.")
            .or_else(|| norm.strip_prefix("[sys].")) // tolerate qualified system type names
            .unwrap_or(&norm)
            .trim_matches(|c| c == '[' || c == ']')
            .to_string();
        let too_many = || SqlError::new(2716, &[&1, &name]);
        let no_params = |t: DataType| -> SqlResult<DataType> {
            if params.is_empty() {
                Ok(t)
            } else {
                Err(too_many())
            }
        };
        let num = |p: &TypeParam| -> SqlResult<i64> {
            match p {
                TypeParam::Num(n) => Ok(*n),
                TypeParam::Max => Err(SqlError::new(2716, &[&1, &name])),
            }
        };
        let length = |max: u32, allow_max: bool| -> SqlResult<Option<u32>> {
            match params {
                [] => Ok(Some(default_len)),
                [TypeParam::Max] if allow_max => Ok(None),
                [TypeParam::Max] => Err(SqlError::new(2716, &[&1, &name])),
                [TypeParam::Num(n)] => {
                    if *n < 1 {
                        Err(SqlError::new(1001, &[&1, &n]))
                    } else if *n > max as i64 {
                        Err(SqlError::new(131, &[&n, &"type", &lname, &max]))
                    } else {
                        Ok(Some(*n as u32))
                    }
                }
                _ => Err(too_many()),
            }
        };
        let frac = |default: u8| -> SqlResult<u8> {
            match params {
                [] => Ok(default),
                [p] => {
                    let n = num(p)?;
                    if !(0..=7).contains(&n) {
                        Err(SqlError::new(1002, &[&1, &n]))
                    } else {
                        Ok(n as u8)
                    }
                }
                _ => Err(too_many()),
            }
        };
        let dec = |numeric: bool| -> SqlResult<DataType> {
            let (p, s) = match params {
                [] => (18, 0),
                [p] => (num(p)?, 0),
                [p, s] => (num(p)?, num(s)?),
                _ => return Err(too_many()),
            };
            if !(1..=38).contains(&p) {
                return Err(SqlError::new(2750, &[&1, &p, &38]));
            }
            if s < 0 || s > p {
                return Err(SqlError::new(2751, &[&1, &s, &p]));
            }
            let (precision, scale) = (p as u8, s as u8);
            Ok(if numeric {
                DataType::Numeric { precision, scale }
            } else {
                DataType::Decimal { precision, scale }
            })
        };
        match lname.as_str() {
            "bit" => no_params(DataType::Bit),
            "tinyint" => no_params(DataType::TinyInt),
            "smallint" => no_params(DataType::SmallInt),
            "int" | "integer" => no_params(DataType::Int),
            "bigint" => no_params(DataType::BigInt),
            "decimal" | "dec" => dec(false),
            "numeric" => dec(true),
            "money" => no_params(DataType::Money),
            "smallmoney" => no_params(DataType::SmallMoney),
            "real" => no_params(DataType::Real),
            "double precision" => no_params(DataType::Float),
            "float" => match params {
                [] => Ok(DataType::Float),
                [p] => {
                    let n = num(p)?;
                    match n {
                        1..=24 => Ok(DataType::Real),
                        25..=53 => Ok(DataType::Float),
                        _ => Err(SqlError::new(2750, &[&1, &n, &53])),
                    }
                }
                _ => Err(too_many()),
            },
            "char" | "character" => Ok(DataType::Char(length(8000, false)?.unwrap_or(1))),
            "varchar" | "char varying" | "character varying" => {
                Ok(DataType::VarChar(length(8000, true)?))
            }
            "nchar" | "national char" | "national character" => {
                Ok(DataType::NChar(length(4000, false)?.unwrap_or(1)))
            }
            "nvarchar" | "national char varying" | "national character varying" => {
                Ok(DataType::NVarChar(length(4000, true)?))
            }
            "binary" => Ok(DataType::Binary(length(8000, false)?.unwrap_or(1))),
            "varbinary" | "binary varying" => Ok(DataType::VarBinary(length(8000, true)?)),
            "text" => no_params(DataType::VarChar(None)),
            "ntext" | "national text" | "xml" => no_params(DataType::NVarChar(None)),
            "image" => no_params(DataType::VarBinary(None)),
            "sysname" => no_params(DataType::NVarChar(Some(128))),
            "timestamp" | "rowversion" => no_params(DataType::Binary(8)),
            "date" => no_params(DataType::Date),
            "time" => Ok(DataType::Time(frac(7)?)),
            "datetime" => no_params(DataType::DateTime),
            "datetime2" => Ok(DataType::DateTime2(frac(7)?)),
            "smalldatetime" => no_params(DataType::SmallDateTime),
            "datetimeoffset" => Ok(DataType::DateTimeOffset(frac(7)?)),
            "uniqueidentifier" => no_params(DataType::UniqueIdentifier),
            _ => Err(SqlError::new(243, &[&name])),
        }
    }

    /// SQL Server's data type precedence: a higher number wins an implicit conversion.
    /// (user-defined 31 … binary 1; `Null` 0 loses to everything.)
    pub fn precedence(&self) -> u8 {
        match self {
            DataType::DateTimeOffset(_) => 28,
            DataType::DateTime2(_) => 27,
            DataType::DateTime => 26,
            DataType::SmallDateTime => 25,
            DataType::Date => 24,
            DataType::Time(_) => 23,
            DataType::Float => 22,
            DataType::Real => 21,
            DataType::Decimal { .. } | DataType::Numeric { .. } => 20,
            DataType::Money => 19,
            DataType::SmallMoney => 18,
            DataType::BigInt => 17,
            DataType::Int => 16,
            DataType::SmallInt => 15,
            DataType::TinyInt => 14,
            DataType::Bit => 13,
            // 12 ntext, 11 text, 10 image, 9 timestamp (mapped to max types / binary here)
            DataType::UniqueIdentifier => 8,
            DataType::NVarChar(_) => 7,
            DataType::NChar(_) => 6,
            DataType::VarChar(_) => 5,
            DataType::Char(_) => 4,
            DataType::VarBinary(_) => 3,
            DataType::Binary(_) => 2,
            DataType::Null => 0,
        }
    }

    /// The type with the higher precedence (the left one on ties).
    pub fn higher_precedence<'a>(a: &'a DataType, b: &'a DataType) -> &'a DataType {
        if b.precedence() > a.precedence() {
            b
        } else {
            a
        }
    }

    /// True for types stored in a fixed number of bytes (everything but var*/max types).
    pub fn fixed_width(&self) -> bool {
        crate::codec::fixed_width(self).is_some()
    }

    /// `sys.columns.max_length`: storage bytes; -1 for `(max)` types.
    pub fn max_length_bytes(&self) -> i32 {
        match self {
            DataType::Bit | DataType::TinyInt => 1,
            DataType::SmallInt => 2,
            DataType::Int | DataType::Real | DataType::SmallMoney | DataType::SmallDateTime => 4,
            DataType::BigInt | DataType::Float | DataType::Money | DataType::DateTime => 8,
            DataType::Decimal { precision, .. } | DataType::Numeric { precision, .. } => {
                decimal_storage_bytes(*precision) as i32
            }
            DataType::Char(n) | DataType::Binary(n) => *n as i32,
            DataType::NChar(n) => *n as i32 * 2,
            DataType::VarChar(n) | DataType::VarBinary(n) => n.map_or(-1, |n| n as i32),
            DataType::NVarChar(n) => n.map_or(-1, |n| n as i32 * 2),
            DataType::Date => 3,
            DataType::Time(s) => time_bytes(*s) as i32,
            DataType::DateTime2(s) => time_bytes(*s) as i32 + 3,
            DataType::DateTimeOffset(s) => time_bytes(*s) as i32 + 5,
            DataType::UniqueIdentifier => 16,
            DataType::Null => 4,
        }
    }

    /// `sys.columns.precision` (0 for string/binary types).
    pub fn precision(&self) -> u8 {
        match self {
            DataType::Bit => 1,
            DataType::TinyInt => 3,
            DataType::SmallInt => 5,
            DataType::Int | DataType::Null => 10,
            DataType::BigInt => 19,
            DataType::Decimal { precision, .. } | DataType::Numeric { precision, .. } => *precision,
            DataType::Float => 53,
            DataType::Real => 24,
            DataType::Money => 19,
            DataType::SmallMoney => 10,
            DataType::Date => 10,
            DataType::Time(s) => 8 + if *s > 0 { s + 1 } else { 0 },
            DataType::DateTime => 23,
            DataType::DateTime2(s) => 19 + if *s > 0 { s + 1 } else { 0 },
            DataType::SmallDateTime => 16,
            DataType::DateTimeOffset(s) => 26 + if *s > 0 { s + 1 } else { 0 },
            _ => 0,
        }
    }

    /// `sys.columns.scale` (fractional digits for decimal, money, time types).
    pub fn scale(&self) -> u8 {
        match self {
            DataType::Decimal { scale, .. } | DataType::Numeric { scale, .. } => *scale,
            DataType::Money | DataType::SmallMoney => 4,
            DataType::DateTime => 3,
            DataType::Time(s) | DataType::DateTime2(s) | DataType::DateTimeOffset(s) => *s,
            _ => 0,
        }
    }

    /// Precision and scale when this type takes part in decimal arithmetic
    /// (integers as decimal(p,0), money as decimal(19,4), bit as decimal(1,0)).
    pub fn decimal_ps(&self) -> Option<(u8, u8)> {
        match self {
            DataType::Bit => Some((1, 0)),
            DataType::TinyInt => Some((3, 0)),
            DataType::SmallInt => Some((5, 0)),
            DataType::Int => Some((10, 0)),
            DataType::BigInt => Some((19, 0)),
            DataType::Decimal { precision, scale } | DataType::Numeric { precision, scale } => {
                Some((*precision, *scale))
            }
            DataType::Money => Some((19, 4)),
            DataType::SmallMoney => Some((10, 4)),
            _ => None,
        }
    }

    /// char, varchar, nchar, nvarchar.
    pub fn is_string(&self) -> bool {
        matches!(
            self,
            DataType::Char(_) | DataType::VarChar(_) | DataType::NChar(_) | DataType::NVarChar(_)
        )
    }

    /// nchar, nvarchar.
    pub fn is_unicode(&self) -> bool {
        matches!(self, DataType::NChar(_) | DataType::NVarChar(_))
    }

    /// binary, varbinary.
    pub fn is_binary(&self) -> bool {
        matches!(self, DataType::Binary(_) | DataType::VarBinary(_))
    }

    /// Exact and approximate numerics, money and bit.
    pub fn is_numeric(&self) -> bool {
        self.is_exact_numeric() || matches!(self, DataType::Float | DataType::Real)
    }

    /// Integers, bit, decimal/numeric, money/smallmoney.
    pub fn is_exact_numeric(&self) -> bool {
        self.decimal_ps().is_some()
    }

    /// tinyint, smallint, int, bigint (bit is not an integer type for arithmetic purposes).
    pub fn is_integer(&self) -> bool {
        matches!(
            self,
            DataType::TinyInt | DataType::SmallInt | DataType::Int | DataType::BigInt
        )
    }

    /// decimal or numeric.
    pub fn is_decimal(&self) -> bool {
        matches!(self, DataType::Decimal { .. } | DataType::Numeric { .. })
    }

    /// money or smallmoney.
    pub fn is_money(&self) -> bool {
        matches!(self, DataType::Money | DataType::SmallMoney)
    }

    /// float or real.
    pub fn is_float(&self) -> bool {
        matches!(self, DataType::Float | DataType::Real)
    }

    /// date, time, datetime, datetime2, smalldatetime, datetimeoffset.
    pub fn is_datetime(&self) -> bool {
        matches!(
            self,
            DataType::Date
                | DataType::Time(_)
                | DataType::DateTime
                | DataType::DateTime2(_)
                | DataType::SmallDateTime
                | DataType::DateTimeOffset(_)
        )
    }

    /// varchar(max), nvarchar(max), varbinary(max).
    pub fn is_max(&self) -> bool {
        matches!(
            self,
            DataType::VarChar(None) | DataType::NVarChar(None) | DataType::VarBinary(None)
        )
    }

    /// Declared length in characters (strings) or bytes (binary); `None` for max / non-string.
    pub fn char_length(&self) -> Option<u32> {
        match self {
            DataType::Char(n) | DataType::NChar(n) | DataType::Binary(n) => Some(*n),
            DataType::VarChar(n) | DataType::NVarChar(n) | DataType::VarBinary(n) => *n,
            _ => None,
        }
    }
}

/// Storage bytes of decimal(p, _) in SQL Server: 5, 9, 13 or 17.
pub fn decimal_storage_bytes(precision: u8) -> u8 {
    match precision {
        0..=9 => 5,
        10..=19 => 9,
        20..=28 => 13,
        _ => 17,
    }
}

/// Storage bytes of the time part of time(n)/datetime2(n)/datetimeoffset(n): 3, 4 or 5.
pub fn time_bytes(scale: u8) -> u8 {
    match scale {
        0..=2 => 3,
        3..=4 => 4,
        _ => 5,
    }
}

impl fmt::Display for DataType {
    /// The declaration text: `varchar(10)`, `varchar(max)`, `decimal(18,2)`, `datetime2(7)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.sql_name();
        match self {
            DataType::Decimal { precision, scale } | DataType::Numeric { precision, scale } => {
                write!(f, "{name}({precision},{scale})")
            }
            DataType::Char(n) | DataType::NChar(n) | DataType::Binary(n) => {
                write!(f, "{name}({n})")
            }
            DataType::VarChar(n) | DataType::NVarChar(n) | DataType::VarBinary(n) => match n {
                Some(n) => write!(f, "{name}({n})"),
                None => write!(f, "{name}(max)"),
            },
            DataType::Time(s) | DataType::DateTime2(s) | DataType::DateTimeOffset(s) => {
                write!(f, "{name}({s})")
            }
            _ => f.write_str(name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(v: i64) -> TypeParam {
        TypeParam::Num(v)
    }

    #[test]
    fn names_and_defaults() {
        assert_eq!(
            DataType::from_name("varchar", &[]).unwrap(),
            DataType::VarChar(Some(1))
        );
        assert_eq!(
            DataType::from_name_in_cast("varchar", &[]).unwrap(),
            DataType::VarChar(Some(30))
        );
        assert_eq!(
            DataType::from_name("VARCHAR", &[TypeParam::Max]).unwrap(),
            DataType::VarChar(None)
        );
        assert_eq!(
            DataType::from_name("dec", &[]).unwrap(),
            DataType::decimal(18, 0)
        );
        assert_eq!(
            DataType::from_name("numeric", &[n(10), n(2)]).unwrap(),
            DataType::Numeric {
                precision: 10,
                scale: 2
            }
        );
        assert_eq!(
            DataType::from_name("float", &[n(24)]).unwrap(),
            DataType::Real
        );
        assert_eq!(
            DataType::from_name("float", &[n(25)]).unwrap(),
            DataType::Float
        );
        assert_eq!(
            DataType::from_name("double  precision", &[]).unwrap(),
            DataType::Float
        );
        assert_eq!(
            DataType::from_name("national character varying", &[n(5)]).unwrap(),
            DataType::NVarChar(Some(5))
        );
        assert_eq!(
            DataType::from_name("sysname", &[]).unwrap(),
            DataType::NVarChar(Some(128))
        );
        assert_eq!(
            DataType::from_name("datetime2", &[]).unwrap(),
            DataType::DateTime2(7)
        );
        assert_eq!(
            DataType::from_name("time", &[n(3)]).unwrap(),
            DataType::Time(3)
        );
        assert_eq!(DataType::from_name("integer", &[]).unwrap(), DataType::Int);
        assert_eq!(
            DataType::from_name("text", &[]).unwrap(),
            DataType::VarChar(None)
        );
        assert_eq!(
            DataType::from_name("NTEXT", &[]).unwrap(),
            DataType::NVarChar(None)
        );
        assert_eq!(
            DataType::from_name("image", &[]).unwrap(),
            DataType::VarBinary(None)
        );
        assert_eq!(
            DataType::from_name("rowversion", &[]).unwrap(),
            DataType::Binary(8)
        );
        assert_eq!(DataType::from_name("char", &[]).unwrap(), DataType::Char(1));
        assert_eq!(
            DataType::from_name("int", &[n(4)]).unwrap_err().number,
            2716
        );
        assert_eq!(
            DataType::from_name("time", &[n(8)]).unwrap_err().number,
            1002
        );
        assert_eq!(
            DataType::from_name("varchar", &[n(8001)]).unwrap_err().message,
            "The size (8001) given to the type 'varchar' exceeds the maximum allowed for any data type (8000)."
        );
        assert_eq!(
            DataType::from_name("varchar", &[n(0)]).unwrap_err().number,
            1001
        );
        assert_eq!(
            DataType::from_name("nvarchar", &[n(4001)])
                .unwrap_err()
                .number,
            131
        );
        assert_eq!(
            DataType::from_name("decimal", &[n(39)]).unwrap_err().number,
            2750
        );
        assert_eq!(DataType::from_name("foo", &[]).unwrap_err().number, 243);
    }

    #[test]
    fn display() {
        assert_eq!(DataType::VarChar(Some(10)).to_string(), "varchar(10)");
        assert_eq!(DataType::NVarChar(None).to_string(), "nvarchar(max)");
        assert_eq!(DataType::decimal(18, 2).to_string(), "decimal(18,2)");
        assert_eq!(DataType::Int.to_string(), "int");
        assert_eq!(DataType::DateTime2(3).to_string(), "datetime2(3)");
    }

    #[test]
    fn precedence_order() {
        let order = [
            DataType::DateTimeOffset(7),
            DataType::DateTime2(7),
            DataType::DateTime,
            DataType::SmallDateTime,
            DataType::Date,
            DataType::Time(7),
            DataType::Float,
            DataType::Real,
            DataType::decimal(18, 0),
            DataType::Money,
            DataType::SmallMoney,
            DataType::BigInt,
            DataType::Int,
            DataType::SmallInt,
            DataType::TinyInt,
            DataType::Bit,
            DataType::UniqueIdentifier,
            DataType::NVarChar(None),
            DataType::NChar(1),
            DataType::VarChar(None),
            DataType::Char(1),
            DataType::VarBinary(None),
            DataType::Binary(1),
        ];
        for w in order.windows(2) {
            assert!(w[0].precedence() > w[1].precedence(), "{:?}", w);
        }
    }

    #[test]
    fn sizes() {
        assert_eq!(DataType::decimal(18, 2).max_length_bytes(), 9);
        assert_eq!(DataType::NVarChar(Some(10)).max_length_bytes(), 20);
        assert_eq!(DataType::VarChar(None).max_length_bytes(), -1);
        assert_eq!(DataType::DateTime2(7).max_length_bytes(), 8);
        assert_eq!(DataType::Time(7).precision(), 16);
        assert_eq!(DataType::DateTime2(7).precision(), 27);
        assert_eq!(DataType::DateTimeOffset(7).precision(), 34);
    }
}
