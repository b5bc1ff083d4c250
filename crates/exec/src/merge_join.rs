//! Merge Join (inner) over inputs sorted ascending on the join keys. Both inputs are read in
//! key order; runs of equal right keys are buffered to produce the cross product of a run.

use std::cmp::Ordering;

use common::{SqlError, SqlResult};
use plan::{JoinKind, ScalarExpr};
use types::Value;

use crate::context::ExecCtx;
use crate::eval::{eval, eval_pred};
use crate::operator::{BoxOp, Operator};
use crate::valops;

pub struct MergeJoin<'p> {
    left: BoxOp<'p>,
    right: BoxOp<'p>,
    kind: JoinKind,
    left_keys: &'p [ScalarExpr],
    right_keys: &'p [ScalarExpr],
    residual: Option<&'p ScalarExpr>,
    out: Vec<Vec<Value>>,
    pos: usize,
}

impl<'p> MergeJoin<'p> {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        left: BoxOp<'p>,
        right: BoxOp<'p>,
        kind: JoinKind,
        left_keys: &'p [ScalarExpr],
        right_keys: &'p [ScalarExpr],
        residual: Option<&'p ScalarExpr>,
        _left_arity: usize,
        _right_arity: usize,
    ) -> Self {
        MergeJoin {
            left,
            right,
            kind,
            left_keys,
            right_keys,
            residual,
            out: Vec::new(),
            pos: 0,
        }
    }
}

fn read_all(
    op: &mut BoxOp<'_>,
    keys: &[ScalarExpr],
    ctx: &mut ExecCtx,
) -> SqlResult<Vec<(Vec<Value>, Vec<Value>)>> {
    let mut v = Vec::new();
    op.open(ctx)?;
    while op.next(ctx)? {
        let row = op.row();
        let mut k = Vec::with_capacity(keys.len());
        for e in keys {
            k.push(eval(e, row, ctx)?);
        }
        v.push((k, row.to_vec()));
    }
    op.close();
    Ok(v)
}

fn cmp(a: &[Value], b: &[Value]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let o = valops::sort_cmp(x, y);
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

impl Operator for MergeJoin<'_> {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        if self.kind != JoinKind::Inner {
            return Err(SqlError::internal("merge join supports inner joins only"));
        }
        self.out.clear();
        self.pos = 0;
        let l = read_all(&mut self.left, self.left_keys, ctx)?;
        let r = read_all(&mut self.right, self.right_keys, ctx)?;
        let (mut i, mut j) = (0, 0);
        while i < l.len() && j < r.len() {
            if l[i].0.iter().any(Value::is_null) {
                i += 1;
                continue;
            }
            if r[j].0.iter().any(Value::is_null) {
                j += 1;
                continue;
            }
            match cmp(&l[i].0, &r[j].0) {
                Ordering::Less => i += 1,
                Ordering::Greater => j += 1,
                Ordering::Equal => {
                    let mut j_end = j;
                    while j_end < r.len() && cmp(&r[j].0, &r[j_end].0) == Ordering::Equal {
                        j_end += 1;
                    }
                    let i_start = i;
                    while i < l.len() && cmp(&l[i_start].0, &l[i].0) == Ordering::Equal {
                        for rr in &r[j..j_end] {
                            let mut row = l[i].1.clone();
                            row.extend_from_slice(&rr.1);
                            if let Some(p) = self.residual {
                                if !eval_pred(p, &row, ctx)? {
                                    continue;
                                }
                            }
                            self.out.push(row);
                        }
                        i += 1;
                    }
                    j = j_end;
                }
            }
        }
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
