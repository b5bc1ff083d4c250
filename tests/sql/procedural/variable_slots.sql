-- Variables are resolved to frame slots when a statement is bound (engine/README P1) and read
-- by slot while it runs: assignments made by the statement itself are seen by its next row.
CREATE TABLE t (c int, v varchar(10))
INSERT t VALUES (1, 'a'), (2, 'b'), (3, 'c')
DECLARE @x int = 0, @s varchar(100) = ''
SELECT @x = @x + c, @s = @s + v FROM t
SELECT @x AS x, @s AS s
GO
-- UPDATE ... SET @v = col = expr, and a variable accumulating over the updated rows
CREATE TABLE u (id int, n int)
INSERT u VALUES (1, 10), (2, 20)
DECLARE @v int = 0, @sum int = 0
UPDATE u SET @v = n = n + 1, @sum = @sum + n
SELECT @v AS last_v, @sum AS sum_n
SELECT id, n FROM u ORDER BY id
GO
-- a variable with a column's name: @a is the variable, a the column
CREATE TABLE w (a int)
INSERT w VALUES (1), (2)
DECLARE @a int = 10
SELECT a, @a AS var_a, a + @a AS total FROM w WHERE @a > a ORDER BY a
SELECT @a = a FROM w WHERE a = 2
SELECT @a AS a_after
GO
-- a scalar function with its own variables, called per row while the caller's variables are
-- read and assigned in the same statement
CREATE FUNCTION dbo.plus1(@a int) RETURNS int AS BEGIN DECLARE @b int = @a + 1 RETURN @b END
GO
DECLARE @b int = 100, @tot int = 0
SELECT @tot = @tot + dbo.plus1(c) + @b FROM t
SELECT @tot AS tot
GO
-- @@ROWCOUNT and @@ERROR after each statement
DECLARE @r int
UPDATE t SET c = c WHERE c >= 2
SELECT @@ROWCOUNT AS rc, @@ERROR AS err
SELECT 1 / 0 AS boom
SELECT @@ERROR AS err_after_divide
SET @r = 5
SELECT @@ROWCOUNT AS rc_after_set
SELECT c FROM t WHERE c > 10
SELECT @@ROWCOUNT AS rc_after_empty
GO
-- the same names in nested frames: a procedure's variables are its own
CREATE PROCEDURE #p @x int AS
BEGIN
    DECLARE @y int = @x * 2
    SELECT @x AS inner_x, @y AS inner_y
END
GO
DECLARE @y int = 7, @x int = 3
EXEC #p 5
SELECT @x AS outer_x, @y AS outer_y
GO
-- dynamic SQL does not see the caller's variables (Msg 137); its parameters it does
DECLARE @outer int = 1
EXEC ('SELECT @outer AS o')
EXEC sp_executesql N'SELECT @outer AS o'
EXEC sp_executesql N'SELECT @p + 1 AS p1', N'@p int', @p = 41
EXEC ('SET @nope = 1')
PRINT 'after'
GO
-- a WHILE loop over a slot, and a condition that reads a variable assigned in its body
DECLARE @i int = 0, @n bigint = 0
WHILE @i < 1000
BEGIN
    SET @i = @i + 1
    SET @n = @n + @i
END
SELECT @i AS i, @n AS n
GO
-- integer overflow in the fast integer path falls back to the general one: Msg 8115
DECLARE @big int = 2147483647
SET @big = @big + 1
SELECT @big AS big_unchanged
DECLARE @cmp bigint = 5000000000
IF @cmp > @big PRINT 'bigint compared with int'
GO
-- a variable is in scope from its DECLARE to the end of the batch, in textual order: a
-- statement before the DECLARE cannot name it (Msg 137, Level 15, State 2) ...
SELECT @later AS too_early
DECLARE @later int = 1
GO
-- ... nor can the initializers of the same DECLARE statement
DECLARE @first int = 1, @second int = @first
SELECT @second AS second
GO
-- a DECLARE inside a branch that never runs still declares for the rest of the batch
IF 1 = 0
BEGIN
    DECLARE @branch int
END
SET @branch = 5
SELECT @branch AS branch
DECLARE @first int = 1
DECLARE @second int = @first + 1
SELECT @second AS second_separate
GO
