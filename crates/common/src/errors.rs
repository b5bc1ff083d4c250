//! The one error type and the registry of SQL Server error numbers.
//!
//! Templates use SQL Server's own `sys.messages` text with `%s`/`%d`/`%ls`/`%.*ls` style
//! placeholders; [`SqlError::new`] substitutes arguments in order. Add new numbers to
//! [`REGISTRY`] (kept sorted by number) rather than formatting ad-hoc strings at call sites.

use std::fmt;

/// Result alias used across the workspace.
pub type SqlResult<T> = Result<T, SqlError>;

/// An error as SQL Server reports it: `Msg number, Level severity, State state, Line line`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SqlError {
    pub number: i32,
    pub severity: u8,
    pub state: u8,
    pub message: String,
    /// 1-based line within the batch (or module) where the failing statement starts; 0 = unknown.
    pub line: u32,
    /// Name of the procedure/function/trigger in which the error happened ("" for a batch).
    pub procedure: String,
}

/// One entry of the error registry.
#[derive(Clone, Copy, Debug)]
pub struct ErrorInfo {
    pub number: i32,
    pub severity: u8,
    /// The state SQL Server reports for this message where one call site dominates (137 and
    /// 515 are State 2, 547 State 0); call sites with another state use `with_state`.
    pub state: u8,
    pub template: &'static str,
}

/// SQL Server's messages that latchkey raises, sorted by number.
pub static REGISTRY: &[ErrorInfo] = &[
    e(102, 15, "Incorrect syntax near '%.*ls'."),
    e(103, 15, "The %S_MSG that starts with '%.*ls' is too long. Maximum length is %d."),
    e(105, 15, "Unclosed quotation mark after the character string '%.*ls'."),
    e(109, 15, "There are more columns in the INSERT statement than values specified in the VALUES clause. The number of values in the VALUES clause must match the number of columns specified in the INSERT statement."),
    e(110, 15, "There are fewer columns in the INSERT statement than values specified in the VALUES clause. The number of values in the VALUES clause must match the number of columns specified in the INSERT statement."),
    e(111, 15, "'%ls' must be the first statement in a query batch."),
    e(113, 15, "Missing end comment mark '*/'."),
    e(116, 16, "Only one expression can be specified in the select list when the subquery is not introduced with EXISTS."),
    e(120, 15, "The select list for the INSERT statement contains fewer items than the insert list. The number of SELECT values must match the number of INSERT columns."),
    e(121, 15, "The select list for the INSERT statement contains more items than the insert list. The number of SELECT values must match the number of INSERT columns."),
    e(128, 15, "The name \"%.*s\" is not permitted in this context. Valid expressions are constants, constant expressions, and (in some contexts) variables. Column names are not permitted."),
    e(131, 15, "The size (%d) given to the %S_MSG '%.*ls' exceeds the maximum allowed for any data type (%d)."),
    e(134, 15, "The variable name '%.*ls' has already been declared. Variable names must be unique within a query batch or stored procedure."),
    es(137, 15, 2, "Must declare the scalar variable \"%.*ls\"."),
    e(141, 15, "A SELECT statement that assigns a value to a variable must not be combined with data-retrieval operations."),
    e(145, 15, "ORDER BY items must appear in the select list if SELECT DISTINCT is specified."),
    e(148, 15, "Incorrect time syntax in time string '%.*ls' used with WAITFOR."),
    e(155, 15, "'%.*ls' is not a recognized %ls option."),
    e(156, 15, "Incorrect syntax near the keyword '%.*ls'."),
    e(174, 15, "The %.*ls function requires %d argument(s)."),
    e(189, 15, "The %.*ls function requires %d to %d arguments."),
    e(191, 15, "Some part of your SQL statement is nested too deeply. Rewrite the query or break it up into smaller queries."),
    e(195, 15, "'%.*ls' is not a recognized %S_MSG."),
    e(201, 16, "Procedure or function '%.*ls' expects parameter '%.*ls', which was not supplied."),
    e(206, 16, "Operand type clash: %ls is incompatible with %ls"),
    e(207, 16, "Invalid column name '%.*ls'."),
    e(208, 16, "Invalid object name '%.*ls'."),
    e(209, 16, "Ambiguous column name '%.*ls'."),
    e(213, 16, "Column name or number of supplied values does not match table definition."),
    e(217, 16, "Maximum stored procedure, function, trigger, or view nesting level exceeded (limit %d)."),
    e(218, 16, "Could not find the type '%.*ls'. Either it does not exist or you do not have the necessary permission."),
    e(219, 16, "The type '%.*ls' already exists, or you do not have permission to create it."),
    e(220, 16, "Arithmetic overflow error for data type %ls, value = %ls."),
    e(229, 14, "The %ls permission was denied on the object '%.*ls', database '%.*ls', schema '%.*ls'."),
    e(232, 16, "Arithmetic overflow error for type %ls, value = %f."),
    e(235, 16, "Cannot convert a char value to money. The char value has incorrect syntax."),
    e(241, 16, "Conversion failed when converting date and/or time from character string."),
    e(242, 16, "The conversion of a %ls data type to a %ls data type resulted in an out-of-range value."),
    e(243, 16, "Type %.*ls is not a defined system type."),
    e(244, 16, "The conversion of the %ls value '%.*ls' overflowed an %ls column. Use a larger integer column."),
    e(245, 16, "Conversion failed when converting the %ls value '%.*ls' to data type %ls."),
    e(248, 16, "The conversion of the %ls value '%.*ls' overflowed an int column."),
    e(257, 16, "Implicit conversion from data type %ls to %ls is not allowed. Use the CONVERT function to run this query."),
    e(262, 14, "%ls permission denied in database '%.*ls'."),
    e(265, 16, "The column name \"%.*ls\" specified in the %ls operator conflicts with the existing column name in the %ls argument."),
    e(266, 16, "Transaction count after EXECUTE indicates a mismatching number of BEGIN and COMMIT statements. Previous count = %ld, current count = %ld."),
    e(281, 16, "%d is not a valid style number when converting from %ls to %ls."),
    e(289, 16, "Cannot construct data type %ls, some of the arguments have values which are not valid."),
    e(306, 16, "The text, ntext, and image data types cannot be compared or sorted, except when using IS NULL or LIKE operator."),
    e(307, 16, "Index ID %d on table '%.*ls' (specified in the FROM clause) does not exist."),
    e(308, 16, "Index '%.*ls' on table '%.*ls' (specified in the FROM clause) does not exist."),
    e(310, 15, "The value %d specified for the MAXRECURSION option exceeds the allowed maximum of %d."),
    e(334, 16, "The target table '%.*ls' of the DML statement cannot have any enabled triggers if the statement contains an OUTPUT clause without INTO clause."),
    e(402, 16, "The data types %s and %s are incompatible in the %s operator."),
    e(471, 16, "Only one of the three options, SINGLE_BLOB, SINGLE_CLOB or SINGLE_NCLOB, can be specified."),
    e(472, 16, "Either a format file or one of the three options SINGLE_BLOB, SINGLE_CLOB, or SINGLE_NCLOB must be specified."),
    e(491, 16, "A correlation name must be specified for the bulk rowset in the from clause."),
    e(492, 16, "Duplicate column names are not allowed in result sets obtained through OPENQUERY and OPENROWSET. The column name \"%.*ls\" is a duplicate."),
    e(512, 16, "Subquery returned more than 1 value. This is not permitted when the subquery follows =, !=, <, <= , >, >= or when the subquery is used as an expression."),
    es(515, 16, 2, "Cannot insert the value NULL into column '%.*ls', table '%.*ls'; column does not allow nulls. %ls fails."),
    e(517, 16, "Adding a value to a '%ls' column caused an overflow."),
    e(529, 16, "Explicit conversion from data type %ls to %ls is not allowed."),
    e(530, 16, "The statement terminated. The maximum recursion %d has been exhausted before statement completion."),
    e(535, 16, "The %.*ls function resulted in an overflow. The number of dateparts separating two date/time instances is too large. Try to use %.*ls with a less precise datepart."),
    e(536, 16, "Invalid length parameter passed to the %ls function."),
    e(537, 16, "Invalid length parameter passed to the LEFT or SUBSTRING function."),
    e(544, 16, "Cannot insert explicit value for identity column in table '%.*ls' when IDENTITY_INSERT is set to OFF."),
    es(547, 16, 0, "The %ls statement conflicted with the %ls constraint \"%.*ls\". The conflict occurred in database \"%.*ls\", table \"%.*ls\"%ls%.*ls%ls."),
    e(556, 16, "INSERT EXEC failed because the stored procedure altered the schema of the target table."),
    e(574, 16, "%ls statement cannot be used inside a user transaction."),
    e(596, 21, "Cannot continue the execution because the session is in the kill state."),
    e(622, 16, "The filegroup \"%.*ls\" has no files assigned to it. Tables, indexes, text columns, ntext columns, and image columns cannot be populated on this filegroup until a file is added."),
    e(701, 17, "There is insufficient system memory in resource pool '%ls' to run this query."),
    e(823, 24, "The operating system returned error %ls to SQL Server during a %S_MSG at offset %#016I64x in file '%ls'."),
    e(824, 24, "SQL Server detected a logical consistency-based I/O error: %ls. It occurred during a %S_MSG of page %S_PGID in database ID %d at offset %#016I64x in file '%ls'."),
    e(916, 14, "The server principal \"%.*ls\" is not able to access the database \"%.*ls\" under the current security context."),
    e(924, 14, "Database '%.*ls' is already open and can only have one user at a time."),
    e(926, 14, "Database '%.*ls' cannot be opened. It has been marked SUSPECT by recovery. See the SQL Server errorlog for more information."),
    e(945, 14, "Database '%.*ls' cannot be opened due to inaccessible files or insufficient memory or disk space.  See the SQL Server errorlog for details."),
    e(1001, 15, "Line %d: Length or precision specification %d is invalid."),
    e(1002, 15, "Line %d: Specified scale %d is invalid."),
    e(1007, 15, "The %S_MSG '%.*ls' is out of the range for %S_MSG representation (maximum precision 38)."),
    e(1013, 16, "The objects \"%.*ls\" and \"%.*ls\" in the FROM clause have the same exposed names. Use correlation names to distinguish them."),
    e(1023, 15, "Invalid parameter %d specified for %.*ls."),
    e(1087, 15, "Must declare the table variable \"%.*ls\"."),
    e(1088, 16, "Cannot find the object \"%.*ls\" because it does not exist or you do not have permissions."),
    e(1101, 17, "Could not allocate a new page for database '%.*ls' because of insufficient disk space in filegroup '%.*ls'. Create the necessary space by dropping objects in the filegroup, adding additional files to the filegroup, or setting autogrowth on for existing files in the filegroup."),
    e(1105, 17, "Could not allocate space for object '%.*ls'%.*ls in database '%.*ls' because the '%.*ls' filegroup is full due to lack of storage space or database files reaching the maximum allowed size. Note that UNLIMITED files are still limited to 16TB. Create the necessary space by dropping objects in the filegroup, adding additional files to the filegroup, or setting autogrowth on for existing files in the filegroup."),
    e(1205, 13, "Transaction (Process ID %d) was deadlocked on %.*ls resources with another process and has been chosen as the deadlock victim. Rerun the transaction."),
    e(1222, 16, "Lock request time out period exceeded."),
    e(1505, 16, "The CREATE UNIQUE INDEX statement terminated because a duplicate key was found for the object name '%.*ls' and the index name '%.*ls'. The duplicate key value is %ls."),
    e(1701, 16, "Creating or altering table '%.*ls' failed because the minimum row size would be %d, including %d bytes of internal overhead. This exceeds the maximum allowable table row size of %d bytes."),
    e(1702, 16, "CREATE TABLE failed because column '%.*ls' in table '%.*ls' exceeds the maximum of %d columns."),
    e(1750, 16, "Could not create constraint or index. See previous errors."),
    e(1759, 16, "Computed column '%.*ls' in table '%.*ls' is not allowed to be used in another computed-column definition."),
    e(1767, 16, "Foreign key '%.*ls' references invalid table '%.*ls'."),
    e(1779, 16, "Table '%.*ls' already has a primary key defined on it."),
    e(1801, 16, "Database '%.*ls' already exists. Choose a different database name."),
    e(1802, 16, "CREATE DATABASE failed. Some file names listed could not be created. Check related errors."),
    e(1811, 16, "The %S_MSG '%.*ls' could not be found or does not exist."),
    e(1828, 16, "The logical file name \"%.*ls\" is already in use. Choose a different name."),
    e(1902, 16, "Cannot create more than one clustered index on %S_MSG '%.*ls'. Drop the existing clustered index '%.*ls' before creating another."),
    e(1911, 16, "Column name '%.*ls' does not exist in the target table or view."),
    e(1913, 16, "The operation failed because an index or statistics with name '%.*ls' already exists on %S_MSG '%.*ls'."),
    e(1916, 16, "CREATE INDEX options %ls and %ls are mutually exclusive."),
    e(1921, 16, "Invalid filegroup '%.*ls' specified."),
    e(1978, 16, "Column '%.*ls' in table '%.*ls' is of a type that is invalid for use as a key column in an index or statistics."),
    e(2501, 16, "Cannot find a table or object with the name \"%.*ls\". Check the system catalog."),
    e(2520, 16, "Could not find database '%.*ls'. The database either does not exist, or was dropped before a statement tried to use it. Verify if the database exists by querying the sys.databases view."),
    e(2528, 10, "DBCC execution completed. If DBCC printed error messages, contact your system administrator."),
    e(2536, 10, "DBCC results for '%.*ls'."),
    e(2583, 16, "An incorrect number of parameters was given to the DBCC statement."),
    e(2593, 10, "There are %I64d rows in %d pages for object \"%.*ls\"."),
    e(2601, 14, "Cannot insert duplicate key row in object '%.*ls' with unique index '%.*ls'. The duplicate key value is %ls."),
    e(2627, 14, "Violation of %ls constraint '%.*ls'. Cannot insert duplicate key in object '%.*ls'. The duplicate key value is %ls."),
    e(2628, 16, "String or binary data would be truncated in table '%.*ls', column '%.*ls'. Truncated value: '%.*ls'."),
    e(2705, 16, "Column names in each table must be unique. Column name '%.*ls' in table '%.*ls' is specified more than once."),
    e(2714, 16, "There is already an object named '%.*ls' in the database."),
    e(2716, 16, "Column, parameter, or variable #%d: Cannot specify a column width on data type %.*ls."),
    e(2750, 16, "Column or parameter #%d: Specified column precision %d is greater than the maximum precision of %d."),
    e(2751, 16, "Column or parameter #%d: Specified column scale %d is greater than the specified precision of %d."),
    e(2767, 16, "Could not locate statistics '%.*ls' in the system catalogs."),
    e(2775, 16, "The code page %d is not supported by the server."),
    e(2786, 16, "The data type of substitution parameter %d does not match the expected type of the format specification."),
    e(2787, 16, "Invalid format specification: '%.*ls'."),
    e(2812, 16, "Could not find stored procedure '%.*ls'."),
    e(3604, 16, "Duplicate key was ignored."),
    e(3609, 16, "The transaction ended in the trigger. The batch has been aborted."),
    e(3623, 16, "An invalid floating point operation occurred."),
    e(3701, 11, "Cannot drop the %S_MSG '%.*ls', because it does not exist or you do not have permission."),
    e(3729, 16, "Cannot %ls '%.*ls' because it is being referenced by object '%.*ls'."),
    e(3732, 16, "Cannot drop type '%.*ls' because it is being referenced by object '%.*ls'. There may be other objects that reference this type."),
    e(3739, 11, "Cannot %S_MSG the index '%.*ls' because it is not a statistics collection."),
    e(3902, 16, "The COMMIT TRANSACTION request has no corresponding BEGIN TRANSACTION."),
    e(3903, 16, "The ROLLBACK TRANSACTION request has no corresponding BEGIN TRANSACTION."),
    e(3906, 16, "Failed to update database \"%.*ls\" because the database is read-only."),
    e(3930, 16, "The current transaction cannot be committed and cannot support operations that write to the log file. Roll back the transaction."),
    e(3952, 16, "Snapshot isolation transaction failed accessing database '%.*ls' because snapshot isolation is not allowed in this database. Use ALTER DATABASE to allow snapshot isolation."),
    e(3960, 16, "Snapshot isolation transaction aborted due to update conflict. You cannot use snapshot isolation to access table '%.*ls' directly or indirectly in database '%.*ls' to update, delete, or insert the row that has been modified or deleted by another transaction. Retry the transaction or change the isolation level for the update/delete statement."),
    e(3961, 16, "Snapshot isolation transaction failed in database '%.*ls' because the object accessed by the statement has been modified by a DDL statement in another concurrent transaction since the start of this transaction.  It is disallowed because the metadata is not versioned. A concurrent update to metadata can lead to inconsistency if mixed with snapshot isolation."),
    e(3964, 16, "Transaction failed because this DDL statement is not allowed inside a snapshot isolation transaction. Since metadata is not versioned, a metadata change can lead to inconsistency if mixed within snapshot isolation."),
    e(4104, 16, "The multi-part identifier \"%.*ls\" could not be bound."),
    e(4108, 15, "Windowed functions can only appear in the SELECT or ORDER BY clauses."),
    e(4109, 16, "Windowed functions cannot be used in the context of another windowed function or aggregate."),
    e(4121, 16, "Cannot find either column \"%.*ls\" or the user-defined function or aggregate \"%.*ls\", or the name is ambiguous."),
    e(4137, 16, "A format file cannot be specified together with SINGLE_BLOB, SINGLE_CLOB or SINGLE_NCLOB option."),
    e(4145, 15, "An expression of non-boolean type specified in a context where a condition is expected, near '%.*ls'."),
    e(4502, 16, "View or function '%.*ls' has more column names specified than columns defined."),
    e(4506, 16, "Column names in each view or function must be unique. Column name '%.*ls' in view or function '%.*ls' is specified more than once."),
    e(4511, 16, "Create View or Function failed because no column name was specified for column %d."),
    e(4617, 16, "Cannot grant, deny or revoke permissions to or from special roles."),
    e(4624, 16, "Cannot grant, deny, or revoke permissions to sa, dbo, entity owner, information_schema, sys, or yourself."),
    e(4701, 16, "Cannot find the object \"%.*ls\" because it does not exist or you do not have permissions."),
    e(4806, 16, "SINGLE_CLOB requires a double-byte character set (DBCS) (char) input file. The file specified is Unicode."),
    e(4809, 16, "SINGLE_NCLOB requires a UNICODE (widechar) input file. The file specified is not Unicode."),
    e(4819, 16, "Cannot bulk load. The bulk data stream was incorrectly specified as sorted or the data violates a uniqueness constraint imposed by the target table. Sort order incorrect for the following two rows: primary key of first row: %s, primary key of second row: %s."),
    e(4832, 16, "Bulk load: An unexpected end of file was encountered in the data file."),
    e(4860, 16, "Cannot bulk load. The file \"%ls\" does not exist or you don't have file access rights."),
    e(4861, 16, "Cannot bulk load because the file \"%ls\" could not be opened. Operating system error code %ls."),
    e(4863, 16, "Bulk load data conversion error (truncation) for row %d, column %d (%ls)."),
    e(4864, 16, "Bulk load data conversion error (type mismatch or invalid character for the specified codepage) for row %d, column %d (%ls)."),
    e(4865, 16, "Cannot bulk load because the maximum number of errors (%d) was exceeded."),
    e(4866, 16, "The bulk load failed. The column is too long in the data file for row %d, column %d. Verify that the field terminator and row terminator are specified correctly."),
    e(4867, 16, "Bulk load data conversion error (overflow) for row %d, column %d (%ls)."),
    e(4879, 16, "Bulk load failed due to invalid column value in CSV data file %ls in row %d, column %d."),
    e(4917, 16, "Constraint '%.*ls' does not exist."),
    e(5013, 16, "The master and model databases cannot have files added to them. ALTER DATABASE was aborted."),
    e(5011, 14, "User does not have permission to alter database '%.*ls', the database does not exist, or the database is not in a state that allows access checks."),
    e(5009, 16, "One or more files listed in the statement could not be found or could not be initialized."),
    e(5020, 16, "The primary data or log file cannot be removed from a database."),
    e(5031, 16, "Cannot remove the file '%.*ls' because it is the only file in the DEFAULT filegroup."),
    e(5058, 16, "Option '%.*ls' cannot be set in database '%.*ls'."),
    e(5070, 16, "Database state cannot be changed while other users are using the database '%.*ls'"),
    e(5035, 16, "Filegroup '%.*ls' already exists in this database. Specify a different name or remove the conflicting filegroup if it is empty."),
    e(5039, 16, "MODIFY FILE failed. Specified size is less than or equal to current size."),
    e(5041, 16, "MODIFY FILE failed. File '%.*ls' does not exist."),
    e(5042, 16, "The %S_MSG '%.*ls' cannot be removed because it is not empty."),
    e(5043, 16, "The %S_MSG '%.*ls' cannot be found in %ls."),
    e(5044, 10, "The %S_MSG '%.*ls' has been removed."),
    e(5045, 16, "The %S_MSG already has the '%ls' property set."),
    e(5046, 10, "The %S_MSG property '%ls' has been set."),
    e(5050, 16, "Cannot change the properties of empty filegroup '%.*ls'. The filegroup must contain at least one file."),
    e(5051, 16, "Cannot have a filegroup with the name 'DEFAULT'."),
    e(5074, 16, "The %S_MSG '%.*ls' is dependent on %S_MSG '%.*ls'."),
    e(5120, 16, "Unable to open the physical file \"%.*ls\". Operating system error %d: \"%ls\"."),
    e(5123, 16, "CREATE FILE encountered operating system error %ls while attempting to open or create the physical file '%.*ls'."),
    e(5125, 24, "File '%.*ls' appears to have been truncated by the operating system.  Expected size is %I64d KB but actual size is %I64d KB."),
    e(5170, 16, "Cannot create file '%.*ls' because it already exists. Change the file path or the file name, and retry the operation."),
    e(5172, 16, "The header for file '%ls' is not a valid database file header. The %ls property is incorrect."),
    e(5173, 16, "One or more files do not match the primary file of the database. If you are attempting to attach a database, retry the operation with the correct files.  If this is an existing database, the file may be corrupted and should be restored from a backup."),
    e(6102, 14, "User does not have permission to use the KILL statement."),
    e(6104, 16, "Cannot use KILL to kill your own process."),
    e(6106, 16, "Process ID %d is not an active process ID."),
    e(6112, 16, "Distributed transaction with UOW %ls does not exist."),
    e(6120, 16, "Status report cannot be obtained. Rollback operation for Process ID %d is not in progress."),
    e(6401, 16, "Cannot roll back %.*ls. No transaction or savepoint of that name was found."),
    e(6800, 16, "FOR XML AUTO requires at least one table for generating XML tags. Use FOR XML RAW or add a FROM clause with a table name."),
    e(6809, 16, "Unnamed tables cannot be used as XML identifiers as well as unnamed columns cannot be used for attribute names. Name unnamed columns/tables using AS in the SELECT statement."),
    e(6819, 16, "The FOR XML clause is not allowed in a %ls statement."),
    e(6829, 16, "FOR XML EXPLICIT and RAW modes currently do not support addressing binary data as URLs in column '%.*ls'. Remove the column, or use the BINARY BASE64 mode, or create the URL directly using the 'dbobject/TABLE[@PK1=\"V1\"]/@COLUMN' syntax."),
    e(6852, 16, "Attribute-centric column '%.*ls' must not come after a non-attribute-centric sibling in XML hierarchy in FOR XML PATH."),
    e(6864, 16, "Row tag omission (empty row tag name) cannot be used with attribute-centric FOR XML serialization."),
    e(7119, 16, "Attempting to grow LOB beyond maximum allowed size of %I64d bytes."),
    e(7330, 16, "Cannot fetch a row from OLE DB provider \"%ls\" for linked server \"%ls\"."),
    e(7399, 16, "The OLE DB provider \"%ls\" for linked server \"%ls\" reported an error. %ls"),
    e(7919, 16, "Repair statement not processed. Database needs to be in single user mode."),
    e(8004, 16, "The incoming tabular data stream (TDS) remote procedure call (RPC) protocol stream is incorrect. The RPC name is invalid."),
    e(8005, 16, "The incoming tabular data stream (TDS) remote procedure call (RPC) protocol stream is incorrect. Parameter %d: The parameter name is invalid."),
    e(8007, 16, "The incoming tabular data stream (TDS) remote procedure call (RPC) protocol stream is incorrect. Parameter %d (\"%.*ls\"): The chunking format is incorrect for a large object parameter of type 0x%02X."),
    e(8009, 16, "The incoming tabular data stream (TDS) remote procedure call (RPC) protocol stream is incorrect. Parameter %d (\"%.*ls\"): Data type 0x%02X is unknown."),
    e(8011, 16, "The incoming tabular data stream (TDS) remote procedure call (RPC) protocol stream is incorrect. Parameter %d (\"%.*ls\"): Data type 0x%02X (sql_variant) has an invalid length for type-specific metadata."),
    e(8012, 16, "The incoming tabular data stream (TDS) remote procedure call (RPC) protocol stream is incorrect. Parameter %d (\"%.*ls\"): Data type 0x%02X (sql_variant) has an invalid precision or scale for type-specific metadata."),
    e(8014, 16, "The incoming tabular data stream (TDS) remote procedure call (RPC) protocol stream is incorrect. Parameter %d (\"%.*ls\"): Data type 0x%02X (sql_variant) has an invalid type for type-specific metadata."),
    e(8015, 16, "The incoming tabular data stream (TDS) remote procedure call (RPC) protocol stream is incorrect. Parameter %d (\"%.*ls\"): Data type 0x%02X is an untyped NULL but is marked as an output parameter."),
    e(8016, 16, "The incoming tabular data stream (TDS) remote procedure call (RPC) protocol stream is incorrect. Parameter %d (\"%.*ls\"): Data type 0x%02X has an invalid data length or metadata length."),
    e(8017, 16, "The incoming tabular data stream (TDS) remote procedure call (RPC) protocol stream is incorrect. Parameter %d (\"%.*ls\"): Data type 0x%02X has an invalid precision or scale."),
    e(8018, 16, "Invalid parameter %d ('%.*ls'): Data type 0x%02X is a deprecated large object, or LOB, but is marked as output parameter. Deprecated types are not supported as output parameters. Use current large object types instead."),
    e(8023, 16, "The incoming tabular data stream (TDS) remote procedure call (RPC) protocol stream is incorrect. Parameter %d (\"%.*ls\"): The supplied value is not a valid instance of data type %.*ls. Check the source data for invalid values. An example of an invalid value is data of numeric type with scale greater than precision."),
    e(8028, 16, "The incoming tabular data stream (TDS) remote procedure call (RPC) protocol stream is incorrect. Parameter %d (\"%.*ls\"): The supplied length is not valid for data type %.*ls. Check the source data for invalid lengths. An example of an invalid length is data of nchar type with an odd length in bytes."),
    e(8101, 16, "An explicit value for the identity column in table '%.*ls' can only be specified when a column list is used and IDENTITY_INSERT is ON."),
    e(8114, 16, "Error converting data type %ls to %ls."),
    es(8115, 16, 2, "Arithmetic overflow error converting %ls to data type %ls."),
    e(8116, 16, "Argument data type %ls is invalid for argument %d of %ls function."),
    e(8117, 16, "Operand data type %ls is invalid for %ls operator."),
    e(8120, 16, "Column '%.*ls' is invalid in the select list because it is not contained in either an aggregate function or the GROUP BY clause."),
    e(8127, 16, "Column \"%.*ls\" is invalid in the ORDER BY clause because it is not contained in either an aggregate function or the GROUP BY clause."),
    e(8134, 16, "Divide by zero error encountered."),
    e(8144, 16, "Procedure or function %.*ls has too many arguments specified."),
    e(8145, 16, "%.*ls is not a parameter for procedure %.*ls."),
    e(8152, 16, "String or binary data would be truncated."),
    e(8153, 10, "Warning: Null value is eliminated by an aggregate or other SET operation."),
    e(8155, 16, "No column name was specified for column %d of '%.*ls'."),
    e(8156, 16, "The column '%.*ls' was specified multiple times for '%.*ls'."),
    e(8158, 16, "'%.*ls' has more columns than were specified in the column list."),
    e(8167, 16, "The type of column \"%.*ls\" conflicts with the type of other columns specified in the UNPIVOT list."),
    e(8169, 16, "Conversion failed when converting from a character string to uniqueidentifier."),
    e(8170, 16, "Insufficient result space to convert uniqueidentifier value to char."),
    e(8180, 16, "Statement(s) could not be prepared."),
    e(8197, 16, "The object '%.*ls' does not exist or is invalid for this operation."),
    e(8622, 16, "Query processor could not produce a query plan because of the hints defined in this query. Resubmit the query without specifying any hints and without using SET FORCEPLAN."),
    e(8623, 16, "The query processor ran out of internal resources and could not produce a query plan. This is a rare event and only expected for extremely complex queries or queries that reference a very large number of tables or partitions. Please simplify the query. If you believe you have received this message in error, contact Customer Support Services for more information."),
    e(8951, 16, "Table error: table '%.*ls' (ID %d). Data row does not have a matching index row in the index '%.*ls' (ID %d). Possible missing or invalid keys for the index row matching:"),
    e(8952, 16, "Table error: table '%.*ls' (ID %d). Index row in index '%.*ls' (ID %d) does not match any data row. Possible extra or invalid keys for:"),
    e(8955, 16, "Data row (%d:%d:%d) identified by (%ls) with index values '%ls'."),
    e(8956, 16, "Index row (%d:%d:%d) with values (%ls) pointing to the data row identified by (%ls)."),
    e(8958, 10, "%ls is the minimum repair level for the errors found by DBCC %ls (%ls)."),
    e(8989, 10, "%ls found %d allocation errors and %d consistency errors in database '%ls'."),
    e(8990, 10, "%ls found %d allocation errors and %d consistency errors in table '%ls' (object ID %d)."),
    e(9002, 17, "The transaction log for database '%.*ls' is full due to '%ls'."),
    e(9004, 21, "An error occurred while processing the log for database '%.*ls'.  If possible, restore from backup. If a backup is not available, it might be necessary to rebuild the log."),
    e(9807, 16, "The input character string does not follow style %d, either change the input character string or use a different style."),
    e(9810, 16, "The datepart %.*ls is not supported by date function %.*ls for data type %s."),
    e(9812, 16, "The timezone provided to builtin function %.*ls is invalid."),
    e(9829, 16, "STRING_AGG aggregation result exceeded the limit of %d bytes. Use LOB types to avoid result truncation."),
    e(9834, 16, "Invalid bucket width value passed to date_bucket function. Only positive values are allowed."),
    e(10724, 15, "The query hint '%.*ls' passed to the USE HINT clause is not valid."),
    e(10733, 15, "The number of row value expressions in the INSERT statement exceeds the maximum allowed number of %d row values."),
    e(10738, 15, "The number of row value expressions in the INSERT statement exceeds the maximum allowed number of %d row values."),
    e(10760, 16, "Scale argument is not valid. Valid expressions for data type %ls scale argument are integer constants and integer constant expressions."),
    e(11415, 16, "Object '%.*ls' cannot be disabled or enabled. This action applies only to foreign key and check constraints."),
    e(13600, 16, "FOR JSON AUTO requires at least one table for generating JSON objects. Use FOR JSON PATH or add a FROM clause with a table name."),
    e(13601, 16, "Property '%.*ls' cannot be generated in JSON output due to a conflict with another column name or alias. FOR JSON PATH requires that the column expressions are ordered based on the JSON document paths specified in the column aliases."),
    e(13602, 16, "The FOR JSON clause is not allowed in a %ls statement."),
    e(13603, 16, "Property '%.*ls' cannot be generated in JSON output due to invalid character in the column name or alias. Column name or alias that contains '..', starts or ends with '.' is not allowed in query that has FOR JSON clause."),
    e(13605, 16, "Column expressions and data sources without names or aliases cannot be formatted as JSON text using FOR JSON clause. Add alias to the unnamed column or table."),
    e(13607, 16, "JSON path is not properly formatted. Unexpected character '%lc' is found at position %d."),
    e(13608, 16, "Property cannot be found on the specified JSON path."),
    e(13609, 16, "JSON text is not properly formatted. Unexpected character '%lc' is found at position %d."),
    e(13619, 16, "Unsupported JSON path found in argument 2 of JSON_MODIFY."),
    e(13620, 16, "ROOT option and WITHOUT_ARRAY_WRAPPER option cannot be used together in FOR JSON. Remove one of these options."),
    e(13621, 16, "Array cannot be found in the specified JSON path."),
    e(13623, 16, "Scalar value cannot be found in the specified JSON path."),
    e(13624, 16, "Object or array cannot be found in the specified JSON path."),
    e(13625, 16, "String value in the specified JSON path would be truncated."),
    e(15007, 16, "'%s' is not a valid login or you do not have permission."),
    e(15009, 16, "The object '%.*ls' does not exist in database '%.*ls' or is invalid for this operation."),
    e(15010, 16, "The database '%.*ls' does not exist. Supply a valid database name. To see available databases, use sys.databases."),
    e(15023, 16, "User, group, or role '%s' already exists in the current database."),
    e(15025, 16, "The server principal '%s' already exists."),
    e(15063, 16, "The login already has an account under a different user name."),
    e(15099, 16, "The MUST_CHANGE option cannot be used when CHECK_EXPIRATION is OFF."),
    e(15122, 16, "The CHECK_EXPIRATION option cannot be used when CHECK_POLICY is OFF."),
    e(15123, 16, "The configuration option '%.*ls' does not exist, or it may be an advanced option."),
    e(15124, 16, "The configuration option '%.*ls' is not unique."),
    e(15129, 16, "'%d' is not a valid value for configuration option '%.*ls'."),
    e(15138, 16, "The database principal owns a %S_MSG in the database, and cannot be dropped."),
    e(15144, 16, "The role has members. It must be empty before it can be dropped."),
    e(15150, 16, "Cannot %S_MSG the %S_MSG '%.*ls'."),
    e(15151, 16, "Cannot %S_MSG the %S_MSG '%.*ls', because it does not exist or you do not have permission."),
    e(15197, 16, "There is no text for object '%.*ls'."),
    e(15225, 11, "No item by the name of '%.*ls' could be found in the current database '%.*ls', given that @itemtype was input as '%.*ls'."),
    e(15247, 16, "User does not have permission to perform this action."),
    e(15248, 11, "Either the parameter @objname is ambiguous or the claimed @objtype (%.*ls) is wrong."),
    e(15249, 11, "Error: Explicit @objtype '%.*ls' is unrecognized."),
    e(15250, 16, "The database name component of the object qualifier must be the name of the current database."),
    e(15333, 11, "Error: Qualified @oldname references a database other than the current database."),
    e(15335, 11, "Error: The new name '%.*ls' is already in use as a %.*ls name and would cause a duplicate that is not permitted."),
    e(15405, 16, "Cannot use the special principal '%s'."),
    e(15434, 16, "Could not drop login '%s' as the user is currently logged in."),
    e(18456, 14, "Login failed for user '%.*ls'.%.*ls%.*ls"),
    e(33062, 16, "Password validation failed. The password does not meet SQL Server password policy requirements because it is too short. The password must be at least %d characters."),
    e(33063, 16, "Password validation failed. The password does not meet SQL Server password policy requirements because it is too long. The password must be at most %d characters."),
    e(33064, 16, "Password validation failed. The password does not meet SQL Server password policy requirements because it is not complex enough. The password must be at least %d characters long and contain characters from three of the following four sets: Uppercase letters, Lowercase letters, Base 10 digits, and Symbols."),
    e(50000, 16, "%ls"),
];

const fn e(number: i32, severity: u8, template: &'static str) -> ErrorInfo {
    es(number, severity, 1, template)
}

/// A registry entry whose usual state is not 1.
const fn es(number: i32, severity: u8, state: u8, template: &'static str) -> ErrorInfo {
    ErrorInfo {
        number,
        severity,
        state,
        template,
    }
}

/// Looks up a registered message (first entry with that number).
pub fn lookup(number: i32) -> Option<&'static ErrorInfo> {
    REGISTRY.iter().find(|i| i.number == number)
}

/// Substitutes `args` into a SQL Server message template, in order.
///
/// Recognised placeholders: `%s %ls %.*ls %.*s %S_MSG %S_PGID %d %ld %I64d %f %#016I64x %02X`
/// (`%02X`: the caller passes the digits already formatted). Missing
/// arguments become empty strings so a short argument list never panics.
pub fn format_template(template: &str, args: &[&dyn fmt::Display]) -> String {
    let mut out = String::with_capacity(template.len() + 16);
    let mut next = args.iter();
    let bytes = template.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let rest = &template[i + 1..];
            const SPECS: [&str; 15] = [
                "S_MSG", "S_PGID", "#016I64x", "I64d", ".*ls", ".*s", "ls", "lc", "ld", "s", "d",
                "f", "u", "i", "02X",
            ];
            if let Some(spec) = SPECS.iter().find(|s| rest.starts_with(**s)) {
                if let Some(a) = next.next() {
                    out.push_str(&a.to_string());
                }
                i += 1 + spec.len();
                continue;
            }
            if rest.starts_with('%') {
                out.push('%');
                i += 2;
                continue;
            }
        }
        let ch_len = template[i..].chars().next().map_or(1, char::len_utf8);
        out.push_str(&template[i..i + ch_len]);
        i += ch_len;
    }
    out
}

impl SqlError {
    /// A registered error with its template filled from `args`.
    pub fn new(number: i32, args: &[&dyn fmt::Display]) -> SqlError {
        match lookup(number) {
            Some(info) => SqlError {
                number,
                severity: info.severity,
                state: info.state,
                message: format_template(info.template, args),
                line: 0,
                procedure: String::new(),
            },
            None => SqlError::custom(number, 16, 1, format!("Unregistered error {number}")),
        }
    }

    /// An error with explicit text (RAISERROR/THROW, or messages whose text is built elsewhere).
    pub fn custom(number: i32, severity: u8, state: u8, message: impl Into<String>) -> SqlError {
        SqlError {
            number,
            severity,
            state,
            message: message.into(),
            line: 0,
            procedure: String::new(),
        }
    }

    pub fn with_state(mut self, state: u8) -> Self {
        self.state = state;
        self
    }

    /// Sets the line if none was recorded yet (the innermost statement wins).
    pub fn at_line(mut self, line: u32) -> Self {
        if self.line == 0 {
            self.line = line;
        }
        self
    }

    pub fn in_procedure(mut self, name: impl Into<String>) -> Self {
        if self.procedure.is_empty() {
            self.procedure = name.into();
        }
        self
    }

    /// Msg 102: `Incorrect syntax near 'X'.`
    pub fn syntax_near(token: &str) -> SqlError {
        SqlError::new(102, &[&token])
    }

    /// Msg 156: `Incorrect syntax near the keyword 'X'.`
    pub fn syntax_near_keyword(keyword: &str) -> SqlError {
        SqlError::new(156, &[&keyword])
    }

    /// Msg 208: `Invalid object name 'X'.`
    pub fn invalid_object(name: &str) -> SqlError {
        SqlError::new(208, &[&name])
    }

    /// Msg 207: `Invalid column name 'X'.`
    pub fn invalid_column(name: &str) -> SqlError {
        SqlError::new(207, &[&name])
    }

    /// Msg 8134: divide by zero.
    pub fn divide_by_zero() -> SqlError {
        SqlError::new(8134, &[])
    }

    /// Msg 824-style corruption error for a page that failed verification.
    pub fn corrupt_page(detail: &str, page: &str, file: &str) -> SqlError {
        SqlError::corrupt_page_at(detail, page, 0, file)
    }

    /// Msg 824 for a page read from `file` at byte `offset` (printed as SQL Server's
    /// `%#016I64x`, e.g. `0x00000000012000`).
    pub fn corrupt_page_at(detail: &str, page: &str, offset: u64, file: &str) -> SqlError {
        SqlError::custom(
            824,
            24,
            2,
            format!(
                "SQL Server detected a logical consistency-based I/O error: {detail}. It occurred during a read of page {page} in database ID 5 at offset {offset:#016x} in file '{file}'.  Additional messages in the SQL Server error log or operating system error log may provide more detail. This is a severe error condition that threatens database integrity and must be corrected immediately."
            ),
        )
    }

    /// Operating-system I/O failure (Msg 823), e.g. a full disk or a short read.
    pub fn io(op: &str, file: &str, err: &std::io::Error) -> SqlError {
        SqlError::custom(
            823,
            24,
            2,
            format!(
                "The operating system returned error {err} to SQL Server during a {op} in file '{file}'. Additional messages in the SQL Server error log and operating system error log may provide more detail."
            ),
        )
    }

    /// Internal invariant failure surfaced as an error instead of a panic.
    pub fn internal(msg: impl Into<String>) -> SqlError {
        SqlError::custom(
            8630,
            16,
            1,
            format!("Internal Query Processor Error: {}", msg.into()),
        )
    }

    /// Feature not yet supported, reported honestly rather than faked.
    pub fn unsupported(what: impl fmt::Display) -> SqlError {
        SqlError::custom(40517, 16, 1, format!("Keyword or statement option '{what}' is not supported in this version of latchkey."))
    }

    /// Severity 20+ errors terminate the connection in SQL Server.
    pub fn is_fatal(&self) -> bool {
        self.severity >= 20
    }
}

impl fmt::Display for SqlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Msg {}, Level {}, State {}",
            self.number, self.severity, self.state
        )?;
        if !self.procedure.is_empty() {
            write!(f, ", Procedure {}", self.procedure)?;
        }
        write!(f, ", Line {}\n{}", self.line, self.message)
    }
}

impl std::error::Error for SqlError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_sql_server() {
        let e = SqlError::syntax_near("FROM").at_line(3);
        assert_eq!(
            e.to_string(),
            "Msg 102, Level 15, State 1, Line 3\nIncorrect syntax near 'FROM'."
        );
    }

    #[test]
    fn template_substitution_in_order() {
        let e = SqlError::new(245, &[&"varchar", &"abc", &"int"]);
        assert_eq!(
            e.message,
            "Conversion failed when converting the varchar value 'abc' to data type int."
        );
        assert_eq!(e.severity, 16);
    }

    #[test]
    fn registry_sorted_enough_and_unknown_numbers_do_not_panic() {
        assert!(lookup(8134).is_some());
        let e = SqlError::new(999_999, &[]);
        assert_eq!(e.number, 999_999);
    }
}
