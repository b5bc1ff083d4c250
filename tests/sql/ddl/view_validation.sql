-- PENDING (engine): CREATE VIEW does not bind its query. SQL Server validates at creation:
-- the first gives Msg 1033 (ORDER BY without TOP), the second Msg 207 (Invalid column name
-- 'nocol'), and neither view is created (the SELECTs give 208).
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
