//! Optimizer statistics (engine README "Statistics"): statistics objects on indexes and column
//! sets, built from the table's rows ([`build`]), persisted in the catalog ([`persist`]),
//! created and updated by DDL ([`ddl`]) or automatically when the optimizer asks
//! ([`for_optimizer`]), and shown by `DBCC SHOW_STATISTICS`, `sys.stats`, `sys.stats_columns`,
//! `sys.dm_db_stats_properties` and `STATS_DATE` ([`show`]).
//!
//! Threading: the objects live in the database's catalog cache as `Arc<StatisticsObject>`; a
//! build reads the table without holding the catalog lock and installs its result by swapping
//! the table's list under the write lock, so readers (compiles) see the old or the new object,
//! never a partial one. At most one automatic build per (table, object) runs at a time
//! ([`BUILDING`]); a compile that finds a build under way uses what exists.

mod build;
mod ddl;
mod persist;
mod show;

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, LazyLock, Mutex, MutexGuard};

use catalog::serial::{self, ObjectKind};
use catalog::statistics::{StatisticsData, StatisticsObject};
use catalog::{IndexKind, TableDef};
use common::{ObjectId, SqlResult};
use storage::{BTree, Txn};
use types::DataType;

use crate::dbcat::DbCatalog;
use crate::session::Session;

pub(crate) use show::{stats_date, sys_view};

/// Most rows a build keeps in memory: a larger table (or sample) is sampled by pages down to
/// this many rows, FULLSCAN included (`Rows Sampled` then says so).
pub(crate) const MAX_BUILD_ROWS: u64 = 1_000_000;

/// Tables up to this many pages (8 MB) are read whole by the default sample, and a larger
/// table's default sample takes this many pages more than its `15 * rows^0.55` rows
/// ([`auto_fraction`]).
const AUTO_FULLSCAN_PAGES: u64 = 1024;

/// The statistics objects of one database's tables (part of [`DbCatalog`]), as stored: index
/// statistics appear here once built; [`table_objects`] adds the headers of the others.
#[derive(Clone, Debug, Default)]
pub struct TableStatistics {
    by_table: HashMap<ObjectId, Vec<Arc<StatisticsObject>>>,
    auto_create_off: bool,
    auto_update_off: bool,
    /// Per table: the statistics generation of its last install (plan_stats.rs recompile).
    versions: HashMap<ObjectId, u64>,
    /// Per table whose objects a transaction not yet ended changed (`MetaClass::Stats`
    /// pending): its objects as last committed, what other sessions' compiles use
    /// ([`for_optimizer`]). Set by the transaction's first change, dropped at its end
    /// ([`TableStatistics::settle`]); carried across reloads of the cache
    /// ([`TableStatistics::keep_committed`]).
    committed: HashMap<ObjectId, Vec<Arc<StatisticsObject>>>,
}

impl TableStatistics {
    /// Reads one `X` catalog row ([`DbCatalog::load`]).
    pub(crate) fn load_row(&mut self, id: i32, bytes: &[u8]) -> SqlResult<()> {
        if id == 0 {
            let (create, update) = persist::decode_options(bytes)?;
            self.auto_create_off = !create;
            self.auto_update_off = !update;
            return Ok(());
        }
        let list = persist::decode(bytes)?.into_iter().map(Arc::new).collect();
        self.by_table.insert(id, list);
        Ok(())
    }

    /// `AUTO_CREATE_STATISTICS` is ON.
    pub(crate) fn auto_create(&self) -> bool {
        !self.auto_create_off
    }

    /// `AUTO_UPDATE_STATISTICS` is ON.
    pub(crate) fn auto_update(&self) -> bool {
        !self.auto_update_off
    }

    /// The statistics version of a table: changes whenever its objects are installed.
    pub(crate) fn version(&self, table: ObjectId) -> u64 {
        self.versions.get(&table).copied().unwrap_or(0)
    }

    /// The stored objects of a table.
    pub(crate) fn stored(&self, table: ObjectId) -> &[Arc<StatisticsObject>] {
        self.by_table
            .get(&table)
            .map(|v| v.as_slice())
            .unwrap_or(&[])
    }

    fn row(table: &TableDef, list: &[Arc<StatisticsObject>]) -> SqlResult<Vec<u8>> {
        let typed: Vec<(Arc<StatisticsObject>, DataType)> = list
            .iter()
            .filter_map(|o| {
                let t = table.columns.get(*o.columns.first()?)?.data_type.clone();
                Some((o.clone(), t))
            })
            .collect();
        persist::encode(&typed)
    }

    /// Replaces a table's stored objects in the cache and the catalog B-tree under `txn`.
    pub(crate) fn put(
        &mut self,
        tree: &BTree,
        txn: &mut Txn,
        table: &TableDef,
        list: Vec<Arc<StatisticsObject>>,
    ) -> SqlResult<()> {
        // the caller bumps the catalog's generation (DDL: cached plans recompile)
        if !self.committed.contains_key(&table.object_id) {
            let before = self.stored(table.object_id).to_vec();
            self.committed.insert(table.object_id, before);
        }
        self.store_objects(tree, txn, table, list)
    }

    /// The objects of `table` as committed when a transaction not yet ended changed them
    /// (None: the stored ones are committed, or the change is the reader's own).
    pub(crate) fn committed(&self, table: ObjectId) -> Option<&[Arc<StatisticsObject>]> {
        self.committed.get(&table).map(|v| v.as_slice())
    }

    /// The transaction that changed `table`'s objects ended: what is stored is committed
    /// (after a rollback, the reloaded cache holds what the B-tree kept).
    pub(crate) fn settle(&mut self, table: ObjectId) {
        if self.committed.remove(&table).is_some() {
            // plans other sessions compiled from the committed objects meanwhile recompile
            self.versions
                .insert(table, crate::plan_stats::bump_statistics_generation());
        }
    }

    /// A reload of the cache from storage keeps the committed objects of the tables other
    /// transactions still change (their uncommitted rows are in the B-tree).
    pub(crate) fn keep_committed(&mut self, before: &mut TableStatistics) {
        self.committed = std::mem::take(&mut before.committed);
    }

    fn store_objects(
        &mut self,
        tree: &BTree,
        txn: &mut Txn,
        table: &TableDef,
        list: Vec<Arc<StatisticsObject>>,
    ) -> SqlResult<()> {
        let key = serial::object_key(ObjectKind::Statistics, table.object_id);
        // plans compiled from the table's former statistics recompile on their next use
        self.versions.insert(
            table.object_id,
            crate::plan_stats::bump_statistics_generation(),
        );
        if list.is_empty() {
            tree.delete(txn, &key)?;
            self.by_table.remove(&table.object_id);
        } else {
            tree.upsert(txn, &key, &Self::row(table, &list)?)?;
            self.by_table.insert(table.object_id, list);
        }
        Ok(())
    }

    /// [`Self::put`] in a system transaction of its own, committed at once: automatic
    /// statistics are not part of the user's transaction (SQL Server: a rollback keeps them).
    /// An automatic build happens inside the compile that asked for it, which uses the new
    /// objects at once, so it does not bump the schema generation: that would throw away the
    /// very plan being compiled. Plans cached before it that used this table's statistics
    /// recompile on their next use, in any session (the table's statistics version,
    /// plan_stats.rs).
    pub(crate) fn put_autonomous(
        &mut self,
        store: &storage::Database,
        tree: &BTree,
        table: &TableDef,
        list: Vec<Arc<StatisticsObject>>,
    ) -> SqlResult<()> {
        let mut txn = store.begin()?;
        match self.store_objects(tree, &mut txn, table, list) {
            Ok(()) => txn.commit_lazy(),
            Err(e) => {
                let _ = txn.abort();
                Err(e)
            }
        }
    }

    /// Forgets a dropped table's objects.
    pub(crate) fn remove_table(
        &mut self,
        tree: &BTree,
        txn: &mut Txn,
        id: ObjectId,
    ) -> SqlResult<()> {
        if self.by_table.remove(&id).is_some() {
            tree.delete(txn, &serial::object_key(ObjectKind::Statistics, id))?;
        }
        Ok(())
    }

    /// `ALTER DATABASE SET AUTO_CREATE_STATISTICS | AUTO_UPDATE_STATISTICS`.
    pub(crate) fn set_options(
        &mut self,
        tree: &BTree,
        txn: &mut Txn,
        auto_create: Option<bool>,
        auto_update: Option<bool>,
    ) -> SqlResult<()> {
        if let Some(v) = auto_create {
            self.auto_create_off = !v;
        }
        if let Some(v) = auto_update {
            self.auto_update_off = !v;
        }
        tree.upsert(
            txn,
            &serial::object_key(ObjectKind::Statistics, 0),
            &persist::encode_options(self.auto_create(), self.auto_update()),
        )
    }
}

/// Every statistics object of `table`: one per rowstore index (same name and id, a header
/// without data until built) and the column statistics, by stats_id.
pub(crate) fn table_objects(cat: &DbCatalog, table: &TableDef) -> Vec<Arc<StatisticsObject>> {
    objects_of(table, cat.statistics.stored(table.object_id))
}

/// [`table_objects`] from a list of stored objects (the cache's, or the committed ones).
fn objects_of(table: &TableDef, stored: &[Arc<StatisticsObject>]) -> Vec<Arc<StatisticsObject>> {
    let mut out: Vec<Arc<StatisticsObject>> = Vec::new();
    for ix in &table.indexes {
        if ix.kind != IndexKind::RowStore {
            continue;
        }
        let columns: Vec<usize> = ix.key_columns.iter().map(|(c, _)| *c).collect();
        let found = stored
            .iter()
            .find(|o| o.index_id == Some(ix.index_id) && o.columns == columns);
        out.push(match found {
            Some(o) if o.name == ix.name => o.clone(),
            Some(o) => Arc::new(StatisticsObject {
                name: ix.name.clone(),
                ..(**o).clone()
            }),
            None => Arc::new(StatisticsObject {
                stats_id: ix.index_id,
                name: ix.name.clone(),
                columns,
                index_id: Some(ix.index_id),
                auto_created: false,
                user_created: false,
                no_recompute: false,
                filter: ix.filter.clone(),
                data: None,
            }),
        });
    }
    out.extend(stored.iter().filter(|o| o.index_id.is_none()).cloned());
    out.sort_by_key(|o| o.stats_id);
    out
}

/// A new index on a table with column statistics: its name must differ from theirs (Msg
/// 1913) and its id from their stats_ids (ids are shared, as in SQL Server).
pub(crate) fn place_new_index(cat: &DbCatalog, table: &mut TableDef, pos: usize) -> SqlResult<()> {
    let stored = cat.statistics.stored(table.object_id);
    let Some(ix) = table.indexes.get(pos) else {
        return Ok(());
    };
    if let Some(o) = stored
        .iter()
        .find(|o| o.index_id.is_none() && catalog::name_eq(&o.name, &ix.name))
    {
        return Err(common::SqlError::new(
            1913,
            &[&o.name, &"table", &table.name],
        ));
    }
    let used = stored
        .iter()
        .filter(|o| o.index_id.is_none())
        .map(|o| o.stats_id)
        .max();
    if let (Some(m), false) = (used, ix.clustered) {
        if ix.index_id <= m {
            table.indexes[pos].index_id = m + 1;
        }
    }
    Ok(())
}

/// How much of the table a build reads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Sample {
    Full,
    Percent(f64),
    Rows(u64),
    /// Automatic statistics, `sp_updatestats` and `UPDATE STATISTICS` without option: SQL
    /// Server's default sample ([`auto_fraction`]).
    Auto,
}

/// The fraction of a table of `rows` rows on `pages` pages that SQL Server's default sample
/// reads (automatic statistics, `UPDATE STATISTICS` without a sample option): the whole table
/// up to 1,024 pages (8 MB), else `15 * rows^0.55` rows' worth of pages plus 1,024 pages, at
/// most all of them — the sampled pages `min(pages, 15 * rows^0.55 / rows * pages + 1024)`
/// Microsoft's support engineers give for SQL Server 2016+. The sample grows sub-linearly:
/// about 21 % of a 400,000-row table of 6,200 pages, some 2.4 % of TPC-H SF 1's lineitem (6 M rows,
/// 140,000 sampled).
pub(crate) fn auto_fraction(rows: u64, pages: u64) -> f64 {
    if pages <= AUTO_FULLSCAN_PAGES || rows == 0 {
        return 1.0;
    }
    let n = rows as f64;
    (15.0 * n.powf(0.55) / n + AUTO_FULLSCAN_PAGES as f64 / pages as f64).min(1.0)
}

/// (open storage database's process-unique instance id, table, stats_id): not its address,
/// which a database opened after it was dropped may reuse.
type ObjectKey = (u64, ObjectId, i32);

/// Rows modified since the process started per (database, table, stats_id) when each object
/// was last built: `sys.dm_db_stats_properties.modification_counter` is the table's counter
/// minus this.
static BASELINES: LazyLock<Mutex<HashMap<ObjectKey, u64>>> = LazyLock::new(Default::default);

/// Objects without data an automatic build was tried for in this process (an empty table is
/// not scanned again at every compile; its modifications trigger the next try).
static ATTEMPTED: LazyLock<Mutex<HashSet<ObjectKey>>> = LazyLock::new(Default::default);

fn first_attempt(store: &Arc<storage::Database>, table: &TableDef, stats_id: i32) -> bool {
    lock(&ATTEMPTED).insert((store.instance_id(), table.object_id, stats_id))
}

/// Objects being built automatically right now (storage instance, table, stats_id or -1 -
/// column).
static BUILDING: LazyLock<Mutex<HashSet<(u64, ObjectId, i32)>>> = LazyLock::new(Default::default);

fn lock<T>(m: &'static Mutex<T>) -> MutexGuard<'static, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Modifications of `table` since its statistics object `stats_id` was built.
pub(crate) fn modification_counter(
    store: &Arc<storage::Database>,
    table: &TableDef,
    stats_id: i32,
) -> u64 {
    let now = exec::table_io::modification_count(store, table.object_id);
    let base = lock(&BASELINES)
        .get(&(store.instance_id(), table.object_id, stats_id))
        .copied()
        .unwrap_or(0);
    now.saturating_sub(base)
}

fn mark_built(
    store: &Arc<storage::Database>,
    table: &TableDef,
    stats_id: i32,
    counter_at_start: u64,
) {
    lock(&BASELINES).insert(
        (store.instance_id(), table.object_id, stats_id),
        counter_at_start,
    );
}

/// SQL Server 2016+'s automatic update threshold for a table of `rows` rows at the last
/// build: MIN(500 + 0.20 * n, SQRT(1000 * n)) modifications.
pub(crate) fn update_threshold(rows: u64) -> f64 {
    let n = rows as f64;
    (500.0 + 0.20 * n).min((1000.0 * n).sqrt())
}

/// A filtered statistics object's predicate over a whole table row (true: the row counts).
pub(crate) type RowFilter<'a> = dyn FnMut(&[types::Value]) -> SqlResult<bool> + 'a;

/// Reads `table`'s rows (a page sample per `sample`) and builds the data of a statistics
/// object on `cols`; None when the table is empty. Returns also the modification counter read
/// before the scan (the new baseline).
pub(crate) fn build_data(
    store: &Arc<storage::Database>,
    table: &Arc<TableDef>,
    cols: &[usize],
    sample: Sample,
) -> SqlResult<(Option<StatisticsData>, u64)> {
    build_data_filtered(store, table, cols, sample, None)
}

/// [`build_data`] of a filtered statistics object: only rows `filter` accepts are counted;
/// `rows` is then the estimated number of matching rows in the table.
pub(crate) fn build_data_filtered(
    store: &Arc<storage::Database>,
    table: &Arc<TableDef>,
    cols: &[usize],
    sample: Sample,
    filter: Option<&mut RowFilter<'_>>,
) -> SqlResult<(Option<StatisticsData>, u64)> {
    let (mut data, counter) =
        build_data_sets(store, table, &[cols.to_vec()], sample, filter, None)?;
    Ok((data.pop().flatten(), counter))
}

/// The data of several statistics objects on `sets` of columns from one sample of `table`:
/// one pass over the pages for all of them. `rows_hint`: the table's rows when the caller
/// knows them (the engine's row estimate, kept for the optimizer), which saves the count of
/// every row.
pub(crate) fn build_data_sets(
    store: &Arc<storage::Database>,
    table: &Arc<TableDef>,
    sets: &[Vec<usize>],
    sample: Sample,
    mut filter: Option<&mut RowFilter<'_>>,
    rows_hint: Option<u64>,
) -> SqlResult<(Vec<Option<StatisticsData>>, u64)> {
    let counter = exec::table_io::modification_count(store, table.object_id);
    let ts = exec::table_io::TableStore::open(store.clone(), table.clone())?;
    // without a hint (CREATE / UPDATE STATISTICS: `Rows` shows the table's exact count, as
    // SQL Server's metadata count does) the slot arrays are counted; the automatic path passes
    // the optimizer's page-sampled row count instead (table_rows.rs)
    let rows = match rows_hint {
        Some(r) if r > 0 => r,
        _ => ts.count_slots()?,
    };
    if rows == 0 {
        return Ok((sets.iter().map(|_| None).collect(), counter));
    }
    let wanted = match sample {
        Sample::Full => rows as f64,
        Sample::Percent(p) => rows as f64 * (p / 100.0).clamp(0.0, 1.0),
        Sample::Rows(n) => n as f64,
        Sample::Auto => {
            // the page count: an IAM walk, no data page read
            let pages = ts
                .page_sample(&mut |_| false)?
                .map_or(0, |s| s.total_pages() as u64);
            rows as f64 * auto_fraction(rows, pages)
        }
    };
    let fraction = (wanted.min(MAX_BUILD_ROWS as f64) / rows as f64).clamp(0.0, 1.0);
    // the sampled rows hold the union of the sets' columns
    let mut union: Vec<usize> = sets.iter().flatten().copied().collect();
    union.sort_unstable();
    union.dedup();
    // a filter reads the whole row
    let decode: Vec<usize> = if filter.is_some() {
        (0..table.columns.len()).collect()
    } else {
        union.clone()
    };
    // the sample by column (one vector per union column: no vector per row), and each row's
    // page among those read (the estimators count a value's pages: build.rs SampleCounts)
    let mut sampled: Vec<Vec<types::Value>> = vec![Vec::new(); union.len()];
    let mut pages: Vec<u32> = Vec::new();
    let mut seen = 0u64;
    // rows the filter accepted
    let mut kept = 0u64;
    // deterministic page choice (xorshift seeded by the table) so a rebuild of unchanged data
    // gives the same histogram
    let mut seed = (table.object_id as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut pass = |fraction: f64,
                    sampled: &mut Vec<Vec<types::Value>>,
                    pages: &mut Vec<u32>,
                    seen: &mut u64|
     -> SqlResult<storage::sample::SampleCounts> {
        let mut keep = || {
            if fraction >= 1.0 {
                return true;
            }
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            ((seed >> 11) as f64 / (1u64 << 53) as f64) < fraction
        };
        ts.for_each_sampled_row(&decode, &mut keep, &mut |row, page| {
            if *seen >= MAX_BUILD_ROWS {
                return Ok(());
            }
            *seen += 1;
            if let Some(f) = filter.as_deref_mut() {
                if !f(row)? {
                    return Ok(());
                }
            }
            kept += 1;
            pages.push(page);
            // moved, not cloned: the next row's columns are decoded afresh
            for (column, &c) in sampled.iter_mut().zip(&union) {
                column.push(std::mem::replace(&mut row[c], types::Value::Null));
            }
            Ok(())
        })
    };
    let mut whole = fraction >= 1.0;
    pass(fraction, &mut sampled, &mut pages, &mut seen)?;
    if seen == 0 {
        // a small sample missed every page: read them all (still capped)
        whole = true;
        pass(1.0, &mut sampled, &mut pages, &mut seen)?;
    }
    // a whole-table read counted the rows itself: a stale hint does not survive it
    let rows = if whole && seen < MAX_BUILD_ROWS {
        seen
    } else {
        rows
    };
    let matching = if seen == 0 {
        0
    } else {
        (kept as f64 * rows as f64 / seen as f64).round() as u64
    };
    let now = crate::ddl::now_text();
    let mut out = Vec::with_capacity(sets.len());
    let mut uses: Vec<usize> = union
        .iter()
        .map(|u| sets.iter().flatten().filter(|c| *c == u).count())
        .collect();
    for cols in sets {
        let stat_cols: Vec<build::StatColumn> = cols
            .iter()
            .filter_map(|&c| table.columns.get(c))
            .map(|c| build::StatColumn {
                name: c.name.clone(),
                collation: c
                    .collation
                    .as_deref()
                    .and_then(types::Collation::from_name)
                    .unwrap_or(types::Collation::DEFAULT),
            })
            .collect();
        let at: Vec<usize> = cols
            .iter()
            .filter_map(|c| union.iter().position(|u| u == c))
            .collect();
        // a column is moved out of the sample by its last reader, copied for the others
        let columns_of_set: Vec<Vec<types::Value>> = at
            .iter()
            .map(|&j| {
                uses[j] -= 1;
                if uses[j] > 0 {
                    sampled[j].clone()
                } else {
                    std::mem::take(&mut sampled[j])
                }
            })
            .collect();
        out.push(Some(build::build(
            &stat_cols,
            columns_of_set,
            &pages,
            matching,
            now.clone(),
        )));
    }
    Ok((out, counter))
}

/// Types SQL Server cannot build statistics on (Msg 1978).
pub(crate) fn type_supported(t: &DataType) -> bool {
    let name = serial::type_to_text(t);
    !matches!(
        name.as_str(),
        "text" | "ntext" | "image" | "xml" | "sql_variant" | "geometry" | "geography"
    )
}

/// `_WA_Sys_<column id hex>_<table id hex>`: SQL Server's name for automatic statistics.
pub(crate) fn auto_name(table: &TableDef, column: usize) -> String {
    format!("_WA_Sys_{:08X}_{:08X}", column + 1, table.object_id as u32)
}

/// The next free stats_id of a table (ids are shared with its indexes).
pub(crate) fn next_stats_id(table: &TableDef, objects: &[Arc<StatisticsObject>]) -> i32 {
    let ix = table.indexes.iter().map(|i| i.index_id).max().unwrap_or(1);
    let st = objects.iter().map(|o| o.stats_id).max().unwrap_or(1);
    ix.max(st).max(1) + 1
}

/// `Catalog::statistics` for the optimizer: the table's objects, after creating statistics on
/// `columns` that lead none (AUTO_CREATE_STATISTICS) and rebuilding objects past the
/// modification threshold (AUTO_UPDATE_STATISTICS), both synchronously with the automatic
/// sample. Not while the session's open transaction has changed this database's catalog (the
/// table may not be committed yet); a failed automatic build leaves what exists.
///
/// Statistics another session's open transaction created, updated or dropped are not used:
/// the compile reads the table's objects as committed (`TableStatistics::committed`) and
/// builds nothing for the table until that transaction ends (an automatic build would
/// commit the other transaction's objects with its own). The session's own uncommitted
/// statistics are used.
pub(crate) fn for_optimizer(
    session: &Session,
    table: &TableDef,
    columns: &[usize],
) -> Vec<Arc<StatisticsObject>> {
    let Some(h) = session.engine().database(&table.database) else {
        return Vec::new();
    };
    let own_txn = session
        .txns
        .iter()
        .find(|(d, _)| d.eq_ignore_ascii_case(&table.database))
        .map(|(_, t)| t.id());
    let (objects, auto_create, auto_update) = {
        let cat = h.cat.read();
        let Some(catalog::SchemaObject::Table(current)) = cat.objects.get(&table.object_id) else {
            return Vec::new();
        };
        let others = cat
            .pending_txn(crate::dbcat::MetaClass::Stats, table.object_id)
            .is_some_and(|t| Some(t) != own_txn);
        if others {
            if let Some(committed) = cat.statistics.committed(table.object_id) {
                return objects_of(current, committed);
            }
        }
        (
            table_objects(&cat, current),
            cat.statistics.auto_create(),
            cat.statistics.auto_update(),
        )
    };
    let may_write = !session
        .catalog_touched
        .iter()
        .any(|d| d.eq_ignore_ascii_case(&table.database));
    // table variables never get statistics (SQL Server: none, whatever the options)
    let table_variable = session
        .frames
        .iter()
        .any(|f| f.tables.iter().any(|(_, id)| *id == table.object_id));
    if !may_write || table_variable {
        return objects;
    }
    let mut wanted: Vec<(Option<i32>, Vec<usize>)> = Vec::new();
    if auto_update {
        for o in &objects {
            // filtered objects are rebuilt by UPDATE STATISTICS / sp_updatestats (their
            // predicate is evaluated by the session, which a compile only reads)
            if o.no_recompute || o.filter.is_some() {
                continue;
            }
            let stale = match &o.data {
                Some(d) => {
                    modification_counter(&h.store, table, o.stats_id) as f64
                        >= update_threshold(d.rows).max(1.0)
                }
                // never built (created on an empty table, or an index added by ALTER TABLE):
                // built once rows have come, or once per process when unknown
                None => {
                    modification_counter(&h.store, table, o.stats_id) > 0
                        || first_attempt(&h.store, table, o.stats_id)
                }
            };
            if stale {
                wanted.push((Some(o.stats_id), o.columns.clone()));
            }
        }
    }
    if auto_create {
        for &c in columns {
            let led = objects.iter().any(|o| o.columns.first() == Some(&c));
            let ok = table
                .columns
                .get(c)
                .is_some_and(|col| type_supported(&col.data_type));
            if !led && ok && !wanted.iter().any(|(_, cols)| cols.first() == Some(&c)) {
                wanted.push((None, vec![c]));
            }
        }
    }
    if wanted.is_empty() {
        return objects;
    }
    // the table's rows from the engine's estimate (counted once, then kept for the
    // optimizer's own `table_rows`): the sample's fraction needs them, and counting them here
    // again would read every row once more
    let rows_hint = crate::table_rows::table_rows(session, table);
    let _ = auto_build(&h, table, wanted, rows_hint);
    let cat = h.cat.read();
    match cat.objects.get(&table.object_id) {
        Some(catalog::SchemaObject::Table(current)) => table_objects(&cat, current),
        _ => objects,
    }
}

/// The automatic builds `wanted` (create when the stats_id is None) from one sample of the
/// table, installed autonomously. Objects another session is building right now are left to
/// it.
fn auto_build(
    h: &crate::server::DbHandle,
    table: &TableDef,
    wanted: Vec<(Option<i32>, Vec<usize>)>,
    rows_hint: Option<u64>,
) -> SqlResult<()> {
    // keyed by the storage's process-unique instance: two engines in one process (tests side
    // by side) have databases of the same name and tables of the same ids
    let instance = h.store.instance_id();
    let key = |(stats_id, cols): &(Option<i32>, Vec<usize>)| {
        (
            instance,
            table.object_id,
            stats_id.unwrap_or(-1 - cols.first().copied().unwrap_or(0) as i32),
        )
    };
    let wanted: Vec<(Option<i32>, Vec<usize>)> = {
        let mut building = lock(&BUILDING);
        wanted
            .into_iter()
            .filter(|w| building.insert(key(w)))
            .collect()
    };
    if wanted.is_empty() {
        return Ok(());
    }
    let r = (|| {
        let current = match h.cat.read().objects.get(&table.object_id) {
            Some(catalog::SchemaObject::Table(t)) => t.clone(),
            _ => return Ok(()),
        };
        // an automatic build is the engine's own work, not in SET STATISTICS IO
        let not_collected = storage::objio::NotCollected::new();
        let sets: Vec<Vec<usize>> = wanted.iter().map(|(_, cols)| cols.clone()).collect();
        let built = build_data_sets(&h.store, &current, &sets, Sample::Auto, None, rows_hint);
        drop(not_collected);
        let (built, counter) = built?;
        let tree = h.store.catalog_btree()?;
        let mut cat = h.cat.write();
        let mut all = match cat.objects.get(&table.object_id) {
            Some(catalog::SchemaObject::Table(t)) if t.columns == current.columns => {
                table_objects(&cat, t)
            }
            _ => return Ok(()),
        };
        let mut ids = Vec::with_capacity(wanted.len());
        for ((stats_id, cols), data) in wanted.iter().zip(built) {
            match stats_id {
                Some(id) => {
                    for o in all.iter_mut() {
                        if o.stats_id == *id {
                            *o = Arc::new(StatisticsObject {
                                data: data.clone(),
                                ..(**o).clone()
                            });
                        }
                    }
                    ids.push(*id);
                }
                None => {
                    if all.iter().any(|o| o.columns.first() == cols.first()) {
                        continue;
                    }
                    let id = next_stats_id(&current, &all);
                    all.push(Arc::new(StatisticsObject {
                        stats_id: id,
                        name: auto_name(&current, cols[0]),
                        columns: cols.to_vec(),
                        index_id: None,
                        auto_created: true,
                        user_created: false,
                        no_recompute: false,
                        filter: None,
                        data,
                    }));
                    ids.push(id);
                }
            }
        }
        let stored = stored_part(all);
        cat.statistics
            .put_autonomous(&h.store, &tree, &current, stored)?;
        for id in ids {
            mark_built(&h.store, &current, id, counter);
        }
        Ok(())
    })();
    let mut building = lock(&BUILDING);
    for w in &wanted {
        building.remove(&key(w));
    }
    r
}

/// What is stored of a full list: index statistics only once built.
pub(crate) fn stored_part(list: Vec<Arc<StatisticsObject>>) -> Vec<Arc<StatisticsObject>> {
    list.into_iter()
        .filter(|o| o.index_id.is_none() || o.data.is_some() || o.no_recompute)
        .collect()
}

#[cfg(test)]
mod tests {
    use catalog::Catalog;

    use crate::events::CollectSink;
    use crate::server::{Engine, EngineConfig};
    use crate::session::Session;

    #[test]
    fn table_variables_get_no_automatic_statistics() {
        let d = std::env::temp_dir().join(format!("latchkey-stats-tv-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        let e = Engine::open(&d, EngineConfig::default()).expect("open");
        let mut s = Session::new(e.clone());
        let mut sink = CollectSink::default();
        s.execute_batch(
            "CREATE TABLE tv (a int); INSERT INTO tv VALUES (1), (2);",
            &mut sink,
        );
        assert!(sink.errors().is_empty(), "{:?}", sink.errors());
        let t = e
            .database("master")
            .and_then(|h| h.cat.read().table("dbo", "tv"))
            .expect("tv");
        // the same table seen as the backing table of a table variable of the current frame
        s.frames
            .last_mut()
            .expect("frame")
            .tables
            .push((0, t.object_id));
        assert!(s.statistics(&t, &[0]).is_empty());
        s.frames.last_mut().expect("frame").tables.clear();
        assert_eq!(s.statistics(&t, &[0]).len(), 1);
        drop(s);
        drop(e);
        let _ = std::fs::remove_dir_all(&d);
    }
}
