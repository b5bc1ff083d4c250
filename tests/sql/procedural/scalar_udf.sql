CREATE FUNCTION dbo.add_tax (@amount decimal(10,2), @rate decimal(4,2) = 0.2)
RETURNS decimal(10,2)
AS
BEGIN
    DECLARE @r decimal(10,2)
    SET @r = @amount * (1 + @rate)
    RETURN @r
END
GO
CREATE FUNCTION dbo.fact (@n int) RETURNS bigint
AS
BEGIN
    IF @n <= 1 RETURN 1
    RETURN @n * dbo.fact(@n - 1)
END
GO
SELECT dbo.add_tax(100, 0.1) AS with_tax, dbo.fact(10) AS f10
GO
CREATE TABLE prices (p decimal(10,2))
INSERT prices VALUES (10), (20)
SELECT p, dbo.add_tax(p, 0.5) AS taxed FROM prices ORDER BY p
GO
DECLARE @x bigint = dbo.fact(5)
PRINT @x
SELECT COUNT(*) AS modules_with_text FROM sys.sql_modules WHERE definition LIKE '%RETURNS bigint%'
GO
CREATE FUNCTION dbo.div0 (@a int) RETURNS int AS BEGIN RETURN @a / 0 END
GO
SELECT dbo.div0(1) AS boom
PRINT 'after'
GO
