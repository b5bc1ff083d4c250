//! IDENTITY values from a cache of reserved values (SQL Server's `IDENTITY_CACHE`).
//!
//! Invariant I1: a table's counter row in the catalog (`DbCatalog::identity_persisted`) is at
//! or beyond every value handed out (`DbCatalog::identity`, the last one, which IDENT_CURRENT
//! and DBCC CHECKIDENT show). When the next value is past the persisted one, a block of
//! [`cache_size`] values is reserved by writing the block's last value in a system transaction
//! of its own (`DbCatalog::set_identity_autonomous`), committed before the value is used:
//! the row that uses a value commits after the block's record in the same log, so a crash
//! loses both or neither. The values inside the block cost no write and no log record; the
//! catalog's write lock is held only for the map update.
//!
//! After an unclean shutdown the counter resumes after the persisted block end: the values
//! left in the block are skipped (a gap), never handed out twice, as in SQL Server. A clean
//! shutdown writes the last values back ([`release`]), so no gap is left; the same clean-stop
//! write-back covers the sequences' cached blocks (sequence.rs).

use catalog::{IdentitySpec, TableDef};
use common::SqlResult;
use types::DataType;

use crate::server::DbHandle;

/// Values one write of the counter reserves: SQL Server's 1,000 for int and 10,000 for bigint
/// and decimal/numeric. tinyint and smallint are not cached (a block would be a large part of
/// their range); nor are any when the cache is off.
pub(crate) fn cache_size(table: &TableDef, cache_on: bool) -> i128 {
    let Some((col, _)) = table.identity() else {
        return 1;
    };
    match table.columns.get(col).map(|c| &c.data_type) {
        _ if !cache_on => 1,
        Some(DataType::Int) => 1_000,
        Some(DataType::BigInt | DataType::Decimal { .. } | DataType::Numeric { .. }) => 10_000,
        _ => 1,
    }
}

/// The range of the identity column's type, to keep a block's end inside it (a value past
/// the range fails on its own when it is used).
fn type_range(table: &TableDef) -> (i128, i128) {
    let dt = table
        .identity()
        .and_then(|(c, _)| table.columns.get(c))
        .map(|c| &c.data_type);
    match dt {
        Some(DataType::TinyInt) => (0, u8::MAX as i128),
        Some(DataType::SmallInt) => (i16::MIN as i128, i16::MAX as i128),
        Some(DataType::Int) => (i32::MIN as i128, i32::MAX as i128),
        Some(DataType::Decimal { precision, .. } | DataType::Numeric { precision, .. }) => {
            let max = 10i128.saturating_pow((*precision).min(38) as u32) - 1;
            (-max, max)
        }
        _ => (i64::MIN as i128, i64::MAX as i128),
    }
}

/// Whether `value` was handed out or reserved by a counter at `mark`.
pub(crate) fn within(value: i128, mark: i128, spec: IdentitySpec) -> bool {
    if spec.increment >= 0 {
        value <= mark
    } else {
        value >= mark
    }
}

/// The last value of a block of `size` values starting at `next`, kept inside the type's
/// range (never before `next` itself).
pub(crate) fn block_end(next: i128, spec: IdentitySpec, size: i128, table: &TableDef) -> i128 {
    let (lo, hi) = type_range(table);
    let end = next.saturating_add(spec.increment as i128 * (size - 1).max(0));
    if spec.increment >= 0 {
        end.min(hi).max(next)
    } else {
        end.max(lo).min(next)
    }
}

/// Hands out the next value of `table`'s identity (invariant I1).
pub(crate) fn next_value(h: &DbHandle, table: &TableDef, spec: IdentitySpec) -> SqlResult<i128> {
    let id = table.object_id;
    let mut cat = h.cat.write();
    let next = match cat.identity.get(&id).copied() {
        Some(c) => c + spec.increment as i128,
        None => spec.seed as i128,
    };
    let reserved = cat
        .identity_persisted
        .get(&id)
        .is_some_and(|&p| within(next, p, spec));
    if !reserved {
        let size = cache_size(table, h.identity_cache_on());
        let end = block_end(next, spec, size, table);
        let tree = h.store.catalog_btree()?;
        cat.set_identity_autonomous(&h.store, &tree, id, end)?;
    }
    cat.identity.insert(id, next);
    Ok(next)
}

/// Clean shutdown: writes every table's last value handed out back to its counter row, and
/// every sequence's (`sequence::release`), so the unused rest of their cached blocks is not
/// skipped after the restart. Durable before it returns.
pub fn release(h: &DbHandle) -> SqlResult<()> {
    let sequences = crate::sequence::release(h);
    release_identity(h)?;
    sequences
}

/// [`release`]'s IDENTITY part.
fn release_identity(h: &DbHandle) -> SqlResult<()> {
    let mut cat = h.cat.write();
    let behind: Vec<(common::ObjectId, i128)> = cat
        .identity
        .iter()
        .filter(|(id, v)| cat.identity_persisted.get(id) != Some(v))
        .map(|(id, v)| (*id, *v))
        .collect();
    if behind.is_empty() {
        return Ok(());
    }
    let tree = h.store.catalog_btree()?;
    let mut txn = h.store.begin()?;
    for (id, v) in behind {
        if let Err(e) = cat.set_identity(&tree, &mut txn, id, v) {
            let _ = txn.abort();
            return Err(e);
        }
    }
    txn.commit()?;
    Ok(())
}

impl crate::server::Engine {
    /// [`release`] for every open database (a clean stop of the process); a database whose
    /// counters cannot be written keeps its gap, as after a crash.
    pub fn release_identity_caches(&self) -> Vec<(String, common::SqlError)> {
        self.databases()
            .iter()
            .filter_map(|h| release(h).err().map(|e| (h.def.name.clone(), e)))
            .collect()
    }
}
