-- CREATE TYPE ... FROM (alias types), their use in columns and variables, DROP TYPE.
create type dbo.phone from varchar(12) not null
GO
create type phone from int
GO
create type ssn from char(11)
GO
create table people (id int, p phone, s ssn)
GO
insert into people values (1, '555-1234', '123-45-6789')
GO
insert into people (id, s) values (2, '000-00-0000')
GO
declare @x phone = '555-9999'
select @x as x, datalength(@x) as len
GO
select name, is_user_defined, is_nullable, max_length from sys.types where is_user_defined = 1 order by name
GO
select case when type_id('phone') > 256 then 'user' else 'system' end as kind, type_id('int') as int_id, type_id('no_such_type') as missing
GO
drop type phone
GO
drop table people
drop type phone
drop type phone
GO
drop type if exists phone
drop type ssn
select count(*) as user_types from sys.types where is_user_defined = 1
GO
