//! `optimizer`: turns a bound logical statement into a physical plan.
//!
//! This first planner is rule based: a fixed sequence of named rewrites (see [`rules::RULES`],
//! each can be switched off by name through [`Options::disabled_rules`]) chosen so a future
//! cost-based optimizer (memo + cost model) can replace [`optimize`] behind the same interface.
//! [`explain`] renders a physical plan in SHOWPLAN_TEXT style.
//!
//! What does NOT belong here: storage access or execution (exec), name binding (plan).

mod decorrelate;
mod explain;
mod planner;
mod prune;
pub mod rules;
pub mod showplan_rows;
pub mod showplan_xml;

use catalog::Catalog;
use common::SqlResult;
use plan::{BoundStatement, PhysicalPlan};

pub use explain::explain;

/// Optimizer switches.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Rule names (see [`rules::RULES`]) that must not fire (`OPTION (QUERYRULEOFF name)`).
    pub disabled_rules: Vec<String>,
    /// `OPTION (HASH GROUP | ORDER GROUP)`: the strategies GROUP BY and DISTINCT may use. None
    /// set: the planner's choice (hash).
    pub group: GroupHints,
    /// `OPTION (CONCAT | HASH | MERGE UNION)`: the strategies UNION may use.
    pub union: UnionHints,
}

/// Aggregation strategies allowed by `OPTION (HASH GROUP, ORDER GROUP)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GroupHints {
    pub hash: bool,
    pub order: bool,
}

/// UNION strategies allowed by `OPTION (CONCAT UNION, HASH UNION, MERGE UNION)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UnionHints {
    pub concat: bool,
    pub hash: bool,
    pub merge: bool,
}

/// Prepares a standalone scalar expression from [`plan::bind_scalar`] for evaluation: plans the
/// subqueries inside it (`SET @v = (SELECT ...)`, `IF EXISTS (...)`). Call it before
/// `exec::eval_scalar` whenever the expression may contain a subquery (it is cheap otherwise).
pub fn optimize_scalar(
    expr: plan::ScalarExpr,
    _catalog: &dyn Catalog,
) -> SqlResult<plan::ScalarExpr> {
    let opts = Options::default();
    let mut p = planner::Planner::new(&opts);
    p.expr(expr)
}

/// Optimizes a bound statement with default options.
pub fn optimize(stmt: BoundStatement, catalog: &dyn Catalog) -> SqlResult<PhysicalPlan> {
    optimize_with(stmt, catalog, &Options::default())
}

/// Optimizes a bound statement.
pub fn optimize_with(
    stmt: BoundStatement,
    _catalog: &dyn Catalog,
    options: &Options,
) -> SqlResult<PhysicalPlan> {
    let mut p = planner::Planner::new(options);
    let mut plan = p.statement(stmt)?;
    if !options
        .disabled_rules
        .iter()
        .any(|r| r.eq_ignore_ascii_case("PruneColumns"))
    {
        match &mut plan {
            plan::Statement::Select { input, .. }
            | plan::Statement::Insert { source: input, .. }
            | plan::Statement::SelectInto { source: input, .. } => {
                let n = input.columns.len();
                prune::prune(input, &vec![true; n]);
            }
            _ => {}
        }
    }
    showplan_xml::number_nodes(&mut plan);
    Ok(plan)
}
