-- seed 000 line 34
Select ID
from tbl_1
WHERE ID2 < 1
ORDER BY ID;
