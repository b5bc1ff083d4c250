-- CETAS writes Parquet; SELECT from the external table and OPENROWSET read it back
CREATE TABLE t (
  id int, ti tinyint, si smallint, bi bigint, d decimal(18,4), n numeric(38,10), m money, sm smallmoney,
  f float, r real, b bit, dt date, tm time(7), dtm datetime, d2 datetime2(6), sdt smalldatetime,
  dto datetimeoffset(7), c char(5), vc varchar(20), nvc nvarchar(20), bin binary(4), vb varbinary(10),
  g uniqueidentifier);
INSERT INTO t VALUES
 (1, 255, -32768, 9223372036854775807, 12345678901234.5678, 1234567890123456789012345678.0123456789,
  922337203685477.5807, -214748.3648, 1.5e300, 3.25, 1, '0001-01-01', '23:59:59.9999999',
  '1753-01-01 00:00:00.003', '9999-12-31 23:59:59.999999', '2079-06-06 23:59',
  '2024-02-29 12:34:56.1234567 -08:00', 'ab', 'hello, "q"', N'straße 日本', 0xDEADBEEF, 0x00FF,
  '6F9619FF-8B86-D011-B42D-00C04FC964FF'),
 (2, 0, 0, -1, -0.0001, 0, 0, 0, -0, -1e-30, 0, '2024-02-29', '00:00:00', '2024-02-29 13:14:15.997',
  '1970-01-01 00:00:00', '1900-01-01 00:00', '0001-01-02 00:00:00 +14:00', '', '', N'', 0x00000000, 0x,
  '00000000-0000-0000-0000-000000000000'),
 (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL);
GO
CREATE EXTERNAL DATA SOURCE local_files WITH (LOCATION = '$(DATADIR)');
CREATE EXTERNAL FILE FORMAT parquet_snappy WITH (FORMAT_TYPE = PARQUET, DATA_COMPRESSION = 'org.apache.hadoop.io.compress.SnappyCodec');
CREATE EXTERNAL TABLE t_export WITH (LOCATION = 'export/t/', DATA_SOURCE = local_files, FILE_FORMAT = parquet_snappy)
AS SELECT * FROM t;
GO
-- the external table reads back the same rows, every type
SELECT COUNT(*) AS same_rows FROM (SELECT * FROM t INTERSECT SELECT * FROM t_export) x;
SELECT COUNT(*) AS differing FROM (SELECT * FROM t EXCEPT SELECT * FROM t_export) x;
GO
SELECT * FROM t_export ORDER BY id;
GO
-- OPENROWSET reads the folder with the types written into the file
SELECT COUNT(*) AS same_rows FROM (SELECT * FROM t INTERSECT
  SELECT * FROM OPENROWSET(BULK '$(DATADIR)/export/t/', FORMAT = 'PARQUET') AS r) x;
GO
-- and a WITH clause picks and converts columns by name
SELECT * FROM OPENROWSET(BULK 'file://$(DATADIR)/export/t/part-00000.parquet', FORMAT = 'PARQUET')
  WITH (ID bigint, nvc nvarchar(5), missing int) AS r ORDER BY ID;
GO
-- CETAS over an expression query into a single named file
CREATE EXTERNAL TABLE agg WITH (LOCATION = 'agg.parquet', DATA_SOURCE = local_files, FILE_FORMAT = parquet_snappy)
AS SELECT b, COUNT(*) AS n, SUM(m) AS total FROM t GROUP BY b;
SELECT * FROM agg ORDER BY b;
GO
-- errors
CREATE EXTERNAL TABLE t_export2 WITH (LOCATION = 'export/t/', DATA_SOURCE = local_files, FILE_FORMAT = parquet_snappy) AS SELECT 1 AS x;
GO
CREATE EXTERNAL TABLE bad WITH (LOCATION = 'x/', DATA_SOURCE = nosuch, FILE_FORMAT = parquet_snappy) AS SELECT 1 AS x;
GO
CREATE EXTERNAL TABLE bad WITH (LOCATION = 'y/', DATA_SOURCE = local_files, FILE_FORMAT = parquet_snappy) AS SELECT 1;
GO
CREATE EXTERNAL DATA SOURCE lake WITH (LOCATION = 'abfss://data@account.dfs.core.windows.net/');
GO
CREATE EXTERNAL FILE FORMAT csv WITH (FORMAT_TYPE = DELIMITEDTEXT);
GO
CREATE EXTERNAL FILE FORMAT gz WITH (FORMAT_TYPE = PARQUET, DATA_COMPRESSION = 'org.apache.hadoop.io.compress.GzipCodec');
GO
SELECT * FROM OPENROWSET(BULK '$(DATADIR)/nosuch.parquet', FORMAT = 'PARQUET') AS r;
GO
SELECT * FROM OPENROWSET(BULK '$(DATADIR)/export/t/', FORMAT = 'PARQUET');
GO
SELECT * FROM OPENROWSET(BULK 's3://bucket/x.parquet', FORMAT = 'PARQUET') AS r;
GO
SELECT * FROM OPENROWSET(BULK '$(DATADIR)/export/t/', FORMAT = 'PARQUET', ROWSET_OPTIONS = '{}') AS r;
GO
DROP EXTERNAL TABLE agg;
SELECT * FROM agg;
GO
DROP EXTERNAL TABLE agg;
GO
