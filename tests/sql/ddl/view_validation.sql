-- SQL Server binds a view's query at CREATE/ALTER VIEW: binding errors fail the statement and
-- leave no view behind (the SELECTs give 208).
CREATE TABLE vb (id int)
GO
CREATE VIEW vo AS SELECT id FROM vb ORDER BY id
GO
CREATE VIEW vc AS SELECT nocol FROM vb
GO
SELECT * FROM vo
GO
SELECT * FROM vc
GO
CREATE VIEW vmissing AS SELECT id FROM no_such_table
GO
CREATE VIEW vnoname AS SELECT id, id + 1 FROM vb
GO
CREATE VIEW vdup AS SELECT id, id AS ID FROM vb
GO
CREATE VIEW vfew (a) AS SELECT id, id + 1 AS b FROM vb
GO
CREATE VIEW vmany (a, b, c) AS SELECT id, id + 1 AS b FROM vb
GO
SELECT name FROM sys.views ORDER BY name
GO
CREATE VIEW vok (a, b) AS SELECT id, id + 1 FROM vb
GO
INSERT vb VALUES (41)
SELECT a, b FROM vok
GO
ALTER VIEW vok AS SELECT id, nocol FROM vb
GO
SELECT a, b FROM vok
GO
