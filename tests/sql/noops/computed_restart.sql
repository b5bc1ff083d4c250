-- restart
-- A computed column's derived type (not INT) is kept in the catalog across a restart, and one
-- added to a table with rows holds the computed values after it.
CREATE TABLE cr (id int PRIMARY KEY, price decimal(9,3), qty int, name nvarchar(20),
    total AS (price * qty), tag AS (N'#' + name));
INSERT cr (id, price, qty, name) VALUES (1, 2.125, 3, N'straße');
GO
ALTER TABLE cr ADD shout AS (UPPER(name));
GO
-- restart
INSERT cr (id, price, qty, name) VALUES (2, 0.5, 7, N'b');
SELECT id, total, tag, shout FROM cr ORDER BY id;
SELECT CAST(c.name AS varchar(10)) AS name, CAST(t.name AS varchar(10)) AS type_name,
       c.precision, c.scale, c.max_length
FROM sys.columns c JOIN sys.types t ON t.user_type_id = c.user_type_id
WHERE c.object_id = OBJECT_ID('cr') AND c.is_computed = 1 ORDER BY c.column_id;
GO
