-- PENDING (engine/exec): SQL Server prints "The statement has been terminated." after each of
-- these errors (2627, 2601, 515, 547, 2628); latchkey prints only the error.
CREATE TABLE p (id int PRIMARY KEY, code varchar(3) NOT NULL)
CREATE UNIQUE INDEX ux_code ON p (code)
CREATE TABLE c (id int, pid int REFERENCES p(id))
INSERT INTO p VALUES (1, 'a')
GO
INSERT INTO p VALUES (1, 'b')
GO
INSERT INTO p VALUES (2, 'a')
GO
INSERT INTO p VALUES (3, NULL)
GO
INSERT INTO c VALUES (1, 42)
GO
INSERT INTO p VALUES (4, 'abcd')
GO
