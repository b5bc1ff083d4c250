-- format: jsonl
-- The memo shows what a hint or QueryRuleOff took away: the alternative is listed, not
-- costed, with the reason it was not considered.
CREATE TABLE small (id int PRIMARY KEY, big_id int NOT NULL)
CREATE TABLE big (id int PRIMARY KEY, k int NOT NULL, pad char(40) NOT NULL)
INSERT INTO small SELECT value, value * 7919 % 5000 + 1 FROM GENERATE_SERIES(1, 10)
INSERT INTO big SELECT value, value % 500, 'x' FROM GENERATE_SERIES(1, 5000)
GO
SET SHOWPLAN_MEMO ON
GO
-- costed: nested loops over a clustered seek wins, the hash joins lose by their cost
SELECT s.id, b.k FROM small s JOIN big b ON b.id = s.big_id
GO
-- JNtoIdxLookup switched off: the seek alternatives show "rule disabled"
SELECT s.id, b.k FROM small s JOIN big b ON b.id = s.big_id OPTION (QUERYRULEOFF JNtoIdxLookup)
GO
-- a join hint: nested loops and the commuted inputs "forbidden by hint HASH JOIN"
SELECT s.id, b.k FROM small s INNER HASH JOIN big b ON b.id = s.big_id
GO
-- FORCE ORDER forbids the commuted inputs
SELECT s.id, b.k FROM big b JOIN small s ON b.id = s.big_id OPTION (FORCE ORDER)
GO
-- a table hint: FORCESCAN forbids the seek, SelToIdxSeek off leaves it uncosted
SELECT b.k FROM big b WITH (FORCESCAN) WHERE b.id = 7
GO
SELECT b.k FROM big b WHERE b.id BETWEEN 7 AND 9 OPTION (QUERYRULEOFF SelToIdxSeek)
GO
SET SHOWPLAN_MEMO OFF
GO
-- the rules the memo names are switchable: with no scan and no usable index, no plan
SELECT b.k FROM big b WHERE b.k = 7 OPTION (QUERYRULEOFF GetToScan)
GO
SELECT COUNT(*) AS n FROM small s CROSS JOIN small t OPTION (QUERYRULEOFF JNtoNL)
GO
SET SHOWPLAN_MEMO ON
GO
-- aggregates: GROUP BY hashes (GbAggToHS); ORDER GROUP or QUERYRULEOFF GbAggToHS sort and
-- stream instead, the hash listed as forbidden / disabled; a scalar aggregate streams
SELECT k, COUNT(*) AS n FROM big GROUP BY k
GO
SELECT k, COUNT(*) AS n FROM big GROUP BY k OPTION (ORDER GROUP)
GO
SELECT k, COUNT(*) AS n FROM big GROUP BY k OPTION (QUERYRULEOFF GbAggToHS)
GO
SELECT COUNT(*) AS n FROM big
GO
SET SHOWPLAN_MEMO OFF
GO
