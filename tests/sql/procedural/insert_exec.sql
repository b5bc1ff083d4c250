CREATE TABLE src (id int, name varchar(10))
INSERT src VALUES (1, 'one'), (2, 'two'), (3, 'three')
CREATE TABLE dst (id int, name varchar(10))
GO
CREATE PROCEDURE get_rows @min int AS
BEGIN
    PRINT 'producing rows'
    SELECT id, name FROM src WHERE id >= @min ORDER BY id
END
GO
INSERT INTO dst EXEC get_rows 2
SELECT @@ROWCOUNT AS rc
INSERT dst (id, name) EXEC ('SELECT 10, ''ten''')
SELECT id, name FROM dst ORDER BY id
GO
CREATE TABLE narrow (id int)
INSERT narrow EXEC get_rows 1
SELECT COUNT(*) AS narrow_rows FROM narrow
GO
