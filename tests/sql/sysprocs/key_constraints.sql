CREATE DATABASE kc;
GO
USE kc;
CREATE TABLE dbo.a (id INT NOT NULL PRIMARY KEY, code CHAR(3) NOT NULL CONSTRAINT uq_a_code UNIQUE, v INT CHECK (v > 0));
CREATE TABLE dbo.b (x INT NOT NULL, y INT NOT NULL, CONSTRAINT pk_b PRIMARY KEY NONCLUSTERED (x, y));
GO
SELECT OBJECT_NAME(parent_object_id) AS tbl, type, type_desc, unique_index_id, is_system_named, is_enforced,
       CASE WHEN name LIKE 'PK__a__%' THEN 'PK__a__...' ELSE name END AS name
FROM sys.key_constraints ORDER BY tbl, type;
SELECT COUNT(*) AS same_ids
FROM sys.key_constraints k JOIN sys.objects o ON o.object_id = k.object_id AND o.type IN ('PK', 'UQ');
SELECT i.name AS index_name FROM sys.key_constraints k
JOIN sys.indexes i ON i.object_id = k.parent_object_id AND i.index_id = k.unique_index_id
WHERE k.name = 'pk_b';
GO
