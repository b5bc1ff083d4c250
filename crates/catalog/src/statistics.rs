//! Optimizer statistics as SQL Server models them: per statistics object a histogram on its
//! leading column (at most 200 steps) and a density vector over its column prefixes.
//!
//! This module is the contract between the code that builds and persists statistics (engine:
//! `CREATE/UPDATE STATISTICS`, auto-create, `DBCC SHOW_STATISTICS`) and the optimizer's
//! cardinality estimation, which reads them through [`crate::Catalog::statistics`] and
//! [`crate::Catalog::table_rows`]. Both sides depend only on these types.

use types::Value;

/// SQL Server's histogram size limit (`DBCC SHOW_STATISTICS` never shows more steps).
pub const MAX_HISTOGRAM_STEPS: usize = 200;

/// One histogram step, named as `DBCC SHOW_STATISTICS ... WITH HISTOGRAM` shows it. The step
/// covers the values greater than the previous step's `range_hi_key` and up to its own.
#[derive(Clone, Debug, PartialEq)]
pub struct HistogramStep {
    /// Upper bound of the step (a value that occurs in the column).
    pub range_hi_key: Value,
    /// Estimated rows strictly between the previous step's key and this one.
    pub range_rows: f64,
    /// Estimated rows equal to `range_hi_key`.
    pub eq_rows: f64,
    /// Estimated distinct values strictly between the previous key and this one.
    pub distinct_range_rows: f64,
    /// `range_rows / distinct_range_rows` (1 when there are none).
    pub avg_range_rows: f64,
}

/// One density vector entry: the column prefix `columns` (names, in key order), its density
/// `1 / distinct values of the prefix` (NULL counts as one value, as in SQL Server) and the
/// prefix's average byte length.
#[derive(Clone, Debug, PartialEq)]
pub struct DensityEntry {
    pub columns: Vec<String>,
    pub all_density: f64,
    pub average_length: f64,
}

/// A statistics object's data (what `DBCC SHOW_STATISTICS` reports).
#[derive(Clone, Debug, PartialEq)]
pub struct StatisticsData {
    /// Rows in the table (or in the filter) when the statistics were built.
    pub rows: u64,
    /// Rows read to build them (`rows` for FULLSCAN).
    pub rows_sampled: u64,
    /// Rows with a NULL leading column (SQL Server shows them as a step with a NULL key; kept
    /// apart here so range arithmetic never compares against NULL).
    pub null_rows: f64,
    /// Histogram on the leading column, ascending, at most [`MAX_HISTOGRAM_STEPS`] steps.
    pub steps: Vec<HistogramStep>,
    /// One entry per column prefix (leading column, then leading two, ...).
    pub density: Vec<DensityEntry>,
    /// `datetime` text of the last build (`STATS_DATE`).
    pub updated: String,
}

/// A statistics object on a table (`sys.stats` row plus its data).
#[derive(Clone, Debug, PartialEq)]
pub struct StatisticsObject {
    /// `sys.stats.stats_id` (an index's statistics share the index's id).
    pub stats_id: i32,
    pub name: String,
    /// Column ordinals in `TableDef::columns`, in statistics key order.
    pub columns: Vec<usize>,
    /// Created for an index (same name and id as the index).
    pub index_id: Option<i32>,
    /// Created automatically on a predicate column (`_WA_Sys_...`).
    pub auto_created: bool,
    /// `CREATE STATISTICS`.
    pub user_created: bool,
    /// `WITH NORECOMPUTE`: never updated automatically.
    pub no_recompute: bool,
    /// Filter predicate text of filtered statistics.
    pub filter: Option<String>,
    /// None until first built (an index on an empty table still has a header).
    pub data: Option<StatisticsData>,
}
