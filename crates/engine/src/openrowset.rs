//! `OPENROWSET(BULK 'file', ...)`, engine side: the file is read when the query runs
//! (exec's Table Valued Function operator calls `ExecEnv::open_bulk_rowset`).
//!
//! * SINGLE_BLOB: the file's bytes. SINGLE_CLOB: the file as text — UTF-8 (a UTF-8 byte
//!   order mark is dropped), or code page 1252 when it is not valid UTF-8; a UTF-16 file is
//!   Msg 4806. SINGLE_NCLOB: a UTF-16 file with its byte order mark, else Msg 4809.
//! * CSV / character data: BULK INSERT's reader (`bulk_insert::open_file_rows`), one file
//!   field per ordinal up to the largest the WITH clause names (the rest of a row skipped); `HEADER_ROW = TRUE` skips the
//!   first row; `PARSER_VERSION` '1.0' and '2.0' read the same way here. With FORMAT = 'CSV'
//!   the terminators default to a comma and a line feed with or without a carriage return
//!   before it (Azure SQL's defaults), not BULK INSERT's tab and CR LF.
//! * FORMAT = 'PARQUET' and external tables: `fileio::parquet_io` reads the file (or a
//!   folder's `*.parquet` files) whole when the rowset opens.
//! * Options that would change nothing here or are not implemented (ORDER, UNIQUE,
//!   ROWS_PER_BATCH, ESCAPECHAR, ROWSET_OPTIONS, the *_DATA_SOURCE ones): Msg 40517.

use std::io::Read;

use common::{SqlError, SqlResult};
use parser::ast::{self, BulkOptionValue};
use plan::{BulkFormat, BulkRowset, ColumnMeta};
use types::textdecode::{detect_bom, DecodingReader, TextEncoding};
use types::{DataType, Value};

use exec::BulkRowReader;

use crate::bulk_insert::{open_error, open_file_rows, FileField, FileRows};

/// Largest file SINGLE_* reads: a (max) value holds at most 2 GB.
const SINGLE_LIMIT: u64 = (1 << 31) - 1;

/// Opens the rowset of `spec` (rows of `columns`).
pub(crate) fn open_bulk_rowset(
    spec: &BulkRowset,
    columns: &[ColumnMeta],
) -> SqlResult<Box<dyn BulkRowReader>> {
    match spec.format {
        BulkFormat::SingleBlob | BulkFormat::SingleClob | BulkFormat::SingleNClob => {
            for o in &spec.options {
                if !o.name.starts_with("SINGLE_") {
                    return Err(SqlError::unsupported(format!(
                        "{} with {}",
                        o.name,
                        single_name(spec.format)
                    )));
                }
            }
            Ok(Box::new(SingleRow(Some(read_single(
                &spec.file,
                spec.format,
            )?))))
        }
        BulkFormat::Csv => Ok(Box::new(open_csv(spec, columns)?)),
        BulkFormat::Parquet => Ok(Box::new(read_parquet(spec, columns)?)),
    }
}

/// FORMAT = 'PARQUET' (and external tables): the rows of the file(s) at `spec.file` (a path
/// the binder resolved), each column found by name and converted to its type.
fn read_parquet(spec: &BulkRowset, columns: &[ColumnMeta]) -> SqlResult<ParquetRows> {
    let cols: Vec<fileio::parquet_io::FileColumn> = columns
        .iter()
        .map(|c| fileio::parquet_io::FileColumn {
            name: c.name.clone(),
            data_type: c.data_type.clone(),
        })
        .collect();
    let rows = fileio::parquet_io::read_rows(std::path::Path::new(&spec.file), &cols)?;
    Ok(ParquetRows(rows.into_iter()))
}

/// The rows of a Parquet rowset, decoded when it opens.
struct ParquetRows(std::vec::IntoIter<Vec<Value>>);

impl BulkRowReader for ParquetRows {
    fn next_row(&mut self, _: &mut Vec<SqlError>) -> SqlResult<Option<Vec<Value>>> {
        Ok(self.0.next())
    }
}

/// The one row of SINGLE_BLOB / SINGLE_CLOB / SINGLE_NCLOB.
struct SingleRow(Option<Value>);

impl BulkRowReader for SingleRow {
    fn next_row(&mut self, _: &mut Vec<SqlError>) -> SqlResult<Option<Vec<Value>>> {
        Ok(self.0.take().map(|v| vec![v]))
    }
}

/// CSV / character data: the file's rows (one value per field read) mapped to the columns.
struct CsvRows {
    rows: FileRows,
    /// Per column: the 0-based field it reads, and whether it is the field's first reader
    /// (converted to its type by the reader) or a later one (cast from the first's value).
    map: Vec<(usize, bool)>,
    types: Vec<DataType>,
    /// No two columns read the same field: fields move into the row without copies.
    direct: bool,
}

impl BulkRowReader for CsvRows {
    fn next_row(&mut self, messages: &mut Vec<SqlError>) -> SqlResult<Option<Vec<Value>>> {
        let Some(mut fr) = self.rows.next(messages)? else {
            return Ok(None);
        };
        let mut row = Vec::with_capacity(self.map.len());
        for (j, &(k, first)) in self.map.iter().enumerate() {
            let v = if self.direct {
                std::mem::replace(&mut fr[k], Value::Null)
            } else if first || fr[k].is_null() {
                fr[k].clone()
            } else {
                fr[k].cast(&self.types[j])?
            };
            row.push(v);
        }
        Ok(Some(row))
    }
}

fn single_name(f: BulkFormat) -> &'static str {
    match f {
        BulkFormat::SingleBlob => "SINGLE_BLOB",
        BulkFormat::SingleClob => "SINGLE_CLOB",
        _ => "SINGLE_NCLOB",
    }
}

fn read_single(file: &str, format: BulkFormat) -> SqlResult<Value> {
    let path = std::path::Path::new(file);
    let f = std::fs::File::open(path).map_err(|e| open_error(path, &e))?;
    if path.is_dir() {
        return Err(SqlError::new(4860, &[&file]));
    }
    let mut bytes = Vec::new();
    f.take(SINGLE_LIMIT + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| open_error(path, &e))?;
    if bytes.len() as u64 > SINGLE_LIMIT {
        // what SQL Server says when a LOB would pass 2 GB
        return Err(SqlError::custom(
            599,
            16,
            1,
            "OPENROWSET: The length of the result exceeds the length limit (2GB) of the target large type.",
        ));
    }
    let bom = detect_bom(&bytes);
    let decode = |enc: TextEncoding, skip: usize| -> SqlResult<String> {
        let mut s = String::new();
        DecodingReader::new(&bytes[skip..], Some(enc))
            .read_to_string(&mut s)
            .map_err(|_| SqlError::new(4864, &[&1, &1, &"BulkColumn"]))?;
        Ok(s)
    };
    Ok(match format {
        BulkFormat::SingleBlob => Value::VarBinary(bytes),
        BulkFormat::SingleClob => match bom {
            Some((TextEncoding::Utf16Le | TextEncoding::Utf16Be, _)) => {
                return Err(SqlError::new(4806, &[]))
            }
            Some((_, n)) => Value::VarChar(decode(TextEncoding::Utf8, n)?),
            None => match std::str::from_utf8(&bytes) {
                Ok(s) => Value::VarChar(s.to_string()),
                Err(_) => Value::VarChar(decode(TextEncoding::Cp1252, 0)?),
            },
        },
        _ => match bom {
            Some((e @ (TextEncoding::Utf16Le | TextEncoding::Utf16Be), n)) => {
                Value::NVarChar(decode(e, n)?)
            }
            _ => return Err(SqlError::new(4809, &[])),
        },
    })
}

fn open_csv(spec: &BulkRowset, columns: &[ColumnMeta]) -> SqlResult<CsvRows> {
    let mut header_row = false;
    let mut options: Vec<ast::BulkOption> = Vec::with_capacity(spec.options.len());
    for o in &spec.options {
        match o.name.as_str() {
            "HEADER_ROW" => header_row = matches!(o.value, BulkOptionValue::Bool(true)),
            "PARSER_VERSION" => match &o.value {
                BulkOptionValue::Str(v) if v == "1.0" || v == "2.0" => {}
                BulkOptionValue::Str(v) => {
                    return Err(SqlError::unsupported(format!("PARSER_VERSION = '{v}'")))
                }
                _ => return Err(SqlError::syntax_near("PARSER_VERSION")),
            },
            "ORDER" | "UNIQUE" | "ROWS_PER_BATCH" | "ESCAPECHAR" | "ROWSET_OPTIONS" => {
                return Err(SqlError::unsupported(format!(
                    "{} in OPENROWSET(BULK ...)",
                    o.name
                )))
            }
            _ => options.push(o.clone()),
        }
    }
    // one file field per ordinal up to the largest; a field read by several columns is
    // converted to the first one's type and cast for the others
    let n = spec.fields.iter().copied().max().unwrap_or(0) as usize;
    let mut fields: Vec<FileField> = (0..n)
        .map(|k| FileField {
            name: format!("field {}", k + 1),
            data_type: DataType::VarChar(None),
            skip: true,
        })
        .collect();
    for (j, &f) in spec.fields.iter().enumerate().rev() {
        let slot = &mut fields[f as usize - 1];
        if let Some(c) = columns.get(j) {
            slot.data_type = c.data_type.clone();
            slot.name = c.name.clone();
        }
        slot.skip = false;
    }
    let csv = spec.options.iter().any(|o| o.name == "FORMAT");
    let rows = open_file_rows(&spec.file, &options, header_row, csv, fields)?;
    let map: Vec<(usize, bool)> = spec
        .fields
        .iter()
        .enumerate()
        .map(|(j, &f)| {
            let first = spec.fields.iter().position(|&g| g == f) == Some(j);
            (f as usize - 1, first)
        })
        .collect();
    let direct = map.iter().all(|&(_, first)| first);
    Ok(CsvRows {
        rows,
        map,
        types: columns.iter().map(|c| c.data_type.clone()).collect(),
        direct,
    })
}
