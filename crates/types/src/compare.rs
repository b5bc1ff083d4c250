//! Comparison and hashing of values, SQL Server style.
//!
//! * [`compare`]: three-valued comparison (`None` when either side is NULL) across types with
//!   implicit conversion by data type precedence (a string compared with an int is converted
//!   to int and may raise error 245), strings under a [`Collation`].
//! * [`sort_cmp`]: total order for ORDER BY / sorting (NULL first, as SQL Server sorts).
//! * [`group_eq`], [`hash_value`]: equality and hashing for GROUP BY / DISTINCT / hash joins
//!   (NULLs group together). Consistent with `compare`: values that compare equal hash equal
//!   (`'A'` and `'a '`; `1` and `1.0`; a date and the datetime at its midnight).
//!
//! Numeric comparison never allocates; ASCII string comparison never allocates.

use crate::collation::Collation;
use crate::datetime::{DAY_1900, TICKS_PER_DAY, TICKS_PER_MIN};
use crate::decimal::{self, U256};
use crate::{DataType, Value};
use common::{SqlError, SqlResult};
use std::cmp::Ordering;
use std::hash::Hasher;

#[derive(Clone, Copy)]
enum Num {
    I(i64),
    D(i128, u8),
    F(f64),
}

#[inline]
fn num_of(v: &Value) -> Option<Num> {
    Some(match v {
        Value::Bit(b) => Num::I(*b as i64),
        Value::TinyInt(x) => Num::I(*x as i64),
        Value::SmallInt(x) => Num::I(*x as i64),
        Value::Int(x) => Num::I(*x as i64),
        Value::BigInt(x) => Num::I(*x),
        Value::Decimal { mantissa, scale } => Num::D(*mantissa, *scale),
        Value::Money(m) | Value::SmallMoney(m) => Num::D(*m as i128, 4),
        Value::Float(f) => Num::F(*f),
        Value::Real(f) => Num::F(*f as f64),
        _ => return None,
    })
}

/// Compares two exact decimals (mantissa, scale).
pub fn cmp_decimal(am: i128, a_s: u8, bm: i128, b_s: u8) -> Ordering {
    if a_s == b_s {
        return am.cmp(&bm);
    }
    let (hi_s, lo_s) = (a_s.max(b_s), a_s.min(b_s));
    let k = (hi_s - lo_s) as u32;
    // scale up the one with the smaller scale
    let (x, y, flip) = if a_s < b_s {
        (am, bm, false)
    } else {
        (bm, am, true)
    };
    let ord = match decimal::POW10
        .get(k as usize)
        .and_then(|p| x.checked_mul(*p))
    {
        Some(xs) => xs.cmp(&y),
        None => {
            // |x * 10^k| exceeds i128: compare signs, then magnitudes in 256 bits.
            let (xn, yn) = (x < 0, y < 0);
            if xn != yn {
                if xn {
                    Ordering::Less
                } else {
                    Ordering::Greater
                }
            } else {
                let xm = U256::from_u128(x.unsigned_abs()).checked_mul_pow10(k);
                let ym = U256::from_u128(y.unsigned_abs());
                let mag = match xm {
                    Some(xm) => xm.cmp(&ym),
                    None => Ordering::Greater,
                };
                if xn {
                    mag.reverse()
                } else {
                    mag
                }
            }
        }
    };
    if flip {
        ord.reverse()
    } else {
        ord
    }
}

#[inline]
fn cmp_num(a: Num, b: Num) -> Ordering {
    match (a, b) {
        (Num::I(x), Num::I(y)) => x.cmp(&y),
        (Num::I(x), Num::D(m, s)) => cmp_decimal(x as i128, 0, m, s),
        (Num::D(m, s), Num::I(y)) => cmp_decimal(m, s, y as i128, 0),
        (Num::D(m1, s1), Num::D(m2, s2)) => cmp_decimal(m1, s1, m2, s2),
        (x, y) => {
            let fx = num_f64(x);
            let fy = num_f64(y);
            fx.partial_cmp(&fy).unwrap_or(Ordering::Equal)
        }
    }
}

#[inline]
fn num_f64(n: Num) -> f64 {
    match n {
        Num::I(x) => x as f64,
        Num::D(m, s) => decimal::to_f64(m, s),
        Num::F(f) => f,
    }
}

/// Instant of a date/time value in 100 ns ticks since 0001-01-01 (UTC for datetimeoffset; a
/// time value sits on 1900-01-01, as its conversion to datetime does).
#[inline]
fn instant(v: &Value) -> Option<i64> {
    Some(match v {
        Value::Date(d) => *d as i64 * TICKS_PER_DAY,
        Value::Time(t) => DAY_1900 as i64 * TICKS_PER_DAY + t,
        Value::DateTime { days, ticks }
        | Value::DateTime2 { days, ticks }
        | Value::SmallDateTime { days, ticks } => *days as i64 * TICKS_PER_DAY + ticks,
        Value::DateTimeOffset {
            days,
            ticks,
            offset_minutes,
        } => *days as i64 * TICKS_PER_DAY + ticks - *offset_minutes as i64 * TICKS_PER_MIN,
        _ => return None,
    })
}

/// SQL Server's uniqueidentifier ordering: the last six bytes are most significant, then
/// bytes 8-9, then 6-7, 4-5, 0-3 (each group from its high byte).
pub const GUID_ORDER: [usize; 16] = [10, 11, 12, 13, 14, 15, 8, 9, 7, 6, 5, 4, 3, 2, 1, 0];

fn cmp_guid(a: &[u8; 16], b: &[u8; 16]) -> Ordering {
    for i in GUID_ORDER {
        match a[i].cmp(&b[i]) {
            Ordering::Equal => {}
            o => return o,
        }
    }
    Ordering::Equal
}

/// Binary comparison pads the shorter operand with 0x00.
fn cmp_binary(a: &[u8], b: &[u8]) -> Ordering {
    let ta = trim_zeros(a);
    let tb = trim_zeros(b);
    ta.cmp(tb)
}

fn trim_zeros(b: &[u8]) -> &[u8] {
    let mut n = b.len();
    while n > 0 && b[n - 1] == 0 {
        n -= 1;
    }
    &b[..n]
}

fn clash(a: &Value, b: &Value) -> SqlError {
    SqlError::new(206, &[&a.data_type().sql_name(), &b.data_type().sql_name()])
}

/// Compares two values; `Ok(None)` when either is NULL (UNKNOWN). Mixed types are converted
/// to the type of higher precedence first (which may fail: `'abc' = 1` raises 245).
pub fn compare(a: &Value, b: &Value, coll: Collation) -> SqlResult<Option<Ordering>> {
    if a.is_null() || b.is_null() {
        return Ok(None);
    }
    if let (Some(x), Some(y)) = (num_of(a), num_of(b)) {
        return Ok(Some(cmp_num(x, y)));
    }
    if let (Some(x), Some(y)) = (a.as_str(), b.as_str()) {
        return Ok(Some(coll.compare(x, y)));
    }
    match (a, b) {
        (Value::Time(x), Value::Time(y)) => return Ok(Some(x.cmp(y))),
        (Value::Time(_), Value::Date(_)) | (Value::Date(_), Value::Time(_)) => {
            return Err(clash(a, b))
        }
        _ => {}
    }
    if let (Some(x), Some(y)) = (instant(a), instant(b)) {
        return Ok(Some(x.cmp(&y)));
    }
    if let (Some(x), Some(y)) = (a.as_bytes(), b.as_bytes()) {
        return Ok(Some(cmp_binary(x, y)));
    }
    if let (Value::UniqueIdentifier(x), Value::UniqueIdentifier(y)) = (a, b) {
        return Ok(Some(cmp_guid(x, y)));
    }
    // Mixed families: convert the lower-precedence side to the other's type.
    let (ta, tb) = (a.data_type(), b.data_type());
    if tb.precedence() > ta.precedence() {
        let ca = convert_for_compare(a, b, &tb)?;
        compare(&ca, b, coll)
    } else {
        let cb = convert_for_compare(b, a, &ta)?;
        compare(a, &cb, coll)
    }
}

fn convert_for_compare(v: &Value, other: &Value, target: &DataType) -> SqlResult<Value> {
    let allowed = match (v, target) {
        (_, t) if v.as_str().is_some() => !t.is_string(),
        (Value::Binary(_) | Value::VarBinary(_), t) => t.is_string() || t.is_numeric(),
        (_, DataType::DateTime | DataType::SmallDateTime) => num_of(v).is_some(),
        (_, t) if t.is_numeric() => num_of(v).is_some() || v.as_bytes().is_some(),
        _ => false,
    };
    if !allowed {
        return Err(clash(v, other));
    }
    let target = match (v, target) {
        // A string compared with a decimal is read exactly (no rounding to the other's scale).
        (Value::Char(_) | Value::VarChar(_) | Value::NChar(_) | Value::NVarChar(_), t)
            if t.is_decimal() =>
        {
            return crate::convert::parse_decimal_string(v);
        }
        (_, DataType::VarChar(_) | DataType::NVarChar(_)) => DataType::VarChar(None),
        (_, t) => t.clone(),
    };
    v.cast(&target)
}

/// Total order for sorting: NULL first, then [`compare`] order; values that cannot be
/// compared (never the case for one typed column) sort as equal.
pub fn sort_cmp(a: &Value, b: &Value, coll: Collation) -> Ordering {
    match (a.is_null(), b.is_null()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        _ => compare(a, b, coll)
            .ok()
            .flatten()
            .unwrap_or(Ordering::Equal),
    }
}

/// Equality for GROUP BY / DISTINCT / UNION: NULL equals NULL.
pub fn group_eq(a: &Value, b: &Value, coll: Collation) -> bool {
    sort_cmp(a, b, coll) == Ordering::Equal
}

/// Hashes a value consistently with [`compare`] under the default collation.
pub fn hash_value<H: Hasher>(v: &Value, h: &mut H) {
    hash_value_with(v, Collation::DEFAULT, h)
}

/// Hashes a value consistently with [`compare`] under `coll`: numerics hash their value (so
/// `1`, `1.0` and `1e0` collide), strings their collation weights, date/time values their
/// instant, binary values without trailing zero bytes.
pub fn hash_value_with<H: Hasher>(v: &Value, coll: Collation, h: &mut H) {
    if let Some(n) = num_of(v) {
        h.write_u8(1);
        let f = num_f64(n);
        let f = if f == 0.0 { 0.0 } else { f };
        h.write_u64(f.to_bits());
        return;
    }
    if let Some(s) = v.as_str() {
        h.write_u8(2);
        coll.hash_str(s, h);
        return;
    }
    if let Some(t) = instant(v) {
        h.write_u8(4);
        h.write_i64(t);
        return;
    }
    match v {
        Value::Null => h.write_u8(0),
        Value::Binary(b) | Value::VarBinary(b) => {
            h.write_u8(3);
            h.write(trim_zeros(b));
            h.write_u8(0xFF);
        }
        Value::UniqueIdentifier(g) => {
            h.write_u8(6);
            h.write(g);
        }
        _ => h.write_u8(7),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::hash_map::DefaultHasher;

    fn c(a: Value, b: Value) -> Option<Ordering> {
        compare(&a, &b, Collation::DEFAULT).unwrap()
    }

    fn h(v: &Value) -> u64 {
        let mut s = DefaultHasher::new();
        hash_value(v, &mut s);
        s.finish()
    }

    #[test]
    fn numbers_across_types() {
        assert_eq!(c(Value::Int(1), Value::BigInt(2)), Some(Ordering::Less));
        assert_eq!(
            c(
                Value::Int(1),
                Value::Decimal {
                    mantissa: 100,
                    scale: 2
                }
            ),
            Some(Ordering::Equal)
        );
        assert_eq!(
            c(Value::Float(1.5), Value::Money(15_000)),
            Some(Ordering::Equal)
        );
        assert_eq!(c(Value::Null, Value::Int(1)), None);
        let big = Value::Decimal {
            mantissa: decimal::POW10[38] - 1,
            scale: 0,
        };
        let small = Value::Decimal {
            mantissa: 1,
            scale: 30,
        };
        assert_eq!(c(big.clone(), small.clone()), Some(Ordering::Greater));
        assert_eq!(c(small, big), Some(Ordering::Less));
    }

    #[test]
    fn strings_and_conversions() {
        assert_eq!(
            c(
                Value::VarChar("abc".into()),
                Value::NVarChar("ABC  ".into())
            ),
            Some(Ordering::Equal)
        );
        assert_eq!(
            c(Value::VarChar("12 ".into()), Value::Int(12)),
            Some(Ordering::Equal)
        );
        let e = compare(
            &Value::VarChar("abc".into()),
            &Value::Int(1),
            Collation::DEFAULT,
        )
        .unwrap_err();
        assert_eq!(e.number, 245);
        assert_eq!(
            c(
                Value::VarChar("1.50".into()),
                Value::Decimal {
                    mantissa: 15,
                    scale: 1
                }
            ),
            Some(Ordering::Equal)
        );
        assert_eq!(
            c(
                Value::VarChar("2020-01-01".into()),
                Value::Date(crate::datetime::days_from_civil(2020, 1, 1))
            ),
            Some(Ordering::Equal)
        );
    }

    #[test]
    fn dates_and_guids() {
        let d = crate::datetime::days_from_civil(2020, 1, 1);
        assert_eq!(
            c(Value::Date(d), Value::DateTime { days: d, ticks: 0 }),
            Some(Ordering::Equal)
        );
        assert_eq!(
            c(
                Value::DateTimeOffset {
                    days: d,
                    ticks: 60 * TICKS_PER_MIN,
                    offset_minutes: 60
                },
                Value::DateTime2 { days: d, ticks: 0 }
            ),
            Some(Ordering::Equal)
        );
        let mut g1 = [0u8; 16];
        let mut g2 = [0u8; 16];
        g1[0] = 1; // least significant
        g2[15] = 1; // more significant
        assert_eq!(
            c(Value::UniqueIdentifier(g1), Value::UniqueIdentifier(g2)),
            Some(Ordering::Less)
        );
        assert!(compare(&Value::Date(d), &Value::Time(0), Collation::DEFAULT).is_err());
    }

    #[test]
    fn hash_consistency() {
        assert_eq!(
            h(&Value::VarChar("A".into())),
            h(&Value::NVarChar("a ".into()))
        );
        assert_eq!(
            h(&Value::Int(1)),
            h(&Value::Decimal {
                mantissa: 10,
                scale: 1
            })
        );
        assert_eq!(h(&Value::Int(1)), h(&Value::Float(1.0)));
        assert_eq!(h(&Value::Money(10_000)), h(&Value::BigInt(1)));
        assert_eq!(h(&Value::Float(0.0)), h(&Value::Float(-0.0)));
        assert_ne!(
            h(&Value::VarChar("a".into())),
            h(&Value::VarChar("b".into()))
        );
        assert!(group_eq(&Value::Null, &Value::Null, Collation::DEFAULT));
        assert_eq!(
            sort_cmp(&Value::Null, &Value::Int(-5), Collation::DEFAULT),
            Ordering::Less
        );
    }
}
