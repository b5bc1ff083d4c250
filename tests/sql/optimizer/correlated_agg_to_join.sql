-- Rule CorrelatedAggToJoin: a WHERE conjunct reading a correlated scalar aggregate subquery
-- (TPC-H q2, q17, q20) becomes a left outer join with the aggregate grouped by the correlation
-- key, instead of re-running the subquery per outer row. Outer rows whose subquery aggregates
-- no rows read NULL (as the subquery would), so ISNULL((SELECT SUM ...), 0) still sees 0;
-- a NULL outer key matches no group. COUNT (0 over no rows, not NULL) and a correlation that
-- is not an equality are left as subqueries. With QUERYRULEOFF the results are the same.
CREATE TABLE o_t (id int PRIMARY KEY, k int, x int)
CREATE TABLE i_t (id int PRIMARY KEY, k int, q int)
INSERT INTO o_t VALUES (1, 1, 2), (2, 1, 9), (3, 2, 1), (4, 3, 0), (5, NULL, 0), (6, 4, 5)
INSERT INTO i_t VALUES (10, 1, 4), (11, 1, 6), (12, 2, 2), (13, 2, NULL), (14, NULL, 7), (15, 4, NULL)
GO
SET SHOWPLAN_TEXT ON
GO
SELECT id FROM o_t WHERE x < (SELECT 0.5 * AVG(q) FROM i_t WHERE i_t.k = o_t.k)
GO
SELECT id FROM o_t WHERE x < (SELECT 0.5 * AVG(q) FROM i_t WHERE i_t.k = o_t.k)
OPTION (QUERYRULEOFF CorrelatedAggToJoin)
GO
SELECT id FROM o_t WHERE x >= (SELECT COUNT(*) FROM i_t WHERE i_t.k = o_t.k)
GO
SELECT id FROM o_t WHERE x > (SELECT MAX(q) FROM i_t WHERE i_t.k < o_t.k)
GO
SET SHOWPLAN_TEXT OFF
GO
SELECT id FROM o_t WHERE x < (SELECT 0.5 * AVG(q) FROM i_t WHERE i_t.k = o_t.k) ORDER BY id
GO
SELECT id FROM o_t WHERE x < (SELECT 0.5 * AVG(q) FROM i_t WHERE i_t.k = o_t.k) ORDER BY id
OPTION (QUERYRULEOFF CorrelatedAggToJoin)
GO
-- no rows for k 3 and NULL, only NULL q for k 4: ISNULL turns their NULL sum into 0
SELECT id FROM o_t WHERE x >= ISNULL((SELECT SUM(q) FROM i_t WHERE i_t.k = o_t.k), 0) ORDER BY id
GO
SELECT id FROM o_t WHERE x >= ISNULL((SELECT SUM(q) FROM i_t WHERE i_t.k = o_t.k), 0) ORDER BY id
OPTION (QUERYRULEOFF CorrelatedAggToJoin)
GO
SELECT id FROM o_t WHERE x >= (SELECT COUNT(*) FROM i_t WHERE i_t.k = o_t.k) ORDER BY id
GO
-- two correlated subqueries in one WHERE, a filter inside the subquery
SELECT id FROM o_t
WHERE x <= (SELECT MAX(q) FROM i_t WHERE i_t.k = o_t.k AND q > 3)
  AND x >= (SELECT MIN(q) FROM i_t WHERE i_t.k = o_t.k) - 2
ORDER BY id
GO
-- the outer keys come from one relation of the outer join tree that the WHERE filters alone
-- (TPC-H q17's part): the grouped input is semi-joined with that relation's filtered rows,
-- so only the keys an outer row can read are grouped (a semi join under the aggregate)
CREATE TABLE p_t (pk int PRIMARY KEY, brand varchar(10))
INSERT INTO p_t VALUES (1, 'a'), (2, 'b'), (3, 'a'), (4, 'b')
GO
SET SHOWPLAN_TEXT ON
GO
SELECT o_t.id FROM o_t, p_t
WHERE p_t.pk = o_t.k AND p_t.brand = 'a' AND o_t.x < (SELECT 2 * AVG(q) FROM i_t WHERE i_t.k = p_t.pk)
GO
SET SHOWPLAN_TEXT OFF
GO
SELECT o_t.id FROM o_t, p_t
WHERE p_t.pk = o_t.k AND p_t.brand = 'a' AND o_t.x < (SELECT 2 * AVG(q) FROM i_t WHERE i_t.k = p_t.pk)
ORDER BY o_t.id
GO
SELECT o_t.id FROM o_t, p_t
WHERE p_t.pk = o_t.k AND p_t.brand = 'a' AND o_t.x < (SELECT 2 * AVG(q) FROM i_t WHERE i_t.k = p_t.pk)
ORDER BY o_t.id
OPTION (QUERYRULEOFF CorrelatedAggToJoin)
GO
-- brand 'b': k 2 (q 2 and NULL) and k 4 (only NULL q: no row qualifies)
SELECT o_t.id FROM o_t, p_t
WHERE p_t.pk = o_t.k AND p_t.brand = 'b' AND o_t.x <= (SELECT MAX(q) FROM i_t WHERE i_t.k = p_t.pk)
ORDER BY o_t.id
GO
SELECT o_t.id FROM o_t, p_t
WHERE p_t.pk = o_t.k AND p_t.brand = 'b' AND o_t.x <= (SELECT MAX(q) FROM i_t WHERE i_t.k = p_t.pk)
ORDER BY o_t.id
OPTION (QUERYRULEOFF CorrelatedAggToJoin)
GO
