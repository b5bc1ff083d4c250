//! Batch mode: an aggregate pipeline — scans, filters, compute scalars, hash joins
//! (`join.rs`) over batch sources or row-mode inputs (`adapter.rs`), hash or scalar aggregate
//! — run over columnar batches instead of one row at a time (exec README "Batch
//! mode"). The optimizer marks the pipeline (`plan::ExecMode::Batch`,
//! `optimizer::batch_mode`); [`build`] turns a marked aggregate into [`BatchAggregate`], a
//! row-mode operator whose output rows are the groups (the batch→row adapter), so every row
//! operator above it is unchanged.
//!
//! * A [`Batch`] holds ~[`BATCH_ROWS`] rows as Arrow column vectors (`vector.rs`), indexed by
//!   the input's column positions (None: a column nobody reads, NULL as in row mode); the
//!   rows still alive travel beside it as a selection vector (ascending row numbers).
//! * Filters narrow the selection and compute scalars add column vectors (`expr.rs`); the
//!   aggregate reads the last batch's selected rows.
//! * Results are row mode's: aggregates finish through `AggState::finish`, expressions
//!   without a kernel run through row mode's evaluator, and an error is raised for exactly
//!   the rows row mode would raise it for.
//! * When the pipeline cannot run in batch mode after all (its scan would need row locks, its
//!   groups outgrow the operator's memory budget, a type without a vector), the aggregate runs
//!   its row-mode plan instead; nothing was output yet and the pipeline only reads.
//!
//! Threading: a batch pipeline is owned by one thread. In a parallel zone each worker runs
//! its own pipeline over the morsels it claims and sends its groups as partial aggregate
//! states (`parallel/aggregate.rs`); nothing in a batch is shared between workers.

mod adapter;
mod expr;
mod join;
mod rows;
mod scan;
mod sort;
pub(crate) mod vector;

pub(crate) use join::build_shared;
pub(crate) use rows::{build as build_rows, is_adapted_source};
pub(crate) use sort::{build as build_sort, is_batch_sort};
/// The batch hash join build sides of one parallel zone: (join plan node address, build).
pub(crate) type SharedBatchBuilds = std::sync::Arc<Vec<(usize, std::sync::Arc<join::BuildSide>)>>;

use arrow_array::Array;
use hashbrown::HashMap;

use common::SqlResult;
use plan::{AggCall, AggFunc, PhysKind, PhysOp, ScalarExpr};
use types::Value;

use crate::agg::AggState;
use crate::context::ExecCtx;
use crate::operator::{BoxOp, Operator};
use crate::valops;
use expr::{eval_batch, Operand};
use vector::{Column, Vector};

/// Rows per batch (a batch ends at the page boundary past it).
pub const BATCH_ROWS: usize = 2048;

/// Columnar rows: one vector per input column (None: not read, NULL).
pub(crate) struct Batch {
    pub columns: Vec<Option<Column>>,
    pub len: usize,
}

/// One step of the pipeline above the scan, and the plan node it belongs to.
enum Stage<'p> {
    Filter(&'p ScalarExpr, u32),
    Compute(&'p [ScalarExpr], u32),
}

/// The zone below an aggregate: its scan's source and node and the stages above it (the
/// scan's predicate first), bottom-up. None: not a batch pipeline.
fn pipeline(op: &PhysOp) -> Option<(&plan::TableSource, u32, Vec<Stage<'_>>)> {
    let mut stages = Vec::new();
    let mut cur = op;
    loop {
        match &cur.kind {
            PhysKind::Filter { input, predicate } => {
                stages.push(Stage::Filter(predicate, cur.node_id));
                cur = input;
            }
            PhysKind::ComputeScalar { input, exprs } => {
                stages.push(Stage::Compute(exprs, cur.node_id));
                cur = input;
            }
            PhysKind::TableScan { source, predicate }
            | PhysKind::ClusteredIndexScan {
                source,
                predicate,
                backward: false,
                ..
            } if !source.with_locator => {
                if let Some(p) = predicate {
                    stages.push(Stage::Filter(p, cur.node_id));
                }
                stages.reverse();
                return Some((source, cur.node_id, stages));
            }
            _ => return None,
        }
    }
}

/// Groups of a batch aggregate, in first-seen order: key values and states.
pub(crate) struct Groups {
    pub keys: Vec<Vec<Value>>,
    pub states: Vec<Vec<AggState>>,
}

/// Runs the aggregate `group_by` / `aggs` over the batch pipeline `input`. None: batch mode
/// could not run it (see the module doc); the caller runs row mode.
pub(crate) fn aggregate(
    input: &PhysOp,
    group_by: &[ScalarExpr],
    aggs: &[AggCall],
    ctx: &mut ExecCtx,
) -> SqlResult<Option<Groups>> {
    let Some(p) = open_pipeline(input, ctx)? else {
        return Ok(None);
    };
    aggregate_opened(p, group_by, aggs, ctx)
}

/// A batch pipeline whose joins have read their build sides, and the actual counters of its
/// nodes: (node, rows, batches).
pub(crate) struct Opened<'p> {
    src: join::Source<'p>,
    counts: join::Counts,
}

/// Opens the pipeline `input` (its joins read their build sides, as row mode's joins do when
/// they open). None: batch mode cannot run it.
fn open_pipeline<'p>(input: &'p PhysOp, ctx: &mut ExecCtx) -> SqlResult<Option<Opened<'p>>> {
    if !join::is_source(input) {
        return Ok(None);
    }
    let mut counts: join::Counts = Vec::new();
    collect_nodes(input, &mut counts);
    match join::Source::open(input, ctx, &mut counts) {
        Ok(Some(src)) => Ok(Some(Opened { src, counts })),
        Ok(None) => Ok(None),
        Err(e) => {
            report_counts(&counts, ctx);
            Err(e)
        }
    }
}

fn aggregate_opened(
    mut p: Opened<'_>,
    group_by: &[ScalarExpr],
    aggs: &[AggCall],
    ctx: &mut ExecCtx,
) -> SqlResult<Option<Groups>> {
    let r = run_pipeline(&mut p.src, group_by, aggs, &mut p.counts, ctx);
    // a pipeline that gave way to row mode leaves the counting to the row operators
    if r.as_ref().is_ok_and(|g| g.is_some()) || r.is_err() {
        report_counts(&p.counts, ctx);
    }
    r
}

fn report_counts(counts: &join::Counts, ctx: &mut ExecCtx) {
    for &(node, rows, batches) in counts {
        crate::actuals::add_batch_execution(ctx, node);
        crate::actuals::add_batch_counts(ctx, node, rows, batches);
    }
}

/// The nodes of a batch source, each once (a row-mode input under the adapter counts its
/// own).
fn collect_nodes(op: &PhysOp, out: &mut join::Counts) {
    let stage = matches!(
        op.kind,
        PhysKind::Filter { .. } | PhysKind::ComputeScalar { .. }
    ) && op.exec_mode == plan::ExecMode::Batch;
    if !stage && join::is_row_input(op) {
        return;
    }
    if !out.iter().any(|c| c.0 == op.node_id) {
        out.push((op.node_id, 0, 0));
    }
    for c in op.children() {
        // a parallel zone's row-mode build side is counted by its row operators
        if matches!(op.kind, PhysKind::HashJoin { .. }) && c.exec_mode != plan::ExecMode::Batch {
            continue;
        }
        collect_nodes(c, out);
    }
}

fn run_pipeline(
    src: &mut join::Source<'_>,
    group_by: &[ScalarExpr],
    aggs: &[AggCall],
    counts: &mut join::Counts,
    ctx: &mut ExecCtx,
) -> SqlResult<Option<Groups>> {
    let mut index: HashMap<Box<[u8]>, usize> = HashMap::new();
    let mut groups = Groups {
        keys: Vec::new(),
        states: Vec::new(),
    };
    if group_by.is_empty() {
        // a scalar aggregate has its one group even over no rows
        groups.keys.push(Vec::new());
        groups.states.push(aggs.iter().map(AggState::new).collect());
        let counts_only = aggs
            .iter()
            .all(|a| matches!(a.func, AggFunc::CountStar | AggFunc::CountBigStar));
        if let (join::Base::Scan(scan, node), true) = (&mut src.base, src.stages.is_empty()) {
            if counts_only {
                let n = scan.count(ctx)?;
                if let Some(c) = counts.iter_mut().find(|c| c.0 == *node) {
                    c.1 += n;
                }
                for s in &mut groups.states[0] {
                    s.add_count(n);
                }
                return Ok(Some(groups));
            }
        }
    }
    let budget = ctx.spill.operator_budget;
    let mut bytes = 0usize;
    let mut keybuf = Vec::new();
    let mut rowgroup: Vec<usize> = Vec::new();
    while let Some((batch, sel)) = src.next(ctx, counts)? {
        // the group of each selected row
        rowgroup.clear();
        if group_by.is_empty() {
            rowgroup.resize(batch.len, 0);
        } else {
            rowgroup.resize(batch.len, usize::MAX);
            let keys: Vec<Operand> = group_by
                .iter()
                .map(|g| eval_batch(g, &batch, &sel, ctx))
                .collect::<SqlResult<_>>()?;
            let mut vals = Vec::with_capacity(keys.len());
            for &r in &sel {
                let i = r as usize;
                keybuf.clear();
                for k in &keys {
                    key_bytes(k, i, &mut keybuf);
                }
                let g = match index.get(&keybuf[..]) {
                    Some(&g) => g,
                    None => {
                        vals.clear();
                        vals.extend(keys.iter().map(|k| k.value(i)));
                        bytes += crate::spill::row_size(&vals)
                            + keybuf.len()
                            + aggs.len() * std::mem::size_of::<AggState>()
                            + 64;
                        if bytes > budget {
                            return Ok(None);
                        }
                        groups.keys.push(vals.clone());
                        groups.states.push(aggs.iter().map(AggState::new).collect());
                        index.insert(keybuf.clone().into_boxed_slice(), groups.keys.len() - 1);
                        groups.keys.len() - 1
                    }
                };
                rowgroup[i] = g;
            }
        }
        for (ai, call) in aggs.iter().enumerate() {
            update(call, ai, &batch, &sel, &rowgroup, &mut groups.states, ctx)?;
        }
    }
    Ok(Some(groups))
}

/// Appends row `i`'s `valops::hash_key` encoding of the key `k`, straight from integer and
/// string vectors (no `Value`).
#[inline]
fn key_bytes(k: &Operand, i: usize, out: &mut Vec<u8>) {
    if let Operand::Col(c) = k {
        if c.is_null(i) {
            out.push(0);
            return;
        }
        match &c.data {
            Vector::Int(a) => return valops::hash_key_int(i128::from(a.value(i)), out),
            Vector::Str(a) => return valops::hash_key_str(a.value(i), out),
            _ => {}
        }
    }
    valops::hash_key(&k.value(i), out)
}

/// An evaluated compute-scalar output as a column vector.
fn materialize(o: Operand, e: &ScalarExpr, len: usize) -> SqlResult<Option<Column>> {
    Ok(Some(match o {
        Operand::Col(c) => c,
        Operand::Const(v) => {
            let Some(mut b) = vector::ColumnBuilder::new(&e.data_type, len) else {
                return Err(common::SqlError::internal(
                    "batch mode constant without a vector type",
                ));
            };
            for _ in 0..len {
                b.push(v.clone())?;
            }
            b.finish()?
        }
    }))
}

/// Feeds the selected rows of `batch` to aggregate `ai` of their groups.
fn update(
    call: &AggCall,
    ai: usize,
    batch: &Batch,
    sel: &[u32],
    rowgroup: &[usize],
    states: &mut [Vec<AggState>],
    ctx: &mut ExecCtx,
) -> SqlResult<()> {
    if matches!(call.func, AggFunc::CountStar | AggFunc::CountBigStar) {
        for &r in sel {
            states[rowgroup[r as usize]][ai].add_count(1);
        }
        return Ok(());
    }
    let Some(arg) = call.args.first() else {
        return Err(common::SqlError::internal("aggregate without argument"));
    };
    let v = eval_batch(arg, batch, sel, ctx)?;
    if call.func == AggFunc::StringAgg {
        return update_string_agg(call, ai, &v, batch, sel, rowgroup, states, ctx);
    }
    if call.distinct {
        return update_distinct(call, ai, &v, sel, rowgroup, states, ctx);
    }
    let counting = matches!(call.func, AggFunc::Count | AggFunc::CountBig);
    let summing = matches!(call.func, AggFunc::Sum | AggFunc::Avg);
    let exact = if summing {
        AggState::exact_sum_scale(call)
    } else {
        None
    };
    // integer / decimal vectors summed in place: the value at the sum's scale
    let fast: Option<Box<dyn Fn(usize) -> Option<i128> + '_>> = match (&v, exact) {
        (
            Operand::Col(Column {
                data: Vector::Int(a),
                ..
            }),
            Some(None),
        ) => Some(Box::new(move |i| Some(i128::from(a.value(i))))),
        (
            Operand::Col(Column {
                data: Vector::Decimal(a, s),
                ..
            }),
            Some(Some(t)),
        ) if *s <= t && t - *s <= 38 => {
            let f = 10i128.checked_pow(u32::from(t - *s));
            f.map(|f| Box::new(move |i| a.value(i).checked_mul(f)) as Box<dyn Fn(usize) -> _>)
        }
        _ => None,
    };
    for &r in sel {
        let i = r as usize;
        let st = &mut states[rowgroup[i]][ai];
        if v.is_null(i) {
            ctx.null_eliminated();
            continue;
        }
        if counting {
            st.add_one();
            continue;
        }
        if let Some(f) = &fast {
            if let Some(x) = f(i) {
                st.add_exact(x);
                continue;
            }
        }
        st.update_value(call, v.value(i), &[], ctx)?;
    }
    Ok(())
}

/// DISTINCT aggregates: each group's distinct values through `AggState::update_value` (row
/// mode's set of `valops::hash_key` encodings, so collation and NULL rules are row mode's).
fn update_distinct(
    call: &AggCall,
    ai: usize,
    v: &Operand,
    sel: &[u32],
    rowgroup: &[usize],
    states: &mut [Vec<AggState>],
    ctx: &mut ExecCtx,
) -> SqlResult<()> {
    if let Operand::Col(Column {
        data: Vector::Int(a),
        ty,
    }) = v
    {
        let counting = matches!(call.func, AggFunc::Count | AggFunc::CountBig);
        // the argument's type decides the set, as in `AggState::update_value`
        let int_type = call.args.first().is_some_and(|a| &a.data_type == ty)
            && matches!(
                ty,
                types::DataType::TinyInt
                    | types::DataType::SmallInt
                    | types::DataType::Int
                    | types::DataType::BigInt
            );
        if int_type {
            for &r in sel {
                let i = r as usize;
                if a.is_null(i) {
                    ctx.null_eliminated();
                    continue;
                }
                let st = &mut states[rowgroup[i]][ai];
                if !st.insert_distinct_int(a.value(i)) {
                    continue;
                }
                if counting {
                    st.add_one();
                } else {
                    st.accumulate(call, v.value(i), &[], ctx)?;
                }
            }
            return Ok(());
        }
    }
    for &r in sel {
        let i = r as usize;
        states[rowgroup[i]][ai].update_value(call, v.value(i), &[], ctx)?;
    }
    Ok(())
}

/// STRING_AGG(x, sep) [WITHIN GROUP (ORDER BY ...)]: the value, the separator (evaluated for
/// a group's first value, as row mode) and the order keys of each selected row.
#[allow(clippy::too_many_arguments)]
fn update_string_agg(
    call: &AggCall,
    ai: usize,
    v: &Operand,
    batch: &Batch,
    sel: &[u32],
    rowgroup: &[usize],
    states: &mut [Vec<AggState>],
    ctx: &mut ExecCtx,
) -> SqlResult<()> {
    // order keys and the separator only for the rows with a value (row mode skips NULLs first)
    let live: Vec<u32> = sel
        .iter()
        .copied()
        .filter(|&r| !v.is_null(r as usize))
        .collect();
    let mut keys: Vec<Operand> = Vec::with_capacity(call.order_by.len());
    for k in &call.order_by {
        keys.push(eval_batch(&k.expr, batch, &live, ctx)?);
    }
    let sep = match call.args.get(1) {
        Some(e) => Some(eval_batch(e, batch, &live, ctx)?),
        None => None,
    };
    for &r in sel {
        let i = r as usize;
        let st = &mut states[rowgroup[i]][ai];
        let kv: Vec<Value> = if v.is_null(i) {
            Vec::new()
        } else {
            keys.iter().map(|k| k.value(i)).collect()
        };
        let sep = &sep;
        st.update_string_agg(
            call,
            v.value(i),
            || sep.as_ref().map(|s| s.value(i)).unwrap_or(Value::Null),
            kv,
            ctx,
        )?;
    }
    Ok(())
}

/// Hash Match (Aggregate) / Stream Aggregate (scalar) in batch mode, as a row operator that
/// outputs group-by values then aggregate results; falls back to `row` (the same node in row
/// mode) when batch mode cannot run.
pub(crate) struct BatchAggregate<'p> {
    node: &'p PhysOp,
    row: BoxOp<'p>,
    use_row: bool,
    out: Vec<Vec<Value>>,
    pos: usize,
    done: bool,
    current: Vec<Value>,
    /// A Stream Aggregate's pipeline, opened when the aggregate opens.
    opened: Option<Opened<'p>>,
}

/// The batch-mode operator for `op` when it is a batch aggregate (`row`: its row-mode build).
pub(crate) fn build<'p>(op: &'p PhysOp, row: BoxOp<'p>) -> BoxOp<'p> {
    Box::new(BatchAggregate {
        node: op,
        row,
        use_row: false,
        out: Vec::new(),
        pos: 0,
        done: false,
        current: Vec::new(),
        opened: None,
    })
}

/// Whether `op` is an aggregate [`build`] runs in batch mode.
pub(crate) fn is_batch_aggregate(op: &PhysOp) -> bool {
    op.exec_mode == plan::ExecMode::Batch
        && match &op.kind {
            PhysKind::HashAggregate {
                grouping_sets: None,
                ..
            } => true,
            PhysKind::StreamAggregate { group_by, .. } => group_by.is_empty(),
            _ => false,
        }
}

impl Operator for BatchAggregate<'_> {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        self.out.clear();
        self.pos = 0;
        self.done = false;
        self.use_row = false;
        self.opened = None;
        // as row mode: a Hash Match aggregates when it opens (errors before the result's
        // columns go out), a Stream Aggregate at its first row — but its input's joins read
        // their build sides when it opens
        if matches!(self.node.kind, PhysKind::HashAggregate { .. }) {
            self.run(ctx)?;
        } else if let PhysKind::StreamAggregate { input, .. } = &self.node.kind {
            match open_pipeline(input, ctx)? {
                Some(p) => self.opened = Some(p),
                None => {
                    self.done = true;
                    self.use_row = true;
                    self.row.open(ctx)?;
                }
            }
        }
        Ok(())
    }

    fn next(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        if !self.done {
            self.run(ctx)?;
        }
        if self.use_row {
            let more = self.row.next(ctx)?;
            if more {
                self.current.clear();
                self.current.extend_from_slice(self.row.row());
            }
            return Ok(more);
        }
        if self.pos < self.out.len() {
            self.current = std::mem::take(&mut self.out[self.pos]);
            self.pos += 1;
            return Ok(true);
        }
        Ok(false)
    }

    fn row(&self) -> &[Value] {
        &self.current
    }

    fn close(&mut self) {
        if self.use_row {
            self.row.close();
        }
        self.opened = None;
        self.out.clear();
    }
}

impl BatchAggregate<'_> {
    /// Aggregates the whole input (batch mode, else the row-mode operator is opened).
    fn run(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        {
            self.done = true;
            let (input, group_by, aggs) = match &self.node.kind {
                PhysKind::HashAggregate {
                    input,
                    group_by,
                    aggs,
                    ..
                }
                | PhysKind::StreamAggregate {
                    input,
                    group_by,
                    aggs,
                } => (input, group_by, aggs),
                _ => return Err(common::SqlError::internal("batch aggregate node expected")),
            };
            let outcome = match self.opened.take() {
                Some(p) => aggregate_opened(p, group_by, aggs, ctx)?,
                None => aggregate(input, group_by, aggs, ctx)?,
            };
            match outcome {
                Some(mut g) => {
                    crate::actuals::add_batch_counts(ctx, self.node.node_id, 0, 1);
                    for (keys, states) in g.keys.drain(..).zip(g.states.iter_mut()) {
                        let mut row = keys;
                        for (a, s) in aggs.iter().zip(states.iter_mut()) {
                            row.push(s.finish(a)?);
                        }
                        self.out.push(row);
                    }
                }
                None => {
                    self.use_row = true;
                    self.row.open(ctx)?;
                }
            }
        }
        Ok(())
    }
}
