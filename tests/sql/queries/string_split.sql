-- Built-in table-valued functions in FROM: STRING_SPLIT, GENERATE_SERIES, OPENJSON.
SELECT value FROM STRING_SPLIT('a,b,c', ',') ORDER BY value
GO
SELECT t.n, s.value FROM (VALUES (1, 'x;y'), (2, 'z')) t(n, l) CROSS APPLY STRING_SPLIT(t.l, ';') s ORDER BY t.n, s.value
GO
-- empty pieces, ordinal, unicode input, NULL input, alias with column list
SELECT value, ordinal FROM STRING_SPLIT('a,,b,', ',', 1) ORDER BY ordinal
GO
SELECT s.v, s.o FROM STRING_SPLIT(N'α β γ', N' ', 1) AS s(v, o) WHERE s.o > 1 ORDER BY s.o
GO
SELECT COUNT(*) AS pieces FROM STRING_SPLIT(NULL, ',')
GO
DECLARE @list varchar(100) = '3|1|2|1'
SELECT value, COUNT(*) AS n FROM STRING_SPLIT(@list, '|') GROUP BY value ORDER BY value
GO
CREATE TABLE tags (id int, tags varchar(50))
INSERT tags VALUES (1, 'red,green'), (2, NULL), (3, 'blue')
SELECT t.id, s.value FROM tags t OUTER APPLY STRING_SPLIT(t.tags, ',') s ORDER BY t.id, s.value
SELECT t.id FROM tags t WHERE 'green' IN (SELECT value FROM STRING_SPLIT(t.tags, ','))
GO
SELECT value FROM STRING_SPLIT('1 2 3', ' ') WHERE CAST(value AS int) >= 2 ORDER BY value
GO
-- GENERATE_SERIES
SELECT value FROM GENERATE_SERIES(1, 5)
GO
SELECT value FROM GENERATE_SERIES(10, 0, -4)
GO
SELECT value FROM GENERATE_SERIES(3, 1)
GO
SELECT COUNT(*) AS none FROM GENERATE_SERIES(1, 10, -1)
GO
DECLARE @start decimal(2, 1) = 0.0, @stop decimal(2, 1) = 1.0, @step decimal(2, 1) = 0.3
SELECT value FROM GENERATE_SERIES(@start, @stop, @step)
GO
SELECT n.value AS n, s.value AS sq FROM GENERATE_SERIES(1, 3) n
CROSS APPLY GENERATE_SERIES(n.value * n.value, n.value * n.value) s
GO
-- OPENJSON with the default schema
SELECT [key], value, type FROM OPENJSON(N'{"name":"x","n":12.5,"ok":true,"none":null,"arr":[1, "two"],"obj":{"a":1}}')
GO
SELECT [key], value, type FROM OPENJSON(N'{"a":{"list":[10,20,30]}}', N'$.a.list')
GO
SELECT COUNT(*) AS missing FROM OPENJSON(N'{"a":1}', N'$.b')
GO
-- OPENJSON with an explicit schema: one row per array element, lax/strict paths, AS JSON
SELECT * FROM OPENJSON(N'[{"id": 1, "tags": ["x", "y"], "ok": true}, {"id": "2", "ok": false}]')
  WITH (id int, tags nvarchar(max) AS JSON, ok bit, first_tag varchar(5) '$.tags[0]') AS j
GO
DECLARE @doc nvarchar(200) = N'{"order": {"no": "A-17", "lines": [{"sku": "p1", "qty": 2}, {"sku": "p2", "qty": 5}]}}'
SELECT l.sku, l.qty, l.qty * 10 AS total FROM OPENJSON(@doc, N'$.order.lines') WITH (sku varchar(10), qty int) l
ORDER BY l.qty DESC
GO
SELECT a FROM OPENJSON(N'{"a":"long string"}') WITH (a nvarchar(5))
GO
DECLARE @j nvarchar(max) = N'[{"id":1,"tags":"a,b"},{"id":2,"tags":"c"}]'
SELECT j.id, s.value FROM OPENJSON(@j) WITH (id int, tags varchar(20)) j
CROSS APPLY STRING_SPLIT(j.tags, ',') s ORDER BY j.id, s.value
GO
-- errors
SELECT value FROM STRING_SPLIT('a,b', ',,')
GO
SELECT * FROM OPENJSON(N'{"a":1}') WITH (b int 'strict $.b')
GO
SELECT value FROM STRING_SPLIT(12, ',')
GO
