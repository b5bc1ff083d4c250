-- SimplifyOuterJoin: an outer join under a predicate that rejects the NULLs of its
-- null-extended side must become an inner join (FULL: LEFT, RIGHT or inner) unless
-- QUERYRULEOFF SimplifyOuterJoin; predicates that accept NULLs (IS NULL, ISNULL(...), an OR
-- with such an arm) keep the outer join. Every query also runs with the rule off: same rows.
CREATE TABLE c (c_id int NOT NULL PRIMARY KEY, name varchar(10) NOT NULL)
CREATE TABLE ord (o_id int NOT NULL PRIMARY KEY, c_id int NULL, amount int NULL)
CREATE TABLE item (i_id int NOT NULL PRIMARY KEY, o_id int NOT NULL, qty int NOT NULL)
INSERT INTO c VALUES (1, 'ann'), (2, 'bob'), (3, 'cy')
INSERT INTO ord VALUES (10, 1, 100), (11, 1, NULL), (12, 2, 5), (13, NULL, 7)
INSERT INTO item VALUES (100, 10, 1), (101, 12, 2), (102, 99, 3)
GO
SET SHOWPLAN_TEXT ON
GO
-- WHERE on the right side: LEFT becomes inner
SELECT c.name, ord.amount FROM c LEFT JOIN ord ON ord.c_id = c.c_id WHERE ord.amount > 6
GO
-- the same with the rule off: the outer join stays, the filter above it
SELECT c.name, ord.amount FROM c LEFT JOIN ord ON ord.c_id = c.c_id WHERE ord.amount > 6 OPTION (QUERYRULEOFF SimplifyOuterJoin)
GO
-- IS NULL accepts the NULL extension: stays a LEFT join
SELECT c.name FROM c LEFT JOIN ord ON ord.c_id = c.c_id WHERE ord.amount IS NULL
GO
-- FULL JOIN with a predicate on the left side only: LEFT join
SELECT c.name, ord.o_id FROM c FULL JOIN ord ON ord.c_id = c.c_id WHERE c.name <> 'zz'
GO
-- an inner join's ON above simplifies the outer join below it (both inner, then reordered)
SELECT c.name, item.qty FROM c LEFT JOIN ord ON ord.c_id = c.c_id JOIN item ON item.o_id = ord.o_id
GO
SET SHOWPLAN_TEXT OFF
GO
SELECT c.name, ord.amount FROM c LEFT JOIN ord ON ord.c_id = c.c_id WHERE ord.amount > 6 ORDER BY c.name, ord.amount
SELECT c.name, ord.amount FROM c LEFT JOIN ord ON ord.c_id = c.c_id WHERE ord.amount > 6 ORDER BY c.name, ord.amount OPTION (QUERYRULEOFF SimplifyOuterJoin)
GO
SELECT c.name FROM c LEFT JOIN ord ON ord.c_id = c.c_id WHERE ord.amount IS NULL ORDER BY c.name
SELECT c.name FROM c LEFT JOIN ord ON ord.c_id = c.c_id WHERE ord.amount IS NULL ORDER BY c.name OPTION (QUERYRULEOFF SimplifyOuterJoin)
GO
SELECT c.name FROM c LEFT JOIN ord ON ord.c_id = c.c_id WHERE ISNULL(ord.amount, 0) = 0 ORDER BY c.name
SELECT c.name FROM c LEFT JOIN ord ON ord.c_id = c.c_id WHERE ISNULL(ord.amount, 0) = 0 ORDER BY c.name OPTION (QUERYRULEOFF SimplifyOuterJoin)
GO
SELECT c.name, ord.o_id FROM c FULL JOIN ord ON ord.c_id = c.c_id WHERE c.name <> 'zz' ORDER BY c.name, ord.o_id
SELECT c.name, ord.o_id FROM c FULL JOIN ord ON ord.c_id = c.c_id WHERE c.name <> 'zz' ORDER BY c.name, ord.o_id OPTION (QUERYRULEOFF SimplifyOuterJoin)
GO
SELECT c.name, ord.o_id FROM c FULL JOIN ord ON ord.c_id = c.c_id WHERE ord.amount + 1 > 0 OR c.name = 'cy' ORDER BY c.name, ord.o_id
SELECT c.name, ord.o_id FROM c FULL JOIN ord ON ord.c_id = c.c_id WHERE ord.amount + 1 > 0 OR c.name = 'cy' ORDER BY c.name, ord.o_id OPTION (QUERYRULEOFF SimplifyOuterJoin)
GO
SELECT c.name, ord.o_id FROM c RIGHT JOIN ord ON ord.c_id = c.c_id WHERE c.c_id >= 1 ORDER BY c.name, ord.o_id
SELECT c.name, ord.o_id FROM c RIGHT JOIN ord ON ord.c_id = c.c_id WHERE c.c_id >= 1 ORDER BY c.name, ord.o_id OPTION (QUERYRULEOFF SimplifyOuterJoin)
GO
SELECT c.name, item.qty FROM c LEFT JOIN ord ON ord.c_id = c.c_id JOIN item ON item.o_id = ord.o_id ORDER BY c.name, item.qty
SELECT c.name, item.qty FROM c LEFT JOIN ord ON ord.c_id = c.c_id JOIN item ON item.o_id = ord.o_id ORDER BY c.name, item.qty OPTION (QUERYRULEOFF SimplifyOuterJoin)
GO
SELECT c.name, item.qty FROM c LEFT JOIN ord ON ord.c_id = c.c_id LEFT JOIN item ON item.o_id = ord.o_id WHERE item.qty > 1 ORDER BY c.name, item.qty
SELECT c.name, item.qty FROM c LEFT JOIN ord ON ord.c_id = c.c_id LEFT JOIN item ON item.o_id = ord.o_id WHERE item.qty > 1 ORDER BY c.name, item.qty OPTION (QUERYRULEOFF SimplifyOuterJoin)
GO
