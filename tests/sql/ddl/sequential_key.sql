-- OPTIMIZE_FOR_SEQUENTIAL_KEY is kept wherever SQL Server accepts it: CREATE INDEX, a table
-- constraint, a column constraint and ALTER TABLE ADD CONSTRAINT (seed 004, S10)
CREATE TABLE seq_col (id BIGINT NOT NULL PRIMARY KEY CLUSTERED WITH (OPTIMIZE_FOR_SEQUENTIAL_KEY = ON), v INT);
CREATE TABLE seq_tab (id BIGINT NOT NULL, v INT, CONSTRAINT pk_seq_tab PRIMARY KEY CLUSTERED (id) WITH (OPTIMIZE_FOR_SEQUENTIAL_KEY = ON));
CREATE TABLE seq_alt (id BIGINT NOT NULL, v INT);
ALTER TABLE seq_alt ADD CONSTRAINT pk_seq_alt PRIMARY KEY CLUSTERED (id) WITH (OPTIMIZE_FOR_SEQUENTIAL_KEY = ON);
CREATE TABLE seq_off (id BIGINT NOT NULL PRIMARY KEY, v INT);
CREATE INDEX ix_seq_off_v ON seq_off (v) WITH (OPTIMIZE_FOR_SEQUENTIAL_KEY = ON);
GO
SELECT CAST(OBJECT_NAME(i.object_id) AS varchar(10)) AS tab, CAST(i.type_desc AS varchar(14)) AS type_desc, i.is_primary_key, i.optimize_for_sequential_key,
       INDEXPROPERTY(i.object_id, i.name, 'IsOptimizedForSequentialKey') AS prop
FROM sys.indexes i
WHERE OBJECT_NAME(i.object_id) LIKE 'seq[_]%'
ORDER BY tab, i.index_id;
GO
-- restart
-- the option survives a restart (it is stored with the index in the catalog)
SELECT CAST(OBJECT_NAME(object_id) AS varchar(10)) AS tab, optimize_for_sequential_key
FROM sys.indexes WHERE OBJECT_NAME(object_id) IN ('seq_col', 'seq_alt') ORDER BY tab;
GO
