CREATE TABLE src (id int NOT NULL, name varchar(10) NULL, code char(2) NOT NULL)
INSERT INTO src VALUES (1, 'a', 'x1'), (2, NULL, 'x2')
GO
-- SELECT INTO copies a plain column's type and nullability; expressions are nullable,
-- non-NULL constants NOT NULL
SELECT id, name, code, id + 1 AS next_id, 'k' AS konst, CAST(NULL AS int) AS nothing
INTO dst FROM src
GO
SELECT c.name, t.name AS type, c.max_length, c.is_nullable
FROM sys.columns c JOIN sys.types t ON t.user_type_id = c.user_type_id
WHERE c.object_id = OBJECT_ID('dst') ORDER BY c.column_id
GO
SELECT s.id, o.name INTO dst2 FROM src s LEFT JOIN src o ON o.id = s.id + 1
SELECT c.name, c.is_nullable FROM sys.columns c WHERE c.object_id = OBJECT_ID('dst2') ORDER BY c.column_id
GO
-- INSERT ... SELECT with the wrong number of values: 213 without a column list, 120/121 with one
INSERT INTO src SELECT 3, 'c'
INSERT INTO src (id, name, code) SELECT 3, 'c'
INSERT INTO src (id, name) SELECT 3, 'c', 'x3'
GO
