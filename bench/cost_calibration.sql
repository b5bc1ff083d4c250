-- Cost model calibration, quick version (crates/optimizer/src/cost.rs, optimizer README "Cost
-- model"): times the operations whose cost ratios drive the planner's choices, on this
-- executor. The full calibration, which prints each measured ratio beside the model's, warm
-- and cold, is bench/cost_calibration.py.
--   latchkey --data DIR -i bench/cost_calibration.sql | grep -E "^-- |elapsed"
-- (a) scan of 200,000 heap rows (char(100) rows: ~2,700 pages)
-- (b) seek + RID lookup of 20,000 of them (one random read per row)
-- (c) hash join building 20,000 rows, probing 200,000
-- (d) nested loops: 20,000 clustered seeks
SET NOCOUNT ON
CREATE TABLE h (id int NOT NULL, grp int NOT NULL, pad char(100) NOT NULL)
CREATE INDEX ix_id ON h (id)
INSERT INTO h SELECT value, value % 10, 'x' FROM GENERATE_SERIES(1, 200000)
CREATE TABLE c (id int PRIMARY KEY, k int NOT NULL)
INSERT INTO c SELECT value, value * 7 % 200000 + 1 FROM GENERATE_SERIES(1, 200000)
CREATE TABLE s (id int PRIMARY KEY, k int NOT NULL)
INSERT INTO s SELECT value, value * 13 % 200000 + 1 FROM GENERATE_SERIES(1, 20000)
GO
-- warm the buffer pool
SELECT SUM(grp) FROM h WITH (INDEX(0)) WHERE pad <> 'y'
SELECT COUNT(*) FROM c WHERE k > 0
GO
SET STATISTICS TIME ON
GO
-- (a) scan 200000
SELECT SUM(grp) FROM h WITH (INDEX(0)) WHERE pad <> 'y'
GO
-- (b) seek+lookup 20000
SELECT SUM(grp) FROM h WITH (INDEX(ix_id)) WHERE id <= 20000
GO
-- (c) hash 20000 x 200000
SELECT COUNT(*) FROM c INNER HASH JOIN s ON s.k = c.id
GO
-- (d) loops 20000 seeks
SELECT COUNT(*) FROM s INNER LOOP JOIN c ON c.id = s.k
GO
