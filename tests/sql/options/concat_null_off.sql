-- SET CONCAT_NULL_YIELDS_NULL OFF: string + treats a NULL operand as an empty string; other
-- types (and CONCAT, which always does) are unaffected.
CREATE TABLE s (id INT, v VARCHAR(10) NULL, n NVARCHAR(10) NULL);
INSERT INTO s VALUES (1, 'x', N'ü'), (2, NULL, NULL);
GO
SELECT 'abc' + NULL AS default_on;
GO
-- unlike ANSI_NULLS, a module follows the caller's CONCAT_NULL_YIELDS_NULL
CREATE PROCEDURE p_cat @s VARCHAR(5) AS SELECT 'p:' + @s AS from_proc;
GO
EXEC p_cat NULL;
GO
SET CONCAT_NULL_YIELDS_NULL OFF;
GO
SELECT SESSIONPROPERTY('CONCAT_NULL_YIELDS_NULL') AS concat_null, @@OPTIONS & 4096 AS options_bit;
SELECT 'abc' + NULL AS c1, NULL + 'abc' AS c2, N'x' + NULL AS c3, 1 + NULL AS int_plus_null;
SELECT id, '[' + v + ']' AS v, N'[' + n + N']' AS n, v + n AS mixed FROM s ORDER BY id;
DECLARE @a VARCHAR(10) = NULL, @b VARCHAR(10) = 'b';
SELECT @a + @b AS vars, ISNULL(@a + @a, 'was NULL') AS both_null;
SET @a += 'z';
SELECT @a AS after_append;
EXEC p_cat NULL;
-- compound assignment to a column
UPDATE s SET v += '!' WHERE id = 2;
SELECT id, v FROM s ORDER BY id;
GO
-- the same text under ON again
SET CONCAT_NULL_YIELDS_NULL ON;
GO
SELECT 'abc' + NULL AS c1, NULL + 'abc' AS c2, N'x' + NULL AS c3, 1 + NULL AS int_plus_null;
SELECT id, '[' + v + ']' AS v, N'[' + n + N']' AS n, v + n AS mixed FROM s ORDER BY id;
GO
