-- sys.check_constraints, sys.default_constraints, sys.computed_columns, sys.partitions,
-- sys.dm_os_wait_stats (+ DBCC SQLPERF CLEAR), sys.dm_exec_sessions.
create database cat_views
GO
use cat_views
GO
create table t (a int primary key, b int constraint ck_b check (b > 0), c int constraint df_c default 5, d as a + b persisted)
create index ix on t(b)
create table h (x int, y int default 1)
insert into t (a, b) values (1, 2), (2, 3)
insert into h (x) values (7)
GO
select name, type, type_desc, object_name(parent_object_id) as parent, definition, is_disabled from sys.check_constraints
select object_name(parent_object_id) as parent, parent_column_id, definition, is_system_named from sys.default_constraints order by parent
select object_name(object_id) as t, name, column_id, definition, is_persisted from sys.computed_columns
select object_name(object_id) as t, index_id, partition_number, rows, data_compression_desc from sys.partitions order by t, index_id
GO
DBCC SQLPERF('sys.dm_os_wait_stats', CLEAR)
GO
select count(*) as wait_types, sum(waiting_tasks_count) as waits from sys.dm_os_wait_stats
select count(*) as me from sys.dm_exec_sessions where session_id = @@spid and database_id = db_id()
GO
select file_id, type, type_desc, name, state_desc, case when size > 0 then 1 else 0 end as has_pages from sys.database_files order by file_id
select file_id, name from sys.master_files where database_id = db_id() order by file_id
GO
create view v1 as select a from t with check option
GO
select name, type, with_check_option from sys.all_views
select name, type, type_desc, is_default from sys.filegroups
select count(*) as dbs, count(mirroring_guid) as mirrored from sys.database_mirroring
GO
select name, type, type_desc, is_ms_shipped from sys.system_objects where name in ('objects', 'partitions', 'no_such_view') order by name
GO
use master
GO
drop database cat_views
GO
create schema extra
GO
select catalog_name, schema_name, schema_owner, default_character_set_name from information_schema.schemata where schema_name in ('dbo', 'extra', 'sys') order by schema_name
GO
drop schema extra
GO
