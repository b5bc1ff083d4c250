CREATE TABLE base (id int, v varchar(10))
INSERT INTO base VALUES (1, 'a'), (2, 'b'), (3, 'c')
GO
CREATE VIEW v_base AS SELECT id, v FROM base WHERE id > 1
GO
SELECT * FROM v_base ORDER BY id
GO
CREATE VIEW v_base AS SELECT 1 AS x
GO
DROP VIEW v_base
GO
DROP VIEW v_base
GO
