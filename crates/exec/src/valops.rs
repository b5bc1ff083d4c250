//! Value operations used by the evaluator: a thin seam over the `types` crate.
//!
//! Everything that knows SQL Server's conversion/arithmetic/comparison rules lives in `types`;
//! this module adapts it to the evaluator (NULL handling, the default collation) and holds the
//! byte encoding of hash keys (`hash_key`), which is exec's own.

use std::cmp::Ordering;

use common::SqlResult;
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

fn str_of(v: &Value) -> Option<&str> {
    match v {
        Value::Char(s) | Value::VarChar(s) | Value::NChar(s) | Value::NVarChar(s) => Some(s),
        _ => None,
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

/// Unary minus.
pub fn negate(v: &Value) -> SqlResult<Value> {
    types::ops::neg(v)
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

/// Text form of a value (what CAST(v AS nvarchar(max)) produces).
pub fn to_text(v: &Value) -> String {
    if let Some(s) = str_of(v) {
        return s.to_string();
    }
    match v.cast(&DataType::NVarChar(None)) {
        Ok(Value::NVarChar(s)) => s,
        // NULL reads as the empty string
        Ok(_) => String::new(),
        // a value the conversion rejects (over the 2 GB cap): its literal text
        Err(_) => v.to_sql_text(),
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
