-- S9 (seed 003): wide-heap scan and parallel insert. The seed runs in AdventureWorksDW2014; a
-- 3-row DimCustomer with the columns the script reads stands in for it. Statements are the
-- seed's (as repaired in crates/parser/tests/seed_statements/seed_003.sql) except TOP 50000 ->
-- TOP 500 in the generator.
CREATE TABLE DimCustomer (
    CustomerKey int NOT NULL PRIMARY KEY,
    CustomerAlternateKey nvarchar(15) NOT NULL,
    FirstName nvarchar(50) NULL,
    MiddleName nvarchar(50) NULL,
    LastName nvarchar(50) NULL,
    AddressLine1 nvarchar(120) NULL,
    AddressLine2 nvarchar(120) NULL
);
INSERT INTO DimCustomer VALUES
 (11000, N'AW00011000', N'Jon', N'V', N'Yang', N'3761 N. 14th St', NULL),
 (11001, N'AW00011001', N'Eugene', N'L', N'Huang', N'2243 W St.', NULL),
 (11002, N'AW00011002', N'Ruben', NULL, N'Torres', N'5844 Linden Land', N'Apt 2');
GO
;WITH generator AS (
     SELECT     TOP 500 id = ROW_NUMBER() OVER (ORDER BY a)
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
-- latchkey has no master.dbo.syscolumns yet: the same statement over 100-row slices of
-- master..spt_values (the full cross join takes too long for CI)
;WITH generator AS (
     SELECT     TOP 500 id = ROW_NUMBER() OVER (ORDER BY a)
     FROM       (SELECT a = 1
                 FROM     (SELECT TOP (100) number FROM master..spt_values) s1) c1
     CROSS JOIN (SELECT TOP (100) number FROM master..spt_values) c2
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
SELECT COUNT(*)
FROM   [dbo].[BigData] WITH (NOLOCK)
GO
SELECT COUNT(*) AS null_col6, COUNT(DISTINCT Col1) AS col1_values FROM BigData WHERE Col6 IS NULL
GO
SELECT c.name, t.name AS type, c.max_length, c.is_nullable
FROM sys.columns c JOIN sys.types t ON t.user_type_id = c.user_type_id WHERE c.object_id = OBJECT_ID('BigData') ORDER BY c.column_id
GO
CREATE PARTITION FUNCTION [HashPartitionFunc24](bigint)
AS RANGE LEFT
FOR VALUES (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24)
GO
CREATE PARTITION SCHEME [HashPartitionScheme24]
AS PARTITION [HashPartitionFunc24]
ALL TO ([PRIMARY])
GO
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
-- the same table without the partition scheme, so the INSERT ... WITH (TABLOCK) below runs
CREATE TABLE [dbo].[BigDataHeap](
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
)
GO
-- the seed's INSERT lists 7 values for 11 columns (text lost in the seed): SQL Server gives 213
INSERT INTO [dbo].[BigDataHeap] WITH (TABLOCK)
SELECT  [Col1]
       ,ISNULL([Col6] , 'X')
       ,ISNULL([Col7] , 'X')
       ,ISNULL([Col8] , 'X')
       ,ISNULL([Col9] , 'X')
       ,ISNULL([Col10], 'X')
       ,ISNULL([Col11], 'X')
FROM   [dbo].[BigData] WITH (NOLOCK)
GO
INSERT INTO [dbo].[BigDataHeap] WITH (TABLOCK)
SELECT  [Col1], [Col2], [Col3], [Col4], [Col5]
       ,ISNULL([Col6] , 'X')
       ,ISNULL([Col7] , 'X')
       ,ISNULL([Col8] , 'X')
       ,ISNULL([Col9] , 'X')
       ,ISNULL([Col10], 'X')
       ,ISNULL([Col11], 'X')
FROM   [dbo].[BigData] WITH (NOLOCK)
GO
SELECT COUNT(*) AS n, SUM(CASE WHEN Col6 = 'X' THEN 1 ELSE 0 END) AS x_col6 FROM BigDataHeap
GO
