//! Building one statistics object's data from sampled rows: sort, count NULLs, compress the
//! leading column's values into at most 200 histogram steps, and count the distinct values of
//! every column prefix for the density vector (engine README "Statistics").
//!
//! Step choice: every distinct value starts as its own step (RANGE_ROWS 0). While there are
//! more than [`MAX_HISTOGRAM_STEPS`], the interior step whose removal gives the smallest
//! merged range (its range rows + its equal rows + the next step's range rows) is folded into
//! the next step's range. The first and last values always stay step keys. Frequent values
//! therefore keep their own step (their EQ_ROWS exact) and ranges stay of similar weight: the
//! effect of SQL Server's maxdiff-style compression, computed exactly in O(n log n).

use hashbrown::HashMap;
use std::cmp::Ordering;

use catalog::statistics::{DensityEntry, HistogramStep, StatisticsData, MAX_HISTOGRAM_STEPS};
use types::{Collation, Value};

/// A key column of a statistics object.
pub(crate) struct StatColumn {
    pub name: String,
    pub collation: Collation,
}

/// Builds the data from the sampled values of the statistics columns (`columns[i]`: column
/// i's value in every sampled row, key order) out of a table of `table_rows` rows. With a
/// sample, RANGE_ROWS and EQ_ROWS are scaled by `table_rows / rows sampled`, and distinct
/// counts (density vector, DISTINCT_RANGE_ROWS) scaled up with [`scale_distinct`].
///
/// One column (every automatic statistics object, most index statistics) takes
/// [`build_single`]: its values sorted as integers where the column's type allows, else by
/// their memcmp keys in one buffer, without a vector per row; several columns the general
/// [`build_rows`].
pub(crate) fn build(
    cols: &[StatColumn],
    mut columns: Vec<Vec<Value>>,
    pages: &[u32],
    table_rows: u64,
    updated: String,
) -> StatisticsData {
    if let ([col], [_]) = (cols, columns.as_slice()) {
        let values = columns.pop().unwrap_or_default();
        return build_single(col, values, pages, table_rows, updated);
    }
    let columns = match build_multi(cols, columns, pages, table_rows, &updated) {
        Ok(data) => return data,
        Err(columns) => columns,
    };
    let n = columns.first().map(|c| c.len()).unwrap_or(0);
    let mut iters: Vec<_> = columns.into_iter().map(|c| c.into_iter()).collect();
    let rows = (0..n)
        .map(|_| {
            iters
                .iter_mut()
                .map(|c| c.next().unwrap_or(Value::Null))
                .collect()
        })
        .collect();
    build_rows(cols, rows, table_rows, updated)
}

/// [`build`] of rows (one value per statistics column): sorts whole rows (any number of
/// columns, any types).
pub(crate) fn build_rows(
    cols: &[StatColumn],
    mut rows: Vec<Vec<Value>>,
    table_rows: u64,
    updated: String,
) -> StatisticsData {
    let (sorted, keys) = sort_rows(cols, rows);
    rows = sorted;
    let sampled = rows.len() as u64;
    // density vector: distinct prefixes in one pass over the sorted rows, with the prefixes
    // seen once (`singles`, for scaling a sample's count up) from each prefix's run length
    let n = cols.len();
    let mut counts: Vec<SampleCounts> = (0..n).map(|_| SampleCounts::new(sampled)).collect();
    // rows in the current run of each prefix
    let mut run = vec![0u64; n];
    let mut length = vec![0f64; n];
    for (r, row) in rows.iter().enumerate() {
        let first_diff = if r == 0 {
            0
        } else {
            (0..n)
                .find(|&i| cmp_at(&rows, &keys, cols, r - 1, r, i) != Ordering::Equal)
                .unwrap_or(n)
        };
        for (c, k) in counts.iter_mut().zip(run.iter_mut()).skip(first_diff) {
            c.distinct += 1;
            c.close_run(*k, *k);
            *k = 0;
        }
        for k in &mut run {
            *k += 1;
        }
        let mut acc = 0.0;
        for (i, l) in length.iter_mut().enumerate() {
            acc += value_length(&row[i]);
            *l += acc;
        }
    }
    for (c, k) in counts.iter_mut().zip(&run) {
        c.close_run(*k, *k);
    }
    let null_rows = rows.iter().take_while(|r| r[0].is_null()).count() as u64;
    let coll = cols
        .first()
        .map(|c| c.collation)
        .unwrap_or(Collation::DEFAULT);
    let mut runs: Vec<(Value, u64)> = Vec::new();
    let lead_keys = keys.into_iter().next().flatten();
    let skip = null_rows as usize;
    for (r, row) in rows.into_iter().enumerate().skip(skip) {
        let v = row.into_iter().next().unwrap_or(Value::Null);
        // the previous row's leading value equals this one: one run (sort keys when strings)
        let same = r > skip
            && match &lead_keys {
                Some(k) => k[r - 1] == k[r],
                None => runs
                    .last()
                    .is_some_and(|(last, _)| types::sort_cmp(last, &v, coll) == Ordering::Equal),
            };
        match runs.last_mut() {
            Some((_, count)) if same => *count += 1,
            _ => runs.push((v, 1)),
        }
    }
    let units: Vec<u64> = runs.iter().map(|r| r.1).collect();
    finish(
        cols, &counts, &length, null_rows, runs, &units, sampled, table_rows, updated,
    )
}

/// [`build`] of one column: NULLs counted apart, the other values ranked in sort order
/// ([`ranks_of`]: by an order-keeping integer — integers, money, decimals of one scale, dates
/// and times of one type — or else by their `types::key` encodings, hashed, only the distinct
/// ones sorted); a run's value is its first row's (the stable sort [`build_rows`] does keeps
/// that one first, so both give the same steps and keys). One pass over the ranks then gives
/// each value's rows and sampled pages ([`SampleCounts::close_run`]), the density, the average
/// length and the histogram.
fn build_single(
    col: &StatColumn,
    mut values: Vec<Value>,
    pages: &[u32],
    table_rows: u64,
    updated: String,
) -> StatisticsData {
    let sampled = values.len() as u64;
    let length: f64 = values.iter().map(value_length).sum();
    let Some(rank) = ranks_of(col, &values) else {
        // a value without a key encoding: compared by value
        let rows = values.into_iter().map(|v| vec![v]).collect();
        return build_rows(std::slice::from_ref(col), rows, table_rows, updated);
    };
    let runs_n = rank.iter().copied().max().unwrap_or(0) as usize + 1;
    let (first, rows, units) = rank_runs(&rank, runs_n, pages);
    let null_rows = rows[0];
    let mut counts = SampleCounts::new(sampled);
    if null_rows > 0 {
        counts.distinct += 1;
        counts.close_run(null_rows, units[0]);
    }
    let mut runs: Vec<(Value, u64)> = Vec::with_capacity(runs_n - 1);
    for r in 1..runs_n {
        counts.distinct += 1;
        counts.close_run(rows[r], units[r]);
        let v = std::mem::replace(&mut values[first[r] as usize], Value::Null);
        runs.push((v, rows[r]));
    }
    finish(
        std::slice::from_ref(col),
        &[counts],
        &[length],
        null_rows,
        runs,
        &units[1..],
        sampled,
        table_rows,
        updated,
    )
}

/// Per run (rank) of `rank`: the position of its first row, its rows, and its units — the
/// distinct sampled pages (`pages[row]`, ascending with the rows) it was seen on, or its rows
/// when `pages` is empty (no page information).
fn rank_runs(rank: &[u32], runs: usize, pages: &[u32]) -> (Vec<u32>, Vec<u64>, Vec<u64>) {
    let mut first = vec![u32::MAX; runs];
    let mut rows = vec![0u64; runs];
    let mut units = vec![0u64; runs];
    let mut last_page = vec![u32::MAX; runs];
    let paged = pages.len() == rank.len();
    for (i, &r) in rank.iter().enumerate() {
        let r = r as usize;
        if first[r] == u32::MAX {
            first[r] = i as u32;
        }
        rows[r] += 1;
        if !paged {
            units[r] += 1;
        } else if last_page[r] != pages[i] {
            last_page[r] = pages[i];
            units[r] += 1;
        }
    }
    (first, rows, units)
}

/// [`build`] of several columns (index statistics on a multi-column key) without a vector per
/// row: each column's values ranked in sort order (integers or memcmp keys, as
/// [`build_single`] sorts them; 0 = NULL), the rows sorted by their tuples of ranks (packed
/// into one integer when they fit), then the density of every prefix and the leading column's
/// runs in one pass — the statistics [`build_rows`] gives (equal ranks are equal keys, ties by
/// position as its stable sort leaves them). The columns back when a value has no key encoding.
fn build_multi(
    cols: &[StatColumn],
    mut columns: Vec<Vec<Value>>,
    pages: &[u32],
    table_rows: u64,
    updated: &str,
) -> Result<StatisticsData, Vec<Vec<Value>>> {
    let rows = columns.first().map_or(0, Vec::len);
    if cols.len() < 2 || cols.len() != columns.len() || columns.iter().any(|c| c.len() != rows) {
        return Err(columns);
    }
    let mut ranks: Vec<Vec<u32>> = Vec::with_capacity(cols.len());
    for (col, values) in cols.iter().zip(&columns) {
        match ranks_of(col, values) {
            Some(r) => ranks.push(r),
            None => return Err(columns),
        }
    }
    let order = tuple_order(&ranks, rows);
    let n = cols.len();
    let sampled = rows as u64;
    // per prefix: each row's run in the sorted order (the leading column's run 0 is NULL when
    // there are NULLs), and each run's first row in that order
    let mut run_of: Vec<Vec<u32>> = vec![vec![0u32; rows]; n];
    let mut runs_n = vec![0usize; n];
    let mut lead_first: Vec<u32> = Vec::new();
    let mut prev: Option<usize> = None;
    for &i in &order {
        let first_diff = match prev {
            None => 0,
            Some(p) => (0..n).find(|&c| ranks[c][p] != ranks[c][i]).unwrap_or(n),
        };
        for r in runs_n.iter_mut().skip(first_diff) {
            *r += 1;
        }
        if first_diff == 0 {
            lead_first.push(i as u32);
        }
        for (k, of) in run_of.iter_mut().enumerate() {
            of[i] = runs_n[k] as u32 - 1;
        }
        prev = Some(i);
    }
    let mut counts: Vec<SampleCounts> = (0..n).map(|_| SampleCounts::new(sampled)).collect();
    let mut lead_units = Vec::new();
    for k in 0..n {
        let (_, run_rows, units) = rank_runs(&run_of[k], runs_n[k], pages);
        for (&r, &u) in run_rows.iter().zip(&units) {
            counts[k].distinct += 1;
            counts[k].close_run(r, u);
        }
        if k == 0 {
            lead_units = units;
        }
    }
    let mut length = Vec::with_capacity(n);
    let mut acc = 0.0;
    for values in &columns {
        acc += values.iter().map(value_length).sum::<f64>();
        length.push(acc);
    }
    let lead = &ranks[0];
    let null_rows = lead.iter().filter(|&&r| r == 0).count() as u64;
    // the leading column's runs: the value of each run's first row in the sorted order
    let skip = usize::from(null_rows > 0);
    let mut runs: Vec<(Value, u64)> = Vec::with_capacity(lead_first.len());
    let mut lead_rows = vec![0u64; lead_first.len()];
    for &r in &run_of[0] {
        lead_rows[r as usize] += 1;
    }
    for (&i, &r) in lead_first.iter().zip(&lead_rows).skip(skip) {
        runs.push((
            std::mem::replace(&mut columns[0][i as usize], Value::Null),
            r,
        ));
    }
    let units = lead_units.get(skip..).unwrap_or(&[]).to_vec();
    Ok(finish(
        cols,
        &counts,
        &length,
        null_rows,
        runs,
        &units,
        sampled,
        table_rows,
        updated.to_string(),
    ))
}

/// Per value its rank in the column's sort order (1 = the smallest; NULL 0); None when a value
/// has no key encoding.
fn ranks_of(col: &StatColumn, values: &[Value]) -> Option<Vec<u32>> {
    let present: Vec<u32> = (0..values.len() as u32)
        .filter(|&i| !values[i as usize].is_null())
        .collect();
    let mut rank = vec![0u32; values.len()];
    if let Some(keys) = integer_keys(values, &present) {
        match narrow(&keys) {
            Some(small) => rank_sorted(small, &mut rank),
            None => rank_sorted(keys, &mut rank),
        }
        return Some(rank);
    }
    let mut buf: Vec<u8> = Vec::new();
    let mut ends: Vec<usize> = Vec::with_capacity(present.len());
    for &i in &present {
        let v = &values[i as usize];
        types::key::encode_column(v, &v.data_type(), col.collation, &mut buf).ok()?;
        ends.push(buf.len());
    }
    let key = |k: usize| &buf[if k == 0 { 0 } else { ends[k - 1] }..ends[k]];
    // distinct keys numbered as met, then ranked by sorting only them
    let mut ids: HashMap<&[u8], u32> = HashMap::new();
    let mut id_of: Vec<u32> = Vec::with_capacity(present.len());
    for k in 0..present.len() {
        let next = ids.len() as u32;
        id_of.push(*ids.entry(key(k)).or_insert(next));
    }
    let mut distinct: Vec<(&[u8], u32)> = ids.into_iter().collect();
    distinct.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let mut rank_of_id = vec![0u32; distinct.len()];
    for (r, (_, id)) in distinct.into_iter().enumerate() {
        rank_of_id[id as usize] = r as u32 + 1;
    }
    for (&i, id) in present.iter().zip(id_of) {
        rank[i as usize] = rank_of_id[id as usize];
    }
    Some(rank)
}

/// Writes each position's dense rank (from 1) of its key into `rank`.
fn rank_sorted<K: Ord + Copy>(mut keys: Vec<(K, u32)>, rank: &mut [u32]) {
    keys.sort_unstable();
    let mut r = 0u32;
    let mut last: Option<K> = None;
    for (k, i) in keys {
        if last != Some(k) {
            r += 1;
            last = Some(k);
        }
        rank[i as usize] = r;
    }
}

/// Row positions sorted by their tuples of ranks, ties by position: one u64 per row when the
/// ranks' bits fit in it, else slices compared.
fn tuple_order(ranks: &[Vec<u32>], rows: usize) -> Vec<usize> {
    let bits: Vec<u32> = ranks
        .iter()
        .map(|r| 32 - r.iter().copied().max().unwrap_or(0).leading_zeros())
        .collect();
    if bits.iter().sum::<u32>() <= 64 {
        let mut keyed: Vec<(u64, u32)> = (0..rows)
            .map(|i| {
                let mut k = 0u64;
                for (r, &b) in ranks.iter().zip(&bits) {
                    // b <= 32 and the bits sum to at most 64: no shift overflows
                    k = (k << b) | u64::from(r[i]);
                }
                (k, i as u32)
            })
            .collect();
        keyed.sort_unstable();
        return keyed.into_iter().map(|(_, i)| i as usize).collect();
    }
    let mut order: Vec<usize> = (0..rows).collect();
    order.sort_by(|&a, &b| {
        ranks
            .iter()
            .map(|r| r[a].cmp(&r[b]))
            .find(|o| *o != Ordering::Equal)
            .unwrap_or(Ordering::Equal)
    });
    order
}

/// Per present value an integer whose order is `types::sort_cmp`'s, with its position: when
/// every value is of one variant that has one (integers, money, decimals of one scale, dates,
/// times and date-times of one type).
fn integer_keys(values: &[Value], present: &[u32]) -> Option<Vec<(i128, u32)>> {
    let first = values.get(*present.first()? as usize)?;
    let kind = std::mem::discriminant(first);
    let scale = match first {
        Value::Decimal { scale, .. } => Some(*scale),
        _ => None,
    };
    let mut out = Vec::with_capacity(present.len());
    for &i in present {
        let v = &values[i as usize];
        if std::mem::discriminant(v) != kind {
            return None;
        }
        let k: i128 = match v {
            Value::Bit(b) => i128::from(*b),
            Value::TinyInt(x) => i128::from(*x),
            Value::SmallInt(x) => i128::from(*x),
            Value::Int(x) | Value::Date(x) => i128::from(*x),
            Value::BigInt(x) | Value::Money(x) | Value::SmallMoney(x) | Value::Time(x) => {
                i128::from(*x)
            }
            Value::Decimal { mantissa, scale: s } if Some(*s) == scale => *mantissa,
            Value::DateTime { days, ticks }
            | Value::DateTime2 { days, ticks }
            | Value::SmallDateTime { days, ticks }
                if *ticks >= 0 =>
            {
                (i128::from(*days) << 64) | i128::from(*ticks)
            }
            _ => return None,
        };
        out.push((k, i));
    }
    Some(out)
}

/// The keys as i64 when they all fit (half the bytes to sort).
fn narrow(keys: &[(i128, u32)]) -> Option<Vec<(i64, u32)>> {
    keys.iter()
        .map(|&(k, i)| i64::try_from(k).ok().map(|k| (k, i)))
        .collect()
}

/// The statistics data from the sample's counts: `counts` and `length` (summed bytes) per
/// column prefix, the leading column's NULL rows and the runs `(value, rows)` of its other
/// values in order, with `units[i]`: the sampled pages run i was seen on (its rows when not
/// known), which scale the histogram's distinct counts as [`SampleCounts`] does the density's.
#[allow(clippy::too_many_arguments)]
fn finish(
    cols: &[StatColumn],
    counts: &[SampleCounts],
    length: &[f64],
    null_rows: u64,
    runs: Vec<(Value, u64)>,
    units: &[u64],
    sampled: u64,
    table_rows: u64,
    updated: String,
) -> StatisticsData {
    let rows_total = table_rows.max(sampled);
    let scale = if sampled == 0 {
        1.0
    } else {
        rows_total as f64 / sampled as f64
    };
    let density = counts
        .iter()
        .enumerate()
        .map(|(k, c)| DensityEntry {
            columns: cols[..=k].iter().map(|c| c.name.clone()).collect(),
            all_density: if c.distinct == 0 {
                0.0
            } else {
                1.0 / c.scaled(rows_total as f64)
            },
            average_length: if sampled == 0 {
                0.0
            } else {
                length[k] / sampled as f64
            },
        })
        .collect();
    let steps = compress(runs, units, MAX_HISTOGRAM_STEPS)
        .into_iter()
        .map(|s| {
            let range_rows = s.range as f64 * scale;
            let distinct_range = if s.distinct_range == 0 {
                0.0
            } else {
                let units = s.range_units as f64;
                scale_distinct(
                    s.distinct_range,
                    s.range_singles,
                    s.range_units,
                    units * scale,
                )
                .min(range_rows)
            };
            HistogramStep {
                range_hi_key: s.key,
                range_rows,
                eq_rows: s.eq as f64 * scale,
                distinct_range_rows: distinct_range,
                avg_range_rows: if distinct_range == 0.0 {
                    1.0
                } else {
                    (range_rows / distinct_range).max(1.0)
                },
            }
        })
        .collect();
    StatisticsData {
        rows: rows_total,
        rows_sampled: sampled,
        null_rows: null_rows as f64 * scale,
        steps,
        density,
        updated,
    }
}

/// Per statistics column: every row's value as a memcmp-comparable key (`types::key`, whose
/// byte order is `types::sort_cmp`'s: NULL first, strings by collation sort key, numerics by
/// value); None for a column a value of which has no key encoding (compared by value then).
type SortKeys = Vec<Option<Vec<Vec<u8>>>>;

/// `rows` sorted by the statistics columns (stable), with their keys in the same order. Each
/// value is encoded once: `types::sort_cmp` dispatches on the types, converts numerics and
/// (strings) trims, checks for ASCII and looks up weights at every one of the sort's n log n
/// comparisons, which made the sort most of a build's time; keys compare with memcmp.
fn sort_rows(cols: &[StatColumn], rows: Vec<Vec<Value>>) -> (Vec<Vec<Value>>, SortKeys) {
    let keys: SortKeys = cols
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut out = Vec::with_capacity(rows.len());
            for r in &rows {
                let mut k = Vec::new();
                let v = &r[i];
                types::key::encode_column(v, &v.data_type(), c.collation, &mut k).ok()?;
                out.push(k);
            }
            Some(out)
        })
        .collect();
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by(|&a, &b| {
        (0..cols.len())
            .map(|i| cmp_at(&rows, &keys, cols, a, b, i))
            .find(|o| *o != Ordering::Equal)
            .unwrap_or(Ordering::Equal)
    });
    let mut rows: Vec<Option<Vec<Value>>> = rows.into_iter().map(Some).collect();
    let sorted = order
        .iter()
        .map(|&i| rows[i].take().unwrap_or_default())
        .collect();
    let keys = keys
        .into_iter()
        .map(|k| k.map(|mut k| order.iter().map(|&i| std::mem::take(&mut k[i])).collect()))
        .collect();
    (sorted, keys)
}

/// Order of rows `a` and `b` on statistics column `i` (their keys when encoded).
fn cmp_at(
    rows: &[Vec<Value>],
    keys: &SortKeys,
    cols: &[StatColumn],
    a: usize,
    b: usize,
    i: usize,
) -> Ordering {
    match &keys[i] {
        Some(k) => k[a].cmp(&k[b]),
        None => types::sort_cmp(&rows[a][i], &rows[b][i], cols[i].collation),
    }
}

/// Distinct values in a population of `population` rows from a sample of `sampled` rows that
/// held `distinct` values, `singles` of them once: Haas and Stokes' Duj1 estimator
/// `d / (1 - (1 - q) f1 / n)` with q = n / N (SQL Server scales a sample's distinct counts
/// up; the sample's own count is only a lower bound). A sample whose values are all singles
/// (a key) scales to the population; one whose values all repeat (few values, all seen) stays.
/// Bounded by the sample's count and by every unseen row being a new value. The whole table
/// (n = N) returns `distinct` itself.
pub(crate) fn scale_distinct(distinct: u64, singles: u64, sampled: u64, population: f64) -> f64 {
    let (d, n) = (distinct as f64, sampled as f64);
    if sampled == 0 || population <= n {
        return d;
    }
    let q = n / population;
    let f1 = (singles as f64).min(n);
    let denominator = 1.0 - (1.0 - q) * f1 / n;
    let estimate = if denominator > 0.0 {
        d / denominator
    } else {
        population
    };
    estimate.clamp(d, d + (population - n))
}

/// A sample's counts of one column prefix: distinct values, values seen once, and the sum of
/// the squared frequencies (for the skew test).
///
/// Frequencies count *units*: a value's distinct sampled pages, not its rows. The sample takes
/// whole pages, and a table stored in the order of a column (a clustered key's leading column:
/// TPC-H partsupp holds each ps_partkey's four rows on one page) shows each sampled value with
/// all of its rows: counted by rows no value is seen once, and the estimators conclude that the
/// sample saw every value (q02's part-partsupp join was off 39x from that). Counted by pages, a
/// value seen on one page is a single again, as it would be in a sample of rows; a column
/// whose equal values do not share pages gets the same counts either way.
struct SampleCounts {
    distinct: u64,
    singles: u64,
    squares: f64,
    /// Rows of the sample.
    sampled: u64,
    /// Units of the sample (the runs' units summed).
    units: u64,
}

impl SampleCounts {
    fn new(sampled: u64) -> Self {
        SampleCounts {
            distinct: 0,
            singles: 0,
            squares: 0.0,
            sampled,
            units: 0,
        }
    }

    /// Counts a finished run of `rows` equal prefixes seen on `units` sampled pages (`rows`
    /// when not known; 0: none yet).
    fn close_run(&mut self, rows: u64, units: u64) {
        let units = units.min(rows);
        if units == 1 {
            self.singles += 1;
        }
        self.squares += (units as f64).powi(2);
        self.units += units;
    }

    /// Distinct values in a population of `population` rows: Haas and Stokes' hybrid — Duj1
    /// ([`scale_distinct`]) when the sample's frequencies pass a chi-squared test of
    /// uniformity, else the larger of Duj1 and GEE (`sqrt(N/n) f1 + (d - f1)`, within a factor
    /// sqrt(N/n) of the truth whatever the skew): Duj1 alone underestimates skewed columns,
    /// whose many rare values the sample mostly misses.
    fn scaled(&self, rows: f64) -> f64 {
        // the population in units: the sample's units scaled as its rows are
        let population = if self.sampled == 0 {
            rows
        } else {
            rows * self.units as f64 / self.sampled as f64
        };
        let duj1 = scale_distinct(self.distinct, self.singles, self.units, population);
        let (d, n) = (self.distinct as f64, self.units as f64);
        if self.units == 0 || population <= n || self.distinct < 2 {
            return duj1;
        }
        // chi-squared statistic of the frequencies against their mean n/d, with d - 1
        // degrees of freedom; skewed past the normal approximation's 97.7 % quantile
        let mean = n / d;
        let chi2 = (self.squares - 2.0 * mean * n + d * mean * mean) / mean;
        let critical = (d - 1.0) + 2.0 * (2.0 * (d - 1.0)).sqrt();
        if chi2 <= critical {
            return duj1;
        }
        let f1 = self.singles as f64;
        let gee = (population / n).sqrt() * f1 + (d - f1);
        duj1.max(gee).min(d + (population - n))
    }
}

/// A histogram step while it is built (counts in sampled rows).
struct Step {
    key: Value,
    eq: u64,
    range: u64,
    distinct_range: u64,
    /// Values of the range seen once (on one page: [`SampleCounts`]), for [`scale_distinct`].
    range_singles: u64,
    /// Units (sampled pages per value, [`SampleCounts`]) of the range's values.
    range_units: u64,
}

/// Folds the runs `(value, count)` (ascending, distinct) into at most `max_steps` steps (module
/// doc). `units[i]`: run i's units ([`SampleCounts`]; its rows when `units` is shorter).
fn compress(runs: Vec<(Value, u64)>, units: &[u64], max_steps: usize) -> Vec<Step> {
    let n = runs.len();
    let units: Vec<u64> = runs
        .iter()
        .enumerate()
        .map(|(i, r)| units.get(i).copied().unwrap_or(r.1).min(r.1))
        .collect();
    if n <= max_steps || max_steps < 2 {
        return runs
            .into_iter()
            .map(|(key, eq)| Step {
                key,
                eq,
                range: 0,
                distinct_range: 0,
                range_singles: 0,
                range_units: 0,
            })
            .collect();
    }
    // the counts apart from the keys (the loop reads them at random: dense arrays)
    let eq: Vec<u64> = runs.iter().map(|r| r.1).collect();
    let mut range = vec![0u64; n];
    let mut distinct_range = vec![0u64; n];
    let mut range_singles = vec![0u64; n];
    let mut range_units = vec![0u64; n];
    let mut alive = vec![true; n];
    let mut prev: Vec<usize> = (0..n).map(|i| i.wrapping_sub(1)).collect();
    let mut next: Vec<usize> = (1..=n).collect();
    // a heap entry is (cost << 32 | step) in one u64, smallest first: cost, then position, as
    // the steps are taken. A step's cost only grows (what is folded into it or its successor
    // has at least one row), so an entry whose cost is not the step's current one is stale;
    // a sample holds at most MAX_BUILD_ROWS (< 2^32) rows, so neither field overflows (a cost
    // past 2^32 - 1 would only be saturated)
    let cost = |range: &[u64], eq: &[u64], next: &[usize], i: usize| -> u64 {
        range[i] + eq[i] + range[next[i]]
    };
    let entry = |c: u64, i: usize| (c.min(u64::from(u32::MAX)) << 32) | i as u64;
    // the entries pushed after a pop are larger than it (costs grow): a radix heap
    let mut heap = RadixHeap::default();
    for i in 1..n - 1 {
        heap.push(entry(cost(&range, &eq, &next, i), i));
    }
    let mut count = n;
    while count > max_steps {
        let Some(e) = heap.pop() else {
            break;
        };
        let i = (e & u64::from(u32::MAX)) as usize;
        if !alive[i] || e != entry(cost(&range, &eq, &next, i), i) {
            continue;
        }
        let (p, nx) = (prev[i], next[i]);
        range[nx] += range[i] + eq[i];
        distinct_range[nx] += distinct_range[i] + 1;
        range_singles[nx] += range_singles[i] + u64::from(units[i] == 1);
        range_units[nx] += range_units[i] + units[i];
        alive[i] = false;
        next[p] = nx;
        prev[nx] = p;
        count -= 1;
        for j in [p, nx] {
            if j != 0 && j != n - 1 && alive[j] {
                heap.push(entry(cost(&range, &eq, &next, j), j));
            }
        }
    }
    runs.into_iter()
        .enumerate()
        .filter(|(i, _)| alive[*i])
        .map(|(i, (key, _))| Step {
            key,
            eq: eq[i],
            range: range[i],
            distinct_range: distinct_range[i],
            range_singles: range_singles[i],
            range_units: range_units[i],
        })
        .collect()
}

/// A monotone priority queue of u64 keys (a radix heap): every key pushed is at least the last
/// one popped, which lets a push be one append to the bucket of the highest bit in which the
/// key differs from the last popped, and a pop redistribute one bucket only when the smallest
/// is empty (each key moves to lower buckets at most 64 times; no comparisons along a tree of
/// scattered entries, which made `BinaryHeap::pop` a build's largest cost).
struct RadixHeap {
    last: u64,
    buckets: [Vec<u64>; 65],
}

impl Default for RadixHeap {
    fn default() -> Self {
        RadixHeap {
            last: 0,
            buckets: std::array::from_fn(|_| Vec::new()),
        }
    }
}

impl RadixHeap {
    fn bucket(&self, key: u64) -> usize {
        // a key below the last popped (never pushed by compress) goes to bucket 0: popped next
        (64 - (key ^ self.last).leading_zeros() as usize) * usize::from(key >= self.last)
    }

    fn push(&mut self, key: u64) {
        let b = self.bucket(key);
        self.buckets[b].push(key);
    }

    fn pop(&mut self) -> Option<u64> {
        if self.buckets[0].is_empty() {
            let b = self.buckets.iter().position(|b| !b.is_empty())?;
            let moved = std::mem::take(&mut self.buckets[b]);
            self.last = moved.iter().copied().min()?;
            for &k in &moved {
                let to = self.bucket(k);
                self.buckets[to].push(k);
            }
            // keep the allocation for the bucket's next keys
            let mut moved = moved;
            moved.clear();
            if self.buckets[b].is_empty() {
                self.buckets[b] = moved;
            }
        }
        self.buckets[0].pop()
    }
}

/// Bytes a value takes (the density vector's "Average Length"): the stored length of strings
/// and binaries, the fixed size of the other types; NULL counts 0.
pub(crate) fn value_length(v: &Value) -> f64 {
    (match v {
        Value::Null => 0,
        Value::Bit(_) | Value::TinyInt(_) => 1,
        Value::SmallInt(_) => 2,
        Value::Int(_) | Value::Real(_) | Value::SmallMoney(_) => 4,
        Value::BigInt(_) | Value::Float(_) | Value::Money(_) => 8,
        Value::Decimal { mantissa, .. } => match mantissa.unsigned_abs() {
            0..=999_999_999 => 5,
            1_000_000_000..=9_999_999_999_999_999_999 => 9,
            _ => 17,
        },
        Value::Char(s) | Value::VarChar(s) => s.len(),
        Value::NChar(s) | Value::NVarChar(s) => s.encode_utf16().count() * 2,
        Value::Binary(b) | Value::VarBinary(b) => b.len(),
        Value::Date(_) => 3,
        Value::Time(_) => 5,
        Value::DateTime { .. } => 8,
        Value::DateTime2 { .. } => 8,
        Value::SmallDateTime { .. } => 4,
        Value::DateTimeOffset { .. } => 10,
        Value::UniqueIdentifier(_) => 16,
    }) as f64
}

#[cfg(test)]
mod tests {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    use super::*;

    fn col(name: &str) -> StatColumn {
        StatColumn {
            name: name.into(),
            collation: Collation::DEFAULT,
        }
    }

    /// [`super::build`] of rows (one value per statistics column).
    fn build(cols: &[StatColumn], rows: Vec<Vec<Value>>, n: u64, at: String) -> StatisticsData {
        let mut columns: Vec<Vec<Value>> = vec![Vec::new(); cols.len()];
        for row in rows {
            for (c, v) in columns.iter_mut().zip(row) {
                c.push(v);
            }
        }
        super::build(cols, columns, &[], n, at)
    }

    /// A deterministic pseudo-random sequence (xorshift).
    fn noise(n: usize) -> Vec<u64> {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        (0..n)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed
            })
            .collect()
    }

    /// The step folding as first written (tuples with a version per step in the heap): the
    /// reference [`compress`] must match.
    fn compress_reference(runs: Vec<(Value, u64)>, max_steps: usize) -> Vec<Step> {
        let mut steps: Vec<Step> = runs
            .into_iter()
            .map(|(key, eq)| Step {
                key,
                eq,
                range: 0,
                distinct_range: 0,
                range_singles: 0,
                range_units: 0,
            })
            .collect();
        let n = steps.len();
        if n <= max_steps || max_steps < 2 {
            return steps;
        }
        let mut alive = vec![true; n];
        let mut prev: Vec<usize> = (0..n).map(|i| i.wrapping_sub(1)).collect();
        let mut next: Vec<usize> = (1..=n).collect();
        let mut version = vec![0u32; n];
        let cost = |steps: &[Step], next: &[usize], i: usize| -> u64 {
            steps[i].range + steps[i].eq + steps[next[i]].range
        };
        let mut heap = BinaryHeap::new();
        for i in 1..n - 1 {
            heap.push(Reverse((cost(&steps, &next, i), i, 0u32)));
        }
        let mut count = n;
        while count > max_steps {
            let Some(Reverse((_, i, v))) = heap.pop() else {
                break;
            };
            if !alive[i] || v != version[i] {
                continue;
            }
            let (p, nx) = (prev[i], next[i]);
            let folded_rows = steps[i].range + steps[i].eq;
            let folded_distinct = steps[i].distinct_range + 1;
            let folded_singles = steps[i].range_singles + u64::from(steps[i].eq == 1);
            steps[nx].range += folded_rows;
            steps[nx].distinct_range += folded_distinct;
            steps[nx].range_singles += folded_singles;
            alive[i] = false;
            next[p] = nx;
            prev[nx] = p;
            count -= 1;
            for j in [p, nx] {
                if j != 0 && j != n - 1 && alive[j] {
                    version[j] += 1;
                    heap.push(Reverse((cost(&steps, &next, j), j, version[j])));
                }
            }
        }
        steps
            .into_iter()
            .zip(alive)
            .filter_map(|(s, a)| a.then_some(s))
            .collect()
    }

    #[test]
    fn compress_folds_as_the_reference_does() {
        let r = noise(30_000);
        let shapes: Vec<Vec<u64>> = vec![
            vec![1; 30_000],
            r.iter().map(|x| x % 5 + 1).collect(),
            r.iter()
                .map(|x| if x % 97 == 0 { 400 } else { x % 3 + 1 })
                .collect(),
            (1..=5_000u64).map(|v| (20_000 / v).max(1)).collect(),
            r[..150].iter().map(|x| x % 9 + 1).collect(),
        ];
        for (k, eqs) in shapes.into_iter().enumerate() {
            let runs: Vec<(Value, u64)> = eqs
                .iter()
                .enumerate()
                .map(|(i, &e)| (Value::Int(i as i32), e))
                .collect();
            for max in [2, 3, 200] {
                let got = compress(runs.clone(), &[], max);
                let want = compress_reference(runs.clone(), max);
                let view = |s: &[Step]| -> Vec<(Value, u64, u64, u64, u64)> {
                    s.iter()
                        .map(|s| {
                            (
                                s.key.clone(),
                                s.eq,
                                s.range,
                                s.distinct_range,
                                s.range_singles,
                            )
                        })
                        .collect()
                };
                assert_eq!(view(&got), view(&want), "shape {k}, {max} steps");
                assert_eq!(got.len(), max.min(eqs.len()), "shape {k}");
            }
        }
    }

    #[test]
    fn one_column_builds_as_the_general_row_build_does() {
        let r = noise(20_000);
        let columns: Vec<(&str, Collation, Vec<Value>)> = vec![
            (
                "int with NULLs, skewed",
                Collation::DEFAULT,
                r.iter()
                    .map(|&x| match x % 7 {
                        0 => Value::Null,
                        1 | 2 => Value::Int(5),
                        _ => Value::Int((x % 3000) as i32 - 1500),
                    })
                    .collect(),
            ),
            (
                "bigint keys past i64 in i128: none; a key",
                Collation::DEFAULT,
                (0..20_000i64)
                    .map(|i| Value::BigInt(i * 1_000_003 - 7))
                    .collect(),
            ),
            (
                "decimal(15,2)",
                Collation::DEFAULT,
                r.iter()
                    .map(|&x| Value::Decimal {
                        mantissa: (x % 100_000) as i128 - 50_000,
                        scale: 2,
                    })
                    .collect(),
            ),
            (
                "decimal of mixed scales (compared by value)",
                Collation::DEFAULT,
                r.iter()
                    .map(|&x| Value::Decimal {
                        mantissa: (x % 500) as i128,
                        scale: (x % 2) as u8,
                    })
                    .collect(),
            ),
            (
                "date",
                Collation::DEFAULT,
                r.iter()
                    .map(|&x| Value::Date(730_000 + (x % 2_500) as i32))
                    .collect(),
            ),
            (
                "datetime",
                Collation::DEFAULT,
                r.iter()
                    .map(|&x| Value::DateTime {
                        days: (x % 40) as i32,
                        ticks: ((x >> 8) % 5) as i64,
                    })
                    .collect(),
            ),
            (
                "varchar, case-insensitive",
                Collation::DEFAULT,
                r.iter()
                    .map(|&x| {
                        let s = format!("Value{}", x % 900);
                        Value::VarChar(if x % 2 == 0 { s.to_uppercase() } else { s })
                    })
                    .collect(),
            ),
            (
                "char, case-sensitive, with NULLs",
                Collation::CS_AS,
                r.iter()
                    .map(|&x| match x % 11 {
                        0 => Value::Null,
                        _ => Value::Char(format!("{:<8}", ["a", "A", "b", "B"][(x % 4) as usize])),
                    })
                    .collect(),
            ),
            (
                "float",
                Collation::DEFAULT,
                r.iter()
                    .map(|&x| Value::Float((x % 1000) as f64 / 7.0 - 50.0))
                    .collect(),
            ),
        ];
        for (what, collation, values) in columns {
            let c = || StatColumn {
                name: "c".into(),
                collation,
            };
            let rows: Vec<Vec<Value>> = values.iter().map(|v| vec![v.clone()]).collect();
            let general = build_rows(&[c()], rows, 100_000, String::new());
            let single = super::build(&[c()], vec![values], &[], 100_000, String::new());
            assert_eq!(single, general, "{what}");
            assert!(!single.steps.is_empty(), "{what}");
        }
    }

    #[test]
    fn several_columns_build_as_the_general_row_build_does() {
        let r = noise(20_000);
        let ints_nulls: Vec<Value> = r
            .iter()
            .map(|&x| match x % 7 {
                0 => Value::Null,
                1 | 2 => Value::Int(5),
                _ => Value::Int((x % 3000) as i32 - 1500),
            })
            .collect();
        let text: Vec<Value> = r
            .iter()
            .map(|&x| {
                let s = format!("Value{}", (x >> 9) % 40);
                Value::VarChar(if x % 2 == 0 { s.to_uppercase() } else { s })
            })
            .collect();
        let key: Vec<Value> = (0..20_000i64).map(|i| Value::BigInt(i / 4)).collect();
        let line: Vec<Value> = (0..20_000i32).map(|i| Value::Int(i % 4 + 1)).collect();
        let floats: Vec<Value> = r
            .iter()
            .map(|&x| Value::Float(((x >> 5) % 50) as f64 / 7.0))
            .collect();
        let mixed: Vec<Value> = r
            .iter()
            .map(|&x| Value::Decimal {
                mantissa: ((x >> 3) % 500) as i128,
                scale: (x % 2) as u8,
            })
            .collect();
        let wide: Vec<Value> = (0..20_000i32).map(|i| Value::Int(i * 7 % 19_997)).collect();
        let sets: Vec<(&str, Vec<Vec<Value>>)> = vec![
            (
                "int with NULLs, varchar",
                vec![ints_nulls.clone(), text.clone()],
            ),
            (
                "varchar, int with NULLs",
                vec![text.clone(), ints_nulls.clone()],
            ),
            ("a (key, line) primary key", vec![key.clone(), line.clone()]),
            ("float, mixed decimals, int", vec![floats, mixed, line]),
            (
                "five wide columns (ranks past 64 bits)",
                vec![wide.clone(), key, wide.clone(), ints_nulls, wide],
            ),
        ];
        for (what, columns) in sets {
            let cols: Vec<StatColumn> = (0..columns.len()).map(|i| col(&format!("c{i}"))).collect();
            let n = columns[0].len();
            let rows: Vec<Vec<Value>> = (0..n)
                .map(|r| columns.iter().map(|c| c[r].clone()).collect())
                .collect();
            let general = build_rows(&cols, rows, 100_000, String::new());
            let multi = super::build(&cols, columns, &[], 100_000, String::new());
            assert_eq!(multi, general, "{what}");
            assert_eq!(multi.density.len(), cols.len(), "{what}");
        }
    }

    /// A page sample of a table stored in the order of its column: every value's rows share a
    /// page, so the sample sees each value it sees with all its rows. Counted by pages the
    /// distinct count scales to the table's (200,000 values), counted by rows it stays the
    /// sample's (~20,000). A column whose equal values never share a page counts the same both
    /// ways.
    #[test]
    fn a_clustered_columns_sample_scales_by_its_pages() {
        // 800,000 rows: values 0..200,000 four rows each, in order, 50 rows a page; every
        // tenth page sampled
        let (rows, per_page) = (800_000usize, 50usize);
        let sampled: Vec<usize> = (0..rows).filter(|r| (r / per_page) % 10 == 3).collect();
        let pages: Vec<u32> = sampled.iter().map(|r| (r / per_page / 10) as u32).collect();
        let clustered: Vec<Value> = sampled
            .iter()
            .map(|&r| Value::Int((r / 4) as i32))
            .collect();
        let by_pages = super::build(
            &[col("k")],
            vec![clustered.clone()],
            &pages,
            rows as u64,
            String::new(),
        );
        let by_rows = super::build(
            &[col("k")],
            vec![clustered],
            &[],
            rows as u64,
            String::new(),
        );
        let distinct = |d: &StatisticsData| 1.0 / d.density[0].all_density;
        assert!(
            (distinct(&by_pages) / 200_000.0 - 1.0).abs() < 0.1,
            "by pages: {}",
            distinct(&by_pages)
        );
        assert!(
            distinct(&by_rows) < 25_000.0,
            "by rows: {}",
            distinct(&by_rows)
        );
        // the histogram's steps too: about 4 rows per value in a step's range
        let step = &by_pages.steps[100];
        assert!(
            step.avg_range_rows < 6.0,
            "AVG_RANGE_ROWS {}",
            step.avg_range_rows
        );
        // a multi-column key led by the clustered column scales the same
        let line: Vec<Value> = sampled
            .iter()
            .map(|&r| Value::Int((r % 4) as i32))
            .collect();
        let lead: Vec<Value> = sampled
            .iter()
            .map(|&r| Value::Int((r / 4) as i32))
            .collect();
        let multi = super::build(
            &[col("k"), col("l")],
            vec![lead, line],
            &pages,
            rows as u64,
            String::new(),
        );
        assert_eq!(
            multi.density[0].all_density,
            by_pages.density[0].all_density
        );
        assert_eq!(multi.steps, by_pages.steps);
        // values spread over the pages (no two equal in a page): the same either way
        let spread: Vec<Value> = sampled
            .iter()
            .map(|&r| Value::Int((r % 1000) as i32))
            .collect();
        assert_eq!(
            super::build(
                &[col("s")],
                vec![spread.clone()],
                &pages,
                rows as u64,
                String::new()
            ),
            super::build(&[col("s")], vec![spread], &[], rows as u64, String::new())
        );
    }

    fn ints(vals: &[i32]) -> Vec<Vec<Value>> {
        vals.iter().map(|&v| vec![Value::Int(v)]).collect()
    }

    #[test]
    fn few_distinct_values_get_one_step_each() {
        let d = build(&[col("a")], ints(&[3, 1, 2, 2, 3, 3]), 6, String::new());
        let keys: Vec<_> = d.steps.iter().map(|s| s.range_hi_key.clone()).collect();
        assert_eq!(keys, vec![Value::Int(1), Value::Int(2), Value::Int(3)]);
        let eq: Vec<f64> = d.steps.iter().map(|s| s.eq_rows).collect();
        assert_eq!(eq, vec![1.0, 2.0, 3.0]);
        assert!(d.steps.iter().all(|s| s.range_rows == 0.0));
        assert_eq!(d.density[0].all_density, 1.0 / 3.0);
        assert_eq!(d.density[0].average_length, 4.0);
    }

    #[test]
    fn many_values_compress_to_200_steps_keeping_every_row() {
        let vals: Vec<i32> = (0..1000).collect();
        let d = build(&[col("a")], ints(&vals), 1000, String::new());
        assert_eq!(d.steps.len(), MAX_HISTOGRAM_STEPS);
        let total: f64 = d.steps.iter().map(|s| s.range_rows + s.eq_rows).sum();
        assert_eq!(total, 1000.0);
        let distinct: f64 = d.steps.iter().map(|s| s.distinct_range_rows + 1.0).sum();
        assert_eq!(distinct, 1000.0);
        assert_eq!(d.steps[0].range_hi_key, Value::Int(0));
        assert_eq!(d.steps[199].range_hi_key, Value::Int(999));
        // uniform data: ranges of similar weight (999 values over 199 ranges, about 4 each)
        let (lo, hi) = d.steps[1..].iter().fold((f64::MAX, 0f64), |(l, h), s| {
            (l.min(s.range_rows), h.max(s.range_rows))
        });
        assert!(lo >= 2.0 && hi <= 7.0, "ranges {lo}..{hi}");
    }

    #[test]
    fn a_frequent_value_keeps_its_own_step() {
        let mut vals: Vec<i32> = (0..2000).collect();
        vals.extend(std::iter::repeat_n(777, 5000));
        let d = build(&[col("a")], ints(&vals), 7000, String::new());
        let s = d
            .steps
            .iter()
            .find(|s| s.range_hi_key == Value::Int(777))
            .expect("777 is a step");
        assert_eq!(s.eq_rows, 5001.0);
    }

    #[test]
    fn nulls_are_counted_apart_and_in_the_density() {
        let rows = vec![
            vec![Value::Null, Value::Int(1)],
            vec![Value::Null, Value::Int(2)],
            vec![Value::Int(5), Value::Int(1)],
            vec![Value::Int(5), Value::Int(1)],
        ];
        let d = build(&[col("a"), col("b")], rows, 4, String::new());
        assert_eq!(d.null_rows, 2.0);
        assert_eq!(d.steps.len(), 1);
        // a: {NULL, 5}; (a, b): {(NULL,1), (NULL,2), (5,1)}
        assert_eq!(d.density[0].all_density, 0.5);
        assert_eq!(d.density[1].all_density, 1.0 / 3.0);
        assert_eq!(d.density[1].columns, vec!["a".to_string(), "b".to_string()]);
    }

    #[test]
    fn strings_compare_with_the_column_collation() {
        let rows = vec![
            vec![Value::VarChar("abc".into())],
            vec![Value::VarChar("ABC".into())],
            vec![Value::VarChar("b".into())],
        ];
        let d = build(&[col("s")], rows.clone(), 3, String::new());
        assert_eq!(d.steps.len(), 2, "case-insensitive default: abc = ABC");
        let cs = StatColumn {
            name: "s".into(),
            collation: Collation::CS_AS,
        };
        assert_eq!(build(&[cs], rows, 3, String::new()).steps.len(), 3);
    }

    #[test]
    fn string_sort_keys_order_as_the_collation_compares() {
        let v = |s: &str| vec![Value::VarChar(s.into())];
        let rows = vec![
            v("b "),
            v("B"),
            vec![Value::Null],
            v("a"),
            v("A  "),
            v("\u{e4}"),
            v("c"),
        ];
        let d = build(&[col("s")], rows.clone(), 7, String::new());
        // trailing spaces and case do not count (CI_AS); NULL apart; ä sorts after a and A
        let steps: Vec<(Value, f64)> = d
            .steps
            .iter()
            .map(|s| (s.range_hi_key.clone(), s.eq_rows))
            .collect();
        assert_eq!(d.null_rows, 1.0);
        assert_eq!(steps.len(), 4, "{steps:?}");
        assert_eq!(steps[0].1, 2.0);
        assert_eq!(steps[1].0, Value::VarChar("\u{e4}".into()));
        assert_eq!(steps[2].1, 2.0);
        // the same order as comparing the values themselves
        let mut by_value = rows;
        by_value.sort_by(|a, b| types::sort_cmp(&a[0], &b[0], Collation::DEFAULT));
        let (sorted, _) = sort_rows(&[col("s")], by_value.clone());
        assert_eq!(sorted, by_value);
    }

    /// Every row kept with probability `fraction` (xorshift, fixed seed).
    fn sample_rows(rows: &[Vec<Value>], fraction: f64) -> Vec<Vec<Value>> {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        rows.iter()
            .filter(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                ((seed >> 11) as f64 / (1u64 << 53) as f64) < fraction
            })
            .cloned()
            .collect()
    }

    /// Distinct values the density vector's first entry stands for.
    fn distinct_of(d: &StatisticsData) -> f64 {
        1.0 / d.density[0].all_density
    }

    /// (FULLSCAN's distinct count, a 10 % sample's scaled count, the sample's raw count).
    fn fullscan_vs_sample(vals: &[i32]) -> (f64, f64, f64) {
        let rows = ints(vals);
        let n = rows.len() as u64;
        let full = build(&[col("a")], rows.clone(), n, String::new());
        let sample = sample_rows(&rows, 0.1);
        let mut seen: Vec<i32> = sample
            .iter()
            .filter_map(|r| match r[0] {
                Value::Int(v) => Some(v),
                _ => None,
            })
            .collect();
        seen.sort_unstable();
        seen.dedup();
        let scaled = build(&[col("a")], sample, n, String::new());
        (distinct_of(&full), distinct_of(&scaled), seen.len() as f64)
    }

    #[test]
    fn a_samples_distinct_count_scales_to_fullscans_on_a_uniform_column() {
        // 10,000 values, 10 rows each: a 10 % sample sees about 63 % of them
        let vals: Vec<i32> = (0..100_000).map(|i| i % 10_000).collect();
        let (full, scaled, raw) = fullscan_vs_sample(&vals);
        assert_eq!(full, 10_000.0);
        assert!(raw < 7_000.0, "the sample alone undercounts: {raw}");
        assert!(
            (scaled / full - 1.0).abs() < 0.05,
            "scaled {scaled} vs {full}"
        );
        // a key: every sampled value is seen once, so the estimate is the table's rows
        let keys: Vec<i32> = (0..100_000).collect();
        let (full, scaled, _) = fullscan_vs_sample(&keys);
        assert!(
            (scaled / full - 1.0).abs() < 0.02,
            "scaled {scaled} vs {full}"
        );
        // few values, all in the sample: nothing to scale
        let few: Vec<i32> = (0..100_000).map(|i| i % 10).collect();
        assert_eq!(fullscan_vs_sample(&few).1, 10.0);
    }

    #[test]
    fn a_samples_distinct_count_scales_to_fullscans_on_a_skewed_column() {
        // value v appears 20,000 / v times (Zipf): 5,000 values, most of them rare
        let vals: Vec<i32> = (1..=5000)
            .flat_map(|v| std::iter::repeat_n(v, (20_000 / v).max(1) as usize))
            .collect();
        let (full, scaled, raw) = fullscan_vs_sample(&vals);
        assert_eq!(full, 5_000.0);
        assert!(raw < 3_200.0, "the sample alone undercounts: {raw}");
        // GEE's guarantee: within sqrt(N / n) = 3.2x; here much closer than the raw count
        let error = (scaled / full).max(full / scaled);
        assert!(error < 1.3, "scaled {scaled} vs {full}");
        assert!(error < full / raw, "no better than the sample's own count");
    }

    #[test]
    fn a_samples_histogram_steps_scale_their_distinct_range_rows() {
        let vals: Vec<i32> = (0..100_000).map(|i| i % 10_000).collect();
        let sample = sample_rows(&ints(&vals), 0.1);
        let d = build(&[col("a")], sample, 100_000, String::new());
        let distinct: f64 = d.steps.iter().map(|s| s.distinct_range_rows + 1.0).sum();
        assert!((distinct / 10_000.0 - 1.0).abs() < 0.1, "{distinct}");
        // AVG_RANGE_ROWS near the true 10 rows per value, not the sample's ~16
        let avg = d.steps[100].avg_range_rows;
        assert!((8.0..12.5).contains(&avg), "{avg}");
    }

    #[test]
    fn a_sample_is_scaled_to_the_table() {
        let d = build(&[col("a")], ints(&[1, 1, 2, 3]), 40, String::new());
        assert_eq!(d.rows, 40);
        assert_eq!(d.rows_sampled, 4);
        assert_eq!(d.steps[0].eq_rows, 20.0);
    }
}
