//! The window functions over one partition (rows in window order, see `part.rs`). Each
//! function produces its values in row order; rows are fetched by index, mostly in increasing
//! order (the current row, its peer group, its frame), which the partition buffer serves from
//! memory or from a cached chunk of its work files.

use common::{SqlError, SqlResult};
use plan::{AggCall, AggFunc, Frame, FrameBound, FrameUnits, WindowCall, WindowFunc};
use types::{DataType, Value};

use crate::agg::AggState;
use crate::context::ExecCtx;
use crate::eval::eval;
use crate::valops;

use super::part::{OutCol, Part};

fn arg_value(call: &WindowCall, i: usize, row: &[Value], ctx: &mut ExecCtx) -> SqlResult<Value> {
    match call.args.get(i) {
        Some(e) => eval(e, row, ctx),
        None => Ok(Value::Null),
    }
}

/// Argument `i` of `call` over row `k` of the partition.
fn arg_at(
    call: &WindowCall,
    i: usize,
    part: &mut Part,
    k: usize,
    arity: usize,
    ctx: &mut ExecCtx,
) -> SqlResult<Value> {
    let row = part.row(k)?;
    arg_value(call, i, &row[..arity.min(row.len())], ctx)
}

fn int_arg(
    call: &WindowCall,
    i: usize,
    part: &mut Part,
    k: usize,
    arity: usize,
    ctx: &mut ExecCtx,
    d: i64,
) -> SqlResult<i64> {
    if call.args.get(i).is_none() {
        return Ok(d);
    }
    match valops::cast(&arg_at(call, i, part, k, arity, ctx)?, &DataType::BigInt)? {
        Value::BigInt(v) => Ok(v),
        _ => Ok(d),
    }
}

/// The peer group (rows with equal ORDER BY values) of the row last asked about; asked in
/// increasing row order, each group is found once (linear over the partition).
#[derive(Default)]
struct Peers {
    group: Option<(usize, usize)>,
}

impl Peers {
    /// Inclusive bounds of row `k`'s peer group.
    fn of(&mut self, part: &mut Part, k: usize) -> SqlResult<(usize, usize)> {
        if let Some((s, e)) = self.group {
            if s <= k && k <= e {
                return Ok((s, e));
            }
        }
        let m = part.len();
        let mut s = k;
        while s > 0 && part.peer(s - 1, s)? {
            s -= 1;
        }
        let mut e = k;
        while e + 1 < m && part.peer(e, e + 1)? {
            e += 1;
        }
        self.group = Some((s, e));
        Ok((s, e))
    }
}

/// Computes `call` over the partition, pushing one value per row in window order.
pub(super) fn compute(
    call: &WindowCall,
    part: &mut Part,
    arity: usize,
    ctx: &mut ExecCtx,
    out: &mut OutCol,
) -> SqlResult<()> {
    let m = part.len();
    if m == 0 {
        return Ok(());
    }
    let as_ty = |v: i64| valops::cast(&Value::BigInt(v), &call.data_type);
    let mut peers = Peers::default();
    match call.func {
        WindowFunc::RowNumber => {
            for k in 0..m {
                out.push(as_ty(k as i64 + 1)?)?;
            }
        }
        WindowFunc::Rank | WindowFunc::DenseRank | WindowFunc::PercentRank => {
            let mut rank = 1i64;
            let mut dense = 1i64;
            for k in 0..m {
                if k > 0 && !part.peer(k - 1, k)? {
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
                })?;
            }
        }
        WindowFunc::CumeDist => {
            for k in 0..m {
                let (_, e) = peers.of(part, k)?;
                out.push(Value::Float((e + 1) as f64 / m as f64))?;
            }
        }
        WindowFunc::Ntile => {
            let b = int_arg(call, 0, part, 0, arity, ctx, 1)?;
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
                    out.push(as_ty(g as i64 + 1)?)?;
                    k += 1;
                }
            }
            while k < m {
                out.push(as_ty(b as i64)?)?;
                k += 1;
            }
        }
        WindowFunc::Lag | WindowFunc::Lead => {
            for k in 0..m {
                let off = int_arg(call, 1, part, k, arity, ctx, 1)?;
                let target = if call.func == WindowFunc::Lag {
                    (k as i64).checked_sub(off)
                } else {
                    (k as i64).checked_add(off)
                };
                let v = match target {
                    Some(t) if t >= 0 && (t as usize) < m => {
                        arg_at(call, 0, part, t as usize, arity, ctx)?
                    }
                    _ => arg_at(call, 2, part, k, arity, ctx)?,
                };
                out.push(valops::cast(&v, &call.data_type)?)?;
            }
        }
        WindowFunc::FirstValue | WindowFunc::LastValue => {
            for k in 0..m {
                let (lo, hi) = frame_bounds(call, k, part, &mut peers)?;
                let v = if lo > hi || lo >= m {
                    Value::Null
                } else {
                    let t = if call.func == WindowFunc::FirstValue {
                        lo
                    } else {
                        hi
                    };
                    arg_at(call, 0, part, t, arity, ctx)?
                };
                out.push(v)?;
            }
        }
        WindowFunc::Agg(f) => {
            let agg = AggCall {
                func: f,
                args: call.args.clone(),
                distinct: call.distinct,
                order_by: vec![],
                data_type: call.data_type.clone(),
                serialize: None,
            };
            let running = matches!(effective_frame(call).start, FrameBound::UnboundedPreceding);
            let mut state = AggState::new(&agg);
            let mut fed = 0usize; // rows [0, fed) fed into running state
            for k in 0..m {
                let (lo, hi) = frame_bounds(call, k, part, &mut peers)?;
                if running && lo == 0 {
                    while fed <= hi && fed < m {
                        feed(&mut state, &agg, part, fed, arity, ctx)?;
                        fed += 1;
                    }
                    let mut s = state.clone();
                    out.push(if hi < lo {
                        empty(&agg)?
                    } else {
                        s.finish(&agg)?
                    })?;
                } else {
                    let mut s = AggState::new(&agg);
                    if lo <= hi {
                        for r in lo..=hi.min(m - 1) {
                            feed(&mut s, &agg, part, r, arity, ctx)?;
                        }
                    }
                    out.push(s.finish(&agg)?)?;
                }
            }
        }
    }
    Ok(())
}

fn empty(agg: &AggCall) -> SqlResult<Value> {
    AggState::new(agg).finish(agg)
}

fn feed(
    s: &mut AggState,
    agg: &AggCall,
    part: &mut Part,
    k: usize,
    arity: usize,
    ctx: &mut ExecCtx,
) -> SqlResult<()> {
    let row = part.row(k)?;
    let row = &row[..arity.min(row.len())];
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

/// Inclusive frame [lo, hi] of row k of the partition (hi < lo = empty).
fn frame_bounds(
    call: &WindowCall,
    k: usize,
    part: &mut Part,
    peers: &mut Peers,
) -> SqlResult<(usize, usize)> {
    let m = part.len();
    let f = effective_frame(call);
    let range = f.units == FrameUnits::Range;
    let off = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    let k = k as i64;
    let lo: i64 = match f.start {
        FrameBound::UnboundedPreceding => 0,
        FrameBound::Preceding(n) => k.saturating_sub(off(n)),
        FrameBound::CurrentRow if range => peers.of(part, k as usize)?.0 as i64,
        FrameBound::CurrentRow => k,
        FrameBound::Following(n) => k.saturating_add(off(n)),
        FrameBound::UnboundedFollowing => m as i64,
    };
    let hi: i64 = match f.end {
        FrameBound::UnboundedFollowing => m as i64 - 1,
        FrameBound::Following(n) => k.saturating_add(off(n)),
        FrameBound::CurrentRow if range => peers.of(part, k as usize)?.1 as i64,
        FrameBound::CurrentRow => k,
        FrameBound::Preceding(n) => k.saturating_sub(off(n)),
        FrameBound::UnboundedPreceding => -1,
    };
    let lo = lo.max(0);
    let hi = hi.min(m as i64 - 1);
    if hi < lo {
        return Ok((1, 0));
    }
    Ok((lo as usize, hi as usize))
}
