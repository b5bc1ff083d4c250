//! Logical algebra produced by the binder.
//!
//! Every operator outputs a row whose layout is given by [`LogicalOp::columns`]; expressions above
//! an operator refer to its output positionally (`ScalarKind::Column(i)`). Joins output the left
//! columns followed by the right columns.

use std::sync::Arc;

use catalog::{TableDef, VirtualTable};
use types::DataType;

use crate::scalar::ScalarExpr;

/// Name and type of one output column.
#[derive(Clone, Debug, PartialEq)]
pub struct ColumnMeta {
    pub name: String,
    pub data_type: DataType,
    pub nullable: bool,
}

impl ColumnMeta {
    pub fn new(name: impl Into<String>, data_type: DataType, nullable: bool) -> Self {
        ColumnMeta {
            name: name.into(),
            data_type,
            nullable,
        }
    }
}

/// Table hints kept from `WITH (...)`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TableHints {
    /// `INDEX(n)` / `INDEX(name)`: index ids or names as written.
    pub index: Vec<String>,
    pub force_seek: bool,
    pub force_scan: bool,
    pub nolock: bool,
    /// Every hint as written (upper case), for explain and the future lock manager.
    pub all: Vec<String>,
}

/// A stored table read by the plan.
#[derive(Clone, Debug)]
pub struct TableSource {
    pub table: Arc<TableDef>,
    /// Exposed name (alias or table name) for explain.
    pub alias: String,
    pub hints: TableHints,
    /// When true the scan appends one extra column after the table's columns: the row locator
    /// (`varbinary`: heap RID bytes or clustered B-tree key bytes). DML targets need it.
    pub with_locator: bool,
    /// Columns the plan reads (set by the optimizer's column pruning; None = all). Scans leave
    /// the others NULL instead of decoding them.
    pub needed: Option<Vec<bool>>,
}

impl TableSource {
    /// Whether nonclustered index `index` holds, in its INCLUDE columns, every column the plan
    /// reads from this source (`needed`, set by column pruning): a seek on it then needs no
    /// Key / RID Lookup (exec reads the INCLUDE record of the index entry). Key columns are
    /// stored in a collation sort-key encoding that is not decoded back, so reading one still
    /// takes the lookup; so do DML targets (they need the row locator's row).
    pub fn covered_by(&self, index: usize) -> bool {
        let (Some(needed), Some(ix)) = (&self.needed, self.table.indexes.get(index)) else {
            return false;
        };
        !ix.clustered
            && !self.with_locator
            && needed
                .iter()
                .enumerate()
                .all(|(c, &n)| !n || ix.included.contains(&c))
    }

    /// Output columns: the table's columns (+ locator).
    pub fn columns(&self) -> Vec<ColumnMeta> {
        let mut v: Vec<ColumnMeta> = self
            .table
            .columns
            .iter()
            .map(|c| ColumnMeta::new(c.name.clone(), c.data_type.clone(), c.nullable))
            .collect();
        if self.with_locator {
            v.push(ColumnMeta::new(
                "%%locator%%",
                DataType::VarBinary(None),
                false,
            ));
        }
        v
    }
}

/// Join kinds. `LeftSemi`/`LeftAntiSemi` output only the left columns, `RightSemi` /
/// `RightAntiSemi` only the right ones. The right kinds are physical only: the planner makes
/// them from a left semi / anti semi join for a Hash Match that builds on the preserved
/// (right) input and probes with the subquery (left) input; logical plans never hold them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JoinKind {
    Inner,
    LeftOuter,
    RightOuter,
    FullOuter,
    Cross,
    LeftSemi,
    LeftAntiSemi,
    RightSemi,
    RightAntiSemi,
}

impl JoinKind {
    /// Whether the output has the right input's columns (after the left ones, if any).
    pub fn outputs_right(self) -> bool {
        !matches!(self, JoinKind::LeftSemi | JoinKind::LeftAntiSemi)
    }
    /// Whether the output has the left input's columns (first).
    pub fn outputs_left(self) -> bool {
        !matches!(self, JoinKind::RightSemi | JoinKind::RightAntiSemi)
    }
    /// Whether unmatched right input rows are output (NULL-extended for the outer kinds).
    pub fn keeps_unmatched_right(self) -> bool {
        matches!(
            self,
            JoinKind::RightOuter | JoinKind::FullOuter | JoinKind::RightAntiSemi
        )
    }
    /// Whether unmatched left input rows are output (NULL-extended for the outer kinds).
    pub fn keeps_unmatched_left(self) -> bool {
        matches!(
            self,
            JoinKind::LeftOuter | JoinKind::FullOuter | JoinKind::LeftAntiSemi
        )
    }
    /// Semi / anti semi join on either side.
    pub fn is_semi(self) -> bool {
        matches!(
            self,
            JoinKind::LeftSemi
                | JoinKind::LeftAntiSemi
                | JoinKind::RightSemi
                | JoinKind::RightAntiSemi
        )
    }
    /// The same join with its inputs swapped (left semi ↔ right semi, ...).
    pub fn swapped(self) -> JoinKind {
        match self {
            JoinKind::LeftOuter => JoinKind::RightOuter,
            JoinKind::RightOuter => JoinKind::LeftOuter,
            JoinKind::LeftSemi => JoinKind::RightSemi,
            JoinKind::RightSemi => JoinKind::LeftSemi,
            JoinKind::LeftAntiSemi => JoinKind::RightAntiSemi,
            JoinKind::RightAntiSemi => JoinKind::LeftAntiSemi,
            k => k,
        }
    }
    /// The logical name SQL Server gives a Hash Match of this kind. Showplan lists a hash
    /// join's build input — latchkey's right input — first (top), and SQL Server names joins by
    /// position: a Left Semi Join returns rows of the first (top) input, a Right Semi Join rows
    /// of the second (bottom) one. So latchkey's `LeftSemi` (probe rows out, build on the
    /// subquery) is SQL Server's Hash Match (Right Semi Join), as in seed 002's memo
    /// (`PhyOp_HashJoinx_jtRightAntiSemiJoin` builds on the inner table), and the sides swap in
    /// every one-sided kind's name.
    pub fn hash_match_showplan(self) -> &'static str {
        self.swapped().showplan()
    }
    /// Showplan name (Nested Loops and Merge Join list their left input first).
    pub fn showplan(self) -> &'static str {
        match self {
            JoinKind::Inner | JoinKind::Cross => "Inner Join",
            JoinKind::LeftOuter => "Left Outer Join",
            JoinKind::RightOuter => "Right Outer Join",
            JoinKind::FullOuter => "Full Outer Join",
            JoinKind::LeftSemi => "Left Semi Join",
            JoinKind::LeftAntiSemi => "Left Anti Semi Join",
            JoinKind::RightSemi => "Right Semi Join",
            JoinKind::RightAntiSemi => "Right Anti Semi Join",
        }
    }
}

/// Join algorithm hints (`INNER HASH JOIN`, `OPTION (LOOP JOIN)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JoinHint {
    Loop,
    Hash,
    Merge,
}

/// Sort key.
#[derive(Clone, Debug)]
pub struct SortKey {
    pub expr: ScalarExpr,
    pub desc: bool,
}

/// Aggregate functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AggFunc {
    /// COUNT(*)
    CountStar,
    Count,
    CountBigStar,
    CountBig,
    Sum,
    Avg,
    Min,
    Max,
    Stdev,
    StdevP,
    Var,
    VarP,
    StringAgg,
    ChecksumAgg,
    /// APPROX_COUNT_DISTINCT (HyperLogLog, exec/src/hll.rs).
    ApproxCountDistinct,
    /// GROUPING(col): argument is the index of the group-by expression.
    Grouping,
    /// A query's FOR JSON / FOR XML clause: arguments are the query's columns, the spec is
    /// [`AggCall::serialize`].
    ForClause,
}

impl AggFunc {
    pub fn name(self) -> &'static str {
        match self {
            AggFunc::CountStar | AggFunc::Count => "COUNT",
            AggFunc::CountBigStar | AggFunc::CountBig => "COUNT_BIG",
            AggFunc::Sum => "SUM",
            AggFunc::Avg => "AVG",
            AggFunc::Min => "MIN",
            AggFunc::Max => "MAX",
            AggFunc::Stdev => "STDEV",
            AggFunc::StdevP => "STDEVP",
            AggFunc::Var => "VAR",
            AggFunc::VarP => "VARP",
            AggFunc::StringAgg => "STRING_AGG",
            AggFunc::ChecksumAgg => "CHECKSUM_AGG",
            AggFunc::ApproxCountDistinct => "APPROX_COUNT_DISTINCT",
            AggFunc::Grouping => "GROUPING",
            AggFunc::ForClause => "FOR",
        }
    }
}

/// One aggregate call.
#[derive(Clone, Debug)]
pub struct AggCall {
    pub func: AggFunc,
    /// Arguments over the aggregate's input row (STRING_AGG: value, separator).
    pub args: Vec<ScalarExpr>,
    pub distinct: bool,
    /// STRING_AGG ... WITHIN GROUP (ORDER BY ...).
    pub order_by: Vec<SortKey>,
    /// Result type (SQL Server's rules: AVG(int) is int, SUM(decimal(p,s)) is decimal(38,s)).
    pub data_type: DataType,
    /// [`AggFunc::ForClause`]: what to produce (None for every other aggregate).
    pub serialize: Option<Arc<crate::for_clause::ForSpec>>,
}

/// Window functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowFunc {
    RowNumber,
    Rank,
    DenseRank,
    Ntile,
    Lag,
    Lead,
    FirstValue,
    LastValue,
    PercentRank,
    CumeDist,
    Agg(AggFunc),
}

/// Frame units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameUnits {
    Rows,
    Range,
}

/// Frame bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameBound {
    UnboundedPreceding,
    Preceding(u64),
    CurrentRow,
    Following(u64),
    UnboundedFollowing,
}

/// A window frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    pub units: FrameUnits,
    pub start: FrameBound,
    pub end: FrameBound,
}

/// One windowed call `f(args) OVER (PARTITION BY .. ORDER BY .. frame)`.
#[derive(Clone, Debug)]
pub struct WindowCall {
    pub func: WindowFunc,
    pub args: Vec<ScalarExpr>,
    pub distinct: bool,
    pub partition_by: Vec<ScalarExpr>,
    pub order_by: Vec<SortKey>,
    /// None = default frame (RANGE UNBOUNDED PRECEDING..CURRENT ROW with ORDER BY, whole
    /// partition without).
    pub frame: Option<Frame>,
    pub data_type: DataType,
}

/// Set operation kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetOpKind {
    Union,
    Except,
    Intersect,
}

/// `TOP` / `OFFSET FETCH`.
#[derive(Clone, Debug)]
pub struct TopSpec {
    /// Row count (or percent) expression; None = no limit (OFFSET without FETCH).
    pub count: Option<ScalarExpr>,
    pub percent: bool,
    /// WITH TIES: ties on these keys (the ORDER BY) are included.
    pub with_ties: Vec<SortKey>,
    pub offset: Option<ScalarExpr>,
}

/// Logical operators.
#[derive(Clone, Debug)]
pub enum LogicalOp {
    Get(TableSource),
    /// A materialized virtual table (sys views).
    VirtualGet {
        table: Arc<VirtualTable>,
        alias: String,
    },
    /// Rows of constant expressions (`VALUES`, `SELECT` without FROM: one row of zero columns).
    Values {
        rows: Vec<Vec<ScalarExpr>>,
        columns: Vec<ColumnMeta>,
    },
    Filter {
        input: Box<LogicalOp>,
        predicate: ScalarExpr,
    },
    /// Outputs exactly `exprs`.
    Project {
        input: Box<LogicalOp>,
        exprs: Vec<ScalarExpr>,
        columns: Vec<ColumnMeta>,
    },
    Join {
        left: Box<LogicalOp>,
        right: Box<LogicalOp>,
        kind: JoinKind,
        on: Option<ScalarExpr>,
        hint: Option<JoinHint>,
    },
    /// Correlated join: `inner` reads parameter slots filled from each `outer` row.
    Apply {
        outer: Box<LogicalOp>,
        inner: Box<LogicalOp>,
        kind: JoinKind,
        params: Vec<(usize, ScalarExpr)>,
    },
    /// Outputs the group-by values followed by the aggregate results.
    Aggregate {
        input: Box<LogicalOp>,
        group_by: Vec<ScalarExpr>,
        aggs: Vec<AggCall>,
        /// GROUPING SETS / ROLLUP / CUBE: each set lists the group-by positions it keeps.
        grouping_sets: Option<Vec<Vec<usize>>>,
    },
    /// Outputs the input columns followed by one column per call.
    Window {
        input: Box<LogicalOp>,
        calls: Vec<WindowCall>,
    },
    Sort {
        input: Box<LogicalOp>,
        keys: Vec<SortKey>,
    },
    Top {
        input: Box<LogicalOp>,
        spec: TopSpec,
    },
    Distinct {
        input: Box<LogicalOp>,
    },
    SetOp {
        kind: SetOpKind,
        all: bool,
        left: Box<LogicalOp>,
        right: Box<LogicalOp>,
        columns: Vec<ColumnMeta>,
    },
    /// Recursive CTE: anchor rows, then the recursive member re-run over the previous level's
    /// rows (read through `WorkTable { id }`) until it yields none.
    RecursiveCte {
        id: usize,
        anchor: Box<LogicalOp>,
        recursive: Box<LogicalOp>,
        columns: Vec<ColumnMeta>,
        max_recursion: Option<u32>,
    },
    WorkTable {
        id: usize,
        columns: Vec<ColumnMeta>,
    },
    /// A table-valued function evaluated at run time (built-ins, multi-statement user
    /// functions): `args` are constant for one open (literals, variables, parameter slots).
    TableFunction {
        func: crate::table_function::TableFunc,
        args: Vec<ScalarExpr>,
        columns: Vec<ColumnMeta>,
    },
}

impl LogicalOp {
    /// Output columns.
    pub fn columns(&self) -> Vec<ColumnMeta> {
        common::stack::grow(|| self.columns_unguarded())
    }

    fn columns_unguarded(&self) -> Vec<ColumnMeta> {
        match self {
            LogicalOp::Get(s) => s.columns(),
            LogicalOp::VirtualGet { table, .. } => table
                .columns
                .iter()
                .map(|c| ColumnMeta::new(c.name.clone(), c.data_type.clone(), c.nullable))
                .collect(),
            LogicalOp::Values { columns, .. }
            | LogicalOp::Project { columns, .. }
            | LogicalOp::SetOp { columns, .. }
            | LogicalOp::RecursiveCte { columns, .. }
            | LogicalOp::WorkTable { columns, .. }
            | LogicalOp::TableFunction { columns, .. } => columns.clone(),
            LogicalOp::Filter { input, .. }
            | LogicalOp::Sort { input, .. }
            | LogicalOp::Top { input, .. }
            | LogicalOp::Distinct { input } => input.columns(),
            LogicalOp::Join {
                left, right, kind, ..
            }
            | LogicalOp::Apply {
                outer: left,
                inner: right,
                kind,
                ..
            } => {
                if !kind.outputs_left() {
                    return right.columns();
                }
                let mut l = left.columns();
                if kind.outputs_right() {
                    let nullable_right = matches!(kind, JoinKind::LeftOuter | JoinKind::FullOuter);
                    let nullable_left = matches!(kind, JoinKind::RightOuter | JoinKind::FullOuter);
                    if nullable_left {
                        for c in &mut l {
                            c.nullable = true;
                        }
                    }
                    for mut c in right.columns() {
                        if nullable_right {
                            c.nullable = true;
                        }
                        l.push(c);
                    }
                }
                l
            }
            LogicalOp::Aggregate { group_by, aggs, .. } => {
                let mut v: Vec<ColumnMeta> = group_by
                    .iter()
                    .enumerate()
                    .map(|(i, e)| ColumnMeta::new(format!("Group{i}"), e.data_type.clone(), true))
                    .collect();
                for a in aggs {
                    v.push(ColumnMeta::new(
                        a.func.name(),
                        a.data_type.clone(),
                        !matches!(
                            a.func,
                            AggFunc::CountStar
                                | AggFunc::Count
                                | AggFunc::CountBig
                                | AggFunc::CountBigStar
                        ),
                    ));
                }
                v
            }
            LogicalOp::Window { input, calls } => {
                let mut v = input.columns();
                for c in calls {
                    v.push(ColumnMeta::new("Window", c.data_type.clone(), true));
                }
                v
            }
        }
    }

    /// Number of output columns.
    pub fn arity(&self) -> usize {
        self.columns().len()
    }
}
