//! `engine`: databases, sessions, batch execution and the procedural interpreter.
//!
//! * [`Engine`] (server.rs) — the data directory: `master`, a fresh `tempdb` at every start, user
//!   databases (`CREATE DATABASE`), each one `storage::Database` with its catalog cache
//!   ([`dbcat::DbCatalog`]) persisted in the database's catalog B-tree.
//! * [`Session`] — one connection: current database, SET options, variables, temp tables,
//!   transactions (one storage txn per touched database), `execute_batch` which streams
//!   [`events`] (result sets, row counts, messages, errors) into an [`EventSink`].
//! * interp.rs — the procedural interpreter (control flow, TRY/CATCH, EXEC, transactions) and
//!   SQL Server's statement- vs batch-aborting error rules; query.rs — the glue to
//!   plan/optimizer/exec and the session's `ExecEnv`; trigger.rs — DML triggers (AFTER and
//!   INSTEAD OF, `inserted` / `deleted`); ddl.rs — DDL; sysviews.rs — `sys.*` and
//!   `INFORMATION_SCHEMA` views; bootstrap.rs — `master.dbo.spt_values`.
//! * compile.rs / run.rs — batches, procedures, scalar functions and dynamic SQL are compiled
//!   once into a program (variable slots, cached bound expressions and plans invalidated by the
//!   schema generation) and run by a node walker; [`sequence`] — sequence generators with
//!   crash-safe cache blocks.
//! * [`render`] — value text for clients (jsonl encoding, sqlcmd-like text).
//!
//! What does NOT belong here: parsing (parser), binding and plans (plan/optimizer), operators
//! and row formats (exec), pages and logging (storage), the wire protocol (tds/server).

pub mod bootstrap;
mod bulk_insert;
mod compile;
pub mod config;
pub mod dbcat;
mod dbcc;
pub mod dbstate;
pub mod ddl;
mod ddl_alter;
mod ddl_type;
pub mod events;
mod external;
mod external_views;
mod filegroups;
mod files;
pub mod identity_cache;
mod implicit_tran;
mod interp;
mod limits;
mod live;
pub mod locks;
mod names;
mod noops;
mod openrowset;
mod plan_cache;
mod plan_stats;
mod query;
mod query_hints;
pub mod render;
mod repair;
mod rowcount;
mod run;
pub mod run_config;
pub mod schema_gen;
mod scoped_config;
pub mod security;
pub mod sequence;
pub mod server;
pub mod session;
mod showplan;
mod showplan_memo;
mod statistics;
mod sysfuncs;
mod sysprocs;
pub mod sysviews;
mod sysviews_more;
mod sysviews_plans;
mod sysviews_sessions;
mod table_rows;
mod trigger;
mod tvf;
mod versioning;

pub use bulk_insert::data_file_terminator;
pub use events::{CollectSink, Event, EventSink, InfoMessage, OutColumn, TransactionChange};
/// The reserved keywords, for clients that complete names (the shell): the cli reaches the
/// parser only through the engine (common/tests/layering.rs).
pub use parser::reserved_keywords;
pub use security::{AuthenticatedLogin, LoginFailure, LoginFailureReason, SaProvisioning};
pub use server::{DbHandle, Engine, EngineConfig};
pub use session::{Session, SessionOptions};
pub use sysprocs::{ConnectionInfo, SessionEntry};

/// `@@VERSION`.
pub const VERSION_STRING: &str = concat!(
    "latchkey ",
    env!("CARGO_PKG_VERSION"),
    " - T-SQL compatible database engine (SQL Server 2019 dialect)"
);
