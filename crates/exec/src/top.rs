//! Top: first N rows (or N percent), OFFSET skipping, WITH TIES.

use common::{SqlError, SqlResult};
use plan::TopSpec;
use types::{DataType, Value};

use crate::context::ExecCtx;
use crate::eval::eval;
use crate::operator::{BoxOp, Operator};
use crate::valops;

pub struct Top<'p> {
    input: BoxOp<'p>,
    spec: &'p TopSpec,
    limit: Option<u64>,
    produced: u64,
    last_keys: Vec<Value>,
    /// Percent mode buffers the input to count it.
    buffered: Option<(Vec<Vec<Value>>, usize)>,
}

impl<'p> Top<'p> {
    pub fn new(input: BoxOp<'p>, spec: &'p TopSpec) -> Self {
        Top {
            input,
            spec,
            limit: None,
            produced: 0,
            last_keys: Vec::new(),
            buffered: None,
        }
    }
}

fn as_count(v: Value, what: &str) -> SqlResult<Option<f64>> {
    if v.is_null() {
        return Ok(None);
    }
    match valops::cast(&v, &DataType::Float)? {
        Value::Float(f) if f >= 0.0 => Ok(Some(f)),
        _ => Err(SqlError::custom(
            if what == "offset" { 10742 } else { 1060 },
            16,
            1,
            if what == "offset" {
                "The offset specified in a OFFSET clause may not be negative.".to_string()
            } else {
                "The number of rows provided for a TOP or FETCH clauses row count parameter must be an integer.".to_string()
            },
        )),
    }
}

impl Operator for Top<'_> {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        self.input.open(ctx)?;
        self.produced = 0;
        self.last_keys.clear();
        self.buffered = None;
        let count = match &self.spec.count {
            Some(e) => as_count(eval(e, &[], ctx)?, "top")?,
            None => None,
        };
        let offset = match &self.spec.offset {
            Some(e) => as_count(eval(e, &[], ctx)?, "offset")?.unwrap_or(0.0) as u64,
            None => 0,
        };
        if self.spec.percent {
            let mut rows = Vec::new();
            while self.input.next(ctx)? {
                rows.push(self.input.row().to_vec());
            }
            let pct = count.unwrap_or(100.0).min(100.0);
            let n = ((rows.len() as f64) * pct / 100.0).ceil() as u64;
            self.limit = Some(n);
            self.buffered = Some((rows, 0));
        } else {
            self.limit = match (count, self.spec.count.is_some()) {
                (Some(c), _) => Some(c as u64),
                (None, true) => Some(0),
                (None, false) => None,
            };
            for _ in 0..offset {
                if !self.input.next(ctx)? {
                    break;
                }
            }
        }
        Ok(())
    }
    fn next(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        let at_limit = self.limit.is_some_and(|l| self.produced >= l);
        if at_limit && self.spec.with_ties.is_empty() {
            return Ok(false);
        }
        let has = match &mut self.buffered {
            Some((rows, pos)) => {
                if *pos < rows.len() {
                    *pos += 1;
                    true
                } else {
                    false
                }
            }
            None => self.input.next(ctx)?,
        };
        if !has {
            return Ok(false);
        }
        if !self.spec.with_ties.is_empty() {
            let mut keys = Vec::with_capacity(self.spec.with_ties.len());
            for k in &self.spec.with_ties {
                let v = eval(&k.expr, self.row(), ctx)?;
                keys.push(v);
            }
            if at_limit {
                let same = keys
                    .iter()
                    .zip(&self.last_keys)
                    .all(|(a, b)| valops::sort_cmp(a, b) == std::cmp::Ordering::Equal);
                if !same || self.produced == 0 {
                    return Ok(false);
                }
            }
            self.last_keys = keys;
        }
        self.produced += 1;
        Ok(true)
    }
    fn row(&self) -> &[Value] {
        match &self.buffered {
            Some((rows, pos)) => match pos.checked_sub(1).and_then(|i| rows.get(i)) {
                Some(r) => r,
                None => &[],
            },
            None => self.input.row(),
        }
    }
    fn close(&mut self) {
        self.input.close()
    }
}
