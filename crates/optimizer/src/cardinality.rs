//! Cardinality estimation: how many rows a predicate, a join or a grouping leaves, from the
//! table's row count ([`Catalog::table_rows`]) and its statistics ([`Catalog::statistics`]:
//! histograms on a leading column and density vectors).
//!
//! Assumptions (SQL Server 2014+'s "new" cardinality estimator where it has a documented rule;
//! the optimizer README lists them):
//! - Equality with a known value: the histogram step whose RANGE_HI_KEY equals it gives EQ_ROWS;
//!   a value inside a step gives the step's AVG_RANGE_ROWS; beyond the last step (or an unknown
//!   value: a variable, a parameter, an expression) the density (rows x all_density).
//! - Ranges: the steps below the bound plus linear interpolation inside the step that holds it
//!   (numeric keys; other types take half the step). Two bounds on one column are one range.
//! - `IN (list)`: the sum of its equalities; `LIKE 'prefix%'`: the range [prefix, next prefix).
//! - `IS NULL`: the statistics' NULL rows; 0 for a NOT NULL column.
//! - AND: exponential backoff over the conjuncts' selectivities, most selective first
//!   (s1 x s2^(1/2) x s3^(1/4) x s4^(1/8)); OR: the same backoff over the complements;
//!   NOT: the complement.
//! - Without statistics, SQL Server's fixed guesses: equality rows^0.75 (selectivity
//!   rows^-0.25), a unique key 1 row; inequality 30 %; LIKE 9 %; IS NULL 10 %; anything else
//!   30 % (a BETWEEN is two 30 % ranges backed off: 16.43 %, as in SQL Server).
//! - Joins (containment): |R| x |S| / max(distinct R.k, distinct S.k); a side whose distinct
//!   count is unknown is assumed to contain the other side's values. A key of several column
//!   pairs is one unit where a unique index or a multi-column density knows its combinations
//!   (composite_key.rs), else its pairs are backed off, floored at containment.
//! - GROUP BY / DISTINCT: the product of the distinct counts of the base columns the grouping
//!   keys read (an expression of columns has at most the product of theirs), capped at the
//!   input rows.

use std::cmp::Ordering;
use std::sync::Arc;

use catalog::statistics::{StatisticsData, StatisticsObject};
use catalog::{Catalog, TableDef};
use plan::{CmpOp, PhysKind, PhysOp, ScalarExpr, ScalarKind};
use types::Value;

/// Rows assumed for a table whose row count the catalog does not know.
pub const DEFAULT_TABLE_ROWS: f64 = 1000.0;
/// Selectivity guessed for an inequality (`<`, `>`, `<=`, `>=`) without statistics.
pub const RANGE_GUESS: f64 = 0.3;
/// Selectivity guessed for LIKE without statistics.
pub const LIKE_GUESS: f64 = 0.09;
/// Selectivity guessed for IS NULL on a nullable column without statistics.
pub const IS_NULL_GUESS: f64 = 0.1;
/// Selectivity guessed for a predicate the estimator does not model.
pub const OTHER_GUESS: f64 = 0.3;

/// A range bound: (value, inclusive).
type Bound = (Value, bool);

/// Row count and statistics of one table, loaded once per statement.
pub struct TableStats {
    pub table: Arc<TableDef>,
    /// Current rows (catalog row count, else the statistics' rows, else a default).
    pub rows: f64,
    pub stats: Vec<Arc<StatisticsObject>>,
    /// Whether `rows` came from the catalog or statistics (not the default): only then does
    /// the planner let costs override its rule-based choices.
    pub known: bool,
}

impl TableStats {
    /// Loads the row count and the statistics (asking for `columns`, which lets the catalog
    /// auto-create statistics on them).
    pub fn load(catalog: &dyn Catalog, table: &Arc<TableDef>, columns: &[usize]) -> Self {
        let stats = catalog.statistics(table, columns);
        let counted = catalog.table_rows(table);
        let known = counted.is_some() || stats.iter().any(|s| s.data.is_some());
        let rows = counted
            .map(|r| r as f64)
            .or_else(|| {
                stats
                    .iter()
                    .filter_map(|s| s.data.as_ref().map(|d| d.rows as f64))
                    .reduce(f64::max)
            })
            .unwrap_or(DEFAULT_TABLE_ROWS);
        let mut t = Self::with(table.clone(), rows, stats);
        t.known = known;
        t
    }

    /// From parts (unit tests, callers that already have them).
    pub fn with(table: Arc<TableDef>, rows: f64, stats: Vec<Arc<StatisticsObject>>) -> Self {
        TableStats {
            table,
            rows,
            stats,
            known: true,
        }
    }

    /// The built statistics whose leading column is `col` (the one with the most steps).
    fn histogram(&self, col: usize) -> Option<&StatisticsData> {
        self.stats
            .iter()
            .filter(|s| s.columns.first() == Some(&col) && s.filter.is_none())
            .filter_map(|s| s.data.as_ref())
            .filter(|d| d.rows > 0)
            .max_by_key(|d| d.steps.len())
    }

    /// Whether `col` alone is a unique key (a unique index on exactly it).
    fn unique(&self, col: usize) -> bool {
        self.table.indexes.iter().any(|ix| {
            ix.unique
                && ix.filter.is_none()
                && ix.key_columns.len() == 1
                && ix.key_columns[0].0 == col
        })
    }

    /// Distinct values of column `col` in the whole table, when known.
    pub fn distinct(&self, col: usize) -> Option<f64> {
        if self.unique(col) {
            return Some(self.rows.max(1.0));
        }
        let d = self.histogram(col)?;
        let density = d.density.first()?.all_density;
        (density > 0.0).then(|| (1.0 / density).min(self.rows.max(1.0)))
    }

    /// Selectivity of the conjunction of `conj` (predicates over this table's columns).
    pub fn conj_selectivity(&self, conj: &[ScalarExpr]) -> f64 {
        let mut sels = Vec::new();
        let mut ranges: Vec<(usize, Option<Bound>, Option<Bound>)> = Vec::new();
        for c in conj {
            // two bounds on one column are one range when a histogram can price it
            if let Some((col, op, v)) = column_vs_value(c) {
                if matches!(op, CmpOp::Lt | CmpOp::Le | CmpOp::Gt | CmpOp::Ge)
                    && self.histogram(col).is_some()
                {
                    if let Some(v) = v.filter(|v| !v.is_null()) {
                        let slot = match ranges.iter().position(|r| r.0 == col) {
                            Some(i) => i,
                            None => {
                                ranges.push((col, None, None));
                                ranges.len() - 1
                            }
                        };
                        let r = &mut ranges[slot];
                        let bound = match op {
                            CmpOp::Gt | CmpOp::Ge => &mut r.1,
                            _ => &mut r.2,
                        };
                        if bound.is_none() {
                            *bound = Some((v, matches!(op, CmpOp::Ge | CmpOp::Le)));
                            continue;
                        }
                    }
                }
            }
            sels.push(self.selectivity(c));
        }
        for (col, lo, hi) in ranges {
            if let Some(h) = self.histogram(col) {
                sels.push(range_fraction(h, lo.as_ref(), hi.as_ref()));
            }
        }
        and_backoff(sels)
    }

    /// Selectivity of one predicate over this table's columns.
    pub fn selectivity(&self, p: &ScalarExpr) -> f64 {
        common::stack::grow(|| self.selectivity_unguarded(p)).clamp(0.0, 1.0)
    }

    fn selectivity_unguarded(&self, p: &ScalarExpr) -> f64 {
        match &p.kind {
            ScalarKind::And(v) => self.conj_selectivity(v),
            ScalarKind::Or(v) => {
                let c: Vec<f64> = v.iter().map(|e| 1.0 - self.selectivity(e)).collect();
                1.0 - and_backoff(c)
            }
            ScalarKind::Not(e) => 1.0 - self.selectivity(e),
            ScalarKind::IsNull(e) => match strip_cast(e).as_column() {
                Some(col) => self.null_fraction(col),
                None => OTHER_GUESS,
            },
            ScalarKind::InList { expr, list } => match strip_cast(expr).as_column() {
                Some(col) => list
                    .iter()
                    .map(|v| self.eq_selectivity(col, literal(v)))
                    .sum::<f64>()
                    .min(1.0),
                None => OTHER_GUESS,
            },
            ScalarKind::Like { expr, pattern, .. } => {
                match (strip_cast(expr).as_column(), literal(pattern)) {
                    (Some(col), Some(Value::VarChar(s) | Value::NVarChar(s))) => {
                        self.like_selectivity(col, s)
                    }
                    _ => LIKE_GUESS,
                }
            }
            ScalarKind::Literal(Value::Bit(true)) => 1.0,
            ScalarKind::Literal(Value::Bit(false)) | ScalarKind::Literal(Value::Null) => 0.0,
            ScalarKind::Compare(..) => match column_vs_value(p) {
                Some((col, CmpOp::Eq, v)) => self.eq_selectivity(col, v.as_ref()),
                Some((col, CmpOp::Ne, v)) => {
                    1.0 - self.eq_selectivity(col, v.as_ref()) - self.null_fraction(col)
                }
                Some((col, op, Some(v))) => match self.histogram(col) {
                    Some(h) if !v.is_null() => {
                        let b = Some((v, matches!(op, CmpOp::Ge | CmpOp::Le)));
                        match op {
                            CmpOp::Gt | CmpOp::Ge => range_fraction(h, b.as_ref(), None),
                            _ => range_fraction(h, None, b.as_ref()),
                        }
                    }
                    _ => RANGE_GUESS,
                },
                Some((_, _, None)) => RANGE_GUESS,
                None => OTHER_GUESS,
            },
            _ => OTHER_GUESS,
        }
    }

    /// Fraction of rows whose `col` is NULL.
    fn null_fraction(&self, col: usize) -> f64 {
        if self.table.columns.get(col).is_some_and(|c| !c.nullable) {
            return 0.0;
        }
        match self.histogram(col) {
            Some(h) => h.null_rows / h.rows as f64,
            None => IS_NULL_GUESS,
        }
    }

    /// Selectivity of `col = v` (`None`: a value unknown at compile time).
    pub fn eq_selectivity(&self, col: usize, v: Option<&Value>) -> f64 {
        if v.is_some_and(|v| v.is_null()) {
            return 0.0;
        }
        let rows = self.rows.max(1.0);
        if self.unique(col) {
            return 1.0 / rows;
        }
        let Some(h) = self.histogram(col) else {
            return rows.powf(-0.25);
        };
        let total = h.rows as f64;
        let density = h.density.first().map_or(1.0 / total, |d| d.all_density);
        let Some(v) = v else {
            return density;
        };
        for (i, s) in h.steps.iter().enumerate() {
            match cmp(v, &s.range_hi_key) {
                Some(Ordering::Equal) => return s.eq_rows / total,
                Some(Ordering::Less) if i == 0 => return 1.0 / total,
                Some(Ordering::Less) => return s.avg_range_rows.max(1.0) / total,
                Some(Ordering::Greater) => {}
                None => return density,
            }
        }
        // beyond the histogram (ascending keys inserted since the build): the density
        density
    }

    fn like_selectivity(&self, col: usize, pattern: &str) -> f64 {
        let prefix: String = pattern
            .chars()
            .take_while(|c| !matches!(c, '%' | '_' | '['))
            .collect();
        if prefix.is_empty() {
            return if pattern.chars().all(|c| c == '%') && !pattern.is_empty() {
                1.0 - self.null_fraction(col)
            } else {
                LIKE_GUESS
            };
        }
        if prefix.len() == pattern.len() {
            return self.eq_selectivity(col, Some(&Value::VarChar(prefix)));
        }
        let Some(h) = self.histogram(col) else {
            return LIKE_GUESS;
        };
        let mut upper = prefix.clone();
        let Some(last) = upper.pop() else {
            return LIKE_GUESS;
        };
        let Some(next) = char::from_u32(last as u32 + 1) else {
            return LIKE_GUESS;
        };
        upper.push(next);
        range_fraction(
            h,
            Some(&(Value::VarChar(prefix), true)),
            Some(&(Value::VarChar(upper), false)),
        )
    }
}

/// Exponential backoff (SQL Server 2014+): most selective first, each next one's selectivity
/// counts with half the exponent of the previous (only the four most selective count).
pub fn and_backoff(mut sels: Vec<f64>) -> f64 {
    sels.sort_by(|a, b| a.partial_cmp(b).unwrap_or(Ordering::Equal));
    let mut s = 1.0;
    let mut exp = 1.0;
    for x in sels.into_iter().take(4) {
        s *= x.clamp(0.0, 1.0).powf(exp);
        exp /= 2.0;
    }
    s
}

fn cmp(a: &Value, b: &Value) -> Option<Ordering> {
    types::compare::compare(a, b, types::collation::Collation::DEFAULT)
        .ok()
        .flatten()
}

/// The column under implicit conversions the binder inserted.
fn strip_cast(e: &ScalarExpr) -> &ScalarExpr {
    match &e.kind {
        ScalarKind::Cast { expr, .. } => strip_cast(expr),
        _ => e,
    }
}

/// A literal value (under conversions), when the expression is one.
fn literal(e: &ScalarExpr) -> Option<&Value> {
    match &strip_cast(e).kind {
        ScalarKind::Literal(v) => Some(v),
        _ => None,
    }
}

/// Whether an expression reads no row column (a literal, variable, parameter or function of them).
fn row_independent(e: &ScalarExpr) -> bool {
    let mut cols = Vec::new();
    e.columns_used(&mut cols);
    cols.is_empty() && !e.has_subquery()
}

/// `col op value` normalized with the column on the left; the value is None when it is unknown
/// at compile time (variable, parameter, expression).
pub(crate) fn column_vs_value(p: &ScalarExpr) -> Option<(usize, CmpOp, Option<Value>)> {
    let ScalarKind::Compare(op, a, b) = &p.kind else {
        return None;
    };
    if let Some(col) = strip_cast(a).as_column() {
        if row_independent(b) {
            return Some((col, *op, literal(b).cloned()));
        }
    }
    if let Some(col) = strip_cast(b).as_column() {
        if row_independent(a) {
            return Some((col, op.swap(), literal(a).cloned()));
        }
    }
    None
}

/// Rows of the histogram below `v` (all of them when `v` is past the last step); `inclusive`
/// counts the rows equal to `v` too.
fn rows_below(h: &StatisticsData, v: &Value, inclusive: bool) -> f64 {
    let mut acc = 0.0;
    let mut prev: Option<&Value> = None;
    for s in &h.steps {
        match cmp(v, &s.range_hi_key) {
            Some(Ordering::Greater) => acc += s.range_rows + s.eq_rows,
            Some(Ordering::Equal) => {
                return acc + s.range_rows + if inclusive { s.eq_rows } else { 0.0 };
            }
            Some(Ordering::Less) => {
                let frac = match (
                    prev.and_then(position),
                    position(v),
                    position(&s.range_hi_key),
                ) {
                    (Some(lo), Some(x), Some(hi)) if hi > lo => {
                        ((x - lo) / (hi - lo)).clamp(0.0, 1.0)
                    }
                    _ if prev.is_none() => 0.0,
                    _ => 0.5,
                };
                return acc + s.range_rows * frac;
            }
            None => return acc,
        }
        prev = Some(&s.range_hi_key);
    }
    acc
}

/// A value's position on a number line, for interpolation inside a histogram step.
fn position(v: &Value) -> Option<f64> {
    match v {
        Value::Date(d) => Some(*d as f64),
        Value::DateTime { days, ticks } | Value::DateTime2 { days, ticks } => {
            Some(*days as f64 + *ticks as f64 / 864e9)
        }
        v => v.as_f64(),
    }
}

/// Fraction of the table's rows in the range (lower, upper), each bound (value, inclusive).
fn range_fraction(
    h: &StatisticsData,
    lower: Option<&(Value, bool)>,
    upper: Option<&(Value, bool)>,
) -> f64 {
    let total = h.rows as f64;
    let non_null: f64 = h.steps.iter().map(|s| s.range_rows + s.eq_rows).sum();
    let hi = upper.map_or(non_null, |(v, inc)| rows_below(h, v, *inc));
    let lo = lower.map_or(0.0, |(v, inc)| rows_below(h, v, !*inc));
    // SQL Server never estimates a range below one row
    ((hi - lo).max(1.0) / total).min(1.0)
}

/// The input of the join `op` that produces its output column `col`, and the column's position
/// there (None: `op` is no join). A join outputs left ++ right; a right semi / anti semi join
/// only its right input's columns.
pub(crate) fn join_input_column(op: &PhysOp, col: usize) -> Option<(&PhysOp, usize)> {
    let (left, right, n) = match &op.kind {
        PhysKind::NestedLoops { outer, inner, .. } => (&**outer, &**inner, outer.columns.len()),
        PhysKind::HashJoin {
            left, right, kind, ..
        }
        | PhysKind::MergeJoin {
            left, right, kind, ..
        } => (
            &**left,
            &**right,
            if kind.outputs_left() {
                left.columns.len()
            } else {
                0
            },
        ),
        _ => return None,
    };
    Some(if col < n {
        (left, col)
    } else {
        (right, col - n)
    })
}

/// Where column `col` of `op`'s output comes from: a base table column, with the operator that
/// produces the table's rows.
pub fn column_origin(op: &PhysOp, col: usize) -> Option<(Arc<TableDef>, usize)> {
    match &op.kind {
        PhysKind::TableScan { source, .. }
        | PhysKind::ClusteredIndexScan { source, .. }
        | PhysKind::IndexSeek { source, .. } => {
            (col < source.table.columns.len()).then(|| (source.table.clone(), col))
        }
        PhysKind::Filter { input, .. }
        | PhysKind::Sort { input, .. }
        | PhysKind::Top { input, .. }
        | PhysKind::HashDistinct { input } => column_origin(input, col),
        PhysKind::ComputeScalar { input, exprs } => {
            column_origin(input, strip_cast(exprs.get(col)?).as_column()?)
        }
        PhysKind::NestedLoops { .. } | PhysKind::HashJoin { .. } | PhysKind::MergeJoin { .. } => {
            let (input, c) = join_input_column(op, col)?;
            column_origin(input, c)
        }
        _ => None,
    }
}

/// Distinct values of output column `col` when it is the only GROUP BY column of an
/// aggregate (under filters): one per group, i.e. the aggregate's estimated rows, capped at
/// `op`'s rows. An IN (SELECT k … GROUP BY k HAVING …) semi join then estimates by
/// containment (the groups' keys are among the outer's) instead of taking every outer row.
fn group_key_distinct(op: &PhysOp, col: usize) -> Option<f64> {
    let mut at = op;
    while let PhysKind::Filter { input, .. } = &at.kind {
        at = input;
    }
    let single_key = match &at.kind {
        PhysKind::HashAggregate {
            group_by,
            grouping_sets: None,
            ..
        }
        | PhysKind::StreamAggregate { group_by, .. } => group_by.len() == 1,
        _ => false,
    };
    (single_key && col == 0).then(|| at.est_rows.min(op.est_rows).max(1.0))
}

/// Selectivity of `L.a = R.b` from the distinct counts of both sides (when known) and the
/// sides' rows `l`, `r` (containment: 1 / the larger distinct count; an unknown side is
/// assumed to hold the known side's values; both unknown: the smaller side is a key).
pub fn equi_selectivity(dl: Option<f64>, dr: Option<f64>, l: f64, r: f64) -> f64 {
    let d = match (dl, dr) {
        (Some(a), Some(b)) => a.max(b),
        (Some(a), None) => a.min(r),
        (None, Some(b)) => b.min(l),
        (None, None) => l.min(r),
    };
    1.0 / d.max(1.0)
}

/// Per-statement cache of [`TableStats`] (keyed by the table definition's address), with the
/// columns already asked about (the catalog may auto-create statistics on them).
#[derive(Default)]
pub struct StatsCache {
    tables: Vec<(usize, Vec<usize>, Arc<TableStats>)>,
}

impl StatsCache {
    pub fn get(&mut self, catalog: &dyn Catalog, table: &Arc<TableDef>) -> Arc<TableStats> {
        self.get_with(catalog, table, &[])
    }

    /// The table's stats, asking the catalog about `columns` (predicate / join / grouping
    /// columns) when they were not asked about yet in this statement.
    pub fn get_with(
        &mut self,
        catalog: &dyn Catalog,
        table: &Arc<TableDef>,
        columns: &[usize],
    ) -> Arc<TableStats> {
        let key = Arc::as_ptr(table) as usize;
        let columns: Vec<usize> = columns
            .iter()
            .copied()
            .filter(|&c| c < table.columns.len())
            .collect();
        if let Some(i) = self.tables.iter().position(|(k, _, _)| *k == key) {
            let (_, asked, t) = &self.tables[i];
            if columns.iter().all(|c| asked.contains(c)) {
                return t.clone();
            }
            let mut all = asked.clone();
            all.extend(columns.iter().filter(|c| !asked.contains(c)));
            let t = Arc::new(TableStats::load(catalog, table, &all));
            self.tables[i] = (key, all, t.clone());
            return t;
        }
        let t = Arc::new(TableStats::load(catalog, table, &columns));
        self.tables.push((key, columns, t.clone()));
        t
    }

    /// Distinct values of output column `col` of `op` (capped at its estimated rows).
    pub fn distinct(&mut self, catalog: &dyn Catalog, op: &PhysOp, col: usize) -> Option<f64> {
        let Some((table, c)) = column_origin(op, col) else {
            return group_key_distinct(op, col);
        };
        let d = self.get_with(catalog, &table, &[c]).distinct(c)?;
        Some(d.min(op.est_rows.max(1.0)))
    }

    /// Rows of an equi-join of `left` and `right` on the key pairs (containment assumption).
    pub fn join_rows(
        &mut self,
        catalog: &dyn Catalog,
        left: &PhysOp,
        right: &PhysOp,
        keys: &[(Option<usize>, Option<usize>)],
    ) -> f64 {
        let (l, r) = (left.est_rows.max(1.0), right.est_rows.max(1.0));
        if keys.is_empty() {
            return l * r;
        }
        let mut sels = Vec::new();
        // column = column pairs form one composite key (composite_key.rs)
        let mut pairs = Vec::new();
        let mut pair_sels = Vec::new();
        for (lk, rk) in keys {
            let dl = lk.and_then(|c| self.distinct(catalog, left, c));
            let dr = rk.and_then(|c| self.distinct(catalog, right, c));
            let s = equi_selectivity(dl, dr, l, r);
            match (lk, rk) {
                (Some(a), Some(b)) if !pairs.contains(&(*a, *b)) => {
                    pairs.push((*a, *b));
                    pair_sels.push(s);
                }
                _ => sels.push(s),
            }
        }
        if pairs.len() >= 2 {
            sels.push(self.multi_key_selectivity(catalog, left, right, &pairs, pair_sels));
        } else {
            sels.extend(pair_sels);
        }
        (l * r * and_backoff(sels)).max(1.0)
    }

    /// Groups of a GROUP BY / DISTINCT over `input` on the given output columns (None: an
    /// expression this cannot see into): see [`StatsCache::group_rows_of`].
    pub fn group_rows(
        &mut self,
        catalog: &dyn Catalog,
        input: &PhysOp,
        cols: &[Option<usize>],
    ) -> f64 {
        let keys: Option<Vec<Vec<usize>>> = cols.iter().map(|c| c.map(|c| vec![c])).collect();
        match keys {
            Some(keys) => self.group_rows_over(catalog, input, &keys),
            None => input.est_rows.max(1.0),
        }
    }

    /// Groups of a GROUP BY over `input` on the expressions `keys` (over `input`'s columns), as
    /// SQL Server estimates them from the inputs' densities: a key that is an expression of
    /// one column has at most that column's distinct values, of several columns at most the
    /// product of theirs; the whole grouping at most the product over the distinct base
    /// columns the keys read (a column read by two keys counts once), capped at the input
    /// rows. Columns are traced through Compute Scalars to the base columns they are computed
    /// from (TPC-H q09's `YEAR(o_orderdate)`, `n_name` of a derived table). A key with a
    /// subquery, or reading a column whose distinct values are unknown: the input rows.
    pub fn group_rows_of(
        &mut self,
        catalog: &dyn Catalog,
        input: &PhysOp,
        keys: &[ScalarExpr],
    ) -> f64 {
        let mut cols = Vec::with_capacity(keys.len());
        for k in keys {
            if k.has_subquery() {
                return input.est_rows.max(1.0);
            }
            let mut used = Vec::new();
            k.columns_used(&mut used);
            cols.push(used);
        }
        self.group_rows_over(catalog, input, &cols)
    }

    /// Groups over keys given as the `input` columns each key reads (an empty list: a
    /// constant key, one value).
    fn group_rows_over(
        &mut self,
        catalog: &dyn Catalog,
        input: &PhysOp,
        keys: &[Vec<usize>],
    ) -> f64 {
        let n = input.est_rows.max(1.0);
        let mut bases: Vec<(Arc<TableDef>, usize)> = Vec::new();
        let mut g = 1.0f64;
        for &c in keys.iter().flatten() {
            match column_sources(input, c) {
                Some(sources) => {
                    for (t, col) in sources {
                        if !bases
                            .iter()
                            .any(|(bt, bc)| Arc::ptr_eq(bt, &t) && *bc == col)
                        {
                            bases.push((t, col));
                        }
                    }
                }
                // not a base column nor computed from them (an aggregate's output: its groups)
                None => match self.distinct(catalog, input, c) {
                    Some(d) => g *= d,
                    None => return n,
                },
            }
        }
        for (t, col) in bases {
            match self.get_with(catalog, &t, &[col]).distinct(col) {
                Some(d) => g *= d.min(n),
                None => return n,
            }
            if g >= n {
                return n;
            }
        }
        g.min(n)
    }
}

/// The base table columns output column `col` of `op` is computed from: itself when it is
/// one ([`column_origin`]), else the columns its Compute Scalar expression reads, traced the
/// same way (empty: a constant). None when some input is not a base column (an aggregate's
/// or a window's output, a subquery).
pub fn column_sources(op: &PhysOp, col: usize) -> Option<Vec<(Arc<TableDef>, usize)>> {
    common::stack::grow(|| column_sources_unguarded(op, col))
}

fn column_sources_unguarded(op: &PhysOp, col: usize) -> Option<Vec<(Arc<TableDef>, usize)>> {
    match &op.kind {
        PhysKind::Filter { input, .. }
        | PhysKind::Sort { input, .. }
        | PhysKind::Top { input, .. }
        | PhysKind::HashDistinct { input } => column_sources(input, col),
        PhysKind::ComputeScalar { input, exprs } => {
            let e = exprs.get(col)?;
            if let Some(c) = strip_cast(e).as_column() {
                return column_sources(input, c);
            }
            if e.has_subquery() {
                return None;
            }
            let mut used = Vec::new();
            e.columns_used(&mut used);
            let mut out = Vec::new();
            for c in used {
                out.extend(column_sources(input, c)?);
            }
            Some(out)
        }
        PhysKind::NestedLoops { .. } | PhysKind::HashJoin { .. } | PhysKind::MergeJoin { .. } => {
            let (input, c) = join_input_column(op, col)?;
            column_sources(input, c)
        }
        _ => column_origin(op, col).map(|o| vec![o]),
    }
}
