//! Compute Scalar (projection): evaluates its expressions into a reused row buffer.

use common::SqlResult;
use plan::ScalarExpr;
use types::Value;

use crate::context::ExecCtx;
use crate::eval::eval;
use crate::operator::{BoxOp, Operator};

pub struct ComputeScalar<'p> {
    input: BoxOp<'p>,
    exprs: &'p [ScalarExpr],
    cur: Vec<Value>,
}

impl<'p> ComputeScalar<'p> {
    pub fn new(input: BoxOp<'p>, exprs: &'p [ScalarExpr]) -> Self {
        ComputeScalar {
            input,
            exprs,
            cur: Vec::with_capacity(exprs.len()),
        }
    }
}

impl Operator for ComputeScalar<'_> {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        self.input.open(ctx)
    }
    fn next(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        if !self.input.next(ctx)? {
            return Ok(false);
        }
        self.cur.clear();
        let row = self.input.row();
        for e in self.exprs {
            let v = eval(e, row, ctx)?;
            self.cur.push(v);
        }
        Ok(true)
    }
    fn row(&self) -> &[Value] {
        &self.cur
    }
    fn close(&mut self) {
        self.input.close()
    }

    fn count_rows(&mut self, ctx: &mut ExecCtx) -> SqlResult<Option<u64>> {
        self.input.count_rows(ctx)
    }
}
