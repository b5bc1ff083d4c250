-- SET SHOWPLAN_ALL ON: per statement one result set with SQL Server's columns: the statement
-- row (NodeId 1, Parent 0, Type = the statement's kind) then one PLAN_ROW per operator with
-- its estimates; a hash join lists its build input first. STATISTICS PROFILE runs the query
-- and adds the same rows after its result, led by the actual Rows and Executes of each
-- operator (the inner side of a loop join runs once per outer row). Under SET ROWCOUNT the
-- scan stops after the rows returned (its Top is not part of the plan shown). MERGE has no
-- showplan yet: with an actual plan asked for it is refused (40517), not run.
CREATE TABLE spa (id int PRIMARY KEY, k int, v varchar(10))
INSERT INTO spa VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 30, 'c')
CREATE TABLE spb (k int, w nvarchar(10))
INSERT INTO spb VALUES (10, N'x'), (20, N'y'), (20, N'z')
GO
SET SHOWPLAN_ALL ON
GO
SELECT a.v, b.w FROM spa a JOIN spb b ON a.k = b.k WHERE a.id < 3
GO
SET SHOWPLAN_ALL OFF
GO
SET STATISTICS PROFILE ON
GO
SELECT a.v, b.w FROM spa a JOIN spb b ON a.k = b.k WHERE a.id < 3
GO
SELECT a.v, b.w FROM spa a JOIN spb b ON a.k = b.k OPTION (LOOP JOIN)
GO
UPDATE spa SET v = 'q' WHERE k = 20
GO
SET ROWCOUNT 2
GO
SELECT v FROM spa
GO
SET ROWCOUNT 0
GO
MERGE spa AS t USING spb AS s ON t.k = s.k WHEN MATCHED THEN UPDATE SET v = 'm';
GO
SET STATISTICS PROFILE OFF
GO
SELECT v FROM spa WHERE id = 2
GO
