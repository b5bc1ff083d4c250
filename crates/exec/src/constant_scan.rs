//! Constant Scan (VALUES, SELECT without FROM) and the scan of a materialized virtual table.

use common::SqlResult;
use plan::ScalarExpr;
use types::Value;

use crate::context::ExecCtx;
use crate::eval::eval;
use crate::operator::Operator;

pub struct ConstantScan<'p> {
    rows: &'p [Vec<ScalarExpr>],
    pos: usize,
    cur: Vec<Value>,
}

impl<'p> ConstantScan<'p> {
    pub fn new(rows: &'p [Vec<ScalarExpr>]) -> Self {
        ConstantScan {
            rows,
            pos: 0,
            cur: Vec::new(),
        }
    }
}

impl Operator for ConstantScan<'_> {
    fn open(&mut self, _ctx: &mut ExecCtx) -> SqlResult<()> {
        self.pos = 0;
        Ok(())
    }
    fn next(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        let Some(r) = self.rows.get(self.pos) else {
            return Ok(false);
        };
        self.pos += 1;
        self.cur.clear();
        for e in r {
            let v = eval(e, &[], ctx)?;
            self.cur.push(v);
        }
        Ok(true)
    }
    fn row(&self) -> &[Value] {
        &self.cur
    }
}

pub struct VirtualScan<'p> {
    rows: &'p [Vec<Value>],
    pos: usize,
}

impl<'p> VirtualScan<'p> {
    pub fn new(rows: &'p [Vec<Value>]) -> Self {
        VirtualScan { rows, pos: 0 }
    }
}

impl Operator for VirtualScan<'_> {
    fn open(&mut self, _ctx: &mut ExecCtx) -> SqlResult<()> {
        self.pos = 0;
        Ok(())
    }
    fn next(&mut self, _ctx: &mut ExecCtx) -> SqlResult<bool> {
        if self.pos < self.rows.len() {
            self.pos += 1;
            Ok(true)
        } else {
            Ok(false)
        }
    }
    fn row(&self) -> &[Value] {
        match self.pos.checked_sub(1).and_then(|i| self.rows.get(i)) {
            Some(r) => r,
            None => &[],
        }
    }
}
