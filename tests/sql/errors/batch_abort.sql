SELECT * FROM does_not_exist
PRINT 'not printed: 208 aborts the batch'
GO
SELECT CAST('abc' AS int)
PRINT 'not printed: 245 aborts the batch'
GO
SELECT 1 +
GO
PRINT 'still alive'
GO
