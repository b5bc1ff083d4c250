//! The lock table: grants, FIFO wait queues, conversions, escalation, deadlock detection.
//!
//! One mutex guards the whole table (requests are short: a hash lookup and a vector scan);
//! waiters sleep on one condition variable in slices of [`WAIT_SLICE`], so a timeout, a
//! cancel or a deadlock missed when the wait began is noticed within a slice.

use std::collections::VecDeque;

// hashbrown's default hasher: several lookups per row lock, SipHash would show in inserts
use hashbrown::{HashMap, HashSet};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use super::mode::LockMode;
use super::resource::Resource;

/// A lock owner: one transaction of a session (all of its per-database storage txns).
pub type OwnerId = u64;

/// SQL Server escalates a statement's row locks on one object to an object lock past 5,000.
pub const ESCALATION_THRESHOLD: u32 = 5_000;
/// After a failed escalation SQL Server tries again every 1,250 further locks.
const ESCALATION_RETRY: u32 = 1_250;
const WAIT_SLICE: Duration = Duration::from_millis(50);
/// How often a waiter searches the wait-for graph again (a cycle closed by a conversion or a
/// grant order the search at the wait's start could not see).
const DEADLOCK_RECHECK: Duration = Duration::from_millis(250);

/// Who asks, and how long it may wait.
#[derive(Clone, Debug)]
pub struct LockRequest {
    pub owner: OwnerId,
    pub spid: i32,
    /// `SET DEADLOCK_PRIORITY`: -10..10 (LOW = -5, NORMAL = 0, HIGH = 5).
    pub priority: i32,
    /// `SET LOCK_TIMEOUT`: milliseconds, -1 = wait forever, 0 = do not wait.
    pub timeout_ms: i64,
    pub cancel: Option<common::CancelToken>,
}

/// What a successful request did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Acquired {
    /// The owner did not hold the resource before.
    New,
    /// An existing grant was converted to a stronger mode.
    Converted,
    /// Already held in a mode that covers the request (or covered by an object lock).
    Held,
}

/// Why a request failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockError {
    /// The wait exceeded the lock timeout (Msg 1222).
    Timeout,
    /// The owner was chosen as a deadlock victim (Msg 1205).
    Deadlock,
    /// The request was cancelled (attention).
    Cancelled,
}

/// Per object: how many owners hold a write intent (IX, SIX, X, Sch-M) on it. Readers skip row
/// locks while it is zero (lock avoidance, the fast path of a scan).
/// Also: how many key-range locks (RangeS-S, RangeS-U, RangeX-X) are granted on its keys,
/// so an insert tests RangeI-N on its next key only while some may be held.
#[derive(Debug, Default)]
pub struct ObjectActivity {
    writers: AtomicU32,
    ranges: AtomicU32,
}

impl ObjectActivity {
    /// Number of owners that may be writing rows of the object now.
    #[inline]
    pub fn writers(&self) -> u32 {
        self.writers.load(Ordering::Acquire)
    }

    /// Number of key-range locks granted on the object's keys. SeqCst, paired with the
    /// increment at a range lock's grant (the insert protocol in exec's `locking.rs`).
    #[inline]
    pub fn range_locks(&self) -> u32 {
        self.ranges.load(Ordering::SeqCst)
    }
}

/// A range lock an insert must not slip past (RangeI-N itself protects no gap).
fn guards_range(m: LockMode) -> bool {
    m.is_range() && m != LockMode::RangeIN
}

#[derive(Clone, Copy, Debug)]
struct Grant {
    owner: OwnerId,
    mode: LockMode,
}

#[derive(Clone, Copy, Debug)]
struct Waiter {
    owner: OwnerId,
    /// The mode wanted (for a conversion: the converted mode).
    mode: LockMode,
    convert: bool,
}

#[derive(Debug, Default)]
struct Entry {
    granted: Vec<Grant>,
    waiting: VecDeque<Waiter>,
}

#[derive(Debug)]
struct OwnerState {
    spid: i32,
    priority: i32,
    held: HashMap<Resource, LockMode>,
    /// Row locks held per object.
    rows: HashMap<(i32, i32), u32>,
    /// Row locks the current statement acquired and still holds, per object: SQL Server
    /// escalates when one statement holds 5,000 on one object, not a transaction of many
    /// small statements (`statement_started` clears it).
    stmt_rows: HashMap<(i32, i32), u32>,
    waiting: Option<(Resource, LockMode, Instant)>,
    victim: bool,
}

#[derive(Default)]
struct Inner {
    table: HashMap<Resource, Entry>,
    owners: HashMap<OwnerId, OwnerState>,
    activity: HashMap<(i32, i32), Arc<ObjectActivity>>,
}

/// One row of `sys.dm_tran_locks`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockInfo {
    pub resource: Resource,
    pub mode: LockMode,
    /// GRANT, WAIT or CONVERT.
    pub status: &'static str,
    pub spid: i32,
    pub owner: OwnerId,
}

/// A request waiting for a lock (for `sys.dm_os_waiting_tasks` and
/// `sys.dm_exec_requests.blocking_session_id`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WaitingRequest {
    pub spid: i32,
    pub wait_type: &'static str,
    pub wait_ms: u64,
    /// The first session holding (or queued before it with) an incompatible lock.
    pub blocking_spid: Option<i32>,
    /// SQL Server's `resource_description` of a lock wait, e.g.
    /// `keylock hobtid=... dbid=5 id=lock... mode=X` — here `KEY: 5:1234 (8194443284a0)`.
    pub resource: String,
}

/// The engine's lock manager (engine README, "Locks").
pub struct LockManager {
    inner: Mutex<Inner>,
    cv: Condvar,
    next_owner: AtomicU64,
}

impl Default for LockManager {
    fn default() -> Self {
        LockManager {
            inner: Mutex::new(Inner::default()),
            cv: Condvar::new(),
            next_owner: AtomicU64::new(1),
        }
    }
}

fn blockers_of(entry: &Entry, w: &Waiter) -> Vec<OwnerId> {
    let mut out: Vec<OwnerId> = entry
        .granted
        .iter()
        .filter(|g| g.owner != w.owner && !w.mode.compatible(g.mode))
        .map(|g| g.owner)
        .collect();
    if !w.convert {
        for a in &entry.waiting {
            if a.owner == w.owner {
                break;
            }
            if !w.mode.compatible(a.mode) {
                out.push(a.owner);
            }
        }
    }
    out
}

impl Inner {
    fn activity(&mut self, db: i32, object: i32) -> Arc<ObjectActivity> {
        self.activity.entry((db, object)).or_default().clone()
    }

    /// Keeps the object's writer count in step with a grant change from `old` to `new`.
    fn note_mode(&mut self, res: &Resource, old: Option<LockMode>, new: Option<LockMode>) {
        if let Resource::Key { db, object, .. } = *res {
            let was = old.is_some_and(guards_range);
            let is = new.is_some_and(guards_range);
            if was != is {
                let a = self.activity(db, object);
                if is {
                    a.ranges.fetch_add(1, Ordering::SeqCst);
                } else {
                    a.ranges.fetch_sub(1, Ordering::SeqCst);
                }
            }
            return;
        }
        if let Resource::Object { db, object } = *res {
            let was = old.is_some_and(LockMode::is_write_intent);
            let is = new.is_some_and(LockMode::is_write_intent);
            if was != is {
                let a = self.activity(db, object);
                if is {
                    a.writers.fetch_add(1, Ordering::AcqRel);
                } else {
                    a.writers.fetch_sub(1, Ordering::AcqRel);
                }
            }
        }
    }

    fn owner(&mut self, req: &LockRequest) -> &mut OwnerState {
        let o = self.owners.entry(req.owner).or_insert_with(|| OwnerState {
            spid: req.spid,
            priority: req.priority,
            held: HashMap::new(),
            rows: HashMap::new(),
            stmt_rows: HashMap::new(),
            waiting: None,
            victim: false,
        });
        o.priority = req.priority;
        o
    }

    /// Records a grant in the owner's state (and its row count).
    fn record_grant(&mut self, owner: OwnerId, res: Resource, mode: LockMode) -> Option<LockMode> {
        let old = self
            .owners
            .get_mut(&owner)
            .and_then(|o| o.held.insert(res, mode));
        if old.is_none() && res.is_row() {
            if let (Some(o), Some(Resource::Object { db, object })) =
                (self.owners.get_mut(&owner), res.parent_object())
            {
                *o.rows.entry((db, object)).or_default() += 1;
                *o.stmt_rows.entry((db, object)).or_default() += 1;
            }
        }
        self.note_mode(&res, old, Some(mode));
        old
    }

    fn forget_grant(&mut self, owner: OwnerId, res: &Resource) {
        let old = self.owners.get_mut(&owner).and_then(|o| o.held.remove(res));
        if old.is_some() && res.is_row() {
            if let (Some(o), Some(Resource::Object { db, object })) =
                (self.owners.get_mut(&owner), res.parent_object())
            {
                if let Some(n) = o.rows.get_mut(&(db, object)) {
                    *n = n.saturating_sub(1);
                }
                if let Some(n) = o.stmt_rows.get_mut(&(db, object)) {
                    *n = n.saturating_sub(1);
                }
            }
        }
        self.note_mode(res, old, None);
    }

    /// Grants what the queue of `res` allows now: conversions first, then new requests in
    /// arrival order up to the first that must still wait (no overtaking: an X request is not
    /// starved by a stream of S requests). True when something was granted.
    fn grant_waiters(&mut self, res: &Resource) -> bool {
        let mut granted_any = false;
        let mut newly: Vec<(OwnerId, LockMode)> = Vec::new();
        {
            let Some(entry) = self.table.get_mut(res) else {
                return false;
            };
            let mut i = 0;
            while i < entry.waiting.len() {
                let w = entry.waiting[i];
                if w.convert
                    && entry
                        .granted
                        .iter()
                        .all(|g| g.owner == w.owner || w.mode.compatible(g.mode))
                {
                    if let Some(g) = entry.granted.iter_mut().find(|g| g.owner == w.owner) {
                        g.mode = w.mode;
                    }
                    entry.waiting.remove(i);
                    newly.push((w.owner, w.mode));
                    continue;
                }
                i += 1;
            }
            let mut i = 0;
            while i < entry.waiting.len() {
                let w = entry.waiting[i];
                if w.convert {
                    i += 1;
                    continue;
                }
                let fits = entry.granted.iter().all(|g| w.mode.compatible(g.mode))
                    && entry
                        .waiting
                        .iter()
                        .filter(|c| c.convert)
                        .all(|c| w.mode.compatible(c.mode));
                if !fits {
                    break;
                }
                entry.granted.push(Grant {
                    owner: w.owner,
                    mode: w.mode,
                });
                entry.waiting.remove(i);
                newly.push((w.owner, w.mode));
            }
        }
        for (owner, mode) in newly {
            granted_any = true;
            self.record_grant(owner, *res, mode);
            if let Some(o) = self.owners.get_mut(&owner) {
                o.waiting = None;
            }
        }
        granted_any
    }

    fn remove_waiter(&mut self, owner: OwnerId, res: &Resource) {
        if let Some(entry) = self.table.get_mut(res) {
            entry.waiting.retain(|w| w.owner != owner);
        }
        if let Some(o) = self.owners.get_mut(&owner) {
            o.waiting = None;
        }
        self.grant_waiters(res);
        self.drop_if_empty(res);
    }

    fn drop_if_empty(&mut self, res: &Resource) {
        if self
            .table
            .get(res)
            .is_some_and(|e| e.granted.is_empty() && e.waiting.is_empty())
        {
            self.table.remove(res);
        }
    }

    fn release(&mut self, owner: OwnerId, res: &Resource) -> bool {
        let Some(entry) = self.table.get_mut(res) else {
            return false;
        };
        entry.granted.retain(|g| g.owner != owner);
        self.forget_grant(owner, res);
        let woke = self.grant_waiters(res);
        self.drop_if_empty(res);
        woke
    }

    /// Owners the waiting `owner` waits for.
    fn wait_edges(&self, owner: OwnerId) -> Vec<OwnerId> {
        let Some((res, _, _)) = self.owners.get(&owner).and_then(|o| o.waiting) else {
            return Vec::new();
        };
        let Some(entry) = self.table.get(&res) else {
            return Vec::new();
        };
        match entry.waiting.iter().find(|w| w.owner == owner) {
            Some(w) => blockers_of(entry, w),
            None => Vec::new(),
        }
    }

    /// A cycle of the wait-for graph through `start` (its members), if any.
    fn cycle_through(&self, start: OwnerId) -> Option<Vec<OwnerId>> {
        let mut path = vec![start];
        let mut stack = vec![self.wait_edges(start)];
        let mut seen: HashSet<OwnerId> = HashSet::new();
        seen.insert(start);
        while let Some(next) = stack.last_mut() {
            match next.pop() {
                Some(n) if n == start => return Some(path),
                Some(n) => {
                    if seen.insert(n) {
                        path.push(n);
                        let e = self.wait_edges(n);
                        stack.push(e);
                    }
                }
                None => {
                    stack.pop();
                    path.pop();
                }
            }
        }
        None
    }

    /// The deadlock victim of a cycle: the lowest DEADLOCK_PRIORITY, then the transaction
    /// that is cheapest to roll back (fewest exclusive locks: latchkey's measure of the log it
    /// used), then the requester whose wait closed the cycle.
    fn choose_victim(&self, cycle: &[OwnerId], requester: OwnerId) -> OwnerId {
        let cost = |o: &OwnerId| {
            self.owners.get(o).map_or((0, 0, 0), |s| {
                let x = s
                    .held
                    .values()
                    .filter(|m| matches!(m, LockMode::X | LockMode::IX | LockMode::SIX))
                    .count();
                (s.priority, x, i32::from(*o != requester))
            })
        };
        cycle
            .iter()
            .copied()
            .min_by_key(|o| cost(o))
            .unwrap_or(requester)
    }

    /// Searches a deadlock through `owner`; marks the victim. Returns the victim.
    fn detect(&mut self, owner: OwnerId) -> Option<OwnerId> {
        let cycle = self.cycle_through(owner)?;
        let victim = self.choose_victim(&cycle, owner);
        if let Some(v) = self.owners.get_mut(&victim) {
            v.victim = true;
        }
        Some(victim)
    }
}

impl LockManager {
    pub fn new() -> LockManager {
        LockManager::default()
    }

    /// A fresh owner id (one per transaction).
    pub fn new_owner(&self) -> OwnerId {
        self.next_owner.fetch_add(1, Ordering::Relaxed)
    }

    /// The writer counter of an object (readers' lock avoidance).
    pub fn activity(&self, db: i32, object: i32) -> Arc<ObjectActivity> {
        self.inner.lock().activity(db, object)
    }

    /// Does `owner` hold `res` in a mode covering `mode` (directly or through its object)?
    pub fn holds(&self, owner: OwnerId, res: &Resource, mode: LockMode) -> bool {
        let g = self.inner.lock();
        let Some(o) = g.owners.get(&owner) else {
            return false;
        };
        o.held.get(res).is_some_and(|m| m.covers(mode))
            || res
                .parent_object()
                .and_then(|p| o.held.get(&p))
                .is_some_and(|m| m.covers(mode.row_mode()))
    }

    /// Requests `mode` on `res`, waiting as `req` allows.
    pub fn acquire(
        &self,
        req: &LockRequest,
        res: Resource,
        mode: LockMode,
    ) -> Result<Acquired, LockError> {
        let mut g = self.inner.lock();
        let owner = req.owner;
        let o = g.owner(req);
        o.victim = false;
        if let Some(m) = res.parent_object().and_then(|p| o.held.get(&p)) {
            if m.covers(mode.row_mode()) {
                return Ok(Acquired::Held);
            }
        }
        let current = o.held.get(&res).copied();
        let want = current.map_or(mode, |c| c.convert(mode));
        if current == Some(want) {
            return Ok(Acquired::Held);
        }
        let entry = g.table.entry(res).or_default();
        let convert = current.is_some();
        let grantable = entry
            .granted
            .iter()
            .all(|x| x.owner == owner || want.compatible(x.mode))
            && (convert || entry.waiting.iter().all(|w| want.compatible(w.mode)));
        if grantable {
            match entry.granted.iter_mut().find(|x| x.owner == owner) {
                Some(x) => x.mode = want,
                None => entry.granted.push(Grant { owner, mode: want }),
            }
            g.record_grant(owner, res, want);
            if !convert && res.is_row() {
                self.maybe_escalate(&mut g, req, &res, mode);
            }
            return Ok(if convert {
                Acquired::Converted
            } else {
                Acquired::New
            });
        }
        if req.timeout_ms == 0 {
            g.drop_if_empty(&res);
            return Err(LockError::Timeout);
        }
        entry.waiting.push_back(Waiter {
            owner,
            mode: want,
            convert,
        });
        let start = Instant::now();
        if let Some(o) = g.owners.get_mut(&owner) {
            o.waiting = Some((res, want, start));
        }
        let result = self.wait(&mut g, req, res, want, start);
        let waited = start.elapsed().as_millis() as u64;
        drop(g);
        common::waits::record(want.wait_type(), waited, 0);
        let r = result?;
        Ok(if convert { Acquired::Converted } else { r })
    }

    fn wait(
        &self,
        g: &mut parking_lot::MutexGuard<'_, Inner>,
        req: &LockRequest,
        res: Resource,
        mode: LockMode,
        start: Instant,
    ) -> Result<Acquired, LockError> {
        let owner = req.owner;
        let deadline =
            (req.timeout_ms > 0).then(|| start + Duration::from_millis(req.timeout_ms as u64));
        let mut next_check = Instant::now();
        loop {
            let (granted, victim) = match g.owners.get(&owner) {
                Some(o) => (o.waiting.is_none(), o.victim),
                None => (true, false),
            };
            if granted {
                if res.is_row() {
                    self.maybe_escalate(g, req, &res, mode);
                }
                return Ok(Acquired::New);
            }
            let fail = |g: &mut parking_lot::MutexGuard<'_, Inner>, e| {
                g.remove_waiter(owner, &res);
                if let Some(o) = g.owners.get_mut(&owner) {
                    o.victim = false;
                }
                self.cv.notify_all();
                Err(e)
            };
            if victim {
                return fail(g, LockError::Deadlock);
            }
            if req.cancel.as_ref().is_some_and(|c| c.is_cancelled()) {
                return fail(g, LockError::Cancelled);
            }
            let now = Instant::now();
            if deadline.is_some_and(|d| now >= d) {
                return fail(g, LockError::Timeout);
            }
            if now >= next_check {
                next_check = now + DEADLOCK_RECHECK;
                if let Some(v) = g.detect(owner) {
                    if v == owner {
                        return fail(g, LockError::Deadlock);
                    }
                    self.cv.notify_all();
                }
            }
            let mut slice = WAIT_SLICE;
            if let Some(d) = deadline {
                slice = slice.min(d.saturating_duration_since(now));
            }
            self.cv.wait_for(g, slice);
        }
    }

    /// Past [`ESCALATION_THRESHOLD`] row locks on one object, tries (without waiting) to lock
    /// the whole object (S for reads, X for writes) and drop the row locks.
    fn maybe_escalate(
        &self,
        g: &mut parking_lot::MutexGuard<'_, Inner>,
        req: &LockRequest,
        res: &Resource,
        row_mode: LockMode,
    ) {
        let Some(obj) = res.parent_object() else {
            return;
        };
        let Resource::Object { db, object } = obj else {
            return;
        };
        let owner = req.owner;
        let n = g
            .owners
            .get(&owner)
            .and_then(|o| o.stmt_rows.get(&(db, object)).copied())
            .unwrap_or(0);
        if n < ESCALATION_THRESHOLD || !(n - ESCALATION_THRESHOLD).is_multiple_of(ESCALATION_RETRY)
        {
            return;
        }
        let target = match row_mode {
            LockMode::S | LockMode::RangeSS => LockMode::S,
            // an insert's instant test, released at once: not a lock to escalate
            LockMode::RangeIN => return,
            _ => LockMode::X,
        };
        let current = g.owners.get(&owner).and_then(|o| o.held.get(&obj).copied());
        let want = current.map_or(target, |c| c.convert(target));
        let entry = g.table.entry(obj).or_default();
        let ok = entry
            .granted
            .iter()
            .all(|x| x.owner == owner || want.compatible(x.mode))
            && entry
                .waiting
                .iter()
                .all(|w| w.owner == owner || want.compatible(w.mode));
        if !ok {
            g.drop_if_empty(&obj);
            return;
        }
        match entry.granted.iter_mut().find(|x| x.owner == owner) {
            Some(x) => x.mode = want,
            None => entry.granted.push(Grant { owner, mode: want }),
        }
        g.record_grant(owner, obj, want);
        let rows: Vec<Resource> = g
            .owners
            .get(&owner)
            .map(|o| {
                o.held
                    .keys()
                    .filter(|r| r.is_row() && r.parent_object() == Some(obj))
                    .copied()
                    .collect()
            })
            .unwrap_or_default();
        let mut woke = false;
        for r in rows {
            woke |= g.release(owner, &r);
        }
        if woke {
            self.cv.notify_all();
        }
    }

    /// A new statement of `owner`'s transaction begins: escalation counts its row locks from
    /// zero (locks already held stay held).
    pub fn statement_started(&self, owner: OwnerId) {
        let mut g = self.inner.lock();
        if let Some(o) = g.owners.get_mut(&owner) {
            o.stmt_rows.clear();
        }
    }

    /// Releases one lock if `owner` holds it in exactly `mode` (a READ COMMITTED row lock
    /// released as the scan passes the row; a stronger mode taken since stays).
    pub fn release_if(&self, owner: OwnerId, res: &Resource, mode: LockMode) {
        let mut g = self.inner.lock();
        let held = g.owners.get(&owner).and_then(|o| o.held.get(res).copied());
        if held == Some(mode) && g.release(owner, res) {
            self.cv.notify_all();
        }
    }

    /// Releases every lock of `owner` (commit, rollback, end of an autocommit statement).
    pub fn release_all(&self, owner: OwnerId) {
        let mut g = self.inner.lock();
        let Some(o) = g.owners.remove(&owner) else {
            return;
        };
        // put back an empty state so forget_grant's bookkeeping has somewhere to go
        g.owners.insert(
            owner,
            OwnerState {
                spid: o.spid,
                priority: o.priority,
                held: HashMap::new(),
                rows: HashMap::new(),
                stmt_rows: HashMap::new(),
                waiting: None,
                victim: false,
            },
        );
        let mut woke = false;
        for (res, mode) in o.held {
            if let Some(entry) = g.table.get_mut(&res) {
                entry.granted.retain(|x| x.owner != owner);
            }
            g.note_mode(&res, Some(mode), None);
            woke |= g.grant_waiters(&res);
            g.drop_if_empty(&res);
        }
        g.owners.remove(&owner);
        if woke {
            self.cv.notify_all();
        }
    }

    /// Every lock and request, for `sys.dm_tran_locks`.
    pub fn snapshot(&self) -> Vec<LockInfo> {
        let g = self.inner.lock();
        let spid = |o: OwnerId| g.owners.get(&o).map_or(0, |s| s.spid);
        let mut out = Vec::new();
        for (res, e) in &g.table {
            for x in &e.granted {
                let converting = e.waiting.iter().any(|w| w.owner == x.owner && w.convert);
                out.push(LockInfo {
                    resource: *res,
                    mode: x.mode,
                    status: if converting { "CONVERT" } else { "GRANT" },
                    spid: spid(x.owner),
                    owner: x.owner,
                });
            }
            for w in e.waiting.iter().filter(|w| !w.convert) {
                out.push(LockInfo {
                    resource: *res,
                    mode: w.mode,
                    status: "WAIT",
                    spid: spid(w.owner),
                    owner: w.owner,
                });
            }
        }
        out.sort_by_key(|l| {
            (
                l.spid,
                l.owner,
                l.resource.type_name(),
                l.resource.entity_id(),
            )
        });
        out
    }

    /// The requests waiting for a lock now (for `sys.dm_os_waiting_tasks` and
    /// `sys.dm_exec_requests.blocking_session_id`).
    pub fn waiting_requests(&self) -> Vec<WaitingRequest> {
        let g = self.inner.lock();
        let mut out = Vec::new();
        for (owner, o) in &g.owners {
            let Some((res, mode, since)) = o.waiting else {
                continue;
            };
            let blocking_spid = g
                .wait_edges(*owner)
                .first()
                .and_then(|b| g.owners.get(b))
                .map(|b| b.spid);
            let desc = res.description();
            out.push(WaitingRequest {
                spid: o.spid,
                wait_type: mode.wait_type(),
                wait_ms: since.elapsed().as_millis() as u64,
                blocking_spid,
                resource: format!(
                    "{}: {}:{}{}{}",
                    res.type_name(),
                    res.database(),
                    res.entity_id(),
                    if desc.is_empty() { "" } else { " " },
                    desc
                ),
            });
        }
        out.sort_by_key(|w| w.spid);
        out
    }
}
