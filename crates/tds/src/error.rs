//! Codec errors. A decoder never panics on bad bytes: it returns one of these and the server
//! answers with an error token or closes the connection.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TdsError {
    /// The input ended before a complete structure (the reader needs more bytes or the
    /// peer sent a truncated message).
    Truncated(&'static str),
    /// Bytes that violate [MS-TDS] (bad token, length out of range, unknown type...).
    Malformed(String),
    /// Valid TDS that latchkey does not support (the text says what).
    Unsupported(String),
    /// A value that cannot be represented in the target type.
    Value(String),
}

impl fmt::Display for TdsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TdsError::Truncated(what) => write!(f, "TDS: truncated {what}"),
            TdsError::Malformed(m) => write!(f, "TDS: malformed {m}"),
            TdsError::Unsupported(m) => write!(f, "TDS: unsupported {m}"),
            TdsError::Value(m) => write!(f, "TDS: value {m}"),
        }
    }
}

impl std::error::Error for TdsError {}

pub type TdsResult<T> = Result<T, TdsError>;
