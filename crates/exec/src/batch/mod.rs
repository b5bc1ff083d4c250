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
mod groups;
mod join;
mod rows;
mod scan;
mod sort;
pub(crate) mod vector;

pub(crate) use groups::key_bytes;
pub(crate) use join::build_shared;
pub(crate) use rows::{build as build_rows, is_adapted_source};
pub(crate) use sort::{build as build_sort, is_batch_sort};
/// The batch hash join build sides of one parallel zone: (join plan node address, build).
pub(crate) type SharedBatchBuilds = std::sync::Arc<Vec<(usize, std::sync::Arc<join::BuildSide>)>>;

use arrow_array::Array;

use common::SqlResult;
use plan::{AggCall, AggFunc, PhysKind, PhysOp, ScalarExpr};
use types::Value;

use crate::agg::AggState;
use crate::context::ExecCtx;
use crate::operator::{BoxOp, Operator};
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
    let mut index = groups::GroupIndex::new(group_by);
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
    let mut dense: Vec<Option<Dense>> = aggs.iter().map(Dense::for_call).collect();
    let budget = ctx.spill.operator_budget;
    let per_group = aggs.len() * std::mem::size_of::<AggState>()
        + dense.iter().flatten().count() * Dense::BYTES_PER_GROUP
        + 64;
    let mut bytes = 0usize;
    let mut rowgroup: Vec<u32> = Vec::new();
    while let Some((batch, sel)) = src.next(ctx, counts)? {
        // the group of each selected row
        rowgroup.clear();
        rowgroup.resize(batch.len, 0);
        if !group_by.is_empty() {
            let keys: Vec<Operand> = group_by
                .iter()
                .map(|g| eval_batch(g, &batch, &sel, ctx))
                .collect::<SqlResult<_>>()?;
            index.prepare(&keys, &groups.keys);
            let (gk, gs) = (&mut groups.keys, &mut groups.states);
            let made = index.assign(&keys, &sel, &mut rowgroup, |i, key_len| {
                let vals: Vec<Value> = keys.iter().map(|k| k.value(i)).collect();
                bytes += crate::spill::row_size(&vals) + key_len + per_group;
                if bytes > budget {
                    return None;
                }
                gk.push(vals);
                gs.push(aggs.iter().map(AggState::new).collect());
                Some((gk.len() - 1) as u32)
            });
            if made.is_none() || bytes + index.dict_bytes > budget {
                return Ok(None);
            }
            for d in dense.iter_mut().flatten() {
                d.grow(groups.keys.len());
            }
        } else {
            for d in dense.iter_mut().flatten() {
                d.grow(1);
            }
        }
        for (ai, call) in aggs.iter().enumerate() {
            update(
                call,
                ai,
                &batch,
                &sel,
                &rowgroup,
                &mut groups.states,
                dense[ai].as_mut(),
                ctx,
            )?;
        }
    }
    for (ai, d) in dense.iter().enumerate() {
        if let Some(d) = d {
            for (g, st) in groups.states.iter_mut().enumerate() {
                if let Some(&c) = d.count.get(g) {
                    st[ai].add_totals(c, d.sum[g], d.overflow[g]);
                }
            }
        }
    }
    Ok(Some(groups))
}

/// COUNT(*), COUNT(x) and exact SUM / AVG (not DISTINCT) accumulated in per-group arrays —
/// tight loops over the batch's group numbers — and added to the groups' `AggState`s when
/// the input ends (`AggState::add_totals`, the totals `add_count` / `add_one` /
/// `add_exact` would have reached). A batch whose argument has no dense loop (a constant,
/// a float) feeds the `AggState`s directly.
#[derive(Default)]
struct Dense {
    count: Vec<i64>,
    sum: Vec<i128>,
    overflow: Vec<bool>,
}

impl Dense {
    const BYTES_PER_GROUP: usize = 8 + 16 + 1;

    fn for_call(call: &AggCall) -> Option<Dense> {
        let ok = !call.distinct
            && match call.func {
                AggFunc::CountStar | AggFunc::CountBigStar | AggFunc::Count | AggFunc::CountBig => {
                    true
                }
                AggFunc::Sum | AggFunc::Avg => AggState::exact_sum_scale(call).is_some(),
                _ => false,
            };
        ok.then(Dense::default)
    }

    fn grow(&mut self, n: usize) {
        if self.count.len() < n {
            self.count.resize(n, 0);
            self.sum.resize(n, 0);
            self.overflow.resize(n, false);
        }
    }

    /// Counts the rows `sel` whose value `valid(i)`; false when one was NULL.
    #[inline]
    fn count(&mut self, sel: &[u32], rowgroup: &[u32], valid: impl Fn(usize) -> bool) -> bool {
        let mut all = true;
        for &r in sel {
            let i = r as usize;
            let ok = valid(i);
            all &= ok;
            self.count[rowgroup[i] as usize] += i64::from(ok);
        }
        all
    }

    /// Sums `x(i)` of the rows `sel` that are `valid(i)`; false when one was NULL.
    #[inline]
    fn sum(
        &mut self,
        sel: &[u32],
        rowgroup: &[u32],
        x: impl Fn(usize) -> i128,
        valid: impl Fn(usize) -> bool,
    ) -> bool {
        let mut all = true;
        for &r in sel {
            let i = r as usize;
            if !valid(i) {
                all = false;
                continue;
            }
            let g = rowgroup[i] as usize;
            self.count[g] += 1;
            let (s, o) = self.sum[g].overflowing_add(x(i));
            self.sum[g] = s;
            self.overflow[g] |= o;
        }
        all
    }
}

/// Feeds the selected rows to a dense accumulator when `v`'s vector has a loop for it
/// (false: it has not, nothing was fed).
fn update_dense(
    call: &AggCall,
    d: &mut Dense,
    v: &Operand,
    sel: &[u32],
    rowgroup: &[u32],
    ctx: &mut ExecCtx,
) -> bool {
    let Operand::Col(c) = v else {
        return false;
    };
    let nulls = match &c.data {
        Vector::Int(a) => a.nulls(),
        Vector::Decimal(a, _) => a.nulls(),
        Vector::Float(a) => a.nulls(),
        Vector::Date(a) => a.nulls(),
        Vector::Str(a) => a.nulls(),
        Vector::Bool(a) => a.nulls(),
    }
    .filter(|n| n.null_count() > 0);
    let all = if matches!(call.func, AggFunc::Count | AggFunc::CountBig) {
        match nulls {
            None => d.count(sel, rowgroup, |_| true),
            Some(n) => d.count(sel, rowgroup, |i| n.is_valid(i)),
        }
    } else {
        match (&c.data, AggState::exact_sum_scale(call)) {
            (Vector::Int(a), Some(None)) => {
                let x = a.values();
                match nulls {
                    None => d.sum(sel, rowgroup, |i| i128::from(x[i]), |_| true),
                    Some(n) => d.sum(sel, rowgroup, |i| i128::from(x[i]), |i| n.is_valid(i)),
                }
            }
            // a factor that cannot overflow: the mantissas have at most 38 digits at the
            // sum's scale (row mode's cast to decimal(38, t) then succeeds too)
            (Vector::Decimal(a, s), Some(Some(t)))
                if *s <= t && u32::from(a.precision()) + u32::from(t - *s) <= 38 =>
            {
                let f = types::decimal::POW10[usize::from(t - *s)];
                let x = a.values();
                match (nulls, f) {
                    (None, 1) => d.sum(sel, rowgroup, |i| x[i], |_| true),
                    (None, f) => d.sum(sel, rowgroup, |i| x[i] * f, |_| true),
                    (Some(n), f) => d.sum(sel, rowgroup, |i| x[i] * f, |i| n.is_valid(i)),
                }
            }
            _ => return false,
        }
    };
    if !all {
        ctx.null_eliminated();
    }
    true
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

/// Feeds the selected rows of `batch` to aggregate `ai` of their groups (`dense`: its
/// per-group arrays, when it has them).
#[allow(clippy::too_many_arguments)]
fn update(
    call: &AggCall,
    ai: usize,
    batch: &Batch,
    sel: &[u32],
    rowgroup: &[u32],
    states: &mut [Vec<AggState>],
    dense: Option<&mut Dense>,
    ctx: &mut ExecCtx,
) -> SqlResult<()> {
    if matches!(call.func, AggFunc::CountStar | AggFunc::CountBigStar) {
        match dense {
            Some(d) => {
                d.count(sel, rowgroup, |_| true);
            }
            None => {
                for &r in sel {
                    states[rowgroup[r as usize] as usize][ai].add_count(1);
                }
            }
        }
        return Ok(());
    }
    let Some(arg) = call.args.first() else {
        return Err(common::SqlError::internal("aggregate without argument"));
    };
    let v = eval_batch(arg, batch, sel, ctx)?;
    if let Some(d) = dense {
        if update_dense(call, d, &v, sel, rowgroup, ctx) {
            return Ok(());
        }
    }
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
        let st = &mut states[rowgroup[i] as usize][ai];
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
    rowgroup: &[u32],
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
                let st = &mut states[rowgroup[i] as usize][ai];
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
        states[rowgroup[i] as usize][ai].update_value(call, v.value(i), &[], ctx)?;
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
    rowgroup: &[u32],
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
        let st = &mut states[rowgroup[i] as usize][ai];
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
