-- BULK INSERT into every type: the fast paths (integers, decimal, date, strings) and the
-- general conversion for the rest
CREATE TABLE ty (
  i int, bi bigint, si smallint, ti tinyint, b bit, d decimal(10,3), n numeric(10,5),
  f float, r real, m money, sm smallmoney, c char(3), vc varchar(20), nc nchar(3),
  nv nvarchar(20), bn binary(2), vb varbinary(8), dt date, tm time(7), dtm datetime,
  dt2 datetime2(7), sdt smalldatetime, dto datetimeoffset(2), g uniqueidentifier, mx varchar(max));
BULK INSERT ty FROM '$(TESTDIR)/data/types.txt' WITH (ROWTERMINATOR = '0x0a');
SELECT i, bi, si, ti, b, d, n, f, r, m, sm FROM ty ORDER BY i;
SELECT i, '[' + c + ']' AS c, vc, '[' + nc + ']' AS nc, nv, bn, vb, mx FROM ty ORDER BY i;
SELECT i, dt, tm, dtm, dt2, sdt, dto, g FROM ty ORDER BY i;
GO
