//! The row→batch adapter: an input of a batch hash join that is not itself a batch source (an
//! aggregate, a merge join, a sort, an exchange, ...; `optimizer::batch_mode` leaves it in row
//! mode) runs as its row-mode operator tree, and its rows are gathered into batches of
//! [`BATCH_ROWS`] column vectors. The row operators count their own actuals; values go in
//! through `ColumnBuilder::push`, so a vector holds exactly the values row mode passed on.

use common::SqlResult;
use plan::PhysOp;

use super::vector::ColumnBuilder;
use super::{Batch, BATCH_ROWS};
use crate::context::ExecCtx;
use crate::operator::BoxOp;

pub(crate) struct RowInput<'p> {
    op: &'p PhysOp,
    rows: BoxOp<'p>,
    open: bool,
}

impl<'p> RowInput<'p> {
    /// Opens the row-mode tree of `op`. None: a column type without a vector.
    pub fn open(op: &'p PhysOp, ctx: &mut ExecCtx) -> SqlResult<Option<Self>> {
        if !op
            .columns
            .iter()
            .all(|c| ColumnBuilder::new(&c.data_type, 0).is_some())
        {
            return Ok(None);
        }
        let mut rows = crate::operator::build(op)?;
        rows.open(ctx)?;
        Ok(Some(RowInput {
            op,
            rows,
            open: true,
        }))
    }

    /// The next batch of rows (every row selected); None at the end.
    pub fn next_batch(&mut self, ctx: &mut ExecCtx) -> SqlResult<Option<Batch>> {
        if !self.open {
            return Ok(None);
        }
        let mut builders: Vec<ColumnBuilder> = Vec::with_capacity(self.op.columns.len());
        for c in &self.op.columns {
            match ColumnBuilder::new(&c.data_type, BATCH_ROWS) {
                Some(b) => builders.push(b),
                None => {
                    return Err(common::SqlError::internal(
                        "batch adapter: a column type without a vector",
                    ))
                }
            }
        }
        let mut len = 0;
        while len < BATCH_ROWS {
            if !self.rows.next(ctx)? {
                self.close();
                break;
            }
            let row = self.rows.row();
            for (i, b) in builders.iter_mut().enumerate() {
                b.push(row.get(i).cloned().unwrap_or(types::Value::Null))?;
            }
            len += 1;
        }
        if len == 0 {
            return Ok(None);
        }
        let columns = builders
            .into_iter()
            .map(|b| b.finish().map(Some))
            .collect::<SqlResult<_>>()?;
        Ok(Some(Batch { columns, len }))
    }

    fn close(&mut self) {
        if self.open {
            self.open = false;
            self.rows.close();
        }
    }
}

impl Drop for RowInput<'_> {
    fn drop(&mut self) {
        self.close();
    }
}
