-- Search stages in showplan XML: a statement with no real choice (one table, no usable
-- index, or a seek on its whole unique key) is StatementOptmLevel="TRIVIAL"; a join or a
-- costed seek-vs-scan choice is "FULL". With SHOWPLAN_MEMO on as well, the memo travels in
-- the QueryPlan's InternalInfo element (xmllint-validated by cli/tests/showplan_xsd.rs).
-- A join of three one-row tables: the greedy order is already at the lower bound of C_out,
-- so the exhaustive search is skipped: StatementOptmEarlyAbortReason="GoodEnoughPlanFound".
CREATE TABLE t (id int PRIMARY KEY, v int NOT NULL)
CREATE TABLE u (id int PRIMARY KEY, t_id int NOT NULL)
INSERT INTO t SELECT value, value % 7 FROM GENERATE_SERIES(1, 300)
INSERT INTO u SELECT value, value % 300 + 1 FROM GENERATE_SERIES(1, 900)
CREATE TABLE one_a (id int PRIMARY KEY, b_id int NOT NULL)
CREATE TABLE one_b (id int PRIMARY KEY, c_id int NOT NULL)
CREATE TABLE one_c (id int PRIMARY KEY)
INSERT INTO one_a VALUES (1, 1)
INSERT INTO one_b VALUES (1, 1)
INSERT INTO one_c VALUES (1)
GO
SET SHOWPLAN_XML ON
GO
SELECT v FROM t WHERE v = 3
GO
SELECT v FROM t WHERE id = 3
GO
SELECT t.v FROM t JOIN u ON u.t_id = t.id
GO
SELECT one_a.id FROM one_a JOIN one_b ON one_b.id = one_a.b_id JOIN one_c ON one_c.id = one_b.c_id
GO
SET SHOWPLAN_XML OFF
GO
SET SHOWPLAN_MEMO ON
GO
SET SHOWPLAN_XML ON
GO
SELECT t.v FROM t JOIN u ON u.t_id = t.id WHERE t.v = 1
GO
SET SHOWPLAN_XML OFF
GO
SET SHOWPLAN_MEMO OFF
GO
