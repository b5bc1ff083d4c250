-- A statement's FOR JSON / FOR XML text reaches the client in rows of 2033 characters (as SQL
-- Server streams it); FOR XML ..., TYPE stays one value; as a subquery it is one value.
SELECT value AS n FROM GENERATE_SERIES(1, 250) ORDER BY value FOR JSON PATH;
GO
SELECT value AS n FROM GENERATE_SERIES(1, 250) ORDER BY value FOR XML RAW('r');
GO
SELECT LEN((SELECT value AS n FROM GENERATE_SERIES(1, 250) ORDER BY value FOR JSON PATH)) AS one_value;
GO
SELECT LEN(CAST(x AS nvarchar(max))) AS typed_len
FROM (SELECT (SELECT value AS n FROM GENERATE_SERIES(1, 250) FOR XML RAW('r'), TYPE) AS x) d;
GO
