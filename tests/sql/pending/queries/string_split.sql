-- PENDING (exec + plan): table-valued built-ins (STRING_SPLIT, GENERATE_SERIES, OPENJSON) need an
-- exec operator; the binder answers 208 for every FROM f(...) today.
SELECT value FROM STRING_SPLIT('a,b,c', ',') ORDER BY value
GO
SELECT t.n, s.value FROM (VALUES (1, 'x;y'), (2, 'z')) t(n, l) CROSS APPLY STRING_SPLIT(t.l, ';') s ORDER BY t.n, s.value
GO
