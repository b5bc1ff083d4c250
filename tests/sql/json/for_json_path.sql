-- FOR JSON PATH: one nvarchar(max) column named JSON_F52E2B61-..., dotted aliases nest,
-- NULLs left out unless INCLUDE_NULL_VALUES, ROOT, WITHOUT_ARRAY_WRAPPER, type formatting.
CREATE TABLE dbo.items (id int PRIMARY KEY, name nvarchar(40), price decimal(8,2), cost money,
    active bit, added datetime, added2 datetime2(3), day date, tag varbinary(8), ratio float, r real,
    uid uniqueidentifier);
INSERT INTO dbo.items VALUES
  (1, N'pen "blue"/fine', 1.50, 0.25, 1, '2024-01-02 03:04:05.123', '2024-01-02 03:04:05.5', '2024-01-02', 0x0102FF, 0.5, 2.5, '6F9619FF-8B86-D011-B42D-00C04FC964FF'),
  (2, NULL, 12.00, 10, 0, '2024-02-03', '2024-02-03', '2024-02-03', NULL, NULL, NULL, NULL),
  (3, N'tab	and
newline \ back', 0.10, NULL, NULL, NULL, NULL, NULL, 0x, 1e20, NULL, NULL);
GO
SELECT id, name, price, cost, active, added, added2, day, tag, ratio, r, uid
FROM dbo.items ORDER BY id FOR JSON PATH;
GO
SELECT id AS [item.id], name AS [item.name], price AS [item.price.amount], active AS flag
FROM dbo.items ORDER BY id DESC FOR JSON PATH, ROOT('items'), INCLUDE_NULL_VALUES;
GO
SELECT id, name FROM dbo.items WHERE id = 1 FOR JSON PATH, WITHOUT_ARRAY_WRAPPER;
GO
SELECT id, name FROM dbo.items ORDER BY id FOR JSON PATH, ROOT;
GO
-- no rows: no row at all at the top level, NULL as a subquery
SELECT id FROM dbo.items WHERE id > 10 FOR JSON PATH;
SELECT (SELECT id FROM dbo.items WHERE id > 10 FOR JSON PATH) AS nothing;
GO
-- nested FOR JSON and JSON_QUERY are JSON, not escaped strings; WITHOUT_ARRAY_WRAPPER is a string
SELECT i.id,
  (SELECT j.price FROM dbo.items j WHERE j.id = i.id FOR JSON PATH) AS prices,
  (SELECT j.price FROM dbo.items j WHERE j.id = i.id FOR JSON PATH, WITHOUT_ARRAY_WRAPPER) AS plain,
  JSON_QUERY(N'{"a": [1, 2]}', '$.a') AS q,
  N'{"not":"json"}' AS s
FROM dbo.items i WHERE i.id <= 2 ORDER BY i.id FOR JSON PATH;
GO
-- the value is usable like any string
DECLARE @j nvarchar(max) = (SELECT id, name FROM dbo.items ORDER BY id FOR JSON PATH);
SELECT LEN(@j) AS len, JSON_VALUE(@j, '$[0].name') AS first_name, ISJSON(@j) AS valid;
GO
-- errors SQL Server raises while compiling
SELECT 1 FOR JSON PATH;
GO
SELECT id, name AS [a..b] FROM dbo.items FOR JSON PATH;
GO
SELECT id AS [a.x], price AS b, name AS [a.y] FROM dbo.items FOR JSON PATH;
GO
SELECT id FROM dbo.items FOR JSON PATH, ROOT('r'), WITHOUT_ARRAY_WRAPPER;
GO
SELECT 1 AS one FOR JSON AUTO;
GO
SELECT id INTO dbo.copy FROM dbo.items FOR JSON PATH;
GO
CREATE TABLE dbo.docs (doc nvarchar(max));
INSERT INTO dbo.docs SELECT id FROM dbo.items FOR JSON PATH;
GO
INSERT INTO dbo.docs SELECT id FROM dbo.items FOR XML RAW;
GO
-- a subquery's FOR JSON may be inserted
INSERT INTO dbo.docs SELECT (SELECT id FROM dbo.items ORDER BY id FOR JSON PATH);
SELECT doc, ISJSON(doc) AS valid FROM dbo.docs;
GO
