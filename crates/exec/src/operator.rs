//! The row-mode operator interface and the plan → operator tree builder.

use common::SqlResult;
use plan::{PhysKind, PhysOp};
use types::Value;

use crate::context::ExecCtx;

/// A row-mode iterator. `open` (re)starts it — operators can be re-opened (inner side of nested
/// loops); `next` advances and returns false at the end; `row` is the current row, valid until
/// the next call to `next`/`open`.
pub trait Operator {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()>;
    fn next(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool>;
    fn row(&self) -> &[Value];
    fn close(&mut self) {}
    /// Counts (and consumes) the remaining rows without producing them, when the operator can
    /// do so cheaply (an unfiltered scan); `None` = not supported, nothing consumed.
    fn count_rows(&mut self, _ctx: &mut ExecCtx) -> SqlResult<Option<u64>> {
        Ok(None)
    }
    /// A spool's (rebinds, rewinds) so far (actual plans' ActualRebinds / ActualRewinds);
    /// None for operators that are no spool.
    fn spool_counts(&self) -> Option<(u64, u64)> {
        None
    }
    /// Appends up to `max` rows, back to back, to `out` and says how many (fewer than `max`:
    /// the end was reached). An exchange moves rows with it (`parallel::gather`); the
    /// batch→row adapter decodes its vectors straight into `out`.
    fn next_rows(
        &mut self,
        ctx: &mut ExecCtx,
        out: &mut Vec<Value>,
        max: usize,
    ) -> SqlResult<usize> {
        let mut n = 0;
        while n < max && self.next(ctx)? {
            out.extend_from_slice(self.row());
            n += 1;
        }
        Ok(n)
    }
}

/// A boxed operator borrowing its plan.
pub type BoxOp<'p> = Box<dyn Operator + 'p>;

/// Which output columns of `op` can be non-NULL, when a pruned scan (`TableSource::needed`)
/// leaves the others NULL; `None` = unknown / all. Operators that store rows (hash join build)
/// skip the always-NULL ones.
pub(crate) fn decoded_columns(op: &PhysOp) -> Option<Vec<bool>> {
    match &op.kind {
        PhysKind::TableScan { source, .. }
        | PhysKind::ClusteredIndexScan { source, .. }
        | PhysKind::IndexSeek { source, .. } => {
            let mut v = source.needed.clone()?;
            v.resize(source.table.columns.len(), true);
            if source.with_locator {
                v.push(true);
            }
            (v.len() == op.columns.len()).then_some(v)
        }
        PhysKind::Filter { input, .. } => decoded_columns(input),
        _ => None,
    }
}

/// Builds the operator tree for `op`.
/// Every operator a plan shows is wrapped in [`crate::actuals::Counted`] (its actual counters).
pub fn build(op: &PhysOp) -> SqlResult<BoxOp<'_>> {
    common::stack::grow(|| {
        let inner = build_unguarded(op)?;
        if op.node_id == plan::HIDDEN_NODE {
            return Ok(inner);
        }
        Ok(Box::new(crate::actuals::Counted::new(inner, op.node_id)) as BoxOp<'_>)
    })
}

fn build_unguarded(op: &PhysOp) -> SqlResult<BoxOp<'_>> {
    if crate::batch::is_batch_aggregate(op) {
        return Ok(crate::batch::build(op, build_row_mode(op)?));
    }
    if crate::batch::is_batch_sort(op) {
        return Ok(crate::batch::build_sort(op));
    }
    if crate::batch::is_adapted_source(op) {
        return Ok(crate::batch::build_rows(op));
    }
    build_row_mode(op)
}

/// The row-mode operator of `op` (whatever its `exec_mode`; children are built by [`build`],
/// so a batch-marked child runs under the batch→row adapter).
pub(crate) fn build_row_mode(op: &PhysOp) -> SqlResult<BoxOp<'_>> {
    use crate::*;
    Ok(match &op.kind {
        PhysKind::ConstantScan { rows } => Box::new(constant_scan::ConstantScan::new(rows)),
        PhysKind::VirtualScan { table } => Box::new(constant_scan::VirtualScan::new(&table.rows)),
        PhysKind::Filter { input, predicate } => {
            Box::new(filter::Filter::new(build(input)?, predicate))
        }
        PhysKind::ComputeScalar { input, exprs } => {
            Box::new(compute_scalar::ComputeScalar::new(build(input)?, exprs))
        }
        PhysKind::NestedLoops {
            outer,
            inner,
            kind,
            predicate,
            params,
        } => Box::new(nested_loops::NestedLoops::new(
            build(outer)?,
            build(inner)?,
            *kind,
            predicate.as_ref(),
            params,
            inner.columns.len(),
        )),
        PhysKind::HashJoin {
            left,
            right,
            kind,
            left_keys,
            right_keys,
            residual,
        } => Box::new(
            hash_match::HashJoin::new(
                build(left)?,
                build(right)?,
                *kind,
                left_keys,
                right_keys,
                residual.as_ref(),
                left.columns.len(),
                right.columns.len(),
                decoded_columns(right),
            )
            .for_node(op as *const PhysOp as usize),
        ),
        PhysKind::MergeJoin {
            left,
            right,
            kind,
            left_keys,
            right_keys,
            residual,
        } => Box::new(merge_join::MergeJoin::new(
            build(left)?,
            build(right)?,
            *kind,
            left_keys,
            right_keys,
            residual.as_ref(),
            left.columns.len(),
            right.columns.len(),
        )),
        PhysKind::Sort {
            input,
            keys,
            top,
            distinct,
        } => Box::new(sort::Sort::new(
            build(input)?,
            keys,
            top.as_ref(),
            *distinct,
        )),
        PhysKind::HashAggregate {
            input,
            group_by,
            aggs,
            grouping_sets,
        } => Box::new(hash_aggregate::HashAggregate::new(
            build(input)?,
            group_by,
            aggs,
            grouping_sets.as_ref(),
        )),
        PhysKind::StreamAggregate {
            input,
            group_by,
            aggs,
        } => Box::new(stream_aggregate::StreamAggregate::new(
            build(input)?,
            group_by,
            aggs,
        )),
        PhysKind::Top { input, spec } => Box::new(top::Top::new(build(input)?, spec)),
        PhysKind::Window { input, calls } => {
            Box::new(window::Window::for_plan(build(input)?, calls, input))
        }
        PhysKind::Concatenation { inputs } => Box::new(concatenation::Concatenation::new(
            inputs.iter().map(build).collect::<SqlResult<Vec<_>>>()?,
        )),
        PhysKind::HashSetOp {
            kind,
            all,
            left,
            right,
        } => Box::new(set_ops::HashSetOp::new(
            *kind,
            *all,
            build(left)?,
            build(right)?,
        )),
        PhysKind::HashDistinct { input } => Box::new(set_ops::HashDistinct::new(build(input)?)),
        PhysKind::TableSpool { input } => Box::new(spool::TableSpool::new(build(input)?)),
        PhysKind::RecursiveCte {
            id,
            anchor,
            recursive,
            max_recursion,
        } => Box::new(recursive_cte::RecursiveCte::new(
            *id,
            build(anchor)?,
            build(recursive)?,
            *max_recursion,
        )),
        PhysKind::WorkTableScan { id } => Box::new(recursive_cte::WorkTableScan::new(*id)),
        PhysKind::TableFunction { func, args } => Box::new(table_function::TableFunctionScan::new(
            func,
            args,
            &op.columns,
        )),
        PhysKind::TableScan { source, predicate } => Box::new(table_scan::TableScan::new(
            source,
            predicate.as_ref(),
            false,
            false,
        )),
        PhysKind::ClusteredIndexScan {
            source,
            predicate,
            backward,
            ..
        } => Box::new(table_scan::TableScan::new(
            source,
            predicate.as_ref(),
            true,
            *backward,
        )),
        PhysKind::Parallelism { input, .. } if parallel::is_repartitioned_aggregate(input) => {
            Box::new(parallel::RepartitionedAggregate::new(op))
        }
        PhysKind::Parallelism { input, dop } => Box::new(parallel::Gather::new(input, *dop)),
        PhysKind::Repartition { .. } => {
            return Err(common::SqlError::internal(
                "a Repartition Streams outside a repartitioned aggregate",
            ))
        }
        PhysKind::GlobalAggregate { .. } => Box::new(parallel::GlobalAggregate::new(op)),
        PhysKind::PartialAggregate { .. } => {
            return Err(common::SqlError::internal(
                "a partial aggregate outside a parallel zone",
            ))
        }
        PhysKind::IndexSeek {
            source,
            index,
            range,
            predicate,
            backward,
        } => Box::new(index_seek::IndexSeek::new(
            source,
            *index,
            range,
            predicate.as_ref(),
            *backward,
        )),
    })
}
