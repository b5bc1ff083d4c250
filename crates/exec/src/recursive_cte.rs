//! Recursive CTE: the anchor's rows, then the recursive member run repeatedly over the
//! previous level (read by `WorkTableScan`, SQL Server's Table Spool) until a level is empty.
//! Exceeding MAXRECURSION (default 100, 0 = unlimited) raises error 530.

use std::rc::Rc;

use common::{SqlError, SqlResult};
use types::Value;

use crate::context::ExecCtx;
use crate::operator::{BoxOp, Operator};

pub struct RecursiveCte<'p> {
    id: usize,
    anchor: BoxOp<'p>,
    recursive: BoxOp<'p>,
    max_recursion: u32,
    out: Vec<Vec<Value>>,
    pos: usize,
}

impl<'p> RecursiveCte<'p> {
    pub fn new(id: usize, anchor: BoxOp<'p>, recursive: BoxOp<'p>, max: Option<u32>) -> Self {
        RecursiveCte {
            id,
            anchor,
            recursive,
            max_recursion: max.unwrap_or(100),
            out: Vec::new(),
            pos: 0,
        }
    }
}

impl Operator for RecursiveCte<'_> {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        self.out.clear();
        self.pos = 0;
        let mut level = Vec::new();
        self.anchor.open(ctx)?;
        while self.anchor.next(ctx)? {
            level.push(self.anchor.row().to_vec());
        }
        self.anchor.close();
        let mut depth = 0u32;
        while !level.is_empty() {
            self.out.extend(level.iter().cloned());
            ctx.work_tables
                .insert(self.id, Rc::new(std::mem::take(&mut level)));
            self.recursive.open(ctx)?;
            while self.recursive.next(ctx)? {
                level.push(self.recursive.row().to_vec());
            }
            self.recursive.close();
            if !level.is_empty() {
                depth += 1;
                if self.max_recursion != 0 && depth > self.max_recursion {
                    return Err(SqlError::new(530, &[&self.max_recursion]));
                }
            }
        }
        ctx.work_tables.remove(&self.id);
        Ok(())
    }
    fn next(&mut self, _ctx: &mut ExecCtx) -> SqlResult<bool> {
        if self.pos < self.out.len() {
            self.pos += 1;
            Ok(true)
        } else {
            Ok(false)
        }
    }
    fn row(&self) -> &[Value] {
        match self.pos.checked_sub(1).and_then(|i| self.out.get(i)) {
            Some(r) => r,
            None => &[],
        }
    }
}

/// Reads the previous recursion level.
pub struct WorkTableScan {
    id: usize,
    rows: Rc<Vec<Vec<Value>>>,
    pos: usize,
}

impl WorkTableScan {
    pub fn new(id: usize) -> Self {
        WorkTableScan {
            id,
            rows: Rc::new(Vec::new()),
            pos: 0,
        }
    }
}

impl Operator for WorkTableScan {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        self.rows = ctx.work_tables.get(&self.id).cloned().unwrap_or_default();
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
