//! `types`: SQL Server data types and values.
//!
//! Important types: [`DataType`] (a column/expression type with length/precision/scale),
//! [`Value`] (one SQL value, NULL included). Submodules (owned by this crate) provide type
//! precedence and implicit conversion, arithmetic with SQL Server's result-type rules, comparison
//! under the default case-insensitive collation, text rendering (`CONVERT(varchar, v, 121)`), and
//! the memcmp-comparable key encoding that index keys are stored in.
//!
//! What does not belong here: rows on pages (`storage`), name resolution (`plan`).

mod datatype;
mod value;

pub use datatype::DataType;
pub use value::Value;
