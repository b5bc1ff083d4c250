-- ISJSON, JSON_VALUE, JSON_QUERY, JSON_MODIFY: lax and strict paths, SQL Server's errors.
DECLARE @doc nvarchar(max) = N'{"name": "Ann", "age": 31, "tags": ["a", "b"], "addr": {"city": "Oslo", "zip": null}, "ok": true, "esc": "x\/y\n"}';
SELECT JSON_VALUE(@doc, '$.name') AS name, JSON_VALUE(@doc, '$.age') AS age,
       JSON_VALUE(@doc, '$.tags[1]') AS tag1, JSON_VALUE(@doc, 'lax $.addr.city') AS city,
       JSON_VALUE(@doc, '$.addr.zip') AS zip, JSON_VALUE(@doc, '$.ok') AS ok,
       JSON_VALUE(@doc, '$.addr') AS obj, JSON_VALUE(@doc, '$.missing') AS missing,
       JSON_VALUE(@doc, '$."esc"') AS esc;
SELECT JSON_QUERY(@doc, '$.tags') AS tags, JSON_QUERY(@doc, '$.addr') AS addr,
       JSON_QUERY(@doc, '$.name') AS scalar, JSON_QUERY(N'[1, {"a": 2}]') AS whole;
GO
SELECT ISJSON(N'{"a":1}') AS obj, ISJSON(N'[1,2]') AS arr, ISJSON(N'1') AS scalar,
       ISJSON(N'{"a":1,}') AS bad, ISJSON(NULL) AS null_in, ISJSON(N'"x"', SCALAR) AS s,
       ISJSON(N'true', VALUE) AS v, ISJSON(N'true', SCALAR) AS bool_scalar,
       ISJSON(N'[1]', OBJECT) AS arr_obj, ISJSON(N'{}', OBJECT) AS obj_obj;
GO
DECLARE @j nvarchar(max) = N'{"name":"John","skills":["C#","SQL"]}';
SELECT JSON_MODIFY(@j, '$.name', 'Mike') AS replace_value,
       JSON_MODIFY(@j, '$.surname', 'Smith') AS insert_key,
       JSON_MODIFY(@j, '$.name', NULL) AS delete_key,
       JSON_MODIFY(@j, 'strict $.name', NULL) AS strict_null,
       JSON_MODIFY(@j, 'append $.skills', 'Azure') AS append_value,
       JSON_MODIFY(@j, '$.skills', JSON_QUERY('["C#","T-SQL","Azure"]')) AS raw_json,
       JSON_MODIFY(@j, '$.skills', '["as", "string"]') AS quoted,
       JSON_MODIFY(@j, '$.age', 42) AS number,
       JSON_MODIFY(@j, '$.active', CAST(1 AS bit)) AS boolean,
       JSON_MODIFY(JSON_MODIFY(@j, '$.a', 1), '$.b', 2) AS nested;
GO
SELECT JSON_VALUE(N'{"a":1}', 'strict $.b');
GO
SELECT JSON_VALUE(N'{"a":{"b":1}}', 'strict $.a');
GO
SELECT JSON_QUERY(N'{"a":1}', 'strict $.a');
GO
SELECT JSON_VALUE(N'{"a":1x}', '$.a');
GO
SELECT JSON_VALUE(N'not json', '$.a');
GO
SELECT JSON_VALUE(N'{"a":1}', '$.a b');
GO
SELECT JSON_VALUE(N'{"a":1}', 'a');
GO
SELECT JSON_MODIFY(N'{"a":1}', '$', 2);
GO
SELECT JSON_MODIFY(N'{"a":1}', 'strict $.b', 2);
GO
SELECT JSON_MODIFY(N'{"a":1}', 'strict append $.a', 2);
GO
SELECT JSON_VALUE(N'{"a":1}');
GO
SELECT ISJSON(N'1', 'scalar');
GO
SELECT ISJSON(N'1', NUMBER);
GO
-- long strings: lax NULL, strict 13625
DECLARE @long nvarchar(max) = N'{"s":"' + REPLICATE(CAST(N'x' AS nvarchar(max)), 4001) + N'"}';
SELECT JSON_VALUE(@long, '$.s') AS lax_long;
SELECT JSON_VALUE(@long, 'strict $.s') AS strict_long;
GO
-- JSON_MODIFY's new value: strings, numbers, bit; other types are Msg 8116
SELECT JSON_MODIFY(N'{"a":1}', '$.a', CAST(2.5 AS decimal(4,2))) AS dec, JSON_MODIFY(N'{"a":1}', '$.a', CAST(0.5 AS float)) AS flt;
GO
SELECT JSON_MODIFY(N'{"a":1}', '$.a', CAST(1 AS money));
GO
SELECT JSON_MODIFY(N'{"a":1}', '$.a', GETDATE());
GO
SELECT JSON_MODIFY(N'{"a":1}', '$.a', 0x01);
GO
SELECT JSON_PATH_EXISTS(N'{"a":{"b":[1,2]}}', '$.a.b[1]') AS yes, JSON_PATH_EXISTS(N'{"a":1}', 'strict $.b') AS no,
       JSON_PATH_EXISTS(N'not json', '$.a') AS bad_doc, JSON_PATH_EXISTS(NULL, '$.a') AS null_doc;
GO
SELECT JSON_PATH_EXISTS(N'{}', '$.a b');
GO
