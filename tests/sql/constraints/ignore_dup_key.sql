-- IGNORE_DUP_KEY = ON (issue 8): INSERT discards the rows whose key already exists (or comes
-- twice in the statement) with "Duplicate key was ignored." and inserts the others; UPDATE is
-- not affected (2601 / 2627 as usual, the option applies to inserts only); the option shows in
-- sys.indexes; a non-unique index cannot have it (1916).
CREATE TABLE d (a int, b int, CONSTRAINT pk_d PRIMARY KEY (a) WITH (IGNORE_DUP_KEY = ON));
INSERT INTO d VALUES (1, 1), (1, 2), (2, 2);
SELECT a, b FROM d ORDER BY a;
GO
INSERT INTO d VALUES (2, 5), (3, 3);
SELECT a, b FROM d ORDER BY a;
GO
CREATE UNIQUE INDEX ux ON d (b) WITH (IGNORE_DUP_KEY = ON);
INSERT INTO d VALUES (4, 2), (5, 5);
SELECT a, b FROM d ORDER BY a;
GO
-- nothing ignored: no message
INSERT INTO d VALUES (6, 6);
GO
-- UPDATE still fails on a duplicate, and the statement is rolled back
UPDATE d SET b = 1;
SELECT a, b FROM d ORDER BY a;
GO
CREATE TABLE hp (a int, CONSTRAINT uq_hp UNIQUE NONCLUSTERED (a) WITH (IGNORE_DUP_KEY = ON));
INSERT INTO hp VALUES (1), (1), (NULL), (NULL), (2);
SELECT a FROM hp ORDER BY a;
GO
SELECT i.name, i.is_unique, i.ignore_dup_key FROM sys.indexes i
WHERE i.object_id IN (OBJECT_ID('d'), OBJECT_ID('hp')) ORDER BY i.name;
GO
CREATE INDEX nx ON d (a) WITH (IGNORE_DUP_KEY = ON);
GO
-- without the option a duplicate is still an error
CREATE TABLE plain (a int PRIMARY KEY);
INSERT INTO plain VALUES (1), (1);
SELECT COUNT(*) AS n FROM plain;
GO
-- ALTER INDEX SET / REBUILD WITH keeps the option too: turned on, a duplicate insert is
-- ignored; turned off again, it fails; on a nonunique index it is 1916
CREATE TABLE al (a int, CONSTRAINT pk_al PRIMARY KEY (a));
CREATE INDEX nx_al ON al (a);
INSERT INTO al VALUES (1);
GO
ALTER INDEX pk_al ON al SET (IGNORE_DUP_KEY = ON);
INSERT INTO al VALUES (1), (2);
SELECT a FROM al ORDER BY a;
SELECT name, ignore_dup_key FROM sys.indexes WHERE object_id = OBJECT_ID('al') ORDER BY name;
GO
ALTER INDEX pk_al ON al REBUILD WITH (IGNORE_DUP_KEY = OFF);
INSERT INTO al VALUES (2);
GO
ALTER INDEX nx_al ON al SET (IGNORE_DUP_KEY = ON);
GO
ALTER INDEX ALL ON al REBUILD WITH (IGNORE_DUP_KEY = ON);
GO
SELECT name, ignore_dup_key FROM sys.indexes WHERE object_id = OBJECT_ID('al') ORDER BY name;
GO
