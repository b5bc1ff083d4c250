//! Conversions between SQL Server types: CAST, CONVERT with styles, assignment to columns.
//!
//! Rules follow SQL Server's conversion chart and messages:
//! * string → int: blanks around the number are allowed (`'12 '`), anything else fails with
//!   245; out of range: 248 (int), 244 (smallint/tinyint), 8115 (bigint).
//! * string → decimal: 8114 when malformed, 8115 when too large; string → float 8114;
//!   string → money 235; string → date/time 241 (242 when out of the type's range);
//!   string → uniqueidentifier 8169.
//! * numeric → int truncates (money rounds); overflow: 220 for tinyint/smallint, 8115 for
//!   int/bigint; decimal scale reduction rounds half away from zero.
//! * int → char/varchar too short gives `*`; decimal/float/money → too short is 8115.
//! * CAST truncates strings silently; [`Value::cast_for_assignment`] raises 8152 and
//!   [`Value::cast_for_column`] 2628 when non-blank characters (or any bytes) would be lost.

use crate::charset;
use crate::datetime::{
    self, DateOrder, DtKind, DAY_1753, DAY_1900, DAY_2079, DAY_9999, TICKS_PER_DAY, TICKS_PER_MIN,
    TICKS_PER_SEC,
};
use crate::decimal;
use crate::value::{guid_text, parse_guid, push_hex};
use crate::{DataType, Value};
use common::{SqlError, SqlResult};

impl Value {
    /// `CAST(self AS target)`.
    pub fn cast(&self, target: &DataType) -> SqlResult<Value> {
        convert(self, target, 0)
    }

    /// Conversion for storing into a variable/column of type `target`: like CAST, but losing
    /// non-blank characters of a string (or any byte of a binary) raises 8152.
    pub fn cast_for_assignment(&self, target: &DataType) -> SqlResult<Value> {
        if truncates(self, target) {
            return Err(SqlError::new(8152, &[]));
        }
        self.cast(target)
    }

    /// Conversion for INSERT/UPDATE into `table.column`: like
    /// [`Value::cast_for_assignment`] but raising 2628 with the truncated value.
    pub fn cast_for_column(
        &self,
        target: &DataType,
        table: &str,
        column: &str,
    ) -> SqlResult<Value> {
        if truncates(self, target) {
            let shown = self.cast(target)?;
            let text = match &shown {
                Value::Binary(b) | Value::VarBinary(b) => {
                    let mut s = String::new();
                    push_hex(b, &mut s);
                    s
                }
                v => v
                    .as_str()
                    .unwrap_or_default()
                    .trim_end_matches(' ')
                    .to_string(),
            };
            return Err(SqlError::new(2628, &[&table, &column, &text]));
        }
        self.cast(target)
    }
}

/// Would storing `v` into `target` cut non-blank characters / bytes?
fn truncates(v: &Value, target: &DataType) -> bool {
    let Some(limit) = target.char_length() else {
        return false;
    };
    let limit = limit as usize;
    match v {
        Value::Char(s) | Value::VarChar(s) | Value::NChar(s) | Value::NVarChar(s)
            if target.is_string() =>
        {
            let unicode = target.is_unicode();
            let t = s.trim_end_matches(' ');
            charset::str_len(t, unicode) > limit
        }
        Value::Binary(b) | Value::VarBinary(b) if target.is_binary() => {
            let n = if matches!(v, Value::Binary(_)) {
                // trailing zero padding of binary(n) is not data loss for SQL Server either
                let mut n = b.len();
                while n > limit && b[n - 1] == 0 {
                    n -= 1;
                }
                n
            } else {
                b.len()
            };
            n > limit
        }
        Value::Char(s) | Value::VarChar(s) | Value::NChar(s) | Value::NVarChar(s)
            if target.is_binary() =>
        {
            let bytes = if v.data_type().is_unicode() {
                charset::utf16_len(s) * 2
            } else {
                charset::varchar_len(s)
            };
            bytes > limit
        }
        _ => false,
    }
}

/// Reads a string as an exact decimal of its own precision and scale (8114 when malformed).
pub fn parse_decimal_string(v: &Value) -> SqlResult<Value> {
    let s = v.as_str().unwrap_or_default();
    match decimal::parse(s) {
        Some((m, sc)) => Ok(Value::Decimal {
            mantissa: m,
            scale: sc,
        }),
        None => Err(SqlError::new(
            8114,
            &[&v.data_type().sql_name(), &"numeric"],
        )),
    }
}

/// `CONVERT(target, v, style)`.
pub fn convert_with_style(v: &Value, target: &DataType, style: i32) -> SqlResult<Value> {
    convert(v, target, style)
}

/// `TRY_CONVERT(target, v, style)` / `TRY_CAST`: NULL instead of a conversion failure;
/// conversions that are never allowed (529) and invalid styles (281) still raise.
pub fn try_convert(v: &Value, target: &DataType, style: i32) -> SqlResult<Value> {
    match convert(v, target, style) {
        Ok(x) => Ok(x),
        Err(e) if matches!(e.number, 529 | 281) => Err(e),
        Err(_) => Ok(Value::Null),
    }
}

/// True when SQL Server converts `from` to `to` implicitly (otherwise 257 / 206).
pub fn can_convert_implicitly(from: &DataType, to: &DataType) -> bool {
    use DataType as T;
    if from == to || matches!(from, T::Null) {
        return true;
    }
    let f_str = from.is_string();
    let t_str = to.is_string();
    match (from, to) {
        _ if f_str && t_str => true,
        _ if f_str => true,
        (T::UniqueIdentifier, _) => t_str || to.is_binary(),
        (_, T::UniqueIdentifier) => from.is_binary(),
        _ if from.is_binary() => {
            !to.is_float()
                && !matches!(
                    to,
                    T::Date | T::Time(_) | T::DateTime2(_) | T::DateTimeOffset(_)
                )
        }
        _ if to.is_binary() => false,
        _ if from.is_numeric() && to.is_numeric() => true,
        _ if from.is_numeric() => t_str || matches!(to, T::DateTime | T::SmallDateTime),
        _ if from.is_datetime() && to.is_datetime() => {
            !matches!((from, to), (T::Date, T::Time(_)) | (T::Time(_), T::Date))
        }
        _ if from.is_datetime() => t_str,
        _ => false,
    }
}

/// True when `CAST(from AS to)` is allowed (otherwise 529).
pub fn can_convert_explicitly(from: &DataType, to: &DataType) -> bool {
    use DataType as T;
    if can_convert_implicitly(from, to) {
        return true;
    }
    match (from, to) {
        (T::DateTime | T::SmallDateTime, t) => t.is_numeric() || t.is_binary(),
        (f, t) if t.is_binary() => !matches!(f, T::Null) || f.is_numeric() || f.is_datetime(),
        (f, T::Date | T::Time(_) | T::DateTime2(_) | T::DateTimeOffset(_)) if f.is_binary() => {
            false
        }
        _ => false,
    }
}

fn type_name(v: &Value) -> &'static str {
    msg_type_name(&v.data_type())
}

fn not_allowed(v: &Value, target: &DataType) -> SqlError {
    SqlError::new(529, &[&type_name(v), &target.sql_name()])
}

/// Type name as SQL Server's conversion messages show it (`decimal` is reported as `numeric`).
pub fn msg_type_name(t: &DataType) -> &'static str {
    match t {
        DataType::Decimal { .. } => "numeric",
        t => t.sql_name(),
    }
}

fn overflow(src: &str, target: &DataType) -> SqlError {
    let src = if src == "decimal" { "numeric" } else { src };
    numeric_overflow(src, target)
}

/// Msg 8115 for a value that does not fit its target: SQL Server reports State 8 when a value
/// converts to numeric ("converting numeric to data type numeric"), State 2 otherwise.
pub fn numeric_overflow(src: &str, target: &DataType) -> SqlError {
    let target = msg_type_name(target);
    let e = SqlError::new(8115, &[&src, &target]);
    if target == "numeric" && src != "expression" {
        e.with_state(8)
    } else {
        e
    }
}

fn convert(v: &Value, target: &DataType, style: i32) -> SqlResult<Value> {
    if v.is_null() {
        return Ok(Value::Null);
    }
    match target {
        DataType::Null => Ok(v.clone()),
        DataType::Bit => to_bit(v, target),
        DataType::TinyInt | DataType::SmallInt | DataType::Int | DataType::BigInt => {
            to_int(v, target)
        }
        DataType::Decimal { precision, scale } | DataType::Numeric { precision, scale } => {
            to_decimal(v, target, *precision, *scale)
        }
        DataType::Float | DataType::Real => to_float(v, target),
        DataType::Money | DataType::SmallMoney => to_money(v, target),
        DataType::Char(_) | DataType::VarChar(_) | DataType::NChar(_) | DataType::NVarChar(_) => {
            to_string(v, target, style)
        }
        DataType::Binary(_) | DataType::VarBinary(_) => to_binary(v, target, style),
        DataType::Date
        | DataType::Time(_)
        | DataType::DateTime
        | DataType::DateTime2(_)
        | DataType::SmallDateTime
        | DataType::DateTimeOffset(_) => to_datetime(v, target, style),
        DataType::UniqueIdentifier => to_guid(v, target),
    }
}

// ---------------------------------------------------------------- integers

fn int_range(t: &DataType) -> (i64, i64) {
    match t {
        DataType::Bit => (0, 1),
        DataType::TinyInt => (0, 255),
        DataType::SmallInt => (i16::MIN as i64, i16::MAX as i64),
        DataType::Int => (i32::MIN as i64, i32::MAX as i64),
        _ => (i64::MIN, i64::MAX),
    }
}

fn make_int(x: i64, t: &DataType) -> Value {
    match t {
        DataType::TinyInt => Value::TinyInt(x as u8),
        DataType::SmallInt => Value::SmallInt(x as i16),
        DataType::Int => Value::Int(x as i32),
        DataType::Bit => Value::Bit(x != 0),
        _ => Value::BigInt(x),
    }
}

/// Integer overflow error for a numeric source value `shown` converted to `t`.
fn int_overflow(t: &DataType, shown: &str) -> SqlError {
    match t {
        DataType::TinyInt | DataType::SmallInt => SqlError::new(220, &[&t.sql_name(), &shown]),
        _ => overflow("expression", t),
    }
}

fn check_int(x: i128, t: &DataType, shown: impl FnOnce() -> String) -> SqlResult<Value> {
    let (lo, hi) = int_range(t);
    if x < lo as i128 || x > hi as i128 {
        return Err(int_overflow(t, &shown()));
    }
    Ok(make_int(x as i64, t))
}

/// Parses an integer string: optional blanks, sign, digits. `Ok(None)` when malformed.
fn parse_int_text(s: &str) -> Option<Option<i128>> {
    let t = s.trim_matches(|c: char| c == ' ' || c == '\t' || c == '\r' || c == '\n');
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let digits = digits.trim_start_matches('0');
    if digits.len() > 30 {
        return Some(None); // overflow
    }
    let mut v: i128 = 0;
    for b in digits.bytes() {
        v = v * 10 + (b - b'0') as i128;
    }
    Some(Some(if neg { -v } else { v }))
}

fn to_int(v: &Value, t: &DataType) -> SqlResult<Value> {
    match v {
        Value::Bit(_)
        | Value::TinyInt(_)
        | Value::SmallInt(_)
        | Value::Int(_)
        | Value::BigInt(_) => {
            let x = v.as_i64().unwrap_or(0);
            check_int(x as i128, t, || x.to_string())
        }
        Value::Decimal { mantissa, scale } => {
            let x = decimal::div_pow10_trunc(*mantissa, *scale as u32);
            check_int(x, t, || decimal::to_string(*mantissa, *scale))
        }
        Value::Money(m) | Value::SmallMoney(m) => {
            let x = decimal::div_pow10_round(*m as i128, 4);
            check_int(x, t, || decimal::to_string(*m as i128, 4))
        }
        Value::Float(_) | Value::Real(_) => {
            let f = v.as_f64().unwrap_or(0.0).trunc();
            if !f.is_finite() || !(-1.8e19..=1.8e19).contains(&f) {
                return Err(int_overflow(t, &crate::value::format_float(f)));
            }
            check_int(f as i128, t, || crate::value::format_float(f))
        }
        Value::Char(s) | Value::VarChar(s) | Value::NChar(s) | Value::NVarChar(s) => {
            let src = type_name(v);
            let bad = || SqlError::new(245, &[&src, &s.as_str(), &t.sql_name()]);
            let parsed = parse_int_text(s).ok_or_else(bad)?;
            let (lo, hi) = int_range(t);
            match parsed {
                Some(x) if x >= lo as i128 && x <= hi as i128 => Ok(make_int(x as i64, t)),
                _ => Err(match t {
                    DataType::Int => SqlError::new(248, &[&src, &s.as_str()]),
                    DataType::SmallInt => SqlError::new(244, &[&src, &s.as_str(), &"INT2"]),
                    DataType::TinyInt => SqlError::new(244, &[&src, &s.as_str(), &"INT1"]),
                    _ => overflow("expression", t),
                }),
            }
        }
        Value::DateTime { days, ticks } | Value::SmallDateTime { days, ticks } => {
            // rounds to the nearest day
            let d = (days - DAY_1900) as i64 + if *ticks >= TICKS_PER_DAY / 2 { 1 } else { 0 };
            check_int(d as i128, t, || d.to_string())
        }
        Value::Binary(b) | Value::VarBinary(b) => {
            let n = match t {
                DataType::TinyInt => 1,
                DataType::SmallInt => 2,
                DataType::Int => 4,
                _ => 8,
            };
            let mut buf = [0u8; 8];
            let take = b.len().min(n);
            buf[8 - take..].copy_from_slice(&b[b.len() - take..]);
            let raw = u64::from_be_bytes(buf);
            Ok(match t {
                DataType::TinyInt => Value::TinyInt(raw as u8),
                DataType::SmallInt => Value::SmallInt(raw as u16 as i16),
                DataType::Int => Value::Int(raw as u32 as i32),
                _ => Value::BigInt(raw as i64),
            })
        }
        _ => Err(not_allowed(v, t)),
    }
}

fn to_bit(v: &Value, t: &DataType) -> SqlResult<Value> {
    match v {
        Value::Char(s) | Value::VarChar(s) | Value::NChar(s) | Value::NVarChar(s) => {
            let tr = s.trim_matches(' ');
            if tr.eq_ignore_ascii_case("true") {
                return Ok(Value::Bit(true));
            }
            if tr.eq_ignore_ascii_case("false") {
                return Ok(Value::Bit(false));
            }
            match parse_int_text(s) {
                Some(Some(x)) => Ok(Value::Bit(x != 0)),
                Some(None) => Ok(Value::Bit(true)),
                None => Err(SqlError::new(245, &[&type_name(v), &s.as_str(), &"bit"])),
            }
        }
        Value::Binary(b) | Value::VarBinary(b) => Ok(Value::Bit(b.iter().any(|x| *x != 0))),
        _ => match v.as_f64() {
            Some(f) => Ok(Value::Bit(f != 0.0)),
            None => Err(not_allowed(v, t)),
        },
    }
}

// ---------------------------------------------------------------- decimal

fn to_decimal(v: &Value, t: &DataType, p: u8, s: u8) -> SqlResult<Value> {
    let src = type_name(v);
    let fit = |m: Option<i128>, src: &str| -> SqlResult<Value> {
        match m {
            Some(m) if decimal::fits(m, p) => Ok(Value::Decimal {
                mantissa: m,
                scale: s,
            }),
            _ => Err(overflow(src, t)),
        }
    };
    match v {
        Value::Decimal { mantissa, scale } => {
            fit(decimal::rescale(*mantissa, *scale, s), "numeric")
        }
        Value::Float(_) | Value::Real(_) => {
            let f = v.as_f64().unwrap_or(0.0);
            fit(decimal::from_f64(f, s), src)
        }
        Value::Char(x) | Value::VarChar(x) | Value::NChar(x) | Value::NVarChar(x) => {
            match decimal::parse(x) {
                Some((m, sc)) => fit(decimal::rescale(m, sc, s), src),
                None => Err(SqlError::new(8114, &[&src, &"numeric"])),
            }
        }
        Value::DateTime { .. } | Value::SmallDateTime { .. } => {
            let f = datetime_as_float(v).unwrap_or(0.0);
            fit(decimal::from_f64(f, s), src)
        }
        _ => match v.as_decimal() {
            Some((m, sc)) => fit(decimal::rescale(m, sc, s), src),
            None => Err(not_allowed(v, t)),
        },
    }
}

// ---------------------------------------------------------------- float

/// Validates SQL Server float syntax: [blanks][sign]digits[.digits][(e|E)[sign]digits][blanks].
fn parse_float_text(s: &str) -> Option<f64> {
    let t = s.trim_matches(|c: char| c == ' ' || c == '\t' || c == '\r' || c == '\n');
    if t.is_empty() {
        return Some(0.0);
    }
    let b = t.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let mut digits = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
        digits += 1;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
            digits += 1;
        }
    }
    if digits == 0 {
        return None;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let st = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == st {
            return None;
        }
    }
    if i != b.len() {
        return None;
    }
    t.parse::<f64>().ok().filter(|f| f.is_finite())
}

/// datetime as a float: days since 1900-01-01 plus the fraction of the day.
fn datetime_as_float(v: &Value) -> Option<f64> {
    match v {
        Value::DateTime { days, ticks } | Value::SmallDateTime { days, ticks } => {
            Some((days - DAY_1900) as f64 + *ticks as f64 / TICKS_PER_DAY as f64)
        }
        _ => None,
    }
}

fn to_float(v: &Value, t: &DataType) -> SqlResult<Value> {
    let f = match v {
        Value::Char(x) | Value::VarChar(x) | Value::NChar(x) | Value::NVarChar(x) => {
            parse_float_text(x)
                .ok_or_else(|| SqlError::new(8114, &[&type_name(v), &t.sql_name()]))?
        }
        Value::DateTime { .. } | Value::SmallDateTime { .. } => datetime_as_float(v).unwrap_or(0.0),
        Value::Binary(b) | Value::VarBinary(b) if matches!(t, DataType::Float) => {
            let mut buf = [0u8; 8];
            let take = b.len().min(8);
            buf[8 - take..].copy_from_slice(&b[b.len() - take..]);
            f64::from_be_bytes(buf)
        }
        _ => v.as_f64().ok_or_else(|| not_allowed(v, t))?,
    };
    match t {
        DataType::Real => {
            let r = f as f32;
            if r.is_infinite() && f.is_finite() {
                return Err(overflow("expression", t));
            }
            Ok(Value::Real(r))
        }
        _ => Ok(Value::Float(f)),
    }
}

// ---------------------------------------------------------------- money

fn money_range(t: &DataType) -> (i128, i128) {
    match t {
        DataType::SmallMoney => (i32::MIN as i128, i32::MAX as i128),
        _ => (i64::MIN as i128, i64::MAX as i128),
    }
}

fn parse_money_text(s: &str) -> Option<i128> {
    let mut t: String = s
        .chars()
        .filter(|c| !matches!(c, ' ' | '\t' | ','))
        .collect();
    let mut neg = false;
    for _ in 0..2 {
        if let Some(r) = t.strip_prefix('-') {
            neg = true;
            t = r.to_string();
        } else if let Some(r) = t.strip_prefix('+') {
            t = r.to_string();
        }
        for sym in ['$', '£', '€', '¥'] {
            if let Some(r) = t.strip_prefix(sym) {
                t = r.to_string();
            }
        }
    }
    if t.is_empty() {
        return Some(0);
    }
    if t.starts_with(['-', '+']) {
        return None;
    }
    let (m, sc) = decimal::parse(&t)?;
    let m = decimal::rescale(m, sc, 4)?;
    Some(if neg { -m } else { m })
}

fn to_money(v: &Value, t: &DataType) -> SqlResult<Value> {
    let m: Option<i128> = match v {
        Value::Char(x) | Value::VarChar(x) | Value::NChar(x) | Value::NVarChar(x) => {
            match parse_money_text(x) {
                Some(m) => Some(m),
                None => return Err(SqlError::new(235, &[])),
            }
        }
        Value::Float(_) | Value::Real(_) => decimal::from_f64(v.as_f64().unwrap_or(0.0), 4),
        Value::DateTime { .. } | Value::SmallDateTime { .. } => {
            decimal::from_f64(datetime_as_float(v).unwrap_or(0.0), 4)
        }
        Value::Binary(b) | Value::VarBinary(b) => {
            let mut buf = [0u8; 8];
            let take = b.len().min(8);
            buf[8 - take..].copy_from_slice(&b[b.len() - take..]);
            Some(i64::from_be_bytes(buf) as i128)
        }
        _ => match v.as_decimal() {
            Some((mm, sc)) => decimal::rescale(mm, sc, 4),
            None => return Err(not_allowed(v, t)),
        },
    };
    let (lo, hi) = money_range(t);
    match m {
        Some(m) if m >= lo && m <= hi => Ok(match t {
            DataType::SmallMoney => Value::SmallMoney(m as i64),
            _ => Value::Money(m as i64),
        }),
        _ => Err(overflow("expression", t)),
    }
}

// ---------------------------------------------------------------- strings

/// C `%.{prec}g`-style text with a 3-digit exponent (SQL Server's float style 0).
pub fn float_g(f: f64, prec: usize) -> String {
    if f == 0.0 {
        return "0".into();
    }
    if !f.is_finite() {
        return format!("{f}");
    }
    let e_text = format!("{:.*e}", prec.saturating_sub(1), f);
    let (mant, exp) = e_text.split_once('e').unwrap_or((&e_text, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if exp < -4 || exp >= prec as i32 {
        let mant = strip_zeros(mant);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mant}e{sign}{:03}", exp.abs())
    } else {
        let decimals = (prec as i32 - 1 - exp).max(0) as usize;
        strip_zeros(&format!("{:.*}", decimals, f)).to_string()
    }
}

fn strip_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// Scientific text with `digits` mantissa decimals and a 3-digit exponent (float styles 1/2).
fn float_sci(f: f64, digits: usize) -> String {
    let e_text = format!("{:.*e}", digits, f);
    let (mant, exp) = e_text.split_once('e').unwrap_or((&e_text, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mant}e{sign}{:03}", exp.abs())
}

fn money_text(m: i64, style: i32) -> String {
    match style {
        1 => {
            let r = decimal::div_pow10_round(m as i128, 2);
            let s = decimal::to_string(r, 2);
            let (neg, body) = match s.strip_prefix('-') {
                Some(b) => (true, b.to_string()),
                None => (false, s.clone()),
            };
            let (ip, fp) = body.split_once('.').unwrap_or((&body, "00"));
            let mut grouped = String::new();
            for (i, c) in ip.chars().enumerate() {
                if i > 0 && (ip.len() - i) % 3 == 0 {
                    grouped.push(',');
                }
                grouped.push(c);
            }
            format!("{}{grouped}.{fp}", if neg { "-" } else { "" })
        }
        2 | 126 => decimal::to_string(m as i128, 4),
        _ => decimal::to_string(decimal::div_pow10_round(m as i128, 2), 2),
    }
}

/// Text of a date/time value for CAST/CONVERT to a string with `style`.
fn datetime_text(v: &Value, style: i32, target: &DataType) -> SqlResult<String> {
    let (kind, days, ticks, off) = match v {
        Value::Date(d) => (DtKind::Date, *d, 0, 0),
        Value::Time(t) => (DtKind::Time(7), DAY_1900, *t, 0),
        Value::DateTime { days, ticks } => (DtKind::DateTime, *days, *ticks, 0),
        Value::SmallDateTime { days, ticks } => (DtKind::SmallDateTime, *days, *ticks, 0),
        Value::DateTime2 { days, ticks } => (DtKind::DateTime2(7), *days, *ticks, 0),
        Value::DateTimeOffset {
            days,
            ticks,
            offset_minutes,
        } => (DtKind::DateTimeOffset(7), *days, *ticks, *offset_minutes),
        _ => return Err(not_allowed(v, target)),
    };
    // Default style: datetime/smalldatetime use style 0, the newer types ISO 121.
    let style = if style == 0 && !matches!(kind, DtKind::DateTime | DtKind::SmallDateTime) {
        121
    } else {
        style
    };
    let kind = if let (DtKind::Time(_), 121) = (kind, style) {
        // CAST(time AS varchar) = hh:mm:ss.fffffff
        DtKind::Time(7)
    } else {
        kind
    };
    if let (DtKind::Time(_), 121) = (kind, style) {
        let mut s = String::new();
        datetime::fmt_time(ticks, 7, &mut s);
        return Ok(s);
    }
    datetime::format_style(kind, days, ticks, off, style)
        .ok_or_else(|| SqlError::new(281, &[&style, &type_name(v), &target.sql_name()]))
}

fn to_string(v: &Value, t: &DataType, style: i32) -> SqlResult<Value> {
    let unicode = t.is_unicode();
    let limit = t.char_length().map(|n| n as usize);
    let src = type_name(v);
    // (text, what happens when too long)
    enum Long {
        Truncate,
        Star,
        Overflow,
    }
    let (text, long): (String, Long) = match v {
        Value::Char(s) | Value::VarChar(s) | Value::NChar(s) | Value::NVarChar(s) => {
            (s.clone(), Long::Truncate)
        }
        Value::Bit(_)
        | Value::TinyInt(_)
        | Value::SmallInt(_)
        | Value::Int(_)
        | Value::BigInt(_) => (
            v.as_i64().unwrap_or(0).to_string(),
            if unicode { Long::Overflow } else { Long::Star },
        ),
        Value::Decimal { mantissa, scale } => {
            (decimal::to_string(*mantissa, *scale), Long::Overflow)
        }
        Value::Money(m) | Value::SmallMoney(m) => (money_text(*m, style), Long::Overflow),
        Value::Float(f) => (
            match style {
                1 => float_sci(*f, 7),
                2 => float_sci(*f, 15),
                3 => crate::value::format_float(*f),
                _ => float_g(*f, 6),
            },
            Long::Overflow,
        ),
        Value::Real(f) => (
            match style {
                1 => float_sci(*f as f64, 7),
                2 => float_sci(*f as f64, 15),
                3 => crate::value::format_real(*f),
                _ => float_g(*f as f64, 6),
            },
            Long::Overflow,
        ),
        Value::Binary(b) | Value::VarBinary(b) => match style {
            1 => {
                // two characters per byte: a 1.5 GB binary would exceed the 2 GB cap (lob.rs)
                let chars = crate::lob::mul_bytes(b.len() as u64, 2)?;
                let mut s = crate::lob::try_string(chars as usize + 2)?;
                s.push_str("0x");
                push_hex(b, &mut s);
                (s, Long::Truncate)
            }
            2 => {
                let chars = crate::lob::mul_bytes(b.len() as u64, 2)?;
                let mut s = crate::lob::try_string(chars as usize)?;
                push_hex(b, &mut s);
                (s, Long::Truncate)
            }
            _ => {
                if unicode {
                    let units: Vec<u16> = b
                        .chunks(2)
                        .map(|c| u16::from_le_bytes([c[0], *c.get(1).unwrap_or(&0)]))
                        .collect();
                    (String::from_utf16_lossy(&units), Long::Truncate)
                } else {
                    (charset::decode_cp1252(b), Long::Truncate)
                }
            }
        },
        Value::UniqueIdentifier(g) => {
            let s = guid_text(g);
            if let Some(n) = limit {
                if n < 36 {
                    return Err(SqlError::new(8170, &[]));
                }
            }
            (s, Long::Truncate)
        }
        Value::Null => return Ok(Value::Null),
        _ => (datetime_text(v, style, t)?, Long::Truncate),
    };
    let mut text = if unicode {
        text
    } else {
        charset::to_cp1252_text(&text).into_owned()
    };
    if let Some(n) = limit {
        if charset::str_len(&text, unicode) > n {
            match long {
                Long::Truncate => {
                    let cut = charset::truncate_units(&text, n, unicode).len();
                    text.truncate(cut);
                }
                Long::Star => text = "*".into(),
                Long::Overflow => {
                    return Err(SqlError::new(
                        8115,
                        &[
                            &(if matches!(v, Value::Decimal { .. }) {
                                "numeric"
                            } else {
                                "expression"
                            }),
                            &t.sql_name(),
                        ],
                    ))
                }
            }
        }
    }
    let _ = src;
    Ok(match t {
        DataType::Char(n) | DataType::NChar(n) => {
            let len = charset::str_len(&text, unicode);
            let n = *n as usize;
            if len < n {
                text.extend(std::iter::repeat_n(' ', n - len));
            }
            if unicode {
                Value::NChar(text)
            } else {
                Value::Char(text)
            }
        }
        DataType::NVarChar(_) => Value::NVarChar(text),
        _ => Value::VarChar(text),
    })
}

// ---------------------------------------------------------------- binary

fn hex_decode(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len() / 2 + 1);
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let mut i = 0;
    if b.len() % 2 == 1 {
        out.push(digit(b[0])?);
        i = 1;
    }
    while i + 1 < b.len() + 1 && i < b.len() {
        out.push(digit(b[i])? * 16 + digit(b[i + 1])?);
        i += 2;
    }
    Some(out)
}

fn to_binary(v: &Value, t: &DataType, style: i32) -> SqlResult<Value> {
    let limit = t.char_length().map(|n| n as usize);
    // left_side: numeric sources are padded/truncated on the left
    let (mut bytes, left_side): (Vec<u8>, bool) = match v {
        Value::Char(s) | Value::VarChar(s) | Value::NChar(s) | Value::NVarChar(s) => match style {
            1 | 2 => {
                let body = if style == 1 {
                    s.strip_prefix("0x")
                        .or_else(|| s.strip_prefix("0X"))
                        .ok_or_else(|| SqlError::new(8114, &[&type_name(v), &t.sql_name()]))?
                } else {
                    s.as_str()
                };
                (
                    hex_decode(body)
                        .ok_or_else(|| SqlError::new(8114, &[&type_name(v), &t.sql_name()]))?,
                    false,
                )
            }
            _ => {
                let mut out = Vec::new();
                if v.data_type().is_unicode() {
                    for u in s.encode_utf16() {
                        out.extend_from_slice(&u.to_le_bytes());
                    }
                } else {
                    charset::encode_cp1252(s, &mut out);
                }
                (out, false)
            }
        },
        Value::Binary(b) | Value::VarBinary(b) => (b.clone(), false),
        Value::Bit(b) => (vec![*b as u8], true),
        Value::TinyInt(x) => (vec![*x], true),
        Value::SmallInt(x) => (x.to_be_bytes().to_vec(), true),
        Value::Int(x) => (x.to_be_bytes().to_vec(), true),
        Value::BigInt(x) => (x.to_be_bytes().to_vec(), true),
        Value::Money(m) => (m.to_be_bytes().to_vec(), true),
        Value::SmallMoney(m) => ((*m as i32).to_be_bytes().to_vec(), true),
        Value::Float(f) => (f.to_be_bytes().to_vec(), true),
        Value::Real(f) => (f.to_be_bytes().to_vec(), true),
        Value::Decimal { mantissa, scale } => {
            // precision, scale, sign, magnitude (little-endian), as SQL Server shows it
            let p = decimal::digits(*mantissa).max(*scale);
            let w = crate::datatype::decimal_storage_bytes(p) as usize;
            let mut out = vec![p, *scale, if *mantissa < 0 { 0 } else { 1 }];
            out.extend_from_slice(&mantissa.unsigned_abs().to_le_bytes()[..w - 1]);
            (out, true)
        }
        Value::UniqueIdentifier(g) => (g.to_vec(), false),
        Value::DateTime { days, ticks } => {
            let mut out = (days - DAY_1900).to_be_bytes().to_vec();
            out.extend_from_slice(
                &(datetime::ticks_to_datetime_units(*ticks) as u32).to_be_bytes(),
            );
            (out, true)
        }
        Value::SmallDateTime { days, ticks } => {
            let mut out = ((days - DAY_1900) as u16).to_be_bytes().to_vec();
            out.extend_from_slice(&((ticks / TICKS_PER_MIN) as u16).to_be_bytes());
            (out, true)
        }
        _ => return Err(not_allowed(v, t)),
    };
    if let Some(n) = limit {
        if bytes.len() > n {
            if left_side {
                bytes.drain(..bytes.len() - n);
            } else {
                bytes.truncate(n);
            }
        }
        if let DataType::Binary(_) = t {
            if bytes.len() < n {
                if left_side {
                    let mut padded = vec![0u8; n - bytes.len()];
                    padded.extend_from_slice(&bytes);
                    bytes = padded;
                } else {
                    bytes.resize(n, 0);
                }
            }
        }
    }
    Ok(match t {
        DataType::Binary(_) => Value::Binary(bytes),
        _ => Value::VarBinary(bytes),
    })
}

// ---------------------------------------------------------------- date/time

fn style_order(style: i32) -> DateOrder {
    match style % 100 {
        3 | 4 | 5 | 13 => DateOrder::Dmy,
        11 | 12 | 20 | 21 | 23 | 26 | 27 => DateOrder::Ymd,
        _ => DateOrder::Mdy,
    }
}

/// Breaks a date/time value into (days, ticks, offset).
fn dt_parts(v: &Value) -> Option<(i32, i64, Option<i16>)> {
    Some(match v {
        Value::Date(d) => (*d, 0, None),
        Value::Time(t) => (DAY_1900, *t, None),
        Value::DateTime { days, ticks }
        | Value::DateTime2 { days, ticks }
        | Value::SmallDateTime { days, ticks } => (*days, *ticks, None),
        Value::DateTimeOffset {
            days,
            ticks,
            offset_minutes,
        } => (*days, *ticks, Some(*offset_minutes)),
        _ => return None,
    })
}

/// Builds a value of date/time type `t` from parts, applying the type's precision and range.
/// `range_err` is raised when the value falls outside the type's range.
fn make_dt(
    t: &DataType,
    days: i32,
    ticks: i64,
    offset: Option<i16>,
    range_err: &dyn Fn() -> SqlError,
) -> SqlResult<Value> {
    let carry = |days: i32, ticks: i64| -> (i32, i64) {
        if ticks >= TICKS_PER_DAY {
            (days + 1, ticks - TICKS_PER_DAY)
        } else {
            (days, ticks)
        }
    };
    match t {
        DataType::Date => Ok(Value::Date(days)),
        DataType::Time(s) => {
            let r = datetime::round_ticks(ticks, *s);
            Ok(Value::Time(if r >= TICKS_PER_DAY {
                r - TICKS_PER_DAY
            } else {
                r
            }))
        }
        DataType::DateTime => {
            let (d, tk) = carry(days, datetime::round_to_datetime(ticks));
            if !(DAY_1753..=DAY_9999).contains(&d) {
                return Err(range_err());
            }
            Ok(Value::DateTime { days: d, ticks: tk })
        }
        DataType::SmallDateTime => {
            // seconds >= 29.999 round up to the next minute
            let r = (ticks + 30 * TICKS_PER_SEC - 10_000) / TICKS_PER_MIN * TICKS_PER_MIN;
            let (d, tk) = carry(days, r);
            if !(DAY_1900..=DAY_2079).contains(&d)
                || (d == DAY_2079 && tk > 23 * 3600 * TICKS_PER_SEC + 59 * TICKS_PER_MIN)
            {
                return Err(range_err());
            }
            Ok(Value::SmallDateTime { days: d, ticks: tk })
        }
        DataType::DateTime2(s) => {
            let (d, tk) = carry(days, datetime::round_ticks(ticks, *s));
            if d > DAY_9999 {
                return Err(range_err());
            }
            Ok(Value::DateTime2 { days: d, ticks: tk })
        }
        DataType::DateTimeOffset(s) => {
            let (d, tk) = carry(days, datetime::round_ticks(ticks, *s));
            let off = offset.unwrap_or(0);
            // the UTC instant (local - offset) must lie within 0001-01-01 .. 9999-12-31 too
            let utc = d as i64 * TICKS_PER_DAY + tk - off as i64 * datetime::TICKS_PER_MIN;
            if d > DAY_9999 || utc < 0 || utc >= (DAY_9999 as i64 + 1) * TICKS_PER_DAY {
                return Err(range_err());
            }
            Ok(Value::DateTimeOffset {
                days: d,
                ticks: tk,
                offset_minutes: offset.unwrap_or(0),
            })
        }
        _ => Err(SqlError::internal("make_dt on a non date/time type")),
    }
}

fn to_datetime(v: &Value, t: &DataType, style: i32) -> SqlResult<Value> {
    let src = type_name(v);
    let range_err = || SqlError::new(242, &[&src, &t.sql_name()]);
    match v {
        Value::Char(s) | Value::VarChar(s) | Value::NChar(s) | Value::NVarChar(s) => {
            let p = datetime::parse_with_order(s, style_order(style))
                .ok_or_else(|| SqlError::new(241, &[]))?;
            if matches!(t, DataType::DateTime) && p.frac_digits > 3 {
                return Err(SqlError::new(241, &[]));
            }
            if matches!(t, DataType::DateTime | DataType::SmallDateTime) && p.offset.is_some() {
                return Err(SqlError::new(241, &[]));
            }
            if let (DataType::Time(_), Some(_)) = (t, p.days) {
                // date part is validated and dropped
            }
            make_dt(t, p.days_or_default(), p.ticks, p.offset, &range_err)
        }
        Value::Date(_) if matches!(t, DataType::Time(_)) => Err(not_allowed(v, t)),
        Value::Time(_) if matches!(t, DataType::Date) => Err(not_allowed(v, t)),
        Value::Date(_)
        | Value::Time(_)
        | Value::DateTime { .. }
        | Value::DateTime2 { .. }
        | Value::SmallDateTime { .. }
        | Value::DateTimeOffset { .. } => {
            let (days, ticks, off) = dt_parts(v).unwrap_or((DAY_1900, 0, None));
            make_dt(t, days, ticks, off, &range_err)
        }
        _ if matches!(t, DataType::DateTime | DataType::SmallDateTime) => {
            // numbers: days since 1900-01-01 plus fraction of a day
            if let Some(x) = v.as_i64() {
                let d = (DAY_1900 as i64).saturating_add(x);
                if d < 0 || d > DAY_9999 as i64 {
                    return Err(range_err());
                }
                return make_dt(t, d as i32, 0, None, &range_err);
            }
            let f = match v {
                Value::Binary(b) | Value::VarBinary(b) if matches!(t, DataType::DateTime) => {
                    let mut buf = [0u8; 8];
                    let take = b.len().min(8);
                    buf[8 - take..].copy_from_slice(&b[b.len() - take..]);
                    let d = i32::from_be_bytes([buf[0], buf[1], buf[2], buf[3]]);
                    let u = u32::from_be_bytes([buf[4], buf[5], buf[6], buf[7]]) as i64;
                    let tk = datetime::datetime_units_to_ticks(u);
                    if tk >= TICKS_PER_DAY {
                        return Err(range_err());
                    }
                    return make_dt(t, DAY_1900.saturating_add(d), tk, None, &range_err);
                }
                _ => v.as_f64().ok_or_else(|| not_allowed(v, t))?,
            };
            if !f.is_finite() || f.abs() > 4e6 {
                return Err(range_err());
            }
            let whole = f.floor();
            let frac_ticks = ((f - whole) * TICKS_PER_DAY as f64).round() as i64;
            let d = DAY_1900 as i64 + whole as i64;
            if d < 0 || d > DAY_9999 as i64 {
                return Err(range_err());
            }
            make_dt(t, d as i32, frac_ticks, None, &range_err)
        }
        _ => Err(not_allowed(v, t)),
    }
}

// ---------------------------------------------------------------- uniqueidentifier

fn to_guid(v: &Value, t: &DataType) -> SqlResult<Value> {
    match v {
        Value::UniqueIdentifier(_) => Ok(v.clone()),
        Value::Char(s) | Value::VarChar(s) | Value::NChar(s) | Value::NVarChar(s) => {
            let tr = s.trim_matches(' ');
            let head = if tr.starts_with('{') {
                tr
            } else {
                charset::truncate_units(tr, 36, false)
            };
            parse_guid(head)
                .map(Value::UniqueIdentifier)
                .ok_or_else(|| SqlError::new(8169, &[]))
        }
        Value::Binary(b) | Value::VarBinary(b) => {
            let mut g = [0u8; 16];
            let n = b.len().min(16);
            g[..n].copy_from_slice(&b[..n]);
            Ok(Value::UniqueIdentifier(g))
        }
        _ => Err(not_allowed(v, t)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datetime::days_from_civil;

    fn vc(s: &str) -> Value {
        Value::VarChar(s.into())
    }

    fn dec(m: i128, s: u8) -> Value {
        Value::Decimal {
            mantissa: m,
            scale: s,
        }
    }

    #[test]
    fn string_to_int() {
        assert_eq!(vc("12 ").cast(&DataType::Int).unwrap(), Value::Int(12));
        assert_eq!(vc(" -7").cast(&DataType::Int).unwrap(), Value::Int(-7));
        assert_eq!(vc("").cast(&DataType::Int).unwrap(), Value::Int(0));
        let e = vc("1.5").cast(&DataType::Int).unwrap_err();
        assert_eq!(e.number, 245);
        assert_eq!(
            e.message,
            "Conversion failed when converting the varchar value '1.5' to data type int."
        );
        let e = vc("3000000000").cast(&DataType::Int).unwrap_err();
        assert_eq!(e.number, 248);
        assert_eq!(
            e.message,
            "The conversion of the varchar value '3000000000' overflowed an int column."
        );
        assert_eq!(vc("300").cast(&DataType::TinyInt).unwrap_err().number, 244);
        assert_eq!(
            Value::NVarChar("x".into())
                .cast(&DataType::Int)
                .unwrap_err()
                .message,
            "Conversion failed when converting the nvarchar value 'x' to data type int."
        );
    }

    #[test]
    fn numeric_to_int() {
        assert_eq!(dec(15, 1).cast(&DataType::Int).unwrap(), Value::Int(1));
        assert_eq!(dec(-19, 1).cast(&DataType::Int).unwrap(), Value::Int(-1));
        assert_eq!(
            Value::Float(2.9).cast(&DataType::Int).unwrap(),
            Value::Int(2)
        );
        assert_eq!(
            Value::Money(15_000).cast(&DataType::Int).unwrap(),
            Value::Int(2)
        );
        let e = Value::BigInt(3_000_000_000)
            .cast(&DataType::Int)
            .unwrap_err();
        assert_eq!(
            e.message,
            "Arithmetic overflow error converting expression to data type int."
        );
        let e = Value::Int(300).cast(&DataType::TinyInt).unwrap_err();
        assert_eq!(
            e.message,
            "Arithmetic overflow error for data type tinyint, value = 300."
        );
    }

    #[test]
    fn to_decimal_rules() {
        let t = DataType::decimal(5, 2);
        assert_eq!(vc("1.555").cast(&t).unwrap(), dec(156, 2));
        assert_eq!(dec(-1555, 3).cast(&t).unwrap(), dec(-156, 2));
        assert_eq!(Value::Int(12).cast(&t).unwrap(), dec(1200, 2));
        let e = Value::Int(1000).cast(&t).unwrap_err();
        assert_eq!(
            e.message,
            "Arithmetic overflow error converting int to data type numeric."
        );
        let e = vc("abc").cast(&t).unwrap_err();
        assert_eq!(e.message, "Error converting data type varchar to numeric.");
        assert_eq!(
            dec(12345, 2)
                .cast(&DataType::decimal(4, 2))
                .unwrap_err()
                .message,
            "Arithmetic overflow error converting numeric to data type numeric."
        );
        assert_eq!(Value::Float(0.1).cast(&t).unwrap(), dec(10, 2));
    }

    #[test]
    fn to_float_and_money() {
        assert_eq!(
            vc("1e3").cast(&DataType::Float).unwrap(),
            Value::Float(1000.0)
        );
        assert_eq!(
            vc("abc").cast(&DataType::Float).unwrap_err().message,
            "Error converting data type varchar to float."
        );
        assert!(vc("inf").cast(&DataType::Float).is_err());
        assert_eq!(
            vc("$1,234.56").cast(&DataType::Money).unwrap(),
            Value::Money(12_345_600)
        );
        assert_eq!(vc("x").cast(&DataType::Money).unwrap_err().number, 235);
        assert_eq!(
            dec(123_456, 5).cast(&DataType::Money).unwrap(),
            Value::Money(12_346)
        );
    }

    #[test]
    fn to_strings() {
        let v10 = DataType::VarChar(Some(10));
        assert_eq!(Value::Int(123).cast(&v10).unwrap(), vc("123"));
        assert_eq!(
            Value::Int(123).cast(&DataType::VarChar(Some(2))).unwrap(),
            vc("*")
        );
        assert_eq!(
            dec(12345, 2)
                .cast(&DataType::VarChar(Some(3)))
                .unwrap_err()
                .number,
            8115
        );
        assert_eq!(
            vc("abcdef").cast(&DataType::VarChar(Some(3))).unwrap(),
            vc("abc")
        );
        assert_eq!(
            vc("ab").cast(&DataType::Char(4)).unwrap(),
            Value::Char("ab  ".into())
        );
        assert_eq!(Value::Money(12_345_678).cast(&v10).unwrap(), vc("1234.57"));
        assert_eq!(
            convert_with_style(&Value::Money(12_345_678), &v10, 1).unwrap(),
            vc("1,234.57")
        );
        assert_eq!(
            convert_with_style(&Value::Money(12_345_678), &v10, 2).unwrap(),
            vc("1234.5678")
        );
        let v30 = DataType::VarChar(Some(30));
        assert_eq!(Value::Float(1.5).cast(&v30).unwrap(), vc("1.5"));
        assert_eq!(
            Value::Float(1234567.0).cast(&v30).unwrap(),
            vc("1.23457e+006")
        );
        assert_eq!(Value::Float(0.00001).cast(&v30).unwrap(), vc("1e-005"));
        assert_eq!(Value::Float(123456.7).cast(&v30).unwrap(), vc("123457"));
        assert_eq!(
            convert_with_style(&Value::Float(1.0), &v30, 1).unwrap(),
            vc("1.0000000e+000")
        );
        let d = days_from_civil(2020, 1, 5);
        assert_eq!(
            Value::DateTime { days: d, ticks: 0 }.cast(&v30).unwrap(),
            vc("Jan  5 2020 12:00AM")
        );
        assert_eq!(Value::Date(d).cast(&v30).unwrap(), vc("2020-01-05"));
        assert_eq!(
            Value::NVarChar("日本a".into()).cast(&v10).unwrap(),
            vc("??a")
        );
        assert_eq!(
            Value::Binary(vec![0x41, 0x42]).cast(&v10).unwrap(),
            vc("AB")
        );
        assert_eq!(
            convert_with_style(&Value::Binary(vec![0xAB]), &v10, 1).unwrap(),
            vc("0xAB")
        );
    }

    #[test]
    fn implicit_conversion_matrix() {
        use DataType as T;
        assert!(can_convert_implicitly(&T::VarChar(Some(1)), &T::Int));
        assert!(can_convert_implicitly(&T::Int, &T::decimal(5, 0)));
        assert!(can_convert_implicitly(&T::Int, &T::DateTime));
        assert!(!can_convert_implicitly(&T::Int, &T::Date));
        assert!(!can_convert_implicitly(&T::Date, &T::Time(7)));
        assert!(can_convert_implicitly(&T::Date, &T::DateTime2(7)));
        assert!(!can_convert_implicitly(&T::Int, &T::UniqueIdentifier));
        assert!(can_convert_implicitly(
            &T::UniqueIdentifier,
            &T::NVarChar(None)
        ));
        assert!(!can_convert_implicitly(&T::Float, &T::VarBinary(None)));
        assert!(can_convert_explicitly(&T::Float, &T::VarBinary(None)));
        assert!(can_convert_explicitly(&T::DateTime, &T::Int));
    }

    #[test]
    fn try_convert_nulls() {
        assert_eq!(
            try_convert(&vc("x"), &DataType::Int, 0).unwrap(),
            Value::Null
        );
        assert_eq!(
            try_convert(&vc("5"), &DataType::Int, 0).unwrap(),
            Value::Int(5)
        );
        assert_eq!(
            try_convert(&Value::Int(1), &DataType::Date, 0)
                .unwrap_err()
                .number,
            529
        );
    }

    #[test]
    fn assignment_truncation() {
        let t = DataType::VarChar(Some(3));
        assert_eq!(vc("abc   ").cast_for_assignment(&t).unwrap(), vc("abc"));
        assert_eq!(vc("abcd").cast_for_assignment(&t).unwrap_err().number, 8152);
        let e = vc("abcd").cast_for_column(&t, "db.dbo.t", "c").unwrap_err();
        assert_eq!(
            e.message,
            "String or binary data would be truncated in table 'db.dbo.t', column 'c'. Truncated value: 'abc'."
        );
    }

    #[test]
    fn dates() {
        let d = days_from_civil(2020, 5, 14);
        assert_eq!(
            vc("2020-05-14").cast(&DataType::Date).unwrap(),
            Value::Date(d)
        );
        assert_eq!(
            vc("2020-02-30").cast(&DataType::Date).unwrap_err().number,
            241
        );
        assert_eq!(
            vc("1700-01-01").cast(&DataType::DateTime).unwrap_err().message,
            "The conversion of a varchar data type to a datetime data type resulted in an out-of-range value."
        );
        assert_eq!(
            convert_with_style(&vc("14/05/2020"), &DataType::Date, 103).unwrap(),
            Value::Date(d)
        );
        let v = vc("2020-05-14 10:00:00.1234567")
            .cast(&DataType::DateTime2(3))
            .unwrap();
        assert_eq!(
            v,
            Value::DateTime2 {
                days: d,
                ticks: 10 * datetime::TICKS_PER_HOUR + 1_230_000
            }
        );
        assert_eq!(
            vc("2020-05-14 10:00:00.1234")
                .cast(&DataType::DateTime)
                .unwrap_err()
                .number,
            241
        );
        // datetime2 -> datetime rounds to 1/300 s and may carry into the next day
        let v = Value::DateTime2 {
            days: d,
            ticks: TICKS_PER_DAY - 1,
        }
        .cast(&DataType::DateTime)
        .unwrap();
        assert_eq!(
            v,
            Value::DateTime {
                days: d + 1,
                ticks: 0
            }
        );
        assert_eq!(
            Value::Int(1).cast(&DataType::DateTime).unwrap(),
            Value::DateTime {
                days: DAY_1900 + 1,
                ticks: 0
            }
        );
        assert_eq!(Value::Int(1).cast(&DataType::Date).unwrap_err().number, 529);
        assert_eq!(
            Value::DateTime { days: d, ticks: 0 }
                .cast(&DataType::Date)
                .unwrap(),
            Value::Date(d)
        );
    }

    #[test]
    fn bits_and_guids() {
        assert_eq!(vc("TRUE").cast(&DataType::Bit).unwrap(), Value::Bit(true));
        assert_eq!(vc("0").cast(&DataType::Bit).unwrap(), Value::Bit(false));
        assert_eq!(vc("5").cast(&DataType::Bit).unwrap(), Value::Bit(true));
        assert_eq!(vc("yes").cast(&DataType::Bit).unwrap_err().number, 245);
        assert_eq!(
            Value::Float(0.5).cast(&DataType::Bit).unwrap(),
            Value::Bit(true)
        );
        let g = vc("D424FDEF-1404-4BAC-8289-C725B540F93D")
            .cast(&DataType::UniqueIdentifier)
            .unwrap();
        assert_eq!(
            g.cast(&DataType::VarChar(Some(36))).unwrap(),
            vc("D424FDEF-1404-4BAC-8289-C725B540F93D")
        );
        assert_eq!(
            vc("zz")
                .cast(&DataType::UniqueIdentifier)
                .unwrap_err()
                .number,
            8169
        );
        assert_eq!(g.cast(&DataType::Char(10)).unwrap_err().number, 8170);
    }

    #[test]
    fn binary_conversions() {
        assert_eq!(
            Value::Int(1).cast(&DataType::VarBinary(Some(4))).unwrap(),
            Value::VarBinary(vec![0, 0, 0, 1])
        );
        assert_eq!(
            Value::Int(258).cast(&DataType::Binary(1)).unwrap(),
            Value::Binary(vec![2])
        );
        assert_eq!(
            Value::VarBinary(vec![0, 1]).cast(&DataType::Int).unwrap(),
            Value::Int(1)
        );
        assert_eq!(
            vc("AB").cast(&DataType::Binary(3)).unwrap(),
            Value::Binary(vec![0x41, 0x42, 0])
        );
        assert_eq!(
            convert_with_style(&vc("0x0A0b"), &DataType::VarBinary(None), 1).unwrap(),
            Value::VarBinary(vec![0x0A, 0x0B])
        );
    }
}
