//! Stream Aggregate: aggregates input sorted on the group-by expressions (groups are runs of
//! equal keys). Without GROUP BY it is a scalar aggregate and yields exactly one row.

use std::cmp::Ordering;

use common::SqlResult;
use plan::{AggCall, AggFunc, ScalarExpr};
use types::Value;

use crate::agg::AggState;
use crate::context::ExecCtx;
use crate::eval::eval;
use crate::operator::{BoxOp, Operator};
use crate::valops;

pub struct StreamAggregate<'p> {
    input: BoxOp<'p>,
    group_by: &'p [ScalarExpr],
    aggs: &'p [AggCall],
    states: Vec<AggState>,
    keys: Vec<Value>,
    next_keys: Vec<Value>,
    pending: bool,
    done: bool,
    emitted_any: bool,
    cur: Vec<Value>,
}

impl<'p> StreamAggregate<'p> {
    pub fn new(input: BoxOp<'p>, group_by: &'p [ScalarExpr], aggs: &'p [AggCall]) -> Self {
        StreamAggregate {
            input,
            group_by,
            aggs,
            states: Vec::new(),
            keys: Vec::new(),
            next_keys: Vec::new(),
            pending: false,
            done: false,
            emitted_any: false,
            cur: Vec::new(),
        }
    }

    fn eval_keys(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        self.next_keys.clear();
        let row = self.input.row();
        for g in self.group_by {
            let v = eval(g, row, ctx)?;
            self.next_keys.push(v);
        }
        Ok(())
    }

    fn emit(&mut self) -> SqlResult<()> {
        self.cur.clear();
        self.cur.extend(self.keys.iter().cloned());
        for (a, s) in self.aggs.iter().zip(self.states.iter_mut()) {
            let v = s.finish(a)?;
            self.cur.push(v);
        }
        self.emitted_any = true;
        Ok(())
    }
}

impl Operator for StreamAggregate<'_> {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        self.input.open(ctx)?;
        self.pending = false;
        self.done = false;
        self.emitted_any = false;
        Ok(())
    }

    fn next(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        if self.done {
            return Ok(false);
        }
        if !self.pending
            && self.group_by.is_empty()
            && !self.aggs.is_empty()
            && self
                .aggs
                .iter()
                .all(|a| matches!(a.func, AggFunc::CountStar | AggFunc::CountBigStar))
        {
            if let Some(n) = self.input.count_rows(ctx)? {
                self.done = true;
                self.keys.clear();
                self.states = self.aggs.iter().map(AggState::new).collect();
                for s in &mut self.states {
                    s.add_count(n);
                }
                self.emit()?;
                return Ok(true);
            }
        }
        if !self.pending {
            // start the first group
            if !self.input.next(ctx)? {
                self.done = true;
                if self.group_by.is_empty() && !self.emitted_any {
                    self.keys.clear();
                    self.states = self.aggs.iter().map(AggState::new).collect();
                    self.emit()?;
                    return Ok(true);
                }
                return Ok(false);
            }
            self.eval_keys(ctx)?;
            self.pending = true;
        }
        // the current input row starts a group with keys next_keys
        std::mem::swap(&mut self.keys, &mut self.next_keys);
        self.states = self.aggs.iter().map(AggState::new).collect();
        loop {
            let row = self.input.row();
            for (a, s) in self.aggs.iter().zip(self.states.iter_mut()) {
                s.update(a, row, ctx)?;
            }
            if !self.input.next(ctx)? {
                self.done = true;
                self.emit()?;
                return Ok(true);
            }
            self.eval_keys(ctx)?;
            let same = self
                .keys
                .iter()
                .zip(&self.next_keys)
                .all(|(a, b)| valops::sort_cmp(a, b) == Ordering::Equal);
            if !same {
                self.emit()?;
                return Ok(true);
            }
        }
    }

    fn row(&self) -> &[Value] {
        &self.cur
    }

    fn close(&mut self) {
        self.input.close()
    }
}
