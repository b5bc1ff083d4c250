-- seed 001 line 261
Select ID
from tbl_1
WHERE ID2 < 1
ORDER BY ID;
