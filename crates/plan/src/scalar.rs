//! Scalar expression IR: bound, typed, evaluation-ready.
//!
//! Column references are positional (`Column(i)` = the i-th value of the operator's input row).
//! Outer references of correlated subqueries are `Param(slot)`: the apply operator (or the
//! subquery evaluator) writes the outer value into parameter slot `slot` before evaluating the
//! inner plan. Slots are numbered per statement by the binder.

use std::sync::Arc;

use types::{DataType, Value};

use crate::logical::LogicalOp;
use crate::physical::PhysOp;

/// A bound scalar expression with its static result type.
#[derive(Clone, Debug)]
pub struct ScalarExpr {
    pub kind: ScalarKind,
    pub data_type: DataType,
}

/// Built-ins (bound as [`ScalarFunc::Builtin`]) whose value can change between two calls in one
/// statement.
pub const VOLATILE_BUILTINS: &[&str] = &[
    "RAND",
    "NEWID",
    "NEWSEQUENTIALID",
    "CRYPT_GEN_RANDOM",
    "GETDATE",
    "GETUTCDATE",
    "SYSDATETIME",
    "SYSUTCDATETIME",
    "SYSDATETIMEOFFSET",
    "CURRENT_TIMESTAMP",
];

/// Binary arithmetic / string operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    /// String concatenation (`+` on character operands).
    Concat,
    BitAnd,
    BitOr,
    BitXor,
}

/// Comparison operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    /// The operator with its operands swapped (`a < b` == `b > a`).
    pub fn swap(self) -> CmpOp {
        match self {
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::Le => CmpOp::Ge,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::Ge => CmpOp::Le,
            o => o,
        }
    }
    /// SQL text of the operator.
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "=",
            CmpOp::Ne => "<>",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Neg,
    BitNot,
}

/// Quantifier for `expr op ANY|ALL (subquery)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantifier {
    Any,
    All,
}

/// A subquery plan held inside an expression: logical after binding, physical after
/// optimization (the optimizer replaces every `Logical` with `Physical`).
#[derive(Clone, Debug)]
pub enum SubqueryPlan {
    Logical(Box<LogicalOp>),
    Physical(Arc<PhysOp>),
}

/// A subquery used as a scalar, EXISTS, IN or quantified comparison.
#[derive(Clone, Debug)]
pub struct Subquery {
    pub plan: SubqueryPlan,
    /// Parameter slots the subquery reads and the expressions (in the *outer* row) that fill them.
    pub params: Vec<(usize, ScalarExpr)>,
    /// True when the subquery has no outer references: its result may be cached.
    pub uncorrelated: bool,
}

/// Outer-reference parameters: (slot, expression that fills it).
pub type Params = Vec<(usize, ScalarExpr)>;

/// Evaluation-ready built-in function ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarFunc {
    Abs,
    Ceiling,
    Floor,
    Round,
    Power,
    Sqrt,
    Square,
    Exp,
    Log,
    Log10,
    Sign,
    Pi,
    Rand,
    Sin,
    Cos,
    Tan,
    Atan,
    Len,
    DataLength,
    Upper,
    Lower,
    LTrim,
    RTrim,
    Trim,
    Left,
    Right,
    Substring,
    Replace,
    Replicate,
    Reverse,
    CharIndex,
    PatIndex,
    Concat,
    ConcatWs,
    Space,
    Stuff,
    Ascii,
    Char,
    NChar,
    Unicode,
    Str,
    Format,
    QuoteName,
    IsNull,
    NullIf,
    Coalesce,
    Iif,
    GetDate,
    SysDateTime,
    GetUtcDate,
    DateAdd,
    DateDiff,
    DatePart,
    DateName,
    Year,
    Month,
    Day,
    EoMonth,
    DateFromParts,
    IsNumeric,
    IsDate,
    NewId,
    ObjectId,
    DbName,
    DbId,
    SchemaName,
    UserName,
    SuserSname,
    HostName,
    AppName,
    Version,
    SpId,
    RowCount,
    TranCount,
    Error,
    Identity,
    ScopeIdentity,
    ServerProperty,
    DatabasePropertyEx,
    ObjectName,
    ColumnProperty,
    TypeName,
    Choose,
    ErrorNumber,
    ErrorMessage,
    ErrorSeverity,
    ErrorState,
    ErrorLine,
    ErrorProcedure,
    /// A pure built-in evaluated by `types::functions::call` (result type from
    /// `types::functions::function_result_type`).
    Builtin,
    /// Session/catalog/user functions the engine evaluates (`ExecEnv::call_function`).
    Named,
}

/// A variable reference resolved at bind time: the slot of the variable in the frame the
/// statement runs in (slots are fixed when a batch or module is compiled, in textual order),
/// and the name as written, kept for error messages and showplan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VarRef {
    pub slot: usize,
    pub name: String,
}

impl VarRef {
    /// A reference that no frame holds: what binding checks without a frame use
    /// (`check_inline_function`); it reads as NULL and cannot be assigned.
    pub fn unbound(name: &str) -> VarRef {
        VarRef {
            slot: usize::MAX,
            name: name.to_string(),
        }
    }
}

impl std::fmt::Display for VarRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name)
    }
}

/// Expression node kinds.
#[derive(Clone, Debug)]
pub enum ScalarKind {
    Literal(Value),
    /// Column `i` of the input row.
    Column(usize),
    /// Outer reference / correlated parameter slot.
    Param(usize),
    /// `@name`, resolved at bind time to its slot in the running frame
    /// (`BindEnv::variable_slot`); exec reads it by slot (`ExecEnv::variable_at`).
    Variable(VarRef),
    Unary(UnaryOp, Box<ScalarExpr>),
    Binary(BinaryOp, Box<ScalarExpr>, Box<ScalarExpr>),
    Compare(CmpOp, Box<ScalarExpr>, Box<ScalarExpr>),
    And(Vec<ScalarExpr>),
    Or(Vec<ScalarExpr>),
    Not(Box<ScalarExpr>),
    IsNull(Box<ScalarExpr>),
    /// `expr LIKE pattern [ESCAPE e]`.
    Like {
        expr: Box<ScalarExpr>,
        pattern: Box<ScalarExpr>,
        escape: Option<Box<ScalarExpr>>,
    },
    /// `expr IN (list)`.
    InList {
        expr: Box<ScalarExpr>,
        list: Vec<ScalarExpr>,
    },
    /// Searched CASE (simple CASE is rewritten to searched by the binder).
    Case {
        whens: Vec<(ScalarExpr, ScalarExpr)>,
        else_: Option<Box<ScalarExpr>>,
    },
    /// CAST/CONVERT (explicit) or an implicit conversion the binder inserted.
    Cast {
        expr: Box<ScalarExpr>,
        style: Option<i32>,
        /// TRY_CAST / TRY_CONVERT: NULL instead of an error.
        try_: bool,
        implicit: bool,
    },
    Function {
        func: ScalarFunc,
        /// Function name as written (upper case) — used by `ScalarFunc::Named` and explain.
        name: String,
        args: Vec<ScalarExpr>,
    },
    /// Scalar subquery: its single value or NULL (error 512 when more than one row).
    ScalarSubquery(Box<Subquery>),
    Exists(Box<Subquery>),
    /// `expr [NOT] IN (subquery)` when `negated`.
    InSubquery {
        expr: Box<ScalarExpr>,
        subquery: Box<Subquery>,
    },
    /// `expr op ANY|ALL (subquery)`.
    Quantified {
        expr: Box<ScalarExpr>,
        op: CmpOp,
        quantifier: Quantifier,
        subquery: Box<Subquery>,
    },
}

impl ScalarExpr {
    pub fn new(kind: ScalarKind, data_type: DataType) -> Self {
        ScalarExpr { kind, data_type }
    }
    pub fn literal(v: Value, data_type: DataType) -> Self {
        ScalarExpr::new(ScalarKind::Literal(v), data_type)
    }
    pub fn column(i: usize, data_type: DataType) -> Self {
        ScalarExpr::new(ScalarKind::Column(i), data_type)
    }
    pub fn bool_type() -> DataType {
        DataType::Bit
    }
    /// The column index when this is a plain column reference.
    pub fn as_column(&self) -> Option<usize> {
        match self.kind {
            ScalarKind::Column(i) => Some(i),
            _ => None,
        }
    }
    pub fn as_literal(&self) -> Option<&Value> {
        match &self.kind {
            ScalarKind::Literal(v) => Some(v),
            _ => None,
        }
    }

    /// Calls `f` on every direct child expression (not into subquery plans).
    pub fn children(&self) -> Vec<&ScalarExpr> {
        let mut out = Vec::new();
        match &self.kind {
            ScalarKind::Literal(_)
            | ScalarKind::Column(_)
            | ScalarKind::Param(_)
            | ScalarKind::Variable(_) => {}
            ScalarKind::Unary(_, a) | ScalarKind::Not(a) | ScalarKind::IsNull(a) => out.push(&**a),
            ScalarKind::Binary(_, a, b) | ScalarKind::Compare(_, a, b) => {
                out.push(&**a);
                out.push(&**b)
            }
            ScalarKind::And(v) | ScalarKind::Or(v) => out.extend(v.iter()),
            ScalarKind::Like {
                expr,
                pattern,
                escape,
            } => {
                out.push(&**expr);
                out.push(&**pattern);
                if let Some(e) = escape {
                    out.push(&**e)
                }
            }
            ScalarKind::InList { expr, list } => {
                out.push(&**expr);
                out.extend(list.iter())
            }
            ScalarKind::Case { whens, else_ } => {
                for (w, t) in whens {
                    out.push(w);
                    out.push(t)
                }
                if let Some(e) = else_ {
                    out.push(&**e)
                }
            }
            ScalarKind::Cast { expr, .. } => out.push(&**expr),
            ScalarKind::Function { args, .. } => out.extend(args.iter()),
            ScalarKind::ScalarSubquery(s) | ScalarKind::Exists(s) => {
                out.extend(s.params.iter().map(|(_, e)| e))
            }
            ScalarKind::InSubquery { expr, subquery }
            | ScalarKind::Quantified { expr, subquery, .. } => {
                out.push(&**expr);
                out.extend(subquery.params.iter().map(|(_, e)| e))
            }
        }
        out
    }

    /// Mutable visit of direct children (including subquery parameter expressions).
    pub fn children_mut(&mut self) -> Vec<&mut ScalarExpr> {
        let mut out = Vec::new();
        match &mut self.kind {
            ScalarKind::Literal(_)
            | ScalarKind::Column(_)
            | ScalarKind::Param(_)
            | ScalarKind::Variable(_) => {}
            ScalarKind::Unary(_, a) | ScalarKind::Not(a) | ScalarKind::IsNull(a) => {
                out.push(&mut **a)
            }
            ScalarKind::Binary(_, a, b) | ScalarKind::Compare(_, a, b) => {
                out.push(&mut **a);
                out.push(&mut **b)
            }
            ScalarKind::And(v) | ScalarKind::Or(v) => out.extend(v.iter_mut()),
            ScalarKind::Like {
                expr,
                pattern,
                escape,
            } => {
                out.push(&mut **expr);
                out.push(&mut **pattern);
                if let Some(e) = escape {
                    out.push(&mut **e)
                }
            }
            ScalarKind::InList { expr, list } => {
                out.push(&mut **expr);
                out.extend(list.iter_mut())
            }
            ScalarKind::Case { whens, else_ } => {
                for (w, t) in whens {
                    out.push(w);
                    out.push(t)
                }
                if let Some(e) = else_ {
                    out.push(&mut **e)
                }
            }
            ScalarKind::Cast { expr, .. } => out.push(&mut **expr),
            ScalarKind::Function { args, .. } => out.extend(args.iter_mut()),
            ScalarKind::ScalarSubquery(s) | ScalarKind::Exists(s) => {
                out.extend(s.params.iter_mut().map(|(_, e)| e))
            }
            ScalarKind::InSubquery { expr, subquery }
            | ScalarKind::Quantified { expr, subquery, .. } => {
                out.push(&mut **expr);
                out.extend(subquery.params.iter_mut().map(|(_, e)| e))
            }
        }
        out
    }

    /// Subqueries directly inside this node.
    pub fn subquery_mut(&mut self) -> Option<&mut Subquery> {
        match &mut self.kind {
            ScalarKind::ScalarSubquery(s) | ScalarKind::Exists(s) => Some(s),
            ScalarKind::InSubquery { subquery, .. } | ScalarKind::Quantified { subquery, .. } => {
                Some(subquery)
            }
            _ => None,
        }
    }

    /// True if any column reference in this expression satisfies `pred`.
    pub fn any_column(&self, pred: &mut dyn FnMut(usize) -> bool) -> bool {
        if let ScalarKind::Column(i) = self.kind {
            return pred(i);
        }
        self.children().into_iter().any(|c| c.any_column(pred))
    }

    /// Collects the column indexes referenced (outside subquery plans).
    pub fn columns_used(&self, out: &mut Vec<usize>) {
        if let ScalarKind::Column(i) = self.kind {
            if !out.contains(&i) {
                out.push(i);
            }
            return;
        }
        for c in self.children() {
            c.columns_used(out);
        }
    }

    /// Rewrites every column reference through `f`.
    pub fn remap_columns(&mut self, f: &dyn Fn(usize) -> usize) {
        if let ScalarKind::Column(i) = &mut self.kind {
            *i = f(*i);
            return;
        }
        for c in self.children_mut() {
            c.remap_columns(f);
        }
    }

    /// True when the expression contains a subquery anywhere.
    pub fn has_subquery(&self) -> bool {
        match &self.kind {
            ScalarKind::ScalarSubquery(_)
            | ScalarKind::Exists(_)
            | ScalarKind::InSubquery { .. }
            | ScalarKind::Quantified { .. } => true,
            _ => self.children().into_iter().any(|c| c.has_subquery()),
        }
    }

    /// True when the expression is free of column refs, params, variables, subqueries and
    /// non-deterministic functions (it can be folded).
    pub fn is_constant(&self) -> bool {
        match &self.kind {
            ScalarKind::Literal(_) => true,
            ScalarKind::Column(_) | ScalarKind::Param(_) | ScalarKind::Variable(_) => false,
            ScalarKind::Function {
                func:
                    ScalarFunc::Rand
                    | ScalarFunc::NewId
                    | ScalarFunc::GetDate
                    | ScalarFunc::SysDateTime
                    | ScalarFunc::GetUtcDate
                    | ScalarFunc::Builtin
                    | ScalarFunc::Named,
                ..
            } => false,
            _ if self.has_subquery() => false,
            _ => self.children().into_iter().all(|c| c.is_constant()),
        }
    }

    /// True when the expression calls a function whose value can change between two calls in
    /// one statement (RAND, NEWID, the clocks) or an engine/user function (`Named`) whose
    /// determinism is unknown here.
    pub fn calls_volatile(&self) -> bool {
        if let ScalarKind::Function { func, name, .. } = &self.kind {
            let volatile = match func {
                ScalarFunc::Rand
                | ScalarFunc::NewId
                | ScalarFunc::GetDate
                | ScalarFunc::SysDateTime
                | ScalarFunc::GetUtcDate
                | ScalarFunc::Named => true,
                ScalarFunc::Builtin => VOLATILE_BUILTINS
                    .iter()
                    .any(|v| v.eq_ignore_ascii_case(name)),
                _ => false,
            };
            if volatile {
                return true;
            }
        }
        self.children().into_iter().any(|c| c.calls_volatile())
    }

    /// True when one execution may evaluate the expression once for all rows: it reads no
    /// column, parameter, variable or subquery and calls no volatile function. Unlike
    /// [`ScalarExpr::is_constant`] it accepts pure built-ins whose value depends on session
    /// settings (DATEFIRST, LANGUAGE): only for folding at execution time, never at plan time.
    pub fn is_execution_constant(&self) -> bool {
        match &self.kind {
            ScalarKind::Literal(_) => true,
            ScalarKind::Column(_) | ScalarKind::Param(_) | ScalarKind::Variable(_) => false,
            ScalarKind::ScalarSubquery(_)
            | ScalarKind::Exists(_)
            | ScalarKind::InSubquery { .. }
            | ScalarKind::Quantified { .. } => false,
            ScalarKind::Function { .. } if self.calls_volatile() => false,
            _ => self
                .children()
                .into_iter()
                .all(|c| c.is_execution_constant()),
        }
    }

    /// Splits a conjunction into its conjuncts.
    pub fn into_conjuncts(self) -> Vec<ScalarExpr> {
        match self.kind {
            ScalarKind::And(v) => v.into_iter().flat_map(|e| e.into_conjuncts()).collect(),
            _ => vec![self],
        }
    }

    /// Builds a conjunction (`None` for an empty list).
    pub fn conjunction(mut parts: Vec<ScalarExpr>) -> Option<ScalarExpr> {
        match parts.len() {
            0 => None,
            1 => parts.pop(),
            _ => Some(ScalarExpr::new(ScalarKind::And(parts), DataType::Bit)),
        }
    }
}
