-- TPC-H q09 with its joins forced (join hints imply FORCE ORDER): every join a hash join but
-- the one into orders, a hash join (bench/tpch_times.py --sql; optimizer README "Cost model")
select nation, o_year, sum(amount) as sum_profit
from (
	select n_name as nation, datepart(year, o_orderdate) as o_year,
		l_extendedprice * (1 - l_discount) - ps_supplycost * l_quantity as amount
	from lineitem
		inner hash join part on p_partkey = l_partkey
		inner hash join supplier on s_suppkey = l_suppkey
		inner hash join nation on n_nationkey = s_nationkey
		inner hash join partsupp on ps_suppkey = l_suppkey and ps_partkey = l_partkey
		inner hash join orders on o_orderkey = l_orderkey
	where p_name like '%green%'
) as profit
group by nation, o_year
order by nation, o_year desc
