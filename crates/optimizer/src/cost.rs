//! The cost model: each operator's own I/O and CPU cost per execution, in SQL Server's unitless
//! cost units, and the subtree cost (own cost times executions plus the children's subtrees).
//!
//! The unit constants are SQL Server's (so plans and their costs read like SQL Server's): a
//! random page read 0.003125 (1/320), a sequential page read 0.000740741 (1/1350), the first
//! row of a scan 0.0001581 CPU and each further row 0.0000011. The operators' per-row CPU
//! figures are this executor's, measured warm in a release build against a scanned row's CPU
//! (`bench/cost_calibration.py`; the optimizer README lists them): a seek's descent, a lookup,
//! a hash build / probe row and a stream aggregate row. The I/O constants stay SQL Server's
//! (cold reads), with repeated seeks sharing the pages they read ([`repeated_io`]).
//!
//! Only the ratios matter to the choices the planner makes from them: seek + lookup vs scan
//! (a lookup is a random read per row, a scan a sequential read per page), nested loops with
//! an index seek vs hash join (a seek per outer row vs a scan and a hash table).

use std::sync::Arc;

use catalog::TableDef;
use plan::{ColumnMeta, PhysKind, PhysOp};
use types::DataType;

/// One random page read (a seek's descent, a lookup).
pub const RANDOM_IO: f64 = 0.003125;
/// One page read in sequence (a scan after its first page).
pub const SEQ_IO: f64 = 0.000740741;
/// CPU of the first row of a scan or seek.
pub const CPU_FIRST_ROW: f64 = 0.0001581;
/// CPU of each further row read.
pub const CPU_ROW: f64 = 0.0000011;
/// Usable bytes of a data page.
const PAGE_BYTES: f64 = 8060.0;
/// Per-row overhead on a page (record header, slot).
const ROW_OVERHEAD: f64 = 11.0;
/// CPU of one index seek's descent (its first row), and of one Key / RID lookup: this
/// executor's warm measurement (`bench/cost_calibration.py`, release: a clustered seek from a
/// loop ~40 scanned rows, a key lookup into random rows ~30), in the scale where a scanned
/// row's CPU (`CPU_ROW` + `FILTER_ROW`) is one scanned row; SQL Server's 0.0001581 is ~100.
pub const SEEK_CPU: f64 = 0.00006;
pub const LOOKUP_CPU: f64 = 0.00005;
/// Hash table creation (Hash Match startup).
const HASH_STARTUP: f64 = 0.0177856;
/// Per build row (measured: ~2.8 scanned rows; SQL Server's 0.000015 is ~10).
pub(crate) const HASH_BUILD_ROW: f64 = 0.0000045;
/// Per probe row (measured: ~1.6 scanned rows; SQL Server's 0.000004 is ~2.5).
const HASH_PROBE_ROW: f64 = 0.0000025;
/// Hash aggregate / distinct and a parallel plan's partial-group merge, per input row: SQL
/// Server's build figure, kept (measured ~1.7 scanned rows, but lowering it moves the
/// gather-vs-repartition choice, priced with SQL Server's uncalibrated exchange costs).
pub(crate) const HASH_AGG_ROW: f64 = 0.0000150;
/// Nested loops, per outer row.
const LOOP_ROW: f64 = 0.00000418;
/// Merge join, per input row (measured: ~4.5 scanned rows, twice a hash join's per row).
const MERGE_ROW: f64 = 0.000007;
/// Filter, per input row.
const FILTER_ROW: f64 = 0.00000048;
/// Table Spool: replaying one kept row (a rewind), and keeping it (once, on the rebind).
pub const SPOOL_ROW: f64 = CPU_ROW;
pub const SPOOL_WRITE_ROW: f64 = 0.00001;
/// Compute scalar / top / concatenation, per row.
const PASS_ROW: f64 = 0.0000001;
/// Sort startup and per comparison (n log2 n comparisons).
const SORT_STARTUP: f64 = 0.000100011;
const SORT_COMPARE: f64 = 0.0000012;
/// A Sort's I/O when its input fits its memory grant: SQL Server's showplans give every
/// in-memory Sort this EstimateIO (the worktable it may need), so a Sort is never nearly free
/// against a hash join's build on small inputs.
pub const SORT_IO: f64 = 0.0112613;
/// Memory a Sort may use before it spills runs to tempdb: the executor's per-operator budget
/// (exec `spill::DEFAULT_OPERATOR_BUDGET`, 256 MiB).
pub const SORT_MEMORY_GRANT: f64 = (256u64 << 20) as f64;
/// Runs one merge pass of a spilled sort merges (the executor's largest fan-in).
const SORT_MERGE_FAN_IN: f64 = 64.0;
/// Bytes a row of unknown width is taken to hold in a Sort.
const SORT_DEFAULT_WIDTH: f64 = 64.0;
/// Stream aggregate, per input row (measured: ~1.2 scanned rows).
const STREAM_AGG_ROW: f64 = 0.0000018;
/// Gather Streams: starting the workers and the exchange, then per row moved (SQL Server's
/// showplans put a Gather's startup near 0.0285 and its per-row CPU near 0.0000055).
pub(crate) const EXCHANGE_STARTUP: f64 = 0.0285;
pub(crate) const EXCHANGE_ROW: f64 = 0.0000055;

/// Estimated bytes of one row of these columns (variable types at half their declared size).
pub fn row_width(cols: &[ColumnMeta]) -> f64 {
    cols.iter().map(|c| type_width(&c.data_type)).sum()
}

fn type_width(t: &DataType) -> f64 {
    let n = t.max_length_bytes();
    if n < 0 {
        // (max) types: most values are short or stored off row
        return 100.0;
    }
    if t.fixed_width() {
        n as f64
    } else {
        (n as f64 / 2.0).max(1.0) + 2.0
    }
}

/// Pages holding `rows` rows of `width` bytes.
pub fn pages(rows: f64, width: f64) -> f64 {
    (rows.max(0.0) * (width + ROW_OVERHEAD) / PAGE_BYTES)
        .ceil()
        .max(1.0)
}

/// Pages of a table with `rows` rows.
pub fn table_pages(table: &TableDef, rows: f64) -> f64 {
    let width: f64 = table.columns.iter().map(|c| type_width(&c.data_type)).sum();
    pages(rows, width)
}

/// I/O and CPU of reading `rows` rows from `pages` pages in key order (scan or range seek).
fn read_cost(rows: f64, pages: f64) -> (f64, f64) {
    (
        RANDOM_IO + SEQ_IO * (pages - 1.0).max(0.0),
        CPU_FIRST_ROW + CPU_ROW * (rows - 1.0).max(0.0),
    )
}

/// Cost of a full scan of `table` holding `rows` rows.
pub fn scan_cost(table: &TableDef, rows: f64) -> f64 {
    let (io, cpu) = read_cost(rows, table_pages(table, rows));
    io + cpu
}

/// Cost of one seek returning `rows` rows of `table` (`table_rows` in all) through index
/// `index`, with the lookup of each row when the index is nonclustered and `covering` is false.
pub fn seek_cost(
    table: &TableDef,
    table_rows: f64,
    index: usize,
    rows: f64,
    covering: bool,
) -> (f64, f64) {
    let clustered = table.indexes.get(index).is_some_and(|ix| ix.clustered);
    let fraction = if table_rows > 0.0 {
        (rows / table_rows).min(1.0)
    } else {
        0.0
    };
    let leaf_pages = if clustered {
        table_pages(table, table_rows) * fraction
    } else {
        // a nonclustered leaf row holds the key and the locator only
        pages(rows, 24.0)
    };
    let (mut io, mut cpu) = read_cost(rows, leaf_pages.max(1.0));
    cpu += SEEK_CPU - CPU_FIRST_ROW;
    if !clustered && !covering {
        // Key / RID lookup: a random read per row
        io += RANDOM_IO * rows;
        cpu += LOOKUP_CPU * rows;
    }
    (io, cpu)
}

/// One index seek's own cost (`seek_cost`) with the pages its repeated executions draw from:
/// the join search prices a nested loops join's seeks with it before the plan exists.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeekCost {
    pub io: f64,
    pub cpu: f64,
    /// Pages of the table (and index) the seeks read from; infinite: no page is read twice.
    pub pages: f64,
}

impl SeekCost {
    /// A seek of this total cost whose executions never share a page.
    pub fn flat(cost: f64) -> Self {
        SeekCost {
            io: 0.0,
            cpu: cost,
            pages: f64::INFINITY,
        }
    }

    /// Cost of `executions` executions (at least one), the I/O shared as [`repeated_io`].
    pub fn times(&self, executions: f64) -> f64 {
        let n = executions.max(1.0);
        (repeated_io(self.io, n, self.pages) + self.cpu) * n
    }
}

/// Average I/O of one of `executions` executions of a seek whose own I/O is `io` (random page
/// reads), all reading from the same `pages` pages: a page read once stays in the buffer pool,
/// so together they read at most the distinct pages they touch — Cardenas' estimate
/// P × (1 − e^(−k/P)) for k page requests at random over P pages — and never more than each
/// paying its own. SQL Server likewise charges the rebinds of a loop's inner side less I/O
/// than its first execution; without it 100,000 seeks into a 700-page table cost 140 times
/// reading the table.
pub fn repeated_io(io: f64, executions: f64, pages: f64) -> f64 {
    if executions <= 1.0 || io <= 0.0 || !(pages.is_finite() && pages > 0.0) {
        return io;
    }
    let requests = executions * io / RANDOM_IO;
    let touched = pages * (1.0 - (-requests / pages).exp());
    (touched * RANDOM_IO / executions).min(io)
}

/// Pages a seek through index `index` of `table` (`table_rows` rows) reads from: the table's,
/// plus a nonclustered index's leaf pages.
pub fn seek_pages(table: &TableDef, table_rows: f64, index: usize) -> f64 {
    let clustered = table.indexes.get(index).is_some_and(|ix| ix.clustered);
    let leaf = if clustered {
        0.0
    } else {
        pages(table_rows, 24.0)
    };
    table_pages(table, table_rows) + leaf
}

/// Fills `cost` on every node of `op` (run `executions` times), bottom up; `table_rows`
/// gives a table's current rows (scans cost the whole table, not the rows they return).
pub fn annotate(
    op: &mut PhysOp,
    executions: f64,
    table_rows: &mut dyn FnMut(&Arc<TableDef>) -> f64,
) {
    common::stack::grow(|| annotate_unguarded(op, executions, table_rows))
}

fn annotate_unguarded(
    op: &mut PhysOp,
    executions: f64,
    table_rows: &mut dyn FnMut(&Arc<TableDef>) -> f64,
) {
    let out = op.est_rows.max(0.0);
    let mut children_cost = 0.0;
    // the inner side of nested loops runs once per outer row
    let (io, cpu) = match &mut op.kind {
        PhysKind::NestedLoops { outer, inner, .. } => {
            annotate(outer, executions, table_rows);
            let outer_rows = outer.est_rows.max(1.0);
            annotate(inner, executions * outer_rows, table_rows);
            children_cost += outer.cost.subtree + inner.cost.subtree;
            (0.0, LOOP_ROW * outer_rows)
        }
        // a performance spool reads its input once per execution of the plan around the
        // loop (its rows are the same every time), then replays them
        PhysKind::TableSpool { input } => {
            annotate(input, 1.0, table_rows);
            children_cost += input.cost.subtree;
            (
                0.0,
                SPOOL_ROW * out + SPOOL_WRITE_ROW * input.est_rows.max(0.0) / executions.max(1.0),
            )
        }
        kind => {
            let (mut io, cpu) = own_cost(kind, out, table_rows);
            // repeated seeks (a loop's inner side) find the pages earlier ones read
            if let PhysKind::IndexSeek { source, index, .. } = kind {
                if executions > 1.0 {
                    let rows = table_rows(&source.table);
                    io = repeated_io(io, executions, seek_pages(&source.table, rows, *index));
                }
            }
            for c in kind.children_mut() {
                annotate(c, executions, table_rows);
                children_cost += c.cost.subtree;
            }
            (io, cpu)
        }
    };
    op.cost.io = io;
    op.cost.cpu = cpu;
    op.cost.executions = executions;
    op.cost.subtree = (io + cpu) * executions + children_cost;
}

/// The part of a hash join's CPU paid before its first output row: the hash table's startup
/// and the whole build input of `build_rows` rows (a row goal does not discount it).
pub(crate) fn hash_join_fixed_cpu(build_rows: f64) -> f64 {
    HASH_STARTUP + HASH_BUILD_ROW * build_rows.max(0.0)
}

/// Own cost of a Hash Match join building on `build` rows, probing with `probe`, returning
/// `out` (the join search costs its alternatives with these, as `annotate` costs the plan).
pub(crate) fn hash_join_own_cost(build: f64, probe: f64, out: f64) -> f64 {
    HASH_STARTUP
        + HASH_BUILD_ROW * build.max(0.0)
        + HASH_PROBE_ROW * probe.max(0.0)
        + PASS_ROW * out.max(0.0)
}

/// Own cost of Nested Loops over `outer` rows (its inner side's executions are not included).
pub(crate) fn loops_own_cost(outer: f64) -> f64 {
    LOOP_ROW * outer.max(1.0)
}

/// A lazy spool keeping `kept` rows once and replaying `replayed` rows in all.
pub(crate) fn spool_replay_cost(replayed: f64, kept: f64) -> f64 {
    SPOOL_ROW * replayed.max(0.0) + SPOOL_WRITE_ROW * kept.max(0.0)
}

/// Own cost of a Merge Join over inputs of `left` and `right` rows.
pub(crate) fn merge_join_own_cost(left: f64, right: f64) -> f64 {
    MERGE_ROW * (left.max(0.0) + right.max(0.0))
}

/// Own cost of a full Sort of `rows` rows of `width` bytes (the Sort enforcer).
pub(crate) fn sort_own_cost(rows: f64, width: f64) -> f64 {
    let n = rows.max(1.0);
    SORT_STARTUP + SORT_COMPARE * n * n.max(2.0).log2() + sort_io(n, width)
}

/// A Sort's I/O over `rows` rows of `width` bytes (0: unknown): [`SORT_IO`] in memory; past
/// the memory grant every page is written to a run and read back once per merge pass (runs
/// of the grant's size, merged [`SORT_MERGE_FAN_IN`] at a time), sequentially.
pub fn sort_io(rows: f64, width: f64) -> f64 {
    let width = if width > 0.0 {
        width
    } else {
        SORT_DEFAULT_WIDTH
    };
    let bytes = rows.max(0.0) * (width + ROW_OVERHEAD);
    if bytes <= SORT_MEMORY_GRANT {
        return SORT_IO;
    }
    let runs = (bytes / SORT_MEMORY_GRANT).ceil();
    let passes = runs.log(SORT_MERGE_FAN_IN).ceil().max(1.0);
    SORT_IO + 2.0 * passes * pages(rows, width) * SEQ_IO
}

/// An operator's own (I/O, CPU) for one execution producing `out` rows.
fn own_cost(
    kind: &PhysKind,
    out: f64,
    table_rows: &mut dyn FnMut(&Arc<TableDef>) -> f64,
) -> (f64, f64) {
    let rows_in = |p: &PhysOp| p.est_rows.max(0.0);
    match kind {
        PhysKind::TableScan { source, .. } | PhysKind::ClusteredIndexScan { source, .. } => {
            let rows = table_rows(&source.table);
            let (io, cpu) = read_cost(rows, table_pages(&source.table, rows));
            let pred = FILTER_ROW * rows;
            (io, cpu + pred)
        }
        PhysKind::IndexSeek {
            source,
            index,
            range,
            ..
        } => {
            let rows = table_rows(&source.table);
            // rows the seek range returns before the residual predicate: at least the output
            let ranged = if range.eq.is_empty() && range.lower.is_none() && range.upper.is_none() {
                rows
            } else {
                out
            };
            seek_cost(
                &source.table,
                rows,
                *index,
                ranged.max(1.0),
                source.covered_by(*index),
            )
        }
        PhysKind::ConstantScan { .. }
        | PhysKind::VirtualScan { .. }
        | PhysKind::WorkTableScan { .. }
        | PhysKind::TableFunction { .. } => (0.0, CPU_FIRST_ROW * 0.01 + CPU_ROW * out),
        PhysKind::Filter { input, .. } => (0.0, FILTER_ROW * rows_in(input)),
        // replaying the kept rows; storing them is charged once through `spool_write`
        PhysKind::TableSpool { .. } => (0.0, SPOOL_ROW * out),
        PhysKind::ComputeScalar { input, .. } => (0.0, PASS_ROW * rows_in(input)),
        PhysKind::Top { .. } => (0.0, PASS_ROW * out),
        PhysKind::Concatenation { .. } => (0.0, PASS_ROW * out),
        PhysKind::Sort { input, top, .. } => {
            let n = rows_in(input).max(1.0);
            // a TOP N sort keeps only N rows: log2 of the kept rows per comparison, and only
            // those in memory
            let kept = if top.is_some() { out.max(1.0) } else { n };
            (
                sort_io(kept, row_width(&input.columns)),
                SORT_STARTUP + SORT_COMPARE * n * kept.max(2.0).log2(),
            )
        }
        PhysKind::Parallelism { input, .. } | PhysKind::Repartition { input, .. } => {
            (0.0, EXCHANGE_STARTUP + EXCHANGE_ROW * rows_in(input))
        }
        // a worker's share is not discounted: the threshold decision is made on the serial cost
        PhysKind::GlobalAggregate {
            input,
            stream: true,
            ..
        } => (0.0, STREAM_AGG_ROW * rows_in(input)),
        PhysKind::PartialAggregate {
            input, group_by, ..
        } if group_by.is_empty() => (0.0, STREAM_AGG_ROW * rows_in(input)),
        PhysKind::HashAggregate { input, .. }
        | PhysKind::HashDistinct { input }
        | PhysKind::PartialAggregate { input, .. }
        | PhysKind::GlobalAggregate { input, .. } => (
            0.0,
            HASH_STARTUP + HASH_AGG_ROW * rows_in(input) + PASS_ROW * out,
        ),
        PhysKind::StreamAggregate { input, .. } => (0.0, STREAM_AGG_ROW * rows_in(input)),
        PhysKind::Window { input, .. } => (0.0, CPU_ROW * rows_in(input)),
        PhysKind::HashJoin { left, right, .. } | PhysKind::HashSetOp { left, right, .. } => (
            0.0,
            HASH_STARTUP
                + HASH_BUILD_ROW * rows_in(right)
                + HASH_PROBE_ROW * rows_in(left)
                + PASS_ROW * out,
        ),
        PhysKind::MergeJoin { left, right, .. } => {
            (0.0, MERGE_ROW * (rows_in(left) + rows_in(right)))
        }
        PhysKind::RecursiveCte { .. } => (0.0, CPU_ROW * out),
        PhysKind::NestedLoops { outer, .. } => (0.0, LOOP_ROW * rows_in(outer)),
    }
}
