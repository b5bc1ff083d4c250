//! `parser` crate (see README.md).
