//! Schema generations: when a session's cached bound expressions and plans must be re-bound
//! (engine README "Schema generations").
//!
//! * Every database's catalog ([`crate::dbcat::DbCatalog`]) carries its own generation, a
//!   shared [`DbGeneration`] that every change to that catalog (objects, schemas, types,
//!   statistics, security, external objects, database options in master) and every reload
//!   after a rollback moves to a new value. DDL in one database therefore says nothing about
//!   another database's plans, and two engines in one process never see each other's DDL.
//! * A session depends on the databases it resolved names in ([`SchemaView::depend_on`]:
//!   `Session::db`, `find_object`, `resolve_type`), on `master` (databases, logins, server
//!   options) and on its current database. Its *view generation*
//!   ([`crate::session::Session::schema_generation`]) is what cached entries are tagged with:
//!   it changes when a database it depends on changed, and on the session's own plan-affecting
//!   changes (USE, SET ANSI_NULLS / CONCAT_NULL_YIELDS_NULL, IDENTITY_INSERT, a connection
//!   reset), which no other session sees. `sp_recompile` moves the current database's
//!   generation and `DBCC FREEPROCCACHE` master's: every session's plans recompile.
//! * A session's `#temp` tables and table variables are its own: their DDL moves no generation
//!   (`DbCatalog::is_private_temp`) and re-binds only the owner's entries
//!   (`Session::touch_catalog`), so one session's temp tables never recompile another's plans.
//! * A process-wide epoch counts every change anywhere: while it has not moved since the
//!   session last looked, the view is current without reading the databases' counters (one
//!   atomic load per check, as before).
//!
//! A change is noticed at the next check after the catalog's counter moved; a plan compiled
//! while the counter moves is tagged with the view from before and so is re-bound once more
//! than needed, never once less.

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Counts every generation change in the process (the fast path of [`SchemaView::current`]).
static EPOCH: AtomicU64 = AtomicU64::new(1);
/// Source of fresh generation values: unique in the process, so a value never comes back.
static NEXT_VALUE: AtomicU64 = AtomicU64::new(1);

/// A fresh generation value.
pub(crate) fn fresh_value() -> u64 {
    NEXT_VALUE.fetch_add(1, Ordering::AcqRel)
}

/// Every value [`fresh_value`] handed out so far is below this: a SNAPSHOT transaction's
/// mark of when its snapshot began, against the tables' DDL marks (Msg 3961,
/// [`crate::dbcat::DbCatalog::ddl_marks`]).
pub(crate) fn watermark() -> u64 {
    NEXT_VALUE.load(Ordering::Acquire)
}

/// The generation of one database's catalog, shared by the catalog cache and the sessions
/// that depend on it (a reload keeps the same counter).
#[derive(Clone, Debug)]
pub struct DbGeneration(Arc<AtomicU64>);

impl Default for DbGeneration {
    fn default() -> Self {
        DbGeneration(Arc::new(AtomicU64::new(fresh_value())))
    }
}

impl DbGeneration {
    /// Its current value.
    #[inline]
    pub fn value(&self) -> u64 {
        self.0.load(Ordering::Acquire)
    }

    /// Invalidates what was bound against this database's catalog.
    pub fn bump(&self) {
        self.0.store(fresh_value(), Ordering::Release);
        EPOCH.fetch_add(1, Ordering::AcqRel);
    }

    fn same(&self, other: &DbGeneration) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// One session's view of the schema generations (see the module comment).
pub(crate) struct SchemaView {
    /// The epoch when the dependencies were last compared.
    epoch_seen: Cell<u64>,
    /// The view generation handed to cached entries.
    view: Cell<u64>,
    /// Databases depended on, with the value last seen.
    deps: RefCell<Vec<(DbGeneration, u64)>>,
}

impl Default for SchemaView {
    fn default() -> Self {
        SchemaView {
            epoch_seen: Cell::new(0),
            view: Cell::new(fresh_value()),
            deps: RefCell::new(Vec::new()),
        }
    }
}

impl SchemaView {
    /// The current view generation.
    #[inline]
    pub(crate) fn current(&self) -> u64 {
        let epoch = EPOCH.load(Ordering::Acquire);
        if epoch == self.epoch_seen.get() {
            return self.view.get();
        }
        self.recheck(epoch)
    }

    #[cold]
    fn recheck(&self, epoch: u64) -> u64 {
        let mut changed = false;
        if let Ok(mut deps) = self.deps.try_borrow_mut() {
            for (g, seen) in deps.iter_mut() {
                let now = g.value();
                if now != *seen {
                    *seen = now;
                    changed = true;
                }
            }
        } else {
            changed = true; // cannot look (re-entered): assume the worst
        }
        if changed {
            self.view.set(fresh_value());
        }
        self.epoch_seen.set(epoch);
        self.view.get()
    }

    /// Records a dependency on a database's catalog (no-op when already recorded). A database
    /// met for the first time is seen at its current value: nothing cached can have been
    /// bound against it before (binding resolves through here).
    pub(crate) fn depend_on(&self, g: &DbGeneration) {
        let Ok(mut deps) = self.deps.try_borrow_mut() else {
            self.invalidate();
            return;
        };
        if deps.iter().any(|(d, _)| d.same(g)) {
            return;
        }
        deps.push((g.clone(), g.value()));
    }

    /// The session's own plan-affecting change: its cached entries are re-bound; nobody
    /// else's are.
    pub(crate) fn invalidate(&self) {
        self.view.set(fresh_value());
    }
}

impl crate::server::Engine {
    /// A value that changes when any database of this engine changes its schema generation
    /// and is the same for every session: what the engine-wide plan registry (plan_stats.rs)
    /// compares to tell a recompile from a second session compiling the same text.
    pub(crate) fn schema_state(&self) -> u64 {
        self.databases().iter().fold(0u64, |acc, h| {
            acc.wrapping_mul(0x100_0000_01b3)
                .wrapping_add(h.generation.value())
        })
    }
}
