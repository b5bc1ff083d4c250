//! Recursive CTE: the anchor's rows, then the recursive member run repeatedly over the
//! previous level (read by `WorkTableScan`, SQL Server's Table Spool) until a level is empty.
//! Exceeding MAXRECURSION (default 100, 0 = unlimited) raises error 530 before the first row of
//! the level past the limit.
//!
//! Rows stream: each row is returned as it is produced and also appended to the level being
//! built, which becomes the work table of the next run of the recursive member. Memory holds at
//! most two levels (the one read and the one built), each in memory within the operator budget
//! and in a tempdb work file past it.

use std::rc::Rc;

use common::{SqlError, SqlResult};
use types::Value;

use crate::context::ExecCtx;
use crate::operator::{BoxOp, Operator};
use crate::row_buffer::RowBuffer;
use crate::spill::SpillReader;

/// Work table name in error messages.
const WORKTABLE: &str = "dbo.Worktable";

/// The rows of one recursion level.
pub type WorkTable = RowBuffer;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Anchor,
    Recursive,
    Done,
}

pub struct RecursiveCte<'p> {
    id: usize,
    anchor: BoxOp<'p>,
    recursive: BoxOp<'p>,
    max_recursion: u32,
    phase: Phase,
    /// The level being built.
    level: RowBuffer,
    /// Non-empty recursive levels so far.
    depth: u32,
    row: Vec<Value>,
}

impl<'p> RecursiveCte<'p> {
    pub fn new(id: usize, anchor: BoxOp<'p>, recursive: BoxOp<'p>, max: Option<u32>) -> Self {
        RecursiveCte {
            id,
            anchor,
            recursive,
            max_recursion: max.unwrap_or(100),
            phase: Phase::Done,
            level: RowBuffer::new(WORKTABLE),
            depth: 0,
            row: Vec::new(),
        }
    }

    /// The level just built becomes the work table of the next run of the recursive member;
    /// an empty level ends the recursion.
    fn next_level(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        ctx.check_cancel()?;
        let mut level = std::mem::replace(&mut self.level, RowBuffer::new(WORKTABLE));
        ctx.work_tables.remove(&self.id);
        if level.len() == 0 {
            self.phase = Phase::Done;
            return Ok(());
        }
        level.finish(ctx)?;
        ctx.work_tables.insert(self.id, Rc::new(level));
        self.phase = Phase::Recursive;
        self.recursive.open(ctx)
    }
}

impl Operator for RecursiveCte<'_> {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        self.level = RowBuffer::new(WORKTABLE);
        self.depth = 0;
        self.row.clear();
        ctx.work_tables.remove(&self.id);
        self.phase = Phase::Anchor;
        self.anchor.open(ctx)
    }

    fn next(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        loop {
            match self.phase {
                Phase::Anchor => {
                    if self.anchor.next(ctx)? {
                        self.row.clear();
                        self.row.extend_from_slice(self.anchor.row());
                        self.level.push(&self.row, ctx)?;
                        return Ok(true);
                    }
                    self.anchor.close();
                    self.next_level(ctx)?;
                }
                Phase::Recursive => {
                    if self.recursive.next(ctx)? {
                        if self.level.len() == 0 {
                            self.depth += 1;
                            if self.max_recursion != 0 && self.depth > self.max_recursion {
                                return Err(SqlError::new(530, &[&self.max_recursion]));
                            }
                        }
                        self.row.clear();
                        self.row.extend_from_slice(self.recursive.row());
                        self.level.push(&self.row, ctx)?;
                        return Ok(true);
                    }
                    self.recursive.close();
                    self.next_level(ctx)?;
                }
                Phase::Done => {
                    self.row.clear();
                    return Ok(false);
                }
            }
        }
    }

    fn row(&self) -> &[Value] {
        &self.row
    }

    fn close(&mut self) {
        self.anchor.close();
        self.recursive.close();
        self.level = RowBuffer::new(WORKTABLE);
        self.phase = Phase::Done;
    }
}

/// Reads the previous recursion level.
pub struct WorkTableScan {
    id: usize,
    table: Option<Rc<WorkTable>>,
    reader: Option<SpillReader>,
    pos: usize,
    row: Vec<Value>,
}

impl WorkTableScan {
    pub fn new(id: usize) -> Self {
        WorkTableScan {
            id,
            table: None,
            reader: None,
            pos: 0,
            row: Vec::new(),
        }
    }
}

impl Operator for WorkTableScan {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        self.table = ctx.work_tables.get(&self.id).cloned();
        self.reader = match self.table.as_deref() {
            Some(t) => t.file_reader()?,
            None => None,
        };
        self.pos = 0;
        self.row.clear();
        Ok(())
    }
    fn next(&mut self, _ctx: &mut ExecCtx) -> SqlResult<bool> {
        if let Some(rd) = self.reader.as_mut() {
            return rd.next_row(&mut self.row);
        }
        match self.table.as_deref().and_then(|t| t.mem_rows()) {
            Some(rows) if self.pos < rows.len() => {
                self.pos += 1;
                Ok(true)
            }
            _ => Ok(false),
        }
    }
    fn row(&self) -> &[Value] {
        match self.table.as_deref().and_then(|t| t.mem_rows()) {
            Some(rows) => self
                .pos
                .checked_sub(1)
                .and_then(|i| rows.get(i))
                .map(|r| &r[..])
                .unwrap_or(&[]),
            None => &self.row,
        }
    }
    fn close(&mut self) {
        self.table = None;
        self.reader = None;
    }
}
