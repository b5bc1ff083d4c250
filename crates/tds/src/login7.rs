//! (owner: server helper) — see lib.rs.
