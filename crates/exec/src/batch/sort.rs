//! Batch Sort and Top N Sort: a Sort whose input is a batch source (the optimizer marks both,
//! `optimizer::batch_mode`) reads the source's batches, evaluates its keys over each batch
//! (`eval_batch`) and encodes them per selected row as memcmp-able bytes (`types::key`: NULL
//! first, strings by the default collation's sort key — row mode's `valops::sort_cmp` order —
//! descending keys inverted).
//!
//! * Full sort: key bytes in one arena, rows decoded once into one flat buffer; the row
//!   numbers are sorted by their keys (fixed-width keys of up to 16 bytes as `(u128, row)`
//!   pairs, else a stable sort of the byte slices), so equal keys keep input order — row
//!   mode's order, since the pipeline produces row mode's rows in row mode's order.
//!   DISTINCT drops adjacent equal rows as row mode does.
//! * Top N (N ≤ 4096, no DISTINCT): a bounded max-heap of (key, arrival); a row whose key is
//!   not below the worst kept one is never decoded.
//! * Errors: the sort runs its row-mode plan instead, which raises row mode's error (batch
//!   mode evaluates expression by expression, row mode row by row: a different error could
//!   come first).
//! * Memory: the buffered keys and rows count against the operator budget; past it the sort
//!   runs its row-mode plan instead (the row-mode Sort spills; its input still runs under the
//!   batch→row adapter): nothing was output yet and the pipeline only reads. Its counters are
//!   then left to the row plan.

use std::collections::BinaryHeap;

use common::{SqlError, SqlResult};
use plan::{PhysKind, PhysOp, SortKey};
use types::{DataType, Value};

use super::expr::{eval_batch, Operand};
use super::rows::{add_executions, flush_counts, open_source};
use super::{Batch, Opened};
use crate::context::ExecCtx;
use crate::eval::eval;
use crate::operator::{BoxOp, Operator};
use crate::spill::heap_size;
use crate::valops;

/// Largest TOP N kept in the bounded heap (row mode's Sort uses the same bound).
const BOUNDED_MAX: usize = 4096;

/// Whether `op` is a Sort [`build`] runs in batch mode.
pub(crate) fn is_batch_sort(op: &PhysOp) -> bool {
    op.exec_mode == plan::ExecMode::Batch && matches!(op.kind, PhysKind::Sort { .. })
}

/// The batch sort of `op`.
pub(crate) fn build(op: &PhysOp) -> BoxOp<'_> {
    Box::new(BatchSort {
        node: op,
        row: None,
        use_row: false,
        flat: Vec::new(),
        width: 0,
        order: Vec::new(),
        pos: 0,
    })
}

pub(crate) struct BatchSort<'p> {
    node: &'p PhysOp,
    /// The row-mode Sort, built on the first fallback.
    row: Option<BoxOp<'p>>,
    use_row: bool,
    /// Sorted output: rows flat (`width` values each) and their order.
    flat: Vec<Value>,
    width: usize,
    order: Vec<u32>,
    pos: usize,
}

/// A kept row of a Top N sort: its key, arrival (ties keep input order) and buffer slot.
#[derive(PartialEq, Eq)]
struct Kept {
    key: Vec<u8>,
    seq: u64,
    slot: u32,
}

impl Ord for Kept {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.key.cmp(&o.key).then(self.seq.cmp(&o.seq))
    }
}

impl PartialOrd for Kept {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

/// Appends the memcmp-able encoding of row `i` of the evaluated keys.
fn encode_keys(keys: &[SortKey], vals: &[Operand], i: usize, out: &mut Vec<u8>) -> SqlResult<()> {
    for (k, v) in keys.iter().zip(vals) {
        let start = out.len();
        if v.is_null(i) {
            out.push(types::key::NULL_MARKER);
        } else {
            types::key::encode_column(
                &v.value(i),
                &k.expr.data_type,
                types::Collation::DEFAULT,
                out,
            )?;
        }
        if k.desc {
            for b in &mut out[start..] {
                *b = !*b;
            }
        }
    }
    Ok(())
}

/// Appends row `i` of `batch` (`width` columns; a column nobody reads is NULL).
#[inline]
fn decode_row(batch: &Batch, i: usize, width: usize, out: &mut Vec<Value>) {
    for c in 0..width {
        out.push(match batch.columns.get(c) {
            Some(Some(col)) => col.value(i),
            _ => Value::Null,
        });
    }
}

/// The sorted permutation of `n` keys (`off[r]..off[r + 1]` in `kbytes`); equal keys keep
/// input order.
fn sort_keys(kbytes: &[u8], off: &[usize], n: usize) -> Vec<u32> {
    let key = |r: usize| &kbytes[off[r]..off[r + 1]];
    let fixed = (n > 0)
        .then(|| off[1] - off[0])
        .filter(|&w| w <= 16 && (0..n).all(|r| off[r + 1] - off[r] == w));
    if let Some(w) = fixed {
        let mut pairs: Vec<(u128, u32)> = (0..n)
            .map(|r| {
                let mut b = [0u8; 16];
                b[16 - w..].copy_from_slice(key(r));
                (u128::from_be_bytes(b), r as u32)
            })
            .collect();
        pairs.sort_unstable();
        return pairs.into_iter().map(|p| p.1).collect();
    }
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_by(|&a, &b| key(a as usize).cmp(key(b as usize)));
    order
}

impl<'p> BatchSort<'p> {
    fn fall_back(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        self.use_row = true;
        self.flat = Vec::new();
        self.order = Vec::new();
        if self.row.is_none() {
            self.row = Some(crate::operator::build_row_mode(self.node)?);
        }
        match self.row.as_mut() {
            Some(r) => r.open(ctx),
            None => Ok(()),
        }
    }

    /// The N best rows in a bounded heap.
    fn top_n(
        &mut self,
        p: &mut Opened<'_>,
        keys: &[SortKey],
        n: usize,
        ctx: &mut ExecCtx,
    ) -> SqlResult<u64> {
        let mut heap: BinaryHeap<Kept> = BinaryHeap::with_capacity(n + 1);
        let mut slots: Vec<Vec<Value>> = Vec::new();
        let mut keybuf: Vec<u8> = Vec::new();
        let mut seq = 0u64;
        let mut batches = 0u64;
        let width = self.width;
        while let Some((batch, sel)) = p.src.next(ctx, &mut p.counts)? {
            batches += 1;
            let vals: Vec<Operand> = keys
                .iter()
                .map(|k| eval_batch(&k.expr, &batch, &sel, ctx))
                .collect::<SqlResult<_>>()?;
            for &r in &sel {
                let i = r as usize;
                keybuf.clear();
                encode_keys(keys, &vals, i, &mut keybuf)?;
                seq += 1;
                if n == 0 {
                    continue;
                }
                let (mut key, slot) = if heap.len() == n {
                    match heap.peek() {
                        Some(worst) if keybuf[..] < worst.key[..] => {}
                        _ => continue,
                    }
                    match heap.pop() {
                        Some(k) => (k.key, k.slot),
                        None => continue,
                    }
                } else {
                    slots.push(Vec::with_capacity(width));
                    (Vec::with_capacity(keybuf.len()), (slots.len() - 1) as u32)
                };
                key.clear();
                key.extend_from_slice(&keybuf);
                let row = &mut slots[slot as usize];
                row.clear();
                decode_row(&batch, i, width, row);
                heap.push(Kept { key, seq, slot });
            }
        }
        let kept = heap.len() as u32;
        for k in heap.into_sorted_vec() {
            self.flat.append(&mut slots[k.slot as usize]);
        }
        self.order = (0..kept).collect();
        Ok(batches)
    }

    /// Every row buffered and sorted; None: past the memory budget.
    fn full(
        &mut self,
        p: &mut Opened<'_>,
        keys: &[SortKey],
        distinct: bool,
        limit: Option<usize>,
        ctx: &mut ExecCtx,
    ) -> SqlResult<Option<u64>> {
        let budget = ctx.spill.operator_budget;
        let width = self.width;
        let mut kbytes: Vec<u8> = Vec::new();
        let mut off: Vec<usize> = vec![0];
        let mut heap = 0usize;
        let mut batches = 0u64;
        while let Some((batch, sel)) = p.src.next(ctx, &mut p.counts)? {
            batches += 1;
            let vals: Vec<Operand> = keys
                .iter()
                .map(|k| eval_batch(&k.expr, &batch, &sel, ctx))
                .collect::<SqlResult<_>>()?;
            let start = self.flat.len();
            for &r in &sel {
                let i = r as usize;
                encode_keys(keys, &vals, i, &mut kbytes)?;
                off.push(kbytes.len());
                decode_row(&batch, i, width, &mut self.flat);
            }
            heap += heap_size(&self.flat[start..]);
            let bytes = self.flat.len() * std::mem::size_of::<Value>()
                + heap
                + kbytes.len()
                + off.len() * (std::mem::size_of::<usize>() + 4);
            if bytes > budget {
                return Ok(None);
            }
        }
        let n = off.len() - 1;
        if n > u32::MAX as usize {
            return Err(SqlError::internal("too many rows to sort"));
        }
        self.order = sort_keys(&kbytes, &off, n);
        if distinct {
            let flat = &self.flat;
            self.order.dedup_by(|a, b| {
                let (a, b) = (*a as usize, *b as usize);
                crate::sort::rows_equal(
                    &flat[a * width..(a + 1) * width],
                    &flat[b * width..(b + 1) * width],
                )
            });
        }
        if let Some(l) = limit {
            self.order.truncate(l);
        }
        Ok(Some(batches))
    }

    /// Sorts the whole input in batch mode; false: batch mode could not run it.
    fn run(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        let node: &'p PhysOp = self.node;
        let PhysKind::Sort {
            input,
            keys,
            top,
            distinct,
        } = &node.kind
        else {
            return Err(SqlError::internal("batch sort node expected"));
        };
        // as row mode: the TOP count first
        let limit = match top {
            Some(e) => match valops::cast(&eval(e, &[], ctx)?, &DataType::BigInt)? {
                Value::BigInt(n) => Some(n.max(0) as usize),
                _ => None,
            },
            None => None,
        };
        let Some(mut p) = open_source(input, ctx)? else {
            return Ok(false);
        };
        self.width = input.columns.len();
        let bounded = limit.filter(|&n| n <= BOUNDED_MAX && !*distinct);
        let r = match bounded {
            Some(n) => self.top_n(&mut p, keys, n, ctx).map(Some),
            None => self.full(&mut p, keys, *distinct, limit, ctx),
        };
        // a sort that gave way to row mode (budget, error) leaves the counting to the row plan
        if matches!(r, Ok(Some(_))) {
            add_executions(&p.counts, None, ctx);
            flush_counts(&mut p.counts, None, ctx);
        }
        match r? {
            Some(batches) => {
                crate::actuals::add_batch_counts(ctx, self.node.node_id, 0, batches.max(1));
                Ok(true)
            }
            None => Ok(false),
        }
    }
}

impl Operator for BatchSort<'_> {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        self.close();
        // an error: the row-mode Sort raises row mode's (the one its row order reaches first;
        // batch mode evaluates expression by expression)
        if !self.run(ctx).unwrap_or(false) {
            self.flat = Vec::new();
            self.order = Vec::new();
            return self.fall_back(ctx);
        }
        Ok(())
    }

    fn next(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        if self.use_row {
            return match self.row.as_mut() {
                Some(r) => r.next(ctx),
                None => Ok(false),
            };
        }
        if self.pos < self.order.len() {
            self.pos += 1;
            return Ok(true);
        }
        Ok(false)
    }

    fn row(&self) -> &[Value] {
        if self.use_row {
            return match &self.row {
                Some(r) => r.row(),
                None => &[],
            };
        }
        let w = self.width;
        match self.pos.checked_sub(1).and_then(|i| self.order.get(i)) {
            Some(&r) => self
                .flat
                .get(r as usize * w..(r as usize + 1) * w)
                .unwrap_or(&[]),
            None => &[],
        }
    }

    fn close(&mut self) {
        if self.use_row {
            if let Some(r) = self.row.as_mut() {
                r.close();
            }
        }
        self.use_row = false;
        self.flat = Vec::new();
        self.order = Vec::new();
        self.pos = 0;
    }
}
