//! Column pruning (rule `PruneColumns`): walks the physical plan top-down with the set of
//! output columns each operator's parent reads and records, on every table access, which
//! table columns are needed; scans then skip decoding the others.

use plan::*;

fn used(e: &ScalarExpr, out: &mut [bool]) {
    let mut v = Vec::new();
    e.columns_used(&mut v);
    for i in v {
        if let Some(x) = out.get_mut(i) {
            *x = true;
        }
    }
}

fn all(n: usize) -> Vec<bool> {
    vec![true; n]
}

fn set_needed(src: &mut TableSource, req: &[bool], extra: &[&ScalarExpr]) {
    let n = src.table.columns.len();
    let mut need: Vec<bool> = (0..n)
        .map(|i| req.get(i).copied().unwrap_or(true))
        .collect();
    for e in extra {
        used(e, &mut need);
    }
    src.needed = if need.iter().all(|b| *b) {
        None
    } else {
        Some(need)
    };
}

/// Prunes below `op`, whose parent reads the output columns flagged in `req`.
pub(crate) fn prune(op: &mut PhysOp, req: &[bool]) {
    common::stack::grow(|| prune_unguarded(op, req))
}

fn prune_unguarded(op: &mut PhysOp, req: &[bool]) {
    let arity_of = |o: &PhysOp| o.columns.len();
    match &mut op.kind {
        PhysKind::TableScan { source, predicate }
        | PhysKind::ClusteredIndexScan {
            source, predicate, ..
        } => {
            let extra: Vec<&ScalarExpr> = predicate.iter().collect();
            set_needed(source, req, &extra);
        }
        PhysKind::IndexSeek {
            source, predicate, ..
        } => {
            let extra: Vec<&ScalarExpr> = predicate.iter().collect();
            set_needed(source, req, &extra);
        }
        PhysKind::ConstantScan { .. }
        | PhysKind::VirtualScan { .. }
        | PhysKind::WorkTableScan { .. }
        | PhysKind::TableFunction { .. } => {}
        // the parallel pass runs after pruning: its nodes never reach here
        PhysKind::Parallelism { .. }
        | PhysKind::Repartition { .. }
        | PhysKind::PartialAggregate { .. }
        | PhysKind::GlobalAggregate { .. } => {}
        PhysKind::Filter { input, predicate } => {
            let mut r = req.to_vec();
            r.resize(arity_of(input), false);
            used(predicate, &mut r);
            prune(input, &r);
        }
        PhysKind::ComputeScalar { input, exprs } => {
            let mut r = vec![false; arity_of(input)];
            for (i, e) in exprs.iter().enumerate() {
                if req.get(i).copied().unwrap_or(true) {
                    used(e, &mut r);
                }
            }
            prune(input, &r);
        }
        PhysKind::NestedLoops {
            outer,
            inner,
            predicate,
            params,
            kind,
        } => {
            let la = arity_of(outer);
            let ra = arity_of(inner);
            let right_out = kind.outputs_right();
            let mut both: Vec<bool> = (0..la + ra)
                .map(|i| req.get(i).copied().unwrap_or(i < la || right_out))
                .collect();
            if let Some(p) = predicate {
                used(p, &mut both);
            }
            let mut l = both[..la].to_vec();
            for (_, e) in params.iter() {
                used(e, &mut l);
            }
            let r = both[la..].to_vec();
            prune(outer, &l);
            prune(inner, &r);
        }
        PhysKind::HashJoin {
            left,
            right,
            kind,
            left_keys,
            right_keys,
            residual,
        }
        | PhysKind::MergeJoin {
            left,
            right,
            kind,
            left_keys,
            right_keys,
            residual,
        } => {
            let la = arity_of(left);
            let ra = arity_of(right);
            // a semi / anti semi join outputs only its left columns: the right ones are read
            // by the keys and the residual alone (not all of them, as for an unknown request)
            let right_out = kind.outputs_right();
            let mut both: Vec<bool> = if kind.outputs_left() {
                (0..la + ra)
                    .map(|i| req.get(i).copied().unwrap_or(i < la || right_out))
                    .collect()
            } else {
                // a right semi / anti semi join outputs only its right columns: the left ones
                // are read by the keys and the residual alone
                (0..la + ra)
                    .map(|i| i >= la && req.get(i - la).copied().unwrap_or(true))
                    .collect()
            };
            if let Some(p) = residual {
                used(p, &mut both);
            }
            let mut l = both[..la].to_vec();
            let mut r = both[la..].to_vec();
            for k in left_keys.iter() {
                used(k, &mut l);
            }
            for k in right_keys.iter() {
                used(k, &mut r);
            }
            prune(left, &l);
            prune(right, &r);
        }
        PhysKind::Sort { input, keys, .. } => {
            let mut r = req.to_vec();
            r.resize(arity_of(input), false);
            for k in keys.iter() {
                used(&k.expr, &mut r);
            }
            prune(input, &r);
        }
        PhysKind::Top { input, spec } => {
            let mut r = req.to_vec();
            r.resize(arity_of(input), false);
            for k in &spec.with_ties {
                used(&k.expr, &mut r);
            }
            prune(input, &r);
        }
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
        } => {
            let mut r = vec![false; arity_of(input)];
            for g in group_by.iter() {
                used(g, &mut r);
            }
            for a in aggs.iter() {
                for e in &a.args {
                    used(e, &mut r);
                }
                for k in &a.order_by {
                    used(&k.expr, &mut r);
                }
            }
            prune(input, &r);
        }
        PhysKind::Window { input, calls } => {
            let n = arity_of(input);
            let mut r: Vec<bool> = (0..n)
                .map(|i| req.get(i).copied().unwrap_or(true))
                .collect();
            for c in calls.iter() {
                for e in c.args.iter().chain(c.partition_by.iter()) {
                    used(e, &mut r);
                }
                for k in &c.order_by {
                    used(&k.expr, &mut r);
                }
            }
            prune(input, &r);
        }
        PhysKind::Concatenation { inputs } => {
            for i in inputs.iter_mut() {
                let n = arity_of(i);
                prune(i, &all(n));
            }
        }
        PhysKind::HashSetOp { left, right, .. } => {
            let (l, r) = (arity_of(left), arity_of(right));
            prune(left, &all(l));
            prune(right, &all(r));
        }
        PhysKind::HashDistinct { input } => {
            let n = arity_of(input);
            prune(input, &all(n));
        }
        // rows pass through unchanged
        PhysKind::TableSpool { input } => prune(input, req),
        PhysKind::RecursiveCte {
            anchor, recursive, ..
        } => {
            let (a, r) = (arity_of(anchor), arity_of(recursive));
            prune(anchor, &all(a));
            prune(recursive, &all(r));
        }
    }
}
