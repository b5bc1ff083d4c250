//! `types`: SQL Server data types and values.
//!
//! Important types: [`DataType`] (a column/expression type with length/precision/scale),
//! [`Value`] (one SQL value, NULL included), [`Collation`]. Submodules (owned by this crate)
//! provide type precedence and implicit conversion ([`convert`]), result-type derivation
//! ([`derive`]), arithmetic with SQL Server's result-type rules ([`ops`]), comparison and hashing
//! under the default case-insensitive collation ([`compare`]), text/JSON rendering
//! ([`Value::to_sql_text`], [`Value::to_json`]), the memcmp-comparable key encoding that index
//! keys are stored in ([`key`]), the row value codec ([`codec`]), literal parsing ([`literal`])
//! and the pure built-in scalar functions ([`functions`]); the 2 GB cap of max-typed values
//! (Msg 7119) and fallible reservation of user-sized buffers ([`lob`]).
//!
//! Invariants: nothing here panics on user input or stored bytes (errors are `SqlError`s with
//! SQL Server's numbers); comparison, hashing and key encoding agree (equal under `compare` ⇒
//! equal hash and equal key bytes).
//!
//! What does not belong here: rows on pages (`storage`), name resolution (`plan`), expression
//! trees and evaluation order (`plan`/`exec`).
//!
//! SQL Server's rules in three examples — integer division stays integer, decimal results follow
//! the documented precision/scale derivation, and the default collation ignores case and
//! trailing spaces:
//!
//! ```
//! use std::cmp::Ordering;
//! use types::{compare, ops, result_type_for_arith, ArithOp, Collation, DataType, Value};
//!
//! assert_eq!(ops::div(&Value::Int(7), &Value::Int(2)).unwrap(), Value::Int(3));
//!
//! let d = |p, s| DataType::Decimal { precision: p, scale: s };
//! assert_eq!(result_type_for_arith(ArithOp::Add, &d(38, 10), &d(38, 10)).unwrap(), d(38, 10));
//! assert_eq!(result_type_for_arith(ArithOp::Mul, &d(38, 10), &d(38, 10)).unwrap(), d(38, 6));
//!
//! let a = Value::VarChar("Latch".into());
//! let b = Value::VarChar("LATCH  ".into());
//! assert_eq!(compare(&a, &b, Collation::DEFAULT).unwrap(), Some(Ordering::Equal));
//! ```
//!
//! Conversion errors carry SQL Server's numbers:
//!
//! ```
//! use types::{DataType, Value};
//! let err = Value::VarChar("1.5".into()).cast(&DataType::Int).unwrap_err();
//! assert_eq!(err.number, 245);
//! ```

pub mod charset;
pub mod codec;
pub mod collation;
pub mod compare;
pub mod convert;
pub mod datatype;
pub mod datetime;
pub mod decimal;
pub mod derive;
pub mod functions;
pub mod json;
pub mod key;
pub mod like;
pub mod literal;
pub mod lob;
pub mod ops;
pub mod textdecode;
mod value;

pub use collation::Collation;
pub use compare::{compare, hash_value, hash_value_with, sort_cmp};
pub use convert::{convert_with_style, try_convert};
pub use datatype::{DataType, TypeParam};
pub use derive::{common_type, result_type_for_arith, result_type_for_binary, ArithOp};
pub use functions::{call_typed, function_result_type, like_match, like_match_unicode};
pub use literal::{parse_number_literal, string_literal};
pub use value::{format_float, format_real, guid_text, json_string, parse_guid, Value};
