-- AnyToSemiJoin: x op ANY|SOME (subquery) (and NOT (x op ALL (subquery))) must become a left
-- semi join on x op y (a hash join for = ANY) unless QUERYRULEOFF AnyToSemiJoin, which leaves
-- the subquery evaluated per row. A NULL on either side never makes ANY TRUE, and never
-- matches a join: the rows are the same both ways (each query runs twice below).
CREATE TABLE o (id int NOT NULL PRIMARY KEY, x int NULL)
CREATE TABLE i_null (y int NULL, g int NOT NULL)
CREATE TABLE i_empty (y int NULL, g int NOT NULL)
INSERT INTO o VALUES (1, 1), (2, 2), (3, NULL), (4, 4), (5, 5)
INSERT INTO i_null VALUES (1, 1), (NULL, 2), (4, 3), (NULL, 4)
GO
SET SHOWPLAN_TEXT ON
GO
SELECT id FROM o WHERE x = ANY (SELECT y FROM i_null)
GO
SELECT id FROM o WHERE x > SOME (SELECT y FROM i_null WHERE i_null.g = o.id - 2)
GO
SELECT id FROM o WHERE x = ANY (SELECT y FROM i_null) OPTION (QUERYRULEOFF AnyToSemiJoin)
GO
SET SHOWPLAN_TEXT OFF
GO
SELECT id FROM o WHERE x = ANY (SELECT y FROM i_null) ORDER BY id
SELECT id FROM o WHERE x = ANY (SELECT y FROM i_null) ORDER BY id OPTION (QUERYRULEOFF AnyToSemiJoin)
GO
SELECT id FROM o WHERE x > SOME (SELECT y FROM i_null) ORDER BY id
SELECT id FROM o WHERE x > SOME (SELECT y FROM i_null) ORDER BY id OPTION (QUERYRULEOFF AnyToSemiJoin)
GO
SELECT id FROM o WHERE x <> ANY (SELECT y FROM i_null WHERE y IS NOT NULL) ORDER BY id
SELECT id FROM o WHERE x <> ANY (SELECT y FROM i_null WHERE y IS NOT NULL) ORDER BY id OPTION (QUERYRULEOFF AnyToSemiJoin)
GO
SELECT id FROM o WHERE x > SOME (SELECT y FROM i_null WHERE i_null.g = o.id - 2) ORDER BY id
SELECT id FROM o WHERE x > SOME (SELECT y FROM i_null WHERE i_null.g = o.id - 2) ORDER BY id OPTION (QUERYRULEOFF AnyToSemiJoin)
GO
SELECT id FROM o WHERE x = ANY (SELECT y FROM i_empty) ORDER BY id
SELECT id FROM o WHERE x = ANY (SELECT y FROM i_empty) ORDER BY id OPTION (QUERYRULEOFF AnyToSemiJoin)
GO
-- NOT (x >= ALL ...) is x < ANY
SELECT id FROM o WHERE NOT (x >= ALL (SELECT y FROM i_null)) ORDER BY id
SELECT id FROM o WHERE NOT (x >= ALL (SELECT y FROM i_null)) ORDER BY id OPTION (QUERYRULEOFF AnyToSemiJoin)
GO
