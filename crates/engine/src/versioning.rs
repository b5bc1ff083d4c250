//! Row versioning in the session (engine README "Row versioning"): the database options
//! `ALLOW_SNAPSHOT_ISOLATION` / `READ_COMMITTED_SNAPSHOT`, when a transaction's or a
//! statement's snapshot begins and ends, and the lockers of versioned accesses. The version
//! store itself is exec's (`exec::versions`), shared by every session of the engine.

use std::sync::Arc;

use catalog::TableDef;
use common::{SqlError, SqlResult};
use exec::locking::{TableAccess, TableLocker};
use exec::versions::{SnapshotHandle, SnapshotRead, TxnVersions, WriteVersions};

use crate::locks::{IsolationLevel, LockMode, Resource};
use crate::server::DbHandle;
use crate::session::Session;

/// The catalog `Config` row (in each database's own catalog) holding the database's row
/// versioning options: bit 1 ALLOW_SNAPSHOT_ISOLATION, bit 2 READ_COMMITTED_SNAPSHOT.
pub(crate) const VERSIONING_CONFIG_ID: i32 = -1;
const ALLOW_SNAPSHOT: i64 = 1;
const RCSI: i64 = 2;

/// The row versioning state of a session's current transaction.
#[derive(Default)]
pub(crate) struct SessionVersions {
    /// The transaction's side of the version store (its writes, its commit number); begun at
    /// its first versioned write or snapshot.
    pub(crate) txn: Option<Arc<TxnVersions>>,
    /// SNAPSHOT isolation: the transaction's snapshot, from its first data access to its end.
    pub(crate) txn_snapshot: Option<SnapshotHandle>,
    /// READ_COMMITTED_SNAPSHOT: the running statement's snapshot.
    pub(crate) stmt_snapshot: Option<SnapshotHandle>,
    /// [`crate::schema_gen::watermark`] when the SNAPSHOT transaction's snapshot began: a
    /// table created, altered or dropped since fails its accesses with Msg 3961.
    pub(crate) txn_schema_mark: Option<u64>,
}

/// `ALLOW_SNAPSHOT_ISOLATION` and `READ_COMMITTED_SNAPSHOT` of a database.
pub(crate) fn options(h: &DbHandle) -> (bool, bool) {
    let v = h
        .cat
        .read()
        .configs
        .get(&VERSIONING_CONFIG_ID)
        .copied()
        .unwrap_or(0);
    (v & ALLOW_SNAPSHOT != 0, v & RCSI != 0)
}

/// Locking hints that make a read take locks even where the level reads versions.
fn locking_hint(hints: &[String]) -> bool {
    hints.iter().any(|h| {
        matches!(
            h.as_str(),
            "NOLOCK"
                | "READUNCOMMITTED"
                | "READCOMMITTEDLOCK"
                | "REPEATABLEREAD"
                | "HOLDLOCK"
                | "SERIALIZABLE"
                | "UPDLOCK"
                | "XLOCK"
                | "TABLOCKX"
                | "READPAST"
        )
    })
}

/// A versioned access's locker: the locking one (if any) plus the snapshot it reads or the
/// versions its writes record, and the Sch-S a snapshot read holds for its statement.
struct VersionedLocker {
    inner: Option<Box<dyn TableLocker>>,
    snapshot: Option<SnapshotRead>,
    write: Option<WriteVersions>,
    /// Sch-S taken by this access, released when it ends.
    schema_stability: Option<(
        Arc<crate::locks::LockManager>,
        crate::locks::OwnerId,
        Resource,
    )>,
}

impl TableLocker for VersionedLocker {
    fn rows_need_locks(&self) -> bool {
        self.inner.as_ref().is_some_and(|l| l.rows_need_locks())
    }
    fn lock_row(&mut self, locator: &[u8]) -> SqlResult<bool> {
        match &mut self.inner {
            Some(l) => l.lock_row(locator),
            None => Ok(true),
        }
    }
    fn row_read(&mut self, locator: &[u8], qualified: bool) {
        if let Some(l) = &mut self.inner {
            l.row_read(locator, qualified)
        }
    }
    fn lock_row_for_write(&mut self, locator: &[u8]) -> SqlResult<()> {
        match &mut self.inner {
            Some(l) => l.lock_row_for_write(locator),
            None => Ok(()),
        }
    }
    fn locks_key_ranges(&self) -> bool {
        self.inner.as_ref().is_some_and(|l| l.locks_key_ranges())
    }
    fn lock_key(&mut self, index_id: i32, key: Option<&[u8]>, range: bool) -> SqlResult<bool> {
        match &mut self.inner {
            Some(l) => l.lock_key(index_id, key, range),
            None => Ok(true),
        }
    }
    fn ranges_may_be_held(&self) -> bool {
        self.inner.as_ref().is_some_and(|l| l.ranges_may_be_held())
    }
    fn lock_insert_gap(&mut self, index_id: i32, next: Option<&[u8]>) -> SqlResult<bool> {
        match &mut self.inner {
            Some(l) => l.lock_insert_gap(index_id, next),
            None => Ok(false),
        }
    }
    fn release_insert_gap(&mut self, index_id: i32, next: Option<&[u8]>) {
        if let Some(l) = &mut self.inner {
            l.release_insert_gap(index_id, next)
        }
    }
    fn snapshot(&self) -> Option<SnapshotRead> {
        self.snapshot.clone()
    }
    fn write_versions(&self) -> Option<&WriteVersions> {
        self.write.as_ref()
    }
}

impl Drop for VersionedLocker {
    fn drop(&mut self) {
        if let Some((mgr, owner, res)) = self.schema_stability.take() {
            mgr.release_if(owner, &res, LockMode::SchS);
        }
    }
}

impl Session {
    /// The transaction's version state, begun now if needed.
    fn txn_versions(&mut self) -> Arc<TxnVersions> {
        if let Some(t) = &self.versions.txn {
            return t.clone();
        }
        let t = self.engine().versions.begin_transaction();
        self.versions.txn = Some(t.clone());
        t
    }

    /// The snapshot sequence number a read or a write of this statement uses: SNAPSHOT's
    /// transaction snapshot (begun at its first data access), or for `rcsi` the
    /// statement's. None: no snapshot.
    fn snapshot_seq(&mut self, snapshot_level: bool, rcsi: bool) -> Option<u64> {
        if snapshot_level {
            if self.versions.txn_snapshot.is_none() {
                let t = self.txn_versions();
                let h = self
                    .engine()
                    .versions
                    .begin_snapshot(self.spid(), t.sequence, true);
                self.versions.txn_snapshot = Some(h);
                self.versions.txn_schema_mark = Some(crate::schema_gen::watermark());
            }
            return self.versions.txn_snapshot.as_ref().map(|h| h.seq);
        }
        if rcsi {
            if self.versions.stmt_snapshot.is_none() {
                let seq = self.txn_versions().sequence;
                let h = self
                    .engine()
                    .versions
                    .begin_snapshot(self.spid(), seq, false);
                self.versions.stmt_snapshot = Some(h);
            }
            return self.versions.stmt_snapshot.as_ref().map(|h| h.seq);
        }
        None
    }

    /// The locker of an access to `table` of database `h` where row versioning may apply
    /// (`locking`: the locker the isolation level alone gives). Raises 3952 for SNAPSHOT in
    /// a database that does not allow it.
    pub(crate) fn versioned_locker(
        &mut self,
        h: &DbHandle,
        table: &TableDef,
        hints: &[String],
        access: TableAccess,
        locking: impl FnOnce(&mut Session, IsolationLevel) -> SqlResult<Option<Box<dyn TableLocker>>>,
    ) -> SqlResult<Option<Box<dyn TableLocker>>> {
        let (allow_snapshot, rcsi) = options(h);
        let level = self.options.isolation;
        let snapshot_level = level == IsolationLevel::Snapshot;
        if snapshot_level && !allow_snapshot {
            return Err(SqlError::new(3952, &[&table.database]));
        }
        if snapshot_level {
            self.check_metadata_not_changed(h, table)?;
        }
        if !allow_snapshot && !rcsi {
            return locking(self, level);
        }
        let versions = self.engine().versions.clone();
        let tv = versions.table(h.def.database_id, table.object_id);
        let read_committed = level == IsolationLevel::ReadCommitted;
        let reads_versions = access == TableAccess::Read
            && !locking_hint(hints)
            && (snapshot_level || (rcsi && read_committed));
        let seq = self.snapshot_seq(snapshot_level, rcsi && read_committed && reads_versions);
        if reads_versions {
            let Some(seq) = seq else {
                return Err(SqlError::internal("a versioned read without a snapshot"));
            };
            // no row or object read locks: Sch-S only, for the statement
            let mgr = self.engine().locks.clone();
            let req = self.lock_request();
            let res = Resource::Object {
                db: h.def.database_id,
                object: table.object_id,
            };
            let acquired = mgr
                .acquire(&req, res, LockMode::SchS)
                .map_err(|e| crate::locks::lock_error(e, self.spid()))?;
            let schema_stability =
                (acquired == crate::locks::Acquired::New).then_some((mgr, req.owner, res));
            return Ok(Some(Box::new(VersionedLocker {
                inner: None,
                snapshot: Some(SnapshotRead {
                    table: tv,
                    seq,
                    me: self.versions.txn.clone(),
                }),
                write: None,
                schema_stability,
            })));
        }
        // writes (and the locking reads of a SNAPSHOT transaction's UPDATE / DELETE) lock as
        // READ COMMITTED does
        let lock_level = if snapshot_level {
            IsolationLevel::ReadCommitted
        } else {
            level
        };
        let inner = locking(self, lock_level)?;
        if snapshot_level && access == TableAccess::Target && !locking_hint(hints) {
            // SQL Server: a SNAPSHOT transaction's UPDATE / DELETE finds its rows in its
            // snapshot (a row inserted since is not a target; one deleted or changed since is,
            // and its write raises 3960). The rows are not locked by the scan: the write takes
            // its X lock (waiting for an open writer) and then checks for a conflict. The
            // object keeps the target's intent lock (the READ COMMITTED locker's).
            let Some(seq) = seq else {
                return Err(SqlError::internal("a snapshot target without a snapshot"));
            };
            return Ok(Some(Box::new(VersionedLocker {
                inner,
                snapshot: Some(SnapshotRead {
                    table: tv,
                    seq,
                    me: self.versions.txn.clone(),
                }),
                write: None,
                schema_stability: None,
            })));
        }
        if access != TableAccess::Write {
            return Ok(inner);
        }
        let txn = self.txn_versions();
        let conflict = if snapshot_level {
            let s = self.versions.txn_snapshot.as_ref().map(|h| h.seq);
            s.map(|s| {
                (
                    s,
                    format!("{}.{}", table.schema, table.name),
                    table.database.clone(),
                )
            })
        } else {
            None
        };
        Ok(Some(Box::new(VersionedLocker {
            inner,
            snapshot: None,
            write: Some(WriteVersions {
                table: tv,
                txn,
                conflict,
            }),
            schema_stability: None,
        })))
    }

    /// Msg 3961: SQL Server does not version metadata, so a SNAPSHOT transaction may not use
    /// a table another transaction created, altered or dropped since its snapshot began (its
    /// rows at the snapshot may not fit the definition now). The transaction's own DDL in
    /// that database does not count (as SQL Server, which takes the DDL's locks for it).
    fn check_metadata_not_changed(&self, h: &DbHandle, table: &TableDef) -> SqlResult<()> {
        let Some(mark) = self.versions.txn_schema_mark else {
            return Ok(()); // the snapshot begins with this access
        };
        if self
            .catalog_touched
            .iter()
            .any(|d| d.eq_ignore_ascii_case(&table.database))
        {
            return Ok(());
        }
        let changed = h
            .cat
            .read()
            .ddl_marks
            .get(&table.object_id)
            .is_some_and(|m| *m >= mark);
        if changed {
            return Err(SqlError::new(3961, &[&table.database]));
        }
        Ok(())
    }

    /// Msg 3964: inside an explicit transaction at SNAPSHOT isolation SQL Server refuses the
    /// DDL that changes an existing table's metadata in place (ALTER TABLE, CREATE / ALTER /
    /// DROP INDEX; also CREATE XML INDEX, DBCC DBREINDEX, ALTER PARTITION FUNCTION / SCHEME and
    /// CLR DDL, which latchkey does not have): metadata is not versioned. The transaction is
    /// rolled back, as for 3961. An autocommit statement is allowed (MSSQLSERVER_3961's
    /// explanation in Microsoft's documentation lists the statements).
    pub(crate) fn check_ddl_allowed_in_snapshot(
        &self,
        kind: &parser::ast::StatementKind,
    ) -> SqlResult<()> {
        use parser::ast::StatementKind as K;
        if self.options.isolation != IsolationLevel::Snapshot || self.trancount == 0 {
            return Ok(());
        }
        let refused = matches!(
            kind,
            K::AlterTable(_) | K::CreateIndex(_) | K::AlterIndex(_) | K::DropIndex { .. }
        );
        if refused {
            return Err(SqlError::new(3964, &[]));
        }
        Ok(())
    }

    /// The savepoint of the transaction's versions (a [`crate::session::TxnMark`]'s part).
    pub(crate) fn versions_mark(&self) -> usize {
        self.versions.txn.as_ref().map_or(0, |t| t.mark())
    }

    /// After storage rolled back to a savepoint: drops the versions written since.
    pub(crate) fn versions_rollback_to(&mut self, mark: usize) {
        if let Some(t) = &self.versions.txn {
            self.engine().versions.rollback_to(t, mark);
        }
    }

    /// The transaction ended (storage committed or undone, locks still held): its versions
    /// become committed (or are dropped), its snapshot ends.
    pub(crate) fn versions_end(&mut self, committed: bool) {
        let v = std::mem::take(&mut self.versions);
        if let Some(t) = &v.txn {
            if committed {
                self.engine().versions.commit(t);
            } else {
                self.engine().versions.rollback_to(t, 0);
            }
        }
        drop(v);
    }

    /// `ALTER DATABASE d SET ALLOW_SNAPSHOT_ISOLATION | READ_COMMITTED_SNAPSHOT ON | OFF`,
    /// persisted in the database's catalog. READ_COMMITTED_SNAPSHOT needs the database to
    /// itself (SQL Server: only the connection running the ALTER may be in it): other
    /// sessions in it get 5070 unless `WITH ROLLBACK IMMEDIATE` is given, which latchkey
    /// does not act on (40517).
    pub(crate) fn alter_database_versioning(
        &mut self,
        database: &str,
        o: &parser::ast::OptionSetting,
        termination: Option<&str>,
    ) -> SqlResult<()> {
        let on = match &o.value {
            Some(parser::ast::OptionValue::On) => true,
            Some(parser::ast::OptionValue::Off) => false,
            _ => {
                return Err(SqlError::unsupported(format!(
                    "ALTER DATABASE SET {}",
                    o.name
                )))
            }
        };
        let h = self.db(database)?;
        if matches!(
            h.def.database_id,
            crate::server::MASTER_ID | crate::server::TEMPDB_ID
        ) || catalog::name_eq(&h.def.name, "model")
        {
            return Err(SqlError::new(5058, &[&o.name, &h.def.name]));
        }
        let bit = if o.name == "READ_COMMITTED_SNAPSHOT" {
            RCSI
        } else {
            ALLOW_SNAPSHOT
        };
        if bit == RCSI {
            let others = self.engine().sessions.snapshot().into_iter().any(|e| {
                e.spid != self.spid() && catalog::name_eq(&e.database.lock(), &h.def.name)
            });
            if others {
                return match termination {
                    Some(t) if t.to_ascii_uppercase().contains("ROLLBACK") => Err(
                        SqlError::unsupported(format!("ALTER DATABASE SET {} WITH {t}", o.name)),
                    ),
                    _ => Err(SqlError::new(5070, &[&h.def.name])),
                };
            }
        }
        let tree = h.store.catalog_btree()?;
        let mut cat = h.cat.write();
        let old = cat.configs.get(&VERSIONING_CONFIG_ID).copied().unwrap_or(0);
        let new = if on { old | bit } else { old & !bit };
        if new == old {
            return Ok(());
        }
        let mut txn = h.store.begin()?;
        match cat.put_config(&tree, &mut txn, VERSIONING_CONFIG_ID, new) {
            Ok(()) => txn.commit(),
            Err(e) => {
                let _ = txn.abort();
                Err(e)
            }
        }
    }
}

/// `sys.databases`' row versioning columns from the database's configured bits: (snapshot_isolation_state,
/// snapshot_isolation_state_desc, is_read_committed_snapshot_on).
pub(crate) fn sys_databases_columns(configured: i64) -> (u8, &'static str, bool) {
    let (allow, rcsi) = (configured & ALLOW_SNAPSHOT != 0, configured & RCSI != 0);
    (u8::from(allow), if allow { "ON" } else { "OFF" }, rcsi)
}

type Rows = (Vec<catalog::ColumnDef>, Vec<Vec<types::Value>>);

/// The row versioning DMVs, `Ok(None)` when `lname` (lower case) is not one:
/// `sys.dm_tran_active_snapshot_database_transactions` (one row per active snapshot: a
/// SNAPSHOT transaction's, or a READ_COMMITTED_SNAPSHOT statement's with `is_snapshot` 0) and
/// `sys.dm_tran_version_store_space_usage` (per database, the before-images held).
///
/// `transaction_sequence_num` is the number the transaction drew from the version store's
/// counter at its first versioned write or snapshot; `first_snapshot_sequence_num` is the
/// counter's value when its snapshot began: it sees exactly the transactions whose commit
/// drew a number not above it.
pub(crate) fn sys_view(session: &Session, lname: &str) -> SqlResult<Option<Rows>> {
    use types::Value;
    let big = |v: u64| Value::BigInt(i64::try_from(v).unwrap_or(i64::MAX));
    Ok(Some(match lname {
        "dm_tran_active_snapshot_database_transactions" => {
            let c = crate::sysviews_more::columns(&[
                "transaction_id bigint",
                "transaction_sequence_num bigint",
                "commit_sequence_num bigint",
                "session_id int",
                "is_snapshot bit",
                "first_snapshot_sequence_num bigint",
                "max_version_chain_traversed int",
                "average_version_chain_traversed real",
                "elapsed_time_seconds bigint",
            ])?;
            let engine = session.engine();
            let mut rows = Vec::new();
            let mut snaps = engine.versions.active_snapshots();
            snaps.sort_by_key(|s| s.transaction_sequence_num);
            for a in snaps {
                let tran_id = engine
                    .sessions
                    .get(a.session_id)
                    .map(|e| e.tran_id.load(std::sync::atomic::Ordering::Relaxed))
                    .unwrap_or(0);
                rows.push(vec![
                    big(tran_id),
                    big(a.transaction_sequence_num),
                    Value::Null,
                    Value::Int(a.session_id),
                    Value::Bit(a.is_snapshot),
                    big(a.first_snapshot_sequence_num),
                    Value::Null,
                    Value::Null,
                    big(a.started.elapsed().as_secs()),
                ]);
            }
            (c, rows)
        }
        "dm_tran_version_store_space_usage" => {
            let c = crate::sysviews_more::columns(&[
                "database_id int",
                "reserved_page_count bigint",
                "reserved_space_kb bigint",
            ])?;
            let usage = session.engine().versions.space_usage();
            let mut rows = Vec::new();
            let mut dbs: Vec<i32> = session
                .engine()
                .databases()
                .iter()
                .map(|d| d.def.database_id)
                .collect();
            dbs.sort_unstable();
            for id in dbs {
                let bytes = usage.get(&id).map_or(0, |u| u.0);
                rows.push(vec![
                    Value::Int(id),
                    big(bytes.div_ceil(8192)),
                    big(bytes.div_ceil(1024)),
                ]);
            }
            (c, rows)
        }
        _ => return Ok(None),
    }))
}
