-- format: jsonl
-- Estimates (EstimateRows in SHOWPLAN_ALL) that read the statistics instead of guessing 30 %:
-- * HAVING SUM(x) > 300 over groups of 4 rows needs an average x over 75; x stops at 50, so
--   the filter over the 1,000 groups estimates 1 row (0 qualify), not 300. HAVING AVG(x) > 40
--   is the fraction of x above 40 (20 %: 200 groups; 200 qualify). The semi join of p's 200
--   ids with those keys estimates by containment (200; 40 match): the groups' key is a
--   distinct count the join can use.
-- * A join residual that is an OR of per-table conjunctions (TPC-H q19's shape) is priced from
--   each table's histograms, backed off across tables and arms: 133 of the 4,000 joined rows
--   (80 qualify), not 30 % (1,200).
CREATE TABLE g (id int NOT NULL PRIMARY KEY, k int NOT NULL, x int NOT NULL)
INSERT INTO g SELECT value, value % 1000, value % 50 + 1 FROM GENERATE_SERIES(1, 4000)
CREATE TABLE p (id int NOT NULL PRIMARY KEY, brand int NOT NULL)
INSERT INTO p SELECT value, value % 20 + 1 FROM GENERATE_SERIES(1, 200)
CREATE TABLE li (id int NOT NULL PRIMARY KEY, pid int NOT NULL, qty int NOT NULL)
INSERT INTO li SELECT value, value % 200 + 1, value % 50 + 1 FROM GENERATE_SERIES(1, 4000)
GO
SET SHOWPLAN_ALL ON
GO
SELECT k FROM g GROUP BY k HAVING SUM(x) > 300
GO
SELECT k FROM g GROUP BY k HAVING AVG(x) > 40
GO
SELECT COUNT(*) FROM p WHERE p.id IN (SELECT k FROM g GROUP BY k HAVING AVG(x) > 40)
GO
SELECT COUNT(*) FROM p JOIN li ON p.id = li.pid
WHERE (p.brand = 1 AND li.qty <= 10) OR (p.brand = 2 AND li.qty > 40)
GO
SET SHOWPLAN_ALL OFF
GO
SELECT COUNT(*) AS n FROM (SELECT k FROM g GROUP BY k HAVING SUM(x) > 300) s
SELECT COUNT(*) AS n FROM (SELECT k FROM g GROUP BY k HAVING AVG(x) > 40) s
SELECT COUNT(*) AS n FROM p WHERE p.id IN (SELECT k FROM g GROUP BY k HAVING AVG(x) > 40)
SELECT COUNT(*) AS n FROM p JOIN li ON p.id = li.pid
WHERE (p.brand = 1 AND li.qty <= 10) OR (p.brand = 2 AND li.qty > 40)
GO
