SELECT 1 AS one, 'abc' AS txt, CAST(12.5 AS decimal(5,2)) AS d, NULL AS n
GO
SELECT 1 / 0
GO
CREATE TABLE nums (n int)
INSERT INTO nums VALUES (1), (2), (3), (NULL)
GO
SELECT n, n * 2 AS twice FROM nums WHERE n IS NOT NULL ORDER BY n DESC
GO
SELECT COUNT(n) AS cnt, COUNT(*) AS all_rows, MAX(n) AS mx FROM nums
GO
SELECT n, 10 / (n - 2) AS q FROM nums WHERE n IS NOT NULL ORDER BY n
GO
