-- Key-range locks under SERIALIZABLE (engine README "Key-range locks"), one session: the
-- locks a range seek, a seek of a missing key, a seek past the last key and a ranged UPDATE
-- hold, as sys.dm_tran_locks shows them (key hashes left out; the end of the index is
-- SQL Server's (ffffffffffff)). The two-session outcomes (blocked and unblocked inserts,
-- deadlock 1205) are in crates/engine/tests/isolation/key_range.rs.
CREATE TABLE kr (id int PRIMARY KEY, v int);
INSERT kr VALUES (5, 0), (10, 0), (15, 0), (20, 0), (25, 0), (2000, 0);
GO
SET TRANSACTION ISOLATION LEVEL SERIALIZABLE;
BEGIN TRAN;
SELECT id FROM kr WHERE id BETWEEN 10 AND 20;
SELECT resource_type, request_mode, request_status, COUNT(*) AS locks,
       MAX(CASE WHEN resource_description = '(ffffffffffff)' THEN 1 ELSE 0 END) AS end_of_index
FROM sys.dm_tran_locks WHERE request_session_id = @@SPID AND resource_type <> 'DATABASE'
GROUP BY resource_type, request_mode, request_status ORDER BY resource_type, request_mode;
COMMIT;
GO
-- a missing key: only the next key (20) is locked
BEGIN TRAN;
SELECT v FROM kr WHERE id = 17;
SELECT resource_type, request_mode, COUNT(*) AS locks
FROM sys.dm_tran_locks WHERE request_session_id = @@SPID AND resource_type = 'KEY'
GROUP BY resource_type, request_mode;
COMMIT;
GO
-- past the last key: the end of the index
BEGIN TRAN;
SELECT v FROM kr WHERE id > 5000;
SELECT request_mode, resource_description
FROM sys.dm_tran_locks WHERE request_session_id = @@SPID AND resource_type = 'KEY';
COMMIT;
GO
-- a ranged UPDATE: RangeX-X on the keys it changed, RangeS-U on the next key
BEGIN TRAN;
UPDATE kr SET v = 1 WHERE id BETWEEN 10 AND 15;
SELECT request_mode, COUNT(*) AS locks
FROM sys.dm_tran_locks WHERE request_session_id = @@SPID AND resource_type = 'KEY'
GROUP BY request_mode ORDER BY request_mode;
ROLLBACK;
GO
-- a heap keeps the table lock
CREATE TABLE krh (id int, v int);
INSERT krh VALUES (10, 0), (20, 0);
GO
BEGIN TRAN;
SELECT COUNT(*) AS n FROM krh WHERE id BETWEEN 10 AND 20;
SELECT resource_type, request_mode
FROM sys.dm_tran_locks WHERE request_session_id = @@SPID AND resource_type IN ('OBJECT', 'KEY', 'RID');
COMMIT;
GO
