//! Nested Loops join (and apply): for each outer row the inner side is re-opened — with the
//! parameter slots set from the outer row when it is correlated (`params`). Kinds: inner,
//! cross, left outer, left semi, left anti semi.

use common::{SqlError, SqlResult};
use plan::{JoinKind, ScalarExpr};
use types::Value;

use crate::context::ExecCtx;
use crate::eval::{eval, eval_pred};
use crate::operator::{BoxOp, Operator};

pub struct NestedLoops<'p> {
    outer: BoxOp<'p>,
    inner: BoxOp<'p>,
    kind: JoinKind,
    predicate: Option<&'p ScalarExpr>,
    params: &'p [(usize, ScalarExpr)],
    inner_arity: usize,
    cur: Vec<Value>,
    /// An outer row is current and the inner side is open.
    in_outer: bool,
    matched: bool,
    /// The row to return is exactly the outer row (semi/anti/outer-null-extended).
    out_outer_only: bool,
}

impl<'p> NestedLoops<'p> {
    pub fn new(
        outer: BoxOp<'p>,
        inner: BoxOp<'p>,
        kind: JoinKind,
        predicate: Option<&'p ScalarExpr>,
        params: &'p [(usize, ScalarExpr)],
        inner_arity: usize,
    ) -> Self {
        NestedLoops {
            outer,
            inner,
            kind,
            predicate,
            params,
            inner_arity,
            cur: Vec::new(),
            in_outer: false,
            matched: false,
            out_outer_only: false,
        }
    }

    fn combine(&mut self) {
        self.cur.clear();
        self.cur.extend_from_slice(self.outer.row());
        self.cur.extend_from_slice(self.inner.row());
    }
}

impl Operator for NestedLoops<'_> {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        if matches!(self.kind, JoinKind::RightOuter | JoinKind::FullOuter) {
            return Err(SqlError::internal(
                "nested loops cannot run right/full outer joins",
            ));
        }
        self.in_outer = false;
        self.outer.open(ctx)
    }

    fn next(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        loop {
            if !self.in_outer {
                if !self.outer.next(ctx)? {
                    return Ok(false);
                }
                for (slot, e) in self.params {
                    let v = eval(e, self.outer.row(), ctx)?;
                    ctx.set_param(*slot, v);
                }
                self.inner.open(ctx)?;
                self.in_outer = true;
                self.matched = false;
            }
            while self.inner.next(ctx)? {
                ctx.check_cancel()?;
                self.combine();
                let ok = match self.predicate {
                    Some(p) => eval_pred(p, &self.cur, ctx)?,
                    None => true,
                };
                if !ok {
                    continue;
                }
                self.matched = true;
                match self.kind {
                    JoinKind::LeftSemi => {
                        self.in_outer = false;
                        self.inner.close();
                        self.out_outer_only = true;
                        self.cur.truncate(self.cur.len() - self.inner_arity);
                        return Ok(true);
                    }
                    JoinKind::LeftAntiSemi => {
                        break;
                    }
                    _ => {
                        self.out_outer_only = false;
                        return Ok(true);
                    }
                }
            }
            // inner exhausted (or anti-semi matched)
            self.in_outer = false;
            self.inner.close();
            match self.kind {
                JoinKind::LeftOuter if !self.matched => {
                    self.cur.clear();
                    self.cur.extend_from_slice(self.outer.row());
                    self.cur
                        .extend(std::iter::repeat_n(Value::Null, self.inner_arity));
                    return Ok(true);
                }
                JoinKind::LeftAntiSemi if !self.matched => {
                    self.cur.clear();
                    self.cur.extend_from_slice(self.outer.row());
                    return Ok(true);
                }
                _ => {}
            }
        }
    }

    fn row(&self) -> &[Value] {
        &self.cur
    }

    fn close(&mut self) {
        self.outer.close();
        self.inner.close();
    }
}
