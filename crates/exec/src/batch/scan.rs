//! Batch scan: a heap, a clustered index or a parallel worker's morsels, decoded page by page
//! into column vectors of about [`BATCH_ROWS`] rows — only the columns the plan reads
//! (`TableSource::needed`), through storage's visitor and the row format's decoder (the one
//! page decoder; no copy of the record). A scan that reads no column (`COUNT(*)`) decodes
//! nothing: its batches are row counts.
//!
//! Locks: the serial scan takes the statement's table lock as a parallel zone does (the
//! access's hints plus TABLOCK, an S table lock); when that still leaves row locks to take
//! (an isolation level or hint that needs them), batch mode is refused and the operator runs
//! in row mode. A worker's scan reads under the lock its coordinator took.

use std::ops::Bound;

use common::SqlResult;
use plan::TableSource;
use storage::{BTreeScan, HeapScan, ScanDirection};

use super::vector::ColumnBuilder;
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
}

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
        }))
    }

    /// Counts the remaining rows from the slot arrays (a scan that decodes nothing).
    pub fn count(&mut self, ctx: &mut ExecCtx) -> SqlResult<u64> {
        if !self.more {
            return Ok(0);
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
    pub fn next_batch(&mut self, ctx: &mut ExecCtx) -> SqlResult<Option<Batch>> {
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
