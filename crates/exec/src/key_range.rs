//! Key-range locking for SERIALIZABLE (exec README "Locks", engine README "Key-range locks"),
//! as SQL Server does it: a range lock on a key protects that key and the gap below it, down
//! to the previous key.
//!
//! - A read of `[lo, hi]` locks every key in it and the first key past `hi` (the end of the
//!   index, SQL Server's "infinity" key, when there is none): RangeS-S (RangeS-U for an
//!   UPDATE / DELETE scan). A seek that finds nothing locks only that next key.
//! - An insert tests RangeI-N on the key after its own before it puts the key in, and holds it
//!   until the key is in; a range lock held there makes it wait.
//!
//! No lock is waited for under a latch: keys are found with [`BTree::first_key`] (a latch
//! for the descent only), locked, then looked up again. A key that came into the gap
//! meanwhile (its insert tested the gap before the lock was granted) is locked too, so when
//! the loop moves on, the gap below the locked key is known empty and no insert can enter it.
//!
//! Inserts skip the test while no range lock is granted on the table (one atomic load,
//! [`TableLocker::ranges_may_be_held`]); they load the counter again once the key is in, and
//! test then if it has become non-zero. Together with the reader's re-lookup after its grant
//! (which increments the counter), SeqCst on both sides, either the reader sees the new key
//! (and waits for its X lock) or the insert sees the counter.

use std::ops::Bound;
use std::sync::atomic::{fence, Ordering};

use common::SqlResult;
use storage::BTree;

use crate::locking::TableLocker;

fn as_ref(b: &Bound<Vec<u8>>) -> Bound<&[u8]> {
    match b {
        Bound::Included(v) => Bound::Included(v.as_slice()),
        Bound::Excluded(v) => Bound::Excluded(v.as_slice()),
        Bound::Unbounded => Bound::Unbounded,
    }
}

fn below_upper(k: &[u8], hi: Bound<&[u8]>) -> bool {
    match hi {
        Bound::Included(b) => k <= b,
        Bound::Excluded(b) => k < b,
        Bound::Unbounded => true,
    }
}

/// Locks the keys of `bt` (index `index_id`) in `[lo, hi]` and the next key past them, for a
/// SERIALIZABLE read of that range (either direction). `unique_point`: an equality seek of
/// every column of a unique key, which locks a key it finds in the row mode only (no other
/// key can enter that range) and otherwise the next key.
pub fn lock_range(
    locker: &mut dyn TableLocker,
    bt: &BTree,
    index_id: i32,
    lo: Bound<&[u8]>,
    hi: Bound<&[u8]>,
    unique_point: bool,
) -> SqlResult<()> {
    let mut from: Bound<Vec<u8>> = match lo {
        Bound::Included(b) => Bound::Included(b.to_vec()),
        Bound::Excluded(b) => Bound::Excluded(b.to_vec()),
        Bound::Unbounded => Bound::Unbounded,
    };
    loop {
        let next = bt.first_key(as_ref(&from))?;
        let inside = next.as_deref().is_some_and(|k| below_upper(k, hi));
        let covered = locker.lock_key(index_id, next.as_deref(), !(unique_point && inside))?;
        if covered {
            return Ok(());
        }
        // pairs with the insert's load of the range counter (module comment)
        fence(Ordering::SeqCst);
        if bt.first_key(as_ref(&from))? != next {
            // a key came in (or went) before the lock was granted: lock what is there now
            continue;
        }
        match next {
            Some(k) if inside && !unique_point => from = Bound::Excluded(k),
            _ => return Ok(()),
        }
    }
}

/// A RangeI-N an insert holds on the key after its own (None: the end of the index) until
/// its key is in.
pub struct HeldGap {
    pub index_id: i32,
    pub next: Option<Vec<u8>>,
}

/// An insert's test of the gap `key` goes into in `bt` (index `index_id`): RangeI-N on the
/// next key, waiting for any range lock there. Some: the lock was newly taken, to be given
/// back once the key is in (`TableLocker::release_insert_gap`).
pub fn test_gap(
    locker: &mut dyn TableLocker,
    bt: &BTree,
    index_id: i32,
    key: &[u8],
) -> SqlResult<Option<HeldGap>> {
    loop {
        let next = bt.first_key(Bound::Excluded(key))?;
        let release = locker.lock_insert_gap(index_id, next.as_deref())?;
        if bt.first_key(Bound::Excluded(key))? == next {
            return Ok(release.then_some(HeldGap { index_id, next }));
        }
        // another key came in right after ours meanwhile: that one is the next key now
        if release {
            locker.release_insert_gap(index_id, next.as_deref());
        }
    }
}

/// The fence an insert that tested nothing puts between its key going in and its second
/// look at the range counter (module comment).
pub fn after_untested_insert() {
    fence(Ordering::SeqCst);
}
