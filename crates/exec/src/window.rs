//! Window (SQL Server shows it as Segment + Sequence Project / Window Spool + Stream Aggregate):
//! materializes its input, and for each call sorts row indexes by (PARTITION BY, ORDER BY),
//! computes the function per partition and appends one column per call. Rows come out in the
//! order of the first call's window.

use std::cmp::Ordering;

use common::{SqlError, SqlResult};
use plan::{AggCall, AggFunc};
use plan::{Frame, FrameBound, FrameUnits, SortKey, WindowCall, WindowFunc};
use types::{DataType, Value};

use crate::agg::AggState;
use crate::context::ExecCtx;
use crate::eval::eval;
use crate::operator::{BoxOp, Operator};
use crate::sort::cmp_keys;
use crate::valops;

pub struct Window<'p> {
    input: BoxOp<'p>,
    calls: &'p [WindowCall],
    arity: usize,
    rows: Vec<Vec<Value>>,
    order: Vec<usize>,
    pos: usize,
}

impl<'p> Window<'p> {
    pub fn new(input: BoxOp<'p>, calls: &'p [WindowCall], arity: usize) -> Self {
        Window {
            input,
            calls,
            arity,
            rows: Vec::new(),
            order: Vec::new(),
            pos: 0,
        }
    }
}

fn eq_vals(a: &[Value], b: &[Value]) -> bool {
    a.iter()
        .zip(b)
        .all(|(x, y)| valops::sort_cmp(x, y) == Ordering::Equal)
}

impl Operator for Window<'_> {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        self.rows.clear();
        self.pos = 0;
        self.input.open(ctx)?;
        while self.input.next(ctx)? {
            self.rows.push(self.input.row().to_vec());
        }
        self.input.close();
        let n = self.rows.len();
        for r in &mut self.rows {
            r.resize(self.arity + self.calls.len(), Value::Null);
        }
        let mut first_order = None;
        for (ci, call) in self.calls.iter().enumerate() {
            // evaluate partition and order keys
            let mut pkeys = Vec::with_capacity(n);
            let mut okeys = Vec::with_capacity(n);
            for r in &self.rows {
                let mut p = Vec::with_capacity(call.partition_by.len());
                for e in &call.partition_by {
                    p.push(eval(e, &r[..self.arity], ctx)?);
                }
                let mut o = Vec::with_capacity(call.order_by.len());
                for k in &call.order_by {
                    o.push(eval(&k.expr, &r[..self.arity], ctx)?);
                }
                pkeys.push(p);
                okeys.push(o);
            }
            let pspec: Vec<SortKey> = call
                .partition_by
                .iter()
                .map(|e| SortKey {
                    expr: e.clone(),
                    desc: false,
                })
                .collect();
            let mut idx: Vec<usize> = (0..n).collect();
            idx.sort_by(|&a, &b| {
                cmp_keys(&pspec, &pkeys[a], &pkeys[b])
                    .then_with(|| cmp_keys(&call.order_by, &okeys[a], &okeys[b]))
            });
            let mut start = 0;
            while start < n {
                let mut end = start + 1;
                while end < n && eq_vals(&pkeys[idx[start]], &pkeys[idx[end]]) {
                    end += 1;
                }
                let part = &idx[start..end];
                let vals = compute(call, part, &self.rows, &okeys, self.arity, ctx)?;
                for (k, &ri) in part.iter().enumerate() {
                    self.rows[ri][self.arity + ci] = vals[k].clone();
                }
                start = end;
            }
            if first_order.is_none() {
                first_order = Some(idx);
            }
        }
        self.order = first_order.unwrap_or_else(|| (0..n).collect());
        Ok(())
    }

    fn next(&mut self, _ctx: &mut ExecCtx) -> SqlResult<bool> {
        if self.pos < self.order.len() {
            self.pos += 1;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    fn row(&self) -> &[Value] {
        match self
            .pos
            .checked_sub(1)
            .and_then(|i| self.order.get(i))
            .and_then(|&r| self.rows.get(r))
        {
            Some(r) => r,
            None => &[],
        }
    }
}

fn arg_value(call: &WindowCall, i: usize, row: &[Value], ctx: &mut ExecCtx) -> SqlResult<Value> {
    match call.args.get(i) {
        Some(e) => eval(e, row, ctx),
        None => Ok(Value::Null),
    }
}

fn int_arg(
    call: &WindowCall,
    i: usize,
    row: &[Value],
    ctx: &mut ExecCtx,
    d: i64,
) -> SqlResult<i64> {
    if call.args.get(i).is_none() {
        return Ok(d);
    }
    match valops::cast(&arg_value(call, i, row, ctx)?, &DataType::BigInt)? {
        Value::BigInt(v) => Ok(v),
        _ => Ok(d),
    }
}

/// Computes the function for one partition (`part` = row indexes in window order).
fn compute(
    call: &WindowCall,
    part: &[usize],
    rows: &[Vec<Value>],
    okeys: &[Vec<Value>],
    arity: usize,
    ctx: &mut ExecCtx,
) -> SqlResult<Vec<Value>> {
    let m = part.len();
    let peer = |a: usize, b: usize| eq_vals(&okeys[part[a]], &okeys[part[b]]);
    let mut out = Vec::with_capacity(m);
    let as_ty = |v: i64| valops::cast(&Value::BigInt(v), &call.data_type);
    match call.func {
        WindowFunc::RowNumber => {
            for k in 0..m {
                out.push(as_ty(k as i64 + 1)?);
            }
        }
        WindowFunc::Rank | WindowFunc::DenseRank | WindowFunc::PercentRank => {
            let mut rank = 1i64;
            let mut dense = 1i64;
            for k in 0..m {
                if k > 0 && !peer(k - 1, k) {
                    rank = k as i64 + 1;
                    dense += 1;
                }
                out.push(match call.func {
                    WindowFunc::Rank => as_ty(rank)?,
                    WindowFunc::DenseRank => as_ty(dense)?,
                    _ => Value::Float(if m <= 1 {
                        0.0
                    } else {
                        (rank - 1) as f64 / (m - 1) as f64
                    }),
                });
            }
        }
        WindowFunc::CumeDist => {
            for k in 0..m {
                let mut e = k;
                while e + 1 < m && peer(k, e + 1) {
                    e += 1;
                }
                out.push(Value::Float((e + 1) as f64 / m as f64));
            }
        }
        WindowFunc::Ntile => {
            let b = int_arg(call, 0, &rows[part[0]][..arity], ctx, 1)?;
            if b <= 0 {
                return Err(SqlError::custom(
                    4150,
                    16,
                    1,
                    "The function 'NTILE' takes only a positive integer as an argument.",
                ));
            }
            let b = b as usize;
            let size = m / b;
            let extra = m % b;
            let mut k = 0;
            for g in 0..b.min(m) {
                let cnt = size + usize::from(g < extra);
                for _ in 0..cnt {
                    out.push(as_ty(g as i64 + 1)?);
                    k += 1;
                }
            }
            while k < m {
                out.push(as_ty(b as i64)?);
                k += 1;
            }
        }
        WindowFunc::Lag | WindowFunc::Lead => {
            for k in 0..m {
                let row = &rows[part[k]][..arity];
                let off = int_arg(call, 1, row, ctx, 1)?;
                let target = if call.func == WindowFunc::Lag {
                    k as i64 - off
                } else {
                    k as i64 + off
                };
                let v = if target >= 0 && (target as usize) < m {
                    arg_value(call, 0, &rows[part[target as usize]][..arity], ctx)?
                } else {
                    arg_value(call, 2, row, ctx)?
                };
                out.push(valops::cast(&v, &call.data_type)?);
            }
        }
        WindowFunc::FirstValue | WindowFunc::LastValue => {
            for k in 0..m {
                let (lo, hi) = frame_bounds(call, k, m, &peer)?;
                let v = if lo > hi || lo >= m {
                    Value::Null
                } else {
                    let t = if call.func == WindowFunc::FirstValue {
                        lo
                    } else {
                        hi
                    };
                    arg_value(call, 0, &rows[part[t]][..arity], ctx)?
                };
                out.push(v);
            }
        }
        WindowFunc::Agg(f) => {
            let agg = AggCall {
                func: f,
                args: call.args.clone(),
                distinct: call.distinct,
                order_by: vec![],
                data_type: call.data_type.clone(),
            };
            let running = matches!(effective_frame(call).start, FrameBound::UnboundedPreceding);
            let mut state = AggState::new(&agg);
            let mut fed = 0usize; // rows [0, fed) fed into running state
            for k in 0..m {
                let (lo, hi) = frame_bounds(call, k, m, &peer)?;
                if running && lo == 0 {
                    while fed <= hi && fed < m {
                        feed(&mut state, &agg, &rows[part[fed]][..arity], ctx)?;
                        fed += 1;
                    }
                    let mut s = state.clone();
                    out.push(if hi < lo {
                        empty(&agg)?
                    } else {
                        s.finish(&agg)?
                    });
                } else {
                    let mut s = AggState::new(&agg);
                    if lo <= hi {
                        for &ri in &part[lo..=hi.min(m - 1)] {
                            feed(&mut s, &agg, &rows[ri][..arity], ctx)?;
                        }
                    }
                    out.push(s.finish(&agg)?);
                }
            }
        }
    }
    Ok(out)
}

fn empty(agg: &AggCall) -> SqlResult<Value> {
    AggState::new(agg).finish(agg)
}

fn feed(s: &mut AggState, agg: &AggCall, row: &[Value], ctx: &mut ExecCtx) -> SqlResult<()> {
    if matches!(agg.func, AggFunc::CountStar | AggFunc::CountBigStar) || agg.args.is_empty() {
        return s.update(agg, row, ctx);
    }
    s.update(agg, row, ctx)
}

fn effective_frame(call: &WindowCall) -> Frame {
    match call.frame {
        Some(f) => f,
        None if call.order_by.is_empty() => Frame {
            units: FrameUnits::Rows,
            start: FrameBound::UnboundedPreceding,
            end: FrameBound::UnboundedFollowing,
        },
        None => Frame {
            units: FrameUnits::Range,
            start: FrameBound::UnboundedPreceding,
            end: FrameBound::CurrentRow,
        },
    }
}

/// Inclusive frame [lo, hi] of row k in a partition of m rows (hi < lo = empty).
fn frame_bounds(
    call: &WindowCall,
    k: usize,
    m: usize,
    peer: &dyn Fn(usize, usize) -> bool,
) -> SqlResult<(usize, usize)> {
    let f = effective_frame(call);
    let range = f.units == FrameUnits::Range;
    let first_peer = |mut i: usize| {
        while i > 0 && peer(i - 1, i) {
            i -= 1;
        }
        i
    };
    let last_peer = |mut i: usize| {
        while i + 1 < m && peer(i, i + 1) {
            i += 1;
        }
        i
    };
    let lo: i64 = match f.start {
        FrameBound::UnboundedPreceding => 0,
        FrameBound::Preceding(n) => k as i64 - n as i64,
        FrameBound::CurrentRow => {
            if range {
                first_peer(k) as i64
            } else {
                k as i64
            }
        }
        FrameBound::Following(n) => k as i64 + n as i64,
        FrameBound::UnboundedFollowing => m as i64,
    };
    let hi: i64 = match f.end {
        FrameBound::UnboundedFollowing => m as i64 - 1,
        FrameBound::Following(n) => k as i64 + n as i64,
        FrameBound::CurrentRow => {
            if range {
                last_peer(k) as i64
            } else {
                k as i64
            }
        }
        FrameBound::Preceding(n) => k as i64 - n as i64,
        FrameBound::UnboundedPreceding => -1,
    };
    let lo = lo.max(0);
    let hi = hi.min(m as i64 - 1);
    if hi < lo {
        return Ok((1, 0));
    }
    Ok((lo as usize, hi as usize))
}
