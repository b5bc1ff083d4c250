-- format: jsonl
-- SET SHOWPLAN_MEMO ON: the memo of a three-table join, the join search's table. Every subset
-- of {c, o, l} is a group: {c, l} has no join predicate, so its only split is pruned as a
-- cross product and the split of {c, l, o} that needs it is pruned too. Each costed split
-- (JoinOrder) carries the cost of its cheapest physical alternative, and each physical
-- alternative of each input order is listed: hash join (JoinToHash), nested loops over an
-- index seek (JNtoIdxLookup) where the inner input is a table with an index on the key, merge
-- join (JoinToMerge) with the order each input is read in (clustered order or a Sort
-- enforcer); the group's winner is marked chosen and every loser says by how much it lost.
-- The single-table groups hold the scan vs seek alternatives; the root group is the plan.
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
