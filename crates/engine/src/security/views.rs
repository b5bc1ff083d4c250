//! sys.server_principals, sys.sql_logins, sys.database_principals,
//! sys.database_role_members, sys.database_permissions, and the principal functions.
