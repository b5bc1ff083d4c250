-- GbAggBeforeJoin: a GROUP BY over a join whose aggregates read only the large input must be
-- planned as a partial aggregate of that input on its join key below the join (20,000 sales
-- rows into 10 groups before joining the 10 stores) unless QUERYRULEOFF GbAggBeforeJoin; the
-- choice is costed, so where the join key is unique per row (no reduction) it does not fire.
-- SUM / COUNT(*) / COUNT / MIN / MAX give the same rows both ways, NULLs included.
CREATE TABLE store (s_id int NOT NULL PRIMARY KEY, region varchar(10) NOT NULL)
CREATE TABLE sale (id int NOT NULL PRIMARY KEY, s_id int NOT NULL, amount int NULL)
INSERT INTO store VALUES (1, 'north'), (2, 'north'), (3, 'south'), (4, 'south'), (5, 'east'),
  (6, 'east'), (7, 'west'), (8, 'west'), (9, 'west'), (10, 'mid')
INSERT INTO sale SELECT value, value % 10 + 1, CASE WHEN value % 7 = 0 THEN NULL ELSE value % 100 END
  FROM GENERATE_SERIES(1, 20000)
GO
SET SHOWPLAN_TEXT ON
GO
SELECT st.region, SUM(sa.amount) AS total, COUNT(*) AS n FROM sale sa JOIN store st ON st.s_id = sa.s_id GROUP BY st.region
GO
SELECT st.region, SUM(sa.amount) AS total, COUNT(*) AS n FROM sale sa JOIN store st ON st.s_id = sa.s_id GROUP BY st.region OPTION (QUERYRULEOFF GbAggBeforeJoin)
GO
-- joined on the sale's primary key: pre-aggregating removes nothing, the rule does not fire
SELECT st.region, COUNT(*) AS n FROM sale sa JOIN store st ON st.s_id = sa.id GROUP BY st.region
GO
SET SHOWPLAN_TEXT OFF
GO
SELECT st.region, SUM(sa.amount) AS total, COUNT(*) AS n, COUNT(sa.amount) AS n_amount,
  MIN(sa.amount) AS lo, MAX(sa.amount) AS hi
FROM sale sa JOIN store st ON st.s_id = sa.s_id GROUP BY st.region ORDER BY st.region
SELECT st.region, SUM(sa.amount) AS total, COUNT(*) AS n, COUNT(sa.amount) AS n_amount,
  MIN(sa.amount) AS lo, MAX(sa.amount) AS hi
FROM sale sa JOIN store st ON st.s_id = sa.s_id GROUP BY st.region ORDER BY st.region
OPTION (QUERYRULEOFF GbAggBeforeJoin)
GO
-- grouping on both sides, one store matching no sale, a residual on the store
SELECT st.region, sa.s_id % 2 AS parity, SUM(sa.amount) AS total FROM sale sa JOIN store st
  ON st.s_id = sa.s_id AND st.region <> 'mid' WHERE sa.amount > 90 GROUP BY st.region, sa.s_id % 2 ORDER BY 1, 2
SELECT st.region, sa.s_id % 2 AS parity, SUM(sa.amount) AS total FROM sale sa JOIN store st
  ON st.s_id = sa.s_id AND st.region <> 'mid' WHERE sa.amount > 90 GROUP BY st.region, sa.s_id % 2 ORDER BY 1, 2
OPTION (QUERYRULEOFF GbAggBeforeJoin)
GO
