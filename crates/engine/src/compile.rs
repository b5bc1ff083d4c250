//! Compilation of a batch or module body into a [`Program`] that runs without re-parsing or
//! re-binding statements on every execution (engine/README "Compiled programs").
//!
//! * Variables get slots at compile time, in textual order (SQL Server's rule: a `DECLARE`
//!   declares the variable for the rest of the batch whether or not it runs). A frame holds the
//!   values in a `Vec` indexed by slot. The binder resolves each variable reference to its slot
//!   (`plan::VarRef`, through `BindEnv::variable_slot`); exec reads and assigns variables by
//!   slot, so the name map is used only when a statement is bound.
//! * Every expression and every query statement gets an id; its bound form (a `ScalarExpr`,
//!   evaluated by exec's evaluator, the only one) or its
//!   physical plan is cached in a [`RunCache`] next to the program, tagged with the schema
//!   generation ([`crate::session::Session::schema_generation`], schema_gen.rs). A change to a
//!   catalog the session depends on moves it, so a stale entry is re-bound on its next use. `OPTION (RECOMPILE)` statements and
//!   `WITH RECOMPILE` modules are never cached; `sp_recompile` bumps the generation.
//! * Control flow is a tree of [`Node`]s; `GOTO` unwinds to the nearest enclosing node list
//!   holding the label.

use std::collections::HashMap;
use std::sync::Arc;

use common::{SqlError, SqlResult};
use parser::ast::{self, Statement, StatementKind};
use plan::ScalarExpr;
use types::DataType;

/// A declared variable slot.
#[derive(Clone, Debug)]
pub(crate) struct VarDecl {
    /// Lower-case name with `@`.
    pub name: String,
    pub data_type: DataType,
    /// Table variable definition (`DECLARE @t TABLE (...)`).
    pub table: Option<ast::TableDefinition>,
}

/// An expression with its cache id.
#[derive(Debug)]
pub(crate) struct ExprRef {
    pub id: usize,
    pub ast: ast::Expr,
}

#[derive(Debug)]
pub(crate) struct Node {
    pub line: u32,
    pub kind: NodeKind,
    /// The statement's `sys.dm_exec_requests.command` index (`live.rs`), looked up once here:
    /// searching the command names per statement was a quarter of a tight WHILE loop (W6).
    pub command: Option<u8>,
    /// How many of the program's variables (slots are numbered in textual order) this
    /// statement may name: those declared before it. T-SQL scopes a variable from its DECLARE
    /// to the end of the batch, and a DECLARE's initializers do not see the variables of the
    /// same DECLARE (`DECLARE @x int = 1, @y int = @x` is Msg 137).
    pub scope: usize,
}

impl Node {
    pub(crate) fn new(line: u32, kind: NodeKind) -> Node {
        let command = crate::live::command_index_of(&kind);
        Node {
            line,
            kind,
            command,
            scope: usize::MAX,
        }
    }
}

#[derive(Debug)]
pub(crate) enum NodeKind {
    /// Initialisers of a DECLARE (a DECLARE without value does nothing at run time).
    Declare(Vec<(usize, ExprRef)>),
    /// `DECLARE @t TABLE (...)`: creates the backing tempdb table.
    DeclareTable(usize),
    Set {
        slot: usize,
        expr: ExprRef,
    },
    If {
        cond: ExprRef,
        then: Vec<Node>,
        els: Vec<Node>,
    },
    While {
        cond: ExprRef,
        body: Vec<Node>,
    },
    Block(Vec<Node>),
    Try {
        body: Vec<Node>,
        catch: Vec<Node>,
    },
    Break,
    Continue,
    Return(Option<ExprRef>),
    Print(ExprRef),
    Goto(usize),
    Label(usize),
    /// SELECT / INSERT / UPDATE / DELETE / MERGE with a plan cache slot.
    Query {
        stmt: Box<Statement>,
        plan: usize,
        recompile: bool,
    },
    /// Any other statement: run by the statement interpreter (`Session::exec_stmt`).
    Other(Box<Statement>),
}

/// A compiled batch or module body.
#[derive(Debug)]
pub(crate) struct Program {
    pub nodes: Vec<Node>,
    /// Slots: parameters first, then DECLAREd variables in textual order.
    pub vars: Vec<VarDecl>,
    pub n_exprs: usize,
    pub n_plans: usize,
    /// `WITH RECOMPILE`: nothing is cached.
    pub recompile: bool,
}

/// Per-program caches of bound expressions and plans.
#[derive(Default)]
pub(crate) struct RunCache {
    /// Bound expressions (variables resolved to this program's frame slots), by expression id.
    pub exprs: Vec<Option<(u64, ScalarExpr)>>,
    pub plans: Vec<Option<(u64, Arc<plan::PhysicalPlan>, bool)>>,
    /// The statistics each cached plan was compiled from, by plan slot (plan_stats.rs).
    pub stamps: Vec<Option<crate::plan_stats::StatsStamp>>,
    /// The engine-wide entry of a cached batch or parameterised statement (plan_stats.rs).
    pub entry: Option<Arc<crate::plan_stats::PlanEntry>>,
}

impl RunCache {
    pub fn for_program(p: &Program) -> RunCache {
        RunCache {
            exprs: (0..p.n_exprs).map(|_| None).collect(),
            plans: (0..p.n_plans).map(|_| None).collect(),
            stamps: (0..p.n_plans).map(|_| None).collect(),
            entry: None,
        }
    }
}

struct Compiler<'a> {
    vars: Vec<VarDecl>,
    index: HashMap<String, usize>,
    n_exprs: usize,
    n_plans: usize,
    labels: Vec<String>,
    gotos: Vec<(String, u32)>,
    resolve_type: &'a dyn Fn(&ast::DataTypeName) -> SqlResult<DataType>,
}

/// Compiles a statement list. `params` are the slots declared before the body (procedure or
/// sp_executesql parameters); `resolve_type` resolves declared type names (alias types).
pub(crate) fn compile(
    stmts: Vec<Statement>,
    params: Vec<VarDecl>,
    recompile: bool,
    resolve_type: &dyn Fn(&ast::DataTypeName) -> SqlResult<DataType>,
) -> SqlResult<Program> {
    let mut c = Compiler {
        index: params
            .iter()
            .enumerate()
            .map(|(i, v)| (v.name.clone(), i))
            .collect(),
        vars: params,
        n_exprs: 0,
        n_plans: 0,
        labels: Vec::new(),
        gotos: Vec::new(),
        resolve_type,
    };
    // Labels first, so a GOTO may jump forward.
    collect_labels(&stmts, &mut c.labels)?;
    let nodes = c.list(stmts)?;
    for (l, line) in &c.gotos {
        if !c.labels.iter().any(|x| x.eq_ignore_ascii_case(l)) {
            return Err(SqlError::custom(
                133,
                15,
                1,
                format!(
                    "A GOTO statement references the label '{l}' but the label has not been declared."
                ),
            )
            .at_line(*line));
        }
    }
    Ok(Program {
        nodes,
        vars: c.vars,
        n_exprs: c.n_exprs,
        n_plans: c.n_plans,
        recompile,
    })
}

fn collect_labels(stmts: &[Statement], out: &mut Vec<String>) -> SqlResult<()> {
    for s in stmts {
        match &s.kind {
            StatementKind::Label(l) => {
                if out.iter().any(|x| x.eq_ignore_ascii_case(&l.value)) {
                    return Err(SqlError::custom(
                        132,
                        15,
                        1,
                        format!(
                            "The label '{}' has already been declared. Label names must be unique within a query batch or stored procedure.",
                            l.value
                        ),
                    )
                    .at_line(s.line));
                }
                out.push(l.value.clone());
            }
            StatementKind::If {
                then_stmt,
                else_stmt,
                ..
            } => {
                collect_labels(std::slice::from_ref(then_stmt), out)?;
                if let Some(e) = else_stmt {
                    collect_labels(std::slice::from_ref(e), out)?;
                }
            }
            StatementKind::While { body, .. } => collect_labels(std::slice::from_ref(body), out)?,
            StatementKind::Block(b) => collect_labels(b, out)?,
            StatementKind::TryCatch {
                try_block,
                catch_block,
            } => {
                collect_labels(try_block, out)?;
                collect_labels(catch_block, out)?;
            }
            _ => {}
        }
    }
    Ok(())
}

fn has_recompile(s: &Statement) -> bool {
    let hints: &[ast::QueryHint] = match &s.kind {
        StatementKind::Select(q) => &q.options,
        StatementKind::Update(u) => &u.options,
        StatementKind::Delete(d) => &d.options,
        StatementKind::Merge(m) => &m.options,
        _ => &[],
    };
    hints.iter().any(|h| matches!(h, ast::QueryHint::Recompile))
}

impl Compiler<'_> {
    fn expr(&mut self, e: ast::Expr) -> ExprRef {
        let id = self.n_exprs;
        self.n_exprs += 1;
        ExprRef { id, ast: e }
    }

    fn declare(&mut self, name: &str, data_type: DataType, line: u32) -> SqlResult<usize> {
        let key = name.to_lowercase();
        if self.index.contains_key(&key) {
            return Err(SqlError::new(134, &[&name]).at_line(line));
        }
        let slot = self.vars.len();
        self.vars.push(VarDecl {
            name: key.clone(),
            data_type,
            table: None,
        });
        self.index.insert(key, slot);
        Ok(slot)
    }

    fn list(&mut self, stmts: Vec<Statement>) -> SqlResult<Vec<Node>> {
        let mut out = Vec::with_capacity(stmts.len());
        for s in stmts {
            out.push(self.stmt(s)?);
        }
        Ok(out)
    }

    fn one(&mut self, s: Statement) -> SqlResult<Vec<Node>> {
        Ok(vec![self.stmt(s)?])
    }

    fn stmt(&mut self, s: Statement) -> SqlResult<Node> {
        let scope = self.vars.len();
        let mut node = self.stmt_unscoped(s)?;
        node.scope = scope;
        // the helper nodes of a DECLARE (its table variables, then its initializers)
        if let NodeKind::Block(parts) = &mut node.kind {
            for p in parts.iter_mut().filter(|p| p.scope == usize::MAX) {
                p.scope = scope;
            }
        }
        Ok(node)
    }

    fn stmt_unscoped(&mut self, s: Statement) -> SqlResult<Node> {
        let line = s.line;
        let kind = match s.kind {
            StatementKind::Declare(items) => {
                let mut inits = Vec::new();
                let mut tables = Vec::new();
                for item in items {
                    match item {
                        ast::DeclareItem::Scalar {
                            name,
                            data_type,
                            value,
                        } => {
                            let t = (self.resolve_type)(&data_type).map_err(|e| e.at_line(line))?;
                            let slot = self.declare(&name, t, line)?;
                            if let Some(v) = value {
                                let r = self.expr(v);
                                inits.push((slot, r));
                            }
                        }
                        ast::DeclareItem::Table { name, definition } => {
                            let slot = self.declare(&name, DataType::Int, line)?;
                            self.vars[slot].table = Some(definition);
                            tables.push(slot);
                        }
                    }
                }
                if !tables.is_empty() {
                    let mut nodes: Vec<Node> = tables
                        .into_iter()
                        .map(|t| Node::new(line, NodeKind::DeclareTable(t)))
                        .collect();
                    if !inits.is_empty() {
                        nodes.push(Node::new(line, NodeKind::Declare(inits)));
                    }
                    NodeKind::Block(nodes)
                } else {
                    NodeKind::Declare(inits)
                }
            }
            StatementKind::SetVariable { name, op, value } => {
                match self.index.get(&name.to_lowercase()).copied() {
                    Some(slot) => {
                        let e = if op == ast::AssignOp::Assign {
                            value
                        } else {
                            crate::interp::compound(&name, op, &value)
                        };
                        NodeKind::Set {
                            slot,
                            expr: self.expr(e),
                        }
                    }
                    None => NodeKind::Other(Box::new(Statement {
                        line,
                        span: s.span,
                        kind: StatementKind::SetVariable { name, op, value },
                    })),
                }
            }
            StatementKind::If {
                condition,
                then_stmt,
                else_stmt,
            } => {
                let cond = self.expr(condition);
                let then = self.one(*then_stmt)?;
                let els = match else_stmt {
                    Some(e) => self.one(*e)?,
                    None => Vec::new(),
                };
                NodeKind::If { cond, then, els }
            }
            StatementKind::While { condition, body } => {
                let cond = self.expr(condition);
                let body = self.one(*body)?;
                NodeKind::While { cond, body }
            }
            StatementKind::Block(b) => NodeKind::Block(self.list(b)?),
            StatementKind::TryCatch {
                try_block,
                catch_block,
            } => NodeKind::Try {
                body: self.list(try_block)?,
                catch: self.list(catch_block)?,
            },
            StatementKind::Break => NodeKind::Break,
            StatementKind::Continue => NodeKind::Continue,
            StatementKind::Return(v) => NodeKind::Return(v.map(|e| self.expr(e))),
            StatementKind::Print(e) => NodeKind::Print(self.expr(e)),
            StatementKind::Label(l) => {
                let id = self
                    .labels
                    .iter()
                    .position(|x| x.eq_ignore_ascii_case(&l.value))
                    .unwrap_or(usize::MAX);
                NodeKind::Label(id)
            }
            StatementKind::Goto(l) => {
                let id = self
                    .labels
                    .iter()
                    .position(|x| x.eq_ignore_ascii_case(&l.value))
                    .unwrap_or(usize::MAX);
                self.gotos.push((l.value.clone(), line));
                NodeKind::Goto(id)
            }
            kind @ (StatementKind::Select(_)
            | StatementKind::Insert(_)
            | StatementKind::Update(_)
            | StatementKind::Delete(_)
            | StatementKind::Merge(_)) => {
                let stmt = Statement {
                    line,
                    span: s.span,
                    kind,
                };
                let recompile = has_recompile(&stmt);
                let plan = self.n_plans;
                self.n_plans += 1;
                NodeKind::Query {
                    stmt: Box::new(stmt),
                    plan,
                    recompile,
                }
            }
            kind => NodeKind::Other(Box::new(Statement {
                line,
                span: s.span,
                kind,
            })),
        };
        Ok(Node::new(line, kind))
    }
}
