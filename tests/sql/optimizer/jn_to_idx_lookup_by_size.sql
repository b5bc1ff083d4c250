-- JNtoIdxLookup is a costed choice: a 10-row table joined to a 100,000-row table on the big
-- table's clustered key runs as nested loops with one clustered index seek per outer row
-- (written either way round: JoinCommute swaps the inputs); the same join with both inputs
-- large, or on a column without an index, is a hash join building on the smaller input.
-- OPTION (HASH JOIN), FORCE ORDER and QUERYRULEOFF keep winning over the costs.
CREATE TABLE small (id int PRIMARY KEY, big_id int NOT NULL)
CREATE TABLE big (id int PRIMARY KEY, k int NOT NULL, pad char(40) NOT NULL)
INSERT INTO small SELECT value, value * 7919 % 100000 + 1 FROM GENERATE_SERIES(1, 10)
INSERT INTO big SELECT value, value % 5000, 'x' FROM GENERATE_SERIES(1, 100000)
GO
SET SHOWPLAN_TEXT ON
GO
SELECT s.id, b.k FROM small s JOIN big b ON b.id = s.big_id
GO
SELECT s.id, b.k FROM big b JOIN small s ON b.id = s.big_id
GO
SELECT s.id, b.k FROM small s JOIN big b ON b.k = s.big_id
GO
SELECT COUNT(*) AS n FROM big b1 JOIN big b2 ON b2.id = b1.k
GO
SELECT s.id, b.k FROM small s JOIN big b ON b.id = s.big_id OPTION (HASH JOIN)
GO
SELECT s.id, b.k FROM big b JOIN small s ON b.id = s.big_id OPTION (FORCE ORDER)
GO
SELECT s.id, b.k FROM small s JOIN big b ON b.id = s.big_id OPTION (QUERYRULEOFF JNtoIdxLookup)
GO
SET SHOWPLAN_TEXT OFF
GO
SELECT s.id, b.k FROM small s JOIN big b ON b.id = s.big_id ORDER BY s.id
GO
SELECT s.id, b.k FROM big b JOIN small s ON b.id = s.big_id ORDER BY s.id
GO
