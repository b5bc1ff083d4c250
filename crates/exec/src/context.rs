//! Per-execution state shared by all operators of one statement.

use std::collections::HashMap;
use std::rc::Rc;

use common::{SqlError, SqlResult};
use types::Value;

use crate::ExecEnv;

/// Result of an uncorrelated `IN (subquery)`: value keys, had a NULL, was empty.
pub(crate) type InSet = (hashbrown::HashSet<Vec<u8>>, bool, bool);

/// Execution context: the session environment, correlated parameter slots, work tables of
/// recursive CTEs, informational messages and caches of uncorrelated subquery results.
pub struct ExecCtx<'e> {
    pub env: &'e mut dyn ExecEnv,
    /// Parameter slots (outer references): (slot, value), few entries, linear lookup.
    pub params: Vec<(usize, Value)>,
    /// Rows of the previous recursion level per recursive CTE id.
    pub(crate) work_tables: HashMap<usize, Rc<crate::recursive_cte::WorkTable>>,
    pub messages: Vec<SqlError>,
    /// Row images of the DML done by this statement, for the engine's AFTER triggers (only
    /// collected for tables the environment asks for, see `ExecEnv::wants_images`).
    pub changes: Vec<crate::dml::DmlChanges>,
    null_warning_sent: bool,
    /// Cached results of uncorrelated subqueries, keyed by the plan node address.
    pub(crate) subquery_cache: HashMap<usize, Rc<Vec<Vec<Value>>>>,
    /// Hash sets of uncorrelated `IN (subquery)` results: (value keys, subquery had a NULL,
    /// subquery was empty).
    pub(crate) in_sets: HashMap<usize, Rc<InSet>>,
    /// Results of correlated scalar / EXISTS subqueries keyed by (plan, all parameter values).
    pub(crate) corr_cache: hashbrown::HashMap<(usize, Vec<u8>), Value>,
    /// Memory budget per operator and spill directory (from `ExecEnv::spill_config`).
    pub spill: crate::spill::SpillConfig,
    /// What this statement's operators spilled so far.
    pub spill_stats: crate::spill::SpillStats,
    /// The request's cancel flag (`ExecEnv::cancel_token`), see [`ExecCtx::check_cancel`].
    cancel: Option<common::CancelToken>,
    /// Set in a parallel worker: the morsels of the one scan of its zone, and the zone's stop
    /// flag (another worker failed or the consumer closed), polled with the cancel flag
    /// (exec README "Parallelism").
    pub(crate) morsels: Option<std::sync::Arc<storage::morsel::MorselSource>>,
    pub(crate) stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    /// Set in a parallel worker: the hash tables the coordinator built once for the zone's
    /// hash joins (shared build), keyed by the join's plan node address in the zone's plan.
    pub(crate) shared_builds: Option<crate::hash_match::SharedBuilds>,
    /// Set in a parallel worker: the batch hash joins' build sides, likewise.
    pub(crate) shared_batch_builds: Option<crate::batch::SharedBatchBuilds>,
    rng: u64,
    /// Actual counters per plan node, shared with the operators (see `actuals.rs`).
    pub(crate) actuals: crate::actuals::SharedActuals,
    /// The thread CPU clock when per-operator times are collected (`ExecEnv::op_cpu_clock`).
    pub(crate) op_cpu_clock: Option<fn() -> u64>,
}

impl<'e> ExecCtx<'e> {
    pub fn new(env: &'e mut dyn ExecEnv) -> Self {
        let spill = env.spill_config();
        let cancel = env.cancel_token();
        let op_cpu_clock = env.op_cpu_clock();
        ExecCtx {
            env,
            params: Vec::new(),
            work_tables: HashMap::new(),
            messages: Vec::new(),
            changes: Vec::new(),
            null_warning_sent: false,
            subquery_cache: HashMap::new(),
            in_sets: HashMap::new(),
            corr_cache: hashbrown::HashMap::new(),
            spill,
            spill_stats: Default::default(),
            cancel,
            morsels: None,
            stop: None,
            shared_builds: None,
            shared_batch_builds: None,
            rng: 0x9E37_79B9_7F4A_7C15,
            actuals: Default::default(),
            op_cpu_clock,
        }
    }

    /// `Err(attention)` once the request was cancelled. One relaxed atomic load: called per
    /// page by scans, per row by the loops that can spin without reading pages (nested loops
    /// inner side, table functions, recursive CTE levels, the plan's driving loop), so a
    /// cancel stops any plan within milliseconds.
    /// The request's cancel flag, for loops below exec that poll it themselves (the COUNT(*)
    /// slot-count path in storage).
    pub fn cancel_token(&self) -> Option<&common::CancelToken> {
        self.cancel.as_ref()
    }

    #[inline]
    pub fn check_cancel(&self) -> SqlResult<()> {
        if let Some(s) = &self.stop {
            if s.load(std::sync::atomic::Ordering::Relaxed) {
                return Err(crate::parallel::stopped());
            }
        }
        match &self.cancel {
            Some(c) => c.check(),
            None => Ok(()),
        }
    }

    /// Sets parameter slot `slot`.
    pub fn set_param(&mut self, slot: usize, v: Value) {
        match self.params.iter_mut().find(|(s, _)| *s == slot) {
            Some(p) => p.1 = v,
            None => self.params.push((slot, v)),
        }
    }

    /// Value of parameter slot `slot` (NULL if never set).
    #[inline]
    pub fn param(&self, slot: usize) -> Value {
        self.params
            .iter()
            .find(|(s, _)| *s == slot)
            .map(|p| p.1.clone())
            .unwrap_or(Value::Null)
    }

    /// Next pseudo-random number in [0, 1) (RAND()).
    pub fn rng_next(&mut self) -> f64 {
        // xorshift64*
        let mut x = self.rng;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rng = x;
        (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Raises warning 8153 once per statement.
    pub fn null_eliminated(&mut self) {
        if !self.null_warning_sent {
            self.null_warning_sent = true;
            self.messages.push(SqlError::new(8153, &[]));
        }
    }
}
