//! Table storage: the storage objects of a table and its indexes, row insertion/deletion with
//! index maintenance, and the DDL helpers the engine calls (create, build index, drop,
//! truncate, copy rows between definitions).

use std::ops::Bound;
use std::sync::Arc;

use catalog::{IndexDef, IndexKind, TableDef, TableStorage};
use common::{SqlError, SqlResult};
use plan::catalog;
use storage::{BTree, Database, Heap, ObjId, Rid, RowBatch, ScanDirection, Txn};
use types::Value;

use crate::key_range;
use crate::locking::TableLocker;
use crate::row_format::{encode_index_key, key_value_text, nc_locator, nc_value, RowFormat};

/// Callback receiving `(row values, locator)`.
pub type RowVisitor<'a> = dyn FnMut(&[Value], &[u8]) -> SqlResult<()> + 'a;

/// Open handles on a table's storage objects.
pub struct TableStore {
    pub db: Arc<Database>,
    pub table: Arc<TableDef>,
    pub heap: Option<Heap>,
    /// Clustered index: (position in `table.indexes`, B-tree).
    pub clustered: Option<(usize, BTree)>,
    /// Nonclustered rowstore indexes: (position, B-tree, INCLUDE format).
    pub nonclustered: Vec<(usize, BTree, Option<RowFormat>)>,
    pub format: RowFormat,
    keybuf: Vec<u8>,
    valbuf: Vec<u8>,
    /// When set (UPDATE, MERGE), a unique-key collision is not an error yet: the entry is
    /// parked in `deferred` and inserted again by [`TableStore::finish_deferred`] once every
    /// row of the statement has been changed (SQL Server checks uniqueness against the
    /// statement's final state: `UPDATE p SET id = id + 1` succeeds over keys 1, 2, 3).
    defer_unique: bool,
    deferred: Vec<Deferred>,
    /// Locks the rows this store writes (exec README "Locks"); None: no locking.
    locker: Option<Box<dyn TableLocker>>,
    /// Rows inserted, deleted or updated through this store, added to the table's
    /// [`modification_count`] when the store is dropped (one lock per statement, not per row).
    modifications: u64,
}

/// Rows modified per table since the database was opened, by (storage database, object id):
/// what
/// automatic statistics updates compare against their threshold (engine README
/// "Statistics"). In memory only: a restart starts every table at 0, as if its statistics
/// had just been built.
static MODIFICATIONS: std::sync::LazyLock<
    std::sync::Mutex<std::collections::HashMap<(u64, i32), u64>>,
> = std::sync::LazyLock::new(Default::default);

/// The key of a database in [`MODIFICATIONS`]: its open storage object's instance id (two
/// engines in one process, as in tests, do not share counters). Not its address: a database
/// dropped and another opened at the same address inherited the first one's counts (spurious
/// recompiles and statistics updates; `engine/tests/plan_stats.rs` failed 1 run in 4).
fn database_key(db: &Arc<Database>) -> u64 {
    db.instance_id()
}

fn modifications() -> std::sync::MutexGuard<'static, std::collections::HashMap<(u64, i32), u64>> {
    // a panic while holding it leaves plain counters behind: still usable
    MODIFICATIONS.lock().unwrap_or_else(|e| e.into_inner())
}

/// The number of rows inserted, deleted or updated in table `object_id` of `db` since it was
/// opened (monotonic; never reset).
pub fn modification_count(db: &Arc<Database>, object_id: i32) -> u64 {
    modifications()
        .get(&(database_key(db), object_id))
        .copied()
        .unwrap_or(0)
}

impl Drop for TableStore {
    fn drop(&mut self) {
        if self.modifications > 0 {
            let key = (database_key(&self.db), self.table.object_id);
            *modifications().entry(key).or_insert(0) += self.modifications;
        }
    }
}

/// A write parked by a unique-key collision during a statement (see `defer_unique`).
enum Deferred {
    /// A whole row whose clustered key collided (it is not stored yet).
    Row(Vec<Value>),
    /// One nonclustered index entry (`nonclustered[k]`) of a stored row.
    Entry {
        k: usize,
        key: Vec<u8>,
        value: Vec<u8>,
        row: Vec<Value>,
    },
}

fn is_rowstore(i: &IndexDef) -> bool {
    i.kind == IndexKind::RowStore
}

impl TableStore {
    /// Opens the table's objects in `db`.
    pub fn open(db: Arc<Database>, table: Arc<TableDef>) -> SqlResult<Self> {
        let (heap, clustered) = match table.storage {
            TableStorage::Heap(id) => (Some(db.heap(ObjId(id))?), None),
            TableStorage::Clustered { index } => {
                let ix = table
                    .indexes
                    .get(index)
                    .ok_or_else(|| SqlError::internal("clustered index position out of range"))?;
                let bt = db
                    .btree(ObjId(ix.storage_id))?
                    .with_sequential_key(ix.optimize_for_sequential_key);
                (None, Some((index, bt)))
            }
        };
        let mut nonclustered = Vec::new();
        for (i, ix) in table.indexes.iter().enumerate() {
            if ix.clustered || !is_rowstore(ix) {
                continue;
            }
            let inc = if ix.included.is_empty() {
                None
            } else {
                Some(RowFormat::new(
                    ix.included
                        .iter()
                        .map(|&c| table.columns[c].data_type.clone())
                        .collect(),
                ))
            };
            let bt = db
                .btree(ObjId(ix.storage_id))?
                .with_sequential_key(ix.optimize_for_sequential_key);
            nonclustered.push((i, bt, inc));
        }
        let format = RowFormat::for_table(&table);
        Ok(TableStore {
            db,
            table,
            heap,
            clustered,
            nonclustered,
            format,
            keybuf: Vec::new(),
            valbuf: Vec::new(),
            defer_unique: false,
            deferred: Vec::new(),
            locker: None,
            modifications: 0,
        })
    }

    /// Makes every row write take an exclusive row lock first (`ExecEnv::table_locker`).
    pub fn set_locker(&mut self, locker: Option<Box<dyn TableLocker>>) {
        self.locker = locker;
    }

    fn lock_for_write(&mut self, locator: &[u8]) -> SqlResult<()> {
        match &mut self.locker {
            Some(l) => l.lock_row_for_write(locator),
            None => Ok(()),
        }
    }

    /// Checks unique keys at the end of the statement instead of row by row: collisions are
    /// parked until [`TableStore::finish_deferred`], which the statement must call before it
    /// reports success.
    pub fn defer_unique_checks(&mut self) {
        self.defer_unique = true;
    }

    /// Inserts the writes parked by unique-key collisions now that every row of the statement
    /// has been changed; a collision now is a genuine duplicate of the final state (2627 /
    /// 2601; the caller rolls the statement back).
    pub fn finish_deferred(&mut self, txn: &mut Txn) -> SqlResult<()> {
        self.defer_unique = false;
        for d in std::mem::take(&mut self.deferred) {
            match d {
                Deferred::Row(row) => {
                    self.insert_row(txn, &row)?;
                }
                Deferred::Entry { k, key, value, row } => {
                    let (pos, bt, _) = &self.nonclustered[k];
                    if !bt.insert(txn, &key, &value)? {
                        let ix = self.table.indexes[*pos].clone();
                        return Err(self.dup_error(&ix, &row));
                    }
                }
            }
        }
        Ok(())
    }

    /// Would inserting `row` collide with an existing key of a unique index that has
    /// `IGNORE_DUP_KEY = ON`? (Such a row is discarded by INSERT with warning 3604.)
    pub fn ignored_duplicate(&mut self, row: &[Value]) -> SqlResult<bool> {
        for (pos, ix) in self.table.indexes.iter().enumerate() {
            if !ix.unique || !ix.ignore_dup_key || !is_rowstore(ix) {
                continue;
            }
            self.keybuf.clear();
            encode_index_key(&self.table, ix, row, &mut self.keybuf)?;
            let bt = match &self.clustered {
                Some((p, bt)) if *p == pos => bt,
                _ => match self.nonclustered.iter().find(|(p, _, _)| *p == pos) {
                    Some((_, bt, _)) => bt,
                    None => continue,
                },
            };
            if bt.get(&self.keybuf)?.is_some() {
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn dup_error(&self, ix: &IndexDef, row: &[Value]) -> SqlError {
        let obj = format!("{}.{}", self.table.schema, self.table.name);
        let key = key_value_text(&self.table, ix, row);
        if ix.primary_key || ix.unique_constraint {
            let kind = if ix.primary_key {
                "PRIMARY KEY"
            } else {
                "UNIQUE KEY"
            };
            SqlError::new(2627, &[&kind, &ix.name, &obj, &key])
        } else {
            SqlError::new(2601, &[&obj, &ix.name, &key])
        }
    }

    /// Inserts a row (values already converted to the column types, constraints checked) and
    /// maintains every index. Returns the row locator (empty when the row was parked by a
    /// clustered-key collision under `defer_unique_checks`).
    pub fn insert_row(&mut self, txn: &mut Txn, row: &[Value]) -> SqlResult<Vec<u8>> {
        self.modifications += 1;
        let rec = self.format.encode(row)?.to_vec();
        let versions = self.write_versions();
        if let Some(heap) = &self.heap {
            let rid = {
                // the row and its version appear together to snapshot readers
                let mut guard = versions.as_ref().map(|v| v.table.write());
                let rid = heap.insert(txn, &rec)?.to_bytes().to_vec();
                if let (Some(g), Some(v)) = (&mut guard, &versions) {
                    g.record(&v.txn, &rid, None);
                }
                for k in 0..self.nonclustered.len() {
                    self.insert_nc(txn, k, row, &rid)?;
                }
                rid
            };
            // a RID is known only once the row is stored: locked right after (never while
            // the chain lock is held)
            self.lock_for_write(&rid)?;
            Ok(rid)
        } else if let Some((pos, bt)) = &self.clustered {
            let pos = *pos;
            let ix = &self.table.indexes[pos];
            self.keybuf.clear();
            encode_index_key(&self.table, ix, row, &mut self.keybuf)?;
            if !ix.unique {
                let uniq = next_uniquifier(bt, &self.keybuf)?;
                self.keybuf.extend_from_slice(&uniq.to_be_bytes());
            }
            let mut gaps = Vec::new();
            let mut tested = false;
            if let Some(l) = &mut self.locker {
                l.lock_row_for_write(&self.keybuf)?;
                tested = l.ranges_may_be_held();
            }
            let locator = self.keybuf.clone();
            if tested {
                // SERIALIZABLE readers' key-range locks: RangeI-N on each index's next key
                self.test_insert_gaps(row, &locator, true, &mut gaps)?;
            }
            let Some((_, bt)) = &self.clustered else {
                return Err(SqlError::internal("table without storage"));
            };
            let mut guard = versions.as_ref().map(|v| v.table.write());
            if !bt.insert(txn, &locator, &rec)? {
                drop(guard);
                self.release_insert_gaps(gaps);
                if self.defer_unique {
                    self.deferred.push(Deferred::Row(row.to_vec()));
                    return Ok(Vec::new());
                }
                let ix = self.table.indexes[pos].clone();
                return Err(self.dup_error(&ix, row));
            }
            if let (Some(g), Some(v)) = (&mut guard, &versions) {
                g.record(&v.txn, &locator, None);
            }
            for k in 0..self.nonclustered.len() {
                self.insert_nc(txn, k, row, &locator)?;
            }
            drop(guard); // never wait for a lock under the chain lock
            self.finish_insert_gaps(tested, row, &locator, true, gaps)?;
            Ok(locator)
        } else {
            Err(SqlError::internal("table without storage"))
        }
    }

    /// The row-version side of this store's writes (None: the table is not versioned).
    fn write_versions(&self) -> Option<crate::versions::WriteVersions> {
        self.locker
            .as_ref()
            .and_then(|l| l.write_versions())
            .cloned()
    }

    /// Key-range locking (`crate::key_range`): tests the gap each index entry of `row` at
    /// `locator` goes into (the clustered key's too when `clustered`), keeping the RangeI-N
    /// locks to give back in `gaps`. Called before any latch or chain lock is taken.
    fn test_insert_gaps(
        &mut self,
        row: &[Value],
        locator: &[u8],
        clustered: bool,
        gaps: &mut Vec<key_range::HeldGap>,
    ) -> SqlResult<()> {
        let Some(l) = self.locker.as_mut() else {
            return Ok(());
        };
        if let (true, Some((_, bt))) = (clustered, &self.clustered) {
            // clustered keys are index 1's, as the row locks' (engine locks/mod.rs)
            gaps.extend(key_range::test_gap(l.as_mut(), bt, 1, locator)?);
        }
        let mut key = Vec::new();
        for (pos, bt, _) in &self.nonclustered {
            let ix = &self.table.indexes[*pos];
            key.clear();
            encode_index_key(&self.table, ix, row, &mut key)?;
            if !ix.unique {
                key.extend_from_slice(locator);
            }
            gaps.extend(key_range::test_gap(l.as_mut(), bt, ix.index_id, &key)?);
        }
        Ok(())
    }

    fn release_insert_gaps(&mut self, gaps: Vec<key_range::HeldGap>) {
        if let Some(l) = self.locker.as_mut() {
            for g in gaps {
                l.release_insert_gap(g.index_id, g.next.as_deref());
            }
        }
    }

    /// Once the entries are in: gives back the gaps' RangeI-N, or, when nothing was tested
    /// and a range lock has been granted on the table since, tests the gaps now
    /// (`key_range` module comment).
    fn finish_insert_gaps(
        &mut self,
        tested: bool,
        row: &[Value],
        locator: &[u8],
        clustered: bool,
        mut gaps: Vec<key_range::HeldGap>,
    ) -> SqlResult<()> {
        if !tested {
            key_range::after_untested_insert();
            if self.locker.as_ref().is_some_and(|l| l.ranges_may_be_held()) {
                self.test_insert_gaps(row, locator, clustered, &mut gaps)?;
            }
        }
        self.release_insert_gaps(gaps);
        Ok(())
    }

    fn insert_nc(
        &mut self,
        txn: &mut Txn,
        k: usize,
        row: &[Value],
        locator: &[u8],
    ) -> SqlResult<()> {
        let (pos, bt, inc) = &mut self.nonclustered[k];
        let ix = &self.table.indexes[*pos];
        self.keybuf.clear();
        encode_index_key(&self.table, ix, row, &mut self.keybuf)?;
        if !ix.unique {
            self.keybuf.extend_from_slice(locator);
        }
        let incvals: Vec<Value>;
        let included = match inc {
            Some(fmt) => {
                incvals = ix.included.iter().map(|&c| row[c].clone()).collect();
                Some((fmt, incvals.as_slice()))
            }
            None => None,
        };
        nc_value(locator, included, &mut self.valbuf)?;
        if !bt.insert(txn, &self.keybuf, &self.valbuf)? {
            if self.defer_unique {
                self.deferred.push(Deferred::Entry {
                    k,
                    key: self.keybuf.clone(),
                    value: self.valbuf.clone(),
                    row: row.to_vec(),
                });
                return Ok(());
            }
            let ix = ix.clone();
            return Err(self.dup_error(&ix, row));
        }
        Ok(())
    }

    /// Deletes the row at `locator` whose current values are `row` (index entries included).
    pub fn delete_row(&mut self, txn: &mut Txn, locator: &[u8], row: &[Value]) -> SqlResult<()> {
        self.modifications += 1;
        self.lock_for_write(locator)?;
        let versions = self.write_versions();
        let mut guard = versions.as_ref().map(|v| v.table.write());
        if let (Some(g), Some(v)) = (&mut guard, &versions) {
            v.check(g, locator)?;
            let before = self.fetch(locator)?;
            g.record(&v.txn, locator, before.as_deref());
        }
        for k in 0..self.nonclustered.len() {
            self.delete_nc(txn, k, row, locator)?;
        }
        if let Some(heap) = &self.heap {
            let rid = Rid::from_bytes(locator).ok_or_else(|| SqlError::internal("bad RID"))?;
            heap.delete(txn, rid)?;
        } else if let Some((_, bt)) = &self.clustered {
            bt.delete(txn, locator)?;
        }
        Ok(())
    }

    fn delete_nc(
        &mut self,
        txn: &mut Txn,
        k: usize,
        row: &[Value],
        locator: &[u8],
    ) -> SqlResult<()> {
        let (pos, bt, _) = &self.nonclustered[k];
        let ix = &self.table.indexes[*pos];
        self.keybuf.clear();
        encode_index_key(&self.table, ix, row, &mut self.keybuf)?;
        if !ix.unique {
            self.keybuf.extend_from_slice(locator);
        }
        bt.delete(txn, &self.keybuf)?;
        Ok(())
    }

    /// Replaces the row at `locator` (old values `old`) by `new`. Returns the new locator.
    pub fn update_row(
        &mut self,
        txn: &mut Txn,
        locator: &[u8],
        old: &[Value],
        new: &[Value],
    ) -> SqlResult<Vec<u8>> {
        self.modifications += 1;
        self.lock_for_write(locator)?;
        let versions = self.write_versions();
        if let Some(heap) = self.heap.clone() {
            let rid = Rid::from_bytes(locator).ok_or_else(|| SqlError::internal("bad RID"))?;
            let nloc = {
                let mut guard = versions.as_ref().map(|v| v.table.write());
                if let (Some(g), Some(v)) = (&mut guard, &versions) {
                    v.check(g, locator)?;
                    let before = self.fetch(locator)?;
                    g.record(&v.txn, locator, before.as_deref());
                }
                for k in 0..self.nonclustered.len() {
                    self.delete_nc(txn, k, old, locator)?;
                }
                let rec = self.format.encode(new)?.to_vec();
                let nrid = heap.update(txn, rid, &rec)?;
                let nloc = nrid.to_bytes().to_vec();
                if let (Some(g), Some(v), true) = (&mut guard, &versions, nloc != locator) {
                    // the row moved: gone from its old RID (recorded above), new at this one
                    g.record(&v.txn, &nloc, None);
                }
                for k in 0..self.nonclustered.len() {
                    self.insert_nc(txn, k, new, &nloc)?;
                }
                nloc
            };
            if nloc != locator {
                self.lock_for_write(&nloc)?;
            }
            return Ok(nloc);
        }
        let Some((pos, bt)) = self.clustered.clone() else {
            return Err(SqlError::internal("table without storage"));
        };
        let ix = self.table.indexes[pos].clone();
        let key_changed = ix.key_columns.iter().any(|&(c, _)| {
            types::sort_cmp(&old[c], &new[c], types::Collation::DEFAULT)
                != std::cmp::Ordering::Equal
                || old[c].is_null() != new[c].is_null()
                || old[c] != new[c]
        });
        if !key_changed {
            let rec = self.format.encode(new)?.to_vec();
            // the new index entries go into gaps a SERIALIZABLE reader may have locked
            let tested = !self.nonclustered.is_empty()
                && self.locker.as_ref().is_some_and(|l| l.ranges_may_be_held());
            let mut gaps = Vec::new();
            if tested {
                self.test_insert_gaps(new, locator, false, &mut gaps)?;
            }
            let mut guard = versions.as_ref().map(|v| v.table.write());
            if let (Some(g), Some(v)) = (&mut guard, &versions) {
                v.check(g, locator)?;
                let before = self.fetch(locator)?;
                g.record(&v.txn, locator, before.as_deref());
            }
            bt.upsert(txn, locator, &rec)?;
            for k in 0..self.nonclustered.len() {
                self.delete_nc(txn, k, old, locator)?;
                self.insert_nc(txn, k, new, locator)?;
            }
            drop(guard);
            if !self.nonclustered.is_empty() {
                self.finish_insert_gaps(tested, new, locator, false, gaps)?;
            }
            return Ok(locator.to_vec());
        }
        self.delete_row(txn, locator, old)?;
        self.insert_row(txn, new)
    }

    /// Fetches the record at `locator` (heap RID or clustered key).
    pub fn fetch(&self, locator: &[u8]) -> SqlResult<Option<Vec<u8>>> {
        if let Some(heap) = &self.heap {
            let rid = Rid::from_bytes(locator).ok_or_else(|| SqlError::internal("bad RID"))?;
            heap.get(rid)
        } else if let Some((_, bt)) = &self.clustered {
            bt.get(locator)
        } else {
            Ok(None)
        }
    }

    /// Number of rows from the pages' slot counts (records are not read): cheap enough to size
    /// a progress bar before a full pass.
    pub fn count_slots(&self) -> SqlResult<u64> {
        if let Some(heap) = &self.heap {
            heap.scan()?.count()
        } else if let Some((_, bt)) = &self.clustered {
            bt.range(Bound::Unbounded, Bound::Unbounded, ScanDirection::Forward)?
                .count()
        } else {
            Ok(0)
        }
    }

    /// The table's row pages picked by `pick(page index)` from its page list (the IAM: no data
    /// page is read); None for a table without row storage.
    pub fn page_sample(
        &self,
        pick: &mut dyn FnMut(usize) -> bool,
    ) -> SqlResult<Option<storage::sample::PageSample>> {
        let mut pick = |i: usize, _: common::PageId| pick(i);
        if let Some(heap) = &self.heap {
            Ok(Some(heap.page_sample(&mut pick)?))
        } else if let Some((_, bt)) = &self.clustered {
            Ok(Some(bt.page_sample(&mut pick)?))
        } else {
            Ok(None)
        }
    }

    /// Calls `f(row)` for the rows of the pages `keep_page()` accepts (asked once per page of
    /// the table's page list, in allocation order, before any is read), decoding only the
    /// columns in `cols` (the other values are NULL): the page sample of a statistics build
    /// (SQL Server samples whole pages, not rows). Only the accepted pages are read. `f` gets
    /// each row with the ordinal of its page among those read (ascending) and may take the
    /// values out of the row (each row's `cols` are decoded afresh).
    pub fn for_each_sampled_row(
        &self,
        cols: &[usize],
        keep_page: &mut dyn FnMut() -> bool,
        f: &mut dyn FnMut(&mut [Value], u32) -> SqlResult<()>,
    ) -> SqlResult<storage::sample::SampleCounts> {
        let Some(sample) = self.page_sample(&mut |_| keep_page())? else {
            return Ok(Default::default());
        };
        let mut row = vec![Value::Null; self.table.columns.len()];
        sample.visit(&mut |rec, page| {
            self.format.decode_cols(rec, cols, &mut row)?;
            f(&mut row, page)
        })
    }
    /// Calls `f(row, locator)` for every row in storage order.
    pub fn for_each_row(&self, f: &mut RowVisitor<'_>) -> SqlResult<()> {
        let mut batch = RowBatch::new();
        let mut row = Vec::new();
        if let Some(heap) = &self.heap {
            let mut scan = heap.scan()?;
            loop {
                batch.clear();
                let more = scan.next_batch(&mut batch)?;
                for i in 0..batch.len() {
                    row.clear();
                    self.format.decode_into(batch.record(i), &mut row)?;
                    f(&row, &batch.rid(i).to_bytes())?;
                }
                if !more {
                    break;
                }
            }
        } else if let Some((_, bt)) = &self.clustered {
            let mut scan = bt.range(Bound::Unbounded, Bound::Unbounded, ScanDirection::Forward)?;
            loop {
                batch.clear();
                let more = scan.next_batch(&mut batch)?;
                for i in 0..batch.len() {
                    row.clear();
                    self.format.decode_into(batch.record(i), &mut row)?;
                    f(&row, batch.key(i))?;
                }
                if !more {
                    break;
                }
            }
        }
        Ok(())
    }
}

/// Opens `table`'s storage for a statement that writes it: every row written is locked
/// exclusively first (the engine's locker for [`crate::locking::TableAccess::Write`]).
pub fn open_for_write(
    ctx: &mut crate::ExecCtx,
    db: Arc<Database>,
    table: &Arc<TableDef>,
) -> SqlResult<TableStore> {
    let mut store = TableStore::open(db, table.clone())?;
    store.set_locker(
        ctx.env
            .table_locker(table, &[], crate::locking::TableAccess::Write)?,
    );
    Ok(store)
}

/// Next uniquifier for a duplicate clustering key prefix (0 when the key is new).
fn next_uniquifier(bt: &BTree, prefix: &[u8]) -> SqlResult<u32> {
    let upper = types::key::successor(prefix);
    let ub = match &upper {
        Some(u) => Bound::Excluded(u.as_slice()),
        None => Bound::Unbounded,
    };
    let mut scan = bt.range(Bound::Included(prefix), ub, ScanDirection::Backward)?;
    let mut batch = RowBatch::new();
    loop {
        batch.clear();
        let more = scan.next_batch(&mut batch)?;
        if !batch.is_empty() {
            let k = batch.key(0);
            if k.len() == prefix.len() + 4 {
                let b = &k[k.len() - 4..];
                return Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]).wrapping_add(1));
            }
            return Ok(0);
        }
        if !more {
            return Ok(0);
        }
    }
}

/// Creates the storage objects of a new table: the heap (when `storage` is `Heap`) and one
/// B-tree per rowstore index; fills in the ids.
pub fn create_table_storage(db: &Database, txn: &mut Txn, table: &mut TableDef) -> SqlResult<()> {
    create_table_storage_on(db, txn, table, None)
}

/// [`create_table_storage`] in filegroup `data_space` (`None`: the database's default).
pub fn create_table_storage_on(
    db: &Database,
    txn: &mut Txn,
    table: &mut TableDef,
    data_space: Option<u16>,
) -> SqlResult<()> {
    if let TableStorage::Heap(_) = table.storage {
        let id = db.create_heap_on(txn, data_space)?;
        table.storage = TableStorage::Heap(id.0);
    }
    for ix in &mut table.indexes {
        if is_rowstore(ix) {
            ix.storage_id = db.create_btree_on(txn, data_space)?.0;
        }
    }
    Ok(())
}

/// Creates the B-tree of a new nonclustered index `table.indexes[pos]` (sets `storage_id`).
pub fn create_index_storage(
    db: &Database,
    txn: &mut Txn,
    table: &mut TableDef,
    pos: usize,
) -> SqlResult<()> {
    let ix = table
        .indexes
        .get_mut(pos)
        .ok_or_else(|| SqlError::internal("index position out of range"))?;
    ix.storage_id = db.create_btree(txn)?.0;
    Ok(())
}

/// Fills the (empty, already created) nonclustered index `table.indexes[pos]` from the table's
/// rows. Duplicate keys of a unique index raise 1505.
pub fn build_index(
    db: &Arc<Database>,
    txn: &mut Txn,
    table: &Arc<TableDef>,
    pos: usize,
) -> SqlResult<()> {
    build_index_watched(db, txn, table, pos, RowLoopWatch::default())
}

/// How many rows a row-at-a-time DDL loop (index build, table rewrite) processes between two
/// polls of its cancel token: a relaxed load per row would do, but this keeps the check out of
/// the profile while still stopping within a few milliseconds.
pub const CANCEL_EVERY_ROWS: u64 = 256;

/// What a long row loop outside a plan (index build, table rewrite) reports to and hears
/// from its session: the cancel flag it polls and the progress meter it publishes rows to.
#[derive(Clone, Copy, Default)]
pub struct RowLoopWatch<'a> {
    pub cancel: Option<&'a common::CancelToken>,
    pub progress: Option<&'a common::ProgressMeter>,
}

impl RowLoopWatch<'_> {
    /// Counts one row (`n`); every [`CANCEL_EVERY_ROWS`] rows polls the cancel flag and
    /// publishes `n` as done.
    #[inline]
    fn tick(&self, n: &mut u64) -> SqlResult<()> {
        *n += 1;
        if !n.is_multiple_of(CANCEL_EVERY_ROWS) {
            return Ok(());
        }
        if let Some(p) = self.progress {
            p.set_done(*n);
        }
        match self.cancel {
            Some(c) => c.check(),
            None => Ok(()),
        }
    }
}

/// [`build_index`] that stops with the attention error once `watch.cancel` is set (the
/// caller's statement rollback then removes the half-built index) and publishes the rows read
/// to `watch.progress` (whose total the caller set).
pub fn build_index_watched(
    db: &Arc<Database>,
    txn: &mut Txn,
    table: &Arc<TableDef>,
    pos: usize,
    watch: RowLoopWatch<'_>,
) -> SqlResult<()> {
    let mut polled = 0u64;
    let ix = table
        .indexes
        .get(pos)
        .cloned()
        .ok_or_else(|| SqlError::internal("index position out of range"))?;
    if ix.clustered || !is_rowstore(&ix) {
        return Err(SqlError::internal(
            "build_index: use copy_rows for clustered indexes",
        ));
    }
    let store = TableStore::open(db.clone(), table.clone())?;
    let bt = db.btree(ObjId(ix.storage_id))?;
    let mut inc = if ix.included.is_empty() {
        None
    } else {
        Some(RowFormat::new(
            ix.included
                .iter()
                .map(|&c| table.columns[c].data_type.clone())
                .collect(),
        ))
    };
    let mut key = Vec::new();
    let mut val = Vec::new();
    store.for_each_row(&mut |row, locator| {
        watch.tick(&mut polled)?;
        key.clear();
        encode_index_key(table, &ix, row, &mut key)?;
        if !ix.unique {
            key.extend_from_slice(locator);
        }
        let incvals: Vec<Value>;
        let included = match &mut inc {
            Some(fmt) => {
                incvals = ix.included.iter().map(|&c| row[c].clone()).collect();
                Some((fmt, incvals.as_slice()))
            }
            None => None,
        };
        nc_value(locator, included, &mut val)?;
        if !bt.insert(txn, &key, &val)? {
            return Err(SqlError::new(
                1505,
                &[
                    &format!("{}.{}", table.schema, table.name),
                    &ix.name,
                    &key_value_text(table, &ix, row),
                ],
            ));
        }
        Ok(())
    })
}

/// Copies every row of `from` into the (freshly created, empty) storage of `to` — used when a
/// table's physical organisation changes (clustered index created/dropped, ALTER TABLE).
/// `map` gives, per column of `to`, the source column in `from` (None = NULL).
pub fn copy_rows(
    db: &Arc<Database>,
    txn: &mut Txn,
    from: &Arc<TableDef>,
    to: &Arc<TableDef>,
    map: &[Option<usize>],
) -> SqlResult<u64> {
    copy_rows_watched(db, txn, from, to, map, RowLoopWatch::default())
}

/// [`copy_rows`] that stops with the attention error once `watch.cancel` is set; once the
/// rows are read it starts `watch.progress` with their number and publishes the rows written.
pub fn copy_rows_watched(
    db: &Arc<Database>,
    txn: &mut Txn,
    from: &Arc<TableDef>,
    to: &Arc<TableDef>,
    map: &[Option<usize>],
    watch: RowLoopWatch<'_>,
) -> SqlResult<u64> {
    let mut polled = 0u64;
    let src = TableStore::open(db.clone(), from.clone())?;
    let mut rows: Vec<Vec<Value>> = Vec::new();
    // reading: no known total yet, so only the cancel flag is polled
    let reading = RowLoopWatch {
        progress: None,
        ..watch
    };
    src.for_each_row(&mut |row, _| {
        reading.tick(&mut polled)?;
        rows.push(
            map.iter()
                .map(|m| m.and_then(|i| row.get(i).cloned()).unwrap_or(Value::Null))
                .collect(),
        );
        Ok(())
    })?;
    let mut dst = TableStore::open(db.clone(), to.clone())?;
    let n = rows.len() as u64;
    let _progress = watch.progress.map(|p| p.start(n));
    polled = 0;
    for r in rows {
        watch.tick(&mut polled)?;
        dst.insert_row(txn, &r)?;
    }
    Ok(n)
}

/// Drops all storage objects of a table.
pub fn drop_table_storage(db: &Database, txn: &mut Txn, table: &TableDef) -> SqlResult<()> {
    if let TableStorage::Heap(id) = table.storage {
        db.drop_object(txn, ObjId(id))?;
    }
    for ix in &table.indexes {
        if is_rowstore(ix) && ix.storage_id != 0 {
            db.drop_object(txn, ObjId(ix.storage_id))?;
        }
    }
    Ok(())
}

/// Drops one nonclustered index's B-tree.
pub fn drop_index_storage(db: &Database, txn: &mut Txn, index: &IndexDef) -> SqlResult<()> {
    db.drop_object(txn, ObjId(index.storage_id))
}

/// Removes every row of a table (TRUNCATE TABLE).
pub fn truncate_table(db: &Database, txn: &mut Txn, table: &TableDef) -> SqlResult<()> {
    if let TableStorage::Heap(id) = table.storage {
        db.truncate_object(txn, ObjId(id))?;
    }
    for ix in &table.indexes {
        if is_rowstore(ix) && ix.storage_id != 0 {
            db.truncate_object(txn, ObjId(ix.storage_id))?;
        }
    }
    Ok(())
}

/// Number of rows (full scan of the slot arrays, no record decoded) — for tests, DBCC-style
/// checks and the optimizer's row count of a table without statistics (`engine::table_rows`,
/// which decoded every column of every row through `for_each_row` before: TPC-H q6 at SF 0.1
/// spent a tenth of a warm run there).
pub fn count_rows(db: &Arc<Database>, table: &Arc<TableDef>) -> SqlResult<u64> {
    let s = TableStore::open(db.clone(), table.clone())?;
    if let Some(h) = &s.heap {
        return h.scan()?.count();
    }
    if let Some((_, bt)) = &s.clustered {
        return bt
            .range(
                std::ops::Bound::Unbounded,
                std::ops::Bound::Unbounded,
                storage::ScanDirection::Forward,
            )?
            .count();
    }
    let mut n = 0u64;
    s.for_each_row(&mut |_, _| {
        n += 1;
        Ok(())
    })?;
    Ok(n)
}

/// Tables of at most this many pages (32 MB) are counted exactly by [`estimate_rows`]: a
/// count of that many pages costs a few milliseconds, and a plan choice at a row threshold
/// (batch mode at 100,000 rows) must not flip on a sampling error.
pub const ESTIMATE_EXACT_PAGES: usize = 4096;

/// Pages a larger table's row estimate reads, spread evenly over it.
pub const ESTIMATE_SAMPLE_PAGES: usize = 256;

/// The table's rows without reading a large table whole: tables of up to
/// [`ESTIMATE_EXACT_PAGES`] pages are counted (slot arrays only), larger ones from
/// [`ESTIMATE_SAMPLE_PAGES`] pages spread evenly over the page list (IAM order), scaled by the
/// page count. Rows per page vary little in a table (same row format, same fill), so the
/// estimate is within about a percent.
pub fn estimate_rows(db: &Arc<Database>, table: &Arc<TableDef>) -> SqlResult<u64> {
    let s = TableStore::open(db.clone(), table.clone())?;
    // the page count first (an IAM walk), then the evenly spread pick
    let Some(all) = s.page_sample(&mut |_| false)? else {
        return count_rows(db, table);
    };
    let total = all.total_pages();
    let stride = if total <= ESTIMATE_EXACT_PAGES {
        1
    } else {
        total.div_ceil(ESTIMATE_SAMPLE_PAGES)
    };
    let Some(sample) = s.page_sample(&mut |i| i % stride == stride / 2 || stride == 1)? else {
        return Ok(0);
    };
    Ok(sample.count()?.estimated_rows())
}

#[allow(dead_code)]
pub(crate) fn locator_of_nc_value(v: &[u8]) -> SqlResult<&[u8]> {
    nc_locator(v)
}
