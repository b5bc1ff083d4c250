-- Max-typed values are capped at 2,147,483,647 bytes: Msg 7119, checked before allocating
-- (issue 8, finding 6). REPLICATE of 800 GB used to abort the process.
SELECT LEN(REPLICATE(CAST(REPLICATE('y', 8000) AS varchar(max)) + 'z', 100000000)) AS n
GO
SELECT DATALENGTH(REPLICATE(CAST(N'ab' AS nvarchar(max)), 600000000)) AS n
GO
SELECT DATALENGTH(REPLICATE(CAST(0x01 AS varbinary(max)), 3000000000)) AS n
GO
SELECT LEN(REPLICATE(CAST('y' AS varchar(max)), 9223372036854775807)) AS n
GO
-- a max argument is not truncated at 8,000 bytes; a non-max one is
SELECT LEN(REPLICATE(CAST('y' AS varchar(max)), 10000)) AS max_arg,
       LEN(REPLICATE('y', 10000)) AS plain_arg,
       DATALENGTH(REPLICATE(N'y', 10000)) AS plain_unicode
GO
DECLARE @s varchar(max) = REPLICATE(CAST('x' AS varchar(max)), 10000)
SELECT LEN(@s + @s) AS doubled, LEN(CONCAT(@s, '-', @s)) AS concat_len,
       LEN(CONCAT_WS(',', @s, @s, @s)) AS concat_ws_len, LEN(STUFF(@s, 1, 1, @s)) AS stuff_len
GO
SELECT LEN(STRING_AGG(CAST(v AS varchar(max)), ',')) AS agg_len
FROM (VALUES (REPLICATE('a', 5000)), (REPLICATE('b', 5000))) t(v)
GO
-- max-typed + over variables, columns and literals is computed on the operands in place
DECLARE @v nvarchar(max) = N'ab'
SELECT @v = @v + @v
SELECT @v = @v + N'!'
SELECT @v AS v, c + c AS cc, c + N'-' AS cl, CAST(NULL AS nvarchar(max)) + c AS nc
FROM (VALUES (CAST(N'xy' AS nvarchar(max)))) t(c)
GO
PRINT 'still alive'
GO
-- STRING_AGG over a non-max string is varchar(8000) / nvarchar(4000): past 8,000 bytes, 9829
SELECT LEN(STRING_AGG(v, ',')) AS agg_len
FROM (VALUES (REPLICATE('a', 5000)), (REPLICATE('b', 5000))) t(v)
GO
SELECT LEN(STRING_AGG(CAST(v AS nvarchar(3000)), N',')) AS agg_len
FROM (VALUES (REPLICATE(N'a', 3000)), (REPLICATE(N'b', 3000))) t(v)
GO
SELECT LEN(STRING_AGG(v, ',')) AS agg_len
FROM (VALUES (REPLICATE('a', 3999)), (REPLICATE('b', 4000))) t(v)
GO
SELECT STRING_AGG(CAST('a' AS varchar(10)), ',') AS v, STRING_AGG(CAST(N'a' AS nchar(3)), N',') AS n,
       STRING_AGG(1, ',') AS i, STRING_AGG(CAST('a' AS varchar(max)), ',') AS m
INTO dbo.string_agg_types
SELECT name, TYPE_NAME(system_type_id) AS type, max_length FROM sys.columns
WHERE object_id = OBJECT_ID('dbo.string_agg_types') ORDER BY column_id
DROP TABLE dbo.string_agg_types
GO
