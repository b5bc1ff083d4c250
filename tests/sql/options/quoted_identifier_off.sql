-- restart
-- SET QUOTED_IDENTIFIER OFF: "..." is a varchar string literal ("" escapes a quote) and
-- identifiers need brackets; the setting is parse-time and modules keep the one of their CREATE.
CREATE TABLE [qi t] ([a b] int, c varchar(20));
INSERT INTO [qi t] VALUES (1, 'one');
GO
SET QUOTED_IDENTIFIER OFF;
GO
SELECT "abc" AS s, "it""s" AS escaped, DATALENGTH("abc") AS varchar_bytes;
SELECT [a b], c FROM [qi t] WHERE c = "one";
SELECT SESSIONPROPERTY('QUOTED_IDENTIFIER') AS qi_off;
GO
-- a double-quoted name is now a string, not a column
SELECT "a b" FROM [qi t];
GO
CREATE PROCEDURE dbo.qi_proc AS SELECT "from a proc created OFF" AS msg, [a b] FROM [qi t];
GO
CREATE VIEW dbo.qi_view AS SELECT "view string" AS v;
GO
-- switching back ON inside a batch takes effect at parse time for the text after it
SELECT "before" AS still_off;
SET QUOTED_IDENTIFIER ON;
SELECT "a b" FROM [qi t];
GO
SELECT SESSIONPROPERTY('QUOTED_IDENTIFIER') AS qi_on;
EXEC dbo.qi_proc;
SELECT v FROM dbo.qi_view;
GO
-- parse-time: a SET that never executes still switches the parsing of the text after it
IF 1 = 0 SET QUOTED_IDENTIFIER OFF;
SELECT "never executed set" AS s;
SELECT SESSIONPROPERTY('QUOTED_IDENTIFIER') AS still_on;
GO
SELECT "a b" FROM [qi t];
GO
-- restart
EXEC dbo.qi_proc;
SELECT v FROM dbo.qi_view;
SELECT "a b" FROM [qi t];
GO
