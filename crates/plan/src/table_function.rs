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

/// What `OPENROWSET(BULK 'file', ...)` reads the file as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BulkFormat {
    /// `SINGLE_BLOB`: one row, column `BulkColumn` varbinary(max).
    SingleBlob,
    /// `SINGLE_CLOB`: one row, column `BulkColumn` varchar(max).
    SingleClob,
    /// `SINGLE_NCLOB`: one row, column `BulkColumn` nvarchar(max) from a UTF-16 file.
    SingleNClob,
    /// `FORMAT = 'CSV'` (or character data without FORMAT) with a `WITH (...)` schema: read by
    /// the same reader as BULK INSERT.
    Csv,
    /// `FORMAT = 'PARQUET'`: not read yet (Msg 40517); the hook for a Parquet reader.
    Parquet,
}

/// `OPENROWSET(BULK ...)`, bound: the engine reads the file (`ExecEnv::open_bulk_rowset`).
#[derive(Clone, Debug, PartialEq)]
pub struct BulkRowset {
    pub file: String,
    pub format: BulkFormat,
    /// The options as written; the engine validates them with BULK INSERT's rules.
    pub options: Vec<parser::ast::BulkOption>,
    /// Per result column: the 1-based field of the file it is read from.
    pub fields: Vec<u32>,
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
    /// `OPENROWSET(BULK 'file', ...)`.
    BulkRowset(Box<BulkRowset>),
    /// The text of a statement's FOR JSON / FOR XML as its client receives it: rows of
    /// [`crate::for_clause::CLIENT_ROW_CHARS`] UTF-16 units (internal: not callable by name).
    ClientRows,
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
            TableFunc::ClientRows => "Table Valued Function(FOR XML/JSON rows)".into(),
            TableFunc::User { name, .. } => format!("Table Valued Function({name})"),
            TableFunc::BulkRowset(_) => "Remote Scan(BULK)".into(),
        }
    }

    /// Row estimate used by the optimizer (SQL Server guesses 50 for STRING_SPLIT and OPENJSON
    /// and 100 for multi-statement functions).
    pub fn estimate(&self) -> f64 {
        match self {
            TableFunc::StringSplit { .. } | TableFunc::OpenJson { .. } => 50.0,
            TableFunc::GenerateSeries => 1000.0,
            TableFunc::ClientRows => 1.0,
            TableFunc::User { .. } => 100.0,
            // SQL Server's guess for a bulk rowset without statistics
            TableFunc::BulkRowset(_) => 10000.0,
        }
    }
}
