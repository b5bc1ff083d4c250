-- Regression (TPC-H q20 ran past the benchmark's timeout): an IN subquery whose WHERE holds a
-- scalar subquery correlated with the IN subquery's own table was not unnested, because that
-- nested subquery's parameters were taken for outer references; the IN was re-evaluated per
-- outer row. Now the IN becomes a semi join and the nested subquery stays with its table.
CREATE TABLE s_t (s_key int PRIMARY KEY, s_name varchar(10))
CREATE TABLE ps_t (ps_part int, ps_supp int, ps_avail int, PRIMARY KEY (ps_part, ps_supp))
CREATE TABLE l_t (l_id int PRIMARY KEY, l_part int, l_supp int, l_qty int)
INSERT INTO s_t VALUES (1, 'one'), (2, 'two'), (3, 'three')
INSERT INTO ps_t VALUES (100, 1, 10), (100, 2, 3), (200, 3, 50)
INSERT INTO l_t VALUES (1, 100, 1, 4), (2, 100, 1, 4), (3, 100, 2, 8), (4, 200, 3, 2)
GO
SET SHOWPLAN_TEXT ON
GO
SELECT s_name FROM s_t
WHERE s_key IN (SELECT ps_supp FROM ps_t
                WHERE ps_avail > (SELECT 0.5 * SUM(l_qty) FROM l_t
                                  WHERE l_part = ps_part AND l_supp = ps_supp))
GO
SET SHOWPLAN_TEXT OFF
GO
SELECT s_name FROM s_t
WHERE s_key IN (SELECT ps_supp FROM ps_t
                WHERE ps_avail > (SELECT 0.5 * SUM(l_qty) FROM l_t
                                  WHERE l_part = ps_part AND l_supp = ps_supp))
ORDER BY s_name
GO
