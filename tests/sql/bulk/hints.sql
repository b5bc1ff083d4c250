-- BULK INSERT hints act: ORDER is verified (4819 when the file is not sorted so, the load
-- rolled back), KILOBYTES_PER_BATCH sizes the reads (a tiny value still loads every row),
-- ROWS_PER_BATCH is an estimate that does not split the load into transactions
CREATE TABLE r (k int PRIMARY KEY, n varchar(25), c varchar(152));
BULK INSERT r FROM '$(TESTDIR)/data/region.tbl'
  WITH (FIELDTERMINATOR = '|', ROWTERMINATOR = '|\n', ORDER (k DESC));
SELECT COUNT(*) AS after_bad_order FROM r;
GO
-- several columns: the file is sorted by name, so this promise holds
BULK INSERT r FROM '$(TESTDIR)/data/region.tbl'
  WITH (FIELDTERMINATOR = '|', ROWTERMINATOR = '|\n', ORDER (n ASC, k DESC));
SELECT COUNT(*) AS sorted_by_name FROM r;
TRUNCATE TABLE r;
GO
BULK INSERT r FROM '$(TESTDIR)/data/region.tbl'
  WITH (FIELDTERMINATOR = '|', ROWTERMINATOR = '|\n', ORDER (k ASC), KILOBYTES_PER_BATCH = 1, TABLOCK);
SELECT k, n FROM r ORDER BY k;
GO
-- ROWS_PER_BATCH does not commit part of the file: a bad last row rolls back every row
CREATE TABLE r2 (k int PRIMARY KEY, n varchar(25), c varchar(152));
INSERT INTO r2 VALUES (4, 'x', 'taken');
BULK INSERT r2 FROM '$(TESTDIR)/data/region.tbl'
  WITH (FIELDTERMINATOR = '|', ROWTERMINATOR = '|\n', ROWS_PER_BATCH = 1);
SELECT COUNT(*) AS rows_kept FROM r2;
GO
-- with BATCHSIZE the batches before the failing one stay
BULK INSERT r2 FROM '$(TESTDIR)/data/region.tbl'
  WITH (FIELDTERMINATOR = '|', ROWTERMINATOR = '|\n', BATCHSIZE = 2);
SELECT COUNT(*) AS rows_kept_batchsize FROM r2;
GO
