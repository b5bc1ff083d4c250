CREATE SEQUENCE dbo.sq AS int START WITH 10 INCREMENT BY 5 MINVALUE 0 MAXVALUE 40 CYCLE CACHE 3
GO
DECLARE @first bigint, @last bigint
EXEC sp_sequence_get_range @sequence_name = N'dbo.sq', @range_size = 3, @range_first_value = @first OUTPUT, @range_last_value = @last OUTPUT
SELECT @first AS first_value, @last AS last_value
EXEC sp_sequence_get_range N'dbo.sq', 2, @first OUTPUT
SELECT @first AS next_first
EXEC sp_sequence_get_range N'dbo.sq', 2, @first OUTPUT
SELECT @first AS before_cycle
EXEC sp_sequence_get_range N'dbo.sq', 1, @first OUTPUT
SELECT @first AS wrapped_to_minvalue
ALTER SEQUENCE dbo.sq RESTART WITH 7 INCREMENT BY 2
EXEC sp_sequence_get_range N'dbo.sq', 2, @first OUTPUT, @last OUTPUT
SELECT @first AS after_restart, @last AS restart_last
GO
CREATE SEQUENCE dbo.nc AS tinyint START WITH 254 NO CYCLE
GO
DECLARE @f bigint
EXEC sp_sequence_get_range N'dbo.nc', 2, @f OUTPUT
SELECT @f AS f
EXEC sp_sequence_get_range N'dbo.nc', 1, @f OUTPUT
GO
DROP SEQUENCE IF EXISTS dbo.nc
DROP SEQUENCE IF EXISTS dbo.nc
SELECT COUNT(*) AS seqs FROM sys.sequences
GO
