-- Table-valued user functions: inline (expanded like views) and multi-statement (body run by
-- the interpreter), in FROM, joins and APPLY; catalog rows; errors.
CREATE TABLE emp (id int PRIMARY KEY, name varchar(20), dept varchar(10), mgr int NULL, salary int)
INSERT emp VALUES (1, 'Ann', 'eng', NULL, 100), (2, 'Bob', 'eng', 1, 80), (3, 'Cid', 'ops', 1, 70),
    (4, 'Dee', 'ops', 3, 60), (5, 'Eve', 'eng', 2, 90)
GO
CREATE FUNCTION dbo.by_dept (@d varchar(10), @min int = 0)
RETURNS TABLE
AS
RETURN (SELECT id, name, salary FROM emp WHERE dept = @d AND salary >= @min)
GO
CREATE FUNCTION dbo.top_paid (@n int) RETURNS TABLE WITH SCHEMABINDING AS
RETURN
    WITH ranked AS (SELECT name, salary, ROW_NUMBER() OVER (ORDER BY salary DESC) AS rn FROM dbo.emp)
    SELECT name, salary FROM ranked WHERE rn <= @n
GO
SELECT * FROM dbo.by_dept('eng', 85) ORDER BY id
GO
SELECT f.name FROM dbo.by_dept('ops', DEFAULT) AS f ORDER BY f.name
GO
DECLARE @d varchar(10) = 'eng'
SELECT x.a, x.b FROM by_dept(@d, 50 + 40) x (a, b, c) ORDER BY x.a
GO
SELECT name, salary FROM dbo.top_paid(2) ORDER BY salary DESC
GO
-- joined, and in APPLY with arguments from the outer row
SELECT e.name, f.name AS peer FROM emp e JOIN dbo.by_dept('ops', 0) f ON f.id = e.mgr ORDER BY e.name
GO
SELECT d.dept, f.name FROM (VALUES ('eng'), ('ops'), ('hr')) d(dept)
CROSS APPLY dbo.by_dept(d.dept, 75) f ORDER BY d.dept, f.name
GO
SELECT d.dept, f.name FROM (VALUES ('eng'), ('hr')) d(dept)
OUTER APPLY dbo.by_dept(d.dept, 95) f ORDER BY d.dept
GO
SELECT e.name, (SELECT COUNT(*) FROM dbo.by_dept(e.dept, e.salary)) AS at_or_above
FROM emp e ORDER BY e.name
GO
-- the optimizer sees through an inline function: a seek on emp's key
CREATE FUNCTION dbo.one (@id int) RETURNS TABLE AS RETURN SELECT id, name FROM emp WHERE id = @id
GO
SET SHOWPLAN_TEXT ON
GO
SELECT * FROM dbo.one(3)
GO
SET SHOWPLAN_TEXT OFF
GO
SELECT e.name, o.name AS boss FROM emp e CROSS APPLY dbo.one(e.mgr) o ORDER BY e.name
GO
-- nested inline functions
CREATE FUNCTION dbo.rich_eng (@floor int) RETURNS TABLE AS
RETURN SELECT name FROM dbo.by_dept('eng', @floor + 5)
GO
SELECT name FROM dbo.rich_eng(80) ORDER BY name
GO
-- multi-statement function
CREATE FUNCTION dbo.reports (@boss int)
RETURNS @r TABLE (id int PRIMARY KEY, name varchar(20), lvl int NOT NULL)
AS
BEGIN
    DECLARE @lvl int = 1
    INSERT @r SELECT id, name, @lvl FROM emp WHERE mgr = @boss
    WHILE @@ROWCOUNT > 0
    BEGIN
        SET @lvl += 1
        INSERT @r SELECT e.id, e.name, @lvl FROM emp e JOIN @r r ON e.mgr = r.id
            WHERE r.lvl = @lvl - 1 AND NOT EXISTS (SELECT 1 FROM @r x WHERE x.id = e.id)
    END
    RETURN
END
GO
SELECT * FROM dbo.reports(1) ORDER BY lvl, id
GO
SELECT e.name, COUNT(r.id) AS under FROM emp e OUTER APPLY dbo.reports(e.id) r
GROUP BY e.name ORDER BY e.name
GO
CREATE FUNCTION dbo.series (@n int, @label varchar(5) = 'n')
RETURNS @t TABLE (i int, label varchar(10))
AS
BEGIN
    DECLARE @i int = 1
    WHILE @i <= @n
    BEGIN
        INSERT INTO @t VALUES (@i, @label + CAST(@i AS varchar(5)))
        SET @i += 1
    END
    IF @n > 2 DELETE FROM @t WHERE i = 2
    UPDATE x SET label = UPPER(x.label) FROM @t x WHERE x.i = 1
    RETURN
END
GO
SELECT * FROM dbo.series(4, DEFAULT) ORDER BY i
GO
SELECT s.i, r.name FROM dbo.series(3, 'x') s JOIN dbo.reports(1) r ON r.id = s.i + 1 ORDER BY s.i
GO
-- catalog
SELECT name, type, type_desc FROM sys.objects WHERE name IN ('by_dept', 'top_paid', 'reports', 'series') ORDER BY name
GO
SELECT COUNT(*) AS with_text FROM sys.sql_modules WHERE definition LIKE '%RETURNS @r TABLE%'
SELECT CASE WHEN OBJECT_DEFINITION(OBJECT_ID('dbo.by_dept')) LIKE 'CREATE FUNCTION dbo.by_dept%' THEN 'ok' END AS def
GO
-- CREATE OR ALTER, deferred name resolution, DROP
CREATE OR ALTER FUNCTION dbo.later () RETURNS @t TABLE (v int) AS
BEGIN
    INSERT @t SELECT v FROM not_yet
    RETURN
END
GO
SELECT * FROM dbo.later()
GO
CREATE TABLE not_yet (v int)
INSERT not_yet VALUES (7)
GO
SELECT * FROM dbo.later()
GO
CREATE OR ALTER FUNCTION dbo.by_dept (@d varchar(10), @min int = 0)
RETURNS TABLE AS RETURN SELECT name FROM emp WHERE dept = @d AND salary >= @min
GO
SELECT * FROM dbo.by_dept('ops', 65)
GO
DROP FUNCTION dbo.later
DROP FUNCTION IF EXISTS dbo.later
GO
SELECT * FROM dbo.later()
GO
-- errors
SELECT * FROM dbo.nosuch(1)
GO
SELECT * FROM dbo.by_dept('eng')
GO
SELECT * FROM dbo.by_dept('eng', 1, 2)
GO
SELECT * FROM dbo.reports()
GO
CREATE FUNCTION dbo.scal (@a int) RETURNS int AS BEGIN RETURN @a END
GO
SELECT * FROM dbo.scal(1)
GO
SELECT * FROM emp(1)
GO
SELECT dbo.by_dept('eng', 0)
GO
CREATE FUNCTION dbo.bad_ins () RETURNS @t TABLE (a int) AS
BEGIN
    INSERT INTO emp VALUES (9, 'x', 'x', NULL, 1)
    RETURN
END
GO
CREATE FUNCTION dbo.bad_sel () RETURNS @t TABLE (a int) AS
BEGIN
    SELECT * FROM emp
    RETURN
END
GO
CREATE FUNCTION dbo.bad_var (@a int) RETURNS TABLE AS RETURN SELECT @b AS b
GO
SELECT * FROM dbo.bad_var(1)
GO
ALTER FUNCTION dbo.series (@n int) RETURNS TABLE AS RETURN SELECT @n AS n
GO
CREATE FUNCTION dbo.div0 (@a int) RETURNS @t TABLE (a int) AS
BEGIN
    INSERT @t VALUES (@a / 0)
    RETURN
END
GO
SELECT * FROM dbo.div0(1)
PRINT 'after'
GO
