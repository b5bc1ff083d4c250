//! Table Scan (heap) and Clustered Index Scan: read every row of a table in storage order (or
//! clustered key order), decode into a reused row buffer, apply the pushed-down predicate.

use std::ops::Bound;

use common::SqlResult;
use plan::{ScalarExpr, TableSource};
use storage::{BTreeScan, HeapScan, RowBatch, ScanDirection};
use types::Value;

use crate::context::ExecCtx;
use crate::eval::eval_pred;
use crate::operator::Operator;
use crate::table_io::TableStore;

enum Cursor {
    None,
    Heap(HeapScan),
    BTree(BTreeScan),
}

pub struct TableScan<'p> {
    source: &'p TableSource,
    predicate: Option<&'p ScalarExpr>,
    clustered: bool,
    backward: bool,
    store: Option<TableStore>,
    cursor: Cursor,
    batch: RowBatch,
    pos: usize,
    more: bool,
    row: Vec<Value>,
    /// Columns to decode (`TableSource::needed`; all when None) that the pushed-down predicate
    /// reads: decoded first. Others stay NULL.
    cols: Vec<usize>,
    /// The other columns to decode, only for rows that pass the predicate (late
    /// materialization).
    late_cols: Vec<usize>,
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
            batch: RowBatch::new(),
            pos: 0,
            more: false,
            row: Vec::new(),
            cols: Vec::new(),
            late_cols: Vec::new(),
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
        if self.store.is_none() {
            let db = ctx.env.storage(&self.source.table.database)?;
            self.store = Some(TableStore::open(db, self.source.table.clone())?);
        }
        let Some(store) = &self.store else {
            return Ok(());
        };
        self.cursor = if let Some(h) = &store.heap {
            Cursor::Heap(h.scan()?)
        } else if let Some((_, bt)) = &store.clustered {
            let dir = if self.backward {
                ScanDirection::Backward
            } else {
                ScanDirection::Forward
            };
            Cursor::BTree(bt.range(Bound::Unbounded, Bound::Unbounded, dir)?)
        } else {
            Cursor::None
        };
        let _ = self.clustered;
        self.batch.clear();
        self.pos = 0;
        self.more = true;
        Ok(())
    }

    fn next(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        let Some(store) = &self.store else {
            return Ok(false);
        };
        loop {
            if self.pos < self.batch.len() {
                let i = self.pos;
                self.pos += 1;
                let ncol = store.format.types().len();
                let width = ncol + usize::from(self.source.with_locator);
                if self.row.len() != width {
                    self.row.clear();
                    self.row.resize(width, Value::Null);
                }
                store
                    .format
                    .decode_cols(self.batch.record(i), &self.cols, &mut self.row)?;
                if self.source.with_locator {
                    let loc = match self.cursor {
                        Cursor::Heap(_) => self.batch.rid(i).to_bytes().to_vec(),
                        _ => self.batch.key(i).to_vec(),
                    };
                    self.row[ncol] = Value::VarBinary(loc);
                }
                if let Some(p) = self.predicate {
                    if !eval_pred(p, &self.row, ctx)? {
                        continue;
                    }
                    store.format.decode_cols(
                        self.batch.record(i),
                        &self.late_cols,
                        &mut self.row,
                    )?;
                }
                return Ok(true);
            }
            if !self.more {
                return Ok(false);
            }
            self.batch.clear();
            self.pos = 0;
            self.more = match &mut self.cursor {
                Cursor::Heap(s) => s.next_batch(&mut self.batch)?,
                Cursor::BTree(s) => s.next_batch(&mut self.batch)?,
                Cursor::None => false,
            };
        }
    }

    fn row(&self) -> &[Value] {
        &self.row
    }

    fn close(&mut self) {
        self.cursor = Cursor::None;
    }

    fn count_rows(&mut self, _ctx: &mut ExecCtx) -> SqlResult<Option<u64>> {
        if self.predicate.is_some() {
            return Ok(None);
        }
        let mut n = (self.batch.len() - self.pos.min(self.batch.len())) as u64;
        while self.more {
            self.batch.clear();
            self.more = match &mut self.cursor {
                Cursor::Heap(s) => s.next_batch(&mut self.batch)?,
                Cursor::BTree(s) => s.next_batch(&mut self.batch)?,
                Cursor::None => false,
            };
            n += self.batch.len() as u64;
        }
        self.batch.clear();
        self.pos = 0;
        Ok(Some(n))
    }
}
