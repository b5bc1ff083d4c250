//! Window (SQL Server shows it as Sort + Segment + Sequence Project, or Window Spool + Stream
//! Aggregate): appends one column per window call.
//!
//! Calls with the same window (PARTITION BY and ORDER BY) are computed together in one pass.
//! Each pass reads rows in its window order: a Sort (`sort.rs`, which spills to tempdb work
//! files past the operator memory budget) on the PARTITION BY keys, the ORDER BY keys and,
//! when there are several windows, the input position as the last key. The pass needs no
//! sort when its rows already arrive in that order (no PARTITION BY and row-independent ORDER
//! BY keys such as `(SELECT NULL)`, or an input Sort whose leading keys are the PARTITION BY
//! keys ascending followed by the ORDER BY keys). The windows are computed in reverse order of
//! their first call, so rows come out in the order of the first call's window, ties in input
//! order (a stable sort).
//!
//! A pass whose calls are all ROW_NUMBER, RANK or DENSE_RANK numbers rows as they pass (O(1)
//! memory). Any other pass buffers one partition at a time (`part.rs`: in memory within the
//! budget, in work files past it), computes its calls over it (`funcs.rs`) and emits it. So
//! the window's memory is bounded by the budget (sort + partition buffer), whatever the input
//! and partition sizes.

mod funcs;
mod part;

use std::cmp::Ordering;

use common::SqlResult;
use plan::{
    PhysKind, PhysOp, ScalarExpr, ScalarKind, SortKey, SubqueryPlan, WindowCall, WindowFunc,
};
use types::{DataType, Value};

use crate::context::ExecCtx;
use crate::eval::eval;
use crate::operator::{BoxOp, Operator};
use crate::sort::Sort;
use crate::valops;

use part::{OutCol, Part};

pub struct Window<'p> {
    top: BoxOp<'p>,
    /// Input columns + one per call (the passes' rows may carry the input position after).
    width: usize,
}

impl<'p> Window<'p> {
    /// A window over `input_plan` (the plan `input` was built from).
    pub fn for_plan(input: BoxOp<'p>, calls: &'p [WindowCall], input_plan: &PhysOp) -> Self {
        let arity = input_plan.columns.len();
        let width = arity + calls.len();
        // calls grouped by window, in order of first appearance
        let mut windows: Vec<Vec<usize>> = Vec::new();
        for (ci, c) in calls.iter().enumerate() {
            match windows.iter_mut().find(|w| same_window(&calls[w[0]], c)) {
                Some(w) => w.push(ci),
                None => windows.push(vec![ci]),
            }
        }
        let several = windows.len() > 1;
        let mut top: BoxOp<'p> = Box::new(Widen {
            input,
            arity,
            width,
            seq: several.then_some(0),
            row: Vec::new(),
        });
        let last = windows.len().saturating_sub(1);
        for (j, ids) in windows.into_iter().enumerate().rev() {
            let call = &calls[ids[0]];
            let constant = call.partition_by.iter().all(is_constant)
                && call.order_by.iter().all(|k| is_constant(&k.expr));
            // the first pass reads the input in its own order
            let in_order = j == last && (constant || input_sorted_for(input_plan, call));
            if !in_order {
                let mut keys: Vec<SortKey> = call
                    .partition_by
                    .iter()
                    .filter(|e| !is_constant(e))
                    .map(|e| SortKey {
                        expr: e.clone(),
                        desc: false,
                    })
                    .chain(
                        call.order_by
                            .iter()
                            .filter(|k| !is_constant(&k.expr))
                            .cloned(),
                    )
                    .collect();
                if several {
                    keys.push(SortKey {
                        expr: ScalarExpr {
                            kind: ScalarKind::Column(width),
                            data_type: DataType::BigInt,
                        },
                        desc: false,
                    });
                }
                top = Box::new(Sort::owned(top, keys));
            }
            let rank_only = ids.iter().all(|&ci| {
                matches!(
                    calls[ci].func,
                    WindowFunc::RowNumber | WindowFunc::Rank | WindowFunc::DenseRank
                )
            });
            top = Box::new(Pass {
                input: top,
                calls,
                ids,
                arity,
                constant,
                rank_only,
                out: Vec::new(),
                prev: None,
                counters: Vec::new(),
                part: Part::default(),
                outs: Vec::new(),
                pos: 0,
                ahead: None,
            });
        }
        Window { top, width }
    }
}

/// Same PARTITION BY and ORDER BY.
fn same_window(a: &WindowCall, b: &WindowCall) -> bool {
    a.partition_by.len() == b.partition_by.len()
        && a.order_by.len() == b.order_by.len()
        && format!("{:?}{:?}", a.partition_by, a.order_by)
            == format!("{:?}{:?}", b.partition_by, b.order_by)
}

/// The input row widened to the window's row: the calls' columns (NULL until computed) and,
/// with several windows, the input position (the sorts' last key: ties keep input order).
struct Widen<'p> {
    input: BoxOp<'p>,
    arity: usize,
    width: usize,
    seq: Option<i64>,
    row: Vec<Value>,
}

impl Operator for Widen<'_> {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        if let Some(s) = self.seq.as_mut() {
            *s = 0;
        }
        self.input.open(ctx)
    }

    fn next(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        self.row.clear();
        if !self.input.next(ctx)? {
            return Ok(false);
        }
        let r = self.input.row();
        self.row.extend_from_slice(&r[..self.arity.min(r.len())]);
        self.row.resize(self.width, Value::Null);
        if let Some(s) = self.seq.as_mut() {
            self.row.push(Value::BigInt(*s));
            *s += 1;
        }
        Ok(true)
    }

    fn row(&self) -> &[Value] {
        &self.row
    }

    fn close(&mut self) {
        self.input.close();
    }
}

/// One window's calls over rows arriving in that window's order.
struct Pass<'p> {
    input: BoxOp<'p>,
    calls: &'p [WindowCall],
    /// The calls of this window (indexes into `calls`; column `arity + i`).
    ids: Vec<usize>,
    arity: usize,
    /// Row-independent keys: one partition, every row a peer of the others.
    constant: bool,
    /// Only ROW_NUMBER / RANK / DENSE_RANK: numbered as rows pass.
    rank_only: bool,
    /// The current output row.
    out: Vec<Value>,
    /// Streaming: partition and ORDER BY values of the previous row.
    prev: Option<(Vec<Value>, Vec<Value>)>,
    /// Streaming: per call, (row number, rank, dense rank) of the previous row.
    counters: Vec<(i64, i64, i64)>,
    /// Buffering: the current partition, its calls' values and the next row to emit.
    part: Part,
    outs: Vec<OutCol>,
    pos: usize,
    /// Buffering: the first row of the next partition and its PARTITION BY values.
    ahead: Option<(Vec<Value>, Vec<Value>)>,
}

impl Pass<'_> {
    fn keys(&self, row: &[Value], ctx: &mut ExecCtx) -> SqlResult<(Vec<Value>, Vec<Value>)> {
        if self.constant {
            return Ok((Vec::new(), Vec::new()));
        }
        let call = &self.calls[self.ids[0]];
        let row = &row[..self.arity.min(row.len())];
        let mut p = Vec::with_capacity(call.partition_by.len());
        for e in &call.partition_by {
            p.push(eval(e, row, ctx)?);
        }
        let mut o = Vec::with_capacity(call.order_by.len());
        for k in &call.order_by {
            o.push(eval(&k.expr, row, ctx)?);
        }
        Ok((p, o))
    }

    /// Streaming `next`: numbers the next input row.
    fn next_streamed(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        self.out.clear();
        if !self.input.next(ctx)? {
            return Ok(false);
        }
        self.out.extend_from_slice(self.input.row());
        let (new_part, new_peer) = if self.constant {
            (self.prev.is_none(), false)
        } else {
            let (p, o) = self.keys(&self.out, ctx)?;
            let r = match &self.prev {
                Some((pp, po)) if eq_vals(pp, &p) => (false, !eq_vals(po, &o)),
                _ => (true, true),
            };
            self.prev = Some((p, o));
            r
        };
        if self.constant && self.prev.is_none() {
            self.prev = Some((Vec::new(), Vec::new()));
        }
        self.counters.resize(self.ids.len(), (0, 0, 0));
        for (i, &ci) in self.ids.iter().enumerate() {
            let call = &self.calls[ci];
            let (rn, rank, dense) = &mut self.counters[i];
            if new_part {
                *rn = 1;
                *rank = 1;
                *dense = 1;
            } else {
                *rn += 1;
                if new_peer {
                    *rank = *rn;
                    *dense += 1;
                }
            }
            let v = match call.func {
                WindowFunc::Rank => *rank,
                WindowFunc::DenseRank => *dense,
                _ => *rn,
            };
            let v = valops::cast(&Value::BigInt(v), &call.data_type)?;
            if let Some(slot) = self.out.get_mut(self.arity + ci) {
                *slot = v;
            }
        }
        Ok(true)
    }

    /// Buffering: reads the next partition and computes the calls over it; false at the end.
    fn load_partition(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        let nkey = if self.constant {
            0
        } else {
            self.calls[self.ids[0]].order_by.len()
        };
        self.part.reset(nkey);
        self.outs.clear();
        self.pos = 0;
        let (first, pkeys) = match self.ahead.take() {
            Some(a) => a,
            None => {
                if !self.input.next(ctx)? {
                    return Ok(false);
                }
                let row = self.input.row().to_vec();
                let (p, _) = self.keys(&row, ctx)?;
                (row, p)
            }
        };
        let (_, okey) = self.keys(&first, ctx)?;
        self.part.push(rec(okey, &first), ctx)?;
        while self.input.next(ctx)? {
            let row = self.input.row();
            let (p, o) = self.keys(row, ctx)?;
            if !eq_vals(&p, &pkeys) || p.len() != pkeys.len() {
                self.ahead = Some((row.to_vec(), p));
                break;
            }
            let r = rec(o, row);
            self.part.push(r, ctx)?;
        }
        self.part.finish(ctx)?;
        for &ci in &self.ids {
            let mut out = OutCol::for_part(&self.part, ctx)?;
            funcs::compute(&self.calls[ci], &mut self.part, self.arity, ctx, &mut out)?;
            out.finish(ctx)?;
            self.outs.push(out);
        }
        Ok(true)
    }

    fn next_buffered(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        loop {
            if self.pos < self.part.len() {
                let k = self.pos;
                self.pos += 1;
                self.out.clear();
                self.out.extend_from_slice(self.part.row(k)?);
                for (i, &ci) in self.ids.iter().enumerate() {
                    let v = self.outs[i].take(k)?;
                    if let Some(slot) = self.out.get_mut(self.arity + ci) {
                        *slot = v;
                    }
                }
                return Ok(true);
            }
            self.out.clear();
            if !self.load_partition(ctx)? {
                return Ok(false);
            }
        }
    }
}

/// A partition buffer record: the ORDER BY values, then the row.
fn rec(mut okey: Vec<Value>, row: &[Value]) -> Vec<Value> {
    okey.extend_from_slice(row);
    okey
}

impl Operator for Pass<'_> {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        self.out.clear();
        self.prev = None;
        self.counters.clear();
        self.part.reset(0);
        self.outs.clear();
        self.pos = 0;
        self.ahead = None;
        self.input.open(ctx)
    }

    fn next(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        if self.rank_only {
            self.next_streamed(ctx)
        } else {
            self.next_buffered(ctx)
        }
    }

    fn row(&self) -> &[Value] {
        &self.out
    }

    fn close(&mut self) {
        self.part.reset(0);
        self.outs.clear();
        self.ahead = None;
        self.input.close();
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

pub(super) fn eq_vals(a: &[Value], b: &[Value]) -> bool {
    a.iter()
        .zip(b)
        .all(|(x, y)| valops::sort_cmp(x, y) == Ordering::Equal)
}

impl Operator for Window<'_> {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        self.top.open(ctx)
    }

    fn next(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        self.top.next(ctx)
    }

    fn row(&self) -> &[Value] {
        let r = self.top.row();
        &r[..self.width.min(r.len())]
    }

    fn close(&mut self) {
        self.top.close();
    }
}
