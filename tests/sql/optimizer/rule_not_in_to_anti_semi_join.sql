-- NotInToAntiSemiJoin: x NOT IN (subquery) / x op ALL (subquery) must become a left anti semi
-- join (a hash join on x = y for NOT IN) unless QUERYRULEOFF NotInToAntiSemiJoin, which leaves
-- the subquery evaluated per row. SQL Server's NULL semantics decide the plan's shape:
-- * neither side nullable: a plain anti semi join on x = y;
-- * nullable, uncorrelated: anti semi join on x = y, then NOT EXISTS (y IS NULL) (any NULL in
--   the subquery: no row) AND (x IS NOT NULL OR NOT EXISTS (subquery)) (a NULL x survives only
--   an empty subquery), both evaluated once;
-- * nullable, correlated: the anti join's predicate is the correlation AND
--   (x = y OR x IS NULL OR y IS NULL).
-- Every query runs twice, with the rule and with it switched off: the rows must be the same,
-- on data with NULLs on either side and on empty subqueries.
CREATE TABLE o (id int NOT NULL PRIMARY KEY, x int NULL)
CREATE TABLE i_nonull (y int NULL, g int NOT NULL)
CREATE TABLE i_null (y int NULL, g int NOT NULL)
CREATE TABLE i_empty (y int NULL, g int NOT NULL)
CREATE TABLE nn_o (id int NOT NULL PRIMARY KEY, x int NOT NULL)
CREATE TABLE nn_i (y int NOT NULL, g int NOT NULL)
INSERT INTO o VALUES (1, 1), (2, 2), (3, NULL), (4, 4), (5, 5)
INSERT INTO i_nonull VALUES (1, 1), (4, 2), (7, 3)
INSERT INTO i_null VALUES (1, 1), (NULL, 2), (4, 3), (NULL, 4)
INSERT INTO nn_o VALUES (1, 1), (2, 2), (3, 3)
INSERT INTO nn_i VALUES (2, 1), (3, 9)
GO
SET SHOWPLAN_TEXT ON
GO
SELECT id FROM nn_o WHERE x NOT IN (SELECT y FROM nn_i)
GO
SELECT id FROM o WHERE x NOT IN (SELECT y FROM i_null)
GO
SELECT id FROM o WHERE x NOT IN (SELECT y FROM i_null WHERE i_null.g = o.id)
GO
SELECT id FROM o WHERE x > ALL (SELECT y FROM i_nonull)
GO
SELECT id FROM o WHERE x NOT IN (SELECT y FROM i_null) OPTION (QUERYRULEOFF NotInToAntiSemiJoin)
GO
SET SHOWPLAN_TEXT OFF
GO
-- no NULLs anywhere
SELECT id FROM nn_o WHERE x NOT IN (SELECT y FROM nn_i) ORDER BY id
SELECT id FROM nn_o WHERE x NOT IN (SELECT y FROM nn_i) ORDER BY id OPTION (QUERYRULEOFF NotInToAntiSemiJoin)
GO
-- NULL x, no NULL y: the NULL x row is rejected (the subquery is not empty)
SELECT id FROM o WHERE x NOT IN (SELECT y FROM i_nonull) ORDER BY id
SELECT id FROM o WHERE x NOT IN (SELECT y FROM i_nonull) ORDER BY id OPTION (QUERYRULEOFF NotInToAntiSemiJoin)
GO
-- a NULL y: no row at all
SELECT id FROM o WHERE x NOT IN (SELECT y FROM i_null) ORDER BY id
SELECT id FROM o WHERE x NOT IN (SELECT y FROM i_null) ORDER BY id OPTION (QUERYRULEOFF NotInToAntiSemiJoin)
GO
-- empty subquery: every row, the NULL x included
SELECT id FROM o WHERE x NOT IN (SELECT y FROM i_empty) ORDER BY id
SELECT id FROM o WHERE x NOT IN (SELECT y FROM i_empty) ORDER BY id OPTION (QUERYRULEOFF NotInToAntiSemiJoin)
GO
-- correlated: per outer row the subquery is the i_null rows with g = id
SELECT id FROM o WHERE x NOT IN (SELECT y FROM i_null WHERE i_null.g = o.id) ORDER BY id
SELECT id FROM o WHERE x NOT IN (SELECT y FROM i_null WHERE i_null.g = o.id) ORDER BY id OPTION (QUERYRULEOFF NotInToAntiSemiJoin)
GO
-- ALL with other operators, NULLs on both sides, and over an empty subquery
SELECT id FROM o WHERE x > ALL (SELECT y FROM i_nonull WHERE y < 4) ORDER BY id
SELECT id FROM o WHERE x > ALL (SELECT y FROM i_nonull WHERE y < 4) ORDER BY id OPTION (QUERYRULEOFF NotInToAntiSemiJoin)
GO
SELECT id FROM o WHERE x <= ALL (SELECT y FROM i_null) ORDER BY id
SELECT id FROM o WHERE x <= ALL (SELECT y FROM i_null) ORDER BY id OPTION (QUERYRULEOFF NotInToAntiSemiJoin)
GO
SELECT id FROM o WHERE x < ALL (SELECT y FROM i_empty) ORDER BY id
SELECT id FROM o WHERE x < ALL (SELECT y FROM i_empty) ORDER BY id OPTION (QUERYRULEOFF NotInToAntiSemiJoin)
GO
SELECT id FROM o WHERE x <> ALL (SELECT y FROM i_nonull WHERE i_nonull.g >= o.id - 1) ORDER BY id
SELECT id FROM o WHERE x <> ALL (SELECT y FROM i_nonull WHERE i_nonull.g >= o.id - 1) ORDER BY id OPTION (QUERYRULEOFF NotInToAntiSemiJoin)
GO
-- NOT (x = ANY ...) is x <> ALL
SELECT id FROM o WHERE NOT (x = ANY (SELECT y FROM i_nonull)) ORDER BY id
SELECT id FROM o WHERE NOT (x = ANY (SELECT y FROM i_nonull)) ORDER BY id OPTION (QUERYRULEOFF NotInToAntiSemiJoin)
GO
