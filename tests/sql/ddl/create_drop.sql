CREATE TABLE t1 (id int NOT NULL PRIMARY KEY, name varchar(20) NULL, amount decimal(10,2) DEFAULT 0)
GO
CREATE TABLE t1 (x int)
GO
DROP TABLE IF EXISTS t1
GO
DROP TABLE t1
GO
DROP TABLE IF EXISTS t1
GO
CREATE TABLE dup (a int, A int)
GO
CREATE SCHEMA sales
GO
CREATE TABLE sales.orders (id int IDENTITY(1,1) PRIMARY KEY, qty int NOT NULL CHECK (qty > 0))
GO
CREATE INDEX ix_qty ON sales.orders (qty)
GO
CREATE INDEX ix_qty ON sales.orders (qty)
GO
SELECT name, type_desc FROM sys.objects WHERE schema_id = SCHEMA_ID('sales') ORDER BY name
GO
DROP INDEX ix_qty ON sales.orders
GO
DROP TABLE sales.orders
GO
DROP SCHEMA sales
GO
