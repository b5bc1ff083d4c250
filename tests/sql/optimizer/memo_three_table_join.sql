-- format: jsonl
-- SET SHOWPLAN_MEMO ON: the memo of a three-table join. JoinOrder's dynamic programming
-- shows every subset of {c, o, l} as a group: {c, l} has no join predicate, so its only split
-- is pruned as a cross product and the split of {c, l, o} that needs it is pruned too; each
-- costed split of a group that lost says by how much (C_out, the sum of intermediate rows).
-- The same groups then hold the physical alternatives the planner costed: scan vs seek for
-- each table, hash join vs nested loops over an index seek vs the commuted inputs for each
-- join, the winner marked chosen and every loser with its reason. The root group is the plan.
CREATE TABLE c (id int PRIMARY KEY, region int NOT NULL)
CREATE TABLE o (id int PRIMARY KEY, cust_id int NOT NULL, amount int NOT NULL)
CREATE TABLE l (id int PRIMARY KEY, order_id int NOT NULL, qty int NOT NULL)
INSERT INTO c SELECT value, value % 10 FROM GENERATE_SERIES(1, 100)
INSERT INTO o SELECT value, value % 100 + 1, value % 37 FROM GENERATE_SERIES(1, 2000)
INSERT INTO l SELECT value, value % 2000 + 1, value % 5 FROM GENERATE_SERIES(1, 20000)
GO
SET SHOWPLAN_MEMO ON
GO
SELECT c.id, o.amount, l.qty
FROM c JOIN o ON o.cust_id = c.id JOIN l ON l.order_id = o.id
WHERE c.region = 3
GO
SELECT o.amount FROM o WHERE o.id = 42
GO
SET SHOWPLAN_MEMO OFF
GO
-- recording changes nothing: the same query runs and returns its rows
SELECT COUNT(*) AS n
FROM c JOIN o ON o.cust_id = c.id JOIN l ON l.order_id = o.id
WHERE c.region = 3
GO
