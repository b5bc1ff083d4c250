-- Batch Sort / Top N Sort and batch pipelines under row operators (exec README "Batch mode"):
-- with USE HINT ('ALLOW_BATCH_MODE') a sort over a filtered scan or a hash join sorts the
-- pipeline's batches (its SHOWPLAN_TEXT line ends with "Batch mode"), a pipeline under the
-- statement runs under the batch→row adapter, but the input of a TOP without a sort stays
-- row mode (a batch scan's S table lock would make the TOP wait for writers whose rows row
-- mode never reaches). Results are row mode's, in row mode's order: NULLs first ascending, strings by the
-- column's collation (case and trailing blanks ignored, ties in input order).
CREATE TABLE dbo.items (id int NOT NULL, grp int NULL, name varchar(10) NULL, price decimal(7,2) NULL);
CREATE TABLE dbo.groups (grp int NULL, label varchar(10) NULL);
INSERT INTO dbo.items VALUES (1, 2, 'pear', 3.50), (2, NULL, 'Apple', 1.25), (3, 1, 'apple ', NULL), (4, 2, 'PEAR', 2.00),
  (5, 1, NULL, 0.75), (6, 3, 'fig', 9.99), (7, 2, 'Fig', 1.25), (8, NULL, 'kiwi', 4.10);
INSERT INTO dbo.groups VALUES (1, 'one'), (2, 'Two'), (2, 'two'), (NULL, 'none');
GO
SET SHOWPLAN_TEXT ON;
GO
SELECT id, name FROM dbo.items WHERE price > 1 ORDER BY name, id DESC OPTION (MAXDOP 1, USE HINT ('ALLOW_BATCH_MODE'));
SELECT TOP 3 i.id, g.label FROM dbo.items i JOIN dbo.groups g ON i.grp = g.grp ORDER BY g.label DESC, i.id OPTION (MAXDOP 1, HASH JOIN, USE HINT ('ALLOW_BATCH_MODE'));
SELECT id, name FROM dbo.items WHERE grp = 2 OPTION (MAXDOP 1, USE HINT ('ALLOW_BATCH_MODE'));
SELECT TOP 2 id, name FROM dbo.items WHERE grp = 2 OPTION (MAXDOP 1, USE HINT ('ALLOW_BATCH_MODE'));
SELECT id, name FROM dbo.items WHERE price > 1 ORDER BY name, id DESC OPTION (MAXDOP 1, USE HINT ('DISALLOW_BATCH_MODE'));
GO
SET SHOWPLAN_TEXT OFF;
GO
SELECT id, name FROM dbo.items WHERE price > 1 ORDER BY name, id DESC OPTION (MAXDOP 1, USE HINT ('ALLOW_BATCH_MODE'));
SELECT id, name FROM dbo.items WHERE price > 1 ORDER BY name, id DESC OPTION (MAXDOP 1, USE HINT ('DISALLOW_BATCH_MODE'));
SELECT id, grp, price FROM dbo.items WHERE id > 0 ORDER BY grp, price DESC OPTION (MAXDOP 1, USE HINT ('ALLOW_BATCH_MODE'));
SELECT TOP 3 i.id, g.label FROM dbo.items i JOIN dbo.groups g ON i.grp = g.grp ORDER BY g.label DESC, i.id OPTION (MAXDOP 1, HASH JOIN, USE HINT ('ALLOW_BATCH_MODE'));
SELECT TOP 3 i.id, g.label FROM dbo.items i JOIN dbo.groups g ON i.grp = g.grp ORDER BY g.label DESC, i.id OPTION (MAXDOP 1, HASH JOIN, USE HINT ('DISALLOW_BATCH_MODE'));
SELECT TOP 2 WITH TIES id, name FROM dbo.items WHERE id > 1 ORDER BY name OPTION (MAXDOP 1, USE HINT ('ALLOW_BATCH_MODE'));
SELECT id, name FROM dbo.items WHERE grp = 2 OPTION (MAXDOP 1, USE HINT ('ALLOW_BATCH_MODE'));
-- a divide by zero in a sorted row: Msg 8134 in both modes
SELECT id, 10 / (id - 6) FROM dbo.items WHERE id > 2 ORDER BY name OPTION (MAXDOP 1, USE HINT ('ALLOW_BATCH_MODE'));
SELECT id, 10 / (id - 6) FROM dbo.items WHERE id > 2 ORDER BY name OPTION (MAXDOP 1, USE HINT ('DISALLOW_BATCH_MODE'));
GO
