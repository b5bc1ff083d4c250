-- MERGE JOIN hints: inner, left (and right, planned with its inputs swapped) outer, semi and
-- anti semi joins run as a Merge Join; a full outer join, which latchkey's Merge Join cannot
-- run, raises Msg 8622 instead of a hash join that silently ignores the hint. MERGE statements
-- honour OPTION (... JOIN) like SELECT.
SET NOCOUNT ON;
CREATE TABLE ma (id int PRIMARY KEY, v int);
CREATE TABLE mb (id int PRIMARY KEY, w int);
CREATE TABLE mc (id int PRIMARY KEY);
INSERT ma VALUES (1, 10), (2, 20), (4, NULL);
INSERT mb VALUES (1, 100), (3, 300), (4, 400);
INSERT mc VALUES (1), (5);
GO
SELECT ma.id, mb.w FROM ma JOIN mb ON mb.id = ma.id ORDER BY ma.id OPTION (MERGE JOIN);
SELECT ma.id, mb.w FROM ma LEFT JOIN mb ON mb.id = ma.id ORDER BY ma.id OPTION (MERGE JOIN);
-- a residual predicate beside the key: unmatched rows still come out NULL-extended
SELECT ma.id, mb.w FROM ma LEFT JOIN mb ON mb.id = ma.id AND mb.w > 150 ORDER BY ma.id OPTION (MERGE JOIN);
SELECT ma.id FROM ma WHERE EXISTS (SELECT 1 FROM mb WHERE mb.id = ma.id) ORDER BY ma.id OPTION (MERGE JOIN);
SELECT ma.id FROM ma WHERE NOT EXISTS (SELECT 1 FROM mb WHERE mb.id = ma.id) ORDER BY ma.id OPTION (MERGE JOIN);
GO
SET SHOWPLAN_TEXT ON;
GO
SELECT ma.id, mb.w FROM ma LEFT JOIN mb ON mb.id = ma.id OPTION (MERGE JOIN);
GO
SET SHOWPLAN_TEXT OFF;
GO
SELECT ma.id, mb.w FROM ma RIGHT OUTER JOIN mb ON mb.id = ma.id OPTION (MERGE JOIN);
GO
SELECT ma.id, mb.w FROM ma FULL JOIN mb ON mb.id = ma.id OPTION (MERGE JOIN);
GO
SELECT ma.id, mb.w FROM ma RIGHT MERGE JOIN mb ON mb.id = ma.id;
GO
-- the same joins under HASH run
SELECT ma.id, mb.w FROM ma RIGHT JOIN mb ON mb.id = ma.id ORDER BY mb.id OPTION (HASH JOIN);
SELECT ma.id, mb.w FROM ma FULL JOIN mb ON mb.id = ma.id ORDER BY ma.id, mb.id OPTION (HASH JOIN);
GO
-- MERGE applies its OPTION to the joins of its source too: a FULL JOIN there has no plan
MERGE ma USING (SELECT mc.id, mb.w FROM mb FULL JOIN mc ON mc.id = mb.id) AS src ON ma.id = src.id
WHEN MATCHED THEN UPDATE SET v = src.w
WHEN NOT MATCHED THEN INSERT (id, v) VALUES (src.id, src.w)
OPTION (MERGE JOIN);
GO
SELECT id, v FROM ma ORDER BY id;
GO
MERGE ma USING mb ON ma.id = mb.id
WHEN MATCHED THEN UPDATE SET v = mb.w
WHEN NOT MATCHED THEN INSERT (id, v) VALUES (mb.id, mb.w)
OPTION (MERGE JOIN);
GO
SELECT id, v FROM ma ORDER BY id;
GO
-- NULL keys under a merge join: never matched, so kept by LEFT / NOT EXISTS, and NOT IN's NULL
-- rule still holds
CREATE TABLE na (id int, v int);
CREATE TABLE nb (id int, w int);
INSERT na VALUES (1, 10), (2, NULL), (3, 30), (4, 40);
INSERT nb VALUES (1, 10), (2, NULL), (3, 31);
GO
SELECT id FROM na WHERE v NOT IN (SELECT w FROM nb) ORDER BY id OPTION (MERGE JOIN);
SELECT id FROM na WHERE v NOT IN (SELECT w FROM nb WHERE w IS NOT NULL) ORDER BY id OPTION (MERGE JOIN);
SELECT id FROM na WHERE NOT EXISTS (SELECT 1 FROM nb WHERE nb.w = na.v) ORDER BY id OPTION (MERGE JOIN);
SELECT na.id, nb.id AS nb_id FROM na LEFT JOIN nb ON na.v = nb.w ORDER BY na.id OPTION (MERGE JOIN);
GO
