//! `engine` crate (see README.md).
