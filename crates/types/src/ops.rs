//! Arithmetic, bitwise and concatenation operators with SQL Server's semantics.
//!
//! Two levels:
//! * [`arith_typed`] — the per-row fast path: the binder computed the result type once with
//!   [`crate::derive::result_type_for_arith`]; operands are converted to it as needed.
//! * [`add`], [`sub`], [`mul`], [`div`], [`modulo`], … — convenience forms that derive the
//!   result type from the values' natural types ([`Value::data_type`]).
//!
//! NULL in, NULL out. Integer overflow raises 8115 ("Arithmetic overflow error converting
//! expression to data type int."), division by zero 8134. Decimal arithmetic is exact (i128,
//! 256-bit intermediates) and rounds half away from zero to the result scale.

use crate::datetime::{self, DAY_1753, DAY_1900, DAY_2079, DAY_9999, TICKS_PER_DAY};
use crate::decimal::{self, U256};
use crate::derive::{result_type_for_arith, result_type_for_neg, ArithOp};
use crate::{charset, DataType, Value};
use common::{SqlError, SqlResult};

fn overflow(t: &DataType) -> SqlError {
    SqlError::new(8115, &[&"expression", &crate::convert::msg_type_name(t)])
}

/// `a op b` with the result type derived from the values' own types.
pub fn arith(op: ArithOp, a: &Value, b: &Value) -> SqlResult<Value> {
    if a.is_null() || b.is_null() {
        return Ok(Value::Null);
    }
    let rt = result_type_for_arith(op, &a.data_type(), &b.data_type())?;
    arith_typed(op, a, b, &rt)
}

pub fn add(a: &Value, b: &Value) -> SqlResult<Value> {
    arith(ArithOp::Add, a, b)
}
pub fn sub(a: &Value, b: &Value) -> SqlResult<Value> {
    arith(ArithOp::Sub, a, b)
}
pub fn mul(a: &Value, b: &Value) -> SqlResult<Value> {
    arith(ArithOp::Mul, a, b)
}
pub fn div(a: &Value, b: &Value) -> SqlResult<Value> {
    arith(ArithOp::Div, a, b)
}
pub fn modulo(a: &Value, b: &Value) -> SqlResult<Value> {
    arith(ArithOp::Mod, a, b)
}
pub fn bit_and(a: &Value, b: &Value) -> SqlResult<Value> {
    arith(ArithOp::BitAnd, a, b)
}
pub fn bit_or(a: &Value, b: &Value) -> SqlResult<Value> {
    arith(ArithOp::BitOr, a, b)
}
pub fn bit_xor(a: &Value, b: &Value) -> SqlResult<Value> {
    arith(ArithOp::BitXor, a, b)
}

/// String (or binary) concatenation with `+`: NULL if either side is NULL.
pub fn concat(a: &Value, b: &Value) -> SqlResult<Value> {
    arith(ArithOp::Add, a, b)
}

fn int_value(x: i64, t: &DataType) -> SqlResult<Value> {
    Ok(match t {
        DataType::TinyInt => Value::TinyInt(u8::try_from(x).map_err(|_| overflow(t))?),
        DataType::SmallInt => Value::SmallInt(i16::try_from(x).map_err(|_| overflow(t))?),
        DataType::Int => Value::Int(i32::try_from(x).map_err(|_| overflow(t))?),
        DataType::Bit => Value::Bit(x != 0),
        _ => Value::BigInt(x),
    })
}

/// Operand as i64 for integer arithmetic (strings converted to the result type).
#[inline]
fn as_int(v: &Value, t: &DataType) -> SqlResult<i64> {
    if let Some(x) = v.as_i64() {
        return Ok(x);
    }
    v.cast(t)?
        .as_i64()
        .ok_or_else(|| SqlError::internal("integer operand"))
}

/// `a op b` producing a value of the precomputed result type `rt`.
pub fn arith_typed(op: ArithOp, a: &Value, b: &Value, rt: &DataType) -> SqlResult<Value> {
    if a.is_null() || b.is_null() {
        return Ok(Value::Null);
    }
    // Fast path: int op int.
    if let (Value::Int(x), Value::Int(y), DataType::Int) = (a, b, rt) {
        let (x, y) = (*x, *y);
        let r = match op {
            ArithOp::Add => x.checked_add(y),
            ArithOp::Sub => x.checked_sub(y),
            ArithOp::Mul => x.checked_mul(y),
            ArithOp::Div => {
                if y == 0 {
                    return Err(SqlError::divide_by_zero());
                }
                x.checked_div(y)
            }
            ArithOp::Mod => {
                if y == 0 {
                    return Err(SqlError::divide_by_zero());
                }
                Some(x.checked_rem(y).unwrap_or(0))
            }
            ArithOp::BitAnd => Some(x & y),
            ArithOp::BitOr => Some(x | y),
            ArithOp::BitXor => Some(x ^ y),
        };
        return r.map(Value::Int).ok_or_else(|| overflow(rt));
    }
    match rt {
        DataType::Bit
        | DataType::TinyInt
        | DataType::SmallInt
        | DataType::Int
        | DataType::BigInt => {
            let x = as_int(a, rt)?;
            let y = as_int(b, rt)?;
            let r = match op {
                ArithOp::Add => x.checked_add(y),
                ArithOp::Sub => x.checked_sub(y),
                ArithOp::Mul => x.checked_mul(y),
                ArithOp::Div => {
                    if y == 0 {
                        return Err(SqlError::divide_by_zero());
                    }
                    x.checked_div(y)
                }
                ArithOp::Mod => {
                    if y == 0 {
                        return Err(SqlError::divide_by_zero());
                    }
                    Some(x.checked_rem(y).unwrap_or(0))
                }
                ArithOp::BitAnd => Some(x & y),
                ArithOp::BitOr => Some(x | y),
                ArithOp::BitXor => Some(x ^ y),
            };
            let r = r.ok_or_else(|| overflow(rt))?;
            if matches!(rt, DataType::TinyInt)
                && matches!(op, ArithOp::BitAnd | ArithOp::BitOr | ArithOp::BitXor)
            {
                return Ok(Value::TinyInt(r as u8));
            }
            int_value(r, rt)
        }
        DataType::Float | DataType::Real => {
            let x = float_operand(a, rt)?;
            let y = float_operand(b, rt)?;
            let r = match op {
                ArithOp::Add => x + y,
                ArithOp::Sub => x - y,
                ArithOp::Mul => x * y,
                ArithOp::Div => {
                    if y == 0.0 {
                        return Err(SqlError::divide_by_zero());
                    }
                    x / y
                }
                _ => {
                    return Err(SqlError::new(
                        402,
                        &[&"float", &"float", &op.message_name()],
                    ))
                }
            };
            if matches!(rt, DataType::Real) {
                let r = r as f32;
                if !r.is_finite() {
                    return Err(overflow(rt));
                }
                Ok(Value::Real(r))
            } else {
                if !r.is_finite() {
                    return Err(overflow(rt));
                }
                Ok(Value::Float(r))
            }
        }
        DataType::Decimal { precision, scale } | DataType::Numeric { precision, scale } => {
            let (xm, xs) = dec_operand(a)?;
            let (ym, ys) = dec_operand(b)?;
            let m = decimal_arith(op, xm, xs, ym, ys, *scale).ok_or_else(|| overflow(rt))??;
            if !decimal::fits(m, *precision) {
                return Err(overflow(rt));
            }
            Ok(Value::Decimal {
                mantissa: m,
                scale: *scale,
            })
        }
        DataType::Money | DataType::SmallMoney => {
            let (xm, xs) = dec_operand(a)?;
            let (ym, ys) = dec_operand(b)?;
            let m = decimal_arith(op, xm, xs, ym, ys, 4).ok_or_else(|| overflow(rt))??;
            let (lo, hi) = if matches!(rt, DataType::SmallMoney) {
                (i32::MIN as i128, i32::MAX as i128)
            } else {
                (i64::MIN as i128, i64::MAX as i128)
            };
            if m < lo || m > hi {
                return Err(overflow(rt));
            }
            Ok(if matches!(rt, DataType::SmallMoney) {
                Value::SmallMoney(m as i64)
            } else {
                Value::Money(m as i64)
            })
        }
        DataType::Char(_) | DataType::VarChar(_) | DataType::NChar(_) | DataType::NVarChar(_) => {
            let unicode = rt.is_unicode();
            let conv = if unicode {
                DataType::NVarChar(None)
            } else {
                DataType::VarChar(None)
            };
            let xa = if a.as_str().is_some() {
                None
            } else {
                Some(a.cast(&conv)?)
            };
            let xb = if b.as_str().is_some() {
                None
            } else {
                Some(b.cast(&conv)?)
            };
            let sa = xa.as_ref().unwrap_or(a).as_str().unwrap_or_default();
            let sb = xb.as_ref().unwrap_or(b).as_str().unwrap_or_default();
            if rt.is_max() {
                // the 2 GB cap is checked before anything is allocated (lob.rs)
                crate::lob::add_bytes(
                    crate::lob::str_bytes(sa, unicode),
                    crate::lob::str_bytes(sb, unicode),
                )?;
            }
            let mut s = crate::lob::try_string(sa.len() + sb.len())?;
            s.push_str(sa);
            s.push_str(sb);
            if !unicode {
                if let std::borrow::Cow::Owned(o) = charset::to_cp1252_text(&s) {
                    s = o;
                }
            }
            let cap =
                rt.char_length()
                    .unwrap_or(if rt.is_max() { u32::MAX } else { 8000 }) as usize;
            let cap = if rt.is_max() { usize::MAX } else { cap };
            if cap != usize::MAX && charset::str_len(&s, unicode) > cap {
                let cut = charset::truncate_units(&s, cap, unicode).len();
                s.truncate(cut);
            }
            Ok(match rt {
                DataType::Char(_) => Value::Char(s),
                DataType::NChar(_) => Value::NChar(s),
                DataType::NVarChar(_) => Value::NVarChar(s),
                _ => Value::VarChar(s),
            })
        }
        DataType::Binary(_) | DataType::VarBinary(_) => {
            // binary operands are read in place; others are converted first
            let xa = match a.as_bytes() {
                Some(_) => None,
                None => Some(a.cast(&DataType::VarBinary(None))?),
            };
            let xb = match b.as_bytes() {
                Some(_) => None,
                None => Some(b.cast(&DataType::VarBinary(None))?),
            };
            let ba = xa.as_ref().unwrap_or(a).as_bytes().unwrap_or_default();
            let bb = xb.as_ref().unwrap_or(b).as_bytes().unwrap_or_default();
            if rt.is_max() {
                crate::lob::add_bytes(ba.len() as u64, bb.len() as u64)?;
            }
            let mut v = crate::lob::try_bytes(ba.len() + bb.len())?;
            v.extend_from_slice(ba);
            v.extend_from_slice(bb);
            if let Some(n) = rt.char_length() {
                v.truncate(n as usize);
            }
            Ok(Value::VarBinary(v))
        }
        DataType::DateTime | DataType::SmallDateTime => datetime_arith(op, a, b, rt),
        _ => Err(SqlError::new(8117, &[&rt.sql_name(), &op.message_name()])),
    }
}

fn float_operand(v: &Value, rt: &DataType) -> SqlResult<f64> {
    if let Some(f) = v.as_f64() {
        return Ok(f);
    }
    v.cast(&DataType::Float)
        .map_err(|e| {
            if v.as_str().is_some() {
                SqlError::new(8114, &[&v.data_type().sql_name(), &rt.sql_name()])
            } else {
                e
            }
        })?
        .as_f64()
        .ok_or_else(|| SqlError::internal("float operand"))
}

fn dec_operand(v: &Value) -> SqlResult<(i128, u8)> {
    if let Some(d) = v.as_decimal() {
        return Ok(d);
    }
    match v {
        Value::Char(_) | Value::VarChar(_) | Value::NChar(_) | Value::NVarChar(_) => {
            crate::convert::parse_decimal_string(v)?
                .as_decimal()
                .ok_or_else(|| SqlError::internal("decimal operand"))
        }
        Value::Float(_) | Value::Real(_) => {
            let f = v.as_f64().unwrap_or(0.0);
            decimal::from_f64(f, 18)
                .map(|m| decimal::normalize(m, 18))
                .ok_or_else(|| overflow(&DataType::decimal(38, 0)))
        }
        _ => Err(SqlError::new(8117, &[&v.data_type().sql_name(), &"add"])),
    }
}

/// Exact decimal op rounded to `scale`; outer `None` on overflow, inner error for /0. The
/// result's precision is not checked here (`decimal::fits`). Public for batch mode's decimal
/// kernels, which must compute exactly what `arith_typed` computes.
pub fn decimal_arith(
    op: ArithOp,
    xm: i128,
    xs: u8,
    ym: i128,
    ys: u8,
    scale: u8,
) -> Option<SqlResult<i128>> {
    match op {
        ArithOp::Add | ArithOp::Sub => {
            let ym = if op == ArithOp::Sub {
                ym.checked_neg()?
            } else {
                ym
            };
            let s = xs.max(ys);
            match (decimal::rescale(xm, xs, s), decimal::rescale(ym, ys, s)) {
                (Some(a), Some(b)) => match a.checked_add(b) {
                    Some(sum) => Some(Ok(decimal::rescale(sum, s, scale)?)),
                    None => {
                        // both huge: add in 256 bits (same sign), then round
                        let neg = a < 0;
                        let t = U256::from_u128(a.unsigned_abs())
                            .checked_add(U256::from_u128(b.unsigned_abs()))?;
                        if s <= scale {
                            return None;
                        }
                        let d = U256::from_u128(1).checked_mul_pow10((s - scale) as u32)?;
                        Some(Ok(decimal::div_round_u256(neg, t, d)?))
                    }
                },
                _ => {
                    // align by rounding the finer operand down to the result scale first
                    let a = decimal::mul_rescale(xm, 1, xs as u32, scale as u32)?;
                    let b = decimal::mul_rescale(ym, 1, ys as u32, scale as u32)?;
                    Some(Ok(a.checked_add(b)?))
                }
            }
        }
        ArithOp::Mul => Some(Ok(decimal::mul_rescale(
            xm,
            ym,
            xs as u32 + ys as u32,
            scale as u32,
        )?)),
        ArithOp::Div => {
            if ym == 0 {
                return Some(Err(SqlError::divide_by_zero()));
            }
            Some(Ok(decimal::div_rescale(
                xm,
                xs as u32,
                ym,
                ys as u32,
                scale as u32,
            )?))
        }
        ArithOp::Mod => {
            if ym == 0 {
                return Some(Err(SqlError::divide_by_zero()));
            }
            let s = xs.max(ys);
            let a = decimal::rescale(xm, xs, s)?;
            let b = decimal::rescale(ym, ys, s)?;
            let r = a.checked_rem(b).unwrap_or(0);
            Some(Ok(decimal::rescale(r, s, scale)?))
        }
        _ => None,
    }
}

/// Ticks since 1900-01-01 of a datetime operand (numbers are days).
fn dt_ticks(v: &Value, rt: &DataType) -> SqlResult<i128> {
    match v {
        Value::DateTime { days, ticks } | Value::SmallDateTime { days, ticks } => {
            Ok((*days - DAY_1900) as i128 * TICKS_PER_DAY as i128 + *ticks as i128)
        }
        Value::Char(_) | Value::VarChar(_) | Value::NChar(_) | Value::NVarChar(_) => {
            dt_ticks(&v.cast(rt)?, rt)
        }
        Value::Float(_) | Value::Real(_) => {
            let f = v.as_f64().unwrap_or(0.0) * TICKS_PER_DAY as f64;
            if !f.is_finite() || f.abs() > 1e20 {
                return Err(overflow(rt));
            }
            Ok(f.round() as i128)
        }
        _ => match v.as_decimal() {
            Some((m, s)) => decimal::mul_rescale(m, TICKS_PER_DAY as i128, s as u32, 0)
                .ok_or_else(|| overflow(rt)),
            None => Err(SqlError::new(
                206,
                &[&v.data_type().sql_name(), &rt.sql_name()],
            )),
        },
    }
}

fn datetime_arith(op: ArithOp, a: &Value, b: &Value, rt: &DataType) -> SqlResult<Value> {
    let x = dt_ticks(a, rt)?;
    let y = dt_ticks(b, rt)?;
    let t = match op {
        ArithOp::Add => x + y,
        ArithOp::Sub => x - y,
        _ => return Err(SqlError::new(8117, &[&rt.sql_name(), &op.message_name()])),
    };
    let day = t.div_euclid(TICKS_PER_DAY as i128) + DAY_1900 as i128;
    let ticks = t.rem_euclid(TICKS_PER_DAY as i128) as i64;
    let (lo, hi) = if matches!(rt, DataType::SmallDateTime) {
        (DAY_1900, DAY_2079)
    } else {
        (DAY_1753, DAY_9999)
    };
    if day < lo as i128 || day > hi as i128 {
        return Err(overflow(rt));
    }
    let v = Value::DateTime2 {
        days: day as i32,
        ticks,
    };
    v.cast(rt).map_err(|_| overflow(rt))
}

/// Unary minus (tinyint becomes smallint; overflow 8115).
pub fn neg(a: &Value) -> SqlResult<Value> {
    Ok(match a {
        Value::Null => Value::Null,
        Value::TinyInt(x) => Value::SmallInt(-(*x as i16)),
        Value::SmallInt(x) => Value::SmallInt(
            x.checked_neg()
                .ok_or_else(|| overflow(&DataType::SmallInt))?,
        ),
        Value::Int(x) => Value::Int(x.checked_neg().ok_or_else(|| overflow(&DataType::Int))?),
        Value::BigInt(x) => {
            Value::BigInt(x.checked_neg().ok_or_else(|| overflow(&DataType::BigInt))?)
        }
        Value::Decimal { mantissa, scale } => Value::Decimal {
            mantissa: -mantissa,
            scale: *scale,
        },
        Value::Money(m) => Value::Money(m.checked_neg().ok_or_else(|| overflow(&DataType::Money))?),
        Value::SmallMoney(m) => Value::SmallMoney(-m),
        Value::Float(f) => Value::Float(-f),
        Value::Real(f) => Value::Real(-f),
        v => {
            result_type_for_neg(&v.data_type())?;
            return Err(SqlError::new(8117, &[&v.data_type().sql_name(), &"minus"]));
        }
    })
}

/// Bitwise NOT `~` (integer types and bit).
pub fn bit_not(a: &Value) -> SqlResult<Value> {
    Ok(match a {
        Value::Null => Value::Null,
        Value::Bit(b) => Value::Bit(!b),
        Value::TinyInt(x) => Value::TinyInt(!x),
        Value::SmallInt(x) => Value::SmallInt(!x),
        Value::Int(x) => Value::Int(!x),
        Value::BigInt(x) => Value::BigInt(!x),
        v => return Err(SqlError::new(8117, &[&v.data_type().sql_name(), &"~"])),
    })
}

/// Number of days between 1900-01-01 and a datetime (helper for date functions).
pub fn days_since_1900(days: i32) -> i32 {
    days - DAY_1900
}

/// Convenience: the datetime for a number of days since 1900-01-01 (no time).
pub fn datetime_from_days_since_1900(d: i64) -> SqlResult<Value> {
    let day = d + DAY_1900 as i64;
    if day < DAY_1753 as i64 || day > DAY_9999 as i64 {
        return Err(overflow(&DataType::DateTime));
    }
    Ok(Value::DateTime {
        days: day as i32,
        ticks: 0,
    })
}

#[allow(dead_code)]
fn _uses(_: datetime::Parsed) {}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(m: i128, s: u8) -> Value {
        Value::Decimal {
            mantissa: m,
            scale: s,
        }
    }

    #[test]
    fn integer_ops() {
        assert_eq!(div(&Value::Int(7), &Value::Int(2)).unwrap(), Value::Int(3));
        assert_eq!(
            div(&Value::Int(-7), &Value::Int(2)).unwrap(),
            Value::Int(-3)
        );
        assert_eq!(
            modulo(&Value::Int(-7), &Value::Int(2)).unwrap(),
            Value::Int(-1)
        );
        let e = add(&Value::Int(i32::MAX), &Value::Int(1)).unwrap_err();
        assert_eq!(
            e.message,
            "Arithmetic overflow error converting expression to data type int."
        );
        assert_eq!(
            div(&Value::Int(1), &Value::Int(0)).unwrap_err().number,
            8134
        );
        assert_eq!(
            add(&Value::Int(1), &Value::BigInt(2)).unwrap(),
            Value::BigInt(3)
        );
        assert_eq!(add(&Value::Null, &Value::Int(1)).unwrap(), Value::Null);
        assert_eq!(
            add(&Value::VarChar("1".into()), &Value::Int(1)).unwrap(),
            Value::Int(2)
        );
        assert_eq!(
            add(&Value::VarChar("a".into()), &Value::Int(1))
                .unwrap_err()
                .number,
            245
        );
        assert_eq!(
            bit_and(&Value::Int(6), &Value::Int(3)).unwrap(),
            Value::Int(2)
        );
        assert_eq!(neg(&Value::TinyInt(5)).unwrap(), Value::SmallInt(-5));
        assert_eq!(neg(&Value::Int(i32::MIN)).unwrap_err().number, 8115);
        assert_eq!(bit_not(&Value::Int(0)).unwrap(), Value::Int(-1));
    }

    #[test]
    fn decimal_ops() {
        // SELECT 7/2.0 = 3.500000
        let r = div(&Value::Int(7), &dec(20, 1)).unwrap();
        assert_eq!(r, dec(3_500_000, 6));
        assert_eq!(r.to_sql_text(), "3.500000");
        // 1.50 + 2.255 = 3.755 (scale 3)
        assert_eq!(add(&dec(150, 2), &dec(2255, 3)).unwrap(), dec(3755, 3));
        // 1.1 * 1.1 = 1.21
        assert_eq!(mul(&dec(11, 1), &dec(11, 1)).unwrap(), dec(121, 2));
        // 2/3.0 -> 0.666667
        assert_eq!(
            div(&Value::Int(2), &dec(30, 1)).unwrap().to_sql_text(),
            "0.666667"
        );
        assert_eq!(div(&dec(10, 1), &dec(0, 1)).unwrap_err().number, 8134);
        // decimal(38,10) * decimal(38,10) -> decimal(38,6)
        let t = DataType::decimal(38, 10);
        let a = dec(12_345_678_901_234, 10); // 1234.5678901234
        let rt = result_type_for_arith(ArithOp::Mul, &t, &t).unwrap();
        assert_eq!(rt, DataType::decimal(38, 6));
        let r = arith_typed(ArithOp::Mul, &a, &a, &rt).unwrap();
        assert_eq!(r.to_sql_text(), "1524157.875324");
        // overflow of decimal(38,0)
        let big = dec(decimal::POW10[38] - 1, 0);
        let t0 = DataType::decimal(38, 0);
        let rt = result_type_for_arith(ArithOp::Add, &t0, &t0).unwrap();
        assert_eq!(
            arith_typed(ArithOp::Add, &big, &big, &rt)
                .unwrap_err()
                .number,
            8115
        );
        assert_eq!(modulo(&dec(75, 1), &Value::Int(2)).unwrap(), dec(15, 1));
        // SELECT 1.0/3 = 0.333333333333 (scale 12), 10/3.0 = 3.333333
        assert_eq!(
            div(&dec(10, 1), &Value::Int(3)).unwrap().to_sql_text(),
            "0.333333333333"
        );
        assert_eq!(
            div(&Value::Int(10), &dec(30, 1)).unwrap().to_sql_text(),
            "3.333333"
        );
        assert_eq!(add(&dec(1, 1), &dec(2, 1)).unwrap().to_sql_text(), "0.3");
        assert_eq!(
            mul(&Value::Money(15_000), &dec(20, 1))
                .unwrap()
                .to_sql_text(),
            "3.00000"
        );
    }

    #[test]
    fn float_money_string_datetime() {
        assert_eq!(
            add(&Value::Float(1.5), &Value::Int(1)).unwrap(),
            Value::Float(2.5)
        );
        assert_eq!(
            mul(&Value::Money(15_000), &Value::Int(3)).unwrap(),
            Value::Money(45_000)
        );
        assert_eq!(
            div(&Value::Money(10_000), &Value::Money(30_000)).unwrap(),
            Value::Money(3333)
        );
        assert_eq!(
            add(&Value::VarChar("ab".into()), &Value::NVarChar("c".into())).unwrap(),
            Value::NVarChar("abc".into())
        );
        assert_eq!(
            add(&Value::VarChar("ab".into()), &Value::Null).unwrap(),
            Value::Null
        );
        let d = Value::DateTime {
            days: DAY_1900 + 10,
            ticks: 0,
        };
        assert_eq!(
            add(&d, &Value::Int(1)).unwrap(),
            Value::DateTime {
                days: DAY_1900 + 11,
                ticks: 0
            }
        );
        assert_eq!(
            add(&d, &dec(5, 1)).unwrap(),
            Value::DateTime {
                days: DAY_1900 + 10,
                ticks: TICKS_PER_DAY / 2
            }
        );
        assert!(add(&Value::Date(5), &Value::Int(1)).is_err());
    }
}
