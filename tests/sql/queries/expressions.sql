SELECT 7 / 2 AS int_div, -7 / 2 AS neg_div, 7 % 3 AS modulo, -7 % 3 AS neg_mod, 7 / 2.0 AS dec_div
GO
-- decimal(3,2) * decimal(3,2) = decimal(7,4); decimal(3,1) / int = decimal(14,12); decimal(10,2) + decimal(5,4) = decimal(13,4)
SELECT 1.50 * 2.25 AS m, 10.0 / 3 AS d, CAST(1 AS decimal(10,2)) + CAST(1 AS decimal(5,4)) AS s
GO
SELECT CAST(2147483647 AS int) + 1
GO
SELECT NULL + 1 AS a, 'x' + CAST(NULL AS varchar(1)) AS b, CAST(CONCAT('x', NULL, 'y') AS varchar(5)) AS c, ISNULL(NULL, 5) AS d, COALESCE(NULL, NULL, 3) AS e, NULLIF(4, 4) AS f
SELECT CASE WHEN NULL = NULL THEN 'eq' ELSE 'not eq' END AS null_eq, CASE WHEN NULL IS NULL THEN 'is' END AS is_null
GO
SELECT UPPER('abc') AS u, LOWER('ABC') AS l, LEN('ab  ') AS len, DATALENGTH('ab  ') AS dl, SUBSTRING('hello', 2, 3) AS sub,
       LEFT('hello', 2) AS lft, RIGHT('hello', 2) AS rgt, CAST(REPLACE('aXbX', 'x', '-') AS varchar(5)) AS rep, CHARINDEX('l', 'hello') AS ci,
       LTRIM('  a') AS lt, RTRIM('a  ') + '|' AS rt, REVERSE('abc') AS rev, CAST(REPLICATE('ab', 3) AS varchar(6)) AS rpl, CAST(STUFF('abcdef', 2, 3, 'X') AS varchar(6)) AS stf
GO
SELECT DATEADD(day, 1, CAST('2024-02-28' AS date)) AS d1, DATEDIFF(month, '2024-01-31', '2024-03-01') AS dm,
       DATEPART(year, CAST('2024-07-04' AS date)) AS y, YEAR('2024-07-04') AS y2, MONTH('2024-07-04') AS m, DAY('2024-07-04') AS d,
       EOMONTH('2024-02-10') AS eom, DATENAME(month, CAST('2024-07-04' AS date)) AS mn
GO
SELECT CAST('2024-07-04 13:45:10.123' AS datetime) AS dt, CONVERT(varchar(10), CAST('2024-07-04' AS date), 112) AS c112
GO
CREATE TABLE ci (s varchar(10))
INSERT INTO ci VALUES ('abc'), ('ABC'), ('Abc'), ('abd'), ('abc ')
GO
SELECT COUNT(*) AS eq_count FROM ci WHERE s = 'ABC'
SELECT COUNT(*) AS like_count FROM ci WHERE s LIKE 'AB_'
SELECT UPPER(s) AS k, COUNT(*) AS n FROM ci GROUP BY UPPER(s) ORDER BY k
SELECT COUNT(DISTINCT s) AS distinct_s FROM ci
SELECT CASE WHEN 'a' = 'A ' THEN 'equal' ELSE 'different' END AS trailing_space
GO
