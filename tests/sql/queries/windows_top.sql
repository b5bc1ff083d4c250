CREATE TABLE emp (name varchar(10), dept varchar(5), salary int)
INSERT INTO emp VALUES ('ann', 'd1', 100), ('bob', 'd1', 200), ('cid', 'd1', 200), ('dan', 'd2', 50), ('eve', 'd2', 300), ('fay', 'd3', NULL)
GO
SELECT name, dept, salary,
  ROW_NUMBER() OVER (PARTITION BY dept ORDER BY salary DESC, name) AS rn,
  RANK() OVER (ORDER BY salary DESC) AS rnk,
  DENSE_RANK() OVER (ORDER BY salary DESC) AS drnk,
  SUM(salary) OVER (PARTITION BY dept) AS dept_total,
  SUM(salary) OVER (ORDER BY name ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS pair_sum,
  LAG(name) OVER (ORDER BY name) AS prev,
  LEAD(salary, 1, -1) OVER (ORDER BY name) AS next_sal,
  NTILE(2) OVER (ORDER BY name) AS half
FROM emp ORDER BY name
GO
SELECT TOP (2) WITH TIES name, salary FROM emp ORDER BY salary DESC
SELECT TOP (50) PERCENT name FROM emp ORDER BY name
SELECT name FROM emp ORDER BY name OFFSET 2 ROWS FETCH NEXT 3 ROWS ONLY
SELECT name FROM emp ORDER BY name OFFSET 5 ROWS
SELECT TOP (0) name FROM emp
GO
-- TOP over an unordered ROW_NUMBER (the seeds' row generator) numbers exactly the rows kept
SELECT TOP (3) ROW_NUMBER() OVER (ORDER BY (SELECT NULL)) AS rn FROM master..spt_values t1 CROSS JOIN master..spt_values t2
SELECT MAX(rn) AS mx, COUNT(*) AS n FROM (SELECT TOP (5000) ROW_NUMBER() OVER (ORDER BY (SELECT NULL)) AS rn FROM master..spt_values t1 CROSS JOIN master..spt_values t2) q
SELECT TOP (2) ROW_NUMBER() OVER (ORDER BY (SELECT NULL)) AS rn FROM (VALUES (1), (2), (3), (4)) v(x) ORDER BY rn DESC
SELECT TOP (2) ROW_NUMBER() OVER (ORDER BY x DESC) AS rn, x FROM (VALUES (1), (2), (3), (4)) v(x)
GO
