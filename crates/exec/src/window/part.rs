//! The rows of one window partition, in window order, with their ORDER BY key values.
//!
//! Rows stay in memory while the partition fits the operator memory budget. Past it the
//! partition moves to tempdb work files in chunks of a fixed number of rows (each chunk about
//! an eighth of the budget); rows are then read back a chunk at a time through a cache of two
//! chunks, so the window functions' access pattern (the current row, its peers, its frame, a
//! LAG/LEAD offset) costs bounded memory whatever the partition's size.

use common::SqlResult;
use types::Value;

use crate::context::ExecCtx;
use crate::spill::{row_size, SpillFile, SpillWriter};

use super::eq_vals;

/// Work table name in error messages about spilled window partitions.
const WINDOW_OBJECT: &str = "dbo.WINDOW SPOOL temporary storage";

/// Chunks a spilled partition is cut into, per budget's worth of rows.
const CHUNKS_PER_BUDGET: usize = 8;

/// Fewest rows in one chunk of a spilled partition.
const MIN_CHUNK_ROWS: usize = 16;

/// Bookkeeping bytes per buffered row besides its values (two `Vec` headers).
const ROW_OVERHEAD: usize = 48;

/// One partition: `len` rows, each `okey ++ row` (the ORDER BY values, then the row).
#[derive(Default)]
pub(super) struct Part {
    nkey: usize,
    len: usize,
    rows: Vec<Vec<Value>>,
    bytes: usize,
    spilled: Option<Spilled>,
}

struct Spilled {
    chunk_rows: usize,
    chunks: Vec<SpillFile>,
    writer: Option<SpillWriter>,
    /// Loaded chunks, most recently used last.
    cache: Vec<(usize, Vec<Vec<Value>>)>,
}

impl Part {
    /// Empties the buffer (work files deleted) for a partition with `nkey` ORDER BY values.
    pub(super) fn reset(&mut self, nkey: usize) {
        self.nkey = nkey;
        self.len = 0;
        self.rows.clear();
        self.bytes = 0;
        self.spilled = None;
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    pub(super) fn is_spilled(&self) -> bool {
        self.spilled.is_some()
    }

    /// Appends a row (`rec` = ORDER BY values ++ row).
    pub(super) fn push(&mut self, rec: Vec<Value>, ctx: &mut ExecCtx) -> SqlResult<()> {
        self.len += 1;
        if let Some(sp) = self.spilled.as_mut() {
            return sp.write(&rec, ctx);
        }
        self.bytes += row_size(&rec) + ROW_OVERHEAD;
        self.rows.push(rec);
        if self.bytes > ctx.spill.operator_budget {
            self.spill_out(ctx)?;
        }
        Ok(())
    }

    /// Moves the buffered rows to work files; later rows follow them there.
    fn spill_out(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        // at least MIN_CHUNK_ROWS rows a chunk: fewer, smaller files (bounded: a few rows)
        let chunk_rows = (self.rows.len() / CHUNKS_PER_BUDGET).max(MIN_CHUNK_ROWS);
        let mut sp = Spilled {
            chunk_rows,
            chunks: Vec::new(),
            writer: None,
            cache: Vec::new(),
        };
        for rec in std::mem::take(&mut self.rows) {
            sp.write(&rec, ctx)?;
        }
        self.bytes = 0;
        self.spilled = Some(sp);
        Ok(())
    }

    /// Ends the partition's input (flushes the last chunk).
    pub(super) fn finish(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        if let Some(sp) = self.spilled.as_mut() {
            if let Some(w) = sp.writer.take() {
                sp.chunks.push(w.finish(ctx)?);
            }
        }
        Ok(())
    }

    /// Row `k` (`okey ++ row`).
    pub(super) fn rec(&mut self, k: usize) -> SqlResult<&[Value]> {
        match self.spilled.as_mut() {
            None => Ok(self.rows.get(k).map(|r| &r[..]).unwrap_or(&[])),
            Some(sp) => sp.rec(k),
        }
    }

    /// Row `k` without its ORDER BY values.
    pub(super) fn row(&mut self, k: usize) -> SqlResult<&[Value]> {
        let nkey = self.nkey;
        let r = self.rec(k)?;
        Ok(r.get(nkey..).unwrap_or(&[]))
    }

    /// True when rows `a` and `b` are peers (equal ORDER BY values).
    pub(super) fn peer(&mut self, a: usize, b: usize) -> SqlResult<bool> {
        let nkey = self.nkey;
        if self.spilled.is_none() {
            let (Some(x), Some(y)) = (self.rows.get(a), self.rows.get(b)) else {
                return Ok(false);
            };
            return Ok(eq_vals(&x[..nkey], &y[..nkey]));
        }
        let ka: Vec<Value> = self.rec(a)?.iter().take(nkey).cloned().collect();
        let kb = self.rec(b)?;
        Ok(kb.len() >= nkey && eq_vals(&ka, &kb[..nkey]))
    }
}

impl Spilled {
    fn write(&mut self, rec: &[Value], ctx: &mut ExecCtx) -> SqlResult<()> {
        let w = match self.writer.as_mut() {
            Some(w) => w,
            None => self.writer.insert(SpillWriter::create(ctx, WINDOW_OBJECT)?),
        };
        w.write_row(rec)?;
        if w.rows() as usize >= self.chunk_rows {
            if let Some(w) = self.writer.take() {
                self.chunks.push(w.finish(ctx)?);
            }
        }
        Ok(())
    }

    fn rec(&mut self, k: usize) -> SqlResult<&[Value]> {
        let c = k / self.chunk_rows;
        let at = match self.cache.iter().position(|(i, _)| *i == c) {
            Some(at) => at,
            None => {
                let Some(file) = self.chunks.get(c) else {
                    return Ok(&[]);
                };
                if self.cache.len() >= 2 {
                    self.cache.remove(0);
                }
                let mut rows = Vec::with_capacity(self.chunk_rows);
                let mut rd = file.reader()?;
                let mut r = Vec::new();
                while rd.next_row(&mut r)? {
                    rows.push(std::mem::take(&mut r));
                }
                self.cache.push((c, rows));
                self.cache.len() - 1
            }
        };
        let (_, rows) = &self.cache[at];
        Ok(rows.get(k % self.chunk_rows).map(|r| &r[..]).unwrap_or(&[]))
    }
}

/// One window call's results for the current partition, in window order: in memory, or in a
/// work file when the partition itself spilled.
pub(super) enum OutCol {
    Mem(Vec<Value>),
    File(Box<FileCol>),
}

/// A call's values in a work file: written, then read back in order.
pub(super) struct FileCol {
    writer: Option<SpillWriter>,
    /// Kept while read (the file is deleted when dropped).
    _file: Option<SpillFile>,
    reader: Option<crate::spill::SpillReader>,
    buf: Vec<Value>,
}

impl OutCol {
    /// An empty column for `part` (a file when `part` spilled).
    pub(super) fn for_part(part: &Part, ctx: &mut ExecCtx) -> SqlResult<OutCol> {
        Ok(if part.is_spilled() {
            OutCol::File(Box::new(FileCol {
                writer: Some(SpillWriter::create(ctx, WINDOW_OBJECT)?),
                _file: None,
                reader: None,
                buf: Vec::new(),
            }))
        } else {
            OutCol::Mem(Vec::with_capacity(part.len()))
        })
    }

    pub(super) fn push(&mut self, v: Value) -> SqlResult<()> {
        match self {
            OutCol::Mem(vals) => {
                vals.push(v);
                Ok(())
            }
            OutCol::File(f) => match f.writer.as_mut() {
                Some(w) => w.write_row(std::slice::from_ref(&v)),
                None => Ok(()),
            },
        }
    }

    /// Ends writing; values are then taken in order with `take`.
    pub(super) fn finish(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        if let OutCol::File(fc) = self {
            if let Some(w) = fc.writer.take() {
                let f = w.finish(ctx)?;
                fc.reader = Some(f.reader()?);
                fc._file = Some(f);
            }
        }
        Ok(())
    }

    /// The value of row `k` (rows are taken in increasing order, each once).
    pub(super) fn take(&mut self, k: usize) -> SqlResult<Value> {
        match self {
            OutCol::Mem(vals) => Ok(vals
                .get_mut(k)
                .map(|v| std::mem::replace(v, Value::Null))
                .unwrap_or(Value::Null)),
            OutCol::File(fc) => {
                let FileCol { reader, buf, .. } = &mut **fc;
                let Some(rd) = reader.as_mut() else {
                    return Ok(Value::Null);
                };
                if !rd.next_row(buf)? {
                    return Ok(Value::Null);
                }
                Ok(buf.pop().unwrap_or(Value::Null))
            }
        }
    }
}
