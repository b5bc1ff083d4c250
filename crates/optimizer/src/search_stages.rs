//! Search stages and the search budget, after SQL Server's: a statement with no real choice
//! gets a trivial plan (`StatementOptmLevel="TRIVIAL"`); everything else is fully optimized
//! (`"FULL"`), within a budget, and the reason the search stopped early is kept for showplan's
//! `StatementOptmEarlyAbortReason`:
//!
//! * `TimeOut`: the join-order search would explore (or has explored) more than
//!   [`SEARCH_BUDGET`] alternatives in the statement; the rest of the join tree is ordered
//!   greedily (join_order.rs) — the best plan found so far, never a failure. The budget counts
//!   alternatives, not milliseconds, so the plan of a statement does not depend on the load of
//!   the machine; a 12-relation clique's search (about 520,000 visits) takes about 10-20 ms
//!   on the shared box (the unit test, process start included).
//! * `MemoryLimitExceeded`: a join-order search held more than [`MEMO_GROUP_CAP`] groups (join
//!   subsets with a plan; a 12-relation clique has 4,095); it stops, the order is greedy.
//! * `GoodEnoughPlanFound`: the greedy order's C_out (the sum of its joins' estimated rows)
//!   already equals the lower bound (every join of n relations yields at least one row, so no
//!   order costs less than n − 1): the exhaustive search is skipped.
//!
//! Trivial: the planner is one top-down pass; a statement is reported TRIVIAL when it reads at
//! most one table and no decision in it compared two alternatives by cost (no usable index,
//! or a seek on a whole unique key, which returns at most one row and always wins) and, when
//! parallelism is allowed, it costs less than the cost threshold for parallelism (above it a
//! parallel plan is weighed, as SQL Server leaves the trivial stage there); FULL otherwise. The plan is the same either way: in a statement with no choice the costed
//! search has nothing to decide.

use crate::memo::Memo;

/// Join-order alternatives a statement's search may visit before it stops with `TimeOut`.
pub const SEARCH_BUDGET: u64 = 1_000_000;

/// Join subsets holding a plan past which a join-order search stops with
/// `MemoryLimitExceeded`.
pub const MEMO_GROUP_CAP: usize = 4_000;

/// `StatementOptmLevel`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptmLevel {
    Trivial,
    Full,
}

impl OptmLevel {
    pub fn as_str(self) -> &'static str {
        match self {
            OptmLevel::Trivial => "TRIVIAL",
            OptmLevel::Full => "FULL",
        }
    }
}

/// `StatementOptmEarlyAbortReason` (the 1.6 schema's enumeration).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EarlyAbort {
    TimeOut,
    MemoryLimitExceeded,
    GoodEnoughPlanFound,
}

impl EarlyAbort {
    pub fn as_str(self) -> &'static str {
        match self {
            EarlyAbort::TimeOut => "TimeOut",
            EarlyAbort::MemoryLimitExceeded => "MemoryLimitExceeded",
            EarlyAbort::GoodEnoughPlanFound => "GoodEnoughPlanFound",
        }
    }
}

/// What the search of one statement did: its stage, why it stopped early, and its memo when
/// recording was asked for.
#[derive(Clone, Debug)]
pub struct SearchReport {
    pub level: OptmLevel,
    pub early_abort: Option<EarlyAbort>,
    pub memo: Option<Memo>,
}

/// The search's counters for one statement (always kept; a few integer updates).
#[derive(Clone, Debug, Default)]
pub(crate) struct SearchState {
    /// Join-order alternatives visited (against [`SEARCH_BUDGET`]).
    pub explored: u64,
    /// Decisions that compared two or more alternatives by cost.
    pub costed_choices: u32,
    /// Base tables accessed and joins planned (a statement with a join, or reading more than
    /// one table, is not trivial).
    pub tables: u32,
    pub joins: u32,
    /// The first reason a search stopped early.
    pub early_abort: Option<EarlyAbort>,
}

impl SearchState {
    pub fn abort(&mut self, reason: EarlyAbort) {
        self.early_abort.get_or_insert(reason);
    }

    pub fn level(&self) -> OptmLevel {
        if self.costed_choices == 0 && self.joins == 0 && self.tables <= 1 {
            OptmLevel::Trivial
        } else {
            OptmLevel::Full
        }
    }
}
