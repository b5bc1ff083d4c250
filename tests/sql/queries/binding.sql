CREATE TABLE t (id int, s varchar(10), d decimal(5,2), dt date)
INSERT INTO t VALUES (1, '10', 1.5, '2024-01-01'), (2, '9', 2.25, '2024-02-01'), (3, 'x', NULL, NULL)
GO
-- the scan reaches 'x' after returning row 1: the error ends the statement
SELECT id FROM t WHERE s = 10
GO
SELECT id FROM t WHERE id = '2'
SELECT id FROM t WHERE dt > '2024-01-15'
-- int and decimal(2,1) unify to decimal(11,1)
SELECT 1 AS a UNION SELECT 2.5 UNION SELECT NULL ORDER BY a
SELECT 'ab' AS v UNION ALL SELECT 'abcdef'
SELECT CASE WHEN id = 1 THEN 1 WHEN id = 2 THEN 2.5 ELSE NULL END AS c FROM t ORDER BY id
GO
SELECT id AS x, s FROM t ORDER BY x DESC
SELECT id, s FROM t ORDER BY 2
GO
SELECT DISTINCT s FROM t ORDER BY id
GO
SELECT t.id FROM t JOIN t ON 1 = 1
GO
SELECT a.id, b.id FROM t a JOIN t b ON a.id = b.id - 1 ORDER BY a.id
GO
SELECT id, ROW_NUMBER() OVER (ORDER BY id) FROM t WHERE ROW_NUMBER() OVER (ORDER BY id) > 1
GO
SELECT COUNT(*) AS n FROM t HAVING COUNT(*) > 1
SELECT id % 2 AS parity, COUNT(*) AS n FROM t GROUP BY id % 2 ORDER BY parity
GO
SELECT s, COUNT(*) FROM t GROUP BY s ORDER BY id
GO
DECLARE @n int = 2
SELECT TOP (@n) id FROM t ORDER BY id
SELECT id, (SELECT MAX(id) FROM t i WHERE i.id < o.id) AS prev FROM t o ORDER BY id
SELECT IIF(id > 1, 'big', 'small') AS sz, CHOOSE(id, 'one', 'two', 'three') AS word FROM t ORDER BY id
GO
SELECT STRING_AGG(s, ',') WITHIN GROUP (ORDER BY id DESC) AS agg FROM t
GO
UPDATE t SET s = o.s FROM t JOIN t o ON o.id = t.id + 1
SELECT id, s FROM t ORDER BY id
DELETE t FROM t JOIN (SELECT 3 AS id) x ON x.id = t.id
SELECT COUNT(*) FROM t
GO
DECLARE @out TABLE (id int, old varchar(10), new varchar(10))
UPDATE t SET s = s + '!' OUTPUT inserted.id, deleted.s, inserted.s INTO @out WHERE id = 1
SELECT * FROM @out
GO
SELECT * FROM (SELECT id, s FROM t) AS q (a, b) ORDER BY a
SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS v (n, l) ORDER BY n DESC
GO
