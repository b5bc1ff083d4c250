-- JoinOrder's costed search (join_search.rs) picks each join's implementation with the tree.
-- ords and lines are both clustered on the order key: JoinToMerge could read both ORDERED with
-- no Sort, but on this executor a merge join's row costs about twice a hash join's build and
-- probe together (bench/cost_calibration.py, optimizer README "Cost model"), so the costed
-- search hashes them, as it does under QUERYRULEOFF JoinToMerge. With one
-- customer's ten orders as the outer input, JNtoIdxLookup seeks lines through its clustered
-- key instead of scanning 60,000 rows. The results are the same under every plan.
CREATE TABLE ords (id int PRIMARY KEY, cust_id int NOT NULL, amount int NOT NULL)
CREATE TABLE lines (order_id int NOT NULL, line int NOT NULL, qty int NOT NULL, PRIMARY KEY (order_id, line))
CREATE TABLE cust (id int PRIMARY KEY, region int NOT NULL)
INSERT INTO cust SELECT value, value % 10 FROM GENERATE_SERIES(1, 2000)
INSERT INTO ords SELECT value, value % 2000 + 1, value % 37 FROM GENERATE_SERIES(1, 20000)
INSERT INTO lines SELECT value / 3 + 1, value % 3, value % 5 FROM GENERATE_SERIES(0, 59999)
GO
SET SHOWPLAN_TEXT ON
GO
SELECT COUNT(*) AS n, SUM(l.qty) AS q FROM ords o JOIN lines l ON l.order_id = o.id JOIN cust c ON c.id = o.cust_id WHERE l.qty = 1
GO
SELECT COUNT(*) AS n, SUM(l.qty) AS q FROM ords o JOIN lines l ON l.order_id = o.id JOIN cust c ON c.id = o.cust_id WHERE l.qty = 1 OPTION (QUERYRULEOFF JoinToMerge)
GO
SELECT COUNT(*) AS n, SUM(l.qty) AS q FROM ords o JOIN lines l ON l.order_id = o.id JOIN cust c ON c.id = o.cust_id WHERE c.id = 5
GO
SELECT COUNT(*) AS n, SUM(l.qty) AS q FROM ords o JOIN lines l ON l.order_id = o.id JOIN cust c ON c.id = o.cust_id WHERE c.id = 5 OPTION (QUERYRULEOFF JNtoIdxLookup)
GO
SET SHOWPLAN_TEXT OFF
GO
SELECT COUNT(*) AS n, SUM(l.qty) AS q FROM ords o JOIN lines l ON l.order_id = o.id JOIN cust c ON c.id = o.cust_id WHERE l.qty = 1
GO
SELECT COUNT(*) AS n, SUM(l.qty) AS q FROM ords o JOIN lines l ON l.order_id = o.id JOIN cust c ON c.id = o.cust_id WHERE l.qty = 1 OPTION (QUERYRULEOFF JoinToMerge)
GO
SELECT COUNT(*) AS n, SUM(l.qty) AS q FROM ords o JOIN lines l ON l.order_id = o.id JOIN cust c ON c.id = o.cust_id WHERE c.id = 5
GO
SELECT COUNT(*) AS n, SUM(l.qty) AS q FROM ords o JOIN lines l ON l.order_id = o.id JOIN cust c ON c.id = o.cust_id WHERE c.id = 5 OPTION (QUERYRULEOFF JNtoIdxLookup)
GO
