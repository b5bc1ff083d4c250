//! A materialized row set within the operator memory budget: rows are kept in memory until
//! they exceed the budget, then all of them go to one tempdb work file. Read back in order
//! with a [`RowCursor`] (any number of times). Used where a whole input must exist before
//! anything else happens: DML's Halloween protection (the input of UPDATE / DELETE / INSERT
//! ... SELECT that reads its target, SELECT INTO) and the levels of recursive CTEs.

use common::SqlResult;
use types::Value;

use crate::context::ExecCtx;
use crate::operator::BoxOp;
use crate::spill::{row_size, SpillFile, SpillReader, SpillWriter};

/// Bookkeeping bytes per buffered row (its `Vec` header).
const ROW_OVERHEAD: usize = 24;

pub(crate) struct RowBuffer {
    object: &'static str,
    rows: Vec<Vec<Value>>,
    bytes: usize,
    writer: Option<SpillWriter>,
    file: Option<SpillFile>,
    len: u64,
}

impl RowBuffer {
    /// An empty buffer; `object` names its work file in error messages.
    pub(crate) fn new(object: &'static str) -> RowBuffer {
        RowBuffer {
            object,
            rows: Vec::new(),
            bytes: 0,
            writer: None,
            file: None,
            len: 0,
        }
    }

    /// Every row of `op` (opened and closed here).
    pub(crate) fn collect(
        op: &mut BoxOp<'_>,
        object: &'static str,
        ctx: &mut ExecCtx,
    ) -> SqlResult<RowBuffer> {
        let mut b = RowBuffer::new(object);
        op.open(ctx)?;
        while op.next(ctx)? {
            b.push(op.row(), ctx)?;
        }
        op.close();
        b.finish(ctx)?;
        Ok(b)
    }

    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    pub(crate) fn push(&mut self, row: &[Value], ctx: &mut ExecCtx) -> SqlResult<()> {
        self.len += 1;
        if let Some(w) = self.writer.as_mut() {
            return w.write_row(row);
        }
        self.bytes += row_size(row) + ROW_OVERHEAD;
        self.rows.push(row.to_vec());
        if self.bytes > ctx.spill.operator_budget {
            let mut w = SpillWriter::create(ctx, self.object)?;
            for r in std::mem::take(&mut self.rows) {
                w.write_row(&r)?;
            }
            self.bytes = 0;
            self.writer = Some(w);
        }
        Ok(())
    }

    /// Ends writing (flushes the work file).
    pub(crate) fn finish(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        if let Some(w) = self.writer.take() {
            self.file = Some(w.finish(ctx)?);
        }
        Ok(())
    }

    /// The rows when they are in memory (None once spilled).
    pub(crate) fn mem_rows(&self) -> Option<&[Vec<Value>]> {
        self.file.is_none().then_some(&self.rows[..])
    }

    /// A reader of the work file once spilled (after `finish`).
    pub(crate) fn file_reader(&self) -> SqlResult<Option<SpillReader>> {
        self.file.as_ref().map(|f| f.reader()).transpose()
    }

    /// A cursor at the first row (after `finish`).
    pub(crate) fn cursor(&self) -> SqlResult<RowCursor<'_>> {
        Ok(RowCursor {
            rows: &self.rows,
            pos: 0,
            reader: self.file.as_ref().map(|f| f.reader()).transpose()?,
            row: Vec::new(),
        })
    }
}

/// Reads a [`RowBuffer`] in order.
pub(crate) struct RowCursor<'a> {
    rows: &'a [Vec<Value>],
    pos: usize,
    reader: Option<SpillReader>,
    row: Vec<Value>,
}

impl RowCursor<'_> {
    /// The next row; None at the end.
    pub(crate) fn next_row(&mut self) -> SqlResult<Option<&[Value]>> {
        if let Some(rd) = self.reader.as_mut() {
            return Ok(if rd.next_row(&mut self.row)? {
                Some(&self.row)
            } else {
                None
            });
        }
        let r = self.rows.get(self.pos).map(|r| r.as_slice());
        self.pos += 1;
        Ok(r)
    }
}
