//! `plan` crate (see README.md).
