-- SET SHOWPLAN_XML ON: statements are compiled, not run; each gives one result set of one row
-- in the column "Microsoft SQL Server 2005 XML Showplan" with a ShowPlanXML document (schema
-- 1.6; crates/cli/tests/showplan_xsd.rs validates every document of these outputs): a key
-- lookup plan (Nested Loops over Index Seek + Key Lookup), a hash aggregate under a sort, an
-- INSERT (not run: COUNT(*) after OFF is still 3) and a non-query statement (no QueryPlan).
-- SET STATISTICS XML ON runs the query and adds its actual plan after the result: per operator
-- RunTimeCountersPerThread with ActualRows / ActualExecutions (times masked to 0 by the
-- golden runner).
CREATE TABLE spx (id int PRIMARY KEY, k int, v varchar(10))
CREATE INDEX ix_k ON spx (k)
INSERT INTO spx VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 30, 'c')
GO
SET SHOWPLAN_XML ON
GO
SELECT v FROM spx WHERE k = 20
GO
SELECT k, COUNT(*) AS n FROM spx GROUP BY k ORDER BY n DESC
GO
INSERT INTO spx VALUES (4, 40, 'd')
GO
DECLARE @x int
GO
SET SHOWPLAN_XML OFF
GO
SELECT COUNT(*) FROM spx
GO
SET STATISTICS XML ON
GO
SELECT v FROM spx WHERE k = 20
GO
SET STATISTICS XML OFF
GO
SET SHOWPLAN_XML ON
SELECT 1
GO
