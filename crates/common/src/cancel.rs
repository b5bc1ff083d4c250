//! Cancellation of a running request (SQL Server's "attention").
//!
//! A [`CancelToken`] is a shared flag: the session owns one (`Session::cancel_handle`), another
//! thread (the shell's SIGINT handler, a query timeout, later the TDS reader on an ATTENTION
//! packet) sets it, and execution polls it at its yield points: between statements, each
//! `WHILE` iteration, inside `WAITFOR`, and in the operators' row loops (exec `ExecCtx`).
//! A set flag surfaces as [`SqlError::attention`], which unwinds the batch like a
//! batch-aborting error but is never caught by TRY/CATCH and never reported to the client as
//! an error (SQL Server answers an attention with DONE_ATTN, not a message).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::SqlError;

/// The longest a cancelled wait keeps sleeping: `WAITFOR` and other waits sleep in slices of
/// this length so a cancel is seen within it (the shell promises 100 ms).
pub const CANCEL_POLL: Duration = Duration::from_millis(10);

/// A cancel flag shared between a running request and whoever may cancel it. Cloning shares
/// the flag.
#[derive(Clone, Debug, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    pub fn new() -> Self {
        Self::default()
    }

    /// Requests cancellation. Async-signal-safe (one atomic store), so a signal handler may
    /// call it.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    /// Whether cancellation was requested (a relaxed load: cheap enough for every row).
    #[inline]
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// Clears the flag (the session does this when a new request starts).
    pub fn reset(&self) {
        self.0.store(false, Ordering::SeqCst);
    }

    /// `Err(attention)` once cancellation was requested.
    #[inline]
    pub fn check(&self) -> Result<(), SqlError> {
        if self.is_cancelled() {
            Err(SqlError::attention())
        } else {
            Ok(())
        }
    }

    /// Sleeps for `d` unless cancelled first (then `Err(attention)` within [`CANCEL_POLL`]).
    pub fn sleep(&self, d: Duration) -> Result<(), SqlError> {
        let end = Instant::now() + d;
        loop {
            self.check()?;
            let now = Instant::now();
            if now >= end {
                return Ok(());
            }
            std::thread::sleep((end - now).min(CANCEL_POLL));
        }
    }
}

impl SqlError {
    /// The internal error of a cancelled request: 3617, as SQL Server records an attention
    /// (severity 25 there too, so nothing catches it and it ends the batch). The text is what
    /// SSMS shows for a cancelled query; it is not sent to clients as an error message.
    pub fn attention() -> SqlError {
        SqlError::custom(3617, 25, 1, "Query was canceled by user.")
    }

    /// Whether this is the error of a cancelled request ([`SqlError::attention`]).
    pub fn is_attention(&self) -> bool {
        self.number == 3617
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sleep_returns_early_when_cancelled_from_another_thread() {
        let t = CancelToken::new();
        let t2 = t.clone();
        let start = Instant::now();
        let h = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            t2.cancel();
        });
        let r = t.sleep(Duration::from_secs(30));
        let _ = h.join();
        assert!(r.is_err_and(|e| e.is_attention()));
        assert!(start.elapsed() < Duration::from_secs(2));
        t.reset();
        assert!(t.check().is_ok());
        assert!(t.sleep(Duration::from_millis(1)).is_ok());
    }
}
