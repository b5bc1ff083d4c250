//! `common`: the vocabulary every latchkey layer shares.
//!
//! * [`SqlError`] — the one error type. Every user-reachable failure becomes a `SqlError` carrying
//!   SQL Server's message number, severity, state and text, so the CLI (`Msg N, Level L, State S,
//!   Line X`), the jsonl interface and (later) TDS ERROR tokens all print the same thing.
//! * [`errors`] — the registry of SQL Server error numbers with their severity and message
//!   template; constructors there are the only way code should build a numbered error.
//! * [`ids`] — identifiers that cross layers (`PageId`, `Lsn`, `ObjectId`).
//! * [`stack`] — stack growth for recursion over user-shaped trees (no stack overflow).
//! * [`cancel`] — the cancel flag of a running request (SQL Server's attention).
//! * [`progress`] — `(done, total)` of the running statement, for the shell's progress bar.
//! * [`waits`] — the process-wide wait statistics registry behind `sys.dm_os_wait_stats`.
//!
//! What does not belong here: anything that knows SQL types (see `types`) or pages (`storage`).

pub mod cancel;
pub mod errors;
pub mod ids;
pub mod progress;
pub mod stack;
pub mod waits;

pub use cancel::CancelToken;
pub use errors::{SqlError, SqlResult};
pub use ids::{FileId, Lsn, ObjectId, PageId, TxnId};
pub use progress::{ProgressGuard, ProgressMeter};
