CREATE TABLE a (id int, x varchar(5))
CREATE TABLE b (id int, y varchar(5))
INSERT INTO a VALUES (1, 'a1'), (2, 'a2'), (3, 'a3'), (NULL, 'an')
INSERT INTO b VALUES (2, 'b2'), (3, 'b3'), (3, 'b3x'), (4, 'b4'), (NULL, 'bn')
GO
SELECT a.id, a.x, b.y FROM a INNER JOIN b ON a.id = b.id ORDER BY a.id, b.y
SELECT a.id, a.x, b.y FROM a LEFT JOIN b ON a.id = b.id ORDER BY a.x, b.y
SELECT b.id, a.x, b.y FROM a RIGHT OUTER JOIN b ON a.id = b.id ORDER BY b.y
SELECT a.x, b.y FROM a FULL OUTER JOIN b ON a.id = b.id ORDER BY a.x, b.y
SELECT COUNT(*) AS cross_rows FROM a CROSS JOIN b
SELECT a.x, b.y FROM a, b WHERE a.id = b.id AND b.y LIKE '%x' 
GO
SELECT a.x, t.y FROM a CROSS APPLY (SELECT TOP (1) b.y FROM b WHERE b.id >= a.id ORDER BY b.y DESC) t ORDER BY a.x
SELECT a.x, t.y FROM a OUTER APPLY (SELECT b.y FROM b WHERE b.id = a.id) t ORDER BY a.x, t.y
SELECT a.x, v.n FROM a CROSS APPLY (VALUES (a.id), (a.id * 10)) v(n) WHERE a.id < 3 ORDER BY a.x, v.n
GO
