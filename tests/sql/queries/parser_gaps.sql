-- Parenthesised expressions that start with a scalar subquery, TOP (subquery), leading-dot names,
-- column-level constraints with column lists, DROP FUNCTION f(), PRECISION as a column name.
create table t1 (a int)
create table t2 (a int)
insert into t2 values (1), (2)
GO
IF ((select count(*) from t1) = 0 and (select count(*) from t2) > 0) select 'yes' as r else select 'no' as r
select case when ((select max(a) from t2) + 1) * 2 = 6 then 'six' end as r
select ((select 1) union (select 1)) as one
GO
select top (select count(*) - 1 from t2) a from t2 order by a
GO
select * from ..t2 order by a
GO
create table tc (a int not null, b int constraint pk_tc primary key (a), c int foreign key (c) references tc(a))
select name, type_desc from sys.objects where parent_object_id = object_id('tc') and type = 'PK'
GO
create function f() returns int as begin return 7 end
GO
select dbo.f() as f
drop function f()
GO
select name, precision, scale from sys.types where name = 'decimal'
GO
