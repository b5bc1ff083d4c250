-- The plans the query hints give (docs/silent-noops.md, "Query hints"): HASH / ORDER GROUP
-- choose the aggregation, the UNION hints leave concatenation or nothing (Msg 8622), and the
-- hints that hold by construction (FORCE ORDER, NO_PERFORMANCE_SPOOL, EXPAND VIEWS) show the
-- plan that obeys them: joins in the written order, no spool, the view's base table.
SET NOCOUNT ON;
CREATE TABLE qa (id int PRIMARY KEY, g int, s varchar(10));
CREATE TABLE qb (id int PRIMARY KEY, qa_id int, w int);
CREATE TABLE qc (id int PRIMARY KEY, qb_id int);
INSERT qa VALUES (1, 10, 'x'), (2, 10, 'X'), (3, 20, 'y'), (4, NULL, 'z'), (5, NULL, 'y');
INSERT qb VALUES (1, 1, 5), (2, 1, 6), (3, 3, 7);
INSERT qc VALUES (1, 1), (2, 3);
GO
CREATE VIEW qv AS SELECT id, g FROM qa WHERE g IS NOT NULL;
GO
-- ORDER GROUP: the same groups as hashing (NULL is one group; 'x' = 'X' under the collation)
SELECT g, COUNT(*) AS n, MIN(s) AS s FROM qa GROUP BY g ORDER BY g OPTION (ORDER GROUP);
SELECT g, COUNT(*) AS n, MIN(s) AS s FROM qa GROUP BY g ORDER BY g OPTION (HASH GROUP);
SELECT DISTINCT s FROM qa ORDER BY s OPTION (ORDER GROUP);
SELECT COUNT(DISTINCT s) AS n FROM qa OPTION (ORDER GROUP);
GO
SET SHOWPLAN_TEXT ON;
GO
SELECT g, COUNT(*) AS n FROM qa GROUP BY g OPTION (ORDER GROUP);
GO
SELECT g, COUNT(*) AS n FROM qa GROUP BY g OPTION (HASH GROUP);
GO
SELECT g, COUNT(*) AS n FROM qa GROUP BY g OPTION (ORDER GROUP, HASH GROUP);
GO
SELECT DISTINCT s FROM qa OPTION (ORDER GROUP);
GO
SELECT COUNT(*) AS n FROM qa OPTION (HASH GROUP);
GO
SELECT id FROM qa UNION SELECT id FROM qb OPTION (CONCAT UNION);
GO
SELECT id FROM qa UNION ALL SELECT id FROM qb OPTION (CONCAT UNION, HASH UNION);
GO
-- FORCE ORDER: the joins as written (qc, then qb, then qa), with or without the hint
SELECT qa.s, qc.id FROM qc JOIN qb ON qb.id = qc.qb_id JOIN qa ON qa.id = qb.qa_id
OPTION (FORCE ORDER);
GO
SELECT qa.s, qc.id FROM qc JOIN qb ON qb.id = qc.qb_id JOIN qa ON qa.id = qb.qa_id;
GO
-- NO_PERFORMANCE_SPOOL: a correlated subquery without a spool on its inner side
SELECT id, (SELECT SUM(w) FROM qb WHERE qb.qa_id = qa.id) AS w FROM qa
OPTION (NO_PERFORMANCE_SPOOL);
GO
-- EXPAND VIEWS: the view is replaced by its definition over qa
SELECT id FROM qv WHERE g = 10 OPTION (EXPAND VIEWS);
GO
SET SHOWPLAN_TEXT OFF;
GO
SELECT id FROM qa UNION SELECT id FROM qb OPTION (HASH UNION, MERGE UNION);
GO
SELECT id FROM qa UNION ALL SELECT id FROM qb OPTION (MERGE UNION);
GO
SELECT g, COUNT(*) AS n FROM qa GROUP BY CUBE(g) OPTION (ORDER GROUP);
GO
-- the union hints concern only a query that has a UNION
SELECT COUNT(*) AS n FROM qa OPTION (HASH UNION);
GO
-- the join hints of OPTION reach the joins of UPDATE … FROM and DELETE … FROM as well
CREATE TABLE qu (id int PRIMARY KEY, v int);
INSERT qu VALUES (1, 1), (3, 3);
GO
SET SHOWPLAN_TEXT ON;
GO
UPDATE qu SET v = qa.g FROM qu JOIN qa ON qa.id = qu.id OPTION (MERGE JOIN);
GO
DELETE qu FROM qu JOIN qa ON qa.id = qu.id OPTION (MERGE JOIN);
GO
SET SHOWPLAN_TEXT OFF;
GO
UPDATE qu SET v = qa.g FROM qu JOIN qa ON qa.id = qu.id OPTION (MERGE JOIN);
SELECT id, v FROM qu ORDER BY id;
GO
