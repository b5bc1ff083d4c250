//! Window (SQL Server shows it as Segment + Sequence Project / Window Spool + Stream Aggregate):
//! materializes its input, and for each call sorts row indexes by (PARTITION BY, ORDER BY),
//! computes the function per partition and appends one column per call. Rows come out in the
//! order of the first call's window.
//!
//! Streaming mode (Segment + Sequence Project): when every call is ROW_NUMBER, RANK or
//! DENSE_RANK (no frame, no look-ahead) and the input already arrives in window order (no
//! PARTITION BY and a row-independent, deterministic ORDER BY such as `(SELECT NULL)`, or an
//! input Sort whose leading keys are the PARTITION BY keys ascending followed by the ORDER BY
//! keys), rows are numbered as they pass: O(1) memory, same values and the same row order as
//! the materializing path (whose stable sort keeps an already sorted input's order).

use std::cmp::Ordering;

use common::{SqlError, SqlResult};
use plan::{AggCall, AggFunc};
use plan::{
    Frame, FrameBound, FrameUnits, PhysKind, PhysOp, ScalarExpr, ScalarKind, SortKey, SubqueryPlan,
    WindowCall, WindowFunc,
};
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
    /// Streaming state, when the calls and the input allow it (see module doc).
    stream: Option<Stream>,
}

/// Per-statement state of the streaming mode.
struct Stream {
    /// The ORDER BY keys are row-independent constants: every row of the (single) partition is
    /// a peer of the previous one, so no key is evaluated.
    constant: bool,
    out: Vec<Value>,
    /// Partition and order keys of the previous row, per call (empty when `constant`).
    prev: Vec<Option<(Vec<Value>, Vec<Value>)>>,
    /// Per call: (row number, rank, dense rank) of the previous row in its partition.
    counters: Vec<(i64, i64, i64)>,
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
            stream: None,
        }
    }

    /// A window over `input_plan` (the plan `input` was built from): streams when the calls and
    /// the input's order allow it.
    pub fn for_plan(input: BoxOp<'p>, calls: &'p [WindowCall], input_plan: &PhysOp) -> Self {
        let mut w = Window::new(input, calls, input_plan.columns.len());
        let rank_only = !calls.is_empty()
            && calls.iter().all(|c| {
                matches!(
                    c.func,
                    WindowFunc::RowNumber | WindowFunc::Rank | WindowFunc::DenseRank
                )
            });
        if rank_only {
            let constant = calls.iter().all(|c| {
                c.partition_by.is_empty() && c.order_by.iter().all(|k| is_constant(&k.expr))
            });
            if constant || calls.iter().all(|c| input_sorted_for(input_plan, c)) {
                w.stream = Some(Stream {
                    constant,
                    out: Vec::new(),
                    prev: vec![None; calls.len()],
                    counters: vec![(0, 0, 0); calls.len()],
                });
            }
        }
        w
    }

    /// Streaming `next`: numbers the next input row.
    fn next_streamed(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        let Some(st) = self.stream.as_mut() else {
            return Ok(false);
        };
        if !self.input.next(ctx)? {
            st.out.clear();
            return Ok(false);
        }
        let arity = self.arity;
        st.out.clear();
        st.out.extend_from_slice(self.input.row());
        st.out.resize(arity, Value::Null);
        for (ci, call) in self.calls.iter().enumerate() {
            let (rn, rank, dense) = &mut st.counters[ci];
            if st.constant {
                // one partition, every row a peer of the first
                *rn += 1;
                *rank = 1;
                *dense = 1;
            } else {
                let row = &st.out[..arity];
                let mut p = Vec::with_capacity(call.partition_by.len());
                for e in &call.partition_by {
                    p.push(eval(e, row, ctx)?);
                }
                let mut o = Vec::with_capacity(call.order_by.len());
                for k in &call.order_by {
                    o.push(eval(&k.expr, row, ctx)?);
                }
                match &st.prev[ci] {
                    Some((pp, po)) if eq_vals(pp, &p) => {
                        *rn += 1;
                        if !eq_vals(po, &o) {
                            *rank = *rn;
                            *dense += 1;
                        }
                    }
                    _ => {
                        *rn = 1;
                        *rank = 1;
                        *dense = 1;
                    }
                }
                st.prev[ci] = Some((p, o));
            }
            let v = match call.func {
                WindowFunc::Rank => *rank,
                WindowFunc::DenseRank => *dense,
                _ => *rn,
            };
            let v = valops::cast(&Value::BigInt(v), &call.data_type)?;
            st.out.push(v);
        }
        Ok(true)
    }
}

/// True when `e` has the same value for every row of one execution and evaluating it cannot
/// fail or vary: literals, and casts / arithmetic / uncorrelated subqueries over constant
/// scans of such (`(SELECT NULL)`, `(SELECT 1)`). Functions (NEWID(), RAND()) never count.
fn is_constant(e: &ScalarExpr) -> bool {
    match &e.kind {
        ScalarKind::Literal(_) => true,
        ScalarKind::Cast { expr, .. } | ScalarKind::Unary(_, expr) => is_constant(expr),
        ScalarKind::ScalarSubquery(sq) => {
            sq.uncorrelated
                && sq.params.is_empty()
                && match &sq.plan {
                    SubqueryPlan::Physical(p) => constant_plan(p),
                    SubqueryPlan::Logical(_) => false,
                }
        }
        _ => false,
    }
}

/// A plan that yields at most one row of constants.
fn constant_plan(p: &PhysOp) -> bool {
    match &p.kind {
        PhysKind::ConstantScan { rows } => {
            rows.len() <= 1 && rows.iter().flatten().all(is_constant)
        }
        PhysKind::ComputeScalar { input, exprs } => {
            exprs.iter().all(is_constant) && constant_plan(input)
        }
        _ => false,
    }
}

/// True when `input` is a Sort whose leading keys are `call`'s PARTITION BY expressions
/// (ascending) followed by its ORDER BY keys: rows then arrive in window order.
fn input_sorted_for(input: &PhysOp, call: &WindowCall) -> bool {
    let PhysKind::Sort { keys, .. } = &input.kind else {
        return false;
    };
    let want = call.partition_by.len() + call.order_by.len();
    if keys.len() < want {
        return false;
    }
    let same = |a: &ScalarExpr, b: &ScalarExpr| format!("{a:?}") == format!("{b:?}");
    call.partition_by
        .iter()
        .zip(keys)
        .all(|(e, k)| !k.desc && same(e, &k.expr))
        && call
            .order_by
            .iter()
            .zip(&keys[call.partition_by.len()..])
            .all(|(o, k)| o.desc == k.desc && same(&o.expr, &k.expr))
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
        if let Some(st) = self.stream.as_mut() {
            st.out.clear();
            st.prev.iter_mut().for_each(|p| *p = None);
            st.counters.iter_mut().for_each(|c| *c = (0, 0, 0));
            return self.input.open(ctx);
        }
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

    fn next(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        if self.stream.is_some() {
            return self.next_streamed(ctx);
        }
        if self.pos < self.order.len() {
            self.pos += 1;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    fn row(&self) -> &[Value] {
        if let Some(st) = &self.stream {
            return &st.out;
        }
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

    fn close(&mut self) {
        if self.stream.is_some() {
            self.input.close();
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
