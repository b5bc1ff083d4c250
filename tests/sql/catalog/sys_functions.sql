-- HASHBYTES, OBJECTPROPERTY(EX), INDEXPROPERTY, COL_NAME/COL_LENGTH, IDENT_*, principal ids,
-- FULLTEXTSERVICEPROPERTY and empty catalog views of absent features.
select hashbytes('MD5', 'abc') as md5, hashbytes('SHA1', 'abc') as sha1
select hashbytes('SHA2_256', 'abc') as sha256
select hashbytes('MD5', N'abc') as md5_unicode, hashbytes('sha2_512', '') as sha512_empty
select hashbytes('MD5', null) as n, hashbytes('NOPE', 'abc') as bad
GO
create table t (a int identity(5, 2) primary key, b varchar(10))
create index ix on t(b)
GO
create view v as select a from t
GO
select objectproperty(object_id('t'), 'IsUserTable') as is_table, objectproperty(object_id('t'), 'TableHasIdentity') as has_ident,
       objectproperty(object_id('t'), 'TableHasPrimaryKey') as has_pk, objectproperty(object_id('v'), 'IsView') as is_view,
       objectproperty(object_id('t'), 'NoSuchProperty') as unknown, objectproperty(-1, 'IsTable') as no_object
select objectpropertyex(object_id('t'), 'BaseType') as base_type
select indexproperty(object_id('t'), 'ix', 'IsClustered') as is_clustered, indexproperty(object_id('t'), 'ix', 'IsUnique') as is_unique,
       indexproperty(object_id('t'), 'ix', 'IndexID') as index_id, indexproperty(object_id('t'), 'nope', 'IndexID') as missing
select col_name(object_id('t'), 2) as col2, col_name(object_id('t'), 3) as col3, col_length('t', 'b') as len_b, col_length('t', 'zz') as len_zz
select object_schema_name(object_id('t')) as sch, ident_seed('t') as seed, ident_incr('t') as incr
select user_id() as uid, user_id('guest') as guest, database_principal_id() as dp, suser_id() as sid
select fulltextserviceproperty('IsFulltextInstalled') as fts
GO
select count(*) as n from sys.change_tracking_tables
select count(*) as n from sys.availability_groups
select * from sys.dm_hadr_cluster
GO
-- TYPE_NAME takes a user_type_id: sysname is 256, user-defined types by their id
CREATE TYPE dbo.phone_number FROM varchar(20) NOT NULL
GO
SELECT TYPE_NAME(56) AS int_name, TYPE_NAME(231) AS nvarchar_name, TYPE_NAME(256) AS sysname_name,
       TYPE_NAME(TYPE_ID('dbo.phone_number')) AS user_name, TYPE_NAME(9999) AS missing,
       TYPE_NAME(NULL) AS null_arg
DROP TYPE dbo.phone_number
GO
