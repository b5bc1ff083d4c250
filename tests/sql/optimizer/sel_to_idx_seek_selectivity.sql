-- SelToIdxSeek is a costed choice: a nonclustered index seek pays a RID lookup (a random page
-- read) per row, a scan reads the heap's pages in sequence. With the index's statistics the
-- estimate of `grp = 1` (19,990 of 20,000 rows) makes the Table Scan cheaper; `grp = 2` (10
-- rows) seeks. Hints keep winning over costs (INDEX(ix_grp), FORCESEEK), and QUERYRULEOFF
-- SelToIdxSeek leaves only the scan.
CREATE TABLE h (id int NOT NULL, grp int NOT NULL, pad char(100) NOT NULL)
CREATE INDEX ix_grp ON h (grp)
INSERT INTO h SELECT value, CASE WHEN value <= 19990 THEN 1 ELSE 2 END, 'x' FROM GENERATE_SERIES(1, 20000)
GO
SELECT grp, COUNT(*) AS n FROM h GROUP BY grp ORDER BY grp
GO
SET SHOWPLAN_TEXT ON
GO
SELECT id FROM h WHERE grp = 1
GO
SELECT id FROM h WHERE grp = 2
GO
SELECT id FROM h WITH (INDEX(ix_grp)) WHERE grp = 1
GO
SELECT id FROM h WITH (FORCESEEK) WHERE grp = 1
GO
SELECT id FROM h WHERE grp = 2 OPTION (QUERYRULEOFF SelToIdxSeek)
GO
SET SHOWPLAN_TEXT OFF
GO
SELECT COUNT(*) AS n FROM h WHERE grp = 2
GO
