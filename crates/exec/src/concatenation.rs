//! Concatenation (UNION ALL): the inputs one after the other.

use common::SqlResult;
use types::Value;

use crate::context::ExecCtx;
use crate::operator::{BoxOp, Operator};

pub struct Concatenation<'p> {
    inputs: Vec<BoxOp<'p>>,
    cur: usize,
}

impl<'p> Concatenation<'p> {
    pub fn new(inputs: Vec<BoxOp<'p>>) -> Self {
        Concatenation { inputs, cur: 0 }
    }
}

impl Operator for Concatenation<'_> {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        self.cur = 0;
        if let Some(i) = self.inputs.first_mut() {
            i.open(ctx)?;
        }
        Ok(())
    }
    fn next(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        while self.cur < self.inputs.len() {
            if self.inputs[self.cur].next(ctx)? {
                return Ok(true);
            }
            self.inputs[self.cur].close();
            self.cur += 1;
            if let Some(i) = self.inputs.get_mut(self.cur) {
                i.open(ctx)?;
            }
        }
        Ok(false)
    }
    fn row(&self) -> &[Value] {
        match self.inputs.get(self.cur) {
            Some(i) => i.row(),
            None => &[],
        }
    }
}
