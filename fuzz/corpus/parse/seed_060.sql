-- Seed 003 (parallel insert / scan). The seed's text lost everything between '<' and '>' and
-- several lines (HTML stripping). Statements below are the seed's, with the lost pieces
-- restored minimally; every restored piece is marked "repaired".

-- seed 003 line 13 (repaired: column prefix "id", closing ')' of the CTE)
;WITH generator AS (
     SELECT     TOP 50000 id = ROW_NUMBER() OVER (ORDER BY a)
     FROM       (SELECT a = 1
                 FROM     master.dbo.syscolumns) c1
     CROSS JOIN master.dbo.syscolumns c2
)
SELECT id % 24                AS Col1
       ,id + 1                 AS Col2
       ,id + 2                 AS Col3
       ,id + 3                 AS Col4
       ,id + 4                 AS Col5
       ,CASE id % 2
            WHEN 1
                THEN AddressLine1
                ELSE AddressLine2
        END                       AS Col6
       ,CASE id % 7
            WHEN 1
                THEN AddressLine1
                ELSE AddressLine2
        END                       AS Col7
       ,FirstName                 AS Col8
       ,MiddleName                AS Col9
       ,LastName                  AS Col10
       ,CustomerAlternateKey      AS Col11
INTO   BigData
FROM   generator g1
CROSS JOIN DimCustomer
