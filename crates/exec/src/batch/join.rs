//! Batch sources: what feeds a batch aggregate — a *zone* (scan, filters, compute scalars) or
//! a batch Hash Match join of two sources, whose build side may also be a row-mode input
//! under the row→batch adapter (`adapter.rs`) — as batches with selection vectors.
//!
//! The hash join follows row mode's `hash_match.rs` exactly: the right input is the build
//! side (read whole when the join opens, before the left input opens), the left input probes,
//! the output is left ++ right (left only for left semi / anti semi joins, right only for
//! right semi / anti semi joins), a NULL key never matches, build rows sharing a key are
//! chained newest first (so the matches of a probe row come in row mode's order), keys are
//! encoded by `valops::hash_key` (collation-aware, the one key encoding; a single integer key
//! on both sides is an `i64` table, direct addressed when dense; two integer keys an
//! `(i64, i64)` table; a shared build's encoded keys are indexed by several threads in hash
//! partitions, `byte_keys::PartitionedKeys`). Kinds: inner, left / right /
//! full outer, left and right semi and anti semi, each with a residual predicate evaluated by
//! the batch evaluator over gathered (probe, build) pairs — for left semi and anti semi joins
//! in rounds (the first candidate of every undecided probe row, then the next, ...), so
//! exactly the pairs row mode evaluates are evaluated.
//!
//! Kinds that look at build rows after the probe side (right / full outer, right semi / anti
//! semi) keep a matched flag per build row in the join (the build side itself stays read-only
//! and shareable, but such joins never run in a parallel zone). A right semi join outputs a
//! batch of the build rows each probe batch matched first; right / full outer and right anti
//! semi joins output the never-matched build rows as batches once the probe side ends (NULL
//! probe columns: a column that is not there reads as NULL). A right semi / anti semi join
//! with a residual evaluates every pair of a probe batch whose build row was unmatched when
//! the batch began (row mode skips those matched by an earlier row of the same batch).
//!
//! Build storage: the selected rows of every build batch are gathered and concatenated into
//! one Arrow array per column (`arrow_select`); output batches are gathers (`take`) of the
//! probe batch and the build arrays by index vectors — nothing is allocated per row. A probe
//! row's matches are never split across output batches.
//!
//! Memory: the build arrays and the key table count against the operator budget; past it
//! the batch pipeline gives way to row mode (whose Hash Match spills): nothing has been
//! output yet and the pipeline only reads.

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, UInt32Array};
use common::{SqlError, SqlResult};
use hashbrown::HashMap;
use plan::{ExecMode, JoinKind, PhysKind, PhysOp, ScalarExpr};
use types::DataType;

use super::adapter::RowInput;
use super::expr::{self, eval_batch, Operand};
use super::scan::BatchScan;
use super::vector::{Column, Vector};
use super::{key_bytes, materialize, pipeline, Batch, Stage, BATCH_ROWS};
use crate::context::ExecCtx;

const END: u32 = u32::MAX;

/// Actual counters of the pipeline's nodes: (node, rows, batches).
pub(crate) type Counts = Vec<(u32, u64, u64)>;

/// A batch and its selected rows.
type Selected = (Batch, Vec<u32>);

fn bump(counts: &mut Counts, node: u32, rows: u64, batches: u64) {
    if let Some(c) = counts.iter_mut().find(|c| c.0 == node) {
        c.1 += rows;
        c.2 += batches;
    } else {
        counts.push((node, rows, batches));
    }
}

/// A batch source: filters and compute scalars (bottom-up) over a scan or a batch join.
pub(crate) struct Source<'p> {
    pub base: Base<'p>,
    pub stages: Vec<Stage<'p>>,
}

pub(crate) enum Base<'p> {
    /// The scan and its node (its pushed-down predicate is the first stage).
    Scan(Box<BatchScan>, u32),
    Join(Box<Join<'p>>),
    /// A row-mode input under the row→batch adapter.
    Rows(Box<RowInput<'p>>),
}

/// The stages of `op` (bottom-up) and the scan, join or row-mode input below them, as the
/// optimizer marked them (`optimizer::batch_mode`): Filter / Compute Scalar / scan / Hash
/// Match nodes in batch mode belong to the pipeline, anything else is a row-mode input under
/// the row→batch adapter (`adapter.rs`). None: not a batch source (a row-mode input with a
/// column type that has no vector).
fn stages_over(op: &PhysOp) -> Option<(&PhysOp, Vec<Stage<'_>>)> {
    let mut stages = Vec::new();
    let mut cur = op;
    loop {
        match &cur.kind {
            PhysKind::Filter { input, predicate } if batch(cur) => {
                stages.push(Stage::Filter(predicate, cur.node_id));
                cur = input;
            }
            PhysKind::ComputeScalar { input, exprs } if batch(cur) => {
                stages.push(Stage::Compute(exprs, cur.node_id));
                cur = input;
            }
            _ => break,
        }
    }
    match pipeline(cur) {
        Some((_, _, scan_stages)) if batch(cur) => {
            // the scan's predicate
            stages.extend(scan_stages.into_iter().rev());
        }
        _ if is_batch_join(cur) => {}
        _ if adaptable(cur) => {}
        _ => return None,
    }
    stages.reverse();
    Some((cur, stages))
}

fn batch(op: &PhysOp) -> bool {
    op.exec_mode == ExecMode::Batch
}

/// Whether `op` runs in row mode under the row→batch adapter (its output columns all have
/// vectors).
fn adaptable(op: &PhysOp) -> bool {
    op.columns
        .iter()
        .all(|c| super::vector::ColumnBuilder::new(&c.data_type, 0).is_some())
}

/// Whether `op` is the row-mode input of a batch pipeline (the adapter's), not a scan or
/// join of the pipeline itself.
pub(crate) fn is_row_input(op: &PhysOp) -> bool {
    !(batch(op) && (pipeline(op).is_some() || is_batch_join(op)))
}

/// Whether `op` is a Hash Match join [`Source::open`] runs in batch mode.
pub(crate) fn is_batch_join(op: &PhysOp) -> bool {
    match &op.kind {
        PhysKind::HashJoin {
            left,
            right,
            kind,
            left_keys,
            ..
        } => {
            batch(op)
                && kind != &JoinKind::Cross
                && !left_keys.is_empty()
                && is_source(left)
                // in a parallel zone the build side may be any input: the coordinator reads it
                // once ([`build_shared`]); elsewhere a build side that is no batch source makes
                // `Join::open` give way to row mode
                && (is_source(right) || right.exec_mode != plan::ExecMode::Batch)
        }
        _ => false,
    }
}

/// Whether `op` is a batch source.
pub(crate) fn is_source(op: &PhysOp) -> bool {
    stages_over(op).is_some()
}

impl<'p> Source<'p> {
    /// Opens the source (a join reads its build input here). None: batch mode cannot run it
    /// (row locks needed, build over the memory budget, not a batch shape).
    pub fn open(op: &'p PhysOp, ctx: &mut ExecCtx, counts: &mut Counts) -> SqlResult<Option<Self>> {
        let Some((base_op, stages)) = stages_over(op) else {
            return Ok(None);
        };
        let mut stages = stages;
        let base = match pipeline(base_op) {
            Some((source, scan_node, _)) if batch(base_op) => {
                let Some(mut scan) = BatchScan::open(source, ctx)? else {
                    return Ok(None);
                };
                // the scan's own predicate runs inside the scan (late materialization)
                if let Some(Stage::Filter(p, node)) = stages.first() {
                    if *node == scan_node {
                        scan.set_filter(p);
                        stages.remove(0);
                    }
                }
                Base::Scan(Box::new(scan), scan_node)
            }
            _ if is_batch_join(base_op) => match Join::open(base_op, ctx, counts)? {
                Some(j) => Base::Join(Box::new(j)),
                None => return Ok(None),
            },
            _ => match RowInput::open(base_op, ctx)? {
                Some(r) => Base::Rows(Box::new(r)),
                None => return Ok(None),
            },
        };
        Ok(Some(Source { base, stages }))
    }

    /// The next batch with at least one selected row; None at the end.
    pub fn next(
        &mut self,
        ctx: &mut ExecCtx,
        counts: &mut Counts,
    ) -> SqlResult<Option<(Batch, Vec<u32>)>> {
        // per node, the rows after its last stage (a scan's pushed predicate is its stage)
        let mut out: Vec<(u32, u64)> = Vec::with_capacity(self.stages.len() + 1);
        loop {
            out.clear();
            let (mut batch, mut sel) = match &mut self.base {
                Base::Scan(scan, node) => {
                    let Some((b, sel)) = scan.next_selected(ctx)? else {
                        return Ok(None);
                    };
                    out.push((*node, sel.len() as u64));
                    (b, sel)
                }
                Base::Join(j) => match j.next(ctx, counts)? {
                    Some(x) => x,
                    None => return Ok(None),
                },
                Base::Rows(r) => {
                    let Some(b) = r.next_batch(ctx)? else {
                        return Ok(None);
                    };
                    let sel: Vec<u32> = (0..b.len as u32).collect();
                    (b, sel)
                }
            };
            for stage in &self.stages {
                let (Stage::Filter(_, node) | Stage::Compute(_, node)) = stage;
                if sel.is_empty() {
                    if !out.iter().any(|o| o.0 == *node) {
                        out.push((*node, 0));
                    }
                    continue;
                }
                match stage {
                    Stage::Filter(p, _) => sel = expr::filter(p, &batch, &sel, ctx)?,
                    Stage::Compute(exprs, _) => {
                        let mut cols = Vec::with_capacity(exprs.len());
                        for e in exprs.iter() {
                            cols.push(materialize(
                                eval_batch(e, &batch, &sel, ctx)?,
                                e,
                                batch.len,
                            )?);
                        }
                        batch = Batch {
                            columns: cols,
                            len: batch.len,
                        };
                    }
                }
                match out.iter_mut().find(|o| o.0 == *node) {
                    Some(o) => o.1 = sel.len() as u64,
                    None => out.push((*node, sel.len() as u64)),
                }
            }
            for &(node, rows) in &out {
                bump(counts, node, rows, 1);
            }
            if !sel.is_empty() {
                return Ok(Some((batch, sel)));
            }
        }
    }
}

enum Table {
    Int(HashMap<i64, u32>),
    Dense {
        min: i64,
        heads: Vec<u32>,
    },
    /// Two integer keys (a composite key of integers: TPC-H's partsupp, lineitem pairs),
    /// compared as a pair of `i64`s with no encoding.
    Int2(HashMap<(i64, i64), u32>),
    /// Encoded keys (`valops::hash_key`), in hash partitions indexed by several threads for
    /// a shared build.
    Bytes(crate::byte_keys::PartitionedKeys),
}

/// The integer value of row `i` of the key `k` (None: NULL).
#[inline]
fn int_at(k: &Operand, i: usize) -> Option<i64> {
    match k {
        Operand::Col(Column {
            data: Vector::Int(a),
            ..
        }) => (!a.is_null(i)).then(|| a.value(i)),
        _ => int_value(&k.value(i)),
    }
}

/// Whether the keys pair integers with integers (`n` of them).
fn int_keys(left_keys: &[ScalarExpr], right_keys: &[ScalarExpr], n: usize) -> bool {
    left_keys.len() == n
        && right_keys.len() == n
        && left_keys
            .iter()
            .chain(right_keys)
            .all(|k| int_key_type(&k.data_type))
}

pub(crate) struct Join<'p> {
    node: u32,
    kind: JoinKind,
    left_keys: &'p [ScalarExpr],
    residual: Option<&'p ScalarExpr>,
    left_arity: usize,
    right_arity: usize,
    probe: Source<'p>,
    /// The build rows and their key table (shared by a parallel zone's workers).
    side: Arc<BuildSide>,
    /// The probe batch being joined and the position in its selection.
    cur: Option<(Batch, Vec<u32>, usize)>,
    keybuf: Vec<u8>,
    /// Per build row: matched a probe row (kinds that look at build rows; else empty).
    matched: Vec<bool>,
    /// The probe side ended: unmatched build rows are output from this build row on.
    tail: Option<usize>,
}

fn int_key_type(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Int | DataType::BigInt | DataType::SmallInt | DataType::TinyInt
    )
}

fn array_of(v: &Vector) -> ArrayRef {
    match v {
        Vector::Int(a) => a.clone(),
        Vector::Decimal(a, _) => a.clone(),
        Vector::Float(a) => a.clone(),
        Vector::Date(a) => a.clone(),
        Vector::Str(a) => a.clone(),
        Vector::Bool(a) => a.clone(),
    }
}

/// `a` (an array made from a vector like `like`) as a vector.
fn vector_like(like: &Vector, a: ArrayRef) -> SqlResult<Vector> {
    fn down<T: Array + Clone + 'static>(a: &ArrayRef) -> SqlResult<Arc<T>> {
        a.as_any()
            .downcast_ref::<T>()
            .map(|x| Arc::new(x.clone()))
            .ok_or_else(|| SqlError::internal("batch join: unexpected array type"))
    }
    Ok(match like {
        Vector::Int(_) => Vector::Int(down(&a)?),
        Vector::Decimal(_, s) => Vector::Decimal(down(&a)?, *s),
        Vector::Float(_) => Vector::Float(down(&a)?),
        Vector::Date(_) => Vector::Date(down(&a)?),
        Vector::Str(_) => Vector::Str(down(&a)?),
        Vector::Bool(_) => Vector::Bool(down(&a)?),
    })
}

fn arrow_err(e: impl std::fmt::Display) -> SqlError {
    SqlError::internal(format!("batch join: {e}"))
}

/// Gathers rows `idx` of `c` (a NULL index: a NULL value).
fn take(c: &Column, idx: &UInt32Array) -> SqlResult<Column> {
    let a = arrow_select::take::take(array_of(&c.data).as_ref(), idx, None).map_err(arrow_err)?;
    Ok(Column {
        data: vector_like(&c.data, a)?,
        ty: c.ty.clone(),
    })
}

/// Rows `idx` of the selected columns of `batch`.
fn gather(columns: &[Option<Column>], idx: &UInt32Array) -> SqlResult<Vec<Option<Column>>> {
    columns
        .iter()
        .map(|c| c.as_ref().map(|c| take(c, idx)).transpose())
        .collect()
}

impl<'p> Join<'p> {
    fn open(op: &'p PhysOp, ctx: &mut ExecCtx, counts: &mut Counts) -> SqlResult<Option<Self>> {
        let PhysKind::HashJoin {
            left,
            right,
            kind,
            left_keys,
            right_keys,
            residual,
        } = &op.kind
        else {
            return Ok(None);
        };
        let shared = ctx.shared_batch_builds.as_ref().and_then(|b| {
            b.iter()
                .find(|(n, _)| *n == op as *const PhysOp as usize)
                .map(|(_, t)| t.clone())
        });
        let side = match shared {
            // a parallel worker: the coordinator read and hashed the build input once
            Some(side) => side,
            // a worker's scans take its zone's morsels: never a build side of its own
            None if ctx.morsels.is_some() => return Ok(None),
            None => match read_build(right, ctx, counts)? {
                Some((columns, len, bytes)) => {
                    match BuildSide::index(columns, len, bytes, left_keys, right_keys, 1, ctx)? {
                        Some(side) => Arc::new(side),
                        None => return Ok(None),
                    }
                }
                None => return Ok(None),
            },
        };
        let Some(probe) = Source::open(left, ctx, counts)? else {
            return Ok(None);
        };
        Ok(Some(Join {
            node: op.node_id,
            kind: *kind,
            left_keys,
            residual: residual.as_ref(),
            left_arity: left.columns.len(),
            right_arity: right.columns.len(),
            matched: if kind.keeps_unmatched_right() || !kind.outputs_left() {
                vec![false; side.len]
            } else {
                Vec::new()
            },
            probe,
            side,
            cur: None,
            keybuf: Vec::new(),
            tail: None,
        }))
    }

    /// The first build row matching each row of `sel` (END: none, or a NULL key).
    fn heads(&mut self, batch: &Batch, sel: &[u32], ctx: &mut ExecCtx) -> SqlResult<Vec<u32>> {
        let keys: Vec<Operand> = self
            .left_keys
            .iter()
            .map(|k| eval_batch(k, batch, sel, ctx))
            .collect::<SqlResult<_>>()?;
        let mut out = Vec::with_capacity(sel.len());
        match &self.side.table {
            Table::Int2(m) => {
                for &r in sel {
                    let i = r as usize;
                    out.push(match (int_at(&keys[0], i), int_at(&keys[1], i)) {
                        (Some(a), Some(b)) => m.get(&(a, b)).copied().unwrap_or(END),
                        _ => END,
                    });
                }
            }
            Table::Int(_) | Table::Dense { .. } => {
                let k = &keys[0];
                for &r in sel {
                    let key = int_at(k, r as usize);
                    out.push(match (key, &self.side.table) {
                        (Some(key), Table::Int(m)) => m.get(&key).copied().unwrap_or(END),
                        (Some(key), Table::Dense { min, heads }) => key
                            .checked_sub(*min)
                            .and_then(|d| usize::try_from(d).ok())
                            .and_then(|d| heads.get(d).copied())
                            .unwrap_or(END),
                        _ => END,
                    });
                }
            }
            Table::Bytes(m) => {
                for &r in sel {
                    let i = r as usize;
                    if keys.iter().any(|k| k.is_null(i)) {
                        out.push(END);
                        continue;
                    }
                    self.keybuf.clear();
                    for k in &keys {
                        key_bytes(k, i, &mut self.keybuf);
                    }
                    out.push(m.get(&self.keybuf[..]).unwrap_or(END));
                }
            }
        }
        Ok(out)
    }

    /// The joined batch of (probe row, build row) pairs (build None: NULLs).
    fn pairs_batch(&self, probe: &Batch, pidx: &[u32], bidx: &[Option<u32>]) -> SqlResult<Batch> {
        let p = UInt32Array::from(pidx.to_vec());
        let b = UInt32Array::from(bidx.to_vec());
        let mut columns = gather(&probe.columns, &p)?;
        columns.resize(self.left_arity, None);
        if self.side.len == 0 {
            columns.resize(self.left_arity + self.right_arity, None);
        } else {
            columns.extend(gather(&self.side.build, &b)?);
        }
        Ok(Batch {
            columns,
            len: pidx.len(),
        })
    }

    fn next(
        &mut self,
        ctx: &mut ExecCtx,
        counts: &mut Counts,
    ) -> SqlResult<Option<(Batch, Vec<u32>)>> {
        loop {
            if self.tail.is_some() {
                let out = self.unmatched_build()?;
                if let Some((_, s)) = &out {
                    bump(counts, self.node, s.len() as u64, 1);
                }
                return Ok(out);
            }
            let Some((batch, sel, pos)) = self.cur.take() else {
                match self.probe.next(ctx, counts)? {
                    Some((b, s)) => {
                        self.cur = Some((b, s, 0));
                        continue;
                    }
                    None if self.kind.keeps_unmatched_right() => {
                        self.tail = Some(0);
                        continue;
                    }
                    None => return Ok(None),
                }
            };
            ctx.check_cancel()?;
            let out = match self.kind {
                JoinKind::LeftSemi | JoinKind::LeftAntiSemi => {
                    let keep = self.semi(&batch, &sel, ctx)?;
                    if keep.is_empty() {
                        None
                    } else {
                        let mut columns = batch.columns;
                        columns.resize(self.left_arity, None);
                        Some((
                            Batch {
                                columns,
                                len: batch.len,
                            },
                            keep,
                        ))
                    }
                }
                JoinKind::RightSemi | JoinKind::RightAntiSemi => {
                    let first = self.right_semi(&batch, &sel, ctx)?;
                    if first.is_empty() {
                        None
                    } else {
                        let n = first.len();
                        let columns = gather(&self.side.build, &UInt32Array::from(first))?;
                        Some((Batch { columns, len: n }, (0..n as u32).collect()))
                    }
                }
                _ => {
                    let (out, pos2) = self.join_rows(&batch, &sel, pos, ctx)?;
                    if pos2 < sel.len() {
                        self.cur = Some((batch, sel, pos2));
                    }
                    out
                }
            };
            if let Some((b, s)) = out {
                bump(counts, self.node, s.len() as u64, 1);
                return Ok(Some((b, s)));
            }
        }
    }

    /// Inner / left outer: the output for the probe rows `sel[pos..]` up to about a batch;
    /// the position after them.
    fn join_rows(
        &mut self,
        batch: &Batch,
        sel: &[u32],
        pos: usize,
        ctx: &mut ExecCtx,
    ) -> SqlResult<(Option<Selected>, usize)> {
        let outer = self.kind.keeps_unmatched_left();
        let flag = !self.matched.is_empty();
        // at most a batch of probe rows per call (their matches may make the output longer)
        let rows = &sel[pos..sel.len().min(pos + BATCH_ROWS)];
        let heads = self.heads(batch, rows, ctx)?;
        let mut pidx: Vec<u32> = Vec::with_capacity(BATCH_ROWS);
        let mut bidx: Vec<Option<u32>> = Vec::with_capacity(BATCH_ROWS);
        let mut used = 0;
        for (&r, &h) in rows.iter().zip(&heads) {
            if pidx.len() >= BATCH_ROWS {
                break;
            }
            used += 1;
            let mut c = h;
            let mut any = false;
            while c != END {
                pidx.push(r);
                bidx.push(Some(c));
                any = true;
                if flag && self.residual.is_none() {
                    self.matched[c as usize] = true;
                }
                c = self.side.next[c as usize];
            }
            if !any && outer && self.residual.is_none() {
                pidx.push(r);
                bidx.push(None);
            }
        }
        let next_pos = pos + used;
        if pidx.is_empty() && !(outer && self.residual.is_some()) {
            return Ok((None, next_pos));
        }
        let joined = self.pairs_batch(batch, &pidx, &bidx)?;
        let all: Vec<u32> = (0..pidx.len() as u32).collect();
        let Some(res) = self.residual else {
            return Ok((Some((joined, all)), next_pos));
        };
        let pass = expr::filter(res, &joined, &all, ctx)?;
        if flag {
            for &i in &pass {
                if let Some(b) = bidx[i as usize] {
                    self.matched[b as usize] = true;
                }
            }
        }
        if !outer {
            return Ok(((!pass.is_empty()).then_some((joined, pass)), next_pos));
        }
        // left outer with a residual: a probe row's passing pairs, or the row with NULLs
        let mut ok = vec![false; pidx.len()];
        for &i in &pass {
            ok[i as usize] = true;
        }
        let mut fp = Vec::with_capacity(pidx.len());
        let mut fb = Vec::with_capacity(pidx.len());
        let mut i = 0;
        for &r in &rows[..used] {
            let mut any = false;
            while i < pidx.len() && pidx[i] == r {
                if ok[i] {
                    fp.push(r);
                    fb.push(bidx[i]);
                    any = true;
                }
                i += 1;
            }
            if !any {
                fp.push(r);
                fb.push(None);
            }
        }
        let out = self.pairs_batch(batch, &fp, &fb)?;
        let all: Vec<u32> = (0..fp.len() as u32).collect();
        Ok((Some((out, all)), next_pos))
    }

    /// Left semi / anti semi: the rows of `sel` the join outputs.
    fn semi(&mut self, batch: &Batch, sel: &[u32], ctx: &mut ExecCtx) -> SqlResult<Vec<u32>> {
        let anti = self.kind == JoinKind::LeftAntiSemi;
        let mut cand = self.heads(batch, sel, ctx)?;
        let Some(res) = self.residual else {
            return Ok(sel
                .iter()
                .zip(&cand)
                .filter(|(_, &c)| (c != END) != anti)
                .map(|(&r, _)| r)
                .collect());
        };
        // rounds: the next candidate of every probe row not yet matched
        let mut matched = vec![false; sel.len()];
        loop {
            let live: Vec<usize> = (0..sel.len()).filter(|&k| cand[k] != END).collect();
            if live.is_empty() {
                break;
            }
            let pidx: Vec<u32> = live.iter().map(|&k| sel[k]).collect();
            let bidx: Vec<Option<u32>> = live.iter().map(|&k| Some(cand[k])).collect();
            let joined = self.pairs_batch(batch, &pidx, &bidx)?;
            let all: Vec<u32> = (0..pidx.len() as u32).collect();
            let pass = expr::filter(res, &joined, &all, ctx)?;
            let mut hit = vec![false; live.len()];
            for &i in &pass {
                hit[i as usize] = true;
            }
            for (j, &k) in live.iter().enumerate() {
                if hit[j] {
                    matched[k] = true;
                    cand[k] = END;
                } else {
                    cand[k] = self.side.next[cand[k] as usize];
                }
            }
        }
        Ok(sel
            .iter()
            .zip(&matched)
            .filter(|(_, &m)| m != anti)
            .map(|(&r, _)| r)
            .collect())
    }
}

impl Join<'_> {
    /// Right semi / anti semi: flags the build rows the probe rows `sel` match; the build rows
    /// matched for the first time (right semi: the rows to output), in probe order.
    fn right_semi(&mut self, batch: &Batch, sel: &[u32], ctx: &mut ExecCtx) -> SqlResult<Vec<u32>> {
        let semi = self.kind == JoinKind::RightSemi;
        let heads = self.heads(batch, sel, ctx)?;
        let mut first = Vec::new();
        let Some(res) = self.residual else {
            for &h in &heads {
                let mut c = h;
                while c != END {
                    let m = &mut self.matched[c as usize];
                    if !*m {
                        *m = true;
                        if semi {
                            first.push(c);
                        }
                    }
                    c = self.side.next[c as usize];
                }
            }
            return Ok(first);
        };
        // the pairs with a build row still unmatched, about a batch at a time
        let mut pidx: Vec<u32> = Vec::with_capacity(BATCH_ROWS);
        let mut bidx: Vec<Option<u32>> = Vec::with_capacity(BATCH_ROWS);
        for (k, &r) in sel.iter().enumerate() {
            let mut c = heads[k];
            while c != END {
                if !self.matched[c as usize] {
                    pidx.push(r);
                    bidx.push(Some(c));
                }
                c = self.side.next[c as usize];
            }
            if pidx.len() >= BATCH_ROWS || k + 1 == sel.len() {
                if pidx.is_empty() {
                    continue;
                }
                let joined = self.pairs_batch(batch, &pidx, &bidx)?;
                let all: Vec<u32> = (0..pidx.len() as u32).collect();
                for i in expr::filter(res, &joined, &all, ctx)? {
                    if let Some(b) = bidx[i as usize] {
                        let m = &mut self.matched[b as usize];
                        if !*m {
                            *m = true;
                            if semi {
                                first.push(b);
                            }
                        }
                    }
                }
                pidx.clear();
                bidx.clear();
            }
        }
        Ok(first)
    }

    /// After the probe side: the next batch of never-matched build rows (right / full outer
    /// with NULL probe columns, right anti semi); None when all are out.
    fn unmatched_build(&mut self) -> SqlResult<Option<Selected>> {
        let Some(start) = self.tail else {
            return Ok(None);
        };
        let mut idx: Vec<u32> = Vec::with_capacity(BATCH_ROWS);
        let mut i = start;
        while i < self.side.len && idx.len() < BATCH_ROWS {
            if !self.matched[i] {
                idx.push(i as u32);
            }
            i += 1;
        }
        self.tail = Some(i);
        if idx.is_empty() {
            return Ok(None);
        }
        let n = idx.len();
        let build = gather(&self.side.build, &UInt32Array::from(idx))?;
        let columns = if self.kind.outputs_left() {
            // the probe columns are absent: they read as NULL
            let mut c: Vec<Option<Column>> = vec![None; self.left_arity];
            c.extend(build);
            c
        } else {
            build
        };
        Ok(Some((Batch { columns, len: n }, (0..n as u32).collect())))
    }
}

/// A batch hash join's build side: the build rows, one array per right column (None: not
/// read), and the key table over them. Read-only once built, so a parallel zone's
/// coordinator builds it once and its workers probe it together ([`build_shared`]).
pub(crate) struct BuildSide {
    build: Vec<Option<Column>>,
    len: usize,
    table: Table,
    next: Vec<u32>,
}

/// A build side read whole: one array per column (None: not read), the row count, the bytes.
type BuildRows = (Vec<Option<Column>>, usize, usize);

/// Reads the batch source `right` whole: its selected rows as one array per column, their
/// count and their bytes. None: not a batch source, or over the operator budget.
fn read_build(
    right: &PhysOp,
    ctx: &mut ExecCtx,
    counts: &mut Counts,
) -> SqlResult<Option<BuildRows>> {
    let budget = ctx.spill.operator_budget;
    // the build side, read whole (row mode: before the probe input opens)
    let Some(mut bsrc) = Source::open(right, ctx, counts)? else {
        return Ok(None);
    };
    let right_arity = right.columns.len();
    let mut parts: Vec<Vec<Option<Column>>> = Vec::new();
    let mut bytes = 0usize;
    let mut build_len = 0usize;
    while let Some((batch, sel)) = bsrc.next(ctx, counts)? {
        let cols = if sel.len() == batch.len {
            batch.columns
        } else {
            gather(&batch.columns, &UInt32Array::from(sel.clone()))?
        };
        for c in cols.iter().flatten() {
            bytes += array_of(&c.data).get_array_memory_size();
        }
        build_len += sel.len();
        // chain link + key table slot per row
        if bytes + build_len * 24 > budget {
            return Ok(None);
        }
        parts.push(cols);
    }
    drop(bsrc);
    let mut build: Vec<Option<Column>> = Vec::with_capacity(right_arity);
    for c in 0..right_arity {
        let Some(first) = parts.iter().find_map(|p| p.get(c).cloned().flatten()) else {
            build.push(None);
            continue;
        };
        let arrays: Vec<ArrayRef> = parts
            .iter()
            .filter_map(|p| p.get(c).and_then(|x| x.as_ref()))
            .map(|x| array_of(&x.data))
            .collect();
        let refs: Vec<&dyn Array> = arrays.iter().map(|a| a.as_ref()).collect();
        let all = arrow_select::concat::concat(&refs).map_err(arrow_err)?;
        build.push(Some(Column {
            data: vector_like(&first.data, all)?,
            ty: first.ty.clone(),
        }));
    }
    Ok(Some((build, build_len, bytes)))
}

/// Reads the row-mode input `right` whole into column vectors (the build side of a parallel
/// batch join that is not itself a batch source: a Gather Streams of a filtered scan, ...).
/// None: a column without a vector type, or over the operator budget.
fn read_build_rows(right: &PhysOp, ctx: &mut ExecCtx) -> SqlResult<Option<BuildRows>> {
    let budget = ctx.spill.operator_budget;
    // a gathered zone decodes what its scan decodes
    let decoded = crate::operator::decoded_columns(match &right.kind {
        PhysKind::Parallelism { input, .. } => input,
        _ => right,
    });
    let wanted = |i: usize| {
        decoded
            .as_ref()
            .is_none_or(|d| d.get(i).copied().unwrap_or(true))
    };
    let mut builders: Vec<Option<super::vector::ColumnBuilder>> =
        Vec::with_capacity(right.columns.len());
    for (i, c) in right.columns.iter().enumerate() {
        if !wanted(i) {
            builders.push(None);
            continue;
        }
        match super::vector::ColumnBuilder::new(&c.data_type, 1024) {
            Some(b) => builders.push(Some(b)),
            None => return Ok(None),
        }
    }
    let mut input = crate::operator::build(right)?;
    input.open(ctx)?;
    let (mut len, mut bytes) = (0usize, 0usize);
    while input.next(ctx)? {
        let row = input.row();
        bytes += crate::spill::row_size(row) + 24;
        if bytes > budget {
            input.close();
            return Ok(None);
        }
        for (b, v) in builders.iter_mut().zip(row) {
            if let Some(b) = b {
                b.push(v.clone())?;
            }
        }
        len += 1;
    }
    input.close();
    let columns = builders
        .into_iter()
        .map(|b| b.map(|b| b.finish()).transpose())
        .collect::<SqlResult<_>>()?;
    Ok(Some((columns, len, bytes)))
}

/// The coordinator's build of the batch hash join `join` of a parallel zone: its build
/// input read once (as a batch source when it is marked one, else row by row) and hashed.
/// Byte keys are indexed by `threads` threads at once (`byte_keys::PartitionedKeys`).
/// None: over the operator budget (the zone then runs serially, where row mode can spill).
pub(crate) fn build_shared(
    join: &PhysOp,
    ctx: &mut ExecCtx,
    threads: usize,
) -> SqlResult<Option<BuildSide>> {
    let PhysKind::HashJoin {
        right,
        left_keys,
        right_keys,
        ..
    } = &join.kind
    else {
        return Err(SqlError::internal("shared build of a non-hash join"));
    };
    let read = if right.exec_mode == plan::ExecMode::Batch && is_source(right) {
        let mut counts: Counts = Vec::new();
        super::collect_nodes(right, &mut counts);
        let r = read_build(right, ctx, &mut counts)?;
        if r.is_some() {
            for &(node, rows, batches) in &counts {
                crate::actuals::add_batch_execution(ctx, node);
                crate::actuals::add_batch_counts(ctx, node, rows, batches);
            }
        }
        r
    } else {
        read_build_rows(right, ctx)?
    };
    let Some((columns, len, bytes)) = read else {
        return Ok(None);
    };
    BuildSide::index(columns, len, bytes, left_keys, right_keys, threads, ctx)
}

impl BuildSide {
    /// The key table over the `len` build rows `columns` (`bytes` of them so far). None: over
    /// the operator budget.
    fn index(
        columns: Vec<Option<Column>>,
        len: usize,
        mut bytes: usize,
        left_keys: &[ScalarExpr],
        right_keys: &[ScalarExpr],
        threads: usize,
        ctx: &mut ExecCtx,
    ) -> SqlResult<Option<Self>> {
        let budget = ctx.spill.operator_budget;
        let build_len = len;
        let whole = Batch {
            columns,
            len: build_len,
        };
        let all: Vec<u32> = (0..build_len as u32).collect();
        let keys: Vec<Operand> = right_keys
            .iter()
            .map(|k| eval_batch(k, &whole, &all, ctx))
            .collect::<SqlResult<_>>()?;
        let mut next = vec![END; build_len];
        let table = if int_keys(left_keys, right_keys, 2) {
            let mut m: HashMap<(i64, i64), u32> = HashMap::with_capacity(build_len);
            for (i, link) in next.iter_mut().enumerate() {
                if let (Some(a), Some(b)) = (int_at(&keys[0], i), int_at(&keys[1], i)) {
                    let h = m.entry((a, b)).or_insert(END);
                    *link = *h;
                    *h = i as u32;
                }
            }
            bytes += m.capacity() * 24;
            if bytes > budget {
                return Ok(None);
            }
            Table::Int2(m)
        } else if int_keys(left_keys, right_keys, 1) {
            let k = &keys[0];
            let ikey = |i: usize| int_at(k, i);
            let (mut lo, mut hi) = (i64::MAX, i64::MIN);
            for i in 0..build_len {
                if let Some(k) = ikey(i) {
                    lo = lo.min(k);
                    hi = hi.max(k);
                }
            }
            let span = (hi as i128) - (lo as i128) + 1;
            if lo <= hi && span <= (4 * build_len + 1024) as i128 {
                let mut heads = vec![END; span as usize];
                for (i, link) in next.iter_mut().enumerate() {
                    if let Some(k) = ikey(i) {
                        let h = &mut heads[(k - lo) as usize];
                        *link = *h;
                        *h = i as u32;
                    }
                }
                Table::Dense { min: lo, heads }
            } else {
                let mut m: HashMap<i64, u32> = HashMap::with_capacity(build_len);
                for (i, link) in next.iter_mut().enumerate() {
                    if let Some(k) = ikey(i) {
                        let h = m.entry(k).or_insert(END);
                        *link = *h;
                        *h = i as u32;
                    }
                }
                Table::Int(m)
            }
        } else {
            let mut pending = crate::byte_keys::PendingKeys::with_capacity(build_len);
            let mut buf = Vec::new();
            for i in 0..build_len {
                if keys.iter().any(|k| k.is_null(i)) {
                    bytes += pending.push(None);
                    continue;
                }
                buf.clear();
                for k in &keys {
                    key_bytes(k, i, &mut buf);
                }
                bytes += pending.push(Some(&buf));
                if bytes > budget {
                    return Ok(None);
                }
            }
            let (m, added) = crate::byte_keys::PartitionedKeys::build(pending, &mut next, threads);
            bytes += added;
            if bytes > budget {
                return Ok(None);
            }
            Table::Bytes(m)
        };
        drop(keys);
        Ok(Some(BuildSide {
            build: whole.columns,
            len: build_len,
            table,
            next,
        }))
    }
}
fn int_value(v: &types::Value) -> Option<i64> {
    use types::Value;
    match v {
        Value::Int(i) => Some(i64::from(*i)),
        Value::BigInt(i) => Some(*i),
        Value::SmallInt(i) => Some(i64::from(*i)),
        Value::TinyInt(i) => Some(i64::from(*i)),
        _ => None,
    }
}
