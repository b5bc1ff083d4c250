DECLARE @t TABLE (id int PRIMARY KEY, name varchar(20))
INSERT INTO @t VALUES (1, 'a'), (2, 'b')
UPDATE @t SET name = 'bb' WHERE id = 2
SELECT * FROM @t ORDER BY id
DELETE FROM @t WHERE id = 1
SELECT COUNT(*) AS n FROM @t
GO
SELECT * FROM @t
GO
