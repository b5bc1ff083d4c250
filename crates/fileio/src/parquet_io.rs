//! Parquet files in and out, through Arrow record batches.
//!
//! Writing (`CREATE EXTERNAL TABLE ... AS SELECT`): one column per SQL column, mapped to the
//! Parquet type a reader such as DuckDB, Spark or Trino understands:
//!
//! | SQL | Parquet (Arrow) |
//! | --- | --- |
//! | bit | BOOLEAN |
//! | tinyint | INT32 (UINT_8) |
//! | smallint / int / bigint | INT32 (INT_16) / INT32 / INT64 |
//! | decimal(p,s), numeric(p,s) | DECIMAL(p,s) |
//! | money / smallmoney | DECIMAL(19,4) / DECIMAL(10,4) |
//! | float / real | DOUBLE / FLOAT |
//! | char, varchar, nchar, nvarchar | BYTE_ARRAY (STRING, UTF-8) |
//! | binary, varbinary | BYTE_ARRAY |
//! | date | INT32 (DATE) |
//! | time(n) | INT64 (TIME, nanoseconds) |
//! | datetime, smalldatetime, datetime2(n) | INT64 (TIMESTAMP, microseconds): the 7th fractional digit of datetime2(7) is not kept |
//! | datetimeoffset(n), uniqueidentifier | BYTE_ARRAY (STRING) in SQL Server's text form |
//!
//! Each field also carries its SQL type in the field metadata under [`SQL_TYPE_KEY`], so a file
//! latchkey wrote reads back with the types it was written with (money stays money).
//!
//! Reading (`OPENROWSET(BULK 'f.parquet', FORMAT = 'PARQUET')`) without a `WITH` clause maps
//! Parquet types to SQL types as SQL Server's serverless readers do (INT32 → int, INT64 → bigint,
//! DECIMAL → decimal, BOOLEAN → bit, DOUBLE → float, FLOAT → real, DATE → date, TIME → time(7),
//! TIMESTAMP / INT96 → datetime2(7), STRING → nvarchar(max), BYTE_ARRAY → varbinary(max),
//! UINT_8 → tinyint, INT_8/INT_16 → smallint, UINT_16 → int, UINT_32 → bigint, UINT_64 →
//! decimal(20,0)); nested types (LIST, MAP, STRUCT) are refused with Msg 40517. With a `WITH`
//! clause, each named column is read from the file column of that name (case-insensitive) and
//! converted to the declared type.

use std::collections::HashMap;
use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::{
    BinaryBuilder, BooleanBuilder, Date32Builder, Decimal128Builder, Float32Builder,
    Float64Builder, Int16Builder, Int32Builder, Int64Builder, StringBuilder,
    Time64NanosecondBuilder, TimestampMicrosecondBuilder, UInt8Builder,
};
use arrow_array::{cast::AsArray, types as at, Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType as ArrowType, Field, Schema, TimeUnit};
use common::{SqlError, SqlResult};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use types::datetime::{days_from_civil, TICKS_PER_DAY};
use types::{DataType, TypeParam, Value};

/// Field metadata key holding the SQL type a column was written with.
pub const SQL_TYPE_KEY: &str = "latchkey.sql_type";

/// Rows per record batch when writing.
const WRITE_BATCH_ROWS: usize = 8192;

/// Days from 0001-01-01 to 1970-01-01 (Arrow dates and timestamps count from the Unix epoch).
const UNIX_EPOCH_DAY: i32 = days_from_civil(1970, 1, 1);

/// Compression of written files (`DATA_COMPRESSION` of the external file format).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParquetCompression {
    Snappy,
    None,
}

/// One column of a file as latchkey sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct FileColumn {
    pub name: String,
    pub data_type: DataType,
}

fn io_error(path: &Path, e: std::io::Error) -> SqlError {
    match e.kind() {
        // SQL Server's bulk rowset word for a file it cannot open
        std::io::ErrorKind::NotFound | std::io::ErrorKind::PermissionDenied => {
            SqlError::new(4860, &[&path.display()])
        }
        std::io::ErrorKind::AlreadyExists => SqlError::custom(
            15842,
            16,
            1,
            format!("Cannot write to the external location '{}': the file already exists.", path.display()),
        ),
        _ => SqlError::custom(
            4861,
            16,
            1,
            format!("Cannot bulk load because the file \"{}\" could not be opened. Operating system error: {e}.", path.display()),
        ),
    }
}

fn format_error(path: &Path, e: impl std::fmt::Display) -> SqlError {
    SqlError::custom(
        13807,
        16,
        1,
        format!(
            "Content of directory on path '{}' cannot be listed or the file is not a valid Parquet file: {e}",
            path.display()
        ),
    )
}

fn arrow_type(t: &DataType) -> ArrowType {
    match t {
        DataType::Bit => ArrowType::Boolean,
        DataType::TinyInt => ArrowType::UInt8,
        DataType::SmallInt => ArrowType::Int16,
        DataType::Int => ArrowType::Int32,
        DataType::BigInt => ArrowType::Int64,
        DataType::Decimal { precision, scale } | DataType::Numeric { precision, scale } => {
            ArrowType::Decimal128(*precision, *scale as i8)
        }
        DataType::Money => ArrowType::Decimal128(19, 4),
        DataType::SmallMoney => ArrowType::Decimal128(10, 4),
        DataType::Float => ArrowType::Float64,
        DataType::Real => ArrowType::Float32,
        DataType::Binary(_) | DataType::VarBinary(_) => ArrowType::Binary,
        DataType::Date => ArrowType::Date32,
        DataType::Time(_) => ArrowType::Time64(TimeUnit::Nanosecond),
        DataType::DateTime | DataType::SmallDateTime | DataType::DateTime2(_) => {
            ArrowType::Timestamp(TimeUnit::Microsecond, None)
        }
        // strings, and the types kept in their text form
        _ => ArrowType::Utf8,
    }
}

/// Parses a type as [`DataType`]'s `Display` writes it (`decimal(18,2)`, `varchar(max)`).
fn parse_type_text(s: &str) -> Option<DataType> {
    let (name, params) = match s.find('(') {
        Some(i) => (&s[..i], s[i + 1..].strip_suffix(')')?),
        None => (s, ""),
    };
    let mut ps = Vec::new();
    for p in params.split(',').filter(|p| !p.trim().is_empty()) {
        let p = p.trim();
        if p.eq_ignore_ascii_case("max") {
            ps.push(TypeParam::Max);
        } else {
            ps.push(TypeParam::Num(p.parse().ok()?));
        }
    }
    DataType::from_name(name, &ps).ok()
}

/// The SQL type a Parquet field reads as when no `WITH` clause names one.
fn sql_type_of(field: &Field) -> SqlResult<DataType> {
    if let Some(t) = field
        .metadata()
        .get(SQL_TYPE_KEY)
        .and_then(|s| parse_type_text(s))
    {
        return Ok(t);
    }
    Ok(match field.data_type() {
        ArrowType::Boolean => DataType::Bit,
        ArrowType::UInt8 => DataType::TinyInt,
        ArrowType::Int8 | ArrowType::Int16 => DataType::SmallInt,
        ArrowType::UInt16 | ArrowType::Int32 => DataType::Int,
        ArrowType::UInt32 | ArrowType::Int64 => DataType::BigInt,
        ArrowType::UInt64 => DataType::Decimal {
            precision: 20,
            scale: 0,
        },
        ArrowType::Float16 | ArrowType::Float32 => DataType::Real,
        ArrowType::Float64 => DataType::Float,
        ArrowType::Decimal128(p, s) if *p <= 38 && *s >= 0 => DataType::Decimal {
            precision: *p,
            scale: *s as u8,
        },
        ArrowType::Utf8 | ArrowType::LargeUtf8 | ArrowType::Utf8View => DataType::NVarChar(None),
        ArrowType::Binary | ArrowType::LargeBinary | ArrowType::BinaryView => {
            DataType::VarBinary(None)
        }
        ArrowType::FixedSizeBinary(n) if *n > 0 && *n <= 8000 => DataType::Binary(*n as u32),
        ArrowType::Date32 => DataType::Date,
        ArrowType::Time32(_) | ArrowType::Time64(_) => DataType::Time(7),
        ArrowType::Timestamp(_, _) => DataType::DateTime2(7),
        other => {
            return Err(SqlError::unsupported(format!(
                "OPENROWSET of Parquet column '{}' of type {other}",
                field.name()
            )))
        }
    })
}

/// The Parquet files of a location: the file itself, or the `*.parquet` files of a folder in
/// name order (a CETAS folder holds one or more).
pub fn parquet_files(path: &Path) -> SqlResult<Vec<std::path::PathBuf>> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let rd = std::fs::read_dir(path).map_err(|e| io_error(path, e))?;
    let mut v: Vec<std::path::PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("parquet"))
        })
        .collect();
    v.sort();
    if v.is_empty() {
        return Err(SqlError::new(4860, &[&path.display()]));
    }
    Ok(v)
}

/// Columns and SQL types of a Parquet file (the first file of a folder).
pub fn read_schema(path: &Path) -> SqlResult<Vec<FileColumn>> {
    let files = parquet_files(path)?;
    let path = files[0].as_path();
    let file = File::open(path).map_err(|e| io_error(path, e))?;
    let builder =
        ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| format_error(path, e))?;
    builder
        .schema()
        .fields()
        .iter()
        .map(|f| {
            Ok(FileColumn {
                name: f.name().clone(),
                data_type: sql_type_of(f)?,
            })
        })
        .collect()
}

/// All rows of a Parquet file, as `columns` (each found by name, case-insensitively, and
/// converted to its type).
pub fn read_rows(path: &Path, columns: &[FileColumn]) -> SqlResult<Vec<Vec<Value>>> {
    let mut rows = Vec::new();
    for f in parquet_files(path)? {
        read_file_rows(&f, columns, &mut rows)?;
    }
    Ok(rows)
}

fn read_file_rows(
    path: &Path,
    columns: &[FileColumn],
    rows: &mut Vec<Vec<Value>>,
) -> SqlResult<()> {
    let file = File::open(path).map_err(|e| io_error(path, e))?;
    let builder =
        ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| format_error(path, e))?;
    let schema = builder.schema().clone();
    let mut sources = Vec::with_capacity(columns.len());
    for c in columns {
        let found = schema
            .fields()
            .iter()
            .position(|f| f.name().eq_ignore_ascii_case(&c.name));
        let Some(i) = found else {
            // a column the file lacks reads as NULL, as SQL Server's Parquet reader does
            sources.push(None);
            continue;
        };
        sources.push(Some((i, sql_type_of(&schema.fields()[i])?)));
    }
    let reader = builder.build().map_err(|e| format_error(path, e))?;
    for batch in reader {
        let batch = batch.map_err(|e| format_error(path, e))?;
        let start = rows.len();
        rows.extend((0..batch.num_rows()).map(|_| Vec::with_capacity(columns.len())));
        for (c, src) in columns.iter().zip(&sources) {
            match src {
                None => rows[start..].iter_mut().for_each(|r| r.push(Value::Null)),
                Some((i, file_type)) => {
                    let array = batch.column(*i);
                    for (r, row) in rows[start..].iter_mut().enumerate() {
                        let v = value_at(array, r, file_type)?;
                        let v = if v.is_null() || *file_type == c.data_type {
                            v
                        } else {
                            v.cast(&c.data_type)?
                        };
                        row.push(v);
                    }
                }
            }
        }
    }
    Ok(())
}

fn timestamp_value(v: i64, per_sec: i64) -> Value {
    // value since the Unix epoch in 1/per_sec seconds → days since 0001-01-01 + 100 ns ticks
    let ticks_per_unit = 10_000_000 / per_sec.min(10_000_000);
    let ticks = if per_sec > 10_000_000 {
        v.div_euclid(per_sec / 10_000_000)
    } else {
        v.saturating_mul(ticks_per_unit)
    };
    let days = ticks.div_euclid(TICKS_PER_DAY);
    let ticks = ticks.rem_euclid(TICKS_PER_DAY);
    Value::DateTime2 {
        days: (days + UNIX_EPOCH_DAY as i64).clamp(i32::MIN as i64, i32::MAX as i64) as i32,
        ticks,
    }
}

fn text_value(s: &str, t: &DataType) -> SqlResult<Value> {
    let v = Value::NVarChar(s.to_string());
    match t {
        DataType::NVarChar(_) => Ok(v),
        _ => v.cast(t),
    }
}

/// Row `r` of `array` as the SQL type `t` the file's column maps to.
fn value_at(array: &ArrayRef, r: usize, t: &DataType) -> SqlResult<Value> {
    if array.is_null(r) {
        return Ok(Value::Null);
    }
    let v = match array.data_type() {
        ArrowType::Boolean => Value::Bit(array.as_boolean().value(r)),
        ArrowType::UInt8 => Value::TinyInt(array.as_primitive::<at::UInt8Type>().value(r)),
        ArrowType::Int8 => Value::SmallInt(array.as_primitive::<at::Int8Type>().value(r) as i16),
        ArrowType::Int16 => Value::SmallInt(array.as_primitive::<at::Int16Type>().value(r)),
        ArrowType::UInt16 => Value::Int(array.as_primitive::<at::UInt16Type>().value(r) as i32),
        ArrowType::Int32 => Value::Int(array.as_primitive::<at::Int32Type>().value(r)),
        ArrowType::UInt32 => Value::BigInt(array.as_primitive::<at::UInt32Type>().value(r) as i64),
        ArrowType::Int64 => Value::BigInt(array.as_primitive::<at::Int64Type>().value(r)),
        ArrowType::UInt64 => Value::Decimal {
            mantissa: array.as_primitive::<at::UInt64Type>().value(r) as i128,
            scale: 0,
        },
        ArrowType::Float16 => {
            Value::Real(array.as_primitive::<at::Float16Type>().value(r).to_f32())
        }
        ArrowType::Float32 => Value::Real(array.as_primitive::<at::Float32Type>().value(r)),
        ArrowType::Float64 => Value::Float(array.as_primitive::<at::Float64Type>().value(r)),
        ArrowType::Decimal128(_, s) => Value::Decimal {
            mantissa: array.as_primitive::<at::Decimal128Type>().value(r),
            scale: (*s).max(0) as u8,
        },
        ArrowType::Utf8 => return text_value(array.as_string::<i32>().value(r), t),
        ArrowType::LargeUtf8 => return text_value(array.as_string::<i64>().value(r), t),
        ArrowType::Utf8View => return text_value(array.as_string_view().value(r), t),
        ArrowType::Binary => Value::VarBinary(array.as_binary::<i32>().value(r).to_vec()),
        ArrowType::LargeBinary => Value::VarBinary(array.as_binary::<i64>().value(r).to_vec()),
        ArrowType::BinaryView => Value::VarBinary(array.as_binary_view().value(r).to_vec()),
        ArrowType::FixedSizeBinary(_) => {
            Value::Binary(array.as_fixed_size_binary().value(r).to_vec())
        }
        ArrowType::Date32 => {
            Value::Date(array.as_primitive::<at::Date32Type>().value(r) + UNIX_EPOCH_DAY)
        }
        ArrowType::Time32(unit) => {
            let v = match unit {
                TimeUnit::Second => {
                    array.as_primitive::<at::Time32SecondType>().value(r) as i64 * 10_000_000
                }
                _ => array.as_primitive::<at::Time32MillisecondType>().value(r) as i64 * 10_000,
            };
            Value::Time(v.rem_euclid(TICKS_PER_DAY))
        }
        ArrowType::Time64(unit) => {
            let v = match unit {
                TimeUnit::Nanosecond => {
                    array.as_primitive::<at::Time64NanosecondType>().value(r) / 100
                }
                _ => array.as_primitive::<at::Time64MicrosecondType>().value(r) * 10,
            };
            Value::Time(v.rem_euclid(TICKS_PER_DAY))
        }
        ArrowType::Timestamp(unit, _) => match unit {
            TimeUnit::Second => {
                timestamp_value(array.as_primitive::<at::TimestampSecondType>().value(r), 1)
            }
            TimeUnit::Millisecond => timestamp_value(
                array
                    .as_primitive::<at::TimestampMillisecondType>()
                    .value(r),
                1_000,
            ),
            TimeUnit::Microsecond => timestamp_value(
                array
                    .as_primitive::<at::TimestampMicrosecondType>()
                    .value(r),
                1_000_000,
            ),
            TimeUnit::Nanosecond => timestamp_value(
                array.as_primitive::<at::TimestampNanosecondType>().value(r),
                1_000_000_000,
            ),
        },
        other => {
            return Err(SqlError::unsupported(format!(
                "OPENROWSET of Parquet data of type {other}"
            )))
        }
    };
    // a latchkey-written column carries its SQL type: money, smallint, datetime ... come back
    match (&v, t) {
        (Value::Decimal { .. }, DataType::Decimal { .. }) => Ok(v),
        _ if v.data_type() == *t => Ok(v),
        _ => v.cast(t),
    }
}

fn conversion_error(column: &str) -> SqlError {
    SqlError::internal(format!(
        "Parquet export: a value of column '{column}' does not match its type"
    ))
}

/// Builds the Arrow array of column `c` from `rows`.
fn column_array(rows: &[Vec<Value>], c: usize, col: &FileColumn) -> SqlResult<ArrayRef> {
    let t = &col.data_type;
    let vals = rows.iter().map(move |r| r.get(c).unwrap_or(&Value::Null));
    let bad = || conversion_error(&col.name);
    macro_rules! build {
        ($builder:expr, $conv:expr) => {{
            let mut b = $builder;
            for v in vals {
                if v.is_null() {
                    b.append_null();
                } else {
                    #[allow(clippy::redundant_closure_call)]
                    b.append_value(($conv)(v).ok_or_else(bad)?);
                }
            }
            Arc::new(b.finish()) as ArrayRef
        }};
    }
    let datetime_micros = |v: &Value| match v {
        Value::DateTime { days, ticks }
        | Value::DateTime2 { days, ticks }
        | Value::SmallDateTime { days, ticks } => {
            Some((*days as i64 - UNIX_EPOCH_DAY as i64) * 86_400_000_000 + ticks / 10)
        }
        _ => None,
    };
    Ok(match arrow_type(t) {
        ArrowType::Boolean => build!(BooleanBuilder::new(), |v: &Value| match v {
            Value::Bit(b) => Some(*b),
            _ => None,
        }),
        ArrowType::UInt8 => build!(UInt8Builder::new(), |v: &Value| match v {
            Value::TinyInt(x) => Some(*x),
            _ => None,
        }),
        ArrowType::Int16 => build!(Int16Builder::new(), |v: &Value| match v {
            Value::SmallInt(x) => Some(*x),
            _ => None,
        }),
        ArrowType::Int32 => build!(Int32Builder::new(), |v: &Value| match v {
            Value::Int(x) => Some(*x),
            _ => None,
        }),
        ArrowType::Int64 => build!(Int64Builder::new(), |v: &Value| match v {
            Value::BigInt(x) => Some(*x),
            _ => None,
        }),
        ArrowType::Float32 => build!(Float32Builder::new(), |v: &Value| match v {
            Value::Real(x) => Some(*x),
            _ => None,
        }),
        ArrowType::Float64 => build!(Float64Builder::new(), |v: &Value| match v {
            Value::Float(x) => Some(*x),
            _ => None,
        }),
        ArrowType::Decimal128(p, s) => {
            let to_scale = |m: i128, from: u8| -> Option<i128> {
                let to = s as u8;
                if from <= to {
                    m.checked_mul(10i128.checked_pow((to - from) as u32)?)
                } else {
                    Some(m / 10i128.checked_pow((from - to) as u32)?)
                }
            };
            let b = Decimal128Builder::new()
                .with_precision_and_scale(p, s)
                .map_err(|e| SqlError::internal(e.to_string()))?;
            build!(b, |v: &Value| match v {
                Value::Decimal { mantissa, scale } => to_scale(*mantissa, *scale),
                Value::Money(m) | Value::SmallMoney(m) => to_scale(*m as i128, 4),
                _ => None,
            })
        }
        ArrowType::Binary => build!(BinaryBuilder::new(), |v: &Value| v
            .as_bytes()
            .map(<[u8]>::to_vec)),
        ArrowType::Date32 => build!(Date32Builder::new(), |v: &Value| match v {
            Value::Date(d) => Some(*d - UNIX_EPOCH_DAY),
            _ => None,
        }),
        ArrowType::Time64(_) => build!(Time64NanosecondBuilder::new(), |v: &Value| match v {
            Value::Time(t) => Some(*t * 100),
            _ => None,
        }),
        ArrowType::Timestamp(_, _) => build!(TimestampMicrosecondBuilder::new(), datetime_micros),
        _ => {
            let mut b = StringBuilder::new();
            for v in vals {
                match v {
                    Value::Null => b.append_null(),
                    _ => match v.as_str() {
                        Some(s) => b.append_value(s),
                        None => b.append_value(v.to_sql_text_as(t)),
                    },
                }
            }
            Arc::new(b.finish()) as ArrayRef
        }
    })
}

/// Writes `rows` (each in `columns` order) to a new Parquet file at `path`; returns the rows
/// written. An existing file is an error (CETAS never overwrites).
pub fn write_file(
    path: &Path,
    columns: &[FileColumn],
    rows: &[Vec<Value>],
    compression: ParquetCompression,
) -> SqlResult<u64> {
    let fields: Vec<Field> = columns
        .iter()
        .map(|c| {
            let meta = HashMap::from([(SQL_TYPE_KEY.to_string(), c.data_type.to_string())]);
            Field::new(&c.name, arrow_type(&c.data_type), true).with_metadata(meta)
        })
        .collect();
    let schema = Arc::new(Schema::new(fields));
    let file = File::create_new(path).map_err(|e| io_error(path, e))?;
    let props = WriterProperties::builder()
        .set_compression(match compression {
            ParquetCompression::Snappy => Compression::SNAPPY,
            ParquetCompression::None => Compression::UNCOMPRESSED,
        })
        .build();
    let mut writer = ArrowWriter::try_new(file, schema.clone(), Some(props))
        .map_err(|e| format_error(path, e))?;
    for chunk in rows.chunks(WRITE_BATCH_ROWS) {
        let arrays = columns
            .iter()
            .enumerate()
            .map(|(i, c)| column_array(chunk, i, c))
            .collect::<SqlResult<Vec<_>>>()?;
        let batch =
            RecordBatch::try_new(schema.clone(), arrays).map_err(|e| format_error(path, e))?;
        writer.write(&batch).map_err(|e| format_error(path, e))?;
    }
    if rows.is_empty() {
        // an empty result still writes a file with the schema
        writer.flush().map_err(|e| format_error(path, e))?;
    }
    writer.close().map_err(|e| format_error(path, e))?;
    Ok(rows.len() as u64)
}
