-- PENDING (engine/exec): after each constraint error SQL Server prints "The statement has been
-- terminated." (Msg 3621, level 0); the column CHECK constraint must be named CK__child__n__<hex>
-- and its 547 message must end with ", column 'n'."
CREATE TABLE parent (id int PRIMARY KEY, code varchar(5) UNIQUE)
CREATE TABLE child (id int PRIMARY KEY, parent_id int REFERENCES parent(id), n int CHECK (n >= 0), label varchar(3) NOT NULL)
GO
INSERT INTO parent VALUES (1, 'a')
INSERT INTO parent VALUES (1, 'b')
INSERT INTO parent VALUES (2, 'a')
PRINT 'batch continues after constraint errors'
GO
INSERT INTO child VALUES (1, 1, 0, 'x')
INSERT INTO child VALUES (2, 99, 0, 'x')
INSERT INTO child VALUES (3, 1, -1, 'x')
INSERT INTO child VALUES (4, 1, 0, NULL)
INSERT INTO child VALUES (5, 1, 0, 'toolong')
GO
SELECT id, parent_id, n, label FROM child
GO
DROP TABLE parent
GO
