-- MERGE JOIN hints on joins latchkey's Merge Join cannot run (it is inner-only): Msg 8622
-- instead of a hash join that silently ignores the hint. MERGE statements honour OPTION (...
-- JOIN) like SELECT: their source-target join is a LEFT OUTER join.
SET NOCOUNT ON;
CREATE TABLE ma (id int PRIMARY KEY, v int);
CREATE TABLE mb (id int PRIMARY KEY, w int);
INSERT ma VALUES (1, 10), (2, 20);
INSERT mb VALUES (1, 100), (3, 300);
GO
-- inner join: a merge join
SELECT ma.id, mb.w FROM ma JOIN mb ON mb.id = ma.id ORDER BY ma.id OPTION (MERGE JOIN);
GO
SELECT ma.id, mb.w FROM ma LEFT JOIN mb ON mb.id = ma.id OPTION (MERGE JOIN);
GO
SELECT ma.id, mb.w FROM ma RIGHT OUTER JOIN mb ON mb.id = ma.id OPTION (MERGE JOIN);
GO
SELECT ma.id, mb.w FROM ma FULL JOIN mb ON mb.id = ma.id OPTION (MERGE JOIN);
GO
SELECT ma.id, mb.w FROM ma LEFT MERGE JOIN mb ON mb.id = ma.id;
GO
-- the same outer joins under HASH / LOOP hints run
SELECT ma.id, mb.w FROM ma LEFT JOIN mb ON mb.id = ma.id ORDER BY ma.id OPTION (HASH JOIN);
GO
MERGE ma USING mb ON ma.id = mb.id
WHEN MATCHED THEN UPDATE SET v = mb.w
WHEN NOT MATCHED THEN INSERT (id, v) VALUES (mb.id, mb.w)
OPTION (MERGE JOIN);
GO
SELECT id, v FROM ma ORDER BY id;
GO
MERGE ma USING mb ON ma.id = mb.id
WHEN MATCHED THEN UPDATE SET v = mb.w
WHEN NOT MATCHED THEN INSERT (id, v) VALUES (mb.id, mb.w)
OPTION (HASH JOIN);
GO
SELECT id, v FROM ma ORDER BY id;
GO
