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
        while self.input.next(ctx)? {
            let row = self.input.row();
            let mut k = Vec::with_capacity(self.keys.len());
            for key in self.keys {
                k.push(match key.expr.as_column() {
                    Some(i) => row.get(i).cloned().unwrap_or(Value::Null),
                    None => eval(&key.expr, row, ctx)?,
                });
            }
            self.rows.push((k, row.to_vec()));
        }
        self.input.close();
        let keys = self.keys;
        self.rows.sort_by(|a, b| cmp_keys(keys, &a.0, &b.0));
        if self.distinct {
            self.rows.dedup_by(|a, b| {
                a.1.len() == b.1.len()
                    && a
                        .1
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
