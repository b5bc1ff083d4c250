//! Built-in scalar functions that are pure functions of their argument values.
//!
//! Entry points:
//! * [`function_result_type`]`(name, arg_types)` — the binder's view: result type, or error
//!   174 (wrong argument count), 189 (range of counts), 8116 (argument type), 195 (unknown).
//! * [`call`]`(name, args)` — evaluation. Names are case-insensitive. Date parts (DATEADD,
//!   DATEDIFF, DATEPART, DATENAME) are passed as a string value holding the datepart keyword
//!   (`'day'`, `'dd'`, …) as the first argument.
//! * [`like_match`] — LIKE with `%`, `_`, `[abc]`, `[a-z]`, `[^…]` and ESCAPE, under a collation.
//!
//! NULL handling follows SQL Server per function (most return NULL for a NULL argument;
//! CONCAT/CONCAT_WS treat NULL as empty; ISNULL-like functions live in the expression layer).

use crate::charset;
use crate::collation::Collation;
use crate::datetime::{
    self, civil_from_days, days_from_civil, days_in_month, make_date, DAY_1900, DAY_NAMES,
    MONTH_NAMES, TICKS_PER_DAY, TICKS_PER_HOUR, TICKS_PER_MIN, TICKS_PER_SEC,
};
use crate::decimal;
use crate::{DataType, Value};
use common::{SqlError, SqlResult};

#[path = "functions_dt.rs"]
mod dt;
#[path = "functions_hash.rs"]
pub mod hash;
#[path = "functions_minmax.rs"]
pub mod minmax;
pub use dt::format_message;

// ------------------------------------------------------------------ signatures

fn argc_err(name: &str, n: usize) -> SqlError {
    SqlError::new(174, &[&name.to_ascii_lowercase(), &n])
}

fn argc_range_err(name: &str, lo: usize, hi: usize) -> SqlError {
    SqlError::new(189, &[&name.to_ascii_lowercase(), &lo, &hi])
}

fn arg_type_err(t: &DataType, pos: usize, name: &str) -> SqlError {
    SqlError::new(8116, &[&t.sql_name(), &pos, &name.to_ascii_lowercase()])
}

fn check_count(name: &str, n: usize, lo: usize, hi: usize) -> SqlResult<()> {
    if n < lo || n > hi {
        if lo == hi {
            return Err(argc_err(name, lo));
        }
        return Err(argc_range_err(name, lo, hi));
    }
    Ok(())
}

/// The string type a function returns for a string-ish argument (non-strings become varchar).
fn string_result(t: &DataType) -> DataType {
    match t {
        DataType::NChar(n) => DataType::NVarChar(Some(*n)),
        DataType::Char(n) => DataType::VarChar(Some(*n)),
        DataType::VarChar(_) | DataType::NVarChar(_) => t.clone(),
        DataType::Binary(n) => DataType::VarBinary(Some(*n)),
        DataType::VarBinary(_) => t.clone(),
        _ => DataType::VarChar(Some(8000)),
    }
}

fn int_or_big(t: &DataType) -> DataType {
    if t.is_max() {
        DataType::BigInt
    } else {
        DataType::Int
    }
}

fn is_stringish(t: &DataType) -> bool {
    t.is_string() || matches!(t, DataType::Null)
}

/// The result type of a built-in scalar function for the given argument types.
pub fn function_result_type(name: &str, args: &[DataType]) -> SqlResult<DataType> {
    let up = name.to_ascii_uppercase();
    let n = args.len();
    let a0 = args.first().cloned().unwrap_or(DataType::Null);
    use DataType as T;
    Ok(match up.as_str() {
        "LEN" => {
            check_count(&up, n, 1, 1)?;
            int_or_big(&a0)
        }
        "DATALENGTH" => {
            check_count(&up, n, 1, 1)?;
            int_or_big(&a0)
        }
        "SUBSTRING" => {
            check_count(&up, n, 3, 3)?;
            if !(is_stringish(&a0) || a0.is_binary()) {
                return Err(arg_type_err(&a0, 1, &up));
            }
            string_result(&a0)
        }
        "LEFT" | "RIGHT" => {
            check_count(&up, n, 2, 2)?;
            if a0.is_binary() {
                T::VarBinary(a0.char_length())
            } else {
                string_result(&a0)
            }
        }
        "UPPER" | "LOWER" | "LTRIM" | "RTRIM" | "REVERSE" => {
            check_count(&up, n, 1, if up.ends_with("TRIM") { 2 } else { 1 })?;
            string_result(&a0)
        }
        "TRIM" => {
            check_count(&up, n, 1, 2)?;
            string_result(args.last().unwrap_or(&a0))
        }
        "REPLACE" => {
            check_count(&up, n, 3, 3)?;
            let u = args.iter().any(|t| t.is_unicode());
            let max = args.iter().any(|t| t.is_max());
            match (u, max) {
                (true, true) => T::NVarChar(None),
                (true, false) => T::NVarChar(Some(4000)),
                (false, true) => T::VarChar(None),
                (false, false) => T::VarChar(Some(8000)),
            }
        }
        "CHARINDEX" => {
            check_count(&up, n, 2, 3)?;
            if args[1].is_max() {
                T::BigInt
            } else {
                T::Int
            }
        }
        "PATINDEX" => {
            check_count(&up, n, 2, 2)?;
            int_or_big(&args[1])
        }
        "REPLICATE" => {
            check_count(&up, n, 2, 2)?;
            if a0.is_max() {
                a0.clone()
            } else if a0.is_unicode() {
                T::NVarChar(Some(4000))
            } else {
                T::VarChar(Some(8000))
            }
        }
        "SPACE" => {
            check_count(&up, n, 1, 1)?;
            T::VarChar(Some(8000))
        }
        "STUFF" => {
            check_count(&up, n, 4, 4)?;
            // a max argument gives a max result (not truncated at 8,000 bytes)
            let max = a0.is_max() || args[3].is_max();
            match (a0.is_unicode() || args[3].is_unicode(), max) {
                (true, true) => T::NVarChar(None),
                (true, false) => T::NVarChar(Some(4000)),
                (false, true) => T::VarChar(None),
                (false, false) => T::VarChar(Some(8000)),
            }
        }
        "CONCAT" => {
            if n < 2 {
                return Err(argc_range_err(&up, 2, 254));
            }
            concat_type(args)
        }
        "CONCAT_WS" => {
            if n < 3 {
                return Err(argc_range_err(&up, 3, 254));
            }
            concat_type(args)
        }
        "QUOTENAME" => {
            check_count(&up, n, 1, 2)?;
            T::NVarChar(Some(258))
        }
        "STR" => {
            check_count(&up, n, 1, 3)?;
            T::VarChar(Some(8000))
        }
        "FORMAT" => {
            check_count(&up, n, 2, 3)?;
            T::NVarChar(Some(4000))
        }
        "ASCII" | "UNICODE" => {
            check_count(&up, n, 1, 1)?;
            T::Int
        }
        "CHAR" => {
            check_count(&up, n, 1, 1)?;
            T::Char(1)
        }
        "NCHAR" => {
            check_count(&up, n, 1, 1)?;
            T::NChar(1)
        }
        "ABS" | "SIGN" | "CEILING" | "FLOOR" => {
            check_count(&up, n, 1, 1)?;
            match &a0 {
                t if t.is_string() => T::Float,
                T::Bit | T::TinyInt | T::SmallInt | T::Null => T::Int,
                T::Decimal { precision, scale } | T::Numeric { precision, scale }
                    if matches!(up.as_str(), "CEILING" | "FLOOR") =>
                {
                    let _ = scale;
                    if matches!(a0, T::Numeric { .. }) {
                        T::Numeric {
                            precision: *precision,
                            scale: 0,
                        }
                    } else {
                        T::Decimal {
                            precision: *precision,
                            scale: 0,
                        }
                    }
                }
                t if t.is_numeric() => t.clone(),
                t => return Err(arg_type_err(t, 1, &up)),
            }
        }
        "ROUND" => {
            check_count(&up, n, 2, 3)?;
            match &a0 {
                T::Decimal { precision, scale } => T::Decimal {
                    precision: (*precision + 1).min(38),
                    scale: *scale,
                },
                T::Numeric { precision, scale } => T::Numeric {
                    precision: (*precision + 1).min(38),
                    scale: *scale,
                },
                T::Bit | T::TinyInt | T::SmallInt | T::Null => T::Int,
                t if t.is_string() => T::Float,
                t if t.is_numeric() => t.clone(),
                t => return Err(arg_type_err(t, 1, &up)),
            }
        }
        "POWER" => {
            check_count(&up, n, 2, 2)?;
            match &a0 {
                T::Decimal { scale, .. } => T::Decimal {
                    precision: 38,
                    scale: *scale,
                },
                T::Numeric { scale, .. } => T::Numeric {
                    precision: 38,
                    scale: *scale,
                },
                T::Bit | T::TinyInt | T::SmallInt | T::Null => T::Int,
                t if t.is_string() => T::Float,
                t if t.is_numeric() => t.clone(),
                t => return Err(arg_type_err(t, 1, &up)),
            }
        }
        "SQRT" | "EXP" | "LOG10" | "SQUARE" | "SIN" | "COS" | "TAN" | "ASIN" | "ACOS" | "ATAN"
        | "COT" => {
            check_count(&up, n, 1, 1)?;
            if !(a0.is_numeric() || is_stringish(&a0)) {
                return Err(arg_type_err(&a0, 1, &up));
            }
            T::Float
        }
        "LOG" => {
            check_count(&up, n, 1, 2)?;
            T::Float
        }
        "ATN2" => {
            check_count(&up, n, 2, 2)?;
            T::Float
        }
        "DEGREES" | "RADIANS" => {
            check_count(&up, n, 1, 1)?;
            match &a0 {
                T::Bit | T::TinyInt | T::SmallInt | T::Null => T::Int,
                t if t.is_numeric() => t.clone(),
                _ => T::Float,
            }
        }
        "PI" => {
            check_count(&up, n, 0, 0)?;
            T::Float
        }
        "RAND" => {
            check_count(&up, n, 0, 1)?;
            T::Float
        }
        "DATEADD" => {
            check_count(&up, n, 3, 3)?;
            match &args[2] {
                t if t.is_datetime() => t.clone(),
                _ => T::DateTime,
            }
        }
        "DATEDIFF" => {
            check_count(&up, n, 3, 3)?;
            T::Int
        }
        "DATEDIFF_BIG" => {
            check_count(&up, n, 3, 3)?;
            T::BigInt
        }
        "DATEPART" => {
            check_count(&up, n, 2, 2)?;
            T::Int
        }
        "DATENAME" => {
            check_count(&up, n, 2, 2)?;
            T::NVarChar(Some(30))
        }
        "YEAR" | "MONTH" | "DAY" => {
            check_count(&up, n, 1, 1)?;
            T::Int
        }
        "EOMONTH" => {
            check_count(&up, n, 1, 2)?;
            T::Date
        }
        "DATEFROMPARTS" => {
            check_count(&up, n, 3, 3)?;
            T::Date
        }
        "DATETIMEFROMPARTS" => {
            check_count(&up, n, 7, 7)?;
            T::DateTime
        }
        "ISNUMERIC" | "ISDATE" => {
            check_count(&up, n, 1, 1)?;
            T::Int
        }
        "CHECKSUM" | "BINARY_CHECKSUM" => {
            if n == 0 {
                return Err(argc_range_err(&up, 1, 255));
            }
            T::Int
        }
        "HASHBYTES" => {
            check_count(&up, n, 2, 2)?;
            T::VarBinary(Some(8000))
        }
        "NEWID" => {
            check_count(&up, n, 0, 0)?;
            T::UniqueIdentifier
        }
        "GETDATE" | "CURRENT_TIMESTAMP" | "GETUTCDATE" => {
            check_count(&up, n, 0, 0)?;
            T::DateTime
        }
        "SYSDATETIME" | "SYSUTCDATETIME" => {
            check_count(&up, n, 0, 0)?;
            T::DateTime2(7)
        }
        "SYSDATETIMEOFFSET" => {
            check_count(&up, n, 0, 0)?;
            T::DateTimeOffset(7)
        }
        "GREATEST" | "LEAST" => minmax::result_type(&up, args)?,
        _ => match dt::result_type(&up, args).or_else(|| crate::json::result_type(&up, args)) {
            Some(r) => r?,
            None => return Err(SqlError::new(195, &[&name, &"built-in function name"])),
        },
    })
}

fn concat_type(args: &[DataType]) -> DataType {
    let unicode = args.iter().any(|t| t.is_unicode());
    let max = args.iter().any(|t| t.is_max());
    match (unicode, max) {
        (true, true) => DataType::NVarChar(None),
        (true, false) => DataType::NVarChar(Some(4000)),
        (false, true) => DataType::VarChar(None),
        (false, false) => DataType::VarChar(Some(8000)),
    }
}

// ------------------------------------------------------------------ evaluation helpers

fn null_in(args: &[Value]) -> bool {
    args.iter().any(Value::is_null)
}

/// String content of an argument (non-strings converted as CAST(x AS varchar) does).
fn text(v: &Value) -> SqlResult<std::borrow::Cow<'_, str>> {
    match v.as_str() {
        Some(s) => Ok(std::borrow::Cow::Borrowed(s)),
        None => {
            let t = if matches!(v, Value::Binary(_) | Value::VarBinary(_)) {
                DataType::VarChar(None)
            } else {
                DataType::VarChar(Some(8000))
            };
            let c = v.cast(&t)?;
            Ok(std::borrow::Cow::Owned(
                c.as_str().unwrap_or_default().to_string(),
            ))
        }
    }
}

fn int_arg(v: &Value) -> SqlResult<i64> {
    if let Some(x) = v.as_i64() {
        return Ok(x);
    }
    match v.cast(&DataType::BigInt)? {
        Value::BigInt(x) => Ok(x),
        _ => Err(SqlError::internal("integer argument")),
    }
}

fn float_arg(v: &Value) -> SqlResult<f64> {
    if let Some(f) = v.as_f64() {
        return Ok(f);
    }
    v.cast(&DataType::Float)?
        .as_f64()
        .ok_or_else(|| SqlError::internal("float argument"))
}

fn is_unicode_value(v: &Value) -> bool {
    matches!(v, Value::NChar(_) | Value::NVarChar(_))
}

/// A string result of the same kind (varchar/nvarchar) as `like`.
fn same_kind(like: &Value, s: String) -> Value {
    if is_unicode_value(like) {
        Value::NVarChar(s)
    } else {
        Value::VarChar(s)
    }
}

fn chars_of(s: &str) -> Vec<char> {
    s.chars().collect()
}

fn float_result(f: f64) -> SqlResult<Value> {
    if f.is_finite() {
        Ok(Value::Float(f))
    } else {
        Err(SqlError::new(3623, &[]))
    }
}

/// Finds `needle` in `hay` (char indices) under the default case-insensitive collation,
/// starting at char index `from`.
fn find_ci(hay: &[char], needle: &[char], from: usize, coll: Collation) -> Option<usize> {
    if needle.is_empty() {
        return None;
    }
    if needle.len() > hay.len() {
        return None;
    }
    (from..=hay.len() - needle.len()).find(|&i| {
        needle
            .iter()
            .zip(&hay[i..])
            .all(|(a, b)| coll.fold_char(*a) == coll.fold_char(*b))
    })
}

// ------------------------------------------------------------------ LIKE

/// SQL LIKE: `%` any run, `_` one character, `[abc]`, `[a-f]`, `[^…]` sets, optional escape
/// character; character comparisons under `coll` (case-insensitive by default). Trailing
/// blanks of the value are significant only as the pattern demands (SQL Server ignores
/// trailing spaces of char values when the pattern ends with `%`... we follow the simple rule:
/// the value is matched as is).
pub fn like_match(value: &str, pattern: &str, escape: Option<char>, coll: Collation) -> bool {
    like_match_impl(value, pattern, escape, coll, false)
}

/// LIKE for Unicode (nchar/nvarchar) operands: trailing blanks of the value are significant,
/// as SQL Server documents (`N'abc ' LIKE N'abc'` is false).
pub fn like_match_unicode(
    value: &str,
    pattern: &str,
    escape: Option<char>,
    coll: Collation,
) -> bool {
    like_match_impl(value, pattern, escape, coll, true)
}

fn like_match_impl(
    value: &str,
    pattern: &str,
    escape: Option<char>,
    coll: Collation,
    blanks_significant: bool,
) -> bool {
    crate::like::LikePattern::compile(pattern, escape, coll).matches(value, blanks_significant)
}

// ------------------------------------------------------------------ date parts

/// A DATEADD/DATEDIFF/DATEPART date part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DatePart {
    Year,
    Quarter,
    Month,
    DayOfYear,
    Day,
    Week,
    Weekday,
    Hour,
    Minute,
    Second,
    Millisecond,
    Microsecond,
    Nanosecond,
    TzOffset,
    IsoWeek,
}

impl DatePart {
    /// Resolves a datepart keyword or abbreviation (error 155 otherwise).
    pub fn parse(s: &str) -> SqlResult<DatePart> {
        Ok(match s.trim().to_ascii_lowercase().as_str() {
            "year" | "yy" | "yyyy" => DatePart::Year,
            "quarter" | "qq" | "q" => DatePart::Quarter,
            "month" | "mm" | "m" => DatePart::Month,
            "dayofyear" | "dy" | "y" => DatePart::DayOfYear,
            "day" | "dd" | "d" => DatePart::Day,
            "week" | "wk" | "ww" => DatePart::Week,
            "weekday" | "dw" | "w" => DatePart::Weekday,
            "hour" | "hh" => DatePart::Hour,
            "minute" | "mi" | "n" => DatePart::Minute,
            "second" | "ss" | "s" => DatePart::Second,
            "millisecond" | "ms" => DatePart::Millisecond,
            "microsecond" | "mcs" => DatePart::Microsecond,
            "nanosecond" | "ns" => DatePart::Nanosecond,
            "tzoffset" | "tz" => DatePart::TzOffset,
            "iso_week" | "isowk" | "isoww" => DatePart::IsoWeek,
            _ => return Err(SqlError::new(155, &[&s, &"datepart"])),
        })
    }

    fn name(self) -> &'static str {
        match self {
            DatePart::Year => "year",
            DatePart::Quarter => "quarter",
            DatePart::Month => "month",
            DatePart::DayOfYear => "dayofyear",
            DatePart::Day => "day",
            DatePart::Week => "week",
            DatePart::Weekday => "weekday",
            DatePart::Hour => "hour",
            DatePart::Minute => "minute",
            DatePart::Second => "second",
            DatePart::Millisecond => "millisecond",
            DatePart::Microsecond => "microsecond",
            DatePart::Nanosecond => "nanosecond",
            DatePart::TzOffset => "tzoffset",
            DatePart::IsoWeek => "iso_week",
        }
    }

    fn is_time_part(self) -> bool {
        matches!(
            self,
            DatePart::Hour
                | DatePart::Minute
                | DatePart::Second
                | DatePart::Millisecond
                | DatePart::Microsecond
                | DatePart::Nanosecond
        )
    }
}

fn datepart_arg(v: &Value) -> SqlResult<DatePart> {
    DatePart::parse(v.as_str().unwrap_or_default())
}

/// (days, ticks, offset) of a date/time argument; strings are read as datetime2/datetimeoffset.
fn dt_arg(v: &Value) -> SqlResult<(i32, i64, i16, DataType)> {
    Ok(match v {
        Value::Date(d) => (*d, 0, 0, DataType::Date),
        Value::Time(t) => (DAY_1900, *t, 0, DataType::Time(7)),
        Value::DateTime { days, ticks } => (*days, *ticks, 0, DataType::DateTime),
        Value::SmallDateTime { days, ticks } => (*days, *ticks, 0, DataType::SmallDateTime),
        Value::DateTime2 { days, ticks } => (*days, *ticks, 0, DataType::DateTime2(7)),
        Value::DateTimeOffset {
            days,
            ticks,
            offset_minutes,
        } => (*days, *ticks, *offset_minutes, DataType::DateTimeOffset(7)),
        Value::Char(_) | Value::VarChar(_) | Value::NChar(_) | Value::NVarChar(_) => {
            let c = v.cast(&DataType::DateTimeOffset(7))?;
            let (d, t, o, _) = dt_arg(&c)?;
            (d, t, o, DataType::DateTime)
        }
        _ if v.as_f64().is_some() => {
            let c = v.cast(&DataType::DateTime)?;
            dt_arg(&c)?
        }
        _ => {
            return Err(SqlError::new(
                8116,
                &[&v.data_type().sql_name(), &2, &"datepart"],
            ))
        }
    })
}

fn iso_week(days: i32) -> i64 {
    // ISO 8601: week with the year's first Thursday; Monday first.
    let wd = (crate::datetime::weekday(days) + 6) % 7; // 0 = Monday
    let thursday = days - wd as i32 + 3;
    let (ty, _, _) = civil_from_days(thursday);
    let jan1 = days_from_civil(ty, 1, 1);
    ((thursday - jan1) / 7 + 1) as i64
}

/// `datefirst` is SET DATEFIRST's value (1 = Monday ... 7 = Sunday): weekday 1 is that day and
/// weeks start on it.
fn datepart_value(part: DatePart, days: i32, ticks: i64, offset: i16, datefirst: i64) -> i64 {
    let first = datefirst.rem_euclid(7) as i32; // as weekday(): Sunday 0 .. Saturday 6
    let (y, m, d) = civil_from_days(days);
    match part {
        DatePart::Year => y as i64,
        DatePart::Quarter => ((m - 1) / 3 + 1) as i64,
        DatePart::Month => m as i64,
        DatePart::DayOfYear => (days - days_from_civil(y, 1, 1) + 1) as i64,
        DatePart::Day => d as i64,
        DatePart::Week => {
            let jan1 = days_from_civil(y, 1, 1);
            let into_week = (crate::datetime::weekday(jan1) as i32 - first).rem_euclid(7);
            ((days - jan1 + into_week) / 7 + 1) as i64
        }
        DatePart::Weekday => {
            ((crate::datetime::weekday(days) as i32 - first).rem_euclid(7) + 1) as i64
        }
        DatePart::Hour => ticks / TICKS_PER_HOUR,
        DatePart::Minute => (ticks / TICKS_PER_MIN) % 60,
        DatePart::Second => (ticks / TICKS_PER_SEC) % 60,
        DatePart::Millisecond => (ticks % TICKS_PER_SEC) / 10_000,
        DatePart::Microsecond => (ticks % TICKS_PER_SEC) / 10,
        DatePart::Nanosecond => (ticks % TICKS_PER_SEC) * 100,
        DatePart::TzOffset => offset as i64,
        DatePart::IsoWeek => iso_week(days),
    }
}

fn add_months(days: i32, months: i64) -> Option<i32> {
    let (y, m, d) = civil_from_days(days);
    let total = (y as i64 * 12 + (m as i64 - 1)).checked_add(months)?;
    let ny = total.div_euclid(12);
    let nm = (total.rem_euclid(12) + 1) as u32;
    if !(1..=9999).contains(&ny) {
        return None;
    }
    let nd = d.min(days_in_month(ny as i32, nm));
    make_date(ny as i32, nm, nd)
}

fn dateadd(part: DatePart, n: i64, v: &Value) -> SqlResult<Value> {
    let (days, ticks, off, ty) = dt_arg(v)?;
    let ty = if v.as_str().is_some() {
        DataType::DateTime
    } else {
        ty
    };
    let overflow = || SqlError::new(517, &[&ty.sql_name()]);
    if matches!(ty, DataType::Date) && part.is_time_part() {
        return Err(SqlError::new(9810, &[&part.name(), &"dateadd", &"date"]));
    }
    if matches!(ty, DataType::Time(_)) && !part.is_time_part() {
        return Err(SqlError::new(9810, &[&part.name(), &"dateadd", &"time"]));
    }
    let (nd, nt): (i64, i64) = match part {
        DatePart::Year => (
            add_months(days, n.checked_mul(12).ok_or_else(overflow)?).ok_or_else(overflow)? as i64,
            ticks,
        ),
        DatePart::Quarter => (
            add_months(days, n.checked_mul(3).ok_or_else(overflow)?).ok_or_else(overflow)? as i64,
            ticks,
        ),
        DatePart::Month => (add_months(days, n).ok_or_else(overflow)? as i64, ticks),
        DatePart::DayOfYear | DatePart::Day | DatePart::Weekday => {
            ((days as i64).checked_add(n).ok_or_else(overflow)?, ticks)
        }
        DatePart::Week => (
            n.checked_mul(7)
                .and_then(|w| w.checked_add(days as i64))
                .ok_or_else(overflow)?,
            ticks,
        ),
        DatePart::TzOffset | DatePart::IsoWeek => {
            return Err(SqlError::new(
                9810,
                &[&part.name(), &"dateadd", &ty.sql_name()],
            ))
        }
        _ => {
            let unit: i128 = match part {
                DatePart::Hour => TICKS_PER_HOUR as i128,
                DatePart::Minute => TICKS_PER_MIN as i128,
                DatePart::Second => TICKS_PER_SEC as i128,
                DatePart::Millisecond => 10_000,
                DatePart::Microsecond => 10,
                _ => 0,
            };
            let total = if part == DatePart::Nanosecond {
                ticks as i128 + (n as i128) / 100
            } else {
                ticks as i128 + n as i128 * unit
            };
            let dd = total.div_euclid(TICKS_PER_DAY as i128);
            let tt = total.rem_euclid(TICKS_PER_DAY as i128) as i64;
            if matches!(ty, DataType::Time(_)) {
                (days as i64, tt)
            } else {
                (days as i64 + dd as i64, tt)
            }
        }
    };
    if nd < 0 || nd > datetime::DAY_9999 as i64 {
        return Err(overflow());
    }
    let r = match &ty {
        DataType::DateTimeOffset(_) => Value::DateTimeOffset {
            days: nd as i32,
            ticks: nt,
            offset_minutes: off,
        },
        _ => Value::DateTime2 {
            days: nd as i32,
            ticks: nt,
        },
    };
    r.cast(&ty).map_err(|_| overflow())
}

fn datediff(part: DatePart, a: &Value, b: &Value, big: bool) -> SqlResult<Value> {
    let (d1, t1, o1, _) = dt_arg(a)?;
    let (d2, t2, o2, _) = dt_arg(b)?;
    // datetimeoffset values are compared in UTC
    let abs1 = d1 as i128 * TICKS_PER_DAY as i128 + t1 as i128 - o1 as i128 * TICKS_PER_MIN as i128;
    let abs2 = d2 as i128 * TICKS_PER_DAY as i128 + t2 as i128 - o2 as i128 * TICKS_PER_MIN as i128;
    let (ud1, ud2) = (
        abs1.div_euclid(TICKS_PER_DAY as i128) as i32,
        abs2.div_euclid(TICKS_PER_DAY as i128) as i32,
    );
    let diff: i128 = match part {
        DatePart::Year => (civil_from_days(ud2).0 - civil_from_days(ud1).0) as i128,
        DatePart::Quarter => {
            let q = |d: i32| {
                let (y, m, _) = civil_from_days(d);
                y as i128 * 4 + ((m - 1) / 3) as i128
            };
            q(ud2) - q(ud1)
        }
        DatePart::Month => {
            let mo = |d: i32| {
                let (y, m, _) = civil_from_days(d);
                y as i128 * 12 + m as i128
            };
            mo(ud2) - mo(ud1)
        }
        DatePart::DayOfYear | DatePart::Day | DatePart::Weekday => (ud2 - ud1) as i128,
        DatePart::Week => {
            // Sunday-based week boundaries (DATEFIRST 7); day 0 (0001-01-01) is a Monday.
            let w = |d: i32| (d as i128 + 1).div_euclid(7);
            w(ud2) - w(ud1)
        }
        DatePart::IsoWeek => {
            let w = |d: i32| (d as i128).div_euclid(7);
            w(ud2) - w(ud1)
        }
        DatePart::Hour => {
            abs2.div_euclid(TICKS_PER_HOUR as i128) - abs1.div_euclid(TICKS_PER_HOUR as i128)
        }
        DatePart::Minute => {
            abs2.div_euclid(TICKS_PER_MIN as i128) - abs1.div_euclid(TICKS_PER_MIN as i128)
        }
        DatePart::Second => {
            abs2.div_euclid(TICKS_PER_SEC as i128) - abs1.div_euclid(TICKS_PER_SEC as i128)
        }
        DatePart::Millisecond => abs2.div_euclid(10_000) - abs1.div_euclid(10_000),
        DatePart::Microsecond => abs2.div_euclid(10) - abs1.div_euclid(10),
        DatePart::Nanosecond => (abs2 - abs1) * 100,
        DatePart::TzOffset => {
            return Err(SqlError::new(
                9810,
                &[&part.name(), &"datediff", &"datetimeoffset"],
            ))
        }
    };
    let fname = if big { "datediff_big" } else { "datediff" };
    if big {
        i64::try_from(diff)
            .map(Value::BigInt)
            .map_err(|_| SqlError::new(535, &[&fname, &"datediff_big"]))
    } else {
        i32::try_from(diff)
            .map(Value::Int)
            .map_err(|_| SqlError::new(535, &[&fname, &"datediff_big"]))
    }
}

// ------------------------------------------------------------------ numeric helpers

fn round_value(v: &Value, len: i64, truncate: bool) -> SqlResult<Value> {
    let round_m = |m: i128, s: u8| -> Option<i128> {
        // keep scale s, zero digits beyond position len
        let drop = (s as i64).saturating_sub(len);
        if drop <= 0 {
            return Some(m);
        }
        if drop > 38 {
            return Some(0);
        }
        let p = decimal::POW10[drop as usize];
        let q = if truncate {
            decimal::div_pow10_trunc(m, drop as u32)
        } else {
            decimal::div_pow10_round(m, drop as u32)
        };
        q.checked_mul(p)
    };
    Ok(match v {
        Value::Decimal { mantissa, scale } => {
            let m = round_m(*mantissa, *scale)
                .ok_or_else(|| SqlError::new(8115, &[&"expression", &"numeric"]))?;
            Value::Decimal {
                mantissa: m,
                scale: *scale,
            }
        }
        Value::Money(m) | Value::SmallMoney(m) => {
            let r = round_m(*m as i128, 4).unwrap_or(0);
            let r =
                i64::try_from(r).map_err(|_| SqlError::new(8115, &[&"expression", &"money"]))?;
            if matches!(v, Value::Money(_)) {
                Value::Money(r)
            } else {
                Value::SmallMoney(r)
            }
        }
        Value::Float(_) | Value::Real(_) => {
            let f = v.as_f64().unwrap_or(0.0);
            let r = if len > 300 {
                f
            } else {
                let p = 10f64.powi(len as i32);
                let x = f * p;
                let x = if truncate { x.trunc() } else { x.round() };
                x / p
            };
            if matches!(v, Value::Real(_)) {
                Value::Real(r as f32)
            } else {
                Value::Float(r)
            }
        }
        _ => {
            let x = int_arg(v)? as i128;
            let r = round_m(x, 0).unwrap_or(0);
            let ty = match v {
                Value::BigInt(_) => DataType::BigInt,
                _ => DataType::Int,
            };
            Value::Decimal {
                mantissa: r,
                scale: 0,
            }
            .cast(&ty)?
        }
    })
}

fn floor_ceil(v: &Value, ceil: bool) -> SqlResult<Value> {
    Ok(match v {
        Value::Decimal { mantissa, scale } => {
            let p = decimal::POW10[(*scale).min(38) as usize];
            let mut q = mantissa / p;
            let r = mantissa % p;
            if ceil && r > 0 {
                q += 1;
            }
            if !ceil && r < 0 {
                q -= 1;
            }
            Value::Decimal {
                mantissa: q,
                scale: 0,
            }
        }
        Value::Money(m) | Value::SmallMoney(m) => {
            let q = if ceil {
                (*m as i128 + 9999).div_euclid(10_000)
            } else {
                (*m as i128).div_euclid(10_000)
            } * 10_000;
            if matches!(v, Value::Money(_)) {
                Value::Money(q as i64)
            } else {
                Value::SmallMoney(q as i64)
            }
        }
        Value::Float(f) => Value::Float(if ceil { f.ceil() } else { f.floor() }),
        Value::Real(f) => Value::Real(if ceil { f.ceil() } else { f.floor() }),
        Value::Char(_) | Value::VarChar(_) | Value::NChar(_) | Value::NVarChar(_) => {
            let f = float_arg(v)?;
            Value::Float(if ceil { f.ceil() } else { f.floor() })
        }
        _ => int_result_like(v, int_arg(v)?)?,
    })
}

/// An integer result with the argument's integer type (bit/tinyint/smallint become int).
fn int_result_like(v: &Value, x: i64) -> SqlResult<Value> {
    let ty = match v {
        Value::BigInt(_) => DataType::BigInt,
        _ => DataType::Int,
    };
    Value::BigInt(x).cast(&ty)
}

// ------------------------------------------------------------------ checksums

fn checksum_of(args: &[Value], binary: bool) -> i32 {
    let mut h: u32 = 0;
    let mix = |h: u32, x: u32| h.rotate_left(4) ^ x;
    for v in args {
        let x: u32 = match v {
            Value::Null => 0,
            Value::Char(s) | Value::VarChar(s) | Value::NChar(s) | Value::NVarChar(s) => {
                let s = s.trim_end_matches(' ');
                let mut hh: u32 = 0;
                for c in s.chars() {
                    let w = if binary {
                        c as u32
                    } else {
                        let (p, a) = Collation::DEFAULT.fold_char(c);
                        p ^ ((a as u32) << 16)
                    };
                    hh = mix(hh, w);
                }
                hh
            }
            Value::Binary(b) | Value::VarBinary(b) => {
                b.iter().fold(0u32, |hh, x| mix(hh, *x as u32))
            }
            Value::Float(_) | Value::Real(_) => {
                let bits = v.as_f64().unwrap_or(0.0).to_bits();
                (bits as u32) ^ ((bits >> 32) as u32)
            }
            Value::Decimal { mantissa, scale } => {
                let (m, s) = decimal::normalize(*mantissa, *scale);
                (m as u32) ^ ((m >> 32) as u32) ^ ((m >> 64) as u32) ^ (s as u32)
            }
            Value::UniqueIdentifier(g) => g.iter().fold(0u32, |hh, x| mix(hh, *x as u32)),
            Value::Date(d) => *d as u32,
            Value::Time(t) => (*t as u32) ^ ((*t >> 32) as u32),
            Value::DateTime { days, ticks }
            | Value::DateTime2 { days, ticks }
            | Value::SmallDateTime { days, ticks }
            | Value::DateTimeOffset { days, ticks, .. } => {
                (*days as u32) ^ (*ticks as u32) ^ ((*ticks >> 32) as u32)
            }
            Value::Money(m) | Value::SmallMoney(m) => (*m as u32) ^ ((*m >> 32) as u32),
            v => {
                let x = v.as_i64().unwrap_or(0);
                (x as u32) ^ ((x >> 32) as u32)
            }
        };
        h = if args.len() == 1 { x } else { mix(h, x) };
    }
    h as i32
}

// ------------------------------------------------------------------ misc helpers

fn random_u64() -> u64 {
    use std::collections::hash_map::RandomState;
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    if let Ok(d) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        h.write_u128(d.as_nanos());
    }
    h.finish()
}

/// A new random (version 4) uniqueidentifier.
pub fn new_id() -> Value {
    let a = random_u64().to_le_bytes();
    let b = random_u64().to_le_bytes();
    let mut g = [0u8; 16];
    g[..8].copy_from_slice(&a);
    g[8..].copy_from_slice(&b);
    g[7] = (g[7] & 0x0F) | 0x40; // version nibble (byte 7 is the high byte of group 3)
    g[8] = (g[8] & 0x3F) | 0x80;
    Value::UniqueIdentifier(g)
}

fn now_parts() -> (i32, i64) {
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let total_ticks = d.as_nanos() as i128 / 100;
    let day0 = days_from_civil(1970, 1, 1);
    let days = day0 as i128 + total_ticks.div_euclid(TICKS_PER_DAY as i128);
    (
        days as i32,
        total_ticks.rem_euclid(TICKS_PER_DAY as i128) as i64,
    )
}

fn is_numeric_text(s: &str) -> bool {
    let t = s.trim_matches(|c: char| c == ' ' || c == '\t');
    if t.is_empty() {
        return false;
    }
    if matches!(t, "+" | "-" | "." | "$" | ",") {
        return true;
    }
    Value::VarChar(t.to_string()).cast(&DataType::Float).is_ok()
        || Value::VarChar(t.to_string()).cast(&DataType::Money).is_ok()
}

fn str_fn(f: f64, len: i64, dec: i64) -> Option<String> {
    if !(1..=8000).contains(&len) {
        return None;
    }
    let dec = dec.clamp(0, 16) as usize;
    let mut s = format!("{:.*}", dec, f);
    let len = len as usize;
    if s.len() > len {
        // reduce decimals to fit
        let int_len = format!("{:.0}", f).len();
        if int_len > len {
            return Some("*".repeat(len));
        }
        let room = len.saturating_sub(int_len + 1);
        s = if room == 0 {
            format!("{:.0}", f)
        } else {
            format!("{:.*}", room.min(dec), f)
        };
        if s.len() > len {
            return Some("*".repeat(len));
        }
    }
    Some(format!("{:>width$}", s, width = len))
}

fn group_thousands(int_part: &str) -> String {
    let (neg, digits) = match int_part.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, int_part),
    };
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if neg {
        format!("-{out}")
    } else {
        out
    }
}

fn fixed(f: f64, dec: usize, thousands: bool) -> String {
    let s = format!("{:.*}", dec, f);
    if !thousands {
        return s;
    }
    let (ip, fp) = match s.split_once('.') {
        Some((a, b)) => (a.to_string(), Some(b.to_string())),
        None => (s.clone(), None),
    };
    let g = group_thousands(&ip);
    match fp {
        Some(fp) => format!("{g}.{fp}"),
        None => g,
    }
}

fn format_number(v: &Value, fmt: &str) -> Option<String> {
    let f = v.as_f64()?;
    let mut chars = fmt.chars();
    let kind = chars.next()?.to_ascii_uppercase();
    let rest: String = chars.collect();
    let prec: Option<usize> = if rest.is_empty() {
        None
    } else {
        rest.parse().ok()
    };
    if kind.is_ascii_alphabetic() && (prec.is_some() || rest.is_empty()) {
        return Some(match kind {
            'N' => fixed(f, prec.unwrap_or(2), true),
            'F' => fixed(f, prec.unwrap_or(2), false),
            'D' => {
                let x = v.as_i64()?;
                let s = x.unsigned_abs().to_string();
                let s = format!("{:0>w$}", s, w = prec.unwrap_or(0));
                if x < 0 {
                    format!("-{s}")
                } else {
                    s
                }
            }
            'C' => {
                let s = fixed(f.abs(), prec.unwrap_or(2), true);
                if f < 0.0 {
                    format!("-${s}")
                } else {
                    format!("${s}")
                }
            }
            'P' => format!("{} %", fixed(f * 100.0, prec.unwrap_or(2), true)),
            'X' => {
                let x = v.as_i64()?;
                let s = if fmt.starts_with('x') {
                    format!("{:x}", x)
                } else {
                    format!("{:X}", x)
                };
                format!("{:0>w$}", s, w = prec.unwrap_or(0))
            }
            'E' => format!("{:.*E}", prec.unwrap_or(6), f),
            'G' => crate::value::format_float(f),
            _ => return None,
        });
    }
    // custom pattern: 0 and # digits, optional ',' grouping, '.' decimals
    let (ip, fp) = fmt.split_once('.').unwrap_or((fmt, ""));
    if !ip.chars().all(|c| matches!(c, '0' | '#' | ','))
        || !fp.chars().all(|c| matches!(c, '0' | '#'))
    {
        return None;
    }
    let min_dec = fp.chars().filter(|c| *c == '0').count();
    let max_dec = fp.len();
    let mut s = format!("{:.*}", max_dec, f);
    if max_dec > min_dec {
        // trim optional decimals
        while s.ends_with('0') && s.split_once('.').is_some_and(|(_, d)| d.len() > min_dec) {
            s.pop();
        }
        if s.ends_with('.') {
            s.pop();
        }
    }
    let (si, sf) = match s.split_once('.') {
        Some((a, b)) => (a.to_string(), Some(b.to_string())),
        None => (s.clone(), None),
    };
    let min_int = ip.chars().filter(|c| *c == '0').count();
    let (neg, digits) = match si.strip_prefix('-') {
        Some(d) => (true, d.to_string()),
        None => (false, si.clone()),
    };
    let mut digits = if digits == "0" && min_int == 0 {
        String::new()
    } else {
        digits
    };
    while digits.len() < min_int {
        digits.insert(0, '0');
    }
    let digits = if ip.contains(',') {
        group_thousands(&digits)
    } else {
        digits
    };
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    out.push_str(&digits);
    if let Some(sf) = sf {
        out.push('.');
        out.push_str(&sf);
    }
    Some(out)
}

fn format_datetime(v: &Value, fmt: &str) -> Option<String> {
    let (days, ticks, off, _) = dt_arg(v).ok()?;
    let (y, m, d) = civil_from_days(days);
    let fmt = match fmt {
        "d" => "M/d/yyyy",
        "D" => "dddd, MMMM d, yyyy",
        "t" => "h:mm tt",
        "T" => "h:mm:ss tt",
        "g" => "M/d/yyyy h:mm tt",
        "G" => "M/d/yyyy h:mm:ss tt",
        "s" => "yyyy-MM-ddTHH:mm:ss",
        f => f,
    };
    let h = ticks / TICKS_PER_HOUR;
    let mi = (ticks / TICKS_PER_MIN) % 60;
    let s = (ticks / TICKS_PER_SEC) % 60;
    let frac = ticks % TICKS_PER_SEC;
    let c: Vec<char> = fmt.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        let mut run = 1;
        while i + run < c.len() && c[i + run] == ch {
            run += 1;
        }
        match ch {
            'y' => {
                if run <= 2 {
                    out.push_str(&format!("{:02}", y % 100));
                } else {
                    out.push_str(&format!("{:0w$}", y, w = run));
                }
            }
            'M' => match run {
                1 => out.push_str(&m.to_string()),
                2 => out.push_str(&format!("{:02}", m)),
                3 => out.push_str(&MONTH_NAMES[(m - 1) as usize][..3]),
                _ => out.push_str(MONTH_NAMES[(m - 1) as usize]),
            },
            'd' => match run {
                1 => out.push_str(&d.to_string()),
                2 => out.push_str(&format!("{:02}", d)),
                3 => out.push_str(&DAY_NAMES[crate::datetime::weekday(days) as usize][..3]),
                _ => out.push_str(DAY_NAMES[crate::datetime::weekday(days) as usize]),
            },
            'H' => out.push_str(&format!("{:0w$}", h, w = run.min(2))),
            'h' => {
                let h12 = if h % 12 == 0 { 12 } else { h % 12 };
                out.push_str(&format!("{:0w$}", h12, w = run.min(2)));
            }
            'm' => out.push_str(&format!("{:0w$}", mi, w = run.min(2))),
            's' => out.push_str(&format!("{:0w$}", s, w = run.min(2))),
            'f' | 'F' => {
                let n = run.min(7);
                let digits = format!("{:07}", frac);
                out.push_str(&digits[..n]);
            }
            't' => {
                let ap = if h >= 12 { "PM" } else { "AM" };
                out.push_str(if run == 1 { &ap[..1] } else { ap });
            }
            'z' => {
                let mut o = String::new();
                crate::datetime::fmt_offset(off, &mut o);
                out.push_str(&o);
            }
            '\\' if i + 1 < c.len() => {
                out.push(c[i + 1]);
                i += 2;
                continue;
            }
            _ => {
                for _ in 0..run {
                    out.push(ch);
                }
            }
        }
        i += run;
    }
    Some(out)
}

// ------------------------------------------------------------------ dispatcher

/// Does `v` already have the representation of type `t`?
fn conforms(v: &Value, t: &DataType) -> bool {
    match (v, t) {
        (Value::Null, _) => true,
        (Value::Bit(_), DataType::Bit)
        | (Value::TinyInt(_), DataType::TinyInt)
        | (Value::SmallInt(_), DataType::SmallInt)
        | (Value::Int(_), DataType::Int)
        | (Value::BigInt(_), DataType::BigInt)
        | (Value::Float(_), DataType::Float)
        | (Value::Real(_), DataType::Real)
        | (Value::Money(_), DataType::Money)
        | (Value::SmallMoney(_), DataType::SmallMoney)
        | (Value::Char(_), DataType::Char(_))
        | (Value::VarChar(_), DataType::VarChar(_))
        | (Value::NChar(_), DataType::NChar(_))
        | (Value::NVarChar(_), DataType::NVarChar(_))
        | (Value::Binary(_), DataType::Binary(_))
        | (Value::VarBinary(_), DataType::VarBinary(_))
        | (Value::Date(_), DataType::Date)
        | (Value::Time(_), DataType::Time(_))
        | (Value::DateTime { .. }, DataType::DateTime)
        | (Value::DateTime2 { .. }, DataType::DateTime2(_))
        | (Value::SmallDateTime { .. }, DataType::SmallDateTime)
        | (Value::DateTimeOffset { .. }, DataType::DateTimeOffset(_))
        | (Value::UniqueIdentifier(_), DataType::UniqueIdentifier) => true,
        (
            Value::Decimal { scale, .. },
            DataType::Decimal { scale: ts, .. } | DataType::Numeric { scale: ts, .. },
        ) => scale == ts,
        _ => false,
    }
}

/// [`call`] followed by conversion to [`function_result_type`] of the argument types, so the
/// value always has the representation the binder announced (LEN of a `max` argument is a
/// bigint, ROUND keeps the declared scale, …).
pub fn call_typed(name: &str, args: &[Value], arg_types: &[DataType]) -> SqlResult<Value> {
    let v = call(name, args)?;
    let rt = function_result_type(name, arg_types)?;
    if conforms(&v, &rt) {
        Ok(v)
    } else {
        v.cast(&rt)
    }
}

/// Evaluates a built-in scalar function on argument values.
pub fn call(name: &str, args: &[Value]) -> SqlResult<Value> {
    call_with_types(name, args, None)
}

/// [`call`] knowing which arguments have a max type (`is_max_arg(i)`): a value alone does not
/// tell `CAST('y' AS varchar(max))` from `'y'`, and REPLICATE of a max argument is not
/// truncated at 8,000 bytes.
pub fn call_with_types(
    name: &str,
    args: &[Value],
    is_max_arg: Option<&dyn Fn(usize) -> bool>,
) -> SqlResult<Value> {
    let up = name.to_ascii_uppercase();
    let n = args.len();
    let arg = |i: usize| args.get(i).unwrap_or(&Value::Null);
    match up.as_str() {
        "LEN" => {
            check_count(&up, n, 1, 1)?;
            if arg(0).is_null() {
                return Ok(Value::Null);
            }
            let s = text(arg(0))?;
            let t = s.trim_end_matches(' ');
            let len =
                charset::str_len(t, is_unicode_value(arg(0)) || arg(0).as_str().is_none()) as i64;
            let len = if arg(0).as_str().is_some() && !is_unicode_value(arg(0)) {
                charset::varchar_len(t) as i64
            } else {
                len
            };
            Ok(if arg(0).data_type().is_max() {
                Value::BigInt(len)
            } else {
                Value::Int(len as i32)
            })
        }
        "DATALENGTH" => {
            check_count(&up, n, 1, 1)?;
            let v = arg(0);
            let len: i64 = match v {
                Value::Null => return Ok(Value::Null),
                Value::Char(s) | Value::VarChar(s) => charset::varchar_len(s) as i64,
                Value::NChar(s) | Value::NVarChar(s) => charset::utf16_len(s) as i64 * 2,
                Value::Binary(b) | Value::VarBinary(b) => b.len() as i64,
                Value::Decimal { .. } => v.data_type().max_length_bytes() as i64,
                v => v.data_type().max_length_bytes().max(0) as i64,
            };
            Ok(if v.data_type().is_max() {
                Value::BigInt(len)
            } else {
                Value::Int(len as i32)
            })
        }
        "SUBSTRING" | "LEFT" | "RIGHT" => {
            check_count(
                &up,
                n,
                if up == "SUBSTRING" { 3 } else { 2 },
                if up == "SUBSTRING" { 3 } else { 2 },
            )?;
            if null_in(args) {
                return Ok(Value::Null);
            }
            let v = arg(0);
            let (start, len) = match up.as_str() {
                "SUBSTRING" => (int_arg(arg(1))?, int_arg(arg(2))?),
                _ => (1, int_arg(arg(1))?),
            };
            if len < 0 {
                let f = up.to_ascii_lowercase();
                return Err(SqlError::new(536, &[&f]));
            }
            if let Some(b) = v.as_bytes() {
                let total = b.len() as i64;
                let (s0, e0) = match up.as_str() {
                    "RIGHT" => ((total - len).max(0), total),
                    _ => {
                        let s = start - 1;
                        (s.max(0), s.saturating_add(len).clamp(0, total))
                    }
                };
                let out = if s0 >= e0 {
                    vec![]
                } else {
                    b[s0 as usize..e0 as usize].to_vec()
                };
                return Ok(Value::VarBinary(out));
            }
            let s = text(v)?;
            let cs = chars_of(&s);
            let total = cs.len() as i64;
            let (s0, e0) = match up.as_str() {
                "RIGHT" => ((total - len).max(0), total),
                _ => {
                    let s = start - 1;
                    (s.max(0), s.saturating_add(len).clamp(0, total))
                }
            };
            let out: String = if s0 >= e0 {
                String::new()
            } else {
                cs[s0 as usize..e0 as usize].iter().collect()
            };
            Ok(same_kind(v, out))
        }
        "UPPER" | "LOWER" => {
            check_count(&up, n, 1, 1)?;
            if arg(0).is_null() {
                return Ok(Value::Null);
            }
            let s = text(arg(0))?;
            let r = if up == "UPPER" {
                upper_text(&s)
            } else {
                lower_text(&s)
            };
            Ok(same_kind(arg(0), r))
        }
        "LTRIM" | "RTRIM" | "TRIM" => {
            check_count(&up, n, 1, 2)?;
            if null_in(args) {
                return Ok(Value::Null);
            }
            // TRIM(chars FROM s) arrives as (chars, s); LTRIM/RTRIM(s, chars)
            let (sv, chars) = if up == "TRIM" && n == 2 {
                (arg(1), Some(text(arg(0))?.into_owned()))
            } else if n == 2 {
                (arg(0), Some(text(arg(1))?.into_owned()))
            } else {
                (arg(0), None)
            };
            let s = text(sv)?;
            let set: Vec<char> = chars
                .map(|c| c.chars().collect())
                .unwrap_or_else(|| vec![' ']);
            let pred = |c: char| set.contains(&c);
            let r = match up.as_str() {
                "LTRIM" => s.trim_start_matches(pred),
                "RTRIM" => s.trim_end_matches(pred),
                _ => s.trim_matches(pred),
            };
            Ok(same_kind(sv, r.to_string()))
        }
        "REPLACE" => {
            check_count(&up, n, 3, 3)?;
            if null_in(args) {
                return Ok(Value::Null);
            }
            let s = chars_of(&text(arg(0))?);
            let find = chars_of(&text(arg(1))?);
            let rep = text(arg(2))?;
            let unicode = args.iter().any(is_unicode_value);
            if find.is_empty() {
                let r: String = s.iter().collect();
                return Ok(if unicode {
                    Value::NVarChar(r)
                } else {
                    Value::VarChar(r)
                });
            }
            let mut out = String::new();
            let mut i = 0;
            let coll = Collation::DEFAULT;
            // each replacement grows the result by at most this much; checked against the
            // 2 GB cap before it is appended (lob.rs)
            let rep_bytes = crate::lob::str_bytes(&rep, unicode);
            let width = if unicode { 2 } else { 1 };
            let mut bytes = 0u64;
            while i < s.len() {
                match find_ci(&s, &find, i, coll) {
                    Some(p) => {
                        let kept = (p - i) as u64 * width;
                        bytes = crate::lob::add_bytes(bytes, kept)?;
                        bytes = crate::lob::add_bytes(bytes, rep_bytes)?;
                        crate::lob::try_reserve(&mut out, p - i + rep.len())?;
                        out.extend(&s[i..p]);
                        out.push_str(&rep);
                        i = p + find.len();
                    }
                    None => {
                        out.extend(&s[i..]);
                        break;
                    }
                }
            }
            Ok(if unicode {
                Value::NVarChar(out)
            } else {
                Value::VarChar(out)
            })
        }
        "CHARINDEX" => {
            check_count(&up, n, 2, 3)?;
            if arg(0).is_null() || arg(1).is_null() {
                return Ok(Value::Null);
            }
            let find = chars_of(&text(arg(0))?);
            let s = chars_of(&text(arg(1))?);
            let start = if n == 3 && !arg(2).is_null() {
                int_arg(arg(2))?.max(1)
            } else {
                1
            };
            let pos = find_ci(&s, &find, (start - 1) as usize, Collation::DEFAULT)
                .map(|p| p as i64 + 1)
                .unwrap_or(0);
            Ok(if arg(1).data_type().is_max() {
                Value::BigInt(pos)
            } else {
                Value::Int(pos as i32)
            })
        }
        "PATINDEX" => {
            check_count(&up, n, 2, 2)?;
            if null_in(args) {
                return Ok(Value::Null);
            }
            let pat = text(arg(0))?;
            let s = text(arg(1))?;
            let cs = chars_of(&s);
            let (anchored, body) = match pat.strip_prefix('%') {
                Some(b) => (false, b.to_string()),
                None => (true, pat.to_string()),
            };
            let mut pos = 0i64;
            for i in 0..cs.len() {
                let tail: String = cs[i..].iter().collect();
                if like_match(&tail, &body, None, Collation::DEFAULT) {
                    pos = i as i64 + 1;
                    break;
                }
                if anchored {
                    break;
                }
            }
            Ok(Value::Int(pos as i32))
        }
        "REPLICATE" => {
            check_count(&up, n, 2, 2)?;
            if null_in(args) {
                return Ok(Value::Null);
            }
            let k = int_arg(arg(1))?;
            if k < 0 {
                return Ok(Value::Null);
            }
            let s = text(arg(0))?;
            if s.is_empty() {
                return Ok(same_kind(arg(0), String::new()));
            }
            let max = match is_max_arg {
                Some(f) => f(0),
                None => arg(0).data_type().is_max(),
            };
            let unicode = is_unicode_value(arg(0));
            let limit = if max {
                // the 2 GB cap, checked before anything is allocated (lob.rs)
                let bytes = crate::lob::str_bytes(&s, unicode);
                crate::lob::mul_bytes(bytes, k as u64)?;
                usize::MAX
            } else if unicode {
                4000
            } else {
                8000
            };
            // Lengths are counted once: re-measuring the growing result per copy made
            // REPLICATE('Z', 5000) quadratic (the seeds' filler columns).
            let unit = charset::str_len(&s, unicode);
            let whole = usize::try_from(k).unwrap_or(usize::MAX).min(limit / unit);
            let cap = s
                .len()
                .checked_mul(whole)
                .and_then(|n| n.checked_add(s.len()))
                .ok_or_else(crate::lob::too_large)?;
            let mut out = crate::lob::try_string(cap)?;
            for _ in 0..whole {
                out.push_str(&s);
            }
            if whole < k as usize {
                out.push_str(charset::truncate_units(&s, limit - unit * whole, unicode));
            }
            Ok(same_kind(arg(0), out))
        }
        "REVERSE" => {
            check_count(&up, n, 1, 1)?;
            if arg(0).is_null() {
                return Ok(Value::Null);
            }
            Ok(same_kind(arg(0), text(arg(0))?.chars().rev().collect()))
        }
        "SPACE" => {
            check_count(&up, n, 1, 1)?;
            if arg(0).is_null() {
                return Ok(Value::Null);
            }
            let k = int_arg(arg(0))?;
            if k < 0 {
                return Ok(Value::Null);
            }
            Ok(Value::VarChar(" ".repeat(k.min(8000) as usize)))
        }
        "STUFF" => {
            check_count(&up, n, 4, 4)?;
            if arg(0).is_null() || arg(1).is_null() || arg(2).is_null() {
                return Ok(Value::Null);
            }
            let s = chars_of(&text(arg(0))?);
            let start = int_arg(arg(1))?;
            let len = int_arg(arg(2))?;
            if start < 1 || start > s.len() as i64 || len < 0 {
                return Ok(Value::Null);
            }
            let ins = if arg(3).is_null() {
                String::new()
            } else {
                text(arg(3))?.into_owned()
            };
            let st = (start - 1) as usize;
            let en = st
                .saturating_add(usize::try_from(len).unwrap_or(usize::MAX))
                .min(s.len());
            let unicode = is_unicode_value(arg(0)) || is_unicode_value(arg(3));
            let width = if unicode { 2 } else { 1 };
            crate::lob::add_bytes(
                (st + s.len() - en) as u64 * width,
                crate::lob::str_bytes(&ins, unicode),
            )?;
            let mut out: String = s[..st].iter().collect();
            out.push_str(&ins);
            out.extend(&s[en..]);
            Ok(if unicode {
                Value::NVarChar(out)
            } else {
                Value::VarChar(out)
            })
        }
        "CONCAT" | "CONCAT_WS" => {
            let ws = up == "CONCAT_WS";
            if n < if ws { 3 } else { 2 } {
                return Err(argc_range_err(&up, if ws { 3 } else { 2 }, 254));
            }
            let unicode = args.iter().any(is_unicode_value);
            let (sep, items) = if ws {
                let sep = if arg(0).is_null() {
                    String::new()
                } else {
                    text(arg(0))?.into_owned()
                };
                (sep, &args[1..])
            } else {
                (String::new(), args)
            };
            let mut out = String::new();
            let mut first = true;
            // running SQL Server size, checked before each piece is appended (lob.rs)
            let mut bytes = 0u64;
            let sep_bytes = crate::lob::str_bytes(&sep, unicode);
            for v in items {
                if v.is_null() {
                    continue;
                }
                let piece = text(v)?;
                if ws && !first {
                    bytes = crate::lob::add_bytes(bytes, sep_bytes)?;
                    crate::lob::try_reserve(&mut out, sep.len())?;
                    out.push_str(&sep);
                }
                bytes = crate::lob::add_bytes(bytes, crate::lob::str_bytes(&piece, unicode))?;
                crate::lob::try_reserve(&mut out, piece.len())?;
                out.push_str(&piece);
                first = false;
            }
            Ok(if unicode {
                Value::NVarChar(out)
            } else {
                // converted only when some character is not in code page 1252 (no copy of
                // a result that already is)
                match charset::to_cp1252_text(&out) {
                    std::borrow::Cow::Owned(o) => Value::VarChar(o),
                    std::borrow::Cow::Borrowed(_) => Value::VarChar(out),
                }
            })
        }
        "QUOTENAME" => {
            check_count(&up, n, 1, 2)?;
            if null_in(args) {
                return Ok(Value::Null);
            }
            let s = text(arg(0))?;
            if charset::utf16_len(&s) > 128 {
                return Ok(Value::Null);
            }
            let q = if n == 2 {
                text(arg(1))?.chars().next().unwrap_or('[')
            } else {
                '['
            };
            let (open, close) = match q {
                '[' | ']' => ('[', ']'),
                '"' => ('"', '"'),
                '\'' => ('\'', '\''),
                '(' | ')' => ('(', ')'),
                '<' | '>' => ('<', '>'),
                '{' | '}' => ('{', '}'),
                '`' => ('`', '`'),
                _ => return Ok(Value::Null),
            };
            let mut out = String::new();
            out.push(open);
            for c in s.chars() {
                out.push(c);
                if c == close {
                    out.push(c);
                }
            }
            out.push(close);
            Ok(Value::NVarChar(out))
        }
        "STR" => {
            check_count(&up, n, 1, 3)?;
            if null_in(args) {
                return Ok(Value::Null);
            }
            let f = float_arg(arg(0))?;
            let len = if n >= 2 { int_arg(arg(1))? } else { 10 };
            let dec = if n >= 3 { int_arg(arg(2))? } else { 0 };
            Ok(str_fn(f, len, dec)
                .map(Value::VarChar)
                .unwrap_or(Value::Null))
        }
        "FORMAT" => {
            check_count(&up, n, 2, 3)?;
            if arg(0).is_null() || arg(1).is_null() {
                return Ok(Value::Null);
            }
            let fmt = text(arg(1))?;
            let v = arg(0);
            let r = if v.as_f64().is_some() {
                format_number(v, &fmt)
            } else if v.as_str().is_some() {
                None
            } else {
                format_datetime(v, &fmt)
            };
            Ok(r.map(Value::NVarChar).unwrap_or(Value::Null))
        }
        "ASCII" => {
            check_count(&up, n, 1, 1)?;
            if arg(0).is_null() {
                return Ok(Value::Null);
            }
            let s = text(arg(0))?;
            Ok(match s.chars().next() {
                Some(c) => Value::Int(charset::encode_char(c).unwrap_or(b'?') as i32),
                None => Value::Null,
            })
        }
        "UNICODE" => {
            check_count(&up, n, 1, 1)?;
            if arg(0).is_null() {
                return Ok(Value::Null);
            }
            let s = text(arg(0))?;
            Ok(match s.chars().next() {
                Some(c) => Value::Int(c as i32),
                None => Value::Null,
            })
        }
        "CHAR" => {
            check_count(&up, n, 1, 1)?;
            if arg(0).is_null() {
                return Ok(Value::Null);
            }
            let x = int_arg(arg(0))?;
            Ok(if (0..=255).contains(&x) {
                Value::Char(charset::decode_byte(x as u8).to_string())
            } else {
                Value::Null
            })
        }
        "NCHAR" => {
            check_count(&up, n, 1, 1)?;
            if arg(0).is_null() {
                return Ok(Value::Null);
            }
            let x = int_arg(arg(0))?;
            Ok(match u32::try_from(x).ok().and_then(char::from_u32) {
                Some(c) if x <= 0x10FFFF => Value::NChar(c.to_string()),
                _ => Value::Null,
            })
        }
        "ABS" => {
            check_count(&up, n, 1, 1)?;
            let v = arg(0);
            Ok(match v {
                Value::Null => Value::Null,
                Value::Decimal { mantissa, scale } => Value::Decimal {
                    mantissa: mantissa.abs(),
                    scale: *scale,
                },
                Value::Money(m) => Value::Money(
                    m.checked_abs()
                        .ok_or_else(|| SqlError::new(8115, &[&"expression", &"money"]))?,
                ),
                Value::SmallMoney(m) => Value::SmallMoney(m.abs()),
                Value::Float(f) => Value::Float(f.abs()),
                Value::Real(f) => Value::Real(f.abs()),
                Value::BigInt(x) => Value::BigInt(
                    x.checked_abs()
                        .ok_or_else(|| SqlError::new(8115, &[&"expression", &"bigint"]))?,
                ),
                v if v.as_str().is_some() => Value::Float(float_arg(v)?.abs()),
                v => {
                    let x = int_arg(v)?;
                    Value::BigInt(x.abs()).cast(&DataType::Int)?
                }
            })
        }
        "SIGN" => {
            check_count(&up, n, 1, 1)?;
            let v = arg(0);
            Ok(match v {
                Value::Null => Value::Null,
                Value::Decimal { mantissa, scale } => Value::Decimal {
                    mantissa: mantissa.signum() * decimal::POW10[(*scale).min(38) as usize],
                    scale: *scale,
                },
                Value::Money(m) => Value::Money(m.signum() * 10_000),
                Value::SmallMoney(m) => Value::SmallMoney(m.signum() * 10_000),
                Value::Float(f) => Value::Float(if *f > 0.0 {
                    1.0
                } else if *f < 0.0 {
                    -1.0
                } else {
                    0.0
                }),
                Value::Real(f) => Value::Real(if *f > 0.0 {
                    1.0
                } else if *f < 0.0 {
                    -1.0
                } else {
                    0.0
                }),
                v if v.as_str().is_some() => Value::Float(float_arg(v)?.signum()),
                v => int_result_like(v, int_arg(v)?.signum())?,
            })
        }
        "CEILING" | "FLOOR" => {
            check_count(&up, n, 1, 1)?;
            if arg(0).is_null() {
                return Ok(Value::Null);
            }
            floor_ceil(arg(0), up == "CEILING")
        }
        "ROUND" => {
            check_count(&up, n, 2, 3)?;
            if arg(0).is_null() || arg(1).is_null() {
                return Ok(Value::Null);
            }
            let len = int_arg(arg(1))?;
            let trunc = n == 3 && !arg(2).is_null() && int_arg(arg(2))? != 0;
            let v = if arg(0).as_str().is_some() {
                Value::Float(float_arg(arg(0))?)
            } else {
                arg(0).clone()
            };
            round_value(&v, len, trunc)
        }
        "POWER" => {
            check_count(&up, n, 2, 2)?;
            if null_in(args) {
                return Ok(Value::Null);
            }
            let x = float_arg(arg(0))?;
            let y = float_arg(arg(1))?;
            let r = x.powf(y);
            if !r.is_finite() {
                return Err(SqlError::new(3623, &[]));
            }
            Ok(match arg(0) {
                Value::Decimal { scale, .. } => {
                    Value::Float(r).cast(&DataType::decimal(38, *scale))?
                }
                Value::Float(_) => Value::Float(r),
                Value::Real(_) => Value::Real(r as f32),
                Value::Money(_) => Value::Float(r).cast(&DataType::Money)?,
                Value::SmallMoney(_) => Value::Float(r).cast(&DataType::SmallMoney)?,
                Value::BigInt(_) => Value::Float(r.trunc()).cast(&DataType::BigInt)?,
                v if v.as_str().is_some() => Value::Float(r),
                _ => Value::Float(r.trunc()).cast(&DataType::Int)?,
            })
        }
        "SQRT" | "EXP" | "LOG10" | "SQUARE" | "SIN" | "COS" | "TAN" | "ASIN" | "ACOS" | "ATAN"
        | "COT" | "LOG" | "ATN2" | "DEGREES" | "RADIANS" => {
            let (lo, hi) = match up.as_str() {
                "LOG" => (1, 2),
                "ATN2" => (2, 2),
                _ => (1, 1),
            };
            check_count(&up, n, lo, hi)?;
            if null_in(args) {
                return Ok(Value::Null);
            }
            let x = float_arg(arg(0))?;
            let bad = || SqlError::new(3623, &[]);
            let r = match up.as_str() {
                "SQRT" => {
                    if x < 0.0 {
                        return Err(bad());
                    }
                    x.sqrt()
                }
                "EXP" => x.exp(),
                "LOG10" => {
                    if x <= 0.0 {
                        return Err(bad());
                    }
                    x.log10()
                }
                "LOG" => {
                    if x <= 0.0 {
                        return Err(bad());
                    }
                    if n == 2 {
                        let b = float_arg(arg(1))?;
                        if b <= 0.0 || b == 1.0 {
                            return Err(bad());
                        }
                        x.ln() / b.ln()
                    } else {
                        x.ln()
                    }
                }
                "SQUARE" => x * x,
                "SIN" => x.sin(),
                "COS" => x.cos(),
                "TAN" => x.tan(),
                "ASIN" => {
                    if !(-1.0..=1.0).contains(&x) {
                        return Err(bad());
                    }
                    x.asin()
                }
                "ACOS" => {
                    if !(-1.0..=1.0).contains(&x) {
                        return Err(bad());
                    }
                    x.acos()
                }
                "ATAN" => x.atan(),
                "COT" => {
                    let t = x.tan();
                    if t == 0.0 {
                        return Err(bad());
                    }
                    1.0 / t
                }
                "ATN2" => x.atan2(float_arg(arg(1))?),
                "DEGREES" | "RADIANS" => {
                    let r = if up == "DEGREES" {
                        x.to_degrees()
                    } else {
                        x.to_radians()
                    };
                    return match arg(0) {
                        Value::Float(_) => float_result(r),
                        Value::Real(_) => Ok(Value::Real(r as f32)),
                        Value::Decimal { scale, .. } => {
                            Value::Float(r).cast(&DataType::decimal(38, *scale))
                        }
                        Value::Money(_) => Value::Float(r).cast(&DataType::Money),
                        v if v.as_i64().is_some() => Value::Float(r.trunc()).cast(&DataType::Int),
                        _ => float_result(r),
                    };
                }
                _ => x,
            };
            float_result(r)
        }
        "PI" => {
            check_count(&up, n, 0, 0)?;
            Ok(Value::Float(std::f64::consts::PI))
        }
        "RAND" => {
            check_count(&up, n, 0, 1)?;
            let seed = if n == 1 && !arg(0).is_null() {
                Some(int_arg(arg(0))? as u64)
            } else {
                None
            };
            let x = match seed {
                Some(s) => {
                    // deterministic for a seed (SplitMix64)
                    let mut z = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
                    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                    z ^ (z >> 31)
                }
                None => random_u64(),
            };
            Ok(Value::Float((x >> 11) as f64 / (1u64 << 53) as f64))
        }
        "DATEADD" => {
            check_count(&up, n, 3, 3)?;
            if arg(1).is_null() || arg(2).is_null() {
                return Ok(Value::Null);
            }
            let part = datepart_arg(arg(0))?;
            let k = match arg(1) {
                Value::Decimal { mantissa, scale } => {
                    decimal::div_pow10_trunc(*mantissa, *scale as u32) as i64
                }
                Value::Float(f) => f.trunc() as i64,
                Value::Real(f) => f.trunc() as i64,
                v => int_arg(v)?,
            };
            dateadd(part, k, arg(2))
        }
        "DATEDIFF" | "DATEDIFF_BIG" => {
            check_count(&up, n, 3, 3)?;
            if arg(1).is_null() || arg(2).is_null() {
                return Ok(Value::Null);
            }
            let part = datepart_arg(arg(0))?;
            datediff(part, arg(1), arg(2), up == "DATEDIFF_BIG")
        }
        "DATEPART" | "DATENAME" => {
            // The binder appends the session's @@DATEFIRST as a third argument (weekday and
            // week numbers depend on it); 7 (Sunday, us_english) when absent.
            check_count(&up, n, 2, 3)?;
            if arg(1).is_null() {
                return Ok(Value::Null);
            }
            let datefirst = match arg(2) {
                Value::Null => 7,
                v => v.as_i64().unwrap_or(7),
            };
            let part = datepart_arg(arg(0))?;
            let (days, ticks, off, ty) = dt_arg(arg(1))?;
            if matches!(ty, DataType::Date) && part.is_time_part() {
                return Err(SqlError::new(
                    9810,
                    &[&part.name(), &up.to_ascii_lowercase(), &"date"],
                ));
            }
            let x = datepart_value(part, days, ticks, off, datefirst);
            if up == "DATEPART" {
                return Ok(Value::Int(x as i32));
            }
            let (_, m, _) = civil_from_days(days);
            Ok(Value::NVarChar(match part {
                DatePart::Month => MONTH_NAMES[(m - 1) as usize].to_string(),
                DatePart::Weekday => DAY_NAMES[crate::datetime::weekday(days) as usize].to_string(),
                DatePart::TzOffset => {
                    let mut o = String::new();
                    crate::datetime::fmt_offset(off, &mut o);
                    o
                }
                _ => x.to_string(),
            }))
        }
        "YEAR" | "MONTH" | "DAY" => {
            check_count(&up, n, 1, 1)?;
            if arg(0).is_null() {
                return Ok(Value::Null);
            }
            let (days, _, _, _) = dt_arg(arg(0))?;
            let (y, m, d) = civil_from_days(days);
            Ok(Value::Int(match up.as_str() {
                "YEAR" => y,
                "MONTH" => m as i32,
                _ => d as i32,
            }))
        }
        "EOMONTH" => {
            check_count(&up, n, 1, 2)?;
            if null_in(args) {
                return Ok(Value::Null);
            }
            let (days, _, _, _) = dt_arg(arg(0))?;
            let k = if n == 2 { int_arg(arg(1))? } else { 0 };
            let d = add_months(days, k).ok_or_else(|| SqlError::new(517, &[&"date"]))?;
            let (y, m, _) = civil_from_days(d);
            Ok(Value::Date(days_from_civil(y, m, days_in_month(y, m))))
        }
        "DATEFROMPARTS" => {
            check_count(&up, n, 3, 3)?;
            if null_in(args) {
                return Ok(Value::Null);
            }
            let (y, m, d) = (int_arg(arg(0))?, int_arg(arg(1))?, int_arg(arg(2))?);
            let r = (|| {
                make_date(
                    i32::try_from(y).ok()?,
                    u32::try_from(m).ok()?,
                    u32::try_from(d).ok()?,
                )
            })();
            r.map(Value::Date)
                .ok_or_else(|| SqlError::new(289, &[&"date"]))
        }
        "DATETIMEFROMPARTS" => {
            check_count(&up, n, 7, 7)?;
            if null_in(args) {
                return Ok(Value::Null);
            }
            let p: Vec<i64> = args.iter().map(int_arg).collect::<SqlResult<_>>()?;
            let bad = || SqlError::new(289, &[&"datetime"]);
            let d = make_date(
                i32::try_from(p[0]).map_err(|_| bad())?,
                u32::try_from(p[1]).map_err(|_| bad())?,
                u32::try_from(p[2]).map_err(|_| bad())?,
            )
            .ok_or_else(bad)?;
            if !(0..24).contains(&p[3])
                || !(0..60).contains(&p[4])
                || !(0..60).contains(&p[5])
                || !(0..1000).contains(&p[6])
            {
                return Err(bad());
            }
            let t =
                p[3] * TICKS_PER_HOUR + p[4] * TICKS_PER_MIN + p[5] * TICKS_PER_SEC + p[6] * 10_000;
            Value::DateTime2 { days: d, ticks: t }
                .cast(&DataType::DateTime)
                .map_err(|_| bad())
        }
        "ISNUMERIC" => {
            check_count(&up, n, 1, 1)?;
            let v = arg(0);
            Ok(Value::Int(match v {
                Value::Null => 0,
                v if v.as_f64().is_some() => 1,
                v => match v.as_str() {
                    Some(s) => is_numeric_text(s) as i32,
                    None => 0,
                },
            }))
        }
        "ISDATE" => {
            check_count(&up, n, 1, 1)?;
            let v = arg(0);
            Ok(Value::Int(match v {
                Value::Null => 0,
                Value::Char(_) | Value::VarChar(_) | Value::NChar(_) | Value::NVarChar(_) => {
                    v.cast(&DataType::DateTime).is_ok() as i32
                }
                Value::DateTime { .. } | Value::SmallDateTime { .. } => 1,
                Value::Date(_) | Value::DateTime2 { .. } | Value::DateTimeOffset { .. } => {
                    return Err(SqlError::new(
                        8116,
                        &[&v.data_type().sql_name(), &1, &"isdate"],
                    ))
                }
                _ => 0,
            }))
        }
        "CHECKSUM" | "BINARY_CHECKSUM" => {
            if n == 0 {
                return Err(argc_range_err(&up, 1, 255));
            }
            Ok(Value::Int(checksum_of(args, up == "BINARY_CHECKSUM")))
        }
        "HASHBYTES" => {
            check_count(&up, n, 2, 2)?;
            if arg(0).is_null() || arg(1).is_null() {
                return Ok(Value::Null);
            }
            let alg = text(arg(0))?;
            let data = match arg(1).cast(&DataType::VarBinary(None))? {
                Value::VarBinary(b) | Value::Binary(b) => b,
                _ => return Ok(Value::Null),
            };
            Ok(match hash::hash_bytes(&alg, &data) {
                Some(d) => Value::VarBinary(d),
                None => Value::Null,
            })
        }
        "NEWID" => {
            check_count(&up, n, 0, 0)?;
            Ok(new_id())
        }
        "GETDATE" | "CURRENT_TIMESTAMP" | "GETUTCDATE" => {
            check_count(&up, n, 0, 0)?;
            let (d, t) = now_parts();
            Value::DateTime2 { days: d, ticks: t }.cast(&DataType::DateTime)
        }
        "SYSDATETIME" | "SYSUTCDATETIME" => {
            check_count(&up, n, 0, 0)?;
            let (d, t) = now_parts();
            Ok(Value::DateTime2 { days: d, ticks: t })
        }
        "SYSDATETIMEOFFSET" => {
            check_count(&up, n, 0, 0)?;
            let (d, t) = now_parts();
            Ok(Value::DateTimeOffset {
                days: d,
                ticks: t,
                offset_minutes: 0,
            })
        }
        "GREATEST" | "LEAST" => {
            // the binder fixed the result type from the argument types; the values' own
            // types give the same family here, and the caller converts the result to it
            let types: Vec<DataType> = args.iter().map(Value::data_type).collect();
            let t = minmax::result_type(&up, &types)?;
            minmax::evaluate(args, &t, up == "GREATEST")
        }
        _ => match dt::call(&up, args).or_else(|| crate::json::call(&up, args)) {
            Some(r) => r,
            None => Err(SqlError::new(195, &[&name, &"built-in function name"])),
        },
    }
}

/// UPPER: character by character, as SQL Server maps case. A character whose uppercase is
/// several characters (`ß` → `SS`, `ŉ`, ligatures) has no single-character mapping and is
/// kept, so `UPPER(N'straße')` is `STRAßE` and the length never changes.
pub fn upper_text(s: &str) -> String {
    s.chars()
        .map(|c| {
            let mut u = c.to_uppercase();
            match (u.next(), u.next()) {
                (Some(x), None) => x,
                _ => c,
            }
        })
        .collect()
}

/// LOWER: character by character; the one multi-character lowercase (`İ` → `i` + combining
/// dot) is its single-character mapping `i`.
pub fn lower_text(s: &str) -> String {
    s.chars()
        .map(|c| c.to_lowercase().next().unwrap_or(c))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vc(s: &str) -> Value {
        Value::VarChar(s.into())
    }
    fn c(name: &str, args: &[Value]) -> Value {
        call(name, args).unwrap()
    }
    fn dec(m: i128, s: u8) -> Value {
        Value::Decimal {
            mantissa: m,
            scale: s,
        }
    }

    #[test]
    fn strings() {
        assert_eq!(c("LEN", &[vc("abc  ")]), Value::Int(3));
        assert_eq!(c("len", &[Value::Int(123)]), Value::Int(3));
        assert_eq!(c("DATALENGTH", &[vc("abc  ")]), Value::Int(5));
        assert_eq!(
            c("DATALENGTH", &[Value::NVarChar("ab".into())]),
            Value::Int(4)
        );
        assert_eq!(c("DATALENGTH", &[Value::Int(5)]), Value::Int(4));
        assert_eq!(
            c("SUBSTRING", &[vc("abcdef"), Value::Int(2), Value::Int(3)]),
            vc("bcd")
        );
        assert_eq!(
            c("SUBSTRING", &[vc("abc"), Value::Int(0), Value::Int(2)]),
            vc("a")
        );
        assert_eq!(
            call("SUBSTRING", &[vc("abc"), Value::Int(1), Value::Int(-1)])
                .unwrap_err()
                .number,
            536
        );
        assert_eq!(c("LEFT", &[vc("abc"), Value::Int(2)]), vc("ab"));
        assert_eq!(c("RIGHT", &[vc("abc"), Value::Int(2)]), vc("bc"));
        assert_eq!(c("UPPER", &[vc("abé")]), vc("ABÉ"));
        // per-character mapping: ß has no one-character uppercase and is kept (SQL Server)
        assert_eq!(c("UPPER", &[vc("straße")]), vc("STRAßE"));
        assert_eq!(c("LOWER", &[vc("İ")]), vc("i"));
        assert_eq!(c("LTRIM", &[vc("  a ")]), vc("a "));
        assert_eq!(c("RTRIM", &[vc("  a ")]), vc("  a"));
        assert_eq!(c("TRIM", &[vc("  a ")]), vc("a"));
        assert_eq!(c("TRIM", &[vc("x"), vc("xxaxx")]), vc("a"));
        assert_eq!(
            c("REPLACE", &[vc("ABCabc"), vc("b"), vc("x")]),
            vc("AxCaxc")
        );
        assert_eq!(c("CHARINDEX", &[vc("C"), vc("abcabc")]), Value::Int(3));
        assert_eq!(
            c("CHARINDEX", &[vc("c"), vc("abcabc"), Value::Int(4)]),
            Value::Int(6)
        );
        assert_eq!(c("CHARINDEX", &[vc("z"), vc("abc")]), Value::Int(0));
        assert_eq!(c("PATINDEX", &[vc("%b_d%"), vc("abcdef")]), Value::Int(2));
        assert_eq!(c("PATINDEX", &[vc("%[0-9]%"), vc("ab12")]), Value::Int(3));
        assert_eq!(c("REPLICATE", &[vc("ab"), Value::Int(3)]), vc("ababab"));
        assert_eq!(c("REPLICATE", &[vc("ab"), Value::Int(-1)]), Value::Null);
        assert_eq!(c("REVERSE", &[vc("abc")]), vc("cba"));
        assert_eq!(c("SPACE", &[Value::Int(2)]), vc("  "));
        assert_eq!(
            c(
                "STUFF",
                &[vc("abcdef"), Value::Int(2), Value::Int(3), vc("XY")]
            ),
            vc("aXYef")
        );
        assert_eq!(
            c("CONCAT", &[vc("a"), Value::Null, Value::Int(1)]),
            vc("a1")
        );
        assert_eq!(
            c("CONCAT_WS", &[vc(","), vc("a"), Value::Null, vc("b")]),
            vc("a,b")
        );
        assert_eq!(
            c("QUOTENAME", &[vc("a]b")]),
            Value::NVarChar("[a]]b]".into())
        );
        assert_eq!(
            c("STR", &[Value::Float(123.45), Value::Int(8), Value::Int(1)]),
            vc("   123.5")
        );
        assert_eq!(c("STR", &[Value::Float(123.0)]), vc("       123"));
        assert_eq!(
            c("STR", &[Value::Float(123456.0), Value::Int(3)]),
            vc("***")
        );
        assert_eq!(c("ASCII", &[vc("A")]), Value::Int(65));
        assert_eq!(c("CHAR", &[Value::Int(65)]), Value::Char("A".into()));
        assert_eq!(
            c("UNICODE", &[Value::NVarChar("日".into())]),
            Value::Int(0x65E5)
        );
        assert_eq!(
            call("LEN", &[]).unwrap_err().message,
            "The len function requires 1 argument(s)."
        );
        assert_eq!(call("NOPE", &[]).unwrap_err().number, 195);
    }

    #[test]
    fn math() {
        assert_eq!(c("ROUND", &[dec(25, 1), Value::Int(0)]), dec(30, 1));
        assert_eq!(
            c("ROUND", &[dec(25, 1), Value::Int(0)]).to_sql_text(),
            "3.0"
        );
        assert_eq!(c("ROUND", &[dec(-25, 1), Value::Int(0)]), dec(-30, 1));
        assert_eq!(
            c("ROUND", &[dec(12345, 3), Value::Int(1), Value::Int(1)]),
            dec(12300, 3)
        );
        assert_eq!(
            c("ROUND", &[Value::Int(125), Value::Int(-1)]),
            Value::Int(130)
        );
        assert_eq!(
            c("ROUND", &[Value::Float(2.5), Value::Int(0)]),
            Value::Float(3.0)
        );
        assert_eq!(c("FLOOR", &[dec(-15, 1)]), dec(-2, 0));
        assert_eq!(c("CEILING", &[dec(11, 1)]), dec(2, 0));
        assert_eq!(c("ABS", &[Value::Int(-3)]), Value::Int(3));
        assert_eq!(
            call("ABS", &[Value::Int(i32::MIN)]).unwrap_err().number,
            8115
        );
        assert_eq!(
            c("POWER", &[Value::Int(2), Value::Int(10)]),
            Value::Int(1024)
        );
        assert_eq!(c("POWER", &[Value::Int(2), Value::Int(-1)]), Value::Int(0));
        assert_eq!(c("SQRT", &[Value::Int(16)]), Value::Float(4.0));
        assert_eq!(call("SQRT", &[Value::Int(-1)]).unwrap_err().number, 3623);
        assert_eq!(call("LOG", &[Value::Int(0)]).unwrap_err().number, 3623);
        assert_eq!(c("SIGN", &[dec(-15, 1)]), dec(-10, 1));
        assert_eq!(c("SQUARE", &[Value::Int(3)]), Value::Float(9.0));
        assert_eq!(c("RAND", &[Value::Int(7)]), c("RAND", &[Value::Int(7)]));
        assert_eq!(c("ISNUMERIC", &[vc("12.5")]), Value::Int(1));
        assert_eq!(c("ISNUMERIC", &[vc("$")]), Value::Int(1));
        assert_eq!(c("ISNUMERIC", &[vc("abc")]), Value::Int(0));
        assert_eq!(c("CHECKSUM", &[Value::Int(123)]), Value::Int(123));
        assert_eq!(c("CHECKSUM", &[vc("ABC")]), c("CHECKSUM", &[vc("abc")]));
        assert_ne!(
            c("BINARY_CHECKSUM", &[vc("ABC")]),
            c("BINARY_CHECKSUM", &[vc("abc")])
        );
        assert_eq!(
            c("FORMAT", &[Value::Int(1234567), vc("N0")]),
            Value::NVarChar("1,234,567".into())
        );
        assert_eq!(
            c("FORMAT", &[Value::Float(1234.5), vc("#,##0.00")]),
            Value::NVarChar("1,234.50".into())
        );
        assert_eq!(
            c("FORMAT", &[Value::Int(5), vc("000")]),
            Value::NVarChar("005".into())
        );
    }

    #[test]
    fn dates() {
        let d = |y, m, dd| Value::Date(days_from_civil(y, m, dd));
        let dt = |y, m, dd| Value::DateTime {
            days: days_from_civil(y, m, dd),
            ticks: 0,
        };
        assert_eq!(
            c("DATEADD", &[vc("day"), Value::Int(1), d(2020, 2, 28)]),
            d(2020, 2, 29)
        );
        assert_eq!(
            c("DATEADD", &[vc("month"), Value::Int(1), d(2020, 1, 31)]),
            d(2020, 2, 29)
        );
        assert_eq!(
            c("DATEADD", &[vc("yy"), Value::Int(-1), dt(2020, 2, 29)]),
            dt(2019, 2, 28)
        );
        assert_eq!(
            c("DATEADD", &[vc("hour"), Value::Int(25), dt(2020, 1, 1)]),
            Value::DateTime {
                days: days_from_civil(2020, 1, 2),
                ticks: TICKS_PER_HOUR
            }
        );
        assert_eq!(
            call("DATEADD", &[vc("hour"), Value::Int(1), d(2020, 1, 1)])
                .unwrap_err()
                .number,
            9810
        );
        assert_eq!(
            call("DATEADD", &[vc("year"), Value::Int(9000), dt(2020, 1, 1)])
                .unwrap_err()
                .number,
            517
        );
        assert_eq!(
            c("DATEADD", &[vc("day"), Value::Int(1), vc("2020-01-01")]),
            dt(2020, 1, 2)
        );
        assert_eq!(
            c("DATEDIFF", &[vc("year"), d(2019, 12, 31), d(2020, 1, 1)]),
            Value::Int(1)
        );
        assert_eq!(
            c("DATEDIFF", &[vc("month"), d(2020, 1, 31), d(2020, 2, 1)]),
            Value::Int(1)
        );
        assert_eq!(
            c("DATEDIFF", &[vc("day"), d(2020, 1, 1), d(2020, 3, 1)]),
            Value::Int(60)
        );
        // 2020-01-04 is a Saturday, 2020-01-05 a Sunday: one week boundary
        assert_eq!(
            c("DATEDIFF", &[vc("week"), d(2020, 1, 4), d(2020, 1, 5)]),
            Value::Int(1)
        );
        assert_eq!(
            call("DATEDIFF", &[vc("ms"), d(1900, 1, 1), d(2020, 1, 1)])
                .unwrap_err()
                .number,
            535
        );
        assert_eq!(
            c("DATEDIFF_BIG", &[vc("ms"), d(2020, 1, 1), d(2020, 1, 2)]),
            Value::BigInt(86_400_000)
        );
        assert_eq!(c("DATEPART", &[vc("dw"), d(2020, 1, 5)]), Value::Int(1));
        assert_eq!(
            c("DATEPART", &[vc("quarter"), d(2020, 5, 5)]),
            Value::Int(2)
        );
        assert_eq!(
            c("DATEPART", &[vc("dayofyear"), d(2020, 3, 1)]),
            Value::Int(61)
        );
        assert_eq!(c("DATEPART", &[vc("week"), d(2020, 1, 5)]), Value::Int(2));
        assert_eq!(
            c("DATEPART", &[vc("iso_week"), d(2021, 1, 1)]),
            Value::Int(53)
        );
        assert_eq!(
            c("DATENAME", &[vc("month"), d(2020, 5, 5)]),
            Value::NVarChar("May".into())
        );
        assert_eq!(
            c("DATENAME", &[vc("weekday"), d(2020, 1, 5)]),
            Value::NVarChar("Sunday".into())
        );
        assert_eq!(c("YEAR", &[vc("2020-05-06")]), Value::Int(2020));
        assert_eq!(c("EOMONTH", &[d(2020, 2, 10)]), d(2020, 2, 29));
        assert_eq!(
            c("EOMONTH", &[d(2020, 1, 31), Value::Int(1)]),
            d(2020, 2, 29)
        );
        assert_eq!(
            c(
                "DATEFROMPARTS",
                &[Value::Int(2020), Value::Int(2), Value::Int(29)]
            ),
            d(2020, 2, 29)
        );
        assert_eq!(
            call(
                "DATEFROMPARTS",
                &[Value::Int(2021), Value::Int(2), Value::Int(29)]
            )
            .unwrap_err()
            .number,
            289
        );
        assert_eq!(c("ISDATE", &[vc("2020-02-29")]), Value::Int(1));
        assert_eq!(c("ISDATE", &[vc("2021-02-29")]), Value::Int(0));
        assert_eq!(
            c("FORMAT", &[dt(2020, 5, 6), vc("yyyy-MM-dd")]),
            Value::NVarChar("2020-05-06".into())
        );
        assert_eq!(
            c("FORMAT", &[dt(2020, 5, 6), vc("dd MMM yyyy")]),
            Value::NVarChar("06 May 2020".into())
        );
    }

    #[test]
    fn like() {
        let m = |v: &str, p: &str| like_match(v, p, None, Collation::DEFAULT);
        assert!(m("abc", "a%"));
        assert!(m("ABC", "a%c"));
        assert!(m("abc", "_b_"));
        assert!(!m("abc", "_b"));
        assert!(m("abc", "%"));
        assert!(m("", "%"));
        assert!(m("a1", "a[0-9]"));
        assert!(!m("ab", "a[0-9]"));
        assert!(m("ab", "a[^0-9]"));
        assert!(!m("a%b", "a!%b"));
        assert!(like_match("a%b", "a!%b", Some('!'), Collation::DEFAULT));
        assert!(!like_match("axb", "a!%b", Some('!'), Collation::DEFAULT));
        assert!(m("abc  ", "abc"));
        assert!(!like_match_unicode(
            "abc  ",
            "abc",
            None,
            Collation::DEFAULT
        ));
        assert!(like_match_unicode(
            "abc  ",
            "abc%",
            None,
            Collation::DEFAULT
        ));
        assert!(m("[x", "[x"));
        assert!(m("mississippi", "%iss%ipp%"));
        assert!(!like_match("ABC", "abc", None, Collation::BIN2));
    }

    const NAMES: &[&str] = &[
        "LEN",
        "DATALENGTH",
        "SUBSTRING",
        "LEFT",
        "RIGHT",
        "UPPER",
        "LOWER",
        "LTRIM",
        "RTRIM",
        "TRIM",
        "REPLACE",
        "CHARINDEX",
        "PATINDEX",
        "REPLICATE",
        "REVERSE",
        "SPACE",
        "STUFF",
        "CONCAT",
        "CONCAT_WS",
        "QUOTENAME",
        "STR",
        "FORMAT",
        "ABS",
        "ROUND",
        "FLOOR",
        "CEILING",
        "POWER",
        "SQRT",
        "SIGN",
        "EXP",
        "LOG",
        "LOG10",
        "PI",
        "SQUARE",
        "RAND",
        "DATEADD",
        "DATEDIFF",
        "DATEDIFF_BIG",
        "DATEPART",
        "DATENAME",
        "YEAR",
        "MONTH",
        "DAY",
        "EOMONTH",
        "DATEFROMPARTS",
        "ISNUMERIC",
        "ISDATE",
        "CHECKSUM",
        "BINARY_CHECKSUM",
        "ASCII",
        "CHAR",
        "UNICODE",
        "NCHAR",
        "DEGREES",
        "ATN2",
        "DATETIMEFROMPARTS",
    ];

    fn samples() -> Vec<Value> {
        vec![
            Value::Null,
            Value::Int(i32::MIN),
            Value::Int(-1),
            Value::Int(0),
            Value::Int(3),
            Value::BigInt(i64::MAX),
            Value::BigInt(i64::MIN),
            Value::TinyInt(255),
            dec(i128::from(i64::MAX) * 1_000_000_000_000, 6),
            dec(-15, 1),
            Value::Float(1e308),
            Value::Float(-0.5),
            Value::Money(i64::MIN),
            vc(""),
            vc("day"),
            vc("ns"),
            vc("%[a-"),
            vc("2020-01-31"),
            Value::NVarChar("日本😀".into()),
            Value::Char("ab  ".into()),
            Value::VarBinary(vec![0, 1, 2]),
            Value::Date(0),
            Value::Date(crate::datetime::DAY_9999),
            Value::DateTime {
                days: DAY_1900,
                ticks: 0,
            },
            Value::DateTimeOffset {
                days: 5,
                ticks: 0,
                offset_minutes: -840,
            },
            Value::Time(TICKS_PER_DAY - 1),
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(400))]
        #[test]
        fn functions_never_panic(
            f in 0usize..NAMES.len(),
            picks in proptest::collection::vec(0usize..26, 0..5),
        ) {
            let s = samples();
            let args: Vec<Value> = picks.iter().map(|i| s[*i % s.len()].clone()).collect();
            let _ = call(NAMES[f], &args);
            let types: Vec<DataType> = args.iter().map(Value::data_type).collect();
            let _ = function_result_type(NAMES[f], &types);
        }
    }

    #[test]
    fn conversions_ops_and_compare_never_panic() {
        let targets = [
            DataType::Bit,
            DataType::TinyInt,
            DataType::SmallInt,
            DataType::Int,
            DataType::BigInt,
            DataType::decimal(38, 10),
            DataType::decimal(5, 2),
            DataType::Float,
            DataType::Real,
            DataType::Money,
            DataType::SmallMoney,
            DataType::Char(3),
            DataType::VarChar(Some(2)),
            DataType::NChar(2),
            DataType::NVarChar(None),
            DataType::Binary(2),
            DataType::VarBinary(None),
            DataType::Date,
            DataType::Time(3),
            DataType::DateTime,
            DataType::DateTime2(2),
            DataType::SmallDateTime,
            DataType::DateTimeOffset(7),
            DataType::UniqueIdentifier,
        ];
        let s = samples();
        for v in &s {
            for t in &targets {
                for style in [0, 1, 2, 3, 101, 103, 112, 120, 121, 126, 127, 999] {
                    let _ = crate::convert::convert_with_style(v, t, style);
                }
                let _ = v.cast_for_column(t, "t", "c");
                let mut out = Vec::new();
                let _ = crate::codec::encode_value(v, t, &mut out);
                let _ = crate::key::encode_key(
                    std::slice::from_ref(v),
                    std::slice::from_ref(t),
                    &[true],
                    &mut out,
                );
                let _ = v.to_json(t);
            }
            for w in &s {
                for op in [
                    crate::ArithOp::Add,
                    crate::ArithOp::Sub,
                    crate::ArithOp::Mul,
                    crate::ArithOp::Div,
                    crate::ArithOp::Mod,
                    crate::ArithOp::BitAnd,
                ] {
                    let _ = crate::ops::arith(op, v, w);
                }
                let _ = crate::compare::compare(v, w, Collation::DEFAULT);
            }
            let _ = crate::ops::neg(v);
            let _ = v.to_display_text(&v.data_type());
        }
    }

    #[test]
    fn typed_calls_conform() {
        let v = call_typed("LEN", &[vc("abc")], &[DataType::VarChar(None)]).unwrap();
        assert_eq!(v, Value::BigInt(3));
        let v = call_typed("ABS", &[Value::TinyInt(3)], &[DataType::TinyInt]).unwrap();
        assert_eq!(v, Value::Int(3));
        let v = call_typed(
            "ROUND",
            &[dec(999, 2), Value::Int(1)],
            &[DataType::decimal(5, 2), DataType::Int],
        )
        .unwrap();
        assert_eq!(v.to_sql_text(), "10.00");
    }

    #[test]
    fn result_types() {
        let t = |n: &str, a: &[DataType]| function_result_type(n, a).unwrap();
        assert_eq!(t("LEN", &[DataType::VarChar(Some(5))]), DataType::Int);
        assert_eq!(
            t("DATALENGTH", &[DataType::VarChar(None)]),
            DataType::BigInt
        );
        assert_eq!(
            t(
                "SUBSTRING",
                &[DataType::NChar(5), DataType::Int, DataType::Int]
            ),
            DataType::NVarChar(Some(5))
        );
        assert_eq!(
            function_result_type("SUBSTRING", &[DataType::Int, DataType::Int, DataType::Int])
                .unwrap_err()
                .message,
            "Argument data type int is invalid for argument 1 of substring function."
        );
        assert_eq!(
            t("ROUND", &[DataType::decimal(5, 2), DataType::Int]),
            DataType::decimal(6, 2)
        );
        assert_eq!(
            t("FLOOR", &[DataType::decimal(5, 2)]),
            DataType::decimal(5, 0)
        );
        assert_eq!(t("ABS", &[DataType::TinyInt]), DataType::Int);
        assert_eq!(
            t(
                "DATEADD",
                &[DataType::VarChar(Some(3)), DataType::Int, DataType::Date]
            ),
            DataType::Date
        );
        assert_eq!(
            function_result_type("CONCAT", &[DataType::Int])
                .unwrap_err()
                .number,
            189
        );
        assert_eq!(
            function_result_type("LEFT", &[DataType::Int])
                .unwrap_err()
                .number,
            174
        );
    }
}
