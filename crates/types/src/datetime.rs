//! Calendar arithmetic (proleptic Gregorian, days since 0001-01-01), parsing of date/time
//! strings the way SQL Server accepts them (LANGUAGE us_english, DATEFORMAT mdy) and the
//! CONVERT style renderings.

/// 100 ns ticks per second / minute / day.
pub const TICKS_PER_SEC: i64 = 10_000_000;
pub const TICKS_PER_MIN: i64 = 60 * TICKS_PER_SEC;
pub const TICKS_PER_HOUR: i64 = 60 * TICKS_PER_MIN;
pub const TICKS_PER_DAY: i64 = 24 * TICKS_PER_HOUR;

const fn days_from_civil_unix(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

const UNIX_OF_0001: i64 = days_from_civil_unix(1, 1, 1);

/// Days since 0001-01-01 of a (valid) civil date.
pub const fn days_from_civil(y: i32, m: u32, d: u32) -> i32 {
    (days_from_civil_unix(y as i64, m as i64, d as i64) - UNIX_OF_0001) as i32
}

/// Civil date of a day number (days since 0001-01-01).
pub fn civil_from_days(days: i32) -> (i32, u32, u32) {
    let z = days as i64 + UNIX_OF_0001 + 719468;
    let era = if z >= 0 { z } else { z - 146096 } / 146097;
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    ((if m <= 2 { y + 1 } else { y }) as i32, m, d)
}

pub fn is_leap(y: i32) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

pub fn days_in_month(y: i32, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(y) => 29,
        _ => 28,
    }
}

/// Validated day number.
pub fn make_date(y: i32, m: u32, d: u32) -> Option<i32> {
    if !(1..=9999).contains(&y) || !(1..=12).contains(&m) || d < 1 || d > days_in_month(y, m) {
        return None;
    }
    Some(days_from_civil(y, m, d))
}

/// Day number of 1900-01-01 (datetime's epoch).
pub const DAY_1900: i32 = days_from_civil(1900, 1, 1);
/// Day number of 1753-01-01 (datetime's minimum).
pub const DAY_1753: i32 = days_from_civil(1753, 1, 1);
/// Day number of 9999-12-31.
pub const DAY_9999: i32 = days_from_civil(9999, 12, 31);
/// Day number of 2079-06-06 (smalldatetime's maximum).
pub const DAY_2079: i32 = days_from_civil(2079, 6, 6);

/// Day of week, 0 = Sunday.
pub fn weekday(days: i32) -> u32 {
    // 0001-01-01 was a Monday.
    ((days as i64 + 1).rem_euclid(7)) as u32
}

/// Rounds ticks to datetime's 1/300 s grid: returns ticks of the nearest 1/300 s.
pub fn round_to_datetime(ticks: i64) -> i64 {
    let n = (ticks * 300 + TICKS_PER_SEC / 2) / TICKS_PER_SEC; // nearest 1/300 s
    datetime_units_to_ticks(n)
}

/// Ticks of n 1/300-second units, rounded to the nearest tick.
pub fn datetime_units_to_ticks(n: i64) -> i64 {
    (n * TICKS_PER_SEC + 150) / 300
}

/// 1/300-second units of (grid-aligned) ticks.
pub fn ticks_to_datetime_units(ticks: i64) -> i64 {
    (ticks * 300 + TICKS_PER_SEC / 2) / TICKS_PER_SEC
}

/// Rounds ticks to `scale` fractional digits (half up), as datetime2(n)/time(n) do.
pub fn round_ticks(ticks: i64, scale: u8) -> i64 {
    if scale >= 7 {
        return ticks;
    }
    let unit = 10i64.pow(7 - scale as u32);
    (ticks + unit / 2) / unit * unit
}

/// Result of parsing a date/time string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parsed {
    /// Day number, `None` when the string had no date part (defaults to 1900-01-01).
    pub days: Option<i32>,
    /// Ticks since midnight (0 when absent).
    pub ticks: i64,
    pub has_time: bool,
    /// Number of fractional second digits given.
    pub frac_digits: u8,
    /// Time zone offset in minutes, when given.
    pub offset: Option<i16>,
}

impl Parsed {
    pub fn days_or_default(&self) -> i32 {
        self.days.unwrap_or(DAY_1900)
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(u32, u8),
    Word(String),
    Sep(char),
}

fn month_from_word(w: &str) -> Option<u32> {
    const NAMES: [&str; 12] = [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    if w.len() < 3 {
        return None;
    }
    NAMES
        .iter()
        .position(|n| *n == w || (w.len() == 3 && n.starts_with(w)))
        .map(|i| i as u32 + 1)
}

pub const MONTH_ABBR: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];
pub const MONTH_NAMES: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
pub const DAY_NAMES: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

fn tokenize(s: &str) -> Option<Vec<Tok>> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_digit() {
            let st = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            let len = i - st;
            if len > 9 {
                return None;
            }
            let v: u32 = s[st..i].parse().ok()?;
            out.push(Tok::Num(v, len as u8));
        } else if c.is_ascii_alphabetic() {
            let st = i;
            while i < b.len() && b[i].is_ascii_alphabetic() {
                i += 1;
            }
            out.push(Tok::Word(s[st..i].to_ascii_lowercase()));
        } else if matches!(c, b'-' | b'/' | b'.' | b':' | b',' | b'+') {
            out.push(Tok::Sep(c as char));
            i += 1;
        } else if c == b' ' || c == b'\t' || c == b'\n' || c == b'\r' {
            out.push(Tok::Sep(' '));
            while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
                i += 1;
            }
        } else {
            return None;
        }
    }
    Some(out)
}

fn two_digit_year(v: u32, nd: u8) -> i32 {
    if nd <= 2 {
        if v < 50 {
            2000 + v as i32
        } else {
            1900 + v as i32
        }
    } else {
        v as i32
    }
}

/// Order of day, month and year in all-numeric dates (SET DATEFORMAT / CONVERT style).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DateOrder {
    Mdy,
    Dmy,
    Ymd,
}

/// Parses a date/time string as SQL Server does for the date/time types (us_english, mdy).
pub fn parse(s: &str) -> Option<Parsed> {
    parse_with_order(s, DateOrder::Mdy)
}

/// [`parse`] with an explicit order for all-numeric dates.
pub fn parse_with_order(s: &str, order: DateOrder) -> Option<Parsed> {
    let t = s.trim_matches(|c: char| c.is_ascii_whitespace());
    if t.is_empty() {
        // '' converts to 1900-01-01 00:00:00
        return Some(Parsed {
            days: None,
            ticks: 0,
            has_time: false,
            frac_digits: 0,
            offset: None,
        });
    }
    let mut toks = tokenize(t)?;
    // 'T' separating date and time in ISO 8601, 'Z' suffix.
    let mut offset: Option<i16> = None;
    if let Some(Tok::Word(w)) = toks.last() {
        if w == "z" {
            offset = Some(0);
            toks.pop();
        }
    }
    for tk in toks.iter_mut() {
        if let Tok::Word(w) = tk {
            if w == "t" {
                *tk = Tok::Sep(' ');
            }
        }
    }
    // Locate the time part: Num ':' Num ...  or Num AM/PM.
    let mut time_start = None;
    for i in 0..toks.len() {
        if let Tok::Num(..) = toks[i] {
            if matches!(toks.get(i + 1), Some(Tok::Sep(':'))) {
                time_start = Some(i);
                break;
            }
            let ampm_next =
                |j: usize| matches!(toks.get(j), Some(Tok::Word(w)) if w == "am" || w == "pm");
            if ampm_next(i + 1)
                || (matches!(toks.get(i + 1), Some(Tok::Sep(' '))) && ampm_next(i + 2))
            {
                time_start = Some(i);
                break;
            }
        }
    }
    let mut ticks: i64 = 0;
    let mut frac_digits = 0u8;
    let mut has_time = false;
    let mut date_toks: Vec<Tok> = toks.clone();
    if let Some(ts) = time_start {
        has_time = true;
        let mut j = ts;
        let mut parts: Vec<u32> = Vec::new();
        let mut frac: Option<(u32, u8)> = None;
        let Tok::Num(h, _) = toks[j] else {
            return None;
        };
        parts.push(h);
        j += 1;
        while j + 1 < toks.len() {
            match (&toks[j], &toks[j + 1]) {
                (Tok::Sep(':'), Tok::Num(v, nd)) if parts.len() < 3 => {
                    parts.push(*v);
                    let _ = nd;
                    j += 2;
                }
                (Tok::Sep(':'), Tok::Num(v, nd)) if parts.len() == 3 && frac.is_none() => {
                    // hh:mm:ss:mmm — milliseconds
                    if *nd > 3 {
                        return None;
                    }
                    frac = Some((*v * 10u32.pow(3 - *nd as u32), 3));
                    j += 2;
                }
                (Tok::Sep('.'), Tok::Num(v, nd)) if parts.len() == 3 && frac.is_none() => {
                    frac = Some((*v, *nd));
                    j += 2;
                }
                _ => break,
            }
        }
        // "12:30:15." (trailing dot)
        if j < toks.len() && toks[j] == Tok::Sep('.') && parts.len() == 3 && frac.is_none() {
            j += 1;
        }
        // AM/PM
        let mut k = j;
        if matches!(toks.get(k), Some(Tok::Sep(' '))) {
            k += 1;
        }
        let mut ampm = None;
        if let Some(Tok::Word(w)) = toks.get(k) {
            if w == "am" || w == "pm" {
                ampm = Some(w == "pm");
                j = k + 1;
            }
        }
        let (mut hh, mm, ss) = (
            parts[0],
            parts.get(1).copied().unwrap_or(0),
            parts.get(2).copied().unwrap_or(0),
        );
        if let Some(pm) = ampm {
            if hh > 12 {
                return None;
            }
            if hh == 12 {
                hh = 0;
            }
            if pm {
                hh += 12;
            }
        }
        if hh > 23 || mm > 59 || ss > 59 {
            return None;
        }
        let mut f_ticks = 0i64;
        if let Some((v, nd)) = frac {
            if nd > 7 {
                // more than 7 digits: SQL Server rejects
                return None;
            }
            f_ticks = v as i64 * 10i64.pow(7 - nd as u32);
            frac_digits = nd;
        }
        ticks = hh as i64 * TICKS_PER_HOUR
            + mm as i64 * TICKS_PER_MIN
            + ss as i64 * TICKS_PER_SEC
            + f_ticks;
        // Offset after the time: [ ] (+|-) hh:mm
        let mut k = j;
        if matches!(toks.get(k), Some(Tok::Sep(' '))) {
            k += 1;
        }
        let mut end = j;
        if let Some(Tok::Sep(sign)) = toks.get(k) {
            if *sign == '+' || *sign == '-' {
                if let (Some(Tok::Num(oh, _)), Some(Tok::Sep(':')), Some(Tok::Num(om, _))) =
                    (toks.get(k + 1), toks.get(k + 2), toks.get(k + 3))
                {
                    if *oh > 14 || *om > 59 || (*oh == 14 && *om > 0) {
                        return None;
                    }
                    let v = (*oh * 60 + *om) as i16;
                    offset = Some(if *sign == '-' { -v } else { v });
                    end = k + 4;
                }
            }
        }
        let mut rest: Vec<Tok> = toks[..ts].to_vec();
        rest.extend_from_slice(&toks[end..]);
        date_toks = rest;
    }
    // Date part.
    let dt: Vec<Tok> = date_toks
        .into_iter()
        .filter(|t| !matches!(t, Tok::Sep(' ') | Tok::Sep(',')))
        .collect();
    let days = if dt.is_empty() {
        None
    } else {
        Some(parse_date_tokens(&dt, order)?)
    };
    Some(Parsed {
        days,
        ticks,
        has_time,
        frac_digits,
        offset,
    })
}

fn parse_date_tokens(dt: &[Tok], order: DateOrder) -> Option<i32> {
    // Alphabetic month?
    if let Some(mi) = dt.iter().position(|t| matches!(t, Tok::Word(_))) {
        let Tok::Word(w) = &dt[mi] else { return None };
        let m = month_from_word(w)?;
        let nums: Vec<(u32, u8)> = dt
            .iter()
            .filter_map(|t| match t {
                Tok::Num(v, n) => Some((*v, *n)),
                _ => None,
            })
            .collect();
        if dt.iter().filter(|t| matches!(t, Tok::Word(_))).count() != 1 {
            return None;
        }
        if dt
            .iter()
            .any(|t| matches!(t, Tok::Sep(c) if *c != '-' && *c != '/' && *c != '.'))
        {
            return None;
        }
        let (y, d) = match nums.as_slice() {
            [(a, an), (b, bn)] => {
                if *an == 4 {
                    (*a as i32, *b)
                } else if *bn == 4 || mi == 0 || mi == 1 {
                    // Mon dd yyyy / dd Mon yyyy / Mon dd yy / dd Mon yy
                    (two_digit_year(*b, *bn), *a)
                } else {
                    (two_digit_year(*b, *bn), *a)
                }
            }
            [(a, an)] if *an == 4 => (*a as i32, 1),
            _ => return None,
        };
        return make_date(y, m, d);
    }
    let nums: Vec<(u32, u8)> = dt
        .iter()
        .filter_map(|t| match t {
            Tok::Num(v, n) => Some((*v, *n)),
            _ => None,
        })
        .collect();
    let seps: Vec<char> = dt
        .iter()
        .filter_map(|t| match t {
            Tok::Sep(c) => Some(*c),
            _ => None,
        })
        .collect();
    // Structure must alternate Num Sep Num Sep Num.
    for (i, t) in dt.iter().enumerate() {
        let is_num = matches!(t, Tok::Num(..));
        if is_num != (i % 2 == 0) {
            return None;
        }
    }
    match nums.as_slice() {
        [(v, 8)] => {
            let y = (v / 10000) as i32;
            make_date(y, (v / 100) % 100, v % 100)
        }
        [(v, 6)] => {
            let y = two_digit_year(v / 10000, 2);
            make_date(y, (v / 100) % 100, v % 100)
        }
        [(v, 4)] => make_date(*v as i32, 1, 1),
        [(a, an), (b, bn), (c, cn)] => {
            if seps.len() != 2 || seps[0] != seps[1] || seps[0] == ':' || seps[0] == '+' {
                return None;
            }
            if *an == 4 {
                // yyyy-mm-dd
                make_date(*a as i32, *b, *c)
            } else if *an > 2 || *bn > 2 {
                None
            } else {
                match order {
                    DateOrder::Mdy => make_date(two_digit_year(*c, *cn), *a, *b),
                    DateOrder::Dmy => make_date(two_digit_year(*c, *cn), *b, *a),
                    DateOrder::Ymd => make_date(two_digit_year(*a, *an), *b, *c),
                }
            }
        }
        [(a, an), (b, bn)] => {
            // m/yyyy or yyyy-mm
            if seps.len() != 1 {
                return None;
            }
            if *an == 4 {
                make_date(*a as i32, *b, 1)
            } else if *bn == 4 {
                make_date(*b as i32, *a, 1)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Appends `v` zero-padded to `width` digits.
pub fn push_num(out: &mut String, v: i64, width: usize) {
    let s = v.to_string();
    for _ in s.len()..width {
        out.push('0');
    }
    out.push_str(&s);
}

/// `YYYY-MM-DD`
pub fn fmt_date(days: i32, out: &mut String) {
    let (y, m, d) = civil_from_days(days);
    push_num(out, y as i64, 4);
    out.push('-');
    push_num(out, m as i64, 2);
    out.push('-');
    push_num(out, d as i64, 2);
}

/// `hh:mm:ss` plus `.` and `digits` fractional digits when digits > 0.
pub fn fmt_time(ticks: i64, digits: u8, out: &mut String) {
    let secs = ticks / TICKS_PER_SEC;
    let frac = ticks % TICKS_PER_SEC;
    push_num(out, secs / 3600, 2);
    out.push(':');
    push_num(out, (secs / 60) % 60, 2);
    out.push(':');
    push_num(out, secs % 60, 2);
    if digits > 0 {
        out.push('.');
        let f = frac / 10i64.pow(7 - digits.min(7) as u32);
        push_num(out, f, digits as usize);
    }
}

/// `+hh:mm` / `-hh:mm`
pub fn fmt_offset(offset: i16, out: &mut String) {
    out.push(if offset < 0 { '-' } else { '+' });
    let a = offset.unsigned_abs() as i64;
    push_num(out, a / 60, 2);
    out.push(':');
    push_num(out, a % 60, 2);
}

/// The kind of date/time value being rendered by [`format_style`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DtKind {
    Date,
    Time(u8),
    DateTime,
    SmallDateTime,
    DateTime2(u8),
    DateTimeOffset(u8),
}

impl DtKind {
    fn has_date(self) -> bool {
        !matches!(self, DtKind::Time(_))
    }
    fn has_time(self) -> bool {
        !matches!(self, DtKind::Date)
    }
    /// Fraction digits used by the 121-like styles.
    fn digits(self) -> u8 {
        match self {
            DtKind::Date => 0,
            DtKind::SmallDateTime => 0,
            DtKind::DateTime => 3,
            DtKind::Time(s) | DtKind::DateTime2(s) | DtKind::DateTimeOffset(s) => s,
        }
    }
}

fn hh12(ticks: i64) -> (i64, &'static str) {
    let h = ticks / TICKS_PER_HOUR;
    let ap = if h >= 12 { "PM" } else { "AM" };
    let h12 = if h % 12 == 0 { 12 } else { h % 12 };
    (h12, ap)
}

fn millis(kind: DtKind, ticks: i64) -> i64 {
    match kind {
        DtKind::DateTime => {
            let n = ticks_to_datetime_units(ticks % TICKS_PER_SEC);
            (n * 10 + 1) / 3
        }
        _ => (ticks % TICKS_PER_SEC) / 10_000,
    }
}

/// Renders a date/time value with a CONVERT style. `None` when the style is invalid for the
/// kind (caller raises error 281).
pub fn format_style(
    kind: DtKind,
    days: i32,
    ticks: i64,
    offset: i16,
    style: i32,
) -> Option<String> {
    let mut o = String::with_capacity(40);
    let (y, m, d) = civil_from_days(days);
    let century = style >= 100;
    let base = style % 100;
    let yy = |o: &mut String| {
        if century || base == 0 || base == 9 || base == 13 || base == 20 || base == 21 {
            push_num(o, y as i64, 4)
        } else {
            push_num(o, (y % 100) as i64, 2)
        }
    };
    let mon = MONTH_ABBR[(m - 1) as usize];
    let date_only = |k: DtKind| !k.has_time();
    let time_only = !kind.has_date();
    // For time-only values, date styles print 1900-01-01's parts.
    let frac_digits = match kind {
        DtKind::DateTime => 3,
        k => k.digits(),
    };
    if matches!(kind, DtKind::Time(_)) && matches!(style, 0 | 100) {
        // time with style 0: hh:miAM
        let (h, ap) = hh12(ticks);
        push_num(&mut o, h, 0);
        o.push(':');
        push_num(&mut o, (ticks / TICKS_PER_MIN) % 60, 2);
        o.push_str(ap);
        return Some(o);
    }
    match (style, base) {
        (0 | 100 | 9 | 109, _) => {
            if kind.has_date() {
                o.push_str(mon);
                o.push(' ');
                if d < 10 {
                    o.push(' ');
                }
                push_num(&mut o, d as i64, 0);
                o.push(' ');
                push_num(&mut o, y as i64, 4);
                if date_only(kind) {
                    return Some(o);
                }
                o.push(' ');
            }
            let (h, ap) = hh12(ticks);
            if h < 10 {
                o.push(' ');
            }
            push_num(&mut o, h, 0);
            o.push(':');
            push_num(&mut o, (ticks / TICKS_PER_MIN) % 60, 2);
            if base == 9 {
                o.push(':');
                push_num(&mut o, (ticks / TICKS_PER_SEC) % 60, 2);
                o.push(':');
                if kind == DtKind::DateTime || kind == DtKind::SmallDateTime {
                    push_num(&mut o, millis(kind, ticks), 3);
                } else {
                    let f = ticks % TICKS_PER_SEC / 10i64.pow(7 - frac_digits.min(7) as u32);
                    push_num(&mut o, f, frac_digits as usize);
                }
            }
            o.push_str(ap);
        }
        (_, 1 | 2 | 3 | 4 | 5 | 6 | 7 | 10 | 11 | 12 | 23) => {
            if time_only && base != 23 {
                // date styles on time values render the default date (1900-01-01)
                return format_style(DtKind::Date, DAY_1900, 0, 0, style);
            }
            match base {
                1 => {
                    push_num(&mut o, m as i64, 2);
                    o.push('/');
                    push_num(&mut o, d as i64, 2);
                    o.push('/');
                    yy(&mut o);
                }
                2 => {
                    yy(&mut o);
                    o.push('.');
                    push_num(&mut o, m as i64, 2);
                    o.push('.');
                    push_num(&mut o, d as i64, 2);
                }
                3..=5 => {
                    let sep = match base {
                        3 => '/',
                        4 => '.',
                        _ => '-',
                    };
                    push_num(&mut o, d as i64, 2);
                    o.push(sep);
                    push_num(&mut o, m as i64, 2);
                    o.push(sep);
                    yy(&mut o);
                }
                6 => {
                    push_num(&mut o, d as i64, 2);
                    o.push(' ');
                    o.push_str(mon);
                    o.push(' ');
                    yy(&mut o);
                }
                7 => {
                    o.push_str(mon);
                    o.push(' ');
                    push_num(&mut o, d as i64, 2);
                    o.push_str(", ");
                    yy(&mut o);
                }
                10 => {
                    push_num(&mut o, m as i64, 2);
                    o.push('-');
                    push_num(&mut o, d as i64, 2);
                    o.push('-');
                    yy(&mut o);
                }
                11 => {
                    yy(&mut o);
                    o.push('/');
                    push_num(&mut o, m as i64, 2);
                    o.push('/');
                    push_num(&mut o, d as i64, 2);
                }
                12 => {
                    yy(&mut o);
                    push_num(&mut o, m as i64, 2);
                    push_num(&mut o, d as i64, 2);
                }
                23 => {
                    if style != 23 {
                        return None;
                    }
                    fmt_date(if time_only { DAY_1900 } else { days }, &mut o);
                }
                _ => return None,
            }
        }
        (8 | 108 | 24, _) => {
            fmt_time(ticks, 0, &mut o);
        }
        (14 | 114, _) => {
            fmt_time(ticks, 0, &mut o);
            o.push(':');
            if kind == DtKind::DateTime || kind == DtKind::SmallDateTime {
                push_num(&mut o, millis(kind, ticks), 3);
            } else {
                let f = ticks % TICKS_PER_SEC / 10i64.pow(7 - frac_digits.min(7) as u32);
                push_num(&mut o, f, frac_digits as usize);
            }
        }
        (13 | 113, _) => {
            if kind.has_date() {
                push_num(&mut o, d as i64, 2);
                o.push(' ');
                o.push_str(mon);
                o.push(' ');
                push_num(&mut o, y as i64, 4);
                o.push(' ');
            }
            fmt_time(ticks, 0, &mut o);
            o.push(':');
            if kind == DtKind::DateTime || kind == DtKind::SmallDateTime {
                push_num(&mut o, millis(kind, ticks), 3);
            } else {
                let f = ticks % TICKS_PER_SEC / 10i64.pow(7 - frac_digits.min(7) as u32);
                push_num(&mut o, f, frac_digits as usize);
            }
        }
        (20 | 120, _) => {
            if kind.has_date() {
                fmt_date(days, &mut o);
                if !kind.has_time() {
                    return Some(o);
                }
                o.push(' ');
            }
            fmt_time(ticks, 0, &mut o);
        }
        (21 | 25 | 121, _) => {
            if kind.has_date() {
                fmt_date(days, &mut o);
                if !kind.has_time() {
                    return Some(o);
                }
                o.push(' ');
            }
            write_fraction_time(kind, ticks, &mut o);
        }
        (126 | 127, _) => {
            if kind.has_date() {
                fmt_date(days, &mut o);
                if !kind.has_time() {
                    return Some(o);
                }
                o.push('T');
            }
            match kind {
                DtKind::DateTime | DtKind::SmallDateTime => {
                    let ms = millis(kind, ticks);
                    fmt_time(ticks, 0, &mut o);
                    if ms != 0 {
                        o.push('.');
                        push_num(&mut o, ms, 3);
                    }
                }
                _ => write_fraction_time(kind, ticks, &mut o),
            }
            if let DtKind::DateTimeOffset(_) = kind {
                if style == 127 && offset == 0 {
                    o.push('Z');
                } else {
                    fmt_offset(offset, &mut o);
                }
                return Some(o);
            }
            if style == 127 && kind != DtKind::Time(kind.digits()) {
                o.push('Z');
            }
        }
        _ => return None,
    }
    if let DtKind::DateTimeOffset(_) = kind {
        if matches!(
            style,
            0 | 100 | 9 | 109 | 13 | 113 | 20 | 120 | 21 | 25 | 121
        ) {
            o.push(' ');
            fmt_offset(offset, &mut o);
        }
    }
    Some(o)
}

fn write_fraction_time(kind: DtKind, ticks: i64, o: &mut String) {
    match kind {
        DtKind::DateTime => {
            fmt_time(ticks - ticks % TICKS_PER_SEC, 0, o);
            o.push('.');
            push_num(o, millis(kind, ticks), 3);
        }
        DtKind::SmallDateTime => {
            fmt_time(ticks, 0, o);
            o.push_str(".000");
        }
        k => fmt_time(ticks, k.digits(), o),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calendar_round_trip() {
        assert_eq!(days_from_civil(1, 1, 1), 0);
        assert_eq!(civil_from_days(0), (1, 1, 1));
        for d in [0, 1, 59, 365, 693_595, DAY_1900, DAY_9999, 700_000] {
            let (y, m, dd) = civil_from_days(d);
            assert_eq!(days_from_civil(y, m, dd), d);
        }
        assert_eq!(civil_from_days(DAY_1900), (1900, 1, 1));
        assert_eq!(weekday(DAY_1900), 1); // Monday
        assert_eq!(weekday(days_from_civil(2024, 1, 7)), 0); // Sunday
    }

    #[test]
    fn parsing() {
        let p = parse("2020-05-14").unwrap();
        assert_eq!(p.days, Some(days_from_civil(2020, 5, 14)));
        assert!(!p.has_time);
        let p = parse("20200514 13:45:10.123").unwrap();
        assert_eq!(p.days, Some(days_from_civil(2020, 5, 14)));
        assert_eq!(
            p.ticks,
            13 * TICKS_PER_HOUR + 45 * TICKS_PER_MIN + 10 * TICKS_PER_SEC + 1_230_000
        );
        assert_eq!(p.frac_digits, 3);
        let p = parse("5/14/2020 1:05PM").unwrap();
        assert_eq!(p.days, Some(days_from_civil(2020, 5, 14)));
        assert_eq!(p.ticks, 13 * TICKS_PER_HOUR + 5 * TICKS_PER_MIN);
        let p = parse("Jan 1 2020 12:00AM").unwrap();
        assert_eq!(p.days, Some(days_from_civil(2020, 1, 1)));
        assert_eq!(p.ticks, 0);
        let p = parse("14 May 2020").unwrap();
        assert_eq!(p.days, Some(days_from_civil(2020, 5, 14)));
        let p = parse("2020-05-14T10:00:00+01:30").unwrap();
        assert_eq!(p.offset, Some(90));
        let p = parse("10:15").unwrap();
        assert_eq!(p.days, None);
        assert_eq!(p.ticks, 10 * TICKS_PER_HOUR + 15 * TICKS_PER_MIN);
        let p = parse("Jan 1, 2020").unwrap();
        assert_eq!(p.days, Some(days_from_civil(2020, 1, 1)));
        let p = parse("2020-05-14T10:00:00.1234567-05:30").unwrap();
        assert_eq!(p.offset, Some(-330));
        assert_eq!(p.frac_digits, 7);
        let p = parse("2020-05-14T10:00:00Z").unwrap();
        assert_eq!(p.offset, Some(0));
        let p = parse("12/31/99").unwrap();
        assert_eq!(p.days, Some(days_from_civil(1999, 12, 31)));
        let p = parse("2020/01/02").unwrap();
        assert_eq!(p.days, Some(days_from_civil(2020, 1, 2)));
        let p = parse("12:30:15.5 PM").unwrap();
        assert_eq!(
            p.ticks,
            12 * TICKS_PER_HOUR + 30 * TICKS_PER_MIN + 155 * TICKS_PER_SEC / 10
        );
        let p = parse("2020-05-14 10:00:00:123").unwrap();
        assert_eq!(p.ticks, 10 * TICKS_PER_HOUR + 1_230_000);
        assert!(parse("2020-05-14 10:00:00.12345678").is_none());
        assert!(parse("2020-02-30").is_none());
        assert!(parse("abc").is_none());
        assert!(parse("2020-13-01").is_none());
        assert!(parse("25:00").is_none());
    }

    #[test]
    fn styles() {
        let days = days_from_civil(2020, 1, 5);
        let t = 13 * TICKS_PER_HOUR + 5 * TICKS_PER_MIN + 9 * TICKS_PER_SEC;
        let f = |k, s| format_style(k, days, t, 0, s).unwrap();
        assert_eq!(f(DtKind::DateTime, 0), "Jan  5 2020  1:05PM");
        assert_eq!(f(DtKind::DateTime, 101), "01/05/2020");
        assert_eq!(f(DtKind::DateTime, 1), "01/05/20");
        assert_eq!(f(DtKind::DateTime, 103), "05/01/2020");
        assert_eq!(f(DtKind::DateTime, 104), "05.01.2020");
        assert_eq!(f(DtKind::DateTime, 106), "05 Jan 2020");
        assert_eq!(f(DtKind::DateTime, 107), "Jan 05, 2020");
        assert_eq!(f(DtKind::DateTime, 108), "13:05:09");
        assert_eq!(f(DtKind::DateTime, 112), "20200105");
        assert_eq!(f(DtKind::DateTime, 120), "2020-01-05 13:05:09");
        assert_eq!(f(DtKind::DateTime, 121), "2020-01-05 13:05:09.000");
        assert_eq!(f(DtKind::DateTime, 126), "2020-01-05T13:05:09");
        assert_eq!(f(DtKind::DateTime2(7), 121), "2020-01-05 13:05:09.0000000");
        assert_eq!(f(DtKind::Date, 23), "2020-01-05");
        assert_eq!(f(DtKind::DateTime, 113), "05 Jan 2020 13:05:09:000");
        assert_eq!(f(DtKind::DateTime, 9), "Jan  5 2020  1:05:09:000PM");
    }

    #[test]
    fn datetime_rounding() {
        // .002 -> .003, .005 -> .007, .009 -> .010
        let ms = |m: i64| m * 10_000;
        let r = |m| millis(DtKind::DateTime, round_to_datetime(ms(m)));
        assert_eq!(r(2), 3);
        assert_eq!(r(1), 0);
        assert_eq!(r(5), 7);
        assert_eq!(r(4), 3);
        assert_eq!(round_to_datetime(ms(9)), datetime_units_to_ticks(3));
    }
}
