//! `OPENROWSET(BULK 'file', ...)` in FROM: checks SQL Server's rules on the options that
//! decide the shape of the rowset and types its columns; the file itself is read when the
//! query runs (the engine's bulk reader, shared with BULK INSERT).
//!
//! * `SINGLE_BLOB | SINGLE_CLOB | SINGLE_NCLOB`: one row, one column `BulkColumn`
//!   (varbinary(max) / varchar(max) / nvarchar(max)).
//! * `FORMAT = 'CSV'` (or no FORMAT: character data with BULK INSERT's defaults) with a
//!   `WITH (name type [ordinal], ...)` schema: one column per schema entry, read from field
//!   `ordinal` of each row (default: its position).
//! * Without a schema, a format file or a SINGLE_* option: Msg 472, as SQL Server.
//! * `FORMAT = 'PARQUET'`: [`BulkFormat::Parquet`]. Without a `WITH` clause the file's own
//!   schema gives the columns (read here, at compile time, as SQL Server does); with one, the
//!   listed columns are read by name and converted (`fileio::parquet_io`). Other options, and a
//!   column ordinal or path in WITH, are refused with 40517. External tables
//!   (`CREATE EXTERNAL TABLE`) bind to the same leaf.
//! * The OLE DB provider form and FORMATFILE: 40517.

use common::{SqlError, SqlResult};
use parser::ast::{self, BulkOptionValue, OpenRowsetSource};
use types::DataType;

use super::{Binder, Scope};
use crate::logical::{ColumnMeta, LogicalOp};
use crate::table_function::{BulkFormat, BulkRowset, TableFunc};

/// Largest field number a WITH column may read (SQL Server's tables have at most 1,024
/// columns; files may carry a few more that are skipped).
const MAX_FIELD_ORDINAL: u32 = 4096;

impl<'e> Binder<'e> {
    pub(crate) fn bind_openrowset(
        &self,
        o: &ast::OpenRowset,
    ) -> SqlResult<(LogicalOp, super::Scope, crate::scalar::Params)> {
        let (file, options, schema) = match &o.source {
            OpenRowsetSource::Provider { provider, .. } => {
                return Err(SqlError::unsupported(format!(
                    "OPENROWSET with the OLE DB provider '{provider}'"
                )))
            }
            OpenRowsetSource::Bulk {
                file,
                options,
                schema,
            } => (file, options, schema),
        };
        let Some(alias) = o.alias.as_ref() else {
            return Err(SqlError::new(491, &[]));
        };
        let mut single = None;
        let mut format_file = false;
        let mut format = None;
        for opt in options {
            match opt.name.as_str() {
                "SINGLE_BLOB" | "SINGLE_CLOB" | "SINGLE_NCLOB" => {
                    if single.is_some() {
                        return Err(SqlError::new(471, &[]));
                    }
                    single = Some(match opt.name.as_str() {
                        "SINGLE_BLOB" => BulkFormat::SingleBlob,
                        "SINGLE_CLOB" => BulkFormat::SingleClob,
                        _ => BulkFormat::SingleNClob,
                    });
                }
                "FORMATFILE" => format_file = true,
                "FORMAT" => {
                    format = Some(match &opt.value {
                        BulkOptionValue::Str(f) if f.eq_ignore_ascii_case("CSV") => BulkFormat::Csv,
                        BulkOptionValue::Str(f) if f.eq_ignore_ascii_case("PARQUET") => {
                            BulkFormat::Parquet
                        }
                        BulkOptionValue::Str(f) => {
                            return Err(SqlError::unsupported(format!("FORMAT = '{f}'")))
                        }
                        _ => return Err(SqlError::syntax_near("FORMAT")),
                    })
                }
                _ => {}
            }
        }
        if single.is_some() && format_file {
            return Err(SqlError::new(4137, &[]));
        }
        let (format, columns, fields) = if let Some(f) = single {
            if !schema.is_empty() {
                return Err(SqlError::syntax_near_keyword("WITH"));
            }
            let t = match f {
                BulkFormat::SingleBlob => DataType::VarBinary(None),
                BulkFormat::SingleClob => DataType::VarChar(None),
                _ => DataType::NVarChar(None),
            };
            (f, vec![ColumnMeta::new("BulkColumn", t, true)], vec![1])
        } else if format == Some(BulkFormat::Parquet) {
            return self.bind_parquet_rowset(file, options, schema, alias, &o.columns);
        } else if format_file {
            return Err(SqlError::unsupported("FORMATFILE"));
        } else if schema.is_empty() {
            return Err(SqlError::new(472, &[]));
        } else {
            let mut cols: Vec<ColumnMeta> = Vec::with_capacity(schema.len());
            let mut fields = Vec::with_capacity(schema.len());
            for (i, c) in schema.iter().enumerate() {
                if cols
                    .iter()
                    .any(|m| m.name.eq_ignore_ascii_case(&c.name.value))
                {
                    return Err(SqlError::new(492, &[&c.name.value]));
                }
                if c.path.is_some() {
                    return Err(SqlError::unsupported(
                        "a column name or path in OPENROWSET(BULK ...) WITH for FORMAT = 'CSV'",
                    ));
                }
                let t = super::expr_decl_type(&c.data_type)?;
                cols.push(ColumnMeta::new(c.name.value.clone(), t, true));
                match c.ordinal {
                    Some(0) => return Err(SqlError::syntax_near("0")),
                    // a row's fields up to the ordinal are kept per row: bounded
                    Some(n) if n > MAX_FIELD_ORDINAL => {
                        return Err(SqlError::unsupported(format!(
                            "a field ordinal above {MAX_FIELD_ORDINAL} in OPENROWSET(BULK ...) WITH"
                        )))
                    }
                    Some(n) => fields.push(n),
                    None => fields.push(i as u32 + 1),
                }
            }
            (BulkFormat::Csv, cols, fields)
        };
        let op = LogicalOp::TableFunction {
            func: TableFunc::BulkRowset(Box::new(BulkRowset {
                file: file.clone(),
                format,
                options: options.clone(),
                fields,
            })),
            args: Vec::new(),
            columns,
        };
        self.finish_builtin(op, "OPENROWSET", Some(alias), &o.columns, Vec::new())
    }

    /// `OPENROWSET(BULK 'file', FORMAT = 'PARQUET') [WITH (col type, ...)] AS alias`.
    fn bind_parquet_rowset(
        &self,
        file: &str,
        options: &[ast::BulkOption],
        schema: &[ast::OpenRowsetColumnDef],
        alias: &ast::Ident,
        columns: &[ast::Ident],
    ) -> SqlResult<(LogicalOp, Scope, crate::scalar::Params)> {
        if let Some(o) = options.iter().find(|o| o.name != "FORMAT") {
            return Err(SqlError::unsupported(format!(
                "OPENROWSET option {} with FORMAT = 'PARQUET'",
                o.name
            )));
        }
        let path = fileio::local_path(file)?;
        let cols: Vec<ColumnMeta> = if schema.is_empty() {
            fileio::parquet_io::read_schema(&path)?
                .into_iter()
                .map(|c| ColumnMeta::new(c.name, c.data_type, true))
                .collect()
        } else {
            let mut v: Vec<ColumnMeta> = Vec::with_capacity(schema.len());
            for c in schema {
                if v.iter().any(|m| m.name.eq_ignore_ascii_case(&c.name.value)) {
                    return Err(SqlError::new(492, &[&c.name.value]));
                }
                if c.ordinal.is_some() || c.path.is_some() {
                    return Err(SqlError::unsupported(
                        "a column ordinal or path in OPENROWSET WITH for FORMAT = 'PARQUET'",
                    ));
                }
                let t = super::expr_decl_type(&c.data_type)?;
                v.push(ColumnMeta::new(c.name.value.clone(), t, true));
            }
            v
        };
        let op = parquet_leaf(path.to_string_lossy().into_owned(), options.to_vec(), cols);
        self.finish_builtin(op, "OPENROWSET", Some(alias), columns, Vec::new())
    }

    /// `SELECT ... FROM external_table`: a Parquet leaf over its files with its columns.
    pub(crate) fn bind_external_table(
        &self,
        name: &ast::ObjectName,
        alias: Option<&ast::Ident>,
        (path, cols): (String, Vec<(String, DataType)>),
    ) -> SqlResult<(LogicalOp, Scope, crate::scalar::Params)> {
        let cols = cols
            .into_iter()
            .map(|(n, t)| ColumnMeta::new(n, t, true))
            .collect();
        let op = parquet_leaf(path, Vec::new(), cols);
        self.finish_builtin(op, name.name_str(), alias, &[], Vec::new())
    }
}

/// The bulk-rowset leaf reading `columns` (by name) from the Parquet file(s) at `path`.
fn parquet_leaf(
    path: String,
    options: Vec<ast::BulkOption>,
    columns: Vec<ColumnMeta>,
) -> LogicalOp {
    LogicalOp::TableFunction {
        func: TableFunc::BulkRowset(Box::new(BulkRowset {
            file: path,
            format: BulkFormat::Parquet,
            options,
            fields: (1..=columns.len() as u32).collect(),
        })),
        args: Vec::new(),
        columns,
    }
}
