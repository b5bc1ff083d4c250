-- MERGE: all three clause kinds with OUTPUT $action, error 8672 when a target row matches two
-- source rows (nothing changes), and MERGE inside a procedure.
CREATE TABLE tgt (id int PRIMARY KEY, v varchar(10));
CREATE TABLE src (id int, v varchar(10));
INSERT INTO tgt VALUES (1,'a'),(2,'b'),(3,'c');
INSERT INTO src VALUES (2,'B'),(4,'D');
GO
MERGE tgt AS t USING src AS s ON t.id = s.id
WHEN MATCHED THEN UPDATE SET v = s.v
WHEN NOT MATCHED BY TARGET THEN INSERT (id, v) VALUES (s.id, s.v)
WHEN NOT MATCHED BY SOURCE THEN DELETE
OUTPUT $action, inserted.id, deleted.id;
SELECT * FROM tgt ORDER BY id;
GO
INSERT INTO src VALUES (2, 'X');
GO
MERGE tgt AS t USING src AS s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v;
GO
CREATE PROCEDURE pm AS MERGE tgt AS t USING (SELECT 9 AS id) s ON t.id = s.id WHEN NOT MATCHED THEN INSERT VALUES (s.id, 'p');
GO
EXEC pm; SELECT COUNT(*) FROM tgt;
GO
