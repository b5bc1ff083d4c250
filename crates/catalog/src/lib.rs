//! `catalog` crate (see README.md).
