-- JoinOrder on a star schema: the fact table (50,000 rows) joins the dimension its filter
-- makes selective first (region: one of 10 rows), then the others, whatever the written
-- order; with FORCE ORDER (or QUERYRULEOFF JoinOrder) the joins stay as written. The
-- results are the same either way.
CREATE TABLE region (id int PRIMARY KEY, name varchar(20) NOT NULL)
CREATE TABLE product (id int PRIMARY KEY, cat int NOT NULL)
CREATE TABLE customer (id int PRIMARY KEY, seg int NOT NULL)
CREATE TABLE sales (id int PRIMARY KEY, region_id int NOT NULL, product_id int NOT NULL, customer_id int NOT NULL, amount int NOT NULL)
INSERT INTO region SELECT value, CONCAT('r', value) FROM GENERATE_SERIES(1, 10)
INSERT INTO product SELECT value, value % 7 FROM GENERATE_SERIES(1, 1000)
INSERT INTO customer SELECT value, value % 3 FROM GENERATE_SERIES(1, 2000)
INSERT INTO sales SELECT value, value % 10 + 1, value % 1000 + 1, value % 2000 + 1, value % 100 FROM GENERATE_SERIES(1, 50000)
GO
SET SHOWPLAN_TEXT ON
GO
SELECT COUNT(*) AS n, SUM(s.amount) AS total
FROM sales s
JOIN product p ON p.id = s.product_id
JOIN customer c ON c.id = s.customer_id
JOIN region r ON r.id = s.region_id
WHERE r.name = 'r3' AND c.seg = 1
GO
SELECT COUNT(*) AS n, SUM(s.amount) AS total
FROM sales s
JOIN product p ON p.id = s.product_id
JOIN customer c ON c.id = s.customer_id
JOIN region r ON r.id = s.region_id
WHERE r.name = 'r3' AND c.seg = 1
OPTION (FORCE ORDER)
GO
SET SHOWPLAN_TEXT OFF
GO
SELECT COUNT(*) AS n, SUM(s.amount) AS total
FROM sales s
JOIN product p ON p.id = s.product_id
JOIN customer c ON c.id = s.customer_id
JOIN region r ON r.id = s.region_id
WHERE r.name = 'r3' AND c.seg = 1
GO
SELECT COUNT(*) AS n, SUM(s.amount) AS total
FROM sales s
JOIN product p ON p.id = s.product_id
JOIN customer c ON c.id = s.customer_id
JOIN region r ON r.id = s.region_id
WHERE r.name = 'r3' AND c.seg = 1
OPTION (QUERYRULEOFF JoinOrder)
GO
