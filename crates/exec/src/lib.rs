//! `exec` crate (see README.md).
