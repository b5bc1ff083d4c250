-- Seed 003 (parallel insert / scan). The seed's text lost everything between '<' and '>' and
-- several lines (HTML stripping). Statements below are the seed's, with the lost pieces
-- restored minimally; every restored piece is marked "repaired".

-- seed 003 line 13 (repaired: column prefix "id", closing ')' of the CTE)
;WITH generator AS (
     SELECT     TOP 50000 id = ROW_NUMBER() OVER (ORDER BY a)
     FROM       (SELECT a = 1
                 FROM     master.dbo.syscolumns) c1
     CROSS JOIN master.dbo.syscolumns c2
)
SELECT id % 24                AS Col1
       ,id + 1                 AS Col2
       ,id + 2                 AS Col3
       ,id + 3                 AS Col4
       ,id + 4                 AS Col5
       ,CASE id % 2
            WHEN 1
                THEN AddressLine1
                ELSE AddressLine2
        END                       AS Col6
       ,CASE id % 7
            WHEN 1
                THEN AddressLine1
                ELSE AddressLine2
        END                       AS Col7
       ,FirstName                 AS Col8
       ,MiddleName                AS Col9
       ,LastName                  AS Col10
       ,CustomerAlternateKey      AS Col11
INTO   BigData
FROM   generator g1
CROSS JOIN DimCustomer
GO
-- seed 003 line 45 (repaired: the SELECT line was lost; the text calls it "SELECT COUNT test")
SELECT COUNT(*)
FROM   [dbo].[BigData] WITH (NOLOCK)
GO
-- seed 003 line 57 (repaired: "AS RANGE LEFT" was lost)
CREATE PARTITION FUNCTION [HashPartitionFunc24](bigint)
AS RANGE LEFT
FOR VALUES (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24)
GO
-- seed 003 line 61 (repaired: first and last lines were lost)
CREATE PARTITION SCHEME [HashPartitionScheme24]
AS PARTITION [HashPartitionFunc24]
ALL TO ([PRIMARY])
GO
-- seed 003 line 66
CREATE TABLE [dbo].[BigDataHeap24](
     [Col1]  [bigint]        NULL
    ,[Col2]  [bigint]        NULL
    ,[Col3]  [bigint]        NULL
    ,[Col4]  [bigint]        NULL
    ,[Col5]  [bigint]        NULL
    ,[Col6]  [nvarchar](120) NULL
    ,[Col7]  [nvarchar](120) NULL
    ,[Col8]  [nvarchar](50)  NULL
    ,[Col9]  [nvarchar](50)  NULL
    ,[Col10] [nvarchar](50)  NULL
    ,[Col11] [nvarchar](15)  NULL
) ON HashPartitionScheme24(Col1)
GO
-- seed 003 line 93
INSERT INTO [dbo].[BigDataHeap24] WITH (TABLOCK)
SELECT  [Col1]
       ,ISNULL([Col6] , 'X')
       ,ISNULL([Col7] , 'X')
       ,ISNULL([Col8] , 'X')
       ,ISNULL([Col9] , 'X')
       ,ISNULL([Col10], 'X')
       ,ISNULL([Col11], 'X')
FROM   [dbo].[BigData] WITH (NOLOCK)
GO
-- seed 003 line 130 (repaired: "ADD FILE", closing ')' and quote, "TO FILEGROUP" were lost)
ALTER DATABASE [AdventureWorksDW2014]
ADD FILE
 ( NAME       = N'FIO_01'
  ,FILENAME   = N'G:\SQLDATA\FIO_01.mdf'
  ,SIZE       = 20971520KB )
,( NAME       = N'FIO_02'
  ,FILENAME   = N'G:\SQLDATA\FIO_02.mdf'
  ,SIZE       = 20971520KB )
,( NAME       = N'FIO_03'
  ,FILENAME   = N'G:\SQLDATA\FIO_03.mdf'
  ,SIZE       = 20971520KB )
,( NAME       = N'FIO_04'
  ,FILENAME   = N'G:\SQLDATA\FIO_04.mdf'
  ,SIZE       = 20971520KB )
,( NAME       = N'FIO_05'
  ,FILENAME   = N'G:\SQLDATA\FIO_05.mdf'
  ,SIZE       = 20971520KB )
,( NAME       = N'FIO_06'
  ,FILENAME   = N'G:\SQLDATA\FIO_06.mdf'
  ,SIZE       = 20971520KB )
,( NAME       = N'FIO_07'
  ,FILENAME   = N'C:\SQLDATA\FIO_01.mdf'
  ,SIZE       = 20971520KB )
TO FILEGROUP [FIO]
GO
