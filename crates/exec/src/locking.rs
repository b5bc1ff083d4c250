//! Exec's side of locking (exec README, "Locks"): the engine's lock manager is reached through
//! [`TableLocker`], one per table access, handed out by [`crate::ExecEnv::table_locker`].
//!
//! Protocol: a scan never waits for a lock while it holds a page latch. Rows are locked
//! after the latch is released (the page's rows are collected first, then each is locked and
//! fetched again, so what the statement sees is the row as its lock protects it). Writers
//! lock a row exclusively before they change it (a heap insert: right after, since its RID is
//! known only then).

use common::SqlResult;

use crate::versions::{SnapshotRead, WriteVersions};

/// How a statement uses a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableAccess {
    /// A read (SELECT, a subquery, the source of an INSERT ... SELECT).
    Read,
    /// The scan that finds the rows an UPDATE, DELETE or MERGE changes: rows are locked for
    /// update (U) and kept, so no other writer changes them before this statement does.
    Target,
    /// Rows written (INSERT, and the writes of UPDATE / DELETE / MERGE / BULK INSERT).
    Write,
}

/// The locks of one table access in one statement.
pub trait TableLocker {
    /// Must rows be locked now? Checked per page; false on the fast path (no other
    /// transaction can be writing the table, or the isolation level takes no row locks).
    fn rows_need_locks(&self) -> bool;
    /// Locks a row before it is read (the locator: heap RID or clustered key bytes), waiting
    /// as the session's LOCK_TIMEOUT allows. `Ok(false)`: skip the row (READPAST).
    fn lock_row(&mut self, locator: &[u8]) -> SqlResult<bool>;
    /// The row was read; `qualified`: it passed the statement's predicate. A READ COMMITTED
    /// reader releases its row lock here, an UPDATE's scan the lock of a row it will not
    /// change.
    fn row_read(&mut self, locator: &[u8], qualified: bool);
    /// Locks a row exclusively before it is inserted, changed or deleted.
    fn lock_row_for_write(&mut self, locator: &[u8]) -> SqlResult<()>;
    /// Key-range locking (SERIALIZABLE over a B-tree; `crate::key_range`): does this access
    /// lock the ranges it reads?
    fn locks_key_ranges(&self) -> bool {
        false
    }
    /// Locks `key` of index `index_id` (None: the end of the index) for a SERIALIZABLE read:
    /// `range` true in this access's range mode (RangeS-S; RangeS-U for an UPDATE / DELETE
    /// scan), false in its row mode (a unique key found by an equality seek). True when the
    /// whole object is now locked in a mode covering every range (escalated): stop locking.
    fn lock_key(&mut self, _index_id: i32, _key: Option<&[u8]>, _range: bool) -> SqlResult<bool> {
        Ok(false)
    }
    /// May another transaction hold key-range locks on the table's keys now? (An insert then
    /// tests RangeI-N on its next key.) One atomic load.
    fn ranges_may_be_held(&self) -> bool {
        false
    }
    /// An insert's test of the gap its key goes into: RangeI-N on `next` (the key after the
    /// inserted one; None: the end of the index), waiting for any range lock on it. True when
    /// the lock was newly taken and must be given back with [`Self::release_insert_gap`] once
    /// the key is in.
    fn lock_insert_gap(&mut self, _index_id: i32, _next: Option<&[u8]>) -> SqlResult<bool> {
        Ok(false)
    }
    fn release_insert_gap(&mut self, _index_id: i32, _next: Option<&[u8]>) {}
    /// Row versioning (`crate::versions`): the snapshot this access reads (SNAPSHOT, or
    /// READ COMMITTED in a READ_COMMITTED_SNAPSHOT database). None: storage is read as is.
    fn snapshot(&self) -> Option<SnapshotRead> {
        None
    }
    /// Row versioning: where this access records the versions of the rows it writes (the
    /// database allows snapshot isolation or read committed snapshot). None: no versions.
    fn write_versions(&self) -> Option<&WriteVersions> {
        None
    }
}

/// The locker of a snapshot read in a parallel worker: no locks, only the snapshot the
/// coordinator's access took.
pub struct SnapshotOnly(pub SnapshotRead);

impl TableLocker for SnapshotOnly {
    fn rows_need_locks(&self) -> bool {
        false
    }
    fn lock_row(&mut self, _locator: &[u8]) -> SqlResult<bool> {
        Ok(true)
    }
    fn row_read(&mut self, _locator: &[u8], _qualified: bool) {}
    fn lock_row_for_write(&mut self, _locator: &[u8]) -> SqlResult<()> {
        Ok(())
    }
    fn snapshot(&self) -> Option<SnapshotRead> {
        Some(self.0.clone())
    }
}
