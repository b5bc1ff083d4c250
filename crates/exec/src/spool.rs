//! Table Spool (Lazy Spool): the performance spool on the inner side of nested loops
//! (`PhysKind::TableSpool`). The first execution reads the input lazily, keeping each row as it
//! passes; when the input is read to its end the kept rows are complete, and a later execution
//! under the same parameter values (every slot in `ExecCtx::params`, so a spool inside an outer
//! loop's correlated side is re-read when that loop's values change) replays them: a rewind.
//! Otherwise the input is re-opened and the rows kept again: a rebind. An execution closed
//! before the end (a semi join that found its match) leaves the rows incomplete, so the next
//! one rebinds. Past [`MAX_SPOOLED_VALUES`] the spool stops keeping rows (every execution
//! reads its input) rather than grow without bound.

use common::SqlResult;
use types::Value;

use crate::context::ExecCtx;
use crate::operator::{BoxOp, Operator};

/// Most values (rows × columns) one spool keeps in memory.
const MAX_SPOOLED_VALUES: usize = 4_000_000;

pub struct TableSpool<'p> {
    input: BoxOp<'p>,
    rows: Vec<Vec<Value>>,
    values: usize,
    /// The kept rows are every row of the input under `key`.
    complete: bool,
    /// Parameter values of the execution that filled `rows`.
    key: Option<Vec<(usize, Value)>>,
    /// Replaying `rows` (a rewind) rather than reading the input.
    replaying: bool,
    /// Next row to replay; while reading, the current row is the input's.
    pos: usize,
    /// Kept rows exceeded the cap: pass rows through from now on.
    overflowed: bool,
    input_open: bool,
    rebinds: u64,
    rewinds: u64,
}

impl<'p> TableSpool<'p> {
    pub fn new(input: BoxOp<'p>) -> Self {
        TableSpool {
            input,
            rows: Vec::new(),
            values: 0,
            complete: false,
            key: None,
            replaying: false,
            pos: 0,
            overflowed: false,
            input_open: false,
            rebinds: 0,
            rewinds: 0,
        }
    }
}

impl Operator for TableSpool<'_> {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        self.pos = 0;
        let same = self.key.as_ref() == Some(&ctx.params);
        if self.complete && same && !self.overflowed {
            self.rewinds += 1;
            self.replaying = true;
            return Ok(());
        }
        self.rebinds += 1;
        self.replaying = false;
        self.rows.clear();
        self.values = 0;
        self.complete = false;
        self.key = Some(ctx.params.clone());
        if self.input_open {
            self.input.close();
        }
        self.input.open(ctx)?;
        self.input_open = true;
        Ok(())
    }

    fn next(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        if self.replaying {
            if self.pos < self.rows.len() {
                self.pos += 1;
                return Ok(true);
            }
            return Ok(false);
        }
        if !self.input.next(ctx)? {
            self.complete = true;
            return Ok(false);
        }
        if !self.overflowed {
            let row = self.input.row();
            self.values += row.len().max(1);
            if self.values > MAX_SPOOLED_VALUES {
                self.overflowed = true;
                self.rows = Vec::new();
            } else {
                self.rows.push(row.to_vec());
            }
        }
        Ok(true)
    }

    fn row(&self) -> &[Value] {
        if self.replaying {
            return self
                .pos
                .checked_sub(1)
                .and_then(|i| self.rows.get(i))
                .map_or(&[], |r| r.as_slice());
        }
        self.input.row()
    }

    fn spool_counts(&self) -> Option<(u64, u64)> {
        Some((self.rebinds, self.rewinds))
    }

    fn close(&mut self) {
        if self.input_open {
            self.input.close();
            self.input_open = false;
        }
    }
}
