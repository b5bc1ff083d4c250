//! `SET ROWCOUNT n`: SQL Server stops a SELECT (including SELECT INTO and variable
//! assignment), INSERT, UPDATE or DELETE after n rows. The cached plan stays as it was: at run
//! time the statement's row source is wrapped in a TOP (n) operator (an existing TOP keeps
//! the smaller of the two limits).

use plan::{PhysKind, PhysOp, PhysicalPlan, ScalarExpr, Statement, TopSpec};
use types::{DataType, Value};

fn top(input: &PhysOp, n: i64) -> PhysOp {
    PhysOp {
        columns: input.columns.clone(),
        est_rows: input.est_rows.min(n as f64),
        cost: input.cost,
        // not part of the plan showplan shows: no actual counters of its own
        node_id: plan::HIDDEN_NODE,
        exec_mode: plan::ExecMode::Row,
        kind: PhysKind::Top {
            input: Box::new(input.clone()),
            spec: TopSpec {
                count: Some(ScalarExpr::literal(Value::BigInt(n), DataType::BigInt)),
                percent: false,
                with_ties: Vec::new(),
                offset: None,
            },
        },
    }
}

/// `plan` limited to `n` rows (n > 0); None for statements SET ROWCOUNT does not limit.
pub(crate) fn limit_rows(plan: &PhysicalPlan, n: i64) -> Option<PhysicalPlan> {
    let mut p = plan.clone();
    match &mut p {
        Statement::Select { input, .. }
        | Statement::Update { input, .. }
        | Statement::Delete { input, .. } => *input = top(input, n),
        Statement::Insert { source, .. } | Statement::SelectInto { source, .. } => {
            *source = top(source, n)
        }
        Statement::Truncate { .. } => return None,
    }
    Some(p)
}
