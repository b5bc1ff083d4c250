//! Where a zone's workers run: each on its own CPU of the process's allowed set.
//!
//! Why (S5, seed 005): with three busy threads on two CPUs — a DOP 2 query's two workers and
//! another session's serial query — Linux's balancer sees 2 + 1 runnable threads either way and
//! does not move them. When it happens to put both workers on one CPU they share it while the
//! other query owns the second CPU, and the parallel query runs at one CPU's speed (measured
//! 1.64–2.07x slower instead of the fair 1.33x). Workers on distinct CPUs always get one CPU
//! plus their share of the other; morsels are taken on demand, so the worker that shares its CPU
//! simply takes fewer of them — unlike SQL Server, whose exchange waits for the slow worker.
//!
//! Successive zones start at different CPUs (a process-wide counter), so two parallel queries
//! at once do not stack their workers on the same CPUs. A worker that cannot be placed (no
//! affinity API, an empty set) runs wherever the OS puts it: placement is an optimisation,
//! never a reason to fail a query. `LATCHKEY_WORKER_PLACEMENT=os` turns it off (for
//! measuring it: bench/s5_busy.py runs both).

use std::sync::atomic::{AtomicUsize, Ordering};

static NEXT_START: AtomicUsize = AtomicUsize::new(0);

/// The CPUs the workers of one zone go to, in worker order (empty: leave them to the OS).
pub(crate) fn cpus_for_zone(workers: usize) -> Vec<usize> {
    static LEFT_TO_OS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *LEFT_TO_OS.get_or_init(|| {
        std::env::var("LATCHKEY_WORKER_PLACEMENT").is_ok_and(|v| v.eq_ignore_ascii_case("os"))
    }) {
        return Vec::new();
    }
    let allowed = allowed_cpus();
    if allowed.len() < 2 || workers < 2 {
        return Vec::new();
    }
    let start = NEXT_START.fetch_add(workers, Ordering::Relaxed);
    (0..workers)
        .map(|i| allowed[(start + i) % allowed.len()])
        .collect()
}

#[cfg(target_os = "linux")]
fn allowed_cpus() -> Vec<usize> {
    use nix::sched::{sched_getaffinity, CpuSet};
    use nix::unistd::Pid;
    let Ok(set) = sched_getaffinity(Pid::from_raw(0)) else {
        return Vec::new();
    };
    (0..CpuSet::count())
        .filter(|&c| set.is_set(c).unwrap_or(false))
        .collect()
}

#[cfg(not(target_os = "linux"))]
fn allowed_cpus() -> Vec<usize> {
    Vec::new()
}

/// Binds the calling thread to `cpu`; false when the OS refused (the thread stays unbound).
#[cfg(target_os = "linux")]
pub(crate) fn pin_current_thread(cpu: usize) -> bool {
    use nix::sched::{sched_setaffinity, CpuSet};
    use nix::unistd::Pid;
    let mut set = CpuSet::new();
    set.set(cpu).is_ok() && sched_setaffinity(Pid::from_raw(0), &set).is_ok()
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn pin_current_thread(_cpu: usize) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_zones_workers_get_distinct_cpus_while_there_are_enough() {
        let allowed = allowed_cpus();
        let cpus = cpus_for_zone(allowed.len().min(4));
        if allowed.len() < 2 {
            assert!(cpus.is_empty(), "one CPU: nothing to spread");
            return;
        }
        let mut seen = cpus.clone();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), cpus.len(), "{cpus:?} repeats a CPU");
        assert!(cpus.iter().all(|c| allowed.contains(c)));
    }

    #[test]
    fn a_pinned_thread_runs_only_on_its_cpu() {
        let allowed = allowed_cpus();
        let Some(&cpu) = allowed.last() else { return };
        std::thread::spawn(move || {
            assert!(pin_current_thread(cpu));
            assert_eq!(allowed_cpus(), vec![cpu]);
        })
        .join()
        .unwrap();
    }
}
