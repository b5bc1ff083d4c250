-- ALTER TABLE ... WITH CHECK / WITH NOCHECK (issue 8): adding a CHECK or FOREIGN KEY
-- constraint validates the existing rows (547; WITH CHECK is the default for ADD); WITH NOCHECK
-- skips them and marks the constraint not trusted; NOCHECK CONSTRAINT disables it (and it is no
-- longer trusted); CHECK CONSTRAINT re-enables it without validation (still not trusted);
-- WITH CHECK CHECK CONSTRAINT validates and makes it trusted again.
CREATE TABLE c (a int);
INSERT INTO c VALUES (1), (-1);
GO
ALTER TABLE c WITH CHECK ADD CONSTRAINT ck_pos CHECK (a > 0);
GO
ALTER TABLE c ADD CONSTRAINT ck_pos CHECK (a > 0);
GO
ALTER TABLE c ADD b int NULL CONSTRAINT ck_b CHECK (b IS NOT NULL);
GO
CREATE TABLE cc (x int CONSTRAINT ck_x CHECK (x < 10), y int);
INSERT INTO cc VALUES (11, 0);
SELECT name, parent_column_id FROM sys.check_constraints WHERE parent_object_id = OBJECT_ID('cc');
GO
ALTER TABLE c WITH NOCHECK ADD CONSTRAINT ck_pos CHECK (a > 0);
SELECT name, is_disabled, is_not_trusted FROM sys.check_constraints ORDER BY name;
GO
INSERT INTO c VALUES (-2);
GO
ALTER TABLE c WITH CHECK CHECK CONSTRAINT ck_pos;
GO
ALTER TABLE c NOCHECK CONSTRAINT ck_pos;
SELECT name, is_disabled, is_not_trusted FROM sys.check_constraints ORDER BY name;
INSERT INTO c VALUES (-3);
ALTER TABLE c CHECK CONSTRAINT ck_pos;
SELECT name, is_disabled, is_not_trusted FROM sys.check_constraints ORDER BY name;
GO
DELETE FROM c WHERE a < 0;
ALTER TABLE c WITH CHECK CHECK CONSTRAINT ALL;
SELECT name, is_disabled, is_not_trusted FROM sys.check_constraints ORDER BY name;
GO
ALTER TABLE c NOCHECK CONSTRAINT no_such;
GO
CREATE TABLE par (id int PRIMARY KEY);
INSERT INTO par VALUES (1), (2);
CREATE TABLE chi (pid int, note varchar(5));
INSERT INTO chi VALUES (1, 'a'), (3, 'b'), (NULL, 'c');
GO
ALTER TABLE chi ADD CONSTRAINT fk_chi FOREIGN KEY (pid) REFERENCES par (id);
GO
ALTER TABLE chi NOCHECK CONSTRAINT pk_none;
GO
ALTER TABLE chi WITH NOCHECK ADD CONSTRAINT fk_chi FOREIGN KEY (pid) REFERENCES par (id);
SELECT name, is_disabled, is_not_trusted, key_index_id, delete_referential_action_desc
FROM sys.foreign_keys;
GO
INSERT INTO chi VALUES (4, 'd');
GO
ALTER TABLE chi WITH CHECK CHECK CONSTRAINT fk_chi;
GO
DELETE FROM chi WHERE pid = 3;
ALTER TABLE chi WITH CHECK CHECK CONSTRAINT fk_chi;
SELECT name, is_disabled, is_not_trusted FROM sys.foreign_keys;
GO
ALTER TABLE chi NOCHECK CONSTRAINT fk_chi;
SELECT name, is_disabled, is_not_trusted FROM sys.foreign_keys;
GO
-- a primary key cannot be switched off (11415)
CREATE TABLE kp (id int CONSTRAINT pk_kp PRIMARY KEY);
GO
ALTER TABLE kp NOCHECK CONSTRAINT pk_kp;
GO
