//! The rows of `SET SHOWPLAN_ALL ON` and `SET STATISTICS PROFILE ON`: one per operator line
//! of [`crate::explain`], in the same order, with the estimate columns filled from
//! `PhysOp::est_rows` / `PhysOp::cost`.
//!
//! NodeId / Parent follow SQL Server's text plans: the statement row is node 1 with parent 0;
//! an operator shown as showplan XML node `n` is node `n + 2`.

use plan::*;

use crate::explain::{explain, names_of, table_names};
use crate::showplan_xml::{
    avg_row_size, display_children, dml_root, extra_nodes, is_pure_projection, op_names,
};

/// Offset from a showplan XML NodeId to the text plans' NodeId.
pub const TEXT_NODE_OFFSET: u32 = 2;

/// One operator row of a text plan.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanRow {
    /// The explain line (`  |--Clustered Index Seek(...)`).
    pub stmt_text: String,
    /// The showplan XML NodeId of the operator.
    pub xml_node_id: u32,
    /// The exec operator whose actual counters the row shows (`PhysOp::node_id`; an extra
    /// row of a physical operator shows that operator's), and whether the row is a lookup
    /// (executed once per row of its seek).
    pub actual_node: u32,
    pub lookup: bool,
    pub node_id: u32,
    pub parent: u32,
    pub physical_op: String,
    pub logical_op: String,
    pub argument: Option<String>,
    pub defined_values: Option<String>,
    pub estimate_rows: f64,
    pub estimate_io: f64,
    pub estimate_cpu: f64,
    pub avg_row_size: f64,
    pub total_subtree_cost: f64,
    pub output_list: Option<String>,
    pub estimate_executions: f64,
}

/// The operator rows of a plan (the statement row is the caller's: it knows the text).
pub fn plan_rows(plan: &PhysicalPlan) -> Vec<PlanRow> {
    let text = explain(plan);
    let lines: Vec<&str> = text.lines().collect();
    let mut rows = Vec::new();
    let stmt_node = 1;
    match (dml_root(plan), crate::showplan_xml::plan_root(plan)) {
        (Some((phys, logical, _)), Some(input)) => {
            rows.push(PlanRow {
                stmt_text: String::new(),
                xml_node_id: 0,
                actual_node: 0,
                lookup: false,
                node_id: TEXT_NODE_OFFSET,
                parent: stmt_node,
                physical_op: phys.into(),
                logical_op: logical.into(),
                argument: None,
                defined_values: None,
                estimate_rows: input.est_rows,
                estimate_io: 0.0,
                estimate_cpu: 0.0,
                avg_row_size: 9.0,
                total_subtree_cost: input.cost.subtree,
                output_list: None,
                estimate_executions: 1.0,
            });
            walk(input, TEXT_NODE_OFFSET, &mut rows);
        }
        (None, Some(input)) => walk(input, stmt_node, &mut rows),
        _ => {
            // TRUNCATE: one operator line, no plan tree
            if let Some(l) = lines.first() {
                rows.push(PlanRow {
                    stmt_text: l.to_string(),
                    xml_node_id: 0,
                    actual_node: 0,
                    lookup: false,
                    node_id: TEXT_NODE_OFFSET,
                    parent: stmt_node,
                    physical_op: "Truncate Table".into(),
                    logical_op: "Truncate Table".into(),
                    argument: argument_of(l),
                    defined_values: None,
                    estimate_rows: 0.0,
                    estimate_io: 0.0,
                    estimate_cpu: 0.0,
                    avg_row_size: 9.0,
                    total_subtree_cost: 0.0,
                    output_list: None,
                    estimate_executions: 1.0,
                });
            }
            return rows;
        }
    }
    // Fill StmtText / Argument from explain's lines, which list the same operators in the
    // same order (a mismatch would be a bug in one of the two walkers: keep the names then).
    if lines.len() == rows.len() {
        for (r, l) in rows.iter_mut().zip(lines) {
            r.stmt_text = l.to_string();
            if r.argument.is_none() {
                r.argument = argument_of(l);
            }
        }
    } else {
        for r in rows.iter_mut() {
            r.stmt_text = format!("  |--{}", r.physical_op);
        }
    }
    rows
}

/// `Clustered Index Seek(OBJECT:(...), SEEK:(...))` -> `OBJECT:(...), SEEK:(...)`.
fn argument_of(line: &str) -> Option<String> {
    let body = line.trim_start().trim_start_matches("|--");
    let (_, rest) = body.split_once('(')?;
    let arg = rest.strip_suffix(')').unwrap_or(rest);
    (!arg.is_empty()).then(|| arg.to_string())
}

fn output_list(op: &PhysOp) -> Option<String> {
    let names = match &op.kind {
        PhysKind::TableScan { source, .. }
        | PhysKind::ClusteredIndexScan { source, .. }
        | PhysKind::IndexSeek { source, .. } => table_names(source),
        _ => names_of(&op.columns),
    };
    let mut names: Vec<String> = names.into_iter().take(op.columns.len()).collect();
    names.retain(|n| n != "[Bmk]");
    (!names.is_empty()).then(|| names.join(", "))
}

fn defined_values(op: &PhysOp) -> Option<String> {
    match &op.kind {
        PhysKind::TableScan { .. }
        | PhysKind::ClusteredIndexScan { .. }
        | PhysKind::IndexSeek { .. } => output_list(op),
        PhysKind::ComputeScalar { input, exprs } => {
            let names = names_of(&input.columns);
            let defs: Vec<String> = exprs
                .iter()
                .enumerate()
                .filter(|(_, e)| e.as_column().is_none())
                .map(|(i, e)| format!("[Expr{}]={}", 1000 + i, crate::explain::expr(e, &names)))
                .collect();
            (!defs.is_empty()).then(|| defs.join(", "))
        }
        PhysKind::HashAggregate { group_by, aggs, .. }
        | PhysKind::StreamAggregate { group_by, aggs, .. } => {
            let names = names_of(&op.columns);
            let defs: Vec<String> = (0..aggs.len())
                .filter_map(|i| names.get(group_by.len() + i).cloned())
                .collect();
            (!defs.is_empty()).then(|| defs.join(", "))
        }
        _ => None,
    }
}

fn row(op: &PhysOp, xml_node: u32, parent: u32, names: (&str, &str)) -> PlanRow {
    PlanRow {
        stmt_text: String::new(),
        xml_node_id: xml_node,
        actual_node: op.node_id,
        lookup: false,
        node_id: xml_node.saturating_add(TEXT_NODE_OFFSET),
        parent,
        physical_op: names.0.into(),
        logical_op: names.1.into(),
        argument: None,
        defined_values: defined_values(op),
        estimate_rows: op.est_rows,
        estimate_io: op.cost.io,
        estimate_cpu: op.cost.cpu,
        avg_row_size: avg_row_size(&op.columns),
        total_subtree_cost: op.cost.subtree,
        output_list: output_list(op),
        estimate_executions: op.cost.executions.max(1.0),
    }
}

/// Mirrors explain's walk: a pure projection is not shown, a nonclustered seek is three lines,
/// a window two.
fn walk(op: &PhysOp, parent: u32, rows: &mut Vec<PlanRow>) {
    common::stack::grow(|| walk_unguarded(op, parent, rows))
}

fn walk_unguarded(op: &PhysOp, parent: u32, rows: &mut Vec<PlanRow>) {
    if let (true, Some(child)) = (is_pure_projection(op), op.children().first()) {
        return walk(child, parent, rows);
    }
    let me = op.node_id.saturating_add(TEXT_NODE_OFFSET);
    match &op.kind {
        PhysKind::IndexSeek { source, .. } if extra_nodes(op) > 0 => {
            rows.push(PlanRow {
                estimate_io: 0.0,
                defined_values: None,
                ..row(op, op.node_id, parent, ("Nested Loops", "Inner Join"))
            });
            rows.push(PlanRow {
                output_list: Some("[Bmk1000]".into()),
                ..row(op, op.node_id + 1, me, ("Index Seek", "Index Seek"))
            });
            let lookup = match source.table.storage {
                catalog::TableStorage::Heap(_) => "RID Lookup",
                catalog::TableStorage::Clustered { .. } => "Key Lookup",
            };
            rows.push(PlanRow {
                lookup: true,
                estimate_rows: 1.0,
                estimate_io: 0.0,
                estimate_cpu: 0.0,
                ..row(op, op.node_id + 2, me, (lookup, lookup))
            });
            return;
        }
        PhysKind::Window { input, .. } => {
            rows.push(row(op, op.node_id, parent, op_names(op)));
            rows.push(PlanRow {
                defined_values: None,
                ..row(input, op.node_id + 1, me, ("Segment", "Segment"))
            });
            return walk(input, me + 1, rows);
        }
        _ => rows.push(row(op, op.node_id, parent, op_names(op))),
    }
    for c in display_children(op) {
        walk(c, me, rows);
    }
}
