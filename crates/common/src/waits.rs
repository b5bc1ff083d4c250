//! Process-wide wait statistics (`sys.dm_os_wait_stats`): per wait type, the number of waits,
//! their total and longest time and the signal part. Layers that wait (page I/O, log flush,
//! lock waits) call [`record`]; `DBCC SQLPERF('sys.dm_os_wait_stats', CLEAR)` calls [`clear`].
//!
//! A fixed table of SQL Server wait type names with relaxed atomic counters: recording is
//! lock-free and cheap enough to stay always on; a snapshot may mix counts of concurrent waits.

use std::sync::atomic::{AtomicU64, Ordering};

/// Wait types latchkey can report, with SQL Server's names.
pub const WAIT_TYPES: &[&str] = &[
    "ASYNC_NETWORK_IO",
    "CXPACKET",
    "IO_COMPLETION",
    "LCK_M_IS",
    "LCK_M_IU",
    "LCK_M_IX",
    "LCK_M_S",
    "LCK_M_SCH_M",
    "LCK_M_SCH_S",
    "LCK_M_SIX",
    "LCK_M_U",
    "LCK_M_X",
    "PAGEIOLATCH_EX",
    "PAGEIOLATCH_SH",
    "PAGELATCH_EX",
    "PAGELATCH_SH",
    "SOS_SCHEDULER_YIELD",
    "WRITELOG",
];

struct Counters {
    count: AtomicU64,
    total_ms: AtomicU64,
    max_ms: AtomicU64,
    signal_ms: AtomicU64,
}

#[allow(clippy::declare_interior_mutable_const)] // reason: array initializer only
const ZERO: Counters = Counters {
    count: AtomicU64::new(0),
    total_ms: AtomicU64::new(0),
    max_ms: AtomicU64::new(0),
    signal_ms: AtomicU64::new(0),
};

static STATS: [Counters; WAIT_TYPES.len()] = [ZERO; WAIT_TYPES.len()];

/// One row of `sys.dm_os_wait_stats`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WaitStat {
    pub wait_type: &'static str,
    pub waiting_tasks_count: u64,
    pub wait_time_ms: u64,
    pub max_wait_time_ms: u64,
    pub signal_wait_time_ms: u64,
}

/// Records one finished wait of `wait_type` (ignored if the name is not in [`WAIT_TYPES`]).
pub fn record(wait_type: &str, wait_ms: u64, signal_ms: u64) {
    let Some(i) = WAIT_TYPES.iter().position(|w| *w == wait_type) else {
        return;
    };
    let c = &STATS[i];
    c.count.fetch_add(1, Ordering::Relaxed);
    c.total_ms.fetch_add(wait_ms, Ordering::Relaxed);
    c.max_ms.fetch_max(wait_ms, Ordering::Relaxed);
    c.signal_ms.fetch_add(signal_ms, Ordering::Relaxed);
}

/// Current counters, one entry per wait type in [`WAIT_TYPES`] order.
pub fn snapshot() -> Vec<WaitStat> {
    WAIT_TYPES
        .iter()
        .zip(STATS.iter())
        .map(|(w, c)| WaitStat {
            wait_type: w,
            waiting_tasks_count: c.count.load(Ordering::Relaxed),
            wait_time_ms: c.total_ms.load(Ordering::Relaxed),
            max_wait_time_ms: c.max_ms.load(Ordering::Relaxed),
            signal_wait_time_ms: c.signal_ms.load(Ordering::Relaxed),
        })
        .collect()
}

/// Resets every counter to zero.
pub fn clear() {
    for c in &STATS {
        c.count.store(0, Ordering::Relaxed);
        c.total_ms.store(0, Ordering::Relaxed);
        c.max_ms.store(0, Ordering::Relaxed);
        c.signal_ms.store(0, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_snapshot_clear() {
        assert_eq!(STATS.len(), WAIT_TYPES.len());
        record("WRITELOG", 5, 1);
        record("WRITELOG", 9, 0);
        record("NOT_A_WAIT", 100, 0);
        let s = snapshot();
        let w = s.iter().find(|w| w.wait_type == "WRITELOG").unwrap();
        assert!(w.waiting_tasks_count >= 2);
        assert!(w.max_wait_time_ms >= 9);
        clear();
        assert!(snapshot()
            .iter()
            .all(|w| w.waiting_tasks_count == 0 && w.wait_time_ms == 0 && w.max_wait_time_ms == 0));
    }
}
