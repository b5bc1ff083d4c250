//! Selectivity of a filter over an aggregate's output (HAVING, or a WHERE over a grouped
//! derived table), from the histogram of the aggregated column rather than a flat guess.
//!
//! A conjunct `agg op v` (v known at compile time, `agg` a SUM / AVG / MIN / MAX of a column
//! that traces to a base table column) is priced as the fraction of that column's rows that
//! satisfy `column op v'`:
//! * AVG, MIN, MAX: v' = v (a group's average / extreme is one of the column's typical
//!   values);
//! * SUM: v' = v / (input rows / groups), i.e. the bound on the per-row average a group's sum
//!   must exceed (TPC-H Q18: `SUM(l_quantity) > 300` over orders of about four lines needs an
//!   average quantity above 75, and l_quantity stops at 50).
//!
//! Using the single values' spread for a group's average over-estimates the tails (an average
//! of n values spreads less than the values), so the estimate errs high, never to zero (at
//! least one row, as every range estimate). A conjunct on a grouping column is priced by that
//! column's histogram (the fraction of rows stands for the fraction of groups). Anything else
//! (COUNT, expressions, unknown values) gets SQL Server's 30 % guess, and the conjuncts combine
//! by exponential backoff like a table's.

use catalog::Catalog;
use plan::*;
use types::{DataType, Value};

use crate::cardinality::{and_backoff, column_origin, column_vs_value, StatsCache, OTHER_GUESS};

/// Selectivity of the conjunction `conj` over `agg`'s output, when `agg` is a (hash or
/// stream) aggregate with a GROUP BY; None otherwise (the caller keeps its guess).
pub(crate) fn selectivity(
    stats: &mut StatsCache,
    catalog: &dyn Catalog,
    agg: &PhysOp,
    conj: &[ScalarExpr],
) -> Option<f64> {
    let (input, group_by, aggs) = match &agg.kind {
        PhysKind::HashAggregate {
            input,
            group_by,
            aggs,
            grouping_sets: None,
        }
        | PhysKind::StreamAggregate {
            input,
            group_by,
            aggs,
        } => (input, group_by, aggs),
        _ => return None,
    };
    if group_by.is_empty() {
        return None;
    }
    let rows_per_group = (input.est_rows / agg.est_rows.max(1.0)).max(1.0);
    let sels = conj
        .iter()
        .map(|c| {
            conjunct(stats, catalog, input, group_by, aggs, rows_per_group, c)
                .unwrap_or(OTHER_GUESS)
        })
        .collect();
    Some(and_backoff(sels))
}

fn conjunct(
    stats: &mut StatsCache,
    catalog: &dyn Catalog,
    input: &PhysOp,
    group_by: &[ScalarExpr],
    aggs: &[AggCall],
    rows_per_group: f64,
    c: &ScalarExpr,
) -> Option<f64> {
    let (col, op, v) = column_vs_value(c)?;
    let v = v?;
    let (source, bound) = if col < group_by.len() {
        (group_by[col].as_column()?, v)
    } else {
        let a = aggs.get(col - group_by.len())?;
        if a.distinct || a.args.len() != 1 {
            return None;
        }
        let source = a.args[0].as_column()?;
        let bound = match a.func {
            AggFunc::Avg | AggFunc::Min | AggFunc::Max => v,
            AggFunc::Sum => Value::Float(v.as_f64()? / rows_per_group),
            _ => return None,
        };
        (source, bound)
    };
    let (table, base) = column_origin(input, source)?;
    let t = stats.get_with(catalog, &table, &[base]);
    let column = ScalarExpr::column(base, table.columns.get(base)?.data_type.clone());
    let value = ScalarExpr::literal(bound.clone(), bound.data_type());
    let pred = ScalarExpr::new(
        ScalarKind::Compare(op, Box::new(column), Box::new(value)),
        DataType::Bit,
    );
    Some(t.selectivity(&pred))
}
