//! How far the running statement has got, when it knows its total (a BULK INSERT's file size,
//! the rows an index rebuild copies). Shared like [`crate::CancelToken`]: the session owns one
//! (`Session::progress_handle`), the statement publishes `(done, total)` as it goes, and the
//! shell's progress thread reads it to draw a bar. Two relaxed atomics: a reader may see a
//! `done` of the previous total for one tick, which only moves a bar.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

#[derive(Debug, Default)]
struct Counters {
    done: AtomicU64,
    total: AtomicU64,
}

/// A `(done, total)` pair shared between a running statement and a progress display. Cloning
/// shares it. `total == 0` means no known total (nothing to draw).
#[derive(Clone, Debug, Default)]
pub struct ProgressMeter(Arc<Counters>);

impl ProgressMeter {
    pub fn new() -> Self {
        Self::default()
    }

    /// A statement starts work of `total` units (bytes, rows); `done` restarts at 0. The
    /// returned guard clears the meter when dropped (the statement ended, however it ended).
    pub fn start(&self, total: u64) -> ProgressGuard {
        self.0.done.store(0, Ordering::Relaxed);
        self.0.total.store(total, Ordering::Relaxed);
        ProgressGuard(self.clone())
    }

    /// Units done so far (at most the total when shown).
    #[inline]
    pub fn set_done(&self, done: u64) {
        self.0.done.store(done, Ordering::Relaxed);
    }

    /// `(done, total)` while a statement with a known total runs; None otherwise.
    pub fn get(&self) -> Option<(u64, u64)> {
        let total = self.0.total.load(Ordering::Relaxed);
        if total == 0 {
            return None;
        }
        Some((self.0.done.load(Ordering::Relaxed).min(total), total))
    }

    /// No statement with a known total is running.
    pub fn clear(&self) {
        self.0.total.store(0, Ordering::Relaxed);
        self.0.done.store(0, Ordering::Relaxed);
    }
}

/// Clears its [`ProgressMeter`] when dropped (see [`ProgressMeter::start`]).
#[must_use = "the meter is cleared when the guard drops"]
pub struct ProgressGuard(ProgressMeter);

impl ProgressGuard {
    /// The meter this guard clears, for publishing `done`.
    pub fn meter(&self) -> &ProgressMeter {
        &self.0
    }
}

impl Drop for ProgressGuard {
    fn drop(&mut self) {
        self.0.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_publish_and_clear_on_drop() {
        let m = ProgressMeter::new();
        assert_eq!(m.get(), None);
        {
            let g = m.start(200);
            g.meter().set_done(50);
            assert_eq!(m.get(), Some((50, 200)));
            g.meter().set_done(500);
            assert_eq!(m.get(), Some((200, 200)), "done is capped at the total");
        }
        assert_eq!(m.get(), None, "the guard cleared the meter");
    }
}
