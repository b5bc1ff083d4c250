-- Row versioning options (engine README "Row versioning"): ALLOW_SNAPSHOT_ISOLATION and
-- READ_COMMITTED_SNAPSHOT per database, shown in sys.databases; SNAPSHOT reads in one session
-- (its own writes visible to it); 3952 where the database does not allow snapshot isolation.
-- The two-session outcomes (3960, rows deleted / inserted since the snapshot) are in
-- crates/engine/tests/isolation/versioning.rs.
CREATE DATABASE snap_on;
CREATE DATABASE snap_off;
GO
ALTER DATABASE snap_on SET ALLOW_SNAPSHOT_ISOLATION ON;
ALTER DATABASE snap_on SET READ_COMMITTED_SNAPSHOT ON;
SELECT name, snapshot_isolation_state, snapshot_isolation_state_desc, is_read_committed_snapshot_on
FROM sys.databases WHERE name LIKE 'snap[_]%' ORDER BY name;
GO
USE snap_on;
CREATE TABLE t (id int PRIMARY KEY, v int);
INSERT t VALUES (1, 10), (2, 20), (3, 30);
GO
SET TRANSACTION ISOLATION LEVEL SNAPSHOT;
BEGIN TRAN;
SELECT SUM(v) AS before_update FROM t;
UPDATE t SET v = v + 1 WHERE id = 2;
DELETE t WHERE id = 3;
INSERT t VALUES (4, 40);
SELECT id, v FROM t ORDER BY id DESC;
SELECT is_snapshot FROM sys.dm_tran_active_snapshot_database_transactions WHERE session_id = @@SPID;
COMMIT;
SELECT COUNT(*) AS snapshots_after_commit FROM sys.dm_tran_active_snapshot_database_transactions;
GO
USE snap_off;
CREATE TABLE t (id int);
GO
-- a plain read (an aggregate under a parallel or batch plan opens its scan at its first row,
-- so there the error would follow the result's column header)
SELECT id FROM t;
GO
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
ALTER DATABASE snap_on SET ALLOW_SNAPSHOT_ISOLATION OFF;
ALTER DATABASE snap_on SET READ_COMMITTED_SNAPSHOT OFF;
SELECT name, snapshot_isolation_state_desc, is_read_committed_snapshot_on
FROM sys.databases WHERE name = 'snap_on';
GO
ALTER DATABASE master SET READ_COMMITTED_SNAPSHOT ON;
GO
