-- ALTER COLUMN on a table with rows (rows converted), ADD IDENTITY / PRIMARY KEY on a table with rows.
create table t2 (a varchar(2), b int)
insert into t2 values ('De', 1), ('D', 2), (null, 3)
GO
alter table t2 alter column a char
GO
alter table t2 alter column a char(2)
select a, datalength(a) as len, b from t2 order by b
GO
alter table t2 alter column a int
GO
alter table t2 alter column b varchar(5) not null
select a, b from t2 order by b
GO
alter table t2 alter column a varchar(5) not null
GO
alter table t2 add id int identity(10, 5) primary key
GO
insert into t2 (a, b) values ('x', '9')
select a, b, id from t2 order by id
select ident_current('t2') as cur, ident_seed('t2') as seed, ident_incr('t2') as incr
GO
create index ix on t2(b)
GO
alter table t2 alter column b int
GO
create table t3 (v varchar(10))
insert into t3 values ('1'), ('22'), ('333')
alter table t3 alter column v bigint
select v + 1 as v1 from t3 order by v
GO
create table t4 (c int)
insert into t4 values (1), (2), (3)
alter table t4 add u int unique
GO
select count(*) as n from t4
GO
