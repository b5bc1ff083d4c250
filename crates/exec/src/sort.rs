//! Sort (with TOP N Sort and DISTINCT Sort). NULLs sort first ascending, as in SQL Server.
//! The sort is stable, so equal keys keep input order.

use std::cmp::Ordering;

use common::SqlResult;
use plan::{ScalarExpr, SortKey};
use types::{DataType, Value};

use crate::context::ExecCtx;
use crate::eval::eval;
use crate::operator::{BoxOp, Operator};
use crate::valops;

pub struct Sort<'p> {
    input: BoxOp<'p>,
    keys: &'p [SortKey],
    top: Option<&'p ScalarExpr>,
    distinct: bool,
    rows: Vec<(Vec<Value>, Vec<Value>)>,
    pos: usize,
}

impl<'p> Sort<'p> {
    pub fn new(
        input: BoxOp<'p>,
        keys: &'p [SortKey],
        top: Option<&'p ScalarExpr>,
        distinct: bool,
    ) -> Self {
        Sort {
            input,
            keys,
            top,
            distinct,
            rows: Vec::new(),
            pos: 0,
        }
    }
}

/// Compares two key vectors under the sort specification.
pub(crate) fn cmp_keys(keys: &[SortKey], a: &[Value], b: &[Value]) -> Ordering {
    for (i, k) in keys.iter().enumerate() {
        let o = valops::sort_cmp(&a[i], &b[i]);
        let o = if k.desc { o.reverse() } else { o };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

impl Operator for Sort<'_> {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        self.rows.clear();
        self.pos = 0;
        let limit = match self.top {
            Some(e) => match valops::cast(&eval(e, &[], ctx)?, &DataType::BigInt)? {
                Value::BigInt(n) => Some(n.max(0) as usize),
                _ => None,
            },
            None => None,
        };
        self.input.open(ctx)?;
        let keys = self.keys;
        let mut kbuf: Vec<Value> = Vec::with_capacity(keys.len());
        // TOP N: keep the best n rows sorted; a row not better than the worst is dropped
        // without copying it
        let bounded = limit.filter(|&n| n <= 4096 && !self.distinct);
        while self.input.next(ctx)? {
            let row = self.input.row();
            kbuf.clear();
            for key in keys {
                kbuf.push(match key.expr.as_column() {
                    Some(i) => row.get(i).cloned().unwrap_or(Value::Null),
                    None => eval(&key.expr, row, ctx)?,
                });
            }
            if let Some(n) = bounded {
                if n == 0 {
                    continue;
                }
                if self.rows.len() == n {
                    let worst = &self.rows[n - 1].0;
                    if cmp_keys(keys, &kbuf, worst) != Ordering::Less {
                        continue;
                    }
                    self.rows.pop();
                }
                // insert after equal keys (stable)
                let pos = self
                    .rows
                    .partition_point(|r| cmp_keys(keys, &r.0, &kbuf) != Ordering::Greater);
                self.rows.insert(pos, (kbuf.clone(), row.to_vec()));
                continue;
            }
            self.rows.push((kbuf.clone(), row.to_vec()));
        }
        self.input.close();
        if bounded.is_none() {
            self.rows.sort_by(|a, b| cmp_keys(keys, &a.0, &b.0));
        }
        if self.distinct {
            self.rows.dedup_by(|a, b| {
                a.1.len() == b.1.len()
                    && a.1
                        .iter()
                        .zip(&b.1)
                        .all(|(x, y)| valops::sort_cmp(x, y) == Ordering::Equal)
            });
        }
        if let Some(n) = limit {
            self.rows.truncate(n);
        }
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
            Some(r) => &r.1,
            None => &[],
        }
    }
}
