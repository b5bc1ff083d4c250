//! The T-SQL abstract syntax tree.
//!
//! Conventions (see README.md):
//! * Every [`Statement`] carries `line` (1-based line of its first token within the batch) and
//!   `span` (byte offsets of the statement within the batch text).
//! * Identifiers keep their spelling ([`Ident::value`]) and whether they were `[bracketed]` or
//!   `"quoted"`; comparisons are the consumer's business (case-insensitive by default).
//! * Variables are stored with their `@` (`"@i"`); system variables without `@@` (`"FETCH_STATUS"`).
//! * Keywords that only select a variant are normalised (`!=` and `<>` are both `NotEq`,
//!   `TOP 5` and `TOP (5)` are the same). Spelling that matters to output (literal text,
//!   identifier text) is kept verbatim.
//! * `OPTION (...)` of a SELECT (also of INSERT ... SELECT and cursors) lives in [`Query::options`];
//!   UPDATE / DELETE / MERGE keep their own `options`.
//! * Module definitions (view, procedure, function, trigger) keep their source text in `text`:
//!   the batch text from its start up to the module's last token (SQL Server's
//!   `sys.sql_modules.definition` includes comments that precede CREATE in the batch), so the line
//!   numbers of body statements are line numbers within `text`.
//!
//! The AST is append-only for other crates: new variants/fields may be added, existing ones stay.

/// Byte range of a statement within the parsed text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

/// An identifier, e.g. `Orders`, `[Order Details]`, `"x"`, `#temp`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ident {
    pub value: String,
    /// `[...]` or `"..."` in the source.
    pub quoted: bool,
}

impl Ident {
    pub fn new(value: impl Into<String>) -> Ident {
        Ident {
            value: value.into(),
            quoted: false,
        }
    }
    /// Case-insensitive (ASCII) comparison with a name.
    pub fn eq_ignore_case(&self, other: &str) -> bool {
        self.value.eq_ignore_ascii_case(other)
    }
}

/// A multi-part name `server.database.schema.object` (1 to 4 parts, right-aligned: the last part
/// is the object). An omitted middle part (`master..spt_values`) is an empty `Ident`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ObjectName {
    pub parts: Vec<Ident>,
}

impl ObjectName {
    pub fn single(name: impl Into<String>) -> ObjectName {
        ObjectName {
            parts: vec![Ident::new(name)],
        }
    }
    fn part_from_right(&self, i: usize) -> Option<&Ident> {
        if self.parts.len() > i {
            let p = &self.parts[self.parts.len() - 1 - i];
            if p.value.is_empty() && !p.quoted {
                None
            } else {
                Some(p)
            }
        } else {
            None
        }
    }
    /// The object (last) part.
    pub fn name(&self) -> Option<&Ident> {
        self.part_from_right(0)
    }
    pub fn schema(&self) -> Option<&Ident> {
        self.part_from_right(1)
    }
    pub fn database(&self) -> Option<&Ident> {
        self.part_from_right(2)
    }
    pub fn server(&self) -> Option<&Ident> {
        self.part_from_right(3)
    }
    /// Name text of the object part ("" if absent).
    pub fn name_str(&self) -> &str {
        self.parts.last().map(|p| p.value.as_str()).unwrap_or("")
    }
}

/// A type as written: `varchar(max)`, `decimal(10, 2)`, `dbo.MyType`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DataTypeName {
    /// Type name as written (`"VARCHAR"`, `"nvarchar"`). Compare case-insensitively.
    pub name: String,
    /// Schema for user-defined types (`dbo.MyType`).
    pub schema: Option<Ident>,
    pub params: Vec<TypeParam>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TypeParam {
    Number(u64),
    Max,
}

// ---------------------------------------------------------------------------------------------
// Expressions
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    /// Integer literal text without sign (`"123"`): int if it fits, otherwise numeric.
    Integer(String),
    /// Decimal literal text (`"1.50"`, `".5"`): numeric(p, s).
    Decimal(String),
    /// Float literal text with exponent (`"1e10"`, `"2.5E-3"`).
    Float(String),
    /// Money literal text after the currency sign (`$1.5` -> `"1.5"`; sign kept if written `$-1`).
    Money(String),
    /// `'text'` (`national: false`) or `N'text'` with `''` already unescaped.
    String {
        value: String,
        national: bool,
    },
    /// `0x0AFF` as bytes.
    Binary(Vec<u8>),
    Null,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Plus,
    Minus,
    BitNot,
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `+`: numeric addition or string concatenation (decided by types).
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    BitAnd,
    BitOr,
    BitXor,
    Eq,
    /// `<>` or `!=`.
    NotEq,
    Lt,
    Le,
    Gt,
    Ge,
    /// `!<`
    NotLt,
    /// `!>`
    NotGt,
    And,
    Or,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Quantifier {
    All,
    Any,
    Some,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Literal(Literal),
    /// `@name` (stored with the `@`).
    Variable(String),
    /// `@@name` (stored without `@@`), e.g. `FETCH_STATUS`, `ROWCOUNT`, `SPID`.
    SystemVariable(String),
    /// A column reference with 1-4 parts (`c`, `t.c`, `s.t.c`, `db.s.t.c`). Bare words in
    /// keyword-like argument positions (`DATEADD(day, ...)`, `SET DATEFORMAT dmy`,
    /// `DBCC SQLPERF(x, CLEAR)`) are also single-part columns.
    Column(ObjectName),
    /// `$action`, `$identity` ... pseudo-columns keep their `$` in the ident.
    Unary {
        op: UnaryOp,
        expr: Box<Expr>,
    },
    Binary {
        op: BinaryOp,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    /// `(expr)` kept so the printer reproduces grouping.
    Nested(Box<Expr>),
    IsNull {
        expr: Box<Expr>,
        negated: bool,
    },
    Between {
        expr: Box<Expr>,
        negated: bool,
        low: Box<Expr>,
        high: Box<Expr>,
    },
    InList {
        expr: Box<Expr>,
        negated: bool,
        list: Vec<Expr>,
    },
    InSubquery {
        expr: Box<Expr>,
        negated: bool,
        query: Box<Query>,
    },
    Like {
        expr: Box<Expr>,
        negated: bool,
        pattern: Box<Expr>,
        escape: Option<Box<Expr>>,
    },
    /// `EXISTS (query)`; `NOT EXISTS` is `Unary { Not, Exists }`.
    Exists(Box<Query>),
    /// Scalar subquery `(SELECT ...)`.
    Subquery(Box<Query>),
    /// `expr op ALL|ANY|SOME (query)`.
    Quantified {
        left: Box<Expr>,
        op: BinaryOp,
        quantifier: Quantifier,
        query: Box<Query>,
    },
    Case {
        /// `CASE operand WHEN value ...` (simple CASE); `None` for searched CASE.
        operand: Option<Box<Expr>>,
        when_then: Vec<(Expr, Expr)>,
        else_result: Option<Box<Expr>>,
    },
    /// `CAST(expr AS type)` / `TRY_CAST`.
    Cast {
        expr: Box<Expr>,
        data_type: DataTypeName,
        try_cast: bool,
    },
    /// `CONVERT(type, expr [, style])` / `TRY_CONVERT`.
    Convert {
        data_type: DataTypeName,
        expr: Box<Expr>,
        style: Option<Box<Expr>>,
        try_convert: bool,
    },
    Function(Box<FunctionCall>),
    /// `NEXT VALUE FOR seq`.
    NextValueFor(ObjectName),
    /// `expr COLLATE name`.
    Collate {
        expr: Box<Expr>,
        collation: String,
    },
    /// Niladic keyword functions written without parentheses: `CURRENT_TIMESTAMP`, `CURRENT_USER`,
    /// `SESSION_USER`, `SYSTEM_USER`, `USER` (upper-cased).
    Niladic(String),
    /// `DEFAULT` (in VALUES lists, SET col = DEFAULT, EXEC arguments).
    Default,
    /// `IDENTITY(type [, seed, increment])` in a `SELECT ... INTO` list.
    IdentityFunction {
        data_type: DataTypeName,
        seed_increment: Option<(Box<Expr>, Box<Expr>)>,
    },
}

/// A function call: `f(x)`, `dbo.f(x)`, `COUNT(*)`, `COUNT(DISTINCT x)`, `SUM(x) OVER (...)`,
/// `STRING_AGG(x, ',') WITHIN GROUP (ORDER BY y)`.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionCall {
    pub name: ObjectName,
    pub args: Vec<Expr>,
    /// `COUNT(*)`.
    pub star: bool,
    pub distinct: bool,
    pub within_group: Vec<OrderByItem>,
    pub over: Option<WindowSpec>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct WindowSpec {
    pub partition_by: Vec<Expr>,
    pub order_by: Vec<OrderByItem>,
    pub frame: Option<WindowFrame>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FrameUnits {
    Rows,
    Range,
}

#[derive(Clone, Debug, PartialEq)]
pub struct WindowFrame {
    pub units: FrameUnits,
    pub start: FrameBound,
    /// `BETWEEN start AND end`; `None` when only a start was written.
    pub end: Option<FrameBound>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum FrameBound {
    UnboundedPreceding,
    Preceding(Box<Expr>),
    CurrentRow,
    Following(Box<Expr>),
    UnboundedFollowing,
}

#[derive(Clone, Debug, PartialEq)]
pub struct OrderByItem {
    pub expr: Expr,
    pub desc: bool,
}

// ---------------------------------------------------------------------------------------------
// Queries
// ---------------------------------------------------------------------------------------------

/// A full query expression: `[WITH ctes] body [ORDER BY] [OFFSET/FETCH] [OPTION (...)]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Query {
    pub with: Vec<Cte>,
    pub body: QueryBody,
    pub order_by: Vec<OrderByItem>,
    pub offset: Option<OffsetFetch>,
    /// `OPTION (...)`: only on a statement-level query.
    pub options: Vec<QueryHint>,
    /// `FOR JSON ...` / `FOR XML ...` / `FOR BROWSE` after ORDER BY.
    pub for_clause: Option<Box<ForClause>>,
}

/// The FOR clause of a query: how its rows are serialized.
#[derive(Clone, Debug, PartialEq)]
pub enum ForClause {
    Json(ForJson),
    Xml(ForXml),
    Browse,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ForJsonMode {
    Auto,
    Path,
}

/// `FOR JSON AUTO|PATH [, ROOT[('name')]] [, INCLUDE_NULL_VALUES] [, WITHOUT_ARRAY_WRAPPER]`.
#[derive(Clone, Debug, PartialEq)]
pub struct ForJson {
    pub mode: ForJsonMode,
    /// `ROOT` (name "root") or `ROOT('name')`.
    pub root: Option<String>,
    pub include_null_values: bool,
    pub without_array_wrapper: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ForXmlMode {
    /// `RAW [('element')]`.
    Raw(Option<String>),
    Auto,
    /// `PATH [('element')]` (`''`: no row element).
    Path(Option<String>),
    Explicit,
}

/// `ELEMENTS [XSINIL | ABSENT]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum XmlElements {
    Absent,
    XsiNil,
}

/// `FOR XML mode [, ROOT[('name')]] [, ELEMENTS ...] [, TYPE] [, BINARY BASE64] ...`.
#[derive(Clone, Debug, PartialEq)]
pub struct ForXml {
    pub mode: ForXmlMode,
    pub root: Option<String>,
    pub elements: Option<XmlElements>,
    pub type_directive: bool,
    pub binary_base64: bool,
    /// Directives written but not acted on (`XMLDATA`, `XMLSCHEMA`): refused by the binder.
    pub unsupported: Vec<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Cte {
    pub name: Ident,
    pub columns: Vec<Ident>,
    pub query: Query,
}

#[derive(Clone, Debug, PartialEq)]
pub struct OffsetFetch {
    pub offset: Expr,
    /// `FETCH NEXT|FIRST n ROWS ONLY`.
    pub fetch: Option<Expr>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SetOperator {
    Union,
    Except,
    Intersect,
}

#[derive(Clone, Debug, PartialEq)]
pub enum QueryBody {
    Select(Box<Select>),
    /// `left UNION [ALL] right` etc. INTERSECT binds tighter than UNION/EXCEPT.
    SetOp {
        op: SetOperator,
        all: bool,
        left: Box<QueryBody>,
        right: Box<QueryBody>,
    },
    /// `( query )` used as a set-operation operand.
    Parenthesized(Box<Query>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Top {
    pub quantity: Expr,
    pub percent: bool,
    pub with_ties: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Select {
    pub distinct: bool,
    pub top: Option<Top>,
    pub items: Vec<SelectItem>,
    /// `SELECT ... INTO table`.
    pub into: Option<ObjectName>,
    /// Comma-separated FROM list; each entry may be a join tree.
    pub from: Vec<TableRef>,
    pub selection: Option<Expr>,
    pub group_by: Vec<GroupByItem>,
    pub having: Option<Expr>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AssignOp {
    /// `=`
    Assign,
    /// `+=`
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    BitAnd,
    BitOr,
    BitXor,
}

#[derive(Clone, Debug, PartialEq)]
pub enum SelectItem {
    /// `expr [AS] alias`, `alias = expr` (alias normalised), or a bare expression.
    Expr { expr: Expr, alias: Option<Ident> },
    /// `*`
    Wildcard,
    /// `t.*`
    QualifiedWildcard(ObjectName),
    /// `@v = expr` / `@v += expr`.
    Assign {
        variable: String,
        op: AssignOp,
        expr: Expr,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub enum GroupByItem {
    Expr(Expr),
    /// `ROLLUP (a, (b, c))`: each element is a list (single expressions are 1-element lists).
    Rollup(Vec<Vec<Expr>>),
    Cube(Vec<Vec<Expr>>),
    GroupingSets(Vec<GroupByItem>),
    /// A parenthesised grouping set inside GROUPING SETS: `(a, b)` or `()`.
    Set(Vec<Expr>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JoinKind {
    Inner,
    LeftOuter,
    RightOuter,
    FullOuter,
    Cross,
    CrossApply,
    OuterApply,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JoinHint {
    Hash,
    Loop,
    Merge,
    Remote,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum IndexTarget {
    /// `INDEX(1)`, `INDEX(0)`.
    Id(u32),
    Name(Ident),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TableHint {
    NoLock,
    ReadUncommitted,
    ReadCommitted,
    ReadCommittedLock,
    RepeatableRead,
    Serializable,
    HoldLock,
    UpdLock,
    XLock,
    TabLock,
    TabLockX,
    PagLock,
    RowLock,
    NoWait,
    ReadPast,
    Snapshot,
    NoExpand,
    ForceScan,
    ForceSeek,
    KeepIdentity,
    KeepDefaults,
    IgnoreConstraints,
    IgnoreTriggers,
    /// `INDEX(1)`, `INDEX(ix1, ix2)`, `INDEX = ix`.
    Index(Vec<IndexTarget>),
    /// Any other hint word (upper-cased).
    Other(String),
}

#[derive(Clone, Debug, PartialEq)]
pub enum TableRef {
    Table {
        name: ObjectName,
        alias: Option<Ident>,
        hints: Vec<TableHint>,
    },
    /// `@t [alias]` table variable.
    Variable { name: String, alias: Option<Ident> },
    /// `(query) alias [(cols)]`.
    Derived {
        query: Box<Query>,
        alias: Option<Ident>,
        columns: Vec<Ident>,
    },
    /// `(VALUES (..), (..)) alias (cols)`.
    Values {
        rows: Vec<Vec<Expr>>,
        alias: Option<Ident>,
        columns: Vec<Ident>,
    },
    /// Table-valued function: `dbo.f(1) alias [(cols)]`, `OPENJSON(@j)`, `STRING_SPLIT(s, ',')`.
    Function {
        name: ObjectName,
        args: Vec<Expr>,
        alias: Option<Ident>,
        columns: Vec<Ident>,
        /// `OPENJSON(...) WITH (col type ['path'] [AS JSON], ...)` (empty when absent).
        schema: Vec<OpenJsonColumnDef>,
    },
    Join {
        left: Box<TableRef>,
        right: Box<TableRef>,
        kind: JoinKind,
        hint: Option<JoinHint>,
        /// `None` for CROSS JOIN / APPLY.
        on: Option<Expr>,
    },
    /// `( join )` parenthesised table source.
    Nested(Box<TableRef>),
    /// `OPENROWSET(BULK 'file', ...) [WITH (...)] AS alias [(cols)]` or the OLE DB provider
    /// form `OPENROWSET('provider', 'connection', query)`.
    OpenRowset(Box<OpenRowset>),
    /// `source PIVOT (agg(value_col) FOR pivot_col IN ([v1], [v2], ...)) [AS] alias`.
    Pivot {
        source: Box<TableRef>,
        aggregate: Box<FunctionCall>,
        pivot_column: Ident,
        values: Vec<Ident>,
        alias: Ident,
    },
    /// `source UNPIVOT (value_col FOR name_col IN (c1, c2, ...)) [AS] alias`.
    Unpivot {
        source: Box<TableRef>,
        value_column: Ident,
        name_column: Ident,
        columns: Vec<Ident>,
        alias: Ident,
    },
}

/// `OPENROWSET(...)` in FROM.
#[derive(Clone, Debug, PartialEq)]
pub struct OpenRowset {
    pub source: OpenRowsetSource,
    pub alias: Option<Ident>,
    pub columns: Vec<Ident>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum OpenRowsetSource {
    /// `BULK 'file', option [= value], ...` (options upper-cased, as BULK INSERT's;
    /// SINGLE_BLOB / SINGLE_CLOB / SINGLE_NCLOB are flags) and the `WITH (...)` schema.
    Bulk {
        file: String,
        options: Vec<BulkOption>,
        schema: Vec<OpenRowsetColumnDef>,
    },
    /// `'provider', 'datasource';'user';'password' | 'provider string', object | 'query'`:
    /// the arguments after the provider name kept as written (for messages and printing).
    Provider { provider: String, rest: String },
}

/// A column of `OPENROWSET(BULK ...) WITH (name type [ordinal | 'name'], ...)`.
#[derive(Clone, Debug, PartialEq)]
pub struct OpenRowsetColumnDef {
    pub name: Ident,
    pub data_type: DataTypeName,
    /// The 1-based field number in the file (CSV), when given.
    pub ordinal: Option<u32>,
    /// A source column name or path (`'name'`), when given (Parquet/JSON sources).
    pub path: Option<String>,
}

/// A column of an `OPENJSON ... WITH (...)` schema.
#[derive(Clone, Debug, PartialEq)]
pub struct OpenJsonColumnDef {
    pub name: Ident,
    pub data_type: DataTypeName,
    /// The JSON path as written (without quotes), None = `$.name`.
    pub path: Option<String>,
    /// `AS JSON`.
    pub as_json: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum QueryHint {
    MaxDop(u32),
    Recompile,
    HashJoin,
    LoopJoin,
    MergeJoin,
    HashGroup,
    OrderGroup,
    ConcatUnion,
    HashUnion,
    MergeUnion,
    ForceOrder,
    NoPerformanceSpool,
    KeepPlan,
    KeepFixedPlan,
    ExpandViews,
    RobustPlan,
    IgnoreNonclusteredColumnstoreIndex,
    /// `FAST n`
    Fast(u32),
    MaxRecursion(u32),
    MinGrantPercent(f64),
    MaxGrantPercent(f64),
    /// `OPTIMIZE FOR (@v = c, @w UNKNOWN)`: `None` value = UNKNOWN.
    OptimizeFor(Vec<(String, Option<Expr>)>),
    OptimizeForUnknown,
    /// `USE HINT ('A', 'B')`.
    UseHint(Vec<String>),
    QueryTraceOn(u32),
    /// `QUERYRULEOFF name` (undocumented in SQL Server; documented in latchkey).
    QueryRuleOff(String),
    /// `LABEL = 'x'`, anything else: upper-cased text.
    Other(String),
}

// ---------------------------------------------------------------------------------------------
// DML
// ---------------------------------------------------------------------------------------------

/// Target of INSERT/UPDATE/DELETE/OUTPUT INTO: a table (or alias / view) or a table variable.
#[derive(Clone, Debug, PartialEq)]
pub enum DmlTarget {
    Table(ObjectName),
    Variable(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct OutputClause {
    pub items: Vec<SelectItem>,
    /// `OUTPUT ... INTO target [(cols)]`.
    pub into: Option<(DmlTarget, Vec<Ident>)>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum InsertSource {
    Values(Vec<Vec<Expr>>),
    Query(Box<Query>),
    Exec(Box<Exec>),
    DefaultValues,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Insert {
    pub with: Vec<Cte>,
    pub top: Option<Top>,
    pub target: DmlTarget,
    pub hints: Vec<TableHint>,
    pub columns: Vec<Ident>,
    pub output: Option<OutputClause>,
    pub source: InsertSource,
}

/// One assignment in `UPDATE ... SET` or `MERGE ... UPDATE SET`.
#[derive(Clone, Debug, PartialEq)]
pub enum SetItem {
    /// `col = expr`, `t.col += expr`.
    Column {
        column: ObjectName,
        op: AssignOp,
        value: Expr,
    },
    /// `@v = expr`.
    Variable {
        name: String,
        op: AssignOp,
        value: Expr,
    },
    /// `@v = col = expr`.
    VariableColumn {
        variable: String,
        column: ObjectName,
        value: Expr,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Update {
    pub with: Vec<Cte>,
    pub top: Option<Top>,
    pub target: DmlTarget,
    pub hints: Vec<TableHint>,
    pub set: Vec<SetItem>,
    pub output: Option<OutputClause>,
    pub from: Vec<TableRef>,
    pub selection: Option<Expr>,
    /// `WHERE CURRENT OF cursor`.
    pub current_of: Option<CursorRef>,
    pub options: Vec<QueryHint>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Delete {
    pub with: Vec<Cte>,
    pub top: Option<Top>,
    pub target: DmlTarget,
    pub hints: Vec<TableHint>,
    pub output: Option<OutputClause>,
    pub from: Vec<TableRef>,
    pub selection: Option<Expr>,
    pub current_of: Option<CursorRef>,
    pub options: Vec<QueryHint>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MergeMatch {
    /// `WHEN MATCHED`
    Matched,
    /// `WHEN NOT MATCHED [BY TARGET]`
    NotMatchedByTarget,
    /// `WHEN NOT MATCHED BY SOURCE`
    NotMatchedBySource,
}

#[derive(Clone, Debug, PartialEq)]
pub enum MergeAction {
    Update(Vec<SetItem>),
    Delete,
    /// `INSERT [(cols)] VALUES (..)`; `values: None` = `DEFAULT VALUES`.
    Insert {
        columns: Vec<Ident>,
        values: Option<Vec<Expr>>,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct MergeClause {
    pub kind: MergeMatch,
    /// `AND condition`.
    pub condition: Option<Expr>,
    pub action: MergeAction,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Merge {
    pub with: Vec<Cte>,
    pub top: Option<Top>,
    pub target: ObjectName,
    pub target_alias: Option<Ident>,
    pub hints: Vec<TableHint>,
    pub source: TableRef,
    pub on: Expr,
    pub clauses: Vec<MergeClause>,
    pub output: Option<OutputClause>,
    pub options: Vec<QueryHint>,
}

// ---------------------------------------------------------------------------------------------
// DDL
// ---------------------------------------------------------------------------------------------

/// Value of a `NAME = value` option (index options, database options, ...).
#[derive(Clone, Debug, PartialEq)]
pub enum OptionValue {
    On,
    Off,
    /// Numeric text (`90`, `-1`, `0.5`).
    Number(String),
    /// `'string'` / `N'string'`.
    String(String),
    /// A bare word (`PAGE`, `NONE`, `UNLIMITED`, `READ_WRITE`, `10MB` ...), as written.
    Word(String),
}

/// `NAME [= value] [(nested, ...)]`, e.g. `OPTIMIZE_FOR_SEQUENTIAL_KEY = ON`, `FILLFACTOR = 90`,
/// `QUERY_STORE = ON (INTERVAL_LENGTH_MINUTES = 5)`, `FULLSCAN`.
#[derive(Clone, Debug, PartialEq)]
pub struct OptionSetting {
    /// Option name, upper-cased.
    pub name: String,
    pub value: Option<OptionValue>,
    pub nested: Vec<OptionSetting>,
}

/// `ON [PRIMARY]`, `ON ps(col)`, `ON "default"`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum StorageTarget {
    Filegroup(Ident),
    PartitionScheme { scheme: Ident, column: Ident },
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IndexColumn {
    pub name: Ident,
    pub desc: bool,
}

/// An index definition, shared by `CREATE INDEX` and inline `INDEX` in `CREATE TABLE`.
#[derive(Clone, Debug, PartialEq)]
pub struct IndexDefinition {
    pub name: Ident,
    pub unique: bool,
    /// `Some(true)` CLUSTERED, `Some(false)` NONCLUSTERED, `None` unspecified.
    pub clustered: Option<bool>,
    pub columnstore: bool,
    /// Key columns (for a nonclustered columnstore: the column list).
    pub columns: Vec<IndexColumn>,
    pub include: Vec<Ident>,
    pub filter: Option<Expr>,
    pub with_options: Vec<OptionSetting>,
    pub on: Option<StorageTarget>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReferentialAction {
    NoAction,
    Cascade,
    SetNull,
    SetDefault,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ForeignKeyRef {
    pub table: ObjectName,
    pub columns: Vec<Ident>,
    pub on_delete: Option<ReferentialAction>,
    pub on_update: Option<ReferentialAction>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ColumnConstraintKind {
    PrimaryKey {
        clustered: Option<bool>,
        with_options: Vec<OptionSetting>,
        on: Option<StorageTarget>,
    },
    Unique {
        clustered: Option<bool>,
        with_options: Vec<OptionSetting>,
        on: Option<StorageTarget>,
    },
    Check(Expr),
    References(ForeignKeyRef),
}

#[derive(Clone, Debug, PartialEq)]
pub struct ColumnConstraint {
    /// `CONSTRAINT name`.
    pub name: Option<Ident>,
    pub kind: ColumnConstraintKind,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DefaultConstraint {
    pub name: Option<Ident>,
    pub expr: Expr,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ColumnDefinition {
    pub name: Ident,
    /// `None` for a computed column.
    pub data_type: Option<DataTypeName>,
    /// `AS expr` computed column.
    pub computed: Option<Expr>,
    pub persisted: bool,
    pub collation: Option<String>,
    /// `IDENTITY [(seed, increment)]` (`(1, 1)` when written without arguments).
    pub identity: Option<(i64, i64)>,
    /// `Some(true)` NULL, `Some(false)` NOT NULL, `None` unspecified.
    pub nullable: Option<bool>,
    pub default: Option<DefaultConstraint>,
    pub constraints: Vec<ColumnConstraint>,
    pub sparse: bool,
    pub rowguidcol: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TableConstraintKind {
    PrimaryKey {
        clustered: Option<bool>,
        columns: Vec<IndexColumn>,
        with_options: Vec<OptionSetting>,
        on: Option<StorageTarget>,
    },
    Unique {
        clustered: Option<bool>,
        columns: Vec<IndexColumn>,
        with_options: Vec<OptionSetting>,
        on: Option<StorageTarget>,
    },
    Check(Expr),
    ForeignKey {
        columns: Vec<Ident>,
        references: ForeignKeyRef,
    },
    /// `ALTER TABLE t ADD CONSTRAINT df DEFAULT expr FOR col`.
    Default {
        expr: Expr,
        column: Ident,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct TableConstraint {
    pub name: Option<Ident>,
    pub kind: TableConstraintKind,
}

/// Columns / constraints / indexes of `CREATE TABLE` and `DECLARE @t TABLE`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TableDefinition {
    pub columns: Vec<ColumnDefinition>,
    pub constraints: Vec<TableConstraint>,
    pub indexes: Vec<IndexDefinition>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CreateTable {
    pub name: ObjectName,
    pub definition: TableDefinition,
    pub on: Option<StorageTarget>,
    pub textimage_on: Option<Ident>,
    pub with_options: Vec<OptionSetting>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TableElement {
    Column(ColumnDefinition),
    Constraint(TableConstraint),
    Index(IndexDefinition),
}

#[derive(Clone, Debug, PartialEq)]
pub enum AlterTableAction {
    /// `ADD col ..., CONSTRAINT ...` (elements in order).
    Add(Vec<TableElement>),
    DropColumns {
        if_exists: bool,
        names: Vec<Ident>,
    },
    DropConstraints {
        if_exists: bool,
        names: Vec<Ident>,
    },
    AlterColumn {
        name: Ident,
        data_type: DataTypeName,
        collation: Option<String>,
        nullable: Option<bool>,
    },
    /// `[WITH CHECK|NOCHECK] CHECK|NOCHECK CONSTRAINT ALL|names`: `names` empty = ALL.
    CheckConstraints {
        enable: bool,
        names: Vec<Ident>,
    },
    /// `SET (LOCK_ESCALATION = TABLE)`.
    Set(Vec<OptionSetting>),
    /// `REBUILD [WITH (...)]`.
    Rebuild(Vec<OptionSetting>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct AlterTable {
    pub name: ObjectName,
    /// `WITH CHECK` (true) / `WITH NOCHECK` (false) before `ADD` or `CHECK|NOCHECK CONSTRAINT`;
    /// None when not written (ADD validates existing rows, re-enabling does not).
    pub with_check: Option<bool>,
    pub action: AlterTableAction,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ObjectType {
    Table,
    View,
    Procedure,
    Function,
    Trigger,
    Sequence,
    Schema,
    Database,
    Type,
    Synonym,
    PartitionFunction,
    PartitionScheme,
    Statistics,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DropIndexTarget {
    pub index: Ident,
    pub table: ObjectName,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CreateIndex {
    pub table: ObjectName,
    pub index: IndexDefinition,
}

#[derive(Clone, Debug, PartialEq)]
pub enum AlterIndexAction {
    Rebuild {
        /// `PARTITION = n` / `ALL`.
        partition: Option<OptionValue>,
        options: Vec<OptionSetting>,
    },
    Reorganize {
        partition: Option<OptionValue>,
        options: Vec<OptionSetting>,
    },
    Disable,
    Set(Vec<OptionSetting>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct AlterIndex {
    /// `None` = `ALTER INDEX ALL`.
    pub name: Option<Ident>,
    pub table: ObjectName,
    pub action: AlterIndexAction,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StatisticsOption {
    FullScan,
    /// `SAMPLE n PERCENT|ROWS`.
    Sample {
        value: String,
        percent: bool,
    },
    NoRecompute,
    Incremental(bool),
    /// Anything else (upper-cased name).
    Other(OptionSetting),
}

#[derive(Clone, Debug, PartialEq)]
pub struct CreateStatistics {
    pub name: Ident,
    pub table: ObjectName,
    pub columns: Vec<Ident>,
    pub filter: Option<Expr>,
    pub options: Vec<StatisticsOption>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct UpdateStatistics {
    pub table: ObjectName,
    /// Statistics / index names (`UPDATE STATISTICS t (s1, s2)` or `t s1`).
    pub names: Vec<Ident>,
    pub options: Vec<StatisticsOption>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CreatePartitionFunction {
    pub name: Ident,
    pub input_type: DataTypeName,
    /// `RANGE RIGHT` (true) or `RANGE [LEFT]` (false).
    pub range_right: bool,
    pub boundaries: Vec<Expr>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CreatePartitionScheme {
    pub name: Ident,
    pub function: Ident,
    /// `ALL TO (fg)`.
    pub all: bool,
    pub filegroups: Vec<Ident>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum SequenceOption {
    StartWith(Expr),
    IncrementBy(Expr),
    /// `MINVALUE n`; `None` = `NO MINVALUE`.
    MinValue(Option<Expr>),
    MaxValue(Option<Expr>),
    Cycle(bool),
    /// `CACHE [n]` = `Some(Some(n))`/`Some(None)`; `NO CACHE` = `None`.
    Cache(Option<Option<Expr>>),
    /// `RESTART [WITH n]` (ALTER SEQUENCE).
    Restart(Option<Expr>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct CreateSequence {
    pub name: ObjectName,
    pub data_type: Option<DataTypeName>,
    pub options: Vec<SequenceOption>,
}

/// `CREATE TYPE name FROM base [NULL | NOT NULL]` or `CREATE TYPE name AS TABLE (...)`.
#[derive(Clone, Debug, PartialEq)]
pub struct CreateType {
    pub name: ObjectName,
    /// Base type of an alias type.
    pub base: Option<DataTypeName>,
    pub nullable: Option<bool>,
    /// Definition of a table type.
    pub table: Option<TableDefinition>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CreateMode {
    Create,
    Alter,
    CreateOrAlter,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CreateView {
    pub mode: CreateMode,
    pub name: ObjectName,
    pub columns: Vec<Ident>,
    /// `WITH SCHEMABINDING, ...` (upper-cased words).
    pub options: Vec<String>,
    pub query: Query,
    pub with_check_option: bool,
    pub text: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ProcParam {
    /// `@name`.
    pub name: String,
    pub data_type: DataTypeName,
    pub default: Option<Expr>,
    pub output: bool,
    pub readonly: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CreateProcedure {
    pub mode: CreateMode,
    pub name: ObjectName,
    pub params: Vec<ProcParam>,
    /// `WITH RECOMPILE, EXECUTE AS ...` (upper-cased words).
    pub options: Vec<String>,
    pub body: Vec<Statement>,
    pub text: String,
}

#[derive(Clone, Debug, PartialEq)]
pub enum FunctionBody {
    /// `RETURNS type AS BEGIN ... RETURN expr END`.
    Scalar {
        returns: DataTypeName,
        body: Vec<Statement>,
    },
    /// `RETURNS TABLE AS RETURN (query)`.
    InlineTable { query: Query },
    /// `RETURNS @t TABLE (...) AS BEGIN ... END`.
    MultiStatement {
        variable: String,
        table: TableDefinition,
        body: Vec<Statement>,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct CreateFunction {
    pub mode: CreateMode,
    pub name: ObjectName,
    pub params: Vec<ProcParam>,
    /// `WITH SCHEMABINDING, RETURNS NULL ON NULL INPUT ...` (upper-cased words).
    pub options: Vec<String>,
    pub body: FunctionBody,
    pub text: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TriggerTiming {
    /// `FOR` or `AFTER`.
    After,
    InsteadOf,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TriggerEvent {
    Insert,
    Update,
    Delete,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CreateTrigger {
    pub mode: CreateMode,
    pub name: ObjectName,
    pub table: ObjectName,
    pub timing: TriggerTiming,
    pub events: Vec<TriggerEvent>,
    pub body: Vec<Statement>,
    pub text: String,
}

/// `(NAME = x, FILENAME = 'y', SIZE = 10MB)`.
pub type FileSpec = Vec<OptionSetting>;

#[derive(Clone, Debug, PartialEq)]
pub struct CreateDatabase {
    pub name: Ident,
    /// `ON [PRIMARY] (file), (file)`.
    pub files: Vec<FileSpec>,
    /// `LOG ON (file)`.
    pub log_files: Vec<FileSpec>,
    pub collation: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum AlterDatabaseAction {
    /// `ADD [LOG] FILE (...), (...) [TO FILEGROUP fg]`.
    AddFile {
        log: bool,
        files: Vec<FileSpec>,
        filegroup: Option<Ident>,
    },
    ModifyFile(FileSpec),
    AddFilegroup(Ident),
    /// `REMOVE FILE logical_name`.
    RemoveFile(Ident),
    /// `REMOVE FILEGROUP name`.
    RemoveFilegroup(Ident),
    /// `MODIFY FILEGROUP name { DEFAULT | READ_ONLY | READ_WRITE | READONLY | READWRITE |
    /// AUTOGROW_SINGLE_FILE | AUTOGROW_ALL_FILES | NAME = new_name }`: the property as
    /// written (upper case; `NAME` carries the new name).
    ModifyFilegroup {
        name: Ident,
        property: String,
        new_name: Option<Ident>,
    },
    /// `SET opt = v, ... [WITH ROLLBACK IMMEDIATE | NO_WAIT]`: termination kept as text.
    Set {
        options: Vec<OptionSetting>,
        termination: Option<String>,
    },
    /// `COLLATE name`.
    Collate(String),
    ModifyName(Ident),
}

/// `ALTER DATABASE SCOPED CONFIGURATION [FOR SECONDARY] SET name = value` or
/// `ALTER DATABASE SCOPED CONFIGURATION CLEAR PROCEDURE_CACHE [plan_handle]`.
#[derive(Clone, Debug, PartialEq)]
pub enum ScopedConfiguration {
    Set {
        for_secondary: bool,
        option: OptionSetting,
    },
    ClearProcedureCache(Option<Expr>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct AlterDatabase {
    /// `None` = `CURRENT`.
    pub name: Option<Ident>,
    pub action: AlterDatabaseAction,
}

// ---------------------------------------------------------------------------------------------
// Procedural
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq)]
pub enum DeclareItem {
    /// `@a int = 1`
    Scalar {
        name: String,
        data_type: DataTypeName,
        value: Option<Expr>,
    },
    /// `@t TABLE (...)`
    Table {
        name: String,
        definition: TableDefinition,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CursorScope {
    Local,
    Global,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CursorScroll {
    ForwardOnly,
    Scroll,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CursorKind {
    Static,
    Keyset,
    Dynamic,
    FastForward,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CursorConcurrency {
    ReadOnly,
    ScrollLocks,
    Optimistic,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct CursorOptions {
    pub scope: Option<CursorScope>,
    pub scroll: Option<CursorScroll>,
    pub kind: Option<CursorKind>,
    pub concurrency: Option<CursorConcurrency>,
    pub type_warning: bool,
    /// ISO syntax `DECLARE c INSENSITIVE CURSOR`.
    pub insensitive: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DeclareCursor {
    pub name: Ident,
    pub options: CursorOptions,
    pub query: Query,
    /// `FOR UPDATE [OF cols]`: `Some(vec![])` = FOR UPDATE of all columns; ISO `FOR READ ONLY`
    /// sets `options.concurrency`.
    pub for_update: Option<Vec<Ident>>,
}

/// A cursor name (`c`, `GLOBAL c`) or cursor variable (`@c`, name starts with `@`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CursorRef {
    pub name: Ident,
    pub global: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum FetchDirection {
    Next,
    Prior,
    First,
    Last,
    Absolute(Expr),
    Relative(Expr),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Fetch {
    pub direction: FetchDirection,
    pub cursor: CursorRef,
    /// `INTO @a, @b`.
    pub into: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IsolationLevel {
    ReadUncommitted,
    ReadCommitted,
    RepeatableRead,
    Snapshot,
    Serializable,
}

#[derive(Clone, Debug, PartialEq)]
pub enum SetOption {
    /// `SET NOCOUNT ON`, `SET ANSI_NULLS, QUOTED_IDENTIFIER OFF`, `SET STATISTICS IO, TIME ON`
    /// (names upper-cased; STATISTICS/SHOWPLAN kinds as `"STATISTICS IO"`), `SET SHOWPLAN_TEXT ON`.
    OnOff { options: Vec<String>, on: bool },
    /// `SET IDENTITY_INSERT t ON|OFF`.
    IdentityInsert { table: ObjectName, on: bool },
    /// `SET TRANSACTION ISOLATION LEVEL ...`.
    TransactionIsolation(IsolationLevel),
    /// `SET ROWCOUNT n`, `SET DATEFORMAT dmy`, `SET LANGUAGE x`, `SET DATEFIRST 1`,
    /// `SET LOCK_TIMEOUT n`, `SET DEADLOCK_PRIORITY LOW`, `SET TEXTSIZE n`: bare words are
    /// single-part `Expr::Column`s. `option` upper-cased.
    Value { option: String, value: Expr },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RaisErrorOption {
    Log,
    NoWait,
    SetError,
}

/// The module called by EXEC: a name or `@var` holding the name.
#[derive(Clone, Debug, PartialEq)]
pub enum ExecModule {
    Name(ObjectName),
    Variable(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct ExecArg {
    /// `@param =` when named.
    pub name: Option<String>,
    /// `DEFAULT` is `Expr::Default`; a bare word is a single-part `Expr::Column`.
    pub value: Expr,
    pub output: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Exec {
    /// `EXEC [@rc =] proc args [WITH RECOMPILE]`.
    Module {
        return_status: Option<String>,
        module: ExecModule,
        args: Vec<ExecArg>,
        recompile: bool,
    },
    /// `EXEC (@sql + N'...') [AT server]`: the string expression to run as a batch.
    Sql { sql: Expr, at: Option<Ident> },
}

#[derive(Clone, Debug, PartialEq)]
pub struct RaisError {
    pub message: Expr,
    pub severity: Expr,
    pub state: Expr,
    pub args: Vec<Expr>,
    pub options: Vec<RaisErrorOption>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Dbcc {
    /// Command name, upper-cased (`CHECKTABLE`, `DROPCLEANBUFFERS`, `SQLPERF`, `TRACEON`).
    pub command: String,
    pub args: Vec<Expr>,
    /// `WITH NO_INFOMSGS, ALL_ERRORMSGS` (upper-cased).
    pub options: Vec<String>,
}

// ---------------------------------------------------------------------------------------------
// Statements
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq)]
pub struct Statement {
    /// 1-based line of the statement's first token within the batch.
    pub line: u32,
    /// Byte range within the batch text.
    pub span: Span,
    pub kind: StatementKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StatementKind {
    // queries and DML
    /// SELECT (also SELECT INTO, variable-assigning SELECT, WITH ... SELECT).
    Select(Box<Query>),
    Insert(Box<Insert>),
    Update(Box<Update>),
    Delete(Box<Delete>),
    Merge(Box<Merge>),
    Truncate(ObjectName),

    // DDL
    CreateTable(Box<CreateTable>),
    AlterTable(Box<AlterTable>),
    Drop {
        object_type: ObjectType,
        if_exists: bool,
        names: Vec<ObjectName>,
    },
    DropIndex {
        if_exists: bool,
        targets: Vec<DropIndexTarget>,
    },
    CreateIndex(Box<CreateIndex>),
    AlterIndex(Box<AlterIndex>),
    CreateStatistics(Box<CreateStatistics>),
    UpdateStatistics(Box<UpdateStatistics>),
    CreatePartitionFunction(Box<CreatePartitionFunction>),
    CreatePartitionScheme(Box<CreatePartitionScheme>),
    CreateSequence(Box<CreateSequence>),
    AlterSequence(Box<CreateSequence>),
    CreateType(Box<CreateType>),
    CreateView(Box<CreateView>),
    CreateProcedure(Box<CreateProcedure>),
    CreateFunction(Box<CreateFunction>),
    CreateTrigger(Box<CreateTrigger>),
    CreateSchema {
        name: Ident,
        authorization: Option<Ident>,
    },
    CreateDatabase(Box<CreateDatabase>),
    AlterDatabase(Box<AlterDatabase>),
    AlterDatabaseScopedConfiguration(Box<ScopedConfiguration>),
    Use(Ident),

    // procedural
    Declare(Vec<DeclareItem>),
    DeclareCursor(Box<DeclareCursor>),
    Open(CursorRef),
    Fetch(Box<Fetch>),
    Close(CursorRef),
    Deallocate(CursorRef),
    /// `SET @v = expr`, `SET @v += expr`.
    SetVariable {
        name: String,
        op: AssignOp,
        value: Expr,
    },
    /// `SET @c = CURSOR [options] FOR query`.
    SetCursorVariable {
        name: String,
        options: CursorOptions,
        query: Box<Query>,
    },
    SetOption(SetOption),
    If {
        condition: Expr,
        then_stmt: Box<Statement>,
        else_stmt: Option<Box<Statement>>,
    },
    While {
        condition: Expr,
        body: Box<Statement>,
    },
    /// `BEGIN ... END`.
    Block(Vec<Statement>),
    TryCatch {
        try_block: Vec<Statement>,
        catch_block: Vec<Statement>,
    },
    Break,
    Continue,
    Return(Option<Expr>),
    Goto(Ident),
    /// `label:`
    Label(Ident),
    /// `WAITFOR DELAY 'hh:mm:ss'` (`delay: true`) or `WAITFOR TIME '...'`.
    WaitFor {
        delay: bool,
        value: Expr,
    },
    Print(Expr),
    RaisError(Box<RaisError>),
    /// `THROW` (rethrow) or `THROW number, message, state`.
    Throw(Option<Box<(Expr, Expr, Expr)>>),
    /// `BEGIN TRAN[SACTION] [name | @var]`.
    BeginTransaction {
        name: Option<String>,
    },
    /// `COMMIT [TRAN[SACTION] | WORK] [name]`.
    Commit {
        name: Option<String>,
    },
    /// `ROLLBACK [TRAN[SACTION] | WORK] [name]`.
    Rollback {
        name: Option<String>,
    },
    /// `SAVE TRAN[SACTION] name`.
    SaveTransaction {
        name: String,
    },
    Exec(Box<Exec>),
    Checkpoint(Option<Expr>),
    Dbcc(Box<Dbcc>),
    BulkInsert(Box<BulkInsert>),
    /// `CREATE EXTERNAL DATA SOURCE | FILE FORMAT | TABLE ... [AS SELECT ...]`.
    CreateExternal(Box<CreateExternal>),
    /// `DROP EXTERNAL DATA SOURCE | FILE FORMAT | TABLE name`.
    DropExternal {
        kind: ExternalKind,
        name: ObjectName,
    },
    /// Logins, users, roles and permissions, with the statement's source text.
    Security {
        stmt: Box<SecurityStatement>,
        text: String,
    },
    /// Statements recognised but not modelled (RECONFIGURE, KILL, ...): first keyword
    /// upper-cased and the statement's source text.
    Unsupported {
        keyword: String,
        text: String,
    },
}

/// `CREATE/ALTER/DROP LOGIN | USER | ROLE`, `ALTER SERVER ROLE`, `GRANT | DENY | REVOKE`.
#[derive(Clone, Debug, PartialEq)]
pub enum SecurityStatement {
    CreateLogin {
        name: Ident,
        /// `FROM WINDOWS | EXTERNAL | CERTIFICATE | ASYMMETRIC` (upper-cased first word).
        source: Option<String>,
        options: Vec<PrincipalOption>,
    },
    AlterLogin {
        name: Ident,
        action: AlterLoginAction,
    },
    DropLogin {
        name: Ident,
    },
    CreateUser {
        name: Ident,
        login: Option<Ident>,
        without_login: bool,
        options: Vec<PrincipalOption>,
    },
    AlterUser {
        name: Ident,
        options: Vec<PrincipalOption>,
    },
    DropUser {
        name: Ident,
        if_exists: bool,
    },
    CreateRole {
        name: Ident,
        authorization: Option<Ident>,
    },
    /// `ALTER ROLE` (`server: false`) or `ALTER SERVER ROLE`.
    AlterRole {
        name: Ident,
        action: RoleAction,
        server: bool,
    },
    DropRole {
        name: Ident,
        if_exists: bool,
    },
    Permission(Box<PermissionStatement>),
}

#[derive(Clone, Debug, PartialEq)]
pub enum AlterLoginAction {
    Enable,
    Disable,
    Options(Vec<PrincipalOption>),
}

#[derive(Clone, Debug, PartialEq)]
pub enum RoleAction {
    AddMember(Ident),
    DropMember(Ident),
    Rename(Ident),
}

/// `NAME = value [HASHED | MUST_CHANGE | UNLOCK ...]` of CREATE/ALTER LOGIN/USER.
#[derive(Clone, Debug, PartialEq)]
pub struct PrincipalOption {
    /// Upper-cased option name (`PASSWORD`, `DEFAULT_DATABASE`, `CHECK_POLICY`, `SID` ...).
    pub name: String,
    pub value: PrincipalValue,
    /// Upper-cased words after the value (`HASHED`, `MUST_CHANGE`, `UNLOCK`).
    pub flags: Vec<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum PrincipalValue {
    Text(String),
    /// `0x...` as written.
    Binary(String),
    On,
    Off,
    Name(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PermissionAction {
    Grant,
    Deny,
    Revoke,
}

/// `GRANT | DENY | REVOKE perms [ON [class::]securable] TO|FROM principals ...`.
#[derive(Clone, Debug, PartialEq)]
pub struct PermissionStatement {
    pub action: PermissionAction,
    /// Upper-cased permission names (`SELECT`, `VIEW DEFINITION`, `ALL PRIVILEGES`).
    pub permissions: Vec<String>,
    /// A column list was given (column permissions).
    pub has_columns: bool,
    /// `OBJECT`, `SCHEMA`, `DATABASE` ... of `class::name`, upper-cased.
    pub class: Option<String>,
    pub securable: Option<ObjectName>,
    pub principals: Vec<Ident>,
    pub with_grant_option: bool,
    pub grant_option_for: bool,
    pub cascade: bool,
    pub as_principal: Option<Ident>,
}

/// Which external object a `CREATE/DROP EXTERNAL ...` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExternalKind {
    DataSource,
    FileFormat,
    Table,
}

/// `CREATE EXTERNAL <kind> name [(columns)] WITH (option = value, ...) [AS query]`.
#[derive(Clone, Debug, PartialEq)]
pub struct CreateExternal {
    pub kind: ExternalKind,
    pub name: ObjectName,
    /// `CREATE EXTERNAL TABLE t (c type [NULL | NOT NULL], ...)` over existing files (empty
    /// otherwise): (name, type, nullable), nullable unless NOT NULL is written.
    pub columns: Vec<(Ident, DataTypeName, bool)>,
    /// Option names upper-cased; values as written (`PARQUET`, `'file:///x'`, `ds_name`).
    pub options: Vec<(String, Expr)>,
    /// `AS SELECT ...` of CREATE EXTERNAL TABLE AS SELECT (CETAS).
    pub query: Option<Query>,
}

/// `BULK INSERT [db.][schema.]table FROM 'file' [WITH (option [, ...])]`.
#[derive(Clone, Debug, PartialEq)]
pub struct BulkInsert {
    pub table: ObjectName,
    pub file: String,
    /// Options in source order, names upper-cased (the parser accepts only SQL Server's names).
    pub options: Vec<BulkOption>,
}

/// One `WITH` option of BULK INSERT.
#[derive(Clone, Debug, PartialEq)]
pub struct BulkOption {
    pub name: String,
    pub value: BulkOptionValue,
}

/// The value of a BULK INSERT option.
#[derive(Clone, Debug, PartialEq)]
pub enum BulkOptionValue {
    /// A flag (`TABLOCK`, `KEEPNULLS`, ...).
    None,
    Str(String),
    Int(i64),
    /// `ORDER (column [ASC | DESC], ...)`: (column, descending).
    Order(Vec<(Ident, bool)>),
    /// `HEADER_ROW = TRUE | FALSE` (OPENROWSET).
    Bool(bool),
}
