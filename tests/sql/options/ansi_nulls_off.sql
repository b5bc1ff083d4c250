-- SET ANSI_NULLS OFF: = and <> against a NULL literal or a variable that is NULL are IS [NOT]
-- NULL tests; comparisons between columns (joins) and <, > are unaffected.
CREATE TABLE t1 (a INT NULL, b VARCHAR(10) NULL);
INSERT INTO t1 VALUES (NULL, 'HH'), (0, 'LL'), (1, 'OO');
CREATE TABLE t2 (a INT NULL, c VARCHAR(10) NULL);
INSERT INTO t2 VALUES (NULL, 'n'), (1, 'one');
GO
-- created under ON (the default)
CREATE PROCEDURE p_on @v INT AS SELECT COUNT(*) AS on_matches FROM t1 WHERE a = @v;
GO
CREATE VIEW v_on AS SELECT b FROM t1 WHERE a = NULL;
GO
SELECT COUNT(*) AS eq_null FROM t1 WHERE a = NULL;
GO
SET ANSI_NULLS OFF;
GO
-- the identical batch text under OFF: compiled again, not taken from the plan cache
SELECT COUNT(*) AS eq_null FROM t1 WHERE a = NULL;
GO
-- created under OFF
CREATE PROCEDURE p_off @v INT AS SELECT COUNT(*) AS off_matches FROM t1 WHERE a = @v;
GO
CREATE VIEW v_off AS SELECT b FROM t1 WHERE a = NULL;
GO
CREATE FUNCTION f_off (@x INT) RETURNS VARCHAR(5) AS
BEGIN
    IF @x = NULL RETURN 'null';
    RETURN 'value';
END;
GO
SELECT SESSIONPROPERTY('ANSI_NULLS') AS ansi_nulls, @@OPTIONS & 32 AS options_bit;
-- WHERE with a NULL literal
SELECT a, b FROM t1 WHERE a = NULL;
SELECT a, b FROM t1 WHERE a <> NULL ORDER BY a;
SELECT a, b FROM t1 WHERE NOT (a = NULL) ORDER BY a;
-- <, > are not affected
SELECT COUNT(*) AS lt_null FROM t1 WHERE a < NULL OR a > NULL;
-- a value that is not NULL compares as usual: the NULL row is not <> 1
SELECT a, b FROM t1 WHERE a <> 1 ORDER BY a;
GO
-- variables
DECLARE @n INT = NULL, @one INT = 1, @n2 INT;
SELECT a, b FROM t1 WHERE a = @n;
SELECT a, b FROM t1 WHERE a <> @n ORDER BY a;
SELECT a, b FROM t1 WHERE a <> @one ORDER BY a;
IF @n = NULL PRINT '@n = NULL is true';
IF @n = @n2 PRINT '@n = @n2 is true (both NULL)';
IF @n <> @one PRINT '@n <> @one is true';
IF NOT (@n = @one) PRINT 'NOT (@n = @one) is true';
IF @one = NULL PRINT 'wrong' ELSE PRINT '@one = NULL is false';
GO
-- CASE, searched and simple
DECLARE @n INT = NULL;
SELECT CASE WHEN NULL = NULL THEN 'true' ELSE 'false' END AS null_eq_null,
       CASE WHEN 1 <> NULL THEN 'true' ELSE 'false' END AS one_ne_null,
       CASE @n WHEN NULL THEN 'matched NULL' ELSE 'no match' END AS simple_case;
SELECT a, CASE a WHEN NULL THEN 'null' WHEN 0 THEN 'zero' ELSE 'other' END AS k FROM t1 ORDER BY a;
GO
-- joins compare columns: a NULL key still matches nothing
SELECT t1.b, t2.c FROM t1 JOIN t2 ON t1.a = t2.a ORDER BY t1.b;
GO
-- IN / NOT IN with a NULL item
SELECT a, b FROM t1 WHERE a IN (1, NULL) ORDER BY a;
SELECT a, b FROM t1 WHERE a NOT IN (1, NULL) ORDER BY a;
DECLARE @n INT = NULL;
SELECT a, b FROM t1 WHERE a NOT IN (0, @n) ORDER BY a;
GO
-- modules keep the setting they were created with
SELECT OBJECT_NAME(object_id) AS name, uses_ansi_nulls FROM sys.sql_modules
WHERE OBJECT_NAME(object_id) IN ('p_on', 'p_off', 'f_off', 'v_on', 'v_off') ORDER BY 1;
SELECT 'v_on under OFF' AS q, b FROM v_on;
SELECT 'v_off under OFF' AS q, b FROM v_off;
EXEC p_on NULL;
EXEC p_off NULL;
SELECT dbo.f_off(NULL) AS f_under_off;
GO
SET ANSI_NULLS ON;
GO
EXEC p_on NULL;
EXEC p_off NULL;
SELECT dbo.f_off(NULL) AS f_under_on;
SELECT 'v_on under ON' AS q, b FROM v_on;
SELECT 'v_off under ON' AS q, b FROM v_off;
-- the same text run under ON again: a plan bound under OFF is not reused
SELECT a, b FROM t1 WHERE a = NULL;
DECLARE @n INT = NULL;
SELECT COUNT(*) AS on_not_in FROM t1 WHERE a NOT IN (1, @n);
GO
-- an inline table-valued function created under OFF keeps it too
SET ANSI_NULLS OFF;
GO
CREATE FUNCTION tvf_off () RETURNS TABLE AS RETURN SELECT b FROM t1 WHERE a = NULL;
GO
SET ANSI_NULLS ON;
GO
SELECT 'tvf_off under ON' AS q, b FROM dbo.tvf_off();
GO
-- a trigger created under OFF, fired from a session under ON
CREATE TABLE tlog (null_keys INT);
GO
SET ANSI_NULLS OFF;
GO
CREATE TRIGGER tr_off ON t2 AFTER INSERT AS
    INSERT INTO tlog SELECT COUNT(*) FROM inserted WHERE a = NULL;
GO
SET ANSI_NULLS ON;
GO
INSERT INTO t2 VALUES (NULL, 'x'), (2, 'y');
SELECT null_keys FROM tlog;
GO
-- SET ANSI_NULLS inside a procedure does not change the setting its body runs under
CREATE PROCEDURE p_sets_off AS
BEGIN
    SET ANSI_NULLS OFF;
    SELECT COUNT(*) AS inside_after_set_off FROM t1 WHERE a = NULL;
END;
GO
EXEC p_sets_off;
SELECT COUNT(*) AS caller_still_on FROM t1 WHERE a = NULL;
GO
