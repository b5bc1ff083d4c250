-- OPENJSON reads with the JSON functions' reader and paths: nested values as written, error
-- positions in characters (not bytes), malformed paths are Msg 13607.
SELECT [key], value, type FROM OPENJSON(N'{"é":[1, 2],"b":"x\/y","c":null,"d":{"e":true}}');
GO
SELECT * FROM OPENJSON(N'{"ééé":1x}');
GO
SELECT * FROM OPENJSON(N'{"a":{"b":[10,20]}}', '$.a.b');
GO
SELECT * FROM OPENJSON(N'{"a":1}', '$.a b');
GO
SELECT * FROM OPENJSON(N'[{"id":1,"n":"a"},{"id":2,"n":"b"}]') WITH (id int, n nvarchar(10) '$.n', missing int 'strict $.zz');
GO
