//! Memcmp-comparable key encoding for index keys (format in README.md, "Key encoding").
//!
//! `memcmp(encode(a), encode(b))` orders like [`crate::compare::sort_cmp`] column by column:
//! NULL first (ascending), strings by their collation sort key (so `'A'` and `'a '` encode
//! identically under the default collation), numerics by value, date/time by instant.
//! Descending columns have all bytes of their segment inverted. Every column segment is
//! self-delimiting (fixed width or terminated), so keys of a prefix of the columns are byte
//! prefixes of full keys, and [`successor`] gives the exclusive upper bound of a prefix range.

use crate::collation::Collation;
use crate::compare::GUID_ORDER;
use crate::datetime::{TICKS_PER_DAY, TICKS_PER_MIN};
use crate::decimal;
use crate::{DataType, Value};
use common::{SqlError, SqlResult};

/// Marker byte of a NULL column value.
pub const NULL_MARKER: u8 = 0x00;
/// Marker byte preceding a non-NULL column value.
pub const VALUE_MARKER: u8 = 0x01;

/// Encodes a key under the default collation. `values`, `types` and `descending` are parallel;
/// `descending` may be shorter (missing entries mean ascending).
pub fn encode_key(
    values: &[Value],
    types: &[DataType],
    descending: &[bool],
    out: &mut Vec<u8>,
) -> SqlResult<()> {
    encode_key_with(values, types, descending, &[], out)
}

/// Encodes a key with per-column collations (`collations` may be shorter: default collation).
pub fn encode_key_with(
    values: &[Value],
    types: &[DataType],
    descending: &[bool],
    collations: &[Collation],
    out: &mut Vec<u8>,
) -> SqlResult<()> {
    if types.len() < values.len() {
        return Err(SqlError::internal("encode_key: fewer types than values"));
    }
    for (i, v) in values.iter().enumerate() {
        let start = out.len();
        let coll = collations.get(i).copied().unwrap_or_default();
        encode_column(v, &types[i], coll, out)?;
        if descending.get(i).copied().unwrap_or(false) {
            for b in &mut out[start..] {
                *b = !*b;
            }
        }
    }
    Ok(())
}

/// Encodes one column value (ascending) and appends it.
pub fn encode_column(
    v: &Value,
    ty: &DataType,
    coll: Collation,
    out: &mut Vec<u8>,
) -> SqlResult<()> {
    if v.is_null() {
        out.push(NULL_MARKER);
        return Ok(());
    }
    out.push(VALUE_MARKER);
    // Bring the value to the column's type family first when it differs.
    let converted;
    let v = if value_matches(v, ty) {
        v
    } else {
        converted = v.cast(ty)?;
        &converted
    };
    match ty {
        DataType::Bit | DataType::TinyInt => {
            let x = v.as_i64().unwrap_or(0);
            out.push(x as u8);
        }
        DataType::SmallInt => {
            let x = v.as_i64().unwrap_or(0) as i16;
            out.extend_from_slice(&((x as u16) ^ 0x8000).to_be_bytes());
        }
        DataType::Int => {
            let x = v.as_i64().unwrap_or(0) as i32;
            out.extend_from_slice(&((x as u32) ^ 0x8000_0000).to_be_bytes());
        }
        DataType::BigInt => put_i64(v.as_i64().unwrap_or(0), out),
        DataType::Decimal { scale, .. } | DataType::Numeric { scale, .. } => {
            let (m, s) = v.as_decimal().unwrap_or((0, 0));
            let m = decimal::rescale(m, s, *scale)
                .ok_or_else(|| crate::convert::numeric_overflow("numeric", ty))?;
            out.extend_from_slice(&((m as u128) ^ (1u128 << 127)).to_be_bytes());
        }
        DataType::Money | DataType::SmallMoney => {
            let (m, s) = v.as_decimal().unwrap_or((0, 0));
            let m = decimal::rescale(m, s, 4).unwrap_or(0);
            put_i64(m as i64, out);
        }
        DataType::Float | DataType::Real => {
            let f = v.as_f64().unwrap_or(0.0);
            let f = if f == 0.0 { 0.0 } else { f };
            let bits = f.to_bits();
            let k = if bits >> 63 == 1 {
                !bits
            } else {
                bits ^ (1 << 63)
            };
            out.extend_from_slice(&k.to_be_bytes());
        }
        DataType::Char(_) | DataType::VarChar(_) | DataType::NChar(_) | DataType::NVarChar(_) => {
            let mut raw = Vec::with_capacity(16);
            coll.sort_key(v.as_str().unwrap_or_default(), &mut raw);
            put_escaped(&raw, out);
        }
        DataType::Binary(_) | DataType::VarBinary(_) => {
            let b = v.as_bytes().unwrap_or_default();
            let mut n = b.len();
            while n > 0 && b[n - 1] == 0 {
                n -= 1;
            }
            put_escaped(&b[..n], out);
        }
        DataType::Date
        | DataType::Time(_)
        | DataType::DateTime
        | DataType::DateTime2(_)
        | DataType::SmallDateTime
        | DataType::DateTimeOffset(_) => {
            let t = match v {
                Value::Date(d) => *d as i64 * TICKS_PER_DAY,
                Value::Time(t) => *t,
                Value::DateTime { days, ticks }
                | Value::DateTime2 { days, ticks }
                | Value::SmallDateTime { days, ticks } => *days as i64 * TICKS_PER_DAY + ticks,
                Value::DateTimeOffset {
                    days,
                    ticks,
                    offset_minutes,
                } => *days as i64 * TICKS_PER_DAY + ticks - *offset_minutes as i64 * TICKS_PER_MIN,
                _ => 0,
            };
            put_i64(t, out);
        }
        DataType::UniqueIdentifier => {
            if let Value::UniqueIdentifier(g) = v {
                for i in GUID_ORDER {
                    out.push(g[i]);
                }
            }
        }
        DataType::Null => {}
    }
    Ok(())
}

fn value_matches(v: &Value, ty: &DataType) -> bool {
    match ty {
        DataType::Bit
        | DataType::TinyInt
        | DataType::SmallInt
        | DataType::Int
        | DataType::BigInt => {
            let (lo, hi) = match ty {
                DataType::Bit => (0, 1),
                DataType::TinyInt => (0, 255),
                DataType::SmallInt => (i16::MIN as i64, i16::MAX as i64),
                DataType::Int => (i32::MIN as i64, i32::MAX as i64),
                _ => (i64::MIN, i64::MAX),
            };
            v.as_i64().is_some_and(|x| x >= lo && x <= hi)
        }
        DataType::Decimal { .. } | DataType::Numeric { .. } => {
            matches!(v, Value::Decimal { .. }) || v.as_i64().is_some()
        }
        DataType::Money | DataType::SmallMoney => {
            matches!(v, Value::Money(_) | Value::SmallMoney(_))
        }
        DataType::Float | DataType::Real => matches!(v, Value::Float(_) | Value::Real(_)),
        t if t.is_string() => v.as_str().is_some(),
        t if t.is_binary() => v.as_bytes().is_some(),
        DataType::Time(_) => matches!(v, Value::Time(_)),
        t if t.is_datetime() => matches!(
            v,
            Value::Date(_)
                | Value::DateTime { .. }
                | Value::DateTime2 { .. }
                | Value::SmallDateTime { .. }
                | Value::DateTimeOffset { .. }
        ),
        DataType::UniqueIdentifier => matches!(v, Value::UniqueIdentifier(_)),
        _ => false,
    }
}

fn put_i64(x: i64, out: &mut Vec<u8>) {
    out.extend_from_slice(&((x as u64) ^ (1 << 63)).to_be_bytes());
}

/// Appends bytes with 0x00 escaped as 0x00 0xFF and the terminator 0x00 0x01.
fn put_escaped(b: &[u8], out: &mut Vec<u8>) {
    for &x in b {
        out.push(x);
        if x == 0 {
            out.push(0xFF);
        }
    }
    out.push(0x00);
    out.push(0x01);
}

/// The smallest byte string greater than every string that starts with `prefix` (the
/// exclusive upper bound of a prefix scan); `None` when there is none (all 0xFF or empty).
pub fn successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut v = prefix.to_vec();
    while let Some(&last) = v.last() {
        if last == 0xFF {
            v.pop();
        } else {
            let n = v.len();
            v[n - 1] = last + 1;
            return Some(v);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::sort_cmp;
    use proptest::prelude::*;
    use std::cmp::Ordering;

    fn key(v: &Value, t: &DataType, desc: bool) -> Vec<u8> {
        let mut out = Vec::new();
        encode_key(
            std::slice::from_ref(v),
            std::slice::from_ref(t),
            &[desc],
            &mut out,
        )
        .unwrap();
        out
    }

    #[test]
    fn basics() {
        let t = DataType::VarChar(Some(10));
        assert_eq!(
            key(&Value::VarChar("A".into()), &t, false),
            key(&Value::VarChar("a ".into()), &t, false)
        );
        assert!(
            key(&Value::Null, &DataType::Int, false)
                < key(&Value::Int(i32::MIN), &DataType::Int, false)
        );
        assert!(
            key(&Value::Null, &DataType::Int, true)
                > key(&Value::Int(i32::MIN), &DataType::Int, true)
        );
        assert!(
            key(&Value::Int(-1), &DataType::Int, false)
                < key(&Value::Int(1), &DataType::Int, false)
        );
        assert!(
            key(&Value::Int(-1), &DataType::Int, true) > key(&Value::Int(1), &DataType::Int, true)
        );
        assert_eq!(successor(&[1, 2, 0xFF]), Some(vec![1, 3]));
        assert_eq!(successor(&[0xFF]), None);
        // prefix property for composite keys
        let mut full = Vec::new();
        encode_key(
            &[Value::VarChar("ab".into()), Value::Int(5)],
            &[t.clone(), DataType::Int],
            &[],
            &mut full,
        )
        .unwrap();
        let prefix = key(&Value::VarChar("ab".into()), &t, false);
        assert!(full.starts_with(&prefix));
        assert!(full < successor(&prefix).unwrap());
    }

    fn arb_string() -> impl Strategy<Value = String> {
        proptest::string::string_regex("[ a-cA-C_éÉ\u{0}1\u{3a9}]{0,6}").unwrap()
    }

    fn check_pair(a: &Value, b: &Value, t: &DataType, desc: bool) -> Result<(), TestCaseError> {
        let ka = key(a, t, desc);
        let kb = key(b, t, desc);
        let mut expect = sort_cmp(a, b, Collation::DEFAULT);
        if desc {
            expect = expect.reverse();
        }
        prop_assert_eq!(ka.cmp(&kb), expect, "{:?} vs {:?} as {}", a, b, t);
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn int_order(a in proptest::option::of(any::<i32>()), b in proptest::option::of(any::<i32>()), desc in any::<bool>()) {
            let f = |x: Option<i32>| x.map(Value::Int).unwrap_or(Value::Null);
            check_pair(&f(a), &f(b), &DataType::Int, desc)?;
        }

        #[test]
        fn bigint_order(a in any::<i64>(), b in any::<i64>()) {
            check_pair(&Value::BigInt(a), &Value::BigInt(b), &DataType::BigInt, false)?;
        }

        #[test]
        fn decimal_order(a in -10i128.pow(20)..10i128.pow(20), b in -10i128.pow(20)..10i128.pow(20), sa in 0u8..6, sb in 0u8..6) {
            let t = DataType::decimal(38, 6);
            check_pair(&Value::Decimal { mantissa: a, scale: sa }, &Value::Decimal { mantissa: b, scale: sb }, &t, false)?;
        }

        #[test]
        fn float_order(a in any::<f64>().prop_filter("finite", |f| f.is_finite()), b in any::<f64>().prop_filter("finite", |f| f.is_finite())) {
            check_pair(&Value::Float(a), &Value::Float(b), &DataType::Float, false)?;
        }

        #[test]
        fn string_order(a in arb_string(), b in arb_string(), desc in any::<bool>()) {
            let t = DataType::NVarChar(None);
            check_pair(&Value::NVarChar(a), &Value::NVarChar(b), &t, desc)?;
        }

        #[test]
        fn binary_order(a in proptest::collection::vec(0u8..3, 0..5), b in proptest::collection::vec(0u8..3, 0..5)) {
            check_pair(&Value::VarBinary(a), &Value::VarBinary(b), &DataType::VarBinary(None), false)?;
        }

        #[test]
        fn datetime_order(d1 in 0i32..3_000_000, t1 in 0i64..TICKS_PER_DAY, d2 in 0i32..3_000_000, t2 in 0i64..TICKS_PER_DAY, o1 in -840i16..840, o2 in -840i16..840) {
            let a = Value::DateTimeOffset { days: d1, ticks: t1, offset_minutes: o1 };
            let b = Value::DateTimeOffset { days: d2, ticks: t2, offset_minutes: o2 };
            check_pair(&a, &b, &DataType::DateTimeOffset(7), false)?;
            let a = Value::DateTime2 { days: d1, ticks: t1 };
            let b = Value::DateTime2 { days: d2, ticks: t2 };
            check_pair(&a, &b, &DataType::DateTime2(7), true)?;
        }

        #[test]
        fn guid_order(a in any::<[u8; 16]>(), b in any::<[u8; 16]>()) {
            check_pair(&Value::UniqueIdentifier(a), &Value::UniqueIdentifier(b), &DataType::UniqueIdentifier, false)?;
        }

        #[test]
        fn composite_order(a1 in arb_string(), a2 in any::<i16>(), b1 in arb_string(), b2 in any::<i16>()) {
            let types = [DataType::VarChar(Some(10)), DataType::SmallInt];
            let (va, vb) = ([Value::VarChar(a1), Value::SmallInt(a2)], [Value::VarChar(b1), Value::SmallInt(b2)]);
            let (mut ka, mut kb) = (Vec::new(), Vec::new());
            encode_key(&va, &types, &[false, true], &mut ka).unwrap();
            encode_key(&vb, &types, &[false, true], &mut kb).unwrap();
            let expect = sort_cmp(&va[0], &vb[0], Collation::DEFAULT)
                .then(sort_cmp(&va[1], &vb[1], Collation::DEFAULT).reverse());
            prop_assert_eq!(ka.cmp(&kb), expect);
        }

        #[test]
        fn hash_consistent_with_compare(a in arb_string(), b in arb_string()) {
            use std::hash::Hasher;
            let (va, vb) = (Value::VarChar(a), Value::NVarChar(b));
            if sort_cmp(&va, &vb, Collation::DEFAULT) == Ordering::Equal {
                let mut h1 = std::collections::hash_map::DefaultHasher::new();
                let mut h2 = std::collections::hash_map::DefaultHasher::new();
                crate::compare::hash_value(&va, &mut h1);
                crate::compare::hash_value(&vb, &mut h2);
                prop_assert_eq!(h1.finish(), h2.finish());
            }
        }

        #[test]
        fn numeric_hash_consistent(a in -1000i64..1000, s in 0u8..4) {
            use std::hash::Hasher;
            let d = Value::Decimal { mantissa: a as i128 * 10i128.pow(s as u32), scale: s };
            let i = Value::BigInt(a);
            let mut h1 = std::collections::hash_map::DefaultHasher::new();
            let mut h2 = std::collections::hash_map::DefaultHasher::new();
            crate::compare::hash_value(&d, &mut h1);
            crate::compare::hash_value(&i, &mut h2);
            prop_assert_eq!(h1.finish(), h2.finish());
        }

        #[test]
        fn codec_round_trip_decimal(m in -10i128.pow(18)+1..10i128.pow(18), p in 18u8..=38) {
            let t = DataType::decimal(p, 4);
            let v = Value::Decimal { mantissa: m, scale: 4 };
            let mut out = Vec::new();
            crate::codec::encode_value(&v, &t, &mut out).unwrap();
            prop_assert_eq!(crate::codec::decode_value(&out, &t).unwrap(), v);
        }

        #[test]
        fn codec_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..24)) {
            for t in [DataType::Int, DataType::decimal(20, 3), DataType::NVarChar(None), DataType::DateTime,
                      DataType::DateTimeOffset(7), DataType::Time(3), DataType::Bit, DataType::SmallDateTime,
                      DataType::DateTime2(0), DataType::VarChar(None)] {
                let _ = crate::codec::decode_value(&bytes, &t);
            }
        }
    }
}
