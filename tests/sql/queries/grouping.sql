CREATE TABLE sales (region varchar(10), product varchar(10), qty int)
INSERT INTO sales VALUES ('East', 'pen', 10), ('East', 'ink', 5), ('West', 'pen', 7), ('West', 'ink', NULL), ('West', 'pen', 3)
GO
SELECT region, product, SUM(qty) AS total, GROUPING(region) AS gr, GROUPING(product) AS gp
FROM sales GROUP BY ROLLUP (region, product) ORDER BY GROUPING(region), region, GROUPING(product), product
GO
SELECT region, product, COUNT(*) AS n FROM sales GROUP BY CUBE (region, product) ORDER BY region, product
GO
SELECT region, product, SUM(qty) AS total FROM sales GROUP BY GROUPING SETS ((region), (product), ()) ORDER BY region, product
GO
SELECT DISTINCT region FROM sales ORDER BY region
SELECT region, COUNT(*) AS n, AVG(qty) AS avg_qty FROM sales GROUP BY region HAVING COUNT(*) > 1 ORDER BY region
SELECT COUNT(DISTINCT product) AS products FROM sales
GO
