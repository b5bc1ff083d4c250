-- BuildSpool: the inner side of nested loops that reads nothing of the outer row (here a join
-- on an inequality, and the anti semi join of x > ALL) must go under a Table Spool (Lazy
-- Spool) that reads it once and replays it, unless OPTION (NO_PERFORMANCE_SPOOL) or
-- QUERYRULEOFF BuildSpool. The results are the same; STATISTICS PROFILE shows the spooled
-- scan executed once (Executes 1) against once per outer row without the spool.
CREATE TABLE band (lo int NOT NULL, hi int NOT NULL, label varchar(10) NOT NULL)
CREATE TABLE reading (id int NOT NULL PRIMARY KEY, v int NOT NULL)
INSERT INTO band VALUES (0, 10, 'low'), (10, 50, 'mid'), (50, 1000, 'high')
INSERT INTO reading SELECT value, value * 7 % 100 FROM GENERATE_SERIES(1, 2000)
GO
SET SHOWPLAN_TEXT ON
GO
SELECT r.id, b.label FROM reading r JOIN band b ON r.v >= b.lo AND r.v < b.hi
GO
SELECT r.id, b.label FROM reading r JOIN band b ON r.v >= b.lo AND r.v < b.hi OPTION (NO_PERFORMANCE_SPOOL)
GO
SELECT r.id, b.label FROM reading r JOIN band b ON r.v >= b.lo AND r.v < b.hi OPTION (QUERYRULEOFF BuildSpool)
GO
SELECT id FROM reading WHERE v > ALL (SELECT lo FROM band)
GO
SET SHOWPLAN_TEXT OFF
GO
SELECT b.label, COUNT(*) AS n, SUM(r.v) AS s FROM reading r JOIN band b ON r.v >= b.lo AND r.v < b.hi GROUP BY b.label ORDER BY b.label
SELECT b.label, COUNT(*) AS n, SUM(r.v) AS s FROM reading r JOIN band b ON r.v >= b.lo AND r.v < b.hi GROUP BY b.label ORDER BY b.label OPTION (NO_PERFORMANCE_SPOOL)
GO
SELECT COUNT(*) AS n FROM reading WHERE v > ALL (SELECT lo FROM band)
SELECT COUNT(*) AS n FROM reading WHERE v > ALL (SELECT lo FROM band) OPTION (NO_PERFORMANCE_SPOOL)
GO
SET STATISTICS PROFILE ON
GO
SELECT COUNT(*) AS n FROM reading r JOIN band b ON r.v >= b.lo AND r.v < b.hi AND r.id <= 5
GO
SELECT COUNT(*) AS n FROM reading r JOIN band b ON r.v >= b.lo AND r.v < b.hi AND r.id <= 5 OPTION (NO_PERFORMANCE_SPOOL)
GO
SET STATISTICS PROFILE OFF
GO
-- the actual plan counts the spool's rebinds (input read: 1) and rewinds (replays: 1999)
SET STATISTICS XML ON
GO
SELECT COUNT(*) AS n FROM reading r JOIN band b ON r.v >= b.lo AND r.v < b.hi AND r.id <= 5
GO
