//! `optimizer`: turns a bound logical statement into a physical plan.
//!
//! This first planner is rule based: a fixed sequence of named rewrites (see [`rules::RULES`],
//! each can be switched off by name through [`Options::disabled_rules`]) chosen so a future
//! cost-based optimizer (memo + cost model) can replace [`optimize`] behind the same interface.
//! [`explain`] renders a physical plan in SHOWPLAN_TEXT style.
//!
//! What does NOT belong here: storage access or execution (exec), name binding (plan).

mod agg_subquery;
pub mod batch_mode;
pub mod cardinality;
mod common_conjuncts;
pub mod composite_key;
pub mod cost;
mod costed;
mod covering;
mod decorrelate;
mod distribution;
mod explain;
mod gb_agg_before_join;
mod having_estimate;
mod join_order;
mod join_search;
pub mod memo;
mod memo_record;
mod outer_join;
mod parallelize;
mod planner;
mod prune;
mod quantified;
mod residual_estimate;
mod row_goal;
pub mod rules;
pub mod search_stages;
mod semi_join_pushdown;
pub mod showplan_rows;
pub mod showplan_xml;
mod spool;
mod stats_prefetch;

use catalog::Catalog;
use common::SqlResult;
use plan::{BoundStatement, PhysicalPlan};

pub use explain::{explain, explain_op};

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
    /// `OPTION (FORCE ORDER)`: inner joins keep the written order and sides.
    pub force_order: bool,
    /// Workers a parallel zone may use (the engine resolves `OPTION (MAXDOP n)`, else `max
    /// degree of parallelism`, 0 = the cores); 0 or 1 = a serial plan.
    pub max_dop: u16,
    /// `cost threshold for parallelism`: cheaper plans stay serial.
    pub cost_threshold: f64,
    /// `USE HINT ('DISABLE_OPTIMIZER_ROWGOAL')` / `QUERYTRACEON 4138`: no row goals — plans
    /// are chosen and shown by their full costs (`row_goal.rs`).
    pub disable_row_goal: bool,
    /// `OPTION (FAST n)`: a row goal of n on the statement's result.
    pub fast: Option<u32>,
    /// `OPTION (LOOP | HASH | MERGE JOIN)`: the join strategy of the semi / anti semi joins
    /// the planner makes from EXISTS / NOT EXISTS / IN subqueries (the binder applies it to
    /// the written joins).
    pub join_hint: Option<plan::JoinHint>,
    /// `USE HINT ('DISALLOW_BATCH_MODE' | 'ALLOW_BATCH_MODE')` ([`batch_mode`]).
    pub batch_mode: batch_mode::BatchModeHint,
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
    catalog: &dyn Catalog,
) -> SqlResult<plan::ScalarExpr> {
    let opts = Options::default();
    let mut p = planner::Planner::new(&opts, catalog);
    p.expr(expr)
}

/// Optimizes a bound statement with default options.
pub fn optimize(stmt: BoundStatement, catalog: &dyn Catalog) -> SqlResult<PhysicalPlan> {
    optimize_with(stmt, catalog, &Options::default())
}

/// Optimizes a bound statement.
pub fn optimize_with(
    stmt: BoundStatement,
    catalog: &dyn Catalog,
    options: &Options,
) -> SqlResult<PhysicalPlan> {
    optimize_searched(stmt, catalog, options, false).map(|(plan, _)| plan)
}

/// Optimizes a bound statement and reports its search (search_stages.rs): the stage, why it
/// stopped early, and with `record_memo` (`SET SHOWPLAN_MEMO ON`) every group and alternative
/// it considered (memo.rs).
pub fn optimize_searched(
    stmt: BoundStatement,
    catalog: &dyn Catalog,
    options: &Options,
    record_memo: bool,
) -> SqlResult<(PhysicalPlan, search_stages::SearchReport)> {
    let mut p = planner::Planner::new(options, catalog);
    if record_memo {
        p.memo = Some(memo::Memo::default());
    }
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
                if p.enabled("ScanToCoveringSeek") && p.enabled("SelToIdxSeek") {
                    p.prefer_covering(input);
                }
            }
            _ => {}
        }
    }
    // every node's cost figures, from the final estimates
    match &mut plan {
        plan::Statement::Select { input, .. }
        | plan::Statement::Insert { source: input, .. }
        | plan::Statement::SelectInto { source: input, .. }
        | plan::Statement::Update { input, .. }
        | plan::Statement::Delete { input, .. } => p.annotate(input),
        plan::Statement::Truncate { .. } => {}
    }
    // parallel zones are chosen on the costed plan; the exchange and partial/global aggregate
    // nodes it adds are costed afterwards
    if options.max_dop > 1 {
        if let plan::Statement::Select { input, .. } = &mut plan {
            // as in SQL Server, a plan costing past the parallelism threshold is not trivial:
            // serial and parallel plans are weighed
            if input.cost.subtree >= options.cost_threshold {
                p.search.costed_choices += 1;
            }
            parallelize::parallelize(
                input,
                options.max_dop,
                options.cost_threshold,
                options.batch_mode,
                catalog,
            );
            p.annotate(input);
        }
    }
    // batch mode on the final shape: a parallel zone's partial aggregate runs in batch mode
    // on each worker
    if let plan::Statement::Select { input, .. } = &mut plan {
        batch_mode::choose_batch_mode(input, options.batch_mode, catalog);
    }
    // row goals (TOP, FAST n) discount the estimates and costs of the finished plan; the
    // parallelism decision above is made on the full costs
    if !options.disable_row_goal {
        let fast = options.fast.map(f64::from);
        match &mut plan {
            plan::Statement::Select { input, .. } => row_goal::apply(input, fast),
            plan::Statement::Insert { source: input, .. }
            | plan::Statement::SelectInto { source: input, .. }
            | plan::Statement::Update { input, .. }
            | plan::Statement::Delete { input, .. } => row_goal::apply(input, None),
            plan::Statement::Truncate { .. } => {}
        }
    }
    // node ids last: they number the finished tree, exchanges included
    showplan_xml::number_nodes(&mut plan);
    let report = search_stages::SearchReport {
        level: p.search.level(),
        early_abort: p.search.early_abort,
        memo: p.memo.take().map(|mut m| {
            memo::record_root(&mut m, &plan);
            m
        }),
    };
    Ok((plan, report))
}
