-- FOR JSON/XML over views, CTEs, derived tables, set operations, GROUP BY, OFFSET/TOP; JSON
-- marks survive a view or derived table; FOR XML in a variable assignment is Msg 6819.
CREATE TABLE t (id int, name varchar(10));
INSERT INTO t VALUES (1, 'a'), (2, 'b');
GO
CREATE VIEW v AS SELECT id, (SELECT name FROM t t2 WHERE t2.id = t.id FOR JSON PATH) AS j FROM t;
GO
SELECT id, j FROM v ORDER BY id FOR JSON PATH;
WITH c AS (SELECT id, JSON_QUERY(N'{"x":1}') AS q FROM t) SELECT id, q FROM c ORDER BY id FOR JSON PATH;
SELECT d.id, d.q FROM (SELECT id, JSON_QUERY(N'[1]') AS q FROM t) d ORDER BY d.id FOR JSON PATH;
SELECT id FROM t ORDER BY id DESC OFFSET 0 ROWS FETCH NEXT 1 ROWS ONLY FOR JSON PATH;
SELECT TOP 1 id FROM t ORDER BY id DESC FOR XML RAW;
SELECT id FROM t UNION ALL SELECT id + 10 FROM t ORDER BY 1 FOR JSON PATH;
SELECT COUNT(*) AS n, name FROM t GROUP BY name ORDER BY name FOR JSON PATH;
DECLARE @x nvarchar(max);
SELECT @x = (SELECT id FROM t FOR XML PATH(''));
SELECT @x AS x;
SELECT @x = id FROM t FOR XML PATH('');
GO
