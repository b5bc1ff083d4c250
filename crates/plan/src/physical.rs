//! Physical operators (what exec runs) and bound/physical statements.
//!
//! A [`PhysOp`] is immutable once built (plans may be cached and run many times). Each node
//! carries its output columns and the optimizer's row estimate.

use std::sync::Arc;

use common::SqlResult;

use catalog::{ColumnDef, TableDef, VirtualTable};

use crate::logical::{
    AggCall, ColumnMeta, JoinKind, LogicalOp, SetOpKind, SortKey, TableSource, TopSpec, WindowCall,
};
use crate::scalar::ScalarExpr;

/// Seek range on an index: equality on the first `eq.len()` key columns, then an optional
/// range on the next key column. Expressions may read parameters (inner side of a nested
/// loops index join) and are evaluated when the seek opens.
#[derive(Clone, Debug, Default)]
pub struct SeekRange {
    pub eq: Vec<ScalarExpr>,
    /// (value, inclusive)
    pub lower: Option<(ScalarExpr, bool)>,
    pub upper: Option<(ScalarExpr, bool)>,
}

/// Physical operator kinds (names follow SQL Server's showplan operators).
// Plan nodes are built once per statement and shared; boxing the larger variants would only
// add indirection.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum PhysKind {
    /// Rows of constant expressions.
    ConstantScan {
        rows: Vec<Vec<ScalarExpr>>,
    },
    /// A materialized virtual table.
    VirtualScan {
        table: Arc<VirtualTable>,
    },
    /// Heap scan.
    TableScan {
        source: TableSource,
        predicate: Option<ScalarExpr>,
    },
    /// Clustered index scan (ordered when `ordered`).
    ClusteredIndexScan {
        source: TableSource,
        predicate: Option<ScalarExpr>,
        ordered: bool,
        backward: bool,
    },
    /// Index seek on `source.table.indexes[index]`. For a nonclustered index the operator also
    /// performs the Key Lookup / RID Lookup that fetches the full row (shown as such by explain).
    IndexSeek {
        source: TableSource,
        index: usize,
        range: SeekRange,
        predicate: Option<ScalarExpr>,
        backward: bool,
    },
    Filter {
        input: Box<PhysOp>,
        predicate: ScalarExpr,
    },
    /// Projection: outputs exactly `exprs`.
    ComputeScalar {
        input: Box<PhysOp>,
        exprs: Vec<ScalarExpr>,
    },
    /// Nested loops; with `params` it is an apply (inner re-opened per outer row with the
    /// parameter slots set from the outer row).
    NestedLoops {
        outer: Box<PhysOp>,
        inner: Box<PhysOp>,
        kind: JoinKind,
        predicate: Option<ScalarExpr>,
        params: Vec<(usize, ScalarExpr)>,
    },
    /// Hash match join: builds on `right`, probes with `left`. Output is left ++ right.
    HashJoin {
        left: Box<PhysOp>,
        right: Box<PhysOp>,
        kind: JoinKind,
        left_keys: Vec<ScalarExpr>,
        right_keys: Vec<ScalarExpr>,
        residual: Option<ScalarExpr>,
    },
    /// Merge join over inputs sorted ascending on the keys (inner join only).
    MergeJoin {
        left: Box<PhysOp>,
        right: Box<PhysOp>,
        kind: JoinKind,
        left_keys: Vec<ScalarExpr>,
        right_keys: Vec<ScalarExpr>,
        residual: Option<ScalarExpr>,
    },
    Sort {
        input: Box<PhysOp>,
        keys: Vec<SortKey>,
        /// TOP N sort.
        top: Option<ScalarExpr>,
        distinct: bool,
    },
    HashAggregate {
        input: Box<PhysOp>,
        group_by: Vec<ScalarExpr>,
        aggs: Vec<AggCall>,
        grouping_sets: Option<Vec<Vec<usize>>>,
    },
    /// Aggregate over input sorted on the group-by expressions (or scalar aggregate).
    StreamAggregate {
        input: Box<PhysOp>,
        group_by: Vec<ScalarExpr>,
        aggs: Vec<AggCall>,
    },
    Top {
        input: Box<PhysOp>,
        spec: TopSpec,
    },
    Window {
        input: Box<PhysOp>,
        calls: Vec<WindowCall>,
    },
    /// UNION ALL.
    Concatenation {
        inputs: Vec<PhysOp>,
    },
    /// EXCEPT / INTERSECT (hash based); UNION distinct is Concatenation + hash distinct.
    HashSetOp {
        kind: SetOpKind,
        all: bool,
        left: Box<PhysOp>,
        right: Box<PhysOp>,
    },
    /// Hash distinct (Hash Match (Flow Distinct)).
    HashDistinct {
        input: Box<PhysOp>,
    },
    /// Recursive CTE driven by a table spool.
    RecursiveCte {
        id: usize,
        anchor: Box<PhysOp>,
        recursive: Box<PhysOp>,
        max_recursion: Option<u32>,
    },
    /// Table Spool (Lazy Spool), a performance spool on the inner side of nested loops: the
    /// first execution reads `input` and keeps its rows; a later execution under the same
    /// parameter values replays them (a rewind) instead of re-reading `input` (a rebind).
    /// Built by `optimizer`'s BuildSpool rule.
    TableSpool {
        input: Box<PhysOp>,
    },
    /// Reads the rows of the previous recursion level.
    WorkTableScan {
        id: usize,
    },
    /// A table-valued function (see [`crate::TableFunc`]): rows computed when it opens.
    TableFunction {
        func: crate::table_function::TableFunc,
        args: Vec<ScalarExpr>,
    },
    /// Parallelism (Gather Streams): `input` (the parallel zone) runs on up to `dop` workers,
    /// each over its share of the morsels of the one scan in it; their rows are gathered in
    /// arrival order (exec/src/parallel, `optimizer::parallelize`).
    Parallelism {
        input: Box<PhysOp>,
        dop: u16,
    },
    /// The per-worker half of a local-then-global aggregate (`Hash Match (Partial
    /// Aggregate)`), only below a [`PhysKind::Parallelism`] under a
    /// [`PhysKind::GlobalAggregate`]: each worker groups its rows; the states are merged above.
    PartialAggregate {
        input: Box<PhysOp>,
        group_by: Vec<ScalarExpr>,
        aggs: Vec<AggCall>,
    },
    /// The global half of a local-then-global aggregate: merges the per-worker states of the
    /// `PartialAggregate` below its `Parallelism` input and outputs group-by values then
    /// aggregate results, as the serial aggregate it replaces (`group_by` / `aggs` are that
    /// aggregate's; `stream`: it was a Stream Aggregate, i.e. a scalar aggregate).
    GlobalAggregate {
        input: Box<PhysOp>,
        group_by: Vec<ScalarExpr>,
        aggs: Vec<AggCall>,
        stream: bool,
    },
    /// Parallelism (Repartition Streams, hash partitioning): between the partial aggregates
    /// of a zone's workers (`input`, a [`PhysKind::PartialAggregate`]) and the global
    /// aggregate above it, which then runs once per consumer worker under a Gather Streams
    /// (`Parallelism` over `GlobalAggregate` over this). Each producer routes every partial
    /// group to the one of `dop` consumers its group key hashes to, so the global aggregation
    /// is split by group, not merged on one thread. `keys`: the partitioning columns (the
    /// aggregate's group-by expressions over the zone's rows, as the `GlobalAggregate`'s).
    Repartition {
        input: Box<PhysOp>,
        dop: u16,
        keys: Vec<ScalarExpr>,
    },
}

/// A physical operator with its output schema and estimate.
#[derive(Clone, Debug)]
pub struct PhysOp {
    pub kind: PhysKind,
    pub columns: Vec<ColumnMeta>,
    /// Rows per execution the optimizer expects (after any row goal).
    pub est_rows: f64,
    /// The optimizer's cost figures (showplan's EstimateIO / EstimateCPU / TotalSubtreeCost).
    pub cost: OpCost,
    /// Node id, unique within the statement's plan (showplan `NodeId`, actual-plan counters,
    /// the memo dump). 0 until the optimizer numbers the finished plan.
    pub node_id: u32,
    /// Row or batch mode (`optimizer::batch_mode`; showplan's `EstimatedExecutionMode`).
    pub exec_mode: ExecMode,
}

/// How an operator runs: one row at a time, or over columnar batches (exec/src/batch).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ExecMode {
    #[default]
    Row,
    Batch,
}

impl ExecMode {
    /// Showplan's name: `Row` / `Batch`.
    pub fn name(self) -> &'static str {
        match self {
            ExecMode::Row => "Row",
            ExecMode::Batch => "Batch",
        }
    }

    /// Whether batch mode holds values of `t` in a column vector (exec/src/batch/vector.rs):
    /// integers and bit, exact numerics and money, float/real, date and non-max character
    /// strings. A subtree reading any other type stays in row mode.
    pub fn vectorizable_type(t: &types::DataType) -> bool {
        use types::DataType as T;
        match t {
            T::Bit
            | T::TinyInt
            | T::SmallInt
            | T::Int
            | T::BigInt
            | T::Decimal { .. }
            | T::Numeric { .. }
            | T::Money
            | T::SmallMoney
            | T::Float
            | T::Real
            | T::Date
            | T::Char(_)
            | T::NChar(_) => true,
            T::VarChar(n) | T::NVarChar(n) => n.is_some(),
            _ => false,
        }
    }
}

/// `PhysOp::node_id` of an operator no plan shows (a pure projection, as SQL Server shows
/// none; the Top that SET ROWCOUNT adds at run time): it has no actual counters either.
pub const HIDDEN_NODE: u32 = u32::MAX;

/// Estimated costs of one operator, in SQL Server's unitless cost units.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct OpCost {
    /// This operator's own I/O cost per execution.
    pub io: f64,
    /// This operator's own CPU cost per execution.
    pub cpu: f64,
    /// This operator's cost plus its children's, for all its expected executions.
    pub subtree: f64,
    /// How many times the optimizer expects the operator to run (inner side of nested loops).
    pub executions: f64,
    /// The estimate without a row goal (`EstimateRowsWithoutRowGoal`), when a row goal
    /// lowered `est_rows`.
    pub rows_without_row_goal: Option<f64>,
}

/// How one column of an inserted row is produced.
#[derive(Clone, Debug)]
pub enum InsertColumn {
    /// Value `i` of the source row.
    Source(usize),
    /// A default expression (constant or function).
    Default(ScalarExpr),
    Null,
    /// Next identity value.
    Identity,
    /// Computed column over the new row (stored, see exec/README.md).
    Computed(ScalarExpr),
}

/// `OUTPUT` clause: expressions over `inserted` columns followed by `deleted` columns (each the
/// table's full column list).
#[derive(Clone, Debug)]
pub struct OutputSpec {
    pub exprs: Vec<ScalarExpr>,
    pub columns: Vec<ColumnMeta>,
    /// `OUTPUT ... INTO @t / table`: target table and, per output expression, the target
    /// column ordinal (None = rows go to the client).
    pub into: Option<(Arc<TableDef>, Vec<usize>)>,
}

/// A variable assignment inside UPDATE ... SET.
#[derive(Clone, Debug)]
pub struct VarAssign {
    pub variable: crate::scalar::VarRef,
    /// Value over the input row (converted to the variable's type).
    pub expr: ScalarExpr,
    /// `@v = col = expr`: take the new value of this column instead.
    pub column: Option<usize>,
}

/// A CHECK constraint bound over the table's own columns (positions = column ordinals).
#[derive(Clone, Debug)]
pub struct BoundCheck {
    pub name: String,
    pub expr: ScalarExpr,
    /// Column name for column-level constraints (shown in error 547).
    pub column: Option<String>,
}

/// What SELECT ... INTO asks the engine to create before rows are inserted.
#[derive(Clone, Debug)]
pub struct NewTableSpec {
    pub database: Option<String>,
    pub schema: Option<String>,
    pub name: String,
    pub columns: Vec<ColumnDef>,
}

/// A statement ready for optimization (`P` = LogicalOp) or execution (`P` = PhysOp).
#[derive(Clone, Debug)]
pub enum Statement<P> {
    /// A query. With `assign`, each output column is assigned to a variable instead of being
    /// sent to the client (`SELECT @a = x, @b = y FROM ...`; the last row wins).
    Select {
        input: P,
        columns: Vec<ColumnMeta>,
        assign: Option<Vec<crate::scalar::VarRef>>,
    },
    Insert {
        table: Arc<TableDef>,
        source: P,
        columns: Vec<InsertColumn>,
        /// Explicit values for the identity column are allowed (IDENTITY_INSERT ON).
        identity_insert: bool,
        checks: Vec<BoundCheck>,
        output: Option<OutputSpec>,
    },
    /// `input` rows contain the target's columns + locator starting at `target_offset`.
    Update {
        table: Arc<TableDef>,
        input: P,
        target_offset: usize,
        /// (column ordinal, new value over the input row)
        sets: Vec<(usize, ScalarExpr)>,
        /// Computed columns recomputed over the new row.
        computed: Vec<(usize, ScalarExpr)>,
        checks: Vec<BoundCheck>,
        output: Option<OutputSpec>,
        /// `SET @v = expr` (expression over the input row) / `SET @v = col = expr` (the
        /// column's new value): assigned per updated row, the last row wins.
        variables: Vec<VarAssign>,
    },
    Delete {
        table: Arc<TableDef>,
        input: P,
        target_offset: usize,
        output: Option<OutputSpec>,
    },
    Truncate {
        table: Arc<TableDef>,
    },
    /// The engine is asked (through `ExecEnv::create_table`) to create the table, then the rows
    /// of `source` are inserted.
    SelectInto {
        target: NewTableSpec,
        source: P,
    },
}

/// Output of the binder.
pub type BoundStatement = Statement<LogicalOp>;
/// Output of the optimizer, input of exec.
pub type PhysicalPlan = Statement<PhysOp>;

impl PhysOp {
    pub fn new(kind: PhysKind, columns: Vec<ColumnMeta>, est_rows: f64) -> Self {
        PhysOp {
            kind,
            columns,
            est_rows,
            cost: OpCost::default(),
            node_id: 0,
            exec_mode: ExecMode::Row,
        }
    }

    /// Child operators, mutably (see [`PhysKind::children_mut`]).
    pub fn children_mut(&mut self) -> Vec<&mut PhysOp> {
        self.kind.children_mut()
    }

    /// Child operators.
    pub fn children(&self) -> Vec<&PhysOp> {
        match &self.kind {
            PhysKind::ConstantScan { .. }
            | PhysKind::VirtualScan { .. }
            | PhysKind::TableScan { .. }
            | PhysKind::ClusteredIndexScan { .. }
            | PhysKind::IndexSeek { .. }
            | PhysKind::WorkTableScan { .. }
            | PhysKind::TableFunction { .. } => vec![],
            PhysKind::Filter { input, .. }
            | PhysKind::ComputeScalar { input, .. }
            | PhysKind::Sort { input, .. }
            | PhysKind::HashAggregate { input, .. }
            | PhysKind::StreamAggregate { input, .. }
            | PhysKind::Top { input, .. }
            | PhysKind::Window { input, .. }
            | PhysKind::HashDistinct { input }
            | PhysKind::TableSpool { input }
            | PhysKind::Parallelism { input, .. }
            | PhysKind::Repartition { input, .. }
            | PhysKind::PartialAggregate { input, .. }
            | PhysKind::GlobalAggregate { input, .. } => vec![&**input],
            PhysKind::NestedLoops { outer, inner, .. } => vec![&**outer, &**inner],
            PhysKind::HashJoin { left, right, .. }
            | PhysKind::MergeJoin { left, right, .. }
            | PhysKind::HashSetOp { left, right, .. } => vec![&**left, &**right],
            PhysKind::RecursiveCte {
                anchor, recursive, ..
            } => vec![&**anchor, &**recursive],
            PhysKind::Concatenation { inputs } => inputs.iter().collect(),
        }
    }
}

/// Which rows a MERGE clause applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MergeWhen {
    Matched,
    NotMatchedByTarget,
    NotMatchedBySource,
}

/// What a MERGE clause does.
#[derive(Clone, Debug)]
pub enum MergeAct {
    /// (column ordinal, new value) over the clause's input row.
    Update {
        sets: Vec<(usize, ScalarExpr)>,
    },
    Delete,
    /// `values` over the input row feed `columns` (`InsertColumn::Source(k)` = `values[k]`).
    Insert {
        values: Vec<ScalarExpr>,
        columns: Vec<InsertColumn>,
    },
}

/// One `WHEN ... THEN` clause.
#[derive(Clone, Debug)]
pub struct MergeClausePlan {
    pub when: MergeWhen,
    pub condition: Option<ScalarExpr>,
    pub action: MergeAct,
}

/// A bound MERGE (`P` = LogicalOp after binding, PhysOp after [`MergePlan::try_map`]).
///
/// Not a [`Statement`] variant (that would need an optimizer arm): the caller optimizes the
/// two inputs and the expressions through `try_map`, then runs it with `exec::execute_merge`.
/// * `input`: `source LEFT OUTER JOIN target ON cond`; the target's columns start at
///   `target_offset`, followed by its locator (NULL = no matching target row). MATCHED and
///   NOT MATCHED BY TARGET clauses are bound over this row.
/// * `target_rows`: every target row (columns at 0, locator at n), read before any change;
///   rows whose locator no `input` row carries are NOT MATCHED BY SOURCE (clauses bound over
///   this row). None when there is no BY SOURCE clause.
/// * `output`: over `inserted.*` (0..n), `deleted.*` (n..2n) and `$action` (2n).
#[derive(Clone, Debug)]
pub struct MergePlan<P> {
    pub table: Arc<TableDef>,
    pub input: P,
    pub target_offset: usize,
    pub target_rows: Option<P>,
    pub top: Option<ScalarExpr>,
    pub clauses: Vec<MergeClausePlan>,
    pub computed: Vec<(usize, ScalarExpr)>,
    pub checks: Vec<BoundCheck>,
    pub output: Option<OutputSpec>,
}

impl<P> MergePlan<P> {
    /// Maps the operator trees (`op`) and every expression (`expr`, e.g. to plan subqueries).
    pub fn try_map<Q>(
        self,
        op: &mut dyn FnMut(P) -> SqlResult<Q>,
        expr: &mut dyn FnMut(ScalarExpr) -> SqlResult<ScalarExpr>,
    ) -> SqlResult<MergePlan<Q>> {
        let pairs = |v: Vec<(usize, ScalarExpr)>,
                     expr: &mut dyn FnMut(ScalarExpr) -> SqlResult<ScalarExpr>|
         -> SqlResult<Vec<(usize, ScalarExpr)>> {
            v.into_iter().map(|(c, e)| Ok((c, expr(e)?))).collect()
        };
        let mut clauses = Vec::with_capacity(self.clauses.len());
        for c in self.clauses {
            let action = match c.action {
                MergeAct::Update { sets } => MergeAct::Update {
                    sets: pairs(sets, expr)?,
                },
                MergeAct::Delete => MergeAct::Delete,
                MergeAct::Insert { values, columns } => MergeAct::Insert {
                    values: values
                        .into_iter()
                        .map(&mut *expr)
                        .collect::<SqlResult<_>>()?,
                    columns: columns
                        .into_iter()
                        .map(|c| {
                            Ok(match c {
                                InsertColumn::Default(e) => InsertColumn::Default(expr(e)?),
                                InsertColumn::Computed(e) => InsertColumn::Computed(expr(e)?),
                                other => other,
                            })
                        })
                        .collect::<SqlResult<_>>()?,
                },
            };
            clauses.push(MergeClausePlan {
                when: c.when,
                condition: c.condition.map(&mut *expr).transpose()?,
                action,
            });
        }
        Ok(MergePlan {
            table: self.table,
            input: op(self.input)?,
            target_offset: self.target_offset,
            target_rows: self.target_rows.map(&mut *op).transpose()?,
            top: self.top.map(&mut *expr).transpose()?,
            clauses,
            computed: pairs(self.computed, expr)?,
            checks: self
                .checks
                .into_iter()
                .map(|mut c| {
                    c.expr = expr(c.expr)?;
                    Ok(c)
                })
                .collect::<SqlResult<_>>()?,
            output: self
                .output
                .map(|mut o| {
                    o.exprs = o
                        .exprs
                        .into_iter()
                        .map(&mut *expr)
                        .collect::<SqlResult<_>>()?;
                    Ok::<_, common::SqlError>(o)
                })
                .transpose()?,
        })
    }
}

impl PhysKind {
    /// The operator's children, mutably: on the kind, so a caller may update the node's other
    /// fields (its cost) while it holds them.
    pub fn children_mut(&mut self) -> Vec<&mut PhysOp> {
        match self {
            PhysKind::ConstantScan { .. }
            | PhysKind::VirtualScan { .. }
            | PhysKind::TableScan { .. }
            | PhysKind::ClusteredIndexScan { .. }
            | PhysKind::IndexSeek { .. }
            | PhysKind::WorkTableScan { .. }
            | PhysKind::TableFunction { .. } => vec![],
            PhysKind::Filter { input, .. }
            | PhysKind::ComputeScalar { input, .. }
            | PhysKind::Sort { input, .. }
            | PhysKind::HashAggregate { input, .. }
            | PhysKind::StreamAggregate { input, .. }
            | PhysKind::Top { input, .. }
            | PhysKind::Window { input, .. }
            | PhysKind::HashDistinct { input }
            | PhysKind::TableSpool { input }
            | PhysKind::Parallelism { input, .. }
            | PhysKind::Repartition { input, .. }
            | PhysKind::PartialAggregate { input, .. }
            | PhysKind::GlobalAggregate { input, .. } => vec![&mut **input],
            PhysKind::NestedLoops { outer, inner, .. } => vec![&mut **outer, &mut **inner],
            PhysKind::HashJoin { left, right, .. }
            | PhysKind::MergeJoin { left, right, .. }
            | PhysKind::HashSetOp { left, right, .. } => vec![&mut **left, &mut **right],
            PhysKind::RecursiveCte {
                anchor, recursive, ..
            } => vec![&mut **anchor, &mut **recursive],
            PhysKind::Concatenation { inputs } => inputs.iter_mut().collect(),
        }
    }
}
