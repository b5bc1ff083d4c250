-- config: maxdop=2,batch=sometimes
-- A LATCHKEY_CONFIG that latchkey cannot read refuses to start: a test run under a misspelt
-- configuration would otherwise test the default one.
SELECT 1;
