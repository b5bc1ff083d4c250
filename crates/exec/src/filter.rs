//! Filter: passes rows whose predicate is TRUE. Zero-copy: the current row is the child's.

use common::SqlResult;
use plan::ScalarExpr;
use types::Value;

use crate::context::ExecCtx;
use crate::eval::eval_pred;
use crate::operator::{BoxOp, Operator};

pub struct Filter<'p> {
    input: BoxOp<'p>,
    predicate: &'p ScalarExpr,
}

impl<'p> Filter<'p> {
    pub fn new(input: BoxOp<'p>, predicate: &'p ScalarExpr) -> Self {
        Filter { input, predicate }
    }
}

impl Operator for Filter<'_> {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        self.input.open(ctx)
    }
    fn next(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        while self.input.next(ctx)? {
            if eval_pred(self.predicate, self.input.row(), ctx)? {
                return Ok(true);
            }
        }
        Ok(false)
    }
    fn row(&self) -> &[Value] {
        self.input.row()
    }
    fn close(&mut self) {
        self.input.close()
    }
}
