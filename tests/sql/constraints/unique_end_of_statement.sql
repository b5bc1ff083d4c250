-- Uniqueness is checked against the statement's final state (issue 8): shifting keys that
-- collide only midway succeeds; a genuine duplicate raises 2627 / 2601 and the statement
-- rolls back completely. Primary key (clustered and nonclustered), UNIQUE constraint,
-- unique indexes (clustered and nonclustered, heap and B-tree), MERGE and multi-row INSERT.
CREATE TABLE p (id int PRIMARY KEY, v varchar(5));
INSERT INTO p VALUES (1, 'a'), (2, 'b'), (3, 'c');
GO
UPDATE p SET id = id + 1;
SELECT id, v FROM p ORDER BY id;
GO
UPDATE p SET id = id - 1;
SELECT id, v FROM p ORDER BY id;
GO
-- a real duplicate in the final state: 2627, nothing changed
UPDATE p SET id = 7 WHERE id >= 2;
SELECT id, v FROM p ORDER BY id;
GO
CREATE TABLE h (id int NOT NULL, u int, CONSTRAINT pk_h PRIMARY KEY NONCLUSTERED (id), CONSTRAINT uq_h UNIQUE (u));
INSERT INTO h VALUES (1, 10), (2, 20), (3, 30);
GO
UPDATE h SET id = id + 1, u = u + 10;
SELECT id, u FROM h ORDER BY id;
GO
UPDATE h SET u = 40 WHERE id = 2;
SELECT id, u FROM h ORDER BY id;
GO
CREATE TABLE ci (k int, w int);
CREATE UNIQUE CLUSTERED INDEX cx ON ci (k);
CREATE UNIQUE INDEX nx ON ci (w DESC);
INSERT INTO ci VALUES (1, 1), (2, 2), (3, 3);
GO
UPDATE ci SET k = 4 - k, w = w + 1;
SELECT k, w FROM ci ORDER BY k;
GO
UPDATE ci SET w = 2;
SELECT k, w FROM ci ORDER BY k;
GO
-- MERGE: keys shifted by an UPDATE action; then a duplicate made by MERGE
MERGE p AS t USING (SELECT 1 AS d) AS s ON 1 = 1
WHEN MATCHED THEN UPDATE SET id = t.id + 1;
SELECT id, v FROM p ORDER BY id;
GO
MERGE p AS t USING (SELECT 3 AS id) AS s ON t.id = s.id
WHEN MATCHED THEN UPDATE SET id = 2;
SELECT id, v FROM p ORDER BY id;
GO
-- multi-row INSERT with a duplicate: 2627, none of its rows stay
INSERT INTO p VALUES (10, 'x'), (11, 'y'), (10, 'z');
SELECT COUNT(*) AS n FROM p;
GO
INSERT INTO ci VALUES (9, 9), (8, 9);
SELECT COUNT(*) AS n FROM ci;
GO
-- inside a transaction the failed statement is undone, the earlier one is kept
BEGIN TRAN;
UPDATE h SET u = u + 1;
UPDATE h SET u = 21 WHERE id = 3;
COMMIT;
SELECT id, u FROM h ORDER BY id;
GO
-- MERGE inserting a key that its own UPDATE action moves away: valid in the final state
MERGE p AS t USING (VALUES (100, 4), (4, 0)) AS s (id, nid) ON t.id = s.id
WHEN MATCHED THEN UPDATE SET id = 40
WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.nid, 'm');
SELECT id, v FROM p ORDER BY id;
GO
