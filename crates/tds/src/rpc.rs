//! (owner: tdstypes helper) — see lib.rs.
