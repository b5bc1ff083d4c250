-- FOR JSON AUTO: one level per table in select-list order; rows of the joined table nest in
-- an array named after its alias; consecutive rows with the same parent values share it.
CREATE TABLE dbo.customers (id int PRIMARY KEY, name nvarchar(20));
CREATE TABLE dbo.orders (id int PRIMARY KEY, customer_id int, total decimal(6,2));
INSERT INTO dbo.customers VALUES (1, N'Ann'), (2, N'Bob'), (3, N'Cy');
INSERT INTO dbo.orders VALUES (10, 1, 5.00), (11, 1, 7.50), (12, 2, 1.25);
GO
SELECT c.id, c.name, o.id AS order_id, o.total
FROM dbo.customers c JOIN dbo.orders o ON o.customer_id = c.id
ORDER BY c.id, o.id FOR JSON AUTO;
GO
SELECT c.id, c.name, o.id AS order_id
FROM dbo.customers c LEFT JOIN dbo.orders o ON o.customer_id = c.id
ORDER BY c.id, o.id FOR JSON AUTO, INCLUDE_NULL_VALUES;
GO
SELECT id, name FROM dbo.customers ORDER BY id FOR JSON AUTO, ROOT('customers');
GO
SELECT c.name, UPPER(c.name) AS shout FROM dbo.customers c WHERE c.id = 1 FOR JSON AUTO;
GO
