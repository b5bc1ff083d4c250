//! Hash-based EXCEPT / INTERSECT and Hash Match (Flow Distinct).

use hashbrown::HashSet;

use common::SqlResult;
use plan::SetOpKind;
use types::Value;

use crate::context::ExecCtx;
use crate::operator::{BoxOp, Operator};
use crate::valops;

fn row_key(row: &[Value], out: &mut Vec<u8>) {
    out.clear();
    for v in row {
        valops::hash_key(v, out);
    }
}

/// Streams distinct rows (first occurrence wins).
pub struct HashDistinct<'p> {
    input: BoxOp<'p>,
    seen: HashSet<Box<[u8]>>,
    buf: Vec<u8>,
}

impl<'p> HashDistinct<'p> {
    pub fn new(input: BoxOp<'p>) -> Self {
        HashDistinct {
            input,
            seen: HashSet::new(),
            buf: Vec::new(),
        }
    }
}

impl Operator for HashDistinct<'_> {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        self.seen.clear();
        self.input.open(ctx)
    }
    fn next(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        while self.input.next(ctx)? {
            row_key(self.input.row(), &mut self.buf);
            if !self.seen.contains(&self.buf[..]) {
                self.seen.insert(self.buf.clone().into_boxed_slice());
                return Ok(true);
            }
        }
        Ok(false)
    }
    fn row(&self) -> &[Value] {
        self.input.row()
    }
    fn close(&mut self) {
        self.input.close();
        self.seen = HashSet::new();
    }
}

/// EXCEPT / INTERSECT (distinct): builds the set of right rows, streams distinct left rows.
pub struct HashSetOp<'p> {
    kind: SetOpKind,
    left: BoxOp<'p>,
    right: BoxOp<'p>,
    right_set: HashSet<Box<[u8]>>,
    seen: HashSet<Box<[u8]>>,
    buf: Vec<u8>,
}

impl<'p> HashSetOp<'p> {
    pub fn new(kind: SetOpKind, _all: bool, left: BoxOp<'p>, right: BoxOp<'p>) -> Self {
        HashSetOp {
            kind,
            left,
            right,
            right_set: HashSet::new(),
            seen: HashSet::new(),
            buf: Vec::new(),
        }
    }
}

impl Operator for HashSetOp<'_> {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        self.right_set.clear();
        self.seen.clear();
        self.right.open(ctx)?;
        while self.right.next(ctx)? {
            row_key(self.right.row(), &mut self.buf);
            if !self.right_set.contains(&self.buf[..]) {
                self.right_set.insert(self.buf.clone().into_boxed_slice());
            }
        }
        self.right.close();
        self.left.open(ctx)
    }
    fn next(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        while self.left.next(ctx)? {
            row_key(self.left.row(), &mut self.buf);
            let in_right = self.right_set.contains(&self.buf[..]);
            let keep = match self.kind {
                SetOpKind::Except => !in_right,
                SetOpKind::Intersect => in_right,
                SetOpKind::Union => true,
            };
            if keep && !self.seen.contains(&self.buf[..]) {
                self.seen.insert(self.buf.clone().into_boxed_slice());
                return Ok(true);
            }
        }
        Ok(false)
    }
    fn row(&self) -> &[Value] {
        self.left.row()
    }
    fn close(&mut self) {
        self.left.close();
    }
}
