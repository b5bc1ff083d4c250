//! `parser`: T-SQL text to AST.
//!
//! * [`split_batches`] cuts a script at `GO` lines into [`Batch`]es (sqlcmd rules).
//! * [`parse_batch`] parses one batch into [`ast::Statement`]s carrying source lines and spans.
//! * [`parse_expression`] / [`parse_data_type`] parse fragments (defaults, computed columns).
//! * [`ast`] is the tree (append-only for other crates); [`printer`] implements `Display` for it
//!   and prints T-SQL that parses back to the same tree; [`roundtrip`] is that property as a
//!   reusable oracle (tests, `/fuzz`).
//!
//! Hand-written lexer (`lexer`: zero-copy tokens over the input, reserved-keyword flag computed
//! once per word) and recursive-descent parser (`parser`, Pratt parsing for expressions with SQL
//! Server's precedence). Syntax errors are SQL Server's Msg 102 / 156 / 105 / 113 / 111 / 191 with
//! the line of the offending token; no input panics or overflows the stack (depth limits).
//!
//! What does NOT belong here: name resolution, typing, constant folding and any catalog
//! knowledge (that is `plan`), and conversion of `DataTypeName` to `types::DataType` (the parser
//! depends on `common` only). See README.md for grammar coverage and AST conventions.

pub mod ast;
mod batch;
mod ident_rename;
mod keywords;
mod lexer;
mod parser;
pub mod printer;
pub mod roundtrip;

pub use batch::{split_batches, Batch};
pub use ident_rename::replace_identifier;
pub use keywords::reserved_keywords;
pub use lexer::query_shape;
pub use parser::{parse_batch, parse_batch_with, parse_data_type, parse_expression, ParseOptions};
pub use printer::print_batch;
