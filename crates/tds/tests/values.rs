//! Every type through `write_value`/`read_value` at its edges, the exact bytes SQL Server puts
//! on the wire for representative values ([MS-TDS] 2.2.5.5), and the values a type cannot
//! hold (`TdsError::Value`, never a wrapped value).

use tds::types::{type_byte as tb, TypeInfo, DEFAULT_COLLATION};
use tds::value_codec::{read_plp, read_value, write_value, PLP_UNKNOWN_LEN};
use tds::TdsError;
use types::datetime::{
    days_from_civil, TICKS_PER_DAY, TICKS_PER_HOUR, TICKS_PER_MIN, TICKS_PER_SEC,
};
use types::{parse_guid, DataType, Value};

fn day(y: i32, m: u32, d: u32) -> i32 {
    days_from_civil(y, m, d)
}

fn hms(h: i64, m: i64, s: i64, frac_ticks: i64) -> i64 {
    h * TICKS_PER_HOUR + m * TICKS_PER_MIN + s * TICKS_PER_SEC + frac_ticks
}

fn encode(ti: &TypeInfo, v: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    write_value(&mut out, ti, v).unwrap_or_else(|e| panic!("encode {v:?} as {ti:?}: {e}"));
    out
}

fn round_trip(dt: &DataType, v: &Value) {
    for ti in [TypeInfo::for_data_type(dt), TypeInfo::for_column(dt, false)] {
        if v.is_null() && ti != ti.nullable_form() {
            continue;
        }
        let bytes = encode(&ti, v);
        // TYPE_INFO itself round-trips too.
        let mut tib = Vec::new();
        ti.write(&mut tib);
        let mut r = &tib[..];
        let ti2 = TypeInfo::read(&mut r).unwrap();
        assert!(r.is_empty());
        assert_eq!(ti2, ti, "TYPE_INFO of {dt}");
        assert_eq!(ti2.to_data_type().unwrap(), dt.clone(), "type of {ti:?}");
        let mut input = &bytes[..];
        let back =
            read_value(&mut input, &ti2).unwrap_or_else(|e| panic!("decode {v:?} as {dt}: {e}"));
        assert!(input.is_empty(), "{dt}: {} bytes left", input.len());
        assert_eq!(&back, v, "round trip of {dt}");
    }
}

#[test]
fn every_type_round_trips_at_its_edges() {
    let dec = |p, s| DataType::Decimal {
        precision: p,
        scale: s,
    };
    let max38 = 10i128.pow(38) - 1;
    let cases: Vec<(DataType, Vec<Value>)> = vec![
        (DataType::Bit, vec![Value::Bit(false), Value::Bit(true)]),
        (
            DataType::TinyInt,
            vec![Value::TinyInt(0), Value::TinyInt(255)],
        ),
        (
            DataType::SmallInt,
            vec![Value::SmallInt(i16::MIN), Value::SmallInt(i16::MAX)],
        ),
        (
            DataType::Int,
            vec![Value::Int(i32::MIN), Value::Int(i32::MAX), Value::Int(0)],
        ),
        (
            DataType::BigInt,
            vec![Value::BigInt(i64::MIN), Value::BigInt(i64::MAX)],
        ),
        (
            dec(38, 0),
            vec![
                Value::Decimal {
                    mantissa: max38,
                    scale: 0,
                },
                Value::Decimal {
                    mantissa: -max38,
                    scale: 0,
                },
            ],
        ),
        (
            dec(38, 38),
            vec![
                Value::Decimal {
                    mantissa: max38,
                    scale: 38,
                },
                Value::Decimal {
                    mantissa: 0,
                    scale: 38,
                },
            ],
        ),
        (
            dec(9, 2),
            vec![
                Value::Decimal {
                    mantissa: 999_999_999,
                    scale: 2,
                },
                Value::Decimal {
                    mantissa: -1,
                    scale: 2,
                },
            ],
        ),
        (
            dec(19, 4),
            vec![Value::Decimal {
                mantissa: 10i128.pow(19) - 1,
                scale: 4,
            }],
        ),
        (
            dec(28, 10),
            vec![Value::Decimal {
                mantissa: -(10i128.pow(28) - 1),
                scale: 10,
            }],
        ),
        (
            DataType::Numeric {
                precision: 5,
                scale: 5,
            },
            vec![Value::Decimal {
                mantissa: 12345,
                scale: 5,
            }],
        ),
        (
            DataType::Float,
            vec![
                Value::Float(f64::MAX),
                Value::Float(f64::MIN_POSITIVE),
                Value::Float(-1.5e-300),
            ],
        ),
        (
            DataType::Real,
            vec![Value::Real(f32::MAX), Value::Real(-f32::MIN_POSITIVE)],
        ),
        (
            DataType::Money,
            vec![
                Value::Money(i64::MIN),
                Value::Money(i64::MAX),
                Value::Money(-10_000),
            ],
        ),
        (
            DataType::SmallMoney,
            vec![
                Value::SmallMoney(i32::MIN as i64),
                Value::SmallMoney(i32::MAX as i64),
            ],
        ),
        (
            DataType::DateTime,
            vec![
                Value::DateTime {
                    days: day(1753, 1, 1),
                    ticks: 0,
                },
                Value::DateTime {
                    days: day(9999, 12, 31),
                    ticks: hms(23, 59, 59, 9_966_667),
                },
                Value::DateTime {
                    days: day(1900, 1, 1),
                    ticks: types::datetime::datetime_units_to_ticks(1),
                },
            ],
        ),
        (
            DataType::SmallDateTime,
            vec![
                Value::SmallDateTime {
                    days: day(1900, 1, 1),
                    ticks: 0,
                },
                Value::SmallDateTime {
                    days: day(2079, 6, 6),
                    ticks: hms(23, 59, 0, 0),
                },
            ],
        ),
        (
            DataType::Date,
            vec![Value::Date(0), Value::Date(day(9999, 12, 31))],
        ),
        (
            DataType::UniqueIdentifier,
            vec![Value::UniqueIdentifier(*b"0123456789abcdef")],
        ),
        (
            DataType::Char(10),
            vec![
                Value::Char("abc       ".into()),
                Value::Char("é€ÿ       ".into()),
            ],
        ),
        (
            DataType::VarChar(Some(8000)),
            vec![
                Value::VarChar("x".repeat(8000)),
                Value::VarChar(String::new()),
            ],
        ),
        (
            DataType::VarChar(None),
            vec![
                Value::VarChar("y".repeat(100_000)),
                Value::VarChar(String::new()),
                Value::VarChar("ü".into()),
            ],
        ),
        (DataType::NChar(3), vec![Value::NChar("日😀".into())]),
        (
            DataType::NVarChar(Some(4000)),
            vec![
                Value::NVarChar("ж".repeat(4000)),
                Value::NVarChar(String::new()),
            ],
        ),
        (
            DataType::NVarChar(None),
            vec![
                Value::NVarChar("😀".repeat(30_000)),
                Value::NVarChar(String::new()),
            ],
        ),
        (DataType::Binary(4), vec![Value::Binary(vec![0, 1, 2, 255])]),
        (
            DataType::VarBinary(Some(8000)),
            vec![Value::VarBinary(vec![7; 8000]), Value::VarBinary(vec![])],
        ),
        (
            DataType::VarBinary(None),
            vec![Value::VarBinary(vec![9; 70_000]), Value::VarBinary(vec![])],
        ),
    ];
    let mut cases = cases;
    for s in 0..=7u8 {
        let unit = 10i64.pow(7 - s as u32);
        let last = TICKS_PER_DAY - unit;
        cases.push((DataType::Time(s), vec![Value::Time(0), Value::Time(last)]));
        cases.push((
            DataType::DateTime2(s),
            vec![
                Value::DateTime2 { days: 0, ticks: 0 },
                Value::DateTime2 {
                    days: day(9999, 12, 31),
                    ticks: last,
                },
            ],
        ));
        cases.push((
            DataType::DateTimeOffset(s),
            vec![
                // Local minimum with a negative offset (UTC is later), local maximum with a
                // positive one (UTC is earlier): both instants stay in range.
                Value::DateTimeOffset {
                    days: 0,
                    ticks: 0,
                    offset_minutes: -840,
                },
                Value::DateTimeOffset {
                    days: day(9999, 12, 31),
                    ticks: last,
                    offset_minutes: 840,
                },
                Value::DateTimeOffset {
                    days: day(2024, 2, 29),
                    ticks: hms(0, 30, 0, 0),
                    offset_minutes: 330,
                },
            ],
        ));
    }
    for (dt, values) in &cases {
        round_trip(dt, &Value::Null);
        for v in values {
            round_trip(dt, v);
        }
    }
}

#[test]
fn type_info_bytes_are_sql_servers() {
    let ti = |dt: DataType, nullable| {
        let mut out = Vec::new();
        TypeInfo::for_column(&dt, nullable).write(&mut out);
        out
    };
    // SQL_Latin1_General_CP1_CI_AS.
    assert_eq!(DEFAULT_COLLATION, [0x09, 0x04, 0xD0, 0x00, 0x34]);
    assert_eq!(
        ti(DataType::VarChar(Some(10)), true),
        [0xA7, 10, 0, 0x09, 0x04, 0xD0, 0x00, 0x34]
    );
    assert_eq!(
        ti(DataType::NVarChar(Some(10)), true),
        [0xE7, 20, 0, 0x09, 0x04, 0xD0, 0x00, 0x34]
    );
    assert_eq!(
        ti(DataType::NVarChar(None), true),
        [0xE7, 0xFF, 0xFF, 0x09, 0x04, 0xD0, 0x00, 0x34]
    );
    assert_eq!(ti(DataType::VarBinary(None), true), [0xA5, 0xFF, 0xFF]);
    assert_eq!(ti(DataType::Binary(16), false), [0xAD, 16, 0]);
    assert_eq!(ti(DataType::Int, false), [0x38]);
    assert_eq!(ti(DataType::Int, true), [0x26, 4]);
    assert_eq!(ti(DataType::BigInt, false), [0x7F]);
    assert_eq!(ti(DataType::Bit, true), [0x68, 1]);
    assert_eq!(ti(DataType::Float, true), [0x6D, 8]);
    assert_eq!(ti(DataType::Real, false), [0x3B]);
    assert_eq!(ti(DataType::Money, true), [0x6E, 8]);
    assert_eq!(ti(DataType::SmallMoney, false), [0x7A]);
    assert_eq!(ti(DataType::DateTime, false), [0x3D]);
    assert_eq!(ti(DataType::SmallDateTime, true), [0x6F, 4]);
    assert_eq!(
        ti(
            DataType::Decimal {
                precision: 18,
                scale: 2
            },
            false
        ),
        [0x6A, 9, 18, 2]
    );
    assert_eq!(
        ti(
            DataType::Numeric {
                precision: 38,
                scale: 0
            },
            true
        ),
        [0x6C, 17, 38, 0]
    );
    assert_eq!(ti(DataType::Date, false), [0x28]);
    assert_eq!(ti(DataType::Time(3), true), [0x29, 3]);
    assert_eq!(ti(DataType::DateTime2(7), true), [0x2A, 7]);
    assert_eq!(ti(DataType::DateTimeOffset(0), true), [0x2B, 0]);
    assert_eq!(ti(DataType::UniqueIdentifier, false), [0x24, 16]);
    // An untyped NULL (SELECT NULL) is announced as int.
    assert_eq!(ti(DataType::Null, true), [0x26, 4]);
}

#[test]
fn value_bytes_are_sql_servers() {
    let ti = TypeInfo::for_data_type;
    // money: high 4 bytes first, then the low 4 ([MS-TDS] 2.2.5.5.1.4).
    assert_eq!(
        encode(&ti(&DataType::Money), &Value::Money(10_000)),
        [8, 0, 0, 0, 0, 0x10, 0x27, 0, 0]
    );
    assert_eq!(
        encode(&ti(&DataType::Money), &Value::Money(-10_000)),
        [8, 0xFF, 0xFF, 0xFF, 0xFF, 0xF0, 0xD8, 0xFF, 0xFF]
    );
    assert_eq!(
        encode(&ti(&DataType::SmallMoney), &Value::SmallMoney(-1)),
        [4, 0xFF, 0xFF, 0xFF, 0xFF]
    );
    // datetime: days since 1900-01-01, then 1/300 s units.
    let dt = |days, ticks| Value::DateTime { days, ticks };
    assert_eq!(
        encode(
            &ti(&DataType::DateTime),
            &dt(day(1900, 1, 1), types::datetime::datetime_units_to_ticks(1))
        ),
        [8, 0, 0, 0, 0, 1, 0, 0, 0]
    );
    assert_eq!(
        encode(
            &ti(&DataType::DateTime),
            &dt(day(1899, 12, 31), hms(0, 0, 1, 0))
        ),
        [8, 0xFF, 0xFF, 0xFF, 0xFF, 44, 1, 0, 0]
    );
    // smalldatetime: u16 days, u16 minutes.
    assert_eq!(
        encode(
            &ti(&DataType::SmallDateTime),
            &Value::SmallDateTime {
                days: day(1900, 1, 2),
                ticks: hms(1, 1, 0, 0)
            }
        ),
        [4, 1, 0, 61, 0]
    );
    // date: 3 bytes of days since 0001-01-01.
    assert_eq!(encode(&ti(&DataType::Date), &Value::Date(0)), [3, 0, 0, 0]);
    assert_eq!(
        encode(&ti(&DataType::Date), &Value::Date(day(9999, 12, 31))),
        [3, 0xDA, 0xB9, 0x37]
    );
    // time(7) 12:00 = 432,000,000,000 units of 100 ns, 5 bytes.
    assert_eq!(
        encode(&ti(&DataType::Time(7)), &Value::Time(hms(12, 0, 0, 0))),
        [5, 0x00, 0xE0, 0x34, 0x95, 0x64]
    );
    // time(0): 3 bytes of seconds.
    assert_eq!(
        encode(&ti(&DataType::Time(0)), &Value::Time(hms(0, 1, 1, 0))),
        [3, 61, 0, 0]
    );
    // datetimeoffset: UTC date and time, then the offset in minutes. 2025-01-01 00:00 +01:00
    // is 2024-12-31 23:00 UTC.
    let v = Value::DateTimeOffset {
        days: day(2025, 1, 1),
        ticks: 0,
        offset_minutes: 60,
    };
    let mut want = vec![8u8];
    want.extend_from_slice(&(23u32 * 3600).to_le_bytes()[..3]);
    want.extend_from_slice(&(day(2024, 12, 31) as u32).to_le_bytes()[..3]);
    want.extend_from_slice(&60i16.to_le_bytes());
    assert_eq!(encode(&ti(&DataType::DateTimeOffset(0)), &v), want);
    // uniqueidentifier: the first three groups little-endian (as CAST(g AS binary(16))).
    let g = parse_guid("6F9619FF-8B86-D011-B42D-00C04FC964FF").unwrap();
    assert_eq!(
        encode(
            &ti(&DataType::UniqueIdentifier),
            &Value::UniqueIdentifier(g)
        ),
        [
            16, 0xFF, 0x19, 0x96, 0x6F, 0x86, 0x8B, 0x11, 0xD0, 0xB4, 0x2D, 0x00, 0xC0, 0x4F, 0xC9,
            0x64, 0xFF
        ]
    );
    // decimal(5,2) 123.45: length 5, sign 1 (positive), 12345 little-endian in 4 bytes.
    let d52 = DataType::Decimal {
        precision: 5,
        scale: 2,
    };
    assert_eq!(
        encode(
            &ti(&d52),
            &Value::Decimal {
                mantissa: 12345,
                scale: 2
            }
        ),
        [5, 1, 0x39, 0x30, 0, 0]
    );
    // -1.5 rescaled to the column's scale: -150.
    assert_eq!(
        encode(
            &ti(&d52),
            &Value::Decimal {
                mantissa: -15,
                scale: 1
            }
        ),
        [5, 0, 150, 0, 0, 0]
    );
    // char(5) is sent blank-padded; binary(3) zero-padded.
    assert_eq!(
        encode(&ti(&DataType::Char(5)), &Value::VarChar("ab".into())),
        [5, 0, b'a', b'b', b' ', b' ', b' ']
    );
    assert_eq!(
        encode(&ti(&DataType::Binary(3)), &Value::VarBinary(vec![1])),
        [3, 0, 1, 0, 0]
    );
    // varchar is code page 1252, nvarchar UTF-16LE.
    assert_eq!(
        encode(
            &ti(&DataType::VarChar(Some(5))),
            &Value::VarChar("é€".into())
        ),
        [2, 0, 0xE9, 0x80]
    );
    assert_eq!(
        encode(
            &ti(&DataType::NVarChar(Some(5))),
            &Value::NVarChar("é".into())
        ),
        [2, 0, 0xE9, 0x00]
    );
    // NULL markers: 0 for BYTELEN, 0xFFFF for USHORTLEN, PLP_NULL for max types.
    assert_eq!(encode(&ti(&DataType::Int), &Value::Null), [0]);
    assert_eq!(
        encode(&ti(&DataType::VarChar(Some(5))), &Value::Null),
        [0xFF, 0xFF]
    );
    assert_eq!(
        encode(&ti(&DataType::VarChar(None)), &Value::Null),
        [0xFF; 8]
    );
}

#[test]
fn plp_framing() {
    let ti = TypeInfo::for_data_type(&DataType::VarChar(None));
    // Known total length, one chunk, terminator.
    assert_eq!(
        encode(&ti, &Value::VarChar("ab".into())),
        [2, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, b'a', b'b', 0, 0, 0, 0]
    );
    // Empty: total 0 then the terminator, no chunk.
    assert_eq!(encode(&ti, &Value::VarChar(String::new())), [0; 12]);
    // PLP_UNKNOWN_LEN with several chunks, as clients stream parameters.
    let mut b = PLP_UNKNOWN_LEN.to_le_bytes().to_vec();
    for chunk in [&b"hel"[..], b"lo", b" world"] {
        b.extend_from_slice(&(chunk.len() as u32).to_le_bytes());
        b.extend_from_slice(chunk);
    }
    b.extend_from_slice(&[0, 0, 0, 0]);
    assert_eq!(
        read_value(&mut &b[..], &ti).unwrap(),
        Value::VarChar("hello world".into())
    );
    // A known total that disagrees with the chunks is malformed.
    let mut bad = b.clone();
    bad[..8].copy_from_slice(&5u64.to_le_bytes());
    assert!(matches!(
        read_plp(&mut &bad[..]),
        Err(TdsError::Malformed(_))
    ));
    // A missing terminator is truncated input.
    assert!(matches!(
        read_plp(&mut &b[..b.len() - 4]),
        Err(TdsError::Truncated(_))
    ));
    // A total over 2 GB is refused before reading anything.
    let mut huge = (1u64 << 40).to_le_bytes().to_vec();
    huge.extend_from_slice(&[0, 0, 0, 0]);
    assert!(matches!(
        read_plp(&mut &huge[..]),
        Err(TdsError::Malformed(_))
    ));
}

fn value_error(ti: &TypeInfo, v: &Value) {
    let mut out = Vec::new();
    match write_value(&mut out, ti, v) {
        Err(TdsError::Value(_)) => {}
        other => panic!("{v:?} as {ti:?}: expected a value error, got {other:?} ({out:?})"),
    }
}

#[test]
fn values_the_type_cannot_hold_are_errors() {
    let ti = TypeInfo::for_data_type;
    // datetime before 1753 (a date value converted on the way: no silent wrap).
    value_error(
        &ti(&DataType::DateTime),
        &Value::DateTime {
            days: day(1752, 12, 31),
            ticks: 0,
        },
    );
    value_error(&ti(&DataType::DateTime), &Value::Date(day(1700, 1, 1)));
    value_error(
        &ti(&DataType::SmallDateTime),
        &Value::SmallDateTime {
            days: day(2079, 6, 7),
            ticks: 0,
        },
    );
    value_error(
        &ti(&DataType::SmallDateTime),
        &Value::SmallDateTime {
            days: day(1899, 12, 31),
            ticks: 0,
        },
    );
    // decimal beyond the announced precision.
    value_error(
        &ti(&DataType::Decimal {
            precision: 3,
            scale: 0,
        }),
        &Value::Decimal {
            mantissa: 1000,
            scale: 0,
        },
    );
    value_error(
        &ti(&DataType::Decimal {
            precision: 5,
            scale: 2,
        }),
        &Value::Int(1000),
    );
    value_error(
        &ti(&DataType::SmallMoney),
        &Value::SmallMoney(i32::MAX as i64 + 1),
    );
    value_error(&ti(&DataType::TinyInt), &Value::Int(256));
    // strings longer than the announced length.
    value_error(
        &ti(&DataType::VarChar(Some(3))),
        &Value::VarChar("abcd".into()),
    );
    value_error(&ti(&DataType::NChar(2)), &Value::NVarChar("abc".into()));
    value_error(&ti(&DataType::Binary(2)), &Value::VarBinary(vec![1, 2, 3]));
    // NULL has no representation in a fixed-length type.
    value_error(&TypeInfo::for_column(&DataType::Int, false), &Value::Null);
    // Non-finite floats.
    value_error(&ti(&DataType::Float), &Value::Float(f64::NAN));
    // datetimeoffset with an offset out of range.
    value_error(
        &ti(&DataType::DateTimeOffset(7)),
        &Value::DateTimeOffset {
            days: 1000,
            ticks: 0,
            offset_minutes: 841,
        },
    );
}

#[test]
fn values_are_converted_to_the_announced_type() {
    let ti = TypeInfo::for_data_type;
    let rt = |dt: &DataType, v: Value| read_value(&mut &encode(&ti(dt), &v)[..], &ti(dt)).unwrap();
    assert_eq!(rt(&DataType::BigInt, Value::Int(7)), Value::BigInt(7));
    assert_eq!(
        rt(&DataType::NVarChar(Some(10)), Value::VarChar("x".into())),
        Value::NVarChar("x".into())
    );
    // datetime2 to datetime rounds to SQL Server's .000/.003/.007 grid: .998 -> .997,
    // .999 -> the next day's midnight.
    let d = day(2020, 2, 28);
    assert_eq!(
        rt(
            &DataType::DateTime,
            Value::DateTime2 {
                days: d,
                ticks: hms(23, 59, 59, 9_980_000)
            }
        ),
        Value::DateTime {
            days: d,
            ticks: hms(23, 59, 59, 9_966_667)
        }
    );
    assert_eq!(
        rt(
            &DataType::DateTime,
            Value::DateTime2 {
                days: d,
                ticks: hms(23, 59, 59, 9_990_000)
            }
        ),
        Value::DateTime {
            days: d + 1,
            ticks: 0
        }
    );
    assert_eq!(
        rt(
            &DataType::DateTime,
            Value::DateTime2 {
                days: d,
                ticks: hms(0, 0, 0, 20_000)
            }
        ),
        Value::DateTime {
            days: d,
            ticks: types::datetime::datetime_units_to_ticks(1)
        }
    );
    // time(0) rounds half up.
    assert_eq!(
        rt(&DataType::Time(0), Value::Time(hms(1, 2, 3, 5_000_000))),
        Value::Time(hms(1, 2, 4, 0))
    );
}

#[test]
fn malformed_values_are_rejected() {
    let ti = TypeInfo::for_data_type;
    let read = |dt: &DataType, b: &[u8]| read_value(&mut &b[..], &ti(dt));
    // datetime time part beyond one day of 1/300 s units.
    let mut b = vec![8, 0, 0, 0, 0];
    b.extend_from_slice(&(300u32 * 86_400).to_le_bytes());
    assert!(matches!(
        read(&DataType::DateTime, &b),
        Err(TdsError::Value(_))
    ));
    // datetime before 1753.
    let mut b = vec![8];
    b.extend_from_slice(&(day(1752, 1, 1) - day(1900, 1, 1)).to_le_bytes());
    b.extend_from_slice(&[0, 0, 0, 0]);
    assert!(matches!(
        read(&DataType::DateTime, &b),
        Err(TdsError::Value(_))
    ));
    // decimal magnitude over its precision; bad sign byte.
    let d = DataType::Decimal {
        precision: 2,
        scale: 0,
    };
    assert!(matches!(
        read(&d, &[5, 1, 100, 0, 0, 0]),
        Err(TdsError::Value(_))
    ));
    assert!(matches!(
        read(&d, &[5, 2, 1, 0, 0, 0]),
        Err(TdsError::Malformed(_))
    ));
    // INTN value whose length differs from the TYPE_INFO.
    assert!(matches!(
        read(&DataType::Int, &[2, 1, 0]),
        Err(TdsError::Malformed(_))
    ));
    // date past 9999-12-31; time past midnight.
    assert!(matches!(
        read(&DataType::Date, &[3, 0xFF, 0xFF, 0xFF]),
        Err(TdsError::Value(_))
    ));
    assert!(matches!(
        read(&DataType::Time(0), &[3, 0x80, 0x51, 0x01]),
        Err(TdsError::Value(_))
    ));
    // odd UTF-16 and lone surrogates.
    assert!(matches!(
        read(&DataType::NVarChar(Some(5)), &[1, 0, b'a']),
        Err(TdsError::Malformed(_))
    ));
    assert!(matches!(
        read(&DataType::NVarChar(Some(5)), &[2, 0, 0x00, 0xD8]),
        Err(TdsError::Value(_))
    ));
    // truncated.
    assert!(matches!(
        read(&DataType::VarChar(Some(5)), &[5, 0, b'a']),
        Err(TdsError::Truncated(_))
    ));
    assert!(matches!(
        read(&DataType::BigInt, &[]),
        Err(TdsError::Truncated(_))
    ));
}

#[test]
fn legacy_and_variant_parameter_types_decode() {
    // TEXT (LONGLEN + collation) arrives as varchar(max), NTEXT as nvarchar(max), IMAGE as
    // varbinary(max), XML (PLP UTF-16, optional BOM) as nvarchar(max).
    let mut b = vec![tb::TEXT];
    b.extend_from_slice(&0x7FFF_FFFFu32.to_le_bytes());
    b.extend_from_slice(&DEFAULT_COLLATION);
    b.extend_from_slice(&3u32.to_le_bytes());
    b.extend_from_slice(b"a\xE9c");
    let mut r = &b[..];
    let ti = TypeInfo::read(&mut r).unwrap();
    assert_eq!(ti.to_data_type().unwrap(), DataType::VarChar(None));
    assert_eq!(
        read_value(&mut r, &ti).unwrap(),
        Value::VarChar("aéc".into())
    );
    assert!(r.is_empty());

    let mut b = vec![tb::IMAGE];
    b.extend_from_slice(&0x7FFF_FFFFu32.to_le_bytes());
    b.extend_from_slice(&u32::MAX.to_le_bytes()); // NULL
    let mut r = &b[..];
    let ti = TypeInfo::read(&mut r).unwrap();
    assert_eq!(ti.to_data_type().unwrap(), DataType::VarBinary(None));
    assert_eq!(read_value(&mut r, &ti).unwrap(), Value::Null);

    let mut b = vec![tb::XML, 0];
    let doc: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain("<a/>".encode_utf16().flat_map(|u| u.to_le_bytes()))
        .collect();
    b.extend_from_slice(&(doc.len() as u64).to_le_bytes());
    b.extend_from_slice(&(doc.len() as u32).to_le_bytes());
    b.extend_from_slice(&doc);
    b.extend_from_slice(&[0; 4]);
    let mut r = &b[..];
    let ti = TypeInfo::read(&mut r).unwrap();
    assert_eq!(ti.to_data_type().unwrap(), DataType::NVarChar(None));
    assert_eq!(
        read_value(&mut r, &ti).unwrap(),
        Value::NVarChar("<a/>".into())
    );

    // Legacy short VARCHAR (0x27, BYTELEN, no collation).
    let b = [tb::VARCHAR, 10, 2, b'h', b'i'];
    let mut r = &b[..];
    let ti = TypeInfo::read(&mut r).unwrap();
    assert_eq!(ti.to_data_type().unwrap(), DataType::VarChar(Some(10)));
    assert_eq!(
        read_value(&mut r, &ti).unwrap(),
        Value::VarChar("hi".into())
    );

    // sql_variant holding an int, an nvarchar and a decimal; and NULL.
    let ti = TypeInfo::read(&mut &[tb::SSVARIANT, 0x49, 0x1F, 0, 0][..]).unwrap();
    assert!(matches!(ti.to_data_type(), Err(TdsError::Unsupported(_))));
    let mut b = vec![];
    b.extend_from_slice(&6u32.to_le_bytes());
    b.extend_from_slice(&[tb::INT4, 0]);
    b.extend_from_slice(&42i32.to_le_bytes());
    b.extend_from_slice(&13u32.to_le_bytes());
    b.extend_from_slice(&[tb::NVARCHAR, 7]);
    b.extend_from_slice(&DEFAULT_COLLATION);
    b.extend_from_slice(&[20, 0, b'h', 0, b'i', 0]);
    b.extend_from_slice(&11u32.to_le_bytes());
    b.extend_from_slice(&[tb::DECIMALN, 2, 10, 2, 1, 0x39, 0x30, 0, 0, 0, 0]);
    b.extend_from_slice(&0u32.to_le_bytes());
    let mut r = &b[..];
    assert_eq!(read_value(&mut r, &ti).unwrap(), Value::Int(42));
    assert_eq!(
        read_value(&mut r, &ti).unwrap(),
        Value::NVarChar("hi".into())
    );
    let v = read_value(&mut r, &ti);
    assert_eq!(
        v.unwrap(),
        Value::Decimal {
            mantissa: 12345,
            scale: 2
        }
    );
    assert_eq!(read_value(&mut r, &ti).unwrap(), Value::Null);
    assert!(r.is_empty());
    // And our own variant writer round-trips.
    for v in [
        Value::Int(-3),
        Value::NVarChar("x".into()),
        Value::Date(5),
        Value::Decimal {
            mantissa: -5,
            scale: 1,
        },
    ] {
        let mut out = Vec::new();
        write_value(&mut out, &ti, &v).unwrap();
        assert_eq!(read_value(&mut &out[..], &ti).unwrap(), v);
    }
}

#[test]
fn unsupported_type_infos() {
    assert!(matches!(
        TypeInfo::read(&mut &[tb::TVP][..]),
        Err(TdsError::Unsupported(_))
    ));
    assert!(matches!(
        TypeInfo::read(&mut &[tb::UDT][..]),
        Err(TdsError::Unsupported(_))
    ));
    assert!(matches!(
        TypeInfo::read(&mut &[0x01][..]),
        Err(TdsError::Malformed(_))
    ));
    // INTN with a length no integer has.
    assert!(matches!(
        TypeInfo::read(&mut &[tb::INTN, 3][..]),
        Err(TdsError::Malformed(_))
    ));
    // decimal precision 39.
    assert!(matches!(
        TypeInfo::read(&mut &[tb::DECIMALN, 17, 39, 0][..]),
        Err(TdsError::Malformed(_))
    ));
    // a fixed-length char type cannot be PLP.
    assert!(matches!(
        TypeInfo::read(&mut &[tb::BIGCHAR, 0xFF, 0xFF, 9, 4, 0xD0, 0, 0x34][..]),
        Err(TdsError::Malformed(_))
    ));
}
