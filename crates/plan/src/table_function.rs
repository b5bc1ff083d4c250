//! Table-valued functions that stay functions in the plan (a leaf operator producing rows from
//! its evaluated arguments): the built-ins `STRING_SPLIT`, `GENERATE_SERIES`, `OPENJSON`, and
//! multi-statement user functions (`RETURNS @t TABLE`), whose body the engine runs.
//!
//! Inline user functions (`RETURNS TABLE AS RETURN query`) never appear here: the binder
//! expands them like views with their parameters bound (binder/tvf.rs).

use common::ObjectId;
use types::DataType;

/// One column of an `OPENJSON(...) WITH (...)` schema.
#[derive(Clone, Debug, PartialEq)]
pub struct OpenJsonColumn {
    pub name: String,
    pub data_type: DataType,
    /// `'$.path'` (default: `$.name`), `lax` unless the text starts with `strict`.
    pub path: String,
    /// `AS JSON`: the column returns the JSON fragment (object/array) as text.
    pub as_json: bool,
}

/// Which table-valued function a [`crate::LogicalOp::TableFunction`] calls.
#[derive(Clone, Debug, PartialEq)]
pub enum TableFunc {
    /// `STRING_SPLIT(string, separator [, enable_ordinal])`: column `value` (+ `ordinal`).
    StringSplit { ordinal: bool },
    /// `GENERATE_SERIES(start, stop [, step])`: column `value`.
    GenerateSeries,
    /// `OPENJSON(json [, path])`: (`key`, `value`, `type`), or the `WITH` schema's columns.
    OpenJson { with: Option<Vec<OpenJsonColumn>> },
    /// `OPENROWSET(BULK 'file', FORMAT = 'PARQUET')`: the file's columns, or the `WITH`
    /// schema's, read when the leaf opens.
    Parquet { path: String },
    /// A multi-statement table-valued function: the engine runs its body with the argument
    /// values (already converted to the parameter types) and returns the rows of its table.
    User {
        database: String,
        object_id: ObjectId,
        /// `schema.name` for messages.
        name: String,
    },
}

impl TableFunc {
    /// Showplan operator name.
    pub fn showplan(&self) -> String {
        match self {
            TableFunc::StringSplit { .. } => "Table Valued Function(STRING_SPLIT)".into(),
            TableFunc::GenerateSeries => "Table Valued Function(GENERATE_SERIES)".into(),
            TableFunc::OpenJson { .. } => "Table Valued Function(OPENJSON)".into(),
            TableFunc::Parquet { .. } => "Remote Scan(OPENROWSET)".into(),
            TableFunc::User { name, .. } => format!("Table Valued Function({name})"),
        }
    }

    /// Row estimate used by the optimizer (SQL Server guesses 50 for STRING_SPLIT and OPENJSON
    /// and 100 for multi-statement functions).
    pub fn estimate(&self) -> f64 {
        match self {
            TableFunc::StringSplit { .. } | TableFunc::OpenJson { .. } => 50.0,
            TableFunc::GenerateSeries | TableFunc::Parquet { .. } => 1000.0,
            TableFunc::User { .. } => 100.0,
        }
    }
}
