//! Table Scan (heap) and Clustered Index Scan: read every row of a table in storage order (or
//! clustered key order), decode into a reused row buffer, apply the pushed-down predicate.
//!
//! Rows are decoded straight from the latched page by a storage visitor (`visit_next`): only
//! the needed columns, into a reused buffer of values, with no copy of the record. A
//! predicate that cannot touch other pages (no subquery, no engine-evaluated function) is
//! evaluated there too, so the other columns are decoded only for rows that pass (late
//! materialization); any other predicate runs after the latch is released. `COUNT(*)`
//! without a predicate asks storage to count (slot arrays only).

use std::ops::Bound;

use common::SqlResult;
use plan::{ScalarExpr, ScalarFunc, ScalarKind, TableSource};
use storage::{BTreeScan, HeapScan, ScanDirection};
use types::Value;

use crate::context::ExecCtx;
use crate::eval::eval_pred;
use crate::locking::{TableAccess, TableLocker};
use crate::operator::Operator;
use crate::row_format::RowFormat;
use crate::table_io::TableStore;
use crate::versions::{ReadOrder, VersionedReader};

enum Cursor {
    None,
    Heap(HeapScan),
    BTree(BTreeScan),
    /// A parallel worker's share of the scan (`ExecCtx::morsels`): allocation order.
    Morsel(storage::morsel::MorselScan),
}

pub struct TableScan<'p> {
    source: &'p TableSource,
    predicate: Option<&'p ScalarExpr>,
    clustered: bool,
    backward: bool,
    store: Option<TableStore>,
    cursor: Cursor,
    /// Decoded rows of the current page: the values of `cols`, `late_cols` (and the
    /// locator), packed.
    rows: Vec<Value>,
    /// One row being decoded under the page latch (full width).
    scratch: Vec<Value>,
    /// An error raised while decoding/filtering a page after some of its rows were kept: it
    /// is returned once those rows are consumed (rows stream out before the error, as when
    /// they are produced one at a time).
    deferred: Option<common::SqlError>,
    /// Next row of `rows` to return.
    pos: usize,
    more: bool,
    row: Vec<Value>,
    /// The predicate may run under the page latch (`latch_safe`).
    pred_on_page: bool,
    /// Columns to decode (`TableSource::needed`; all when None) that the pushed-down predicate
    /// reads: decoded first. Others stay NULL.
    cols: Vec<usize>,
    /// The other columns to decode, only for rows that pass the predicate (late
    /// materialization).
    late_cols: Vec<usize>,
    /// Row locks (exec README "Locks"); asked for once, at the first open.
    locker: Option<Box<dyn TableLocker>>,
    locker_asked: bool,
    /// A snapshot read (SNAPSHOT, READ_COMMITTED_SNAPSHOT): stored rows merged with the
    /// versions the snapshot sees (`crate::versions`).
    versioned: Option<VersionedReader>,
}

impl<'p> TableScan<'p> {
    pub fn new(
        source: &'p TableSource,
        predicate: Option<&'p ScalarExpr>,
        clustered: bool,
        backward: bool,
    ) -> Self {
        TableScan {
            source,
            predicate,
            clustered,
            backward,
            store: None,
            cursor: Cursor::None,
            rows: Vec::new(),
            scratch: Vec::new(),
            deferred: None,
            pos: 0,
            more: false,
            row: Vec::new(),
            pred_on_page: predicate.is_some_and(latch_safe),
            cols: Vec::new(),
            late_cols: Vec::new(),
            locker: None,
            locker_asked: false,
            versioned: None,
        }
        .with_columns()
    }

    /// Splits the decoded columns into predicate columns (`cols`) and the rest (`late_cols`).
    fn with_columns(mut self) -> Self {
        let mut pred = Vec::new();
        if let Some(p) = self.predicate {
            p.columns_used(&mut pred);
        }
        let source = self.source;
        for i in 0..source.table.columns.len() {
            let needed = source
                .needed
                .as_ref()
                .is_none_or(|n| n.get(i).copied().unwrap_or(true));
            if !needed {
                continue;
            }
            if self.predicate.is_none() || pred.contains(&i) {
                self.cols.push(i);
            } else {
                self.late_cols.push(i);
            }
        }
        self
    }
}

impl Operator for TableScan<'_> {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        // the object lock first: a DDL holding Sch-M may change the storage meanwhile
        if !self.locker_asked {
            self.locker_asked = true;
            let access = if self.source.with_locator {
                TableAccess::Target
            } else {
                TableAccess::Read
            };
            self.locker =
                ctx.env
                    .table_locker(&self.source.table, &self.source.hints.all, access)?;
        }
        if self.store.is_none() {
            let db = ctx.env.storage(&self.source.table.database)?;
            self.store = Some(TableStore::open(db, self.source.table.clone())?);
        }
        let Some(store) = &self.store else {
            return Ok(());
        };
        self.versioned = self.locker.as_ref().and_then(|l| l.snapshot()).map(|r| {
            let order = if store.heap.is_some() || ctx.morsels.is_some() {
                ReadOrder::Unordered
            } else if self.backward {
                ReadOrder::Backward
            } else {
                ReadOrder::Forward
            };
            VersionedReader::new(r, order)
        });
        self.cursor = if let Some(src) = &ctx.morsels {
            Cursor::Morsel(src.scanner())
        } else if let Some(h) = &store.heap {
            Cursor::Heap(h.scan()?)
        } else if let Some((_, bt)) = &store.clustered {
            let dir = if self.backward {
                ScanDirection::Backward
            } else {
                ScanDirection::Forward
            };
            if self.versioned.is_none() {
                if let Some(l) = self.locker.as_mut().filter(|l| l.locks_key_ranges()) {
                    // a SERIALIZABLE scan of the whole index: every key and the end of it
                    // clustered keys are index 1's, as the row locks' (engine locks/mod.rs)
                    crate::key_range::lock_range(
                        l.as_mut(),
                        bt,
                        1,
                        Bound::Unbounded,
                        Bound::Unbounded,
                        false,
                    )?;
                }
            }
            Cursor::BTree(bt.range(Bound::Unbounded, Bound::Unbounded, dir)?)
        } else {
            Cursor::None
        };
        let _ = self.clustered;
        self.rows.clear();
        self.deferred = None;
        self.pos = 0;
        self.more = true;
        Ok(())
    }

    fn next(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        let Some(store) = &self.store else {
            return Ok(false);
        };
        let width = store.format.types().len() + usize::from(self.source.with_locator);
        if self.row.len() != width {
            self.row.clear();
            self.row.resize(width, Value::Null);
        }
        let packed = self.packed_width();
        loop {
            if (self.pos + 1) * packed <= self.rows.len() {
                let base = self.pos * packed;
                self.pos += 1;
                let src = &mut self.rows[base..base + packed];
                for (j, &c) in self.cols.iter().chain(self.late_cols.iter()).enumerate() {
                    self.row[c] = std::mem::replace(&mut src[j], Value::Null);
                }
                if self.source.with_locator {
                    self.row[width - 1] = std::mem::replace(&mut src[packed - 1], Value::Null);
                }
                if !self.pred_on_page {
                    if let Some(p) = self.predicate {
                        if !eval_pred(p, &self.row, ctx)? {
                            continue;
                        }
                    }
                }
                return Ok(true);
            }
            if let Some(e) = self.deferred.take() {
                return Err(e);
            }
            if !self.more {
                return Ok(false);
            }
            self.rows.clear();
            self.pos = 0;
            match self.fill(ctx, width) {
                Ok(more) => self.more = more,
                Err(e) if self.rows.is_empty() => return Err(e),
                Err(e) => {
                    self.more = false;
                    self.deferred = Some(e);
                }
            }
        }
    }

    fn row(&self) -> &[Value] {
        &self.row
    }

    fn close(&mut self) {
        self.cursor = Cursor::None;
        self.deferred = None;
    }

    fn count_rows(&mut self, ctx: &mut ExecCtx) -> SqlResult<Option<u64>> {
        // counting from slot arrays reads rows without their locks, or their versions
        if self.predicate.is_some()
            || self.versioned.is_some()
            || self.locker.as_ref().is_some_and(|l| l.rows_need_locks())
        {
            return Ok(None);
        }
        let packed = self.packed_width();
        let mut n = (self.rows.len() / packed).saturating_sub(self.pos) as u64;
        if self.more {
            let cancel = ctx.cancel_token();
            n += match &mut self.cursor {
                Cursor::Heap(s) => s.count_cancellable(cancel)?,
                Cursor::BTree(s) => s.count_cancellable(cancel)?,
                Cursor::Morsel(s) => s.count(cancel)?,
                Cursor::None => 0,
            };
        }
        self.more = false;
        self.rows.clear();
        self.pos = 0;
        Ok(Some(n))
    }
}

impl TableScan<'_> {
    /// Values kept per row in `rows` (at least 1, so a row without columns still counts).
    fn packed_width(&self) -> usize {
        (self.cols.len() + self.late_cols.len() + usize::from(self.source.with_locator)).max(1)
    }

    /// Decodes the rows of the next page into `rows` under the page latch; false = end.
    fn fill(&mut self, ctx: &mut ExecCtx, width: usize) -> SqlResult<bool> {
        ctx.check_cancel()?;
        let packed = self.packed_width();
        let Some(store) = &self.store else {
            return Ok(false);
        };
        let format = &store.format;
        let (cols, late) = (&self.cols, &self.late_cols);
        let with_locator = self.source.with_locator;
        let pred = if self.pred_on_page {
            self.predicate
        } else {
            None
        };
        if self.scratch.len() != width {
            self.scratch.clear();
            self.scratch.resize(width, Value::Null);
        }
        let scratch = &mut self.scratch;
        let rows = &mut self.rows;
        let locker = match &mut self.locker {
            Some(l) if l.rows_need_locks() => Some(l),
            _ => None,
        };
        let null_test = pred.and_then(|p| null_test(p, format.types().len()));
        let mut add = |rec: &[u8], loc: &dyn Fn() -> Vec<u8>| -> SqlResult<bool> {
            // one parsed view serves the predicate columns and the late ones; none at all when
            // no column is read (COUNT(*))
            let view = if cols.is_empty() && late.is_empty() && null_test.is_none() {
                None
            } else {
                Some(format.view(rec)?)
            };
            if let (Some(view), Some((c, negated))) = (&view, null_test) {
                // `col IS [NOT] NULL`: answered from the record; nothing is decoded for rows
                // that fail it
                if RowFormat::is_null_in(view, c)? == negated {
                    return Ok(false);
                }
                format.decode_cols_from(view, cols, scratch)?;
                format.decode_cols_from(view, late, scratch)?;
                if with_locator {
                    scratch[width - 1] = Value::VarBinary(loc());
                }
                push_row(rows, scratch, cols, late, with_locator, width, packed);
                return Ok(true);
            }
            if let Some(view) = &view {
                format.decode_cols_from(view, cols, scratch)?;
            }
            if with_locator {
                scratch[width - 1] = Value::VarBinary(loc());
            }
            if let Some(p) = pred {
                if !eval_pred(p, scratch, ctx)? {
                    return Ok(false);
                }
            }
            if let Some(view) = &view {
                format.decode_cols_from(view, late, scratch)?;
            }
            push_row(rows, scratch, cols, late, with_locator, width, packed);
            Ok(true)
        };
        if let Some(vr) = &mut self.versioned {
            // Snapshot path: copy the page's rows under the latch, then merge them with the
            // versioned rows at the snapshot (no lock is taken on rows)
            let mut page: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
            let more = match &mut self.cursor {
                Cursor::Heap(s) => s.visit_next(&mut |rec, rid| {
                    page.push((rid.to_bytes().to_vec(), rec.to_vec()));
                    Ok(())
                })?,
                Cursor::BTree(s) => s.visit_next(&mut |key, rec| {
                    page.push((key.to_vec(), rec.to_vec()));
                    Ok(())
                })?,
                Cursor::Morsel(s) => s.visit_next(&mut |rec, loc| {
                    page.push((loc.to_vec(), rec.to_vec()));
                    Ok(())
                })?,
                Cursor::None => false,
            };
            let fetch = |loc: &[u8]| store.fetch(loc);
            let key =
                |loc: &[u8], _: &[u8]| -> SqlResult<Option<Vec<u8>>> { Ok(Some(loc.to_vec())) };
            let ordered = store.heap.is_none();
            if let (false, Some((loc, _))) = (ordered, page.first()) {
                vr.page_started(loc);
            }
            for (loc, rec) in &page {
                vr.sync(&fetch, &key)?;
                if ordered {
                    for (l, r) in vr.before(Some(loc)) {
                        add(&r, &|| l.clone())?;
                    }
                }
                if vr.keep(loc, ordered.then_some(loc.as_slice())) {
                    add(rec, &|| loc.clone())?;
                }
            }
            vr.sync(&fetch, &key)?;
            if !ordered {
                if let Some((loc, _)) = page.last() {
                    vr.page_done(loc);
                }
            }
            if !more {
                for (l, r) in vr.before(None) {
                    add(&r, &|| l.clone())?;
                }
            }
            return Ok(more);
        }
        if let Some(l) = locker {
            // Locked path: copy the page's rows under the latch, release it, then lock each
            // row and read it again as its lock protects it (never wait while latched).
            let mut page: Vec<Vec<u8>> = Vec::new();
            let more = match &mut self.cursor {
                Cursor::Heap(s) => s.visit_next(&mut |_, rid| {
                    page.push(rid.to_bytes().to_vec());
                    Ok(())
                })?,
                Cursor::BTree(s) => s.visit_next(&mut |key, _| {
                    page.push(key.to_vec());
                    Ok(())
                })?,
                Cursor::Morsel(s) => s.visit_next(&mut |_, loc| {
                    page.push(loc.to_vec());
                    Ok(())
                })?,
                Cursor::None => false,
            };
            for loc in page {
                if !l.lock_row(&loc)? {
                    continue;
                }
                let Some(rec) = store.fetch(&loc)? else {
                    l.row_read(&loc, false);
                    continue;
                };
                let r = add(&rec, &|| loc.clone());
                l.row_read(&loc, matches!(r, Ok(true)));
                r?;
            }
            return Ok(more);
        }
        match &mut self.cursor {
            Cursor::Heap(s) => {
                s.visit_next(&mut |rec, rid| add(rec, &|| rid.to_bytes().to_vec()).map(|_| ()))
            }
            Cursor::BTree(s) => {
                s.visit_next(&mut |key, rec| add(rec, &|| key.to_vec()).map(|_| ()))
            }
            Cursor::Morsel(s) => {
                s.visit_next(&mut |rec, loc| add(rec, &|| loc.to_vec()).map(|_| ()))
            }
            Cursor::None => Ok(false),
        }
    }
}

/// `Column(c) IS NULL` → `(c, false)`, `NOT (Column(c) IS NULL)` → `(c, true)` for a table
/// column `c` (not the locator).
fn null_test(p: &ScalarExpr, ncols: usize) -> Option<(usize, bool)> {
    let (inner, negated) = match &p.kind {
        ScalarKind::Not(x) => (&**x, true),
        _ => (p, false),
    };
    match &inner.kind {
        ScalarKind::IsNull(x) => match x.kind {
            ScalarKind::Column(c) if c < ncols => Some((c, negated)),
            _ => None,
        },
        _ => None,
    }
}

/// Moves the decoded `cols`, `late` (and the locator) of `scratch` to the end of `rows`.
fn push_row(
    rows: &mut Vec<Value>,
    scratch: &mut [Value],
    cols: &[usize],
    late: &[usize],
    with_locator: bool,
    width: usize,
    packed: usize,
) {
    let base = rows.len();
    for &c in cols.iter().chain(late.iter()) {
        rows.push(std::mem::replace(&mut scratch[c], Value::Null));
    }
    if with_locator {
        rows.push(std::mem::replace(&mut scratch[width - 1], Value::Null));
    }
    // a row without columns (COUNT(*) with a predicate) still takes one slot
    rows.resize(base + packed, Value::Null);
}

/// True when evaluating `e` cannot read pages or run other statements, so it may run while a
/// page is latched: no subqueries and no engine-evaluated (`ScalarFunc::Named`) functions.
fn latch_safe(e: &ScalarExpr) -> bool {
    match &e.kind {
        ScalarKind::ScalarSubquery(_)
        | ScalarKind::Exists(_)
        | ScalarKind::InSubquery { .. }
        | ScalarKind::Quantified { .. } => false,
        ScalarKind::Function {
            func: ScalarFunc::Named,
            ..
        } => false,
        _ => e.children().into_iter().all(latch_safe),
    }
}
