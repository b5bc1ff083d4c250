//! `OPTION (…)` query hints: each one is acted on, holds by construction of latchkey's planner,
//! or is refused (Msg 40517 naming it; Msg 10724 for a name USE HINT does not know). The table
//! of outcomes and the reasons is `docs/silent-noops.md` ("Query hints").
//!
//! Acted on elsewhere: join hints and MAXRECURSION (plan binder), RECOMPILE (plan cache),
//! MAX_/MIN_GRANT_PERCENT (`Session::with_grant`); here: the optimizer switches (GROUP and UNION
//! strategies, QUERYRULEOFF).

use common::{SqlError, SqlResult};
use parser::ast::{self, QueryHint};

/// `USE HINT` names that hold by construction: each disables something latchkey's planner or
/// executor never does (batch mode adaptive joins, memory grant feedback, interleaved or deferred
/// compilation, parameter sniffing: plans never depend on parameter values).
/// `DISABLE_OPTIMIZER_ROWGOAL` (`optimizer::Options::disable_row_goal`) and
/// `DISALLOW_BATCH_MODE` / `ALLOW_BATCH_MODE` (`optimizer::batch_mode`) are acted on.
const USE_HINTS_HELD: &[&str] = &[
    "DISABLE_BATCH_MODE_ADAPTIVE_JOINS",
    "DISABLE_BATCH_MODE_MEMORY_GRANT_FEEDBACK",
    "DISABLE_ROW_MODE_MEMORY_GRANT_FEEDBACK",
    "DISABLE_INTERLEAVED_EXECUTION_TVF",
    "DISABLE_DEFERRED_COMPILATION_TV",
    "DISABLE_OPTIMIZED_NESTED_LOOP",
    "DISABLE_PARAMETER_SNIFFING",
    "DISABLE_PARAMETER_SENSITIVE_PLAN_OPTIMIZATION",
];

/// `USE HINT` names SQL Server knows whose effect latchkey does not have (cardinality estimation
/// models, optimizer hotfixes, lightweight profiling, scalar UDF inlining): refused.
const USE_HINTS_REFUSED: &[&str] = &[
    "ASSUME_JOIN_PREDICATE_DEPENDS_ON_FILTERS",
    "ASSUME_MIN_SELECTIVITY_FOR_FILTER_ESTIMATES",
    "ASSUME_FULL_INDEPENDENCE_FOR_FILTER_ESTIMATES",
    "ASSUME_PARTIAL_CORRELATION_FOR_FILTER_ESTIMATES",
    "DISABLE_TSQL_SCALAR_UDF_INLINING",
    "ENABLE_HIST_AMENDMENT_FOR_ASC_KEYS",
    "ENABLE_QUERY_OPTIMIZER_HOTFIXES",
    "FORCE_DEFAULT_CARDINALITY_ESTIMATION",
    "FORCE_LEGACY_CARDINALITY_ESTIMATION",
    "QUERY_PLAN_PROFILE",
];

/// The `OPTION (…)` list of a statement, if its kind has one.
pub(crate) fn statement_hints(s: &ast::Statement) -> &[QueryHint] {
    match &s.kind {
        ast::StatementKind::Select(q) => &q.options,
        ast::StatementKind::Update(u) => &u.options,
        ast::StatementKind::Delete(d) => &d.options,
        ast::StatementKind::Merge(m) => &m.options,
        ast::StatementKind::Insert(i) => match &i.source {
            ast::InsertSource::Query(q) => &q.options,
            _ => &[],
        },
        _ => &[],
    }
}

/// Checks every hint of `hints` and returns the optimizer switches they ask for.
pub(crate) fn optimizer_options(hints: &[QueryHint]) -> SqlResult<optimizer::Options> {
    let mut o = optimizer::Options::default();
    for h in hints {
        match h {
            QueryHint::HashGroup => o.group.hash = true,
            QueryHint::OrderGroup => o.group.order = true,
            QueryHint::ConcatUnion => o.union.concat = true,
            QueryHint::HashUnion => o.union.hash = true,
            QueryHint::MergeUnion => o.union.merge = true,
            // a rule latchkey does not have never fires, so switching it off holds too
            QueryHint::QueryRuleOff(name) => o.disabled_rules.push(name.clone()),
            // acted on by the binder, the plan cache or the memory grant
            QueryHint::MaxDop(_)
            | QueryHint::Recompile
            | QueryHint::MaxRecursion(_)
            | QueryHint::MinGrantPercent(_)
            | QueryHint::MaxGrantPercent(_) => {}
            // the binder applies these to the written joins; the optimizer to the semi / anti
            // semi joins it makes from subqueries
            QueryHint::HashJoin => o.join_hint = Some(plan::JoinHint::Hash),
            QueryHint::LoopJoin => o.join_hint = Some(plan::JoinHint::Loop),
            QueryHint::MergeJoin => o.join_hint = Some(plan::JoinHint::Merge),
            // the joins keep their written order and sides (JoinCommute, JoinOrder off)
            QueryHint::ForceOrder => o.force_order = true,
            // no performance spool on the inner side of nested loops
            QueryHint::NoPerformanceSpool => o.disabled_rules.push("BuildSpool".into()),
            // hold by construction (docs/silent-noops.md says why)
            QueryHint::KeepPlan
            | QueryHint::KeepFixedPlan
            | QueryHint::ExpandViews
            | QueryHint::IgnoreNonclusteredColumnstoreIndex
            | QueryHint::OptimizeForUnknown => {}
            QueryHint::OptimizeFor(vars) if vars.iter().all(|(_, v)| v.is_none()) => {}
            QueryHint::OptimizeFor(_) => return Err(SqlError::unsupported("OPTIMIZE FOR")),
            // a row goal of n rows on the result (optimizer row_goal.rs)
            QueryHint::Fast(n) => o.fast = Some(*n),
            QueryHint::RobustPlan => return Err(SqlError::unsupported("ROBUST PLAN")),
            // trace flag 4138: documented as disabling row goals, like the USE HINT below
            QueryHint::QueryTraceOn(4138) => o.disable_row_goal = true,
            QueryHint::QueryTraceOn(n) => {
                return Err(SqlError::unsupported(format!("QUERYTRACEON {n}")))
            }
            QueryHint::UseHint(names) => {
                for name in names {
                    match name.to_ascii_uppercase().as_str() {
                        "DISABLE_OPTIMIZER_ROWGOAL" => o.disable_row_goal = true,
                        "DISALLOW_BATCH_MODE" => {
                            o.batch_mode = optimizer::batch_mode::BatchModeHint::Disallow
                        }
                        "ALLOW_BATCH_MODE" => {
                            o.batch_mode = optimizer::batch_mode::BatchModeHint::Allow
                        }
                        _ => check_use_hint(name)?,
                    }
                }
            }
            QueryHint::Other(text) => return Err(SqlError::unsupported(text)),
        }
    }
    Ok(o)
}

/// The parallelism switches of a statement: `OPTION (MAXDOP n)`, else `max degree of
/// parallelism` (0 = all the cores in both), capped by the cores; `cost threshold for
/// parallelism` (exec README "Parallelism"). `run`: the test run's `LATCHKEY_CONFIG` stands
/// in for options sp_configure never set, and for a batch-mode hint the statement lacks.
pub(crate) fn apply_parallelism(
    o: &mut optimizer::Options,
    hints: &[QueryHint],
    settings: &crate::config::Settings,
    scoped: crate::scoped_config::PlanSettings,
    run: &crate::run_config::RunConfig,
) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let hinted = hints.iter().rev().find_map(|h| match h {
        QueryHint::MaxDop(n) => Some(i64::from(*n)),
        _ => None,
    });
    // the hint, else the database's MAXDOP, else the server's (0 at a level defers to the next)
    let dop = hinted.unwrap_or_else(|| match scoped.maxdop {
        0 => settings.in_use_or(crate::config::MAX_DOP, run.max_dop),
        n => n,
    });
    let dop = usize::try_from(dop).unwrap_or(0);
    let dop = if dop == 0 { cores } else { dop.min(cores) };
    o.max_dop = u16::try_from(dop).unwrap_or(u16::MAX);
    o.cost_threshold = settings.in_use_or(crate::config::COST_THRESHOLD, run.cost_threshold) as f64;
    // BATCH_MODE_ON_ROWSTORE = OFF: row mode unless the statement allows batch mode itself
    if !scoped.batch_mode_on_rowstore && o.batch_mode == optimizer::batch_mode::BatchModeHint::Auto
    {
        o.batch_mode = optimizer::batch_mode::BatchModeHint::Disallow;
    }
    o.batch_mode = run.batch_mode(o.batch_mode);
}

fn check_use_hint(name: &str) -> SqlResult<()> {
    let upper = name.to_ascii_uppercase();
    if USE_HINTS_HELD.contains(&upper.as_str()) {
        return Ok(());
    }
    let compat_level = upper
        .strip_prefix("QUERY_OPTIMIZER_COMPATIBILITY_LEVEL_")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    if compat_level || USE_HINTS_REFUSED.contains(&upper.as_str()) {
        return Err(SqlError::unsupported(format!("USE HINT ('{upper}')")));
    }
    Err(SqlError::new(10724, &[&name]))
}

/// `DBCC TRACEON / TRACEOFF / SETCPUWEIGHT / SETIOWEIGHT`: latchkey has no trace flags and no
/// cost weights. Only `TRACEON (3604)` holds (DBCC output already goes to the client).
pub(crate) fn check_dbcc_trace(d: &ast::Dbcc) -> SqlResult<()> {
    // printed without spaces: `-1` (all sessions) prints as a unary minus `- 1`
    let flags: Vec<String> = d
        .args
        .iter()
        .map(|a| a.to_string().replace(' ', ""))
        .collect();
    let only_3604 = flags.iter().all(|f| f == "3604" || f == "-1");
    if d.command == "TRACEON" && only_3604 && flags.iter().any(|f| f == "3604") {
        return Ok(());
    }
    Err(SqlError::unsupported(format!(
        "DBCC {}({})",
        d.command,
        flags.join(", ")
    )))
}
