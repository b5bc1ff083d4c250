-- A nonclustered index whose INCLUDE columns hold every column the query reads is covering:
-- the Index Seek reads them from the index entries, with no Key Lookup (clustered table) or RID
-- Lookup (heap). Reading a column it does not hold (here the key column itself, stored only in
-- its sort-key form, or an unindexed column) keeps the lookup. Results are the same.
CREATE TABLE orders (id int PRIMARY KEY, cust int NOT NULL, total int NOT NULL, note varchar(20) NULL)
CREATE INDEX ix_cust ON orders (cust) INCLUDE (total, id)
INSERT INTO orders SELECT value, value % 2000, value % 97, 'n' FROM GENERATE_SERIES(1, 20000)
CREATE TABLE heap_orders (id int NOT NULL, cust int NOT NULL, total int NOT NULL)
CREATE INDEX ix_hcust ON heap_orders (cust) INCLUDE (total)
INSERT INTO heap_orders SELECT value, value % 2000, value % 97 FROM GENERATE_SERIES(1, 20000)
GO
SET SHOWPLAN_TEXT ON
GO
SELECT id, total FROM orders WHERE cust = 42
GO
SELECT SUM(total) AS s FROM heap_orders WHERE cust = 42
GO
SELECT id, total, note FROM orders WHERE cust = 42
GO
SELECT cust, total FROM orders WHERE cust = 42
GO
SET SHOWPLAN_TEXT OFF
GO
SELECT id, total FROM orders WHERE cust = 42 ORDER BY id
GO
SELECT id, total, note FROM orders WHERE cust = 42 ORDER BY id
GO
SELECT SUM(total) AS s FROM heap_orders WHERE cust = 42
GO
SELECT SUM(total) AS s FROM heap_orders WITH (INDEX(0)) WHERE cust = 42
GO
