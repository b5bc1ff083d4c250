-- UNPIVOT: one row per listed column, NULL values dropped
CREATE TABLE scores (id int, q1 int, q2 int NULL, q3 int, note varchar(5));
INSERT INTO scores VALUES (1, 10, 20, 30, 'a'), (2, 5, NULL, 7, 'b'), (3, NULL, NULL, NULL, 'c');
GO
SELECT id, quarter, score FROM scores
UNPIVOT (score FOR quarter IN (q1, q2, q3)) AS u ORDER BY id, quarter;
GO
-- SELECT *: the remaining columns, then the name column, then the value column
SELECT * FROM scores UNPIVOT (score FOR quarter IN (q1, q3)) u ORDER BY id, quarter;
GO
-- the name column is nvarchar(128)
SELECT quarter, score INTO unp FROM scores UNPIVOT (score FOR quarter IN (q1)) u;
SELECT c.name, t.name AS type, c.max_length FROM sys.columns c JOIN sys.types t ON t.user_type_id = c.user_type_id
WHERE c.object_id = OBJECT_ID('unp') ORDER BY c.column_id;
GO
-- PIVOT then UNPIVOT round trip
SELECT * FROM (SELECT id, quarter, score FROM scores UNPIVOT (score FOR quarter IN (q1, q2, q3)) u) s
PIVOT (SUM(score) FOR quarter IN (q1, q2, q3)) p ORDER BY id;
GO
-- errors
CREATE TABLE people (id int, first varchar(50), last varchar(25));
GO
SELECT * FROM people UNPIVOT (v FOR col IN (first, last)) u;
GO
SELECT * FROM scores UNPIVOT (score FOR quarter IN (q1, nosuch)) u;
GO
SELECT * FROM scores UNPIVOT (id FOR quarter IN (q1, q2)) u;
GO
SELECT * FROM scores UNPIVOT (score FOR note IN (q1, q2)) u;
GO
SELECT * FROM scores UNPIVOT (score FOR quarter IN (q1, q1)) u;
GO
SELECT * FROM scores UNPIVOT (score FOR quarter IN (q1, q2));
GO
