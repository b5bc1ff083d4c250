-- restart
-- Logins, users, roles and permissions as the (sysadmin) command line sees them; they
-- survive a restart. Non-sysadmin sessions: crates/engine/tests/security.rs.
CREATE LOGIN app_login WITH PASSWORD = 'Str0ng!Passw0rd', DEFAULT_DATABASE = master;
GO
CREATE LOGIN APP_LOGIN WITH PASSWORD = 'Str0ng!Passw0rd';
GO
CREATE LOGIN weak WITH PASSWORD = 'abc';
GO
CREATE LOGIN weak WITH PASSWORD = 'abcdefghij';
GO
CREATE LOGIN weak WITH PASSWORD = 'abc', CHECK_POLICY = OFF;
GO
CREATE LOGIN exp WITH PASSWORD = 'Str0ng!Passw0rd', CHECK_POLICY = OFF, CHECK_EXPIRATION = ON;
GO
CREATE LOGIN win FROM WINDOWS;
GO
ALTER LOGIN nobody DISABLE;
GO
DROP LOGIN nobody;
GO
DROP LOGIN sa;
GO
ALTER LOGIN weak DISABLE;
GO
SELECT name, type, type_desc, is_disabled, default_database_name
FROM sys.server_principals WHERE type = 'S' ORDER BY principal_id;
SELECT name, is_policy_checked, DATALENGTH(password_hash) AS hash_bytes,
       PWDCOMPARE('Str0ng!Passw0rd', password_hash) AS matches
FROM sys.sql_logins ORDER BY name;
GO
ALTER SERVER ROLE sysadmin ADD MEMBER app_login;
SELECT IS_SRVROLEMEMBER('sysadmin', 'app_login') AS app_is_sysadmin,
       IS_SRVROLEMEMBER('sysadmin', 'weak') AS weak_is_sysadmin,
       IS_SRVROLEMEMBER('sysadmin', 'nobody') AS nobody;
GO
ALTER SERVER ROLE sysadmin ADD MEMBER sa;
GO
CREATE DATABASE sales;
GO
USE sales;
CREATE TABLE dbo.orders (id int);
CREATE USER app FOR LOGIN app_login WITH DEFAULT_SCHEMA = dbo;
CREATE USER ghost WITHOUT LOGIN;
CREATE ROLE readers;
ALTER ROLE readers ADD MEMBER app;
GRANT SELECT, INSERT ON OBJECT::dbo.orders TO readers;
DENY DELETE ON dbo.orders TO ghost;
GRANT EXECUTE ON SCHEMA::dbo TO app WITH GRANT OPTION;
GO
CREATE USER app2 FOR LOGIN app_login;
GO
CREATE USER nologin FOR LOGIN nobody;
GO
CREATE USER app;
GO
GRANT SELECT ON dbo.orders TO dbo;
GO
GRANT SELECT ON dbo.orders TO db_owner;
GO
GRANT SELECT ON dbo.nothing TO app;
GO
GRANT SELECT ON dbo.orders TO nobody;
GO
GRANT SELECT ON dbo.orders (id) TO app;
GO
DENY VIEW DEFINITION TO app;
GO
DROP ROLE readers;
GO
DROP USER dbo;
GO
DROP USER nobody;
GO
-- restart
USE sales;
SELECT name, type, type_desc, default_schema_name, authentication_type_desc
FROM sys.database_principals WHERE principal_id BETWEEN 5 AND 16383 ORDER BY principal_id;
SELECT USER_NAME(m.role_principal_id) AS role_name, USER_NAME(m.member_principal_id) AS member
FROM sys.database_role_members m ORDER BY 1, 2;
SELECT class_desc, OBJECT_NAME(major_id) AS object_name, USER_NAME(grantee_principal_id) AS grantee,
       type, permission_name, state, state_desc
FROM sys.database_permissions ORDER BY grantee, permission_name;
SELECT USER_NAME() AS me, USER_ID('app') AS app_id, DATABASE_PRINCIPAL_ID('readers') AS readers_id,
       IS_MEMBER('db_owner') AS owner, SUSER_ID('app_login') AS login_id;
ALTER USER ghost WITH NAME = phantom, DEFAULT_SCHEMA = sales_schema;
ALTER ROLE readers WITH NAME = order_readers;
CREATE ROLE auditors AUTHORIZATION app;
SELECT name, default_schema_name, owning_principal_id
FROM sys.database_principals WHERE principal_id BETWEEN 5 AND 16383 ORDER BY principal_id;
GO
DROP USER app;
GO
ALTER ROLE order_readers WITH NAME = readers;
DROP ROLE auditors;
REVOKE SELECT ON dbo.orders FROM readers;
SELECT COUNT(*) AS permission_rows FROM sys.database_permissions;
ALTER ROLE readers DROP MEMBER app;
DROP ROLE readers;
DROP USER app;
DROP USER phantom;
USE master;
DROP LOGIN weak;
SELECT name FROM sys.server_principals WHERE type = 'S' ORDER BY principal_id;
GO
