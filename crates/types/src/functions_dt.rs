//! Date/time constructors and offset functions (a child of `functions`): SWITCHOFFSET,
//! TODATETIMEOFFSET, SMALLDATETIMEFROMPARTS, DATETIME2FROMPARTS, DATETIMEOFFSETFROMPARTS,
//! TIMEFROMPARTS, DATETRUNC, DATE_BUCKET and FORMATMESSAGE (string template form).
//!
//! Result types whose precision comes from a *literal* argument (DATETIME2FROMPARTS,
//! DATETIMEOFFSETFROMPARTS, TIMEFROMPARTS) are announced with precision 7 here, since
//! [`super::function_result_type`] only sees argument types; the values are exact anyway.

use super::{arg_type_err, check_count, datepart_arg, int_arg, null_in, DatePart};
use crate::datetime::{
    civil_from_days, days_from_civil, make_date, DAY_1900, TICKS_PER_DAY, TICKS_PER_HOUR,
    TICKS_PER_MIN, TICKS_PER_SEC,
};
use crate::{DataType, Value};
use common::{SqlError, SqlResult};

/// Days of 9999-12-31 + 1 (first day out of range).
const DAYS_END: i32 = days_from_civil(9999, 12, 31) + 1;

/// Fractional-second digits a value of type `t` carries (strings parse as precision 7).
fn frac_of(t: &DataType) -> u8 {
    match t {
        DataType::DateTime2(n) | DataType::DateTimeOffset(n) | DataType::Time(n) => *n,
        DataType::DateTime => 3,
        DataType::SmallDateTime | DataType::Date => 0,
        _ => 7,
    }
}

fn is_temporal_or_string(t: &DataType) -> bool {
    t.is_datetime() || matches!(t, DataType::Time(_)) || t.is_string() || *t == DataType::Null
}

pub(super) fn result_type(up: &str, args: &[DataType]) -> Option<SqlResult<DataType>> {
    let n = args.len();
    let a = |i: usize| args.get(i).cloned().unwrap_or(DataType::Null);
    let r = (|| -> SqlResult<DataType> {
        Ok(match up {
            "SWITCHOFFSET" | "TODATETIMEOFFSET" => {
                check_count(up, n, 2, 2)?;
                let t = a(0);
                if !is_temporal_or_string(&t) {
                    return Err(arg_type_err(&t, 1, up));
                }
                if up == "TODATETIMEOFFSET" && matches!(t, DataType::Date) {
                    DataType::DateTimeOffset(7)
                } else {
                    DataType::DateTimeOffset(frac_of(&t))
                }
            }
            "SMALLDATETIMEFROMPARTS" => {
                check_count(up, n, 5, 5)?;
                DataType::SmallDateTime
            }
            "DATETIME2FROMPARTS" => {
                check_count(up, n, 8, 8)?;
                DataType::DateTime2(7)
            }
            "DATETIMEOFFSETFROMPARTS" => {
                check_count(up, n, 10, 10)?;
                DataType::DateTimeOffset(7)
            }
            "TIMEFROMPARTS" => {
                check_count(up, n, 5, 5)?;
                DataType::Time(7)
            }
            "DATETRUNC" => {
                check_count(up, n, 2, 2)?;
                let t = a(1);
                if !is_temporal_or_string(&t) {
                    return Err(arg_type_err(&t, 2, up));
                }
                if t.is_string() || t == DataType::Null {
                    DataType::DateTime2(7)
                } else {
                    t
                }
            }
            "DATE_BUCKET" => {
                check_count(up, n, 3, 4)?;
                let t = a(2);
                if !is_temporal_or_string(&t) {
                    return Err(arg_type_err(&t, 3, up));
                }
                if t.is_string() || t == DataType::Null {
                    DataType::DateTime2(7)
                } else {
                    t
                }
            }
            "FORMATMESSAGE" => {
                if n == 0 {
                    return Err(SqlError::new(174, &[&"formatmessage", &1]));
                }
                DataType::NVarChar(Some(2047))
            }
            _ => return Err(SqlError::new(195, &[&up, &"built-in function name"])),
        })
    })();
    match r {
        Err(e) if e.number == 195 => None,
        r => Some(r),
    }
}

pub(super) fn call(up: &str, args: &[Value]) -> Option<SqlResult<Value>> {
    let r = match up {
        "SWITCHOFFSET" => switchoffset(args),
        "TODATETIMEOFFSET" => todatetimeoffset(args),
        "SMALLDATETIMEFROMPARTS" => smalldatetimefromparts(args),
        "DATETIME2FROMPARTS" => datetime2fromparts(args),
        "DATETIMEOFFSETFROMPARTS" => datetimeoffsetfromparts(args),
        "TIMEFROMPARTS" => timefromparts(args),
        "DATETRUNC" => datetrunc(args),
        "DATE_BUCKET" => date_bucket(args),
        "FORMATMESSAGE" => formatmessage(args),
        _ => return None,
    };
    Some(r)
}

// ------------------------------------------------------------------ offsets

fn tz_err(func: &str) -> SqlError {
    SqlError::new(9812, &[&func.to_ascii_lowercase()])
}

/// A time zone argument: `'+hh:mm'` / `'-hh:mm'` or an integer number of minutes; both
/// within ±14:00 (error 9812 otherwise). `None` for NULL.
fn tz_arg(v: &Value, func: &str) -> SqlResult<Option<i16>> {
    let mins: i64 = match v {
        Value::Null => return Ok(None),
        Value::Char(s) | Value::VarChar(s) | Value::NChar(s) | Value::NVarChar(s) => {
            let b = s.trim().as_bytes();
            let ok = b.len() == 6
                && matches!(b[0], b'+' | b'-')
                && b[1].is_ascii_digit()
                && b[2].is_ascii_digit()
                && b[3] == b':'
                && b[4].is_ascii_digit()
                && b[5].is_ascii_digit();
            if !ok {
                return Err(tz_err(func));
            }
            let h = ((b[1] - b'0') * 10 + (b[2] - b'0')) as i64;
            let m = ((b[4] - b'0') * 10 + (b[5] - b'0')) as i64;
            if h > 14 || m > 59 {
                return Err(tz_err(func));
            }
            let t = h * 60 + m;
            if b[0] == b'-' {
                -t
            } else {
                t
            }
        }
        Value::Binary(_) | Value::VarBinary(_) => match v.cast(&DataType::Int)? {
            Value::Int(i) => i as i64,
            _ => return Err(tz_err(func)),
        },
        v => int_arg(v)?,
    };
    if !(-840..=840).contains(&mins) {
        return Err(tz_err(func));
    }
    Ok(Some(mins as i16))
}

/// (days, ticks, offset) of a value converted to datetimeoffset (offset +00:00 for types
/// without one; strings parsed as datetimeoffset(7)).
fn as_dto(v: &Value, func: &str, pos: usize) -> SqlResult<(i32, i64, i16)> {
    let c = match v {
        Value::DateTimeOffset { .. } => v.clone(),
        Value::Date(_)
        | Value::DateTime { .. }
        | Value::SmallDateTime { .. }
        | Value::DateTime2 { .. }
        | Value::Time(_)
        | Value::Char(_)
        | Value::VarChar(_)
        | Value::NChar(_)
        | Value::NVarChar(_) => v.cast(&DataType::DateTimeOffset(7))?,
        _ => return Err(arg_type_err(&v.data_type(), pos, func)),
    };
    match c {
        Value::DateTimeOffset {
            days,
            ticks,
            offset_minutes,
        } => Ok((days, ticks, offset_minutes)),
        _ => Err(SqlError::internal("datetimeoffset conversion")),
    }
}

fn dto_from_local(local: i64, off: i16) -> SqlResult<Value> {
    let days = local.div_euclid(TICKS_PER_DAY);
    if local < 0 || days >= DAYS_END as i64 {
        return Err(SqlError::new(517, &[&"datetimeoffset"]));
    }
    Ok(Value::DateTimeOffset {
        days: days as i32,
        ticks: local.rem_euclid(TICKS_PER_DAY),
        offset_minutes: off,
    })
}

fn switchoffset(args: &[Value]) -> SqlResult<Value> {
    check_count("SWITCHOFFSET", args.len(), 2, 2)?;
    if args[0].is_null() {
        return Ok(Value::Null);
    }
    // the date is converted before the time zone is checked
    let (days, ticks, off) = as_dto(&args[0], "SWITCHOFFSET", 1)?;
    let Some(tz) = tz_arg(&args[1], "switchoffset")? else {
        return Ok(Value::Null);
    };
    let utc = days as i64 * TICKS_PER_DAY + ticks - off as i64 * TICKS_PER_MIN;
    dto_from_local(utc + tz as i64 * TICKS_PER_MIN, tz)
}

fn todatetimeoffset(args: &[Value]) -> SqlResult<Value> {
    check_count("TODATETIMEOFFSET", args.len(), 2, 2)?;
    let v = &args[0];
    if v.is_null() {
        return Ok(Value::Null);
    }
    let local = match v {
        // the local date/time of a datetimeoffset, the offset replaced
        Value::DateTimeOffset { days, ticks, .. } => (*days, *ticks),
        Value::Date(_)
        | Value::DateTime { .. }
        | Value::SmallDateTime { .. }
        | Value::DateTime2 { .. }
        | Value::Time(_)
        | Value::Char(_)
        | Value::VarChar(_)
        | Value::NChar(_)
        | Value::NVarChar(_) => match v.cast(&DataType::DateTime2(7))? {
            Value::DateTime2 { days, ticks } => (days, ticks),
            _ => return Err(SqlError::internal("datetime2 conversion")),
        },
        _ => return Err(arg_type_err(&v.data_type(), 1, "TODATETIMEOFFSET")),
    };
    let Some(tz) = tz_arg(&args[1], "todatetimeoffset")? else {
        return Ok(Value::Null);
    };
    // the UTC instant must be representable
    let utc = local.0 as i64 * TICKS_PER_DAY + local.1 - tz as i64 * TICKS_PER_MIN;
    if utc < 0 || utc >= DAYS_END as i64 * TICKS_PER_DAY {
        return Err(SqlError::new(241, &[]));
    }
    Ok(Value::DateTimeOffset {
        days: local.0,
        ticks: local.1,
        offset_minutes: tz,
    })
}

// ------------------------------------------------------------------ *FROMPARTS

fn bad_parts(ty: &str) -> SqlError {
    SqlError::new(289, &[&ty])
}

fn date_of(y: i64, m: i64, d: i64, ty: &str) -> SqlResult<i32> {
    let r = (|| {
        make_date(
            i32::try_from(y).ok()?,
            u32::try_from(m).ok()?,
            u32::try_from(d).ok()?,
        )
    })();
    r.ok_or_else(|| bad_parts(ty))
}

/// Ticks of a time of day from hour/minute/second and `fractions` at `precision` digits.
fn time_of(h: i64, mi: i64, s: i64, frac: i64, prec: i64, ty: &str) -> SqlResult<i64> {
    let scale = 10i64.pow(prec as u32);
    if !(0..24).contains(&h)
        || !(0..60).contains(&mi)
        || !(0..60).contains(&s)
        || !(0..scale).contains(&frac)
    {
        return Err(bad_parts(ty));
    }
    Ok(h * TICKS_PER_HOUR
        + mi * TICKS_PER_MIN
        + s * TICKS_PER_SEC
        + frac * 10i64.pow(7 - prec as u32))
}

/// The precision argument: NULL or outside 0..=7 raises 10760.
fn precision_arg(v: &Value, ty: &str) -> SqlResult<i64> {
    let p = if v.is_null() { None } else { int_arg(v).ok() };
    match p {
        Some(p) if (0..=7).contains(&p) => Ok(p),
        _ => Err(SqlError::new(10760, &[&ty])),
    }
}

fn ints(args: &[Value]) -> SqlResult<Vec<i64>> {
    args.iter().map(int_arg).collect()
}

fn smalldatetimefromparts(args: &[Value]) -> SqlResult<Value> {
    check_count("SMALLDATETIMEFROMPARTS", args.len(), 5, 5)?;
    if null_in(args) {
        return Ok(Value::Null);
    }
    let p = ints(args)?;
    const T: &str = "smalldatetime";
    let days = date_of(p[0], p[1], p[2], T)?;
    let ticks = time_of(p[3], p[4], 0, 0, 0, T)?;
    let last = days_from_civil(2079, 6, 6);
    if days < DAY_1900 || days > last {
        return Err(bad_parts(T));
    }
    Ok(Value::SmallDateTime { days, ticks })
}

fn datetime2fromparts(args: &[Value]) -> SqlResult<Value> {
    check_count("DATETIME2FROMPARTS", args.len(), 8, 8)?;
    const T: &str = "datetime2";
    let prec = precision_arg(&args[7], T)?;
    if null_in(&args[..7]) {
        return Ok(Value::Null);
    }
    let p = ints(&args[..7])?;
    let days = date_of(p[0], p[1], p[2], T)?;
    let ticks = time_of(p[3], p[4], p[5], p[6], prec, T)?;
    Ok(Value::DateTime2 { days, ticks })
}

fn timefromparts(args: &[Value]) -> SqlResult<Value> {
    check_count("TIMEFROMPARTS", args.len(), 5, 5)?;
    const T: &str = "time";
    let prec = precision_arg(&args[4], T)?;
    if null_in(&args[..4]) {
        return Ok(Value::Null);
    }
    let p = ints(&args[..4])?;
    Ok(Value::Time(time_of(p[0], p[1], p[2], p[3], prec, T)?))
}

fn datetimeoffsetfromparts(args: &[Value]) -> SqlResult<Value> {
    check_count("DATETIMEOFFSETFROMPARTS", args.len(), 10, 10)?;
    const T: &str = "datetimeoffset";
    let prec = precision_arg(&args[9], T)?;
    if null_in(&args[..9]) {
        return Ok(Value::Null);
    }
    let p = ints(&args[..9])?;
    let days = date_of(p[0], p[1], p[2], T)?;
    let ticks = time_of(p[3], p[4], p[5], p[6], prec, T)?;
    let (oh, om) = (p[7], p[8]);
    // the minute offset takes the hour offset's sign; opposite signs are invalid
    if !(-14..=14).contains(&oh)
        || !(-59..=59).contains(&om)
        || (oh > 0 && om < 0)
        || (oh < 0 && om > 0)
    {
        return Err(bad_parts(T));
    }
    let off = if oh < 0 {
        oh * 60 - om.abs()
    } else {
        oh * 60 + om
    };
    if !(-840..=840).contains(&off) {
        return Err(bad_parts(T));
    }
    // the UTC instant must be representable too
    let utc = days as i64 * TICKS_PER_DAY + ticks - off * TICKS_PER_MIN;
    if utc < 0 || utc >= DAYS_END as i64 * TICKS_PER_DAY {
        return Err(bad_parts(T));
    }
    Ok(Value::DateTimeOffset {
        days,
        ticks,
        offset_minutes: off as i16,
    })
}

// ------------------------------------------------------------------ DATETRUNC / DATE_BUCKET

fn unsupported_part(part: DatePart, func: &str, ty: &str) -> SqlError {
    SqlError::new(9810, &[&part.name(), &func, &ty])
}

/// Splits a temporal value into (days, ticks) and a rebuild function keeping its type.
fn temporal(v: &Value, func: &str, pos: usize) -> SqlResult<(i32, i64, Value)> {
    let v = match v {
        Value::Char(_) | Value::VarChar(_) | Value::NChar(_) | Value::NVarChar(_) => {
            v.cast(&DataType::DateTime2(7))?
        }
        v => v.clone(),
    };
    Ok(match &v {
        Value::Date(d) => (*d, 0, v.clone()),
        Value::Time(t) => (0, *t, v.clone()),
        Value::DateTime { days, ticks }
        | Value::SmallDateTime { days, ticks }
        | Value::DateTime2 { days, ticks }
        | Value::DateTimeOffset { days, ticks, .. } => (*days, *ticks, v.clone()),
        other => return Err(arg_type_err(&other.data_type(), pos, func)),
    })
}

fn rebuild(like: &Value, days: i32, ticks: i64) -> Value {
    match like {
        Value::Date(_) => Value::Date(days),
        Value::Time(_) => Value::Time(ticks),
        Value::DateTime { .. } => Value::DateTime { days, ticks },
        Value::SmallDateTime { .. } => Value::SmallDateTime { days, ticks },
        Value::DateTimeOffset { offset_minutes, .. } => Value::DateTimeOffset {
            days,
            ticks,
            offset_minutes: *offset_minutes,
        },
        _ => Value::DateTime2 { days, ticks },
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Date(_) => "date",
        Value::Time(_) => "time",
        Value::DateTime { .. } => "datetime",
        Value::SmallDateTime { .. } => "smalldatetime",
        Value::DateTimeOffset { .. } => "datetimeoffset",
        _ => "datetime2",
    }
}

fn datetrunc(args: &[Value]) -> SqlResult<Value> {
    check_count("DATETRUNC", args.len(), 2, 2)?;
    let part = datepart_arg(&args[0])?;
    if args[1].is_null() {
        return Ok(Value::Null);
    }
    let (days, ticks, like) = temporal(&args[1], "DATETRUNC", 2)?;
    let tn = type_name(&like);
    let is_date_part = matches!(
        part,
        DatePart::Year
            | DatePart::Quarter
            | DatePart::Month
            | DatePart::DayOfYear
            | DatePart::Day
            | DatePart::Week
            | DatePart::IsoWeek
    );
    let unsupported = match part {
        DatePart::Weekday | DatePart::TzOffset | DatePart::Nanosecond => true,
        _ if matches!(like, Value::Time(_)) => is_date_part,
        _ if matches!(like, Value::Date(_)) => !is_date_part,
        DatePart::Millisecond => matches!(like, Value::SmallDateTime { .. }),
        DatePart::Microsecond => {
            matches!(like, Value::SmallDateTime { .. } | Value::DateTime { .. })
        }
        _ => false,
    };
    if unsupported {
        return Err(unsupported_part(part, "datetrunc", tn));
    }
    let (y, m, _) = civil_from_days(days);
    let trunc_ticks = |unit: i64| ticks - ticks % unit;
    let (nd, nt) = match part {
        DatePart::Year => (days_from_civil(y, 1, 1), 0),
        DatePart::Quarter => (days_from_civil(y, (m - 1) / 3 * 3 + 1, 1), 0),
        DatePart::Month => (days_from_civil(y, m, 1), 0),
        DatePart::DayOfYear | DatePart::Day => (days, 0),
        DatePart::Week => (days - crate::datetime::weekday(days) as i32, 0),
        DatePart::IsoWeek => (days - (crate::datetime::weekday(days) as i32 + 6) % 7, 0),
        DatePart::Hour => (days, trunc_ticks(TICKS_PER_HOUR)),
        DatePart::Minute => (days, trunc_ticks(TICKS_PER_MIN)),
        DatePart::Second => (days, trunc_ticks(TICKS_PER_SEC)),
        DatePart::Millisecond => (days, trunc_ticks(10_000)),
        _ => (days, trunc_ticks(10)),
    };
    if nd < 0 {
        // the week containing 0001-01-01 starts before the calendar
        return Err(SqlError::new(517, &[&tn]));
    }
    Ok(rebuild(&like, nd, nt))
}

fn date_bucket(args: &[Value]) -> SqlResult<Value> {
    check_count("DATE_BUCKET", args.len(), 3, 4)?;
    let part = datepart_arg(&args[0])?;
    if null_in(&args[1..]) {
        return Ok(Value::Null);
    }
    let width = int_arg(&args[1])?;
    let (days, ticks, like) = temporal(&args[2], "DATE_BUCKET", 3)?;
    let tn = type_name(&like);
    if width <= 0 {
        return Err(SqlError::new(9834, &[]));
    }
    let (od, ot) = match args.get(3) {
        Some(o) => {
            let (od, ot, ol) = temporal(o, "DATE_BUCKET", 4)?;
            if type_name(&ol) != tn {
                return Err(arg_type_err(&o.data_type(), 4, "DATE_BUCKET"));
            }
            (od, ot)
        }
        None => match like {
            Value::Time(_) => (0, 0),
            _ => (DAY_1900, 0),
        },
    };
    let unit = match part {
        DatePart::Week => Some(7 * TICKS_PER_DAY),
        DatePart::Day => Some(TICKS_PER_DAY),
        DatePart::Hour => Some(TICKS_PER_HOUR),
        DatePart::Minute => Some(TICKS_PER_MIN),
        DatePart::Second => Some(TICKS_PER_SEC),
        DatePart::Millisecond => Some(10_000),
        DatePart::Year | DatePart::Quarter | DatePart::Month => None,
        _ => return Err(unsupported_part(part, "date_bucket", tn)),
    };
    let is_time = matches!(like, Value::Time(_));
    if is_time
        && matches!(
            part,
            DatePart::Year | DatePart::Quarter | DatePart::Month | DatePart::Week | DatePart::Day
        )
    {
        return Err(unsupported_part(part, "date_bucket", tn));
    }
    let overflow = || SqlError::new(517, &[&tn]);
    let t = days as i64 * TICKS_PER_DAY + ticks;
    let o = od as i64 * TICKS_PER_DAY + ot;
    let r = match unit {
        Some(u) => {
            let w = u.checked_mul(width).ok_or_else(overflow)?;
            o + (t - o).div_euclid(w) * w
        }
        None => {
            let months_per = match part {
                DatePart::Year => 12,
                DatePart::Quarter => 3,
                _ => 1,
            };
            let w = width.checked_mul(months_per).ok_or_else(overflow)?;
            let (y, m, _) = civil_from_days(days);
            let (oy, om, _) = civil_from_days(od);
            let diff = (y as i64 * 12 + m as i64) - (oy as i64 * 12 + om as i64);
            let mut k = diff.div_euclid(w) * w;
            let start = |k: i64| -> SqlResult<i64> {
                let d = super::add_months(od, k).ok_or_else(overflow)?;
                Ok(d as i64 * TICKS_PER_DAY + ot)
            };
            let mut s = start(k)?;
            if s > t {
                k -= w;
                s = start(k)?;
            }
            s
        }
    };
    if r < 0 || r >= DAYS_END as i64 * TICKS_PER_DAY {
        return Err(overflow());
    }
    Ok(rebuild(
        &like,
        r.div_euclid(TICKS_PER_DAY) as i32,
        r.rem_euclid(TICKS_PER_DAY),
    ))
}

// ------------------------------------------------------------------ FORMATMESSAGE

fn formatmessage(args: &[Value]) -> SqlResult<Value> {
    if args.is_empty() {
        return Err(SqlError::new(174, &[&"formatmessage", &1]));
    }
    let tpl = match &args[0] {
        Value::Null => return Ok(Value::Null),
        v if v.as_str().is_some() => v.as_str().unwrap_or_default().to_string(),
        // a message number: sys.messages lives in the engine (user messages ≥ 50001)
        v => {
            let n = int_arg(v)?;
            match common::errors::lookup(n as i32) {
                Some(info) if n > 13000 => info.template.to_string(),
                _ => return Ok(Value::Null),
            }
        }
    };
    let s = format_message(&tpl, &args[1..])?;
    // longer messages keep 2044 characters and end with an ellipsis
    Ok(Value::NVarChar(if s.chars().count() > 2047 {
        s.chars().take(2044).chain("...".chars()).collect()
    } else {
        s
    }))
}

/// printf-style formatting as RAISERROR and FORMATMESSAGE do it: `%[flags][width][.precision]
/// [h|l|I64]type` with flags `- + 0 space #`, width/precision `*` (taken from the arguments),
/// types `d i` (signed), `u o x X` (unsigned), `s` (string), and `%%`. A missing argument
/// prints `(null)`, as does a NULL one. An argument of the wrong kind (a string for `%d`, a
/// number for `%s`) raises 2786.
pub fn format_message(template: &str, args: &[Value]) -> SqlResult<String> {
    let chars: Vec<char> = template.chars().collect();
    let mut out = String::new();
    // at most 20 substitution parameters are used
    let mut it = args.iter().take(20);
    let mut param = 0usize;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c != '%' {
            out.push(c);
            i += 1;
            continue;
        }
        if chars.get(i + 1) == Some(&'%') {
            out.push('%');
            i += 2;
            continue;
        }
        let mut j = i + 1;
        let (mut left, mut plus, mut zero, mut space, mut alt) =
            (false, false, false, false, false);
        while let Some(&f) = chars.get(j) {
            match f {
                '-' => left = true,
                '+' => plus = true,
                '0' => zero = true,
                ' ' => space = true,
                '#' => alt = true,
                _ => break,
            }
            j += 1;
        }
        let mut read_num = |j: &mut usize| -> SqlResult<Option<i64>> {
            if chars.get(*j) == Some(&'*') {
                *j += 1;
                return Ok(Some(match it.next() {
                    Some(v) if !v.is_null() => int_arg(v)?,
                    _ => 0,
                }));
            }
            let st = *j;
            while chars.get(*j).is_some_and(|c| c.is_ascii_digit()) {
                *j += 1;
            }
            Ok(if *j > st {
                chars[st..*j].iter().collect::<String>().parse().ok()
            } else {
                None
            })
        };
        let width = read_num(&mut j)?;
        let mut prec = None;
        if chars.get(j) == Some(&'.') {
            j += 1;
            prec = Some(read_num(&mut j)?.unwrap_or(0));
        }
        // size modifiers
        if chars.get(j) == Some(&'h') || chars.get(j) == Some(&'l') {
            j += 1;
        } else if chars.get(j) == Some(&'I')
            && chars.get(j + 1) == Some(&'6')
            && chars.get(j + 2) == Some(&'4')
        {
            j += 3;
        }
        let Some(&conv) = chars.get(j) else {
            out.extend(&chars[i..]);
            break;
        };
        if !matches!(conv, 'd' | 'i' | 'u' | 'o' | 'x' | 'X' | 's' | 'S') {
            let spec: String = chars[i..=j].iter().collect();
            return Err(SqlError::new(2787, &[&spec]));
        }
        let arg = it.next();
        param += 1;
        let mismatch = || SqlError::new(2786, &[&param]);
        let text = match arg {
            None | Some(Value::Null) => "(null)".to_string(),
            Some(v) => match conv {
                's' | 'S' => {
                    if v.as_str().is_none() && !matches!(v, Value::Binary(_) | Value::VarBinary(_))
                    {
                        return Err(mismatch());
                    }
                    let t = super::text(v)?.into_owned();
                    match prec {
                        Some(p) if p >= 0 => t.chars().take(p as usize).collect(),
                        _ => t,
                    }
                }
                _ => {
                    let n = match v {
                        Value::TinyInt(_)
                        | Value::SmallInt(_)
                        | Value::Int(_)
                        | Value::BigInt(_)
                        | Value::Bit(_) => int_arg(v)?,
                        _ => return Err(mismatch()),
                    };
                    let mut digits = match conv {
                        'd' | 'i' => n.unsigned_abs().to_string(),
                        'u' => (n as u32 as u64).to_string(),
                        'o' => format!("{:o}", n as u32),
                        'x' => format!("{:x}", n as u32),
                        _ => format!("{:X}", n as u32),
                    };
                    if let Some(p) = prec {
                        while (digits.len() as i64) < p {
                            digits.insert(0, '0');
                        }
                    }
                    let sign = if matches!(conv, 'd' | 'i') {
                        if n < 0 {
                            "-"
                        } else if plus {
                            "+"
                        } else if space {
                            " "
                        } else {
                            ""
                        }
                    } else if alt && n != 0 {
                        match conv {
                            'o' => "0",
                            'x' => "0x",
                            'X' => "0X",
                            _ => "",
                        }
                    } else {
                        ""
                    };
                    let w = width.unwrap_or(0).max(0) as usize;
                    let len = sign.len() + digits.len();
                    if zero && !left && prec.is_none() && len < w {
                        format!("{sign}{}{digits}", "0".repeat(w - len))
                    } else {
                        format!("{sign}{digits}")
                    }
                }
            },
        };
        let w = width.unwrap_or(0);
        let (w, left) = if w < 0 { (-w, true) } else { (w, left) };
        let len = text.chars().count() as i64;
        if len < w {
            let pad = " ".repeat((w - len) as usize);
            if left {
                out.push_str(&text);
                out.push_str(&pad);
            } else {
                out.push_str(&pad);
                out.push_str(&text);
            }
        } else {
            out.push_str(&text);
        }
        i = j + 1;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::{call, call_typed, function_result_type};
    use crate::{DataType, Value};

    fn vc(s: &str) -> Value {
        Value::VarChar(s.into())
    }
    fn i(n: i32) -> Value {
        Value::Int(n)
    }
    fn ints(v: &[i32]) -> Vec<Value> {
        v.iter().map(|&n| Value::Int(n)).collect()
    }
    /// Evaluates and renders with the announced result type.
    fn show(name: &str, args: &[Value]) -> String {
        let types: Vec<DataType> = args.iter().map(Value::data_type).collect();
        let t = function_result_type(name, &types).unwrap();
        let v = call_typed(name, args, &types).unwrap();
        v.to_display_text(&t)
    }
    fn err(name: &str, args: &[Value]) -> i32 {
        call(name, args).unwrap_err().number
    }
    fn cast(s: &str, t: DataType) -> Value {
        vc(s).cast(&t).unwrap()
    }

    #[test]
    fn switchoffset() {
        assert_eq!(
            show("SWITCHOFFSET", &[vc("2001-04-22 "), i(-120)]),
            "2001-04-21 22:00:00.0000000 -02:00"
        );
        assert_eq!(
            show(
                "switchoffset",
                &[vc("2001-04-22 17:34:56.345"), vc("-11:00")]
            ),
            "2001-04-22 06:34:56.3450000 -11:00"
        );
        assert_eq!(
            show(
                "SWITCHOFFSET",
                &[vc("2001-04-22 17:34:56.345"), Value::VarBinary(vec![0x12])]
            ),
            "2001-04-22 17:52:56.3450000 +00:18"
        );
        assert_eq!(
            show(
                "SWITCHOFFSET",
                &[vc("2001-04-22 10:00:00 +05:30"), vc("+00:00")]
            ),
            "2001-04-22 04:30:00.0000000 +00:00"
        );
        let dto3 = cast(
            "2020-01-01 10:00:00.123 +05:30",
            DataType::DateTimeOffset(3),
        );
        let t = function_result_type(
            "SWITCHOFFSET",
            &[DataType::DateTimeOffset(3), DataType::Int],
        )
        .unwrap();
        assert_eq!(t, DataType::DateTimeOffset(3));
        let v = call("SWITCHOFFSET", &[dto3.clone(), vc("-08:00")]).unwrap();
        assert_eq!(v.to_display_text(&t), "2019-12-31 20:30:00.123 -08:00");
        // the same instant
        assert_eq!(
            crate::compare::compare(&v, &dto3, Default::default()).unwrap(),
            Some(std::cmp::Ordering::Equal)
        );
        let dt = cast("2001-04-22", DataType::DateTime);
        assert_eq!(
            show("SWITCHOFFSET", &[dt, vc("-13:00")]),
            "2001-04-21 11:00:00.000 -13:00"
        );
        for bad in [
            "abcd", "-101:00", "-011:00", "+14:01", "-14:01", "-1a:00", "14:00",
        ] {
            assert_eq!(
                err("SWITCHOFFSET", &[vc("2001-04-22"), vc(bad)]),
                9812,
                "{bad}"
            );
        }
        assert_eq!(err("SWITCHOFFSET", &[vc("2001-04-22"), i(841)]), 9812);
        assert_eq!(err("SWITCHOFFSET", &[vc("200a-0b-22 17:34"), i(1)]), 241);
        assert_eq!(
            err("SWITCHOFFSET", &[vc("200a-0b-22 17:34"), vc("-011:00")]),
            241
        );
        assert_eq!(err("SWITCHOFFSET", &[i(1), i(1)]), 8116);
        assert_eq!(
            err("SWITCHOFFSET", &[vc("9999-12-31 23:00"), vc("+02:00")]),
            517
        );
        assert_eq!(
            call("SWITCHOFFSET", &[Value::Null, i(1)]).unwrap(),
            Value::Null
        );
        assert_eq!(
            call("SWITCHOFFSET", &[vc("2001-01-01"), Value::Null]).unwrap(),
            Value::Null
        );
        assert_eq!(
            function_result_type("SWITCHOFFSET", &[DataType::Int])
                .unwrap_err()
                .number,
            174
        );
        assert_eq!(
            function_result_type("SWITCHOFFSET", &[DataType::Int, DataType::Int])
                .unwrap_err()
                .number,
            8116
        );
    }

    #[test]
    fn todatetimeoffset() {
        assert_eq!(
            show(
                "TODATETIMEOFFSET",
                &[vc("2001-04-22 17:34:56.345"), vc("+05:30")]
            ),
            "2001-04-22 17:34:56.3450000 +05:30"
        );
        let d2 = cast("2011-08-15 14:23:44.5", DataType::DateTime2(1));
        let t = function_result_type("TODATETIMEOFFSET", &[DataType::DateTime2(1), DataType::Int])
            .unwrap();
        assert_eq!(t, DataType::DateTimeOffset(1));
        let v = call("TODATETIMEOFFSET", &[d2, i(-120)]).unwrap();
        assert_eq!(v.to_display_text(&t), "2011-08-15 14:23:44.5 -02:00");
        // a datetimeoffset keeps its local time, the offset is replaced
        let dto = cast("2020-01-01 10:00:00 +05:30", DataType::DateTimeOffset(7));
        assert_eq!(
            call("TODATETIMEOFFSET", &[dto, vc("-01:00")])
                .unwrap()
                .to_display_text(&DataType::DateTimeOffset(0)),
            "2020-01-01 10:00:00 -01:00"
        );
        assert_eq!(
            err("TODATETIMEOFFSET", &[vc("2001-01-01"), vc("+15:00")]),
            9812
        );
        assert_eq!(err("TODATETIMEOFFSET", &[vc("x"), i(0)]), 241);
        // the date is converted first, then the time zone checked
        assert_eq!(
            err("TODATETIMEOFFSET", &[vc("2000-04-22 16:23:5d"), i(841)]),
            241
        );
        assert_eq!(err("TODATETIMEOFFSET", &[vc("2000-04-22"), i(-4556)]), 9812);
        assert_eq!(
            err("TODATETIMEOFFSET", &[vc("2000-04-22"), vc("NULL")]),
            9812
        );
        assert_eq!(
            call("TODATETIMEOFFSET", &[vc("2000-04-22"), Value::Null]).unwrap(),
            Value::Null
        );
        // UTC out of range
        assert_eq!(
            err("TODATETIMEOFFSET", &[vc("0001-01-01"), vc("+13:00")]),
            241
        );
        assert_eq!(
            show(
                "TODATETIMEOFFSET",
                &[vc("9999-12-31 23:59:59.59"), vc("+12:00")]
            ),
            "9999-12-31 23:59:59.5900000 +12:00"
        );
        assert_eq!(
            call("TODATETIMEOFFSET", &[Value::Null, i(0)]).unwrap(),
            Value::Null
        );
    }

    #[test]
    fn datetimeoffset_conversions() {
        let dto = cast("2020-01-01 10:00:00 +05:30", DataType::DateTimeOffset(7));
        let shows = |t: DataType| dto.cast(&t).unwrap().to_display_text(&t);
        assert_eq!(
            shows(DataType::DateTimeOffset(7)),
            "2020-01-01 10:00:00.0000000 +05:30"
        );
        assert_eq!(shows(DataType::DateTime2(7)), "2020-01-01 10:00:00.0000000");
        assert_eq!(shows(DataType::DateTime), "2020-01-01 10:00:00.000");
        assert_eq!(shows(DataType::Date), "2020-01-01");
        assert_eq!(shows(DataType::Time(7)), "10:00:00.0000000");
        assert_eq!(
            shows(DataType::VarChar(Some(40))),
            "2020-01-01 10:00:00.0000000 +05:30"
        );
        let dt = cast("2020-01-01 10:00:00", DataType::DateTime);
        assert_eq!(
            dt.cast(&DataType::DateTimeOffset(3))
                .unwrap()
                .to_display_text(&DataType::DateTimeOffset(3)),
            "2020-01-01 10:00:00.000 +00:00"
        );
        // a string with an offset is rejected by datetime, accepted (offset dropped) by datetime2
        assert_eq!(
            vc("2020-01-01 10:00:00 +05:30")
                .cast(&DataType::DateTime)
                .unwrap_err()
                .number,
            241
        );
        assert_eq!(
            cast("2020-01-01 10:00:00 +05:30", DataType::DateTime2(0))
                .to_display_text(&DataType::DateTime2(0)),
            "2020-01-01 10:00:00"
        );
        // the UTC instant must be in range
        for s in [
            "0001-01-01 00:00 +01:00",
            "9999-12-31 23:00 -02:00",
            "2020-01-01 +14:01",
        ] {
            assert!(vc(s).cast(&DataType::DateTimeOffset(7)).is_err(), "{s}");
        }
    }

    #[test]
    fn fromparts() {
        assert_eq!(
            show("SMALLDATETIMEFROMPARTS", &ints(&[1900, 12, 31, 23, 59])),
            "1900-12-31 23:59:00"
        );
        assert_eq!(
            err("SMALLDATETIMEFROMPARTS", &ints(&[1899, 12, 31, 23, 59])),
            289
        );
        assert_eq!(
            err("SMALLDATETIMEFROMPARTS", &ints(&[2079, 6, 7, 0, 0])),
            289
        );
        assert_eq!(
            err("SMALLDATETIMEFROMPARTS", &ints(&[2000, 1, 1, 24, 0])),
            289
        );
        let mut a = ints(&[2078, 1, 1, 0, 0]);
        a[4] = Value::Null;
        assert_eq!(call("SMALLDATETIMEFROMPARTS", &a).unwrap(), Value::Null);
        assert_eq!(
            function_result_type("SMALLDATETIMEFROMPARTS", &vec![DataType::Int; 4])
                .unwrap_err()
                .number,
            174
        );

        let v = call(
            "DATETIME2FROMPARTS",
            &ints(&[2011, 8, 15, 14, 23, 44, 5, 6]),
        )
        .unwrap();
        assert_eq!(
            v.to_display_text(&DataType::DateTime2(7)),
            "2011-08-15 14:23:44.0000050"
        );
        let v = call(
            "DATETIME2FROMPARTS",
            &ints(&[2011, 8, 15, 14, 23, 44, 5, 1]),
        )
        .unwrap();
        assert_eq!(
            v.to_display_text(&DataType::DateTime2(1)),
            "2011-08-15 14:23:44.5"
        );
        assert_eq!(
            err(
                "DATETIME2FROMPARTS",
                &ints(&[2011, 8, 15, 14, 23, 44, 5, 0])
            ),
            289
        );
        assert_eq!(
            err(
                "DATETIME2FROMPARTS",
                &ints(&[2011, 8, 15, 14, 23, 44, 100, 2])
            ),
            289
        );
        assert_eq!(
            err("DATETIME2FROMPARTS", &ints(&[2011, 2, 29, 0, 0, 0, 0, 0])),
            289
        );
        assert_eq!(
            err("DATETIME2FROMPARTS", &ints(&[2011, 1, 1, 0, 0, 0, 0, 8])),
            10760
        );
        let mut a = ints(&[2011, 1, 1, 0, 0, 0, 0, 0]);
        a[7] = Value::Null;
        assert_eq!(err("DATETIME2FROMPARTS", &a), 10760);
        a[7] = i(3);
        a[0] = Value::Null;
        assert_eq!(call("DATETIME2FROMPARTS", &a).unwrap(), Value::Null);

        let v = call("TIMEFROMPARTS", &ints(&[23, 59, 59, 5, 1])).unwrap();
        assert_eq!(v.to_display_text(&DataType::Time(1)), "23:59:59.5");
        assert_eq!(err("TIMEFROMPARTS", &ints(&[24, 0, 0, 0, 0])), 289);
        assert_eq!(
            err("TIMEFROMPARTS", &[i(1), i(0), i(0), i(0), Value::Null]),
            10760
        );

        let v = call(
            "DATETIMEOFFSETFROMPARTS",
            &ints(&[2011, 8, 15, 14, 30, 0, 500, 12, 30, 3]),
        )
        .unwrap();
        assert_eq!(
            v.to_display_text(&DataType::DateTimeOffset(3)),
            "2011-08-15 14:30:00.500 +12:30"
        );
        let v = call(
            "DATETIMEOFFSETFROMPARTS",
            &ints(&[2011, 8, 15, 14, 30, 0, 0, -8, -30, 0]),
        )
        .unwrap();
        assert_eq!(
            v.to_display_text(&DataType::DateTimeOffset(0)),
            "2011-08-15 14:30:00 -08:30"
        );
        assert_eq!(
            err(
                "DATETIMEOFFSETFROMPARTS",
                &ints(&[2011, 8, 15, 14, 30, 0, 0, 15, 0, 0])
            ),
            289
        );
        assert_eq!(
            err(
                "DATETIMEOFFSETFROMPARTS",
                &ints(&[2011, 8, 15, 14, 30, 0, 0, 14, 1, 0])
            ),
            289
        );
        assert_eq!(
            err(
                "DATETIMEOFFSETFROMPARTS",
                &ints(&[2011, 8, 15, 14, 30, 0, 0, 5, -1, 0])
            ),
            289
        );
        // both offsets must carry the same sign
        assert_eq!(
            err(
                "DATETIMEOFFSETFROMPARTS",
                &ints(&[2011, 8, 15, 14, 30, 0, 0, -8, 30, 0])
            ),
            289
        );
    }

    #[test]
    fn datetrunc() {
        let d2 = cast("2021-12-08 11:30:15.1234567", DataType::DateTime2(7));
        let cases = [
            ("year", "2021-01-01 00:00:00.0000000"),
            ("quarter", "2021-10-01 00:00:00.0000000"),
            ("month", "2021-12-01 00:00:00.0000000"),
            ("week", "2021-12-05 00:00:00.0000000"),
            ("iso_week", "2021-12-06 00:00:00.0000000"),
            ("dayofyear", "2021-12-08 00:00:00.0000000"),
            ("day", "2021-12-08 00:00:00.0000000"),
            ("hour", "2021-12-08 11:00:00.0000000"),
            ("minute", "2021-12-08 11:30:00.0000000"),
            ("second", "2021-12-08 11:30:15.0000000"),
            ("millisecond", "2021-12-08 11:30:15.1230000"),
            ("microsecond", "2021-12-08 11:30:15.1234560"),
        ];
        for (p, want) in cases {
            assert_eq!(show("DATETRUNC", &[vc(p), d2.clone()]), want, "{p}");
        }
        // string input is datetime2(7)
        assert_eq!(
            show("DATETRUNC", &[vc("mm"), vc("2021-12-08 11:30:15")]),
            "2021-12-01 00:00:00.0000000"
        );
        let dto = cast("2021-12-08 11:30:15 +05:00", DataType::DateTimeOffset(0));
        assert_eq!(
            call("DATETRUNC", &[vc("hh"), dto])
                .unwrap()
                .to_display_text(&DataType::DateTimeOffset(0)),
            "2021-12-08 11:00:00 +05:00"
        );
        let t = cast("11:30:15.5", DataType::Time(7));
        assert_eq!(
            call("DATETRUNC", &[vc("minute"), t.clone()]).unwrap(),
            cast("11:30", DataType::Time(7))
        );
        assert_eq!(err("DATETRUNC", &[vc("day"), t]), 9810);
        let d = cast("2021-12-08", DataType::Date);
        assert_eq!(err("DATETRUNC", &[vc("hour"), d.clone()]), 9810);
        assert_eq!(err("DATETRUNC", &[vc("weekday"), d]), 9810);
        let dt = cast("2021-12-08", DataType::DateTime);
        assert_eq!(err("DATETRUNC", &[vc("microsecond"), dt]), 9810);
        assert_eq!(err("DATETRUNC", &[vc("foo"), vc("2021-01-01")]), 155);
        assert_eq!(
            call("DATETRUNC", &[vc("day"), Value::Null]).unwrap(),
            Value::Null
        );
        assert_eq!(
            function_result_type("DATETRUNC", &[DataType::VarChar(Some(3)), DataType::Int])
                .unwrap_err()
                .number,
            8116
        );
        assert_eq!(
            function_result_type(
                "DATETRUNC",
                &[DataType::VarChar(Some(3)), DataType::DateTime]
            )
            .unwrap(),
            DataType::DateTime
        );
    }

    #[test]
    fn date_bucket() {
        let d = cast("2020-04-30 21:21:21", DataType::DateTime2(0));
        let show0 = |p: &str, w: i32, o: Option<&str>| {
            let mut a = vec![vc(p), i(w), d.clone()];
            if let Some(o) = o {
                a.push(cast(o, DataType::DateTime2(0)));
            }
            call("DATE_BUCKET", &a)
                .unwrap()
                .to_display_text(&DataType::DateTime2(0))
        };
        // examples from the DATE_BUCKET documentation
        assert_eq!(show0("week", 1, None), "2020-04-27 00:00:00");
        assert_eq!(show0("day", 1, None), "2020-04-30 00:00:00");
        assert_eq!(show0("hour", 1, None), "2020-04-30 21:00:00");
        assert_eq!(show0("minute", 1, None), "2020-04-30 21:21:00");
        assert_eq!(show0("second", 1, None), "2020-04-30 21:21:21");
        assert_eq!(show0("month", 2, None), "2020-03-01 00:00:00");
        assert_eq!(show0("year", 1, None), "2020-01-01 00:00:00");
        assert_eq!(
            show0("week", 5, Some("2019-01-01 00:00:00")),
            "2020-03-31 00:00:00"
        );
        assert_eq!(
            show0("month", 2, Some("2019-01-15 00:00:00")),
            "2020-03-15 00:00:00"
        );
        assert_eq!(err("DATE_BUCKET", &[vc("day"), i(0), d.clone()]), 9834);
        assert_eq!(err("DATE_BUCKET", &[vc("weekday"), i(1), d.clone()]), 9810);
        assert_eq!(
            call("DATE_BUCKET", &[vc("day"), Value::Null, d]).unwrap(),
            Value::Null
        );
    }

    #[test]
    fn formatmessage() {
        let f = |t: &str, a: &[Value]| super::format_message(t, a).unwrap();
        assert_eq!(
            f("Hello %s, %d%% done (%i)", &[vc("bob"), i(50), i(-3)]),
            "Hello bob, 50% done (-3)"
        );
        assert_eq!(
            f("[%5d][%-5d][%05d]", &[i(42), i(42), i(42)]),
            "[   42][42   ][00042]"
        );
        assert_eq!(f("[%.3d][%+d][% d]", &[i(7), i(7), i(7)]), "[007][+7][ 7]");
        assert_eq!(
            f("[%x][%X][%#x][%o]", &[i(255), i(255), i(255), i(8)]),
            "[ff][FF][0xff][10]"
        );
        assert_eq!(f("[%u]", &[i(-1)]), "[4294967295]");
        assert_eq!(
            f("[%10.3s][%-4s]", &[vc("abcdef"), vc("ab")]),
            "[       abc][ab  ]"
        );
        assert_eq!(f("[%*d]", &[i(4), i(1)]), "[   1]");
        assert_eq!(f("[%s][%d]", &[Value::Null]), "[(null)][(null)]");
        assert_eq!(f("[%I64d][%ld]", &[Value::BigInt(5), i(6)]), "[5][6]");
        assert_eq!(f("100%", &[]), "100%");
        assert_eq!(
            super::format_message("%m", &[i(0)]).unwrap_err().number,
            2787
        );
        let many: Vec<Value> = (1..=21).map(i).collect();
        assert_eq!(f(&"%d ".repeat(21), &many).matches("(null)").count(), 1);
        let long = call("FORMATMESSAGE", &[vc(&"x".repeat(3000))]).unwrap();
        let long = long.as_str().unwrap();
        assert_eq!(long.chars().count(), 2047);
        assert!(long.ends_with("x..."));
        assert_eq!(
            call("FORMATMESSAGE", &[vc("n=%d"), i(3)]).unwrap(),
            Value::NVarChar("n=3".into())
        );
        assert_eq!(call("FORMATMESSAGE", &[Value::Null]).unwrap(), Value::Null);
        // message numbers at or below 13000 give NULL
        assert_eq!(call("FORMATMESSAGE", &[i(245)]).unwrap(), Value::Null);
        assert_eq!(
            super::format_message("%d", &[vc("x")]).unwrap_err().number,
            2786
        );
        assert_eq!(
            super::format_message("%s %s", &[vc("a"), i(1)])
                .unwrap_err()
                .number,
            2786
        );
        assert_eq!(
            function_result_type("FORMATMESSAGE", &[])
                .unwrap_err()
                .number,
            174
        );
    }
}
