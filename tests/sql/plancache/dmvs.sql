-- Plan-cache views: sys.dm_exec_cached_plans, sys.dm_exec_query_stats, sys.dm_exec_sql_text,
-- sys.dm_exec_query_plan, sys.dm_exec_text_query_plan; DBCC FREEPROCCACHE with and without a
-- plan_handle. Shapes (column names and types) first, then the deterministic values.
SET NOCOUNT ON;
CREATE TABLE t (id int PRIMARY KEY, g int);
INSERT t VALUES (1, 5), (2, 6), (3, 5);
GO
SELECT TOP 0 * INTO #cp FROM sys.dm_exec_cached_plans;
SELECT TOP 0 * INTO #qs FROM sys.dm_exec_query_stats;
SELECT TOP 0 st.* INTO #st FROM sys.dm_exec_cached_plans cp CROSS APPLY sys.dm_exec_sql_text(cp.plan_handle) st;
SELECT TOP 0 qp.* INTO #qp FROM sys.dm_exec_cached_plans cp CROSS APPLY sys.dm_exec_query_plan(cp.plan_handle) qp;
SELECT TOP 0 qp.* INTO #tqp FROM sys.dm_exec_cached_plans cp CROSS APPLY sys.dm_exec_text_query_plan(cp.plan_handle, 0, -1) qp;
SELECT v = CAST(LEFT(o.name, 4) AS varchar(4)), c.column_id, name = CAST(c.name AS varchar(40)),
    type = CAST(ty.name AS varchar(12)), c.max_length
FROM tempdb.sys.columns c JOIN tempdb.sys.objects o ON o.object_id = c.object_id
JOIN tempdb.sys.types ty ON ty.user_type_id = c.user_type_id
WHERE o.name LIKE '#cp[_]%' OR o.name LIKE '#qs[_]%' OR o.name LIKE '#st[_]%' OR o.name LIKE '#qp[_]%' OR o.name LIKE '#tqp[_]%'
ORDER BY o.name, c.column_id;
GO
DBCC FREEPROCCACHE WITH NO_INFOMSGS;
GO
SELECT COUNT(*) AS n FROM t WHERE g = 5
GO
SELECT COUNT(*) AS n FROM t WHERE g = 5
GO
SELECT id FROM t WHERE id = 1; SELECT g FROM t WHERE id = 2
GO
EXEC sp_executesql N'SELECT g FROM t WHERE id = @i', N'@i int', @i = 3;
EXEC sp_executesql N'SELECT g FROM t WHERE id = @i', N'@i int', @i = 1;
GO
-- one row per cached batch / prepared statement; the view queries themselves are cached too
SELECT cp.usecounts, cp.refcounts, cacheobjtype = CAST(cp.cacheobjtype AS varchar(14)),
    objtype = CAST(cp.objtype AS varchar(10)), handle_bytes = DATALENGTH(cp.plan_handle),
    first_byte = SUBSTRING(cp.plan_handle, 1, 1), st.dbid, st.objectid, st.encrypted,
    text = CAST(st.text AS varchar(60))
FROM sys.dm_exec_cached_plans cp CROSS APPLY sys.dm_exec_sql_text(cp.plan_handle) st
WHERE st.text NOT LIKE '%dm[_]exec%'
ORDER BY st.text;
GO
-- one row per executed statement, offsets in bytes of the UTF-16 text
SELECT qs.statement_start_offset AS so, qs.statement_end_offset AS eo, qs.plan_generation_num AS gen,
    qs.execution_count AS execs, qs.total_rows, qs.last_rows, qs.min_rows, qs.max_rows,
    same_sql_handle = CASE WHEN qs.sql_handle = cp_sql.sql_handle THEN 1 ELSE 0 END,
    stmt = CAST(SUBSTRING(st.text, qs.statement_start_offset / 2 + 1,
        (CASE qs.statement_end_offset WHEN -1 THEN DATALENGTH(st.text) ELSE qs.statement_end_offset END
         - qs.statement_start_offset) / 2) AS varchar(60))
FROM sys.dm_exec_query_stats qs
CROSS APPLY sys.dm_exec_sql_text(qs.sql_handle) st
CROSS APPLY (SELECT qs.sql_handle) cp_sql(sql_handle)
WHERE st.text NOT LIKE '%dm[_]exec%'
ORDER BY st.text, qs.statement_start_offset;
GO
-- the cached plan of a two-statement batch: both statements; the text plan of the second alone
SELECT n_statements = (LEN(qp.query_plan) - LEN(REPLACE(qp.query_plan, '<StmtSimple', ''))) / 11,
    is_showplan = CASE WHEN qp.query_plan LIKE '<ShowPlanXML xmlns="http://schemas.microsoft.com/sqlserver/2004/07/showplan"%' THEN 1 ELSE 0 END
FROM sys.dm_exec_cached_plans cp
CROSS APPLY sys.dm_exec_sql_text(cp.plan_handle) st
CROSS APPLY sys.dm_exec_query_plan(cp.plan_handle) qp
WHERE st.text LIKE 'SELECT id FROM t WHERE id = 1;%';
SELECT qs.statement_start_offset, tqp.query_plan
FROM sys.dm_exec_query_stats qs
CROSS APPLY sys.dm_exec_sql_text(qs.sql_handle) st
CROSS APPLY sys.dm_exec_text_query_plan(qs.plan_handle, qs.statement_start_offset, qs.statement_end_offset) tqp
WHERE st.text LIKE 'SELECT id FROM t WHERE id = 1;%' AND qs.statement_start_offset > 0;
GO
-- DBCC FREEPROCCACHE (plan_handle) removes that plan only
DECLARE @h varbinary(64) = (SELECT cp.plan_handle FROM sys.dm_exec_cached_plans cp
    CROSS APPLY sys.dm_exec_sql_text(cp.plan_handle) st WHERE st.text LIKE 'SELECT COUNT(*) AS n FROM t%');
DBCC FREEPROCCACHE (@h) WITH NO_INFOMSGS;
SELECT remaining = COUNT(*) FROM sys.dm_exec_cached_plans cp CROSS APPLY sys.dm_exec_sql_text(cp.plan_handle) st
WHERE st.text LIKE 'SELECT COUNT(*) AS n FROM t%' OR st.text LIKE 'SELECT id FROM t%';
GO
-- the running batch's plan_handle in sys.dm_exec_requests is its cached plan's
SELECT requests_with_cached_plan = COUNT(*) FROM sys.dm_exec_requests r
JOIN sys.dm_exec_cached_plans cp ON cp.plan_handle = r.plan_handle WHERE r.session_id = @@SPID;
GO
SELECT id FROM t WHERE id = 2;
GO
select id  from T where id = 3;
GO
SELECT g FROM t WHERE id = 2;
GO
-- query_hash ignores literal values and layout: two batches that differ only in their
-- constants are two cached plans with one query_hash; a different column is another hash
SELECT plans = COUNT(*), hashes = COUNT(DISTINCT qs.query_hash)
FROM sys.dm_exec_query_stats qs CROSS APPLY sys.dm_exec_sql_text(qs.sql_handle) st
WHERE st.text LIKE 'SELECT id FROM t WHERE id = 2;%' OR st.text LIKE 'select id  from T where id = 3;%';
SELECT hashes = COUNT(DISTINCT qs.query_hash)
FROM sys.dm_exec_query_stats qs CROSS APPLY sys.dm_exec_sql_text(qs.sql_handle) st
WHERE st.text LIKE 'SELECT id FROM t WHERE id = 2;%' OR st.text LIKE 'SELECT g FROM t WHERE id = 2;%';
GO
DBCC FREEPROCCACHE WITH NO_INFOMSGS;
GO
SELECT plans = COUNT(*) FROM sys.dm_exec_cached_plans cp CROSS APPLY sys.dm_exec_sql_text(cp.plan_handle) st
WHERE st.text NOT LIKE '%dm[_]exec%';
GO
-- sys.dm_exec_requests' statement offsets cut the running statement out of its batch's text,
-- the way every DBA's "what is running" query does
DECLARE @n int = 1;
SELECT running = SUBSTRING(st.text, r.statement_start_offset / 2 + 1,
        (CASE r.statement_end_offset WHEN -1 THEN DATALENGTH(st.text) ELSE r.statement_end_offset END
         - r.statement_start_offset) / 2 + 1)
FROM sys.dm_exec_requests r CROSS APPLY sys.dm_exec_sql_text(r.sql_handle) st
WHERE r.session_id = @@SPID;
SELECT after_it = @n;
GO
