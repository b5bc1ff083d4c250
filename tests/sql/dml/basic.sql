CREATE TABLE items (id int PRIMARY KEY, name nvarchar(30), price money, qty int)
GO
INSERT INTO items (id, name, price, qty) VALUES (1, N'apple', 1.25, 10), (2, N'pear', 2.5, 0), (3, N'plum', 0.75, 7)
GO
SELECT id, name, price, qty FROM items ORDER BY id
GO
UPDATE items SET qty = qty + 1 WHERE qty > 0
GO
DELETE FROM items WHERE qty = 0
GO
SELECT COUNT(*) AS n, SUM(qty) AS total FROM items
GO
TRUNCATE TABLE items
GO
SELECT COUNT(*) FROM items
GO
