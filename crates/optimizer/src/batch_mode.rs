//! The batch-mode post-pass, as SQL Server 2019's batch mode on rowstore: an aggregate over a
//! large input runs its whole pipeline — scans, filters, compute scalars, hash joins, the
//! aggregate — over columnar batches (exec/src/batch) instead of one row at a time.
//!
//! Eligible: a Hash Match (Aggregate) without grouping sets or a scalar Stream Aggregate over
//! a *batch source*, or a parallel zone's Partial Aggregate over a zone. A zone
//! (`parallelize::is_zone`) is Filter / Compute Scalar over one forward, unordered Table Scan /
//! Clustered Index Scan with pure expressions; a batch source is a zone, a Hash Match join
//! (inner, left outer, left semi, left anti semi, with equality keys; pure keys and residual)
//! of two batch sources, or Filter / Compute Scalar over a source. Serial aggregates may be
//! COUNT, COUNT_BIG, SUM, AVG, MIN, MAX (also DISTINCT) and STRING_AGG (WITHIN GROUP);
//! partial aggregates only the mergeable ones (`parallelize::mergeable`). Every value the
//! pipeline holds — decoded and computed columns, keys, aggregate arguments and order keys —
//! has a batch type ([`batch_type`]: `ExecMode::vectorizable_type` plus varchar(max) /
//! nvarchar(max)). Expressions need not be vectorizable one by one: exec evaluates the ones
//! it has no kernel for value by value with the row evaluator, so semantics never differ.
//!
//! A join's build input may also be any other operator whose output columns have batch types
//! (an aggregate, a sort, a merge join, an exchange, ...): it stays in row mode under exec's
//! row→batch adapter and gets batch-mode choices of its own ([`mark_source`]). Serial
//! pipelines may evaluate the session's `@@` values ([`serial_pure`]); uncorrelated subquery
//! plans are chosen for as statements are.
//!
//! A `COUNT(*)` of a whole table stays in row mode unless forced: both modes count slot arrays.
//!
//! Beyond aggregates: a Sort / Top N Sort over a batch source runs in batch mode with it
//! ([`sort_eligible`]; exec's batch sort), and a batch source under any other row operator
//! that reads its rows in one pass ([`Reads`]: to the end or not — a merge join, nested
//! loops' inner side, a Gather Streams' zone on each worker; not a TOP without a sort, whose
//! point is to stop early under row locks) runs under exec's
//! batch→row adapter ([`adapted_source`]), with the same eligibility (types, pure
//! expressions) and threshold; a bare scan without a predicate stays row mode there unless
//! forced.
//!
//! Threshold: the largest scan's estimated rows ≥ [`BATCH_MODE_MIN_ROWS`] (SQL Server 2019
//! uses 131,072 rows for its batch-mode-on-rowstore heuristic; we use the same order of
//! magnitude), (the table's rows: a predicate pushed into the scan does not make the read
//! smaller), unless `USE HINT ('ALLOW_BATCH_MODE')` forces it; `USE HINT
//! ('DISALLOW_BATCH_MODE')` keeps every operator in row mode.

use catalog::Catalog;
use plan::{
    AggCall, AggFunc, ExecMode, JoinKind, PhysKind, PhysOp, ScalarExpr, ScalarFunc, ScalarKind,
};

use crate::parallelize::{is_zone, mergeable, pure};

/// Estimated input rows from which an aggregate pipeline runs in batch mode.
pub const BATCH_MODE_MIN_ROWS: f64 = 100_000.0;

/// `USE HINT` switches for batch mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BatchModeHint {
    /// Batch mode where the estimate says it pays.
    #[default]
    Auto,
    /// `DISALLOW_BATCH_MODE`: row mode everywhere.
    Disallow,
    /// `ALLOW_BATCH_MODE`: batch mode wherever the shape allows, whatever the estimate.
    Allow,
}

/// Marks the eligible aggregate pipelines of `op` as batch mode, then the batch sorts and
/// the batch sources under row operators ([`Reads`]).
pub(crate) fn choose_batch_mode(op: &mut PhysOp, hint: BatchModeHint, catalog: &dyn Catalog) {
    choose(op, hint, catalog, Reads::All);
}

/// How the operator above reads a subtree's rows, which decides whether a batch source may
/// run there under exec's batch→row adapter (`exec/src/batch/rows.rs`).
///
/// The adapter evaluates a batch's expressions ahead of the rows it hands out, but an error
/// it meets makes the source run again in row mode past the rows already handed out, so the
/// error (or none, when the parent stops first) is row mode's: it may run wherever its
/// parent reads its rows one pass at a time, to the end or not. It reads at most a batch
/// ahead, so a TOP still stops early. In a Gather Streams' zone the workers raise a
/// pipeline's error as it comes (morsels cannot be read twice), as their row-mode operators,
/// which run ahead of the consumer, raise theirs: a zone's rows have no order.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reads {
    /// To the end (a sort, a hash build, the statement).
    All,
    /// Perhaps not to the end, or again per outer row (under a merge join, nested loops'
    /// inner side, an exchange whose consumer may stop early).
    Some,
    /// Perhaps only a few rows, where stopping early is the point (under a TOP without a
    /// sort, a nested-loops semi/anti join's inner side): no adapter. A batch scan reads
    /// under an S table lock (exec `batch/scan.rs`), so a concurrent writer anywhere in the
    /// table would block a TOP that row mode finishes under row locks it never contends for.
    /// A build side below is still read whole (`All`).
    Early,
    /// Not through an adapter: a recursive CTE's parts, and the zones of local-then-global
    /// aggregates (their partial aggregate is a batch aggregate of its own).
    Never,
}

fn choose(op: &mut PhysOp, hint: BatchModeHint, catalog: &dyn Catalog, reads: Reads) {
    if hint == BatchModeHint::Disallow {
        return;
    }
    common::stack::grow(|| {
        // an uncorrelated subquery's plan (Q15's MAX over its view) is a plan of its own
        for e in crate::showplan_xml::exprs_mut(&mut op.kind) {
            subqueries(e, hint, catalog);
        }
        if eligible(op, hint, catalog) {
            if matches!(op.kind, PhysKind::PartialAggregate { .. }) {
                mark(op);
            } else {
                op.exec_mode = ExecMode::Batch;
                for c in op.children_mut() {
                    mark_source(c, hint, catalog, reads);
                }
            }
            return;
        }
        if reads != Reads::Never && sort_eligible(op, hint, catalog) {
            op.exec_mode = ExecMode::Batch;
            for c in op.children_mut() {
                mark_source(c, hint, catalog, reads);
            }
            return;
        }
        if matches!(reads, Reads::All | Reads::Some) && adapted_source(op, hint, catalog) {
            mark_source(op, hint, catalog, reads);
            return;
        }
        let inner_reads = |i: usize| match &op.kind {
            _ if reads == Reads::Never => Reads::Never,
            PhysKind::Sort { .. }
            | PhysKind::HashAggregate { .. }
            | PhysKind::HashDistinct { .. }
            | PhysKind::HashSetOp { .. } => Reads::All,
            // the build side is read whole when the join opens
            PhysKind::HashJoin { .. } if i == 1 => Reads::All,
            // a Gather Streams' zone: each worker runs the adapter over its morsels
            PhysKind::Parallelism { input, .. } if gathered_zone(input) => Reads::Some,
            PhysKind::Parallelism { .. }
            | PhysKind::Repartition { .. }
            | PhysKind::PartialAggregate { .. }
            | PhysKind::GlobalAggregate { .. }
            | PhysKind::RecursiveCte { .. } => Reads::Never,
            PhysKind::Top { .. } => Reads::Early,
            PhysKind::NestedLoops {
                kind: JoinKind::LeftSemi | JoinKind::LeftAntiSemi,
                ..
            } if i == 1 => Reads::Early,
            PhysKind::MergeJoin { .. } | PhysKind::NestedLoops { .. } if reads != Reads::Early => {
                Reads::Some
            }
            _ => reads,
        };
        let reads: Vec<Reads> = (0..op.children().len()).map(inner_reads).collect();
        for (c, r) in op.children_mut().into_iter().zip(reads) {
            choose(c, hint, catalog, r);
        }
    })
}

/// Whether the input of a Parallelism node is a zone its workers run and gather as rows (a
/// scan, filter, compute scalar or shared-build hash join), not a local-then-global
/// aggregate's halves.
fn gathered_zone(input: &PhysOp) -> bool {
    // (`is_zone` takes no aggregate: a partial aggregate is batch mode's own choice)
    is_zone(input)
}

/// A Sort / Top N Sort over a batch source (exec's batch sort): keys and TOP count pure,
/// keys of batch types, the source as [`adapted_source`] takes it.
fn sort_eligible(op: &PhysOp, hint: BatchModeHint, catalog: &dyn Catalog) -> bool {
    let PhysKind::Sort {
        input, keys, top, ..
    } = &op.kind
    else {
        return false;
    };
    keys.iter().all(|k| typed(&k.expr))
        && top.as_ref().is_none_or(serial_pure)
        && adapted_source(input, hint, catalog)
}

/// A batch source that may run under a row operator (exec's batch→row adapter): a source
/// ([`is_source`]) whose decoded and output columns have batch types, over the threshold.
/// A bare scan (no predicate, nothing computed) stays row mode unless forced: batch mode
/// would only decode the same values into vectors first.
fn adapted_source(op: &PhysOp, hint: BatchModeHint, catalog: &dyn Catalog) -> bool {
    if op.exec_mode == ExecMode::Batch
        || !matches!(
            op.kind,
            PhysKind::Filter { .. }
                | PhysKind::ComputeScalar { .. }
                | PhysKind::HashJoin { .. }
                | PhysKind::TableScan { .. }
                | PhysKind::ClusteredIndexScan { .. }
        )
        || !is_source(op)
        || !source_types(op)
        || !adaptable(op)
    {
        return false;
    }
    let bare_scan = matches!(
        &op.kind,
        PhysKind::TableScan {
            predicate: None,
            ..
        } | PhysKind::ClusteredIndexScan {
            predicate: None,
            ..
        }
    );
    if bare_scan && hint != BatchModeHint::Allow {
        return false;
    }
    hint == BatchModeHint::Allow || scan_rows(op, catalog) >= BATCH_MODE_MIN_ROWS
}

/// Batch mode for the subquery plans inside `e`.
fn subqueries(e: &mut ScalarExpr, hint: BatchModeHint, catalog: &dyn Catalog) {
    common::stack::grow(|| {
        if let Some(sq) = e.subquery_mut() {
            if let plan::SubqueryPlan::Physical(p) = &mut sq.plan {
                // run once or per outer row, perhaps not to the end (EXISTS): aggregate
                // pipelines only, as before
                choose(std::sync::Arc::make_mut(p), hint, catalog, Reads::Never);
            }
        }
        for c in e.children_mut() {
            subqueries(c, hint, catalog);
        }
    })
}

/// Whether the aggregate `op` (with its source) runs in batch mode under `hint`.
pub(crate) fn eligible(op: &PhysOp, hint: BatchModeHint, catalog: &dyn Catalog) -> bool {
    let (input, group_by, aggs) = match &op.kind {
        PhysKind::HashAggregate {
            input,
            group_by,
            aggs,
            grouping_sets: None,
        }
        | PhysKind::PartialAggregate {
            input,
            group_by,
            aggs,
        } => (input, group_by, aggs),
        PhysKind::StreamAggregate {
            input,
            group_by,
            aggs,
        } if group_by.is_empty() => (input, group_by, aggs),
        _ => return false,
    };
    let partial = matches!(op.kind, PhysKind::PartialAggregate { .. });
    if partial {
        // a parallel worker's pipeline: a zone and mergeable states only; not a zone with a
        // hash join (the workers probe the coordinator's shared build in row mode; a batch
        // join would build its own table from scans that take the probe side's morsels)
        if !is_zone(input)
            || zone_has_join(input)
            || !aggs.iter().all(mergeable)
            || !group_by.iter().all(pure)
            || !aggs.iter().all(|a| a.args.iter().all(pure))
        {
            return false;
        }
    } else if !is_source(input) || !aggs.iter().all(serial_batch_agg) {
        return false;
    }
    if !group_by.iter().all(typed)
        || !aggs
            .iter()
            .all(|a| a.args.iter().all(typed) && a.order_by.iter().all(|k| typed(&k.expr)))
    {
        return false;
    }
    if !source_types(input) {
        return false;
    }
    // COUNT(*) of a whole table reads only slot arrays in row mode too: nothing to vectorize
    let counts_only = group_by.is_empty()
        && aggs
            .iter()
            .all(|a| matches!(a.func, AggFunc::CountStar | AggFunc::CountBigStar));
    let bare_scan = matches!(
        &input.kind,
        PhysKind::TableScan {
            predicate: None,
            ..
        } | PhysKind::ClusteredIndexScan {
            predicate: None,
            ..
        }
    );
    if counts_only && bare_scan && hint != BatchModeHint::Allow {
        return false;
    }
    hint == BatchModeHint::Allow || scan_rows(input, catalog) >= BATCH_MODE_MIN_ROWS
}

/// A value type batch mode holds in a column vector: [`ExecMode::vectorizable_type`], and
/// varchar(max) / nvarchar(max) (string vectors; STRING_AGG's usual argument).
pub(crate) fn batch_type(t: &types::DataType) -> bool {
    ExecMode::vectorizable_type(t)
        || matches!(
            t,
            types::DataType::VarChar(None) | types::DataType::NVarChar(None)
        )
}

fn typed(e: &ScalarExpr) -> bool {
    serial_pure(e) && batch_type(&e.data_type)
}

/// An expression a serial batch pipeline evaluates: [`pure`] (what a parallel worker may
/// evaluate), and also the session's `@@` values (`@@DATEFIRST` in `DATEPART` of week or
/// weekday), which the session's own thread reads as row mode does.
fn serial_pure(e: &ScalarExpr) -> bool {
    match &e.kind {
        ScalarKind::Function {
            func: ScalarFunc::Named,
            name,
            args,
        } if name.starts_with("@@") => args.iter().all(serial_pure),
        ScalarKind::Function { func, name, args } => {
            // the function itself, without its arguments
            pure(&ScalarExpr {
                kind: ScalarKind::Function {
                    func: *func,
                    name: name.clone(),
                    args: Vec::new(),
                },
                data_type: e.data_type.clone(),
            }) && args.iter().all(serial_pure)
        }
        ScalarKind::Variable(_)
        | ScalarKind::Param(_)
        | ScalarKind::ScalarSubquery(_)
        | ScalarKind::Exists(_)
        | ScalarKind::InSubquery { .. }
        | ScalarKind::Quantified { .. } => false,
        _ => e.children().into_iter().all(serial_pure),
    }
}

/// Aggregates a serial batch aggregate computes: the mergeable ones, their DISTINCT forms,
/// and STRING_AGG (with WITHIN GROUP).
fn serial_batch_agg(a: &AggCall) -> bool {
    if a.func == AggFunc::StringAgg {
        return !a.distinct;
    }
    matches!(
        a.func,
        AggFunc::CountStar
            | AggFunc::Count
            | AggFunc::CountBigStar
            | AggFunc::CountBig
            | AggFunc::Sum
            | AggFunc::Avg
            | AggFunc::Min
            | AggFunc::Max
    )
}

/// A batch source: a zone, a Hash Match join (inner, left outer, left semi, left anti semi,
/// with keys) whose keys and residual are pure and vectorizable, of two batch sources or
/// *adapted* inputs, or Filter / Compute Scalar (pure) over a source. `adapt`: in a join's
/// build input, where any other operator whose output columns all have batch types runs in row
/// mode under a row→batch adapter (an aggregate, a merge join, a sort, an exchange, ...; Q18's
/// build side is an aggregate). An aggregate's own input is never just an adapter: batch mode
/// would only convert the rows.
fn is_source(op: &PhysOp) -> bool {
    is_source_in(op, false)
}

fn is_source_in(op: &PhysOp, adapt: bool) -> bool {
    // a Filter / Compute Scalar over an adapted input belongs to that input (batch mode
    // would only filter converted rows)
    let ok = match &op.kind {
        PhysKind::Filter { input, predicate } => {
            serial_pure(predicate) && is_source_in(input, false)
        }
        PhysKind::ComputeScalar { input, exprs } => {
            exprs.iter().all(serial_pure) && is_source_in(input, false)
        }
        PhysKind::HashJoin { .. } => is_batch_join(op),
        _ => is_zone(op),
    };
    ok || (adapt && adaptable(op))
}

/// A Hash Match join batch mode runs: any kind (inner, outer, semi, anti semi) with
/// equality keys, its keys and residual pure and vectorizable, probing with a source, building
/// from a source or an adapted input. Not an adapted probe side: every probe row would be
/// converted on its way through (TPC-H Q21's anti semi join probes 380k gathered rows) for
/// less than a row-mode probe costs; a build side is read whole anyway.
fn is_batch_join(op: &PhysOp) -> bool {
    let PhysKind::HashJoin {
        left,
        right,
        kind,
        left_keys,
        right_keys,
        residual,
    } = &op.kind
    else {
        return false;
    };
    *kind != JoinKind::Cross
        && !left_keys.is_empty()
        && left_keys.iter().chain(right_keys).all(typed)
        && residual.as_ref().is_none_or(serial_pure)
        && is_source_in(left, false)
        && is_source_in(right, true)
}

/// A row-mode input batch mode adapts: every output column has a batch type.
fn adaptable(op: &PhysOp) -> bool {
    op.columns.iter().all(|c| batch_type(&c.data_type))
}

/// Marks the source `op` (as [`is_source_in`] accepted it) batch mode; an adapted input
/// stays row mode and gets its own batch-mode choices (an aggregate in it may be one).
fn mark_source(op: &mut PhysOp, hint: BatchModeHint, catalog: &dyn Catalog, reads: Reads) {
    common::stack::grow(|| {
        let source = match &op.kind {
            PhysKind::Filter { input, predicate } => {
                serial_pure(predicate) && is_source_in(input, false)
            }
            PhysKind::ComputeScalar { input, exprs } => {
                exprs.iter().all(serial_pure) && is_source_in(input, false)
            }
            PhysKind::HashJoin { .. } => is_batch_join(op),
            _ => is_zone(op),
        };
        if !source {
            // the row→batch adapter's input, read whole (a join's build side)
            let reads = if reads == Reads::Never {
                Reads::Never
            } else {
                Reads::All
            };
            choose(op, hint, catalog, reads);
            return;
        }
        op.exec_mode = ExecMode::Batch;
        match &mut op.kind {
            PhysKind::Filter { input, .. } | PhysKind::ComputeScalar { input, .. } => {
                mark_source(input, hint, catalog, reads)
            }
            PhysKind::HashJoin { left, right, .. } => {
                mark_source(left, hint, catalog, reads);
                mark_source(right, hint, catalog, reads);
            }
            // the scan
            _ => mark(op),
        }
    })
}

/// Whether the partial aggregate `op` of a zone with hash joins can run in batch mode on
/// each worker (the parallel pass decides on cost whether it does, [`mark_partial_join`]):
/// the probe path is a batch pipeline and every build side's rows have batch types (the
/// coordinator reads a build side once, as a batch source or row by row, and the workers
/// probe its vectors).
pub(crate) fn partial_join_eligible(
    op: &PhysOp,
    hint: BatchModeHint,
    catalog: &dyn Catalog,
) -> bool {
    let PhysKind::PartialAggregate {
        input,
        group_by,
        aggs,
    } = &op.kind
    else {
        return false;
    };
    fn probe_path(op: &PhysOp) -> bool {
        match &op.kind {
            PhysKind::Filter { input, .. } => probe_path(input),
            PhysKind::ComputeScalar { input, exprs } => {
                exprs.iter().all(|e| batch_type(&e.data_type)) && probe_path(input)
            }
            PhysKind::HashJoin {
                left,
                right,
                left_keys,
                right_keys,
                ..
            } => {
                !left_keys.is_empty()
                    && left_keys.iter().chain(right_keys).all(typed)
                    && build_types(right)
                    && probe_path(left)
            }
            _ => source_types(op),
        }
    }
    fn build_types(op: &PhysOp) -> bool {
        match &op.kind {
            PhysKind::Parallelism { input, .. } => build_types(input),
            _ => source_types(op) || op.columns.iter().all(|c| batch_type(&c.data_type)),
        }
    }
    is_zone(input)
        && zone_has_join(input)
        && aggs.iter().all(mergeable)
        && group_by.iter().all(typed)
        && aggs.iter().all(|a| a.args.iter().all(typed))
        && probe_path(input)
        && (hint == BatchModeHint::Allow || scan_rows(input, catalog) >= BATCH_MODE_MIN_ROWS)
}

/// Marks the partial aggregate of a zone with hash joins, its probe path and its joins as
/// batch mode, and each build side that is a batch source (the coordinator then reads it in
/// batch mode; any other build side stays in row mode, read row by row).
pub(crate) fn mark_partial_join(op: &mut PhysOp) {
    op.exec_mode = ExecMode::Batch;
    let mut cur = op.children_mut().into_iter().next();
    while let Some(o) = cur {
        o.exec_mode = ExecMode::Batch;
        cur = match &mut o.kind {
            PhysKind::Filter { input, .. } | PhysKind::ComputeScalar { input, .. } => {
                Some(&mut **input)
            }
            PhysKind::HashJoin { left, right, .. } => {
                if batch_build(right) {
                    mark(right);
                }
                Some(&mut **left)
            }
            _ => None,
        };
    }
}

/// Whether a join build side is a batch source the coordinator reads in batch mode when the
/// workers probe in batch mode ([`mark_partial_join`] marks it).
pub(crate) fn batch_build(op: &PhysOp) -> bool {
    is_source(op) && source_types(op)
}

/// Whether a parallel zone holds a hash join (parallelize's shared-build join).
fn zone_has_join(op: &PhysOp) -> bool {
    match &op.kind {
        PhysKind::HashJoin { .. } => true,
        PhysKind::Filter { input, .. } | PhysKind::ComputeScalar { input, .. } => {
            zone_has_join(input)
        }
        _ => false,
    }
}

/// Every column the sources decode or compute has a batch type.
fn source_types(op: &PhysOp) -> bool {
    match &op.kind {
        PhysKind::TableScan { source, .. } | PhysKind::ClusteredIndexScan { source, .. } => {
            source.table.columns.iter().enumerate().all(|(i, c)| {
                let needed = source
                    .needed
                    .as_ref()
                    .is_none_or(|n| n.get(i).copied().unwrap_or(true));
                !needed || batch_type(&c.data_type)
            })
        }
        PhysKind::Filter { input, .. } => source_types(input),
        PhysKind::ComputeScalar { input, exprs } => {
            exprs.iter().all(|e| batch_type(&e.data_type)) && source_types(input)
        }
        PhysKind::HashJoin { left, right, .. } => source_types(left) && source_types(right),
        // an adapted input: its output columns
        _ => adaptable(op),
    }
}

/// The rows the source's largest scan reads: the table's rows (a pushed-down predicate does
/// not make the read smaller), else the scan's estimate.
pub(crate) fn scan_rows(op: &PhysOp, catalog: &dyn Catalog) -> f64 {
    match &op.kind {
        PhysKind::Filter { input, .. } | PhysKind::ComputeScalar { input, .. } => {
            scan_rows(input, catalog)
        }
        PhysKind::HashJoin { left, right, .. } => {
            scan_rows(left, catalog).max(scan_rows(right, catalog))
        }
        PhysKind::TableScan { source, .. } | PhysKind::ClusteredIndexScan { source, .. } => {
            match catalog.table_rows(&source.table) {
                Some(n) => (n as f64).max(op.est_rows),
                None => op.est_rows,
            }
        }
        _ => op.est_rows,
    }
}

fn mark(op: &mut PhysOp) {
    op.exec_mode = ExecMode::Batch;
    for c in op.children_mut() {
        mark(c);
    }
}
