-- PIVOT: implicit grouping by the remaining columns, aggregates, NULL handling
CREATE TABLE sales (region varchar(10), yr int, amount money, qty int NULL);
INSERT INTO sales VALUES ('east', 2019, 10.50, 1), ('east', 2019, 4.50, 2), ('east', 2020, 7, NULL),
  ('west', 2020, 3, 5), ('west', 2021, 8, 6), ('north', NULL, 1, 1);
GO
-- only the columns the derived table keeps drive the grouping
SELECT region, [2019], [2020], [2021]
FROM (SELECT region, yr, amount FROM sales) AS s
PIVOT (SUM(amount) FOR yr IN ([2019], [2020], [2021])) AS p
ORDER BY region;
GO
-- COUNT gives 0 for a value no row has; the NULL pivot value matches no column
SELECT * FROM (SELECT region, yr, qty FROM sales) s
PIVOT (COUNT(qty) FOR yr IN ([2019], [2020], [2022])) p ORDER BY region;
GO
-- every remaining column groups: qty is one here, so rows split by it
SELECT * FROM sales PIVOT (MAX(amount) FOR yr IN ([2019], [2020])) AS p ORDER BY region, qty;
GO
-- no remaining column: one row
SELECT * FROM (SELECT yr, amount FROM sales) s PIVOT (AVG(amount) FOR yr IN ([2019], [2021])) p;
GO
-- a string pivot column
SELECT * FROM (SELECT region, amount FROM sales) s
PIVOT (MIN(amount) FOR region IN ([east], [west], [south])) p;
GO
-- joined and filtered like any table source
SELECT p.region, p.[2020] * 2 AS doubled
FROM (SELECT region, yr, amount FROM sales) s
PIVOT (SUM(amount) FOR yr IN ([2020])) p
WHERE p.[2020] IS NOT NULL ORDER BY 1;
GO
-- errors
SELECT * FROM (SELECT region, yr, amount FROM sales) s PIVOT (SUM(amount) FOR nosuch IN ([1])) p;
GO
SELECT * FROM (SELECT region, yr, amount FROM sales) s PIVOT (SUM(amount) FOR yr IN ([region])) p;
GO
SELECT * FROM (SELECT region, yr, amount FROM sales) s PIVOT (SUM(amount) FOR yr IN ([2019], [2019])) p;
GO
SELECT * FROM (SELECT region, yr, amount FROM sales) s PIVOT (UPPER(amount) FOR yr IN ([2019])) p;
GO
SELECT * FROM (SELECT region, yr, amount FROM sales) s PIVOT (SUM(region) FOR yr IN ([2019])) p;
GO
SELECT * FROM (SELECT region, yr, amount FROM sales) s PIVOT (COUNT(*) FOR yr IN ([2019])) p;
GO
SELECT * FROM (SELECT s1.yr, s2.yr AS y2, s1.amount FROM sales s1 CROSS JOIN sales s2) s PIVOT (SUM(amount) FOR yr IN ([2019])) p;
GO
-- two source columns of one name
SELECT * FROM (SELECT s1.region, s2.region AS region, s1.yr, s1.amount FROM sales s1 CROSS JOIN sales s2) s PIVOT (SUM(amount) FOR yr IN ([2019])) p;
GO
