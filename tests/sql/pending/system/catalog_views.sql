-- PENDING (parser): `c.precision` (a reserved keyword after a qualifier) must parse, as in SQL Server.
CREATE TABLE cv (id int IDENTITY PRIMARY KEY, name nvarchar(50) NOT NULL, price decimal(9,2) NULL, created datetime2(3))
GO
SELECT c.name, c.column_id, c.system_type_id, c.max_length, c.precision, c.scale, c.is_nullable, c.is_identity
FROM sys.columns c WHERE c.object_id = OBJECT_ID('cv') ORDER BY c.column_id
GO
SELECT TABLE_NAME, COLUMN_NAME, DATA_TYPE, IS_NULLABLE, CHARACTER_MAXIMUM_LENGTH
FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_NAME = 'cv' ORDER BY ORDINAL_POSITION
GO
SELECT i.index_id, i.type_desc, i.is_primary_key, i.is_unique FROM sys.indexes i WHERE i.object_id = OBJECT_ID('cv')
GO
SELECT name FROM sys.tables WHERE name = 'cv'
GO
SELECT DB_NAME() AS db, @@TRANCOUNT AS tc, @@SPID AS spid_is_set
GO
