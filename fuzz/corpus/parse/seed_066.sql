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
