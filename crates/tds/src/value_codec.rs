//! Values on the wire ([MS-TDS] 2.2.5.2.3 TYPE_VARBYTE, 2.2.5.5 data type definitions): the
//! length prefix (or PLP chunks) and the payload of one value of a [`TypeInfo`].
//!
//! Writing converts a [`Value`] of another type to the announced one first (with the engine's
//! CAST) and refuses values the type cannot hold ([`TdsError::Value`]: a datetime before 1753,
//! a string longer than its announced length, a decimal beyond its precision...), so a client
//! never receives a wrapped or truncated value. Reading checks every length against the input
//! and the type, allocates only as many bytes as the input holds, and never panics.

use crate::error::{TdsError, TdsResult};
use crate::types::{
    read_u16, read_u32, read_u64, read_u8, take, type_byte as tb, Framing, TypeInfo, MAX_LOB_LEN,
    PLP_MAX_LEN,
};
use ::types::charset;
use ::types::datatype::{decimal_storage_bytes, time_bytes};
use ::types::datetime::{self, DAY_1753, DAY_1900, DAY_9999, TICKS_PER_DAY, TICKS_PER_MIN};
use ::types::decimal;
use ::types::{DataType, Value};

/// PLP total length meaning NULL.
pub const PLP_NULL: u64 = 0xFFFF_FFFF_FFFF_FFFF;
/// PLP total length meaning "not known in advance; read chunks until the terminator".
pub const PLP_UNKNOWN_LEN: u64 = 0xFFFF_FFFF_FFFF_FFFE;

fn value_err(msg: impl Into<String>) -> TdsError {
    TdsError::Value(msg.into())
}

fn malformed(msg: impl Into<String>) -> TdsError {
    TdsError::Malformed(msg.into())
}

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------

/// Appends one value of type `ti` (length prefix or PLP framing, then the payload). NULL is
/// written as the type's NULL marker; a fixed-length type has none ([`TdsError::Value`]:
/// use NBCROW or [`TypeInfo::nullable_form`]). TEXT/NTEXT/IMAGE are written in the RPC
/// parameter form (4-byte length, no text pointer).
pub fn write_value(out: &mut Vec<u8>, ti: &TypeInfo, v: &Value) -> TdsResult<()> {
    if v.is_null() {
        return write_null(out, ti);
    }
    match ti.framing() {
        Framing::Zero => Err(value_err("a non-NULL value cannot be sent as NULLTYPE")),
        Framing::Fixed(n) => {
            let start = out.len();
            encode_payload(out, ti, v)?;
            debug_assert_eq!(out.len() - start, n);
            Ok(())
        }
        Framing::ByteLen => {
            let at = out.len();
            out.push(0);
            encode_payload(out, ti, v)?;
            let len = out.len() - at - 1;
            if len > 0xFF || len == 0 {
                // (A legacy short string of 0 bytes would read back as NULL.)
                out.truncate(at);
                return Err(value_err(format!(
                    "{len} bytes do not fit type 0x{:02X}",
                    ti.ty
                )));
            }
            out[at] = len as u8;
            Ok(())
        }
        Framing::UShortLen => {
            let at = out.len();
            out.extend_from_slice(&[0, 0]);
            encode_payload(out, ti, v)?;
            let len = out.len() - at - 2;
            if len > ti.max_len.min(8000) as usize {
                out.truncate(at);
                return Err(value_err(format!(
                    "a value of {len} bytes exceeds the announced length {} of type 0x{:02X}",
                    ti.max_len, ti.ty
                )));
            }
            out[at..at + 2].copy_from_slice(&(len as u16).to_le_bytes());
            Ok(())
        }
        Framing::Plp => {
            let at = out.len();
            out.extend_from_slice(&[0; 12]);
            encode_payload(out, ti, v)?;
            let len = out.len() - at - 12;
            if len as u64 > MAX_LOB_LEN {
                out.truncate(at);
                return Err(value_err("a value over 2,147,483,647 bytes"));
            }
            out[at..at + 8].copy_from_slice(&(len as u64).to_le_bytes());
            if len == 0 {
                // No chunk: the total length 0 is followed directly by the terminator.
                out.truncate(at + 8);
            } else {
                out[at + 8..at + 12].copy_from_slice(&(len as u32).to_le_bytes());
            }
            out.extend_from_slice(&0u32.to_le_bytes());
            Ok(())
        }
        Framing::LongLen => {
            let at = out.len();
            out.extend_from_slice(&[0; 4]);
            encode_payload(out, ti, v)?;
            let len = out.len() - at - 4;
            if len as u64 > MAX_LOB_LEN {
                out.truncate(at);
                return Err(value_err("a value over 2,147,483,647 bytes"));
            }
            out[at..at + 4].copy_from_slice(&(len as u32).to_le_bytes());
            Ok(())
        }
        Framing::Variant => write_variant(out, v),
    }
}

/// Appends the NULL marker of type `ti`.
pub(crate) fn write_null(out: &mut Vec<u8>, ti: &TypeInfo) -> TdsResult<()> {
    match ti.framing() {
        Framing::Zero => {}
        Framing::Fixed(_) => {
            return Err(value_err(format!(
                "NULL cannot be sent in fixed-length type 0x{:02X}",
                ti.ty
            )))
        }
        Framing::ByteLen => out.push(0),
        Framing::UShortLen => out.extend_from_slice(&0xFFFFu16.to_le_bytes()),
        Framing::Plp => out.extend_from_slice(&PLP_NULL.to_le_bytes()),
        Framing::LongLen => out.extend_from_slice(&u32::MAX.to_le_bytes()),
        Framing::Variant => out.extend_from_slice(&0u32.to_le_bytes()),
    }
    Ok(())
}

/// Bytes a NULL of this type takes in a ROW token (`None`: it cannot be written there).
pub(crate) fn null_cost_in_row(ti: &TypeInfo) -> Option<usize> {
    match ti.framing() {
        Framing::Zero => Some(0),
        Framing::Fixed(_) => None,
        Framing::ByteLen => Some(1),
        Framing::UShortLen => Some(2),
        Framing::Plp => Some(8),
        // A zero-length text pointer.
        Framing::LongLen => Some(1),
        Framing::Variant => Some(4),
    }
}

/// Does `v` already have the representation type `dt` expects (strings and binaries of the
/// same family count as matching)?
fn matches_type(v: &Value, dt: &DataType) -> bool {
    use DataType as D;
    use Value as V;
    matches!(
        (v, dt),
        (V::Bit(_), D::Bit)
            | (V::TinyInt(_), D::TinyInt)
            | (V::SmallInt(_), D::SmallInt)
            | (V::Int(_), D::Int)
            | (V::BigInt(_), D::BigInt)
            | (V::Decimal { .. }, D::Decimal { .. } | D::Numeric { .. })
            | (V::Float(_), D::Float)
            | (V::Real(_), D::Real)
            | (V::Money(_), D::Money)
            | (V::SmallMoney(_), D::SmallMoney)
            | (V::Char(_) | V::VarChar(_), D::Char(_) | D::VarChar(_))
            | (V::NChar(_) | V::NVarChar(_), D::NChar(_) | D::NVarChar(_))
            | (
                V::Binary(_) | V::VarBinary(_),
                D::Binary(_) | D::VarBinary(_)
            )
            | (V::Date(_), D::Date)
            | (V::Time(_), D::Time(_))
            | (V::DateTime { .. }, D::DateTime)
            | (V::DateTime2 { .. }, D::DateTime2(_))
            | (V::SmallDateTime { .. }, D::SmallDateTime)
            | (V::DateTimeOffset { .. }, D::DateTimeOffset(_))
            | (V::UniqueIdentifier(_), D::UniqueIdentifier)
    )
}

/// Converts `v` to the type `dt` when its representation differs (an int for a bigint column,
/// a varchar for a datetime parameter...), with CAST's rules and errors.
fn coerce<'a>(v: &'a Value, dt: &DataType) -> TdsResult<std::borrow::Cow<'a, Value>> {
    if matches_type(v, dt) {
        return Ok(std::borrow::Cow::Borrowed(v));
    }
    let c = v
        .cast(dt)
        .map_err(|e| value_err(format!("cannot send {v:?} as {dt}: {}", e.message)))?;
    if !matches_type(&c, dt) {
        return Err(value_err(format!("cannot send {v:?} as {dt}")));
    }
    Ok(std::borrow::Cow::Owned(c))
}

fn put_le(out: &mut Vec<u8>, v: u64, n: usize) {
    out.extend_from_slice(&v.to_le_bytes()[..n]);
}

fn check_date(days: i32, what: &str) -> TdsResult<()> {
    if (0..=DAY_9999).contains(&days) {
        Ok(())
    } else {
        Err(value_err(format!(
            "{what} day {days} out of range 0001-01-01..9999-12-31"
        )))
    }
}

fn check_ticks(ticks: i64, what: &str) -> TdsResult<()> {
    if (0..TICKS_PER_DAY).contains(&ticks) {
        Ok(())
    } else {
        Err(value_err(format!(
            "{what} time of day {ticks} out of range"
        )))
    }
}

/// Time-of-day ticks in units of the scale, rounded half up as SQL Server rounds; returns the
/// units and a day carry (1 when the value rounds up to midnight).
fn time_units(ticks: i64, scale: u8) -> (u64, i32) {
    let unit = 10i64.pow(7 - scale.min(7) as u32);
    let units = (ticks + unit / 2) / unit;
    let per_day = TICKS_PER_DAY / unit;
    if units >= per_day {
        ((units - per_day) as u64, 1)
    } else {
        (units as u64, 0)
    }
}

/// Writes date and time in TDS's layout for time(n)/datetime2(n)/datetimeoffset(n): the time
/// in 10^-n s units (3–5 bytes by scale), then (unless `time_only`) 3 bytes of days.
fn put_time_date(
    out: &mut Vec<u8>,
    days: i32,
    ticks: i64,
    scale: u8,
    time_only: bool,
) -> TdsResult<()> {
    check_ticks(ticks, "time")?;
    let (units, carry) = time_units(ticks, scale);
    put_le(out, units, time_bytes(scale) as usize);
    if !time_only {
        let days = days + carry;
        check_date(days, "date")?;
        put_le(out, days as u64, 3);
    }
    Ok(())
}

fn put_utf16(out: &mut Vec<u8>, s: &str) {
    for u in s.encode_utf16() {
        out.extend_from_slice(&u.to_le_bytes());
    }
}

/// Writes the payload (no length) of a non-NULL value.
fn encode_payload(out: &mut Vec<u8>, ti: &TypeInfo, v: &Value) -> TdsResult<()> {
    let dt = ti.to_data_type()?;
    let v = coerce(v, &dt)?;
    let fixed_len = ti.max_len as usize;
    match (&dt, v.as_ref()) {
        (DataType::Bit, Value::Bit(b)) => out.push(*b as u8),
        (DataType::TinyInt, Value::TinyInt(x)) => out.push(*x),
        (DataType::SmallInt, Value::SmallInt(x)) => out.extend_from_slice(&x.to_le_bytes()),
        (DataType::Int, Value::Int(x)) => out.extend_from_slice(&x.to_le_bytes()),
        (DataType::BigInt, Value::BigInt(x)) => out.extend_from_slice(&x.to_le_bytes()),
        (DataType::Real, Value::Real(f)) => {
            if !f.is_finite() {
                return Err(value_err("real value is not finite"));
            }
            out.extend_from_slice(&f.to_le_bytes())
        }
        (DataType::Float, Value::Float(f)) => {
            if !f.is_finite() {
                return Err(value_err("float value is not finite"));
            }
            out.extend_from_slice(&f.to_le_bytes())
        }
        (DataType::Money, Value::Money(m)) => {
            // High 32 bits first, then the low 32 bits ([MS-TDS] 2.2.5.5.1.4).
            out.extend_from_slice(&((*m >> 32) as i32).to_le_bytes());
            out.extend_from_slice(&(*m as u32).to_le_bytes());
        }
        (DataType::SmallMoney, Value::SmallMoney(m)) => {
            let m = i32::try_from(*m)
                .map_err(|_| value_err(format!("smallmoney value {m} out of range")))?;
            out.extend_from_slice(&m.to_le_bytes());
        }
        (
            DataType::Decimal { precision, scale } | DataType::Numeric { precision, scale },
            Value::Decimal {
                mantissa,
                scale: vs,
            },
        ) => {
            let m = decimal::rescale(*mantissa, *vs, *scale)
                .filter(|m| decimal::fits(*m, *precision))
                .ok_or_else(|| {
                    value_err(format!(
                        "{} does not fit decimal({precision},{scale})",
                        decimal::to_string(*mantissa, *vs)
                    ))
                })?;
            let w = decimal_storage_bytes(*precision) as usize;
            out.push(if m < 0 { 0 } else { 1 });
            out.extend_from_slice(&m.unsigned_abs().to_le_bytes()[..w - 1]);
        }
        (DataType::DateTime, Value::DateTime { days, ticks }) => {
            check_ticks(*ticks, "datetime")?;
            let mut units = datetime::ticks_to_datetime_units(*ticks);
            let mut days = *days;
            if units >= 300 * 86_400 {
                units -= 300 * 86_400;
                days += 1;
            }
            if !(DAY_1753..=DAY_9999).contains(&days) {
                return Err(value_err(
                    "datetime value outside 1753-01-01..9999-12-31".to_string(),
                ));
            }
            out.extend_from_slice(&(days - DAY_1900).to_le_bytes());
            out.extend_from_slice(&(units as u32).to_le_bytes());
        }
        (DataType::SmallDateTime, Value::SmallDateTime { days, ticks }) => {
            check_ticks(*ticks, "smalldatetime")?;
            // SQL Server rounds seconds >= 29.999 up to the next minute.
            let mut minutes = (ticks + 30 * datetime::TICKS_PER_SEC - 10_000) / TICKS_PER_MIN;
            let mut days = *days;
            if minutes >= 1440 {
                minutes -= 1440;
                days += 1;
            }
            let d = u16::try_from(days - DAY_1900)
                .map_err(|_| value_err("smalldatetime value outside 1900-01-01..2079-06-06"))?;
            out.extend_from_slice(&d.to_le_bytes());
            out.extend_from_slice(&(minutes as u16).to_le_bytes());
        }
        (DataType::Date, Value::Date(d)) => {
            check_date(*d, "date")?;
            put_le(out, *d as u64, 3);
        }
        (DataType::Time(s), Value::Time(t)) => put_time_date(out, 0, *t, *s, true)?,
        (DataType::DateTime2(s), Value::DateTime2 { days, ticks }) => {
            put_time_date(out, *days, *ticks, *s, false)?
        }
        (
            DataType::DateTimeOffset(s),
            Value::DateTimeOffset {
                days,
                ticks,
                offset_minutes,
            },
        ) => {
            // On the wire the date and time are UTC; the value holds local time.
            if !(-840..=840).contains(offset_minutes) {
                return Err(value_err(format!(
                    "datetimeoffset offset {offset_minutes} minutes out of range"
                )));
            }
            check_ticks(*ticks, "datetimeoffset")?;
            let local = *days as i64 * TICKS_PER_DAY + ticks;
            let utc = local - *offset_minutes as i64 * TICKS_PER_MIN;
            let (ud, ut) = (utc.div_euclid(TICKS_PER_DAY), utc.rem_euclid(TICKS_PER_DAY));
            let ud = i32::try_from(ud).map_err(|_| value_err("datetimeoffset out of range"))?;
            put_time_date(out, ud, ut, *s, false)?;
            out.extend_from_slice(&offset_minutes.to_le_bytes());
        }
        (DataType::UniqueIdentifier, Value::UniqueIdentifier(g)) => out.extend_from_slice(g),
        (DataType::Char(_) | DataType::VarChar(_), Value::Char(s) | Value::VarChar(s)) => {
            let start = out.len();
            if ti.is_utf8() {
                out.extend_from_slice(s.as_bytes());
            } else {
                charset::encode_cp1252(s, out);
            }
            if matches!(ti.ty, tb::BIGCHAR | tb::CHAR) {
                pad_to(out, start, fixed_len, &[b' '])?;
            }
        }
        (DataType::NChar(_) | DataType::NVarChar(_), Value::NChar(s) | Value::NVarChar(s)) => {
            let start = out.len();
            put_utf16(out, s);
            if ti.ty == tb::NCHAR {
                pad_to(out, start, fixed_len, &[b' ', 0])?;
            }
        }
        (DataType::Binary(_) | DataType::VarBinary(_), Value::Binary(b) | Value::VarBinary(b)) => {
            let start = out.len();
            out.extend_from_slice(b);
            if matches!(ti.ty, tb::BIGBINARY | tb::BINARY) {
                pad_to(out, start, fixed_len, &[0])?;
            }
        }
        (dt, v) => {
            return Err(value_err(format!("cannot send {v:?} as {dt}")));
        }
    }
    Ok(())
}

/// Pads a fixed-length string/binary written from `start` to `len` bytes (refusing a longer
/// one, which the announced type cannot hold).
fn pad_to(out: &mut Vec<u8>, start: usize, len: usize, pad: &[u8]) -> TdsResult<()> {
    let have = out.len() - start;
    if have > len {
        return Err(value_err(format!(
            "a value of {have} bytes exceeds the fixed length {len}"
        )));
    }
    let missing = (len - have) / pad.len();
    for _ in 0..missing {
        out.extend_from_slice(pad);
    }
    Ok(())
}

/// The TYPE_INFO a value takes inside a sql_variant (base type, its properties), or
/// `Unsupported` for values a variant cannot hold.
fn variant_base(v: &Value) -> TdsResult<TypeInfo> {
    let dt = v.data_type();
    let ti = match &dt {
        DataType::VarChar(None) | DataType::NVarChar(None) | DataType::VarBinary(None) => {
            return Err(value_err(
                "a value over 8000 bytes cannot be held in sql_variant",
            ))
        }
        _ => TypeInfo::for_column(&dt, false),
    };
    Ok(ti)
}

fn write_variant(out: &mut Vec<u8>, v: &Value) -> TdsResult<()> {
    let base = variant_base(v)?;
    let mut props = Vec::new();
    match base.ty {
        tb::DECIMALN | tb::NUMERICN => props.extend_from_slice(&[base.precision, base.scale]),
        tb::TIMEN | tb::DATETIME2N | tb::DATETIMEOFFSETN => props.push(base.scale),
        tb::BIGVARCHAR | tb::BIGCHAR | tb::NVARCHAR | tb::NCHAR => {
            props.extend_from_slice(&base.collation.unwrap_or(crate::types::DEFAULT_COLLATION));
            props.extend_from_slice(&(base.max_len as u16).to_le_bytes());
        }
        tb::BIGVARBINARY | tb::BIGBINARY => {
            props.extend_from_slice(&(base.max_len as u16).to_le_bytes())
        }
        _ => {}
    }
    let mut data = Vec::new();
    encode_payload(&mut data, &base, v)?;
    let total = 2 + props.len() + data.len();
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.push(base.ty);
    out.push(props.len() as u8);
    out.extend_from_slice(&props);
    out.extend_from_slice(&data);
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

/// Reads one value of type `ti` (RPC parameter or RETURNVALUE form; TEXT/NTEXT/IMAGE without a
/// text pointer). Errors, never panics, on any bytes.
pub fn read_value(input: &mut &[u8], ti: &TypeInfo) -> TdsResult<Value> {
    read_framed(input, ti, false)
}

/// Reads one value as it stands in a ROW/NBCROW token (TEXT/NTEXT/IMAGE carry a text pointer
/// and timestamp there).
pub(crate) fn read_value_in_row(input: &mut &[u8], ti: &TypeInfo) -> TdsResult<Value> {
    read_framed(input, ti, true)
}

fn read_framed(input: &mut &[u8], ti: &TypeInfo, in_row: bool) -> TdsResult<Value> {
    match ti.framing() {
        Framing::Zero => Ok(Value::Null),
        Framing::Fixed(n) => decode_payload(take(input, n, "fixed-length value")?, ti),
        Framing::ByteLen => {
            let n = read_u8(input, "value length")? as usize;
            if n == 0 {
                return Ok(Value::Null);
            }
            decode_payload(take(input, n, "value")?, ti)
        }
        Framing::UShortLen => {
            let n = read_u16(input, "value length")?;
            if n == 0xFFFF {
                return Ok(Value::Null);
            }
            decode_payload(take(input, n as usize, "value")?, ti)
        }
        Framing::Plp => match read_plp(input)? {
            None => Ok(Value::Null),
            Some(bytes) => decode_payload(&bytes, ti),
        },
        Framing::LongLen => {
            if in_row {
                let ptr_len = read_u8(input, "text pointer length")? as usize;
                if ptr_len == 0 {
                    return Ok(Value::Null);
                }
                take(input, ptr_len, "text pointer")?;
                take(input, 8, "text timestamp")?;
            }
            let n = read_u32(input, "value length")?;
            if n == u32::MAX {
                return Ok(Value::Null);
            }
            if n as u64 > MAX_LOB_LEN {
                return Err(malformed(format!("LONGLEN value of {n} bytes")));
            }
            decode_payload(take(input, n as usize, "value")?, ti)
        }
        Framing::Variant => read_variant(input),
    }
}

/// Reads a PLP value: `None` for PLP_NULL, else the concatenated chunks. The known total
/// length (when given) must equal the chunks' sum; nothing is allocated beyond the bytes
/// actually present.
pub fn read_plp(input: &mut &[u8]) -> TdsResult<Option<Vec<u8>>> {
    let total = read_u64(input, "PLP length")?;
    if total == PLP_NULL {
        return Ok(None);
    }
    if total != PLP_UNKNOWN_LEN && total > MAX_LOB_LEN {
        return Err(malformed(format!("PLP total length {total}")));
    }
    let mut data: Vec<u8> = Vec::new();
    loop {
        let n = read_u32(input, "PLP chunk length")? as usize;
        if n == 0 {
            break;
        }
        let chunk = take(input, n, "PLP chunk")?;
        if (data.len() + n) as u64 > MAX_LOB_LEN {
            return Err(malformed("PLP value over 2,147,483,647 bytes"));
        }
        data.extend_from_slice(chunk);
    }
    if total != PLP_UNKNOWN_LEN && total != data.len() as u64 {
        return Err(malformed(format!(
            "PLP total length {total} but chunks hold {} bytes",
            data.len()
        )));
    }
    Ok(Some(data))
}

fn le(b: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    let n = b.len().min(8);
    a[..n].copy_from_slice(&b[..n]);
    u64::from_le_bytes(a)
}

fn utf16(b: &[u8], what: &str) -> TdsResult<String> {
    if b.len() % 2 != 0 {
        return Err(malformed(format!("{what}: odd number of UTF-16 bytes")));
    }
    let units = b.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]]));
    char::decode_utf16(units)
        .collect::<Result<String, _>>()
        .map_err(|_| value_err(format!("{what}: unpaired UTF-16 surrogate")))
}

/// Time-of-day ticks from `b` (3–5 bytes of 10^-scale units).
fn get_time(b: &[u8], scale: u8) -> TdsResult<i64> {
    let units = le(b) as i64;
    let ticks = units
        .checked_mul(10i64.pow(7 - scale.min(7) as u32))
        .ok_or_else(|| value_err("time out of range"))?;
    if ticks >= TICKS_PER_DAY {
        return Err(value_err(format!(
            "time of day {units} (scale {scale}) out of range"
        )));
    }
    Ok(ticks)
}

fn get_date(b: &[u8]) -> TdsResult<i32> {
    let d = le(b) as i32;
    check_date(d, "date")?;
    Ok(d)
}

/// Decodes a payload whose length the framing already gave.
fn decode_payload(b: &[u8], ti: &TypeInfo) -> TdsResult<Value> {
    let dt = ti.to_data_type()?;
    let want = |n: usize| -> TdsResult<()> {
        if b.len() == n {
            Ok(())
        } else {
            Err(malformed(format!(
                "value of {} bytes for type {dt} (0x{:02X}), expected {n}",
                b.len(),
                ti.ty
            )))
        }
    };
    Ok(match &dt {
        DataType::Null => Value::Null,
        DataType::Bit => {
            want(1)?;
            Value::Bit(b[0] != 0)
        }
        DataType::TinyInt => {
            want(1)?;
            Value::TinyInt(b[0])
        }
        DataType::SmallInt => {
            want(2)?;
            Value::SmallInt(le(b) as u16 as i16)
        }
        DataType::Int => {
            want(4)?;
            Value::Int(le(b) as u32 as i32)
        }
        DataType::BigInt => {
            want(8)?;
            Value::BigInt(le(b) as i64)
        }
        DataType::Real => {
            want(4)?;
            let f = f32::from_bits(le(b) as u32);
            if !f.is_finite() {
                return Err(value_err("real value is not finite"));
            }
            Value::Real(f)
        }
        DataType::Float => {
            want(8)?;
            let f = f64::from_bits(le(b));
            if !f.is_finite() {
                return Err(value_err("float value is not finite"));
            }
            Value::Float(f)
        }
        DataType::Money => {
            want(8)?;
            let hi = i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as i64;
            let lo = u32::from_le_bytes([b[4], b[5], b[6], b[7]]) as i64;
            Value::Money((hi << 32) | lo)
        }
        DataType::SmallMoney => {
            want(4)?;
            Value::SmallMoney(le(b) as u32 as i32 as i64)
        }
        DataType::Decimal { precision, scale } | DataType::Numeric { precision, scale } => {
            if !(2..=17).contains(&b.len()) {
                return Err(malformed(format!("decimal value of {} bytes", b.len())));
            }
            let mut a = [0u8; 16];
            a[..b.len() - 1].copy_from_slice(&b[1..]);
            let mag = u128::from_le_bytes(a);
            if mag >= decimal::pow10((*precision).min(38) as u32) as u128 {
                return Err(value_err(format!(
                    "decimal magnitude exceeds precision {precision}"
                )));
            }
            let m = mag as i128;
            let mantissa = match b[0] {
                1 => m,
                0 => -m,
                s => return Err(malformed(format!("decimal sign byte {s}"))),
            };
            Value::Decimal {
                mantissa,
                scale: *scale,
            }
        }
        DataType::DateTime => {
            want(8)?;
            let d = i32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            let units = u32::from_le_bytes([b[4], b[5], b[6], b[7]]) as i64;
            if units >= 300 * 86_400 {
                return Err(value_err(format!(
                    "datetime time part {units} out of range"
                )));
            }
            let days = d
                .checked_add(DAY_1900)
                .filter(|d| (DAY_1753..=DAY_9999).contains(d))
                .ok_or_else(|| value_err(format!("datetime day {d} out of range")))?;
            Value::DateTime {
                days,
                ticks: datetime::datetime_units_to_ticks(units),
            }
        }
        DataType::SmallDateTime => {
            want(4)?;
            let d = u16::from_le_bytes([b[0], b[1]]) as i32;
            let minutes = u16::from_le_bytes([b[2], b[3]]) as i64;
            if minutes >= 1440 {
                return Err(value_err(format!(
                    "smalldatetime minutes {minutes} out of range"
                )));
            }
            Value::SmallDateTime {
                days: DAY_1900 + d,
                ticks: minutes * TICKS_PER_MIN,
            }
        }
        DataType::Date => {
            want(3)?;
            Value::Date(get_date(b)?)
        }
        DataType::Time(s) => {
            want(time_bytes(*s) as usize)?;
            Value::Time(get_time(b, *s)?)
        }
        DataType::DateTime2(s) => {
            let tbytes = time_bytes(*s) as usize;
            want(tbytes + 3)?;
            Value::DateTime2 {
                ticks: get_time(&b[..tbytes], *s)?,
                days: get_date(&b[tbytes..])?,
            }
        }
        DataType::DateTimeOffset(s) => {
            let tbytes = time_bytes(*s) as usize;
            want(tbytes + 5)?;
            let ut = get_time(&b[..tbytes], *s)?;
            let ud = get_date(&b[tbytes..tbytes + 3])?;
            let offset = i16::from_le_bytes([b[tbytes + 3], b[tbytes + 4]]);
            if !(-840..=840).contains(&offset) {
                return Err(value_err(format!(
                    "datetimeoffset offset {offset} out of range"
                )));
            }
            let local = ud as i64 * TICKS_PER_DAY + ut + offset as i64 * TICKS_PER_MIN;
            let days = local.div_euclid(TICKS_PER_DAY) as i32;
            check_date(days, "datetimeoffset local date")?;
            Value::DateTimeOffset {
                days,
                ticks: local.rem_euclid(TICKS_PER_DAY),
                offset_minutes: offset,
            }
        }
        DataType::UniqueIdentifier => {
            want(16)?;
            let mut g = [0u8; 16];
            g.copy_from_slice(b);
            Value::UniqueIdentifier(g)
        }
        DataType::Char(_) | DataType::VarChar(_) => {
            let s = if ti.is_utf8() {
                String::from_utf8(b.to_vec())
                    .map_err(|_| value_err("varchar value is not valid UTF-8"))?
            } else {
                charset::decode_cp1252(b)
            };
            if matches!(dt, DataType::Char(_)) {
                Value::Char(s)
            } else {
                Value::VarChar(s)
            }
        }
        DataType::NChar(_) | DataType::NVarChar(_) => {
            let mut b = b;
            if ti.ty == tb::XML && b.starts_with(&[0xFF, 0xFE]) {
                // XML may arrive with a UTF-16LE byte-order mark.
                b = &b[2..];
            }
            let s = utf16(b, "nvarchar value")?;
            if matches!(dt, DataType::NChar(_)) {
                Value::NChar(s)
            } else {
                Value::NVarChar(s)
            }
        }
        DataType::Binary(_) => Value::Binary(b.to_vec()),
        DataType::VarBinary(_) => Value::VarBinary(b.to_vec()),
    })
}

/// Reads a sql_variant value: 4-byte total length (0 = NULL), base type, property byte count,
/// properties, data ([MS-TDS] 2.2.5.5.4).
fn read_variant(input: &mut &[u8]) -> TdsResult<Value> {
    let total = read_u32(input, "sql_variant length")? as usize;
    if total == 0 {
        return Ok(Value::Null);
    }
    let mut body = take(input, total, "sql_variant value")?;
    let base = read_u8(&mut body, "sql_variant base type")?;
    let nprops = read_u8(&mut body, "sql_variant property count")? as usize;
    let mut props = take(&mut body, nprops, "sql_variant properties")?;
    let data = body;
    let mut ti = TypeInfo {
        ty: base,
        max_len: 0,
        precision: 0,
        scale: 0,
        collation: None,
    };
    let expect_props = |n: usize| -> TdsResult<()> {
        if nprops == n {
            Ok(())
        } else {
            Err(malformed(format!(
                "sql_variant base type 0x{base:02X} with {nprops} property bytes"
            )))
        }
    };
    match base {
        tb::INT1
        | tb::BIT
        | tb::INT2
        | tb::INT4
        | tb::INT8
        | tb::FLT4
        | tb::FLT8
        | tb::MONEY
        | tb::MONEY4
        | tb::DATETIME
        | tb::DATETIM4
        | tb::GUID
        | tb::DATEN => {
            expect_props(0)?;
            ti.max_len = data.len() as u32;
        }
        tb::DECIMALN | tb::NUMERICN => {
            expect_props(2)?;
            ti.precision = props[0];
            ti.scale = props[1];
            if !(1..=38).contains(&ti.precision) || ti.scale > ti.precision {
                return Err(malformed("sql_variant decimal precision/scale"));
            }
            ti.max_len = 17;
        }
        tb::TIMEN | tb::DATETIME2N | tb::DATETIMEOFFSETN => {
            expect_props(1)?;
            ti.scale = props[0];
            if ti.scale > 7 {
                return Err(malformed("sql_variant time scale"));
            }
        }
        tb::BIGVARCHAR | tb::BIGCHAR | tb::NVARCHAR | tb::NCHAR => {
            expect_props(7)?;
            let mut c = [0u8; 5];
            c.copy_from_slice(take(&mut props, 5, "sql_variant collation")?);
            ti.collation = Some(c);
            ti.max_len = read_u16(&mut props, "sql_variant max length")? as u32;
            if ti.max_len == PLP_MAX_LEN || (data.len() as u32) > ti.max_len {
                return Err(malformed("sql_variant string length"));
            }
        }
        tb::BIGVARBINARY | tb::BIGBINARY => {
            expect_props(2)?;
            ti.max_len = read_u16(&mut props, "sql_variant max length")? as u32;
            if ti.max_len == PLP_MAX_LEN || (data.len() as u32) > ti.max_len {
                return Err(malformed("sql_variant binary length"));
            }
        }
        _ => {
            return Err(TdsError::Unsupported(format!(
                "sql_variant base type 0x{base:02X}"
            )))
        }
    }
    decode_payload(data, &ti)
}
