-- format: jsonl
CREATE TABLE dbo.items (
    id INT IDENTITY NOT NULL PRIMARY KEY,
    name NVARCHAR(40) NOT NULL,
    price MONEY NULL DEFAULT 0,
    added DATETIME2(3) NULL
);
INSERT INTO dbo.items (name) VALUES (N'a'), (N'b'), (N'c');
CREATE INDEX ix_items_name ON dbo.items (name);
GO
CREATE VIEW dbo.v_items AS SELECT id, name FROM dbo.items;
GO
EXEC sp_columns 'items';
EXEC sp_columns @table_name = 'items', @column_name = 'p%';
GO
EXEC sp_columns 'items', @ODBCVer = 3;
GO
EXEC sp_columns 'items', 'dbo', 'otherdb';
GO
EXEC sp_tables 'items', @table_qualifier = 'otherdb';
GO
EXEC sp_tables;
EXEC sp_tables @table_name = 'v%';
EXEC sp_tables @table_type = "'VIEW'";
GO
EXEC sp_spaceused 'items';
GO
EXEC sp_spaceused 'nosuch';
GO
EXEC sp_who;
EXEC sp_who 'active';
GO
SELECT CAST(SERVERPROPERTY('ProductMajorVersion') AS INT) AS major,
       SERVERPROPERTY('ProductLevel') AS level,
       SERVERPROPERTY('EngineEdition') AS engine_edition,
       SERVERPROPERTY('ServerName') AS server_name,
       SERVERPROPERTY('Collation') AS collation,
       SERVERPROPERTY('IsIntegratedSecurityOnly') AS integrated,
       SERVERPROPERTY('NoSuchProperty') AS unknown,
       SERVERPROPERTY(NULL) AS null_arg;
SELECT CASE WHEN SERVERPROPERTY('ProductVersion') LIKE '16.0.%' THEN 'ok' END AS version_shape;
GO
