-- FOR XML RAW / AUTO / PATH, ROOT, ELEMENTS [XSINIL], TYPE; the STUFF(... FOR XML PATH('')) idiom.
CREATE TABLE dbo.people (id int PRIMARY KEY, name nvarchar(30), salary money, born date);
CREATE TABLE dbo.pets (id int PRIMARY KEY, owner int, kind varchar(10));
INSERT INTO dbo.people VALUES (1, N'Ann & "Al" <x>', 10.5, '1990-05-06'), (2, N'Bob', NULL, NULL);
INSERT INTO dbo.pets VALUES (7, 1, 'cat'), (8, 1, 'dog'), (9, 2, 'fish');
GO
SELECT id, name, salary, born FROM dbo.people ORDER BY id FOR XML RAW;
SELECT id, name FROM dbo.people ORDER BY id FOR XML RAW('person'), ROOT('people');
SELECT id, name, salary FROM dbo.people ORDER BY id FOR XML RAW, ELEMENTS;
SELECT id, name, salary FROM dbo.people ORDER BY id FOR XML RAW, ELEMENTS XSINIL, ROOT('r');
GO
SELECT p.id, p.name, pet.kind FROM dbo.people p JOIN dbo.pets pet ON pet.owner = p.id
ORDER BY p.id, pet.id FOR XML AUTO;
SELECT p.id, pet.kind FROM dbo.people p JOIN dbo.pets pet ON pet.owner = p.id
ORDER BY p.id, pet.id FOR XML AUTO, ELEMENTS;
GO
SELECT id AS [@id], name AS [info/name], salary AS [info/salary], born AS [born]
FROM dbo.people ORDER BY id FOR XML PATH('person'), ROOT('people');
SELECT name AS [text()] FROM dbo.people ORDER BY id FOR XML PATH('n');
SELECT id AS [data()] FROM dbo.pets ORDER BY id FOR XML PATH('');
SELECT id, kind FROM dbo.pets ORDER BY id FOR XML PATH;
GO
-- the common comma-list idiom (entities stay escaped without TYPE)
SELECT STUFF((SELECT ',' + kind FROM dbo.pets ORDER BY id FOR XML PATH('')), 1, 1, '') AS kinds;
SELECT p.name, STUFF((SELECT ', ' + pet.kind FROM dbo.pets pet WHERE pet.owner = p.id
                       ORDER BY pet.kind FOR XML PATH('')), 1, 2, '') AS pets
FROM dbo.people p ORDER BY p.id;
SELECT (SELECT N'a<b' + N'&' FOR XML PATH('')) AS escaped;
GO
-- TYPE: an xml value, embedded as markup by an enclosing FOR XML; without TYPE it is text
SELECT p.id AS [@id],
       (SELECT pet.kind AS [@kind] FROM dbo.pets pet WHERE pet.owner = p.id ORDER BY pet.id
        FOR XML PATH('pet'), TYPE) AS pets
FROM dbo.people p ORDER BY p.id FOR XML PATH('owner'), ROOT('owners');
SELECT (SELECT kind FROM dbo.pets WHERE id = 7 FOR XML PATH('')) AS [text] FOR XML PATH('wrap');
GO
-- errors
SELECT id FROM dbo.people FOR XML EXPLICIT;
GO
SELECT id FROM dbo.people FOR XML RAW, XMLSCHEMA;
GO
SELECT id FROM dbo.people FOR BROWSE;
GO
SELECT 1 AS one FOR XML AUTO;
GO
SELECT 1 FOR XML RAW;
GO
SELECT name AS [n], id AS [@id] FROM dbo.people FOR XML PATH;
GO
SELECT id AS [@id] FROM dbo.people FOR XML PATH('');
GO
SELECT id FROM dbo.people FOR XML PATH, ELEMENTS XSINIL, ROOT('x'), TYPE;
GO
SELECT 'x' AS [comment()], 'a=1' AS [processing-instruction(cfg)], id AS [v] FROM dbo.pets WHERE id = 7 FOR XML PATH('p');
GO
-- binary data: base64 with BINARY BASE64 (and in PATH); RAW without it is Msg 6829
SELECT 1 AS id, 0x0102FF AS b FOR XML RAW, BINARY BASE64;
SELECT 1 AS id, 0x0102FF AS b FOR XML PATH;
GO
SELECT 1 AS id, 0x0102FF AS b FOR XML RAW;
GO
SELECT p.id, CAST(p.name AS varbinary(20)) AS b FROM dbo.people p FOR XML AUTO;
GO
