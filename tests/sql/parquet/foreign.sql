-- a Parquet file written by DuckDB (tests/sql/parquet/from_duckdb.parquet): types map as SQL
-- Server's serverless readers map them
SELECT * FROM OPENROWSET(BULK '$(TESTDIR)/from_duckdb.parquet', FORMAT = 'PARQUET') AS r;
GO
SELECT * INTO typed FROM OPENROWSET(BULK '$(TESTDIR)/from_duckdb.parquet', FORMAT = 'PARQUET') AS r;
SELECT c.name, t.name AS type, c.max_length, c.precision, c.scale FROM sys.columns c
JOIN sys.types t ON t.user_type_id = c.user_type_id
WHERE c.object_id = OBJECT_ID('typed') ORDER BY c.column_id;
GO
