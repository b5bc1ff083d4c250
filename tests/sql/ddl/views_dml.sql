CREATE TABLE base (id int PRIMARY KEY, v varchar(10), amt decimal(6,2))
INSERT INTO base VALUES (1, 'a', 1.10), (2, 'b', 2.20), (3, 'c', NULL)
GO
CREATE VIEW v1 (k, val) AS SELECT id, v FROM base WHERE id > 1
GO
CREATE VIEW v2 AS SELECT k, UPPER(val) AS uv FROM v1
GO
SELECT * FROM v2 ORDER BY k
UPDATE v1 SET val = 'z' WHERE k = 2
SELECT id, v FROM base ORDER BY id
INSERT INTO v1 (k, val) VALUES (4, 'd')
SELECT COUNT(*) FROM base
DELETE FROM v1 WHERE k = 4
GO
ALTER VIEW v1 AS SELECT id AS k, amt AS val FROM base
GO
SELECT k, val FROM v1 ORDER BY k
GO
CREATE VIEW vt AS SELECT TOP (2) id FROM base ORDER BY id DESC
GO
SELECT id FROM vt ORDER BY id
GO
WITH c (n, label) AS (SELECT id, v FROM base), d AS (SELECT n FROM c WHERE n > 1)
SELECT c.label, d.n FROM c JOIN d ON c.n = d.n ORDER BY d.n
GO
WITH c AS (SELECT id FROM base) SELECT * FROM c a JOIN c b ON a.id = b.id + 1 ORDER BY a.id
GO
-- SUM(decimal(6,2)) is decimal(38,2), AVG decimal(38,6)
SELECT SUM(amt) AS s, AVG(amt) AS a, MIN(v) AS mn, COUNT_BIG(*) AS c FROM base
GO
