//! Row versioning (engine README "Row versioning"): the version store behind SNAPSHOT
//! isolation and READ_COMMITTED_SNAPSHOT.
//!
//! SQL Server keeps versions in tempdb, so none survives a restart; this store is in memory for
//! the same reason (after a restart no snapshot can predate any row).
//!
//! * **Chain.** Per table ([`TableVersions`]), per row locator (heap RID or clustered key): the
//!   list of writes not yet cleaned up, oldest first. Each [`Version`] holds the row's image
//!   *before* that write (`None`: the row did not exist, an insert) and the writing
//!   transaction ([`TxnVersions`]), whose commit sequence number is 0 while it is open and the
//!   global counter's next value once it commits.
//! * **Visibility.** A snapshot is a counter value `S`. The image a snapshot sees at a
//!   locator: start from the stored record (or "absent"), walk the chain newest first; stop at
//!   the first write committed at or before `S` (or made by the reader's own transaction);
//!   otherwise step back to that write's before-image.
//! * **Atomicity.** A writer holds the table's chain lock exclusively while it records the
//!   version, bumps the table's generation and changes storage; readers take it shared only
//!   to compute a pass ([`VersionedReader`]). Rows are otherwise read from page copies
//!   without any lock: a row with no chain at a generation the reader has seen is as stored.
//! * **Cleanup.** A committed transaction's versions are dropped at its commit when no
//!   snapshot is active, otherwise queued by commit number and dropped once every active
//!   snapshot began after that commit (what SQL Server's version cleanup task does every
//!   minute, done here as snapshots end). Memory is therefore bounded by the rows written
//!   while the oldest active snapshot lives.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::ops::Bound;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};

use common::{SqlError, SqlResult};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// One write of a row: the image before it and who wrote it.
struct Version {
    before: Option<Arc<[u8]>>,
    writer: Arc<TxnVersions>,
}

/// The versions of one table.
pub struct TableVersions {
    pub db: i32,
    pub object: i32,
    chains: RwLock<BTreeMap<Vec<u8>, Vec<Version>>>,
    /// Bumped by every write before storage changes (under the exclusive chain lock).
    generation: AtomicU64,
    /// Bytes of before-images held (`sys.dm_tran_version_store_space_usage`).
    bytes: AtomicU64,
}

/// The chain lock held by a writer for one row write.
pub struct WriteGuard<'a> {
    table: &'a TableVersions,
    chains: RwLockWriteGuard<'a, BTreeMap<Vec<u8>, Vec<Version>>>,
}

impl WriteGuard<'_> {
    /// The newest write of `locator` was committed after snapshot `s` by another transaction
    /// (SNAPSHOT's update conflict, Msg 3960).
    pub fn conflicts(&self, locator: &[u8], s: u64, me: &Arc<TxnVersions>) -> bool {
        self.chains
            .get(locator)
            .and_then(|c| c.last())
            .is_some_and(|v| {
                !Arc::ptr_eq(&v.writer, me) && {
                    let c = v.writer.commit.load(Ordering::Acquire);
                    c != 0 && c > s
                }
            })
    }

    /// Records that `txn` writes the row at `locator` whose image before the write is
    /// `before` (None: the row is being inserted).
    pub fn record(&mut self, txn: &Arc<TxnVersions>, locator: &[u8], before: Option<&[u8]>) {
        let size = before.map_or(0, |b| b.len()) as u64 + locator.len() as u64;
        self.table.bytes.fetch_add(size, Ordering::Relaxed);
        self.chains
            .entry(locator.to_vec())
            .or_default()
            .push(Version {
                before: before.map(Arc::from),
                writer: txn.clone(),
            });
        lock(&txn.writes).push(Written {
            table: self.table.object,
            db: self.table.db,
            locator: locator.to_vec(),
            size,
        });
    }
}

/// A chain entry a transaction appended (to remove it at rollback or cleanup).
struct Written {
    db: i32,
    table: i32,
    locator: Vec<u8>,
    size: u64,
}

/// One transaction's side of the version store.
pub struct TxnVersions {
    /// `transaction_sequence_num`: the counter's value when the transaction first wrote a
    /// versioned row or began a snapshot.
    pub sequence: u64,
    /// The counter value of its commit; 0 while open.
    commit: AtomicU64,
    writes: Mutex<Vec<Written>>,
}

impl TxnVersions {
    /// Chain entries written so far (a savepoint's mark).
    pub fn mark(&self) -> usize {
        lock(&self.writes).len()
    }
}

/// A snapshot registered with the store; unregistered (and cleanup run) when dropped.
pub struct SnapshotHandle {
    store: Arc<VersionStore>,
    pub seq: u64,
    id: u64,
}

impl Drop for SnapshotHandle {
    fn drop(&mut self) {
        lock(&self.store.snapshots).remove(&self.id);
        self.store.cleanup();
    }
}

/// What `sys.dm_tran_active_snapshot_database_transactions` shows of a snapshot.
#[derive(Clone, Debug)]
pub struct ActiveSnapshot {
    pub session_id: i32,
    pub transaction_sequence_num: u64,
    pub first_snapshot_sequence_num: u64,
    pub is_snapshot: bool,
    pub started: std::time::Instant,
}

/// The engine's version store (one per process, shared by every database).
#[derive(Default)]
pub struct VersionStore {
    /// The sequence counter (SQL Server's XSN): transactions, snapshots and commits draw from
    /// it; taken as a lock so that a commit's number and its publication are one step.
    counter: Mutex<u64>,
    tables: RwLock<HashMap<(i32, i32), Arc<TableVersions>>>,
    snapshots: Mutex<BTreeMap<u64, ActiveSnapshot>>,
    next_snapshot_id: AtomicU64,
    /// Committed transactions whose versions an active snapshot may still need, by commit.
    retained: Mutex<VecDeque<(u64, Arc<TxnVersions>)>>,
}

impl VersionStore {
    pub fn new() -> Arc<VersionStore> {
        Arc::new(VersionStore::default())
    }

    /// The versions of table `object` of database `db` (created on first use).
    pub fn table(&self, db: i32, object: i32) -> Arc<TableVersions> {
        if let Some(t) = self
            .tables
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(&(db, object))
        {
            return t.clone();
        }
        self.tables
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .entry((db, object))
            .or_insert_with(|| {
                Arc::new(TableVersions {
                    db,
                    object,
                    chains: RwLock::new(BTreeMap::new()),
                    generation: AtomicU64::new(0),
                    bytes: AtomicU64::new(0),
                })
            })
            .clone()
    }

    /// A new transaction's version state (its `transaction_sequence_num` drawn now).
    pub fn begin_transaction(&self) -> Arc<TxnVersions> {
        let mut c = lock(&self.counter);
        *c += 1;
        Arc::new(TxnVersions {
            sequence: *c,
            commit: AtomicU64::new(0),
            writes: Mutex::new(Vec::new()),
        })
    }

    /// Begins a snapshot: it sees every transaction committed until now.
    pub fn begin_snapshot(
        self: &Arc<Self>,
        session_id: i32,
        transaction_sequence_num: u64,
        is_snapshot: bool,
    ) -> SnapshotHandle {
        let id = self.next_snapshot_id.fetch_add(1, Ordering::Relaxed);
        let c = lock(&self.counter);
        let seq = *c;
        lock(&self.snapshots).insert(
            id,
            ActiveSnapshot {
                session_id,
                transaction_sequence_num,
                first_snapshot_sequence_num: seq,
                is_snapshot,
                started: std::time::Instant::now(),
            },
        );
        drop(c);
        SnapshotHandle {
            store: self.clone(),
            seq,
            id,
        }
    }

    /// The active snapshots (`sys.dm_tran_active_snapshot_database_transactions`).
    pub fn active_snapshots(&self) -> Vec<ActiveSnapshot> {
        lock(&self.snapshots).values().cloned().collect()
    }

    /// Commits `txn`: its writes become visible to snapshots that begin from now on.
    pub fn commit(&self, txn: &Arc<TxnVersions>) {
        let mut c = lock(&self.counter);
        *c += 1;
        let seq = *c;
        txn.commit.store(seq, Ordering::Release);
        if !lock(&txn.writes).is_empty() {
            lock(&self.retained).push_back((seq, txn.clone()));
        }
        drop(c);
        self.cleanup();
    }

    /// Removes `txn`'s chain entries written after `mark` (rollback to a savepoint, or the
    /// whole transaction with mark 0). Storage was restored first, so the before-images the
    /// entries held are what storage holds again.
    pub fn rollback_to(&self, txn: &Arc<TxnVersions>, mark: usize) {
        let undone: Vec<Written> = {
            let mut w = lock(&txn.writes);
            if mark >= w.len() {
                return;
            }
            w.split_off(mark)
        };
        for e in undone.iter().rev() {
            let t = self.table(e.db, e.table);
            let mut chains = t.chains.write().unwrap_or_else(|e| e.into_inner());
            if let Some(chain) = chains.get_mut(&e.locator) {
                if let Some(p) = chain.iter().rposition(|v| Arc::ptr_eq(&v.writer, txn)) {
                    chain.remove(p);
                }
                if chain.is_empty() {
                    chains.remove(&e.locator);
                }
            }
            t.bytes.fetch_sub(
                e.size.min(t.bytes.load(Ordering::Relaxed)),
                Ordering::Relaxed,
            );
        }
    }

    /// Drops the versions no active snapshot can need: those of transactions committed at or
    /// before the oldest active snapshot (all of them when none is active).
    pub fn cleanup(&self) {
        let oldest = lock(&self.snapshots)
            .values()
            .map(|s| s.first_snapshot_sequence_num)
            .min()
            .unwrap_or(u64::MAX);
        loop {
            let txn = {
                let mut r = lock(&self.retained);
                match r.front() {
                    Some((c, _)) if *c <= oldest => r.pop_front().map(|(_, t)| t),
                    _ => None,
                }
            };
            let Some(txn) = txn else { break };
            let writes = std::mem::take(&mut *lock(&txn.writes));
            for e in writes {
                let t = self.table(e.db, e.table);
                let mut chains = t.chains.write().unwrap_or_else(|e| e.into_inner());
                if let Some(chain) = chains.get_mut(&e.locator) {
                    chain.retain(|v| !Arc::ptr_eq(&v.writer, &txn));
                    if chain.is_empty() {
                        chains.remove(&e.locator);
                    }
                }
                t.bytes.fetch_sub(
                    e.size.min(t.bytes.load(Ordering::Relaxed)),
                    Ordering::Relaxed,
                );
            }
        }
    }

    /// Per database: (bytes of before-images held, chain entries) —
    /// `sys.dm_tran_version_store_space_usage`.
    pub fn space_usage(&self) -> BTreeMap<i32, (u64, u64)> {
        let mut out: BTreeMap<i32, (u64, u64)> = BTreeMap::new();
        for t in self
            .tables
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .values()
        {
            let n: u64 = t
                .chains
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .values()
                .map(|c| c.len() as u64)
                .sum();
            let e = out.entry(t.db).or_default();
            e.0 += t.bytes.load(Ordering::Relaxed);
            e.1 += n;
        }
        out
    }
}

impl TableVersions {
    /// Takes the chain lock for one row write (bumping the generation: readers' passes made
    /// before it are stale from now on).
    pub fn write(&self) -> WriteGuard<'_> {
        let chains = self.chains.write().unwrap_or_else(|e| e.into_inner());
        self.generation.fetch_add(1, Ordering::AcqRel);
        WriteGuard {
            table: self,
            chains,
        }
    }

    fn read(&self) -> RwLockReadGuard<'_, BTreeMap<Vec<u8>, Vec<Version>>> {
        self.chains.read().unwrap_or_else(|e| e.into_inner())
    }
}

/// What a reader sees through: the table's versions, its snapshot and its own transaction.
#[derive(Clone)]
pub struct SnapshotRead {
    pub table: Arc<TableVersions>,
    pub seq: u64,
    pub me: Option<Arc<TxnVersions>>,
}

/// The versioned side of a write: the table's versions, the writing transaction and, for a
/// SNAPSHOT transaction, its snapshot (update conflicts, 3960) and names for the message.
#[derive(Clone)]
pub struct WriteVersions {
    pub table: Arc<TableVersions>,
    pub txn: Arc<TxnVersions>,
    pub conflict: Option<(u64, String, String)>,
}

impl WriteVersions {
    /// Msg 3960 if the row at `locator` was changed by a transaction that committed after
    /// the writer's snapshot began.
    pub fn check(&self, g: &WriteGuard<'_>, locator: &[u8]) -> SqlResult<()> {
        if let Some((s, table, db)) = &self.conflict {
            if g.conflicts(locator, *s, &self.txn) {
                return Err(SqlError::new(3960, &[table, db]));
            }
        }
        Ok(())
    }
}

/// The image of a row visible at snapshot `s` (None: the row does not exist there).
fn visible(
    chain: &[Version],
    current: Option<&[u8]>,
    s: u64,
    me: Option<&Arc<TxnVersions>>,
) -> Option<Vec<u8>> {
    let mut img: Option<&[u8]> = current;
    for v in chain.iter().rev() {
        if me.is_some_and(|m| Arc::ptr_eq(m, &v.writer)) {
            break;
        }
        let c = v.writer.commit.load(Ordering::Acquire);
        if c != 0 && c <= s {
            break;
        }
        img = v.before.as_deref();
    }
    img.map(|i| i.to_vec())
}

/// How a reader orders rows (and so where a versioned row goes among stored ones).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ReadOrder {
    /// Heap: storage order, versioned rows come at the end.
    Unordered,
    /// By the order key, ascending or descending.
    Forward,
    Backward,
}

/// The order key of a versioned row (from its locator and visible record), or None when it
/// is outside the reader's range (an index seek).
pub type OrderKeyFn<'a> = dyn Fn(&[u8], &[u8]) -> SqlResult<Option<Vec<u8>>> + 'a;

/// The stored record at a locator (None: no row there).
pub type FetchFn<'a> = dyn Fn(&[u8]) -> SqlResult<Option<Vec<u8>>> + 'a;

/// One reader's merge of stored rows with versioned ones at its snapshot.
///
/// Rows come from page copies in the reader's order; each is asked [`VersionedReader::keep`]:
/// a row with a chain (a "member" of some pass) is skipped there and produced from the pass
/// instead, at its place in the order ([`VersionedReader::before`]); a row without one is as
/// stored. A pass (taken under the shared chain lock) is redone whenever the table's
/// generation moved since the last one, before any row is judged.
pub struct VersionedReader {
    read: SnapshotRead,
    order: ReadOrder,
    pass_generation: Option<u64>,
    members: HashSet<Vec<u8>>,
    /// Versioned rows still to produce: order key → (locator, visible record).
    pending: BTreeMap<Vec<u8>, (Vec<u8>, Vec<u8>)>,
    /// Order key of the last row judged (Forward / Backward).
    last: Option<Vec<u8>>,
    /// Unordered: the pages already read (their new members were produced or invisible).
    visited_pages: HashSet<Vec<u8>>,
    /// Unordered: the page being read and the rows of it already produced as stored (a pass
    /// during the page must not produce them again).
    current_page: Option<Vec<u8>>,
    current_produced: HashSet<Vec<u8>>,
}

impl VersionedReader {
    pub fn new(read: SnapshotRead, order: ReadOrder) -> Self {
        VersionedReader {
            read,
            order,
            pass_generation: None,
            members: HashSet::new(),
            pending: BTreeMap::new(),
            last: None,
            visited_pages: HashSet::new(),
            current_page: None,
            current_produced: HashSet::new(),
        }
    }

    /// Redoes the pass if a write happened since the last one. `fetch`: the stored record at
    /// a locator; `key`: the order key of a visible row.
    pub fn sync(&mut self, fetch: &FetchFn<'_>, key: &OrderKeyFn<'_>) -> SqlResult<()> {
        let g = self.read.table.generation.load(Ordering::Acquire);
        if self.pass_generation == Some(g) {
            return Ok(());
        }
        let chains = self.read.table.read();
        // no writer can be between its generation bump and its storage change now
        let g = self.read.table.generation.load(Ordering::Acquire);
        for (loc, chain) in chains.iter() {
            if self.members.contains(loc) {
                continue;
            }
            self.members.insert(loc.clone());
            if self.order == ReadOrder::Unordered {
                if let Some(p) = page_of(loc) {
                    if self.visited_pages.contains(&p)
                        || (self.current_page.as_ref() == Some(&p)
                            && self.current_produced.contains(loc))
                    {
                        continue;
                    }
                }
            }
            let current = fetch(loc)?;
            let Some(img) = visible(
                chain,
                current.as_deref(),
                self.read.seq,
                self.read.me.as_ref(),
            ) else {
                continue;
            };
            let Some(k) = key(loc, &img)? else {
                continue;
            };
            let passed = match (&self.last, self.order) {
                (Some(l), ReadOrder::Forward) => k <= *l,
                (Some(l), ReadOrder::Backward) => k >= *l,
                _ => false,
            };
            if !passed {
                self.pending.insert(k, (loc.clone(), img));
            }
        }
        drop(chains);
        self.pass_generation = Some(g);
        Ok(())
    }

    /// Judges a stored row (after [`VersionedReader::sync`]): true to produce it as stored,
    /// false when its versions decide (it is produced from `pending`, or not at all).
    /// `order_key`: its order key (Forward / Backward).
    pub fn keep(&mut self, locator: &[u8], order_key: Option<&[u8]>) -> bool {
        if let Some(k) = order_key {
            self.last = Some(k.to_vec());
        }
        let keep = !self.members.contains(locator);
        if keep && self.order == ReadOrder::Unordered {
            self.current_produced.insert(locator.to_vec());
        }
        keep
    }

    /// Unordered: the rows of the page of `locator` are about to be judged.
    pub fn page_started(&mut self, locator: &[u8]) {
        self.current_page = page_of(locator);
        self.current_produced.clear();
    }

    /// True if the table's generation has not moved since the last pass (a row fetched after
    /// `sync` is still as stored).
    pub fn current(&self) -> bool {
        self.pass_generation == Some(self.read.table.generation.load(Ordering::Acquire))
    }

    /// Versioned rows that come before order key `k` (all of them when None: the end),
    /// in order: (locator, record).
    pub fn before(&mut self, k: Option<&[u8]>) -> Vec<(Vec<u8>, Vec<u8>)> {
        let keys: Vec<Vec<u8>> = match (self.order, k) {
            (_, None) | (ReadOrder::Unordered, _) => {
                if k.is_some() {
                    return Vec::new();
                }
                self.pending.keys().cloned().collect()
            }
            (ReadOrder::Forward, Some(k)) => self
                .pending
                .range::<[u8], _>((Bound::Unbounded, Bound::Excluded(k)))
                .map(|(x, _)| x.clone())
                .collect(),
            (ReadOrder::Backward, Some(k)) => self
                .pending
                .range::<[u8], _>((Bound::Excluded(k), Bound::Unbounded))
                .rev()
                .map(|(x, _)| x.clone())
                .collect(),
        };
        let keys = if self.order == ReadOrder::Backward && k.is_none() {
            keys.into_iter().rev().collect()
        } else {
            keys
        };
        keys.into_iter()
            .filter_map(|x| self.pending.remove(&x))
            .collect()
    }

    /// Unordered: marks the page of `locator` read (call after judging its rows and syncing).
    pub fn page_done(&mut self, locator: &[u8]) {
        if let Some(p) = page_of(locator) {
            self.visited_pages.insert(p);
        }
        self.current_page = None;
        self.current_produced.clear();
    }
}

/// The page part of a heap RID (file and page; the slot is the last two bytes).
fn page_of(loc: &[u8]) -> Option<Vec<u8>> {
    (loc.len() == 8).then(|| loc[..6].to_vec())
}
