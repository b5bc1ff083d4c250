-- SemiJoinPushDown: an IN / EXISTS / NOT EXISTS semi (anti) join whose condition reads one
-- relation of an inner-join tree must be planned on that relation, below the inner joins
-- (TPC-H Q18's shape: the orders are reduced to the keys whose lines sum past a bound before
-- the customers and lines are joined), unless QUERYRULEOFF SemiJoinPushDown or FORCE ORDER;
-- it never goes into the null-supplying side of a LEFT JOIN. Same rows either way.
CREATE TABLE cust (c_id int NOT NULL PRIMARY KEY, c_name varchar(20) NOT NULL)
CREATE TABLE ord (o_id int NOT NULL PRIMARY KEY, o_cid int NOT NULL, o_total int NOT NULL)
CREATE TABLE line (l_oid int NOT NULL, l_no int NOT NULL, qty int NOT NULL, PRIMARY KEY (l_oid, l_no))
INSERT INTO cust SELECT value, CONCAT('cust', value) FROM GENERATE_SERIES(1, 300)
INSERT INTO ord SELECT value, value % 300 + 1, value * 7 % 1000 FROM GENERATE_SERIES(1, 3000)
INSERT INTO line SELECT o.value, n.value, CASE WHEN o.value % 500 = 0 THEN 50 ELSE (o.value + n.value) % 10 + 1 END
  FROM GENERATE_SERIES(1, 3000) o CROSS JOIN GENERATE_SERIES(1, 4) n
GO
SET SHOWPLAN_TEXT ON
GO
SELECT c.c_name, o.o_id, SUM(l.qty) AS q FROM cust c, ord o, line l
WHERE o.o_id IN (SELECT l_oid FROM line GROUP BY l_oid HAVING SUM(qty) > 150)
  AND c.c_id = o.o_cid AND o.o_id = l.l_oid
GROUP BY c.c_name, o.o_id
GO
SELECT c.c_name, o.o_id, SUM(l.qty) AS q FROM cust c, ord o, line l
WHERE o.o_id IN (SELECT l_oid FROM line GROUP BY l_oid HAVING SUM(qty) > 150)
  AND c.c_id = o.o_cid AND o.o_id = l.l_oid
GROUP BY c.c_name, o.o_id OPTION (QUERYRULEOFF SemiJoinPushDown)
GO
-- NOT EXISTS on the customer: the anti join goes onto cust
SELECT COUNT(*) FROM ord o JOIN cust c ON c.c_id = o.o_cid
WHERE NOT EXISTS (SELECT 1 FROM line l WHERE l.l_oid = c.c_id AND l.qty > 9)
GO
-- FORCE ORDER keeps the written order: the anti join stays over the join
SELECT COUNT(*) FROM ord o JOIN cust c ON c.c_id = o.o_cid
WHERE NOT EXISTS (SELECT 1 FROM line l WHERE l.l_oid = c.c_id AND l.qty > 9) OPTION (FORCE ORDER)
GO
-- the customer is the null-supplying side of the LEFT JOIN: the semi join stays above it
SELECT COUNT(*) FROM ord o LEFT JOIN cust c ON c.c_id = o.o_cid AND c.c_id < 100
WHERE NOT EXISTS (SELECT 1 FROM line l WHERE l.l_oid = c.c_id AND l.qty > 9)
GO
-- the EXISTS on line keeps nearly every line; one customer's orders select a few: it stays
-- above the joins (costed against the moved plan)
SELECT COUNT(*) FROM line l JOIN ord o ON o.o_id = l.l_oid JOIN cust c ON c.c_id = o.o_cid
WHERE c.c_name = 'cust7' AND EXISTS (SELECT 1 FROM line l2 WHERE l2.qty = l.qty AND l2.l_oid <> l.l_oid)
GO
SET SHOWPLAN_TEXT OFF
GO
SELECT COUNT(*) FROM line l JOIN ord o ON o.o_id = l.l_oid JOIN cust c ON c.c_id = o.o_cid
WHERE c.c_name = 'cust7' AND EXISTS (SELECT 1 FROM line l2 WHERE l2.qty = l.qty AND l2.l_oid <> l.l_oid)
SELECT COUNT(*) FROM line l JOIN ord o ON o.o_id = l.l_oid JOIN cust c ON c.c_id = o.o_cid
WHERE c.c_name = 'cust7' AND EXISTS (SELECT 1 FROM line l2 WHERE l2.qty = l.qty AND l2.l_oid <> l.l_oid)
OPTION (QUERYRULEOFF SemiJoinPushDown)
GO
SELECT c.c_name, o.o_id, SUM(l.qty) AS q FROM cust c, ord o, line l
WHERE o.o_id IN (SELECT l_oid FROM line GROUP BY l_oid HAVING SUM(qty) > 150)
  AND c.c_id = o.o_cid AND o.o_id = l.l_oid
GROUP BY c.c_name, o.o_id ORDER BY o.o_id
SELECT c.c_name, o.o_id, SUM(l.qty) AS q FROM cust c, ord o, line l
WHERE o.o_id IN (SELECT l_oid FROM line GROUP BY l_oid HAVING SUM(qty) > 150)
  AND c.c_id = o.o_cid AND o.o_id = l.l_oid
GROUP BY c.c_name, o.o_id ORDER BY o.o_id OPTION (QUERYRULEOFF SemiJoinPushDown)
GO
SELECT COUNT(*) FROM ord o JOIN cust c ON c.c_id = o.o_cid
WHERE NOT EXISTS (SELECT 1 FROM line l WHERE l.l_oid = c.c_id AND l.qty > 9)
SELECT COUNT(*) FROM ord o JOIN cust c ON c.c_id = o.o_cid
WHERE NOT EXISTS (SELECT 1 FROM line l WHERE l.l_oid = c.c_id AND l.qty > 9)
OPTION (QUERYRULEOFF SemiJoinPushDown)
SELECT COUNT(*) FROM ord o LEFT JOIN cust c ON c.c_id = o.o_cid AND c.c_id < 100
WHERE NOT EXISTS (SELECT 1 FROM line l WHERE l.l_oid = c.c_id AND l.qty > 9)
SELECT COUNT(*) FROM ord o LEFT JOIN cust c ON c.c_id = o.o_cid AND c.c_id < 100
WHERE NOT EXISTS (SELECT 1 FROM line l WHERE l.l_oid = c.c_id AND l.qty > 9)
OPTION (QUERYRULEOFF SemiJoinPushDown)
GO
