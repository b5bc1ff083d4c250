//! The session's cache of compiled ad-hoc batches and parameterised statements
//! (`sp_executesql`, [`Session::execute_parameterized`]).
//!
//! SQL Server keeps compiled plans of ad-hoc batches and of parameterised statements keyed by
//! their exact text and the SET options that change their meaning; re-running the same text
//! skips parsing, binding and optimisation. latchkey does the same per session:
//!
//! * The key is the text, the parameter declarations (names and types), the current database,
//!   the plan-affecting SET options and the transaction isolation level ([`PlanKey`]; SQL
//!   Server keys plans by the set_options of sys.dm_exec_plan_attributes, and a plan of one
//!   level must not serve another where versioned or locking reads differ). Different
//!   literals are different texts: clients that want reuse parameterise (`sp_executesql`,
//!   RPC calls).
//! * An entry remembers the session's schema generation it was compiled under
//!   (schema_gen.rs: it moves when a database the session depends on changes); the entry is
//!   dropped on its next lookup after a move, so a cached program never runs against a schema
//!   it was not compiled for. DDL in a database the session does not use leaves it alone.
//!   (Plans inside a program are also tagged, see compile.rs, so a generation change in the
//!   middle of a run re-binds them.)
//! * An entry is taken out of the map while it runs and put back afterwards: a batch that
//!   (through dynamic SQL) runs its own text again compiles a second copy instead of sharing
//!   the mutable run cache.
//! * At most [`MAX_ENTRIES`] entries; when full, the least recently used half is evicted. Texts longer than
//!   [`MAX_TEXT`] are not cached (one-off scripts).

use hashbrown::HashMap;
use std::sync::Arc;

use types::DataType;

use crate::compile::{Program, RunCache};
use crate::session::SessionOptions;

/// Entries kept per session.
pub(crate) const MAX_ENTRIES: usize = 512;
/// Longest text that is cached, in bytes.
pub(crate) const MAX_TEXT: usize = 16 * 1024;

/// What makes two executions share a compiled program.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) struct PlanKey {
    text: String,
    params: Vec<(String, DataType)>,
    database: String,
    options: OptionsKey,
}

/// The SET options that change how a text parses, binds or evaluates.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
struct OptionsKey {
    ansi_nulls: bool,
    ansi_padding: bool,
    ansi_warnings: bool,
    concat_null_yields_null: bool,
    quoted_identifier: bool,
    arithabort: bool,
    datefirst: i32,
    dateformat: String,
    language: String,
    /// `SET TRANSACTION ISOLATION LEVEL`, as its discriminant.
    isolation: u8,
}

impl PlanKey {
    /// The key as text: what the engine-wide `plan_handle` hashes (plan_stats.rs).
    pub(crate) fn describe(&self) -> String {
        format!("{self:?}")
    }

    pub(crate) fn new(
        text: &str,
        params: Vec<(String, DataType)>,
        database: &str,
        o: &SessionOptions,
    ) -> Option<PlanKey> {
        if text.len() > MAX_TEXT {
            return None;
        }
        Some(PlanKey {
            text: text.to_string(),
            params,
            database: database.to_string(),
            options: OptionsKey {
                ansi_nulls: o.ansi_nulls,
                ansi_padding: o.ansi_padding,
                ansi_warnings: o.ansi_warnings,
                concat_null_yields_null: o.concat_null_yields_null,
                quoted_identifier: o.quoted_identifier,
                arithabort: o.arithabort,
                datefirst: o.datefirst,
                dateformat: o.dateformat.clone(),
                language: o.language.clone(),
                isolation: o.isolation as u8,
            },
        })
    }
}

/// A compiled program with its bound-expression and plan caches.
pub(crate) struct CachedProgram {
    pub prog: Arc<Program>,
    pub rc: RunCache,
    generation: u64,
    last_used: u64,
}

impl CachedProgram {
    /// A program compiled under the session's schema generation `generation`.
    pub(crate) fn new(prog: Arc<Program>, rc: RunCache, generation: u64) -> CachedProgram {
        CachedProgram {
            prog,
            rc,
            generation,
            last_used: 0,
        }
    }
}

/// Compiled programs by key (see the module comment).
#[derive(Default)]
pub(crate) struct PlanCache {
    map: HashMap<PlanKey, CachedProgram>,
    tick: u64,
    hits: u64,
    misses: u64,
}

impl PlanCache {
    /// Takes the entry for `key` out of the cache if it is still valid for the session's
    /// current schema generation.
    pub(crate) fn take(&mut self, key: &PlanKey, generation: u64) -> Option<CachedProgram> {
        let entry = self.map.remove(key);
        match entry {
            Some(e) if e.generation == generation && !e.prog.recompile => {
                self.hits += 1;
                Some(e)
            }
            _ => {
                self.misses += 1;
                None
            }
        }
    }

    /// Puts a program (back) into the cache, evicting the least recently used entry when full.
    /// Programs compiled under an older schema generation than `generation` are not kept.
    pub(crate) fn put(&mut self, key: PlanKey, mut entry: CachedProgram, generation: u64) {
        if entry.prog.recompile || entry.generation != generation {
            return;
        }
        if self.map.len() >= MAX_ENTRIES && !self.map.contains_key(&key) {
            // Evict the least recently used half at once: one O(n) pass per n/2 inserts keeps
            // an ad-hoc workload (every text new) at O(1) amortised per batch.
            let mut ticks: Vec<u64> = self.map.values().map(|e| e.last_used).collect();
            let mid = ticks.len() / 2;
            let (_, median, _) = ticks.select_nth_unstable(mid);
            let median = *median;
            self.map.retain(|_, e| e.last_used > median);
        }
        self.tick += 1;
        entry.last_used = self.tick;
        self.map.insert(key, entry);
    }

    /// Drops every entry (`DBCC FREEPROCCACHE`).
    pub(crate) fn clear(&mut self) {
        self.map.clear();
    }

    /// (entries, hits, misses) for diagnostics and tests.
    pub(crate) fn stats(&self) -> (usize, u64, u64) {
        (self.map.len(), self.hits, self.misses)
    }
}

impl crate::session::Session {
    /// This session's plan cache: (entries, hits, misses) since the session began.
    pub fn plan_cache_stats(&self) -> (usize, u64, u64) {
        self.plan_cache.stats()
    }
}
