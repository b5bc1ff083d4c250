//! Last-page insert flow control: what `OPTIMIZE_FOR_SEQUENTIAL_KEY = ON` turns on
//! (btree/README S4).
//!
//! Ascending keys send every insert to the tree's last leaf. Without control every session
//! queues on that page's EX latch, and a latch holder that the OS preempts (more runnable
//! sessions than cores) keeps the whole queue waiting: the PAGELATCH_EX convoy. SQL Server's
//! answer, which this follows, admits a bounded number of inserters to the end of the index at
//! a time (one per scheduler: here one per core) and parks the rest, who report the wait
//! `BTREE_INSERT_FLOW_CONTROL` in `sys.dm_os_wait_stats`. The parked sessions sleep on one
//! condition variable instead of spinning on the page latch, so the few that hold the hot page
//! keep the CPU and release it quickly.
//!
//! Only inserts past the highest key this tree has taken through the flow control are gated
//! (an append at the end of the index); an insert into the middle of the tree goes straight to
//! its leaf.

use parking_lot::{Condvar, Mutex};

/// One tree's admission state, shared by every handle of the tree (`Inner::seq_key_flow`).
pub struct SeqKeyFlow {
    state: Mutex<FlowState>,
    cond: Condvar,
    limit: usize,
}

struct FlowState {
    /// Inserters admitted to the end of the index and not yet done.
    admitted: usize,
    /// Highest key inserted through this flow control (empty before the first).
    high_key: Vec<u8>,
}

/// An admitted inserter; dropping it lets the next one in.
pub struct FlowPermit<'a> {
    flow: &'a SeqKeyFlow,
}

impl SeqKeyFlow {
    /// A flow control admitting at most `limit` (at least 1) inserters at a time.
    pub fn new(limit: usize) -> SeqKeyFlow {
        SeqKeyFlow {
            state: Mutex::new(FlowState {
                admitted: 0,
                high_key: Vec::new(),
            }),
            cond: Condvar::new(),
            limit: limit.max(1),
        }
    }

    /// The admission limit.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Admits an insert of `key`: `None` when the key is not past the end of the index (no
    /// control), else a permit, after a BTREE_INSERT_FLOW_CONTROL wait when `limit` inserters
    /// are already in.
    pub fn admit(&self, key: &[u8]) -> Option<FlowPermit<'_>> {
        let mut s = self.state.lock();
        if !s.high_key.is_empty() && key <= s.high_key.as_slice() {
            return None;
        }
        if s.admitted >= self.limit {
            let _wait = common::waits::begin(common::waits::WaitType::BTREE_INSERT_FLOW_CONTROL);
            while s.admitted >= self.limit {
                self.cond.wait(&mut s);
            }
        }
        s.admitted += 1;
        Some(FlowPermit { flow: self })
    }
}

impl FlowPermit<'_> {
    /// Records that `key` was inserted (the end of the index moved), then lets the next
    /// inserter in.
    pub fn inserted(self, key: &[u8]) {
        let mut s = self.flow.state.lock();
        if key > s.high_key.as_slice() {
            s.high_key.clear();
            s.high_key.extend_from_slice(key);
        }
        // the drop below releases the admission (after this lock is gone)
    }
}

impl Drop for FlowPermit<'_> {
    fn drop(&mut self) {
        let mut s = self.flow.state.lock();
        s.admitted = s.admitted.saturating_sub(1);
        drop(s);
        self.flow.cond.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_below_the_end_are_not_gated_and_the_limit_holds() {
        let f = SeqKeyFlow::new(1);
        let p = f.admit(b"b").map(|p| p.inserted(b"b"));
        assert!(p.is_some());
        assert!(
            f.admit(b"a").is_none(),
            "a key below the end is not an append"
        );
        let held = f.admit(b"c");
        assert!(held.is_some());
        assert_eq!(f.state.lock().admitted, 1);
        drop(held);
        assert_eq!(f.state.lock().admitted, 0);
    }
}
