-- seed 003 line 57 (repaired: "AS RANGE LEFT" was lost)
CREATE PARTITION FUNCTION [HashPartitionFunc24](bigint)
AS RANGE LEFT
FOR VALUES (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24)
