//! Value operations used by the evaluator: a thin seam over the `types` crate.
//!
//! Everything that knows SQL Server's conversion/arithmetic/comparison rules lives in `types`;
//! this module adapts it to the evaluator and holds the small fallbacks listed in README.md
//! ("Fallbacks") until `types` provides them.

use std::cmp::Ordering;

use common::{SqlError, SqlResult};
use plan::BinaryOp;
use types::{DataType, Value};

/// SQL truth value of a bit (NULL = unknown).
#[inline]
pub fn truth(v: &Value) -> Option<bool> {
    match v {
        Value::Null => None,
        Value::Bit(b) => Some(*b),
        Value::Int(i) => Some(*i != 0),
        Value::TinyInt(i) => Some(*i != 0),
        Value::SmallInt(i) => Some(*i != 0),
        Value::BigInt(i) => Some(*i != 0),
        _ => Some(true),
    }
}

/// Numeric view of a value for cross-type comparison.
enum Num {
    Int(i128),
    Dec(i128, u8),
    Float(f64),
}

fn as_num(v: &Value) -> Option<Num> {
    Some(match v {
        Value::Bit(b) => Num::Int(*b as i128),
        Value::TinyInt(i) => Num::Int(*i as i128),
        Value::SmallInt(i) => Num::Int(*i as i128),
        Value::Int(i) => Num::Int(*i as i128),
        Value::BigInt(i) => Num::Int(*i as i128),
        Value::Decimal { mantissa, scale } => Num::Dec(*mantissa, *scale),
        Value::Money(m) | Value::SmallMoney(m) => Num::Dec(*m as i128, 4),
        Value::Float(f) => Num::Float(*f),
        Value::Real(f) => Num::Float(*f as f64),
        _ => return None,
    })
}

fn pow10(n: u8) -> i128 {
    10i128.pow(n as u32)
}

#[allow(dead_code)]
fn num_cmp(a: Num, b: Num) -> Option<Ordering> {
    match (a, b) {
        (Num::Int(x), Num::Int(y)) => Some(x.cmp(&y)),
        (Num::Float(x), y) => x.partial_cmp(&num_f64(y)),
        (x, Num::Float(y)) => num_f64(x).partial_cmp(&y),
        (x, y) => {
            let (xm, xs) = num_dec(x);
            let (ym, ys) = num_dec(y);
            let s = xs.max(ys);
            let xa = xm.checked_mul(pow10(s - xs));
            let ya = ym.checked_mul(pow10(s - ys));
            match (xa, ya) {
                (Some(a), Some(b)) => Some(a.cmp(&b)),
                _ => (xm as f64 / pow10(xs) as f64).partial_cmp(&(ym as f64 / pow10(ys) as f64)),
            }
        }
    }
}

fn num_f64(n: Num) -> f64 {
    match n {
        Num::Int(i) => i as f64,
        Num::Dec(m, s) => m as f64 / pow10(s) as f64,
        Num::Float(f) => f,
    }
}

fn num_dec(n: Num) -> (i128, u8) {
    match n {
        Num::Int(i) => (i, 0),
        Num::Dec(m, s) => (m, s),
        Num::Float(f) => ((f * 1e10) as i128, 10),
    }
}

fn str_of(v: &Value) -> Option<&str> {
    match v {
        Value::Char(s) | Value::VarChar(s) | Value::NChar(s) | Value::NVarChar(s) => Some(s),
        _ => None,
    }
}

/// Case-insensitive, trailing-space-insensitive string comparison (the default collation).
pub fn str_cmp(a: &str, b: &str) -> Ordering {
    let a = a.trim_end_matches(' ');
    let b = b.trim_end_matches(' ');
    let mut ai = a.chars().flat_map(char::to_lowercase);
    let mut bi = b.chars().flat_map(char::to_lowercase);
    loop {
        match (ai.next(), bi.next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) => {
                if x != y {
                    return x.cmp(&y);
                }
            }
        }
    }
}

fn dt_key(v: &Value) -> Option<(i64, i64)> {
    match v {
        Value::Date(d) => Some((*d as i64, 0)),
        Value::Time(t) => Some((0, *t)),
        Value::DateTime { days, ticks }
        | Value::DateTime2 { days, ticks }
        | Value::SmallDateTime { days, ticks } => Some((*days as i64, *ticks)),
        Value::DateTimeOffset {
            days,
            ticks,
            offset_minutes,
        } => {
            let t = *days as i64 * 864_000_000_000 + ticks - *offset_minutes as i64 * 600_000_000;
            Some((t.div_euclid(864_000_000_000), t.rem_euclid(864_000_000_000)))
        }
        _ => None,
    }
}

/// Compares two non-NULL values under the default collation; `None` when either is NULL or the
/// types are not comparable.
pub fn compare(a: &Value, b: &Value) -> Option<Ordering> {
    if a.is_null() || b.is_null() {
        return None;
    }
    if let (Value::Int(x), Value::Int(y)) = (a, b) {
        return Some(x.cmp(y));
    }
    types::compare(a, b, types::Collation::DEFAULT)
        .ok()
        .flatten()
}

/// Like [`compare`] but reports conversion errors of mixed-type comparisons (245, 206).
#[inline]
pub fn compare_checked(a: &Value, b: &Value) -> SqlResult<Option<Ordering>> {
    if let (Value::Int(x), Value::Int(y)) = (a, b) {
        return Ok(Some(x.cmp(y)));
    }
    types::compare(a, b, types::Collation::DEFAULT)
}

/// Total order for sorting: NULL first, then [`compare`]; incomparable values compare equal.
#[inline]
pub fn sort_cmp(a: &Value, b: &Value) -> Ordering {
    match (a.is_null(), b.is_null()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        _ => compare(a, b).unwrap_or(Ordering::Equal),
    }
}

/// [`hash_key`] of an integer value (any integer type or bit).
#[inline]
pub fn hash_key_int(i: i128, out: &mut Vec<u8>) {
    out.push(1);
    out.extend_from_slice(&i.to_le_bytes());
}

/// [`hash_key`] of a character string value (any string type).
#[inline]
pub fn hash_key_str(s: &str, out: &mut Vec<u8>) {
    out.push(4);
    types::Collation::DEFAULT.sort_key(s, out);
    out.push(0xff);
}

/// Appends a byte encoding of `v` such that values equal under [`compare`] (same type family)
/// produce equal bytes. Used for hash join / aggregate / distinct keys.
pub fn hash_key(v: &Value, out: &mut Vec<u8>) {
    match v {
        Value::Null => out.push(0),
        _ => {
            if let Some(n) = as_num(v) {
                match n {
                    Num::Int(i) => hash_key_int(i, out),
                    Num::Dec(mut m, mut s) => {
                        while s > 0 && m % 10 == 0 {
                            m /= 10;
                            s -= 1;
                        }
                        if s == 0 {
                            out.push(1);
                            out.extend_from_slice(&m.to_le_bytes());
                        } else {
                            out.push(2);
                            out.push(s);
                            out.extend_from_slice(&m.to_le_bytes());
                        }
                    }
                    Num::Float(f) => {
                        if f.fract() == 0.0 && f.abs() < 1e30 {
                            out.push(1);
                            out.extend_from_slice(&(f as i128).to_le_bytes());
                        } else {
                            out.push(3);
                            let f = if f == 0.0 { 0.0 } else { f };
                            out.extend_from_slice(&f.to_bits().to_le_bytes());
                        }
                    }
                }
            } else if let Some(s) = str_of(v) {
                hash_key_str(s, out);
            } else if let Some((d, t)) = dt_key(v) {
                out.push(5);
                out.extend_from_slice(&d.to_le_bytes());
                out.extend_from_slice(&t.to_le_bytes());
            } else {
                match v {
                    Value::Binary(b) | Value::VarBinary(b) => {
                        out.push(6);
                        out.extend_from_slice(&(b.len() as u32).to_le_bytes());
                        out.extend_from_slice(b);
                    }
                    Value::UniqueIdentifier(g) => {
                        out.push(7);
                        out.extend_from_slice(g);
                    }
                    _ => out.push(8),
                }
            }
        }
    }
}

fn int_value(i: i128, ty: &DataType) -> SqlResult<Value> {
    let overflow = || SqlError::new(8115, &[&"expression", &ty.sql_name()]);
    Ok(match ty {
        DataType::TinyInt => Value::TinyInt(u8::try_from(i).map_err(|_| overflow())?),
        DataType::SmallInt => Value::SmallInt(i16::try_from(i).map_err(|_| overflow())?),
        DataType::Int => Value::Int(i32::try_from(i).map_err(|_| overflow())?),
        DataType::BigInt => Value::BigInt(i64::try_from(i).map_err(|_| overflow())?),
        DataType::Bit => Value::Bit(i != 0),
        _ => Value::BigInt(i64::try_from(i).map_err(|_| overflow())?),
    })
}

/// Arithmetic with the binder-computed result type `ty` (types::ops semantics).
pub fn arith(op: BinaryOp, a: &Value, b: &Value, ty: &DataType) -> SqlResult<Value> {
    if a.is_null() || b.is_null() {
        return Ok(Value::Null);
    }
    use types::ArithOp as A;
    let aop = match op {
        BinaryOp::Add | BinaryOp::Concat => A::Add,
        BinaryOp::Sub => A::Sub,
        BinaryOp::Mul => A::Mul,
        BinaryOp::Div => A::Div,
        BinaryOp::Mod => A::Mod,
        BinaryOp::BitAnd => A::BitAnd,
        BinaryOp::BitOr => A::BitOr,
        BinaryOp::BitXor => A::BitXor,
    };
    types::ops::arith_typed(aop, a, b, ty)
}

/// The previous local implementation, kept for reference tests of the types crate.
#[allow(dead_code)]
fn local_arith(op: BinaryOp, a: &Value, b: &Value, ty: &DataType) -> SqlResult<Value> {
    if a.is_null() || b.is_null() {
        return Ok(Value::Null);
    }
    // fast path: int op int
    if let (Value::Int(x), Value::Int(y)) = (a, b) {
        let (x, y) = (*x as i64, *y as i64);
        let r = match op {
            BinaryOp::Add => x + y,
            BinaryOp::Sub => x - y,
            BinaryOp::Mul => x * y,
            BinaryOp::Div => {
                if y == 0 {
                    return Err(SqlError::divide_by_zero());
                }
                x / y
            }
            BinaryOp::Mod => {
                if y == 0 {
                    return Err(SqlError::divide_by_zero());
                }
                x % y
            }
            BinaryOp::BitAnd => x & y,
            BinaryOp::BitOr => x | y,
            BinaryOp::BitXor => x ^ y,
            BinaryOp::Concat => return Err(SqlError::internal("concat on int")),
        };
        return match i32::try_from(r) {
            Ok(v) if matches!(ty, DataType::Int) => Ok(Value::Int(v)),
            _ => {
                int_value(r as i128, ty).map_err(|_| SqlError::new(8115, &[&"expression", &"int"]))
            }
        };
    }
    if op == BinaryOp::Concat {
        let (Some(x), Some(y)) = (str_of(a), str_of(b)) else {
            let x = cast(a, &DataType::NVarChar(None))?;
            let y = cast(b, &DataType::NVarChar(None))?;
            return local_arith(op, &x, &y, ty);
        };
        let mut s = String::with_capacity(x.len() + y.len());
        s.push_str(x);
        s.push_str(y);
        return Ok(if ty.is_unicode() {
            Value::NVarChar(s)
        } else {
            Value::VarChar(s)
        });
    }
    let (Some(x), Some(y)) = (as_num(&cast(a, ty)?), as_num(&cast(b, ty)?)) else {
        return Err(SqlError::new(8117, &[&ty.sql_name(), &op_name(op)]));
    };
    match ty {
        DataType::Float | DataType::Real => {
            let (x, y) = (num_f64(x), num_f64(y));
            let r = match op {
                BinaryOp::Add => x + y,
                BinaryOp::Sub => x - y,
                BinaryOp::Mul => x * y,
                BinaryOp::Div => {
                    if y == 0.0 {
                        return Err(SqlError::divide_by_zero());
                    }
                    x / y
                }
                BinaryOp::Mod => {
                    if y == 0.0 {
                        return Err(SqlError::divide_by_zero());
                    }
                    x % y
                }
                _ => return Err(SqlError::new(8117, &[&ty.sql_name(), &op_name(op)])),
            };
            Ok(if matches!(ty, DataType::Real) {
                Value::Real(r as f32)
            } else {
                Value::Float(r)
            })
        }
        DataType::Decimal { .. }
        | DataType::Numeric { .. }
        | DataType::Money
        | DataType::SmallMoney => {
            let rs = match ty {
                DataType::Decimal { scale, .. } | DataType::Numeric { scale, .. } => *scale,
                _ => 4,
            };
            let (xm, xs) = num_dec(x);
            let (ym, ys) = num_dec(y);
            let ovf = || SqlError::new(8115, &[&"expression", &ty.sql_name()]);
            let r: i128 = match op {
                BinaryOp::Add | BinaryOp::Sub => {
                    let s = xs.max(ys);
                    let xa = xm.checked_mul(pow10(s - xs)).ok_or_else(ovf)?;
                    let ya = ym.checked_mul(pow10(s - ys)).ok_or_else(ovf)?;
                    let r = if op == BinaryOp::Add {
                        xa.checked_add(ya)
                    } else {
                        xa.checked_sub(ya)
                    }
                    .ok_or_else(ovf)?;
                    rescale(r, s, rs)
                }
                BinaryOp::Mul => {
                    let r = xm.checked_mul(ym).ok_or_else(ovf)?;
                    rescale(r, xs + ys, rs)
                }
                BinaryOp::Div => {
                    if ym == 0 {
                        return Err(SqlError::divide_by_zero());
                    }
                    // result = xm/10^xs / (ym/10^ys) at scale rs
                    let shift = rs as i32 + ys as i32 - xs as i32;
                    let num = if shift >= 0 {
                        xm.checked_mul(pow10(shift as u8)).ok_or_else(ovf)?
                    } else {
                        xm / pow10((-shift) as u8)
                    };
                    num / ym
                }
                BinaryOp::Mod => {
                    if ym == 0 {
                        return Err(SqlError::divide_by_zero());
                    }
                    let s = xs.max(ys);
                    let xa = xm.checked_mul(pow10(s - xs)).ok_or_else(ovf)?;
                    let ya = ym.checked_mul(pow10(s - ys)).ok_or_else(ovf)?;
                    rescale(xa % ya, s, rs)
                }
                _ => return Err(SqlError::new(8117, &[&ty.sql_name(), &op_name(op)])),
            };
            Ok(match ty {
                DataType::Money => Value::Money(i64::try_from(r).map_err(|_| ovf())?),
                DataType::SmallMoney => Value::SmallMoney(i64::try_from(r).map_err(|_| ovf())?),
                _ => Value::Decimal {
                    mantissa: r,
                    scale: rs,
                },
            })
        }
        _ => {
            let (x, y) = (num_dec(x).0, num_dec(y).0);
            let r = match op {
                BinaryOp::Add => x.checked_add(y),
                BinaryOp::Sub => x.checked_sub(y),
                BinaryOp::Mul => x.checked_mul(y),
                BinaryOp::Div => {
                    if y == 0 {
                        return Err(SqlError::divide_by_zero());
                    }
                    x.checked_div(y)
                }
                BinaryOp::Mod => {
                    if y == 0 {
                        return Err(SqlError::divide_by_zero());
                    }
                    x.checked_rem(y)
                }
                BinaryOp::BitAnd => Some(x & y),
                BinaryOp::BitOr => Some(x | y),
                BinaryOp::BitXor => Some(x ^ y),
                BinaryOp::Concat => None,
            };
            let r = r.ok_or_else(|| SqlError::new(8115, &[&"expression", &ty.sql_name()]))?;
            int_value(r, ty)
        }
    }
}

fn rescale(m: i128, from: u8, to: u8) -> i128 {
    if to >= from {
        m.saturating_mul(pow10(to - from))
    } else {
        // round half away from zero
        let d = pow10(from - to);
        let q = m / d;
        let r = m % d;
        if r.abs() * 2 >= d {
            q + m.signum()
        } else {
            q
        }
    }
}

fn op_name(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Add | BinaryOp::Concat => "add",
        BinaryOp::Sub => "subtract",
        BinaryOp::Mul => "multiply",
        BinaryOp::Div => "divide",
        BinaryOp::Mod => "modulo",
        BinaryOp::BitAnd => "&",
        BinaryOp::BitOr => "|",
        BinaryOp::BitXor => "^",
    }
}

/// Unary minus.
pub fn negate(v: &Value) -> SqlResult<Value> {
    types::ops::neg(v)
}

#[allow(dead_code)]
fn local_negate(v: &Value) -> SqlResult<Value> {
    let ovf = |t: &str| SqlError::new(8115, &[&"expression", &t]);
    Ok(match v {
        Value::Null => Value::Null,
        Value::TinyInt(i) => Value::SmallInt(-(*i as i16)),
        Value::SmallInt(i) => Value::SmallInt(i.checked_neg().ok_or_else(|| ovf("smallint"))?),
        Value::Int(i) => Value::Int(i.checked_neg().ok_or_else(|| ovf("int"))?),
        Value::BigInt(i) => Value::BigInt(i.checked_neg().ok_or_else(|| ovf("bigint"))?),
        Value::Decimal { mantissa, scale } => Value::Decimal {
            mantissa: -mantissa,
            scale: *scale,
        },
        Value::Float(f) => Value::Float(-f),
        Value::Real(f) => Value::Real(-f),
        Value::Money(m) => Value::Money(-m),
        Value::SmallMoney(m) => Value::SmallMoney(-m),
        other => return Err(SqlError::new(8117, &[&type_name(other), &"minus"])),
    })
}

/// `sql_name` of a value's own type.
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "int",
        Value::Bit(_) => "bit",
        Value::TinyInt(_) => "tinyint",
        Value::SmallInt(_) => "smallint",
        Value::Int(_) => "int",
        Value::BigInt(_) => "bigint",
        Value::Decimal { .. } => "decimal",
        Value::Float(_) => "float",
        Value::Real(_) => "real",
        Value::Money(_) => "money",
        Value::SmallMoney(_) => "smallmoney",
        Value::Char(_) => "char",
        Value::VarChar(_) => "varchar",
        Value::NChar(_) => "nchar",
        Value::NVarChar(_) => "nvarchar",
        Value::Binary(_) => "binary",
        Value::VarBinary(_) => "varbinary",
        Value::Date(_) => "date",
        Value::Time(_) => "time",
        Value::DateTime { .. } => "datetime",
        Value::DateTime2 { .. } => "datetime2",
        Value::SmallDateTime { .. } => "smalldatetime",
        Value::DateTimeOffset { .. } => "datetimeoffset",
        Value::UniqueIdentifier(_) => "uniqueidentifier",
    }
}

/// Converts `v` to `ty` (CAST semantics).
pub fn cast(v: &Value, ty: &DataType) -> SqlResult<Value> {
    if v.is_null() {
        return Ok(Value::Null);
    }
    if *ty == DataType::Null {
        return Ok(v.clone());
    }
    v.cast(ty)
}

/// CONVERT with a style.
pub fn cast_style(v: &Value, ty: &DataType, style: i32) -> SqlResult<Value> {
    if v.is_null() {
        return Ok(Value::Null);
    }
    types::convert_with_style(v, ty, style)
}

fn decimal_text(m: i128, s: u8) -> String {
    let neg = m < 0;
    let digits = m.unsigned_abs().to_string();
    let s = s as usize;
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    if s == 0 {
        out.push_str(&digits);
    } else if digits.len() > s {
        out.push_str(&digits[..digits.len() - s]);
        out.push('.');
        out.push_str(&digits[digits.len() - s..]);
    } else {
        out.push('0');
        out.push('.');
        out.push_str(&"0".repeat(s - digits.len()));
        out.push_str(&digits);
    }
    out
}

/// Text form of a value (what CAST(v AS nvarchar(max)) produces).
pub fn to_text(v: &Value) -> String {
    if let Some(s) = str_of(v) {
        return s.to_string();
    }
    if let Ok(Value::NVarChar(s)) = v.cast(&DataType::NVarChar(None)) {
        return s;
    }
    fallback_text(v)
}

fn fallback_text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::Bit(b) => (if *b { "1" } else { "0" }).to_string(),
        Value::TinyInt(i) => i.to_string(),
        Value::SmallInt(i) => i.to_string(),
        Value::Int(i) => i.to_string(),
        Value::BigInt(i) => i.to_string(),
        Value::Decimal { mantissa, scale } => decimal_text(*mantissa, *scale),
        Value::Money(m) | Value::SmallMoney(m) => decimal_text(*m as i128, 4),
        Value::Float(f) => format_float(*f),
        Value::Real(f) => format_float(*f as f64),
        Value::Char(s) | Value::VarChar(s) | Value::NChar(s) | Value::NVarChar(s) => s.clone(),
        Value::Binary(b) | Value::VarBinary(b) => {
            let mut s = String::from("0x");
            for x in b {
                s.push_str(&format!("{x:02X}"));
            }
            s
        }
        other => format!("{other:?}"),
    }
}

fn format_float(f: f64) -> String {
    if f.fract() == 0.0 && f.abs() < 1e15 {
        format!("{}", f as i64)
    } else {
        let s = format!("{f}");
        s
    }
}

fn parse_num_text(s: &str, ty: &DataType, orig: &Value) -> SqlResult<Value> {
    let t = s.trim();
    let err = || SqlError::new(245, &[&type_name(orig), &s, &ty.sql_name()]);
    if ty.is_integer() || matches!(ty, DataType::Bit) {
        let i: i128 = t.parse().map_err(|_| err())?;
        return int_value(i, ty).map_err(|_| SqlError::new(248, &[&s, &ty.sql_name()]));
    }
    match ty {
        DataType::Float | DataType::Real => {
            let f: f64 = t
                .parse()
                .map_err(|_| SqlError::new(8114, &[&type_name(orig), &ty.sql_name()]))?;
            Ok(if matches!(ty, DataType::Real) {
                Value::Real(f as f32)
            } else {
                Value::Float(f)
            })
        }
        _ => {
            let (m, sc) = parse_decimal(t)
                .ok_or_else(|| SqlError::new(8114, &[&type_name(orig), &ty.sql_name()]))?;
            fallback_cast(
                &Value::Decimal {
                    mantissa: m,
                    scale: sc,
                },
                ty,
            )
        }
    }
}

fn parse_decimal(t: &str) -> Option<(i128, u8)> {
    let (neg, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let (ip, fp) = body.split_once('.').unwrap_or((body, ""));
    if ip.is_empty() && fp.is_empty() {
        return None;
    }
    if !ip.bytes().all(|c| c.is_ascii_digit()) || !fp.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let mut m: i128 = 0;
    for c in ip.bytes().chain(fp.bytes()) {
        m = m.checked_mul(10)?.checked_add((c - b'0') as i128)?;
    }
    Some((if neg { -m } else { m }, fp.len() as u8))
}

#[allow(dead_code)]
fn fallback_cast(v: &Value, ty: &DataType) -> SqlResult<Value> {
    let ovf = || SqlError::new(8115, &[&type_name(v), &ty.sql_name()]);
    if let Some(s) = str_of(v) {
        return match ty {
            DataType::Char(n) | DataType::NChar(n) => {
                let mut s: String = s.chars().take(*n as usize).collect();
                let len = s.chars().count();
                for _ in len..*n as usize {
                    s.push(' ');
                }
                Ok(if matches!(ty, DataType::Char(_)) {
                    Value::Char(s)
                } else {
                    Value::NChar(s)
                })
            }
            DataType::VarChar(n) | DataType::NVarChar(n) => {
                let s: String = match n {
                    Some(n) => s.chars().take(*n as usize).collect(),
                    None => s.to_string(),
                };
                Ok(if matches!(ty, DataType::VarChar(_)) {
                    Value::VarChar(s)
                } else {
                    Value::NVarChar(s)
                })
            }
            t if t.is_numeric() || matches!(t, DataType::Bit) => parse_num_text(s, ty, v),
            _ => Err(SqlError::new(529, &[&type_name(v), &ty.sql_name()])),
        };
    }
    if ty.is_string() {
        let s = fallback_text(v);
        return fallback_cast(&Value::VarChar(s), ty);
    }
    let Some(n) = as_num(v) else {
        return if type_name(v) == ty.sql_name() {
            Ok(v.clone())
        } else {
            Err(SqlError::new(529, &[&type_name(v), &ty.sql_name()]))
        };
    };
    match ty {
        DataType::Bit => Ok(Value::Bit(num_f64(n) != 0.0)),
        DataType::TinyInt | DataType::SmallInt | DataType::Int | DataType::BigInt => {
            let i = match n {
                Num::Int(i) => i,
                Num::Dec(m, s) => m / pow10(s),
                Num::Float(f) => {
                    if !(-1e38..=1e38).contains(&f) {
                        return Err(ovf());
                    }
                    f.trunc() as i128
                }
            };
            int_value(i, ty).map_err(|_| ovf())
        }
        DataType::Float => Ok(Value::Float(num_f64(n))),
        DataType::Real => Ok(Value::Real(num_f64(n) as f32)),
        DataType::Decimal { precision, scale } | DataType::Numeric { precision, scale } => {
            let m = match n {
                Num::Int(i) => i.checked_mul(pow10(*scale)).ok_or_else(ovf)?,
                Num::Dec(m, s) => rescale(m, s, *scale),
                Num::Float(f) => (f * pow10(*scale) as f64).round() as i128,
            };
            if m.unsigned_abs() >= pow10(*precision) as u128 {
                return Err(ovf());
            }
            Ok(Value::Decimal {
                mantissa: m,
                scale: *scale,
            })
        }
        DataType::Money | DataType::SmallMoney => {
            let m = match n {
                Num::Int(i) => i.checked_mul(10_000).ok_or_else(ovf)?,
                Num::Dec(m, s) => rescale(m, s, 4),
                Num::Float(f) => (f * 10_000.0).round() as i128,
            };
            let m = i64::try_from(m).map_err(|_| ovf())?;
            Ok(if matches!(ty, DataType::Money) {
                Value::Money(m)
            } else {
                Value::SmallMoney(m)
            })
        }
        DataType::Null => Ok(v.clone()),
        _ => Err(SqlError::new(529, &[&type_name(v), &ty.sql_name()])),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compare_across_numeric_types() {
        assert_eq!(
            compare(
                &Value::Int(1),
                &Value::Decimal {
                    mantissa: 10,
                    scale: 1
                }
            ),
            Some(Ordering::Equal)
        );
        assert_eq!(compare(&Value::Null, &Value::Int(1)), None);
        assert_eq!(
            compare(
                &Value::VarChar("abc ".into()),
                &Value::VarChar("ABC".into())
            ),
            Some(Ordering::Equal)
        );
    }

    #[test]
    fn int_arith_overflow_and_div_zero() {
        let r = arith(
            BinaryOp::Add,
            &Value::Int(i32::MAX),
            &Value::Int(1),
            &DataType::Int,
        );
        assert_eq!(r.unwrap_err().number, 8115);
        let r = arith(
            BinaryOp::Div,
            &Value::Int(1),
            &Value::Int(0),
            &DataType::Int,
        );
        assert_eq!(r.unwrap_err().number, 8134);
        let r = arith(
            BinaryOp::Div,
            &Value::Int(7),
            &Value::Int(2),
            &DataType::Int,
        )
        .unwrap();
        assert_eq!(r, Value::Int(3));
    }

    #[test]
    fn hash_keys_equal_for_equal_values() {
        let mut a = vec![];
        let mut b = vec![];
        hash_key(&Value::Int(5), &mut a);
        hash_key(
            &Value::Decimal {
                mantissa: 500,
                scale: 2,
            },
            &mut b,
        );
        assert_eq!(a, b);
    }
}
