//! Row value codec: the bytes of one column value inside a stored row (formats in README.md,
//! "Row value codec"). Fixed-width types always use exactly [`fixed_width`] bytes; variable
//! types (`varchar`, `nvarchar`, `varbinary`, their `max` forms) use as many bytes as the value
//! needs — the row format around them records the length. NULL is not encoded here (the row's
//! null bitmap carries it).
//!
//! `decode_value` validates everything and returns an error for garbage, never panics.

use crate::charset;
use crate::datatype::{decimal_storage_bytes, time_bytes};
use crate::datetime::{self, DAY_1900, TICKS_PER_DAY, TICKS_PER_MIN};
use crate::decimal;
use crate::{DataType, Value};
use common::{SqlError, SqlResult};

/// Bytes a value of this type takes in a row when the type is fixed-width; `None` for variable.
#[inline]
pub fn fixed_width(ty: &DataType) -> Option<u16> {
    Some(match ty {
        DataType::Bit | DataType::TinyInt => 1,
        DataType::SmallInt => 2,
        DataType::Int | DataType::Real | DataType::SmallMoney | DataType::SmallDateTime => 4,
        DataType::BigInt | DataType::Float | DataType::Money | DataType::DateTime => 8,
        DataType::Decimal { precision, .. } | DataType::Numeric { precision, .. } => {
            decimal_storage_bytes(*precision) as u16
        }
        DataType::Char(n) | DataType::Binary(n) => u16::try_from(*n).ok()?,
        DataType::NChar(n) => u16::try_from(*n * 2).ok()?,
        DataType::Date => 3,
        DataType::Time(s) => time_bytes(*s) as u16,
        DataType::DateTime2(s) => time_bytes(*s) as u16 + 3,
        DataType::DateTimeOffset(s) => time_bytes(*s) as u16 + 5,
        DataType::UniqueIdentifier => 16,
        DataType::Null => 0,
        DataType::VarChar(_) | DataType::NVarChar(_) | DataType::VarBinary(_) => return None,
    })
}

fn mismatch(v: &Value, ty: &DataType) -> SqlError {
    SqlError::internal(format!(
        "value {:?} does not match column type {} in row encoding",
        v, ty
    ))
}

fn corrupt(ty: &DataType, why: &str) -> SqlError {
    SqlError::internal(format!("corrupt stored value for type {ty}: {why}"))
}

fn put_le(out: &mut Vec<u8>, v: u64, n: usize) {
    out.extend_from_slice(&v.to_le_bytes()[..n]);
}

#[inline]
fn get_le(b: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    a[..b.len()].copy_from_slice(b);
    u64::from_le_bytes(a)
}

/// Appends the stored form of `v` (which must already have type `ty`, e.g. after
/// [`Value::cast_for_assignment`]). NULL is an error here: nulls live in the row's bitmap.
pub fn encode_value(v: &Value, ty: &DataType, out: &mut Vec<u8>) -> SqlResult<()> {
    match (ty, v) {
        (DataType::Bit, Value::Bit(b)) => out.push(*b as u8),
        (DataType::TinyInt, Value::TinyInt(x)) => out.push(*x),
        (DataType::SmallInt, Value::SmallInt(x)) => out.extend_from_slice(&x.to_le_bytes()),
        (DataType::Int, Value::Int(x)) => out.extend_from_slice(&x.to_le_bytes()),
        (DataType::BigInt, Value::BigInt(x)) => out.extend_from_slice(&x.to_le_bytes()),
        (
            DataType::Decimal { precision, scale } | DataType::Numeric { precision, scale },
            Value::Decimal {
                mantissa,
                scale: vs,
            },
        ) => {
            let m = decimal::rescale(*mantissa, *vs, *scale)
                .filter(|m| decimal::fits(*m, *precision))
                .ok_or_else(|| crate::convert::numeric_overflow("numeric", ty))?;
            let w = decimal_storage_bytes(*precision) as usize;
            out.push(if m < 0 { 0 } else { 1 });
            out.extend_from_slice(&m.unsigned_abs().to_le_bytes()[..w - 1]);
        }
        (DataType::Float, Value::Float(f)) => out.extend_from_slice(&f.to_le_bytes()),
        (DataType::Real, Value::Real(f)) => out.extend_from_slice(&f.to_le_bytes()),
        (DataType::Money, Value::Money(m)) => out.extend_from_slice(&m.to_le_bytes()),
        (DataType::SmallMoney, Value::SmallMoney(m)) => {
            let m = i32::try_from(*m).map_err(|_| mismatch(v, ty))?;
            out.extend_from_slice(&m.to_le_bytes())
        }
        (DataType::Char(n), Value::Char(s) | Value::VarChar(s)) => {
            let start = out.len();
            charset::encode_cp1252(s, out);
            let n = *n as usize;
            if out.len() - start > n {
                // only trailing blanks may be cut
                if out[start + n..].iter().any(|b| *b != b' ') {
                    out.truncate(start);
                    return Err(SqlError::new(8152, &[]));
                }
                out.truncate(start + n);
            }
            out.resize(start + n, b' ');
        }
        (DataType::VarChar(_), Value::VarChar(s) | Value::Char(s)) => {
            charset::encode_cp1252(s, out)
        }
        (DataType::NChar(n), Value::NChar(s) | Value::NVarChar(s)) => {
            let start = out.len();
            for u in s.encode_utf16() {
                out.extend_from_slice(&u.to_le_bytes());
            }
            let n = *n as usize * 2;
            if out.len() - start > n {
                if out[start + n..]
                    .chunks(2)
                    .any(|c| c != [b' ', 0].as_slice())
                {
                    out.truncate(start);
                    return Err(SqlError::new(8152, &[]));
                }
                out.truncate(start + n);
            }
            while out.len() - start < n {
                out.extend_from_slice(&[b' ', 0]);
            }
        }
        (DataType::NVarChar(_), Value::NVarChar(s) | Value::NChar(s)) => {
            for u in s.encode_utf16() {
                out.extend_from_slice(&u.to_le_bytes());
            }
        }
        (DataType::Binary(n), Value::Binary(b) | Value::VarBinary(b)) => {
            let n = *n as usize;
            if b.len() > n {
                return Err(SqlError::new(8152, &[]));
            }
            out.extend_from_slice(b);
            out.resize(out.len() + (n - b.len()), 0);
        }
        (DataType::VarBinary(_), Value::VarBinary(b) | Value::Binary(b)) => {
            out.extend_from_slice(b)
        }
        (DataType::Date, Value::Date(d)) => {
            check_days(*d, ty)?;
            put_le(out, *d as u64, 3);
        }
        (DataType::Time(s), Value::Time(t)) => put_time(*t, *s, ty, out)?,
        (DataType::DateTime, Value::DateTime { days, ticks }) => {
            check_ticks(*ticks, ty)?;
            let d = days - DAY_1900;
            let units = datetime::ticks_to_datetime_units(*ticks);
            out.extend_from_slice(&d.to_le_bytes());
            out.extend_from_slice(&(units as u32).to_le_bytes());
        }
        (DataType::SmallDateTime, Value::SmallDateTime { days, ticks }) => {
            check_ticks(*ticks, ty)?;
            let d = u16::try_from(days - DAY_1900).map_err(|_| mismatch(v, ty))?;
            out.extend_from_slice(&d.to_le_bytes());
            out.extend_from_slice(&((ticks / TICKS_PER_MIN) as u16).to_le_bytes());
        }
        (DataType::DateTime2(s), Value::DateTime2 { days, ticks }) => {
            put_time(*ticks, *s, ty, out)?;
            check_days(*days, ty)?;
            put_le(out, *days as u64, 3);
        }
        (
            DataType::DateTimeOffset(s),
            Value::DateTimeOffset {
                days,
                ticks,
                offset_minutes,
            },
        ) => {
            put_time(*ticks, *s, ty, out)?;
            check_days(*days, ty)?;
            put_le(out, *days as u64, 3);
            out.extend_from_slice(&offset_minutes.to_le_bytes());
        }
        (DataType::UniqueIdentifier, Value::UniqueIdentifier(g)) => out.extend_from_slice(g),
        (DataType::Null, Value::Null) => {}
        _ => {
            // A value of another type (e.g. an int for a bigint column): convert first.
            if v.is_null() {
                return Err(mismatch(v, ty));
            }
            let c = v.cast_for_assignment(ty)?;
            if std::mem::discriminant(&c) == std::mem::discriminant(v) {
                return Err(mismatch(v, ty));
            }
            return encode_value(&c, ty, out);
        }
    }
    Ok(())
}

fn check_days(d: i32, ty: &DataType) -> SqlResult<()> {
    if (0..=datetime::DAY_9999).contains(&d) {
        Ok(())
    } else {
        Err(corrupt(ty, "day out of range"))
    }
}

fn check_ticks(t: i64, ty: &DataType) -> SqlResult<()> {
    if (0..TICKS_PER_DAY).contains(&t) {
        Ok(())
    } else {
        Err(corrupt(ty, "time out of range"))
    }
}

fn put_time(ticks: i64, scale: u8, ty: &DataType, out: &mut Vec<u8>) -> SqlResult<()> {
    check_ticks(ticks, ty)?;
    let s = scale.min(7);
    let units = ticks / 10i64.pow(7 - s as u32);
    put_le(out, units as u64, time_bytes(s) as usize);
    Ok(())
}

fn get_time(b: &[u8], scale: u8, ty: &DataType) -> SqlResult<i64> {
    let s = scale.min(7);
    let ticks = get_le(b) as i64 * 10i64.pow(7 - s as u32);
    check_ticks(ticks, ty)?;
    Ok(ticks)
}

/// Decodes a stored value of type `ty`. Errors (never panics) on malformed bytes.
pub fn decode_value(b: &[u8], ty: &DataType) -> SqlResult<Value> {
    if let Some(w) = fixed_width(ty) {
        if b.len() != w as usize {
            return Err(corrupt(
                ty,
                &format!("expected {w} bytes, found {}", b.len()),
            ));
        }
    }
    Ok(match ty {
        DataType::Bit => Value::Bit(decode_int(b, ty)? != 0),
        DataType::TinyInt => Value::TinyInt(b[0]),
        DataType::SmallInt => Value::SmallInt(decode_int(b, ty)? as i16),
        DataType::Int => Value::Int(decode_int(b, ty)? as i32),
        DataType::BigInt => Value::BigInt(decode_int(b, ty)?),
        DataType::Decimal { scale, .. } | DataType::Numeric { scale, .. } => Value::Decimal {
            mantissa: decode_scaled(b, ty)?,
            scale: *scale,
        },
        DataType::Float => Value::Float(decode_float(b, ty)?),
        DataType::Real => Value::Real(f32::from_bits(get_le(b) as u32)),
        DataType::Money => Value::Money(decode_scaled(b, ty)? as i64),
        DataType::SmallMoney => Value::SmallMoney(decode_scaled(b, ty)? as i64),
        DataType::Char(_) => Value::Char(charset::decode_cp1252(b)),
        DataType::VarChar(_) => Value::VarChar(charset::decode_cp1252(b)),
        DataType::NChar(_) | DataType::NVarChar(_) => {
            let mut s = String::new();
            decode_text_into(b, ty, &mut s)?;
            if matches!(ty, DataType::NChar(_)) {
                Value::NChar(s)
            } else {
                Value::NVarChar(s)
            }
        }
        DataType::Binary(_) => Value::Binary(b.to_vec()),
        DataType::VarBinary(_) => Value::VarBinary(b.to_vec()),
        DataType::Date => Value::Date(decode_date(b, ty)?),
        DataType::Time(s) => Value::Time(get_time(b, *s, ty)?),
        DataType::DateTime => {
            let d = i32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            let units = u32::from_le_bytes([b[4], b[5], b[6], b[7]]) as i64;
            let ticks = datetime::datetime_units_to_ticks(units);
            check_ticks(ticks, ty)?;
            let days = d
                .checked_add(DAY_1900)
                .ok_or_else(|| corrupt(ty, "day out of range"))?;
            check_days(days, ty)?;
            Value::DateTime { days, ticks }
        }
        DataType::SmallDateTime => {
            let d = u16::from_le_bytes([b[0], b[1]]) as i32;
            let mins = u16::from_le_bytes([b[2], b[3]]) as i64;
            let ticks = mins * TICKS_PER_MIN;
            check_ticks(ticks, ty)?;
            Value::SmallDateTime {
                days: d + DAY_1900,
                ticks,
            }
        }
        DataType::DateTime2(s) => {
            let tb = time_bytes(*s) as usize;
            let ticks = get_time(&b[..tb], *s, ty)?;
            let days = get_le(&b[tb..]) as i32;
            check_days(days, ty)?;
            Value::DateTime2 { days, ticks }
        }
        DataType::DateTimeOffset(s) => {
            let tb = time_bytes(*s) as usize;
            let ticks = get_time(&b[..tb], *s, ty)?;
            let days = get_le(&b[tb..tb + 3]) as i32;
            check_days(days, ty)?;
            let off = i16::from_le_bytes([b[tb + 3], b[tb + 4]]);
            if !(-840..=840).contains(&off) {
                return Err(corrupt(ty, "offset out of range"));
            }
            Value::DateTimeOffset {
                days,
                ticks,
                offset_minutes: off,
            }
        }
        DataType::UniqueIdentifier => {
            let mut g = [0u8; 16];
            g.copy_from_slice(b);
            Value::UniqueIdentifier(g)
        }
        DataType::Null => Value::Null,
    })
}

// Columnar decoders: one value of a family of types straight to its machine form, without a
// `Value` (the batch scan fills column vectors with them; `decode_value` is built on them, so
// the stored formats are known in one place). Each validates as `decode_value` does.

#[inline]
fn check_width(b: &[u8], ty: &DataType) -> SqlResult<()> {
    match fixed_width(ty) {
        Some(w) if b.len() != w as usize => Err(corrupt(
            ty,
            &format!("expected {w} bytes, found {}", b.len()),
        )),
        _ => Ok(()),
    }
}

/// A stored bit, tinyint, smallint, int or bigint as an i64.
#[inline]
pub fn decode_int(b: &[u8], ty: &DataType) -> SqlResult<i64> {
    check_width(b, ty)?;
    Ok(match ty {
        DataType::Bit => match b[0] {
            0 => 0,
            1 => 1,
            _ => return Err(corrupt(ty, "bit byte not 0/1")),
        },
        DataType::TinyInt => i64::from(b[0]),
        DataType::SmallInt => i64::from(get_le(b) as u16 as i16),
        DataType::Int => i64::from(i32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        DataType::BigInt => get_le(b) as i64,
        _ => return Err(corrupt(ty, "not an integer type")),
    })
}

/// A stored decimal or numeric as its mantissa (scale of the type), money or smallmoney in
/// ten-thousandths.
#[inline]
pub fn decode_scaled(b: &[u8], ty: &DataType) -> SqlResult<i128> {
    check_width(b, ty)?;
    Ok(match ty {
        DataType::Decimal { precision, .. } | DataType::Numeric { precision, .. } => {
            let mut a = [0u8; 16];
            a[..b.len() - 1].copy_from_slice(&b[1..]);
            let mag = u128::from_le_bytes(a);
            if mag >= decimal::POW10[(*precision).min(38) as usize] as u128 {
                return Err(corrupt(ty, "decimal exceeds precision"));
            }
            let m = mag as i128;
            match b[0] {
                1 => m,
                0 => -m,
                _ => return Err(corrupt(ty, "bad decimal sign byte")),
            }
        }
        DataType::Money => i128::from(get_le(b) as i64),
        DataType::SmallMoney => i128::from(get_le(b) as u32 as i32),
        _ => return Err(corrupt(ty, "not a decimal or money type")),
    })
}

/// A stored float or real as an f64.
#[inline]
pub fn decode_float(b: &[u8], ty: &DataType) -> SqlResult<f64> {
    check_width(b, ty)?;
    Ok(match ty {
        DataType::Float => f64::from_bits(get_le(b)),
        DataType::Real => f64::from(f32::from_bits(get_le(b) as u32)),
        _ => return Err(corrupt(ty, "not a float type")),
    })
}

/// A stored date as its day number.
#[inline]
pub fn decode_date(b: &[u8], ty: &DataType) -> SqlResult<i32> {
    check_width(b, ty)?;
    if !matches!(ty, DataType::Date) {
        return Err(corrupt(ty, "not a date"));
    }
    let d = get_le(b) as i32;
    check_days(d, ty)?;
    Ok(d)
}

/// Appends a stored char, varchar, nchar or nvarchar value to `out` as UTF-8 (code page 1252
/// or UTF-16 decoded; char's padding kept, as `decode_value` keeps it).
#[inline]
pub fn decode_text_into(b: &[u8], ty: &DataType, out: &mut String) -> SqlResult<()> {
    check_width(b, ty)?;
    match ty {
        DataType::Char(_) | DataType::VarChar(_) => match std::str::from_utf8(b) {
            Ok(s) if b.is_ascii() => out.push_str(s),
            _ => out.extend(b.iter().map(|&c| charset::decode_byte(c))),
        },
        DataType::NChar(_) | DataType::NVarChar(_) => {
            if !b.len().is_multiple_of(2) {
                return Err(corrupt(ty, "odd UTF-16 byte count"));
            }
            let units = b.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]]));
            for c in char::decode_utf16(units) {
                out.push(c.map_err(|_| corrupt(ty, "invalid UTF-16"))?);
            }
        }
        _ => return Err(corrupt(ty, "not a string type")),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rt(v: Value, ty: DataType) {
        let mut out = Vec::new();
        encode_value(&v, &ty, &mut out).unwrap();
        if let Some(w) = fixed_width(&ty) {
            assert_eq!(out.len(), w as usize, "{ty}");
        }
        assert_eq!(decode_value(&out, &ty).unwrap(), v, "{ty}");
    }

    fn stored(v: &Value, ty: &DataType) -> Vec<u8> {
        let mut out = Vec::new();
        encode_value(v, ty, &mut out).unwrap();
        out
    }

    #[test]
    fn columnar_decoders_read_what_decode_value_reads() {
        for (v, ty) in [
            (Value::Bit(true), DataType::Bit),
            (Value::TinyInt(255), DataType::TinyInt),
            (Value::SmallInt(i16::MIN), DataType::SmallInt),
            (Value::Int(i32::MIN), DataType::Int),
            (Value::BigInt(i64::MAX), DataType::BigInt),
        ] {
            let b = stored(&v, &ty);
            assert_eq!(decode_int(&b, &ty).unwrap(), v.as_i64().unwrap(), "{ty}");
        }
        for (v, ty) in [
            (
                Value::Decimal {
                    mantissa: -(decimal::POW10[38] - 1),
                    scale: 4,
                },
                DataType::decimal(38, 4),
            ),
            (
                Value::Decimal {
                    mantissa: -1,
                    scale: 2,
                },
                DataType::decimal(5, 2),
            ),
            (Value::Money(i64::MIN), DataType::Money),
            (Value::SmallMoney(-2_147_483_648), DataType::SmallMoney),
        ] {
            let b = stored(&v, &ty);
            assert_eq!(
                decode_scaled(&b, &ty).unwrap(),
                v.as_decimal().unwrap().0,
                "{ty}"
            );
        }
        let b = stored(&Value::Real(-1.5), &DataType::Real);
        assert_eq!(decode_float(&b, &DataType::Real).unwrap(), -1.5);
        let b = stored(&Value::Date(datetime::DAY_9999), &DataType::Date);
        assert_eq!(
            decode_date(&b, &DataType::Date).unwrap(),
            datetime::DAY_9999
        );
        for (v, ty) in [
            (Value::Char("é€ ".into()), DataType::Char(3)),
            (Value::VarChar("abc".into()), DataType::VarChar(Some(10))),
            (
                Value::NVarChar("x\u{1F600}ü".into()),
                DataType::NVarChar(Some(10)),
            ),
            (Value::NChar("ab  ".into()), DataType::NChar(4)),
        ] {
            let b = stored(&v, &ty);
            let mut s = String::from("keep:");
            decode_text_into(&b, &ty, &mut s).unwrap();
            assert_eq!(s, format!("keep:{}", v.as_str().unwrap()), "{ty}");
        }
    }

    #[test]
    fn columnar_decoders_reject_garbage() {
        assert!(decode_int(&[0, 0], &DataType::Int).is_err());
        assert!(decode_int(&[2], &DataType::Bit).is_err());
        assert!(decode_int(&[0; 4], &DataType::Date).is_err());
        let ty = DataType::decimal(5, 2);
        assert!(decode_scaled(&[7, 1, 0, 0, 0], &ty).is_err(), "sign byte");
        assert!(
            decode_scaled(&[1, 0xa0, 0x86, 1, 0], &ty).is_err(),
            "100000 > 5 digits"
        );
        assert!(decode_date(&[0xff, 0xff, 0xff], &DataType::Date).is_err());
        let mut s = String::new();
        assert!(decode_text_into(&[0x41], &DataType::NVarChar(None), &mut s).is_err());
        assert!(decode_text_into(&[0x00, 0xd8], &DataType::NVarChar(None), &mut s).is_err());
    }

    #[test]
    fn round_trips() {
        rt(Value::Int(-5), DataType::Int);
        rt(Value::BigInt(i64::MIN), DataType::BigInt);
        rt(Value::SmallInt(-2), DataType::SmallInt);
        rt(Value::Bit(true), DataType::Bit);
        rt(
            Value::Decimal {
                mantissa: -12345,
                scale: 2,
            },
            DataType::decimal(9, 2),
        );
        rt(
            Value::Decimal {
                mantissa: decimal::POW10[38] - 1,
                scale: 0,
            },
            DataType::decimal(38, 0),
        );
        rt(Value::Float(1.5), DataType::Float);
        rt(Value::Money(-12_3400), DataType::Money);
        rt(Value::SmallMoney(-12_3400), DataType::SmallMoney);
        rt(Value::Char("ab  ".into()), DataType::Char(4));
        rt(Value::VarChar("héllo€".into()), DataType::VarChar(Some(10)));
        rt(Value::NVarChar("日本😀".into()), DataType::NVarChar(None));
        rt(Value::NChar("ab ".into()), DataType::NChar(3));
        rt(Value::Binary(vec![1, 0, 0]), DataType::Binary(3));
        rt(Value::Date(738_000), DataType::Date);
        rt(Value::Time(123_456_789), DataType::Time(7));
        rt(
            Value::DateTime {
                days: DAY_1900 + 5,
                ticks: datetime::datetime_units_to_ticks(12345),
            },
            DataType::DateTime,
        );
        rt(
            Value::DateTime {
                days: datetime::DAY_1753,
                ticks: 0,
            },
            DataType::DateTime,
        );
        rt(
            Value::SmallDateTime {
                days: DAY_1900 + 5,
                ticks: 61 * TICKS_PER_MIN,
            },
            DataType::SmallDateTime,
        );
        rt(
            Value::DateTime2 {
                days: 5,
                ticks: 1_000_000,
            },
            DataType::DateTime2(3),
        );
        rt(
            Value::DateTimeOffset {
                days: 5,
                ticks: 1_000_000,
                offset_minutes: -300,
            },
            DataType::DateTimeOffset(7),
        );
        rt(Value::UniqueIdentifier([7; 16]), DataType::UniqueIdentifier);
    }

    #[test]
    fn other_value_types_are_converted() {
        let mut out = Vec::new();
        encode_value(&Value::Int(7), &DataType::BigInt, &mut out).unwrap();
        assert_eq!(
            decode_value(&out, &DataType::BigInt).unwrap(),
            Value::BigInt(7)
        );
        out.clear();
        encode_value(&Value::VarChar("12".into()), &DataType::Int, &mut out).unwrap();
        assert_eq!(decode_value(&out, &DataType::Int).unwrap(), Value::Int(12));
        out.clear();
        assert!(encode_value(&Value::Null, &DataType::Int, &mut out).is_err());
        assert_eq!(
            encode_value(&Value::VarChar("abcd".into()), &DataType::Char(2), &mut out)
                .unwrap_err()
                .number,
            8152
        );
    }

    #[test]
    fn garbage_is_an_error() {
        assert!(decode_value(&[1, 2], &DataType::Int).is_err());
        assert!(decode_value(&[2], &DataType::Bit).is_err());
        assert!(decode_value(&[0xFF; 5], &DataType::decimal(9, 0)).is_err());
        assert!(decode_value(&[0x00, 0xD8], &DataType::NVarChar(None)).is_err());
        assert!(decode_value(&[0xFF; 8], &DataType::DateTime).is_err());
        assert!(decode_value(&[0xFF; 8], &DataType::DateTime2(7)).is_err());
        for ty in [
            DataType::Int,
            DataType::decimal(38, 5),
            DataType::DateTimeOffset(3),
            DataType::Time(2),
            DataType::SmallDateTime,
            DataType::NChar(2),
        ] {
            for len in 0..20 {
                for fill in [0u8, 0x7F, 0xFF] {
                    let _ = decode_value(&vec![fill; len], &ty);
                }
            }
        }
    }
}
