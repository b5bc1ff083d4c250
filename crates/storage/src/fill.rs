//! Proportional fill (storage README A2): which data file a new extent comes from.
//!
//! SQL Server weights each file of a filegroup by its free space: the file with the most free
//! space is never skipped, every other file is skipped in the round robin about
//! `most_free / its_free - 1` times before it gets an extent, so extents go to the files in
//! proportion to their free space and the files fill up at the same time. Files with the same
//! free space (the equal files of one CREATE DATABASE) get extents in plain round robin.
//!
//! Free space of a file = its size in extents minus the extents its GAM marks in use (extent 0,
//! the file header and GAM, not counted). The in-use count is a per-file estimate: recounted
//! from the GAM page whenever an allocation latches it, decremented when an extent is freed,
//! counted once at open. A dropped mini-transaction (its GAM bit restored) leaves the count
//! one too high until the next recount; the count only weights the choice, never decides
//! whether an extent is free (the GAM bit does, under its latch).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use parking_lot::Mutex;

use crate::page::HEADER;

/// Bytes of one extent (8 pages of 8 KB).
const EXTENT_BYTES: u64 = 65_536;

pub struct ProportionalFill {
    /// Extents in use per file (index = file id - 1), extent 0 not counted.
    used: Vec<AtomicU64>,
    turn: Mutex<Turn>,
}

/// The round robin: the next file to look at and how many more times each file is skipped.
struct Turn {
    next: usize,
    skip_left: Vec<u64>,
}

/// Extents marked in use by a GAM page's bitmap, extent 0 (header and GAM) not counted.
pub fn gam_used_extents(gam: &[u8]) -> u64 {
    let Some(bits) = gam.get(HEADER..) else {
        return 0;
    };
    let all: u64 = bits.iter().map(|b| u64::from(b.count_ones())).sum();
    all - u64::from(bits.first().is_some_and(|b| b & 1 != 0))
}

/// Free extents of a file of `size_bytes` with `used` extents in use (extent 0 is the header).
pub fn free_extents(size_bytes: u64, used: u64) -> u64 {
    (size_bytes / EXTENT_BYTES).saturating_sub(1 + used)
}

/// How many times a file with `free` extents is skipped per extent given to the file with the
/// most free space (`most_free`). +1 on both sides: a full file among files with a little
/// room left is skipped a bounded number of times, not for ever (it can still grow).
fn skip_target(most_free: u64, free: u64) -> u64 {
    (most_free + 1) / (free + 1) - 1
}

impl ProportionalFill {
    pub fn new(nfiles: usize) -> ProportionalFill {
        ProportionalFill {
            used: (0..nfiles).map(|_| AtomicU64::new(0)).collect(),
            turn: Mutex::new(Turn {
                next: 0,
                skip_left: vec![0; nfiles],
            }),
        }
    }

    /// Records the extents in use in file `file` (1-based), counted from its GAM page.
    pub fn set_used(&self, file: u16, used: u64) {
        if let Some(u) = self.used.get(usize::from(file).wrapping_sub(1)) {
            u.store(used, Relaxed);
        }
    }

    /// One extent of file `file` was freed.
    pub fn extent_freed(&self, file: u16) {
        if let Some(u) = self.used.get(usize::from(file).wrapping_sub(1)) {
            let _ = u.fetch_update(Relaxed, Relaxed, |v| Some(v.saturating_sub(1)));
        }
    }

    #[cfg(test)]
    pub fn used(&self, file: u16) -> u64 {
        self.used
            .get(usize::from(file).wrapping_sub(1))
            .map_or(0, |u| u.load(Relaxed))
    }

    /// The file (1-based) the next extent should come from, given each file's size in bytes
    /// (index = file id - 1; `None` = no extents from that file: absent, or being removed).
    /// The file with the most free space has a skip target of 0, so the loop ends within one
    /// pass over the files. 0 when no file is a candidate.
    ///
    /// # Locking
    /// `turn` is a leaf mutex (nothing is latched or locked while it is held); callers may
    /// hold page latches.
    pub fn pick(&self, sizes: &[Option<u64>]) -> u16 {
        let n = sizes.len().min(self.used.len());
        let free: Vec<Option<u64>> = (0..n)
            .map(|i| sizes[i].map(|s| free_extents(s, self.used[i].load(Relaxed))))
            .collect();
        let Some(most) = free.iter().flatten().copied().max() else {
            return 0;
        };
        let mut t = self.turn.lock();
        if t.skip_left.len() < n {
            t.skip_left.resize(n, 0);
        }
        for _ in 0..n {
            let f = t.next % n;
            t.next = (f + 1) % n;
            let Some(free_f) = free[f] else {
                continue;
            };
            let target = skip_target(most, free_f);
            let left = t.skip_left[f].min(target);
            if left == 0 {
                t.skip_left[f] = target;
                return f as u16 + 1;
            }
            t.skip_left[f] = left - 1;
        }
        // unreachable: the file with the most free space has target 0
        (free.iter().position(|&x| x == Some(most)).unwrap_or(0)) as u16 + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mb(n: u64) -> u64 {
        n << 20
    }

    /// Picks `k` extents, each one marked used in the picked file; returns extents per file.
    fn run(fill: &ProportionalFill, sizes: &[u64], k: usize) -> Vec<u64> {
        let mut got = vec![0; sizes.len()];
        for _ in 0..k {
            let sizes: Vec<Option<u64>> = sizes.iter().map(|&s| Some(s)).collect();
            let f = fill.pick(&sizes);
            got[usize::from(f) - 1] += 1;
            fill.set_used(f, fill.used(f) + 1);
        }
        got
    }

    #[test]
    fn equal_files_are_round_robin() {
        let fill = ProportionalFill::new(4);
        let got = run(&fill, &[mb(4); 4], 40);
        assert_eq!(got, vec![10, 10, 10, 10]);
    }

    #[test]
    fn extents_follow_free_space() {
        // 8 MB (127 free extents) and 2 MB (31 free): about 4 to 1 until both are nearly full
        let fill = ProportionalFill::new(2);
        let got = run(&fill, &[mb(8), mb(2)], 100);
        assert!(got[0] >= 75 && got[0] <= 85, "{got:?}");
        // both files fill up at about the same time
        let got = run(&fill, &[mb(8), mb(2)], 58);
        let free: Vec<u64> = (1..=2)
            .map(|f| free_extents(mb([8, 2][f - 1]), fill.used(f as u16)))
            .collect();
        assert!(free.iter().all(|&x| x <= 2), "{free:?} after {got:?}");
    }

    #[test]
    fn a_full_file_is_skipped_a_bounded_number_of_times() {
        let fill = ProportionalFill::new(2);
        fill.set_used(2, 31); // 2 MB file full
        let got = run(&fill, &[mb(1), mb(2)], 30);
        // file 1 has 15 free extents: it gets them first, file 2 still gets a turn now and then
        assert!(got[0] >= 14 && got[1] >= 1, "{got:?}");
    }

    #[test]
    fn files_without_a_size_get_no_extents() {
        let fill = ProportionalFill::new(3);
        let mut got = [0; 3];
        for _ in 0..30 {
            let f = fill.pick(&[Some(mb(4)), None, Some(mb(4))]);
            got[usize::from(f) - 1] += 1;
        }
        assert_eq!(got, [15, 0, 15]);
        assert_eq!(fill.pick(&[None, None]), 0);
    }

    #[test]
    fn gam_count_skips_extent_zero() {
        let mut g = vec![0u8; 8192];
        g[HEADER] = 0b1000_0011;
        g[HEADER + 10] = 0xFF;
        assert_eq!(gam_used_extents(&g), 10);
        assert_eq!(gam_used_extents(&g[..10]), 0);
    }
}
