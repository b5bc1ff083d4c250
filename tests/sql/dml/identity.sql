CREATE TABLE ident (id int IDENTITY(10, 5), v varchar(5))
GO
INSERT INTO ident (v) VALUES ('a')
INSERT INTO ident (v) VALUES ('b')
SELECT @@IDENTITY AS last_identity, SCOPE_IDENTITY() AS scope_identity
GO
SELECT id, v FROM ident ORDER BY id
GO
SET IDENTITY_INSERT ident ON
INSERT INTO ident (id, v) VALUES (100, 'x')
SET IDENTITY_INSERT ident OFF
INSERT INTO ident (v) VALUES ('c')
SELECT id, v FROM ident ORDER BY id
GO
SELECT * INTO ident_copy FROM ident WHERE id > 10
SELECT COUNT(*) AS copied FROM ident_copy
GO
