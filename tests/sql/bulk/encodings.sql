-- BULK INSERT: CODEPAGE and DATAFILETYPE = 'widechar'
CREATE TABLE e (id int, s nvarchar(20));
BULK INSERT e FROM '$(TESTDIR)/data/utf8.txt' WITH (ROWTERMINATOR = '0x0a');
BULK INSERT e FROM '$(TESTDIR)/data/utf8bom.txt' WITH (ROWTERMINATOR = '0x0a', CODEPAGE = '65001');
BULK INSERT e FROM '$(TESTDIR)/data/utf16.txt' WITH (ROWTERMINATOR = '0x0a', DATAFILETYPE = 'widechar');
-- hex terminators of a widechar file are UTF-16 code units
BULK INSERT e FROM '$(TESTDIR)/data/utf16.txt' WITH (ROWTERMINATOR = '0x0a00', FIELDTERMINATOR = '0x0900', DATAFILETYPE = 'widechar');
BULK INSERT e FROM '$(TESTDIR)/data/cp1252.txt' WITH (ROWTERMINATOR = '0x0a', CODEPAGE = 'ACP');
BULK INSERT e FROM '$(TESTDIR)/data/cp1252.txt' WITH (ROWTERMINATOR = '0x0a', CODEPAGE = '1252', DATAFILETYPE = 'char');
BULK INSERT e FROM '$(TESTDIR)/data/cp437.txt' WITH (ROWTERMINATOR = '0x0a', CODEPAGE = 'OEM');
BULK INSERT e FROM '$(TESTDIR)/data/utf8.txt' WITH (ROWTERMINATOR = '0x0a', CODEPAGE = 'RAW');
SELECT id, s, LEN(s) AS len FROM e ORDER BY id, s;
GO
-- invalid UTF-8: a conversion error for that field, the other rows load
CREATE TABLE b (id int, s varchar(20));
BULK INSERT b FROM '$(TESTDIR)/data/badutf8.txt' WITH (ROWTERMINATOR = '0x0a');
SELECT * FROM b;
GO
-- varchar keeps code page 1252 characters, others become '?'
CREATE TABLE v (id int, s varchar(20));
BULK INSERT v FROM '$(TESTDIR)/data/utf8.txt' WITH (ROWTERMINATOR = '0x0a');
SELECT * FROM v;
GO
