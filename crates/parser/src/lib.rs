//! `parser`: T-SQL text to AST.
//!
//! * [`split_batches`] cuts a script at `GO` lines into [`Batch`]es (sqlcmd rules).
//! * [`parse_batch`] parses one batch into [`ast::Statement`]s with source lines.
//! * [`parse_expression`] / [`parse_data_type`] parse fragments (defaults, computed columns).
//! * [`ast`] is the tree; its `Display` impls (module `printer`) print T-SQL that parses back to
//!   the same tree.
//!
//! Hand-written lexer (`lexer`, zero-copy tokens over the input) and recursive-descent parser
//! (`parser`, Pratt parsing for expressions). Syntax errors are SQL Server's Msg 102 / 156 / 105 /
//! 113 with the line of the offending token.
//!
//! What does NOT belong here: name resolution, typing and any catalog knowledge (that is `plan`),
//! and conversion of `DataTypeName` to `types::DataType` (the parser depends on `common` only).

pub mod ast;
mod batch;
mod keywords;
mod lexer;
mod parser;
pub mod printer;
pub mod roundtrip;

pub use batch::{split_batches, Batch};
pub use parser::{parse_batch, parse_data_type, parse_expression};
