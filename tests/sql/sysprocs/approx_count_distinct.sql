-- APPROX_COUNT_DISTINCT: HyperLogLog within SQL Server's documented 2%; exact for small groups
CREATE TABLE #s (g INT, v VARCHAR(10));
INSERT INTO #s VALUES (1, 'a'), (1, 'A'), (1, 'b'), (1, NULL), (2, 'x'), (2, 'x'), (3, NULL);
SELECT g, APPROX_COUNT_DISTINCT(v) AS approx, COUNT(DISTINCT v) AS exact FROM #s GROUP BY g ORDER BY g;
SELECT APPROX_COUNT_DISTINCT(v) AS empty_input FROM #s WHERE 1 = 0;
GO
SELECT n = a.number * 2048 + b.number INTO #big
FROM master.dbo.spt_values a CROSS JOIN master.dbo.spt_values b
WHERE a.type = 'P' AND b.type = 'P' AND a.number < 60;
SELECT COUNT(*) AS rows_in, CASE WHEN ABS(APPROX_COUNT_DISTINCT(n) - 122880) < 0.02 * 122880 THEN 'within 2%' ELSE 'off' END AS accuracy FROM #big;
SELECT CASE WHEN ABS(APPROX_COUNT_DISTINCT(n % 50000) - 50000) < 0.02 * 50000 THEN 'within 2%' ELSE 'off' END AS accuracy_dups FROM #big;
GO
SELECT APPROX_COUNT_DISTINCT(*) FROM #s;
GO
SELECT APPROX_COUNT_DISTINCT(g, v) FROM #s;
GO
