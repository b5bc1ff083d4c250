//! `optimizer`: turns a bound logical statement into a physical plan.
//!
//! This first planner is rule based: a fixed sequence of named rewrites (see [`rules::RULES`],
//! each can be switched off by name through [`Options::disabled_rules`]) chosen so a future
//! cost-based optimizer (memo + cost model) can replace [`optimize`] behind the same interface.
//! [`explain`] renders a physical plan in SHOWPLAN_TEXT style.
//!
//! What does NOT belong here: storage access or execution (exec), name binding (plan).

mod explain;
mod planner;
pub mod rules;

use catalog::Catalog;
use common::SqlResult;
use plan::{BoundStatement, PhysicalPlan};

pub use explain::explain;

/// Optimizer switches.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Rule names (see [`rules::RULES`]) that must not fire (`OPTION (QUERYRULEOFF name)`).
    pub disabled_rules: Vec<String>,
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
    p.statement(stmt)
}
