//! Batch scan: a heap, a clustered index or a parallel worker's morsels, decoded page by page
//! into column vectors of about [`BATCH_ROWS`] rows — only the columns the plan reads
//! (`TableSource::needed`), through storage's visitor and the row format's decoder (the one
//! page decoder; no copy of the record). A scan that reads no column (`COUNT(*)`) decodes
//! nothing: its batches are row counts.
//!
//! Late materialization: a scan given its pushed-down predicate ([`BatchScan::set_filter`])
//! keeps the batch's records (copied into one reused buffer while the page is latched),
//! decodes the columns of the predicate's first conjunct for every row, and each later
//! conjunct's new columns only for the rows still alive; the other columns are decoded only
//! for the rows that passed, and the batch is compacted to them. The conjuncts run in row
//! mode's order over exactly the rows row mode evaluates them for (`expr::filter`'s AND),
//! so results and errors do not change. After a batch where most rows passed, the next one
//! decodes every column up front instead (no copy) and only narrows its selection.
//!
//! Locks: the serial scan takes the statement's table lock as a parallel zone does (the
//! access's hints plus TABLOCK, an S table lock); when that still leaves row locks to take
//! (an isolation level or hint that needs them), batch mode is refused and the operator runs
//! in row mode. A worker's scan reads under the lock its coordinator took.

use std::ops::Bound;

use common::SqlResult;
use plan::{ScalarExpr, ScalarKind, TableSource};
use storage::{BTreeScan, HeapScan, ScanDirection};

use super::expr;
use super::vector::{Column, ColumnBuilder};
use super::{Batch, BATCH_ROWS};
use crate::context::ExecCtx;
use crate::locking::{TableAccess, TableLocker};
use crate::row_format::RowFormat;
use crate::table_io::TableStore;

enum Cursor {
    Heap(HeapScan),
    BTree(BTreeScan),
    Morsel(storage::morsel::MorselScan),
}

pub(crate) struct BatchScan {
    store: TableStore,
    cursor: Cursor,
    /// Decoded columns (ascending table ordinals).
    cols: Vec<usize>,
    width: usize,
    more: bool,
    _locker: Option<Box<dyn TableLocker>>,
    /// The pushed-down predicate, evaluated here (late materialization).
    filter: Option<LateFilter>,
}

/// A predicate split into its conjuncts, each with the decoded columns it reads first.
struct LateFilter {
    conjuncts: Vec<ScalarExpr>,
    /// Per conjunct, the scan columns it is the first to read (ascending).
    new_cols: Vec<Vec<usize>>,
    /// The scan columns no conjunct reads (decoded for the surviving rows only).
    rest: Vec<usize>,
    /// The batch's records, back to back, and where each ends.
    records: Vec<u8>,
    ends: Vec<usize>,
    /// Whether the last batch kept most of its rows: the next batch then decodes every
    /// column up front (no record copy) and only narrows its selection, as without late
    /// materialization — decoding late only pays when the filter removes rows.
    eager: bool,
}

/// The share of rows passing above which a scan decodes every column up front.
const EAGER_PASS_RATE: f64 = 0.5;

impl BatchScan {
    /// Opens the scan; None when batch mode cannot read the table without row locks.
    pub fn open(source: &TableSource, ctx: &mut ExecCtx) -> SqlResult<Option<Self>> {
        let mut locker = None;
        if ctx.morsels.is_none() {
            let mut hints = source.hints.all.clone();
            if !hints
                .iter()
                .any(|h| h == "NOLOCK" || h == "READUNCOMMITTED" || h == "TABLOCK")
            {
                hints.push("TABLOCK".into());
            }
            locker = ctx
                .env
                .table_locker(&source.table, &hints, TableAccess::Read)?;
            // rows locked one by one, or merged with their versions (a snapshot read): row
            // mode does it
            if locker
                .as_ref()
                .is_some_and(|l| l.rows_need_locks() || l.snapshot().is_some())
            {
                return Ok(None);
            }
        }
        let db = ctx.env.storage(&source.table.database)?;
        let store = TableStore::open(db, source.table.clone())?;
        let cursor = if let Some(m) = &ctx.morsels {
            Cursor::Morsel(m.scanner())
        } else if let Some(h) = &store.heap {
            Cursor::Heap(h.scan()?)
        } else if let Some((_, bt)) = &store.clustered {
            Cursor::BTree(bt.range(Bound::Unbounded, Bound::Unbounded, ScanDirection::Forward)?)
        } else {
            return Ok(None);
        };
        let width = store.format.types().len();
        let cols: Vec<usize> = (0..width)
            .filter(|&i| {
                source
                    .needed
                    .as_ref()
                    .is_none_or(|n| n.get(i).copied().unwrap_or(true))
            })
            .collect();
        Ok(Some(BatchScan {
            store,
            cursor,
            cols,
            width,
            more: true,
            _locker: locker,
            filter: None,
        }))
    }

    /// Makes the scan evaluate its pushed-down predicate `p` itself, decoding the columns
    /// the rows that fail it never need only for the rows that pass (late materialization).
    pub fn set_filter(&mut self, p: &ScalarExpr) {
        let conjuncts = match &p.kind {
            ScalarKind::And(parts) => parts.clone(),
            _ => vec![p.clone()],
        };
        let mut seen: Vec<usize> = Vec::new();
        let mut new_cols = Vec::with_capacity(conjuncts.len());
        for c in &conjuncts {
            let mut used = Vec::new();
            c.columns_used(&mut used);
            // only columns the scan decodes (the others read as NULL, as in row mode)
            let mut fresh: Vec<usize> = used
                .into_iter()
                .filter(|u| self.cols.contains(u) && !seen.contains(u))
                .collect();
            fresh.sort_unstable();
            seen.extend(&fresh);
            new_cols.push(fresh);
        }
        let rest = self
            .cols
            .iter()
            .copied()
            .filter(|c| !seen.contains(c))
            .collect();
        self.filter = Some(LateFilter {
            conjuncts,
            new_cols,
            rest,
            records: Vec::new(),
            ends: Vec::new(),
            eager: false,
        });
    }

    /// The next batch and its selected rows (with a filter set: the rows that passed it, the
    /// batch compacted to them); None at the end. A batch may select no row.
    pub fn next_selected(&mut self, ctx: &mut ExecCtx) -> SqlResult<Option<(Batch, Vec<u32>)>> {
        if self.filter.is_none() {
            return Ok(self.next_batch(ctx)?.map(|b| {
                let sel = (0..b.len as u32).collect();
                (b, sel)
            }));
        }
        self.next_filtered(ctx)
    }

    /// Counts the remaining rows from the slot arrays (a scan that decodes nothing).
    pub fn count(&mut self, ctx: &mut ExecCtx) -> SqlResult<u64> {
        if !self.more {
            return Ok(0);
        }
        if self.filter.is_some() {
            let mut n = 0u64;
            while let Some((_, sel)) = self.next_selected(ctx)? {
                n += sel.len() as u64;
            }
            return Ok(n);
        }
        self.more = false;
        let cancel = ctx.cancel_token();
        match &mut self.cursor {
            Cursor::Heap(s) => s.count_cancellable(cancel),
            Cursor::BTree(s) => s.count_cancellable(cancel),
            Cursor::Morsel(s) => s.count(cancel),
        }
    }

    /// The next batch (whole pages, at least [`BATCH_ROWS`] rows unless the table ends);
    /// None at the end.
    fn next_batch(&mut self, ctx: &mut ExecCtx) -> SqlResult<Option<Batch>> {
        if !self.more {
            return Ok(None);
        }
        let types = self.store.format.types().to_vec();
        let mut builders: Vec<Option<ColumnBuilder>> = (0..self.width).map(|_| None).collect();
        for &c in &self.cols {
            let b = ColumnBuilder::new(&types[c], BATCH_ROWS + 512).ok_or_else(|| {
                common::SqlError::internal("batch scan of a column without a vector type")
            })?;
            builders[c] = Some(b);
        }
        let mut rows = 0usize;
        let format = &self.store.format;
        let cols = &self.cols;
        while rows < BATCH_ROWS && self.more {
            ctx.check_cancel()?;
            let mut add = |rec: &[u8]| -> SqlResult<()> {
                rows += 1;
                if cols.is_empty() {
                    return Ok(());
                }
                let view = format.view(rec)?;
                for &c in cols {
                    if let Some(b) = &mut builders[c] {
                        RowFormat::decode_col_into(&view, c, b)?;
                    }
                }
                Ok(())
            };
            self.more = match &mut self.cursor {
                Cursor::Heap(s) => s.visit_next(&mut |rec, _| add(rec))?,
                Cursor::BTree(s) => s.visit_next(&mut |_, rec| add(rec))?,
                Cursor::Morsel(s) => s.visit_next(&mut |rec, _| add(rec))?,
            };
        }
        if rows == 0 && !self.more {
            return Ok(None);
        }
        let mut columns = Vec::with_capacity(self.width);
        for b in builders {
            columns.push(match b {
                Some(b) => Some(b.finish()?),
                None => None,
            });
        }
        Ok(Some(Batch { columns, len: rows }))
    }
}

impl BatchScan {
    fn types(&self) -> Vec<types::DataType> {
        self.store.format.types().to_vec()
    }

    fn builder(ty: &types::DataType) -> SqlResult<ColumnBuilder> {
        ColumnBuilder::new(ty, BATCH_ROWS + 512).ok_or_else(|| {
            common::SqlError::internal("batch scan of a column without a vector type")
        })
    }

    /// [`Self::next_selected`] with a filter: see the module doc.
    fn next_filtered(&mut self, ctx: &mut ExecCtx) -> SqlResult<Option<(Batch, Vec<u32>)>> {
        if !self.more {
            return Ok(None);
        }
        let types = self.types();
        let Some(f) = self.filter.as_mut() else {
            return Ok(None);
        };
        f.records.clear();
        f.ends.clear();
        // the first conjunct's columns (eager: all), decoded while the page is latched
        let eager = f.eager;
        let first: Vec<usize> = if eager {
            self.cols.clone()
        } else {
            f.new_cols.first().cloned().unwrap_or_default()
        };
        let mut builders: Vec<(usize, ColumnBuilder)> = first
            .iter()
            .map(|&c| Ok((c, Self::builder(&types[c])?)))
            .collect::<SqlResult<_>>()?;
        let format = &self.store.format;
        // records are kept only when some column is decoded after the first conjunct
        let keep =
            !eager && (f.new_cols.iter().skip(1).any(|c| !c.is_empty()) || !f.rest.is_empty());
        let (records, ends) = (&mut f.records, &mut f.ends);
        while ends.len() < BATCH_ROWS && self.more {
            ctx.check_cancel()?;
            let mut add = |rec: &[u8]| -> SqlResult<()> {
                if !builders.is_empty() {
                    let view = format.view(rec)?;
                    for (c, b) in builders.iter_mut() {
                        RowFormat::decode_col_into(&view, *c, b)?;
                    }
                }
                if keep {
                    records.extend_from_slice(rec);
                }
                ends.push(records.len());
                Ok(())
            };
            self.more = match &mut self.cursor {
                Cursor::Heap(s) => s.visit_next(&mut |rec, _| add(rec))?,
                Cursor::BTree(s) => s.visit_next(&mut |_, rec| add(rec))?,
                Cursor::Morsel(s) => s.visit_next(&mut |rec, _| add(rec))?,
            };
        }
        let rows = f.ends.len();
        if rows == 0 && !self.more {
            return Ok(None);
        }
        let mut batch = Batch {
            columns: (0..self.width).map(|_| None).collect(),
            len: rows,
        };
        for (c, b) in builders {
            batch.columns[c] = Some(b.finish()?);
        }
        let mut live: Vec<u32> = (0..rows as u32).collect();
        for (k, conjunct) in f.conjuncts.iter().enumerate() {
            if live.is_empty() {
                break;
            }
            if k > 0 && !eager {
                if let Some(cols) = f.new_cols.get(k) {
                    decode_rows(format, &f.records, &f.ends, cols, &types, &live, &mut batch)?;
                }
            }
            live = expr::filter(conjunct, &batch, &live, ctx)?;
        }
        f.eager = live.len() as f64 > rows as f64 * EAGER_PASS_RATE;
        if eager {
            return Ok(Some((batch, live)));
        }
        // compact to the survivors, then decode what is left only for them
        let n = live.len();
        let mut out = Batch {
            columns: (0..self.width).map(|_| None).collect(),
            len: n,
        };
        if n > 0 {
            for (c, col) in batch.columns.iter().enumerate() {
                if let Some(col) = col {
                    out.columns[c] = Some(col.take(&live)?);
                }
            }
            let rest = &f.rest;
            let survivors = decode_dense(format, &f.records, &f.ends, rest, &types, &live)?;
            for (c, col) in rest.iter().zip(survivors) {
                out.columns[*c] = Some(col);
            }
        }
        let sel = (0..n as u32).collect();
        Ok(Some((out, sel)))
    }
}

/// The record of row `i` of the batch.
#[inline]
fn record<'a>(records: &'a [u8], ends: &[usize], i: usize) -> &'a [u8] {
    let start = if i == 0 { 0 } else { ends[i - 1] };
    &records[start..ends[i]]
}

/// Decodes `cols` for the rows `live` into full-length vectors of `batch` (the other rows
/// NULL: nothing reads them).
fn decode_rows(
    format: &RowFormat,
    records: &[u8],
    ends: &[usize],
    cols: &[usize],
    types: &[types::DataType],
    live: &[u32],
    batch: &mut Batch,
) -> SqlResult<()> {
    if cols.is_empty() {
        return Ok(());
    }
    let mut builders: Vec<ColumnBuilder> = cols
        .iter()
        .map(|&c| BatchScan::builder(&types[c]))
        .collect::<SqlResult<_>>()?;
    let mut next = 0usize;
    for &r in live {
        let i = r as usize;
        while next < i {
            builders.iter_mut().for_each(ColumnBuilder::push_null);
            next += 1;
        }
        let view = format.view(record(records, ends, i))?;
        for (c, b) in cols.iter().zip(builders.iter_mut()) {
            RowFormat::decode_col_into(&view, *c, b)?;
        }
        next = i + 1;
    }
    while next < batch.len {
        builders.iter_mut().for_each(ColumnBuilder::push_null);
        next += 1;
    }
    for (c, b) in cols.iter().zip(builders) {
        batch.columns[*c] = Some(b.finish()?);
    }
    Ok(())
}

/// Decodes `cols` for the rows `live` only: vectors of `live.len()` values.
fn decode_dense(
    format: &RowFormat,
    records: &[u8],
    ends: &[usize],
    cols: &[usize],
    types: &[types::DataType],
    live: &[u32],
) -> SqlResult<Vec<Column>> {
    let mut builders: Vec<ColumnBuilder> = cols
        .iter()
        .map(|&c| BatchScan::builder(&types[c]))
        .collect::<SqlResult<_>>()?;
    if cols.is_empty() {
        return Ok(Vec::new());
    }
    for &r in live {
        let view = format.view(record(records, ends, r as usize))?;
        for (c, b) in cols.iter().zip(builders.iter_mut()) {
            RowFormat::decode_col_into(&view, *c, b)?;
        }
    }
    builders.into_iter().map(ColumnBuilder::finish).collect()
}
