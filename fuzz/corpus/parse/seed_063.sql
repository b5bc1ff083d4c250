-- seed 003 line 61 (repaired: first and last lines were lost)
CREATE PARTITION SCHEME [HashPartitionScheme24]
AS PARTITION [HashPartitionFunc24]
ALL TO ([PRIMARY])
