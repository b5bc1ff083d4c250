-- sp_datatype_info_100 / sp_datatype_info: ODBC SQLGetTypeInfo rows (FreeTDS's SQLGetTypeInfo
-- runs them; pyodbc reads the first SQL_WVARCHAR and SQL_TYPE_TIMESTAMP rows' PRECISION).
EXEC sp_datatype_info_100 @data_type = 0, @ODBCVer = 3;
GO
-- the rows pyodbc reads: nvarchar 4000 first, datetime2 27 first
EXEC sp_datatype_info_100 -9, 3;
EXEC sys.sp_datatype_info_100 93, 3;
EXEC master.dbo.sp_datatype_info_100 -154, 3;
GO
-- ODBC 2 (the default, and any @ODBCVer other than 3): date 9, datetime 11
EXEC sp_datatype_info_100 11;
EXEC sp_datatype_info_100 9, 7;
EXEC sp_datatype_info_100 93;
GO
-- the down-level procedure reports the 2008 date/time types as nvarchar
EXEC sp_datatype_info -9, 3;
EXEC sp_datatype_info 93, 3;
GO
EXEC sp_datatype_info_100 4, 3, 1;
GO
EXEC sp_datatype_info_100 @foo = 1;
GO
