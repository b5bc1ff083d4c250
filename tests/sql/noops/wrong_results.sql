-- Wrong results of issue 12, each fixed: computed columns typed from their expression (not
-- INT), one added to a table with rows computed for those rows, UPPER/LOWER per character
-- (ß kept), DML with OUTPUT counted once.
CREATE TABLE orders (id int PRIMARY KEY, Amount decimal(10,2), Discount decimal(10,2),
    Net AS (Amount - ISNULL(Discount, 0)), Code varchar(10), Label AS (Code + '-x'),
    Stamp datetime, Day AS (CONVERT(date, Stamp)) PERSISTED);
INSERT orders (id, Amount, Discount, Code, Stamp) VALUES (1, 115.50, NULL, 'a', '2024-05-06 10:11:12');
INSERT orders (id, Amount, Discount, Code, Stamp) VALUES (2, 20.25, 0.25, 'b', NULL);
SELECT id, Net, Label, Day FROM orders ORDER BY id;
SELECT CAST(c.name AS varchar(10)) AS name, CAST(t.name AS varchar(10)) AS type_name, c.max_length, c.precision, c.scale, c.is_computed
FROM sys.columns c JOIN sys.types t ON t.user_type_id = c.user_type_id
WHERE c.object_id = OBJECT_ID('orders') AND c.is_computed = 1 ORDER BY c.column_id;
GO
-- a computed column added to a table that has rows is computed for them
ALTER TABLE orders ADD Doubled AS (Amount * 2), Upper AS (UPPER(Code));
SELECT id, Doubled, Upper FROM orders ORDER BY id;
INSERT orders (id, Amount, Code) VALUES (3, 1.5, 'c');
SELECT id, Doubled, Upper FROM orders ORDER BY id;
GO
SELECT UPPER(N'straße') AS up, LOWER(N'STRAßE') AS low, LEN(UPPER(N'ß')) AS len_up,
       UPPER('straße') AS up_varchar, UPPER(N'ǆ ŉ ﬀ é') AS others, LOWER(N'İ') AS dotted_i;
GO
-- DML with OUTPUT: one "(N rows affected)", as sqlcmd prints it
CREATE TABLE o2 (id int);
INSERT o2 OUTPUT inserted.id VALUES (1), (2);
UPDATE o2 SET id = id + 10 OUTPUT deleted.id, inserted.id WHERE id = 1;
DELETE o2 OUTPUT deleted.id WHERE id = 2;
GO
-- a computed column may not use another computed column (Msg 1759)
CREATE TABLE cc (a int, b AS (a + 1), c AS (b * 2));
GO
CREATE TABLE cc (a int, b AS (a + 1));
ALTER TABLE cc ADD c AS (b * 2);
GO
