//! `optimizer` crate (see README.md).
