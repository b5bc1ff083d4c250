//! `OPENROWSET(BULK 'file', FORMAT = 'PARQUET') [WITH (col type, ...)] AS alias`: a
//! [`TableFunc::Parquet`] leaf. Without a `WITH` clause the file's own schema gives the columns
//! (read here, at compile time, as SQL Server does); with one, the listed columns are read by
//! name and converted. Other formats and options are refused with Msg 40517 until a reader
//! acts on them.

use common::{SqlError, SqlResult};
use parser::ast;

use super::{Binder, Scope};
use crate::logical::{ColumnMeta, LogicalOp};
use crate::table_function::TableFunc;

fn string_option(v: &Option<ast::Expr>) -> Option<&str> {
    match v {
        Some(ast::Expr::Literal(ast::Literal::String { value, .. })) => Some(value),
        _ => None,
    }
}

impl Binder<'_> {
    pub(crate) fn bind_openrowset(
        &self,
        file: &str,
        options: &[(String, Option<ast::Expr>)],
        schema: &[ast::OpenRowsetColumnDef],
        alias: Option<&ast::Ident>,
        columns: &[ast::Ident],
    ) -> SqlResult<(LogicalOp, Scope, crate::scalar::Params)> {
        let Some(alias) = alias else {
            return Err(SqlError::new(491, &[]));
        };
        let format = options
            .iter()
            .find(|(n, _)| n == "FORMAT")
            .and_then(|(_, v)| string_option(v));
        if !format.is_some_and(|f| f.eq_ignore_ascii_case("PARQUET")) {
            return Err(SqlError::unsupported(match format {
                Some(f) => format!("OPENROWSET FORMAT = '{f}'"),
                None => "OPENROWSET(BULK) without FORMAT = 'PARQUET'".to_string(),
            }));
        }
        if let Some((name, _)) = options.iter().find(|(n, _)| n != "FORMAT") {
            return Err(SqlError::unsupported(format!(
                "OPENROWSET option {name} with FORMAT = 'PARQUET'"
            )));
        }
        let path = fileio::local_path(file)?;
        let cols: Vec<ColumnMeta> = if schema.is_empty() {
            fileio::parquet_io::read_schema(&path)?
                .into_iter()
                .map(|c| ColumnMeta::new(c.name, c.data_type, true))
                .collect()
        } else {
            let mut v = Vec::with_capacity(schema.len());
            for c in schema {
                if c.collation.is_some() || c.locator.is_some() {
                    return Err(SqlError::unsupported(
                        "OPENROWSET WITH column COLLATE or path for Parquet",
                    ));
                }
                let t = super::expr_decl_type(&c.data_type)?;
                v.push(ColumnMeta::new(c.name.value.clone(), t, true));
            }
            v
        };
        let op = LogicalOp::TableFunction {
            func: TableFunc::Parquet {
                path: path.to_string_lossy().into_owned(),
            },
            args: Vec::new(),
            columns: cols,
        };
        let names = op.columns().iter().map(|c| c.name.clone()).collect();
        let (op, mut sc) = self.derived_scope(op, names, &alias.value, columns)?;
        if let Some(t) = sc.tables.first_mut() {
            t.has_alias = true;
        }
        Ok((op, sc, Vec::new()))
    }

    /// `SELECT ... FROM external_table`: a Parquet leaf over its files with its columns.
    pub(crate) fn bind_external_table(
        &self,
        name: &ast::ObjectName,
        alias: Option<&ast::Ident>,
        (path, cols): (String, Vec<(String, types::DataType)>),
    ) -> SqlResult<(LogicalOp, Scope, crate::scalar::Params)> {
        let op = LogicalOp::TableFunction {
            func: TableFunc::Parquet { path },
            args: Vec::new(),
            columns: cols
                .into_iter()
                .map(|(n, t)| ColumnMeta::new(n, t, true))
                .collect(),
        };
        let names = op.columns().iter().map(|c| c.name.clone()).collect();
        let exposed = alias
            .map(|a| a.value.clone())
            .unwrap_or_else(|| name.name_str().to_string());
        let (op, mut sc) = self.derived_scope(op, names, &exposed, &[])?;
        if let Some(t) = sc.tables.first_mut() {
            t.has_alias = alias.is_some();
        }
        Ok((op, sc, Vec::new()))
    }
}
