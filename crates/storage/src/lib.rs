//! `storage` crate (see README.md).
