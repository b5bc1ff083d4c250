-- Rule ExtractCommonConjuncts: a conjunct repeated in every arm of an OR is factored out of it,
-- so TPC-H q19's join predicate (p_partkey = l_partkey inside each arm) becomes a hash join key
-- instead of a nested loops cross join filtered by the whole OR; a single-table conjunct common
-- to every arm (l_mode = 'AIR') filters its table's scan. With the rule off
-- (OPTION (QUERYRULEOFF ExtractCommonConjuncts)) the plan is the nested loops one and the
-- result is the same. An arm made only of common conjuncts absorbs the OR (A OR (A AND B) = A);
-- NULLs: the factored form keeps three-valued logic; a RAND() call is never factored.
CREATE TABLE part_t (p_key int PRIMARY KEY, p_brand varchar(10), p_size int)
CREATE TABLE line_t (l_id int PRIMARY KEY, l_key int, l_qty int, l_mode varchar(10))
INSERT INTO part_t VALUES (1, 'B1', 3), (2, 'B2', 8), (3, 'B1', 20), (4, NULL, 5)
INSERT INTO line_t VALUES (10, 1, 5, 'AIR'), (11, 1, 50, 'AIR'), (12, 2, 15, 'AIR'),
    (13, 2, 15, 'SHIP'), (14, 3, 5, 'AIR'), (15, 4, 5, 'AIR'), (16, NULL, 5, 'AIR')
GO
SET SHOWPLAN_TEXT ON
GO
SELECT l_id FROM line_t, part_t
WHERE (p_key = l_key AND p_brand = 'B1' AND l_qty < 10 AND l_mode = 'AIR')
   OR (p_key = l_key AND p_brand = 'B2' AND l_qty BETWEEN 10 AND 20 AND l_mode = 'AIR')
GO
SELECT l_id FROM line_t, part_t
WHERE (p_key = l_key AND p_brand = 'B1' AND l_qty < 10 AND l_mode = 'AIR')
   OR (p_key = l_key AND p_brand = 'B2' AND l_qty BETWEEN 10 AND 20 AND l_mode = 'AIR')
OPTION (QUERYRULEOFF ExtractCommonConjuncts)
GO
SELECT l_id FROM line_t WHERE l_mode = 'AIR' OR (l_mode = 'AIR' AND l_qty > 10)
GO
SELECT l_id FROM line_t WHERE (RAND() < 2 AND l_qty = 5) OR (RAND() < 2 AND l_qty = 15)
GO
SET SHOWPLAN_TEXT OFF
GO
SELECT l_id FROM line_t, part_t
WHERE (p_key = l_key AND p_brand = 'B1' AND l_qty < 10 AND l_mode = 'AIR')
   OR (p_key = l_key AND p_brand = 'B2' AND l_qty BETWEEN 10 AND 20 AND l_mode = 'AIR')
ORDER BY l_id
GO
SELECT l_id FROM line_t, part_t
WHERE (p_key = l_key AND p_brand = 'B1' AND l_qty < 10 AND l_mode = 'AIR')
   OR (p_key = l_key AND p_brand = 'B2' AND l_qty BETWEEN 10 AND 20 AND l_mode = 'AIR')
ORDER BY l_id
OPTION (QUERYRULEOFF ExtractCommonConjuncts)
GO
-- p_brand NULL (part 4): neither arm is TRUE, with or without the rule
SELECT l_id FROM line_t, part_t
WHERE (p_key = l_key AND p_brand = 'B1') OR (p_key = l_key AND p_brand <> 'B1')
ORDER BY l_id
GO
SELECT l_id FROM line_t WHERE l_mode = 'AIR' OR (l_mode = 'AIR' AND l_qty > 10) ORDER BY l_id
GO
